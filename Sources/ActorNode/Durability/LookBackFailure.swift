import Wire

/// Why a look into the past (the state at a revision, a history) cannot be answered: one line
/// that says what happened and what to do, and a code a ``ReplyError`` carries.
package struct LookBackFailure: Error, Sendable, CustomStringConvertible {
    package enum Code: String, Sendable {
        /// The revision is older than the state directory keeps, or newer than it holds.
        case notHeld = "not_held"
        /// The core keeps no state directory.
        case noJournal = "no_journal"
        /// Too many looks are being answered at once.
        case busy
        /// The files could not be read or replayed.
        case failed
    }

    package var code: Code
    package var message: String

    /// - Parameters:
    ///   - code: what kind of failure.
    ///   - message: the line to show.
    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { message }

    /// The failure as a `reply` carries it.
    package var replyError: ReplyError { ReplyError(code: code.rawValue, message: message) }
}
