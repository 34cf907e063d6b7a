extension DecodingError {
    /// One readable line for an error frame or a reject:
    /// `at action.add: missing "text"` rather than the compiler's context dump.
    package var conciseDescription: String {
        conciseDescription(droppingPathPrefix: 0)
    }

    /// Like ``conciseDescription``, with the first `depth` coding-path elements left out, for
    /// errors reported relative to a part of the message (an action inside its envelope).
    package func conciseDescription(droppingPathPrefix depth: Int) -> String {
        func located(_ path: [any CodingKey], _ message: String) -> String {
            Self.located(Array(path.dropFirst(depth)), message)
        }
        switch self {
        case let .keyNotFound(key, context):
            return located(context.codingPath, "missing \"\(key.stringValue)\"")
        case let .typeMismatch(type, context):
            return located(context.codingPath, "expected \(Self.jsonKind(of: type)); \(Self.trimmed(context.debugDescription))")
        case let .valueNotFound(type, context):
            // Either a null, or (from an unkeyed container of this wire's decoder) no element at
            // all, which that decoder explains.
            let explanation = context.debugDescription.hasPrefix(noElementExplanation)
                ? "; \(context.debugDescription)" : ", found null"
            return located(context.codingPath, "expected \(Self.jsonKind(of: type))\(explanation)")
        case let .dataCorrupted(context):
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
        case is Int.Type, is Int64.Type, is Int32.Type, is Int16.Type, is Int8.Type,
             is UInt.Type, is UInt64.Type, is UInt32.Type, is UInt16.Type, is UInt8.Type:
            return "an integer"
        case is Double.Type, is Float.Type: return "a number"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") { return "an array" }
            if name.hasPrefix("Dictionary") { return "an object" }
            if name.hasPrefix("Optional") { return "a value or null" }
            return "a value of type \(name)"
        }
    }

    private static func trimmed(_ text: String) -> String {
        text.hasSuffix(".") ? String(text.dropLast()) : text
    }
}

/// One readable line for any error ``WireJSON/decode(_:from:)`` can throw: a ``JSONSyntaxError``
/// (its description: what is wrong and at which byte), a `DecodingError` (its
/// ``Swift/DecodingError/conciseDescription``, e.g. `at toggle.id: the number 1.5 does not fit its
/// field (expected a whole number in range)`), or any other error as it describes itself.
///
/// - Parameters:
///   - error: the error thrown by a decode.
///   - depth: how many leading coding-path elements to leave out, for errors reported
///     relative to a part of the message.
package func describeDecodingFailure(_ error: any Error, droppingPathPrefix depth: Int = 0) -> String {
    switch error {
    case let syntax as JSONSyntaxError:
        return syntax.description
    case let decoding as DecodingError:
        return decoding.conciseDescription(droppingPathPrefix: depth)
    default:
        return String(describing: error)
    }
}
