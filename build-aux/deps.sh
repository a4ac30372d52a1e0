#!/bin/sh
# Installs the Debian 12 packages Attend builds and tests with, when missing.
# Usage: build-aux/deps.sh [build|test]   (test adds what the test suite needs)
# Uses sudo when not root. Prints what it installs; silent when nothing is missing.
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
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  # shellcheck disable=SC2086
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
if ! command -v cargo >/dev/null 2>&1; then
  echo "attend: cargo not found; install the Rust toolchain (rustup.rs) and retry" >&2
  exit 1
fi
