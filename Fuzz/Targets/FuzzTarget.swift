/// One reader under coverage-guided fuzzing: a check that libFuzzer runs on every input it
/// makes, and that the ordinary test suite replays on the committed corpus and regressions.
///
/// A check must never trap, whatever the bytes: a trap (an overflow, an index out of range, a
/// force unwrap of nil) ends the process the reader runs in, which for a core is every client's
/// session. A check that finds two readers disagreeing, or a property that does not hold, throws
/// a ``FuzzFinding`` saying what and where.
public protocol FuzzTarget: Sendable {
    /// The name on the command line (`scripts/fuzz.sh NAME`) and of the target's folders under
    /// `Fuzz/Corpus` and `Fuzz/Regressions`, in kebab-case.
    static var name: String { get }
    /// One line saying what is fuzzed and what is checked, for `scripts/fuzz.sh --list`.
    static var summary: String { get }
    /// Runs one input through the reader and checks what it says.
    /// - Parameter input: the bytes libFuzzer made (or a file of the corpus).
    /// - Throws: a ``FuzzFinding`` when the readers disagree or a property fails.
    static func check(_ input: [UInt8]) throws(FuzzFinding)
}
