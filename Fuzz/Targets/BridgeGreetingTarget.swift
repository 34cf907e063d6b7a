import Wire

/// `bridge-greeting`: ``BridgeGreeting/read(_:)``, what a client over ssh makes of the first
/// bytes from the far side, against a plain reference: the first line, if it comes within
/// ``BridgeGreeting/longest`` bytes, is a greeting exactly when it is `cama-bridge ` and at most
/// 9 digits; only a greeting takes bytes (the line and its newline); the same answer for the
/// input cut anywhere after that line.
public enum BridgeGreetingTarget: FuzzTarget {
    public static let name = "bridge-greeting"
    public static let summary = "BridgeGreeting.read agrees with a plain reading of the first line, and takes only a greeting's bytes"

    public static func check(_ input: [UInt8]) throws(FuzzFinding) {
        let (reading, consumed) = BridgeGreeting.read(input)
        let expected = reference(input)
        guard reading == expected.0, consumed == expected.1 else {
            throw FuzzFinding("read says \(reading) taking \(consumed), the reference \(expected.0) taking \(expected.1)")
        }
        // More bytes after a whole line change nothing.
        if case .incomplete = reading { return }
        if let end = input.firstIndex(of: 10), end < BridgeGreeting.longest {
            let (again, taken) = BridgeGreeting.read(input[...end])
            guard again == reading, taken == consumed else {
                throw FuzzFinding("the line alone reads as \(again) taking \(taken), with what follows as \(reading) taking \(consumed)")
            }
        }
    }

    private static func reference(_ input: [UInt8]) -> (BridgeGreeting.Reading, Int) {
        guard let end = input.prefix(BridgeGreeting.longest + 1).firstIndex(of: 10) else {
            if input.count > BridgeGreeting.longest {
                return (.noise(String(decoding: input.prefix(BridgeGreeting.longest), as: UTF8.self)), 0)
            }
            return (.incomplete, 0)
        }
        let line = Array(input[..<end])
        let text = String(decoding: line, as: UTF8.self)
        let head = Array("cama-bridge ".utf8)
        if line.count > head.count, line.count <= head.count + 9, Array(line.prefix(head.count)) == head,
           line.dropFirst(head.count).allSatisfy({ (48 ... 57).contains($0) }), let version = Int(String(decoding: line.dropFirst(head.count), as: UTF8.self)) {
            return (.greeting(protocolVersion: version), end + 1)
        }
        return (.noise(text), 0)
    }
}
