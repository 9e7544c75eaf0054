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
#    light (timers of seconds with a margin of a second or more, and little CPU: at most a
#    third of one core on average, measured per lab with a cpuacct cgroup and written on
#    its line; a shaped or paced stream, or a flood of small frames that stays under that,
#    may be light; captures only once tshark says it captures; LIGHT_JOBS, three, at a
#    time, only beside other light labs), long (a functional lab of a minute or more whose
#    emulator takes one core, a Linux boot under Hercules: it starts first, in a lane of
#    its own, and the light labs run beside it on the other core), alone (what needs the
#    machine: throughput of unshaped streams, failover or LACP bounds under full load,
#    monitor rates within a few percent, anything above a third of a core),
#    guests (the guest images' own labs, without the switch: only `tests/run.sh guests`,
#    make check-guests). A script without that line runs alone.
#  - fuzz targets run side by side.
# Beside the labs: when one run has both the fast parts and the labs (`make check`), the work
# that has no clock of its own (fuzz targets, hermetic scripts, unit tests on virtual time, and
# with FUZZ_BUILD=1 the fuzz targets' build first) runs in the idle scheduling class
# (SCHED_IDLE, `chrt --idle`), up to TEST_JOBS at once, beside the labs from the first lab to
# the last: it takes only CPU that no lab wants, so a lab's timing is what it is alone, and the
# labs' waiting (LACP timers, boots, intervals) is no longer time the run spends idle. A unit
# test whose source reads a clock, polls, sleeps or starts processes, and a hermetic script
# that waits with a bound, are not such work: they run in the side-by-side pool as before.
# The hang guards of idle-class work are ten minutes longer. FILL=0 turns this off (the
# fuzz targets are then built before the tests).
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
# Light labs at once (beside the long lane): one more than TEST_JOBS, since each takes a
# tenth to a third of a core (measured) and the long lab one core of two.
LIGHT_JOBS=${LIGHT_JOBS:-$(( TEST_JOBS > 1 ? TEST_JOBS + 1 : 1 ))}
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

# A unit test that keeps time of its own (polls, sleeps, reads a clock, starts processes):
# never at the idle class, where the labs may hold it off the CPU for seconds.
unit_timed() {
  grep -qE 'poll\(|usleep|nanosleep|clock_gettime|fork\(|posix_spawn|popen\(|system\(\"|corosync_start' \
    "tests/unit/$1.c" 2>/dev/null
}

# A hermetic script that waits on something with a bound (wait_for, sleep, a timeout on
# a command): not at the idle class either.
it_timed() {
  grep -qE 'wait_for|sleep |timeout [0-9]' "tests/integration/$1.sh" 2>/dev/null
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
declare -A FILLER=()      # pid -> 1: work at the idle class beside the labs (pools leave it out)
FILL_QUEUE=()             # KIND:NAME of that work still to start, in order
JOB_PREFIX=()             # what start_job puts before a test's command (the idle class)
HANG_EXTRA=0              # seconds added to a test's hang guard (at the idle class)

start_job() {  # start_job KIND NAME
  local kind=$1 name=$2
  case $kind in
    unit)
      "${JOB_PREFIX[@]}" timeout $((300 + HANG_EXTRA)) "$BUILD/tests/$name" >"$LOG/$name.log" 2>&1 & ;;
    it)
      "${JOB_PREFIX[@]}" timeout $((600 + HANG_EXTRA)) bash "tests/integration/$name.sh" >"$LOG/it-$name.log" 2>&1 & ;;
    fuzz)
      # The checked-in corpus first, then a short run that may add inputs to a scratch copy.
      local bin=$BUILD/fuzz/$name corpus=tests/fuzz/corpus/${name#fuzz_}
      mkdir -p "$BUILD/fuzz/work-$name"
      if [ ! -x "$bin" ]; then      # listed before the build (FUZZ_BUILD), and not built
        echo "not built (needs clang's libFuzzer)" >"$LOG/$name.log"; (exit 77) &
      else
        "${JOB_PREFIX[@]}" timeout $((FUZZ_SECONDS + 240 + HANG_EXTRA)) \
          bash -c '"$1" -runs=0 "$3" && "$1" -max_total_time="$4" "$2" "$3"' \
          _ "$bin" "$BUILD/fuzz/work-$name" "$corpus" "$FUZZ_SECONDS" >"$LOG/$name.log" 2>&1 &
      fi ;;
    make)
      # A build the tests after it need (the fuzz targets), with the Makefile's own
      # parallelism: a make this script runs under passes its variables on the command
      # line (kept) and its jobserver, which this script does not hold (dropped, with -j).
      local mf
      mf=$(printf '%s' "${MAKEFLAGS:-}" |
        sed -E 's/ ?--jobserver-(auth|fds)=[^ ]*//g; s/(^| )-j[0-9]*( |$)/\1/g')
      "${JOB_PREFIX[@]}" env -u MFLAGS -u MAKELEVEL MAKEFLAGS="$mf" \
        make --no-print-directory BUILD="$BUILD" "$name" >"$LOG/make-$name.log" 2>&1 & ;;
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
  elif [ "$rc" -eq 77 ]; then
    skipped=$((skipped + 1)); echo "skip fuzz $name: $(tail -n 1 "$log")"
  else
    failed=$((failed + 1)); failures+=("$name")
    echo "FAIL fuzz $name (rc $rc, ${secs}s, log: $log)"; tail -n 30 "$log"
  fi
}

