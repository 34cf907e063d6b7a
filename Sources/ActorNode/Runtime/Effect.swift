import FoundationEssentials

/// Names a running effect, so that it can be cancelled, or replaced by a newer effect with the
/// same id. `EffectID("timer")`, or as a literal: `"timer"`.
public struct EffectID: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let name: String

    /// - Parameter name: the id's name, unique among the effects that may run at once.
    public init(_ name: String) {
        self.name = name
    }

    /// An id written as a string literal.
    /// - Parameter name: the id's name.
    public init(stringLiteral name: String) {
        self.name = name
    }

    public var description: String { name }
}

/// A queue that effects can share, with a policy for how many run at once.
/// Queues are identified by name; every effect sent to a queue should use the same policy.
public struct EffectQueue: Hashable, Sendable {
    /// How many effects of the queue run at once, and what happens to one more.
    public enum Policy: Hashable, Sendable {
        /// At most `n` effects run; starting one more cancels the oldest running.
        case runNewest(Int)
        /// At most `n` effects run; one more waits for a free place or is dropped.
        case runOldest(Int, overflow: Overflow)
    }

    /// What `runOldest` does with an effect that finds the queue full.
    public enum Overflow: Hashable, Sendable {
        /// It waits, in order, until a running effect ends.
        case suspendNew
        /// It is dropped.
        case discardNew
    }

    public let name: String
    public let policy: Policy
    /// The least time between two starts in this queue (zero for none).
    public let delay: Duration

    /// - Parameters:
    ///   - name: the queue's name; effects with the same name share it.
    ///   - policy: how many run at once.
    ///   - delay: the least time between two starts.
    public init(_ name: String, policy: Policy, delay: Duration = .zero) {
        switch policy {
        case let .runNewest(limit), let .runOldest(limit, _):
            precondition(limit >= 1, "an effect queue runs at least one effect at a time")
        }
        self.name = name
        self.policy = policy
        self.delay = delay
    }

    public static func == (lhs: EffectQueue, rhs: EffectQueue) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// How an effect hands actions back to the store that ran it. Actions sent after the effect was
/// cancelled are dropped.
public struct EffectSend<Action: Sendable>: Sendable {
    let deliver: @Sendable (Action) async -> Void

    /// - Parameter deliver: where the actions go (the store's queue of effect actions).
    public init(_ deliver: @escaping @Sendable (Action) async -> Void) {
        self.deliver = deliver
    }

    /// Sends an action to the store: `await send(.tick)`.
    /// - Parameter action: the action, applied like any other (and journaled).
    public func callAsFunction(_ action: Action) async {
        guard !Task.isCancelled else { return }
        await deliver(action)
    }
}

/// What a reducer asks the runtime to do after it changed the state: effects are values, run by
/// the store, never by the reducer. A reducer stays pure, and replaying its actions never
/// re-runs an effect.
///
/// An effect is a list of steps, run in order: actions to send at once, asynchronous work, and
/// cancellations. Combine effects with ``combine(_:)`` or `+`.
public struct Effect<Action: Sendable>: Sendable {
    /// One thing an effect does. Visible in the package so that other runtimes (the test store)
    /// can run effects.
    @usableFromInline package enum Step: Sendable {
        /// Applied right after the action that returned it, before anything else.
        case send(Action)
        case work(Work)
        case cancel(Set<EffectID>)
        /// A durable timer: kept with the state, so that it survives the core (``Timer``).
        case timer(Timer)
    }

    /// An action to send at a deadline, kept by the store as part of what it recovers: armed
    /// while the core runs, re-armed when it starts again, fired once (its firing is an
    /// action journaled like any other, which ends it).
    @usableFromInline package struct Timer: Sendable {
        @usableFromInline package let id: EffectID
        @usableFromInline package let deadline: Date
        @usableFromInline package let action: Action

        @usableFromInline package init(id: EffectID, deadline: Date, action: Action) {
            self.id = id
            self.deadline = deadline
            self.action = action
        }
    }

    /// Asynchronous work, with the id and queue it runs under.
    @usableFromInline package struct Work: Sendable {
        @usableFromInline package let id: EffectID?
        @usableFromInline package let queue: EffectQueue?
        /// The durable timer this work waits for, when it is one (what its action's origin
        /// says: ``ActionOrigin/timer(_:deadline:)``).
        package var timer: (id: EffectID, deadline: Date)?
        @usableFromInline let body: @Sendable (EffectSend<Action>) async throws -> Void

        @usableFromInline init(id: EffectID?, queue: EffectQueue?, body: @escaping @Sendable (EffectSend<Action>) async throws -> Void) {
            self.id = id
            self.queue = queue
            self.body = body
        }

        /// The work that waits for a durable timer on `time`, then sends its action.
        /// - Parameters:
        ///   - timer: the timer.
        ///   - time: the clock to wait on.
        package static func waiting(for timer: Timer, on time: any TimeSource) -> Work {
            let action = timer.action
            let deadline = timer.deadline
            var work = Work(id: timer.id, queue: nil) { send in
                try await time.sleep(until: deadline)
                await send(action)
            }
            work.timer = (timer.id, deadline)
            return work
        }
    }

