/// Why a text was refused as JSON: where, and what is wrong, in words.
///
/// The parser (``JSONParser``) throws it for anything RFC 8259 does not allow and for what this
/// wire refuses on top of it (duplicate keys, nesting deeper than a limit). Its description is
/// one readable line meant for an error frame or a log, e.g.
/// `unexpected ']' at byte 5; expected a value` or
/// `the text is not valid UTF-8 (byte 0xff at offset 17)`.
package struct JSONSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Where the problem is, in bytes from the start of the text (the first byte is 0). For a
    /// text that ends too soon, its length.
    package var offset: Int
    /// The whole explanation, offset included, as one line.
    package var message: String

    /// - Parameters:
    ///   - offset: the byte offset of the problem, counting from 0.
    ///   - message: the explanation, as one line that already names the offset where useful.
    package init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }

    /// The message, as is: one line.
    package var description: String { message }
}
