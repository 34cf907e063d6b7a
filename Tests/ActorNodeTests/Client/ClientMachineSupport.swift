@testable import ActorNode
import Wire

/// A ``ClientMachine`` under test, with a clock of its own and the core's frames written the
/// general way: no socket, no thread.
struct MachineUnderTest {
    var machine: ClientMachine
    var now = MonotonicClock.Instant.now
    /// Every output, in order.
    var outputs: [ClientOutput] = []

    init(reconnectFor window: Duration? = nil, mirrors: Bool = true, timeout: Duration = .seconds(5)) {
        machine = ClientMachine(
            hello: Hello(role: .shell, client: "c1", name: "test"), timeout: timeout,
            reconnection: window.map { ClientMachine.Reconnection(window: $0) }, mirrors: mirrors)
    }

    /// Starts and connects, and takes a welcome at `revision` with `state`.
    static func open(at revision: UInt64 = 0, state: JSONValue = json(#"{"n":0}"#), reconnectFor window: Duration? = nil, mirrors: Bool = true) -> MachineUnderTest {
        var test = MachineUnderTest(reconnectFor: window, mirrors: mirrors)
        test.run(test.machine.start(now: test.now))
        test.run(test.machine.connected(now: test.now))
        test.receive(.welcome(Welcome(core: "k1", pid: 7, shells: 1, revision: revision, snapshot: state)))
        test.outputs.removeAll()
        return test
    }

    mutating func run(_ new: [ClientOutput]) {
        outputs += new
    }

    mutating func receive(_ message: ServerMessage<JSONValue>) {
        receive(bytes: Self.frame(message))
    }

    /// A frame from the core, its payload written as text.
    mutating func receive(_ text: String) {
        receive(bytes: (try? Frame.encode(Array(text.utf8))) ?? [])
    }

    mutating func receive(bytes: [UInt8]) {
        run(machine.received(bytes, now: now))
    }

    mutating func advance(_ duration: Duration) {
        now += duration
        run(machine.tick(now: now))
    }

    /// Lets time pass until the machine asks to connect (a reconnection's next attempt).
    mutating func advanceToNextAttempt() {
        guard let due = machine.deadline else { return }
        now = due
        run(machine.tick(now: now))
    }

    @discardableResult
    mutating func submit(_ action: JSONValue) throws -> UInt64 {
        let (seq, new) = try machine.submit(try WireJSON.encode(action))
        run(new)
        return seq
    }

    /// The events among the outputs.
    var events: [ClientEvent] {
        outputs.compactMap { if case let .event(event) = $0 { event } else { nil } }
    }

    /// The frames written, as JSON.
    var written: [JSONValue] {
        outputs.flatMap { output -> [JSONValue] in
            guard case let .write(bytes) = output else { return [] }
            var decoder = FrameDecoder()
            decoder.append(bytes)
            var frames: [JSONValue] = []
            while let frame = try? decoder.nextFrame() {
                if let json = try? WireJSON.decode(JSONValue.self, from: frame) { frames.append(json) }
            }
            return frames
        }
    }

    /// How the session ended, if it did.
    var ended: LinkError?? {
        for event in events {
            if case let .ended(error) = event { return .some(error) }
        }
        return nil
    }

    static func frame(_ message: ServerMessage<JSONValue>) -> [UInt8] {
        (try? Frame.encode(WireJSON.encode(message))) ?? []
    }

    /// The frame of this client's action `seq`, as JSON.
    static func action(_ seq: UInt64, _ action: JSONValue) -> JSONValue {
        .object(["action": .object(["action": action, "client": .string("c1"), "seq": .integer(Int64(seq))])])
    }
}

/// JSON written as text.
func json(_ text: String) -> JSONValue {
    (try? WireJSON.decode(JSONValue.self, from: Array(text.utf8))) ?? .null
}
