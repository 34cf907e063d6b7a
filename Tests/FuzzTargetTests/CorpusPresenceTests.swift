import FuzzTargets
import Testing

/// Every registered target has seeds to start from, and a name of its own: a target without a
/// corpus starts from nothing and is replayed on nothing.
@Suite("Fuzz targets: registered with a corpus")
struct CorpusPresenceTests {
    @Test("every registered target has a non-empty corpus")
    func everyTargetHasSeeds() throws {
        for target in FuzzTargetRegistry.all {
            #expect(try !FuzzFolder.inputs("Corpus", of: target.name).isEmpty, "Fuzz/Corpus/\(target.name) is empty or missing")
        }
    }

    @Test("target names are unique, kebab-case, and found by name")
    func namesAreUnique() {
        let names = FuzzTargetRegistry.names
        #expect(Set(names).count == names.count)
        for name in names {
            #expect(name.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" }, "\(name)")
            #expect(FuzzTargetRegistry.target(named: name)?.name == name)
        }
    }
}
