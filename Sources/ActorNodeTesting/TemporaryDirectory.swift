import ActorNode
import FoundationEssentials
import Glibc

/// A private temporary directory (`/tmp/cama-unit-XXXXXX`, mode 0700) for tests, removed with
/// everything in it when released, even if a test changed its mode.
package final class TemporaryDirectory {
    package let path: String

    package init() throws {
        var template = Array("/tmp/cama-unit-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw SystemError("mkdtemp") }
        path = String(cString: created)
    }

    deinit {
        chmod(path, 0o700)
        try? FileManager.default.removeItem(atPath: path)
    }
}
