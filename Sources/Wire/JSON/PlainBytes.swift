/// Runs of plain text in JSON, tested eight bytes at a time: printable ASCII (0x20 to 0x7E)
/// that is neither a quote nor a backslash, which a string reader passes over without a look
/// at each byte (a client id, a key, a word of an action). The readers then go on byte by byte
/// from where the run ends.
enum PlainBytes {
    /// Whether each of the eight bytes of `word` is plain.
    @inline(__always)
    static func allPlain(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        // A byte's high bit is set in each of these where the byte is below 0x20, above 0x7E,
        // a quote, or a backslash (the usual "has a zero byte" test, on word XOR the byte).
        let below = (word &- ones &* 0x20) & ~word
        let above = (word &+ ones &* 0x01) | word
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let isQuote = (quote &- ones) & ~quote
        let isBackslash = (backslash &- ones) & ~backslash
        return (below | above | isQuote | isBackslash) & highs == 0
    }

    /// Where the run of whole plain eight-byte words from `start` ends: `start` plus a multiple
    /// of eight, at most `bytes.count` (every byte before it is plain; the word there is not,
    /// or fewer than eight bytes are left).
    /// - Parameters:
    ///   - bytes: the text.
    ///   - start: where to start, in `0...bytes.count`.
    @inline(__always)
    static func endOfPlainWords(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = bytes.baseAddress else { return start }
        let raw = UnsafeRawPointer(base)
        var index = start
        while bytes.count - index >= 8, allPlain(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
            index += 8
        }
        return index
    }
}
