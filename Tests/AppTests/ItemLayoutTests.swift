import Testing
import TodoContract

/// A to-do item has no padding between its fields: an item copied unchanged (into a list's
/// changed chunk) keeps its bytes, and the diff finds it unchanged by them without asking `==`
/// (docs/APPS.md, "Long lists").
@Suite("Item layout")
struct ItemLayoutTests {
    @Test("an item copied unchanged keeps every byte the diff compares")
    func copiesKeepTheirBytes() {
        #expect(MemoryLayout<TodoItem>.size == MemoryLayout<Int>.size + MemoryLayout<String>.size + MemoryLayout<Int32>.size + MemoryLayout<Bool>.size)
        // And 32 bytes a place in a list: the size rounded up to the alignment of an Int.
        #expect(MemoryLayout<TodoItem>.stride == 32)
        var items = (1 ... 1000).map { TodoItem(id: $0, text: "item", pomodoros: Int32($0 % 3)) }
        for round in 1 ... 3 {
            let old = items
            // Memory handed back dirty, as in a core that has run a while: the copy's storage
            // may come from it.
            Self.dirtyFreedMemory(with: UInt8(0x35 * round))
            items[round].done.toggle()
            let same = old.withUnsafeBytes { before in
                items.withUnsafeBytes { after in
                    (0 ..< old.count).filter { index in
                        let start = index * MemoryLayout<TodoItem>.stride
                        return before[start ..< start + MemoryLayout<TodoItem>.size].elementsEqual(after[start ..< start + MemoryLayout<TodoItem>.size])
                    }.count
                }
            }
            #expect(same == old.count - 1, "\(old.count - 1 - same) unchanged items differ in their bytes")
        }
    }

    /// Allocates blocks of many sizes filled with `byte` and frees them.
    private static func dirtyFreedMemory(with byte: UInt8) {
        var blocks: [UnsafeMutableRawPointer] = []
        for size in stride(from: 32 * 1024, through: 64 * 1024, by: 256) {
            let block = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
            block.initializeMemory(as: UInt8.self, repeating: byte, count: size)
            blocks.append(block)
        }
        for block in blocks.reversed() { block.deallocate() }
    }
}
