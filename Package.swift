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
        .library(name: "Wire", targets: ["Wire"]),
        .library(name: "ActorNode", targets: ["ActorNode"]),
    ],
    targets: [
        // Linux system calls the Glibc module does not export (epoll, eventfd, SO_PEERCRED, prctl).
        .target(name: "CSystemShims"),
        // What crosses the socket: frames, the envelope, JSON values and patches, the app's contract.
        .target(name: "Wire"),
        // The generic runtime: channels, the store, the core-side server, the shell-side link,
        // the socket transport and process supervision parts.
        .target(name: "ActorNode", dependencies: ["Wire", "CSystemShims"]),
        // TestStore: exhaustive tests of reducers and effects (links Swift Testing; tests only).
        .target(name: "ActorNodeTesting", dependencies: ["ActorNode", "Wire"]),
        // `core-daemon`: the to-do app's Core (its reducers) and the daemon's main.
        .executableTarget(name: "CoreDaemon", dependencies: ["Wire", "ActorNode"]),
        // `shell-client`: the to-do app's Shell and the scripting commands.
        .executableTarget(name: "ShellClient", dependencies: ["Wire", "ActorNode"]),
        // `cama-launch`: Root. It depends on the other two executables only so that
        // `swift run cama-launch` builds them; it starts them as processes and imports neither.
        .executableTarget(name: "cama-launch", dependencies: ["Wire", "ActorNode", "CoreDaemon", "ShellClient"]),
        // `cama-bench`: concurrent clients against a core, for scripts/bench-*.sh.
        .executableTarget(name: "cama-bench", dependencies: ["Wire", "ActorNode"]),

        .testTarget(name: "WireTests", dependencies: ["Wire", "ActorNode"]),
        .testTarget(name: "ActorNodeTests", dependencies: ["ActorNode", "ActorNodeTesting", "Wire"]),
        .testTarget(name: "AppTests", dependencies: ["CoreDaemon", "ShellClient", "cama-launch", "ActorNode", "ActorNodeTesting", "Wire"]),
        .testTarget(name: "IntegrationTests", dependencies: ["ActorNode", "Wire", "CoreDaemon", "ShellClient", "cama-launch"]),
    ]
)
