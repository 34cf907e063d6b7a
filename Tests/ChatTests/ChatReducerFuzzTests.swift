import Glibc
import Synchronization
import Testing
@testable import ActorNode
@testable import ChatContract
@testable import ChatCore
@testable import Wire

/// Thousands of random chat actions (post, rename, clear, and the dice's posts that `/roll`
/// sends back), with the authors and texts most likely to break validation (empty, blank, at
/// and past 64 and 4000 bytes, 100 KB, control characters, combining marks), applied by the
/// core's own reducer (``ChatCore/reducer``); and as many JSON documents, decoded as the core
/// decodes an action (numbers, at and beyond Int64's range, where strings go must be refused).
///
/// A trap ends the test process, which fails the run. Beyond that, each action must keep what
/// the room promises: a rejection changes nothing and has one of the action's codes, messages
/// keep growing numbers below `nextId` that are never reused, `posts` counts each author's
/// messages exactly, and the patch the core would send for the change takes the old state's
/// JSON to the new one's.
///
/// The seeds are fixed, so a run replays exactly; every failure names its seed and step.
/// `CAMA_FUZZ_TRACE=1 swift test --filter ChatReducerFuzzTests` prints each action before it
/// is applied, for a trap, which leaves no message of its own.
@Suite("Chat room reducer: fuzzing")
struct ChatReducerFuzzTests {
    /// How each run starts: an empty room, a room with a few messages, and one whose numbers
    /// are near the end of Int's range.
    static let starts = ["empty", "a few messages", "numbers near Int.max"]

    static func startState(_ name: String) -> ChatState {
        var state = ChatState()
        switch name {
        case "a few messages":
            state.messages = [Message(id: 1, author: "alice", text: "hi"), Message(id: 3, author: "bob", text: "/roll"), Message(id: 4, author: "dice", text: "2")]
            state.posts = ["alice": 1, "bob": 1, "dice": 1]
            state.nextId = 5
        case "numbers near Int.max":
            state.messages = [Message(id: .max - 310, author: "alice", text: "old")]
            state.posts = ["alice": 1]
            state.nextId = .max - 300
        default:
            break
        }
        return state
    }

    @Test("random actions with extreme authors and texts: no trap, and the room's rules hold after each", arguments: 0 ..< starts.count)
    func actions(round: Int) async {
        var run = ChatFuzzRun(seed: 20_260_300 + UInt64(round), start: Self.starts[round], state: Self.startState(Self.starts[round]))
        for _ in 0 ..< 2_000 {
            await run.send(run.randomAction())
        }
        run.summarize("actions")
        #expect(run.applied.keys.sorted() == ["clear", "post", "rename"], "seed \(run.seed): applied only \(run.applied)")
        #expect(run.rolls > 0, "seed \(run.seed): no die was rolled")
        if run.start == "numbers near Int.max" {
            #expect(run.codes.contains("post: overflow"), "seed \(run.seed): the room never ran out of numbers")
        }
    }

    @Test("random JSON actions, decoded as the core decodes them: numbers where strings go are refused, no trap", arguments: 0 ..< starts.count)
    func json(round: Int) async {
        var run = ChatFuzzRun(seed: 20_260_400 + UInt64(round), start: Self.starts[round], state: Self.startState(Self.starts[round]))
        for _ in 0 ..< 2_000 {
            var document = run.randomDocument()
            if run.dice.chance(3) { document = (ChatFuzzBytes.mutate(document.bytes, &run.dice), .either) }
            guard let action = run.decode(document) else { continue }
            await run.send(action)
        }
        run.summarize("JSON documents")
        #expect(run.decoded > 400, "seed \(run.seed): only \(run.decoded) of the documents decoded; the test says little")
        #expect(run.refusedAsExpected > 100, "seed \(run.seed): only \(run.refusedAsExpected) documents refused for a value no field takes")
        #expect(run.applied.keys.sorted() == ["clear", "post", "rename"], "seed \(run.seed): applied only \(run.applied)")
    }
}

/// One run: the state, the dice, and what happened.
private struct ChatFuzzRun {
    let seed: UInt64
    let start: String
    var dice: ChatFuzzDice
    var state: ChatState
    var steps = 0
    /// Per action (post, rename, clear): how many were applied and rejected.
    var applied: [String: Int] = [:]
    var rejected: [String: Int] = [:]
    /// Each kind of rejection seen, as `action: code`.
    var codes: Set<String> = []
    /// Dice the `/roll` effect posted.
    var rolls = 0
    var decoded = 0
    var refusedAsExpected = 0

