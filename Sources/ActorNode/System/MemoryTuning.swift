import CSystemShims

/// How the process's memory allocator is set up, for a server whose clients may send large
/// frames now and then.
package enum MemoryTuning {
    /// Serves every allocation of `threshold` bytes or more (frames, their decoded text) from
    /// pages of its own that go back to the system as soon as they are freed. Without this,
    /// glibc raises the threshold after the first large frees, and later large buffers are
    /// carved from the heap, where freed memory stays resident: a burst of big frames would
    /// leave the core holding tens of megabytes it no longer uses.
    /// - Parameter threshold: the size from which an allocation gets pages of its own.
    package static func returnLargeBuffersPromptly(threshold: Int = 128 << 10) {
        _ = cama_set_mmap_threshold(Int32(clamping: threshold))
    }
}
