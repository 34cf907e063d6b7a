import ActorNode
import Wire

/// `core-daemon`'s command line.
struct DaemonOptions {
    var socket: String?
    var maximumFrameLength = Frame.defaultMaximumPayloadLength
    var trace = false
    var showHelp = false
    var showVersion = false

    static let program = "core-daemon"

    static let help = """
    core-daemon: the CAMA core. Owns the to-do app's state and serves shells on a Unix socket.

    Usage: core-daemon [--socket PATH] [--max-frame BYTES] [--trace]

    Options:
      --socket PATH      the socket to serve (else $CAMA_SOCKET, else
                         $XDG_RUNTIME_DIR/cama/core.sock, else /tmp/cama-$UID/core.sock);
                         its directory is created 0700 and must not be open to others
      --max-frame BYTES  the largest frame accepted from a client (default 16777216)
      --trace            log every action, who sent it, and what it changed (old -> new)
      -h, --help         show this help
      --version          show the version

    The core runs in the foreground until SIGINT, SIGTERM or SIGHUP, then says bye to every
    client and removes its socket. Usually cama-launch starts it; see 'cama-launch --help'.

    Exit status: 0 stopped cleanly · 1 refused to start (socket in use or unsafe, bind failed)
    · 2 usage error
    """

    static func parse(_ arguments: [String]) throws(CommandFailure) -> DaemonOptions {
        var options = DaemonOptions()
        var cursor = ArgumentCursor(arguments, program: program)
        while let token = cursor.next() {
            switch token {
            case .option("--socket"):
                options.socket = try cursor.value(for: "--socket")
            case .option("--max-frame"):
                options.maximumFrameLength = try cursor.number(for: "--max-frame", in: 1024 ... Frame.absoluteMaximumPayloadLength)
            case .option("--trace"):
                options.trace = true
            case .option("-h"), .option("--help"):
                options.showHelp = true
            case .option("--version"):
                options.showVersion = true
            case let .option(other):
                throw cursor.unknown(other)
            case let .operand(operand):
                throw cursor.unexpected(operand)
            }
        }
        return options
    }
}
