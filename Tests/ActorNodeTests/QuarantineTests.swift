import ActorNodeTesting
import Testing
@testable import ActorNode
import Wire

/// The quarantine's parts: what a crash note says, what an entry matches, and its file.
@Suite("Quarantine")
struct QuarantineTests {
    private static func note(_ kind: String, client: String = "null", seq: String = "null", bytes: String) -> [UInt8] {
        Array(#"{"kind":"\#(kind)","signal":4,"client":\#(client),"seq":\#(seq),"bytes":"\#(Hexadecimal.text(Array(bytes.utf8)))"}"#.utf8) + [10]
    }

    @Test("a client's action, an effect's, an envelope read the general way, and a frame that is no action")
    func notesBecomeEntries() throws {
        let action = CrashNote.entry(from: Self.note("action", client: #""c1""#, seq: "7", bytes: #"{"add":{"text":"x"}}"#), at: 5)
        #expect(action == Quarantine.Entry(at: 5, signal: "SIGILL", client: "c1", seq: 7, action: .object(["add": .object(["text": .string("x")])]), frame: nil))
        let effect = CrashNote.entry(from: Self.note("effect", bytes: #"{"counter":"reset"}"#), at: 5)
        #expect(effect.client == nil && effect.seq == nil && effect.action == .object(["counter": .string("reset")]))
        let envelope = CrashNote.entry(from: Self.note("frame", client: #""c2""#, bytes: #"{"action":{"client":"x","seq":3,"action":"clear"}}"#), at: 5)
        #expect(envelope.client == "c2" && envelope.seq == 3 && envelope.action == .string("clear"), "the hello's id counts, not the envelope's")
        let garbage = CrashNote.entry(from: Self.note("frame", bytes: "{not json"), at: 5)
        #expect(garbage.action == nil && garbage.frame == Hexadecimal.text(Array("{not json".utf8)))
        let damaged = CrashNote.entry(from: Array(#"{"kind":"act"#.utf8), at: 5)
        #expect(damaged.action == nil && damaged.frame == nil && damaged.client == nil)
    }

    @Test("a client's action matches by client and seq, or by the action from anyone; its own actions by the action")
    func matching() {
        let trap = JSONValue.object(["add": .object(["text": .string("trap")])])
        let quarantine = Quarantine(entries: [Quarantine.Entry(at: 0, signal: "SIGILL", client: "c1", seq: 7, action: trap, frame: nil)])
        #expect(quarantine.entry(client: "c1", seq: 7, action: .string("clear")) != nil)
        #expect(quarantine.entry(client: "c2", seq: 1, action: trap) != nil)
        #expect(quarantine.entry(client: "c1", seq: 8, action: .string("clear")) == nil)
        #expect(quarantine.entry(ownAction: trap) != nil)
        #expect(quarantine.entry(ownAction: .string("clear")) == nil)
        #expect(!quarantine.refusesFrames)
        let frames = Quarantine(entries: [Quarantine.Entry(at: 0, signal: "SIGSEGV", client: nil, seq: nil, action: nil, frame: "7b7b")])
        #expect(frames.refusesFrames && frames.refuses(frame: [0x7b, 0x7b]) && !frames.refuses(frame: [0x7b]))
    }

    @Test("the file keeps the newest entries, and a line that is not an entry is skipped and said")
    func file() throws {
        let directory = try TemporaryDirectory()
        let files = StateFiles(directory: directory.path)
        var quarantine = Quarantine()
        for seq in 1 ... UInt64(Quarantine.limit + 3) {
            quarantine.add(Quarantine.Entry(at: 1, signal: "SIGILL", client: "c", seq: seq, action: .integer(Int64(seq)), frame: nil))
        }
        try quarantine.save(files)
        var (loaded, notes) = Quarantine.load(files)
        #expect(loaded == quarantine && notes.isEmpty)
        #expect(loaded.entries.count == Quarantine.limit && loaded.entries.first?.seq == 4)
        var text = try FileIO.read(files.path(Quarantine.fileName))
        text += Array("not an entry\n".utf8)
        try FileIO.writeAtomically(files.path(Quarantine.fileName), text)
        (loaded, notes) = Quarantine.load(files)
        #expect(loaded == quarantine)
        #expect(notes.count == 1 && notes.first?.hasPrefix("quarantine.jsonl line \(Quarantine.limit + 1) is not an entry") == true, "\(notes)")
    }

    @Test("hexadecimal both ways; odd lengths and other letters are refused")
    func hexadecimal() {
        let bytes: [UInt8] = [0, 1, 0x7f, 0x80, 0xab, 0xff]
        #expect(Hexadecimal.text(bytes) == "00017f80abff")
        #expect(Hexadecimal.bytes("00017f80abff") == bytes)
        #expect(Hexadecimal.bytes("00017F80ABFF") == bytes)
        #expect(Hexadecimal.bytes("abc") == nil)
        #expect(Hexadecimal.bytes("zz") == nil)
        #expect(Hexadecimal.bytes("") == [])
    }
}