    /// The steps, in order.
    @usableFromInline package let steps: [Step]

    /// Whether this effect does nothing. Stored, not asked of ``steps``: the core asks it of
    /// every action's effect, and in its generic code asking an array of `Step`s anything
    /// looks up `Step`'s metadata first (a profile showed two such lookups per action).
    public let isNone: Bool

    @usableFromInline init(steps: [Step]) {
        self.steps = steps
        isNone = steps.isEmpty
    }

    /// Nothing to do.
    @inlinable public static var none: Effect { Effect(steps: []) }

    /// Sends these actions right after the current one, in order.
    public static func send(_ actions: Action...) -> Effect {
        Effect(steps: actions.map(Step.send))
    }

    /// Asynchronous work whose result nobody waits for (logging, notifying).
    public static func fireAndForget(
        id: EffectID? = nil, queue: EffectQueue? = nil,
        _ work: @escaping @Sendable () async throws -> Void
    ) -> Effect {
        Effect(steps: [.work(Work(id: id, queue: queue) { _ in try await work() })])
    }

    /// Asynchronous work that may end with one next action.
    public static func run(
        id: EffectID? = nil, queue: EffectQueue? = nil,
        _ work: @escaping @Sendable () async throws -> Action?
    ) -> Effect {
        Effect(steps: [.work(Work(id: id, queue: queue) { send in
            if let action = try await work() { await send(action) }
        })])
    }

    /// Every action of an asynchronous sequence, as it comes (a timer's ticks, say).
    /// The sequence is made when the effect starts.
    public static func sequence<Actions: AsyncSequence>(
        id: EffectID? = nil, queue: EffectQueue? = nil,
        _ make: @escaping @Sendable () -> Actions
    ) -> Effect where Actions.Element == Action, Actions: SendableMetatype, Actions.AsyncIterator: SendableMetatype {
        Effect(steps: [.work(Work(id: id, queue: queue) { send in
            for try await action in make() { await send(action) }
        })])
    }

    /// Asynchronous work that sends any number of actions through `send`.
    public static func task(
        id: EffectID? = nil, queue: EffectQueue? = nil,
        _ work: @escaping @Sendable (EffectSend<Action>) async throws -> Void
    ) -> Effect {
        Effect(steps: [.work(Work(id: id, queue: queue, body: work))])
    }

    /// A durable timer: sends `action` at `deadline` (at once if it has passed), and survives
    /// the core. The store keeps it with the state (in its snapshots, and by replaying the
    /// journal), so a core that crashes or stops re-arms it when it starts again, and fires it
    /// at once if the deadline passed meanwhile. It fires once: its firing is an action applied
    /// and journaled like any other, which ends the timer. Another effect or timer with the same
    /// id replaces it, and cancelling the id calls it off.
    ///
    /// Compute `deadline` from the environment's "now" (``ActionTimedEnvironment``), never from
    /// a live clock: a replay of the journal must schedule the same timer again.
    /// - Parameters:
    ///   - action: what to send then (it must encode: it is kept in snapshots).
    ///   - deadline: when.
    ///   - id: its id, to replace or cancel it.
    public static func send(_ action: Action, at deadline: Date, id: EffectID) -> Effect {
        Effect(steps: [.timer(Timer(id: id, deadline: deadline, action: action))])
    }

    /// Cancels the running effects with these ids (and any waiting in a queue).
    public static func cancel(_ ids: EffectID...) -> Effect {
        Effect(steps: [.cancel(Set(ids))])
    }

    /// All of these effects' steps, in order.
    @inlinable public static func combine(_ effects: Effect...) -> Effect {
        combine(effects)
    }

    /// All of `effects`, in order.
    /// - Parameter effects: the effects.
    @inlinable public static func combine(_ effects: [Effect]) -> Effect {
        // A loop, not `flatMap(\.steps)`: a key path into a generic type is made anew at each
        // call, which showed in the core's profile at 8% of an action.
        var steps: [Step] = []
        for effect in effects where !effect.isNone {
            steps += effect.steps
        }
        return Effect(steps: steps)
    }

    /// Both effects, `lhs` first.
    public static func + (lhs: Effect, rhs: Effect) -> Effect {
        Effect(steps: lhs.steps + rhs.steps)
    }


    /// The same effect for a parent's action type: how a child reducer's effects are lifted
    /// into its parent's.
    @inlinable public func map<Parent: Sendable>(_ transform: @escaping @Sendable (Action) -> Parent) -> Effect<Parent> {
        guard !steps.isEmpty else { return .none }
        return Effect<Parent>(steps: steps.map { step in
            switch step {
            case let .send(action):
                return .send(transform(action))
            case let .cancel(ids):
                return .cancel(ids)
            case let .timer(timer):
                return .timer(.init(id: timer.id, deadline: timer.deadline, action: transform(timer.action)))
            case let .work(work):
                return .work(.init(id: work.id, queue: work.queue) { send in
                    try await work.body(EffectSend { await send(transform($0)) })
                })
            }
        })
    }
}
