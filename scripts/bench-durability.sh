#!/usr/bin/env bash
# Durability benchmark: actions per second with each --fsync policy, at 1 and 16 concurrent
# clients (each sends one action, waits for its ack, sends the next), and, in the same run when
# Redis is installed, Redis on a Unix socket with appendfsync always and everysec, measured the
# same way (redis-benchmark INCR without pipelining).
#
# Usage: scripts/bench-durability.sh [ACTIONS_PER_CLIENT_AT_1] [ACTIONS_PER_CLIENT_AT_16]
set -euo pipefail
cd "$(dirname "$0")/.."
single="${1:-3000}"
each="${2:-500}"

scripts/build-release.sh --product core-daemon > /dev/null
scripts/build-release.sh --product cama-bench > /dev/null
bin="$(scripts/build-release.sh --show-bin-path)"
work="$(mktemp -d /tmp/cama-bench-XXXXXX)"
pids=()
cleanup() {
    for pid in "${pids[@]:-}"; do kill "$pid" 2> /dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

wait_for_socket() {
    for _ in $(seq 500); do [ -S "$1" ] && return 0; sleep 0.01; done
    echo "bench: nothing listens on $1" >&2
    exit 3
}

echo "machine: $(nproc) cores; disk: $(df -h "$work" | tail -1 | awk '{print $1}')"
printf "%-32s %8s %14s %10s %10s\n" "system" "clients" "actions/s" "p50 us" "p99 us"

for policy in always batch never; do
    dir="$work/$policy"
    mkdir -m 700 "$dir"
    "$bin/core-daemon" --socket "$dir/core.sock" --state-dir "$dir/state" --fsync "$policy" 2> "$dir/core.log" &
    pids+=($!)
    wait_for_socket "$dir/core.sock"
    for clients in 1 16; do
        actions=$([ "$clients" = 1 ] && echo "$single" || echo "$each")
        line="$("$bin/cama-bench" --socket "$dir/core.sock" --clients "$clients" --actions "$actions")"
        rate="$(sed -E 's/.*actions_per_second=([0-9]+).*/\1/' <<< "$line")"
        p50="$(sed -E 's/.*p50_us=([0-9]+).*/\1/' <<< "$line")"
        p99="$(sed -E 's/.*p99_us=([0-9]+).*/\1/' <<< "$line")"
        printf "%-32s %8s %14s %10s %10s\n" "cama --fsync $policy" "$clients" "$rate" "$p50" "$p99"
    done
    kill "${pids[-1]}"
done

if command -v redis-server > /dev/null && command -v redis-benchmark > /dev/null; then
    for fsync in always everysec; do
        dir="$work/redis-$fsync"
        mkdir -m 700 "$dir"
        redis-server --port 0 --unixsocket "$dir/redis.sock" --unixsocketperm 700 --dir "$dir" \
            --appendonly yes --appendfsync "$fsync" --save "" --daemonize no > "$dir/redis.log" 2>&1 &
        pids+=($!)
        wait_for_socket "$dir/redis.sock"
        for clients in 1 16; do
            requests=$([ "$clients" = 1 ] && echo "$single" || echo $((each * 16)))
            # --csv: "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
            line="$(redis-benchmark -s "$dir/redis.sock" -c "$clients" -n "$requests" -t incr -P 1 --csv 2> /dev/null | tail -1)"
            rate="$(cut -d, -f2 <<< "$line" | tr -d '"' | cut -d. -f1)"
            p50="$(cut -d, -f5 <<< "$line" | tr -d '"' | awk '{printf "%d", $1 * 1000}')"
            p99="$(cut -d, -f7 <<< "$line" | tr -d '"' | awk '{printf "%d", $1 * 1000}')"
            printf "%-32s %8s %14s %10s %10s\n" "redis appendfsync $fsync" "$clients" "$rate" "$p50" "$p99"
        done
        kill "${pids[-1]}"
    done
else
    echo "(redis-server and redis-benchmark are not installed: no Redis comparison; apt-get install redis-server)"
fi
