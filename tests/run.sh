#!/usr/bin/env bash
# Run zvswitch's tests and print one closing line: "check: N passed, N failed, N skipped",
# totalled over every part named (CI reads it; the exit status is 0 when nothing failed).
#   tests/run.sh [fast] [labs] [unit] [integration] [fuzz] [guests] [layering] [all]
# fast:        no root needed: layering, unit, fuzz, and the hermetic scripts of
#              tests/integration (`make check-fast`)
# labs:        the tests/integration scripts that are not hermetic: root namespace labs
#              (`make check-labs`); `make check` runs "fast labs", which is what all is
# layering:    scripts/layering.sh on the repository and on its fixture (tests/layering/)
# unit:        every build/tests/test_* cmocka binary (each test case counts)
# integration: every tests/integration/*.sh (exit 0 pass, 77 skip, else fail): hermetic
#              ones and labs; labs make their own network namespaces and remove them, and
#              are bounded in time
# fuzz:        every fuzz target over its corpus plus a short bounded run (FUZZ_SECONDS, 3)
# guests:      the labs marked "# check: guests": a guest image alone under Hercules, without
#              the switch (`make check-guests` adds the frame program's, a parallel lab)
#
# Side by side: up to TEST_JOBS (default 2) tests run at once, only those that are not
# timing-sensitive; the others then run one after another, alone:
#  - unit tests: alone if named in UNIT_ALONE below (real-time timers, network namespaces,
#    real interfaces) or if their source includes netns.h or calls unshare(); the rest
#    (pure logic, virtual time) run side by side;
#  - integration scripts say what they are on a line "# check: hermetic|parallel|alone
#    (why)": hermetic (no root, no namespaces, no timing: part of fast, side by side),
#    parallel (a lab that neither measures rates nor races timers: two at a time),
#    light (LACP timers of seconds, but little CPU, a few percent of one core: no iperf3,
#    no flood, captures only once tshark says it captures; two at a time, only beside
#    another light lab), long (a functional lab of a minute or more whose emulator takes
#    one core, a Linux boot under Hercules: it starts first, in a lane of its own, and the
#    light labs run two at a time beside it on the other core), alone (failover or
#    throughput under load, rate limits, LACP bounds under traffic, monitor rates),
#    guests (the guest images' own labs, without the switch: only `tests/run.sh guests`,
#    make check-guests). A script without that line runs alone.
#  - fuzz targets run side by side.
# Each test writes its own log in $BUILD/test-logs/; its result line is printed when it
# ends (never interleaved), with the log's tail when it failed. TEST_JOBS=1 runs
# everything one after another. TEST_ONLY='PATTERN...' (shell patterns on test names,
# e.g. 'lab_basic test_lacp_*') runs only the tests it matches.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export BUILD
LOG=$BUILD/test-logs
mkdir -p "$LOG"
TEST_JOBS=${TEST_JOBS:-2}
# A smoke run after the corpus (the campaign, with its figures, is `make fuzz`).
FUZZ_SECONDS=${FUZZ_SECONDS:-3}
passed=0 failed=0 skipped=0
failures=()

# Unit tests that run alone (patterns): real-time timers (evloop), network namespaces and
# real interfaces (guest tap, netlink, the uplink backends).
UNIT_ALONE=(test_evloop test_guest_tap test_netlink_link 'test_uplink_*')

unit_alone() {
  local p
  for p in "${UNIT_ALONE[@]}"; do
    # shellcheck disable=SC2053
    [[ $1 == $p ]] && return 0
  done
  grep -qE '#include "netns\.h"|unshare\(' "tests/unit/$1.c" 2>/dev/null
}

# it_class SCRIPT: hermetic, parallel, light, long, guests or alone (its "# check:" line).
it_class() {
  local c
  c=$(sed -n 's/^# check: \([a-z]*\).*/\1/p' "$1" | head -n 1)
  case $c in hermetic|parallel|light|long|guests) echo "$c" ;; *) echo alone ;; esac
}

