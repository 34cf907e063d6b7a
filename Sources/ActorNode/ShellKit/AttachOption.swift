/// An option of `attach` that an app's full screen takes (the chat room's `--name NAME`): its
/// name, the word for its value in `--help`, and its help. The shell kit parses it and lists it
/// in `--help`; the full screen reads its value from ``AttachOptions``.
public struct AttachOption: Sendable, Equatable {
    /// The option as typed: `--name`.
    public let name: String
    /// Its value's placeholder in `--help`: `NAME`.
    public let value: String
    /// What it does, for `--help`.
    public let help: String

    /// - Parameters:
    ///   - name: the option as typed, starting with `--`.
    ///   - value: its value's placeholder in `--help`.
    ///   - help: what it does (and its default), for `--help`.
    public init(_ name: String, _ value: String, _ help: String) {
        self.name = name
        self.value = value
        self.help = help
    }
}

/// What `attach` was started with, for a full screen's first UI state
/// (``ScreenApp/ui(_:)``): the values of the app's ``AttachOption``s, and the environment.
public struct AttachOptions: Sendable, Equatable {
    /// Each option given, by name, with its value (the last one when given twice).
    package var values: [String: String]

    /// - Parameter values: each option given, by name.
    package init(_ values: [String: String] = [:]) {
        self.values = values
    }

    /// The value given for an option, or nil when it was not given.
    /// - Parameter name: the option, as ``AttachOption/name`` (`--name`).
    public subscript(_ name: String) -> String? {
        values[name]
    }

    /// An environment variable's value, if it is set (for a default: `$USER`).
    /// - Parameter variable: the variable's name.
    public func environment(_ variable: String) -> String? {
        ProcessEnvironment.value(variable)
    }
}
