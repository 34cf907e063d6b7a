// The libFuzzer entry of `cama-fuzz`, the one binary that holds every fuzz target. It is no
// SwiftPM target: scripts/fuzz.sh compiles it with the sanitizers, together with Wire,
// ActorNode and FuzzTargets, and libFuzzer supplies `main`.

import FuzzTargets
import Glibc

/// The target named by the environment variable `CAMA_FUZZ_TARGET`, looked up once (a global
/// constant is initialized once, on first use, by any thread).
private let selectedTarget: (any FuzzTarget.Type)? = FuzzTargetRegistry.target(named: targetName)

/// The name in `CAMA_FUZZ_TARGET`, or "" when it is not set.
private let targetName = getenv("CAMA_FUZZ_TARGET").map { String(cString: $0) } ?? ""

/// Picks the target named by the environment variable `CAMA_FUZZ_TARGET`; an unknown or
/// missing name is said, with the names there are, and ends the process with status 2. With
/// `CAMA_FUZZ_LIST` set it prints each target's name and summary (tab-separated) instead and
/// ends with status 0: that is how `scripts/fuzz.sh --list` learns them.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    if getenv("CAMA_FUZZ_LIST") != nil {
        print(FuzzTargetRegistry.listing, terminator: "")
        exit(0)
    }
    guard selectedTarget != nil else {
        let known = FuzzTargetRegistry.names.joined(separator: ", ")
        say("cama-fuzz: unknown target '\(targetName)' in CAMA_FUZZ_TARGET (targets: \(known))")
        exit(2)
    }
    return 0
}

/// Runs one input through the selected target. A finding is printed and the process aborts,
/// so that libFuzzer saves the input as a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let target = selectedTarget else { return 0 }
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    do {
        try target.check(input)
    } catch {
        say("cama-fuzz: \(target.name): FINDING: \(error)")
        abort()
    }
    return 0
}

/// Writes a line to the standard error, in one write.
private func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
