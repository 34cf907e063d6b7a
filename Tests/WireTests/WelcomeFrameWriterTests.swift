import Testing
import Wire

/// The core's welcome, written by hand around the state's text
/// (``WelcomeFrame/frame(protocolVersion:core:pid:shells:revision:snapshot:)``), is byte for
/// byte what the general encoder writes for the same welcome, and ``WelcomeFrame/split(_:)``
/// reads it back: the envelope as it was, the state's text located exactly; what the split
/// leaves to the general reader (a core id that needs escapes, numbers past 10^18), the general
/// reader reads. (Past 2^63 - 1 the general encoder writes no number, so neither does the core.)
@Suite("Welcome frame writer")
struct WelcomeFrameWriterTests {
    private struct Values {
        var protocolVersion = ProtocolVersion.current
        var core = "5f0c2b1e-0a1b-4c2d-8e3f-405162738495"
        var pid: Int32 = 4242
        var shells = 1
        var revision: UInt64 = 7
        /// nil: a welcome for a hello that asked for no snapshot.
        var snapshot: JSONValue? = .object(["n": .integer(1)])

        /// Whether the split reads it (its plain form): the core id printable ASCII without
        /// escapes, the numbers below 10^18.
        var plain: Bool {
            core.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
                && revision < 1_000_000_000_000_000_000 && shells < 1_000_000_000_000_000_000
        }
    }

    private static let cases: [Values] = {
        var all = [Values()]
        for core in ["", "c0", "a \"quoted\" \\ core", "tab\there\u{1}", "é 買 🙂"] { var v = Values(); v.core = core; all.append(v) }
        for pid in [0, 1, -1, Int32.max, Int32.min] { var v = Values(); v.pid = pid; all.append(v) }
        for shells in [0, 1_000, Int.max] { var v = Values(); v.shells = shells; all.append(v) }
        // Up to 2^63 - 1, the largest whole number the wire carries (the general encoder refuses
        // more).
        for revision in [0, 1, 999_999_999_999_999_999, 1_000_000_000_000_000_000, UInt64(Int64.max)] {
            var v = Values()
            v.revision = revision
            all.append(v)
        }
        for version in [0, 1, 2, -3] { var v = Values(); v.protocolVersion = version; all.append(v) }
        let states: [JSONValue] = [
            .null, .integer(0), .double(1.5), .string("text, \"with\" } ] escapes \u{7}"), .array([]), .object([:]),
            .object(["todo": .object(["items": .array([.object(["id": .integer(1), "text": .string("a } ] \" \\ {")])])]), "b": .bool(true)]),
        ]
        for state in states { var v = Values(); v.snapshot = state; all.append(v) }
        var none = Values()
        none.snapshot = nil
        all.append(none)
        return all
    }()

    private static func written(_ values: Values) throws -> [UInt8] {
        WelcomeFrame.frame(
            protocolVersion: values.protocolVersion, core: values.core, pid: values.pid, shells: values.shells,
            revision: values.revision, snapshot: try values.snapshot.map { try WireJSON.encode($0) })
    }

    private static func welcome(_ values: Values) -> Welcome<JSONValue> {
        Welcome(protocolVersion: values.protocolVersion, core: values.core, pid: values.pid, shells: values.shells, revision: values.revision, snapshot: values.snapshot)
    }

    @Test("the writer's bytes are the general encoder's")
    func writtenAsTheEncoderWrites() throws {
        for values in Self.cases {
            let encoded = try Frame.encode(WireJSON.encode(ServerMessage<JSONValue>.welcome(Self.welcome(values))))
            #expect(try Self.written(values) == encoded, "\(values)")
        }
    }

    @Test("the split reads the writer's welcome back; what it leaves, the general reader reads")
    func readBack() throws {
        for values in Self.cases {
            var decoder = FrameDecoder()
            decoder.append(try Self.written(values))
            let payload = try #require(try decoder.nextFrame())
            if values.plain {
                let split = try #require(WelcomeFrame.split(payload), "\(values)")
                #expect(split.protocolVersion == values.protocolVersion)
                #expect(split.core == values.core)
                #expect(split.pid == values.pid)
                #expect(split.shells == values.shells)
                #expect(split.revision == values.revision)
                #expect(split.snapshot.map { Array(payload[$0]) } == (try values.snapshot.map { try WireJSON.encode($0) }))
            } else {
                #expect(WelcomeFrame.split(payload) == nil, "\(values)")
            }
            let general = try WireJSON.decode(ServerMessage<JSONValue>.self, from: payload)
            #expect(general == .welcome(Self.welcome(values)), "\(values)")
        }
    }
}
