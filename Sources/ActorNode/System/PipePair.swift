import Glibc

/// A pipe whose ends are close-on-exec, so that a child gets one only as a standard stream
/// (or a descriptor passed to it on purpose).
package enum PipePair {
    /// Makes a pipe.
    /// - Parameter nonBlockingRead: whether the read end is non-blocking.
    /// - Returns: the read end and the write end; the caller closes both.
    package static func make(nonBlockingRead: Bool = false) throws(SystemError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw SystemError("pipe") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        if nonBlockingRead { _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK) }
        return (ends[0], ends[1])
    }
}
