#!/usr/bin/env bash
# bench_pgroup: port group distribution cost and balance (run by tests/bench/run.sh).
#
#   BUILD=build tests/bench/bench_pgroup.sh
#
# Runs $BUILD/bench/bench_pgroup, which prints run.sh protocol lines:
#   BENCH dist_ns_per_frame <ns> ns                         (target <= 10)
#   BENCH balance_max_over_mean_<pop>_<N>p_<load|modn> <max/mean> ratio
#   BENCH balance_<pop>_<N>p <ours> ratio <modn> <modn/ours>  (> 1: we balance better)
# pop: sequential, random, skewed (Zipf loads); N: 2, 4 ports. Target: skewed <= 1.10.
# No root, no network: pure computation on virtual time, about 1 s.
# Knob: BENCH_PGROUP_FRAMES (frames timed per run, default 50000000).
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
BIN=$BUILD/bench/bench_pgroup
if [ ! -x "$BIN" ]; then
    echo "bench_pgroup: $BIN not built (make all)"
    exit 77
fi
exec "$BIN" --frames "${BENCH_PGROUP_FRAMES:-50000000}"
