/// Bytes waiting to be written to a socket or a file, which grow at their end and are let go of
/// from their start: a client's output, a journal's records not yet written.
///
/// Unlike an array, it hands out its spare room to be written in place
/// (``appendWritten(atMost:_:)``): an ack or a journal record is written straight where it goes,
/// where an array takes it from a buffer of its own in one more copy, with its checks of
/// uniqueness and capacity (callgrind: about 170 instructions for each, two of them an action).
///
/// Not copyable: it owns its memory, which it frees when it goes, and it is only ever changed in
/// place by its one owner.
package struct ByteBuffer: ~Copyable {
    private var storage: UnsafeMutablePointer<UInt8>?
    /// How many bytes it holds.
    package private(set) var count = 0
    /// How many it can hold before it grows.
    package private(set) var capacity = 0

    /// An empty buffer (it allocates at its first append).
    package init() {}

    deinit {
        storage?.deallocate()
    }

    package var isEmpty: Bool { count == 0 }

    /// Makes room for `more` bytes after the last one.
    private mutating func reserve(_ more: Int) {
        let needed = count + more
        guard needed > capacity else { return }
        var grown = Swift.max(capacity, 256)
        while grown < needed { grown *= 2 }
        let new = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        if let storage {
            new.initialize(from: storage, count: count)
            storage.deallocate()
        }
        storage = new
        capacity = grown
    }

    /// Appends bytes.
    /// - Parameter bytes: the bytes.
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        reserve(bytes.count)
        UnsafeMutableRawPointer(storage! + count).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        count += bytes.count
    }

    /// Appends an array's bytes.
    /// - Parameter bytes: the bytes.
    package mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// Appends what `body` writes through a cursor, at most `maximum` bytes, in place.
    /// - Parameters:
    ///   - maximum: the most bytes `body` may write (a write past them traps).
    ///   - body: writes the text.
    package mutating func appendWritten(atMost maximum: Int, _ body: (inout ByteCursor) -> Void) {
        reserve(maximum)
        // No storage yet only when no room was asked for (`maximum` 0): the cursor is empty.
        var cursor = ByteCursor(UnsafeMutableBufferPointer(start: storage.map { $0 + count }, count: maximum))
        body(&cursor)
        count += cursor.count
    }

    /// The bytes held, for a system call to write them: valid until the buffer next changes
    /// (and while it lives), so it is passed on at once, never kept. (Not a method that takes a
    /// closure: a generic one is not specialized in the modules that call it, and ran through
    /// generic code at every write.)
    package var unsafeBytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: storage, count: count)
    }

    /// Lets go of the first `length` bytes; the rest move to the start.
    /// - Parameter length: how many, at most ``count``.
    package mutating func removeFirst(_ length: Int) {
        precondition(length >= 0 && length <= count, "removing \(length) of \(count) bytes")
        guard length > 0 else { return }
        if length < count {
            UnsafeMutableRawPointer(storage!).copyMemory(from: storage! + length, byteCount: count - length)
        }
        count -= length
    }

    /// Lets go of every byte.
    /// - Parameter keepingCapacity: whether the memory is kept for what comes next (else it is
    ///   freed, as after a large burst).
    package mutating func removeAll(keepingCapacity: Bool) {
        count = 0
        if !keepingCapacity, let storage {
            storage.deallocate()
            self.storage = nil
            capacity = 0
        }
    }
}
