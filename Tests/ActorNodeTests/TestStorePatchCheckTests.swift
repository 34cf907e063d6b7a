import Testing
@testable import ActorNode
@testable import ActorNodeTesting
import Wire

/// A state whose hand-written diff forgets a field: shells would drift from the core. The
/// TestStore checks every change's patch, so the app's own tests catch it.
@Suite("TestStore: the patch check")
struct TestStorePatchCheckTests {
    struct Poll: Codable, Equatable, Sendable, Diffable {
        var votes = 0
        var closed = false
        /// Forgets `closed`.
        func appendPatch(from old: Poll, at path: JSONPointer, to patch: inout JSONPatch) throws {
            try patch.appendField("votes", old.votes, votes, at: path)
        }
    }

    enum PollAction: Codable, Equatable, Sendable {
        case vote
        case close
    }

    static let reducer = Reducer<Poll, PollAction, Void> { state, action, _ throws(Rejection) in
        switch action {
        case .vote: state.votes += 1
        case .close: state.closed = true
        }
        return .none
    }

    @Test("a change the forgetful diff leaves out fails the test, naming the field")
    func missingFieldFails() async {
        let store = TestStore(state: Poll(), reducer: Self.reducer, environment: ())
        // A change the diff does describe passes.
        await store.send(.vote) { $0.votes = 1 }
        await withKnownIssue {
            await store.send(.close) { $0.closed = true }
        } matching: { issue in
            issue.description.contains("shells would not follow this change") && issue.description.contains("/closed")
        }
    }
}
