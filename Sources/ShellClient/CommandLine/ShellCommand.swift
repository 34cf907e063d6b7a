import ActorNode

/// Options every `shell-client` command takes.
struct GlobalOptions: Sendable {
    var socket: String?
    /// How long to wait for the core: to be welcomed, for each answer, and to come back after a
    /// restart. nil when not given: 10 s, or 60 s for `attach`'s reconnections.
    var timeoutOption: Duration?

    var timeout: Duration { timeoutOption ?? .seconds(10) }
}

/// What `send` sends.
enum SendInput: Equatable {
    /// `send VERB ARGS...`
    case verb([String])
    /// `send --json '{"add":{"text":"x"}}'`
    case json(String)
    /// `send -`: one action per line from stdin.
    case standardInput
}

/// One parsed `shell-client` command line.
enum ShellCommand: Equatable {
    case attach
    case send(SendInput)
    case state(json: Bool)
    case watch(json: Bool, count: Int?)
    case help
    case version

    static let program = "shell-client"
    static let names = ["attach", "send", "state", "watch", "help"]

    /// Parses the arguments after the program name.
    static func parse(_ arguments: [String]) throws(CommandFailure) -> (GlobalOptions, ShellCommand) {
        var options = GlobalOptions()
        var cursor = ArgumentCursor(arguments, program: program)
        var name: String?
        var json = false
        var jsonAction: String?
        var count: Int?
        var operands: [String] = []
        var wantsHelp = false
        var wantsVersion = false

        while let token = cursor.next() {
            switch token {
            case .option("--socket"):
                options.socket = try cursor.value(for: "--socket")
            case .option("--timeout"):
                options.timeoutOption = try cursor.seconds(for: "--timeout", in: 0.1 ... 86_400)
            case .option("-h"), .option("--help"):
                wantsHelp = true
            case .option("--version"):
                wantsVersion = true
            case .option("--json") where name == "send":
                jsonAction = try cursor.value(for: "--json")
            case .option("--json") where name == "state" || name == "watch":
                json = true
            case .option("--count") where name == "watch":
                count = try cursor.number(for: "--count", in: 1 ... Int.max)
            case let .option(option) where name == "send" && !operands.isEmpty:
                // After the verb, anything dash-like that is not one of our options is text
                // ("send add -5 degrees").
                operands.append(cursor.currentToken ?? option)
            case let .option(option):
                if name == nil, ["--json", "--count"].contains(option) {
                    throw .usage("\(option) belongs after a command (e.g. 'shell-client state \(option)')", program: program)
                }
                throw cursor.unknown(option)
            case let .operand(operand):
                if name == nil {
                    guard names.contains(operand) else {
                        throw .usage("unknown command '\(operand)' (expected attach, send, state or watch)", program: program)
                    }
                    name = operand
                } else if name == "send" {
                    operands.append(operand)
                } else {
                    throw cursor.unexpected(operand)
                }
            }
        }

        if wantsHelp || name == "help" { return (options, .help) }
        if wantsVersion { return (options, .version) }
        switch name {
        case nil, "attach"?:
            return (options, .attach)
        case "state"?:
            return (options, .state(json: json))
        case "watch"?:
            return (options, .watch(json: json, count: count))
        default:
            return (options, .send(try sendInput(jsonAction: jsonAction, operands: operands)))
        }
    }

    private static func sendInput(jsonAction: String?, operands: [String]) throws(CommandFailure) -> SendInput {
        if let jsonAction {
            guard operands.isEmpty else {
                throw .usage("send --json takes one action and nothing else (found '\(operands[0])')", program: program)
            }
            return .json(jsonAction)
        }
        if operands == ["-"] { return .standardInput }
        guard !operands.isEmpty else {
            throw .usage("send needs an action: a verb (\(Verb.summary)), --json JSON, or - to read actions from stdin", program: program)
        }
        if operands.first == "-" {
            throw .usage("send - reads actions from stdin and takes no other arguments", program: program)
        }
        return .verb(operands)
    }

    static let helpText = """
    shell-client: a shell of the CAMA to-do core, for people and for scripts.

    Usage:
      shell-client [attach]                  an interactive shell: full screen on a terminal
                                             (? shows its keys), else line mode (type verbs);
                                             shows every change made by anyone
      shell-client send VERB [ARGS...]       send one action and wait until it is applied
      shell-client send --json JSON          send one action written as JSON
      shell-client send -                    send one action per line from stdin (verbs or JSON)
      shell-client state [--json]            print the current state
      shell-client watch [--json] [--count N]
                                             print the state now and after every change;
                                             stop after N states

    Options may come before or after the command and its words; put -- before text that
    starts with the name of an option (send add -- --socket is a word).

    Verbs:
      add TEXT              add an item at the end          send add "buy milk"
      clear                 remove every item               send clear
      remove ID             remove an item                  send remove 3
      toggle ID             mark an item done / not done    send toggle 3
      edit ID TEXT          change an item's text           send edit 3 "oat milk"
      move ID POSITION      move an item (1 is the top)     send move 3 1
      counter increment|decrement|reset|randomize           send counter increment
      counter set N         set the counter                 send counter set 5
      timer start ID [--seconds S]
                            focus on an item (default 25 minutes); a new start
                            replaces a running focus        send timer start 3
      timer stop            end the focus                   send timer stop
      pick                  focus on a random item not done send pick

    JSON actions: {"add":{"text":"buy milk"}}  {"clear":{}}  {"remove":{"id":3}}
      {"toggle":{"id":3}}  {"edit":{"id":3,"text":"oat milk"}}  {"move":{"id":3,"position":1}}
      {"counter":"increment"}  {"counter":{"set":{"value":5}}}  {"timer":{"start":{"id":3,"seconds":60}}}
      {"timer":"stop"}  {"pick":{}}

    --json output is one object per line: the whole state plus its revision, e.g.
      {"counter":{"value":0},"revision":7,"timer":{"deadline":null,"item":null,"remaining":0,
       "running":false},"todo":{"items":[{"done":false,"id":1,"pomodoros":0,"text":"buy milk"}],
       "nextId":2}}
    When a focus completes, attach and watch print a notice (watch --json on stderr).

    Options:
      --socket PATH       the core's socket (else $CAMA_SOCKET, else
                          $XDG_RUNTIME_DIR/cama/core.sock, else /tmp/cama-$UID/core.sock)
      --timeout SECONDS   how long to wait for the core to answer, or to come back when it
                          restarts (default 10; attach waits 60 for a restart)
      -h, --help          show this help
      --version           show the version

    When the core restarts, attach and watch reconnect and start again from the state the
    core has (attach says so on screen, watch on stderr), and send sends its action again
    with the same client id and sequence number, so it is applied once.

    Exit status: 0 success · 1 action rejected · 2 usage error · 3 core unreachable or
    timed out · 4 protocol or version error
    """
}
