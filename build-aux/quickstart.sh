#!/bin/sh
# README quick start, step 1: install what is missing, build, and run the main job —
# the Attend session service (`attend daemon`) — after showing the built-in demo.
# Without a D-Bus session bus (SSH box, fresh root shell) it runs on a private bus and
# prints its address so `attend` commands in another shell can reach it.
set -eu
cd "$(dirname "$0")/.."
build-aux/deps.sh build
cargo build --release --locked
bin="$PWD/target/release/attend"
"$bin" demo
echo
echo "attend: starting the session service (Ctrl-C stops it)"
if [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then
  exec "$bin" daemon "$@"
fi
echo "attend: no session bus here; starting a private one"
exec dbus-run-session -- sh -c 'echo "attend: export DBUS_SESSION_BUS_ADDRESS=$DBUS_SESSION_BUS_ADDRESS"; exec "$0" daemon "$@"' "$bin" "$@"
