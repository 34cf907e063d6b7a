import Testing
@testable import ActorNode
import Wire

@Suite("Durable records")
struct DurableRecordTests {
    @Test("CRC-32C matches the standard check value, and the definition at every length and alignment, by the CPU's instruction and by the tables")
    func checksum() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([]) == 0)
        #expect(Array("123456789".utf8).withUnsafeBytes { CRC32C.tableChecksum($0) } == 0xE306_9283)
        // Eight bytes at a time: every length and alignment agrees with a byte at a time.
        var random = SystemRandomNumberGenerator()
        let bytes = (0 ..< 300).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
        for start in 0 ..< 9 {
            for end in start ... bytes.count {
                let expected = Self.bytewise(bytes[start ..< end])
                #expect(CRC32C.checksum(bytes[start ..< end]) == expected)
                #expect(bytes[start ..< end].withUnsafeBytes { CRC32C.tableChecksum($0) } == expected)
            }
        }
    }

    /// CRC-32C a byte at a time, as the definition goes.
    private static func bytewise(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0 ..< 8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    @Test("a record is length, checksum, payload; scanning finds each in turn")
    func scanning() {
        let bytes = DurableRecord.encode(Array("first".utf8)) + DurableRecord.encode(Array("second".utf8))
        guard case let .record(first, next) = DurableRecord.scan(bytes, at: 0) else { Issue.record("no first record"); return }
        #expect(Array(first) == Array("first".utf8))
        guard case let .record(second, end) = DurableRecord.scan(bytes, at: next) else { Issue.record("no second record"); return }
        #expect(Array(second) == Array("second".utf8))
        #expect(DurableRecord.scan(bytes, at: end) == .end)
    }

    @Test("a record cut short is truncated; a flipped bit is corrupt")
    func damage() {
        let record = DurableRecord.encode(Array("payload".utf8))
        #expect(DurableRecord.scan(Array(record.prefix(5)), at: 0) == .truncated(available: 5, needed: 8))
        #expect(DurableRecord.scan(Array(record.dropLast(2)), at: 0) == .truncated(available: record.count - 2, needed: record.count))
        var flipped = record
        flipped[10] ^= 0x01
        #expect(DurableRecord.scan(flipped, at: 0) == .corrupt("checksum mismatch"))
        #expect(DurableRecord.scan([0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0], at: 0) != .end)
    }
}

@Suite("Client ledger")
struct ClientLedgerTests {
    @Test("a seen (client, seq) is answered with its revision; a new one is new")
    func verdicts() {
        var ledger = ClientLedger()
        #expect(ledger.verdict(client: "a", seq: 1) == .new)
        ledger.record(client: "a", seq: 1, revision: 10)
        ledger.record(client: "a", seq: 2, revision: 12)
        #expect(ledger.verdict(client: "a", seq: 1) == .applied(revision: 10))
        #expect(ledger.verdict(client: "a", seq: 2) == .applied(revision: 12))
        #expect(ledger.verdict(client: "a", seq: 3) == .new)
        #expect(ledger.verdict(client: "b", seq: 1) == .new)
        // A seq below the first one applied was never applied (rejected): nothing is forgotten
        // yet, so it is new, not stale.
        ledger.record(client: "c", seq: 2, revision: 13)
        #expect(ledger.verdict(client: "c", seq: 1) == .new)
        // With its window full, still nothing is forgotten; once seq 2 is let go of, seq 1
        // might have been applied before it, for all the ledger can tell.
        for seq in UInt64(3) ... UInt64(ClientLedger.recentLimit + 1) { ledger.record(client: "c", seq: seq, revision: seq + 20) }
        #expect(ledger.verdict(client: "c", seq: 1) == .new)
        ledger.record(client: "c", seq: UInt64(ClientLedger.recentLimit + 2), revision: 5000)
        #expect(ledger.verdict(client: "c", seq: 1) == .forgotten)
        #expect(ledger.verdict(client: "c", seq: 2) == .forgotten)
        #expect(ledger.verdict(client: "c", seq: 3) == .applied(revision: 23))
    }

    @Test("exactly the last 1024 are remembered; an older seq is reported as forgotten, not applied again")
    func window() throws {
        var ledger = ClientLedger()
        let last = UInt64(2 * ClientLedger.recentLimit + 10)
        for seq in UInt64(1) ... last {
            ledger.record(client: "a", seq: seq, revision: seq + 100)
            let oldest = seq > UInt64(ClientLedger.recentLimit) ? seq - UInt64(ClientLedger.recentLimit) + 1 : 1
            guard ledger.verdict(client: "a", seq: oldest) == .applied(revision: oldest + 100),
                  oldest == 1 || ledger.verdict(client: "a", seq: oldest - 1) == .forgotten else {
                Issue.record("after seq \(seq), the window does not start at \(oldest)")
                return
            }
        }
        #expect(ledger.verdict(client: "a", seq: last) == .applied(revision: last + 100))
        #expect(ledger.clients["a"]!.recent.map(\.seq) == Array(last - UInt64(ClientLedger.recentLimit) + 1 ... last))
        // Written and read back (a snapshot) it is the same ledger, in the same JSON.
        let json = try WireJSON.encode(ledger)
        let read = try WireJSON.decode(ClientLedger.self, from: json)
        #expect(read == ledger)
        #expect(try WireJSON.encode(read) == json)
        #expect(read.verdict(client: "a", seq: last - UInt64(ClientLedger.recentLimit)) == .forgotten)
    }

