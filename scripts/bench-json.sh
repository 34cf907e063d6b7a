#!/usr/bin/env bash
# JSON codec benchmark: encodes and decodes a typical action envelope and an AppState of
# 10,000 items ITERATIONS times each, with Foundation's JSONEncoder/JSONDecoder (configured as
# the wire used to) and with WireJSON, in a release build, and prints the two side by side.
# It first checks that both write the same bytes.
#
# The benchmark is a throwaway package in a temporary directory that depends on this one by
# path, so that nothing of it is part of CAMA. The first run builds it (a minute or two).
#
# Usage: scripts/bench-json.sh [ITERATIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
iterations="${1:-1000}"
repository="$PWD"
work="$(mktemp -d /tmp/cama-bench-json-XXXXXX)"
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/Sources/bench-json"
cat > "$work/Package.swift" << EOF
// swift-tools-version: 6.0
import PackageDescription
let package = Package(
    name: "bench-json",
    dependencies: [.package(path: "$repository")],
    targets: [.executableTarget(name: "bench-json", dependencies: [.product(name: "Wire", package: "$(basename "$repository")")])]
)
EOF
cat > "$work/Sources/bench-json/main.swift" << 'EOF'
import FoundationEssentials
import Wire

let iterations = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 1000

let envelope = ClientMessage<AppAction>.action(ActionRequest(
    client: "6F9619FF-8B86-D011-B42D-00CF4FC964FF", seq: 42, action: .todo(.add(text: "buy milk"))))
let state = AppState(
    todo: TodoState(items: (1 ... 10_000).map { TodoItem(id: $0, text: "item number \($0)", done: $0 % 3 == 0, pomodoros: $0 % 5) }, nextId: 10_001),
    counter: CounterState(value: 7),
    timer: TimerState(item: 3, running: true, remaining: 1497, deadline: 1_767_227_100.25))

let foundationEncoder = JSONEncoder()
foundationEncoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
let foundationDecoder = JSONDecoder()

/// Seconds per operation, after one warm-up call.
func secondsPerOperation(_ body: () throws -> Int) rethrows -> Double {
    var sink = try body()
    let clock = ContinuousClock()
    let start = clock.now
    for _ in 0 ..< iterations { sink &+= try body() }
    let elapsed = clock.now - start
    precondition(sink != Int.min)
    let (seconds, attoseconds) = elapsed.components
    return (Double(seconds) + Double(attoseconds) * 1e-18) / Double(iterations)
}

/// `x` with one decimal.
func oneDecimal(_ x: Double) -> String {
    let tenths = Int((x * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
}

func row(_ label: String, foundation: Double, wire: Double) {
    func time(_ seconds: Double) -> String {
        let text = seconds < 1e-3 ? oneDecimal(seconds * 1e6) + " µs" : oneDecimal(seconds * 1e3) + " ms"
        return String(repeating: " ", count: max(0, 11 - text.count)) + text
    }
    print(label + String(repeating: " ", count: max(0, 24 - label.count)) + time(foundation) + "   " + time(wire) + "   " + oneDecimal(foundation / wire) + "×")
}

let envelopeBytes = Array(try foundationEncoder.encode(envelope))
let stateBytes = Array(try foundationEncoder.encode(state))
let (wireEnvelopeBytes, wireStateBytes) = (try WireJSON.encode(envelope), try WireJSON.encode(state))
precondition(wireEnvelopeBytes == envelopeBytes && wireStateBytes == stateBytes, "Foundation and WireJSON wrote different bytes")
let envelopeData = Data(envelopeBytes)
let stateData = Data(stateBytes)

print("\(iterations) iterations; envelope \(envelopeBytes.count) bytes, state \(stateBytes.count) bytes; per operation:")
print("                         Foundation    WireJSON   speed-up")
row("envelope encode",
    foundation: try secondsPerOperation { try foundationEncoder.encode(envelope).count },
    wire: try secondsPerOperation { try WireJSON.encode(envelope).count })
row("envelope decode",
    foundation: try secondsPerOperation { if case let .action(request) = try foundationDecoder.decode(ClientMessage<AppAction>.self, from: envelopeData) { Int(request.seq) } else { 0 } },
    wire: try secondsPerOperation { if case let .action(request) = try WireJSON.decode(ClientMessage<AppAction>.self, from: envelopeBytes) { Int(request.seq) } else { 0 } })
row("state encode",
    foundation: try secondsPerOperation { try foundationEncoder.encode(state).count },
    wire: try secondsPerOperation { try WireJSON.encode(state).count })
row("state decode",
    foundation: try secondsPerOperation { try foundationDecoder.decode(AppState.self, from: stateData).todo.items.count },
    wire: try secondsPerOperation { try WireJSON.decode(AppState.self, from: stateBytes).todo.items.count })
EOF

swift build -c release --package-path "$work" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
"$(swift build -c release --package-path "$work" --show-bin-path)/bench-json" "$iterations"
