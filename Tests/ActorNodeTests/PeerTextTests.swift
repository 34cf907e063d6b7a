import Testing
@testable import ActorNode

/// Text from a peer, before it reaches a log or a terminal: controls (C0, DEL, C1) are written
/// as escapes, everything else is kept as it is.
@Suite("Peer text")
struct PeerTextTests {
    @Test("printable text, ASCII or not, is kept as it is")
    func kept() {
        for text in ["", "buy milk", "~!@#$%^&*()_+{}|:\"<>?`-=[]\\;',./", "café", "日本語", "emoji 🙂", "\u{A0}non-breaking", "\u{200B}"] {
            #expect(PeerText.escaped(text) == text)
        }
    }

    @Test("C0 controls, DEL and C1 controls are escaped, wherever they are")
    func controls() {
        #expect(PeerText.escaped("a\nb") == "a\\nb")
        #expect(PeerText.escaped("\t") == "\\t")
        #expect(PeerText.escaped("\u{1b}[31mred") == "\\x1b[31mred")
        #expect(PeerText.escaped("del\u{7f}") == "del\\x7f")
        #expect(PeerText.escaped("next line\u{85}") == "next line\\x85")
        #expect(PeerText.escaped("café\u{9f}") == "café\\x9f")
        #expect(PeerText.escaped("\u{80}") == "\\x80")
    }
}
