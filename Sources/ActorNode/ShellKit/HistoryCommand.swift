import Wire

/// `history`: one line per applied action the core's journal holds, in order: its revision,
/// when it was applied (UTC), who sent it, and the action as JSON; or, with `--json`, one object
/// per line: `{"action":{...},"at":...,"by":{...},"revision":R}`. `--follow` goes on with every
/// new action as it is applied, like `tail -f`, until interrupted or the core goes.
enum HistoryCommand<App: ShellApp> {
    /// Prints the history as it comes; returns the exit status.
    static func run(_ request: HistoryRequest, json: Bool, options: ShellOptions) throws(CommandFailure) -> ExitStatus {
        let client = try LookBackQuery<App>.open(options, command: request.follow == true ? "history --follow" : "history")
        defer { client.close() }
        var stopped = false
        _ = try LookBackQuery<App>.ask(Query(id: 1, history: request), on: client, options: options) { entry throws(CommandFailure) in
            guard !stopped else { return }
            // A reader that went away (history | head) ends the command quietly.
            if !StandardStreams.writeNow(1, line(entry, json: json)) { stopped = true }
        }
        guard request.follow == true, !stopped else { return .success }
        // The reply marks the end of what the journal held: entries go on until the core goes.
        while true {
            let events: [ClientEvent]
            do throws(OneShotHalt) {
                events = try client.events(before: nil)
            } catch {
                throw CoreConnection<App>.failure(error, timeout: options.timeout, host: options.ssh)
            }
            for event in events {
                switch event {
                case let .entry(entry) where entry.id == 1:
                    guard StandardStreams.writeNow(1, line(entry, json: json)) else { return .success }
                case let .ended(error):
                    guard let error else { return .success }
                    throw CoreConnection<App>.failure(error, host: options.ssh)
                default:
                    continue
                }
            }
        }
    }

    /// One entry as a line.
    /// - Parameters:
    ///   - entry: the entry.
    ///   - json: one JSON object, or the readable form.
    static func line(_ entry: HistoryEntry, json: Bool) -> [UInt8] {
        if json {
            let object = JSONValue.object(["revision": .integer(Int64(truncatingIfNeeded: entry.revision)), "at": .double(entry.at), "by": entry.by, "action": entry.action])
            return ((try? JSONSerializer.serialize(object)) ?? []) + [UInt8(ascii: "\n")]
        }
        let action = PeerText.escaped(String(decoding: (try? JSONSerializer.serialize(entry.action)) ?? [], as: UTF8.self))
        return Array("\(entry.revision) \(LogLine.timestamp(at: entry.at)) \(sender(entry.by)) \(action)\n".utf8)
    }

    /// Who sent it, readably: `shell-client attach (client 5f1c…, pid 4242, alice)`, `core`,
    /// `core (effect close)`, `core (timer close)`.
    static func sender(_ by: JSONValue) -> String {
        guard case let .object(members) = by else { return "?" }
        func string(_ key: String) -> String? {
            if case let .string(value)? = members[key] { return PeerText.escaped(value) }
            return nil
        }
        if members["core"] != nil {
            if let effect = string("effect") { return "core (effect \(effect))" }
            if let timer = string("timer") { return "core (timer \(timer))" }
            return "core"
        }
        var details = ["client \(string("client") ?? "?")"]
        if case let .integer(pid)? = members["pid"] { details.append("pid \(pid)") }
        if let user = string("user") {
            details.append(user)
        } else if case let .integer(uid)? = members["uid"] {
            details.append("uid \(uid)")
        }
        return "\(string("name") ?? "client") (\(details.joined(separator: ", ")))"
    }
}
