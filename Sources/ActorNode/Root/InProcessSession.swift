import Wire

/// Wires a core session to a shell session with plain channels, in one process: what Root does
/// when no socket is needed (tests, embedding).
public enum InProcessSession {
    public static func pair<State, Action>(
        state: State.Type = State.self, action: Action.Type = Action.self,
        limits: Outbox<State>.Limits = .init()
    ) -> (core: CoreSession<State, Action>, shell: ShellSession<State, Action>) {
        let toCore = Chan<ClientMessage<Action>>()
        let outbox = Outbox<State>(limits: limits)
        let core = CoreSession<State, Action>(
            inbound: toCore.map { SessionInput.message($0) }, outbox: outbox, peer: "in-process"
        ) {
            toCore.close()
            outbox.finish()
        }
        return (core, ShellSession(inbound: outbox, outbound: toCore))
    }
}
