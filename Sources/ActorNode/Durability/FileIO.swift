import Glibc

/// Blocking file operations for durability. They are called from threads of their own (the
/// journal's, the snapshot writer's) or at startup, never from the cooperative pool while
/// serving.
package enum FileIO {
    /// The whole content of a file.
    package static func read(_ path: String) throws(SystemError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open \(path)") }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError("read \(path)")
            }
            if count == 0 { return bytes }
            bytes += chunk[0 ..< count]
        }
    }

    /// Writes all of `bytes` to `fd`.
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8], what: String) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw SystemError("write \(what)")
            }
            offset += written
        }
    }

    /// Writes all of `bytes` to `fd` at `offset` (the file's position is not used or moved).
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8], at offset: Int, what: String) throws(SystemError) {
        // (An array's `withUnsafeBytes` rethrows untyped errors: the failure is carried out.)
        var failure: SystemError?
        bytes.withUnsafeBytes { raw in
            do throws(SystemError) {
                try writeAll(fd, raw, at: offset, what: what)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// ``writeAll(_:_:at:what:)-([UInt8])`` of bytes held elsewhere.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int, what: String) throws(SystemError) {
        var done = 0
        while done < bytes.count {
            let written = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if written < 0 {
                if errno == EINTR { continue }
                throw SystemError("write \(what)")
            }
            done += written
        }
    }

    /// Flushes a file's data to disk.
    package static func sync(_ fd: Int32, what: String) throws(SystemError) {
        guard fdatasync(fd) == 0 else { throw SystemError("fdatasync \(what)") }
    }

    /// Makes a directory's entries (new, renamed, removed files) durable.
    package static func syncDirectory(_ path: String) throws(SystemError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open \(path)") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw SystemError("fsync \(path)") }
    }

    /// Replaces `path` with `bytes` so that a crash leaves either the old file or the new one,
    /// never a mix: write a temporary file, sync it, rename it over, sync the directory.
    package static func writeAtomically(_ path: String, _ bytes: [UInt8]) throws(SystemError) {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemError("open \(temporary)") }
        do {
            try writeAll(fd, bytes, what: temporary)
            try sync(fd, what: temporary)
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let error = SystemError("rename \(temporary)")
            unlink(temporary)
            throw error
        }
        try syncDirectory(PathName.directory(of: path))
    }

    /// Cuts a file down to `length` bytes, durably.
    package static func truncate(_ path: String, to length: Int) throws(SystemError) {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open \(path)") }
        defer { close(fd) }
        guard ftruncate(fd, off_t(length)) == 0 else { throw SystemError("truncate \(path)") }
        try sync(fd, what: path)
    }

    /// The size of a file, or nil if it does not exist.
    package static func size(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }

    /// When the file at `path` was last written, in seconds since 1970, or nil when it cannot
    /// be examined.
    package static func modified(_ path: String) -> Double? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9
    }
}
