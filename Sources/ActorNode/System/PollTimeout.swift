/// The timeout argument of `poll(2)` for a deadline.
package enum PollTimeout {
    /// The milliseconds `poll` should wait for `deadline`, rounded up so that a wait never ends
    /// just before its deadline; -1 (for ever) when there is none, 0 when it has passed (as
    /// ``MonotonicClock/milliseconds(until:)`` says for `epoll_wait`).
    /// - Parameter deadline: when to stop waiting, if ever.
    package static func milliseconds(until deadline: MonotonicClock.Instant?) -> Int32 {
        MonotonicClock.milliseconds(until: deadline?.nanoseconds)
    }
}
