#!/bin/sh
# The `package` stage of build-aux/test.sh (docs/packaging.md "Tests"):
#   apt-lock    build-aux/apt.sh waits for a held dpkg lock and a held lists lock, says
#               so, and gives up after ATTEND_APT_WAIT seconds
#   build       build-aux/deb.sh builds both packages (release)
#   contents    every file meson installs is in exactly one package, attend has no GTK,
#               no package has maintainer scripts or conffiles, the panel needs this attend
#   lintian     no error; every warning is listed with its reason in docs/packaging.md
#   install     into a clean Debian 12 root (debootstrap, chroot): attend --version,
#               install-hooks names /usr/bin/attend-hook, attend daemon on a private bus,
#               one hook through /usr/bin/attend-hook, a pane through
#               /usr/bin/attend-holder, attend-panel under Xvfb shows the pane
#   remove      dpkg -r leaves nothing but the user's own state; purge too
# Needs root (chroot, mount, dpkg; sudo when not root) and, the first time and whenever
# the packages' dependencies change, the Debian mirror: the root is debootstrapped once
# with the packages' dependencies and cached as a tar file in
# ${ATTEND_DEB_ROOT_CACHE:-~/.cache/attend/debian12-root}.
# The release build happens in ${ATTEND_DEB_TARGET_DIR:-~/.cache/attend/deb-target}, which
# outlives clones: a cold release build takes longer than this stage may.
# Prints one line per check and "N passed, N failed"; exits non-zero when one failed.
set -u
cd "$(dirname "$0")/.."
repo=$PWD
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
passed=0
failed=0
tmp=$(mktemp -d)
root=$tmp/root
cache=${ATTEND_DEB_ROOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/attend/debian12-root}
ATTEND_DEB_TARGET_DIR=${ATTEND_DEB_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/attend/deb-target}
export ATTEND_DEB_TARGET_DIR
# What the checks run inside the root besides the packages and their dependencies.
tools="dbus xvfb xauth"

