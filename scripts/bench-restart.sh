#!/usr/bin/env bash
# Restart benchmark: under `cama-launch --headless`, SIGKILL the core several times and time
# each death to the next acknowledged action of a client that was connected (it notices the
# loss, reconnects, and resends). Prints every round and the median.
#
# Usage: scripts/bench-restart.sh [ROUNDS] [SPACING_SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-5}"
spacing="${2:-11}"

scripts/build-release.sh > /dev/null
bin="$(scripts/build-release.sh --show-bin-path)"
work="$(mktemp -d /tmp/cama-restart-XXXXXX)"
launcher=""
cleanup() {
    [ -n "$launcher" ] && kill "$launcher" 2> /dev/null && wait "$launcher" 2> /dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

"$bin/cama-launch" --headless --socket "$work/core.sock" --state-dir "$work/state" 2> "$work/launcher.log" &
launcher=$!
for _ in $(seq 500); do "$bin/shell-client" --socket "$work/core.sock" state > /dev/null 2>&1 && break; sleep 0.01; done
"$bin/cama-bench" --socket "$work/core.sock" --restart-rounds "$rounds" --spacing "$spacing"
