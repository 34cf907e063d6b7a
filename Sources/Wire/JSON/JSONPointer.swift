/// An RFC 6901 JSON Pointer: `/notes/items/0/done`. `~1` stands for `/` and `~0` for `~`
/// inside a token. The empty pointer names the whole document.
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible {
    public var tokens: [String]

    public init(tokens: [String] = []) {
        self.tokens = tokens
    }

    /// Parses a pointer's text; nil if it is neither empty nor starts with `/`.
    public init?(_ text: String) {
        var text = text
        guard let pointer = text.withUTF8({ JSONPointer(utf8: $0) }) else { return nil }
        self = pointer
    }

    /// Parses a pointer's text given as its UTF-8 bytes (a watcher reads the pointers of every
    /// patch straight from the frame, without making a string of the whole text first); nil
    /// if it is neither empty nor starts with `/`.
    /// - Parameter text: the pointer's text, valid UTF-8.
    package init?(utf8 text: UnsafeBufferPointer<UInt8>) {
        guard let first = text.first else {
            tokens = []
            return
        }
        guard first == UInt8(ascii: "/") else { return nil }
        var slashes = 0
        var hasTilde = false
        for byte in text {
            if byte == UInt8(ascii: "/") { slashes += 1 } else if byte == UInt8(ascii: "~") { hasTilde = true }
        }
        var tokens: [String] = []
        tokens.reserveCapacity(slashes)
        var start = 1
        for index in 1 ... text.count where index == text.count || text[index] == UInt8(ascii: "/") {
            let token = String(decoding: UnsafeBufferPointer(rebasing: text[start ..< index]), as: UTF8.self)
            // The text between the slashes, unless it holds an escape (rare).
            tokens.append(hasTilde ? Self.unescape(Substring(token)) : token)
            start = index + 1
        }
        self.tokens = tokens
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

