import Wire

/// A journal entry's JSON written by hand around the action's text as the client sent it:
/// byte for byte what ``WireJSON`` writes for a ``JournalEntry`` (keys in order: `action`, `at`,
/// `client`, `revision`, `seq`), at a fraction of its cost, since every applied action writes
/// one. (Not generic, so that its constants are made once.)
package enum JournalRecordText {
    private static let actionKey = Array(#"{"action":"#.utf8)
    private static let atKey = Array(#","at":"#.utf8)
    private static let clientKey = Array(#","client":"#.utf8)
    private static let revisionKey = Array(#","revision":"#.utf8)
    private static let seqKey = Array(#","seq":"#.utf8)

    /// The entry's JSON.
    /// - Parameters:
    ///   - action: the action's JSON text.
    ///   - at: when it was applied, in seconds since 1970.
    ///   - client: the client id, already as a JSON string (``JSONFragment/string(_:)``).
    ///   - revision: the revision it made.
    ///   - seq: its sequence number.
    package static func entry(action: ArraySlice<UInt8>, at: Double, client: [UInt8], revision: UInt64, seq: UInt64) -> [UInt8] {
        var text: [UInt8] = []
        text.reserveCapacity(action.count + client.count + 96)
        append(action: action, at: at, client: client, revision: revision, seq: seq, to: &text)
        return text
    }

    /// Appends the entry's JSON to `text` (the journal's buffer: no array of its own).
    /// - Parameters:
    ///   - action: the action's JSON text.
    ///   - at: when it was applied, in seconds since 1970.
    ///   - client: the client id, already as a JSON string (``JSONFragment/string(_:)``).
    ///   - revision: the revision it made.
    ///   - seq: its sequence number.
    ///   - text: where it goes.
    static func append(action: ArraySlice<UInt8>, at: Double, client: [UInt8], revision: UInt64, seq: UInt64, to text: inout [UInt8]) {
        text += actionKey
        text += action
        text += atKey
        JSONFragment.append(at, to: &text)
        text += clientKey
        text += client
        text += revisionKey
        JSONFragment.append(revision, to: &text)
        text += seqKey
        JSONFragment.append(seq, to: &text)
        text.append(UInt8(ascii: "}"))
    }
}
