import CSystemShims
import Glibc

/// Runs benchmark connections from one thread, as `redis-benchmark` does: each connection
/// keeps `pipeline` actions in flight, sending the next as soon as an ack arrives, and an
/// epoll set says which connections have answers. Watchers, if any, are drained by the same
/// thread: what the core sends them is read and thrown away.
enum BenchDriver {
    /// Sends `actions` actions on each connection, at most `pipeline` unanswered at a time.
    /// - Parameters:
    ///   - connections: connected, welcomed connections; closed when done.
    ///   - actions: actions per connection.
    ///   - pipeline: actions in flight per connection (1: one at a time).
    ///   - watchers: connected, welcomed watcher connections, drained while the actions run;
    ///     closed when done.
    /// - Returns: every ack's latency (from its action's send), in the order they came.
    static func run(
        _ connections: inout [BenchConnection], actions: Int, pipeline: Int = 1, watchers: inout [BenchConnection]
    ) throws(BenchConnection.Failure) -> [Duration] {
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        defer { close(epoll) }
        let window = max(1, min(pipeline, actions))
        // Per connection, a ring of the send times of its actions in flight: acks come in order.
        var sentAt = [ContinuousClock.Instant](repeating: .now, count: connections.count * window)
        var sent = [Int](repeating: 0, count: connections.count)
        var acked = [Int](repeating: 0, count: connections.count)
        var latencies: [Duration] = []
        latencies.reserveCapacity(actions * connections.count)
        for index in watchers.indices {
            var event = epoll_event()
            event.events = EPOLLIN.rawValue
            event.data.u64 = UInt64(connections.count + index)
            epoll_ctl(epoll, EPOLL_CTL_ADD, watchers[index].fd, &event)
        }
        for index in connections.indices {
            var event = epoll_event()
            event.events = EPOLLIN.rawValue
            event.data.u64 = UInt64(index)
            epoll_ctl(epoll, EPOLL_CTL_ADD, connections[index].fd, &event)
            let now = ContinuousClock.now
            for slot in 0 ..< window { sentAt[index * window + slot] = now }
            try connections[index].send(window)
            sent[index] = window
        }
        var running = connections.count
        let capacity = connections.count + watchers.count
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        defer { events.deallocate() }
        while running > 0 {
            let count = epoll_wait(epoll, events, Int32(capacity), 10_000)
            guard count > 0 else {
                if count < 0, errno == EINTR { continue }
                throw .unexpected("no answer for 10 seconds")
            }
            for slot in 0 ..< Int(count) {
                let index = Int(events[slot].data.u64)
                if index >= connections.count {
                    _ = try watchers[index - connections.count].drain()
                    continue
                }
                let acks = try connections[index].receiveAcks()
                guard acks > 0 else { continue }
                let now = ContinuousClock.now
                for _ in 0 ..< acks {
                    latencies.append(now - sentAt[index * window + acked[index] % window])
                    acked[index] += 1
                }
                let next = min(acks, actions - sent[index])
                if next > 0 {
                    for offset in 0 ..< next { sentAt[index * window + (sent[index] + offset) % window] = now }
                    try connections[index].send(next)
                    sent[index] += next
                }
                if acked[index] >= actions {
                    epoll_ctl(epoll, EPOLL_CTL_DEL, connections[index].fd, nil)
                    running -= 1
                }
            }
        }
        for connection in connections { connection.close() }
        for watcher in watchers { watcher.close() }
        return latencies
    }
}
