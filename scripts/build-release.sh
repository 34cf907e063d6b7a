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
# Usage: scripts/build-release.sh [swift build options...]
#   e.g. scripts/build-release.sh --product shell-client
#        scripts/build-release.sh --show-bin-path
set -euo pipefail
cd "$(dirname "$0")/.."

flags=(-c release --static-swift-stdlib)
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
exec swift build "${flags[@]}" "$@"
