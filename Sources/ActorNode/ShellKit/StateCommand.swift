import Wire

/// `state [--json]`: the state as the core has it now, from the welcome of a connection of its
/// own, on the calling thread with blocking waits (``BlockingClient``). `state` does not reconnect.
enum StateCommand<App: ShellApp> {
    /// Returns what to print.
    static func run(json: Bool, options: ShellOptions) throws(CommandFailure) -> [UInt8] {
        let client = try CoreConnection<App>.blockingClient(options, role: .script, name: "\(App.program) state", mirrors: false)
        let welcome: ReceivedWelcome
        do throws(OneShotHalt) {
            welcome = try client.open()
            client.close()
        } catch {
            throw CoreConnection<App>.failure(error, timeout: options.timeout, host: options.ssh)
        }
        // The state as the core sent it, when that is the line to print; else decoded.
        if json, let line = welcome.jsonLine() { return line }
        let state: App.State
        do {
            state = try welcome.state(as: App.State.self)
        } catch {
            throw CoreConnection<App>.failure(error, host: options.ssh)
        }
        return Array((json ? StateJSON.line(state, revision: welcome.revision) : App.render(state, revision: welcome.revision)).utf8)
    }
}

/// The state as one line of JSON, for programs: the app's state object with `"revision"` added
/// at its top level, `{"revision":7,"notes":{...}}`.
enum StateJSON {
    static func line(_ state: some Encodable, revision: UInt64) -> String {
        line((try? JSONValue(encoding: state)) ?? .null, revision: revision)
    }

    /// The same line from the state's JSON, without a typed state.
    static func line(_ json: JSONValue, revision: UInt64) -> String {
        String(decoding: bytes(json, revision: revision), as: UTF8.self)
    }

    /// The same line as bytes, written straight from the state's JSON (nothing copied).
    static func bytes(_ json: JSONValue, revision: UInt64) -> [UInt8] {
        guard case let .object(members) = json,
              var line = try? JSONSerializer.serialize(members, setting: "revision", to: .integer(Int64(revision)))
        else {
            return Array("{\"revision\":\(revision)}\n".utf8)
        }
        line.append(UInt8(ascii: "\n"))
        return line
    }
}
