/// Runs `operations` concurrently and returns the first result. The others are cancelled and
/// not awaited, unlike a task group's children: an operation that ignores cancellation (waiting
/// for a process to exit, say) cannot hold the winner back.
package func race<T: Sendable>(_ operations: [@Sendable () async -> T]) async -> T {
    let results = Chan<T>(capacity: max(1, operations.count))
    let tasks = operations.map { operation in
        Task { results.trySend(await operation()) }
    }
    let first = await results.receive()!
    for task in tasks { task.cancel() }
    results.close()
    return first
}
