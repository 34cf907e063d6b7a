#!/usr/bin/env bash
# Writes scripts/hot-functions.txt, the order scripts/build-release.sh lays functions out in:
# the functions the core runs for each action, then those a `watch --json` runs for each state
# it prints, then those a one-shot `send` and `state` run at all, each group hottest first
# (callgrind's count of instructions in the function itself).
#
# Why: a hundred watchers take turns on two CPUs, and each one's code has left the caches and
# the TLB by its next turn. Spread over a 20 MB executable, the code a watcher runs for one
# state touches some 200 pages; side by side it fits in a few dozen. Measured (100 watchers,
# 3,000 actions, the same binary but for the layout): 23 against 19 µs of user CPU per state
# printed, 470 against 540 actions/s. A one-shot command's start pages in less of the file.
#
# Run it again when the hot paths change (a function renamed or new drops out of the order,
# which costs nothing but the benefit). Needs valgrind and python3; builds the release
# executables first.
#
# Usage: scripts/order-functions.sh  (KEEP=1 keeps the profiles and logs, and says where)
set -euo pipefail
cd "$(dirname "$0")/.."

command -v valgrind > /dev/null || { echo "order-functions: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
command -v python3 > /dev/null || { echo "order-functions: needs python3" >&2; exit 2; }
scripts/build-release.sh > /dev/null
bin="$(scripts/build-release.sh --show-bin-path)"
work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2> /dev/null || true; done
    wait 2> /dev/null || true
    if [ -n "${KEEP:-}" ]; then echo "order-functions: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# Valgrind 3.19 cannot read the DWARF 5 the toolchain writes: profile copies without it.
for name in core-daemon shell-client cama-bench; do objcopy --strip-debug "$bin/$name" "$work/$name"; done
grind=(valgrind --tool=callgrind)
until_socket() { for _ in $(seq 300); do [ -S "$1" ] && return; sleep 0.1; done; echo "order-functions: no socket at $1" >&2; exit 1; }

# The core, 16 clients sending counter increments.
"${grind[@]}" --callgrind-out-file="$work/core.out" "$work/core-daemon" --socket "$work/a.sock" --state-dir "$work/a" --fsync never 2> "$work/core.log" &
pids+=($!)
until_socket "$work/a.sock"
"$work/cama-bench" --socket "$work/a.sock" --clients 16 --actions 1000 > /dev/null

# A watcher, on a core of its own (not profiled), while one client sends.
"$work/core-daemon" --socket "$work/b.sock" --state-dir "$work/b" --fsync never 2> "$work/core-b.log" &
pids+=($!)
until_socket "$work/b.sock"
"${grind[@]}" --callgrind-out-file="$work/watch.out" "$work/shell-client" --socket "$work/b.sock" watch --json > /dev/null 2> "$work/watch.log" &
watcher=$!
pids+=($watcher)
"$work/cama-bench" --socket "$work/b.sock" --wait-shells 1 --timeout 60 > /dev/null
for _ in $(seq 500); do "$work/shell-client" --socket "$work/b.sock" send counter increment; done

# The one-shot commands.
"${grind[@]}" --callgrind-out-file="$work/send.out" "$work/shell-client" --socket "$work/b.sock" send counter increment 2> "$work/send.log"
"${grind[@]}" --callgrind-out-file="$work/state.out" "$work/shell-client" --socket "$work/b.sock" state --json > /dev/null 2> "$work/state.log"

# Callgrind writes its profile when the process ends.
for pid in "${pids[@]}"; do kill -TERM "$pid" 2> /dev/null || true; done
wait 2> /dev/null || true
pids=()

static="$(dirname "$(dirname "$(command -v swift)")")/lib/swift_static"
python3 - "$work" "$bin" "$static" > scripts/hot-functions.txt << 'EOF'
import glob, re, subprocess, sys
work, bin, static = sys.argv[1:4]
executables = [f"{bin}/core-daemon", f"{bin}/shell-client"]
# A function compiled into an object's one `.text` with others (most of the Swift standard
# library's) cannot be moved alone: naming it would bring the whole section (1.6 MB for the
# standard library) to the front. Only functions in a section of their own are named.
shared = set()
for path in glob.glob(f"{bin}/*.build/*.o") + glob.glob(f"{static}/**/*.a", recursive=True):
    listing = subprocess.run(["readelf", "-SWsW", path], capture_output=True).stdout.decode("utf-8", "replace")
    sections = {}
    for line in listing.splitlines():
        if line.startswith("File: "):
            sections = {}
        section = re.match(r"\s*\[\s*(\d+)\]\s+(\S+)", line)
        if section:
            sections[section.group(1)] = section.group(2)
            continue
        symbol = re.match(r"\s*\d+:\s+\S+\s+\d+\s+FUNC\s+\S+\s+\S+\s+(\d+)\s+(\S+)", line)
        if symbol and sections.get(symbol.group(1)) == ".text":
            shared.add(symbol.group(2))
# Callgrind names C++ functions demangled; the order file needs the symbols.
symbols = {}
for executable in executables:
    mangled = subprocess.run(["nm", executable], capture_output=True, text=True).stdout.splitlines()
    demangled = subprocess.run(["nm", "-C", executable], capture_output=True, text=True).stdout.splitlines()
    for raw, readable in zip(mangled, demangled):
        raw_name, readable_name = raw.split(" ", 2)[-1], readable.split(" ", 2)[-1]
        symbols.setdefault(raw_name, raw_name)
        symbols.setdefault(readable_name, raw_name)
def costs(profile):
    listing = subprocess.run(["callgrind_annotate", "--threshold=100", f"{work}/{profile}.out"], capture_output=True, text=True).stdout
    found = {}
    for line in listing.splitlines():
        match = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?\?\?\?:(.*) \[(.*)\]$", line)
        if match and match.group(3).startswith(work):
            name = re.sub(r"'\d+$", "", match.group(2))
            found[name] = found.get(name, 0) + int(match.group(1).replace(",", ""))
    return found
profiles = {profile: costs(profile) for profile in ["core", "watch", "send", "state"]}
def share(profile):
    total = sum(profiles[profile].values()) or 1
    return {name: cost / total for name, cost in profiles[profile].items()}
# First what the core runs per action and a watcher per state (each function at least 0.05%
# of its profile), by share; then what a one-shot command runs at all; then the rest.
hot = {}
for profile in ["core", "watch"]:
    for name, part in share(profile).items():
        if part >= 0.0005:
            hot[name] = max(hot.get(name, 0), part)
order = sorted(hot, key=lambda name: -hot[name])
for profile in ["send", "state", "core", "watch"]:
    order += sorted(profiles[profile], key=lambda name: -profiles[profile][name])
seen = set()
for name in order:
    symbol = symbols.get(name)
    if symbol and symbol not in seen and symbol not in shared:
        seen.add(symbol)
        print(symbol)
EOF
echo "order-functions: $(wc -l < scripts/hot-functions.txt) functions in scripts/hot-functions.txt" >&2
