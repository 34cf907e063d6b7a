import ActorNode

/// Runs CPU-bound test work (thousands of random patches, a long fuzz loop) on a thread of its
/// own and waits for it. Swift's cooperative pool has one thread per core, and every test of a
/// run shares it: a test that computes for seconds on it holds up the others' tasks, some of
/// which wait on real deadlines (a core's handshake). Work moved here only competes for the
/// CPU, as any process does.
/// - Parameter body: the work.
/// - Returns: what it returns.
package func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        SystemThread.detach(name: "test-cpu") {
            continuation.resume(with: Result { try body() })
        }
    }
}
