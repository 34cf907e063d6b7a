@_spi(ByteWriting) import Wire

/// A journal entry's JSON written by hand around the action's text as the client sent it:
/// byte for byte what ``WireJSON`` writes for a ``JournalEntry`` (keys in order: `action`, `at`,
/// `client`, `revision`, `seq`), at a fraction of its cost, since every applied action writes
/// one. (Not generic, so that its constants are made once.)
package enum JournalRecordText {
    private static var actionKey: StaticString { #"{"action":"# }
    private static var atKey: StaticString { #","at":"# }
    private static var clientKey: StaticString { #","client":"# }
    private static var revisionKey: StaticString { #","revision":"# }
    private static var seqKey: StaticString { #","seq":"# }

    /// The most bytes an entry takes beyond its action's and its client's: the keys, a time
    /// of at most 32 bytes, two numbers of at most 20 digits, and the closing brace.
    static let longestFixedPart = 10 + 6 + 32 + 10 + 12 + 20 + 7 + 20 + 1

    /// The entry's JSON.
    /// - Parameters:
    ///   - action: the action's JSON text.
    ///   - at: when it was applied, in seconds since 1970.
    ///   - client: the client id, already as a JSON string (``JSONFragment/string(_:)``).
    ///   - revision: the revision it made.
    ///   - seq: its sequence number.
    package static func entry(action: ArraySlice<UInt8>, at: Double, client: [UInt8], revision: UInt64, seq: UInt64) -> [UInt8] {
        var text: [UInt8] = []
        text.appendWritten(atMost: action.count + client.count + longestFixedPart) { cursor in
            write(action: action, at: at, client: client, revision: revision, seq: seq, to: &cursor)
        }
        return text
    }

    /// Writes the entry's JSON (at most ``longestFixedPart`` bytes more than the action and
    /// the client take) through `cursor` (into the journal's buffer: no array of its own).
    /// - Parameters:
    ///   - action: the action's JSON text.
    ///   - at: when it was applied, in seconds since 1970.
    ///   - client: the client id, already as a JSON string (``JSONFragment/string(_:)``).
    ///   - revision: the revision it made.
    ///   - seq: its sequence number.
    ///   - cursor: where it goes.
    static func write(action: ArraySlice<UInt8>, at: Double, client: [UInt8], revision: UInt64, seq: UInt64, to cursor: inout ByteCursor) {
        cursor.write(actionKey)
        cursor.write(action)
        cursor.write(atKey)
        cursor.writeDouble(at)
        cursor.write(clientKey)
        cursor.write(client)
        cursor.write(revisionKey)
        cursor.writeDecimal(revision)
        cursor.write(seqKey)
        cursor.writeDecimal(seq)
        cursor.write(UInt8(ascii: "}"))
    }
}
