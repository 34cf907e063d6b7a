import ActorNode
import Dispatch
import Glibc
import Synchronization
import Testing

/// The event loop runs work in the order it came: a job queued before a peer's bytes were
/// even sent runs before the handler of those bytes (how a core's notice, posted before a
/// client sent an action, comes before that action's rendition).
@Suite("Event loop: order of jobs and events")
struct EventLoopOrderTests {
    private final class Recorder: EventHandler {
        let fd: Int32
        let log: Mutex<[String]>

        init(fd: Int32) {
            self.fd = fd
            log = Mutex([])
        }

        func handleEvents(_ events: UInt32, scratch: UnsafeMutableRawBufferPointer) {
            _ = read(fd, scratch.baseAddress, scratch.count)
            log.withLock { $0.append("bytes") }
        }
    }

    @Test("a job queued before bytes arrive runs before their handler, when both are seen in one turn", .timeLimit(.minutes(1)))
    func jobsBeforeLaterEvents() async throws {
        let pair = try WatchedSocketPair { Recorder(fd: $0) }
        defer { pair.close() }
        let loop = pair.loop
        let recorder = pair.handler

        // Hold the loop's thread at the end of a turn while the job is queued and the bytes sent.
        let holding = DispatchSemaphore(value: 0)
        let held = DispatchSemaphore(value: 0)
        let first = Atomic<Bool>(true)
        let hook = loop.onEndOfTurn {
            guard first.exchange(false, ordering: .relaxed) else { return }
            held.signal()
            holding.wait()
        }
        defer { loop.removeEndOfTurnHook(hook) }
        loop.execute {}
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                held.wait()
                continuation.resume()
            }
        }
        loop.execute { recorder.log.withLock { $0.append("job") } }
        var byte: UInt8 = 1
        #expect(write(pair.writing, &byte, 1) == 1)
        holding.signal()

        let deadline = ContinuousClock.now + .seconds(10)
        while recorder.log.withLock({ $0.count }) < 2, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(recorder.log.withLock { $0 } == ["job", "bytes"])
    }
}