    static let tracing = getenv("CAMA_FUZZ_TRACE") != nil

    init(seed: UInt64, start: String, state: ChatState) {
        self.seed = seed
        self.start = start
        dice = ChatFuzzDice(seed: seed)
        self.state = state
    }

    /// Where a failure happened, for its message: enough to replay it.
    var place: String { "seed \(seed) (start: \(start)), step \(steps)" }

    func summarize(_ what: String) {
        let total = { (counts: [String: Int]) in counts.values.reduce(0, +) }
        print("chat reducer fuzz, seed \(seed) (start: \(start)): \(steps) \(what) and dice; \(total(applied)) applied, \(total(rejected)) rejected, \(rolls) dice rolled; \(decoded) documents decoded, \(refusedAsExpected) refused for a value no field takes")
    }

    static func name(_ action: ChatAction) -> String {
        switch action {
        case .post: "post"
        case .rename: "rename"
        case .clear: "clear"
        }
    }

    /// An action for a message: its first 200 characters (a text may have 100,000).
    static func short(_ action: ChatAction) -> String {
        String(String(describing: action).prefix(200))
    }

    // MARK: Actions

    /// An author: most often one of the room's, else one of the troublesome names or a random text.
    mutating func author() -> String {
        let authors = Array(state.posts.keys).sorted()
        switch dice.below(10) {
        case 0 ..< 5 where !authors.isEmpty: return dice.pick(authors)
        case 5, 6: return dice.pick(["alice", "bob", "carol", "dice", "Alice", "alice "])
        case 7, 8: return dice.pick(ChatFuzzDice.authors)
        default: return dice.text()
        }
    }

    /// A message: a text of the dice, sometimes with `/roll` in it.
    mutating func text() -> String {
        switch dice.below(8) {
        case 0: return dice.pick(ChatFuzzDice.rolls)
        default: return dice.text()
        }
    }

    mutating func randomAction() -> ChatAction {
        switch dice.below(10) {
        case 0 ..< 6: return .post(author: author(), text: text())
        case 6 ..< 9: return .rename(from: author(), to: author())
        default: return .clear
        }
    }

    /// What a document must decode to.
    enum Expected: Equatable {
        case action(ChatAction)
        /// Nothing: it holds a value that no field takes.
        case refused
        /// Anything, or nothing.
        case either
    }

