#!/usr/bin/env bash
# Hook latency benchmark: the wall time and the CPU time of `attend-hook claude` (a real
# PreToolUse payload, delivered to a running daemon) against `dbus-send --print-reply`
# calling the daemon's `Version` method (the C reference client), in the same run,
# alternating; `attend hook claude` (the compatible entry in the big binary) is timed
# alongside for reference. Goals (docs/benchmarks.md): median wall of attend-hook <= 1.1x
# dbus-send's, and CPU time (user + sys) per call <= 1.2x dbus-send's (both use libdbus).
#
# Usage: build-aux/bench-hook.sh [N]      (N rounds, default 200)
#   ATTEND_BIN=path       the attend binary (default target/release/attend)
#   ATTEND_HOOK_BIN=path  the hook executable (default: attend-hook beside ATTEND_BIN)
#   Both are built (release) when missing.
#
# It starts a private dbus-daemon and `attend daemon` with temporary state, and runs the
# timing loop INSIDE an Attend pane (`attend run -- bash loop`), so the hook takes the real
# path: ATTEND_PANE from the daemon, the pane check against the hook's ancestors, one
# commit per delivery. Wall times come from bash's $EPOCHREALTIME (a builtin: no process
# is started to read the clock), per call, alternating A B C A B C …; the CPU time comes
# from bash's `times` (the reaped children's user + sys, from getrusage) around N calls of
# each command in a row, with nothing else started in between. Prints median and p95 of
# the wall times, CPU per call, and the ratios to dbus-send. It checks that every hook was
# delivered live (no warning, nothing spooled) and exits 1 otherwise.
set -euo pipefail

n=${1:-200}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${ATTEND_BIN:-$root/target/release/attend}
hook_bin=${ATTEND_HOOK_BIN:-$(dirname "$bin")/attend-hook}
if [ ! -x "$bin" ] || [ ! -x "$hook_bin" ]; then
    (cd "$root" && cargo build --release --no-default-features --bin attend --bin attend-hook)
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

cat >"$tmp/loop.sh" <<'LOOP'
# Runs in the pane: $1 = N, $2 = attend-hook, $3 = attend, $4 = payload, $5 = output dir.
n=$1 hook=$2 bin=$3 payload=$4 out=$5
us() { local t=${EPOCHREALTIME/./}; echo "${t#0}"; }
send() {
    dbus-send --session --print-reply --dest=io.github.attend.Attend1 \
        /io/github/attend/Attend1 io.github.attend.Attend1.Version >/dev/null
}
for ((i = 0; i < n; i++)); do
    a=$(us)
    "$hook" claude <"$payload" 2>>"$out/hook.err"
    b=$(us)
    send
    c=$(us)
    "$bin" hook claude <"$payload" 2>>"$out/hook.err"
    d=$(us)
    echo $((b - a)) >>"$out/hook.us"
    echo $((c - b)) >>"$out/send.us"
    echo $((d - c)) >>"$out/big.us"
done
# CPU: the children's user + sys (`times`, second line) around n calls of each command.
times >"$out/cpu.0"
for ((i = 0; i < n; i++)); do "$hook" claude <"$payload" 2>>"$out/hook.err"; done
times >"$out/cpu.1"
for ((i = 0; i < n; i++)); do send; done
times >"$out/cpu.2"
for ((i = 0; i < n; i++)); do "$bin" hook claude <"$payload" 2>>"$out/hook.err"; done
times >"$out/cpu.3"
touch "$out/done"
LOOP
: >"$tmp/hook.err"
pane=$("$bin" run --agent claude --cwd "$tmp" -- bash "$tmp/loop.sh" "$n" "$hook_bin" "$bin" "$payload" "$tmp")
for _ in $(seq 3000); do [ -e "$tmp/done" ] && break; sleep 0.1; done
[ -e "$tmp/done" ] || { echo "bench-hook: the loop did not finish in 300 s" >&2; exit 1; }

# median and p95 (nearest rank) of a file of integers, in ms with two decimals
stats() {
    sort -n "$1" | awk '{ v[NR] = $1 } END {
        m = v[int((NR + 1) / 2)]; p = v[int(NR * 0.95 + 0.999)]
        printf "%.2f %.2f\n", m / 1000, p / 1000 }'
}
# children's CPU seconds (user + sys) from the second line of `times` ("0m0.123s 0m0.045s")
cpu() {
    awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); t += a[1] * 60 + a[2] } print t }' "$1"
}
per_call() { awk -v a="$(cpu "$1")" -v b="$(cpu "$2")" -v n="$n" 'BEGIN { printf "%.3f\n", (b - a) * 1000 / n }'; }
read -r hook_med hook_p95 < <(stats "$tmp/hook.us")
read -r send_med send_p95 < <(stats "$tmp/send.us")
read -r big_med big_p95 < <(stats "$tmp/big.us")
hook_cpu=$(per_call "$tmp/cpu.0" "$tmp/cpu.1")
send_cpu=$(per_call "$tmp/cpu.1" "$tmp/cpu.2")
big_cpu=$(per_call "$tmp/cpu.2" "$tmp/cpu.3")
# A hook that missed its deadline is spooled, then drained by the daemon (it logs that).
spooled=$(grep -c "hook spool" "$tmp/daemon.log" || true)

echo "attend-hook vs dbus-send, $n rounds alternating, in pane $pane ($(nproc) CPUs, $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg))"
echo "| command | median wall (ms) | p95 wall (ms) | CPU per call, user + sys (ms) |"
echo "| --- | --- | --- | --- |"
echo "| \`attend-hook claude < PreToolUse.json\` | $hook_med | $hook_p95 | $hook_cpu |"
echo "| \`attend hook claude < PreToolUse.json\` (compatible entry) | $big_med | $big_p95 | $big_cpu |"
echo "| \`dbus-send --print-reply … Version\` | $send_med | $send_p95 | $send_cpu |"
awk -v a="$hook_med" -v b="$send_med" -v c="$hook_p95" -v d="$send_p95" -v e="$hook_cpu" -v f="$send_cpu" \
    'BEGIN { printf "| ratio attend-hook / dbus-send | %.2f× | %.2f× | %.2f× |\n", a / b, c / d, e / f }'
if [ -s "$tmp/hook.err" ] || [ "$spooled" -ne 0 ]; then
    echo "bench-hook: some hooks were not delivered live (spool drained: $spooled):" >&2
    sort "$tmp/hook.err" | uniq -c | head -5 >&2
    exit 1
fi
