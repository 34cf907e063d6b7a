import FoundationEssentials
import Synchronization

/// Runs effects for a store: starts their work as tasks, replaces or cancels them by id, and
/// applies the queues' policies. Actions the work sends go to `deliver`, with their origin (the
/// effect's id, or the durable timer's).
///
/// Thread-safe (its bookkeeping is behind one lock), so a finishing task can free its place in
/// a queue without a hop through the store.
package final class EffectRuntime<Action: Sendable>: Sendable {
    private let deliver: @Sendable (Action, ActionOrigin) async -> Void
    private let time: any TimeSource
    private let state = Mutex(RuntimeState())

    private struct Running {
        let id: EffectID?
        let queue: EffectQueue?
        var task: Task<Void, Never>?
        var admitted: Bool
    }

    private struct QueueState {
        /// Admitted effects, oldest first.
        var running: [UInt64] = []
        /// Effects waiting for a place (suspendNew), in order.
        var waiting: [(token: UInt64, resume: CheckedContinuation<Bool, Never>?)] = []
        var lastStart: Date?
    }

    private struct RuntimeState {
        var nextToken: UInt64 = 0
        var running: [UInt64: Running] = [:]
        var byID: [EffectID: UInt64] = [:]
        var queues: [String: QueueState] = [:]
    }

    package init(time: any TimeSource, deliver: @escaping @Sendable (Action, ActionOrigin) async -> Void) {
        self.time = time
        self.deliver = deliver
    }

    /// Effects started and not yet finished (running, waiting in a queue, or waiting for their
    /// queue's delay).
    package var activeCount: Int {
        state.withLock { $0.running.count }
    }

    /// The ids of the effects active now.
    package var activeIDs: Set<EffectID> {
        state.withLock { Set($0.running.values.compactMap(\.id)) }
    }

    /// Starts the work of an effect; returns its task, or nil when a full `discardNew` queue
    /// dropped it.
    package func start(_ work: Effect<Action>.Work) -> Task<Void, Never>? {
        var toCancel: [Task<Void, Never>] = []
        var resumeWaiters: [CheckedContinuation<Bool, Never>] = []
        let task: Task<Void, Never>? = state.withLock { state in
            var admitted = true
            if let queue = work.queue {
                let active = state.queues[queue.name, default: QueueState()]
                switch queue.policy {
                case let .runNewest(limit):
                    var running = active.running
                    while running.count >= limit {
                        let oldest = running.removeFirst()
                        if let task = forget(oldest, in: &state, &resumeWaiters) { toCancel.append(task) }
                    }
                case let .runOldest(limit, overflow):
                    if active.running.count >= limit {
                        if overflow == .discardNew { return nil }
                        admitted = false
                    }
                }
            }
            if let id = work.id, let previous = state.byID[id] {
                if let task = forget(previous, in: &state, &resumeWaiters) { toCancel.append(task) }
            }
            state.nextToken += 1
            let token = state.nextToken
            if let id = work.id { state.byID[id] = token }
            if let queue = work.queue {
                if admitted {
                    state.queues[queue.name, default: QueueState()].running.append(token)
                } else {
                    state.queues[queue.name, default: QueueState()].waiting.append((token, nil))
                }
            }
            let task = Task { [self] in
                await run(work, token: token, mustWait: !admitted)
                finish(token)
            }
            state.running[token] = Running(id: work.id, queue: work.queue, task: task, admitted: admitted)
            return task
        }
        for task in toCancel { task.cancel() }
        for waiter in resumeWaiters { waiter.resume(returning: true) }
        return task
    }

    /// Arms a durable timer: work that waits for its deadline on the runtime's clock, then
    /// sends its action (replacing any effect with the same id).
    /// - Parameter timer: the timer.
    /// - Returns: the work's task.
    @discardableResult
    package func arm(_ timer: Effect<Action>.Timer) -> Task<Void, Never>? {
        start(.waiting(for: timer, on: time))
    }

    /// Cancels the effects with these ids, running or waiting.
    package func cancel(_ ids: Set<EffectID>) {
        var toCancel: [Task<Void, Never>] = []
        var resumeWaiters: [CheckedContinuation<Bool, Never>] = []
        state.withLock { state in
            for id in ids {
                if let token = state.byID[id], let task = forget(token, in: &state, &resumeWaiters) {
                    toCancel.append(task)
                }
            }
        }
        for task in toCancel { task.cancel() }
        for waiter in resumeWaiters { waiter.resume(returning: true) }
    }

    /// Cancels everything.
    package func cancelAll() {
        let tasks = state.withLock { state in state.running.values.compactMap(\.task) }
        for task in tasks { task.cancel() }
    }

    private func run(_ work: Effect<Action>.Work, token: UInt64, mustWait: Bool) async {
        if mustWait {
            let admitted = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                    let decided: Bool? = state.withLock { state in
                        guard let name = work.queue?.name,
                              let index = state.queues[name]?.waiting.firstIndex(where: { $0.token == token }) else {
                            // Admitted (or forgotten) before we got here.
                            return state.running[token]?.admitted ?? false
                        }
                        state.queues[name]!.waiting[index].resume = continuation
                        return nil
                    }
                    if let decided { continuation.resume(returning: decided) }
                }
            } onCancel: {
                let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                    guard let name = work.queue?.name,
                          let index = state.queues[name]?.waiting.firstIndex(where: { $0.token == token }) else { return nil }
                    return state.queues[name]!.waiting.remove(at: index).resume
                }
                waiter?.resume(returning: false)
            }
            guard admitted, !Task.isCancelled else { return }
        }
        if let queue = work.queue {
            // Starts in one queue are at least `delay` apart, measured on the store's time.
            let now = time.now
            let start: Date = state.withLock { state in
                let earliest = state.queues[queue.name]?.lastStart.map { $0.addingTimeInterval(queue.delay.seconds) } ?? now
                let start = max(now, earliest)
                state.queues[queue.name]?.lastStart = start
                return start
            }
            if start > now {
                do { try await time.sleep(until: start) } catch { return }
            }
        }
        guard !Task.isCancelled else { return }
        do {
            let origin: ActionOrigin = work.timer.map { .timer($0.id, deadline: $0.deadline) } ?? .effect(work.id)
            let deliver = self.deliver
            try await work.body(EffectSend { await deliver($0, origin) })
        } catch {
            // A cancelled effect ends by throwing CancellationError; any other error ends it too.
        }
    }

    private func finish(_ token: UInt64) {
        var resumeWaiters: [CheckedContinuation<Bool, Never>] = []
        state.withLock { state in
            _ = forget(token, in: &state, &resumeWaiters)
        }
        for waiter in resumeWaiters { waiter.resume(returning: true) }
    }

    /// Removes an effect from the books and admits whoever waits for its place.
    /// Returns its task so the caller can cancel it outside the lock.
    private func forget(_ token: UInt64, in state: inout RuntimeState, _ resumeWaiters: inout [CheckedContinuation<Bool, Never>]) -> Task<Void, Never>? {
        guard let entry = state.running.removeValue(forKey: token) else { return nil }
        if let id = entry.id, state.byID[id] == token {
            state.byID[id] = nil
        }
        if let queue = entry.queue, var active = state.queues[queue.name] {
            active.running.removeAll { $0 == token }
            active.waiting.removeAll { $0.token == token }
            if case let .runOldest(limit, _) = queue.policy {
                while active.running.count < limit, !active.waiting.isEmpty {
                    let next = active.waiting.removeFirst()
                    active.running.append(next.token)
                    state.running[next.token]?.admitted = true
                    if let resume = next.resume { resumeWaiters.append(resume) }
                }
            }
            state.queues[queue.name] = active.running.isEmpty && active.waiting.isEmpty && active.lastStart == nil ? nil : active
        }
        return entry.task
    }
}
