#!/bin/sh
# Installs the Debian 12 packages Attend builds and tests with, when missing.
# Usage: build-aux/deps.sh [build|package|test]
#   build    what `cargo build` needs
#   package  also what build-aux/deb.sh needs: meson, dpkg-dev (dpkg-shlibdeps) and
#            cargo-deb (pinned below; `cargo install` into ~/.cargo/bin, once)
#   test     also what the test suite needs, the package stage's lintian and
#            debootstrap included (docs/packaging.md)
# Uses sudo when not root. Prints what it installs; silent when nothing is missing. Waits
# a bounded time for another apt or dpkg (build-aux/apt.sh, ATTEND_APT_WAIT).
set -eu
mode=${1:-build}
case $mode in
build | package | test) ;;
*)
  echo "attend deps.sh: unknown mode '$mode' (build, package or test)" >&2
  exit 2
  ;;
esac
# cargo-deb builds the .deb files (build-aux/deb.sh); keep in sync with docs/packaging.md.
CARGO_DEB_VERSION=3.8.0
want="build-essential pkg-config git dbus dbus-x11 libgtk-4-dev libadwaita-1-dev gettext"
if [ "$mode" != build ]; then
  want="$want meson dpkg-dev"
fi
if [ "$mode" = test ]; then
  want="$want openssh-client tmux xvfb xauth xdotool imagemagick desktop-file-utils appstream dunst systemd groff-base zsh fish lintian debootstrap"
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
if [ "$mode" != build ] && [ "$(cargo deb --version 2>/dev/null)" != "cargo-deb $CARGO_DEB_VERSION" ]; then
  echo "attend: installing cargo-deb $CARGO_DEB_VERSION (cargo install --locked, into ~/.cargo/bin; a few minutes, once)" >&2
  # Its own temporary target directory, not the project's (CARGO_TARGET_DIR).
  env -u CARGO_TARGET_DIR cargo install --locked --quiet cargo-deb --version "$CARGO_DEB_VERSION"
fi
