import Wire

/// How findings show what they compare: bytes as text (cut short), values as their JSON.
enum FindingText {
    /// The bytes as UTF-8 text (invalid bytes replaced), at most `limit` bytes of it.
    /// - Parameters:
    ///   - bytes: the bytes.
    ///   - limit: how many bytes to show before an ellipsis.
    static func text(_ bytes: some Collection<UInt8>, limit: Int = 300) -> String {
        let shown = String(decoding: bytes.prefix(limit), as: UTF8.self)
        return bytes.count > limit ? shown + "… (\(bytes.count) bytes)" : shown
    }

    /// A value as its wire JSON (or Swift's description, should it not be writable).
    /// - Parameter value: the value.
    static func json(_ value: JSONValue?) -> String {
        guard let value else { return "nothing" }
        guard let bytes = try? JSONSerializer.serialize(value) else { return String(describing: value) }
        return text(bytes)
    }
}
