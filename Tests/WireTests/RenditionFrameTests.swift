import Testing
import Wire

/// A rendition read by hand is the rendition the general reader reads; anything else is left
/// to the general reader.
@Suite("Rendition frames")
struct RenditionFrameTests {
    /// The general reader's rendition in the fast reader's terms.
    private static func general(_ payload: [UInt8]) throws -> RenditionFrame? {
        guard case let .rendition(rendition) = try WireJSON.decode(ServerMessage<JSONValue>.self, from: payload) else { return nil }
        return rendition
    }

    @Test("renditions as the core writes them read the same as with the general reader")
    func asWritten() throws {
        let renditions: [Rendition<JSONValue>] = [
            Rendition(revision: 7, content: .patch([.replace(JSONPointer("/counter/value")!, .integer(3))])),
            Rendition(revision: 8, content: .patch([
                .add(JSONPointer("/todo/items/-")!, .object(["id": .integer(2), "text": .string("a \"b\" ~/ é")])),
                .remove(JSONPointer("/todo/items/0")!),
                .move(from: JSONPointer("/a~1b/0")!, to: JSONPointer("/c~0d/1")!),
                .replace(JSONPointer("/timer/deadline")!, .null),
                .replace(JSONPointer("")!, .double(1.5)),
            ])),
            Rendition(revision: 0, content: .patch([])),
            Rendition(revision: 9, content: .snapshot(.object(["todo": .object(["items": .array([])]), "n": .integer(1)]))),
            Rendition(revision: 10, content: .snapshot(.null)),
        ]
        for rendition in renditions {
            let payload = try WireJSON.encode(ServerMessage<JSONValue>.rendition(rendition))
            let read = try #require(RenditionFrame.read(payload), "\(String(decoding: payload, as: UTF8.self))")
            #expect(read == (try Self.general(payload)))
        }
    }

    @Test("other forms the general reader reads are read the same: whitespace, members in any order, escaped pointers", arguments: [
        #"{"rendition": { "revision" : 3 , "patch" : [ { "value" : [1, {"b": "]"}] , "path" : "/a\u002fb" , "op" : "add" } ] } }"#,
        #"{"rendition":{"snapshot":{"x":[]},"revision":4}}"#,
        #"{"rendition":{"patch":[{"op":"move","from":"/é","path":"/a~1b"},{"op":"test","path":"","value":null}],"revision":5}}"#,
    ])
    func otherForms(_ frame: String) throws {
        let payload = Array(frame.utf8)
        let read = try #require(RenditionFrame.read(payload))
        #expect(read == (try Self.general(payload)))
    }

    @Test("anything else is left to the general reader", arguments: [
        #"{"ack":{"revision":1,"seq":1}}"#,
        #" {"rendition":{"revision":1,"patch":[]}}"#,
        #"{"rendition":{"revision":1,"snapshot":{"a":1}"#,
        #"{"rendition":{"revision":1}}"#,
        #"{"rendition":{"revision":-1,"patch":[]}}"#,
        #"{"rendition":{"revision":1.5,"patch":[]}}"#,
        #"{"rendition":{"revision":"1","patch":[]}}"#,
        #"{"rendition":{"revision":1,"patch":{}}}"#,
        #"{"rendition":{"revision":1,"patch":[],"snapshot":{}}}"#,
        #"{"rendition":{"revision":1,"patch":[],"x":1}}"#,
        #"{"rendition":{"revision":1,"patch":[]},"x":1}"#,
        #"{"rendition":{"revision":1,"patch":[{"op":"frob","path":"/a"}]}}"#,
        #"{"rendition":{"revision":1,"patch":[{"op":"remove","path":"a"}]}}"#,
        #"{"rendition":{"revision":1,"patch":[{"op":"remove"}]}}"#,
        #"{"rendition":{"revision":1,"patch":[{"op":"remove","path":"/a","extra":1}]}}"#,
        #"{"rendition":{"revision":1,"patch":[{"op":"move","path":"/a","from":null}]}}"#,
        #"{"rendition":{"revision":1,"patch":[{"op":"remove","path":"/a","op":"remove"}]}}"#,
        #"{"rendition":{"revision":1,"revision":1,"patch":[]}}"#,
        #"{"rendition":{"revision":01,"patch":[]}}"#,
        #"{"rendition":{"revision":1,"patch":[{"op":"add","path":"/a","value":[}]}}"#,
        #"{"rendition":{"revision":1,"patch":[{"op":"add","path":"/a","value":tru}]}}"#,
        #"{"rendition":{"revision":1,"patch":[],}}"#,
        #"{"rendition":{"revision":1,"patch":[{"op":"remove","path":"/a"},]}}"#,
        #"{"rendition":{"revision":1,"patch":[1]}}"#,
        #"{"rendition":{"revision":1,"patch":[]}"#,
        #"{"rendition":{"revision":1,"patch":[]}} x"#,
    ])
    func unsure(_ frame: String) {
        #expect(RenditionFrame.read(Array(frame.utf8)) == nil)
    }

    @Test("a random patch of random values, written by the wire's encoder, reads the same both ways")
    func fuzz() throws {
        var random = RandomJSON()
        for round in 0 ..< 500 {
            let rendition = Rendition<JSONValue>(revision: UInt64(round), content: round % 5 == 0 ? .snapshot(random.value()) : .patch(random.patch()))
            let payload = try WireJSON.encode(ServerMessage<JSONValue>.rendition(rendition))
            let read = try #require(RenditionFrame.read(payload), "\(String(decoding: payload, as: UTF8.self))")
            #expect(read == (try Self.general(payload)))
        }
    }

    @Test("an object written with one member set is the object with that member, written")
    func settingAMember() throws {
        let members: [String: JSONValue] = ["b": .integer(1), "revision": .integer(9), "a": .array([.string("x")]), "z": .null, "rev": .bool(true)]
        for key in ["revision", "0", "zz", "b", "é", ""] {
            var expected = members
            expected[key] = .integer(42)
            #expect(try JSONSerializer.serialize(members, setting: key, to: .integer(42)) == (try JSONSerializer.serialize(.object(expected))), "\(key)")
        }
        #expect(try JSONSerializer.serialize([:], setting: "revision", to: .integer(1)) == Array(#"{"revision":1}"#.utf8))
    }
}
