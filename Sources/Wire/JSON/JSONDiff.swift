extension JSONValue {
    /// A patch that takes `old` to `new`: applying it to `old` gives exactly `new`.
    ///
    /// Objects are compared member by member and arrays with ``ArrayDiff``; anything else that
    /// differs is replaced.
    public static func diff(from old: JSONValue, to new: JSONValue) -> JSONPatch {
        var patch = JSONPatch()
        appendDiff(from: old, to: new, at: JSONPointer(), into: &patch)
        return patch
    }

    private static func appendDiff(from old: JSONValue, to new: JSONValue, at path: JSONPointer, into patch: inout JSONPatch) {
        if old == new { return }
        switch (old, new) {
        case let (.object(oldMembers), .object(newMembers)):
            for key in oldMembers.keys.sorted() where newMembers[key] == nil {
                patch.append(.remove(path.appending(key)))
            }
            for key in newMembers.keys.sorted() {
                let newValue = newMembers[key]!
                if let oldValue = oldMembers[key] {
                    appendDiff(from: oldValue, to: newValue, at: path.appending(key), into: &patch)
                } else {
                    patch.append(.add(path.appending(key), newValue))
                }
            }
        case let (.array(oldElements), .array(newElements)):
            // Neither closure throws, so neither does the diff.
            try? ArrayDiff.appendPatch(
                from: oldElements, to: newElements, at: path, into: &patch,
                diffElement: { old, new, path, patch in appendDiff(from: old, to: new, at: path, into: &patch) },
                encode: { $0 })
        default:
            patch.append(.replace(path, new))
        }
    }
}
