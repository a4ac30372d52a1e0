#!/bin/sh
# Installs the Debian 12 packages Attend builds and tests with, when missing.
# Usage: build-aux/deps.sh [build|test]   (test adds what the test suite needs)
# Uses sudo when not root. Prints what it installs; silent when nothing is missing. Waits
# a bounded time for another apt or dpkg (build-aux/apt.sh, ATTEND_APT_WAIT).
set -eu
want="build-essential pkg-config git dbus dbus-x11 libgtk-4-dev libadwaita-1-dev gettext"
if [ "${1:-build}" = test ]; then
  want="$want tmux meson libgtk-4-dev libadwaita-1-dev xvfb xauth imagemagick gettext desktop-file-utils appstream dunst systemd groff-base zsh fish"
fi
missing=""
for p in $want; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "attend: installing Debian packages:$missing" >&2
  # shellcheck source=build-aux/apt.sh
  . "$(dirname "$0")/apt.sh"
  attend_apt update
  # shellcheck disable=SC2086
  attend_apt install -y --no-install-recommends $missing
fi
if ! command -v cargo >/dev/null 2>&1; then
  echo "attend: cargo not found; install the Rust toolchain (rustup.rs) and retry" >&2
  exit 1
fi
