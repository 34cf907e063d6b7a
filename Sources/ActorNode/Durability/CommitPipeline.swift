/// Where applied actions go before anyone is told about them.
///
/// The core hands every transition to its pipeline from inside the store, in revision order,
/// with the work that tells clients about it (a rendition). The pipeline runs that work only
/// once the transition is committed, in order; work queued with ``then(_:)`` (acks, rejects,
/// welcomes) runs after everything handed over before it. So a crash can never take back
/// something a client was told.
public protocol CommitPipeline<State, Action>: Sendable {
    associatedtype State: Sendable
    associatedtype Action: Sendable

    /// Records a transition; runs `release` once it is committed.
    func commit(_ transition: Transition<State, Action>, release: @escaping @Sendable () -> Void)

    /// Runs `body` once everything handed over so far is committed and released.
    func then(_ body: @escaping @Sendable () -> Void)
}

/// A pipeline that commits at once: for a core that keeps nothing on disk (tests, embedding).
public struct ImmediateCommit<State: Sendable, Action: Sendable>: CommitPipeline {
    public init() {}

    public func commit(_ transition: Transition<State, Action>, release: @escaping @Sendable () -> Void) {
        release()
    }

    public func then(_ body: @escaping @Sendable () -> Void) {
        body()
    }
}
