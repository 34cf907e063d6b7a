import ActorNode
import Glibc
import Wire

/// A client that speaks frames by hand, to send the core exactly what a test wants,
/// well-formed or not. Built on the product's non-blocking SocketConnection.
struct RawClient {
    let connection: SocketConnection

    static func connect(_ path: String) throws -> RawClient {
        guard case let .connected(fd) = try UnixSocket.connect(to: path) else {
            throw SystemError("connect \(path)", code: ECONNREFUSED)
        }
        return RawClient(connection: SocketConnection(fd: fd))
    }

    /// Sends one frame holding `json`.
    func send(_ json: String) async throws {
        try await connection.write(Frame.encode(Array(json.utf8)))
    }

    /// Sends raw bytes, framed or not.
    func sendBytes(_ bytes: [UInt8]) async throws {
        try await connection.write(bytes)
    }

    /// Says hello with the given role and protocol version.
    func hello(role: String = "shell", protocolVersion: Int = ProtocolVersion.current) async throws {
        try await send(#"{"hello":{"protocol":\#(protocolVersion),"role":"\#(role)","client":"raw-\#(getpid())","name":"raw test client"}}"#)
    }

    /// The next message as JSON; nil when the core closed the connection. Fails after `timeout`.
    func receive(timeout: Duration = .seconds(10)) async throws -> JSONValue? {
        let connection = self.connection
        let outcome: Result<[UInt8]?, ConnectionError>? = await race([
            { @Sendable in
                do throws(ConnectionError) { return .success(try await connection.readFrame()) } catch { return .failure(error) }
            },
            { @Sendable in
                await EventLoop.shared.sleep(for: timeout)
                return nil
            },
        ])
        guard let outcome else { throw RawClientTimeout() }
        switch outcome {
        case let .success(payload?): return try WireJSON.decode(JSONValue.self, from: payload)
        case .success(nil): return nil
        case .failure(.system): return nil
        case let .failure(error): throw error
        }
    }

    /// Reads until the core closes the connection, returning everything it sent.
    func receiveAll(timeout: Duration = .seconds(10)) async throws -> [JSONValue] {
        var messages: [JSONValue] = []
        while let message = try await receive(timeout: timeout) { messages.append(message) }
        return messages
    }

    func close() {
        connection.close()
    }
}

struct RawClientTimeout: Error {}

extension JSONValue {
    /// The message type: the single key of an envelope.
    var messageType: String? { objectValue?.keys.first }

    /// A member by path, e.g. `value["error", "code"]`.
    subscript(_ keys: String...) -> JSONValue? {
        var current: JSONValue? = self
        for key in keys { current = current?.objectValue?[key] }
        return current
    }

    var stringValue: String? {
        if case let .string(text) = self { return text }
        return nil
    }

    var intValue: Int64? {
        if case let .integer(number) = self { return number }
        return nil
    }
}
