import Testing
@testable import TodoContract
@testable import Wire

/// The decoder is a whole `Decoder`: keyed, unkeyed and single-value containers, nested ones,
/// super decoders, and coding paths as they go.
@Suite("JSON decoder: containers and paths")
struct JSONDecoderContainerTests {
    private func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try WireJSON.decode(type, from: Array(text.utf8))
    }

    private func failure<T: Decodable>(_ type: T.Type, _ text: String) -> String? {
        do {
            _ = try decode(type, text)
            return nil
        } catch {
            return describeDecodingFailure(error)
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }

    /// Uses every kind of container, nested, and records the coding paths it sees.
    struct Everything: Decodable, Equatable {
        var name: String
        var point: [Int]
        var flags: [String: Bool]
        var inner: Int
        var inherited: String
        var inheritedByKey: Int
        var list: [String]
        var paths: [String]

        enum Keys: String, CodingKey { case name, point, box, nested, list, parent, base }
        enum BoxKeys: String, CodingKey { case inner }

        init(from decoder: any Decoder) throws {
            var paths = [JSONDecoderContainerTests.path(decoder.codingPath)]
            let container = try decoder.container(keyedBy: Keys.self)
            name = try container.decode(String.self, forKey: .name)
            var point = try container.nestedUnkeyedContainer(forKey: .point)
            paths.append(JSONDecoderContainerTests.path(point.codingPath))
            var coordinates: [Int] = []
            while !point.isAtEnd {
                coordinates.append(try point.decode(Int.self))
            }
            self.point = coordinates
            let box = try container.nestedContainer(keyedBy: BoxKeys.self, forKey: .box)
            paths.append(JSONDecoderContainerTests.path(box.codingPath))
            inner = try box.decode(Int.self, forKey: .inner)
            flags = try container.decode([String: Bool].self, forKey: .nested)
            let superDecoder = try container.superDecoder()
            paths.append(JSONDecoderContainerTests.path(superDecoder.codingPath))
            inherited = try superDecoder.singleValueContainer().decode(String.self)
            let byKey = try container.superDecoder(forKey: .base)
            paths.append(JSONDecoderContainerTests.path(byKey.codingPath))
            inheritedByKey = try byKey.singleValueContainer().decode(Int.self)
            var list = try container.nestedUnkeyedContainer(forKey: .list)
            var strings: [String] = []
            while !list.isAtEnd {
                if try list.decodeNil() { continue }
                var element = try list.nestedUnkeyedContainer()
                paths.append(JSONDecoderContainerTests.path(element.codingPath))
                strings.append(try element.decode(String.self))
            }
            self.list = strings
            self.paths = paths
        }
    }

    @Test("every kind of container, nested, with the path each one is at")
    func everything() throws {
        let text = #"{"name":"n","point":[1,2,3],"box":{"inner":7},"nested":{"a":true,"b":false},"super":"s","base":5,"list":[["x"],null,["y"]]}"#
        let value = try decode(Everything.self, text)
        #expect(value.name == "n" && value.point == [1, 2, 3] && value.inner == 7 && value.flags == ["a": true, "b": false])
        #expect(value.inherited == "s" && value.inheritedByKey == 5 && value.list == ["x", "y"])
        #expect(value.paths == ["", "point", "box", "super", "base", "list.0", "list.2"])
        #expect(try JSONParser().parse(Array(text.utf8)).decode(as: Everything.self) == value)
    }

    /// Records what an unkeyed container reports as it goes.
    struct UnkeyedWalk: Decodable {
        var log: [String] = []

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            log.append("count \(container.count ?? -1)")
            // A failed decode does not move on; decodeNil moves on only past a null.
            if (try? container.decode(Int.self)) == nil { log.append("not an int at \(container.currentIndex)") }
            log.append("nil? \(try container.decodeNil()) at \(container.currentIndex)")
            log.append(try container.decode(String.self))
            log.append("nil? \(try container.decodeNil()) at \(container.currentIndex)")
            log.append("\(try container.decode(Int.self)) at end: \(container.isAtEnd)")
            do {
                _ = try container.decode(Int.self)
            } catch let error as DecodingError {
                log.append(error.conciseDescription)
            }
            do {
                _ = try container.decodeNil()
            } catch let error as DecodingError {
                log.append(error.conciseDescription)
            }
        }
    }

    @Test("an unkeyed container counts, moves on only after a success, and says when it is past the end")
    func unkeyed() throws {
        let walk = try decode(UnkeyedWalk.self, #"["a",null,3]"#)
        #expect(walk.log == [
            "count 3", "not an int at 0", "nil? false at 0", "a", "nil? true at 2", "3 at end: true",
            "at 3: expected an integer; the array has no element 3 (it has 3)",
            "at 3: expected a value or null; the array has no element 3 (it has 3)",
        ])
    }

    @Test("past the end, the error's path is the index that is missing")
    func pastTheEnd() {
        struct Pair: Decodable {
            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                _ = try container.decode(Int.self)
                _ = try container.decode(Int.self)
            }
        }
        #expect(failure([String: Pair].self, #"{"p":[1]}"#) == "at p.1: expected an integer; the array has no element 1 (it has 1)")
    }

    @Test("missing keys, wrong kinds and nulls are the standard errors, at their paths")
    func standardErrors() {
        #expect(failure(AppAction.self, #"{"move":{"id":1}}"#) == #"at move: missing "position""#)
        #expect(failure(AppAction.self, #"{"add":{"text":null}}"#) == "at add.text: expected a string, found null")
        #expect(failure(AppState.self, #"{"todo":{"items":[{"id":1,"text":"a","done":false},{"id":2,"text":"b"}],"nextId":3}}"#)
            == #"at todo.items.1: missing "done""#)
        #expect(failure(AppState.self, #"{"todo":[]}"#) == "at todo: expected an object; found an array")
        #expect(failure(AppState.self, #"{"todo":{"items":{},"nextId":1}}"#) == "at todo.items: expected an array; found an object")
        #expect(failure(AppState.self, #"{"todo":{"items":null,"nextId":1}}"#) == "at todo.items: expected an array, found null")
        #expect(failure(AppState.self, "7") == "expected an object; found the number 7")
        #expect(failure(ClientMessage<AppAction>.self, #"{"shout":{}}"#) == "unknown message 'shout' (expected one of hello, action, resync, query, bye)")
    }

    @Test("decodeIfPresent: a missing key and a null are both nil; anything else must decode")
    func optionals() throws {
        #expect(try decode(TimerState.self, #"{"running":true,"remaining":3}"#) == TimerState(running: true, remaining: 3))
        #expect(try decode(TimerState.self, #"{"item":null,"deadline":null,"running":false,"remaining":0}"#) == .idle)
        #expect(failure(TimerState.self, #"{"item":"x"}"#) == #"at item: expected an integer; found the string "x""#)
        #expect(try decode([Int?].self, "[1,null,3]") == [1, nil, 3])
    }

    @Test("the keys of an object, and whether it has one")
    func keys() throws {
        struct Keys: Decodable {
            var all: Set<String>
            var hasA: Bool
            var hasZ: Bool
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: AnyCodingKey.self)
                all = Set(container.allKeys.map(\.stringValue))
                hasA = container.contains(AnyCodingKey("a"))
                hasZ = container.contains(AnyCodingKey("z"))
            }
        }
        let keys = try decode(Keys.self, #"{"a":1,"b":null,"c":{}}"#)
        #expect(keys.all == ["a", "b", "c"] && keys.hasA && !keys.hasZ)
        let many = "{" + (0 ..< 20).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}"
        #expect(try decode([String: Int].self, many).count == 20)
        #expect(try decode([Int: String].self, #"{"1":"a","-2":"b"}"#) == [1: "a", -2: "b"])
    }

    @Test("a JSON value inside a typed message is taken as it is")
    func jsonValues() throws {
        let patch = try decode(JSONPatch.self, #"[{"op":"add","path":"/a","value":{"b":[1,2.5,"c",null]}}]"#)
        #expect(patch == [.add(JSONPointer("/a")!, .object(["b": .array([.integer(1), .double(2.5), .string("c"), .null])]))])
        #expect(try decode(JSONValue.self, #"{"a":1}"#) == .object(["a": .integer(1)]))
    }
}
