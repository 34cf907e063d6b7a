// swift-tools-version: 6.0
//
// CAMA: the Clean Actor Model Architecture as a multi-process system.
// No package dependencies: the toolchain only.

import PackageDescription

let package = Package(
    name: "cama",
    products: [
        .executable(name: "core-daemon", targets: ["CoreDaemon"]),
        .executable(name: "shell-client", targets: ["ShellClient"]),
        .executable(name: "cama-launch", targets: ["cama-launch"]),
        .executable(name: "cama-bench", targets: ["cama-bench"]),
        .executable(name: "chat-core", targets: ["ChatCore"]),
        .executable(name: "chat-shell", targets: ["ChatShell"]),
        .executable(name: "poll-core", targets: ["PollCore"]),
        .executable(name: "poll-shell", targets: ["PollShell"]),
        .library(name: "Wire", targets: ["Wire"]),
        .library(name: "ActorNode", targets: ["ActorNode"]),
        .library(name: "ActorNodeTesting", targets: ["ActorNodeTesting"]),
    ],
    targets: [
        // Linux system calls the Glibc module does not export (epoll, eventfd, SO_PEERCRED, prctl).
        .target(name: "CSystemShims"),
        // What crosses the socket, for any app: frames, the protocol envelope, JSON values and patches.
        // Its number formatting uses the C math library, which a program that links no
        // Foundation would otherwise miss.
        .target(name: "Wire", linkerSettings: [.linkedLibrary("m")]),
        // The generic runtime: channels, the store, the core-side server, the shell-side link,
        // the socket transport and process supervision parts.
        .target(name: "ActorNode", dependencies: ["Wire", "CSystemShims"]),
        // TestStore: exhaustive tests of reducers and effects (links Swift Testing; tests only).
        .target(name: "ActorNodeTesting", dependencies: ["ActorNode", "Wire"]),
        // The to-do app's contract: its state and actions, shared by its core and its shell.
        .target(name: "TodoContract", dependencies: ["Wire"]),
        // `core-daemon`: the to-do app's Core (its reducers) and the daemon's main.
        .executableTarget(name: "CoreDaemon", dependencies: ["Wire", "ActorNode", "TodoContract"]),
        // `shell-client`: the to-do app's Shell and the scripting commands.
        .executableTarget(name: "ShellClient", dependencies: ["Wire", "ActorNode", "TodoContract"]),
        // `cama-launch`: Root. It depends on the other two executables only so that
        // `swift run cama-launch` builds them; it starts them as processes and imports neither.
        .executableTarget(name: "cama-launch", dependencies: ["Wire", "ActorNode", "CoreDaemon", "ShellClient"]),
        // `cama-bench`: concurrent clients against a core, for scripts/bench-*.sh.
        .executableTarget(name: "cama-bench", dependencies: ["Wire", "ActorNode", "CSystemShims"]),

        // The second app, a chat room: a contract, a core and a shell, and nothing else.
        .target(name: "ChatContract", dependencies: ["Wire"], path: "Examples/Chat/Contract"),
        .executableTarget(name: "ChatCore", dependencies: ["ActorNode", "ChatContract", "Wire"], path: "Examples/Chat/Core"),
        .executableTarget(name: "ChatShell", dependencies: ["ActorNode", "ChatContract"], path: "Examples/Chat/Shell"),

        // The third app, a poll whose close survives a crash: a contract, a core and a shell.
        .target(name: "PollContract", dependencies: ["Wire"], path: "Examples/Poll/Contract"),
        .executableTarget(name: "PollCore", dependencies: ["ActorNode", "PollContract", "Wire"], path: "Examples/Poll/Core"),
        .executableTarget(name: "PollShell", dependencies: ["ActorNode", "PollContract"], path: "Examples/Poll/Shell"),

        // `trap-core`: a core whose reducer traps on purpose, for the tests of the quarantine.
        .executableTarget(name: "trap-core", dependencies: ["ActorNode", "TodoContract", "Wire"], path: "Tests/Fixtures/TrapCore"),
        // `drift-core`: a core whose hand-written patches do not fit its state, for the tests of
        // a shell's resync.
        .executableTarget(name: "drift-core", dependencies: ["ActorNode", "TodoContract", "Wire"], path: "Tests/Fixtures/DriftCore"),
        // `plain-shell`: a shell with no full screen, for the tests of the line shell's editing.
        .executableTarget(name: "plain-shell", dependencies: ["ActorNode", "TodoContract"], path: "Tests/Fixtures/PlainShell"),
        // `trap-shell`: a full screen that traps on a key, for the test that a crash gives the
        // terminal back.
        .executableTarget(name: "trap-shell", dependencies: ["ActorNode", "TodoContract"], path: "Tests/Fixtures/TrapShell"),

        // The fuzz targets: one check per hand-written reader, run by libFuzzer through
        // scripts/fuzz.sh (whose entry, Fuzz/Entry, is no SwiftPM target) and replayed on the
        // committed corpus and regressions by FuzzTargetTests.
        .target(name: "FuzzTargets", dependencies: ["Wire", "ActorNode"], path: "Fuzz/Targets"),

        .testTarget(name: "WireTests", dependencies: ["Wire", "ActorNode", "TodoContract"]),
        .testTarget(name: "ActorNodeTests", dependencies: ["ActorNode", "ActorNodeTesting", "Wire"]),
        .testTarget(name: "AppTests", dependencies: ["CoreDaemon", "ShellClient", "cama-launch", "ActorNode", "ActorNodeTesting", "Wire", "TodoContract"]),
        .testTarget(name: "ChatTests", dependencies: ["ChatCore", "ChatShell", "ChatContract", "ActorNode", "ActorNodeTesting", "Wire"]),
        .testTarget(name: "PollTests", dependencies: ["PollCore", "PollShell", "PollContract", "ActorNode", "ActorNodeTesting", "Wire"]),
        .testTarget(name: "FuzzTargetTests", dependencies: ["FuzzTargets"]),
        .testTarget(name: "IntegrationTests", dependencies: ["ActorNode", "Wire", "TodoContract", "CoreDaemon", "ShellClient", "cama-launch", "ChatCore", "ChatShell", "PollCore", "PollShell", "trap-core", "drift-core", "plain-shell", "trap-shell"]),
    ]
)
