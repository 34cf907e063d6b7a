import FoundationEssentials
import Glibc
import Synchronization
import Testing
@testable import ActorNode
@testable import CoreDaemon
@testable import TodoContract
@testable import Wire

/// Thousands of random actions of every kind the app has (the to-do list's six, the counter's
/// five, the timer's start, stop and pick, and the core's own tick), with the numbers
/// and texts most likely to break arithmetic or validation, applied by the core's own reducer
/// (``TodoCore/reducer``) the way the core applies them: a client's action passes
/// ``TodoCore/admits(_:)`` first, each action sees its own "now", and the actions effects send
/// back (a random `set`, a picked `start`) are applied in turn. The live ticking effect is not
/// run (it sleeps on the clock); its ticks come as random `tick` actions instead.
///
/// A trap ends the test process, which fails the run. Beyond that, each action must keep what
/// the contract documents (docs/PROTOCOL.md, section 10): a rejection changes nothing and
/// carries one of the codes documented for its action, ids are unique, below `nextId` and
/// never reused, texts are valid, and a running focus names an item of the list; and the patch
/// the core would send for the change takes the old state's JSON to the new one's.
///
/// The seeds are fixed, so a run replays exactly; every failure names its seed and step.
/// `CAMA_FUZZ_TRACE=1 swift test --filter TodoReducerFuzzTests` prints each action before it is
/// applied, for a trap, which leaves no message of its own.
@Suite("To-do app reducer: fuzzing")
struct TodoReducerFuzzTests {
    /// How each run starts: from nothing, and from states a long-lived core (or a snapshot)
    /// could hold, with numbers near the ends of Int's range.
    static let starts = ["empty", "one item", "ids near Int.max", "counts near Int.max", "deadline far away"]

    static func startState(_ name: String) -> AppState {
        let now = TestTime().now.timeIntervalSince1970
        switch name {
        case "one item":
            return AppState(todo: TodoState(items: [TodoItem(id: 1, text: "buy milk")], nextId: 2))
        case "ids near Int.max":
            return AppState(todo: TodoState(
                items: [TodoItem(id: .max - 60, text: "old"), TodoItem(id: .max - 55, text: "older", done: true)], nextId: .max - 50))
        case "counts near Int.max":
            return AppState(
                todo: TodoState(items: [TodoItem(id: 1, text: "a", pomodoros: .max - 1), TodoItem(id: 2, text: "b", pomodoros: .max)], nextId: 3),
                counter: CounterState(value: .max - 1),
                timer: TimerState(item: 2, running: true, remaining: 2, deadline: now + 2))
        case "deadline far away":
            return AppState(
                todo: TodoState(items: [TodoItem(id: 7, text: "a"), TodoItem(id: 9, text: "b")], nextId: 10),
                timer: TimerState(item: 9, running: true, remaining: .max, deadline: 1e300))
        default:
            return AppState()
        }
    }

    @Test("random actions with extreme numbers and texts: no trap, and the contract holds after each", arguments: 0 ..< starts.count)
    func actions(round: Int) async {
        var run = TodoFuzzRun(seed: 20_260_100 + UInt64(round), start: Self.starts[round], state: Self.startState(Self.starts[round]))
        for _ in 0 ..< 1_500 {
            let action = run.randomAction()
            await run.send(action, fromClient: !action.isInternal || run.dice.chance(4))
        }
        run.summarize("actions")
        let unapplied = TodoFuzzRun.kinds.filter { run.applied[$0, default: 0] == 0 }
        #expect(unapplied.isEmpty, "seed \(run.seed): never applied: \(unapplied)")
        #expect(run.completions > 0, "seed \(run.seed): no focus completed")
        if run.start == "ids near Int.max" {
            #expect(run.codes.contains("add: overflow"), "seed \(run.seed): the list never ran out of ids")
        }
    }

    @Test("random JSON actions, decoded as the core decodes them: numbers beyond Int64 are refused, no trap", arguments: 0 ..< starts.count)
    func json(round: Int) async {
        var run = TodoFuzzRun(seed: 20_260_200 + UInt64(round), start: Self.starts[round], state: Self.startState(Self.starts[round]))
        for _ in 0 ..< 1_500 {
            var document = run.randomDocument()
            if run.dice.chance(3) { document = (FuzzBytes.mutate(document.bytes, &run.dice), .either) }
            guard let action = run.decode(document) else { continue }
            await run.send(action, fromClient: true)
        }
        #expect(run.decoded > 300, "seed \(run.seed): only \(run.decoded) of the documents decoded; the test says little")
        #expect(run.refusedAsExpected > 100, "seed \(run.seed): only \(run.refusedAsExpected) documents with numbers no field takes")
        let undecoded = TodoFuzzRun.kinds.filter { run.applied[$0, default: 0] + run.rejected[$0, default: 0] + run.refused[$0, default: 0] == 0 }
        #expect(undecoded.isEmpty, "seed \(run.seed): never decoded: \(undecoded)")
        run.summarize("JSON documents")
    }
}

