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
        guard text.hasPrefix("/") else { return nil }
        tokens = text.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(Self.unescape)
    }

    /// This pointer with one more token.
    public func appending(_ token: String) -> JSONPointer {
        JSONPointer(tokens: tokens + [token])
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

