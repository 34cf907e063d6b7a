extension JSONValue {
    /// A patch that takes `old` to `new`: applying it to `old` gives exactly `new`.
    ///
    /// Objects are compared member by member. Arrays are compared after trimming their common
    /// prefix and suffix, so that inserting, removing or editing one element costs one operation
    /// and moving one element to another place costs one `move`. Anything else is replaced.
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
            appendArrayDiff(from: oldElements, to: newElements, at: path, into: &patch)
        default:
            patch.append(.replace(path, new))
        }
    }

    private static func appendArrayDiff(from old: [JSONValue], to new: [JSONValue], at path: JSONPointer, into patch: inout JSONPatch) {
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] {
            prefix += 1
        }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix,
              old[old.count - 1 - suffix] == new[new.count - 1 - suffix] {
            suffix += 1
        }
        let oldMiddle = old[prefix ..< old.count - suffix]
        let newMiddle = new[prefix ..< new.count - suffix]
        let last = prefix + oldMiddle.count - 1

        if oldMiddle.count == newMiddle.count, oldMiddle.count >= 2 {
            if oldMiddle.first == newMiddle.last, oldMiddle.dropFirst().elementsEqual(newMiddle.dropLast()) {
                patch.append(.move(from: path.appending(index: prefix), to: path.appending(index: last)))
                return
            }
            if oldMiddle.last == newMiddle.first, oldMiddle.dropLast().elementsEqual(newMiddle.dropFirst()) {
                patch.append(.move(from: path.appending(index: last), to: path.appending(index: prefix)))
                return
            }
        }
        let paired = min(oldMiddle.count, newMiddle.count)
        for offset in 0 ..< paired {
            appendDiff(
                from: oldMiddle[prefix + offset], to: newMiddle[prefix + offset],
                at: path.appending(index: prefix + offset), into: &patch)
        }
        if newMiddle.count > paired {
            for index in prefix + paired ..< prefix + newMiddle.count {
                patch.append(.add(path.appending(index: index), new[index]))
            }
        } else if oldMiddle.count > paired {
            for index in (prefix + paired ..< prefix + oldMiddle.count).reversed() {
                patch.append(.remove(path.appending(index: index)))
            }
        }
    }
}
