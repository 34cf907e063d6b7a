import Testing
@testable import ActorNode
@testable import Wire

/// The runtime knows nothing of to-dos: these tests serve a counter with it, in one process,
/// over plain channels.
@Suite("CoreNode and ShellLink in one process")
struct CoreNodeTests {
    enum CounterAction: Codable, Sendable, Equatable {
        case add(Int)
    }

    static let reducer = Reducer<Int, CounterAction, Void> { state, action, _ throws(Rejection) in
        switch action {
        case let .add(amount):
            guard amount != 0 else { throw Rejection(code: "zero", message: "adding zero changes nothing") }
            state += amount
        }
        return .none
    }

    private func makeCore() -> CoreNode<Int, CounterAction, Void> {
        CoreNode(state: 0, reducer: Self.reducer, environment: ())
    }

    private func attach(_ core: CoreNode<Int, CounterAction, Void>, role: ClientRole = .shell) async throws -> ShellLink<Int, CounterAction> {
        let (coreSide, shellSide) = InProcessSession.pair(state: Int.self, action: CounterAction.self)
        Task { await core.serve(coreSide) }
        let link = ShellLink(session: shellSide, hello: Hello(role: role, client: "c\(Int.random(in: 0 ..< 1_000_000))", name: "test"))
        _ = try await link.open()
        return link
    }

    @Test("an action is applied, acknowledged with its revision, and seen by every shell")
    func applyAndBroadcast() async throws {
        let core = makeCore()
        let first = try await attach(core)
        let second = try await attach(core)
        #expect(try await first.send(.add(5)) == .applied(revision: 1))
        #expect(try await second.send(.add(2)) == .applied(revision: 2))
        for link in [first, second] {
            var seen: [(UInt64, Int)] = []
            for await event in link.events {
                if case let .state(revision, state) = event { seen.append((revision, state)) }
                if seen.last?.0 == 2 { break }
            }
            // Conflated: a consumer may skip revisions, but they only grow and end at the newest.
            #expect(seen.map(\.0) == seen.map(\.0).sorted())
            #expect(seen.last?.0 == 2 && seen.last?.1 == 7)
        }
    }

    @Test("a rejected action changes nothing and gets the reducer's reason")
    func reject() async throws {
        let core = makeCore()
        let link = try await attach(core)
        #expect(try await link.send(.add(0)) == .rejected(Reject(seq: 1, code: "zero", message: "adding zero changes nothing")))
        #expect(await core.current.revision == 0)
        #expect(await core.current.state == 0)
    }

    @Test("the rendition for a revision reaches its sender before the ack")
    func renditionBeforeAck() async throws {
        let core = makeCore()
        let link = try await attach(core)
        for amount in 1 ... 20 {
            let outcome = try await link.send(.add(amount))
            guard case let .applied(revision) = outcome else { Issue.record("rejected"); return }
            #expect(await link.current?.revision == revision)
        }
    }

    @Test("pipelined actions are applied in the order they were sent")
    func pipelining() async throws {
        let core = makeCore()
        let link = try await attach(core, role: .script)
        let seqs = try await (1 ... 50).asyncMap { try await link.submit(.add($0)) }
        var revisions: [UInt64] = []
        for seq in seqs {
            if case let .applied(revision) = try await link.outcome(of: seq) { revisions.append(revision) }
        }
        #expect(revisions == Array(1 ... 50))
        #expect(await core.current.state == 1275)
    }

    @Test("a client whose first message is not hello gets an error and is let go")
    func helloFirst() async throws {
        let core = makeCore()
        let (coreSide, shellSide) = InProcessSession.pair(state: Int.self, action: CounterAction.self)
        let served = Task { await core.serve(coreSide) }
        await shellSide.outbound.send(.action(ActionRequest(client: "x", seq: 1, action: .add(1))))
        let reply = await shellSide.inbound.receive()
        guard case let .error(error)? = reply else { Issue.record("expected an error, got \(String(describing: reply))"); return }
        #expect(error.code == "hello_required")
        #expect(await shellSide.inbound.receive() == nil)
        await served.value
        #expect(await core.current.revision == 0)
    }

