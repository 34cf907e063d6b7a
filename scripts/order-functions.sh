#!/usr/bin/env bash
# Writes scripts/hot-functions.txt, the order scripts/build-release.sh lays functions out in
# (and scripts/hot-sections.ld, for the functions that file cannot name): the functions the
# core runs for each action and those a `watch --json` runs for each state it prints, then the
# rest of what a core runs at all (a list grown and toggled with watchers attached, sixteen
# clients at once, snapshots, a welcome with the whole state, a start that recovers from the
# journal), then what a one-shot `send` and `state` and a watcher run at all; each group
# hottest first (callgrind's count of instructions in the function itself, found by the
# address of each instruction: callgrind's own names leave out what it cannot name).
#
# Why: a hundred watchers take turns on two CPUs, and each one's code has left the caches and
# the TLB by its next turn. Spread over a 20 MB executable, the code a watcher runs for one
# state touches some 200 pages; side by side it fits in a few dozen. Measured (100 watchers,
# 3,000 actions, the same binary but for the layout): 23 against 19 µs of user CPU per state
# printed, 470 against 540 actions/s. A one-shot command's start pages in less of the file.
# And a process's resident memory counts every page of its executable it has touched, with
# its neighbours (the kernel maps 64 KB around a fault): a core's code side by side is about
# 1 MB less of it (bench.sh row 5, the same sources alternated: 2.65 against 2.44 to 2.48 of
# the state's JSON). With the core's code before the shell's, every function placed by the
# address of what ran, and hot-sections.ld, another 0.7 to 0.85 MB less: a core through row
# 5's adds, a welcome and toggles with watchers at 100,000 items held 12.1 MB, then 11.3 to
# 11.5 (its code 927 pages of the executable, then 723).
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
grind=(valgrind --tool=callgrind --dump-instr=yes)
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
# What scripts/bench.sh asks of a core too: sixteen clients at once, and watchers that are
# cama-bench's own connections, which come and go with it.
"$work/cama-bench" --socket "$work/c.sock" --clients 16 --actions 50 --action '{"add":{"text":"item"}}' > /dev/null
"$work/cama-bench" --socket "$work/c.sock" --clients 1 --actions 200 --action '{"toggle":{"id":1}}' --watchers 2 > /dev/null
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
python3 - "$work" "$bin" "$static" scripts/hot-functions.txt scripts/hot-sections.ld << 'EOF'
import bisect, glob, os, re, subprocess, sys
work, bin, static, order_file, script_file = sys.argv[1:6]
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
# Each profile's cost is put on the function whose code holds the instruction, found by its
# address in the executable profiled (callgrind's --dump-instr). By name, callgrind's own, a
# function it could not name (it gives an address instead) or names only demangled (a value
# witness, a metadata instantiation function, a merged function) was left out of the order
# and left where the link put it: some 40 pages a core touches, each in 64 KB of its own.
# Functions with the same code are folded into one (identical code folding): the names at
# one address are all written, since the linker orders by the section that was kept, which
# only one of them, not always the same, names.
aliases = {}
def function_starts(executable):
    """The executable's functions, by address: ([start], [end], [symbol])."""
    listing = subprocess.run(["nm", "--defined-only", "-n", "-S", executable], capture_output=True, text=True).stdout
    starts, ends, names = [], [], []
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) == 3:
            fields.insert(1, None)  # no size: assembly's (crtbegin's, say); it ends where the next begins
        if len(fields) == 4 and fields[2] in "tTwW":
            start = int(fields[0], 16)
            if starts and starts[-1] == start:
                aliases.setdefault(names[-1], []).append(fields[3])
                continue
            if ends and ends[-1] is None:
                ends[-1] = start
            starts.append(start)
            ends.append(None if fields[1] is None else start + int(fields[1], 16))
            names.append(fields[3])
    if ends and ends[-1] is None:
        ends[-1] = starts[-1]
    return starts, ends, names
