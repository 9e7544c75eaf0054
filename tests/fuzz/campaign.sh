#!/usr/bin/env bash
# A fuzz campaign: `make fuzz`. Runs every libFuzzer target (or those named) for
# FUZZ_SECONDS each, merges what the run found into the checked-in corpus, and appends one
# line per target to the campaign log (tests/fuzz/CAMPAIGNS.tsv, committed with the corpus).
#
#   BUILD=build FUZZ_SECONDS=300 FUZZ_JOBS=2 tests/fuzz/campaign.sh [fuzz_NAME...]
#
# FUZZ_SECONDS  seconds per target (default 60), libFuzzer's -max_total_time. The only
#               outer bound is a guard against a hung process: FUZZ_SECONDS + 600 s, so it
#               never cuts a run short.
# FUZZ_JOBS     targets at a time (default 2: each is one process on one core).
# FUZZ_MERGE    1 (default): merge into tests/fuzz/corpus/<name> with libFuzzer's
#               -merge=1 -use_counters=0, which copies an input of the run (smallest
#               first) only if it reaches an edge (or another feature without hit counts)
#               that the checked-in corpus plus the inputs merged before it lack; with hit
#               counts a 300 s run kept ~1200 inputs of a target, edges alone ~170. The
#               checked-in inputs are never removed (some are named regression cases).
#               0: leave the corpus alone (a measurement run).
# FUZZ_LOG      the log (default tests/fuzz/CAMPAIGNS.tsv); "-" writes none.
#
# The log, tab-separated, one line per target and run (a header line first):
#   date commit target seconds execs execs_per_s corpus_before corpus_after crashes
# seconds are libFuzzer's own (stat::... and the wall clock of the run agree within a
# second); execs is stat::number_of_executed_units (the corpus replay included); crashes
# counts the artifacts libFuzzer wrote (crash-, leak-, timeout-, oom-, slow-unit- are not
# kept) plus 1 when it exited non-zero without one. A crash's input stays in
# $BUILD/fuzz/campaign-<name>/artifacts/ and the run fails (exit 1): it becomes a
# regression test (the input in the corpus, plus the fix).
# Each target's log: $BUILD/fuzz/campaign-<name>/fuzz.log and merge.log.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_JOBS=${FUZZ_JOBS:-2}
FUZZ_MERGE=${FUZZ_MERGE:-1}
FUZZ_LOG=${FUZZ_LOG:-tests/fuzz/CAMPAIGNS.tsv}
COMMIT=$(git describe --always --dirty --abbrev=10 2>/dev/null || echo unknown)
HEADER=$'date\tcommit\ttarget\tseconds\texecs\texecs_per_s\tcorpus_before\tcorpus_after\tcrashes'

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for src in tests/fuzz/fuzz_*.c; do targets+=("$(basename "$src" .c)"); done
fi

if [ "$FUZZ_LOG" != - ] && [ ! -s "$FUZZ_LOG" ]; then echo "$HEADER" >"$FUZZ_LOG"; fi

count() { find "$1" -maxdepth 1 -type f 2>/dev/null | wc -l; }

# campaign NAME: one target's run, merge and log line; exit 0 clean, 1 crashed, 2 not run.
campaign() {
  local name=$1 short=${1#fuzz_} bin=$BUILD/fuzz/$1 dir=$BUILD/fuzz/campaign-$1
  local corpus=tests/fuzz/corpus/${1#fuzz_} before after execs eps secs rc crashes start
  if [ ! -x "$bin" ]; then echo "skip $name: $bin not built (make fuzzers; needs clang)"; return 2; fi
  mkdir -p "$corpus"
  rm -rf "$dir"; mkdir -p "$dir/new" "$dir/artifacts"
  before=$(count "$corpus")
  start=$(date +%s)
  # New inputs go to the scratch directory (the first one); the corpus is only read.
  timeout $((FUZZ_SECONDS + 600)) "$bin" -max_total_time="$FUZZ_SECONDS" -print_final_stats=1 \
    -artifact_prefix="$dir/artifacts/" "$dir/new" "$corpus" >"$dir/fuzz.log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\)/\1/p' "$dir/fuzz.log" | tail -n 1)
  execs=${execs:-0}
  eps=$(( secs > 0 ? execs / secs : execs ))
  crashes=$(find "$dir/artifacts" -maxdepth 1 -type f ! -name 'slow-unit-*' | wc -l)
  [ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ] && crashes=1
  if [ "$FUZZ_MERGE" = 1 ] && [ "$(count "$dir/new")" -gt 0 ]; then
    "$bin" -merge=1 -use_counters=0 -merge_control_file="$dir/merge.ctl" "$corpus" "$dir/new" \
      >"$dir/merge.log" 2>&1 || echo "$name: merge failed (log: $dir/merge.log)"
  fi
  after=$(count "$corpus")
  if [ "$FUZZ_LOG" != - ]; then
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$COMMIT" \
      "$short" "$secs" "$execs" "$eps" "$before" "$after" "$crashes" >>"$FUZZ_LOG"
  fi
  if [ "$crashes" -gt 0 ]; then
    echo "FAIL $name: ${secs}s, $execs execs ($eps/s), rc $rc, $crashes crash(es) in $dir/artifacts"
    tail -n 30 "$dir/fuzz.log"
    return 1
  fi
  echo "ok   $name: ${secs}s, $execs execs ($eps/s), corpus $before -> $after"
  return 0
}

declare -A RUNNING=()
failed=0 ran=0 skipped=0
reap() {
  local pid='' rc
  wait -n -p pid "${!RUNNING[@]}"; rc=$?
  [ -n "$pid" ] || return 0
  unset "RUNNING[$pid]"
  case $rc in 0) ran=$((ran + 1)) ;; 2) skipped=$((skipped + 1)) ;;
              *) ran=$((ran + 1)); failed=$((failed + 1)) ;; esac
}
stop() {
  local pid
  for pid in "${!RUNNING[@]}"; do kill -TERM -- "$pid" 2>/dev/null; done
  wait; echo "interrupted"; exit 130
}
trap stop INT TERM

for t in "${targets[@]}"; do
  while [ ${#RUNNING[@]} -ge "$FUZZ_JOBS" ]; do reap; done
  campaign "$t" &
  RUNNING[$!]=$t
done
while [ ${#RUNNING[@]} -gt 0 ]; do reap; done
echo "fuzz: $ran target(s) run for ${FUZZ_SECONDS}s each, $failed crashed, $skipped skipped${FUZZ_LOG:+ (log: $FUZZ_LOG)}"
[ "$failed" -eq 0 ]
