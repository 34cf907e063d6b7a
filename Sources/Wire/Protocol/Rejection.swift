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
    public static func invalidAction(_ reason: String) -> Rejection {
        Rejection(code: "invalid_action", message: reason)
    }

    public var description: String { message }
}
