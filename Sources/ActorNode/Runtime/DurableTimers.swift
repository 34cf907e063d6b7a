import FoundationEssentials
import Wire

/// The durable timers scheduled at a revision (``Effect/send(_:at:id:)``): part of what a
/// store recovers, like its state and ledger. Applying an action notes what its effect does to
/// them (a timer scheduled or replaced; cancelled, or replaced by other work with its id), and
/// a timer's firing ends it. The journal's replay does the same, from the same reducers, so a
/// core that starts again finds the timers it had; snapshots keep them (``SnapshotTimer``).
package struct DurableTimers<Action: Sendable>: Sendable {
    /// The timers, by id.
    package private(set) var scheduled: [EffectID: Effect<Action>.Timer] = [:]

    package init() {}

    package var isEmpty: Bool { scheduled.isEmpty }

    /// The timers, soonest first (ties by id), as they are armed.
    package var soonestFirst: [Effect<Action>.Timer] {
        scheduled.values.sorted { ($0.deadline, $0.id.name) < ($1.deadline, $1.id.name) }
    }

    /// Whether the timer with this id is scheduled for this deadline: a firing that is not (the
    /// timer was cancelled or replaced while its action was on its way) is dropped.
    /// - Parameters:
    ///   - id: the timer's id.
    ///   - deadline: the deadline it fired for.
    package func isScheduled(_ id: EffectID, deadline: Date) -> Bool {
        scheduled[id]?.deadline == deadline
    }

    /// Notes what an applied action's effect does to the timers, in the order of its steps.
    /// - Parameter effect: what the reducer returned.
    package mutating func note(_ effect: Effect<Action>) {
        for step in effect.steps {
            switch step {
            case let .timer(timer):
                scheduled[timer.id] = timer
            case let .cancel(ids):
                guard !scheduled.isEmpty else { continue }
                for id in ids { scheduled[id] = nil }
            case let .work(work):
                if let id = work.id, !scheduled.isEmpty { scheduled[id] = nil }
            case .send:
                continue
            }
        }
    }

    /// The timer with this id fired: its action is being applied, which ends it.
    /// - Parameter id: the timer's id.
    package mutating func fired(_ id: EffectID) {
        scheduled[id] = nil
    }

    /// Adds a timer as a snapshot kept it.
    /// - Parameter timer: the timer.
    package mutating func restore(_ timer: Effect<Action>.Timer) {
        scheduled[timer.id] = timer
    }
}

/// A durable timer as a snapshot keeps it: `{"id":"close","at":1767225630,"action":{…}}`.
package struct SnapshotTimer: Codable, Sendable, Equatable {
    package var id: String
    /// The deadline, in seconds since 1970.
    package var at: Double
    package var action: JSONValue

    /// - Parameters:
    ///   - id: the timer's id.
    ///   - at: its deadline, in seconds since 1970.
    ///   - action: its action's JSON.
    package init(id: String, at: Double, action: JSONValue) {
        self.id = id
        self.at = at
        self.action = action
    }
}

extension DurableTimers where Action: Codable {
    /// The timers as a snapshot keeps them (nil for none, so that the key is left out).
    package func snapshotTimers() throws -> [SnapshotTimer]? {
        guard !scheduled.isEmpty else { return nil }
        return try soonestFirst.map { SnapshotTimer(id: $0.id.name, at: $0.deadline.timeIntervalSince1970, action: try JSONValue(encoding: $0.action)) }
    }

    /// The timers a snapshot kept.
    /// - Parameter timers: what the snapshot holds.
    package init(snapshot timers: [SnapshotTimer]?) throws {
        for timer in timers ?? [] {
            let action = try JSONValueDecoder().decode(Action.self, from: timer.action)
            restore(Effect<Action>.Timer(id: EffectID(timer.id), deadline: Date(timeIntervalSince1970: timer.at), action: action))
        }
    }
}
