import FoundationEssentials
import Glibc
import Wire

/// The inputs that crashed the core, refused from then on (principle 8: one poisoned input
/// costs at most one crash).
///
/// Swift cannot catch a trap: an app's reducer that overflows, indexes out of range or unwraps
/// a nil on some action ends the process. The core notes what it is applying where a handler of
/// the crash's signal can write it (``CrashNote``); the next start reads the note and adds the
/// input here. From then on a client's action that matches an entry (the same client and
/// sequence number, or the same action from anyone) is answered `reject` `crashed_core` and not
/// applied; an effect's action that matches is dropped; and a frame that crashed the core
/// before its action could be read is refused with an `error` `crashed_core`. A shell that
/// resends what it was never answered therefore gets one crash, then a reject, and the core
/// serves on.
///
/// Kept in `quarantine.jsonl` in the state directory, one entry per line, the newest
/// ``limit`` of them. Removing the file (once the app is fixed) lets them in again.
package struct Quarantine: Sendable, Equatable {
    /// One input that crashed the core.
    package struct Entry: Codable, Sendable, Equatable {
        /// When the crash was noticed (the next start), in seconds since 1970.
        package var at: Double
        /// The signal that ended the core ("SIGILL").
        package var signal: String
        /// The client whose input it was; nil for an effect's or the core's own action, or a
        /// frame read before its client said hello.
        package var client: String?
        /// The client's sequence number for the action.
        package var seq: UInt64?
        /// The action, as JSON; nil for a frame that could not be read as an action.
        package var action: JSONValue?
        /// The frame's bytes, in hexadecimal, when the input could not be read as an action.
        package var frame: String?

        /// - Parameters:
        ///   - at: when the crash was noticed.
        ///   - signal: the signal's name.
        ///   - client: whose input it was, if a client's.
        ///   - seq: its sequence number, if a client's action.
        ///   - action: the action, if it could be read.
        ///   - frame: the raw bytes (hexadecimal), if it could not.
        package init(at: Double, signal: String, client: String?, seq: UInt64?, action: JSONValue?, frame: String?) {
            self.at = at
            self.signal = signal
            self.client = client
            self.seq = seq
            self.action = action
            self.frame = frame
        }

        /// One line for logs and `--check`: what it was, and whose.
        package var summary: String {
            var what: String
            if let action {
                let text = (try? WireJSON.encode(action)).map { String(decoding: $0, as: UTF8.self) } ?? "an action"
                what = "action \(PeerText.forLog(String(text.prefix(200))))"
            } else {
                what = "a frame of \((frame?.count ?? 0) / 2) bytes"
            }
            if let client {
                what += " from client \(PeerText.forLog(client))"
                if let seq { what += " #\(seq)" }
            } else if action != nil {
                what += " of the core's own (an effect's)"
            }
            return what
        }
    }

    /// The newest entries kept.
    package static let limit = 64
    /// The file's name in the state directory.
    package static let fileName = "quarantine.jsonl"

    /// Oldest first.
    package private(set) var entries: [Entry] = []
    private var frames: Set<[UInt8]> = []

    package init(entries: [Entry] = []) {
        for entry in entries.suffix(Self.limit) { add(entry) }
    }

    /// Whether nothing is refused (then the core checks nothing per action).
    package var isEmpty: Bool { entries.isEmpty }

    /// Whether a frame is one that crashed the core before its action could be read.
    package var refusesFrames: Bool { !frames.isEmpty }

    /// The entry a client's action matches: the same client and sequence number, or the same
    /// action, from any client.
    /// - Parameters:
    ///   - client: the client's id (from its hello).
    ///   - seq: the action's sequence number.
    ///   - action: the action, as JSON.
    package func entry(client: String, seq: UInt64, action: JSONValue) -> Entry? {
        entries.last { ($0.client == client && $0.seq == seq) || $0.action == action }
    }

    /// The entry an action of the core's own matches: the same action.
    /// - Parameter action: the action, as JSON.
    package func entry(ownAction action: JSONValue) -> Entry? {
        entries.last { $0.action == action }
    }

    /// Whether `frame` is a frame that crashed the core before its action could be read.
    /// - Parameter frame: a frame's payload.
    package func refuses(frame: [UInt8]) -> Bool {
        frames.contains(frame)
    }

    /// Adds an entry, forgetting the oldest past ``limit``.
    /// - Parameter entry: the input that crashed the core.
    package mutating func add(_ entry: Entry) {
        entries.append(entry)
        if entries.count > Self.limit { entries.removeFirst(entries.count - Self.limit) }
        frames = Set(entries.compactMap { $0.frame.flatMap(Hexadecimal.bytes) })
    }

    /// Reads the quarantine of a state directory (empty if there is none). A line that cannot
    /// be read is skipped and reported in `notes`.
    /// - Parameter files: the state directory.
    package static func load(_ files: StateFiles) -> (quarantine: Quarantine, notes: [String]) {
        let path = files.path(fileName)
        guard FileIO.size(path) != nil else { return (Quarantine(), []) }
        let bytes: [UInt8]
        do {
            bytes = try FileIO.read(path)
        } catch {
            return (Quarantine(), ["cannot read \(fileName): \(error); no input is refused for having crashed the core"])
        }
        var entries: [Entry] = []
        var notes: [String] = []
        for (number, line) in bytes.split(separator: UInt8(ascii: "\n")).enumerated() {
            do {
                entries.append(try WireJSON.decode(Entry.self, from: Array(line)))
            } catch {
                notes.append("\(fileName) line \(number + 1) is not an entry (\(error)); skipped")
            }
        }
        return (Quarantine(entries: entries), notes)
    }

    /// Writes the quarantine to its file, replacing it whole.
    /// - Parameter files: the state directory.
    package func save(_ files: StateFiles) throws(SystemError) {
        var text: [UInt8] = []
        for entry in entries {
            // An entry encodes: every field is a string, a number or a JSON value read from
            // text, none of which can fail.
            text += (try? WireJSON.encode(entry)) ?? []
            text.append(UInt8(ascii: "\n"))
        }
        try FileIO.writeAtomically(files.path(Self.fileName), text)
    }
}

/// Bytes as hexadecimal text, for bytes that may not be text.
package enum Hexadecimal {
    /// The bytes written as text (`"7b22"`), or nil if it is not an even number of hex digits.
    package static func bytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    /// `bytes` as hexadecimal text.
    package static func text(_ bytes: some Collection<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0") ... UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a") ... UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A") ... UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
