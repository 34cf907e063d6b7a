#!/usr/bin/env bash
# CAMA beside Redis, measured in one run on the same machine: each row runs CAMA, then Redis
# right after (rows 1 to 3 alternate them in rounds), and prints both figures and CAMA/Redis.
# Release builds.
#
#   1  1 client, one action at a time: cama-bench against core-daemon --fsync never, and
#      redis-benchmark INCR against redis-server without persistence (rate and p50 latency);
#      and, in each round too, the floor: two processes passing 32 bytes back and forth over a socketpair
#      (scripts/bench-pingpong.c), its median round trip beside cama-bench's
#   2  the same with 16 clients
#   3  16 clients, syncing every write: --fsync always, and appendonly yes, appendfsync always
#   4  one sender while 100 `shell-client watch --json` processes watch, and PUBLISH to 100
#      `redis-cli subscribe` processes, over 300 actions and over WATCH_ACTIONS, the two sides
#      in turn in ROUNDS rounds; also (CAMA only) 100 watchers read by cama-bench itself
#   5  CAMA only (a Redis INCR does not depend on the size of the data): add actions at 0 to
#      20% of ITEMS items and at 80% to 100%; toggle with one watcher at 1 item and at ITEMS
#      items; each pair on two cores in turn, in ROUNDS rounds; `shell-client state --json` at
#      ITEMS items, the core's RSS right after it and after the toggles (the welcome's JSON let
#      go), the state's size
#   6  `shell-client send add x`, `shell-client state` and `tmux send-keys` as whole
#      processes, in turn: median ms of RUNS each
#   7  a shell's cost per change: CPU microseconds per toggle of a full-screen `attach` (in
#      tmux), of a `watch --json` and of a `watch --patches`, at 10 items and at ITEMS items;
#      and the `watch --json` CPU per state printed beside `redis-cli subscribe`'s CPU per
#      message of the same size, both writing into a file
#
# Usage: scripts/bench.sh [--quick] [--actions N] [--rounds R] [--watch-actions N]
#                         [--items N] [--toggles N] [--runs N] [--rows LIST] [--keep]
#   --actions N        actions (requests) in all for each of rows 1 to 3, on each side
#                      (default 200000; $BENCH_ACTIONS)
#   --rounds R         rows 1 to 3 alternate CAMA and Redis R times with N/R actions each, row
#                      4 with 300 and WATCH_ACTIONS each, row 5 the small and the big core,
#                      and print the medians (default 5; $BENCH_ROUNDS)
#   --watch-actions N  actions (publishes) in row 4 (default 4000; $BENCH_WATCH_ACTIONS)
#   --items N          the state's size in row 5 (default 100000; $BENCH_ITEMS)
#   --toggles N        row 5 toggles 20 times N at 1 item and as many at ITEMS items with a
#                      watcher, row 7 N at ITEMS items and 4 times N at 10 (default 500;
#                      $BENCH_TOGGLES)
#   --runs N           runs of each command in row 6 (default 100; $BENCH_RUNS)
#   --rows LIST        only these rows, by number, separated by commas (default: all)
#   --quick            small counts (8000 in 2 rounds, 300, 20000, 100, 20): a check that
#                      everything runs
#   --keep             keep the temporary directory (logs, state) and print where it is
set -euo pipefail
cd "$(dirname "$0")/.."

actions="${BENCH_ACTIONS:-200000}"
watch_actions="${BENCH_WATCH_ACTIONS:-4000}"
items="${BENCH_ITEMS:-100000}"
toggles="${BENCH_TOGGLES:-500}"
runs="${BENCH_RUNS:-100}"
rounds="${BENCH_ROUNDS:-5}"
keep=0
only=""
usage() { sed -n '/^# Usage:/,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
number() { [[ "$2" =~ ^[1-9][0-9]*$ ]] || { echo "bench: $1 needs a positive number, not '$2'" >&2; exit 2; }; echo "$2"; }
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) actions=8000 watch_actions=300 items=20000 toggles=100 runs=20 rounds=2 ;;
        --actions) actions="$(number "$1" "${2:-}")"; shift ;;
        --watch-actions) watch_actions="$(number "$1" "${2:-}")"; shift ;;
        --items) items="$(number "$1" "${2:-}")"; shift ;;
        --toggles) toggles="$(number "$1" "${2:-}")"; shift ;;
        --runs) runs="$(number "$1" "${2:-}")"; shift ;;
        --rounds) rounds="$(number "$1" "${2:-}")"; shift ;;
        --rows) [[ "${2:-}" =~ ^[1-7](,[1-7])*$ ]] || { echo "bench: --rows takes row numbers 1 to 7 separated by commas, not '${2:-}'" >&2; exit 2; }; only=",$2,"; shift ;;
        --keep) keep=1 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "bench: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    esac
    shift
