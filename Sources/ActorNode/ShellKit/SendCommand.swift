import Wire

/// `send`: one action (a verb or JSON), or a stream of them from stdin.
enum SendCommand<App: ShellApp> {
    /// `send VERB ARGS...` or `send --json JSON`: one action, read from the command line by
    /// `read`, sent on the calling thread with blocking waits (``BlockingClient``); it returns
    /// once the core has answered, within `--timeout` in all (connecting, reconnecting, waiting
    /// for the answer).
    static func one(_ read: (VerbTable<App.Action>) throws(VerbMistake) -> App.Action, options: ShellOptions) throws(CommandFailure) -> ExitStatus {
        let verbs = VerbTable(verbs: App.verbs)
        let action = try parse { () throws(VerbMistake) in try read(verbs) }
        let giveUp = MonotonicClock.Instant.now + options.timeout
        let client = try CoreConnection<App>.blockingClient(options, role: .script, name: "\(App.program) send", reconnectFor: options.timeout, mirrors: false, snapshot: false, giveUp: giveUp)
        let json: [UInt8]
        do {
            json = try WireJSON.encode(action)
        } catch {
            throw CommandFailure(.protocolError, "protocol error: could not encode the action: \(error)")
        }
        let outcome: ActionOutcome
        do throws(OneShotHalt) {
            // The action goes right after the hello: one round trip, not two.
            client.start()
            let seq = try client.submit(json)
            outcome = try client.outcome(of: seq)
            client.close()
        } catch {
            throw CoreConnection<App>.failure(error, timeout: options.timeout, host: options.ssh)
        }
        if case let .rejected(reject) = outcome {
            throw CommandFailure(.rejected, "rejected: \(PeerText.escaped(reject.message)) (\(PeerText.escaped(reject.code)))")
        }
        return .success
    }

    /// `send -`.
    static func lines(options: ShellOptions) async throws(CommandFailure) -> ExitStatus {
        try await sendLines(VerbTable(verbs: App.verbs), options: options)
    }

    private static func parse(_ body: () throws(VerbMistake) -> App.Action) throws(CommandFailure) -> App.Action {
        do {
            return try body()
        } catch {
            throw .usage(error.description, program: App.program)
        }
    }

    /// Sends each line as soon as it is read, keeping up to `window` actions in flight; the core
    /// applies them in order. A line that does not parse or is rejected is reported with its
    /// number and the rest go on; the exit status is the worst seen.
    private static func sendLines(_ verbs: VerbTable<App.Action>, options: ShellOptions, window: Int = 128) async throws(CommandFailure) -> ExitStatus {
        let (link, _) = try await CoreConnection<App>.open(options, role: .script, name: "\(App.program) send -", reconnectFor: options.timeout)
        let watchdog = Watchdog(timeout: options.timeout, message: "the core did not answer")
        let worst = try await watchdog.guarding { () throws(CommandFailure) -> ExitStatus in
            var inFlight = RingBuffer<(line: Int, seq: UInt64)>()
            var worst = ExitStatus.success
            var lineNumber = 0

            func settleOldest() async throws(CommandFailure) {
                guard let (line, seq) = inFlight.popFirst() else { return }
                let outcome: ActionOutcome
                do throws(LinkError) {
                    outcome = try await link.outcome(of: seq)
                } catch {
                    throw CoreConnection<App>.failure(error, host: options.ssh)
                }
                if inFlight.isEmpty { watchdog.stop() } else { watchdog.reset() }
                if case let .rejected(reject) = outcome {
                    await StandardStreams.err("\(App.program): line \(line): rejected: \(PeerText.escaped(reject.message)) (\(PeerText.escaped(reject.code)))\n")
                    worst = max(worst, .rejected)
                }
            }

            for await text in LineReader.lines() {
                lineNumber += 1
                let trimmed = text.drop { $0.isWhitespace }
                if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
                let action: App.Action
                do {
                    action = try verbs.parseLine(text)
                } catch {
                    await StandardStreams.err("\(App.program): line \(lineNumber): \(error)\n")
                    worst = max(worst, .usage)
                    continue
                }
                do throws(LinkError) {
                    inFlight.append((lineNumber, try await link.submit(action)))
                } catch {
                    throw CoreConnection<App>.failure(error, host: options.ssh)
                }
                if inFlight.count == 1 { watchdog.reset() }
                if inFlight.count >= window { try await settleOldest() }
            }
            while !inFlight.isEmpty { try await settleOldest() }
            return worst
        }
        await link.close()
        return worst
    }
}

extension ExitStatus: Comparable {
    public static func < (lhs: ExitStatus, rhs: ExitStatus) -> Bool { lhs.rawValue < rhs.rawValue }
}