/// One run: the state, the dice, the clock, and what happened.
private struct TodoFuzzRun {
    let seed: UInt64
    let start: String
    var dice: FuzzDice
    var state: AppState
    /// "Now" as the store would set it, in seconds since 1970.
    var now: Double
    let notices = Collected<String>()
    var steps = 0
    /// Per kind of action (``kind(_:)``): how many were applied, rejected, and refused as the
    /// core's own.
    var applied: [String: Int] = [:]
    var rejected: [String: Int] = [:]
    var refused: [String: Int] = [:]
    /// Focuses that completed (each sent a notice).
    var completions: Int { notices.all.count }
    /// Each kind of rejection seen, as `kind: code`.
    var codes: Set<String> = []
    var decoded = 0
    var refusedAsExpected = 0

    /// Every kind of action the app has.
    static let kinds = [
        "add", "clear", "remove", "toggle", "edit", "move", "counter increment", "counter decrement", "counter reset", "counter set",
        "counter randomize", "timer start", "timer stop", "pick", "timer tick",
    ]

    static func kind(_ action: AppAction) -> String {
        switch action {
        case .todo(.add): "add"
        case .todo(.clear): "clear"
        case .todo(.remove): "remove"
        case .todo(.toggle): "toggle"
        case .todo(.edit): "edit"
        case .todo(.move): "move"
        case .counter(.increment): "counter increment"
        case .counter(.decrement): "counter decrement"
        case .counter(.reset): "counter reset"
        case .counter(.set): "counter set"
        case .counter(.randomize): "counter randomize"
        case .timer(.start): "timer start"
        case .timer(.stop): "timer stop"
        case .timer(.pick): "pick"
        case .timer(.tick): "timer tick"
        }
    }

    static let tracing = getenv("CAMA_FUZZ_TRACE") != nil

    init(seed: UInt64, start: String, state: AppState) {
        self.seed = seed
        self.start = start
        dice = FuzzDice(seed: seed)
        self.state = state
        now = TestTime().now.timeIntervalSince1970
    }

    /// Where a failure happened, for its message: enough to replay it.
    var place: String { "seed \(seed) (start: \(start)), step \(steps)" }

    var environment: AppEnvironment {
        let notices = self.notices
        return AppEnvironment(time: TestTime(), random: .seeded(seed &+ UInt64(steps)), notify: { notices.append($0) })
    }

    func summarize(_ what: String) {
        let total = { (counts: [String: Int]) in counts.values.reduce(0, +) }
        print("to-do reducer fuzz, seed \(seed) (start: \(start)): \(steps) \(what) and effect actions; \(total(applied)) applied, \(total(rejected)) rejected, \(total(refused)) refused as the core's own, \(completions) focuses completed; \(decoded) documents decoded, \(refusedAsExpected) refused for a number no field takes")
    }

    // MARK: Numbers and texts

    /// An id: most often one of the list's or next to one, else an extreme or a random number.
    mutating func id() -> Int {
        let ids = state.todo.items.map(\.id)
        switch dice.below(10) {
        case 0 ..< 4 where !ids.isEmpty:
            return dice.pick(ids)
        case 4 ..< 6 where !ids.isEmpty:
            return dice.pick(ids).addingReportingOverflow(dice.pick([-2, -1, 1, 2])).partialValue
        case 6:
            return state.todo.nextId.addingReportingOverflow(dice.pick([-1, 0, 1])).partialValue
        case 7, 8:
            return dice.pick(FuzzDice.extremeIntegers)
        default:
            return dice.anyInteger()
        }
    }

    /// A position: in the list, just outside it, or anywhere in Int's range.
    mutating func position() -> Int {
        let count = state.todo.items.count
        switch dice.below(4) {
        case 0, 1: return 1 + dice.below(max(count, 1))
        case 2: return dice.pick([0, count, count + 1, -1])
        default: return dice.pick(FuzzDice.extremeIntegers)
        }
    }

