import ActorNode
import Glibc
import Wire

/// `shell-client`: attach to the core, or script it.
@main
enum ShellClientMain {
    static func main() async {
        signal(SIGPIPE, SIG_IGN)
        let program = ShellCommand.program
        let status: ExitStatus
        do {
            let (options, command) = try ShellCommand.parse(Array(CommandLine.arguments.dropFirst()))
            switch command {
            case .help:
                await StandardStreams.out(ShellCommand.helpText + "\n")
                status = .success
            case .version:
                await StandardStreams.out("shell-client \(CAMAVersion.current) (protocol \(ProtocolVersion.current))\n")
                status = .success
            case .attach:
                status = try await AttachCommand.run(options: options)
            case let .send(input):
                status = try await SendCommand.run(input, options: options)
            case let .state(json):
                status = try await StateCommand.run(json: json, options: options)
            case let .watch(json, count):
                status = try await WatchCommand.run(json: json, count: count, options: options)
            }
        } catch {
            StandardStreams.fail(error, program: program)
        }
        exit(status.rawValue)
    }
}
