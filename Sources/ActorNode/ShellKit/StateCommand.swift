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
