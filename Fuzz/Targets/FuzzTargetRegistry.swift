/// Every fuzz target, in the order `scripts/fuzz.sh` runs them when no name is given.
public enum FuzzTargetRegistry {
    /// The targets; each name appears once.
    public static let all: [any FuzzTarget.Type] = [
        FrameDecoderTarget.self,
        PlainActionTarget.self,
        HelloFrameTarget.self,
        RenditionFrameTarget.self,
        WelcomeFrameTarget.self,
        ScriptFramesTarget.self,
        JSONParserTarget.self,
        JSONTapeTarget.self,
        JSONPatchTarget.self,
        JournalRecordTarget.self,
        RecoveryTarget.self,
        CrashNoteTarget.self,
        BridgeGreetingTarget.self,
        ReadOnlyBridgeTarget.self,
    ]

    /// The target called `name`, if there is one.
    /// - Parameter name: a target's ``FuzzTarget/name``.
    public static func target(named name: String) -> (any FuzzTarget.Type)? {
        all.first { $0.name == name }
    }

    /// Each target's name and summary, tab-separated, a line each: what `scripts/fuzz.sh
    /// --list` prints.
    public static var listing: String {
        all.map { "\($0.name)\t\($0.summary)\n" }.joined()
    }

    /// The targets' names, in order.
    public static var names: [String] { all.map { $0.name } }
}
