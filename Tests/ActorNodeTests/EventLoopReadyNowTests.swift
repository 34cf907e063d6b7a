@testable import ActorNode
import Dispatch
import Glibc
import Synchronization
import Testing

/// `handleReadyNow()`: from the end of a turn, the descriptors ready by then are handled at
/// once, without waiting for the next turn (how the core's group commit takes in the actions
/// that arrived while it worked).
@Suite("Event loop: handling what is ready now")
struct EventLoopReadyNowTests {
    /// Counts its calls and drains its descriptor.
    private final class Reader: EventHandler {
        let fd: Int32
        let calls = Atomic<Int>(0)

        init(fd: Int32) {
            self.fd = fd
        }

        func handleEvents(_ events: UInt32, scratch: UnsafeMutableRawBufferPointer) {
            _ = read(fd, scratch.baseAddress, scratch.count)
            calls.add(1, ordering: .relaxed)
        }
    }

    @Test("data written during the end of a turn is handled within it; with nothing ready, nothing is", .timeLimit(.minutes(1)))
    func withinTheTurn() async throws {
        let pair = try WatchedSocketPair { Reader(fd: $0) }
        defer { pair.close() }
        let loop = pair.loop
        let reader = pair.handler

        let results = Chan<(handled: Int, calls: Int, again: Int)>(capacity: 1)
        let armed = Atomic<Bool>(true)
        let writer = pair.writing
        let hook = loop.onEndOfTurn {
            guard armed.exchange(false, ordering: .relaxed) else { return }
            var byte: UInt8 = 1
            _ = write(writer, &byte, 1)
            let handled = loop.handleReadyNow()
            let calls = reader.calls.load(ordering: .relaxed)
            // A job queued from another thread meanwhile wakes the loop: that is no descriptor
            // ready (in a full run, the test's own setup raced in here and was counted).
            let queued = DispatchSemaphore(value: 0)
            SystemThread.detach(name: "test-queue") {
                loop.execute {}
                queued.signal()
            }
            queued.wait()
            let again = loop.handleReadyNow()
            results.trySend((handled, calls, again))
        }
        defer { loop.removeEndOfTurnHook(hook) }
        loop.execute {}
        let result = try #require(await results.receive())
        #expect(result.handled == 1)
        #expect(result.calls == 1, "the handler ran within the end of the turn")
        #expect(result.again == 0)
    }
}
