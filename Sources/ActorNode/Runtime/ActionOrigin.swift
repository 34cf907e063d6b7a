import FoundationEssentials

/// Where an action came from.
package enum ActionOrigin: Sendable, Equatable, CustomStringConvertible {
    /// From a client, with its id and the action's sequence number: applied at most once.
    case client(id: String, seq: UInt64)
    /// From outside the store otherwise (named, when known).
    case outside(String?)
    /// From an effect the store ran (with the effect's id, when it had one).
    case effect(EffectID?)
    /// The firing of the durable timer with this id and deadline: applied only while that
    /// timer is still scheduled, and it ends it.
    case timer(EffectID, deadline: Date)

    package var description: String {
        switch self {
        case let .client(id, seq): return "client \(id) #\(seq)"
        case let .outside(name?): return name
        case .outside(nil): return "outside"
        case let .effect(id?): return "effect \(id)"
        case .effect(nil): return "effect"
        case let .timer(id, _): return "timer \(id)"
        }
    }

    /// Whether an effect or timer sent it.
    package var isEffect: Bool {
        switch self {
        case .effect, .timer: true
        case .client, .outside: false
        }
    }
}
