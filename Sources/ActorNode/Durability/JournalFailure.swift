/// Why a journal stopped: it could not write or sync its segment. Nothing more may be
/// acknowledged after it; a core stops with ``exitStatus``.
package struct JournalFailure: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for a log line.
    package var reason: String

    package var description: String { "the journal cannot be written (\(reason))" }

    /// The status a core exits with when its journal fails (EX_SOFTWARE).
    package static var exitStatus: Int32 { 70 }
}
