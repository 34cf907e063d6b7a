/// Walks a command line one token at a time, with the conventions users expect: `--name value`
/// and `--name=value`, `-h`, and `--` to end the options.
package struct ArgumentCursor: Sendable {
    private var tokens: ArraySlice<String>
    private var pendingValue: String?
    /// The program name for error messages ("shell-client send").
    package let program: String
    /// True once `--` has been passed: everything after it is an operand.
    package private(set) var optionsEnded = false
    /// The last token exactly as it was written (`--name=value` whole).
    package private(set) var currentToken: String?

    package init(_ arguments: [String], program: String) {
        tokens = arguments[...]
        self.program = program
    }

    /// A token from the command line.
    package enum Token: Equatable, Sendable {
        /// `--name` or `-n` (for `--name=value`, the value is kept for ``value(for:)``).
        case option(String)
        /// Anything else.
        case operand(String)
    }

    /// The next token, or nil at the end.
    package mutating func next() -> Token? {
        pendingValue = nil
        guard let token = tokens.popFirst() else { return nil }
        currentToken = token
        if optionsEnded || token == "-" || !token.hasPrefix("-") {
            return .operand(token)
        }
        if token == "--" {
            optionsEnded = true
            return next()
        }
        if token.hasPrefix("--"), let equals = token.firstIndex(of: "=") {
            pendingValue = String(token[token.index(after: equals)...])
            return .option(String(token[..<equals]))
        }
        return .option(token)
    }

    /// The value of the option just read: after `=`, or the next token.
    package mutating func value(for option: String) throws(CommandFailure) -> String {
        if let pendingValue {
            self.pendingValue = nil
            return pendingValue
        }
        guard let value = tokens.popFirst() else {
            throw .usage("\(option) needs a value", program: program)
        }
        return value
    }

    /// The value of the option just read, as a number in `range`.
    package mutating func number<N: FixedWidthInteger>(for option: String, in range: ClosedRange<N>) throws(CommandFailure) -> N {
        let text = try value(for: option)
        guard let number = N(text), range.contains(number) else {
            throw .usage("\(option) needs a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'", program: program)
        }
        return number
    }

    /// The value of the option just read, as seconds (fractions allowed) in `range`.
    package mutating func seconds(for option: String, in range: ClosedRange<Double>) throws(CommandFailure) -> Duration {
        let text = try value(for: option)
        guard let seconds = Double(text), range.contains(seconds) else {
            throw .usage("\(option) needs a number of seconds from \(range.lowerBound) to \(range.upperBound), not '\(text)'", program: program)
        }
        return .milliseconds(Int64(seconds * 1000))
    }

    /// The failure for an option this command does not know.
    package func unknown(_ option: String) -> CommandFailure {
        .usage("unknown option '\(option)'", program: program)
    }

    /// The failure for an operand this command does not take.
    package func unexpected(_ operand: String) -> CommandFailure {
        .usage("unexpected argument '\(operand)'", program: program)
    }
}
