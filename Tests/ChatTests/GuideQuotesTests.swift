import Glibc
import Testing

/// docs/APPS.md teaches from the example apps' files: a file it quotes "whole" is quoted byte
/// for byte, and every other Swift block that a line naming a file of `Examples/` introduces
/// is made of runs of that file's lines (a line `...` leaves some out). So the guide's code is
/// code that compiles and runs (the examples' tests run it), never a copy that drifted.
@Suite("The app guide quotes the examples as they are")
struct GuideQuotesTests {
    /// The repository, from this file's path (Tests/ChatTests/ in it).
    static let repository: String = {
        var path = #filePath
        for _ in 0 ..< 3 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path
    }()

    static func read(_ path: String) -> String? {
        guard let file = fopen(repository + "/" + path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes += buffer[0 ..< count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Each Swift block of the guide with the `Examples/...` file named just before it,
    /// and whether that mention said "whole".
    static func quotes() -> [(file: String, whole: Bool, code: String, line: Int)] {
        guard let guide = read("docs/APPS.md") else { return [] }
        var quotes: [(String, Bool, String, Int)] = []
        var file: String?
        var whole = false
        var block: [Substring]?
        var start = 0
        var mentioned: Int?
        for (number, line) in guide.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if var lines = block {
                if line == "```" {
                    if let file { quotes.append((file, whole, lines.joined(separator: "\n") + "\n", start)) }
                    block = nil
                    file = nil
                } else {
                    lines.append(line)
                    block = lines
                }
                continue
            }
            if line == "```swift" {
                block = []
                start = number + 1
                continue
            }
            // A mention that introduces the block: a line that names the file and ends in a colon.
            if let range = line.firstRange(of: "`Examples/"), let end = line[range.upperBound...].firstIndex(of: "`"), line.hasSuffix(":") {
                file = String(line[line.index(after: range.lowerBound) ..< end])
                whole = line[end...].hasPrefix("`, whole")
                mentioned = number
            } else if let line = mentioned, number - line > 2 {
                file = nil
            }
        }
        return quotes
    }

    @Test("a file quoted whole is the file; any other quote is a run of its lines")
    func quotesAreTheFiles() throws {
        let quotes = Self.quotes()
        #expect(quotes.count >= 6, "the guide quotes the examples' files: \(quotes.map(\.file))")
        #expect(quotes.contains { $0.whole }, "some file is quoted whole")
        for quote in quotes {
            let source = try #require(Self.read(quote.file), "docs/APPS.md:\(quote.line) quotes \(quote.file), which is not there")
            if quote.whole {
                #expect(quote.code == source, "docs/APPS.md:\(quote.line) quotes \(quote.file) whole, but it differs")
            } else {
                // A line `...` leaves lines out: the pieces around it are runs of the file, in order.
                var rest = Substring(source)
                var pieces: [[Substring]] = [[]]
                for line in quote.code.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
                    if line.allSatisfy({ $0 == " " || $0 == "." }), line.contains("...") { pieces.append([]) } else { pieces[pieces.count - 1].append(line) }
                }
                for piece in pieces where !piece.isEmpty {
                    let text = piece.joined(separator: "\n") + "\n"
                    guard let found = rest.firstRange(of: text) else {
                        Issue.record("docs/APPS.md:\(quote.line): the quote is not a run of \(quote.file)'s lines: \(text.prefix(200))")
                        break
                    }
                    rest = rest[found.upperBound...]
                }
            }
        }
    }
}
