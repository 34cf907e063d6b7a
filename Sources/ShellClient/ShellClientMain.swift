import ActorNode

/// `shell-client`: the to-do app's shell (``TodoShell``), run by the framework's shell kit.
@main
enum ShellClientMain {
    static func main() {
        TodoShell.main()
    }
}
