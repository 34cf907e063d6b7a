import Wire

/// `history`: one line per applied action the core's journal holds, in order: its revision,
/// when it was applied (UTC), who sent it, and the action as JSON; or, with `--json`, one object
/// per line: `{"action":{...},"at":...,"by":{...},"revision":R}`. `--follow` goes on with every
/// new action as it is applied, like `tail -F`: through restarts of the core (as `watch` does,
/// for `--timeout`, 10 s by default, each time), asking again from the revision after the
/// last one printed, so that nothing is printed twice or left out; until interrupted, or the
/// core is stopped for good.
enum HistoryCommand<App: ShellApp> {
    /// Prints the history as it comes; returns the exit status.
    static func run(_ request: HistoryRequest, json: Bool, options: ShellOptions) throws(CommandFailure) -> ExitStatus {
        guard request.follow == true else {
            let client = try LookBackQuery<App>.open(options, command: "history")
            defer { client.close() }
            _ = try LookBackQuery<App>.ask(Query(id: 1, history: request), on: client, options: options) { entry throws(CommandFailure) in
                // A reader that went away (history | head) ends the command quietly.
                _ = StandardStreams.writeNow(1, line(entry, json: json))
            }
            return .success
        }
        let client = try CoreConnection<App>.blockingClient(
            options, role: .script, name: "\(App.program) history --follow", reconnectFor: options.timeout, mirrors: false, snapshot: false)
        defer { client.close() }
        do {
            _ = try client.open()
            var id: UInt64 = 1
            var printed: UInt64?
            try client.ask(Query(id: id, history: request))
            while true {
                for event in try client.events(before: nil) {
                    switch event {
                    case let .entry(entry) where entry.id == id:
                        guard entry.revision > printed ?? 0 else { continue }
                        guard StandardStreams.writeNow(1, line(entry, json: json)) else { return .success }
                        printed = entry.revision
                    case let .replied(reply) where reply.id == id:
                        if let error = reply.error { throw LookBackQuery<App>.failure(error) }
                    case let .reconnecting(reason):
                        say(reason)
                    case let .reconnected(revision):
                        // Asked again from the revision after the last one printed; what the
                        // last query had not printed yet comes with it.
                        id += 1
                        var again = request
                        again.last = nil
                        if let printed { again.from = printed + 1 }
                        say("reconnected to the core at revision \(revision); following from revision \(again.from ?? 1)")
                        try client.ask(Query(id: id, history: again))
                    case let .ended(error):
                        guard let error else { return .success }
                        throw OneShotHalt.failed(error)
                    default:
                        continue
                    }
                }
            }
        } catch let failure as CommandFailure {
            throw failure
        } catch let halt as OneShotHalt {
            if case let .failed(ending) = halt, case .goodbye = ending {
                // The core was stopped for good: the history is over, and that is no failure.
                say("\(ending)")
                return .success
            }
            throw CoreConnection<App>.failure(halt, timeout: options.timeout, host: options.ssh)
        } catch {
            throw CommandFailure(.protocolError, "\(error)")
        }
    }

    private static func say(_ text: String) {
        StandardStreams.writeNow(2, Array("\(App.program): \(text)\n".utf8))
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