    /// Seconds of a focus: nil (the default), inside 1...86400, at its edges, or anything.
    mutating func seconds() -> Int? {
        switch dice.below(6) {
        case 0: return nil
        case 1, 2: return 1 + dice.below(TimerReducer.maximumSeconds)
        case 3: return dice.pick([0, 1, 2, 59, TimerReducer.maximumSeconds, TimerReducer.maximumSeconds + 1, -1])
        case 4: return dice.pick(FuzzDice.extremeIntegers)
        default: return dice.anyInteger()
        }
    }

    /// A moment for a tick: near now or the deadline, or any double at all.
    mutating func moment() -> Double {
        let deadline = state.timer.deadline ?? now
        switch dice.below(8) {
        case 0 ..< 3: return now + Double(dice.below(4))
        case 3: return deadline
        case 4: return deadline + dice.pick([-1, -0.5, -0.000001, 0.000001, 0.5, 1, 1e6])
        case 5: return now - Double(dice.below(100_000))
        default: return dice.pick(FuzzDice.extremeDoubles)
        }
    }

    /// The clock moves on, mostly by a second or two; sometimes it jumps, or is set wrong.
    mutating func advanceClock() {
        switch dice.below(40) {
        case 0: now -= Double(dice.below(1_000_000))
        case 1: now += Double(dice.below(200_000))
        case 2: now = dice.pick([0, -1e9, 1e12, 4e15, TestTime().now.timeIntervalSince1970])
        default: now += Double(dice.below(9)) / 4
        }
    }

    // MARK: Actions

    /// Any action of the app, the core's own ones included.
    mutating func randomAction() -> AppAction {
        switch dice.below(22) {
        case 0, 1, 2: return .todo(.add(text: dice.text()))
        case 3: return .todo(.clear)
        case 4: return .todo(.remove(id: id()))
        case 5, 6: return .todo(.toggle(id: id()))
        case 7, 8: return .todo(.edit(id: id(), text: dice.text()))
        case 9, 10: return .todo(.move(id: id(), position: position()))
        case 11: return .counter(dice.pick([.increment, .decrement, .reset, .randomize]))
        case 12: return .counter(.set(value: dice.chance(2) ? dice.pick(FuzzDice.extremeIntegers) : dice.anyInteger()))
        case 13, 14: return .timer(.start(id: id(), seconds: seconds()))
        case 15: return .timer(.stop)
        case 16: return .timer(.pick)
        default: return .timer(.tick(at: moment()))
        }
    }

