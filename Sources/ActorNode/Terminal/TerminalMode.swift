import CSystemShims
import Glibc
import Synchronization

/// A terminal taken over by a shell: raw mode (keys arrive one by one, not echoed), and for a
/// full screen the alternate screen (the shell's own screen comes back untouched afterwards)
/// with a hidden cursor. ``restore()`` undoes all of it; it is safe to call more than once and
/// from any path out: quitting, a stop signal, the core gone for good, an error. Should the
/// process end without it, by a crash (a trap, a fault) or by `exit`, the crash handler of
/// `CSystemShims` (the one the core's crash note uses) or an `atexit` hook gives the terminal
/// back first (`cama_terminal_guard`). One terminal is taken at a time.
package final class TerminalMode: Sendable {
    private let saved: Mutex<termios?>
    private let fd: Int32
    /// What is written when the terminal is given back.
    private let leaving: String

    /// Takes over the terminal on `fd` (stdin), or throws if it is not a terminal.
    /// - Parameters:
    ///   - fd: the terminal's descriptor.
    ///   - fullScreen: whether to use the alternate screen and hide the cursor too; without it,
    ///     only raw mode, for editing a line in place among the lines printed before.
    package init(fd: Int32 = 0, fullScreen: Bool = true) throws(SystemError) {
        self.fd = fd
        var original = termios()
        guard tcgetattr(fd, &original) == 0 else { throw SystemError("tcgetattr") }
        var raw = original
        // Like cfmakeraw, but keep output processing (so "\n" still returns the carriage).
        raw.c_iflag &= ~tcflag_t(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON)
        raw.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | ISIG | IEXTEN)
        raw.c_cflag &= ~tcflag_t(CSIZE | PARENB)
        raw.c_cflag |= tcflag_t(CS8)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        typealias Sequence = TerminalSequence
        leaving = fullScreen ? Sequence.resetAttributes + Sequence.showCursor + Sequence.leaveAlternateScreen : Sequence.resetAttributes
        let leavingBytes = Array(leaving.utf8)
        guard leavingBytes.withUnsafeBytes({ bytes in
            withUnsafeBytes(of: &original) { cama_terminal_guard(fd, $0.baseAddress, $0.count, bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count) }
        }) == 0 else { throw SystemError("cama_terminal_guard") }
        guard tcsetattr(fd, TCSAFLUSH, &raw) == 0 else {
            let error = SystemError("tcsetattr")
            cama_terminal_unguard()
            throw error
        }
        saved = Mutex(original)
        if fullScreen {
            Self.write(Sequence.enterAlternateScreen + Sequence.hideCursor + Sequence.clearScreen + Sequence.home)
        }
    }

    /// Gives the terminal back as it was. Idempotent.
    package func restore() {
        let original = saved.withLock { saved -> termios? in
            defer { saved = nil }
            return saved
        }
        guard var original else { return }
        Self.write(leaving)
        _ = tcsetattr(fd, TCSAFLUSH, &original)
        cama_terminal_unguard()
    }

    /// The terminal's size in rows and columns (24x80 if it cannot say).
    /// - Parameter fd: a descriptor of the terminal (stdout).
    package static func size(fd: Int32 = 1) -> (rows: Int, columns: Int) {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0, size.ws_col > 0 else { return (24, 80) }
        return (Int(size.ws_row), Int(size.ws_col))
    }

    /// A direct, blocking write to stdout, for taking and restoring the terminal.
    private static func write(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(1, $0.baseAddress! + offset, $0.count - offset) }
            if written <= 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}
