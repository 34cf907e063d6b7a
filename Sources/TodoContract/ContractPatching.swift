import Wire

/// How a shell brings its typed state along with each patch in place: a change in the item
/// list touches one item (or inserts or removes one); anything else is small and decoded again.
/// (The patches themselves are the framework's, found from the coding keys: the item list is a
/// ``ChunkedArray``, whose diff skips the chunks that did not change.)
extension AppState: Patchable {
    public mutating func patch(at path: ArraySlice<String>, operation: JSONPatchOperation.Kind, document: JSONValue?) throws {
        if try Self.patchMember("todo", &todo, at: path, operation: operation, document: document) { return }
        self = try Self.decoded(from: document)
    }
}

extension TodoState: Patchable {
    public mutating func patch(at path: ArraySlice<String>, operation: JSONPatchOperation.Kind, document: JSONValue?) throws {
        if try Self.patchMember("items", &items, at: path, operation: operation, document: document) { return }
        self = try Self.decoded(from: document)
    }
}

extension TodoItem: Patchable {}
