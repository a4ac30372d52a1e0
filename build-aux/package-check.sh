#!/bin/sh
# Run by build-aux/package-test.sh inside the Debian 12 root where the packages are
# installed, as the user `tester`: the installed programs at work.
# Usage: package-check.sh VERSION [--on-bus]
# Prints what it checked; exits non-zero at the first failure, with the logs.
set -eu
version=$1
work=/tmp/pkgcheck
export XDG_RUNTIME_DIR=$work/run

fail() {
  echo "FAIL: $*"
  for f in "$work"/*.log; do
    [ -s "$f" ] || continue
    echo "--- $f"
    tail -n 30 "$f"
  done
  exit 1
}

# until_true SECONDS WHAT COMMAND...: polls COMMAND every 0.2 s until it succeeds.
until_true() {
  limit=$(($(date +%s) + $1))
  what=$2
  shift 2
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$limit" ] || fail "timed out waiting for $what"
    sleep 0.2
  done
}

if [ "${2:-}" != --on-bus ]; then
  rm -rf "$work"
  mkdir -p "$work/run" "$work/proj"
  chmod 700 "$work/run"
  [ "$(command -v attend)" = /usr/bin/attend ] || fail "attend is not /usr/bin/attend"
  out=$(attend --version)
  [ "$out" = "attend $version" ] || fail "attend --version: '$out', expected 'attend $version'"
  echo "attend --version: $out"
  # install-hooks names the installed hook executable.
  (cd "$work/proj" && attend install-hooks claude) >"$work/install-hooks.log" 2>&1 ||
    fail "attend install-hooks claude"
  grep -q '"/usr/bin/attend-hook claude"' "$HOME/.claude/settings.json" ||
    fail "~/.claude/settings.json does not run /usr/bin/attend-hook: $(cat "$HOME/.claude/settings.json")"
  attend install-hooks claude --uninstall >>"$work/install-hooks.log" 2>&1 ||
    fail "attend install-hooks claude --uninstall"
  echo "install-hooks claude: entries run /usr/bin/attend-hook claude; --uninstall removed them"
  exec dbus-run-session -- sh "$0" "$version" --on-bus
fi

# On a private session bus from here on. Nothing calls the service before the daemon
# says it is ready: a call would start one through D-Bus activation (checked last).
attend daemon --no-tray --no-notifications >"$work/daemon.log" 2>&1 &
daemon=$!
trap 'kill "$daemon" 2>/dev/null || true' EXIT
until_true 30 "the daemon to be ready" grep -q "attend daemon ready" "$work/daemon.log"
attend version >/dev/null || fail "attend version"
echo "attend daemon: ready on a private bus"

# One hook through the installed hook executable (Claude Code's UserPromptSubmit).
printf '%s' '{"session_id": "6b33e0c2-0000-4000-8000-0000000000aa", "transcript_path": "/tmp/pkgcheck/t.jsonl", "cwd": "/tmp/pkgcheck/proj", "prompt_id": "4b15a7d0-0000-4000-8000-0000000000ab", "permission_mode": "default", "hook_event_name": "UserPromptSubmit", "prompt": "the package test"}' |
  /usr/bin/attend-hook claude >"$work/hook.log" 2>&1 || fail "attend-hook claude"
until_true 30 "the hook's pane" sh -c 'attend ls --json | grep -q "\"agent\": *\"claude\""'
echo "/usr/bin/attend-hook claude: its pane is listed: $(attend ls | sed -n 2p)"

# A pane Attend runs: kept by the installed holder.
attend run -- sleep 60 >"$work/run.log" 2>&1 || fail "attend run"
pane=$(tr -d '[:space:]' <"$work/run.log")
holder_runs() {
  for p in /proc/[0-9]*; do
    tr '\0' ' ' 2>/dev/null <"$p/cmdline" | grep -q '^/usr/bin/attend-holder ' && return 0
  done
  return 1
}
until_true 30 "/usr/bin/attend-holder" holder_runs
attend kill "$pane" >>"$work/run.log" 2>&1 || fail "attend kill $pane"
echo "attend run: pane $pane kept by /usr/bin/attend-holder"

# The panel on an Xvfb display shows the pane's workspace.
Xvfb -displayfd 3 -nolisten tcp -screen 0 1024x768x24 3>"$work/display" 2>"$work/xvfb.log" &
xvfb=$!
trap 'kill "$daemon" "$xvfb" ${panel:-} 2>/dev/null || true' EXIT
until_true 30 "Xvfb" test -s "$work/display"
DISPLAY=:$(cat "$work/display") ATTEND_PANEL_DUMP=$work/dump.json GDK_BACKEND=x11 \
  GSK_RENDERER=cairo GTK_A11Y=none NO_AT_BRIDGE=1 attend-panel >"$work/panel.log" 2>&1 &
panel=$!
until_true 60 "the panel to show the pane's workspace" \
  grep -q '"name": "proj"' "$work/dump.json"
grep -q '"state": "online"' "$work/dump.json" || fail "the panel is not online"
kill "$panel"
wait "$panel" 2>/dev/null || true
kill "$xvfb"
wait "$xvfb" 2>/dev/null || true
trap 'kill "$daemon" 2>/dev/null || true' EXIT
echo "attend-panel: starts under Xvfb and shows the workspace 'proj'"

kill "$daemon"
wait "$daemon" || true
echo "attend daemon: stopped"

# D-Bus activation through the installed service file starts /usr/bin/attend daemon.
daemon_pid() {
  for p in /proc/[0-9]*; do
    [ "$(tr '\0' ' ' 2>/dev/null <"$p/cmdline")" = "/usr/bin/attend daemon " ] && echo "${p#/proc/}"
  done
  return 0
}
[ -z "$(daemon_pid)" ] || fail "a daemon still runs"
attend version >"$work/activation.log" 2>&1 || fail "attend version with no daemon running"
activated=$(daemon_pid)
[ -n "$activated" ] || fail "no /usr/bin/attend daemon after a call"
kill "$activated"
until_true 30 "the activated daemon to stop" sh -c "! kill -0 $activated"
echo "D-Bus activation: a call started /usr/bin/attend daemon (io.github.attend.Attend1.service)"
