/// Where an action came from.
package enum ActionOrigin: Sendable, Equatable, CustomStringConvertible {
    /// From a client, with its id and the action's sequence number: applied at most once.
    case client(id: String, seq: UInt64)
    /// From outside the store otherwise (named, when known).
    case outside(String?)
    /// From an effect the store ran.
    case effect

    package var description: String {
        switch self {
        case let .client(id, seq): return "client \(id) #\(seq)"
        case let .outside(name?): return name
        case .outside(nil): return "outside"
        case .effect: return "effect"
        }
    }
}
