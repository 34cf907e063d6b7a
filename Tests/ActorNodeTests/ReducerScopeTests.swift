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

    /// A parent whose feature's state is a computed property (no offset in its storage) and
    /// one where it sits after a reference and inside a nested struct (an offset of its own).
    private final class Box: Sendable {}
    private struct Nested: Equatable {
        var before = "x"
        var count = 0
    }
    private struct Shaped {
        var box = Box()
        var label = "untouched"
        var nested = Nested()
        var stored = 0
        var computed: Int {
            get { stored / 2 }
            set { stored = newValue * 2 }
        }
    }

    @Test("a feature's state is changed in place through any path: stored, nested, or computed")
    func everyPath() throws {
        #expect(StatePlace(\Shaped.nested.count).offset != nil)
        #expect(StatePlace(\Shaped.computed).offset == nil)
        var state = Shaped()
        let nested = Self.feature.scope(state: \Shaped.nested.count, action: Self.path)
        _ = try nested(&state, .feature(.add), Environment(step: 5))
        _ = try nested(&state, .feature(.add), Environment(step: 5))
        #expect(state.nested == Nested(before: "x", count: 10))
        let computed = Self.feature.scope(state: \Shaped.computed, action: Self.path)
        _ = try computed(&state, .feature(.add), Environment(step: 4))
        #expect(state.stored == 8)
        #expect(state.label == "untouched")
        #expect(state.nested.count == 10)
    }
}
