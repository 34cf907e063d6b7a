#!/usr/bin/env bash
# Writes scripts/hot-functions.txt, the order scripts/build-release.sh lays functions out in:
# the functions the core runs for each action, then those a `watch --json` runs for each state
# it prints, then those a one-shot `send` and `state` run at all, then those a core runs at all
# (a list grown and toggled with a watcher attached, snapshots, a welcome with the whole
# state, a start that recovers from the journal), each group hottest first (callgrind's count
# of instructions in the function itself).
#
# Why: a hundred watchers take turns on two CPUs, and each one's code has left the caches and
# the TLB by its next turn. Spread over a 20 MB executable, the code a watcher runs for one
# state touches some 200 pages; side by side it fits in a few dozen. Measured (100 watchers,
# 3,000 actions, the same binary but for the layout): 23 against 19 µs of user CPU per state
# printed, 470 against 540 actions/s. A one-shot command's start pages in less of the file.
# And a process's resident memory counts every page of its executable it has touched, with
# its neighbours (the kernel maps 64 KB around a fault): a core's code side by side is about
# 1 MB less of it (bench.sh row 5, the same sources alternated: 2.65 against 2.44 to 2.48 of
# the state's JSON).
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

# Everything else a core does in a day, in a core of its own: a list grown and toggled, a watcher
# attached, a welcome with the whole state; then a start that recovers it from its journal.
# (A small --snapshot-every, so that it takes snapshots and starts journal files.)
"${grind[@]}" --callgrind-out-file="$work/life.out" "$work/core-daemon" --socket "$work/c.sock" --state-dir "$work/c" --fsync never --snapshot-every 65536 2> "$work/core-c.log" &
life=$!
pids+=($life)
until_socket "$work/c.sock"
"$work/shell-client" --socket "$work/c.sock" watch --json > /dev/null 2> "$work/watch-c.log" &
pids+=($!)
"$work/cama-bench" --socket "$work/c.sock" --wait-shells 1 --timeout 60 > /dev/null
"$work/cama-bench" --socket "$work/c.sock" --clients 1 --pipeline 64 --actions 4000 --action '{"add":{"text":"item"}}' > /dev/null
"$work/cama-bench" --socket "$work/c.sock" --clients 2 --actions 200 --action '{"toggle":{"id":1}}' > /dev/null
"$work/shell-client" --socket "$work/c.sock" send add x > /dev/null
"$work/shell-client" --socket "$work/c.sock" state --json > /dev/null
kill -TERM "$life"
wait "$life" 2> /dev/null || true
"${grind[@]}" --callgrind-out-file="$work/recover.out" "$work/core-daemon" --socket "$work/c.sock" --state-dir "$work/c" --fsync never 2> "$work/core-recover.log" &
pids+=($!)
until_socket "$work/c.sock"
"$work/shell-client" --socket "$work/c.sock" state --json > /dev/null

# Callgrind writes its profile when the process ends.
for pid in "${pids[@]}"; do kill -TERM "$pid" 2> /dev/null || true; done
wait 2> /dev/null || true
pids=()

static="$(dirname "$(dirname "$(command -v swift)")")/lib/swift_static"
python3 - "$work" "$bin" "$static" > scripts/hot-functions.txt << 'EOF'
import glob, os, re, subprocess, sys
work, bin, static = sys.argv[1:4]
executables = [f"{bin}/core-daemon", f"{bin}/shell-client"]
# A function compiled into an object's one `.text` with others (most of the Swift standard
# library's) cannot be moved alone: naming it would bring the whole section (2 MB for the
# standard library) to the front. So a name is left out when, in any executable the order is
# linked into, such a section holds a function of that name that the linker keeps: a local
# one (each object keeps its own) or a global one; or a weak one (a specialization or value
# witness the compiler emits in every module that uses it) unless one of the executable's own
# objects defines it in a section of its own (the linker keeps the first definition, and an
# executable's objects come before the archives). An executable's objects are its product's
# link file list; an archive member is in it if it holds one of the member's global functions.
def functions_of(path):
    """Each object in path (an object, or an archive's members): [(name, section, binding)]."""
    listing = subprocess.run(["readelf", "-SWsW", path], capture_output=True).stdout.decode("utf-8", "replace")
    objects, sections = [], {}
    for line in listing.splitlines():
        if line.startswith("File: "):
            objects.append([])
            sections = {}
        section = re.match(r"\s*\[\s*(\d+)\]\s+(\S+)", line)
        if section:
            sections[section.group(1)] = section.group(2)
            continue
        symbol = re.match(r"\s*\d+:\s+\S+\s+\d+\s+FUNC\s+(\S+)\s+\S+\s+(\d+)\s+(\S+)", line)
        if symbol:
            if not objects:
                objects.append([])
            objects[-1].append((symbol.group(3), sections.get(symbol.group(2)), symbol.group(1)))
    return objects
members = [functions for archive in glob.glob(f"{static}/**/*.a", recursive=True) for functions in functions_of(archive)]
ours = {}
shared = set()
for link_list in glob.glob(f"{bin}/*.product/Objects.LinkFileList"):
    executable = link_list[: -len(".product/Objects.LinkFileList")]
    if not os.path.isfile(executable):
        continue
    defined = set(line.split()[-1] for line in subprocess.run(["nm", "--defined-only", executable], capture_output=True, text=True).stdout.splitlines())
    objects = []
    for path in open(link_list).read().split():
        if path not in ours:
            ours[path] = [function for functions in functions_of(path) for function in functions]
        objects.append(ours[path])
    own_section = {name for functions in objects for name, section, binding in functions if section == f".text.{name}" and binding != "LOCAL"}
    linked = objects + [functions for functions in members if any(binding == "GLOBAL" and section and name in defined for name, section, binding in functions)]
    for functions in linked:
        for name, section, binding in functions:
            if section == ".text" and (binding != "WEAK" or name not in own_section):
                shared.add(name)
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
profiles = {profile: costs(profile) for profile in ["core", "watch", "send", "state", "life", "recover"]}
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
for profile in ["send", "state", "core", "watch", "life", "recover"]:
    order += sorted(profiles[profile], key=lambda name: -profiles[profile][name])
seen = set()
for name in order:
    symbol = symbols.get(name)
    if symbol and symbol not in seen and symbol not in shared:
        seen.add(symbol)
        print(symbol)
EOF
echo "order-functions: $(wc -l < scripts/hot-functions.txt) functions in scripts/hot-functions.txt" >&2
