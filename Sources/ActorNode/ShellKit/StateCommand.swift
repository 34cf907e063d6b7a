import Wire

/// `state [--json]`: the state as the core has it now, from the welcome of a connection of its
/// own, on the calling thread with blocking waits (``BlockingClient``). `state` does not reconnect.
/// `state --at REV` asks the core for the state at a revision its state directory holds
/// (``LookBackQuery``).
enum StateCommand<App: ShellApp> {
    /// Returns what to print.
    static func run(json: Bool, at revision: UInt64? = nil, options: ShellOptions) throws(CommandFailure) -> [UInt8] {
        if let revision { return try run(json: json, at: revision, options: options) }
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

    private static func run(json: Bool, at revision: UInt64, options: ShellOptions) throws(CommandFailure) -> [UInt8] {
        let client = try LookBackQuery<App>.open(options, command: "state --at")
        defer { client.close() }
        let found = try LookBackQuery<App>.state(at: revision, on: client, options: options)
        if json { return StateJSON.bytes(found.json, revision: found.revision) }
        do {
            let state = try JSONValueDecoder().decode(App.State.self, from: found.json)
            return Array(App.render(state, revision: found.revision).utf8)
        } catch {
            throw CommandFailure(.protocolError, "the state at revision \(revision) does not decode as this shell's state (\(PeerText.escaped(describeDecodingFailure(error)))); use matching versions of the core and the shell")
        }
    }
}
