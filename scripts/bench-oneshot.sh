#!/usr/bin/env bash
# One-shot command benchmark: `shell-client send` and `shell-client state` as whole processes
# (start-up, connection, hello, action, ack, exit), beside `tmux send-keys` against a tmux
# server of its own, each run N times in turn (A B A B ...) and timed from outside with bash's
# own clock ($EPOCHREALTIME: reading it starts no process); then `shell-client state --json`
# against a core holding ITEMS to-do items. Prints per-process milliseconds (median, 10th and
# 90th percentile) side by side and the ratio of the medians, then the seconds of
# `state --json`. It builds what it runs as the README says (scripts/build-release.sh),
# and stops every process it started, by pid.
#
# Usage: [BUILD_FLAGS=...] [FSYNC=...] scripts/bench-oneshot.sh [N] [ITEMS]   (defaults: 200, 100000)
# The core runs with --fsync never (FSYNC=always to change it), so that the disk is not what is
# measured: tmux writes nothing to disk either.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-200}"
items="${2:-100000}"
fsync="${FSYNC:-never}"

command -v tmux > /dev/null || { echo "bench-oneshot: tmux is needed as the yardstick" >&2; exit 2; }
# The release build the README recommends: the Swift runtime linked into the executables;
# BUILD_FLAGS adds to it (BUILD_FLAGS="-Xswiftc -static-executable": everything linked in).
# shellcheck disable=SC2206 # the flags are words on purpose
build=(scripts/build-release.sh ${BUILD_FLAGS:-})
"${build[@]}" --product core-daemon > /dev/null
"${build[@]}" --product shell-client > /dev/null
"${build[@]}" --product cama-bench > /dev/null
bin="$("${build[@]}" --show-bin-path)"
work="$(mktemp -d /tmp/cama-oneshot-XXXXXX)"
tmux_socket="cama-oneshot-$$"
pids=()
cleanup() {
    for pid in "${pids[@]:-}"; do kill "$pid" 2> /dev/null || true; done
    rm -rf "$work"
    rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$tmux_socket"
}
trap cleanup EXIT

start_core() { # directory
    mkdir -m 700 "$1"
    "$bin/core-daemon" --socket "$1/core.sock" --state-dir "$1/state" --fsync "$fsync" 2> "$1/core.log" &
    pids+=($!)
    for _ in $(seq 500); do [ -S "$1/core.sock" ] && return 0; sleep 0.01; done
    echo "bench-oneshot: no core serves $1/core.sock" >&2
    exit 3
}

# Times are microseconds from bash's clock, read in place (${EPOCHREALTIME//[!0-9]/}): no
# process or subshell is started to read it, so nothing but the command falls between two
# readings.
[ -n "${EPOCHREALTIME:-}" ] || { echo "bench-oneshot: needs bash 5 (EPOCHREALTIME)" >&2; exit 2; }

# Runs A and B in turn `runs` times; appends each run's microseconds to $work/$label.a and .b.
alternate() { # label, then A's words, "--", B's words
    local label="$1"; shift
    local a=() b=() side=a
    for word in "$@"; do
        if [ "$word" = "--" ]; then side=b; continue; fi
        if [ "$side" = a ]; then a+=("$word"); else b+=("$word"); fi
    done
    "${a[@]}" > /dev/null; "${b[@]}" > /dev/null # warm-up, not counted
    : > "$work/$label.a"; : > "$work/$label.b"
    for _ in $(seq "$runs"); do
        local t0 t1
        t0=${EPOCHREALTIME//[!0-9]/}; "${a[@]}" > /dev/null; t1=${EPOCHREALTIME//[!0-9]/}
        echo $((t1 - t0)) >> "$work/$label.a"
        t0=${EPOCHREALTIME//[!0-9]/}; "${b[@]}" > /dev/null; t1=${EPOCHREALTIME//[!0-9]/}
        echo $((t1 - t0)) >> "$work/$label.b"
    done
}

# Median, 10th and 90th percentile of a file of microseconds, in milliseconds.
percentiles() {
    sort -n "$1" | awk '{ v[NR] = $1 } END {
        printf "%8.2f %8.2f %8.2f", v[int((NR + 1) / 2)] / 1e3, v[int(NR * 0.1) + 1] / 1e3, v[int(NR * 0.9)] / 1e3 }'
}

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

report() { # label, A's name, B's name
    printf "%-34s %s\n" "$2" "$(percentiles "$work/$1.a")"
    printf "%-34s %s\n" "$3" "$(percentiles "$work/$1.b")"
    printf "%-34s %8.2f\n" "ratio of the medians" "$(awk -v a="$(median "$work/$1.a")" -v b="$(median "$work/$1.b")" 'BEGIN { print a / b }')"
}

echo "machine: $(nproc) cores; $runs runs of each command, in turn; the core runs with --fsync $fsync"
echo "built with: ${build[*]}"
start_core "$work/small"
socket="$work/small/core.sock"
tmux -L "$tmux_socket" -f /dev/null new-session -d -s bench
pids+=("$(tmux -L "$tmux_socket" display-message -p '#{pid}')")

alternate send "$bin/shell-client" --socket "$socket" send add x -- tmux -L "$tmux_socket" send-keys -t bench x
alternate state "$bin/shell-client" --socket "$socket" state -- tmux -L "$tmux_socket" send-keys -t bench x
printf "\n%-34s %8s %8s %8s\n" "whole process, milliseconds" "median" "p10" "p90"
report send "shell-client send add x" "tmux send-keys"
report state "shell-client state ($((runs + 1)) items)" "tmux send-keys"

start_core "$work/large"
large="$work/large/core.sock"
"$bin/cama-bench" --socket "$large" --clients 10 --actions $((items / 10)) --action '{"add":{"text":"item"}}' > /dev/null
: > "$work/json"
for _ in 1 2 3 4 5; do
    t0=${EPOCHREALTIME//[!0-9]/}; "$bin/shell-client" --socket "$large" state --json > "$work/state.json"; t1=${EPOCHREALTIME//[!0-9]/}
    echo $((t1 - t0)) >> "$work/json"
done
printf "\nshell-client state --json at %s items (%s bytes): %.2f s (median of 5 runs)\n" \
    "$(grep -o '"id":' "$work/state.json" | wc -l)" "$(wc -c < "$work/state.json")" "$(awk -v n="$(median "$work/json")" 'BEGIN { print n / 1e6 }')"
