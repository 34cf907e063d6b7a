import CSystemShims
import Glibc

/// Runs benchmark connections from one thread, as `redis-benchmark` does: each connection
/// sends its next action as soon as the previous one's ack arrives, and an epoll set says
/// which connections have answers.
enum BenchDriver {
    /// Sends `actions` actions on each connection, one at a time per connection.
    /// - Parameters:
    ///   - connections: connected, welcomed connections; closed when done.
    ///   - actions: actions per connection.
    /// - Returns: every ack's latency, in the order they came.
    static func run(_ connections: inout [BenchConnection], actions: Int) throws(BenchConnection.Failure) -> [Duration] {
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        defer { close(epoll) }
        var sentAt = [ContinuousClock.Instant](repeating: .now, count: connections.count)
        var remaining = [Int](repeating: actions, count: connections.count)
        var latencies: [Duration] = []
        latencies.reserveCapacity(actions * connections.count)
        for index in connections.indices {
            var event = epoll_event()
            event.events = EPOLLIN.rawValue
            event.data.u64 = UInt64(index)
            epoll_ctl(epoll, EPOLL_CTL_ADD, connections[index].fd, &event)
            sentAt[index] = .now
            try connections[index].send()
        }
        var running = connections.count
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: connections.count)
        defer { events.deallocate() }
        while running > 0 {
            let count = epoll_wait(epoll, events, Int32(connections.count), 10_000)
            guard count > 0 else {
                if count < 0, errno == EINTR { continue }
                throw .unexpected("no answer for 10 seconds")
            }
            for slot in 0 ..< Int(count) {
                let index = Int(events[slot].data.u64)
                let acks = try connections[index].receiveAcks()
                guard acks > 0 else { continue }
                let now = ContinuousClock.now
                latencies.append(now - sentAt[index])
                remaining[index] -= acks
                if remaining[index] > 0 {
                    sentAt[index] = now
                    try connections[index].send()
                } else {
                    epoll_ctl(epoll, EPOLL_CTL_DEL, connections[index].fd, nil)
                    running -= 1
                }
            }
        }
        for connection in connections { connection.close() }
        return latencies
    }
}
