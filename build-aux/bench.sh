#!/usr/bin/env bash
# All benchmarks (docs/benchmarks.md, items 1–9) in one command; prints every goal with the
# measured figure and ratio as one Markdown table (the one kept in docs/benchmarks.md), with
# the machine load next to each row.
#
# Usage: build-aux/bench.sh [NAME…]
#   NAME: engine, hook-rt (item 1, build-aux/bench-hook.sh: attend-hook against
#   dbus-send, wall and CPU), store, hook, pty, idle,
#   memory, latency, scale, hook-pty, holders (item 8: PSS and threads per pane
#   holder, `attend-holder` and the `attend __holder` fallback), panes (item 8: daemon
#   threads, RSS and descriptors with 10, 100, 1 000 running panes), working (item 9: 6
#   and 12 real Claude Code panes mid-turn, the daemon's and holders' CPU time against one
#   tmux server's; needs the agents of build-aux/agents.sh), tmux-cpu, tmux-idle, tmux-gate
#   (item 10, build-aux/bench-tmux.sh: following 20 tmux panes printing 100 KB/s, the
#   daemon's CPU against the tmux server's; 20 idle followed panes' wake-ups; a gate drawn
#   in a followed pane to its event) (default: all).
#   Release builds; takes about 15 minutes on 2 cores, most of it building.
#   ATTEND_BENCH_ROUNDS=N  timed rounds of item 3, PTY throughput (default 5, after one
#                    untimed warm-up round of each contender).
#   ATTEND_BENCH_PANES=6,12  pane counts of item 9 (default 6,12).
#   ATTEND_BENCH_PROFILE=COMMAND  item 9 runs COMMAND (sh -c) over its window, `{pid}`
#                    the daemon, `{secs}` the window (e.g. `perf record -g -p {pid} --
#                    sleep {secs}`); the figures then include the profiler's overhead.
#   ATTEND_BIN=path  measure another attend binary in the service benchmarks (e.g. an
#                    older build, for before/after figures).
#
# Needs dbus-daemon and tmux 3.3 (build-aux/deps.sh installs them). The full log goes to
# target/bench/bench.log.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
all=(engine hook-rt store hook pty idle memory latency scale hook-pty holders panes working
    tmux-cpu tmux-idle tmux-gate)
names=("$@")
[ ${#names[@]} -eq 0 ] && names=("${all[@]}")
out=$root/target/bench
mkdir -p "$out"
log=$out/bench.log
: >"$log"
: >"$out/results"

want() { local n; for n in "${names[@]}"; do [ "$n" = "$1" ] && return 0; done; return 1; }
load() { awk '{ printf "load average %s %s %s", $1, $2, $3 }' /proc/loadavg; }

echo "building (release)…" >&2
cargo build --release --no-default-features --bin attend --bin attend-hook --bin attend-holder \
    --example bare_pty >>"$log" 2>&1

if want engine; then
    cargo bench --no-default-features --bench engine 2>>"$log" | tee -a "$log" |
        awk -v load="$(load)" '/signals\/s$/ { rate = $(NF - 1) }
            END { printf "RESULT\t2\tengine: signals/s, one core\t>= 1 000 000\t%d (%.1fx)\t%s\t%s\n",
                  rate, rate / 1e6, (rate >= 1e6 ? "met" : "MISSED"), load }' >>"$out/results"
fi

if want hook-rt; then
    if [ -x build-aux/bench-hook.sh ]; then
        if ATTEND_BIN=${ATTEND_BIN:-$root/target/release/attend} build-aux/bench-hook.sh \
            >"$out/hook-rt.txt" 2>>"$log"; then
            cat "$out/hook-rt.txt" >>"$log"
            # The wall goal (median <= 1.1x) and the CPU goal (user + sys per call <= 1.2x).
            awk -F'|' -v load="$(load)" '/^\| `attend-hook claude/ { hook = $5 + 0 }
                /^\| `dbus-send/ { send = $5 + 0 }
                /ratio attend-hook \/ dbus-send/ {
                    gsub(/[ ×]/, "", $3); gsub(/[ ×]/, "", $4); gsub(/[ ×]/, "", $5)
                    printf "RESULT\t1\thook round trip (attend-hook) / dbus-send Version, median wall (p95)\t<= 1.1\t%.2f (%.2f)\t%s\t%s\n",
                        $3, $4, ($3 <= 1.1 ? "met" : "MISSED"), load
                    printf "RESULT\t1\thook CPU per call (user + sys), attend-hook / dbus-send\t<= 1.2\t%.2f (%.3f vs %.3f ms)\t%s\t%s\n",
                        $5, hook, send, ($5 <= 1.2 ? "met" : "MISSED"), load }' "$out/hook-rt.txt" >>"$out/results"
        else
            printf 'RESULT\t1\thook round trip / dbus-send\t<= 1.1\tfailed (see %s)\tMISSED\t%s\n' \
                "$log" "$(load)" >>"$out/results"
        fi
    else
        printf 'RESULT\t1\thook round trip / dbus-send\t<= 1.1\tnot measured (build-aux/bench-hook.sh missing)\t-\t%s\n' \
            "$(load)" >>"$out/results"
    fi
fi

service=()
for n in store hook pty idle memory latency scale hook-pty holders panes working; do want "$n" && service+=("$n"); done
if [ ${#service[@]} -gt 0 ]; then
    cargo bench --no-default-features --bench service -- "${service[@]}" 2>>"$log" |
        tee -a "$log" | grep '^RESULT' >>"$out/results" || true
fi

tmux=()
for n in tmux-cpu tmux-idle tmux-gate; do want "$n" && tmux+=("$n"); done
if [ ${#tmux[@]} -gt 0 ]; then
    ATTEND_BIN=${ATTEND_BIN:-$root/target/release/attend} build-aux/bench-tmux.sh "${tmux[@]}" \
        2>>"$log" | tee -a "$log" | grep '^RESULT' >>"$out/results" || true
fi

echo
echo "| item | figure | goal | measured | verdict | machine load |"
echo "| --- | --- | --- | --- | --- | --- |"
sort -s -t$'\t' -k2,2n "$out/results" |
    awk -F'\t' '{ printf "| %s | %s | %s | %s | %s | %s |\n", $2, $3, $4, $5, $6, $7 }'
rm -f "$out/results"
echo
echo "($(nproc) CPUs, $(uname -r); full log: $log)"