    @Test("another protocol version is refused with both versions named")
    func versionMismatch() async throws {
        let core = makeCore()
        let (coreSide, shellSide) = InProcessSession.pair(state: Int.self, action: CounterAction.self)
        Task { await core.serve(coreSide) }
        let link = ShellLink(session: shellSide, hello: Hello(protocolVersion: 99, role: .shell, client: "x", name: "old"))
        do {
            _ = try await link.open()
            Issue.record("a protocol 99 client was welcomed")
        } catch {
            guard case let .versionMismatch(message) = error else { Issue.record("\(error)"); return }
            #expect(message.message.contains("protocol 1"))
            #expect(message.message.contains("speaks 99"))
            #expect(message.protocolVersion == 1)
        }
    }

    @Test("no hello within the handshake timeout ends the session")
    func handshakeTimeout() async throws {
        let core = CoreNode(state: 0, reducer: Self.reducer, environment: (), handshakeTimeout: .milliseconds(50))
        let (coreSide, shellSide) = InProcessSession.pair(state: Int.self, action: CounterAction.self)
        Task { await core.serve(coreSide) }
        guard case let .error(error)? = await shellSide.inbound.receive() else { Issue.record("no error"); return }
        #expect(error.code == "handshake_timeout")
    }

    @Test("a script receives acks but no renditions")
    func scriptsGetNoRenditions() async throws {
        let core = makeCore()
        let (coreSide, shellSide) = InProcessSession.pair(state: Int.self, action: CounterAction.self)
        Task { await core.serve(coreSide) }
        await shellSide.outbound.send(.hello(Hello(role: .script, client: "s", name: "script")))
        await shellSide.outbound.send(.action(ActionRequest(client: "s", seq: 1, action: .add(3))))
        guard case .welcome? = await shellSide.inbound.receive() else { Issue.record("no welcome"); return }
        #expect(await shellSide.inbound.receive() == .ack(Ack(seq: 1, revision: 1)))
    }

    @Test("a client that sends without reading its answers is not read from past the limit; every action is answered once it reads")
    func floodingClientIsHeldBack() async throws {
        let core = makeCore()
        let (coreSide, shellSide) = InProcessSession.pair(state: Int.self, action: CounterAction.self, limits: .init(renditionLag: 1, hardLimit: 50, unansweredLimit: 4))
        Task { await core.serve(coreSide) }
        await shellSide.outbound.send(.hello(Hello(role: .script, client: "flood", name: "flood")))
        for seq in UInt64(1) ... 20 {
            await shellSide.outbound.send(.action(ActionRequest(client: "flood", seq: seq, action: .add(1))))
        }
        // Four actions taken and unanswered (not read): the core takes no more.
        let deadline = ContinuousClock.now + .seconds(5)
        while await core.current.revision < 4, ContinuousClock.now < deadline { await Task.yield() }
        try await Task.sleep(for: .milliseconds(100))
        #expect(await core.current.revision == 4)
        guard case .welcome? = await shellSide.inbound.receive() else { Issue.record("no welcome"); return }
        for seq in UInt64(1) ... 20 {
            #expect(await shellSide.inbound.receive() == .ack(Ack(seq: seq, revision: seq)))
        }
        #expect(await core.current.revision == 20)
    }