    /// An action as JSON, with the numbers and strings of ``FuzzJSON``, and what it must decode to.
    mutating func randomDocument() -> (bytes: [UInt8], expected: Expected) {
        let ids = state.todo.items.map(\.id)
        func number() -> FuzzJSON.Number { FuzzJSON.number(near: ids, &dice) }
        let a = number(), b = number()
        let (text, textValue) = FuzzJSON.string(&dice)
        func expect(_ numbers: [FuzzJSON.Number], _ text: FuzzJSON.Text = .value(""), _ action: ([Int], String) -> AppAction) -> Expected {
            if numbers.contains(where: { $0.value == .refused }) || text == .refused { return .refused }
            let values = numbers.compactMap { if case let .integer(value) = $0.value { value } else { nil } }
            guard values.count == numbers.count, case let .value(string) = text else { return .either }
            return .action(action(values, string))
        }
        let document: String
        let expected: Expected
        switch dice.below(20) {
        case 0, 1:
            document = #"{"add":{"text":\#(text)}}"#
            expected = expect([], textValue) { .todo(.add(text: $1)) }
        case 2:
            document = dice.pick([#"{"clear":{}}"#, #""clear""#, #"{"pick":{}}"#, #""pick""#, #"{"timer":"stop"}"#, #"{"timer":{"stop":{}}}"#])
            expected = .either
        case 3, 4:
            document = #"{"toggle":{"id":\#(a.text)}}"#
            expected = expect([a]) { numbers, _ in .todo(.toggle(id: numbers[0])) }
        case 5:
            document = #"{"remove":{"id":\#(a.text)}}"#
            expected = expect([a]) { numbers, _ in .todo(.remove(id: numbers[0])) }
        case 6, 7:
            document = #"{"edit":{"id":\#(a.text),"text":\#(text)}}"#
            expected = expect([a], textValue) { .todo(.edit(id: $0[0], text: $1)) }
        case 8, 9:
            document = #"{"move":{"id":\#(a.text),"position":\#(b.text)}}"#
            expected = expect([a, b]) { numbers, _ in .todo(.move(id: numbers[0], position: numbers[1])) }
        case 10, 11:
            document = #"{"counter":{"set":{"value":\#(a.text)}}}"#
            expected = expect([a]) { numbers, _ in .counter(.set(value: numbers[0])) }
        case 12:
            document = dice.pick([#"{"counter":"increment"}"#, #"{"counter":{"decrement":{}}}"#, #"{"counter":"reset"}"#, #"{"counter":"randomize"}"#])
            expected = .either
        case 13, 14:
            document = #"{"timer":{"start":{"id":\#(a.text),"seconds":\#(b.text)}}}"#
            expected = expect([a, b]) { numbers, _ in .timer(.start(id: numbers[0], seconds: numbers[1])) }
        case 15:
            document = #"{"timer":{"start":{"id":\#(a.text),"seconds":null}}}"#
            expected = expect([a]) { numbers, _ in .timer(.start(id: numbers[0], seconds: nil)) }
        case 16:
            document = #"{"timer":{"start":{"id":\#(a.text)}}}"#
            expected = expect([a]) { numbers, _ in .timer(.start(id: numbers[0], seconds: nil)) }
        case 17:
            // A number where a double goes: any finite one decodes (and is refused as the core's own).
            document = #"{"timer":{"tick":{"at":\#(a.text)}}}"#
            expected = .either
        case 18:
            document = dice.pick([#"{"timer":"resume"}"#, #"{"timer":{"tick":{}}}"#, #"{"toggle":{"id":1,"id":2}}"#, #"{"toggle":{}}"#, #"{"add":{"text":null}}"#, #"{"frob":{}}"#, "{}", "[]", "null", ""])
            expected = .either
        default:
            document = #"{"move":{"position":\#(b.text),"id":\#(a.text)}}"#
            expected = expect([a, b]) { numbers, _ in .todo(.move(id: numbers[0], position: numbers[1])) }
        }
        return (Array(document.utf8), expected)
    }

    /// What a document must decode to.
    enum Expected: Equatable {
        /// This action.
        case action(AppAction)
        /// Nothing: it holds a number or string that no field takes.
        case refused
        /// Anything, or nothing (a damaged document, or a value either reading of which is right).
        case either
    }

    /// Decodes a document as the core decodes an action: a document that holds a number no
    /// field can take must be refused, one that holds only good values must decode to them, and
    /// a refusal is one line.
    mutating func decode(_ document: (bytes: [UInt8], expected: Expected)) -> AppAction? {
        var shown: String {
            let text = String(decoding: document.bytes.prefix(300), as: UTF8.self)
            return document.bytes.count > 300 ? text + "..." : text
        }
        do {
            let action = try WireJSON.decode(AppAction.self, from: document.bytes)
            decoded += 1
            if document.expected == .refused { Issue.record("\(place): decoded \(shown) as \(Self.short(action)); it must be refused") }
            if case let .action(expected) = document.expected {
                #expect(action == expected, "\(place): \(shown)")
            }
            // What decodes is written back as JSON that decodes to the same action.
            if let written = try? WireJSON.encode(action) {
                #expect((try? WireJSON.decode(AppAction.self, from: written)) == action, "\(place): \(shown) did not survive a round trip")
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

    /// Applies `action` as the core would: from a client (admitted first), or as its own.
    mutating func send(_ action: AppAction, fromClient: Bool, depth: Int = 0) async {
        steps += 1
        advanceClock()
        if Self.tracing { print("\(place): \(fromClient ? "client" : "core") sends \(Self.short(action))") }
        if fromClient {
            let refusal = TodoCore.admits(action)
            #expect((refusal != nil) == action.isInternal, "\(place): admits(\(Self.short(action))) is \(String(describing: refusal))")
            if refusal != nil {
                refused[Self.kind(action), default: 0] += 1
                return
            }
        }
        let before = state
        let effect: Effect<AppAction>
        do {
            effect = try TodoCore.reducer(&state, action, environment.applying(at: Date(timeIntervalSince1970: now)))
        } catch {
            rejected[Self.kind(action), default: 0] += 1
            codes.insert("\(Self.kind(action)): \(error.code)")
            #expect(state == before, "\(place): \(Self.short(action)) was rejected (\(error.code)) but changed the state")
            state = before
            checkRejection(error, of: action, on: before)
            return
        }
        applied[Self.kind(action), default: 0] += 1
        checkApplied(action, before: before)
        checkInvariants()
        checkPatch(from: before)
        // The effects' actions, applied in turn as the core's own (the ticking sleeps: skipped).
        for action in await Self.run(effect) where depth < 4 {
            await send(action, fromClient: false, depth: depth + 1)
        }
    }

    /// Runs the steps of an effect that do not wait on the clock, and returns the actions they sent.
    static func run(_ effect: Effect<AppAction>) async -> [AppAction] {
        let sent = Collected<AppAction>()
        for step in effect.steps {
            switch step {
            case let .send(action):
                sent.append(action)
            case let .work(work) where work.id != TimerReducer.ticking:
                try? await work.body(EffectSend { sent.append($0) })
            case .work, .cancel, .timer:
                break
            }
        }
        return sent.all
    }

    // MARK: Checks

    /// An action for a message: its first 200 characters (a text may have 100,000).
    static func short(_ action: AppAction) -> String {
        String(String(describing: action).prefix(200))
    }

    /// Does the list hold an item with this id? (A plain search, to check the reducer's.)
    func holds(_ id: Int, in todo: TodoState) -> Bool {
        todo.items.contains { $0.id == id }
    }

    /// A rejection must be one the contract documents for the action, for the documented reason.
    func checkRejection(_ rejection: Rejection, of action: AppAction, on state: AppState) {
        var context: String { "\(place): \(Self.short(action)) was rejected with \(rejection.code) (\(rejection.message))" }
        var named: Int?
        var documented: Set<String> = []
        switch action {
        case .todo(.add):
            (named, documented) = (nil, [TodoRejectCode.emptyText, TodoRejectCode.invalidText, TodoRejectCode.overflow])
            if rejection.code == TodoRejectCode.overflow {
                #expect(state.todo.nextId == .max, "\(context)")
            }
        case let .todo(.edit(id, _)):
            (named, documented) = (id, [TodoRejectCode.emptyText, TodoRejectCode.invalidText])
        case let .todo(.remove(id)), let .todo(.toggle(id)):
            (named, documented) = (id, [])
        case let .todo(.move(id, position)):
            (named, documented) = (id, [TodoRejectCode.badPosition])
            if holds(id, in: state.todo) {
                #expect(!(1 ... state.todo.items.count).contains(position), "\(context)")
            }
        case .counter(.increment):
            (named, documented) = (nil, ["overflow"])
            #expect(state.counter.value == .max, "\(context)")
        case .counter(.decrement):
            (named, documented) = (nil, ["overflow"])
            #expect(state.counter.value == .min, "\(context)")
        case let .timer(.start(id, seconds)):
            (named, documented) = (id, [TimerRejectCode.badDuration])
            if holds(id, in: state.todo) {
                #expect(!(1 ... TimerReducer.maximumSeconds).contains(seconds ?? TimerAction.defaultSeconds), "\(context)")
            }
        case .timer(.pick):
            (named, documented) = (nil, [TimerRejectCode.nothingToPick])
            #expect(state.todo.items.allSatisfy { $0.done }, "\(context)")
        case .todo(.clear), .counter, .timer:
            (named, documented) = (nil, [])
        }
        if let named, !holds(named, in: state.todo) {
            #expect(rejection == Rejection(code: TodoRejectCode.unknownItem, message: "no item with id \(named)"), "\(context)")
        } else {
            #expect(documented.contains(rejection.code), "\(context)")
        }
    }

    /// An applied action did what its row of the contract says.
    func checkApplied(_ action: AppAction, before: AppState) {
        var context: String { "\(place): \(Self.short(action))" }
        let ids = state.todo.items.map(\.id)
        let idsBefore = before.todo.items.map(\.id)
        switch action {
        case let .todo(.add(text)):
            #expect(Self.isValid(text), "\(context): the text is not one the contract allows")
            #expect(state.todo.items.last == TodoItem(id: before.todo.nextId, text: text), "\(context)")
            #expect(state.todo.nextId == before.todo.nextId &+ 1, "\(context)")
        case .todo(.clear):
            #expect(state.todo.items.isEmpty && state.todo.nextId == before.todo.nextId, "\(context)")
        case let .todo(.remove(id)):
            #expect(ids == idsBefore.filter { $0 != id } && ids.count == idsBefore.count - 1, "\(context)")
        case let .todo(.toggle(id)):
            #expect(ids == idsBefore, "\(context)")
            #expect(state.todo.items.first { $0.id == id }?.done == before.todo.items.first { $0.id == id }.map { !$0.done }, "\(context)")
        case let .todo(.edit(id, text)):
            #expect(Self.isValid(text), "\(context): the text is not one the contract allows")
            #expect(ids == idsBefore && state.todo.items.first { $0.id == id }?.text == text, "\(context)")
        case let .todo(.move(id, position)):
            var expected = idsBefore.filter { $0 != id }
            guard (1 ... idsBefore.count).contains(position) else {
                Issue.record("\(context): moved to a position outside 1...\(idsBefore.count)")
                return
            }
            expected.insert(id, at: position - 1)
            #expect(ids == expected, "\(context)")
        case .counter(.increment):
            #expect(state.counter.value == before.counter.value &+ 1, "\(context)")
        case .counter(.decrement):
            #expect(state.counter.value == before.counter.value &- 1, "\(context)")
        case .counter(.reset):
            #expect(state.counter.value == 0, "\(context)")
        case let .counter(.set(value)):
            #expect(state.counter.value == value, "\(context)")
        case let .timer(.start(id, seconds)):
            let length = seconds ?? TimerAction.defaultSeconds
            let deadline = Date(timeIntervalSince1970: now).timeIntervalSince1970 + Double(length)
            #expect(state.timer == TimerState(item: id, running: true, remaining: length, deadline: deadline), "\(context)")
        case .timer(.stop):
            #expect(state.timer == .idle, "\(context)")
        case .counter(.randomize), .timer(.pick):
            #expect(state == before, "\(context): the change comes later, from the effect")
        case .timer(.tick):
            break
        }
        if case .todo(.add) = action {} else {
            #expect(state.todo.nextId == before.todo.nextId, "\(context): only add changes nextId")
        }
        if case .todo = action {} else {
            #expect(ids == idsBefore, "\(context): only the to-do actions change the list")
        }
        if case .counter = action {} else {
            #expect(state.counter == before.counter, "\(context): only the counter's actions change it")
        }
        // A pomodoro is earned only when a focus completes, one at a time.
        let earned = state.todo.items.compactMap { item in
            before.todo.items.first { $0.id == item.id }.map { item.pomodoros != $0.pomodoros }
        }.filter { $0 }.count
        #expect(earned <= 1, "\(context): \(earned) items earned a pomodoro")
        if earned == 1 { #expect(state.timer == .idle, "\(context): a pomodoro without the focus ending") }
    }

    /// What holds after every action (docs/PROTOCOL.md, section 10).
    func checkInvariants() {
        let ids = state.todo.items.map(\.id)
        #expect(Set(ids).count == ids.count, "\(place): ids repeat: \(ids)")
        #expect(ids.allSatisfy { $0 < state.todo.nextId }, "\(place): an id is not below nextId \(state.todo.nextId): \(ids)")
        for item in state.todo.items {
            #expect(item.pomodoros >= 0, "\(place): item \(item.id) has \(item.pomodoros) pomodoros")
            #expect(state.todo.index(of: item.id).map { state.todo.items[$0].id } == item.id, "\(place): index(of: \(item.id)) misses it")
        }
        let timer = state.timer
        if timer != .idle {
            #expect(timer.running && timer.deadline != nil && timer.remaining >= 0, "\(place): timer \(timer)")
            #expect(timer.item.map { holds($0, in: state.todo) } == true, "\(place): the focus is on \(String(describing: timer.item)), not an item of the list")
        }
    }

    /// The change as the core sends it, a patch of the state's JSON, takes the state before to
    /// the state after.
    func checkPatch(from before: AppState) {
        do throws(PatchCheck.Failure) {
            try PatchCheck.verify(from: before, to: state)
        } catch {
            Issue.record("\(place): \(error)")
        }
    }

    /// An item's text as the contract describes it: not blank, one line, at most 4000 bytes of
    /// UTF-8 and 1000 characters.
    static func isValid(_ text: String) -> Bool {
        text.utf8.count <= 4000 && text.count <= 1000 && text.contains { !$0.isWhitespace }
            && !text.unicodeScalars.contains { [.control, .lineSeparator, .paragraphSeparator].contains($0.properties.generalCategory) }
    }
}

/// Values appended from any task, read at the end.
private final class Collected<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])
    func append(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }
}

/// Random choices from a seed, and the values most likely to break a reducer.
private struct FuzzDice {
    var generator: SeededRandom

    init(seed: UInt64) {
        generator = SeededRandom(seed: seed)
    }

    /// A number from 0 to `bound - 1`.
    mutating func below(_ bound: Int) -> Int { Int(generator.next() % UInt64(bound)) }
    /// True once in `times`.
    mutating func chance(_ times: Int) -> Bool { below(times) == 0 }
    mutating func pick<T>(_ choices: [T]) -> T { choices[below(choices.count)] }
    /// Any Int at all, uniformly.
    mutating func anyInteger() -> Int { Int(truncatingIfNeeded: generator.next()) }

    static let extremeIntegers: [Int] = [
        .min, .min + 1, .min + 2, -1_000_000, -2, -1, 0, 1, 2, 3, .max - 2, .max - 1, .max,
        Int(Int32.min), Int(Int32.max), Int(Int32.max) + 1, Int(UInt32.max), 1 << 53, (1 << 53) + 1, 1 << 62,
    ]

    static let extremeDoubles: [Double] = [
        0, -0.0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, 0.5, -0.5, 1e15, -1e15, 0x1p63, -0x1p63, 0x1p64,
        1e300, -1e300, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .infinity, -.infinity, .nan,
    ]

    /// Texts that break validation or counting: empty and blank, control characters and line
    /// separators, combining marks by the thousand, the limits and one past them, 100 KB.
    static let texts: [String] = [
        "", " ", "\t", "\n", "\r\n", "\u{A0}", "\u{3000}", "\u{2028}", "\u{2029}", "\u{85}",
        "buy milk", "a", "x y", "a\u{0}b", "bell\u{7}", "tab\there", "\u{7F}", "\u{9F}", "\u{1B}[2J\u{1B}[H", "line\u{2028}separator",
        "e\u{301}", "\u{200B}", "\u{200D}", "\u{202E}reversed", "\u{FEFF}bom", "\u{FFFD}", "\u{FFFE}", "\u{10FFFF}", "\u{E000}",
        "🇫🇷", "👨‍👩‍👧‍👦", "\u{1F1E6}", "買い物 🥛 café", #"\ud800"#, #"{"add":{"text":"x"}}"#, "\"}}", "%s%n%x", "-9223372036854775808",
        "a" + String(repeating: "\u{301}", count: 100_000),
        String(repeating: "e\u{301}", count: 1000), String(repeating: "é", count: 1001),
        String(repeating: "x", count: 1000), String(repeating: "x", count: 1001), String(repeating: "x", count: 4000),
        String(repeating: "😀", count: 1000), String(repeating: "😀", count: 1000) + "x",
        String(repeating: "x", count: 100_000), String(repeating: " ", count: 100_000) + "x",
        String(repeating: "\u{2003}", count: 1333) + "x",
    ]

    /// Where random scalars come from: printable ASCII most, then the troublesome ranges.
    static let scalarRanges: [ClosedRange<UInt32>] = [
        0x20 ... 0x7E, 0x20 ... 0x7E, 0x20 ... 0x7E, 0x00 ... 0x1F, 0x7F ... 0x9F, 0x300 ... 0x36F, 0x2000 ... 0x202F,
        0xFE00 ... 0xFFFF, 0x4E00 ... 0x4E40, 0x1F1E6 ... 0x1F1FF, 0x1F600 ... 0x1F64F, 0xE0000 ... 0xE007F, 0x10FFF0 ... 0x10FFFF,
    ]

    /// A text: one of ``texts``, or random scalars.
    mutating func text() -> String {
        if chance(3) { return pick(Self.texts) }
        var text = ""
        for _ in 0 ..< below(24) {
            let range = pick(Self.scalarRanges)
            if let scalar = Unicode.Scalar(range.lowerBound + UInt32(below(Int(range.upperBound - range.lowerBound) + 1))) {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }
}

/// JSON tokens for the documents of ``TodoReducerFuzzTests``, each with what an `Int` field
/// makes of it.
private enum FuzzJSON {
    enum Value: Equatable {
        /// An `Int` field takes it as this number.
        case integer(Int)
        /// Every `Int` field must refuse it.
        case refused
        /// Either is right.
        case either
    }

    struct Number {
        let text: String
        let value: Value
    }

    enum Text: Equatable {
        case value(String)
        case refused
        case either
    }

    /// Numbers at and beyond Int64's range, whole numbers written as doubles, fractions, and
    /// things that are not JSON numbers at all.
    static let numbers: [Number] = [
        Number(text: "0", value: .integer(0)), Number(text: "-0", value: .integer(0)), Number(text: "1", value: .integer(1)),
        Number(text: "-1", value: .integer(-1)), Number(text: "9223372036854775807", value: .integer(.max)),
        Number(text: "9223372036854775806", value: .integer(.max - 1)), Number(text: "-9223372036854775808", value: .integer(.min)),
        Number(text: "-9223372036854775807", value: .integer(.min + 1)), Number(text: "1.0", value: .integer(1)),
        Number(text: "1e3", value: .integer(1000)), Number(text: "1E+2", value: .integer(100)), Number(text: "-2.0", value: .integer(-2)),
        Number(text: "9007199254740991e0", value: .integer(9_007_199_254_740_991)), Number(text: "0.0", value: .integer(0)),
        Number(text: "9223372036854775808", value: .refused), Number(text: "-9223372036854775809", value: .refused),
        Number(text: "18446744073709551615", value: .refused), Number(text: "18446744073709551616", value: .refused),
        Number(text: "99999999999999999999", value: .refused), Number(text: "123456789012345678901234567890", value: .refused),
        Number(text: "-123456789012345678901234567890", value: .refused), Number(text: "1e19", value: .refused),
        Number(text: "-1e19", value: .refused), Number(text: "1e30", value: .refused), Number(text: "1e400", value: .refused),
        Number(text: "-1e400", value: .refused), Number(text: "0.5", value: .refused), Number(text: "-0.5", value: .refused),
        Number(text: "1.5", value: .refused), Number(text: "9007199254740992.0", value: .refused),
        Number(text: "9223372036854775807.0", value: .refused), Number(text: "9.223372036854775807e18", value: .refused),
        Number(text: "1e-7", value: .refused), Number(text: "NaN", value: .refused), Number(text: "Infinity", value: .refused),
        Number(text: "-Infinity", value: .refused), Number(text: "+1", value: .refused), Number(text: "01", value: .refused),
        Number(text: "-01", value: .refused), Number(text: ".5", value: .refused), Number(text: "1.", value: .refused),
        Number(text: "1e", value: .refused), Number(text: "--1", value: .refused), Number(text: "0x10", value: .refused),
        Number(text: "1_000", value: .refused), Number(text: "", value: .refused), Number(text: #""3""#, value: .refused),
        Number(text: "true", value: .refused), Number(text: "[]", value: .refused), Number(text: "{}", value: .refused),
        Number(text: "1e-400", value: .either), Number(text: "4.9e-324", value: .either), Number(text: "-0.0", value: .either),
    ]

    /// A number token: from the table, an id of the list give or take one, or random digits.
    static func number(near ids: [Int], _ dice: inout FuzzDice) -> Number {
        switch dice.below(10) {
        case 0 ..< 5:
            return dice.pick(numbers)
        case 5 ..< 7 where !ids.isEmpty:
            let id = dice.pick(ids).addingReportingOverflow(dice.pick([-1, 0, 0, 1])).partialValue
            return Number(text: String(id), value: .integer(id))
        default:
            // Up to 25 digits, no leading zero: in Int's range or not, Int(_:) says exactly.
            var text = dice.chance(3) ? "-" : ""
            text += String(1 + dice.below(9))
            for _ in 0 ..< dice.below(25) { text += String(dice.below(10)) }
            return Number(text: text, value: Int(text).map(Value.integer) ?? .refused)
        }
    }

    /// Raw string tokens the encoder never writes: escapes of lone surrogates, raw control
    /// bytes (not JSON), and bytes that are not UTF-8.
    static let rawStrings: [(String, Text)] = [
        (#""\ud800""#, .either), (#""\udc00x""#, .either), (#""\uD83D\uDE00""#, .value("😀")), (#""\u0000""#, .value("\u{0}")),
        (#""a\"b""#, .value("a\"b")), (#""\/""#, .value("/")), ("\"a\u{1}b\"", .refused), (#""\x""#, .refused), (#""open"#, .refused),
        ("\"\u{7F}\"", .value("\u{7F}")), (#""\u12""#, .refused), ("\"\u{2028}\"", .value("\u{2028}")),
    ]

    /// A string token: a text of ``FuzzDice/texts`` or a random one, written by the wire's
    /// encoder, or a raw token.
    static func string(_ dice: inout FuzzDice) -> (String, Text) {
        if dice.chance(5) { return dice.pick(rawStrings) }
        var text = dice.text()
        // Texts of 100 KB in one document in ten: parsing them is slow in a debug build, and
        // the reducer's limits are the other test's business.
        if text.utf8.count > 5000, !dice.chance(10) { text = String(text.unicodeScalars.prefix(40)) }
        guard let written = try? WireJSON.string(text) else { return (#""""#, .value("")) }
        return (written, .value(text))
    }
}

/// Damage to a valid document: bytes removed, inserted or swapped, ranges copied.
private enum FuzzBytes {
    static let insertions: [[UInt8]] = [
        [0x2C], [0x5D], [0x7D], [0x5B], [0x7B], [0x22], [0x3A], [0x5C], [0x20], [0x00], [0x1F], [0xFF], [0xC3], [0xED, 0xA0, 0x80],
        Array("-".utf8), Array("9".utf8), Array("99999999999999999999".utf8), Array("e400".utf8), Array(".5".utf8), Array("null".utf8),
        Array(#""id":"#.utf8), Array(#","id":1"#.utf8), Array(#"\u0000"#.utf8), Array(#"\ud800"#.utf8),
    ]

    static func mutate(_ document: [UInt8], _ dice: inout FuzzDice) -> [UInt8] {
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
