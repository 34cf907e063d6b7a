import Glibc

/// The one place where the framework ends the process: the entry point that `@main` on a
/// ``CoreApp`` or a ``ShellApp`` runs hands it the status the host returned. Everything else
/// reports typed errors and returns; only this thin end of `main` exits, so an app's own code
/// has neither `import Glibc` nor `exit`.
package enum ProgramEntry {
    /// Ends the process with `status` (what the host's `main()` returned).
    /// - Parameter status: the exit status.
    package static func end(_ status: Int32) -> Never {
        exit(status)
    }
}

/// The name the program was started under: the last part of `argv[0]` (`chat-core`), which is
/// its product's name. Apps use it as their `program` unless they say otherwise.
package enum ProgramName {
    /// The executable's name, or `cama` if the system gave none.
    package static var current: String {
        guard let first = CommandLine.arguments.first, !first.isEmpty else { return "cama" }
        let name = first.split(separator: "/").last.map(String.init) ?? first
        return name.isEmpty ? "cama" : name
    }
}
