import ActorNode
import TodoContract

/// The to-do app's shell, as the shell kit needs to know it: its verbs, how its state reads,
/// and (in TodoScreen) its full screen. The scripting commands and the line shell are the kit's.
enum TodoShell: ShellApp {
    typealias Contract = Todo
    static let program = "shell-client"
    static let summary = "a shell of the CAMA to-do core, for people and for scripts."
    static let verbs = TodoVerbs.all
    static let startHint = "'cama-launch --detach' (or 'swift run cama-launch')"
    static let jsonExamples = [
        #"{"add":{"text":"buy milk"}}  {"clear":{}}  {"remove":{"id":3}}"#,
        #"{"toggle":{"id":3}}  {"edit":{"id":3,"text":"oat milk"}}  {"move":{"id":3,"position":1}}"#,
        #"{"counter":"increment"}  {"counter":{"set":{"value":5}}}  {"timer":{"start":{"id":3,"seconds":60}}}"#,
        #"{"timer":"stop"}  {"pick":{}}"#,
    ]
    static let helpNotes = """
    For example, state --json prints
      {"counter":{"value":0},"revision":7,"timer":{"deadline":null,"item":null,"remaining":0,
       "running":false},"todo":{"items":[{"done":false,"id":1,"pomodoros":0,"text":"buy milk"}],
       "nextId":2}}
    When a focus completes, attach and watch print a notice (watch --json on stderr).
    """

    static func render(_ state: AppState, revision: UInt64) -> String {
        StateText.render(state, revision: revision)
    }
}
