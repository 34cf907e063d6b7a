@testable import ActorNode
import Glibc
import Testing
import Wire

/// A session record's JSON, written by hand for each connection that sends an action, is byte
/// for byte what the general encoder writes for it, whatever its text holds and whichever of
/// its optional members are missing.
@Suite("Session record text")
struct SessionRecordTextTests {
    @Test("the hand-written text is WireJSON's, over 2000 random records")
    func asTheEncoderWrites() throws {
        var random = SeededRandom(seed: 25)
        let pieces = ["", "a", "shell-client send", "é 買 🙂", "\"quoted\" \\ slash", "tab\there\u{1}\u{7F}", "\u{2028}", String(repeating: "x", count: 300)]
        func text() -> String { (0 ..< Int(random.next() % 3)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined() }
        for _ in 0 ..< 2000 {
            let hello = Hello(role: ClientRole.allCases[Int(random.next() % 3)], client: text() + "c", name: text())
            let peer: (pid: pid_t, uid: uid_t)? = random.next() % 4 == 0 ? nil : (pid_t(truncatingIfNeeded: random.next()), uid_t(truncatingIfNeeded: random.next()))
            let at = [0, 1.5, 1_795_617_000.123456, 1e-7, 123_456_789_012.25][Int(random.next() % 5)] + Double(random.next() % 1000) / 1000
            var record = SessionRecord(hello: hello, peer: peer, at: at)
            if random.next() % 3 == 0 { record.session.user = nil }
            if random.next() % 3 == 0 { record.session.user = text() }
            #expect(record.text == (try WireJSON.encode(record)), "\(record)")
            #expect(try WireJSON.decode(SessionRecord.self, from: record.text) == record)
            #expect(SessionRecord.isSession(record.text[...]))
        }
    }
}
