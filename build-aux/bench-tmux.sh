#!/usr/bin/env bash
# Following tmux panes (docs/tmux.md, docs/benchmarks.md "Following tmux"): prints RESULT
# lines (item, figure, goal, measured, verdict, load; tab-separated) like build-aux/bench.sh.
#
# Usage: build-aux/bench-tmux.sh [tmux-cpu] [tmux-idle] [tmux-gate]   (default: all)
#   tmux-cpu   20 followed tmux panes each printing 100 KB/s (10 KB every 0.1 s), 30 s:
#              the tmux server's CPU time without Attend, then with Attend's daemon
#              following them (`[tmux] panes = "all"`), side by side with the daemon's own
#              CPU time in the same window. Goal: daemon / tmux server (with Attend) <= 1.0.
#   tmux-idle  20 idle followed panes (`sh` waiting), 30 s once start-up settled (12 s
#              after the last is followed): the daemon's wake-ups (the sum of voluntary
#              and involuntary context switches of all its threads,
#              /proc/PID/task/*/status). Goal: 0.
#   tmux-gate  a dialog drawn in a followed pane (the recorded Claude Code folder trust,
#              a process named `claude`), 30 times: from the moment it is drawn to its
#              `attention.created` event at a D-Bus client (`attend events --follow`; the
#              notification is sent from the same batch). Goal: p99 <= 150 ms.
#   ATTEND_BIN=path     the attend binary (default target/release/attend)
#   ATTEND_BENCH_SECS=N the measuring window of tmux-cpu and tmux-idle (default 30)
#   ATTEND_BENCH_PROFILE=COMMAND  tmux-idle runs COMMAND (sh -c) instead of sleeping over
#                       its window, `{pid}` the daemon, `{secs}` the window (e.g. `perf
#                       record -e sched:sched_switch -g -o FILE -p {pid} -- sleep {secs}`)
#
# Needs tmux 3.3 and dbus-daemon; runs on a private bus with a private tmux socket
# directory and HOME, so the user's tmux and daemon are never touched.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin=${ATTEND_BIN:-$root/target/release/attend}
secs=${ATTEND_BENCH_SECS:-30}
names=("$@")
[ ${#names[@]} -eq 0 ] && names=(tmux-cpu tmux-idle tmux-gate)
want() { local n; for n in "${names[@]}"; do [ "$n" = "$1" ] && return 0; done; return 1; }
load() { awk '{ printf "load average %s %s %s", $1, $2, $3 }' /proc/loadavg; }
tck=$(getconf CLK_TCK)
# CPU time (ms) of process $1 and its threads: utime + stime.
cpu_ms() { awk -v t="$tck" '{ print ($14 + $15) * 1000 / t }' "/proc/$1/stat"; }
# Context switches (voluntary + involuntary) of each thread of $1: "TID COUNT" lines.
switches() {
    local t
    for t in /proc/"$1"/task/*; do
        awk -v t="${t##*/}" '/^(voluntary|nonvoluntary)_ctxt_switches/ { n += $2 }
            END { print t, n + 0 }' "$t/status" 2>/dev/null || true
    done
}
# Wake-ups between two `switches` listings $1 and $2 (threads in both; a thread that
# started or ended meanwhile counts one, or its count if it started).
wakeups() {
    awk 'NR == FNR { a[$1] = $2; next } { n += ($1 in a) ? $2 - a[$1] : $2 + 1; seen[$1] = 1 }
        END { for (t in a) if (!(t in seen)) n += 1; print n + 0 }' "$1" "$2"
}

work=$(mktemp -d)
export HOME=$work/home XDG_CONFIG_HOME=$work/config XDG_RUNTIME_DIR=$work/run \
    ATTEND_STATE_DIR=$work/state TMUX_TMPDIR=$work/tmux
mkdir -p "$HOME" "$XDG_CONFIG_HOME/attend" "$XDG_RUNTIME_DIR" "$ATTEND_STATE_DIR" "$TMUX_TMPDIR"
chmod 700 "$XDG_RUNTIME_DIR"
unset TMUX TMUX_PANE ATTEND_PANE
eval "$(dbus-daemon --session --fork --print-address=1 --print-pid=1 |
    { read -r a; read -r p; echo "export DBUS_SESSION_BUS_ADDRESS='$a'; bus_pid=$p"; })"
