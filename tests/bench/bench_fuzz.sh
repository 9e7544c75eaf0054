#!/usr/bin/env bash
# bench_fuzz: the fuzz targets' speed and the campaign totals (run by tests/bench/run.sh).
#   BENCH fuzz_execs_<target> <n> execs           executions in a FUZZ_BENCH_SECONDS (10)
#                                                 run of the target over its checked-in
#                                                 corpus, one target at a time, nothing
#                                                 merged or logged (the corpus replay is
#                                                 included)
#   BENCH fuzz_campaign_execs_<target> <n> execs(log)      from the campaign log
#   BENCH fuzz_campaign_seconds_<target> <n> s(log)        (tests/fuzz/CAMPAIGNS.tsv,
#   BENCH fuzz_campaign_crashes_<target> <n> crashes(log)  `make fuzz`): totals over every
#                                                 run logged, not measured by this bench
# The fuzz targets are built with clang (`make fuzzers`); without them this exits 77.
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
SECS=${FUZZ_BENCH_SECONDS:-10}
LOG=tests/fuzz/CAMPAIGNS.tsv
make --no-print-directory BUILD="$BUILD" fuzzers >/dev/null 2>&1 ||
  { echo "fuzz targets not built (make fuzzers needs clang)"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
for src in tests/fuzz/fuzz_*.c; do
  name=$(basename "$src" .c); short=${name#fuzz_}
  [ -x "$BUILD/fuzz/$name" ] || { echo "no $BUILD/fuzz/$name"; exit 1; }
  mkdir -p "$work/$name"
  execs=$("$BUILD/fuzz/$name" -max_total_time="$SECS" -print_final_stats=1 \
            -artifact_prefix="$work/" "$work/$name" "tests/fuzz/corpus/$short" 2>&1 |
          sed -n 's/^stat::number_of_executed_units: *//p')
  [ -n "$execs" ] || { echo "$name: no statistics (crashed?)"; exit 1; }
  echo "$name: $execs execs in ${SECS}s"
  echo "BENCH fuzz_execs_$short $execs execs"
done
[ -s "$LOG" ] || { echo "no campaign log $LOG"; exit 0; }
awk -F '\t' 'NR > 1 { e[$3] += $5; s[$3] += $4; c[$3] += $9; if (!($3 in seen)) { seen[$3] = 1; o[++n] = $3 } }
  END { for (i = 1; i <= n; i++) { t = o[i]
          printf "BENCH fuzz_campaign_execs_%s %d execs(log)\n", t, e[t]
          printf "BENCH fuzz_campaign_seconds_%s %d s(log)\n", t, s[t]
          printf "BENCH fuzz_campaign_crashes_%s %d crashes(log)\n", t, c[t] } }' "$LOG"