def costs(profile, executable):
    """{symbol: instructions executed in it} in work/profile.out, for the executable's code."""
    starts, ends, names = function_starts(f"{work}/{executable}")
    found, objects, current, last, after_call, columns = {}, {}, None, 0, False, 1
    for line in open(f"{work}/{profile}.out", errors="replace"):
        if line.startswith("positions:"):
            columns = len(line.split()) - 1  # "instr", or "instr line": the cost comes after
            continue
        if line[0] in "0123456789+-*":
            fields = line.split()
            position = fields[0]
            if position.startswith("0x"):
                last = int(position, 16)
            elif position[0] in "+-":
                last += int(position)
            elif position != "*":
                last = int(position)
            # The line after calls= is the call's inclusive cost: the callee's, not this one's.
            if current and not after_call and len(fields) > columns:
                # Code past the end of the function before it has no symbol of its own.
                index = bisect.bisect_right(starts, last) - 1
                if index >= 0 and last < ends[index]:
                    found[names[index]] = found.get(names[index], 0) + int(fields[columns])
            after_call = False
            continue
        after_call = line.startswith("calls=")
        # An object is named where it first appears (ob=, or cob= for a callee), then numbered.
        match = re.match(r"(c?)ob=\((\d+)\)(?: (.*))?", line.rstrip("\n"))
        if match:
            if match.group(3):
                objects[match.group(2)] = match.group(3)
            if not match.group(1):
                current = objects[match.group(2)] == f"{work}/{executable}"
    return found
profiles = {profile: costs(profile, "core-daemon" if profile in ("core", "life", "recover") else "shell-client") for profile in ["core", "watch", "send", "state", "life", "recover"]}
def share(profile):
    total = sum(profiles[profile].values()) or 1
    return {name: cost / total for name, cost in profiles[profile].items()}
# First what the core runs per action and a watcher per state (each function at least 0.05%
# of its profile), by share; then the rest of what a core runs at all, so that a core's code
# ends there; then what a one-shot command and a watcher run at all.
hot = {}
for profile in ["core", "watch"]:
    for name, part in share(profile).items():
        if part >= 0.0005:
            hot[name] = max(hot.get(name, 0), part)
order = sorted(hot, key=lambda name: -hot[name])
for profile in ["core", "life", "recover", "send", "state", "watch"]:
    order += sorted(profiles[profile], key=lambda name: -profiles[profile][name])
seen, ordered, placed = set(), [], []
own = {name for functions in ours.values() for name, section, binding in functions if section == f".text.{name}"}
for function in order:
    for symbol in [function] + aliases.get(function, []):
        if symbol in seen:
            continue
        seen.add(symbol)
        if symbol not in shared:
            ordered.append(symbol)
        elif symbol in own:
            # Its name is also a function's in a shared section, so the ordering file cannot
            # name it; the linker script takes its section by the section's own name.
            placed.append(symbol)
# And every other such function (a dozen, a few KB), profiled or not: which of them a core
# runs depends on timing (a buffer that grows, say), so a profile may miss one.
placed += sorted(own & shared - set(placed))
with open(order_file + ".new", "w") as file:
    file.write("".join(symbol + "\n" for symbol in ordered))
with open(script_file + ".new", "w") as file:
    file.write("""/* Written by scripts/order-functions.sh; read by scripts/build-release.sh (lld).
   Functions that scripts/hot-functions.txt cannot place, laid out together right before the
   rest of the code, whose start is the hot functions: those the compiler gives no symbol
   (closure contexts' destroyers and outlined helpers, in sections named .text..L...), and
   those a profile ran whose name a shared section (the standard library's one .text) has
   too, taken by their own sections' names. Left where the link put each, beside its
   object's other functions, the few a core runs touched a dozen 64 KB stretches of the
   executable, all kept resident. The rest of the default layout stays (INSERT). */
SECTIONS
{
    .text.unnamed : {
        *(.text..L*)
""" + "".join(f'        *(".text.{symbol}")\n' for symbol in placed) + """    }
}
INSERT BEFORE .text;
""")
os.replace(order_file + ".new", order_file)
os.replace(script_file + ".new", script_file)
print(f"order-functions: {len(ordered)} functions in {order_file}, {len(placed)} more in {script_file}", file=sys.stderr)
EOF
