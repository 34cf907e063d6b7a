import Testing
@testable import TodoContract
@testable import Wire

/// A number decodes into a field only if the field can hold it exactly; otherwise the error
/// names the field and the number.
@Suite("JSON decoder: numbers and their fields")
struct JSONNumberFieldTests {
    private func failure<T: Decodable>(_ type: T.Type, _ text: String) -> String? {
        do {
            _ = try WireJSON.decode(type, from: Array(text.utf8))
            return nil
        } catch {
            return describeDecodingFailure(error)
        }
    }

    @Test("an id that is not a whole number in range names its path and the number", arguments: [
        (#"{"toggle":{"id":1.5}}"#, "at toggle.id: the number 1.5 does not fit its field (expected a whole number in range)"),
        (#"{"remove":{"id":1e30}}"#, "at remove.id: the number 1e+30 does not fit its field (expected a whole number in range)"),
        (#"{"move":{"id":1,"position":-0.5}}"#, "at move.position: the number -0.5 does not fit its field (expected a whole number in range)"),
        (#"{"edit":{"id":9223372036854775808,"text":"x"}}"#, "at edit.id: the number 9.223372036854776e+18 does not fit its field (expected a whole number in range)"),
        (#"{"counter":{"set":{"value":1e400}}}"#, "the number 1e400 at byte 27 is too large for a double"),
        (#"{"timer":{"start":{"id":3,"seconds":0.1}}}"#, "at timer.start.seconds: the number 0.1 does not fit its field (expected a whole number in range)"),
    ])
    func actionFields(text: String, expected: String) {
        #expect(failure(AppAction.self, text) == expected)
    }

    @Test("inside an envelope, the reject's reason is relative to the action")
    func inEnvelope() {
        let text = #"{"action":{"client":"c","seq":4,"action":{"toggle":{"id":1.5}}}}"#
        do {
            _ = try WireJSON.decode(ClientMessage<AppAction>.self, from: Array(text.utf8))
            Issue.record("decoded 1.5 as an id")
        } catch let error as InvalidActionError {
            #expect(error == InvalidActionError(seq: 4, reason: "at toggle.id: the number 1.5 does not fit its field (expected a whole number in range)"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("a seq that does not fit says what seq takes", arguments: ["-1", "1.5", "9223372036854775808", "1e19"])
    func seq(number: String) {
        let text = #"{"action":{"client":"c","seq":"# + number + #","action":"clear"}}"#
        let reason = failure(ClientMessage<AppAction>.self, text)
        #expect(reason?.hasPrefix("at action.seq: seq must be a whole number from 1 to 9223372036854775807 (the number ") == true, "\(reason ?? "")")
        #expect(reason?.hasSuffix(" does not fit its field (expected a whole number in range))") == true, "\(reason ?? "")")
    }

    @Test("whole numbers written as doubles are accepted below 2^53")
    func wholeDoubles() throws {
        #expect(try WireJSON.decode([Int].self, from: Array("[1.0, 1e3, -2.0, 0.0, -0, 4503599627370496.0, 9007199254740991e0]".utf8))
            == [1, 1000, -2, 0, 0, 4_503_599_627_370_496, 9_007_199_254_740_991])
        #expect(failure([Int].self, "[9007199254740992.0]") == "at 0: the number 9007199254740992 does not fit its field (expected a whole number in range)")
        #expect(failure([UInt64].self, "[18446744073709551615]") == "at 0: the number 1.8446744073709552e+19 does not fit its field (expected a whole number in range)")
        #expect(try WireJSON.decode([Int64].self, from: Array("[9223372036854775807,-9223372036854775808]".utf8)) == [.max, .min])
    }

    @Test("every integer width checks its own range", arguments: [
        ("Int8", "128"), ("Int8", "-129"), ("UInt8", "256"), ("UInt8", "-1"), ("Int16", "32768"), ("UInt16", "65536"),
        ("Int32", "2147483648"), ("UInt32", "4294967296"), ("UInt32", "-1"), ("UInt", "-1"), ("UInt64", "-1"),
    ])
    func widths(type: String, number: String) {
        let text = "[\(number)]"
        let reason: String?
        switch type {
        case "Int8": reason = failure([Int8].self, text)
        case "UInt8": reason = failure([UInt8].self, text)
        case "Int16": reason = failure([Int16].self, text)
        case "UInt16": reason = failure([UInt16].self, text)
        case "Int32": reason = failure([Int32].self, text)
        case "UInt32": reason = failure([UInt32].self, text)
        case "UInt": reason = failure([UInt].self, text)
        default: reason = failure([UInt64].self, text)
        }
        #expect(reason == "at 0: the number \(number) does not fit its field (expected a whole number in range)")
    }

    @Test("the limits themselves fit")
    func limits() throws {
        #expect(try WireJSON.decode([Int8].self, from: Array("[-128,127]".utf8)) == [-128, 127])
        #expect(try WireJSON.decode([UInt8].self, from: Array("[0,255]".utf8)) == [0, 255])
        #expect(try WireJSON.decode([UInt32].self, from: Array("[4294967295]".utf8)) == [4_294_967_295])
        #expect(try WireJSON.decode([UInt64].self, from: Array("[9223372036854775807]".utf8)) == [9_223_372_036_854_775_807])
    }

    @Test("Double takes any number; Float any within its range")
    func floatingPoint() throws {
        #expect(try WireJSON.decode([Double].self, from: Array("[1, -7, 1.5, 1e300, 9223372036854775807]".utf8)) == [1, -7, 1.5, 1e300, 0x1p63])
        #expect(try WireJSON.decode([Float].self, from: Array("[0.1, 3, 3.4e38]".utf8)) == [0.1, 3, 3.4e38])
        #expect(failure([Float].self, "[1, 1e39]") == "at 1: the number 1e+39 does not fit its field (expected a number within the range of a 32-bit float)")
    }

    @Test("a number where something else is expected, and the reverse, are type mismatches")
    func mismatches() {
        #expect(failure(AppAction.self, #"{"add":{"text":1}}"#) == "at add.text: expected a string; found the number 1")
        #expect(failure(AppAction.self, #"{"toggle":{"id":"three"}}"#) == #"at toggle.id: expected an integer; found the string "three""#)
        #expect(failure(AppAction.self, #"{"toggle":{"id":true}}"#) == "at toggle.id: expected an integer; found true")
        #expect(failure(AppAction.self, #"{"toggle":{"id":null}}"#) == "at toggle.id: expected an integer, found null")
        #expect(failure([Bool].self, "[1]") == "at 0: expected true or false; found the number 1")
        #expect(failure([Double].self, #"["1.5"]"#) == #"at 0: expected a number; found the string "1.5""#)
    }
}
