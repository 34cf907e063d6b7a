import Glibc
import Synchronization

/// A terminal taken over for a full-screen interface: raw mode (keys arrive one by one, not
/// echoed), the alternate screen (the shell's own screen comes back untouched afterwards), and
/// a hidden cursor. ``restore()`` undoes all of it; it is safe to call more than once and from
/// any path out: quitting, a stop signal, the core gone for good, an error.
package final class TerminalMode: Sendable {
    private let saved: Mutex<termios?>
    private let fd: Int32

    /// The escape sequences used.
    package enum Sequence {
        package static let enterAlternateScreen = "\u{1B}[?1049h"
        package static let leaveAlternateScreen = "\u{1B}[?1049l"
        package static let hideCursor = "\u{1B}[?25l"
        package static let showCursor = "\u{1B}[?25h"
        package static let clearScreen = "\u{1B}[2J"
        package static let home = "\u{1B}[H"
        package static let clearToEndOfLine = "\u{1B}[K"
        package static let resetAttributes = "\u{1B}[0m"
        package static let reverse = "\u{1B}[7m"
        package static let bold = "\u{1B}[1m"
        package static let dim = "\u{1B}[2m"

        package static func moveTo(row: Int, column: Int) -> String {
            "\u{1B}[\(row + 1);\(column + 1)H"
        }
    }

    /// Takes over the terminal on `fd` (stdin), or throws if it is not a terminal.
    package init(fd: Int32 = 0) throws(SystemError) {
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
        guard tcsetattr(fd, TCSAFLUSH, &raw) == 0 else { throw SystemError("tcsetattr") }
        saved = Mutex(original)
        Self.write(Sequence.enterAlternateScreen + Sequence.hideCursor + Sequence.clearScreen + Sequence.home)
    }

    /// Gives the terminal back as it was. Idempotent.
    package func restore() {
        let original = saved.withLock { saved -> termios? in
            defer { saved = nil }
            return saved
        }
        guard var original else { return }
        Self.write(Sequence.resetAttributes + Sequence.showCursor + Sequence.leaveAlternateScreen)
        _ = tcsetattr(fd, TCSAFLUSH, &original)
    }

    /// The terminal's size in rows and columns (24x80 if it cannot say).
    package static func size(fd: Int32 = 1) -> (rows: Int, columns: Int) {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0, size.ws_col > 0 else { return (24, 80) }
        return (Int(size.ws_row), Int(size.ws_col))
    }

    /// A direct, blocking write to stdout, for restoring the terminal on the way out.
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
