/// Whether the patch the core sends for a change really takes the old state's JSON to the new
/// state's: what keeps shells from drifting apart from the core. The framework's own diff
/// (``FieldDiff``) is right by construction; a hand-written ``Diffable/appendPatch(from:at:to:)``
/// is checked here. ``TestStore`` runs it after every action a test sends or receives, and the
/// core logs a shell's report of a patch it could not apply.
public enum PatchCheck {
    /// What went wrong, in words for a test's failure.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// The patch, its JSON (cut), and where the patched JSON and the new state's differ.
        public let description: String
    }

    /// Checks the patch from `old` to `new`.
    /// - Parameters:
    ///   - old: the state before.
    ///   - new: the state after.
    /// - Throws: ``Failure`` when the patch cannot be made, does not apply, or applied does not
    ///   give the new state's JSON.
    public static func verify<State: Encodable>(from old: State, to new: State) throws(Failure) {
        let patch: JSONPatch
        var document: JSONValue
        let expected: JSONValue
        do {
            patch = try JSONPatch(from: old, to: new)
            document = try JSONValue(encoding: old)
            expected = try JSONValue(encoding: new)
        } catch {
            throw Failure(description: "no patch could be made: \(error)")
        }
        let shown = (try? WireJSON.string(patch)).map { String($0.prefix(300)) } ?? "?"
        do throws(JSONPatchError) {
            try document.applyInPlace(patch)
        } catch {
            throw Failure(description: "the patch \(shown) does not apply to the state before: \(error)")
        }
        guard document == expected else {
            let differences = JSONValue.diff(from: expected, to: document).prefix(5).map { operation in
                "\(operation.path.tokens.isEmpty ? "(the whole state)" : operation.path.description): the new state has \(json(expected.value(at: operation.path))), the patched one \(json(operation.value))"
            }
            throw Failure(description: "the patch \(shown) does not give the new state: " + differences.joined(separator: "; "))
        }
    }

    private static func json(_ value: JSONValue?) -> String {
        guard let value else { return "nothing" }
        return (try? WireJSON.string(value)).map { String($0.prefix(100)) } ?? "?"
    }
}
