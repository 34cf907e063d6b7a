/// Runs `operations` concurrently and returns the first result. The others are cancelled and
/// not awaited, unlike a task group's children: an operation that ignores cancellation (waiting
/// for a process to exit, say) cannot hold the winner back.
///
/// If the caller is cancelled first, every operation is cancelled, and the first of them to
/// return (as a cancelled operation should, soon) is the result.
package func race<T: Sendable>(_ operations: [@Sendable () async -> T]) async -> T {
    let results = Chan<T>(capacity: max(1, operations.count))
    let tasks = operations.map { operation in
        Task { results.trySend(await operation()) }
    }
    let cancelAll: @Sendable () -> Void = { for task in tasks { task.cancel() } }
    var first = await withTaskCancellationHandler { await results.receive() } onCancel: { cancelAll() }
    if first == nil {
        // Cancelled before any result: a task of its own (not cancelled) waits for the first
        // operation to end, which the channel, never closed before, then holds.
        first = await Task { await results.receive() }.value
    }
    cancelAll()
    results.close()
    guard let first else { preconditionFailure("race: the channel closed before any operation ended") }
    return first
}
