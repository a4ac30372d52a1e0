# Sourced by build-aux/deps.sh, agents.sh and quickstart.sh (POSIX sh): apt-get that
# waits a bounded time for another apt or dpkg instead of failing at once. Right after
# boot unattended upgrades hold apt's locks for minutes (docs/packaging.md, "apt locks").
#
#   attend_apt ARGS...   runs `apt-get -q ARGS` as root (sudo when not root) with
#                        DEBIAN_FRONTEND=noninteractive; its output goes to stderr only
#                        when it fails. Returns apt-get's status.
#
# The dpkg lock (install, remove) is waited for by apt itself (`-o DPkg::Lock::Timeout`);
# the package lists' lock (`apt-get update`), for which apt has no such option, by
# trying again every 2 s. Either way the wait is said once on stderr, naming the process
# that holds the lock, and is bounded by ATTEND_APT_WAIT seconds (default 600) in all.

ATTEND_APT_WAIT=${ATTEND_APT_WAIT:-600}
attend_apt_sudo=""
[ "$(id -u)" -eq 0 ] || attend_apt_sudo=sudo

# Says once (per call) that apt waits, with the holder apt named in log $1.
attend_apt_say() {
  [ -z "$attend_apt_said" ] || return 0
  attend_apt_said=yes
  holder=$(grep -m1 -o 'held by process [0-9]* ([^)]*)' "$1" || true)
  echo "attend: another apt or dpkg is running (${holder:-its lock is taken}, unattended upgrades after boot?): waiting up to ${ATTEND_APT_WAIT} s for it" >&2
}

attend_apt() {
  attend_apt_log=$(mktemp)
  attend_apt_start=$(date +%s)
  attend_apt_said=""
  while :; do
    left=$((ATTEND_APT_WAIT - ($(date +%s) - attend_apt_start)))
    [ "$left" -gt 0 ] || left=0
    # shellcheck disable=SC2086
    $attend_apt_sudo env DEBIAN_FRONTEND=noninteractive apt-get -q \
      -o DPkg::Lock::Timeout="$left" "$@" >"$attend_apt_log" 2>&1 &
    pid=$!
    # apt prints "Waiting for cache lock: … held by process N (name)" while it waits.
    while [ -d "/proc/$pid" ] && [ -z "$attend_apt_said" ]; do
      if grep -q 'Waiting for cache lock' "$attend_apt_log"; then
        attend_apt_say "$attend_apt_log"
      else
        sleep 0.2
      fi
    done
    rc=0
    wait "$pid" || rc=$?
    if [ "$rc" -eq 0 ]; then
      rm -f "$attend_apt_log"
      return 0
    fi
    if grep -Eq 'Could not get lock|Unable to lock|Unable to acquire the dpkg frontend lock' "$attend_apt_log"; then
      if [ $(($(date +%s) - attend_apt_start)) -lt "$ATTEND_APT_WAIT" ]; then
        attend_apt_say "$attend_apt_log"
        sleep 2
        continue
      fi
      echo "attend: apt is still locked by another apt or dpkg after ${ATTEND_APT_WAIT} s; run this again when it has finished (ATTEND_APT_WAIT=SECONDS waits longer)" >&2
    fi
    grep -v '^Waiting for cache lock' "$attend_apt_log" >&2 || true
    rm -f "$attend_apt_log"
    return "$rc"
  done
}
