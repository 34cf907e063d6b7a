import Glibc

/// The exit codes every CAMA command uses, so scripts can tell failures apart.
public enum ExitStatus: Int32, Sendable {
    case success = 0
    /// The core rejected an action (or, for the daemons, refused to start).
    case rejected = 1
    /// The command line was wrong.
    case usage = 2
    /// No core answered: nothing serves the socket, or it timed out.
    case unreachable = 3
    /// The other side broke the protocol or speaks another version.
    case protocolError = 4
}

/// A failure that ends a command: one line on stderr and an exit status.
public struct CommandFailure: Error, Sendable, CustomStringConvertible {
    public var status: ExitStatus
    public var message: String

    public init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    /// A command-line mistake; `program` names the command whose `--help` to point at.
    package static func usage(_ message: String, program: String) -> CommandFailure {
        CommandFailure(.usage, "\(message); see '\(program) --help'")
    }

    public var description: String { message }
}
