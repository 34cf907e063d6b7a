#!/usr/bin/env bash
# Coverage-guided fuzzing of CAMA's hand-written readers with libFuzzer.
#
# Builds .build-fuzz/cama-fuzz, one binary holding every target of Fuzz/Targets (Wire,
# CSystemShims, ActorNode and FuzzTargets compiled with swiftc -sanitize=fuzzer,address -O, and
# Fuzz/Entry/main.swift, libFuzzer's entry), rebuilding only what is older than its sources.
# Then runs each named target (default: all, one after the other, one process at a time) for
# SECONDS, starting from .build-fuzz/corpus/TARGET (where new inputs go) and the committed
# Fuzz/Corpus/TARGET and Fuzz/Regressions/TARGET.
#
# It exits non-zero if any target crashed, leaked, timed out or found a disagreement, printing
# the target, the input's path and the input in hex, and the finding. Commit such an input to
# Fuzz/Regressions/TARGET/ with the fix: `swift test --filter FuzzTargetTests` replays it in CI.
#
# Usage: scripts/fuzz.sh [--seconds N] [--list] [--replay] [TARGET...]
#   --seconds N   how long to run each target (default 60)
#   --list        print the targets and what each checks, and exit
#   --replay      run each target once over its committed corpus and regressions, and exit
#   --help        this text
# Environment: FUZZ_SANITIZERS (default fuzzer,address), SWIFTC (default swiftc on PATH).
set -euo pipefail
script="$(readlink -f "$0")"
cd "$(dirname "$script")/.."
root="$PWD"

usage() { sed -n '2,/^set -euo/p' "$script" | sed '$d' | sed 's/^# \{0,1\}//'; }

seconds=60
mode=fuzz
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) [ $# -ge 2 ] || { echo "fuzz.sh: --seconds needs a number" >&2; exit 2; }; seconds="$2"; shift 2 ;;
        --seconds=*) seconds="${1#--seconds=}"; shift ;;
        --list) mode=list; shift ;;
        --replay) mode=replay; shift ;;
        --help|-h) usage; exit 0 ;;
        -*) echo "fuzz.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) targets+=("$1"); shift ;;
    esac
done
case "$seconds" in ''|*[!0-9]*) echo "fuzz.sh: --seconds takes a whole number, not '$seconds'" >&2; exit 2 ;; esac

out="$root/.build-fuzz"
swiftc="${SWIFTC:-$(command -v swiftc)}"
clang="$(dirname "$(readlink -f "$swiftc")")/clang"
[ -x "$clang" ] || clang="$(command -v clang)"
# AddressSanitizer works for every module here (Swift and C); with FUZZ_SANITIZERS=fuzzer the
# build falls back to libFuzzer alone (traps and findings are still caught, memory errors not).
sanitizers="${FUZZ_SANITIZERS:-fuzzer,address}"
c_sanitizers="${sanitizers/fuzzer/fuzzer-no-link}"
binary="$out/cama-fuzz"

# MARK: Build

swift_flags=(-O -gline-tables-only -swift-version 6 -package-name cama -parse-as-library -wmo
    -sanitize="$sanitizers" -module-cache-path "$out/module-cache" -I "$out/modules" -I "$out/shims")

# Whether $1 (an output) is missing or older than any of the other arguments (files or folders).
stale() {
    local target="$1"; shift
    [ -e "$target" ] || return 0
    [ -n "$(find "$@" -newer "$target" -print -quit 2>/dev/null)" ]
}

# Compiles the Swift module $1 from the .swift files under $2, after the objects in $3...
build_module() {
    local module="$1" sources="$2"; shift 2
    local object="$out/objects/$module.o"
    stale "$object" "$sources" "$flags_file" "$@" || return 0
    echo "fuzz.sh: compiling $module" >&2
    local files=()
    while IFS= read -r -d '' file; do files+=("$file"); done < <(find "$sources" -name '*.swift' -print0 | sort -z)
    "$swiftc" "${swift_flags[@]}" -module-name "$module" -c "${files[@]}" -o "$object" \
        -emit-module -emit-module-path "$out/modules/$module.swiftmodule"
    # The compiler leaves an object whose contents did not change as it was, older than the
    # sources that were only touched: stamp it, or it would be compiled again every time.
    touch "$object"
}

# The compiler and the flags of the last build: when they change, everything is rebuilt.
flags_file="$out/flags"

