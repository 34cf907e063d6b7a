import ActorNode
import Glibc
import Synchronization

/// Where the cores' output and the launcher's own log lines go: one pipe, read by a thread of
/// the launcher that appends to `core.log` in the state directory (rotated by size), echoes to
/// the launcher's stderr when asked (`--headless`), and keeps the last lines for the message
/// the launcher prints when it gives up.
final class LogSink: Sendable {
    /// A log file is rotated when it would pass `rotationSize` (1 MiB unless told otherwise);
    /// `core.log.1` and `core.log.2` are kept.
    static let defaultRotationSize = 1 << 20
    static let keptFiles = 2
    static let tailLines = 20

    let path: String
    let rotationSize: Int
    /// The pipe's write end: give it to each core as its stdout and stderr.
    let writeFD: Int32
    private let readFD: Int32
    private let echo: Bool
    private let writer: BlockingWriter
    private let state: Mutex<FileState>

    private struct FileState {
        var fd: Int32
        var size: Int
        var tail: [String] = []
        var partial = ""
        /// The newest flush marker the reader has passed.
        var flushed: UInt64 = 0
        /// The start of a marker line that the last read cut off.
        var heldMarker: [UInt8] = []
    }

    /// Flush markers given out.
    private let flushes = Atomic<UInt64>(0)

    init(directory: String, name: String = "core.log", echo: Bool, rotationSize: Int = defaultRotationSize) throws(SystemError) {
        path = directory + "/" + name
        self.rotationSize = rotationSize
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemError("open \(path)") }
        let ends: (read: Int32, write: Int32)
        do {
            ends = try PipePair.make()
        } catch {
            close(fd)
            throw error
        }
        readFD = ends.read
        writeFD = ends.write
        self.echo = echo
        writer = BlockingWriter(fd: ends.write, name: "cama-logpipe")
        state = Mutex(FileState(fd: fd, size: FileIO.size(path) ?? 0))
        SystemThread.detach(name: "cama-log") { [self] in run() }
    }

    /// Logs a line of the launcher's own, through the same pipe as the cores' output (so the
    /// order is kept). Never waits.
    func log(_ program: String, _ message: String) {
        writer.enqueue(LogLine.line(program, message))
    }

    /// The last lines written, oldest first.
    var lastLines: [String] {
        state.withLock { $0.tail }
    }

    /// Returns once everything logged so far is in the file and in ``lastLines`` (or after two
    /// seconds, if the reader thread is stuck): a marker line follows it through the pipe, and
    /// the reader says when it has passed it. (An empty pipe alone is not enough: the reader
    /// may still be writing, or rotating, what it took out of it.)
    func flush() async {
        let token = flushes.wrappingAdd(1, ordering: .relaxed).newValue
        writer.enqueue(Self.flushMarker(token))
        await writer.flush()
        for _ in 0 ..< 1000 {
            if state.withLock({ $0.flushed >= token }) { return }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(readFD, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            let written = append(Array(buffer[0 ..< count]))
            if echo {
                _ = written.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            }
        }
    }

    /// Appends what was read to the file and returns it, less the flush markers.
    private func append(_ chunk: [UInt8]) -> [UInt8] {
        state.withLock { state in
            let bytes = state.heldMarker.isEmpty ? chunk : state.heldMarker + chunk
            state.heldMarker = []
            var written: [UInt8] = []
            // Line by line, so that a file is rotated between two lines, never inside one.
            var start = 0
            while start < bytes.count {
                let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n"))
                let end = newline.map { $0 + 1 } ?? bytes.count
                if bytes[start] == 0 {
                    // Perhaps a flush marker: wait for the rest of it.
                    guard newline != nil else {
                        state.heldMarker = Array(bytes[start...])
                        break
                    }
                    if let token = Self.flushToken(bytes[start ..< end]) {
                        state.flushed = max(state.flushed, token)
                        start = end
                        continue
                    }
                }
                if state.size + (end - start) > rotationSize, state.size > 0 {
                    rotate(&state)
                }
                _ = bytes[start ..< end].withUnsafeBytes { write(state.fd, $0.baseAddress, $0.count) }
                state.size += end - start
                written += bytes[start ..< end]
                start = end
            }
            let text = state.partial + String(decoding: written, as: UTF8.self)
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            state.partial = lines.removeLast()
            state.tail += lines
            if state.tail.count > Self.tailLines { state.tail.removeFirst(state.tail.count - Self.tailLines) }
            return written
        }
    }

    /// The line that marks a flush: a NUL byte (which no log line starts with), a word and
    /// the flush's number.
    private static func flushMarker(_ token: UInt64) -> String {
        "\u{0}cama-log-flush \(token)\n"
    }

    /// The number of the flush marker `line` is, if it is one.
    private static func flushToken(_ line: ArraySlice<UInt8>) -> UInt64? {
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("\u{0}cama-log-flush "), text.hasSuffix("\n") else { return nil }
        return UInt64(text.dropFirst("\u{0}cama-log-flush ".count).dropLast())
    }

    /// core.log -> core.log.1 -> core.log.2 (the oldest is dropped), then a fresh core.log.
    private func rotate(_ state: inout FileState) {
        close(state.fd)
        for index in stride(from: Self.keptFiles, to: 0, by: -1) {
            let older = index == 1 ? path : "\(path).\(index - 1)"
            rename(older, "\(path).\(index)")
        }
        state.fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        state.size = 0
    }
}
