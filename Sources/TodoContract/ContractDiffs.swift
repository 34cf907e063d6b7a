import Wire
/// How the app's state describes its changes: field by field, and the item list by id, so
/// that toggling one item of a long list sends one small `replace`.
extension AppState: Diffable {
    public func appendPatch(from old: AppState, at path: JSONPointer, to patch: inout JSONPatch) throws {
        try patch.appendField("todo", old.todo, todo, at: path)
        try patch.appendField("counter", old.counter, counter, at: path)
        try patch.appendField("timer", old.timer, timer, at: path)
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
        try patch.appendField("pomodoros", old.pomodoros, pomodoros, at: path)
    }
}

extension CounterState: Diffable {
    public func appendPatch(from old: CounterState, at path: JSONPointer, to patch: inout JSONPatch) throws {
        try patch.appendField("value", old.value, value, at: path)
    }
}

/// A tick changes `remaining` alone: one small `replace` a second.
extension TimerState: Diffable {
    public func appendPatch(from old: TimerState, at path: JSONPointer, to patch: inout JSONPatch) throws {
        try patch.appendField("item", old.item, item, at: path)
        try patch.appendField("running", old.running, running, at: path)
        try patch.appendField("remaining", old.remaining, remaining, at: path)
        try patch.appendField("deadline", old.deadline, deadline, at: path)
    }
}

/// How a shell brings its typed state along with each patch in place: a change in the item
/// list touches one item (or inserts or removes one); anything else is small and decoded again.
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
