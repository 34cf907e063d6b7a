import Glibc

/// A private directory for one run of a target that needs files (``RecoveryTarget``), made
/// under `/dev/shm` when there is one (no disk writes at libFuzzer's pace) and removed whole
/// afterwards.
struct TemporaryStateDirectory {
    let path: String

    /// Makes a new empty directory.
    /// - Throws: a ``FuzzFinding`` if none can be made (the machine, not the input, is at fault;
    ///   it is reported rather than taken for success).
    init() throws(FuzzFinding) {
        let base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
        var template = Array("\(base)/cama-fuzz-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) != nil }) else {
            throw FuzzFinding("cannot make a temporary directory under \(base): errno \(errno)")
        }
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Writes `bytes` as the file `name` in the directory.
    func write(_ bytes: [UInt8], to name: String) throws(FuzzFinding) {
        let fd = open(path + "/" + name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FuzzFinding("cannot create \(path)/\(name): errno \(errno)") }
        defer { close(fd) }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { throw FuzzFinding("cannot write \(path)/\(name): errno \(errno)") }
            written += count
        }
    }

    /// Removes the directory and every file in it.
    func remove() {
        if let handle = opendir(path) {
            while let entry = readdir(handle) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name != ".", name != ".." { unlink(path + "/" + name) }
            }
            closedir(handle)
        }
        rmdir(path)
    }
}
