/// What one run of `core-daemon --trace` says it did, from its log: the revision it recovered,
/// each action it applied (`trace r12 from client ID #5: …`, `trace r13 from effect: …`), each
/// resend it answered with the first revision (`trace duplicate from client ID #5: … already
/// applied at r12 …`), and the revision it stopped at, if it stopped cleanly.
struct CoreTrace {
    struct Applied: Equatable {
        let revision: UInt64
        /// Nil for the core's own actions (effects).
        let client: String?
        let seq: UInt64?
    }

    struct Duplicate: Equatable {
        let client: String
        let seq: UInt64
        let revision: UInt64
    }

    private(set) var recovered: UInt64?
    private(set) var stopped: UInt64?
    private(set) var applied: [Applied] = []
    private(set) var duplicates: [Duplicate] = []

    init(log: String) {
        for line in log.split(separator: "\n") {
            guard let colon = line.firstRange(of: "]: ") else { continue }
            let text = line[colon.upperBound...]
            if text.hasPrefix("trace r"), let applied = Self.applied(text.dropFirst("trace r".count)) {
                self.applied.append(applied)
            } else if text.hasPrefix("trace duplicate from client "), let duplicate = Self.duplicate(text.dropFirst("trace duplicate from client ".count)) {
                duplicates.append(duplicate)
            } else if text.hasPrefix("recovered revision ") {
                recovered = UInt64(text.dropFirst("recovered revision ".count).prefix { $0.isNumber })
            } else if text.hasPrefix("stopped at revision ") {
                stopped = UInt64(text.dropFirst("stopped at revision ".count).prefix { $0.isNumber })
            }
        }
    }

    /// `12 from client ID #5: …` or `13 from effect: …`.
    private static func applied(_ text: Substring) -> Applied? {
        guard let revision = UInt64(text.prefix { $0.isNumber }) else { return nil }
        let rest = text.drop { $0.isNumber }
        if rest.hasPrefix(" from client "), let (client, seq) = clientAndSeq(rest.dropFirst(" from client ".count)) {
            return Applied(revision: revision, client: client, seq: seq)
        }
        return Applied(revision: revision, client: nil, seq: nil)
    }

    /// `ID #5: {…}: already applied at r12; acknowledged again`.
    private static func duplicate(_ text: Substring) -> Duplicate? {
        guard let (client, seq) = clientAndSeq(text),
              let at = text.ranges(of: ": already applied at r").last,
              let revision = UInt64(text[at.upperBound...].prefix { $0.isNumber }) else { return nil }
        return Duplicate(client: client, seq: seq, revision: revision)
    }

    /// `ID #5: …`: the client id (without spaces in this test) and the seq.
    private static func clientAndSeq(_ text: Substring) -> (String, UInt64)? {
        guard let hash = text.firstRange(of: " #") else { return nil }
        let client = String(text[..<hash.lowerBound])
        guard let seq = UInt64(text[hash.upperBound...].prefix { $0.isNumber }) else { return nil }
        return (client, seq)
    }
}

/// What a run's cores applied, all told: each core's trace up to the revision the next core
/// recovered (what a SIGKILL took back before it was written was never told to anyone, and its
/// revisions are given again), and the last core's whole trace (it stopped cleanly). Checked
/// against what the clients were told.
struct AppliedHistory {
    /// client id, then seq: the revision that applied it.
    private(set) var byAction: [String: [UInt64: UInt64]] = [:]
    private(set) var revisions: [UInt64: CoreTrace.Applied] = [:]
    private(set) var last: UInt64 = 0
    private(set) var problems: [String] = []
    private(set) var lostToKills = 0

    init(_ traces: [CoreTrace]) {
        for (index, trace) in traces.enumerated() {
            guard let recovered = trace.recovered else {
                problems.append("core #\(index) logged no 'recovered revision'")
                continue
            }
            if index > 0, let previous = traces[index - 1].recovered, recovered < previous {
                problems.append("core #\(index) recovered r\(recovered), less than core #\(index - 1) had recovered (r\(previous))")
            }
            let committed = index + 1 < traces.count ? traces[index + 1].recovered ?? 0 : UInt64.max
            var next = recovered + 1
            for applied in trace.applied {
                if applied.revision != next {
                    problems.append("core #\(index) applied r\(applied.revision) after r\(next - 1): revisions must go up by one")
                }
                next = applied.revision + 1
                guard applied.revision <= committed else {
                    lostToKills += 1
                    continue
                }
                if let earlier = revisions[applied.revision] {
                    problems.append("r\(applied.revision) was applied twice: \(earlier) and \(applied) (core #\(index))")
                }
                revisions[applied.revision] = applied
                if let client = applied.client, let seq = applied.seq {
                    if let first = byAction[client]?[seq] {
                        problems.append("client \(client) #\(seq) was applied twice: at r\(first) and at r\(applied.revision) (core #\(index))")
                    } else {
                        byAction[client, default: [:]][seq] = applied.revision
                    }
                }
                last = max(last, applied.revision)
            }
            if index + 1 < traces.count, committed > next - 1 {
                problems.append("core #\(index + 1) recovered r\(committed), but core #\(index) applied only up to r\(next - 1)")
            }
            for duplicate in trace.duplicates where duplicate.revision <= committed {
                if let first = byAction[duplicate.client]?[duplicate.seq], first != duplicate.revision {
                    problems.append("core #\(index) answered client \(duplicate.client) #\(duplicate.seq) as a duplicate of r\(duplicate.revision), but it was applied at r\(first)")
                }
            }
        }
        for revision in 1 ..< max(last + 1, 1) where revisions[revision] == nil {
            problems.append("no core applied r\(revision) (revisions must have no gaps)")
            break
        }
    }
}
