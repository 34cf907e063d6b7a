import Foundation
import Testing

/// The architecture, checked on the sources: the framework names no app, and inside ActorNode
/// each folder uses only the folders below it (no cycles: the transport knows nothing of cores,
/// shells or command lines).
@Suite("Layering")
struct LayeringTests {
    /// ActorNode's folders, lowest first. A folder may use its own types and those of the
    /// folders in earlier layers; folders in one layer may not use one another.
    static let layers: [[String]] = [
        ["Channels"],
        ["System"],
        ["Transport", "Runtime", "CommandLine", "Terminal"],
        ["Durability", "Supervision", "Client"],
        ["Core", "Shell"],
        ["Remote"],
        ["Host", "ShellKit", "Root"],
    ]

    /// Names that belong to apps (the to-do app's types and words), never to the framework.
    static let appWords = [
        "AppState", "AppAction", "AppEnvironment", "AppReducer", "TodoState", "TodoItem", "TodoAction",
        "TodoRejectCode", "CounterState", "CounterAction", "TimerState", "TimerAction", "TimerRejectCode",
        "pomodoro", "to-do", "todo", "ChatState", "ChatAction",
    ]

    static let root: String = {
        var path = #filePath
        for _ in 0 ..< 3 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path
    }()

    @Test("Wire, ActorNode and ActorNodeTesting name no app type, not even in comments")
    func frameworkKnowsNoApp() throws {
        for module in ["Wire", "ActorNode", "ActorNodeTesting"] {
            for file in try Self.swiftFiles(in: "Sources/\(module)") {
                let text = try String(contentsOfFile: file, encoding: .utf8)
                for word in Self.appWords where text.range(of: word, options: .caseInsensitive) != nil {
                    Issue.record("\(file.dropFirst(Self.root.count + 1)) names '\(word)'")
                }
            }
        }
    }

    @Test("the framework never ends the process: no exit, _exit or abort in Wire, ActorNode or ActorNodeTesting, but for the entry point that ends main")
    func frameworkNeverExits() throws {
        // The thin end of `main` that `@main` on an app runs: its one job is to exit with the
        // status the host returned.
        let entryPoint = "Sources/ActorNode/CommandLine/ProgramEntry.swift"
        for module in ["Wire", "ActorNode", "ActorNodeTesting"] {
            for file in try Self.swiftFiles(in: "Sources/\(module)") where !file.hasSuffix("/" + entryPoint) {
                let code = Self.strippingCommentsAndStrings(try String(contentsOfFile: file, encoding: .utf8))
                for call in ["exit(", "_exit(", "abort("] {
                    var rest = code[...]
                    while let found = rest.range(of: call) {
                        // A call, not a longer name ending in it (`onExit(`).
                        let before = found.lowerBound == code.startIndex ? " " : code[code.index(before: found.lowerBound)]
                        if !(before.isLetter || before.isNumber || before == "_" || before == ".") {
                            Issue.record("\(file.dropFirst(Self.root.count + 1)) calls \(call)): report a typed error and let main decide")
                        }
                        rest = code[found.upperBound...]
                    }
                }
            }
        }
    }

    @Test("ActorNode's folders use only the folders below them")
    func foldersPointDown() throws {
        let folderRank = Dictionary(uniqueKeysWithValues: Self.layers.enumerated().flatMap { rank, folders in folders.map { ($0, rank) } })
        let base = "Sources/ActorNode"
        var declaredIn: [String: String] = [:]
        var sources: [(folder: String, file: String, code: String)] = []
        for file in try Self.swiftFiles(in: base) {
            let relative = file.dropFirst(Self.root.count + base.count + 2)
            let folder = String(relative.prefix { $0 != "/" })
            #expect(folderRank[folder] != nil, "\(relative) is in a folder the layering does not know")
            let code = Self.strippingCommentsAndStrings(try String(contentsOfFile: file, encoding: .utf8))
            for name in Self.topLevelDeclarations(in: code) { declaredIn[name] = folder }
            sources.append((folder, String(relative), code))
        }
        for (folder, file, code) in sources {
            guard let rank = folderRank[folder] else { continue }
            for word in Set(Self.identifiers(in: code)) {
                guard let owner = declaredIn[word], owner != folder, let ownerRank = folderRank[owner] else { continue }
                #expect(ownerRank < rank, "\(file) (\(folder)) uses \(word) from \(owner), which is not below it")
            }
        }
    }

    // MARK: Reading sources

    static func swiftFiles(in directory: String) throws -> [String] {
        let absolute = root + "/" + directory
        guard let enumerator = FileManager.default.enumerator(atPath: absolute) else { return [] }
        return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.map { absolute + "/" + $0 }.sorted()
    }

    /// Types, protocols, type aliases and free functions declared at the top level of a file.
    static func topLevelDeclarations(in code: String) -> [String] {
        let keywords: Set<String> = ["class", "struct", "enum", "protocol", "actor", "typealias", "func"]
        var names: [String] = []
        for line in code.split(separator: "\n") where !(line.first?.isWhitespace ?? true) && line.first != "}" {
            let words = line.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init)
            if let index = words.firstIndex(where: { keywords.contains($0) }), index + 1 < words.count, words[index] != "extension" {
                names.append(words[index + 1])
            }
        }
        return names
    }

    static func identifiers(in code: String) -> [String] {
        code.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init)
    }

    /// The code without comments and string literals (so that prose names nothing).
    static func strippingCommentsAndStrings(_ text: String) -> String {
        var result = ""
        var index = text.startIndex
        func starts(_ prefix: String) -> Bool { text[index...].hasPrefix(prefix) }
        while index < text.endIndex {
            if starts("//") {
                while index < text.endIndex, text[index] != "\n" { index = text.index(after: index) }
            } else if starts("/*") {
                guard let end = text[index...].range(of: "*/") else { break }
                index = end.upperBound
            } else if starts("\"\"\"") {
                let after = text.index(index, offsetBy: 3)
                guard let end = text[after...].range(of: "\"\"\"") else { break }
                index = end.upperBound
                result += "\"\""
            } else if text[index] == "\"" {
                var cursor = text.index(after: index)
                while cursor < text.endIndex, text[cursor] != "\"", text[cursor] != "\n" {
                    if text[cursor] == "\\" { cursor = text.index(after: cursor) }
                    if cursor < text.endIndex { cursor = text.index(after: cursor) }
                }
                index = cursor < text.endIndex ? text.index(after: cursor) : cursor
                result += "\"\""
            } else {
                result.append(text[index])
                index = text.index(after: index)
            }
        }
        return result
    }
}
