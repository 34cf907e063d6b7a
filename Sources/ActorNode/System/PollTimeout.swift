/// The timeout argument of `poll(2)` for a deadline.
package enum PollTimeout {
    /// The milliseconds `poll` should wait for `deadline`, rounded up so that a wait never ends
    /// just before its deadline; -1 (for ever) when there is none, 0 when it has passed.
    /// - Parameter deadline: when to stop waiting, if ever.
    package static func milliseconds(until deadline: ContinuousClock.Instant?) -> Int32 {
        guard let deadline else { return -1 }
        let left = ContinuousClock.now.duration(to: deadline)
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        return Int32(min(seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000, Int64(Int32.max)))
    }
}
