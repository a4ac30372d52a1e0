#!/bin/sh
# Builds the Debian packages into target/debian/ (docs/packaging.md):
#   attend_<version>-1_<arch>.deb        the CLI, the session service, attend-hook,
#                                        attend-holder, D-Bus and systemd files, man page,
#                                        completions, translations, status icons; no GTK
#   attend-panel_<version>-1_<arch>.deb  the GTK panel, its desktop file and metainfo
# Usage: build-aux/deb.sh   (then: sudo apt install ./target/debian/attend*.deb)
#
# 1. Installs what is missing (build-aux/deps.sh package: meson, dpkg-dev, cargo-deb).
# 2. meson, release build type, runs `cargo build --release` in the cargo target
#    directory ($ATTEND_DEB_TARGET_DIR, else $CARGO_TARGET_DIR, else target/: a
#    `cargo build --release` before is reused) and installs into the staging root
#    target/deb/root, prefix /usr, stripped.
#    meson.build is the one list of what is installed where.
# 3. cargo-deb packs the staging root into the two packages as [package.metadata.deb] in
#    Cargo.toml splits it (the panel is its variant `panel`). The version is Cargo.toml's.
# Prints the two paths on stdout (the steps' output goes to stderr). Exits non-zero with
# the failing step's output.
set -eu
cd "$(dirname "$0")/.."
repo=$PWD
build-aux/deps.sh package

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
[ -n "$version" ] || {
  echo "attend deb.sh: no version in Cargo.toml" >&2
  exit 1
}
target=${ATTEND_DEB_TARGET_DIR:-${CARGO_TARGET_DIR:-target}}
case $target in
/*) ;;
*) target=$repo/$target ;;
esac
work=$repo/target/deb
out=$repo/target/debian
mkdir -p "$work" "$out"

echo "attend: building $version (release) with meson and cargo in $target" >&2
rm -rf "$work/build" "$work/root"
meson setup "$work/build" --prefix=/usr --buildtype=release \
  -Dcargo_target_dir="$target" >"$work/meson-setup.log" 2>&1 || {
  cat "$work/meson-setup.log" >&2
  exit 1
}
meson compile -C "$work/build" >&2
meson install -C "$work/build" --destdir "$work/root" --no-rebuild --quiet >&2
# The executables are cargo's, which meson does not strip; as dh_strip does.
for exe in "$work"/root/usr/bin/*; do
  strip --strip-unneeded --remove-section=.comment --remove-section=.note "$exe"
done

# A Debian changelog (policy 12.7) with this version, dated by the last commit.
date=$(git log -1 --format=%cD 2>/dev/null || date -R)
cat >"$work/changelog" <<CHANGELOG
attend ($version-1) unstable; urgency=medium

  * Built from the Attend repository by build-aux/deb.sh.

 -- The Attend developers <attend@users.noreply.github.com>  $date
CHANGELOG

rm -f "$out"/attend_*.deb "$out"/attend-panel_*.deb
cargo deb --no-build --quiet --output "$out" >&2
cargo deb --no-build --quiet --variant panel --output "$out" >&2
arch=$(dpkg --print-architecture)
main="$out/attend_${version}-1_$arch.deb"
panel="$out/attend-panel_${version}-1_$arch.deb"
# The panel needs exactly this attend (its Depends is written in Cargo.toml).
if ! dpkg-deb -f "$panel" Depends | grep -Fq "attend (= $version-1)"; then
  echo "attend deb.sh: attend-panel must depend on attend (= $version-1); fix depends in [package.metadata.deb.variants.panel] of Cargo.toml" >&2
  exit 1
fi
echo "$main"
echo "$panel"