finish_make() {  # a build is not a test: only its failure is counted
  local name=$1 rc=$2 secs=$3 log=$LOG/make-$1.log
  if [ "$rc" -eq 0 ]; then
    echo "ok   build $name (${secs}s)"
  else
    failed=$((failed + 1)); failures+=("build-$name")
    echo "FAIL build $name (rc $rc, ${secs}s, log: $log)"; tail -n 30 "$log"
  fi
}

reap_one() {  # waits for one running test to end and accounts for it
  local pid='' rc kind name start
  wait -n -p pid "${!RUNNING[@]}"; rc=$?
  [ -n "$pid" ] && [ -n "${RUNNING[$pid]:-}" ] || return 0
  read -r kind name start <<<"${RUNNING[$pid]}"
  unset "RUNNING[$pid]" "LANE[$pid]" "FILLER[$pid]"
  "finish_$kind" "$name" "$rc" "$(( $(date +%s) - start ))"
  fill_top_up
}

# Start queued idle-class work while fewer than TEST_JOBS of it run. A fuzz target waits
# until no build runs (the build makes it).
fill_top_up() {
  local job pid building
  while [ ${#FILL_QUEUE[@]} -gt 0 ] && [ ${#FILLER[@]} -lt "$TEST_JOBS" ]; do
    job=${FILL_QUEUE[0]}
    building=0
    for pid in "${!FILLER[@]}"; do [[ ${RUNNING[$pid]} == make\ * ]] && building=1; done
    [[ $job == fuzz:* ]] && [ "$building" -eq 1 ] && break
    FILL_QUEUE=("${FILL_QUEUE[@]:1}")
    # The idle class may wait minutes while labs take both cores: the hang guards of its
    # tests (timeout) get ten minutes more.
    JOB_PREFIX=(chrt --idle 0)
    HANG_EXTRA=600
    start_job "${job%%:*}" "${job#*:}"
    JOB_PREFIX=() HANG_EXTRA=0
    FILLER[$!]=1
  done
}

# The idle-class work not yet ended: the run ends after it.
fill_drain() {
  fill_top_up
  while [ ${#RUNNING[@]} -gt 0 ]; do reap_one; done
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
    while [ $(( ${#RUNNING[@]} - ${#LANE[@]} - ${#FILLER[@]} )) -ge "$n" ]; do reap_one; done
    start_job "${job%%:*}" "${job#*:}"
  done
  while [ $(( ${#RUNNING[@]} - ${#FILLER[@]} )) -gt 0 ]; do reap_one; done
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
    # Built by this run (FUZZ_BUILD=1: the build is queued before them): listed now, a
    # target the build could not make is skipped when its turn comes.
    if [ -x "$BUILD/fuzz/$name" ] || [ "${FUZZ_BUILD:-0}" = 1 ]; then echo "fuzz:$name"
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
# beside the long ones, then the alone ones. With labs in the run (and TEST_JOBS > 1, FILL
# not 0) the work without a clock of its own runs at the idle class beside all of that (see
# the top), and the unit tests that run alone go first.
run_parts() {  # run_parts fuzz|hermetic|unit|labs|guests ...
  local p side=() long=() light=() alone=() first=() fill=() fuzz=() j filling=0
  # place TIMED JOB...: each job to the idle-class work (filling, and TIMED says it keeps
  # no time of its own) or to the side-by-side pool (run_parts' own arrays)
  place() {
    local timed=$1 t; shift
    for t in "$@"; do
      if [ $filling -eq 1 ] && ! "$timed" "${t#*:}"; then fill+=("$t"); else side+=("$t"); fi
    done
  }
  if [[ " $* " == *" labs "* ]] && [ "$TEST_JOBS" -gt 1 ] && [ "${FILL:-1}" != 0 ]; then
    filling=1
  fi
  for p in "$@"; do
    case $p in
      fuzz) jobs_of j fuzz_jobs; fuzz+=("${j[@]}") ;;
      hermetic) jobs_of j it_jobs hermetic; place it_timed "${j[@]}" ;;
      unit) jobs_of j unit_jobs parallel; place unit_timed "${j[@]}"
            jobs_of j unit_jobs alone
            if [ $filling -eq 1 ]; then first+=("${j[@]}"); else alone+=("${j[@]}"); fi ;;
      labs) jobs_of j it_jobs parallel; side+=("${j[@]}")
            jobs_of j it_jobs long; long+=("${j[@]}")
            jobs_of j it_jobs light; light+=("${j[@]}")
            jobs_of j it_jobs alone; alone+=("${j[@]}") ;;
      guests) jobs_of j it_jobs guests; alone+=("${j[@]}") ;;
    esac
  done
  # FUZZ_BUILD=1: this run builds the fuzz targets it runs (with clang's libFuzzer; without
  # clang each target is skipped, saying so).
  local build_fuzz=0
  if [ ${#fuzz[@]} -gt 0 ] && [ "${FUZZ_BUILD:-0}" = 1 ] && command -v "${FUZZ_CC:-clang}" >/dev/null; then
    build_fuzz=1
  fi
  if [ $filling -eq 1 ]; then
    # The fuzz targets' build first (they wait for it), then the quick tests, the fuzz last.
    [ $build_fuzz -eq 1 ] && FILL_QUEUE+=("make:fuzzers")
    for j in "${fill[@]}" "${fuzz[@]}"; do selected "${j#*:}" && FILL_QUEUE+=("$j"); done
    fill_top_up
    run_pool 1 "${first[@]}"
  else
    if [ $build_fuzz -eq 1 ]; then
      start_job make fuzzers
      while [ ${#RUNNING[@]} -gt 0 ]; do reap_one; done
    fi
    side=("${fuzz[@]}" "${side[@]}")
  fi
  run_pool "$TEST_JOBS" "${side[@]}"
  # One after another (TEST_JOBS=1), a long lab is one more in the light labs' pool.
  if [ "$TEST_JOBS" -gt 1 ]; then run_lanes "${long[@]}"; else light=("${long[@]}" "${light[@]}"); fi
  run_pool "$LIGHT_JOBS" "${light[@]}"
  run_pool 1 "${alone[@]}"
  fill_drain
}

# The parts named, run in one go (so that the fast parts can fill the labs' idle time).
what=("$@")
[ ${#what[@]} -eq 0 ] && what=(all)
parts=() layering=0
for w in "${what[@]}"; do
  case $w in
    fast) layering=1; parts+=(fuzz hermetic unit) ;;
    labs) parts+=(labs) ;;
    all) layering=1; parts+=(fuzz hermetic unit labs) ;;
    unit) parts+=(unit) ;;
    integration) parts+=(hermetic labs) ;;
    fuzz) parts+=(fuzz) ;;
    guests) parts+=(guests) ;;
    layering) layering=1 ;;
    *) echo "usage: $0 [fast] [labs] [unit] [integration] [fuzz] [guests] [layering] [all]" >&2; exit 2 ;;
  esac
done
[ $layering -eq 1 ] && run_layering
[ ${#parts[@]} -gt 0 ] && run_parts "${parts[@]}"
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
echo "check: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
