#!/bin/sh
# The one test command (README quick start, step 2; `.ci/run` calls exactly this).
# Installs what it needs, then runs format, lint and every test, timing each stage.
set -eu
cd "$(dirname "$0")/.."
stage() {
  name=$1; shift
  start=$(date +%s)
  echo "== $name"
  "$@"
  echo "== $name: $(( $(date +%s) - start )) s"
}
stage deps build-aux/deps.sh test
# The real agent CLIs (pinned, cached between runs); a failed install fails the run.
stage agents build-aux/agents.sh
ATTEND_REQUIRE_REAL_AGENTS=1
export ATTEND_REQUIRE_REAL_AGENTS
stage fmt cargo fmt --all --check
stage clippy cargo clippy --all-targets --locked -- -D warnings
stage build cargo build --all-targets --locked
PROPTEST_CASES=${PROPTEST_CASES:-10000}
export PROPTEST_CASES
# Benches are benchmarks (build-aux/bench.sh), not tests: clippy and build still compile them.
stage tests cargo test --lib --bins --tests --locked --no-fail-fast
stage meson sh -c 'rm -rf _build/meson-check && meson setup _build/meson-check >/dev/null && ninja -C _build/meson-check io.github.attend.Attend.desktop io.github.attend.Attend.metainfo.xml >/dev/null && meson test -C _build/meson-check --no-rebuild validate-desktop validate-metainfo && echo "meson setup and data validation ok"'
echo "== all tests passed"
