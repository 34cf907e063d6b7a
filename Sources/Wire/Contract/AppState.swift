/// The whole state of the reference app, as the core owns it and every shell sees it.
///
/// JSON: `{"todo":{"items":[{"id":1,"text":"buy milk","done":false}],"nextId":2}}`. Features
/// add top-level keys; keys are only ever added.
public struct AppState: Codable, Sendable, Equatable {
    public var todo: TodoState

    public init(todo: TodoState = TodoState()) {
        self.todo = todo
    }
}