# Unmounts what was mounted in the root, then removes the temporary directory (never
# across a mount that is still there).
cleanup() {
  kill_in_root
  for m in dev/shm dev/pts proc; do
    if grep -q " $root/$m " /proc/mounts 2>/dev/null; then
      $SUDO umount "$root/$m" 2>/dev/null || $SUDO umount -l "$root/$m"
    fi
  done
  if grep -q " $tmp/" /proc/mounts; then
    echo "package-test: $tmp still has mounts; left in place" >&2
  else
    $SUDO rm -rf --one-file-system "$tmp"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Kills every process whose root is the Debian root (what a failed check left running).
kill_in_root() {
  grep -q " $root/proc " /proc/mounts 2>/dev/null || return 0
  for p in /proc/[0-9]*; do
    [ "$($SUDO readlink "$p/root" 2>/dev/null)" = "$root" ] && $SUDO kill -9 "${p#/proc/}" 2>/dev/null
  done
  return 0
}

# check NAME COMMAND...: runs one check, counts it, prints its verdict and time.
check() {
  check_name=$1
  shift
  check_start=$(date +%s)
  if "$@" >"$tmp/$check_name.log" 2>&1; then
    passed=$((passed + 1))
    echo "ok     $check_name ($(($(date +%s) - check_start)) s)"
  else
    failed=$((failed + 1))
    echo "FAILED $check_name ($(($(date +%s) - check_start)) s):"
  fi
  sed 's/^/       /' "$tmp/$check_name.log"
}

fail() {
  echo "$*"
  return 1
}

# Holds a POSIX lock on file $1 for $2 seconds (as dpkg and apt do); returns once held.
hold_lock() {
  rm -f "$tmp/held"
  $SUDO python3 -c '
import fcntl, sys, time
f = open(sys.argv[1], "a")
fcntl.lockf(f, fcntl.LOCK_EX)
open(sys.argv[3], "w").close()
time.sleep(float(sys.argv[2]))
' "$1" "$2" "$tmp/held" &
  holder=$!
  i=0
  until [ -e "$tmp/held" ]; do
    i=$((i + 1))
    [ "$i" -lt 100 ] || fail "could not take the lock $1"
    sleep 0.1
  done
}

# apt-get that has nothing to do still takes the lock; the lists lock is a private one
# (lists and cache directories of its own, no sources), so nothing of the machine's apt
# changes.
apt_noop_install() {
  sh -c '. build-aux/apt.sh; attend_apt install -y' 2>&1
}
apt_private_update() {
  sh -c '. build-aux/apt.sh; attend_apt update -o Dir::State::Lists="$1" \
    -o Dir::Cache="$1/cache" -o Dir::Etc::SourceList=/dev/null \
    -o Dir::Etc::SourceParts="$1/none"' _ "$1" 2>&1
}

check_apt_lock() {
  # The dpkg lock, held 3 s: waited for, and said.
  hold_lock /var/lib/dpkg/lock-frontend 3
  start=$(date +%s)
  out=$(ATTEND_APT_WAIT=60 apt_noop_install) || fail "install failed: $out" || return 1
  wait "$holder"
  echo "$out" | grep -q "waiting up to 60 s" || fail "the wait was not said: $out" || return 1
  [ $(($(date +%s) - start)) -ge 2 ] || fail "did not wait for the lock" || return 1
  echo "dpkg lock held 3 s: waited $(($(date +%s) - start)) s and said so"
  # The lists lock (apt-get update), held 3 s.
  lists=$tmp/lists
  mkdir -p "$lists/partial" "$lists/cache/archives/partial"
  hold_lock "$lists/lock" 3
  start=$(date +%s)
  out=$(ATTEND_APT_WAIT=60 apt_private_update "$lists") || fail "update failed: $out" || return 1
  wait "$holder"
  echo "$out" | grep -q "waiting up to 60 s" || fail "the wait was not said: $out" || return 1
  echo "lists lock held 3 s: waited $(($(date +%s) - start)) s and said so"
  # Held beyond the bound: gives up after it, saying why.
  hold_lock /var/lib/dpkg/lock-frontend 8
  start=$(date +%s)
  if out=$(ATTEND_APT_WAIT=2 apt_noop_install); then
    fail "succeeded although the lock was held"
    return 1
  fi
  took=$(($(date +%s) - start))
  wait "$holder"
  echo "$out" | grep -q "still locked by another apt or dpkg after 2 s" || fail "no reason given: $out" || return 1
  [ "$took" -lt 7 ] || fail "waited $took s, beyond the 2 s bound" || return 1
  echo "dpkg lock held past ATTEND_APT_WAIT=2: gave up after $took s with the reason"
}

check_build() {
  build-aux/deb.sh >"$tmp/debs" || return 1
  main=$(sed -n 1p "$tmp/debs")
  panel=$(sed -n 2p "$tmp/debs")
  [ -f "$main" ] && [ -f "$panel" ] || fail "deb.sh printed no packages" || return 1
  ls -l "$main" "$panel" | awk '{ print $5, $NF }'
}

# The files of package $1 (./usr/…), directories left out.
deb_files() {
  dpkg-deb -c "$1" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\./|/|' | sort
}

check_contents() {
  main=$(sed -n 1p "$tmp/debs")
  panel=$(sed -n 2p "$tmp/debs")
  (cd target/deb/root && find . ! -type d | sed 's|^\./|/|' | sort) >"$tmp/staged"
  deb_files "$main" >"$tmp/main.files"
  deb_files "$panel" >"$tmp/panel.files"
  # Debian compresses man pages; the doc directories are the packages' own.
  sed 's|^\(/usr/share/man/.*\)\.gz$|\1|' "$tmp/main.files" "$tmp/panel.files" |
    grep -v '^/usr/share/doc/' | sort >"$tmp/packed"
  dups=$(uniq -d "$tmp/packed")
  [ -z "$dups" ] || fail "in both packages: $dups" || return 1
  diff -u "$tmp/staged" "$tmp/packed" >"$tmp/contents.diff" ||
    fail "staged (-) and packaged (+) files differ: $(cat "$tmp/contents.diff")" || return 1
  echo "$(wc -l <"$tmp/staged") staged files, each in one package"
  for f in /usr/bin/attend /usr/bin/attend-hook /usr/bin/attend-holder \
    /usr/share/dbus-1/services/io.github.attend.Attend1.service \
    /usr/lib/systemd/user/attend.service /usr/share/man/man1/attend.1.gz \
    /usr/share/bash-completion/completions/attend /usr/share/locale/de/LC_MESSAGES/attend.mo; do
    grep -qx "$f" "$tmp/main.files" || fail "attend lacks $f" || return 1
  done
  for f in /usr/bin/attend-panel /usr/share/applications/io.github.attend.Attend.desktop \
    /usr/share/metainfo/io.github.attend.Attend.metainfo.xml; do
    grep -qx "$f" "$tmp/panel.files" || fail "attend-panel lacks $f" || return 1
  done
  deps=$(dpkg-deb -f "$main" Depends)
  case $deps in *gtk* | *adwaita*) fail "attend depends on GTK: $deps" || return 1 ;; esac
  # attend-hook (and attend) link libdbus; dpkg-shlibdeps ($auto) must have found it.
  case $deps in *libdbus-1-3*) ;; *) fail "attend does not depend on libdbus-1-3: $deps" || return 1 ;; esac
  echo "attend: Depends: $deps"
  pdeps=$(dpkg-deb -f "$panel" Depends)
  echo "$pdeps" | grep -q 'libgtk-4-1' && echo "$pdeps" | grep -q 'libadwaita-1-0' ||
    fail "attend-panel does not depend on GTK 4 and libadwaita: $pdeps" || return 1
  # The live terminal links VTE for GTK 4; dpkg-shlibdeps ($auto) must have found it.
  case $pdeps in *libvte-2.91-gtk4-0*) ;; *) fail "attend-panel does not depend on libvte-2.91-gtk4-0: $pdeps" || return 1 ;; esac
  version=$(dpkg-deb -f "$main" Version)
  echo "$pdeps" | grep -Fq "attend (= $version)" || fail "attend-panel: Depends: $pdeps" || return 1
  echo "attend-panel: Depends: $pdeps"
  for deb in "$main" "$panel"; do
    control=$(dpkg-deb --ctrl-tarfile "$deb" | tar -t | sed 's|^\./||' | grep -v -x -e '' -e control -e md5sums | tr '\n' ' ')
    [ -z "$control" ] || fail "$(basename "$deb"): the control archive has $control" || return 1
  done
  echo "no maintainer scripts, no conffiles"
}

