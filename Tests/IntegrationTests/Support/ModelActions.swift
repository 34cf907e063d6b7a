import ActorNode

/// The to-do app's actions (PROTOCOL section 10) as the protocol model draws them: mostly
/// valid, some rejected by the app's rules (an unknown id, a position out of range, blank
/// text), never one that starts a focus (its ticks would keep the core from ever being quiet).
/// Ids are drawn from what the run has added so far, known from its plan and not from what the
/// core answered, so that a seed gives the same actions whatever the timing.
struct ModelActions {
    /// Items added by every action drawn so far (and by the preload): an upper bound of the
    /// ids in use.
    private(set) var addsDrawn: Int64 = 0

    init(preloaded: Int64) {
        addsDrawn = preloaded
    }

    /// One action's JSON. `heavy` makes long texts likelier: the renditions of a flood of
    /// those make a client that does not read them fall behind (PROTOCOL section 7).
    mutating func draw(_ random: inout SeededRandom, label: String, heavy: Bool = false) -> String {
        let roll = random.next() % 100
        if heavy, roll % 10 < 7 {
            // Mostly long edits of recent items (which keep the state's size in check), some
            // long adds.
            if roll < 25 {
                addsDrawn += 1
                return #"{"add":{"text":"\#(longText(&random, label: label))"}}"#
            }
            return #"{"edit":{"id":\#(id(&random)),"text":"\#(longText(&random, label: "edited " + label))"}}"#
        }
        switch roll {
        case 0 ..< 34:
            addsDrawn += 1
            return #"{"add":{"text":"\#(text(&random, label: label, heavy: heavy))"}}"#
        case 34 ..< 48:
            return #"{"toggle":{"id":\#(id(&random))}}"#
        case 48 ..< 61:
            return #"{"edit":{"id":\#(id(&random)),"text":"\#(text(&random, label: "edited " + label, heavy: heavy))"}}"#
        case 61 ..< 67:
            return #"{"remove":{"id":\#(id(&random))}}"#
        case 67 ..< 74:
            return #"{"move":{"id":\#(id(&random)),"position":\#(1 + random.next() % 12)}}"#
        case 74:
            return #""clear""#
        case 75 ..< 81:
            return #"{"counter":"increment"}"#
        case 81 ..< 84:
            return #"{"counter":{"decrement":{}}}"#
        case 84 ..< 86:
            return #"{"counter":"reset"}"#
        case 86 ..< 89:
            return #"{"counter":{"set":{"value":\#(Int64(bitPattern: random.next() % 2001) - 1000)}}}"#
        case 89 ..< 91:
            // Applied at once; the core then applies a `set` of its own at the next revision.
            return #"{"counter":"randomize"}"#
        case 91 ..< 93:
            return #"{"timer":"stop"}"#
        case 93 ..< 95:
            return #"{"add":{"text":"  "}}"# // empty_text
        case 95 ..< 97:
            return #"{"toggle":{"id":\#(addsDrawn + 1000)}}"# // unknown_item
        default:
            return #"{"move":{"id":\#(id(&random)),"position":100000}}"# // bad_position (or unknown_item)
        }
    }

    /// An id among the recent ones mostly (those are likelier to exist), any drawn so far else.
    private func id(_ random: inout SeededRandom) -> Int64 {
        let upper = max(addsDrawn, 1)
        if random.next() % 4 != 0 {
            let window = min(upper, 40)
            return upper - Int64(random.next() % UInt64(window))
        }
        return 1 + Int64(random.next() % UInt64(upper))
    }

    /// A one-line text, sometimes a long one.
    private func text(_ random: inout SeededRandom, label: String, heavy: Bool) -> String {
        guard random.next() % 100 < (heavy ? 50 : 6) else { return label }
        return longText(&random, label: label)
    }

    /// A text of 300 to 990 characters (at most 1000 are allowed).
    private func longText(_ random: inout SeededRandom, label: String) -> String {
        let length = 300 + Int(random.next() % 690)
        let filler = "abcdefghijklmnopqrstuvwxyz-"
        var text = label + " "
        while text.utf8.count < length { text += filler }
        return String(text.prefix(length))
    }
}
