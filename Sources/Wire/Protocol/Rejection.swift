/// Why the core refuses an action: thrown by a reducer before it changes anything, and sent to
/// the client as a `reject`. `code` is for programs (`unknown_item`), `message` for people.
public struct Rejection: Error, Equatable, Sendable, CustomStringConvertible {
    public var code: String
    public var message: String

    /// - Parameters:
    ///   - code: a short machine-readable code (`empty_text`) that scripts can act on.
    ///   - message: one sentence for people: what is wrong.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// An action that could not be decoded (unknown name, missing field, wrong type).
    package static func invalidAction(_ reason: String) -> Rejection {
        Rejection(code: "invalid_action", message: reason)
    }

    /// An action that crashed the core once (a trap in the app's reducer, say): it was not
    /// applied then, and is refused from then on rather than crash the core again.
    package static let crashedCore = Rejection(code: "crashed_core", message: "this action crashed the core and was not applied")

    public var description: String { message }
}
