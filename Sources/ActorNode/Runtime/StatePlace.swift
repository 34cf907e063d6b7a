/// Where a feature's state is in its parent's: a writable key path, and, when the path names a
/// stored property kept in the parent's own storage, its offset there.
///
/// Changing a value through a key path goes through the runtime (`swift_modifyAtWritableKeyPath`
/// and a coroutine), about 130 instructions for every action a scoped reducer takes; through
/// the offset it is a pointer's addition. `MemoryLayout.offset(of:)` gives an offset only for
/// such a property (nil for a computed one, one with observers, or a class's), and promises
/// that the value is read and written correctly through it; for any other path the key path
/// itself is used.
@usableFromInline struct StatePlace<Parent, Child>: Sendable {
    /// The path, used when there is no offset.
    @usableFromInline let path: WritableKeyPath<Parent, Child> & Sendable
    /// The child's offset in the parent's storage, when the path allows one.
    @usableFromInline let offset: Int?

    /// - Parameter path: where the child's state is in the parent's.
    @inlinable init(_ path: WritableKeyPath<Parent, Child> & Sendable) {
        self.path = path
        offset = MemoryLayout<Parent>.offset(of: path)
    }

    /// Runs `body` on the child's state inside `parent`, in place.
    /// - Parameters:
    ///   - parent: the parent's state.
    ///   - body: what to do with the child's.
    @inlinable func modify<Result, Failure: Error>(
        _ parent: inout Parent, _ body: (inout Child) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        guard let offset else { return try body(&parent[keyPath: path]) }
        return try withUnsafeMutableBytes(of: &parent) { storage throws(Failure) in
            try body(&(storage.baseAddress! + offset).assumingMemoryBound(to: Child.self).pointee)
        }
    }
}