done
[ "$actions" -ge $((16 * rounds)) ] || { echo "bench: --actions must be at least 16 times --rounds" >&2; exit 2; }
[ "$items" -ge 100 ] || { echo "bench: --items must be at least 100" >&2; exit 2; }

missing=()
need() { command -v "$1" > /dev/null || missing+=("$1 (apt-get install $2)"); }
need swift "Swift from swift.org"
need redis-server redis-server
need redis-cli redis-tools
need redis-benchmark redis-tools
need tmux tmux
need clang "the Swift toolchain's clang"
if [ ${#missing[@]} -gt 0 ]; then
    echo "bench: missing: ${missing[*]}" >&2
    exit 1
fi

progress() { echo "bench: $*" >&2; }
die() { echo "bench: $*" >&2; exit 1; }

progress "building core-daemon, shell-client and cama-bench (release)"
for product in core-daemon shell-client cama-bench; do
    log="$(mktemp)"
    scripts/build-release.sh --product "$product" > "$log" 2>&1 || { cat "$log" >&2; rm -f "$log"; die "scripts/build-release.sh --product $product failed"; }
    rm -f "$log"
done
bin="$(scripts/build-release.sh --show-bin-path)"

work="$(mktemp -d "${TMPDIR:-/tmp}/cama-bench.XXXXXX")"
chmod 700 "$work"
pids=()
tmux_socket="$work/tmux.sock"
cleanup() {
    local status=$?
    for pid in "${pids[@]:-}"; do [ -n "$pid" ] && kill "$pid" 2> /dev/null || true; done
    for pid in "${pids[@]:-}"; do [ -n "$pid" ] && wait "$pid" 2> /dev/null || true; done
    if [ "$keep" = 1 ]; then echo "bench: kept $work" >&2; else rm -rf "$work"; fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# forget PIDS...: takes ended processes off the list the exit kills.
forget() {
    local pid kept=() gone=" $* "
    for pid in "${pids[@]}"; do [[ "$gone" == *" $pid "* ]] || kept+=("$pid"); done
    pids=("${kept[@]}")
}
# stop PIDS...: stops processes this script started, waits for them, and forgets them.
stop() {
    local pid
    for pid in "$@"; do kill "$pid" 2> /dev/null || true; done
    for pid in "$@"; do wait "$pid" 2> /dev/null || true; done
    forget "$@"
}

# start_core NAME POLICY: a core on $work/NAME/core.sock; sets core_pid and core_socket.
start_core() {
    local dir="$work/$1"
    mkdir -m 700 "$dir"
    "$bin/core-daemon" --socket "$dir/core.sock" --state-dir "$dir/state" --fsync "$2" 2> "$dir/core.log" &
    core_pid=$!
    pids+=("$core_pid")
    core_socket="$dir/core.sock"
    "$bin/cama-bench" --socket "$core_socket" --wait-shells 0 --timeout 20 > /dev/null 2>&1 \
        || die "the core $1 did not start: $(tail -3 "$dir/core.log")"
}

# start_redis NAME ARGS...: redis-server on $work/NAME/redis.sock, no TCP; sets redis_socket.
start_redis() {
    local dir="$work/$1"
    shift
    mkdir -m 700 "$dir"
    redis-server --port 0 --unixsocket "$dir/redis.sock" --unixsocketperm 700 --dir "$dir" \
        --save "" --daemonize no "$@" > "$dir/redis.log" 2>&1 &
    pids+=($!)
    redis_socket="$dir/redis.sock"
    for _ in $(seq 1000); do
        redis-cli -s "$redis_socket" ping > /dev/null 2>&1 && return 0
        sleep 0.02
    done
    die "redis-server $1 did not start: $(tail -3 "$dir/redis.log")"
}

# cama SOCKET ARGS...: one cama-bench line.
cama() { "$bin/cama-bench" --socket "$@"; }
# field LINE KEY: the value of KEY=value in a cama-bench line.
field() { awk -v key="$2" '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) print kv[2] } }' <<< "$1"; }
# redis_bench ARGS...: runs redis-benchmark; sets redis_rate (requests/s) and redis_p50 (µs).
redis_bench() {
    local out
    # "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms",...
    out="$(redis-benchmark --csv "$@" 2> "$work/redis-benchmark.err" | tr '\r' '\n' | grep . | tail -1 | tr -d '"')"
    redis_rate="$(awk -F, '{ printf "%d", $2 }' <<< "$out")"
    redis_p50="$(awk -F, '{ printf "%d", $5 * 1000 }' <<< "$out")"
    [ "${redis_rate:-0}" -gt 0 ] || die "redis-benchmark $* failed: $out $(cat "$work/redis-benchmark.err")"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0 || a == "-" || b == "-") print "-"; else printf "%.2f\n", a / b }'; }
milliseconds() { awk -v ns="$1" 'BEGIN { printf "%.1f\n", ns / 1000000 }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%d\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

rows=()
row() { rows+=("$1|$2|$3|$4"); }
# want N: whether row N is to be run.
want() { [ -z "$only" ] || [[ "$only" == *",$1,"* ]]; }
# cpu_ticks PID: the nanoseconds of CPU the process has used (its main thread's and every
# other thread's: /proc/PID/task/*/schedstat, whose first field is the time run).
cpu_ticks() { cat /proc/"$1"/task/*/schedstat 2> /dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'; }
# per_change NANOSECONDS COUNT: microseconds of CPU per one of COUNT.
per_change() { awk -v t="$1" -v n="$2" 'BEGIN { if (n == 0) print "-"; else printf "%.1f\n", t / 1000 / n }'; }

# watchers SOCKET N: starts N `shell-client watch --json` and waits until the core counts them.
watcher_pids=()
watchers() {
    local i
    watcher_pids=()
    for i in $(seq "$2"); do
        "$bin/shell-client" --socket "$1" watch --json > /dev/null 2>> "$work/watchers.log" &
        watcher_pids+=($!)
        pids+=($!)
    done
    cama "$1" --wait-shells "$2" --timeout 60 > /dev/null || die "the core does not count $2 watchers"
}

# subscribers SOCKET N: starts N `redis-cli subscribe ch` and waits until Redis counts them.
subscriber_pids=()
subscribers() {
    local i
    subscriber_pids=()
    for i in $(seq "$2"); do
        redis-cli -s "$1" subscribe ch > /dev/null 2>> "$work/subscribers.log" &
        subscriber_pids+=($!)
        pids+=($!)
    done
    for _ in $(seq 3000); do
        [ "$(redis-cli -s "$1" pubsub numsub ch | tail -1)" = "$2" ] && return 0
        sleep 0.02
    done
    die "Redis does not count $2 subscribers on ch"
}

cpu_model="$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
machine="CPU ${cpu_model:-unknown}, $(nproc) cores, Linux $(uname -r), $(swift --version 2>&1 | grep -o 'Swift version [^ ]*' | head -1), Redis $(redis-server --version | grep -o 'v=[^ ]*' | cut -d= -f2)"
started="$(date -u +%Y-%m-%dT%H:%MZ)"
progress "$machine"
# The share of the CPUs idle during one second before the run: others' work skews the figures.
idle() { awk '/^cpu / { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
read -r idle0 total0 < <(idle)
sleep 1
read -r idle1 total1 < <(idle)
idle_before="$(awk -v i=$((idle1 - idle0)) -v t=$((total1 - total0)) 'BEGIN { printf "%d", t ? 100 * i / t : 0 }')"
[ "$idle_before" -ge 90 ] || progress "warning: the CPUs were only $idle_before% idle before the run; something else is running"

start_core never never
never_socket="$core_socket"
start_core always always
always_socket="$core_socket"
start_redis redis-none --appendonly no
redis_none="$redis_socket"
start_redis redis-always --appendonly yes --appendfsync always
redis_always="$redis_socket"

# pair NUMBER LABEL CLIENTS CAMA_SOCKET REDIS_SOCKET [FLOOR]: ROUNDS rounds, each cama-bench
# and redis-benchmark INCR (CAMA first in odd rounds, Redis in even ones) with ACTIONS/ROUNDS
# actions in all, one at a time per client; rows of the median rate and the median p50 of
# each side. With FLOOR (an executable), each round
# also runs FLOOR ACTIONS/ROUNDS, whose lines go to $work/pair.floor.
pair() {
    local per=$((actions / rounds / $3)) round line
    : > "$work/pair.cama"
    : > "$work/pair.redis"
    : > "$work/pair.floor"
    local side
    for round in $(seq "$rounds"); do
        # Which side goes first alternates, as in rows 4 and 5.
        for side in $([ $((round % 2)) = 1 ] && echo "cama redis" || echo "redis cama"); do
            if [ "$side" = cama ]; then
                line="$(cama "$4" --clients "$3" --actions "$per")"
                echo "$(field "$line" actions_per_second) $(field "$line" p50_us)" >> "$work/pair.cama"
            else
                redis_bench -s "$5" -c "$3" -n $((per * $3)) -t incr
                echo "$redis_rate $redis_p50" >> "$work/pair.redis"
            fi
        done
        if [ -n "${6:-}" ]; then "$6" "$per" >> "$work/pair.floor"; fi
    done
    cama_rate="$(cut -d' ' -f1 "$work/pair.cama" | median)"
    cama_p50="$(cut -d' ' -f2 "$work/pair.cama" | median)"
    redis_rate="$(cut -d' ' -f1 "$work/pair.redis" | median)"
    redis_p50="$(cut -d' ' -f2 "$work/pair.redis" | median)"
    row "$1. $2, actions/s" "$cama_rate" "$redis_rate" "$(ratio "$cama_rate" "$redis_rate")"
    row "$1. $2, p50 us" "$cama_p50" "$redis_p50" "$(ratio "$cama_p50" "$redis_p50")"
}

# 1 and 2: one action at a time, 1 and 16 clients, no sync; 3: 16 clients, every write synced.
if want 1; then
progress "1: 1 client, $rounds rounds of $((actions / rounds)) actions, each with the floor's"
clang -O2 -o "$work/pingpong" scripts/bench-pingpong.c || die "cannot compile scripts/bench-pingpong.c"
# The floor is measured in each round beside the two sides, each figure the median of its
# rounds: measured once, it had caught the machine in another state than the rounds did (a
# process woken in 8 µs in one run, in 50 in the next).
pair 1 "1 client (fsync never; Redis no persistence)" 1 "$never_socket" "$redis_none" "$work/pingpong"
floor_rate="$(while read -r line; do field "$line" round_trips_per_second; done < "$work/pair.floor" | median)"
floor_p50="$(while read -r line; do field "$line" p50_us; done < "$work/pair.floor" | median)"
row "1. the floor: C ping-pong over a socketpair, round trips/s" "-" "$floor_rate" "-"
row "1. 1 client p50 / the C ping-pong's p50 us (target <= 1.5)" "$cama_p50" "$floor_p50" "$(ratio "$cama_p50" "$floor_p50")"
fi

if want 2; then
progress "2: 16 clients, $rounds rounds of $((actions / rounds / 16)) actions each"
pair 2 "16 clients" 16 "$never_socket" "$redis_none"
fi

if want 3; then
progress "3: 16 clients, fsync always, $rounds rounds"
pair 3 "16 clients, fsync always" 16 "$always_socket" "$redis_always"
fi

if want 4; then
# 4: one sender, 100 watchers (processes of their own on both sides), both hundreds attached
# throughout; ROUNDS rounds that take turns (which side goes first alternates), each side's
# figures the medians of its rounds, over a short run and a long one. A watcher behind the
# core skips to the newest state (a subscriber gets every message): as batch work, the
# watchers print some 70% of the states at either length.
progress "4: 1 sender, 100 watchers, 300 actions, then $watch_actions, $rounds rounds"
watchers "$never_socket" 100
subscribers "$redis_none" 100
# watched_round COUNT FILE ROUND: round ROUND of COUNT actions on each side, in turn (CAMA
# first in odd rounds); appends "rate p50" to FILE.cama and FILE.redis.
watched_round() {
    local side line
    for side in $([ $(($3 % 2)) = 1 ] && echo "cama redis" || echo "redis cama"); do
        if [ "$side" = cama ]; then
            line="$(cama "$never_socket" --clients 1 --actions "$1")"
            echo "$(field "$line" actions_per_second) $(field "$line" p50_us)" >> "$2.cama"
        else
            redis_bench -s "$redis_none" -c 1 -n "$1" publish ch hello
            echo "$redis_rate $redis_p50" >> "$2.redis"
        fi
    done
}
for count in 300 "$watch_actions"; do
    : > "$work/watched-$count.cama"
    : > "$work/watched-$count.redis"
    for round in $(seq "$rounds"); do watched_round "$count" "$work/watched-$count" "$round"; done
    cama_rate="$(cut -d' ' -f1 "$work/watched-$count.cama" | median)"
    cama_p50="$(cut -d' ' -f2 "$work/watched-$count.cama" | median)"
    redis_rate="$(cut -d' ' -f1 "$work/watched-$count.redis" | median)"
    redis_p50="$(cut -d' ' -f2 "$work/watched-$count.redis" | median)"
    row "4. 1 sender, 100 watcher processes, $count actions, actions/s" "$cama_rate" "$redis_rate" "$(ratio "$cama_rate" "$redis_rate")"
    row "4. 1 sender, 100 watcher processes, $count actions, p50 us" "$cama_p50" "$redis_p50" "$(ratio "$cama_p50" "$redis_p50")"
done
stop "${watcher_pids[@]}" "${subscriber_pids[@]}"
line="$(cama "$never_socket" --clients 1 --actions "$watch_actions" --watchers 100)"
row "4. 1 sender, 100 watchers inside cama-bench, actions/s" "$(field "$line" actions_per_second)" "-" "-"
fi

if want 5; then
# 5: size independence. Each rate is measured on two cores at once, one small and one big, in
# ROUNDS rounds that take turns (which goes first alternates), and is the median of its
# rounds: a rate measured once at 0 items and later at ITEMS items compared two moments of a
# shared machine as much as two sizes.
progress "5: size: 0 to 20% of $items items beside 80% to 100%, then 1 item beside $items, $rounds rounds each"
add='{"add":{"text":"item"}}'
toggle='{"toggle":{"id":1}}'
start_core grow never
grow_socket="$core_socket"
grow_pid="$core_pid"
start_core one never
one_socket="$core_socket"
one_pid="$core_pid"
start_core size never
size_socket="$core_socket"
size_pid="$core_pid"
cama "$one_socket" --clients 1 --actions 1 --action "$add" > /dev/null
per=$((items / 5 / 16 / rounds))
window=$((per * 16 * rounds))
fill=$((items - window))
[ "$fill" -gt 0 ] && cama "$size_socket" --clients 1 --pipeline 128 --actions "$fill" --action "$add" > /dev/null
# alternate SMALL_SOCKET BIG_SOCKET FILE ARGS...: ROUNDS rounds of cama-bench ARGS on each
# core, in turn; FILE.small and FILE.big get each round's rate.
alternate() {
    local small="$1" big="$2" file="$3" round first second side socket
    shift 3
    : > "$file.small"
    : > "$file.big"
    for round in $(seq "$rounds"); do
        if [ $((round % 2)) = 1 ]; then first=small second=big; else first=big second=small; fi
        for side in "$first" "$second"; do
            if [ "$side" = small ]; then socket="$small"; else socket="$big"; fi
            field "$(cama "$socket" "$@")" actions_per_second >> "$file.$side"
        done
    done
}
alternate "$grow_socket" "$size_socket" "$work/adds" --clients 16 --actions "$per" --action "$add"
add_low="$(median < "$work/adds.small")"
add_high="$(median < "$work/adds.big")"
stop "$grow_pid"
t0=$(date +%s%N)
"$bin/shell-client" --socket "$size_socket" state --json > "$work/state.json"
t1=$(date +%s%N)
state_ms="$(milliseconds $((t1 - t0)))"
state_bytes="$(wc -c < "$work/state.json")"
next_id="$(grep -oE '"nextId":[0-9]+' "$work/state.json" | cut -d: -f2)"
[ "$next_id" = $((items + 1)) ] || progress "warning: the state has nextId $next_id, not $((items + 1))"
rss_kb="$(awk '/^VmRSS/ { print $2 }' "/proc/$size_pid/status")"
per_toggles=$((toggles * 20 / rounds))
alternate "$one_socket" "$size_socket" "$work/raw" --clients 1 --actions "$per_toggles" --action "$toggle" --watchers 1
raw_small="$(median < "$work/raw.small")"
raw_big="$(median < "$work/raw.big")"
watchers "$one_socket" 1
one_watchers=("${watcher_pids[@]}")
watchers "$size_socket" 1
alternate "$one_socket" "$size_socket" "$work/watched" --clients 1 --actions "$per_toggles" --action "$toggle"
stop "${watcher_pids[@]}" "${one_watchers[@]}"
watch_small="$(median < "$work/watched.small")"
watch_big="$(median < "$work/watched.big")"
low_label="0-$window"
# The welcomes' JSON of the state is let go once an action makes the next revision.
rest_kb="$(awk '/^VmRSS/ { print $2 }' "/proc/$size_pid/status")"
high_label="$((items - window))-$items"
row "5. add, 16 clients, actions/s at $low_label items" "$add_low" "-" "-"
row "5. add, 16 clients, actions/s at $high_label items" "$add_high" "-" "-"
row "5. add: rate at $high_label / at $low_label (target >= 0.9)" "$(ratio "$add_high" "$add_low")" "-" "-"
row "5. toggle, 1 watch --json, actions/s at 1 item" "$watch_small" "-" "-"
row "5. toggle, 1 watch --json, actions/s at $items items" "$watch_big" "-" "-"
row "5. toggle, 1 watch --json: rate at $items / at 1 (target >= 0.9)" "$(ratio "$watch_big" "$watch_small")" "-" "-"
row "5. toggle, 1 watcher inside cama-bench, actions/s at 1 item" "$raw_small" "-" "-"
row "5. toggle, 1 watcher inside cama-bench, actions/s at $items items" "$raw_big" "-" "-"
row "5. toggle, 1 watcher inside cama-bench: rate at $items / at 1 (target >= 0.9)" "$(ratio "$raw_big" "$raw_small")" "-" "-"
row "5. shell-client state --json at $items items, whole process, ms" "$state_ms" "-" "-"
row "5. core VmRSS at $items items, right after a welcome (its JSON kept), KiB" "$rss_kb" "-" "-"
row "5. core VmRSS at $items items, after the actions since, KiB" "$rest_kb" "-" "-"
row "5. state --json at $items items, bytes" "$state_bytes" "-" "-"
row "5. core VmRSS after the actions / the state's JSON (target <= 2)" "$(ratio $((rest_kb * 1024)) "$state_bytes")" "-" "-"
stop "$size_pid" "$one_pid"
fi

if want 6; then
# 6: one action from a whole process, against tmux send-keys.
progress "6: shell-client send, shell-client state and tmux send-keys, $runs runs each"
tmux -S "$tmux_socket" new-session -d -s b 'cat > /dev/null'
tmux_pid="$(tmux -S "$tmux_socket" display-message -p '#{pid}')"
pids+=("$tmux_pid")
: > "$work/send.ns"
: > "$work/state.ns"
: > "$work/tmux.ns"
for _ in $(seq "$runs"); do
    t0=$(date +%s%N)
    "$bin/shell-client" --socket "$never_socket" send add x > /dev/null
    t1=$(date +%s%N)
    echo $((t1 - t0)) >> "$work/send.ns"
    t0=$(date +%s%N)
    tmux -S "$tmux_socket" send-keys -t b x
    t1=$(date +%s%N)
    echo $((t1 - t0)) >> "$work/tmux.ns"
    t0=$(date +%s%N)
    "$bin/shell-client" --socket "$never_socket" state > /dev/null
    t1=$(date +%s%N)
    echo $((t1 - t0)) >> "$work/state.ns"
done
tmux -S "$tmux_socket" kill-server 2> /dev/null || true
for _ in $(seq 100); do kill -0 "$tmux_pid" 2> /dev/null || break; sleep 0.01; done
forget "$tmux_pid"
send_ms="$(milliseconds "$(median < "$work/send.ns")")"
tmux_ms="$(milliseconds "$(median < "$work/tmux.ns")")"
state_ms="$(milliseconds "$(median < "$work/state.ns")")"
row "6. one process, median ms: shell-client send add x; tmux send-keys" "$send_ms" "$tmux_ms" "$(ratio "$send_ms" "$tmux_ms")"
row "6. one process, median ms: shell-client state; tmux send-keys" "$state_ms" "$tmux_ms" "$(ratio "$state_ms" "$tmux_ms")"
fi

# 7: a shell's cost per change, on a core of its own: an attached full-screen shell in tmux
# and a `watch --json`, each change a toggle sent by cama-bench (which waits for its ack), at
# 10 items and at ITEMS items; then Redis: one `redis-cli subscribe`, sent messages of the size
# of the watcher's lines at each size.
if want 7; then
    progress "7: a shell's CPU per change, at 10 and at $items items"
    start_core shells never
    shells_socket="$core_socket"
    shells_pid="$core_pid"
    cama "$shells_socket" --clients 1 --actions 10 --action '{"add":{"text":"item"}}' > /dev/null
    tmux -S "$tmux_socket" new-session -d -s shell -x 100 -y 40 "$bin/shell-client --socket $shells_socket attach"
    attach_pid="$(tmux -S "$tmux_socket" display-message -p -t shell '#{pane_pid}')"
    pids+=("$attach_pid")
    "$bin/shell-client" --socket "$shells_socket" watch --json > "$work/shells-watch.out" 2>> "$work/watchers.log" &
    watch_pid=$!
    pids+=("$watch_pid")
    "$bin/shell-client" --socket "$shells_socket" watch --patches > "$work/shells-patches.out" 2>> "$work/watchers.log" &
    patches_pid=$!
    pids+=("$patches_pid")
    cama "$shells_socket" --wait-shells 3 --timeout 60 > /dev/null || die "the core does not count the shell and the watcher"
    # settle PIDS...: waits until the processes use no more CPU (none for 0.3 s, at most 60 s):
    # what they were still taking in (the list filled before) is not counted.
    settle() {
        local before after pid
        for _ in $(seq 200); do
            before=""; for pid in "$@"; do before+="$(cpu_ticks "$pid") "; done
            sleep 0.3
            after=""; for pid in "$@"; do after+="$(cpu_ticks "$pid") "; done
            [ "$before" = "$after" ] && return 0
        done
        progress "warning: $* still busy after 60 s"
    }
    # shell_round COUNT: COUNT toggles; sets attach_us, watch_us, patches_us (CPU per change), printed
    # (lines the watcher printed) and line_bytes (their mean size).
    shell_round() {
        local a0 w0 p0 a1 w1 p1 lines0 bytes0 lines1 bytes1
        settle "$attach_pid" "$watch_pid" "$patches_pid"
        a0="$(cpu_ticks "$attach_pid")"; w0="$(cpu_ticks "$watch_pid")"; p0="$(cpu_ticks "$patches_pid")"
        lines0="$(wc -l < "$work/shells-watch.out")"; bytes0="$(wc -c < "$work/shells-watch.out")"
        cama "$shells_socket" --clients 1 --actions "$1" --action '{"toggle":{"id":1}}' > /dev/null
        # Both take the last change before they are measured.
        settle "$attach_pid" "$watch_pid" "$patches_pid"
        a1="$(cpu_ticks "$attach_pid")"; w1="$(cpu_ticks "$watch_pid")"; p1="$(cpu_ticks "$patches_pid")"
        lines1="$(wc -l < "$work/shells-watch.out")"; bytes1="$(wc -c < "$work/shells-watch.out")"
        printf 'shell round of %s: attach %s..%s ns, watch %s..%s ns, %s lines\n' "$1" "$a0" "$a1" "$w0" "$w1" "$((lines1 - lines0))" >> "$work/shells.log"
        attach_us="$(per_change $((a1 - a0)) "$1")"
        watch_us="$(per_change $((w1 - w0)) "$1")"
        patches_us="$(per_change $((p1 - p0)) "$1")"
        printed=$((lines1 - lines0))
        watch_per_line="$(per_change $((w1 - w0)) "$printed")"
        line_bytes=$(((bytes1 - bytes0) / (printed > 0 ? printed : 1)))
    }
    # redis_round COUNT BYTES: COUNT messages of BYTES bytes published to one subscriber; sets
    # subscriber_us (its CPU per message).
    redis_round() {
        local s0 s1 pid
        head -c "$2" /dev/zero | tr '\0' 'x' > "$work/payload"
        # Into a file, as the watcher's lines go: both pay for what they write.
        redis-cli -s "$redis_none" subscribe ch > "$work/subscriber.out" 2>> "$work/subscribers.log" &
        pid=$!
        pids+=("$pid")
        for _ in $(seq 3000); do [ "$(redis-cli -s "$redis_none" pubsub numsub ch | tail -1)" = 1 ] && break; sleep 0.02; done
        settle "$pid"
        s0="$(cpu_ticks "$pid")"
        for _ in $(seq "$1"); do redis-cli -s "$redis_none" -x publish ch < "$work/payload" > /dev/null; done
        settle "$pid"
        s1="$(cpu_ticks "$pid")"
        stop "$pid"
        subscriber_us="$(per_change $((s1 - s0)) "$1")"
    }
    small_count=$((toggles * 4))
    shell_round "$small_count"
    attach_small="$attach_us" watch_small="$watch_us" watch_line_small="$watch_per_line" patches_small="$patches_us" bytes_small="$line_bytes" printed_small="$printed"
    cama "$shells_socket" --clients 1 --pipeline 128 --actions $((items - 10)) --action '{"add":{"text":"item"}}' > /dev/null
    shell_round "$toggles"
    attach_big="$attach_us" watch_big="$watch_us" watch_line_big="$watch_per_line" patches_big="$patches_us" bytes_big="$line_bytes" printed_big="$printed"
    tmux -S "$tmux_socket" kill-session -t shell 2> /dev/null || true
    stop "$watch_pid" "$patches_pid" "$shells_pid"
    forget "$attach_pid"
    redis_round "$small_count" "$bytes_small"
    redis_small="$subscriber_us"
    redis_round $((toggles < 100 ? toggles : 100)) "$bytes_big"
    redis_big="$subscriber_us"
    row "7. full-screen attach (tmux), CPU us per change at 10 items" "$attach_small" "-" "-"
    row "7. full-screen attach (tmux), CPU us per change at $items items" "$attach_big" "-" "-"
    row "7. full-screen attach: at $items / at 10 (target <= 1.5)" "$(ratio "$attach_big" "$attach_small")" "-" "-"
    row "7. watch --json, CPU us per change at 10 items" "$watch_small" "-" "-"
    row "7. watch --json, CPU us per change at $items items" "$watch_big" "-" "-"
    row "7. watch --json: at $items / at 10 (target <= 1.5)" "$(ratio "$watch_big" "$watch_small")" "-" "-"
    row "7. watch --patches, CPU us per change at 10 items" "$patches_small" "-" "-"
    row "7. watch --patches, CPU us per change at $items items" "$patches_big" "-" "-"
    row "7. watch --patches: at $items / at 10 (target <= 1.5)" "$(ratio "$patches_big" "$patches_small")" "-" "-"
    row "7. watch --json, CPU us per state printed ($bytes_small B; $printed_small printed); subscribe per message" "$watch_line_small" "$redis_small" "$(ratio "$watch_line_small" "$redis_small")"
    row "7. watch --json, CPU us per state printed ($bytes_big B; $printed_big printed); subscribe per message" "$watch_line_big" "$redis_big" "$(ratio "$watch_line_big" "$redis_big")"
fi

# The table.
echo "$started; $machine; CPUs $idle_before% idle in the second before the run"
width=0
for r in "${rows[@]}"; do label="${r%%|*}"; [ ${#label} -gt "$width" ] && width=${#label}; done
printf "| %-${width}s | %10s | %10s | %10s |\n" "measurement" "CAMA" "Redis" "CAMA/Redis"
printf "|%s|%s|%s|%s|\n" "$(printf -- '-%.0s' $(seq $((width + 2))))" "-----------:" "-----------:" "-----------:"
for r in "${rows[@]}"; do
    IFS='|' read -r label a b c <<< "$r"
    printf "| %-${width}s | %10s | %10s | %10s |\n" "$label" "$a" "$b" "$c"
done

errors="$(cat "$work"/*/core.log | grep -ciE 'error|fail|too_slow|refus' || true)"
if [ "$errors" != 0 ]; then
    progress "the cores logged $errors lines with error, fail, too_slow or refus:"
    cat "$work"/*/core.log | grep -iE 'error|fail|too_slow|refus' | head -10 >&2
fi
