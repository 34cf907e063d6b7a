import Glibc

/// Finding a program the way a shell does.
package enum ExecutablePath {
    /// The first executable file called `name` in `$PATH` (a default path when it is unset).
    /// - Parameter name: a program's name, without a slash.
    package static func search(_ name: String) -> String? {
        let path = ProcessEnvironment.value("PATH") ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":", omittingEmptySubsequences: true) {
            let candidate = PathName.join(String(directory), name)
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}
