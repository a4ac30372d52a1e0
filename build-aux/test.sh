#!/bin/sh
# The one test command (README quick start, step 2; `.ci/run` calls exactly this).
# Installs what it needs, then runs format, lint and every test in stages, each with a
# time budget (docs/reliability.md#ci-budget).
#
# Stages and budgets (seconds; measured on 2 cores in docs/reliability.md "CI budget"):
#   deps, agents, fmt, clippy, build, architecture (tests/architecture.rs: no import
#   cycle, no file over 800 lines, no outside citation, every test file in a stage's
#   binary), unit (lib and bin tests), then one test binary per stage, each the modules of
#   its directory (tests/<stage>/main.rs; docs/reliability.md#test-binaries):
#   integration (tests/integration/; sshd_harness.rs and the other remote-host tests
#   start their own sshd on 127.0.0.1, docs/reliability.md#sshd-tests), real-agents
#   (tests/real_agents/: the real Claude Code, Codex, Gemini, Qwen Code, OpenCode, Kimi Code and Kilo CLIs),
#   reliability (tests/reliability/), fuzz (tests/fuzz/: the corpus and a bounded
#   mutation run), meson (data validation, the install list), package (the Debian
#   packages: build, lintian, install, remove; docs/packaging.md).
# A stage that fails or overruns its budget (it is killed) fails the run; the other
# stages still run, so one log shows every failure. Each budget is at least twice the
# stage's measured time; together they add up to 86.5 minutes (CI allows 90). A normal
# run takes a fraction of that (the summary prints each stage).
#
# Environment: ATTEND_BUDGET_SCALE=N multiplies every budget (slow machines);
# PROPTEST_CASES (default 10000) and FUZZ_CASES (default: the fuzz tests' own) size the
# property and fuzz runs; PROPTEST_RNG_SEED (default fixed) seeds them.
set -u
cd "$(dirname "$0")/.."
scale=${ATTEND_BUDGET_SCALE:-1}
failed=""
summary=""

# stage NAME BUDGET_SECONDS COMMAND…
stage() {
  name=$1 budget=$(($2 * scale))
  shift 2
  start=$(date +%s)
  echo "== $name (budget ${budget} s)"
  timeout --kill-after=15 "$budget" "$@"
  rc=$?
  took=$(($(date +%s) - start))
  verdict=ok
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    verdict="OVER BUDGET (killed after ${budget} s)"
  elif [ "$rc" -ne 0 ]; then
    verdict="FAILED (exit $rc)"
  fi
  [ "$verdict" = ok ] || failed="$failed $name"
  echo "== $name: $took s of $budget s: $verdict"
  summary="$summary$(printf '%-12s %5s s / %5s s  %s' "$name" "$took" "$budget" "$verdict")
"
}

# `test.sh --real-agents` (the real-agents stage): the real-agent tests against the newest
# pinned CLIs, and at the same time the tests of each agent that also pins an older
# supported version against that one (`build-aux/agents.sh --older`; separate homes and
# ports, so they run side by side). Both logs are printed; fails when either fails. The
# older run filters by agent name (`claude`): a filter matches the whole test path,
# `module::test`, and a module named after an agent (real_claude_gate) holds only that
# agent's tests, so the names pick the same tests as before the tests were one binary.
if [ "${1:-}" = --real-agents ]; then
  list="--test real_agents"
  # Build once, so the two runs do not wait on each other's build lock.
  # shellcheck disable=SC2086
  cargo test --locked --no-run $list >/dev/null 2>&1 || cargo test --locked --no-run $list || exit 1
  older=$(build-aux/agents.sh --older)
  logs=$(mktemp -d)
  # shellcheck disable=SC2086
  cargo test --locked --no-fail-fast $list >"$logs/newest" 2>&1 &
  newest=$!
  older_status=0
  if [ -n "$older" ]; then
    names=$(printf '%s' "$older" | tr ',' '\n' | sed 's/=.*//' | tr '\n' ' ')
    # shellcheck disable=SC2086
    ATTEND_AGENT_VERSIONS=$older cargo test --locked --no-fail-fast $list -- $names >"$logs/older" 2>&1 || older_status=$?
  fi
  newest_status=0
  wait "$newest" || newest_status=$?
  echo "== real agents, newest pins"
  cat "$logs/newest"
  if [ -n "$older" ]; then
    echo "== real agents, older supported pins: $older"
    cat "$logs/older"
  fi
  rm -rf "$logs"
  [ "$newest_status" -eq 0 ] && [ "$older_status" -eq 0 ]
  exit