    @Test("a watcher that does not read is let go with too_slow once non-replies pile up past the hard limit")
    func slowWatcherIsLetGo() async throws {
        let core = makeCore()
        let (coreSide, shellSide) = InProcessSession.pair(state: Int.self, action: CounterAction.self, limits: .init(renditionLag: 1, hardLimit: 5, unansweredLimit: 2))
        let served = Task { await core.serve(coreSide) }
        await shellSide.outbound.send(.hello(Hello(role: .watcher, client: "slow", name: "slow")))
        let deadline = ContinuousClock.now + .seconds(5)
        while core.shellCount == 0, ContinuousClock.now < deadline { await Task.yield() }
        for number in 1 ... 10 { core.notify("notice \(number)") }
        shellSide.outbound.close()
        await served.value
        guard case .welcome? = await shellSide.inbound.receive() else { Issue.record("no welcome"); return }
        var last: ServerMessage<Int>?
        while let message = await shellSide.inbound.receive() { last = message }
        guard case let .error(error)? = last else { Issue.record("expected a too_slow error, got \(String(describing: last))"); return }
        #expect(error.code == "too_slow")
    }

    @Test("a shell's link keeps up with every rendition; a slow consumer of its events gets the newest state")
    func linkConflatesForSlowConsumer() async throws {
        let core = makeCore()
        let shell = try await attach(core, role: .watcher)
        let writer = try await attach(core, role: .script)
        for _ in 1 ... 100 { _ = try await writer.send(.add(1)) }
        // The link takes every rendition as it comes, on its own; wait until it has the last.
        while await shell.current?.revision != 100 { try await Task.sleep(for: .milliseconds(1)) }
        var events: [(UInt64, Int)] = []
        for await event in shell.events {
            if case let .state(revision, state) = event { events.append((revision, state)) }
            if events.last?.0 == 100 { break }
        }
        // The consumer read nothing while the 100 actions went through: it gets the newest state
        // at once, not a hundred stale ones.
        #expect(events.count == 1)
        #expect(events.first?.0 == 100 && events.first?.1 == 100)
    }

    @Test("a notice comes after the state it follows, even to a consumer that was not reading")
    func noticeFollowsItsState() async throws {
        let core = makeCore()
        let shell = try await attach(core, role: .watcher)
        let writer = try await attach(core, role: .script)
        _ = try await writer.send(.add(3))
        core.notify("three added")
        _ = try await writer.send(.add(1))
        var events: [String] = []
        for await event in shell.events {
            switch event {
            case let .state(revision, _): events.append("state \(revision)")
            case let .notice(text): events.append("notice \(text)")
            case .ended: events.append("ended")
            case .reconnecting, .reconnected, .presence: events.append("connection change")
            }
            if events.count == 2 { break }
        }
        // The notice arrived after revision 1; the consumer gets the newest state it has (1 or
        // 2, depending on timing), then the notice: never the notice first.
        #expect(events.count == 2 && ["state 1", "state 2"].contains(events[0]) && events[1] == "notice three added", "\(events)")
    }

    @Test("a shell that stops reading is sent the newest snapshot, not the backlog")
    func lagCoalescing() async throws {
        let core = makeCore()
        let (coreSide, shellSide) = InProcessSession.pair(state: Int.self, action: CounterAction.self, limits: .init(renditionLag: 4, hardLimit: 1000))
        Task { await core.serve(coreSide) }
        await shellSide.outbound.send(.hello(Hello(role: .watcher, client: "slow", name: "slow")))
        guard case .welcome? = await shellSide.inbound.receive() else { Issue.record("no welcome"); return }
        let writer = try await attach(core, role: .script)
        for _ in 1 ... 30 { _ = try await writer.send(.add(1)) }
        var renditions: [Rendition<Int>] = []
        while let message = await shellSide.inbound.receive(timeout: .milliseconds(100)).message {
            if case let .rendition(rendition) = message { renditions.append(rendition) }
        }
        // Never more than the lag limit queued, starting with a snapshot, ending at the newest revision.
        #expect(renditions.count <= 4)
        #expect(renditions.last?.revision == 30)
        #expect(renditions.map(\.revision) == renditions.map(\.revision).sorted())
        guard case .snapshot? = renditions.first?.content else { Issue.record("the backlog did not start with a snapshot"); return }
    }
}

extension TimedReceive {
    var message: Element? {
        if case let .message(message) = self { return message }
        return nil
    }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
