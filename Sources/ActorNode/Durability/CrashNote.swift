import CSystemShims
import FoundationEssentials
import Glibc
import Wire

/// What the core was applying when it crashed, kept in `crash-note` in the state directory so
/// that the next start can refuse it (``Quarantine``).
///
/// Around each input it handles, the engine's thread notes the input (a copy of its bytes into
/// a buffer the thread reuses; the C part in CSystemShims, `crash_note.c`). If the process is ended by
/// the signal of a trap or a fault (SIGILL, SIGTRAP, SIGABRT, SIGFPE, SIGSEGV, SIGBUS) on that
/// thread while a note is open, a handler writes the note as one line of JSON with `write(2)`,
/// syncs it, and lets the signal go on as before (the runtime's backtrace, the core dump). A
/// crash on another thread, or a SIGKILL, leaves no note.
package enum CrashNote {
    /// The note's file in the state directory.
    package static let fileName = "crash-note"

    /// The note as the handler writes it.
    struct Written: Decodable {
        var kind: String
        var signal: Int32
        var client: String?
        var seq: UInt64?
        var bytes: String
    }

    /// Opens the note's file (emptied) and handles the crash signals from now on. Call it once
    /// the previous note was taken (``take(_:now:)``).
    /// - Parameter files: the state directory.
    package static func install(_ files: StateFiles) throws(SystemError) {
        let path = files.path(fileName)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemError("open \(path)") }
        guard cama_crash_note_install(fd) == 0 else {
            let error = SystemError("sigaction")
            close(fd)
            throw error
        }
    }

    /// What a note is about.
    enum Kind {
        /// A client's action: its JSON.
        case action
        /// An effect's or the core's own action: its JSON.
        case own
        /// A whole frame, read the general way.
        case frame

        var code: Int32 {
            switch self {
            case .action: CAMA_CRASH_NOTE_ACTION
            case .own: CAMA_CRASH_NOTE_EFFECT
            case .frame: CAMA_CRASH_NOTE_FRAME
            }
        }
    }

    /// Notes, for the calling thread, the input it is about to handle, until ``end()``. (Not
    /// generic and not isolated: the engine's generic, isolated code calls it without a closure
    /// of its own, which would cost a generic metadata lookup and an isolation check per action.)
    /// - Parameters:
    ///   - kind: what the input is.
    ///   - client: the client's id as JSON text (empty: none).
    ///   - seq: the action's sequence number, for a client's action.
    ///   - bytes: the action's JSON, or the frame.
    static func begin(_ kind: Kind, client: [UInt8], seq: UInt64?, bytes: ArraySlice<UInt8>) {
        client.withUnsafeBufferPointer { id in
            bytes.withUnsafeBufferPointer { input in
                cama_crash_note_push(kind.code, id.baseAddress, id.count, seq ?? 0, seq == nil ? 0 : 1, input.baseAddress, input.count)
            }
        }
    }

    /// Ends the innermost note of the calling thread.
    static func end() {
        cama_crash_note_pop()
    }

    /// Gives the calling thread (the one that applies actions) a signal stack of its own, so
    /// that a stack overflow in a reducer is noted too.
    package static func prepareThread() {
        _ = cama_crash_note_prepare_thread()
    }

    /// Reads what a crash noted, if anything, and empties the note.
    /// - Parameters:
    ///   - files: the state directory.
    ///   - now: the moment, for the entry.
    /// - Returns: the input that crashed the core, as a quarantine entry; nil if there is no
    ///   note. A damaged note (a crash while it was written) gives an entry that matches
    ///   nothing, so that the crash is still reported.
    package static func take(_ files: StateFiles, now: Double) throws(SystemError) -> Quarantine.Entry? {
        let path = files.path(fileName)
        guard let size = FileIO.size(path), size > 0 else { return nil }
        let text = try FileIO.read(path)
        let entry = entry(from: text, at: now)
        try FileIO.truncate(path, to: 0)
        return entry
    }

    /// What a note's text says, as a quarantine entry (one that matches nothing if the note is
    /// damaged: a crash while writing it).
    package static func entry(from text: [UInt8], at now: Double) -> Quarantine.Entry {
        let line = text.split(separator: UInt8(ascii: "\n")).first.map(Array.init) ?? []
        guard let note = try? WireJSON.decode(Written.self, from: line), let bytes = Hexadecimal.bytes(note.bytes) else {
            return Quarantine.Entry(at: now, signal: "an unreadable note", client: nil, seq: nil, action: nil, frame: nil)
        }
        let signal = Signals.name(note.signal)
        switch note.kind {
        case "action", "effect":
            guard let action = try? JSONParser().parse(bytes) else {
                // The action's own text crashed its reading: it is known by its sender alone.
                return Quarantine.Entry(at: now, signal: signal, client: note.client, seq: note.seq, action: nil, frame: nil)
            }
            return Quarantine.Entry(at: now, signal: signal, client: note.client, seq: note.seq, action: action, frame: nil)
        default:
            // A frame read the general way: an action's envelope, most often.
            if case let .action(request)? = try? WireJSON.decode(ClientMessage<JSONValue>.self, from: bytes) {
                return Quarantine.Entry(at: now, signal: signal, client: note.client ?? request.client, seq: request.seq, action: request.action, frame: nil)
            }
            return Quarantine.Entry(at: now, signal: signal, client: note.client, seq: nil, action: nil, frame: Hexadecimal.text(bytes))
        }
    }
}
