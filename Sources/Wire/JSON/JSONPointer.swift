/// An RFC 6901 JSON Pointer: `/notes/items/0/done`. `~1` stands for `/` and `~0` for `~`
/// inside a token. The empty pointer names the whole document.
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible {
    public var tokens: [String]

    public init(tokens: [String] = []) {
        self.tokens = tokens
    }

    /// Parses a pointer's text; nil if it is neither empty nor starts with `/`.
    public init?(_ text: String) {
        if text.isEmpty {
            tokens = []
            return
        }
        let utf8 = text.utf8
        guard utf8.first == UInt8(ascii: "/") else { return nil }
        if !utf8.contains(UInt8(ascii: "~")) {
            // No escapes (the usual case): the tokens are the text between the slashes.
            var tokens: [String] = []
            if let parsed = utf8.withContiguousStorageIfAvailable({ bytes in
                var start = 1
                for index in 1 ... bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "/") {
                    tokens.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start ..< index]), as: UTF8.self))
                    start = index + 1
                }
                return tokens
            }) {
                self.tokens = parsed
                return
            }
        }
        tokens = text.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(Self.unescape)
    }

    /// This pointer with one more token.
    public func appending(_ token: String) -> JSONPointer {
        // One new array (not `tokens + [token]`, which makes two): patches build a pointer for
        // every field they look at.
        var tokens = tokens
        tokens.append(token)
        return JSONPointer(tokens: tokens)
    }

    /// This pointer with an array index appended.
    public func appending(index: Int) -> JSONPointer {
        appending(String(index))
    }

    private static func escape(_ token: String) -> String {
        var escaped = ""
        for character in token {
            switch character {
            case "~": escaped += "~0"
            case "/": escaped += "~1"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    private static func unescape(_ token: Substring) -> String {
        var unescaped = ""
        var afterTilde = false
        for character in token {
            if afterTilde {
                unescaped += character == "1" ? "/" : character == "0" ? "~" : "~\(character)"
                afterTilde = false
            } else if character == "~" {
                afterTilde = true
            } else {
                unescaped.append(character)
            }
        }
        return afterTilde ? unescaped + "~" : unescaped
    }

    public var description: String {
        tokens.map { "/" + Self.escape($0) }.joined()
    }
}

extension JSONPointer: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let pointer = JSONPointer(text) else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath,
                debugDescription: "'\(text)' is not a JSON pointer (it must be empty or start with '/')"))
        }
        self = pointer
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

