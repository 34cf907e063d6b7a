#!/usr/bin/env bash
# --ssh benchmark: `shell-client send` to a core on "another machine" (an sshd of its own on
# 127.0.0.1, with throwaway keys), as whole processes, with the shared ssh connection (the
# default) and without it, beside a local `shell-client send` and `ssh HOST true` (on a new
# connection, and on a shared one: the floor of a session, the remote shell's start). Each
# is run N times in turn (A B C D A B C D ...) and timed from outside with bash's own clock
# ($EPOCHREALTIME). Prints per-process milliseconds (median, 10th and 90th percentile) side by
# side. It builds what it runs as the README says (scripts/build-release.sh), and stops
# every process it started, by pid (sshd, the core, the shared ssh connection).
#
# Usage: scripts/bench-remote.sh [N]   (default 20)
# Needs sshd, ssh and ssh-keygen (Debian: openssh-server, openssh-client). The core runs with
# --fsync never, so that the disk is not what is measured.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-20}"

for tool in /usr/sbin/sshd ssh ssh-keygen; do
    command -v "$tool" > /dev/null || { echo "bench-remote: $tool is needed (apt-get install openssh-server openssh-client)" >&2; exit 2; }
done
[ -n "${EPOCHREALTIME:-}" ] || { echo "bench-remote: needs bash 5 (EPOCHREALTIME)" >&2; exit 2; }
if [ "$(id -u)" = 0 ] && [ ! -d /run/sshd ]; then mkdir -m 755 /run/sshd; fi

build=(scripts/build-release.sh)
"${build[@]}" --product core-daemon > /dev/null
"${build[@]}" --product shell-client > /dev/null
bin="$("${build[@]}" --show-bin-path)"
work="$(mktemp -d /tmp/cama-remote-XXXXXX)"
pids=()
cleanup() {
    for pid in "${pids[@]:-}"; do kill "$pid" 2> /dev/null || true; done
    # The shared connection outlives its commands for a while: end it by pid too.
    pkill -f "$work" 2> /dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# The "other machine": sshd on a free port of 127.0.0.1, keys made for this run only.
port=$((20000 + RANDOM % 20000))
ssh-keygen -q -t ed25519 -N '' -f "$work/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$work/user_key"
cp "$work/user_key.pub" "$work/authorized_keys"
chmod 600 "$work/authorized_keys"
echo "[127.0.0.1]:$port $(cat "$work/host_key.pub")" > "$work/known_hosts"
cat > "$work/sshd_config" << EOF
Port $port
ListenAddress 127.0.0.1
HostKey $work/host_key
AuthorizedKeysFile $work/authorized_keys
PidFile none
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin yes
LogLevel ERROR
EOF
cat > "$work/ssh_config" << EOF
Host loop
  HostName 127.0.0.1
  Port $port
  User $(id -un)
  IdentityFile $work/user_key
  IdentitiesOnly yes
  IdentityAgent none
  UserKnownHostsFile $work/known_hosts
  StrictHostKeyChecking yes
  BatchMode yes
  LogLevel ERROR
EOF
/usr/sbin/sshd -D -e -f "$work/sshd_config" 2> "$work/sshd.log" &
pids+=($!)
mkdir -m 700 "$work/core" "$work/run"
"$bin/core-daemon" --socket "$work/core/core.sock" --state-dir "$work/core/state" --fsync never 2> "$work/core.log" &
pids+=($!)
for _ in $(seq 500); do [ -S "$work/core/core.sock" ] && ssh -F "$work/ssh_config" loop true 2> /dev/null && break; sleep 0.02; done

socket="$work/core/core.sock"
remote=(--ssh loop --remote-command "$bin/shell-client" --socket "$socket")
export XDG_RUNTIME_DIR="$work/run"
local_send() { "$bin/shell-client" send counter increment --socket "$socket"; }
bare_ssh() { ssh -F "$work/ssh_config" loop true; }
# The floor of a shared connection: a session on it that runs `true` (the remote user's shell
# and its startup files run for every session, --ssh's bridge included).
shared_ssh() { ssh -F "$work/ssh_config" -o ControlMaster=auto -o ControlPath="$work/run/floor" -o ControlPersist=60 loop true; }
shared_send() { CAMA_SSH="ssh -F $work/ssh_config" "$bin/shell-client" send counter increment "${remote[@]}"; }
# $CAMA_SSH naming a Control option: CAMA adds no sharing of its own, so each send pays the handshake.
fresh_send() { CAMA_SSH="ssh -F $work/ssh_config -o ControlMaster=no -o ControlPath=none" "$bin/shell-client" send counter increment "${remote[@]}"; }

names=(local_send bare_ssh shared_ssh shared_send fresh_send)
for name in "${names[@]}"; do "$name" > /dev/null; : > "$work/$name.times"; done # warm-up, not counted
for _ in $(seq "$runs"); do
    for name in "${names[@]}"; do
        t0=${EPOCHREALTIME//[!0-9]/}; "$name" > /dev/null; t1=${EPOCHREALTIME//[!0-9]/}
        echo $((t1 - t0)) >> "$work/$name.times"
    done
done
sent=$("$bin/shell-client" state --json --socket "$socket" | sed 's/.*"counter":{"value":\([0-9]*\)}.*/\1/')
expected=$((3 + 3 * runs))
[ "$sent" = "$expected" ] || { echo "bench-remote: the counter is $sent, expected $expected: a send was lost or doubled" >&2; exit 1; }

percentiles() {
    sort -n "$1" | awk '{ v[NR] = $1 } END {
        printf "%8.2f %8.2f %8.2f", v[int((NR + 1) / 2)] / 1e3, v[int(NR * 0.1) + 1] / 1e3, v[int(NR * 0.9)] / 1e3 }'
}
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); $(ssh -V 2>&1 | cut -d, -f1); $(date -u +%Y-%m-%d)"
echo "$runs runs each, in turn; milliseconds per process (the counter: $sent, as expected)"
printf "%-52s %8s %8s %8s\n" "" median p10 p90
printf "%-52s %s\n" "shell-client send, local socket" "$(percentiles "$work/local_send.times")"
printf "%-52s %s\n" "ssh HOST true (a new connection each time)" "$(percentiles "$work/bare_ssh.times")"
printf "%-52s %s\n" "ssh HOST true, on a shared connection" "$(percentiles "$work/shared_ssh.times")"
printf "%-52s %s\n" "shell-client --ssh HOST send, shared connection" "$(percentiles "$work/shared_send.times")"
printf "%-52s %s\n" "shell-client --ssh HOST send, a new connection each" "$(percentiles "$work/fresh_send.times")"