    @Test("PROTOCOL's example: after seqs 1 to 1029, seq 5 is stale and seq 6 gets its original ack")
    func protocolExample() {
        var ledger = ClientLedger()
        for seq in UInt64(1) ... 1029 { ledger.record(client: "9c1d7e2a-retry", seq: seq, revision: seq) }
        #expect(ledger.verdict(client: "9c1d7e2a-retry", seq: 5) == .forgotten)
        #expect(ledger.verdict(client: "9c1d7e2a-retry", seq: 6) == .applied(revision: 6))
    }

    @Test("a ledger written with more than 1024 for a client (an earlier version) keeps the newest 1024")
    func olderLedger() throws {
        let recent = (1 ... 1500).map { #"{"revision":\#($0),"seq":\#($0)}"# }.joined(separator: ",")
        let json = #"{"clients":{"a":{"lastSeq":1500,"recent":[\#(recent)],"touched":1500}},"clock":1500}"#
        let ledger = try WireJSON.decode(ClientLedger.self, from: Array(json.utf8))
        #expect(ledger.verdict(client: "a", seq: 476) == .forgotten)
        #expect(ledger.verdict(client: "a", seq: 477) == .applied(revision: 477))
    }

    @Test("asked by place (the id hashed once), the ledger answers and records as it does by id")
    func byPlace() {
        var byID = ClientLedger()
        var byPlace = ClientLedger()
        var random = SystemRandomNumberGenerator()
        for step in UInt64(1) ... 3000 {
            let client = "c\(Int.random(in: 0 ..< 5, using: &random))"
            let seq = UInt64.random(in: 1 ... 1200, using: &random)
            let place = byPlace.place(of: client)
            #expect(byPlace.verdict(at: place, seq: seq) == byID.verdict(client: client, seq: seq))
            guard byID.verdict(client: client, seq: seq) == .new else { continue }
            byID.record(client: client, seq: seq, revision: step)
            byPlace.record(client: client, seq: seq, revision: step, at: place)
        }
        #expect(byPlace == byID)
    }

    @Test("a place remembered per client stays right while clients come and go (the table grows, the idlest are forgotten)")
    func rememberedPlace() {
        var byID = ClientLedger()
        var byPlace = ClientLedger()
        var remembered: [String: ClientLedger.Place?] = [:]
        var random = SystemRandomNumberGenerator()
        var newcomers = 0
        for step in UInt64(1) ... 12_000 {
            // Five busy clients, and a newcomer every other step: past clientLimit, the idlest
            // newcomers are forgotten, and the table is rebuilt as it grows.
            let client: String
            if step % 2 == 0 {
                newcomers += 1
                client = "new\(newcomers)"
            } else {
                client = "busy\(Int.random(in: 0 ..< 5, using: &random))"
            }
            let seq = UInt64.random(in: 1 ... 40, using: &random)
            var place = remembered[client] ?? nil
            let index = byPlace.place(of: client, remembered: &place)
            remembered[client] = place
            #expect(index == byPlace.place(of: client))
            #expect(byPlace.verdict(at: index, seq: seq) == byID.verdict(client: client, seq: seq))
            guard byID.verdict(client: client, seq: seq) == .new else { continue }
            byID.record(client: client, seq: seq, revision: step)
            byPlace.record(client: client, seq: seq, revision: step, at: index)
        }
        #expect(byPlace.clients.count == ClientLedger.clientLimit)
        #expect(byPlace == byID)
    }

    @Test("the ledger remembers a bounded number of clients, forgetting the idlest")
    func clientLimit() {
        var ledger = ClientLedger()
        for index in 0 ... ClientLedger.clientLimit {
            ledger.record(client: "c\(index)", seq: 1, revision: UInt64(index + 1))
        }
        #expect(ledger.clients.count == ClientLedger.clientLimit)
        #expect(ledger.clients["c0"] == nil)
        #expect(ledger.verdict(client: "c\(ClientLedger.clientLimit)", seq: 1) != .new)
    }
}

@Suite("Exactly once in the store's kernel")
struct ExactlyOnceTests {
    @Test("a resent (client, seq) is not applied again and gets its original revision")
    func resend() {
        let kernel = StoreKernel(state: 0, reducer: probeReducer, environment: ProbeEnvironment(time: TestTime()), time: TestTime())
        guard case let .applied(first) = kernel.apply(.got(5), from: .client(id: "c", seq: 1)) else {
            Issue.record("not applied")
            return
        }
        _ = kernel.apply(.got(1), from: .outside(nil))
        guard case let .duplicate(revision) = kernel.apply(.got(5), from: .client(id: "c", seq: 1)) else {
            Issue.record("a resend was applied again")
            return
        }
        #expect(revision == first)
        #expect(kernel.state == 6)
        #expect(kernel.revision == 2)
    }
}
