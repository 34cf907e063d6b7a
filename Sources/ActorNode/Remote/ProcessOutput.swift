import Glibc

/// Runs a short-lived program and takes what it prints, on the calling thread (which may
/// block: never Swift's cooperative pool).
package enum ProcessOutput {
    /// How a program ended, and what it printed.
    package struct Captured: Sendable {
        package var termination: ChildProcess.Termination
        /// Its standard output.
        package var output: [UInt8]
        /// Its standard error.
        package var errors: [UInt8]
    }

    /// Runs `executable` with `arguments`, stdin from /dev/null, and takes both its outputs
    /// until it ends.
    /// - Parameters:
    ///   - executable: the program's path.
    ///   - arguments: its arguments, not including argv[0].
    ///   - timeout: how long it may take; it is killed after that.
    /// - Returns: how it ended and what it printed; nil if it could not start or ran out of time.
    package static func capture(_ executable: String, arguments: [String], timeout: Duration) -> Captured? {
        guard let output = try? PipePair.make() else { return nil }
        guard let errors = try? PipePair.make() else {
            close(output.read)
            close(output.write)
            return nil
        }
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { if null >= 0 { close(null) } }
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(executable, arguments: arguments, standardInput: null, standardOutput: output.write, standardError: errors.write)
        } catch {
            [output.read, output.write, errors.read, errors.write].forEach { close($0) }
            return nil
        }
        close(output.write)
        close(errors.write)
        defer {
            close(output.read)
            close(errors.read)
        }
        let deadline = MonotonicClock.Instant.now + timeout
        var taken: [[UInt8]] = [[], []]
        var open = [true, true]
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while open.contains(true) {
            var descriptors = [output.read, errors.read].enumerated().map { index, fd in
                pollfd(fd: open[index] ? fd : -1, events: Int16(POLLIN), revents: 0)
            }
            let ready = poll(&descriptors, 2, PollTimeout.milliseconds(until: deadline))
            if ready == 0 {
                child.send(SIGKILL)
                return nil
            }
            if ready < 0 {
                if errno == EINTR { continue }
                return nil
            }
            for index in 0 ..< 2 where descriptors[index].revents != 0 {
                let count = read(descriptors[index].fd, &buffer, buffer.count)
                if count > 0 {
                    taken[index] += buffer[..<count]
                } else if count == 0 || errno != EINTR {
                    open[index] = false
                }
            }
        }
        guard let termination = child.termination(before: deadline) else {
            child.send(SIGKILL)
            return nil
        }
        return Captured(termination: termination, output: taken[0], errors: taken[1])
    }

    /// ``capture(_:arguments:timeout:)`` for an async caller: on a thread of its own.
    package static func capture(_ executable: String, arguments: [String], timeout: Duration) async -> Captured? {
        await SystemThread.run(name: "cama-capture") { capture(executable, arguments: arguments, timeout: timeout) }
    }
}
