import ActorNode

/// `core-daemon`: the to-do app's core (``TodoCore``), served by the framework's host.
@main
enum CoreDaemonMain {
    static func main() {
        TodoCore.main()
    }
}
