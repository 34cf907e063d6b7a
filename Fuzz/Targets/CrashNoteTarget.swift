import ActorNode
import Wire

/// `crash-note`: what a core reads at its start about the last run's crash and the inputs it
/// refuses (``CrashNote``, ``Quarantine``): the note the crash handler wrote (one line of JSON,
/// the input's bytes in hexadecimal), and the lines of `quarantine.jsonl`. Written by the core
/// itself, in its private directory, but read by hand in part (the hexadecimal), and a note cut
/// short by a crash in the middle of writing it must not stop the next core from starting.
///
/// Every input is read as a note and as a quarantine line: neither may trap; hexadecimal that
/// reads back must write back as the same text (in lower case); an entry read from a line
/// writes back and reads the same; and its summary, which goes to the log, is one line.
public enum CrashNoteTarget: FuzzTarget {
    public static let name = "crash-note"
    public static let summary = "a crash note and quarantine lines, however damaged, read without trapping; hexadecimal and entries round-trip"

    public static func check(_ input: [UInt8]) throws(FuzzFinding) {
        let noted = CrashNote.entry(from: input, at: 0)
        try checkSummary(noted)

        let text = String(decoding: input, as: UTF8.self)
        if let bytes = Hexadecimal.bytes(text) {
            let written = Hexadecimal.text(bytes)
            guard written == text.lowercased() else {
                throw FuzzFinding("hexadecimal \(FindingText.text(input)) read as \(bytes.count) bytes writes back as \(FindingText.text(Array(written.utf8)))")
            }
        }

        guard let entry = try? WireJSON.decode(Quarantine.Entry.self, from: input) else { return }
        try checkSummary(entry)
        let json: [UInt8]
        do {
            json = try WireJSON.encode(entry)
        } catch {
            throw FuzzFinding("a quarantine entry read from \(FindingText.text(input)) does not write back: \(error)")
        }
        guard let again = try? WireJSON.decode(Quarantine.Entry.self, from: json),
              (try? WireJSON.encode(again)) == json else {
            throw FuzzFinding("a quarantine entry does not read back as written: \(FindingText.text(json))")
        }
    }

    /// A summary goes into one log line: it holds no line break.
    private static func checkSummary(_ entry: Quarantine.Entry) throws(FuzzFinding) {
        let summary = entry.summary
        guard !summary.contains(where: { $0.isNewline }) else {
            throw FuzzFinding("the summary of an entry holds a line break: \(FindingText.text(Array(summary.utf8)))")
        }
    }
}
