import Testing
@testable import ActorNode
import Wire

/// A feature's reducer lifted into its app's with `scope`: it changes its part of the state,
/// sees only its actions, and its effects' actions come back as the app's.
@Suite("Reducer scope")
struct ReducerScopeTests {
    private struct Parent: Equatable {
        var count = 0
        var label = "untouched"
    }

    private enum FeatureAction: Sendable, Equatable {
        case add
        case added(Int)
    }

    private enum ParentAction: Sendable, Equatable {
        case feature(FeatureAction)
        case other
    }

    private struct Environment: Sendable {
        var step: Int
    }

    private static let feature = Reducer<Int, FeatureAction, Environment> { count, action, environment in
        switch action {
        case .add:
            count += environment.step
            return .send(.added(count))
        case .added:
            return .none
        }
    }

    private static let path = ActionPath<ParentAction, FeatureAction>(
        extract: { if case let .feature(action) = $0 { action } else { nil } }, embed: ParentAction.feature)

    /// The actions an effect sends at once, in order.
    private func sent(_ effect: Effect<ParentAction>) -> [ParentAction] {
        effect.steps.compactMap { if case let .send(action) = $0 { action } else { nil } }
    }

    @Test("scoped without a function, a feature sees the app's environment as it is")
    func sameEnvironment() throws {
        let app = Self.feature.scope(state: \Parent.count, action: Self.path)
        var state = Parent()
        let effect = try app(&state, .feature(.add), Environment(step: 3))
        #expect(state == Parent(count: 3, label: "untouched"))
        #expect(sent(effect) == [.feature(.added(3))])
        let ignored = try app(&state, .other, Environment(step: 3))
        #expect(ignored.isNone)
        #expect(state.count == 3)
    }

    @Test("scoped with a function, a feature sees the environment made from the app's")
    func madeEnvironment() throws {
        let app = Self.feature.scope(state: \Parent.count, action: Self.path, environment: { (outer: Int) in Environment(step: outer * 10) })
        var state = Parent()
        let effect = try app(&state, .feature(.add), 2)
        #expect(state.count == 20)
        #expect(sent(effect) == [.feature(.added(20))])
    }
}
