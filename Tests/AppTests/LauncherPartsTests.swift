import ActorNode
import ActorNodeTesting
import FoundationEssentials
import Glibc
import Testing
@testable import cama_launch

@Suite("Launcher parts")
struct LauncherPartsTests {
    @Test("restart delays double from 100 ms up to 5 s")
    func backoff() {
        let policy = RestartPolicy()
        var delay = policy.initialDelay
        var delays: [Duration] = [delay]
        for _ in 0 ..< 8 {
            delay = policy.next(after: delay)
            delays.append(delay)
        }
        #expect(delays == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800),
                           .milliseconds(1600), .milliseconds(3200), .seconds(5), .seconds(5), .seconds(5)])
    }

    @Test("failures count only within the window")
    func history() {
        var history = RestartHistory()
        let start = ContinuousClock.now
        #expect(history.record(start, window: .seconds(30)).count == 1)
        #expect(history.record(start + .seconds(10), window: .seconds(30)).count == 2)
        #expect(history.record(start + .seconds(35), window: .seconds(30)).count == 2, "the first failure left the window")
        #expect(history.record(start + .seconds(80), window: .seconds(30)).count == 1)
    }

    @Test("the log sink rotates by size, keeps two old files, and remembers the last lines")
    func logRotation() async throws {
        let directory = try TemporaryDirectory()
        let sink = try LogSink(directory: directory.path, echo: false, rotationSize: 300)
        for number in 1 ... 40 {
            sink.log("test", "line number \(number)")
        }
        await sink.flush()
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names == ["core.log", "core.log.1", "core.log.2"])
        for name in names {
            #expect((FileIO.size(directory.path + "/" + name) ?? 0) <= 300)
        }
        let newest = try String(contentsOfFile: directory.path + "/core.log", encoding: .utf8)
        #expect(newest.hasSuffix("test[\(getpid())]: line number 40\n"))
        #expect(sink.lastLines.count == LogSink.tailLines)
        #expect(sink.lastLines.last?.hasSuffix("line number 40") == true)
    }

    @Test("after flush, the last line logged is in the file and in the last lines, however busy the reader was rotating")
    func flushWaitsForTheFile() async throws {
        let directory = try TemporaryDirectory()
        let sink = try LogSink(directory: directory.path, echo: false, rotationSize: 300)
        for round in 1 ... 20 {
            // Thousands of lines at once: the reader takes them out of the pipe in big reads, and
            // then writes and rotates for a while.
            for number in 1 ... 2000 { sink.log("test", "round \(round) line \(number)") }
            await sink.flush()
            let newest = try String(contentsOfFile: directory.path + "/core.log", encoding: .utf8)
            #expect(newest.hasSuffix("round \(round) line 2000\n"), "round \(round)")
            #expect(sink.lastLines.last?.hasSuffix("round \(round) line 2000") == true, "round \(round)")
        }
    }
}
