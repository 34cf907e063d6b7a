import Glibc

/// Writing to stdout and stderr without stdio buffering surprises: every call writes whole
/// lines at once, so output interleaves cleanly with other processes and reaches a pipe at once.
/// Writes happen on ``BlockingWriter`` threads, never on the cooperative pool. Nothing here ends
/// the process: ``ProgramMain`` does, for a main.
package enum StandardStreams {
    /// Writes `text` to stdout and returns once it is written: true, or false when stdout is
    /// gone (the reader of a pipe quit), so that a command that prints on and on can stop.
    @discardableResult
    package static func out(_ text: String) async -> Bool {
        do {
            try await BlockingWriter.standardOutput.write(text)
            return true
        } catch {
            return false
        }
    }

    /// Writes `text` to stderr and returns once it is written.
    package static func err(_ text: String) async {
        try? await BlockingWriter.standardError.write(text)
    }

    /// Writes `bytes` to `fd` on the calling thread, waiting as long as the reader takes (a
    /// non-blocking descriptor is waited on with `poll`): for a program that runs on its main
    /// thread alone (see ``ProgramMain/runHere(program:_:)``), never for Swift's pool.
    /// - Parameters:
    ///   - fd: the descriptor, 1 for stdout.
    ///   - bytes: what to write.
    /// - Returns: whether everything was written (false when the reader is gone).
    @discardableResult
    package static func writeNow(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN {
                    var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&descriptor, 1, 1000)
                    continue
                }
                return false
            }
            offset += written
        }
        return true
    }

    /// Writes `text` to `fd` at once, on the calling thread: for the last words of a process,
    /// when nothing else will run.
    static func writeAll(_ fd: Int32, _ text: String) -> Bool {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        bytes.removeAll()
        return true
    }

    /// Whether `fd` is a terminal.
    package static func isTerminal(_ fd: Int32) -> Bool {
        isatty(fd) == 1
    }
}

/// The process environment as a dictionary.
package enum ProcessEnvironment {
    /// One variable's value, if it is set.
    /// - Parameter name: the variable.
    package static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    package static var current: [String: String] {
        var variables: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return variables
    }
}
