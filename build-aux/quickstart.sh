#!/bin/sh
# README quick start, step 1: install what is missing, build, and start the main job —
# the Attend session service with its tray icon and desktop notifications — and open
# the panel (`attend up`). With no agent CLI installed (claude, codex, gemini,
# cursor-agent) it starts the live demo (`attend demo --live`): scripted Claude Code
# panes driven through the real hook path.
#
# Without a display or a session bus (SSH box, CI, a fresh root shell) it runs headless:
# a private bus (when there is none), no tray, no panel, no notifications; the service
# then runs in the foreground and the script prints the bus address for other shells.
#
# Installing packages uses sudo when not run as root. Run this script as your desktop
# user: the service, the tray and the panel must run in your session (a root process
# has no access to your session bus or your Wayland/X11 display).
set -eu

# The headless service: $1 the attend binary, $2 "yes" when an agent CLI is installed;
# the bus is the one in DBUS_SESSION_BUS_ADDRESS. Runs in the foreground.
run_headless() {
  echo "attend: in another shell: export DBUS_SESSION_BUS_ADDRESS='$DBUS_SESSION_BUS_ADDRESS'"
  "$1" daemon --no-tray --no-notifications &
  daemon=$!
  trap 'kill "$daemon" 2>/dev/null' INT TERM
  i=0
  until "$1" version >/dev/null 2>&1; do
    i=$((i + 1))
    if [ "$i" -gt 100 ] || ! kill -0 "$daemon" 2>/dev/null; then
      echo "attend: the daemon did not start" >&2
      exit 1
    fi
    sleep 0.1
  done
  if [ "$2" = no ]; then
    echo "attend: no agent CLI found (claude, codex, gemini, cursor-agent): starting the live demo"
    "$1" demo --live
  fi
  echo "attend: the session service runs in the foreground (Ctrl-C stops it)"
  wait "$daemon"
}

# Re-run by dbus-run-session below, inside the private bus.
if [ "${1:-}" = --private-bus ]; then
  run_headless "$2" "$3"
  exit 0
fi

cd "$(dirname "$0")/.."
build-aux/deps.sh build

gui=yes
if [ -z "${WAYLAND_DISPLAY:-}${DISPLAY:-}" ] || [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then
  gui=no
fi

if [ "$gui" = yes ]; then
  # The panel (GTK 4 + libadwaita, VTE for its live terminal) needs their development
  # files to build; the
  # freedesktop sound theme holds the notification sounds (`[sound]` in config.toml).
  missing=""
  for p in libgtk-4-dev libadwaita-1-dev libvte-2.91-gtk4-dev gettext sound-theme-freedesktop; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
  done
  if [ -n "$missing" ]; then
    echo "attend: installing Debian packages for the panel:$missing" >&2
    # shellcheck source=build-aux/apt.sh
    . build-aux/apt.sh
    attend_apt update
    # shellcheck disable=SC2086
    attend_apt install -y --no-install-recommends $missing
  fi
  # The workspace: attend, attend-panel, attend-hook (the hooks' executable) and
  # attend-holder (one small process per pane) beside them.
  cargo build --release --locked
else
  cargo build --release --locked --no-default-features --bin attend --bin attend-hook --bin attend-holder
fi
bin="$PWD/target/release/attend"

have_agent=no
for a in claude codex gemini cursor-agent; do
  if command -v "$a" >/dev/null 2>&1; then have_agent=yes; fi
done

if [ "$gui" = yes ]; then
  "$bin" up
  if [ "$have_agent" = no ]; then
    echo "attend: no agent CLI found (claude, codex, gemini, cursor-agent): starting the live demo"
    "$bin" demo --live
  fi
  echo "attend: the service runs in the background; \`$bin status\` sums it up, the tray icon's Quit stops it"
  exit 0
fi

echo "attend: no display or no session bus here (SSH, CI): running headless — no tray icon, no panel, no desktop notifications"
if [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then
  run_headless "$bin" "$have_agent"
else
  echo "attend: no session bus: starting a private one"
  exec dbus-run-session -- "$PWD/build-aux/quickstart.sh" --private-bus "$bin" "$have_agent"
fi
