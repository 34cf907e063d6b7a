import Glibc

/// The directory where a core keeps what must last (its journal, snapshots and logs): never
/// under the runtime directory, which is wiped at logout. (Which directory an app uses by
/// default is the app's business: see `AppNaming`.)
package enum StateDirectory {
    /// Creates the directory (and missing parents) with mode 0700, then refuses it unless it is
    /// a directory of this user that no one else can write to (anyone who could would be able
    /// to rewrite the journal, and so the state).
    package static func prepare(_ path: String) throws(Directories.Refusal) {
        try Directories.preparePrivate(
            path, role: "the state directory", forbidden: 0o022,
            exposure: "can be written by other users", alternative: "choose another with --state-dir")
    }
}
