import FoundationEssentials
import Synchronization
import Testing
@testable import ActorNode

/// The queue policies, run directly on an EffectRuntime with hand-made work.
@Suite("Effect queues")
struct EffectQueueTests {
    /// Work that records when it starts and ends, and waits for its gate (or cancellation).
    final class Recorder: Sendable {
        private let events = Mutex<[String]>([])
        private let gates = Mutex<[String: CheckedContinuation<Void, Never>]>([:])

        func record(_ event: String) { events.withLock { $0.append(event) } }
        var all: [String] { events.withLock { $0 } }

        func work(_ name: String, id: EffectID? = nil, queue: EffectQueue?) -> Effect<String>.Work {
            let effect: Effect<String> = .task(id: id, queue: queue) { _ in
                self.record("start \(name)")
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        self.gates.withLock { $0[name] = continuation }
                        // Cancelled before the gate existed: the handler found nothing to open.
                        if Task.isCancelled { self.open(name) }
                    }
                } onCancel: {
                    self.open(name)
                }
                self.record(Task.isCancelled ? "cancel \(name)" : "end \(name)")
            }
            guard case let .work(work) = effect.steps[0] else { fatalError("not work") }
            return work
        }

        /// Lets the named work end.
        func open(_ name: String) {
            let gate = gates.withLock { $0.removeValue(forKey: name) }
            gate?.resume()
        }

        func isWaiting(_ name: String) -> Bool { gates.withLock { $0[name] != nil } }
    }

    private func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0 ..< 1000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return false
    }

    @Test("runNewest(1): a new effect cancels the running one")
    func runNewestOne() async {
        let recorder = Recorder()
        let runtime = EffectRuntime<String>(time: TestTime()) { _, _ in }
        let queue = EffectQueue("q", policy: .runNewest(1))
        _ = runtime.start(recorder.work("a", queue: queue))
        #expect(await eventually { recorder.isWaiting("a") })
        _ = runtime.start(recorder.work("b", queue: queue))
        #expect(await eventually { recorder.all.contains("cancel a") && recorder.isWaiting("b") })
        #expect(runtime.activeCount == 1)
        recorder.open("b")
        #expect(await eventually { runtime.activeCount == 0 && recorder.all.count == 4 })
        // Cancellation is cooperative: b may start before a has finished stopping.
        #expect(Set(recorder.all) == ["start a", "cancel a", "start b", "end b"])
        #expect(recorder.all.first == "start a" && recorder.all.last == "end b")
    }

    @Test("runNewest(2): the third cancels the oldest, two keep running")
    func runNewestTwo() async {
        let recorder = Recorder()
        let runtime = EffectRuntime<String>(time: TestTime()) { _, _ in }
        let queue = EffectQueue("q", policy: .runNewest(2))
        for name in ["a", "b", "c"] {
            _ = runtime.start(recorder.work(name, queue: queue))
            #expect(await eventually { recorder.isWaiting(name) })
        }
        #expect(await eventually { recorder.all.contains("cancel a") })
        #expect(runtime.activeCount == 2)
        #expect(recorder.isWaiting("b") && recorder.isWaiting("c"))
        runtime.cancelAll()
        #expect(await eventually { runtime.activeCount == 0 })
    }

    @Test("runOldest(1, discardNew): while one runs, newcomers are dropped unstarted")
    func runOldestDiscard() async {
        let recorder = Recorder()
        let runtime = EffectRuntime<String>(time: TestTime()) { _, _ in }
        let queue = EffectQueue("q", policy: .runOldest(1, overflow: .discardNew))
        #expect(runtime.start(recorder.work("a", queue: queue)) != nil)
        #expect(await eventually { recorder.isWaiting("a") })
        #expect(runtime.start(recorder.work("b", queue: queue)) == nil)
        recorder.open("a")
        #expect(await eventually { runtime.activeCount == 0 })
        #expect(recorder.all == ["start a", "end a"])
        // With the queue free again, a new one runs.
        #expect(runtime.start(recorder.work("c", queue: queue)) != nil)
        #expect(await eventually { recorder.isWaiting("c") })
        recorder.open("c")
    }

    @Test("runOldest(1, suspendNew): newcomers wait their turn, in order; a waiting one can be cancelled")
    func runOldestSuspend() async {
        let recorder = Recorder()
        let runtime = EffectRuntime<String>(time: TestTime()) { _, _ in }
        let queue = EffectQueue("q", policy: .runOldest(1, overflow: .suspendNew))
        _ = runtime.start(recorder.work("a", queue: queue))
        let b = runtime.start(recorder.work("b", queue: queue))
        _ = runtime.start(recorder.work("c", queue: queue))
        #expect(await eventually { recorder.isWaiting("a") })
        #expect(runtime.activeCount == 3)
        #expect(recorder.all == ["start a"])
        b?.cancel()
        recorder.open("a")
        #expect(await eventually { recorder.isWaiting("c") })
        recorder.open("c")
        #expect(await eventually { runtime.activeCount == 0 })
        #expect(recorder.all == ["start a", "end a", "start c", "end c"])
    }

    @Test("runOldest(2, suspendNew): two at a time")
    func runOldestTwo() async {
        let recorder = Recorder()
        let runtime = EffectRuntime<String>(time: TestTime()) { _, _ in }
        let queue = EffectQueue("q", policy: .runOldest(2, overflow: .suspendNew))
        for name in ["a", "b", "c"] { _ = runtime.start(recorder.work(name, queue: queue)) }
        #expect(await eventually { recorder.isWaiting("a") && recorder.isWaiting("b") })
        #expect(!recorder.all.contains("start c"))
        recorder.open("b")
        #expect(await eventually { recorder.isWaiting("c") })
        recorder.open("a")
        recorder.open("c")
        #expect(await eventually { runtime.activeCount == 0 })
    }

    @Test("a queue's delay spaces out starts, on the store's time")
    func delayBetweenStarts() async {
        let recorder = Recorder()
        let time = TestTime()
        let runtime = EffectRuntime<String>(time: time) { _, _ in }
        let queue = EffectQueue("q", policy: .runOldest(3, overflow: .suspendNew), delay: .seconds(2))
        for name in ["a", "b"] { _ = runtime.start(recorder.work(name, queue: queue)) }
        #expect(await eventually { recorder.isWaiting("a") })
        try? await Task.sleep(for: .milliseconds(20))
        #expect(!recorder.all.contains("start b"), "b starts only 2 s (test time) after a")
        await time.advance(by: .seconds(1))
        #expect(!recorder.all.contains("start b"))
        await time.advance(by: .seconds(1))
        #expect(await eventually { recorder.isWaiting("b") })
        runtime.cancelAll()
        #expect(await eventually { runtime.activeCount == 0 })
    }

    @Test("cancelling a queued effect by id frees its place")
    func cancelQueuedByID() async {
        let recorder = Recorder()
        let runtime = EffectRuntime<String>(time: TestTime()) { _, _ in }
        let queue = EffectQueue("q", policy: .runOldest(1, overflow: .suspendNew))
        _ = runtime.start(recorder.work("a", id: "a", queue: queue))
        _ = runtime.start(recorder.work("b", id: "b", queue: queue))
        #expect(await eventually { recorder.isWaiting("a") })
        runtime.cancel(["a"])
        #expect(await eventually { recorder.isWaiting("b") })
        runtime.cancel(["b"])
        #expect(await eventually { runtime.activeCount == 0 && recorder.all.count == 4 })
        #expect(recorder.all == ["start a", "cancel a", "start b", "cancel b"])
    }
}
