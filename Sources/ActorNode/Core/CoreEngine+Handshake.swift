import Glibc
import Wire

/// The session's protocol: each whole frame taken by the phase its client is in (a plain
/// action goes straight to applying; anything else is decoded as a message), the hello checked
/// and answered with the welcome (the state's text encoded once per revision), a bye, and the
/// end of a session: a violation's error after what the client is owed, then the close.
extension CoreEngine {
    /// A whole frame from a client: a plain action once it is welcomed, else (after the
    /// quarantine's check of whole frames) a message decoded the general way.
    func handle(_ payload: ArraySlice<UInt8>, from client: EngineClient) {
        if let clientID = client.welcomedClientID, applyPlainAction(payload, from: client, clientID: clientID) { return }
        // Not a plain action: copied out of the decoder's storage, which it may outlive.
        handleOther(Array(payload), from: client)
    }

    /// Any frame but a plain action from a welcomed client: a bye, a hello, any other message,
    /// or one the quarantine refuses.
    func handleOther(_ frame: [UInt8], from client: EngineClient) {
        if quarantine.refusesFrames, quarantine.refuses(frame: frame) {
            log("\(client.peer): refused a frame that crashed the core before")
            violation(client.number, ErrorMessage(.crashedCore, "this frame crashed the core once and is refused"))
            return
        }
        // A bye as clients write it, which every one-shot command sends, without the general
        // decoding (what that would make of it: the session ends).
        if case .welcomed = client.phase, frame == ScriptFrames.byePayload {
            finish(client.number)
            return
        }
        // Noted, so that a crash while it is read or applied is known at the next start.
        CrashNote.begin(.frame, client: client.clientJSON, seq: nil, bytes: frame[...])
        // A hello as clients write it is read by hand (``HelloFrame``); anything else, and
        // anything the hand reader is unsure of, the general way.
        if case let .awaitingHello(timer) = client.phase, let hello = HelloFrame.read(frame) {
            if let timer { loop.cancel(timer) }
            welcome(client.number, hello)
        } else {
            handleMessage(frame, from: client.number, client: client)
        }
        CrashNote.end()
    }

    /// Any frame but a plain action: decoded as a message. (Apart from ``handle(_:from:)``, so
    /// that the plain action's path does not pay for this one's generic locals.)
    func handleMessage(_ frame: [UInt8], from number: Int, client: EngineClient) {
        let message: ClientMessage<Action>
        do {
            message = try WireJSON.decode(ClientMessage<Action>.self, from: frame)
        } catch let invalid as InvalidActionError {
            guard client.hello != nil else {
                violation(number, ErrorMessage(.helloRequired, "the first message must be hello"))
                return
            }
            if trace, let hello = client.hello {
                log("trace refused from client \(PeerText.forLog(hello.client)) #\(invalid.seq): an action that does not decode: \(PeerText.forLog(invalid.reason)) (invalid_action)")
            }
            let rejection = Rejection.invalidAction(invalid.reason)
            answer(number, .reject(Reject(seq: invalid.seq, code: rejection.code, message: invalid.reason)))
            return
        } catch {
            let reason = describeDecodingFailure(error)
            log("\(client.peer): bad frame: \(PeerText.forLog(reason))")
            violation(number, ErrorMessage(.badFrame, "a frame is not a valid message: \(reason)"))
            return
        }
        switch (message, client.phase) {
        case let (.hello(hello), .awaitingHello(timer)):
            if let timer { loop.cancel(timer) }
            welcome(number, hello)
        case (.hello, .welcomed):
            violation(number, ErrorMessage(.unexpectedMessage, "hello was already sent on this connection"))
        case (_, .awaitingHello):
            violation(number, ErrorMessage(.helloRequired, "the first message must be hello"))
        case let (.action(request), .welcomed(hello)):
            apply(request.action, seq: request.seq, from: client, clientID: hello.client)
        case let (.resync(request), .welcomed(hello)):
            guard hello.role.receivesRenditions else {
                violation(number, ErrorMessage(.unexpectedMessage, "resync is for shells and watchers, which are sent the state"))
                return
            }
            resync(client, request, hello: hello)
        case let (.query(query), .welcomed):
            answerQuery(query, from: client)
        case (.bye, .welcomed):
            finish(number)
        }
    }

    func welcome(_ number: Int, _ hello: Hello) {
        guard hello.protocolVersion == ProtocolVersion.current else {
            violation(number, ErrorMessage(
                .versionMismatch,
                "this core speaks protocol \(ProtocolVersion.current) and the client speaks \(hello.protocolVersion); use matching versions of the core and the client",
                protocolVersion: ProtocolVersion.current))
            return
        }
        guard let client = clients[number] else { return }
        client.phase = .welcomed(hello)
        client.clientJSON = JSONFragment.string(hello.client)
        client.welcomedClientID = hello.client
        if hello.role.receivesRenditions {
            receivers.insert(client)
            log("attached \(hello.role.rawValue) '\(PeerText.forLog(hello.name))' (client \(PeerText.forLog(hello.client)), \(client.peer))")
        }
        pending.append(.welcome(client: number, bytes: welcomeFrame(shells: receivers.count, snapshot: hello.snapshot)))
        if hello.role.receivesRenditions { announcePresence(except: number) }
    }

    /// The welcome at the current revision; the state's encoding is shared by every client
    /// welcomed at that revision.
    /// - Parameters:
    ///   - shells: the shells and watchers attached.
    ///   - snapshot: whether the welcome carries the state (a script may do without it, and
    ///     then costs nothing in proportion to the state).
    func welcomeFrame(shells: Int, snapshot: Bool = true) -> [UInt8] {
        guard snapshot else {
            return WelcomeFrame.frame(core: instanceID, pid: processID, shells: shells, revision: kernel.revision, snapshot: nil)
        }
        guard let state = stateJSON() else {
            let welcome = Welcome(core: instanceID, pid: processID, shells: shells, revision: kernel.revision, snapshot: kernel.state)
            return ServerMessage<State>.welcome(welcome).frame()
        }
        return WelcomeFrame.frame(core: instanceID, pid: processID, shells: shells, revision: kernel.revision, snapshot: state)
    }

    /// The state's JSON now, encoded at most once per revision (nil if it cannot be encoded).
    func stateJSON() -> [UInt8]? {
        if let stateCache, stateCache.revision == kernel.revision { return stateCache.json }
        guard let json = try? WireJSON.encode(kernel.state) else { return nil }
        stateCache = (kernel.revision, json)
        return json
    }

    // MARK: The end of a session

    /// A protocol violation: nothing more is read; the error follows what the client is owed.
    func violation(_ number: Int, _ error: ErrorMessage) {
        guard clients[number] != nil, !(clients[number]!.finishing) else { return }
        pending.append(.frame(client: number, bytes: ServerMessage<State>.error(error).frame(), isAnswer: false))
        finish(number)
    }

    /// The client's session ends: nothing more is read; it is closed once what it is owed (and
    /// queued so far) is written, or after the closing grace.
    func finish(_ number: Int) {
        guard clients[number] != nil, !(clients[number]!.finishing) else { return }
        clients[number]!.finishing = true
        heldBack.remove(number)
        pending.append(.finish(client: number))
    }
}
