import Wire

/// Asking a running core about the past, for `state --at`, `diff` and `history`: one
/// connection of its own (as a script: no renditions), the query, then its entries and reply,
/// on the calling thread with blocking waits (``BlockingClient``). A query is answered from the
/// core's state directory, off its loop.
enum LookBackQuery<App: ShellApp> {
    /// Opens a connection for `command` ("state --at", say), for its hello's name.
    static func open(_ options: ShellOptions, command: String) throws(CommandFailure) -> BlockingClient {
        let client = try CoreConnection<App>.blockingClient(options, role: .script, name: "\(App.program) \(command)", mirrors: false, snapshot: false)
        do throws(OneShotHalt) {
            _ = try client.open()
        } catch {
            throw CoreConnection<App>.failure(error, timeout: options.timeout, host: options.ssh)
        }
        return client
    }

    /// Sends `query` and waits for its reply, handing each history entry to `entry` as it comes:
    /// no longer than `--timeout` when it was given, else as long as it takes (a replay of a long
    /// journal may take seconds, a history may be long, and `--follow` has no end).
    /// - Returns: the reply; a reply that says why the query failed is thrown as the command's
    ///   failure.
    static func ask(_ query: Query, on client: BlockingClient, options: ShellOptions, entry: (HistoryEntry) throws(CommandFailure) -> Void = { _ in }) throws(CommandFailure) -> Reply {
        func halted(_ halt: OneShotHalt) -> CommandFailure {
            CoreConnection<App>.failure(oldCore(halt), timeout: options.timeout, host: options.ssh)
        }
        do throws(OneShotHalt) {
            try client.ask(query)
        } catch {
            throw halted(error)
        }
        let deadline = options.timeoutOption.map { MonotonicClock.Instant.now + $0 }
        while true {
            let events: [ClientEvent]
            do throws(OneShotHalt) {
                events = try client.events(before: deadline)
            } catch {
                throw halted(error)
            }
            if events.isEmpty, let deadline, MonotonicClock.Instant.now >= deadline { throw halted(.outOfTime) }
            for event in events {
                switch event {
                case let .entry(item) where item.id == query.id:
                    try entry(item)
                case let .replied(reply) where reply.id == query.id:
                    if let error = reply.error { throw failure(error) }
                    return reply
                case let .ended(error):
                    throw halted(.failed(error ?? .closed("this client closed the link")))
                default:
                    continue
                }
            }
        }
    }

    /// The state at `revision`, decoded, and its revision.
    static func state(at revision: UInt64, on client: BlockingClient, id: UInt64 = 1, options: ShellOptions) throws(CommandFailure) -> (json: JSONValue, revision: UInt64) {
        let reply = try ask(Query(id: id, stateAt: revision), on: client, options: options)
        guard let state = reply.state, let revision = reply.revision else {
            throw CommandFailure(.protocolError, "the core's reply to state --at \(revision) holds no state")
        }
        return (state, revision)
    }

    /// A reply that says why a query failed, as the command's failure.
    static func failure(_ error: ReplyError) -> CommandFailure {
        CommandFailure(error.code == "not_held" || error.code == "no_journal" ? .rejected : .unreachable, PeerText.escaped(error.message))
    }

    /// A core older than queries refuses one as a bad frame: said as that.
    private static func oldCore(_ halt: OneShotHalt) -> OneShotHalt {
        guard case let .failed(.protocolError(error)) = halt, error.code == ErrorCode.badFrame.rawValue, error.message.contains("query") else { return halt }
        return .failed(.protocolError(ErrorMessage(.badFrame, "this core is older than state --at, diff and history; restart it from this version")))
    }
}
