#!/bin/sh
# Installs the pinned real agent CLIs (Claude Code, Codex, Gemini) from the npm registry
# into a cache directory, for the real-agent tests (tests/real_agents.rs,
# docs/real-agents.md).
#
# Usage: build-aux/agents.sh
#   Cache: ${ATTEND_AGENTS_CACHE:-$HOME/.cache/attend/agents} (an npm --prefix directory).
#   Idempotent: when every pinned version is already there it only prints the paths.
#   Prints one line per CLI: `<name> <version> <path-to-binary>`.
#   Exits non-zero with a one-line reason when node/npm cannot be installed or the
#   registry is unreachable. Installs nodejs/npm with apt when missing (sudo when not root).
set -eu

CACHE=${ATTEND_AGENTS_CACHE:-$HOME/.cache/attend/agents}
# name|npm package|version|binary — keep in sync with tests/support/agents.rs and
# docs/real-agents.md.
PINS="claude|@anthropic-ai/claude-code|2.1.197|claude
codex|@openai/codex|0.171.0|codex
gemini|@google/gemini-cli|0.61.0|gemini"

fail() {
  echo "attend agents.sh: $*" >&2
  exit 1
}

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "attend: installing Debian packages: nodejs npm" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1 ||
    fail "apt-get update failed (no network to the Debian mirror?)"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    nodejs npm >/dev/null 2>&1 || fail "apt-get install nodejs npm failed"
fi

# The version npm recorded for a package in the cache, or nothing.
installed_version() {
  pkg_json="$CACHE/node_modules/$1/package.json"
  [ -f "$pkg_json" ] || return 0
  node -e 'process.stdout.write(require(process.argv[1]).version)' "$pkg_json" 2>/dev/null || true
}

missing=""
for pin in $PINS; do
  IFS='|' read -r _name pkg version _bin <<PIN
$pin
PIN
  [ "$(installed_version "$pkg")" = "$version" ] && [ -x "$CACHE/node_modules/.bin/$_bin" ] ||
    missing="$missing $pkg@$version"
done

if [ -n "$missing" ]; then
  mkdir -p "$CACHE"
  echo "attend: installing into $CACHE:$missing" >&2
  log="$CACHE/npm-install.log"
  # shellcheck disable=SC2086
  if ! npm install --prefix "$CACHE" --no-audit --no-fund --loglevel=error \
    --fetch-retries=1 --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=5000 \
    --fetch-timeout=60000 $missing >"$log" 2>&1; then
    reason=$(grep -m1 -E 'reason:|^npm (error|ERR!) code' "$log" | sed 's/^npm \(error\|ERR!\) //' || true)
    fail "npm install failed (registry unreachable?): ${reason:-see $log}"
  fi
fi

for pin in $PINS; do
  IFS='|' read -r name pkg version bin <<PIN
$pin
PIN
  path="$CACHE/node_modules/.bin/$bin"
  [ -x "$path" ] || fail "$pkg@$version installed but $path is missing"
  echo "$name $version $path"
done
