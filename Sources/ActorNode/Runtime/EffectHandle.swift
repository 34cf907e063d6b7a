/// The effects one sent action started: await them, or cancel them.
public struct EffectHandle: Sendable {
    let tasks: [Task<Void, Never>]

    package init(tasks: [Task<Void, Never>]) {
        self.tasks = tasks
    }

    /// A handle on nothing.
    package static var none: EffectHandle { EffectHandle(tasks: []) }

    /// Whether the action started any asynchronous work.
    public var isEmpty: Bool { tasks.isEmpty }

    /// Returns once every effect the action started has ended (finished or cancelled).
    public func wait() async {
        for task in tasks { await task.value }
    }

    /// Cancels every effect the action started that is still running or waiting.
    public func cancel() {
        for task in tasks { task.cancel() }
    }
}
