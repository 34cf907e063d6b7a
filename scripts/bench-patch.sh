#!/usr/bin/env bash
# What a shell pays to apply one rendition's patch to its copy of the state, at 10 items and at
# 100,000: a small package in a temporary directory, built in release against this checkout's
# Wire, applies the same one-field patch 2000 times to each document and prints microseconds
# per patch side by side. Run from anywhere: scripts/bench-patch.sh
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/Sources/bench-patch"
cat > "$work/Package.swift" <<SWIFT
// swift-tools-version: 6.0
import PackageDescription
let package = Package(name: "bench-patch", dependencies: [.package(path: "$repo")],
    targets: [.executableTarget(name: "bench-patch", dependencies: [.product(name: "Wire", package: "$(basename "$repo")")])])
SWIFT
cat > "$work/Sources/bench-patch/main.swift" <<'SWIFT'
import Wire

func document(items count: Int) -> JSONValue {
    let items = (0 ..< count).map { JSONValue.object(["id": .integer(Int64($0 + 1)), "done": .bool(false), "text": .string("item")]) }
    return .object(["todo": .object(["items": .array(items), "nextId": .integer(Int64(count + 1))])])
}

let patch: JSONPatch = [.replace(JSONPointer(tokens: ["todo", "items", "5", "done"]), .bool(true))]
var line = "patch applied in place:"
for count in [10, 100_000] {
    var state = document(items: count)
    let rounds = 2000
    let start = ContinuousClock.now
    for _ in 0 ..< rounds { try! state.applyInPlace(patch) }
    let elapsed = ContinuousClock.now - start
    let micros = Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12
    line += "  \(count) items: \((micros / Double(rounds) * 100).rounded() / 100) us"
}
print(line)
SWIFT
swift build -c release --package-path "$work" > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
"$work/.build/release/bench-patch"
