#!/bin/sh
# Long fuzz run (docs/reliability.md#fuzzing): the mutation fuzzers of tests/fuzz/ (the
# test binary `fuzz`) in a release build, each target for its share of SECONDS (default
# 3600), one after another.
#
#   build-aux/fuzz.sh [SECONDS]          e.g. nice -n 19 build-aux/fuzz.sh 1500
#
# Targets: hooks, terminal, pane, manifest, spool (tests/fuzz/*.rs); the pane target
# gets a fifth of the others' share (each of its cases runs two processes in a PTY).
# A failing case is shrunk and saved by the test itself into tests/fuzz/corpus/<target>/
# as regress-*, with its proptest seed in proptest-regressions/fuzz/<target>.txt. A case
# that kills the process (stack overflow, abort, a signal) cannot be shrunk: the input
# it was running (FUZZ_TRACE) is copied into the corpus as crash-*. Check both in.
# FUZZ_CASES (cases per round, default 5000) and FUZZ_TIMEOUT_MS (default 60000: a case
# slower than that fails) can be set. Prints one line per target (cases, time, slowest
# case) and exits non-zero when any target failed.
set -u
cd "$(dirname "$0")/.."
total=${1:-3600}
# Shares: four full targets and the pane at a fifth: 4 + 1/5 = 21/5 parts.
share=$((total * 5 / 21))
pane_share=$((share / 5))
[ "$share" -ge 1 ] || share=1
[ "$pane_share" -ge 1 ] || pane_share=1
export FUZZ_CASES="${FUZZ_CASES:-5000}"
export FUZZ_TIMEOUT_MS="${FUZZ_TIMEOUT_MS:-60000}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log=$work/log

# Build once and run a copy of the test binary, so that edits made meanwhile do not
# rebuild it mid-run (cargo test runs it from the package root, and so does this).
built=$(cargo test --release --no-default-features --test fuzz --no-run \
  --message-format=json | grep '"kind":\["test"\]' | grep '"name":"fuzz"' |
  sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
if [ -z "$built" ]; then
  echo "fuzz.sh: the fuzz test binary did not build" >&2
  exit 1
fi
bin=$work/fuzz
cp "$built" "$bin"
# The corpus first: a regression must still fail before any new search.
"$bin" corpus || exit 1

failed=""
summary=""
for t in hooks terminal pane manifest spool; do
  secs=$share
  [ "$t" = pane ] && secs=$pane_share
  # Each target's fuzz test is the one named mutants_* in its module.
  name=$("$bin" --list 2>/dev/null | sed -n "s/^\($t::mutants_[a-z_]*\): test$/\1/p")
  if [ -z "$name" ]; then
    echo "fuzz.sh: no mutants test for $t" >&2
    failed="$failed $t"
    continue
  fi
  echo "== $t: $secs s ($name)"
  trace=$work/trace-$t
  rm -f "$trace" "$trace.name"
  FUZZ_SECONDS=$secs FUZZ_TRACE=$trace \
    "$bin" --exact "$name" --nocapture --test-threads=1 >"$log" 2>&1
  rc=$?
  line=$(grep -o "fuzz $t: [0-9]* cases.*" "$log" | tail -n 1)
  if [ "$rc" -ne 0 ]; then
    failed="$failed $t"
    saved=$(grep -o 'minimal input saved to [^ ]*' "$log" | head -n 1)
    if [ -n "$saved" ]; then
      line="FAILED: $(grep -m1 "^fuzz $t: " "$log"); $saved"
    elif [ -s "$trace.name" ]; then
      # The process died mid-case: keep the input it was running.
      dest=tests/fuzz/corpus/$(sed 's/regress-/crash-/' "$trace.name")
      mkdir -p "$(dirname "$dest")"
      cp "$trace" "$dest"
      line="CRASHED (exit $rc): input saved to $dest"
    else
      line="FAILED (exit $rc), no input recorded"
    fi
    tail -n 40 "$log"
  fi
  echo "$line"
  summary="$summary$line
"
done

echo
echo "== fuzz summary ($total s requested)"
printf '%s' "$summary"
if [ -n "$failed" ]; then
  echo "== FAILED:$failed"
  exit 1
fi
echo "== no failures"
