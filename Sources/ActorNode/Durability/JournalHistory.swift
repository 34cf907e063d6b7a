import Wire

/// The applied actions a state directory's journal still holds, read back for `history`: each
/// with its revision, its moment, and who sent it (a client, named by the ``SessionRecord``
/// written before its first action, or the core itself). Generic over no app: actions stay
/// JSON. Read on a thread of its own, never the core's loop; a record cut short at the end (one
/// being written) ends what is read.
package enum JournalHistory {
    /// One action as `history` shows it.
    package struct Item: Sendable, Equatable {
        package var revision: UInt64
        package var at: Double
        package var by: JSONValue
        package var action: JSONValue
    }

    /// The oldest revision whose action the journal holds (the first record of its first
    /// segment), or nil when it holds none.
    /// - Parameter files: the state directory.
    package static func oldestHeld(_ files: StateFiles) -> UInt64? {
        files.journals().first.map { max(1, $0.revision) }
    }

    /// Reads the actions `request` selects, up to revision `last`, in order.
    /// - Parameters:
    ///   - files: the state directory.
    ///   - request: which actions (its `follow` is the caller's business).
    ///   - last: the newest revision to read (what the journal held when asked).
    ///   - emit: called with each item, in order (with `last` set, only the last ones, at
    ///     the end); returns false to stop reading.
    package static func read(_ files: StateFiles, _ request: HistoryRequest, through last: UInt64, emit: (Item) -> Bool) throws(LookBackFailure) {
        if let oldest = oldestHeld(files), let from = request.from, from < oldest, oldest > 1 {
            throw LookBackFailure(.notHeld, "revision \(from) is older than the journal holds: its oldest action is revision \(oldest) (older ones went when snapshots covered them)")
        }
        let from = request.from ?? 1
        let to = min(request.to ?? last, last)
        var sessions: [String: SessionRecord.Session] = [:]
        var highest: UInt64 = 0
        // With `last`: the newest ones seen so far.
        var kept: RingBuffer<Item>? = request.last.map { _ in RingBuffer() }
        let segments = files.journals()
        reading: for (index, segment) in segments.enumerated() {
            let bytes: [UInt8]
            do {
                bytes = try FileIO.read(segment.path)
            } catch {
                throw LookBackFailure(.failed, "\(segment.name) cannot be read: \(error)")
            }
            var offset = 0
            // Zeros after the records (laid out ahead under --fsync always) read as empty
            // records: no record is empty, so the first one ends the segment's records.
            while true {
                let payload: ArraySlice<UInt8>
                switch DurableRecord.scan(bytes, at: offset) {
                case let .record(found, next) where !found.isEmpty:
                    payload = found
                    offset = next
                case .end, .record:
                    continue reading
                case .truncated, .corrupt:
                    // The last segment may end in a record being written; anywhere else a
                    // record that does not read is damage.
                    if index == segments.count - 1 { continue reading }
                    throw LookBackFailure(.failed, "\(segment.name) at offset \(offset): a record is damaged, so the history cannot be read past it; see --check")
                }
                if SessionRecord.isSession(payload) {
                    if let record = try? WireJSON.decode(SessionRecord.self, from: payload) {
                        sessions[record.session.client] = record.session
                    }
                    continue
                }
                guard let entry = try? WireJSON.decode(JournalEntry<JSONValue>.self, from: payload) else {
                    throw LookBackFailure(.failed, "\(segment.name) at offset \(offset - payload.count - DurableRecord.headerLength): a record does not decode; see --check")
                }
                if entry.revision > to { break reading }
                // Revisions only go up: a record that does not (which no core writes) is
                // passed over, as recovery passes over what a snapshot covers.
                guard entry.revision > highest else { continue }
                highest = entry.revision
                guard entry.revision >= from else { continue }
                let session = entry.client.flatMap { sessions[$0] }
                if let wanted = request.client, entry.client != wanted, session?.name != wanted { continue }
                let item = Item(revision: entry.revision, at: entry.at, by: sender(entry, session), action: entry.action)
                if kept != nil, let limit = request.last {
                    kept!.append(item)
                    if kept!.count > limit { _ = kept!.popFirst() }
                } else if !emit(item) {
                    return
                }
            }
        }
        for item in kept?.elements ?? [] where !emit(item) { return }
    }

    /// Who sent an entry: the client as its session record names it, or the core.
    /// - Parameters:
    ///   - entry: the journal's record.
    ///   - session: the client's session record, when the journal still holds one.
    package static func sender(_ entry: JournalEntry<JSONValue>, _ session: SessionRecord.Session?) -> JSONValue {
        guard let client = entry.client else {
            var by: [String: JSONValue] = ["core": .bool(true)]
            if let effect = entry.effect { by["effect"] = .string(effect) }
            if let timer = entry.timer { by["timer"] = .string(timer) }
            return .object(by)
        }
        return sender(client: client, seq: entry.seq, session)
    }

    /// A client sender's `by`.
    /// - Parameters:
    ///   - client: its id.
    ///   - seq: the action's sequence number.
    ///   - session: its session record, when known.
    package static func sender(client: String, seq: UInt64?, _ session: SessionRecord.Session?) -> JSONValue {
        var by: [String: JSONValue] = ["client": .string(client)]
        if let seq { by["seq"] = .integer(Int64(truncatingIfNeeded: seq)) }
        if let session {
            by["name"] = .string(session.name)
            if let pid = session.pid { by["pid"] = .integer(Int64(pid)) }
            if let uid = session.uid { by["uid"] = .integer(Int64(uid)) }
            if let user = session.user { by["user"] = .string(user) }
        }
        return .object(by)
    }
}