daemon=
cleanup() {
    mkdir -p "$root/target/bench" && cp "$work/daemon.log" "$root/target/bench/tmux-daemon.log" 2>/dev/null
    [ -n "$daemon" ] && kill "$daemon" 2>/dev/null
    tmux kill-server 2>/dev/null || true
    kill "$bus_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

start_daemon() {
    # A fresh state for each benchmark (no panes of the one before).
    rm -rf "$ATTEND_STATE_DIR" && mkdir -p "$ATTEND_STATE_DIR"
    "$bin" daemon --no-tray --no-notifications 2>>"$work/daemon.log" &
    daemon=$!
    for _ in $(seq 100); do "$bin" ls >/dev/null 2>&1 && return 0; sleep 0.1; done
    echo "the daemon did not start" >&2
    return 1
}
stop_daemon() { kill "$daemon"; wait "$daemon" 2>/dev/null || true; daemon=; }
server_pid() { tmux display-message -p '#{pid}'; }
# Waits (at most 60 s) until the daemon follows 20 panes.
all_followed() {
    local n
    for _ in $(seq 600); do
        n=$("$bin" ls --json | grep -o '"kind":"tmux"' | wc -l || true)
        [ "$n" -ge 20 ] && return 0
        sleep 0.1
    done
}
# 20 panes in 20 windows of session `bench`, each running $1 (a shell command).
twenty() {
    tmux -f /dev/null new-session -d -s bench -x 120 -y 40 "$1"
    for _ in $(seq 19); do tmux new-window -d -t bench: "$1"; done
}

if want tmux-cpu; then
    awk 'BEGIN { for (i = 0; i < 100; i++) { for (j = 0; j < 99; j++) printf "x"; printf "\n" } }' >"$work/chunk"
    printf '[tmux]\npanes = "all"\n' >"$XDG_CONFIG_HOME/attend/config.toml"
    twenty "while :; do cat '$work/chunk'; sleep 0.1; done"
    sleep 2
    t=$(server_pid)
    a=$(cpu_ms "$t"); sleep "$secs"; b=$(cpu_ms "$t")
    alone=$(echo "$b - $a" | bc)
    start_daemon
    all_followed
    followed=$("$bin" ls --json | grep -o '"kind":"tmux"' | wc -l || true)
    a=$(cpu_ms "$t"); d0=$(cpu_ms "$daemon"); sleep "$secs"; b=$(cpu_ms "$t"); d1=$(cpu_ms "$daemon")
    with=$(echo "$b - $a" | bc)
    mine=$(echo "$d1 - $d0" | bc)
    ratio=$(echo "scale=2; $mine / $with" | bc)
    verdict=$(echo "$mine <= $with" | bc | sed 's/1/met/; s/0/MISSED/')
    printf 'RESULT\t10\ttmux: 20 followed panes x 100 KB/s, %s s: daemon CPU / tmux server CPU (with Attend)\t<= 1.0\t%s (daemon %s ms, tmux %s ms with Attend, %s ms without; %s panes followed)\t%s\t%s\n' \
        "$secs" "$ratio" "$mine" "$with" "$alone" "$followed" "$verdict" "$(load)"
    stop_daemon
    tmux kill-server
    rm -f "$XDG_CONFIG_HOME/attend/config.toml"
    sleep 1
fi

if want tmux-idle; then
    printf '[tmux]\npanes = "all"\n' >"$XDG_CONFIG_HOME/attend/config.toml"
    twenty "sh"
    start_daemon
    all_followed
    # Start-up settles as in the idle benchmark of owned panes (benches/service/idle.rs):
    # each newly followed pane's first screen is output, so its sampler claims idle 3 s
    # later (SILENCE_WINDOW_MS + IDLE_DEBOUNCE_MS), and tokio's blocking threads (git
    # lookups) end 10 s after their last job. Those wake-ups are counted apart.
    # (Counted before: the daemon's end of a D-Bus call may wake it once more.)
    followed=$("$bin" ls --json | grep -o '"kind":"tmux"' | wc -l || true)
    switches "$daemon" >"$work/sw-start"
    sleep 12
    switches "$daemon" >"$work/sw0"; c0=$(cpu_ms "$daemon")
    settling=$(wakeups "$work/sw-start" "$work/sw0")
    if [ -n "${ATTEND_BENCH_PROFILE:-}" ]; then
        sh -c "$(echo "$ATTEND_BENCH_PROFILE" | sed "s/{pid}/$daemon/g; s/{secs}/$secs/g")" >&2
    else
        sleep "$secs"
    fi
    switches "$daemon" >"$work/sw1"; c1=$(cpu_ms "$daemon")
    n=$(wakeups "$work/sw0" "$work/sw1")
    # Which threads woke (for the docs when the goal is missed).
    for t in $(cut -d' ' -f1 "$work/sw1"); do
        echo "thread $t $(cat "/proc/$daemon/task/$t/comm" 2>/dev/null):" \
            "$(grep "^$t " "$work/sw0" | cut -d' ' -f2) -> $(grep "^$t " "$work/sw1" | cut -d' ' -f2)"
    done >>"$work/daemon.log"
    verdict=$([ "$n" -eq 0 ] && echo met || echo MISSED)
    printf 'RESULT\t10\ttmux: 20 idle followed panes, %s s: daemon wake-ups (context switches, all threads)\t0\t%s (CPU %s ms; %s panes followed; %s while start-up settled, 12 s)\t%s\t%s\n' \
        "$secs" "$n" "$(echo "$c1 - $c0" | bc)" "$followed" "$settling" "$verdict" "$(load)"
    stop_daemon
    tmux kill-server
    rm -f "$XDG_CONFIG_HOME/attend/config.toml"
    sleep 1
fi

if want tmux-gate; then
    fixture=$root/tests/fixtures/screens/claude/2.1.332/folder-trust.txt
    mkdir -p "$work/bin"
    ln -sf /bin/sh "$work/bin/claude"
    # Draws the dialog when told (a line), noting the time just before; Enter answers.
    cat >"$work/gate.sh" <<EOF
while IFS= read -r k; do
  printf '\033[H\033[2J'
  date +%s%N >> '$work/drawn'
  cat '$fixture'
  IFS= read -r k
  printf '\033[H\033[2J\$ '
done
EOF
    start_daemon
    tmux -f /dev/null new-session -d -s gate -x 120 -y 40 "$work/bin/claude $work/gate.sh"
    for _ in $(seq 300); do "$bin" ls --json | grep -q '"kind":"tmux"' && break; sleep 0.1; done
    "$bin" events --follow --json 2>/dev/null | while IFS= read -r l; do
        case $l in *attention.created*input_required*) date +%s%N >>"$work/seen" ;; esac
    done &
    watcher=$!
    sleep 3 # the watcher subscribed
    for _ in $(seq 30); do
        tmux send-keys -t gate: Enter # draw
        sleep 0.7
        tmux send-keys -t gate: Enter # answer in tmux: the dialog goes
        sleep 1.5 # its decision closed (the screen read again) before the next one
    done
    sleep 1
    kill "$watcher" 2>/dev/null || true
    pkill -P "$watcher" 2>/dev/null || true
    touch "$work/drawn" "$work/seen"
    drawn=$(wc -l <"$work/drawn"); seen=$(wc -l <"$work/seen")
    # Each drawing to the first event after it and before the next drawing.
    { sed 's/$/ d/' "$work/drawn"; sed 's/$/ s/' "$work/seen"; } | sort -n |
        awk '$2 == "d" { t = $1; next } t != "" { print ($1 - t) / 1e6; t = "" }' >"$work/each"
    # Each gate's figure in drawing order, for the log (target/bench/tmux-gate.txt).
    mkdir -p "$root/target/bench" && tr '\n' ' ' <"$work/each" >"$root/target/bench/tmux-gate.txt"
    stats=$(sort -n "$work/each" |
        awk '{ v[NR] = $1 } END { if (NR == 0) { print "none"; exit }
             p99 = v[int((NR * 99 + 99) / 100)]; if (p99 == "") p99 = v[NR]
             printf "%.1f %.1f %.1f %d", v[int((NR + 1) / 2)], p99, v[NR], NR }')
    read -r p50 p99 max n <<<"$stats"
    verdict=$(awk -v p="$p99" -v a="$drawn" -v b="$n" 'BEGIN { print (p <= 150 && a == b ? "met" : "MISSED") }')
    printf 'RESULT\t10\ttmux: gate drawn in a followed pane -> its attention.created at a D-Bus client, p50 / p99 / max (ms)\tp99 <= 150\t%s / %s / %s (%s drawn, %s seen)\t%s\t%s\n' \
        "$p50" "$p99" "$max" "$drawn" "$n" "$verdict" "$(load)"
fi
