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
            if context.codingPath.isEmpty, context.debugDescription.hasPrefix("The given data was not valid JSON") {
                // Foundation says this both for malformed text and for a number out of range.
                return "not valid JSON, or a number out of range for its field"
                    + (context.underlyingError.map { ": \(Self.trimmed(String(describing: $0)))" } ?? "")
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

/// One readable line for any error a JSON decode can throw: a `DecodingError`, or the
/// decoder's own error for a number that does not fit its field (`1.5` or `1e30` for an id).
public func describeDecodingFailure(_ error: any Error, droppingPathPrefix depth: Int = 0) -> String {
    if let decoding = error as? DecodingError {
        return decoding.conciseDescription(droppingPathPrefix: depth)
    }
    let text = String(describing: error)
    let marker = "numberIsNotRepresentableInSwift(parsed: \""
    if text.hasPrefix(marker) {
        let number = text.dropFirst(marker.count).prefix { $0 != "\"" }
        return "the number \(number) does not fit its field (expected a whole number in range)"
    }
    return text
}
