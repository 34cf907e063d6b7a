import Glibc

/// A failed system call: which call, on what, and errno's message.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    public var call: String
    public var code: Int32

    public init(_ call: String, code: Int32 = errno) {
        self.call = call
        self.code = code
    }

    /// errno's text, e.g. "Connection refused".
    public var reason: String {
        String(cString: strerror(code))
    }

    public var description: String { "\(call): \(reason)" }
}