    /// An action as JSON, strings written by the wire's encoder or raw, or numbers in their place.
    mutating func randomDocument() -> (bytes: [UInt8], expected: Expected) {
        func string(_ value: String) -> (String, ChatFuzzJSON.Token) {
            var value = value
            // Texts of 100 KB in one document in ten: parsing them is slow in a debug build,
            // and the reducer's limits are the other test's business.
            if value.utf8.count > 5000, !dice.chance(10) { value = String(value.unicodeScalars.prefix(40)) }
            switch dice.below(6) {
            case 0: return dice.pick(ChatFuzzJSON.notStrings)
            case 1: return dice.pick(ChatFuzzJSON.rawStrings)
            default: return ((try? WireJSON.string(value)) ?? #""""#, .value(value))
            }
        }
        let (a, first) = string(author())
        let (b, second) = dice.chance(2) ? string(author()) : string(text())
        func expect(_ tokens: [ChatFuzzJSON.Token], _ action: ([String]) -> ChatAction) -> Expected {
            if tokens.contains(.refused) { return .refused }
            let values = tokens.compactMap { if case let .value(value) = $0 { value } else { nil } }
            return values.count == tokens.count ? .action(action(values)) : .either
        }
        let document: String
        let expected: Expected
        switch dice.below(10) {
        case 0 ..< 5:
            document = #"{"post":{"author":\#(a),"text":\#(b)}}"#
            expected = expect([first, second]) { .post(author: $0[0], text: $0[1]) }
        case 5, 6:
            document = #"{"rename":{"from":\#(a),"to":\#(b)}}"#
            expected = expect([first, second]) { .rename(from: $0[0], to: $0[1]) }
        case 7:
            document = #"{"post":{"text":\#(b),"author":\#(a)}}"#
            expected = expect([first, second]) { .post(author: $0[0], text: $0[1]) }
        case 8:
            document = dice.pick([#"{"clear":{}}"#, #"{"clear":{"extra":1}}"#, #""clear""#, #"{"clear":null}"#, #"{"post":{}}"#, #"{"rename":{"from":"a"}}"#, "{}", "[]", ""])
            expected = document == #"{"clear":{}}"# ? .action(.clear) : .either
        default:
            document = #"{"post":{"author":\#(a),"text":\#(b),"id":\#(dice.pick(ChatFuzzJSON.numbers))}}"#
            expected = .either
        }
        return (Array(document.utf8), expected)
    }

    /// Decodes a document as the core decodes an action, and checks it against what it must be.
    mutating func decode(_ document: (bytes: [UInt8], expected: Expected)) -> ChatAction? {
        var shown: String {
            let text = String(decoding: document.bytes.prefix(300), as: UTF8.self)
            return document.bytes.count > 300 ? text + "..." : text
        }
        do {
            let action = try WireJSON.decode(ChatAction.self, from: document.bytes)
            decoded += 1
            if document.expected == .refused { Issue.record("\(place): decoded \(shown) as \(Self.short(action)); it must be refused") }
            if case let .action(expected) = document.expected {
                #expect(action == expected, "\(place): \(shown)")
            }
            if let written = try? WireJSON.encode(action) {
                #expect((try? WireJSON.decode(ChatAction.self, from: written)) == action, "\(place): \(shown) did not survive a round trip")
            } else {
                Issue.record("\(place): \(Self.short(action)) cannot be encoded")
            }
            return action
        } catch {
            if document.expected == .refused { refusedAsExpected += 1 }
            if case let .action(expected) = document.expected {
                Issue.record("\(place): \(shown) was refused (\(describeDecodingFailure(error))); it is \(Self.short(expected))")
            }
            #expect(!describeDecodingFailure(error).contains("\n"), "\(place): \(shown)")
            return nil
        }
    }

    // MARK: Applying

    /// Applies `action` as the core would, then the post its effect sends back, if any.
    mutating func send(_ action: ChatAction, depth: Int = 0) async {
        steps += 1
        if Self.tracing { print("\(place): sends \(Self.short(action))") }
        let before = state
        let effect: Effect<ChatAction>
        do {
            effect = try ChatCore.reducer(&state, action, ChatEnvironment(random: .seeded(seed &+ UInt64(steps))))
        } catch {
            rejected[Self.name(action), default: 0] += 1
            codes.insert("\(Self.name(action)): \(error.code)")
            #expect(state == before, "\(place): \(Self.short(action)) was rejected (\(error.code)) but changed the state")
            state = before
            checkRejection(error, of: action, on: before)
            return
        }
        applied[Self.name(action), default: 0] += 1
        checkApplied(action, before: before)
        checkInvariants()
        checkPatch(from: before)
        let sent = Collected<ChatAction>()
        for case let .work(work) in effect.steps {
            try? await work.body(EffectSend { sent.append($0) })
        }
        for case let .send(action) in effect.steps { sent.append(action) }
        for action in sent.all where depth < 4 {
            if case let .post(author, text) = action, author == "dice" {
                rolls += 1
                #expect(["1", "2", "3", "4", "5", "6"].contains(text), "\(place): the die shows \(text)")
            }
            await send(action, depth: depth + 1)
        }
    }

    // MARK: Checks

    static func isAuthor(_ name: String) -> Bool { !name.isEmpty && name.utf8.count <= 64 }

    /// A rejection must be one of the action's, for its reason.
    func checkRejection(_ rejection: Rejection, of action: ChatAction, on state: ChatState) {
        var context: String { "\(place): \(Self.short(action)) was rejected with \(rejection.code) (\(rejection.message))" }
        switch action {
        case let .post(author, text):
            switch rejection.code {
            case "bad_author": #expect(!Self.isAuthor(author), "\(context)")
            case "too_long": #expect(Self.isAuthor(author) && text.utf8.count > 4000, "\(context)")
            case "empty_text": #expect(Self.isAuthor(author) && text.allSatisfy { $0.isWhitespace }, "\(context)")
            case "overflow": #expect(state.nextId == .max, "\(context)")
            default: Issue.record("\(context): not a code of post")
            }
        case let .rename(from, to):
            switch rejection.code {
            case "unknown_author": #expect(state.posts[from] == nil, "\(context)")
            case "bad_author": #expect(state.posts[from] != nil && !Self.isAuthor(to), "\(context)")
            default: Issue.record("\(context): not a code of rename")
            }
        case .clear:
            Issue.record("\(context): clear always succeeds")
        }
    }

    /// An applied action did what it says.
    func checkApplied(_ action: ChatAction, before: ChatState) {
        var context: String { "\(place): \(Self.short(action))" }
        switch action {
        case let .post(author, text):
            #expect(Self.isAuthor(author) && text.utf8.count <= 4000 && !text.allSatisfy { $0.isWhitespace }, "\(context): a post the room must refuse")
            #expect(state.messages.last == Message(id: before.nextId, author: author, text: text), "\(context)")
            #expect(state.messages.count == before.messages.count + 1 && state.nextId == before.nextId &+ 1, "\(context)")
        case let .rename(from, to):
            #expect(before.posts[from] != nil && Self.isAuthor(to), "\(context): a rename the room must refuse")
            #expect(state.messages.map(\.id) == before.messages.map(\.id) && state.nextId == before.nextId, "\(context)")
            if from != to {
                #expect(!state.messages.contains { $0.author == from } && state.posts[from] == nil, "\(context): \(from) still has messages")
            }
        case .clear:
            #expect(state.messages.isEmpty && state.posts.isEmpty && state.nextId == before.nextId, "\(context)")
        }
    }

    /// The change as the core sends it, a patch of the state's JSON, takes the state before to
    /// the state after.
    func checkPatch(from before: ChatState) {
        do throws(PatchCheck.Failure) {
            try PatchCheck.verify(from: before, to: state)
        } catch {
            Issue.record("\(place): \(error)")
        }
    }

    /// What holds after every action: growing numbers below nextId, and exact counts.
    func checkInvariants() {
        let ids = state.messages.map(\.id)
        #expect(zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 }, "\(place): message numbers do not grow: \(ids)")
        #expect(ids.allSatisfy { $0 < state.nextId }, "\(place): a number is not below nextId \(state.nextId)")
        var counted: [String: Int] = [:]
        for message in state.messages { counted[message.author, default: 0] += 1 }
        #expect(counted == state.posts, "\(place): posts \(state.posts) do not count the messages")
    }
}

/// Values appended from any task, read at the end.
private final class Collected<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])
    func append(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }
}

