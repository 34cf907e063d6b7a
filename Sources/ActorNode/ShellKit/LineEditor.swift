import Glibc
import Synchronization

/// The line shell's input on a terminal: raw mode without the alternate screen, and the kit's
/// one line editor (``InputLine``, the full screen's too) behind a prompt, so that a line can be
/// edited (← → Home End, Ctrl-A Ctrl-E Ctrl-U, Backspace Delete) and the lines sent recalled
/// (↑ ↓), as in a shell. What the line shell prints goes above the line being typed, which is
/// drawn again below it. Ctrl-C, and Ctrl-D on an empty line, end the input. Keys are read on a
/// thread of its own; everything it and ``print(_:)`` write goes through one writer, in order.
/// When stdin is not a terminal the line shell reads plain lines instead (``LineReader``).
final class LineEditor: Sendable {
    private let terminal: TerminalMode
    private let fd: Int32
    private let prompt: String
    private let output: BlockingWriter
    /// The line being typed; held while anything is written, so that what is written and the
    /// line drawn after it agree.
    private let line = Mutex(InputLine())
    private let stopped = Atomic<Bool>(false)

    /// Takes over the terminal on `fd` (raw mode), or throws if it is not a terminal.
    /// - Parameters:
    ///   - fd: the terminal's descriptor (stdin).
    ///   - prompt: what the line starts with.
    ///   - output: where the lines and the prompt are written (stdout's writer).
    init(fd: Int32 = 0, prompt: String = "> ", output: BlockingWriter = .standardOutput) throws(SystemError) {
        terminal = try TerminalMode(fd: fd, fullScreen: false)
        self.fd = fd
        self.prompt = prompt
        self.output = output
    }

    /// The lines typed, each given once Enter is pressed (and taken); the channel closes at
    /// Ctrl-C, at Ctrl-D on an empty line, or when the terminal goes away.
    func lines() -> Chan<String> {
        let lines = Chan<String>(capacity: 1)
        line.withLock { output.enqueue(drawn($0)) }
        SystemThread.detach(name: "cama-keys") { [self] in
            var decoder = KeyDecoder()
            var buffer = [UInt8](repeating: 0, count: 4096)
            reading: while true {
                var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                // A lone escape waits a moment to be told from the start of a sequence.
                let ready = poll(&descriptor, 1, decoder.hasPendingEscape ? 40 : -1)
                if ready < 0, errno == EINTR { continue }
                var keys: [Key]
                if ready == 0 {
                    keys = decoder.flushEscape()
                } else {
                    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if count < 0, errno == EINTR || errno == EAGAIN { continue }
                    guard count > 0 else { break reading }
                    keys = decoder.feed(buffer[0 ..< count])
                }
                for key in keys {
                    guard let typed = type(key) else { break reading }
                    if let typed, !LineReader.handOver(typed, to: lines) { break reading }
                }
            }
            lines.close()
        }
        return lines
    }

    /// What a key does to the line: nil to end the input, a line sent, or nothing more.
    private func type(_ key: Key) -> String?? {
        line.withLock { line -> String?? in
            switch key {
            case .control("c"):
                return nil
            case .control("d") where line.text.isEmpty:
                return nil
            default:
                break
            }
            switch line.edit(key) {
            case let .submitted(text):
                // The line stays as typed, whole; the next one starts below it.
                output.enqueue(Array(("\r" + prompt + PeerText.escaped(text) + TerminalSequence.clearToEndOfLine + "\r\n").utf8) + drawn(line))
                return .some(text)
            case .editing:
                output.enqueue(drawn(line))
            case .cancelled, .ignored:
                break
            }
            return .some(nil)
        }
    }

    /// Writes `text` above the line being typed, and draws the line again below it.
    /// - Parameter text: lines, each ending in a newline.
    /// - Returns: false when the terminal is gone.
    @discardableResult
    func print(_ text: String) async -> Bool {
        let body = text.hasSuffix("\n") || text.isEmpty ? text : text + "\n"
        line.withLock { line in
            output.enqueue(Array(("\r" + TerminalSequence.clearToEndOfLine + body).utf8) + drawn(line))
        }
        do {
            try await output.write("")
            return true
        } catch {
            return false
        }
    }

    /// Erases the line being typed and gives the terminal back; idempotent.
    func stop() async {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        line.withLock { _ in output.enqueue("\r" + TerminalSequence.clearToEndOfLine) }
        await output.flush()
        terminal.restore()
    }

    /// The bytes that draw the prompt and the line, the cursor where it is.
    private func drawn(_ line: InputLine) -> [UInt8] {
        let (text, cursor) = line.visible(after: prompt, columns: TerminalMode.size(fd: 1).columns)
        return Array(("\r" + text + TerminalSequence.clearToEndOfLine + "\r" + (cursor > 0 ? "\u{1B}[\(cursor)C" : "")).utf8)
    }
}
