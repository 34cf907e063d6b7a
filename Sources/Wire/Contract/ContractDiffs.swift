/// How the app's state describes its changes: field by field, and the item list by id, so
/// that toggling one item of a long list sends one small `replace`.
extension AppState: Diffable {
    public func appendPatch(from old: AppState, at path: JSONPointer, to patch: inout JSONPatch) throws {
        try patch.appendField("todo", old.todo, todo, at: path)
    }
}

extension TodoState: Diffable {
    public func appendPatch(from old: TodoState, at path: JSONPointer, to patch: inout JSONPatch) throws {
        try patch.appendField("items", old.items, items, at: path)
        try patch.appendField("nextId", old.nextId, nextId, at: path)
    }
}

extension TodoItem: Diffable {
    public func appendPatch(from old: TodoItem, at path: JSONPointer, to patch: inout JSONPatch) throws {
        try patch.appendField("id", old.id, id, at: path)
        try patch.appendField("text", old.text, text, at: path)
        try patch.appendField("done", old.done, done, at: path)
    }
}