/// Random choices from a seed, and the names and texts most likely to break the room's checks.
private struct ChatFuzzDice {
    var generator: SeededRandom

    init(seed: UInt64) {
        generator = SeededRandom(seed: seed)
    }

    /// A number from 0 to `bound - 1`.
    mutating func below(_ bound: Int) -> Int { Int(generator.next() % UInt64(bound)) }
    /// True once in `times`.
    mutating func chance(_ times: Int) -> Bool { below(times) == 0 }
    mutating func pick<T>(_ choices: [T]) -> T { choices[below(choices.count)] }

    /// Authors at and past the limits: empty, blank, 64 and 65 bytes, control characters.
    static let authors: [String] = [
        "", " ", "\t", "\u{0}", "a\nb", "\u{1B}[31mred", "\u{202E}evil", "e\u{301}", String(repeating: "x", count: 64),
        String(repeating: "x", count: 65), String(repeating: "é", count: 32), String(repeating: "é", count: 32) + "x",
        String(repeating: "😀", count: 16), String(repeating: "😀", count: 16) + "x", "a" + String(repeating: "\u{301}", count: 100_000),
        String(repeating: "x", count: 100_000), "-9223372036854775808", #"{"post":{}}"#,
    ]

    /// Texts that break validation or counting: empty and blank, control characters and line
    /// separators, combining marks by the thousand, 4000 bytes and one past, 100 KB.
    static let texts: [String] = [
        "", " ", "\t", "\n", "\r\n", "\u{A0}", "\u{3000}", "\u{2028}", "\u{85}", "hi", "a\u{0}b", "bell\u{7}", "\u{1B}[2J",
        "e\u{301}", "\u{200B}", "\u{FEFF}", "\u{FFFD}", "\u{10FFFF}", "🇫🇷", "👨‍👩‍👧‍👦", #"\ud800"#, "%s%n",
        "a" + String(repeating: "\u{301}", count: 100_000), String(repeating: "e\u{301}", count: 1333),
        String(repeating: "x", count: 4000), String(repeating: "x", count: 4001), String(repeating: "😀", count: 1000),
        String(repeating: "😀", count: 1000) + "x", String(repeating: "x", count: 100_000), String(repeating: " ", count: 4000),
    ]

