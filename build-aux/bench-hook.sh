#!/usr/bin/env bash
# Hook latency benchmark (docs/benchmarks.md, item 1; the hook client must not slow the
# agent down: docs/adapters.md#never-block-never-fail-never-lose): the wall time of
# `attend hook claude` (a real PreToolUse payload, delivered to a running daemon) against
# `dbus-send --print-reply` calling the daemon's `Version` method (the C reference
# client), in the same run, alternating A B A B ….
#
# Usage: build-aux/bench-hook.sh [N]      (N pairs, default 200)
#   ATTEND_BIN=path   the attend binary (default target/release/attend, built when missing)
#
# It starts a private dbus-daemon and `attend daemon` with temporary state, and runs the
# timing loop INSIDE an Attend pane (`attend run -- bash loop`), so the hook takes the real
# path: ATTEND_PANE from the daemon, the pane check against the hook's ancestors, one
# commit per delivery. Times come from bash's $EPOCHREALTIME (a builtin: no process is
# started to read the clock). Prints median and p95 of each command and the ratio of the
# medians and of the p95s (goal: hook/dbus-send <= 1.0). It checks that every hook was
# delivered live (no warning, nothing spooled) and exits 1 otherwise.
set -euo pipefail

n=${1:-200}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${ATTEND_BIN:-$root/target/release/attend}
if [ ! -x "$bin" ]; then
    (cd "$root" && cargo build --release --bin attend)
fi
payload=$root/tests/fixtures/claude/2.1.197/observed/PreToolUse.json

tmp=$(mktemp -d)
bus_pid=
daemon_pid=
cleanup() {
    [ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
    [ -n "$bus_pid" ] && kill "$bus_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

dbus-daemon --session --print-address --nofork --nopidfile >"$tmp/bus" &
bus_pid=$!
for _ in $(seq 100); do [ -s "$tmp/bus" ] && break; sleep 0.05; done
export DBUS_SESSION_BUS_ADDRESS=$(head -n1 "$tmp/bus")
export ATTEND_STATE_DIR=$tmp/state XDG_RUNTIME_DIR=$tmp/run HOME=$tmp
unset ATTEND_PANE
mkdir -p "$tmp/run"

"$bin" daemon --no-tray --no-notifications 2>"$tmp/daemon.log" &
daemon_pid=$!
for _ in $(seq 200); do "$bin" version >/dev/null 2>&1 && break; sleep 0.05; done

cat >"$tmp/loop.sh" <<'EOF'
# Runs in the pane: $1 = N, $2 = attend, $3 = payload, $4 = output directory.
n=$1 bin=$2 payload=$3 out=$4
us() { local t=${EPOCHREALTIME/./}; echo "${t#0}"; }
for ((i = 0; i < n; i++)); do
    a=$(us)
    "$bin" hook claude <"$payload" 2>>"$out/hook.err"
    b=$(us)
    dbus-send --session --print-reply --dest=io.github.attend.Attend1 \
        /io/github/attend/Attend1 io.github.attend.Attend1.Version >/dev/null
    c=$(us)
    echo $((b - a)) >>"$out/hook.us"
    echo $((c - b)) >>"$out/send.us"
done
touch "$out/done"
EOF
: >"$tmp/hook.err"
pane=$("$bin" run --agent claude --cwd "$tmp" -- bash "$tmp/loop.sh" "$n" "$bin" "$payload" "$tmp")
for _ in $(seq 1200); do [ -e "$tmp/done" ] && break; sleep 0.1; done
[ -e "$tmp/done" ] || { echo "bench-hook: the loop did not finish in 120 s" >&2; exit 1; }

# median and p95 (nearest rank) of a file of integers, in ms with two decimals
stats() {
    sort -n "$1" | awk '{ v[NR] = $1 } END {
        m = v[int((NR + 1) / 2)]; p = v[int(NR * 0.95 + 0.999)]
        printf "%.2f %.2f\n", m / 1000, p / 1000 }'
}
read -r hook_med hook_p95 < <(stats "$tmp/hook.us")
read -r send_med send_p95 < <(stats "$tmp/send.us")
# A hook that missed its deadline is spooled, then drained by the daemon (it logs that).
spooled=$(grep -c "hook spool" "$tmp/daemon.log" || true)

echo "attend hook vs dbus-send, $n pairs alternating, in pane $pane ($(nproc) CPUs, $(uname -r))"
echo "| command | median (ms) | p95 (ms) |"
echo "| --- | --- | --- |"
echo "| \`attend hook claude < PreToolUse.json\` | $hook_med | $hook_p95 |"
echo "| \`dbus-send --print-reply … Version\` | $send_med | $send_p95 |"
awk -v a="$hook_med" -v b="$send_med" -v c="$hook_p95" -v d="$send_p95" \
    'BEGIN { printf "| ratio hook / dbus-send | %.2f× | %.2f× |\n", a / b, c / d }'
if [ -s "$tmp/hook.err" ] || [ "$spooled" -ne 0 ]; then
    echo "bench-hook: some hooks were not delivered live (spool drained: $spooled):" >&2
    sort "$tmp/hook.err" | uniq -c | head -5 >&2
    exit 1
fi
