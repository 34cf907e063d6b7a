import ActorNode
import Wire

/// `journal-record`: the records of journal and snapshot files (``DurableRecord``, with its
/// CRC-32C) read from any bytes, as recovery reads a file.
///
/// It reads record after record from the start until the bytes end or stop being a record, and
/// checks that every record read is written back (``DurableRecord/encode(_:)``) as exactly the
/// bytes it was read from; that what is not a record is described with sizes that fit the
/// bytes; and that a payload that is a journal entry (`JournalEntry<JSONValue>`), written again
/// by the journal's hand writer (`JournalRecordText`), is what ``WireJSON`` writes for the entry,
/// and reads back as the same entry (its action the same JSON). The whole input is also tried
/// as such a payload, since libFuzzer cannot forge checksums.
public enum JournalRecordTarget: FuzzTarget {
    public static let name = "journal-record"
    public static let summary = "DurableRecord.scan over any bytes: no trap, records re-encode to their bytes, entries match the journal's hand writer"

    public static func check(_ input: [UInt8]) throws(FuzzFinding) {
        // The whole input as a payload too: libFuzzer cannot forge checksums.
        try checkEntry(input)
        var offset = 0
        reading: while true {
            switch DurableRecord.scan(input, at: offset) {
            case .end:
                guard offset == input.count else { throw FuzzFinding("the end of the records at \(offset) of \(input.count) bytes") }
                break reading
            case let .record(payload, next):
                guard next > offset, next <= input.count else {
                    throw FuzzFinding("a record at \(offset) says the next starts at \(next), in \(input.count) bytes")
                }
                let encoded = DurableRecord.encode(Array(payload))
                guard encoded.elementsEqual(input[offset ..< next]) else {
                    throw FuzzFinding("the record at \(offset) re-encodes as other bytes")
                }
                try checkEntry(Array(payload))
                offset = next
            case let .truncated(available, needed):
                guard available == input.count - offset, needed > available else {
                    throw FuzzFinding("a record cut short at \(offset) of \(input.count) bytes says \(available) of \(needed) bytes are there")
                }
                break reading
            case .corrupt:
                break reading
            }
        }
    }

    /// A payload that decodes as a journal entry of a client's action, as the journal writes it
    /// by hand, must be what the general writer writes.
    static func checkEntry(_ payload: [UInt8]) throws(FuzzFinding) {
        guard let entry = try? WireJSON.decode(JournalEntry<JSONValue>.self, from: payload),
              let client = entry.client, let seq = entry.seq, entry.at.isFinite,
              let general = try? WireJSON.encode(entry),
              let actionText = try? JSONSerializer.serialize(entry.action)
        else { return }
        let byHand = JournalRecordText.entry(action: actionText[...], at: entry.at, client: JSONFragment.string(client), revision: entry.revision, seq: seq)
        guard byHand == general else {
            throw FuzzFinding("the journal writes \(FindingText.text(byHand)) by hand where WireJSON writes \(FindingText.text(general))")
        }
        // Compared as text: a double with a whole value (1.0) is written `1`, and reads back
        // as an integer, the same JSON.
        guard let reread = try? WireJSON.decode(JournalEntry<JSONValue>.self, from: byHand),
              reread.revision == entry.revision, reread.client == entry.client, reread.seq == entry.seq,
              (try? WireJSON.encode(reread)) == byHand
        else {
            throw FuzzFinding("the entry written \(FindingText.text(byHand)) does not read back as it was")
        }
    }
}