fi

stage deps 420 build-aux/deps.sh test
# The real agent CLIs (pinned, cached between runs); a failed install fails the run.
stage agents 420 build-aux/agents.sh
ATTEND_REQUIRE_REAL_AGENTS=1
# The remote-host tests' own sshd and second user (tests/support/sshd.rs) must be there
# (CI runs as root): a missing one fails the run instead of skipping.
ATTEND_REQUIRE_SSHD=1
PROPTEST_CASES=${PROPTEST_CASES:-10000}
# One fixed seed: a CI run is repeatable (a red run means the tree, not the dice); the
# fuzz targets explore new inputs in long runs (build-aux/fuzz.sh), whose finds are
# saved into the corpus and proptest-regressions/ that every run replays first.
PROPTEST_RNG_SEED=${PROPTEST_RNG_SEED:-20261130}
# A clean build gains nothing from incremental compilation's caches, only their cost.
CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}
export ATTEND_REQUIRE_REAL_AGENTS ATTEND_REQUIRE_SSHD PROPTEST_CASES PROPTEST_RNG_SEED CARGO_INCREMENTAL
stage fmt 30 cargo fmt --all --check
stage clippy 540 cargo clippy --all-targets --locked -- -D warnings
stage build 780 cargo build --all-targets --locked
# Benches are benchmarks (build-aux/bench.sh), not tests: clippy and build compile them.
# The module graph, file length and citation rules (docs/decisions/0006-module-graph.md).
stage architecture 60 cargo test --locked --no-fail-fast --test architecture
# Unit tests of both workspace crates, and the hook executable's own tests (attend-hook).
stage unit 120 sh -c 'cargo test --locked --no-fail-fast --workspace --lib --bins && cargo test --locked --no-fail-fast -p attend-hook -p attend-holder --tests'
stage integration 480 cargo test --locked --no-fail-fast --test integration
stage real-agents 840 "$0" --real-agents
stage reliability 480 cargo test --locked --no-fail-fast --test reliability
stage fuzz 120 cargo test --locked --no-fail-fast --test fuzz
# Also: `meson install` installs the man page and the bash, zsh and fish completions
# (docs/cli.md#manual-page-and-completions).
stage meson 60 sh -c 'rm -rf _build/meson-check && meson setup _build/meson-check >/dev/null && ninja -C _build/meson-check io.github.attend.Attend.desktop io.github.attend.Attend.metainfo.xml >/dev/null && meson test -C _build/meson-check --no-rebuild validate-desktop validate-metainfo && installed=$(meson introspect _build/meson-check --installed) && for f in share/man/man1/attend.1 share/attend/opencode/attend.js share/attend/pi/attend.ts share/bash-completion/completions/attend share/zsh/site-functions/_attend share/fish/vendor_completions.d/attend.fish; do printf "%s" "$installed" | grep -q "\"[^\"]*/$f\"" || { echo "meson does not install $f"; exit 1; }; done && echo "meson setup, data validation and install list ok"'
# Both Debian packages built (release), lintian, installed into a Debian 12 root,
# exercised and removed (build-aux/package-test.sh, docs/packaging.md).
stage package 840 build-aux/package-test.sh

echo
echo "== stages"
printf '%s' "$summary"
if [ -n "$failed" ]; then
  echo "== FAILED:$failed"
  exit 1
fi
echo "== all tests passed"
