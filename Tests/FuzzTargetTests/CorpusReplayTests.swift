import FuzzTargets
import Testing

/// Every committed input of every fuzz target, its seeds and the inputs of every crash or
/// disagreement fuzzing found, passes its target's check: CI's guard against a reader that
/// starts trapping or disagreeing again.
@Suite("Fuzz targets: the committed corpus and regressions replay clean")
struct CorpusReplayTests {
    @Test("every file of Fuzz/Corpus/<target> and Fuzz/Regressions/<target> passes the target's check",
          arguments: FuzzTargetRegistry.names)
    func replay(_ name: String) throws {
        let target = try #require(FuzzTargetRegistry.target(named: name))
        for input in try FuzzFolder.inputs("Corpus", of: name) + FuzzFolder.inputs("Regressions", of: name) {
            do {
                try target.check(input.bytes)
            } catch {
                Issue.record("\(input.name): \(error)")
            }
        }
    }
}
