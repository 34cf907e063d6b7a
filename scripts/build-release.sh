#!/usr/bin/env bash
# Builds CAMA's executables to install or to measure: release mode, with the Swift runtime
# linked into them (--static-swift-stdlib), and, where the C++ standard library's archive is
# installed (Debian/Ubuntu: libstdc++-NN-dev, which the Swift toolchain needs anyway),
# libstdc++ and libgcc too. The executables then load no C++ library at start: a one-shot
# `shell-client send` spends about a fifth less time than when the dynamic loader relocates
# libstdc++.so for the runtime (docs/OPERATIONS.md, "Installing").
#
# The Swift toolchain's own link arguments name -lstdc++ before anything a build can add, so
# the archive is offered in a directory of its own (.build/static-libstdc++), searched before
# the system's, that holds nothing else.
#
# Where the toolchain has lld (Swift's Linux toolchains ship it beside swift), it links, so
# that the start of every process costs less (callgrind, shell-client send: 1.99 to 1.71
# million instructions):
# - without --export-dynamic, which the toolchain asks for with a static Swift runtime: the
#   runtime looks up its own path with dladdr at start, which walks every exported symbol
#   (130,000 instructions for 4,500 of them); nothing of ours is looked up by name;
# - for a position-independent executable (CAMA_PIE=1, below), with the relative relocations
#   packed (-z pack-relative-relocs, DT_RELR), where glibc is 2.36 or newer (older ones
#   cannot load such a binary): the dynamic loader reads a 6 KB table instead of 740 KB. A
#   fixed-address executable, the default, has none, and runs on older glibc too.
#
# With lld it also puts each function, Swift's and C's, in a section of its own
# (-function-sections) and lays the hot ones out side by side, in the order of
# scripts/hot-functions.txt (written by scripts/order-functions.sh from callgrind profiles: the
# core's per action, a watcher's per state, a one-shot send's and state's, and all a core runs),
# with scripts/hot-sections.ld (written beside it) for the functions that file cannot name.
# The code a watcher runs for each state then spans a few dozen pages instead of some 200, which
# matters when a hundred processes take turns on two CPUs: 100 `watch --json` used 19 instead of
# 23 µs of user CPU per state printed, and the sender got 540 instead of 470 actions/s (same
# sources, same machine, runs alternated). A core keeps about 1 MB less of its executable
# resident.
#
# It links the executables at a fixed address (-no-pie), as Go does by default on Linux: a
# position-independent executable has the dynamic loader rewrite every absolute pointer in
# its data at each start (some 30,000 in the Swift runtime's and standard library's metadata,
# vtables and witness tables), which copies every page they are on. Callgrind: a one-shot
# `shell-client send` 0.91 to 0.64 million instructions, `state` at 100 items 2.27 to 2.00
# million. What it gives up is the executable's own place being random (ASLR still places
# the C library, the stack and the heap at random). CAMA_PIE=1 builds position-independent
# executables instead.
#
# It builds with --disable-local-rpath: everything but the C library is linked in, so the
# executables need no run path, and the dynamic loader no longer looks for libm in 38 places
# under .build (hwcaps, tls, haswell...) before the system's at every start.
#
# It compiles with -disable-concrete-type-metadata-mangled-name-accessors: the compiler then
# reaches the metadata of a generic type it knows, such as KeyedDecodingContainer<CodingKeys>,
# by calling its accessor, not by a mangled name the runtime decodes. Decoding the name checks
# the type's requirements (CodingKeys: CodingKey), and the first check of each conformance
# searches all of the binary's conformance records: about 110,000 instructions for each type a
# one-shot command encodes or decodes (callgrind: shell-client state 2.05 to 1.22 million
# instructions, send 1.30 to 0.93, --version 1.11 to 0.80; the executable grows by 45 KB).
#
# Usage: scripts/build-release.sh [swift build options...]
#   e.g. scripts/build-release.sh --product shell-client
#        scripts/build-release.sh --show-bin-path
set -euo pipefail
cd "$(dirname "$0")/.."

flags=(-c release --static-swift-stdlib --disable-local-rpath -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors)
# The toolchain's clang finds the archive where the C++ compiler would.
archive="$(clang -print-file-name=libstdc++.a 2>/dev/null || true)"
if [ -n "$archive" ] && [ "${archive#/}" != "$archive" ] && [ -f "$archive" ]; then
    directory="$PWD/.build/static-libstdc++"
    mkdir -p "$directory"
    ln -sfn "$archive" "$directory/libstdc++.a"
    flags+=(-Xlinker "-L$directory" -Xswiftc -Xclang-linker -Xswiftc -static-libgcc)
else
    echo "build-release: no libstdc++.a found (clang -print-file-name=libstdc++.a); linking libstdc++ dynamically" >&2
fi
swift_directory="$(dirname "$(command -v swift)")"
if [ -x "$swift_directory/ld.lld" ] || command -v ld.lld > /dev/null 2>&1; then
    flags+=(-Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld -Xlinker --no-export-dynamic)
    # Each function in a section of its own, laid out in the order of hot-functions.txt.
    flags+=(-Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections)
    flags+=(-Xlinker "--symbol-ordering-file=$PWD/scripts/hot-functions.txt" -Xlinker --no-warn-symbol-ordering)
    # And the functions that file cannot name, side by side before them (hot-sections.ld says why).
    flags+=(-Xlinker "--script=$PWD/scripts/hot-sections.ld")
    # A position-independent executable's relative relocations are packed, where glibc can
    # read them (2.36 or newer; the executable then needs as much). A fixed-address one has none.
    glibc="$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')"
    if [ -n "${CAMA_PIE:-}" ] && [ -n "$glibc" ] && [ "$(printf '%s\n2.36\n' "$glibc" | sort -V | head -n 1)" = "2.36" ]; then
        flags+=(-Xlinker -z -Xlinker pack-relative-relocs)
    fi
fi
if [ -z "${CAMA_PIE:-}" ]; then
    flags+=(-Xswiftc -Xclang-linker -Xswiftc -no-pie)
fi
# SwiftPM does not know the order file and the script are inputs of the link: the executables
# linked before either last changed are removed, so that they are linked again.
bin="$(swift build "${flags[@]}" --show-bin-path)"
for executable in core-daemon shell-client cama-launch cama-bench chat-core chat-shell poll-core poll-shell; do
    if [ -f "$bin/$executable" ] && { [ scripts/hot-functions.txt -nt "$bin/$executable" ] || [ scripts/hot-sections.ld -nt "$bin/$executable" ]; }; then rm -f "$bin/$executable"; fi
done
exec swift build "${flags[@]}" "$@"
