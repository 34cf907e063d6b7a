extension DecodingError {
    /// One readable line for an error frame or a reject:
    /// `at action.add: missing "text"` rather than the compiler's context dump.
    public var conciseDescription: String {
        conciseDescription(droppingPathPrefix: 0)
    }

    /// Like ``conciseDescription``, with the first `depth` coding-path elements left out, for
    /// errors reported relative to a part of the message (an action inside its envelope).
    public func conciseDescription(droppingPathPrefix depth: Int) -> String {
        func located(_ path: [any CodingKey], _ message: String) -> String {
            Self.located(Array(path.dropFirst(depth)), message)
        }
        switch self {
        case let .keyNotFound(key, context):
            return located(context.codingPath, "missing \"\(key.stringValue)\"")
        case let .typeMismatch(type, context):
            return located(context.codingPath, "expected \(Self.jsonKind(of: type)); \(Self.trimmed(context.debugDescription))")
        case let .valueNotFound(type, context):
            return located(context.codingPath, "expected \(Self.jsonKind(of: type)), found null")
        case let .dataCorrupted(context):
            if context.codingPath.isEmpty, let underlying = context.underlyingError {
                return "not valid JSON: \(underlying)"
            }
            return located(context.codingPath, Self.trimmed(context.debugDescription))
        @unknown default:
            return String(describing: self)
        }
    }

    private static func located(_ path: [any CodingKey], _ message: String) -> String {
        let where_ = path.map { $0.intValue.map(String.init) ?? $0.stringValue }
            .filter { $0 != "super" }
            .joined(separator: ".")
        return where_.isEmpty ? message : "at \(where_): \(message)"
    }

    private static func jsonKind(of type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is Int.Type, is Int64.Type, is UInt64.Type, is Int32.Type, is UInt32.Type: return "an integer"
        case is Double.Type: return "a number"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") { return "an array" }
            if name.hasPrefix("Dictionary") { return "an object" }
            return "a value of type \(name)"
        }
    }

    private static func trimmed(_ text: String) -> String {
        text.hasSuffix(".") ? String(text.dropLast()) : text
    }
}
