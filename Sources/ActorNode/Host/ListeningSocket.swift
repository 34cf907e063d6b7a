import Glibc

/// The socket the core serves: one it bound itself (and removes on the way out), or one passed
/// by a supervisor through socket activation (systemd, `systemd-socket-activate`, cama-launch),
/// which the supervisor keeps and removes.
enum ListeningSocket: Sendable {
    case own(SocketBinding)
    case inherited(fd: Int32, path: String)

    /// Takes the socket passed by socket activation if there is one, else binds `path`.
    static func open(path: String, environment: [String: String], program: String, log: (String) -> Void) throws(CommandFailure) -> ListeningSocket {
        if let fd = SocketActivation.inheritedListener(environment: environment) {
            guard SocketActivation.isListeningSocket(fd) else {
                throw CommandFailure(.rejected, "descriptor 3, passed by socket activation (LISTEN_FDS), is not a listening socket")
            }
            let bound = SocketActivation.boundPath(fd)
            return .inherited(fd: fd, path: bound.isEmpty ? path : bound)
        }
        do {
            return .own(try SocketBinding.claim(path, log: log))
        } catch {
            if case let .badPath(reason) = error { throw .usage(reason, program: program) }
            throw CommandFailure(.rejected, error.description)
        }
    }

    var fd: Int32 {
        switch self {
        case let .own(binding): return binding.fd
        case let .inherited(fd, _): return fd
        }
    }

    var path: String {
        switch self {
        case let .own(binding): return binding.path
        case let .inherited(_, path): return path
        }
    }

    var isInherited: Bool {
        if case .inherited = self { return true }
        return false
    }

    /// Removes the socket file if it is ours; a passed socket stays with its supervisor.
    func release() {
        if case let .own(binding) = self { binding.release() }
    }
}
