import Glibc

/// One log line on stderr: `2026-11-22T10:15:02.123Z core-daemon[4242]: message`.
/// Written in one write call, so lines from several processes sharing a log never interleave,
/// and queued to stderr's own thread, so logging never waits for a slow terminal or pipe.
package enum LogLine {
    package static func write(_ program: String, _ message: String) {
        BlockingWriter.standardError.enqueue(line(program, message))
    }

    /// The text of one log line, newline included.
    package static func line(_ program: String, _ message: String) -> String {
        "\(timestamp()) \(program)[\(getpid())]: \(message)\n"
    }

    /// Waits until every log line so far is written (before exiting).
    package static func flush() async {
        await BlockingWriter.standardError.flush()
    }

    /// The current UTC time with milliseconds, ISO 8601.
    package static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return timestamp(seconds: now.tv_sec, milliseconds: Int(now.tv_nsec / 1_000_000))
    }

    /// A moment (seconds since 1970) as UTC with milliseconds, ISO 8601, as log lines write it.
    /// - Parameter moment: seconds since 1970.
    package static func timestamp(at moment: Double) -> String {
        guard moment.isFinite, abs(moment) < 1e15 else { return "\(moment)" }
        let whole = moment.rounded(.down)
        return timestamp(seconds: Int(whole), milliseconds: min(999, Int(((moment - whole) * 1000).rounded(.down))))
    }

    private static func timestamp(seconds: Int, milliseconds: Int) -> String {
        var seconds = seconds
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millisecondText = String(repeating: "0", count: 3 - String(milliseconds).count) + String(milliseconds)
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(millisecondText)Z"
    }
}
