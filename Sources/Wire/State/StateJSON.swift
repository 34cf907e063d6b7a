/// The state as one line of JSON, for programs: the app's state object with `"revision"` added
/// at its top level, `{"revision":7,"notes":{...}}`.
package enum StateJSON {
    /// - Parameters:
    ///   - state: the app's state.
    ///   - revision: its revision.
    package static func line(_ state: some Encodable, revision: UInt64) -> String {
        line((try? JSONValue(encoding: state)) ?? .null, revision: revision)
    }

    /// The same line from the state's JSON, without a typed state.
    package static func line(_ json: JSONValue, revision: UInt64) -> String {
        String(decoding: bytes(json, revision: revision), as: UTF8.self)
    }

    /// The same line as bytes, written straight from the state's JSON (nothing copied).
    package static func bytes(_ json: JSONValue, revision: UInt64) -> [UInt8] {
        guard case let .object(members) = json,
              var line = try? JSONSerializer.serialize(members, setting: "revision", to: .integer(Int64(revision)))
        else {
            return Array("{\"revision\":\(revision)}\n".utf8)
        }
        line.append(UInt8(ascii: "\n"))
        return line
    }
}