    /// Texts with `/roll` in them, or nearly.
    static let rolls = ["/roll", "let me /roll", "/roll /roll", " /roll\n", "/ROLL", "/rol", String(repeating: "x", count: 3995) + "/roll"]

    /// Where random scalars come from: printable ASCII most, then the troublesome ranges.
    static let scalarRanges: [ClosedRange<UInt32>] = [
        0x20 ... 0x7E, 0x20 ... 0x7E, 0x20 ... 0x7E, 0x00 ... 0x1F, 0x7F ... 0x9F, 0x300 ... 0x36F, 0x2000 ... 0x202F,
        0xFE00 ... 0xFFFF, 0x4E00 ... 0x4E40, 0x1F1E6 ... 0x1F1FF, 0x1F600 ... 0x1F64F, 0x10FFF0 ... 0x10FFFF,
    ]

    /// A text: one of ``texts``, or random scalars.
    mutating func text() -> String {
        if chance(3) { return pick(Self.texts) }
        var text = ""
        for _ in 0 ..< below(16) {
            let range = pick(Self.scalarRanges)
            if let scalar = Unicode.Scalar(range.lowerBound + UInt32(below(Int(range.upperBound - range.lowerBound) + 1))) {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }
}

/// JSON tokens where the chat's strings go.
private enum ChatFuzzJSON {
    enum Token: Equatable {
        case value(String)
        case refused
        case either
    }

    /// Numbers (at and beyond Int64's range) and other values that are not strings: every
    /// string field refuses them.
    static let numbers = [
        "0", "-1", "9223372036854775807", "9223372036854775808", "-9223372036854775809", "18446744073709551616",
        "123456789012345678901234567890", "1e400", "1.5", "-0",
    ]

    static let notStrings: [(String, Token)] = numbers.map { ($0, .refused) } + [("true", .refused), ("null", .refused), ("[]", .refused), ("{}", .refused)]

    /// Raw string tokens the encoder never writes.
    static let rawStrings: [(String, Token)] = [
        (#""\ud800""#, .either), (#""\uD83D\uDE00""#, .value("😀")), (#""\u0000""#, .value("\u{0}")), (#""a\"b""#, .value("a\"b")),
        ("\"a\u{1}b\"", .refused), (#""\x""#, .refused), (#""\u12""#, .refused), ("\"\u{7F}\"", .value("\u{7F}")),
    ]
}

/// Damage to a valid document: bytes removed, inserted or flipped, ranges copied.
private enum ChatFuzzBytes {
    static let insertions: [[UInt8]] = [
        [0x2C], [0x5D], [0x7D], [0x5B], [0x7B], [0x22], [0x3A], [0x5C], [0x00], [0xFF], [0xED, 0xA0, 0x80],
        Array("99999999999999999999".utf8), Array("null".utf8), Array(#""author":"#.utf8), Array(#"\ud800"#.utf8),
    ]

    static func mutate(_ document: [UInt8], _ dice: inout ChatFuzzDice) -> [UInt8] {
        var bytes = document
        for _ in 0 ... dice.below(3) {
            let at = dice.below(bytes.count + 1)
            switch dice.below(5) {
            case 0 where at < bytes.count: bytes.remove(at: at)
            case 1: bytes.insert(contentsOf: dice.pick(insertions), at: at)
            case 2 where at < bytes.count: bytes[at] ^= UInt8(truncatingIfNeeded: dice.below(256) | 1)
            case 3 where at < bytes.count: bytes.insert(contentsOf: bytes[at ..< min(bytes.count, at + 1 + dice.below(12))], at: dice.below(bytes.count + 1))
            default: bytes.removeSubrange(min(at, bytes.count)...)
            }
        }
        return bytes
    }
}
