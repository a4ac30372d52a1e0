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
#   (tests/real_agents/: every agent CLI that installs and runs here, data/agents.tsv;
#   one drives the panel under Xvfb, which the deps stage installs),
#   reliability (tests/reliability/), fuzz (tests/fuzz/: the corpus and a bounded
#   mutation run), meson (data validation, the install list), package (the Debian
#   packages: build, lintian, install, remove; docs/packaging.md).
# A stage that fails or overruns its budget (it is killed) fails the run; the other
# stages still run, so one log shows every failure. Each budget is at least twice the
# stage's measured time; together they add up to 76.8 minutes (CI allows 90). A normal
# run takes a fraction of that (the summary prints each stage).
#
# Environment: ATTEND_BUDGET_SCALE=N multiplies every budget (slow machines);
# ATTEND_TEST_THREADS (default 4) sets how many tests of the integration, real-agents and
# reliability binaries run at once; PROPTEST_CASES (default 10000) and FUZZ_CASES (default: the fuzz tests' own) size the
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

# The test binaries of the integration, real-agents and reliability stages run
# ATTEND_TEST_THREADS tests at a time (default 4 on any machine): their tests mostly wait
# on real processes (daemons, PTYs, tmux, agent CLIs, a scripted model), so 4 on 2 cores
# halves their time with CPU to spare (docs/reliability.md#test-threads).
threads=${ATTEND_TEST_THREADS:-4}

# `test.sh --real-agents` (the real-agents stage): every real-agent test against the
# newest pinned CLIs, then the scenarios of each agent that also pins an older supported
# version (`build-aux/agents.sh --older`) against that one: the modules
# real_agent_scenarios and real_agent_turns, filtered by the agent's name (a filter
# matches the whole test path, `module::test`; those modules' tests start with the
# agent's name): turn end, gate allowed and denied, its dialogs, Esc and Ctrl-C, review
# then quit (docs/real-agents.md#older-pins). One after the other, so the interrupt
# tests' one-second goals are not measured beside another run.
if [ "${1:-}" = --real-agents ]; then
  list="--test real_agents"
  # shellcheck disable=SC2086
  cargo test --locked --no-run $list >/dev/null 2>&1 || cargo test --locked --no-run $list || exit 1
  older=$(build-aux/agents.sh --older)
  status=0
  echo "== real agents, newest pins"
  # shellcheck disable=SC2086
  cargo test --locked --no-fail-fast $list -- --test-threads="$threads" || status=1
  if [ -n "$older" ]; then
    filters=""
    for name in $(printf '%s' "$older" | tr ',' '\n' | sed 's/=.*//'); do
      filters="$filters real_agent_scenarios::$name real_agent_turns::$name"
    done
    echo "== real agents, older supported pins: $older"
    # shellcheck disable=SC2086
    ATTEND_AGENT_VERSIONS=$older cargo test --locked --no-fail-fast $list -- --test-threads="$threads" $filters || status=1
  fi
  exit "$status"
fi

stage deps 300 build-aux/deps.sh test
# The real agent CLIs (pinned, cached between runs); a failed install fails the run.
stage agents 600 build-aux/agents.sh
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
stage clippy 480 cargo clippy --all-targets --locked -- -D warnings
stage build 600 cargo build --all-targets --locked
# Benches are benchmarks (build-aux/bench.sh), not tests: clippy and build compile them.
# The module graph, file length and citation rules (docs/decisions/0006-module-graph.md).
stage architecture 60 cargo test --locked --no-fail-fast --test architecture
# Unit tests of both workspace crates, and the hook executable's own tests (attend-hook).
stage unit 160 sh -c 'cargo test --locked --no-fail-fast --workspace --lib --bins && cargo test --locked --no-fail-fast -p attend-hook -p attend-holder --tests'
stage integration 300 cargo test --locked --no-fail-fast --test integration -- --test-threads="$threads"
stage real-agents 900 "$0" --real-agents
stage reliability 300 cargo test --locked --no-fail-fast --test reliability -- --test-threads="$threads"
stage fuzz 120 cargo test --locked --no-fail-fast --test fuzz
# Also: `meson install` installs the man page and the bash, zsh and fish completions
# (docs/cli.md#manual-page-and-completions).
stage meson 60 sh -c 'rm -rf _build/meson-check && meson setup _build/meson-check >/dev/null && ninja -C _build/meson-check io.github.attend.Attend.desktop io.github.attend.Attend.metainfo.xml >/dev/null && meson test -C _build/meson-check --no-rebuild validate-desktop validate-metainfo && installed=$(meson introspect _build/meson-check --installed) && for f in share/man/man1/attend.1 share/attend/opencode/attend.js share/attend/pi/attend.ts share/attend/amp/attend.ts share/bash-completion/completions/attend share/zsh/site-functions/_attend share/fish/vendor_completions.d/attend.fish; do printf "%s" "$installed" | grep -q "\"[^\"]*/$f\"" || { echo "meson does not install $f"; exit 1; }; done && echo "meson setup, data validation and install list ok"'
# Both Debian packages built (release), lintian, installed into a Debian 12 root,
# exercised and removed (build-aux/package-test.sh, docs/packaging.md).
stage package 700 build-aux/package-test.sh

echo
echo "== stages"
printf '%s' "$summary"
if [ -n "$failed" ]; then
  echo "== FAILED:$failed"
  exit 1
fi
echo "== all tests passed"
