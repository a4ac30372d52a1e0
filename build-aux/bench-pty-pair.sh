#!/bin/bash
# One held pane drains MiB mebibytes of 94-byte lines through the daemon BIN; prints the
# wall time until the screen shows the end and the daemon's CPU ticks per thread
# (docs/benchmarks.md, "Panes: after the reactor"). Run two builds alternately to compare
# them under the same load:
#   build-aux/bench-pty-pair.sh target/release/attend [MiB]
set -eu
BIN=$(realpath "$1")
MIB=${2:-64}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export ATTEND_STATE_DIR=$dir/state XDG_RUNTIME_DIR=$dir/run
mkdir -m 700 "$XDG_RUNTIME_DIR"
yes "$(printf '%093d' 0)" | head -c $((MIB * 1048576)) > "$dir/data.txt"
export BIN dir
dbus-run-session -- bash -c '
"$BIN" daemon --no-tray --no-notifications 2>"$dir/daemon.log" & D=$!
until "$BIN" ls >/dev/null 2>&1; do sleep 0.1; done
start=$(date +%s.%N)
P=$("$BIN" run -- sh -c "cat $dir/data.txt; echo DONE-MARK; exec sleep 100")
until dbus-send --session --print-reply --dest=io.github.attend.Attend1 \
    /io/github/attend/Attend1 io.github.attend.Attend1.GetScreen "string:$P" 2>/dev/null |
    grep -q DONE-MARK; do sleep 0.1; done
end=$(date +%s.%N)
echo "wall $(echo "$end - $start" | bc) s; load $(cut -d" " -f1-3 /proc/loadavg)"
for t in /proc/$D/task/*; do
  s=($(sed "s/.*) //" "$t/stat")); echo "$(cat "$t/comm") $((s[11] + s[12])) ticks"
done | sort -k2 -n -r | head -6
"$BIN" stop-all --yes >/dev/null 2>&1 || true
kill $D
'