check_lintian() {
  main=$(sed -n 1p "$tmp/debs")
  panel=$(sed -n 2p "$tmp/debs")
  lintian --fail-on error --tag-display-limit 0 "$main" "$panel" >"$tmp/lintian.out" 2>&1
  rc=$?
  cat "$tmp/lintian.out"
  [ "$rc" -eq 0 ] || fail "lintian reports errors" || return 1
  undocumented=""
  for tag in $(sed -n 's/^W: [^:]*: \([a-z0-9-]*\).*/\1/p' "$tmp/lintian.out" | sort -u); do
    grep -q "\`$tag\`" docs/packaging.md || undocumented="$undocumented $tag"
  done
  [ -z "$undocumented" ] || fail "warnings without a reason in docs/packaging.md:$undocumented" || return 1
  echo "0 errors, $(grep -c '^W: ' "$tmp/lintian.out") warnings (each in docs/packaging.md)"
}

# Mounts what the programs need in the root: /proc (current_exe), PTYs, shared memory.
mount_root() {
  $SUDO mount -t proc proc "$root/proc" &&
    $SUDO mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts "$root/dev/pts" &&
    $SUDO rm -f "$root/dev/ptmx" && $SUDO ln -s pts/ptmx "$root/dev/ptmx" &&
    $SUDO mount -t tmpfs -o mode=1777 tmpfs "$root/dev/shm"
}