# Integration scripts (shared helpers lib.sh, *_lib.sh are not tests) of a class.
it_scripts() {  # it_scripts CLASS...
  local t name
  for t in tests/integration/*.sh; do
    [ -f "$t" ] || continue
    name=$(basename "$t" .sh)
    case $name in lib|*_lib) continue ;; esac
    [[ " $* " == *" $(it_class "$t") "* ]] && echo "$name"
  done
}

# ---- one test: start it in the background, account for it when it ends ----------------
declare -A RUNNING=()     # pid -> "kind name start"
declare -A LANE=()        # pid -> 1: a long lab in a lane of its own (run_pool leaves it out)

start_job() {  # start_job KIND NAME
  local kind=$1 name=$2
  case $kind in
    unit)
      timeout 300 "$BUILD/tests/$name" >"$LOG/$name.log" 2>&1 & ;;
    it)
      timeout 600 bash "tests/integration/$name.sh" >"$LOG/it-$name.log" 2>&1 & ;;
    fuzz)
      # The checked-in corpus first, then a short run that may add inputs to a scratch copy.
      local bin=$BUILD/fuzz/$name corpus=tests/fuzz/corpus/${name#fuzz_}
      mkdir -p "$BUILD/fuzz/work-$name"
      timeout $((FUZZ_SECONDS + 240)) bash -c '"$1" -runs=0 "$3" && "$1" -max_total_time="$4" "$2" "$3"' \
        _ "$bin" "$BUILD/fuzz/work-$name" "$corpus" "$FUZZ_SECONDS" >"$LOG/$name.log" 2>&1 & ;;
  esac
  RUNNING[$!]="$kind $name $(date +%s)"
}

finish_unit() {  # NAME RC SECONDS
  local name=$1 rc=$2 secs=$3 log=$LOG/$1.log p f s
  p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
  f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
  s=$(grep -c '^\[  SKIPPED \]' "$log")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi     # crashed or timed out
  passed=$((passed + p - s)); failed=$((failed + f)); skipped=$((skipped + s))
  if [ "$f" -gt 0 ]; then
    failures+=("$name"); echo "FAIL unit $name (rc $rc, ${secs}s, log: $log)"; tail -n 30 "$log"
  else
    echo "ok   unit $name: $((p - s)) passed${s:+, $s skipped} (${secs}s)"
  fi
}

finish_it() {
  local name=$1 rc=$2 secs=$3 log=$LOG/it-$1.log
  if [ "$rc" -eq 0 ]; then
    passed=$((passed + 1)); echo "ok   integration $name (${secs}s)"
  elif [ "$rc" -eq 77 ]; then
    skipped=$((skipped + 1)); echo "skip integration $name: $(tail -n 1 "$log")"
  else
    failed=$((failed + 1)); failures+=("$name")
    echo "FAIL integration $name (rc $rc, ${secs}s, log: $log)"; tail -n 40 "$log"
  fi
}

finish_fuzz() {
  local name=$1 rc=$2 secs=$3 log=$LOG/$1.log
  if [ "$rc" -eq 0 ]; then
    passed=$((passed + 1)); echo "ok   fuzz $name (${secs}s)"
  else
    failed=$((failed + 1)); failures+=("$name")
    echo "FAIL fuzz $name (rc $rc, ${secs}s, log: $log)"; tail -n 30 "$log"
  fi
}

reap_one() {  # waits for one running test to end and accounts for it
  local pid='' rc kind name start
  wait -n -p pid "${!RUNNING[@]}"; rc=$?
  [ -n "$pid" ] && [ -n "${RUNNING[$pid]:-}" ] || return 0
  read -r kind name start <<<"${RUNNING[$pid]}"
  unset "RUNNING[$pid]" "LANE[$pid]"
  "finish_$kind" "$name" "$rc" "$(( $(date +%s) - start ))"
}

selected() {  # selected NAME: TEST_ONLY is unset or one of its patterns matches NAME
  [ -z "${TEST_ONLY:-}" ] && return 0
  local p pats
  read -ra pats <<<"$TEST_ONLY"
  for p in "${pats[@]}"; do
    # shellcheck disable=SC2053
    [[ $1 == $p ]] && return 0
  done
  return 1
}

run_pool() {  # run_pool N KIND:NAME...: at most N at once (beside the lanes of
              # run_lanes), each accounted when it ends; returns when all have ended
  local n=$1 job; shift
  for job in "$@"; do
    selected "${job#*:}" || continue
    while [ $(( ${#RUNNING[@]} - ${#LANE[@]} )) -ge "$n" ]; do reap_one; done
    start_job "${job%%:*}" "${job#*:}"
  done
  while [ ${#RUNNING[@]} -gt 0 ]; do reap_one; done
}

run_lanes() {  # run_lanes KIND:NAME...: start each in a lane of its own, return at once
  local job
  for job in "$@"; do
    selected "${job#*:}" || continue
    start_job "${job%%:*}" "${job#*:}"
    LANE[$!]=1
  done
}

# Interrupted: stop what runs (timeout passes the signal to the test's process group, and
# the labs' traps remove their namespaces), then stop.
stop_all() {
  local pid
  for pid in "${!RUNNING[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  wait
  echo "interrupted"
  exit 130
}
trap stop_all INT TERM

# ---- the parts ---------------------------------------------------------------------------
# Lists of KIND:NAME, side-by-side ones and alone ones.
unit_jobs() {  # unit_jobs parallel|alone
  local t name
  for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    if unit_alone "$name"; then [ "$1" = alone ] && echo "unit:$name"
    else [ "$1" = parallel ] && echo "unit:$name"; fi
  done
}

fuzz_jobs() {
  local src name
  for src in tests/fuzz/fuzz_*.c; do
    [ -f "$src" ] || continue
    name=$(basename "$src" .c)
    selected "$name" || continue
    if [ -x "$BUILD/fuzz/$name" ]; then echo "fuzz:$name"
    else
      skipped=$((skipped + 1)); echo "skip fuzz $name: not built (needs clang's libFuzzer)" >&2
    fi
  done
}

it_jobs() {  # it_jobs CLASS...
  local name
  for name in $(it_scripts "$@"); do echo "it:$name"; done
}

run_layering() {
  selected layering || return 0
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

# The jobs of a list, read into an array (fuzz_jobs counts its skips in this shell).
jobs_of() {  # jobs_of ARRAY CMD...
  local -n out=$1; shift
  local tmp; tmp=$(mktemp)
  "$@" >"$tmp"
  mapfile -t out <"$tmp"
  rm -f "$tmp"
}

# Side-by-side jobs first (longest kinds first: fuzz, scripts, unit), then the light labs
# beside the long ones, then the alone ones.
run_parts() {  # run_parts unit|fuzz|hermetic|labs ...
  local p side=() long=() light=() alone=() j
  for p in "$@"; do
    case $p in
      fuzz) jobs_of j fuzz_jobs; side=("${j[@]}" "${side[@]}") ;;
      hermetic) jobs_of j it_jobs hermetic; side+=("${j[@]}") ;;
      unit) jobs_of j unit_jobs parallel; side+=("${j[@]}")
            jobs_of j unit_jobs alone; alone+=("${j[@]}") ;;
      labs) jobs_of j it_jobs parallel; side+=("${j[@]}")
            jobs_of j it_jobs long; long+=("${j[@]}")
            jobs_of j it_jobs light; light+=("${j[@]}")
            jobs_of j it_jobs alone; alone+=("${j[@]}") ;;
      guests) jobs_of j it_jobs guests; alone+=("${j[@]}") ;;
    esac
  done
  run_pool "$TEST_JOBS" "${side[@]}"
  # One after another (TEST_JOBS=1), a long lab is one more in the light labs' pool.
  if [ "$TEST_JOBS" -gt 1 ]; then run_lanes "${long[@]}"; else light=("${long[@]}" "${light[@]}"); fi
  run_pool "$TEST_JOBS" "${light[@]}"
  run_pool 1 "${alone[@]}"
}

what=("$@")
[ ${#what[@]} -eq 0 ] && what=(all)
for w in "${what[@]}"; do
  case $w in
    fast) run_layering; run_parts fuzz hermetic unit ;;
    labs) run_parts labs ;;
    all) run_layering; run_parts fuzz hermetic unit; run_parts labs ;;
    unit) run_parts unit ;;
    integration) run_parts hermetic labs ;;
    fuzz) run_parts fuzz ;;
    guests) run_parts guests ;;
    layering) run_layering ;;
    *) echo "usage: $0 [fast] [labs] [unit] [integration] [fuzz] [guests] [layering] [all]" >&2; exit 2 ;;
  esac
done
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
echo "check: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
