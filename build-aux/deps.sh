#!/bin/sh
# Installs the Debian 12 packages Attend builds and tests with, when missing.
# Usage: build-aux/deps.sh [build|package|test]
#   build    what `cargo build` needs
#   package  also what build-aux/deb.sh needs: meson, dpkg-dev (dpkg-shlibdeps) and
#            cargo-deb (pinned below; `cargo install` into ~/.cargo/bin, once)
#   test     also what the test suite needs, the package stage's lintian and
#            debootstrap included (docs/packaging.md), and openssh-server for the tests'
#            own sshd on 127.0.0.1 (docs/reliability.md#sshd-tests): installed with its
#            system service off, so nothing ever listens on port 22 because of this; and
#            python3-venv, for the PyPI agents' virtual environments (build-aux/agents.sh)
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
# libdbus-1-dev: the hook executable links libdbus (crates/attend-hook, the `dbus` crate).
# libvte-2.91-gtk4-dev: the panel's live terminal (VTE 0.70 for GTK 4, the `vte4` crate).
want="build-essential pkg-config git dbus dbus-x11 libdbus-1-dev libgtk-4-dev libadwaita-1-dev libvte-2.91-gtk4-dev gettext"
if [ "$mode" != build ]; then
  want="$want meson dpkg-dev"
fi
if [ "$mode" = test ]; then
  want="$want tmux xvfb xauth xdotool imagemagick desktop-file-utils appstream dunst systemd groff-base zsh fish lintian debootstrap openssh-client openssh-server python3-venv"
fi
# openssh-server is installed for the tests only (they start their own sshd on a free
# port of 127.0.0.1 with a private config): its system service must never run. Debian's
# switch /etc/ssh/sshd_not_to_be_run keeps both its init script and ssh.service from
# starting sshd (now and at every boot; removing the file turns the service back on);
# during the install a policy-rc.d that refuses every start (unless the machine already
# has one, as containers do) keeps the package's postinst from starting it, and where
# systemctl exists the unit is disabled as well. Done only when this script installs the
# package: an openssh-server installed before is left as it is.
sudo_=""
[ "$(id -u)" -eq 0 ] || sudo_=sudo
policy_made=""
ssh_installing=""
ssh_off() {
  ssh_installing=yes
  $sudo_ mkdir -p /etc/ssh
  $sudo_ touch /etc/ssh/sshd_not_to_be_run
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    trap ssh_off_end EXIT
    trap 'exit 130' INT TERM
    policy_made=yes
    printf '#!/bin/sh\n# build-aux/deps.sh: no service starts while it installs packages\nexit 101\n' |
      $sudo_ tee /usr/sbin/policy-rc.d >/dev/null
    $sudo_ chmod 755 /usr/sbin/policy-rc.d
  fi
  echo "attend: openssh-server is for the tests' own sshd on 127.0.0.1: its system service stays off (/etc/ssh/sshd_not_to_be_run)" >&2
}
ssh_off_end() {
  if [ -n "$policy_made" ]; then
    $sudo_ rm -f /usr/sbin/policy-rc.d
    policy_made=""
  fi
  if [ -n "$ssh_installing" ] && command -v systemctl >/dev/null 2>&1; then
    $sudo_ systemctl disable --quiet ssh.service >/dev/null 2>&1 || true
  fi
  ssh_installing=""
}
missing=""
for p in $want; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "attend: installing Debian packages:$missing" >&2
  # shellcheck source=build-aux/apt.sh
  . "$(dirname "$0")/apt.sh"
  attend_apt update
  case " $missing " in
  *" openssh-server "*) ssh_off ;;
  esac
  # shellcheck disable=SC2086
  attend_apt install -y --no-install-recommends $missing
  ssh_off_end
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
