import CSystemShims
import Glibc

/// A thread of our own, outside Swift's cooperative pool, for work that blocks: the event
/// loop's epoll_wait, waitpid, reading a terminal.
package enum SystemThread {
    /// Starts `body` on a new detached thread named `name` (at most 15 characters are kept).
    package static func detach(name: String, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(ThreadBody(name: name, body: body))
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { argument in
            let box = Unmanaged<ThreadBody>.fromOpaque(argument!).takeRetainedValue()
            cama_set_thread_name(box.name)
            box.body()
            return nil
        }, box.toOpaque())
        guard result == 0 else {
            box.release()
            fatalError("pthread_create failed: \(SystemError("pthread_create", code: result))")
        }
        pthread_detach(thread)
    }

    /// Lowers the calling thread's priority (nice 10, for this thread alone): for work that
    /// may take seconds of CPU beside an event loop that must not wait for it (a look back at
    /// the journal), so that on a busy machine the loop's thread runs first.
    package static func yieldToOthers() {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(cama_thread_id()), 10)
    }

    /// Schedules the calling thread as batch work (Linux's SCHED_BATCH): when it wakes it
    /// takes a free CPU at once, as before, but it never preempts a thread that is running;
    /// it waits for that thread's turn to end (a few milliseconds at most). Its share of the
    /// CPU is unchanged. For a thread that is woken by every change and can skip to the
    /// newest (a watcher): a core writing a change to a hundred watchers is not preempted by
    /// each one it wakes. Nothing needs a privilege for it; where it is refused, the thread
    /// stays as it was.
    package static func scheduleAsBatchWork() {
        _ = cama_schedule_as_batch()
    }

    /// Runs blocking `body` on a new thread named `name`, and waits for its result without
    /// blocking the caller's thread: how async code calls what blocks (waiting for a child,
    /// dialling through ssh).
    package static func run<T: Sendable>(name: String, _ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            detach(name: name) { continuation.resume(returning: body()) }
        }
    }
}

private final class ThreadBody: Sendable {
    let name: String
    let body: @Sendable () -> Void

    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }
}