in_root() {
  $SUDO chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive "$@"
}

# The cached root: debootstrap (minbase) with $tools, a user `tester`, and the
# dependencies of the two packages (installed with them, then the packages removed),
# keyed by those dependencies. Unpacked into $root.
prepare_root() {
  main=$1 panel=$2
  key=$({
    echo "bookworm minbase $tools"
    dpkg-deb -f "$main" Depends Recommends
    dpkg-deb -f "$panel" Depends Recommends | sed 's/attend (= [^)]*)//'
  } | sha256sum | cut -c1-16)
  tarball=$cache/root-$key.tar
  if [ ! -f "$tarball" ]; then
    echo "no cached root for these dependencies: debootstrap (minutes, needs the Debian mirror)"
    mkdir -p "$cache"
    $SUDO debootstrap --variant=minbase --include="$(echo "$tools" | tr ' ' ',')" \
      bookworm "$root" ${ATTEND_DEB_MIRROR:-} >"$tmp/debootstrap.log" 2>&1 ||
      fail "debootstrap failed: $(tail -n 5 "$tmp/debootstrap.log")" || return 1
    mount_root || return 1
    in_root useradd --create-home --uid 1000 --shell /bin/sh tester || return 1
    $SUDO cp "$main" "$panel" "$root/tmp/"
    in_root apt-get install -y -q --no-install-recommends "/tmp/$(basename "$main")" \
      "/tmp/$(basename "$panel")" >"$tmp/deps.log" 2>&1 ||
      fail "installing the dependencies failed: $(tail -n 5 "$tmp/deps.log")" || return 1
    in_root dpkg --purge attend-panel attend >/dev/null || return 1
    in_root apt-get clean
    $SUDO rm -f "$root/tmp/"*.deb
    cleanup_mounts
    $SUDO tar -C "$root" -cf "$tarball.part" . && $SUDO mv "$tarball.part" "$tarball" || return 1
    # Older roots (other dependencies) are not needed any more.
    for old in "$cache"/root-*.tar; do
      [ "$old" = "$tarball" ] || $SUDO rm -f "$old"
    done
  else
    mkdir -p "$root"
    $SUDO tar -C "$root" -xf "$tarball" || return 1
  fi
  mount_root
}

cleanup_mounts() {
  for m in dev/shm dev/pts proc; do
    $SUDO umount "$root/$m" 2>/dev/null || true
  done
}

# Every path in the root but the user's home, temporary files, and apt's and dpkg's own
# records (they log the install and removal).
snapshot() {
  $SUDO find "$root" -xdev \( -path "$root/home/tester" -o -path "$root/tmp" \
    -o -path "$root/var/lib/dpkg" -o -path "$root/var/lib/apt" -o -path "$root/var/log" \
    -o -path "$root/var/cache" -o -path "$root/proc" -o -path "$root/dev" \) -prune \
    -o -print | sed "s|^$root||" | sort
}

