import ActorNodeTesting
import FoundationEssentials
import Testing
@testable import ActorNode
import Wire

/// A reducer's "now" is the moment its action is applied at, whether the environment's type
/// takes a "now" (found once for the type) or only its values do (an existential, asked at each
/// action).
@Suite("The moment an action is applied at")
struct ActionTimingTests {
    protocol Services: Sendable {}

    struct TimedServices: Services, ActionTimedEnvironment {
        var now = Date(timeIntervalSince1970: 0)
        func applying(at moment: Date) -> TimedServices { TimedServices(now: moment) }
    }

    enum Action: Sendable { case stamp }

    private func stamped<Environment: Sendable>(_ environment: Environment, now: @escaping @Sendable (Environment) -> Date) -> (Date?, Date) {
        let time = TestTime(start: Date(timeIntervalSince1970: 1_767_225_600.25))
        let reducer = Reducer<Date?, Action, Environment> { state, _, environment throws(Rejection) in
            state = now(environment)
            return .none
        }
        let kernel = StoreKernel(state: nil, reducer: reducer, environment: environment, time: time)
        _ = kernel.apply(.stamp, from: .effect(nil))
        return (kernel.state, time.now)
    }

    @Test("a type that takes a now")
    func concreteType() {
        let (seen, moment) = stamped(TimedServices()) { $0.now }
        #expect(seen == moment)
    }

    @Test("an existential whose value takes a now")
    func existential() {
        let (seen, moment) = stamped(TimedServices() as any Services) { ($0 as? TimedServices)?.now ?? .distantPast }
        #expect(seen == moment)
    }
}
