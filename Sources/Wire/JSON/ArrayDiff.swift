/// The list diff behind every patch: trim the common prefix and suffix, recognise one element
/// moved to another place, pair up what is left, then add or remove the rest. Inserting,
/// removing, editing or moving one element costs one operation.
///
/// Generic over the element type, so that typed arrays (compared with `==`, encoding only the
/// elements that changed) and JSON arrays use the same algorithm.
enum ArrayDiff {
    /// Appends the operations that take `old` to `new` at `path`. `diffElement` describes the
    /// change of one element that stayed in place; `encode` gives the JSON of a new element.
    /// If the list changed so much that the operations would outnumber its elements, the whole
    /// list is replaced instead.
    static func appendPatch<Element: Equatable>(
        from old: [Element], to new: [Element], at path: JSONPointer, into patch: inout JSONPatch,
        diffElement: (Element, Element, JSONPointer, inout JSONPatch) throws -> Void,
        encode: (Element) throws -> JSONValue
    ) throws {
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
        if oldMiddle.isEmpty, newMiddle.isEmpty { return }
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
        var operations = JSONPatch()
        let paired = min(oldMiddle.count, newMiddle.count)
        for offset in 0 ..< paired {
            try diffElement(oldMiddle[prefix + offset], newMiddle[prefix + offset], path.appending(index: prefix + offset), &operations)
        }
        if newMiddle.count > paired {
            for index in prefix + paired ..< prefix + newMiddle.count {
                operations.append(.add(path.appending(index: index), try encode(new[index])))
            }
        } else if oldMiddle.count > paired {
            for index in (prefix + paired ..< prefix + oldMiddle.count).reversed() {
                operations.append(.remove(path.appending(index: index)))
            }
        }
        if operations.count > max(1, new.count) {
            patch.append(.replace(path, .array(try new.map(encode))))
        } else {
            patch.append(contentsOf: operations)
        }
    }
}
