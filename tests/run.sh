#!/usr/bin/env bash
# Run zvswitch's tests and print one closing line: "check: N passed, N failed, N skipped".
#   tests/run.sh [unit] [integration] [fuzz] [layering] [all]
# layering:    scripts/layering.sh on the repository and on its fixture (tests/layering/)
# unit:        every build/tests/test_* cmocka binary (each test case counts)
# integration: every tests/integration/*.sh (exit 0 pass, 77 skip, else fail); they make
#              their own network namespaces and remove them, and are bounded in time
# fuzz:        every fuzz target over its corpus plus a short bounded run
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export BUILD
LOG=$BUILD/test-logs
mkdir -p "$LOG"
passed=0 failed=0 skipped=0
failures=()

run_unit() {
  for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    timeout 300 "$t" >"$LOG/$name.log" 2>&1
    rc=$?
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$LOG/$name.log" | awk '{s+=$1} END {print s+0}')
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$LOG/$name.log" | awk '{s+=$1} END {print s+0}')
    s=$(grep -c '^\[  SKIPPED \]' "$LOG/$name.log")
    if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi     # crashed or timed out
    passed=$((passed + p - s)); failed=$((failed + f)); skipped=$((skipped + s))
    if [ "$f" -gt 0 ]; then
      failures+=("$name"); echo "FAIL unit $name (log: $LOG/$name.log)"; tail -n 30 "$LOG/$name.log"
    else
      echo "ok   unit $name: $((p - s)) passed${s:+, $s skipped}"
    fi
  done
}

run_integration() {
  for t in tests/integration/*.sh; do
    [ -f "$t" ] || continue
    name=$(basename "$t" .sh)
    case $name in lib|*_lib) continue ;; esac   # shared helpers (lib.sh, ovs_lib.sh), not tests
    start=$(date +%s)
    timeout 600 bash "$t" >"$LOG/it-$name.log" 2>&1
    rc=$?
    secs=$(( $(date +%s) - start ))
    if [ $rc -eq 0 ]; then
      passed=$((passed + 1)); echo "ok   integration $name (${secs}s)"
    elif [ $rc -eq 77 ]; then
      skipped=$((skipped + 1)); echo "skip integration $name: $(tail -n 1 "$LOG/it-$name.log")"
    else
      failed=$((failed + 1)); failures+=("$name")
      echo "FAIL integration $name (rc $rc, ${secs}s, log: $LOG/it-$name.log)"; tail -n 40 "$LOG/it-$name.log"
    fi
  done
}

run_layering() {
  tests/layering/run.sh >"$LOG/layering.log" 2>&1
  local rc=$? p f
  p=$(sed -n 's/^layering: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$LOG/layering.log")
  f=$(sed -n 's/^layering: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$LOG/layering.log")
  [ -n "$p" ] || { p=0; f=1; }
  [ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1
  passed=$((passed + p)); failed=$((failed + f))
  if [ "$f" -gt 0 ]; then
    failures+=(layering); echo "FAIL layering (log: $LOG/layering.log)"; cat "$LOG/layering.log"
  else
    echo "ok   layering: $p passed"
  fi
}

run_fuzz() {
  for src in tests/fuzz/fuzz_*.c; do
    [ -f "$src" ] || continue
    name=$(basename "$src" .c)
    bin=$BUILD/fuzz/$name
    corpus=tests/fuzz/corpus/${name#fuzz_}
    if [ ! -x "$bin" ]; then
      skipped=$((skipped + 1)); echo "skip fuzz $name: not built (needs clang's libFuzzer)"; continue
    fi
    mkdir -p "$BUILD/fuzz/work-$name"
    # The checked-in corpus first, then a short run that may add inputs to a scratch copy.
    if timeout 120 "$bin" -runs=0 "$corpus" >"$LOG/$name.log" 2>&1 &&
       timeout 120 "$bin" -max_total_time=${FUZZ_SECONDS:-10} "$BUILD/fuzz/work-$name" "$corpus" >>"$LOG/$name.log" 2>&1; then
      passed=$((passed + 1)); echo "ok   fuzz $name"
    else
      failed=$((failed + 1)); failures+=("$name"); echo "FAIL fuzz $name (log: $LOG/$name.log)"; tail -n 30 "$LOG/$name.log"
    fi
  done
}

what=("$@")
[ ${#what[@]} -eq 0 ] && what=(all)
for w in "${what[@]}"; do
  case $w in
    unit) run_unit ;;
    integration) run_integration ;;
    fuzz) run_fuzz ;;
    layering) run_layering ;;
    all) run_layering; run_unit; run_integration; run_fuzz ;;
    *) echo "usage: $0 [unit] [integration] [fuzz] [layering] [all]" >&2; exit 2 ;;
  esac
done
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
echo "check: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
