extension Dictionary where Key == String, Value == JSONValue {
    /// Where `key` is among an object's members: compared one by one when there are few (two
    /// words each for a short key, where hashing it costs some 300 instructions), looked up by
    /// its hash when there are many. Applying a patch and writing a watcher's line look a
    /// member up in a small object at every step of a path, for every change.
    /// - Parameter key: the member's key.
    /// - Returns: its index, or nil if the object has no such member.
    package func memberIndex(_ key: String) -> Index? {
        guard count <= 8 else { return index(forKey: key) }
        var index = startIndex
        while index != endIndex {
            if self[index].key == key { return index }
            formIndex(after: &index)
        }
        return nil
    }
}
