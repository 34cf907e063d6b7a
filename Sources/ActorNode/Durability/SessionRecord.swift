import Glibc
import Synchronization
import Wire

/// Who a client is, as the journal keeps it: written once per connection, just before the
/// record of its first applied action (and again at the start of each new segment while it
/// stays connected), so that the records of its actions, which carry only its id, can be told
/// apart by name, process and user without costing anything per action. A client that sends
/// no action (a watcher, `state`) leaves none. `history` reads them; recovery skips them.
///
/// JSON: `{"session":{"at":…,"client":"…","name":"shell-client attach","pid":4242,"role":"shell","uid":1000,"user":"alice"}}`.
package struct SessionRecord: Codable, Sendable, Equatable {
    package var session: Session

    /// One connection's hello and its peer's credentials.
    package struct Session: Codable, Sendable, Equatable {
        /// When the record was made (as its first action was applied), in seconds since 1970.
        package var at: Double
        /// The hello's client id.
        package var client: String
        /// The hello's name ("shell-client attach").
        package var name: String
        package var role: String
        /// The process at the other end of the socket, when the system says (`SO_PEERCRED`):
        /// over ssh, the bridge's.
        package var pid: Int32?
        package var uid: UInt32?
        package var user: String?
    }

    /// - Parameters:
    ///   - hello: the client's hello.
    ///   - peer: its process and user, when known.
    ///   - at: when the record is made, in seconds since 1970.
    package init(hello: Hello, peer: (pid: pid_t, uid: uid_t)?, at: Double) {
        session = Session(
            at: at, client: hello.client, name: hello.name, role: hello.role.rawValue,
            pid: peer?.pid, uid: peer?.uid, user: peer.flatMap { UserName.of($0.uid) })
    }

    /// The record's JSON: byte for byte what ``WireJSON`` writes for it (keys in order, a nil
    /// member left out), written by hand, as the core writes one for each connection that
    /// sends an action (every one-shot `send`), and `Codable` costs 25,000 instructions here.
    package var text: [UInt8] {
        var text = Self.prefix
        text += #"{"at":"#.utf8
        JSONFragment.append(session.at, to: &text)
        text += #","client":"#.utf8
        text += JSONFragment.string(session.client)
        text += #","name":"#.utf8
        text += JSONFragment.string(session.name)
        if let pid = session.pid {
            text += #","pid":"#.utf8
            text += String(pid).utf8
        }
        text += #","role":"#.utf8
        text += JSONFragment.string(session.role)
        if let uid = session.uid {
            text += #","uid":"#.utf8
            JSONFragment.append(UInt64(uid), to: &text)
        }
        if let user = session.user {
            text += #","user":"#.utf8
            text += JSONFragment.string(user)
        }
        text += "}}".utf8
        return text
    }

    /// The text every session record starts with, which no action's record does (those start
    /// with `{"action":`).
    package static let prefix = Array(#"{"session":"#.utf8)

    /// Whether a record's payload is a session record.
    /// - Parameter payload: a journal record's payload.
    package static func isSession(_ payload: ArraySlice<UInt8>) -> Bool {
        payload.starts(with: prefix)
    }
}

/// The login name of a user id, from the system's user database, remembered for a minute: a
/// core asks once per connection that sends an action, and a lookup reads nsswitch.conf and
/// /etc/passwd (and tries nscd's socket) each time, a dozen system calls on a one-shot `send`'s
/// path. A user renamed is seen within the minute.
enum UserName {
    private static let remembered = Mutex<[uid_t: (name: String?, until: ContinuousClock.Instant)]>([:])
    private static let memory: Duration = .seconds(60)

    /// The name, or nil when the database has none for `uid`.
    /// - Parameter uid: the user id.
    static func of(_ uid: uid_t) -> String? {
        let now = ContinuousClock.now
        if let known = remembered.withLock({ $0[uid] }), known.until > now { return known.name }
        let name = lookUp(uid)
        remembered.withLock { $0[uid] = (name, now + memory) }
        return name
    }

    private static func lookUp(_ uid: uid_t) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else { return nil }
        return String(cString: name)
    }
}