build() {
    mkdir -p "$out/objects" "$out/modules" "$out/shims" "$out/module-cache"
    local flags="$swiftc ${swift_flags[*]} $clang $c_sanitizers"
    [ -f "$flags_file" ] && [ "$(cat "$flags_file")" = "$flags" ] || printf '%s' "$flags" > "$flags_file"
    # CSystemShims: SwiftPM makes its module map; here it is written by hand.
    if stale "$out/objects/CSystemShims.o" Sources/CSystemShims "$flags_file"; then
        echo "fuzz.sh: compiling CSystemShims" >&2
        printf 'module CSystemShims {\n    header "%s"\n    export *\n}\n' "$root/Sources/CSystemShims/include/CSystemShims.h" > "$out/shims/module.modulemap"
        # Its C files, as one object.
        local c_objects=()
        for source in Sources/CSystemShims/*.c; do
            local object="$out/objects/CSystemShims-$(basename "$source" .c).o"
            "$clang" -O1 -g -fsanitize="$c_sanitizers" -I Sources/CSystemShims/include -c "$source" -o "$object"
            c_objects+=("$object")
        done
        ld -r "${c_objects[@]}" -o "$out/objects/CSystemShims.o"
    fi
    build_module Wire Sources/Wire
    build_module ActorNode Sources/ActorNode "$out/objects/Wire.o" "$out/objects/CSystemShims.o"
    build_module FuzzTargets Fuzz/Targets "$out/objects/ActorNode.o"
    if stale "$binary" Fuzz/Entry "$out/objects" "$flags_file"; then
        echo "fuzz.sh: linking cama-fuzz" >&2
        "$swiftc" "${swift_flags[@]}" -module-name CamaFuzz Fuzz/Entry/main.swift \
            "$out/objects/Wire.o" "$out/objects/CSystemShims.o" "$out/objects/ActorNode.o" "$out/objects/FuzzTargets.o" \
            -use-ld=lld -lm -o "$binary"
    fi
}

build

# MARK: Run

# The Swift runtime's backtracer, on a crash under libFuzzer, hangs for a long time: off.
export SWIFT_BACKTRACE=enable=no
# Leaks are reported; a finding's abort() is a crash like any other.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}"

all_targets() { CAMA_FUZZ_LIST=1 "$binary" 2>/dev/null | cut -f1; }

if [ "$mode" = list ]; then
    CAMA_FUZZ_LIST=1 "$binary" | awk -F'\t' '{ printf "%-16s %s\n", $1, $2 }'
    exit 0
fi
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(all_targets)
fi
known=" $(all_targets | tr '\n' ' ') "
for target in "${targets[@]}"; do
    case "$known" in *" $target "*) ;; *) echo "fuzz.sh: unknown target '$target' (see --list)" >&2; exit 2 ;; esac
done

mkdir -p "$out/artifacts" "$out/logs"
failed=()

# Says what went wrong in the run of $1 whose log is $2: the input's path and bytes, and the
# finding or the sanitizer's report.
report_failure() {
    local target="$1" log="$2" input
    echo "fuzz.sh: $target FAILED" >&2
    input="$(sed -n 's/.*Test unit written to \(.*\)$/\1/p; s/^Running: \(.*\)$/\1/p' "$log" | tail -1)"
    if [ -n "$input" ] && [ -f "$input" ]; then
        echo "  input: $input ($(wc -c < "$input") bytes)" >&2
        echo "  hex:   $(od -An -v -tx1 "$input" | head -c 4096 | tr -s ' \n' ' ')" >&2
    fi
    # The finding (to the sanitizer's first line after it), or the sanitizer's report.
    LC_ALL=C awk '/FINDING/ { on = 1 } /^==[0-9]+==/ { on = 0 } on' "$log" | head -20 | sed 's/^/  /' >&2
    grep -aE 'Fatal error|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|==ERROR|timeout|out-of-memory' "$log" | head -10 | sed 's/^/  /' >&2
    # Where it trapped: the first frames of the stack that are this project's code.
    grep -aE '^ +#[0-9]+ .* in (Swift runtime failure|\$s)' "$log" | head -6 | sed 's/^ */  /' >&2 || true
    echo "  log:   $log" >&2
}

for target in "${targets[@]}"; do
    corpora=("$root/Fuzz/Corpus/$target")
    [ -d "$root/Fuzz/Regressions/$target" ] && corpora+=("$root/Fuzz/Regressions/$target")
    log="$out/logs/$target.log"
    if [ "$mode" = replay ]; then
        echo "fuzz.sh: replaying $target" >&2
        inputs=()
        while IFS= read -r -d '' file; do inputs+=("$file"); done < <(find "${corpora[@]}" -type f ! -name '.*' -print0 | sort -z)
        if CAMA_FUZZ_TARGET="$target" "$binary" -runs=1 "${inputs[@]}" > "$log" 2>&1; then
            echo "fuzz.sh: $target: ${#inputs[@]} inputs, clean" >&2
        else
            failed+=("$target"); report_failure "$target" "$log"
        fi
        continue
    fi
    mkdir -p "$out/corpus/$target"
    echo "fuzz.sh: fuzzing $target for ${seconds}s" >&2
    if CAMA_FUZZ_TARGET="$target" "$binary" -max_total_time="$seconds" -timeout=20 -detect_leaks=1 -print_final_stats=1 \
        -artifact_prefix="$out/artifacts/$target-" "$out/corpus/$target" "${corpora[@]}" > "$log" 2>&1; then
        summary="$(grep -aE '^#[0-9]+' "$log" | tail -1)"
        echo "fuzz.sh: $target: clean: $summary" >&2
    else
        failed+=("$target"); report_failure "$target" "$log"
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz.sh: failed: ${failed[*]}" >&2
    exit 1
fi
