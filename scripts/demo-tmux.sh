#!/usr/bin/env bash
# A live demo in tmux: a launcher with its full-screen shell on the left, a second shell and a
# watcher on the right, all on one private socket. In either shell press a to add an item,
# space to toggle it, ? for every key, and watch every pane follow. Detach with C-b d;
# `tmux kill-session -t cama-demo` ends it (the launcher then stops its core).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v tmux > /dev/null || { echo "demo-tmux: tmux is not installed (apt-get install tmux)" >&2; exit 2; }

swift build
bin="$(swift build --show-bin-path)"
dir="$(mktemp -d /tmp/cama-demo-XXXXXX)"
socket="$dir/core.sock"

tmux new-session -d -s cama-demo -x 160 -y 40 "$bin/cama-launch --socket $socket --state-dir $dir/state"
for _ in $(seq 100); do "$bin/shell-client" --socket "$socket" state > /dev/null 2>&1 && break; sleep 0.05; done
tmux split-window -h -t cama-demo "$bin/shell-client attach --socket $socket"
tmux split-window -v -t cama-demo "$bin/shell-client watch --socket $socket"
tmux select-pane -t cama-demo:0.0
echo "socket: $socket   script it with: $bin/shell-client --socket $socket send add \"buy milk\""
exec tmux attach -t cama-demo
