/// A shell's request for the whole state: a patch did not apply to its copy (the app's patch
/// and its state's encoding disagree, a bug of the app). The core answers with a snapshot
/// rendition at its current revision and logs the report; the shell carries on from there, as
/// a Phoenix LiveView client that cannot apply a diff asks for the whole page.
package struct Resync: Codable, Sendable, Equatable {
    /// The revision whose patch did not apply.
    package var revision: UInt64
    /// Why, in the shell's words (for the core's log).
    package var reason: String

    /// The longest reason kept, in bytes of UTF-8: the rest is cut before it is sent.
    package static let maximumReasonBytes = 512

    /// - Parameters:
    ///   - revision: the revision whose patch did not apply.
    ///   - reason: why; cut to ``maximumReasonBytes``.
    package init(revision: UInt64, reason: String) {
        self.revision = revision
        self.reason = Self.cut(reason)
    }

    /// `reason`'s first ``maximumReasonBytes`` bytes of UTF-8, whole characters only: what is
    /// sent, and what the core logs of a reason a client sent (which may be longer).
    /// - Parameter reason: any text.
    package static func cut(_ reason: String) -> String {
        guard reason.utf8.count > maximumReasonBytes else { return reason }
        var bytes = 0
        var end = reason.startIndex
        for index in reason.indices {
            let next = reason.index(after: index)
            bytes += reason.utf8.distance(from: index, to: next)
            guard bytes <= maximumReasonBytes else { break }
            end = next
        }
        return String(reason[..<end])
    }
}