check_install() {
  main=$(sed -n 1p "$tmp/debs")
  panel=$(sed -n 2p "$tmp/debs")
  prepare_root "$main" "$panel" || return 1
  snapshot >"$tmp/before"
  $SUDO mkdir -p "$root/tmp/pkgs"
  $SUDO cp "$main" "$panel" build-aux/package-check.sh "$root/tmp/pkgs/"
  home_before=$($SUDO find "$root/home/tester" | sort)
  in_root apt-get install -y -q --no-install-recommends \
    "/tmp/pkgs/$(basename "$main")" "/tmp/pkgs/$(basename "$panel")" >"$tmp/apt.log" 2>&1 ||
    fail "apt-get install ./attend*.deb failed: $(tail -n 5 "$tmp/apt.log")" || return 1
  # The root has the dependencies already: nothing else is installed or fetched.
  grep -q '^0 upgraded, 2 newly installed, 0 to remove' "$tmp/apt.log" ||
    fail "apt-get installed more than the two packages: $(cat "$tmp/apt.log")" || return 1
  touch "$tmp/installed"
  echo "apt-get install ./attend_*.deb ./attend-panel_*.deb into a Debian 12 root (debootstrap)"
  version=$(dpkg-deb -f "$main" Version)
  $SUDO chroot --userspec=1000:1000 "$root" env -i PATH=/usr/bin:/bin HOME=/home/tester \
    LANG=C.UTF-8 USER=tester sh /tmp/pkgs/package-check.sh "${version%-*}" || return 1
  # Everything the checks started has ended (holders included). A process killed by the
  # check's exit trap may still be on its way out (a zombie has an empty command line):
  # wait a bounded time, then name what is left by pid, name and command line.
  tries=0
  while left=$(left_in_root) && [ -n "$left" ] && [ "$tries" -lt 50 ]; do
    tries=$((tries + 1))
    sleep 0.2
  done
  [ -z "$left" ] || fail "still running in the root 10 s after the checks ended:$left"
}

# The processes whose root is the test root, one per line: pid, name (comm) and command line.
left_in_root() {
  for p in /proc/[0-9]*; do
    [ "$($SUDO readlink "$p/root" 2>/dev/null)" = "$root" ] || continue
    [ -e "$p" ] || continue
    printf '\n%s %s %s' "${p#/proc/}" "$($SUDO cat "$p/comm" 2>/dev/null)" \
      "$($SUDO tr '\0' ' ' 2>/dev/null <"$p/cmdline")"
  done
}

check_remove() {
  [ -f "$tmp/installed" ] || fail "not installed" || return 1
  kill_in_root
  main=$(sed -n 1p "$tmp/debs")
  panel=$(sed -n 2p "$tmp/debs")
  in_root dpkg -r attend-panel attend >/dev/null || return 1
  for deb in "$main" "$panel"; do
    for f in $(deb_files "$deb"); do
      [ ! -e "$root$f" ] || fail "dpkg -r left $f" || return 1
    done
  done
  status=$(in_root dpkg-query -W -f='${db:Status-Abbrev}' attend attend-panel 2>/dev/null || true)
  snapshot >"$tmp/after"
  diff -u "$tmp/before" "$tmp/after" >"$tmp/left.diff" ||
    fail "dpkg -r changed the root outside the user's home: $(cat "$tmp/left.diff")" || return 1
  echo "dpkg -r: every file gone, nothing else changed (package status: '${status:-none}')"
  in_root dpkg --purge attend-panel attend >/dev/null || return 1
  snapshot >"$tmp/after"
  diff -u "$tmp/before" "$tmp/after" >"$tmp/left.diff" ||
    fail "dpkg --purge changed the root: $(cat "$tmp/left.diff")" || return 1
  echo "dpkg --purge: nothing else changed; the user's own state stays:"
  echo "$home_before" >"$tmp/home.before"
  $SUDO find "$root/home/tester" | sort | comm -13 "$tmp/home.before" - | sed "s|^$root||"
}

# The build artifacts of this workspace's own crates are per clone (cargo hashes their
# path); those of other clones that were not rebuilt for two days go, so that the cache
# does not grow by about 80 MB every CI run.
for d in deps .fingerprint build; do
  [ -d "$ATTEND_DEB_TARGET_DIR/release/$d" ] &&
    find "$ATTEND_DEB_TARGET_DIR/release/$d" -maxdepth 1 -name '*attend*' -mtime +2 \
      -exec rm -rf {} + 2>/dev/null
done

check apt-lock check_apt_lock
check build check_build
if [ -s "$tmp/debs" ]; then
  check contents check_contents
  check lintian check_lintian
  check install check_install
  check remove check_remove
else
  failed=$((failed + 4))
  echo "FAILED contents, lintian, install, remove: no packages"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
