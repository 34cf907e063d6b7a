/// The list diff behind every patch: trim the common prefix and suffix, recognise one element
/// moved to another place, pair up what is left, then add or remove the rest. Inserting,
/// removing, editing or moving one element costs one operation.
///
/// Generic over the element type, so that typed arrays (compared with `==`, encoding only the
/// elements that changed) and JSON arrays use the same algorithm.
@usableFromInline
enum ArrayDiff {
    /// Appends the operations that take `old` to `new` at `path`. `diffElement` describes the
    /// change of one element that stayed in place; `encode` gives the JSON of a new element.
    /// If the list changed so much that the operations would outnumber its elements, the whole
    /// list is replaced instead.
    ///
    /// `old` and `new` may be the middle of longer lists (a ``ChunkedArray``'s, whose shared
    /// ends were skipped): `offset` is then the index of their first element in the list,
    /// `totalCount` the new list's length, and `encodeWhole` the new list's JSON.
    @inlinable
    static func appendPatch<Element: Equatable>(
        from old: [Element], to new: [Element], at path: JSONPointer,
        offset: Int = 0, totalCount: Int? = nil, into patch: inout JSONPatch,
        diffElement: (Element, Element, JSONPointer, inout JSONPatch) throws -> Void,
        encode: (Element) throws -> JSONValue,
        encodeWhole: (() throws -> JSONValue)? = nil
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
        // Where a local position is in the whole list.
        func at(_ index: Int) -> JSONPointer { path.appending(index: offset + index) }
        let last = prefix + oldMiddle.count - 1

        if oldMiddle.count == newMiddle.count, oldMiddle.count >= 2 {
            if oldMiddle.first == newMiddle.last, oldMiddle.dropFirst().elementsEqual(newMiddle.dropLast()) {
                patch.append(.move(from: at(prefix), to: at(last)))
                return
            }
            if oldMiddle.last == newMiddle.first, oldMiddle.dropLast().elementsEqual(newMiddle.dropFirst()) {
                patch.append(.move(from: at(last), to: at(prefix)))
                return
            }
        }
        var operations = JSONPatch()
        let paired = min(oldMiddle.count, newMiddle.count)
        for step in 0 ..< paired {
            try diffElement(oldMiddle[prefix + step], newMiddle[prefix + step], at(prefix + step), &operations)
        }
        if newMiddle.count > paired {
            for index in prefix + paired ..< prefix + newMiddle.count {
                operations.append(.add(at(index), try encode(new[index])))
            }
        } else if oldMiddle.count > paired {
            for index in (prefix + paired ..< prefix + oldMiddle.count).reversed() {
                operations.append(.remove(at(index)))
            }
        }
        if operations.count > max(1, totalCount ?? new.count) {
            patch.append(.replace(path, try encodeWhole?() ?? .array(new.map(encode))))
        } else {
            patch.append(contentsOf: operations)
        }
    }
}
