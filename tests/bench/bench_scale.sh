#!/usr/bin/env bash
# bench_scale: 1,000 coupled guests (run by tests/bench/run.sh; prints its protocol's BENCH
# lines). Needs nothing but the built programs (valgrind for the instruction counts); no
# root. About a minute.
#
# Forwarding (bench_scale.c: in one process, one core, QDIO guests at QUEUESTORAGE 1M
# sending 64-byte frames to random destinations among 65,000 MAC table entries, every
# address learned first; the switch's rate is frames over the time inside zvs_switch_poll):
#   BENCH scale_fwd_mpps_3g <Mpps> Mpps                 3 guests, median of 3 rounds
#   BENCH scale_fwd_mpps_1000g <Mpps> Mpps scale_fwd_mpps_3g <Mpps> <ratio>
#   BENCH scale_fwd_ratio_1000g_vs_3g <ratio> ratio     target >= 0.9
#   BENCH scale_fwd_spread_pct_3g|_1000g <pct> %        (max - min) / median of the rounds
#   BENCH scale_added_ns_per_frame_1000g <ns> ns  vswitchd's ns a frame at 1,000 guests less
#                       that at 3 (no target; beside scale_floor_memory_ns_per_frame_1000g)
#   BENCH scale_instr_per_frame_3g|_1000g <n> instr/frame        callgrind, whole loop
#   BENCH scale_instr_per_frame_switch_3g|_1000g <n> instr/frame zvs_switch_poll inclusive
#   BENCH scale_floor_fwd_mpps_1000g <Mpps> Mpps scale_floor_fwd_mpps_3g <Mpps> <ratio>
#   BENCH scale_floor_fwd_ratio_1000g_vs_3g <ratio> ratio   tests/tools/scale_floor: the
#                       least any switch does per frame, in the same memory (no target)
#   BENCH scale_floor_memory_ns_per_frame_1000g <ns> ns     what 1,000 guests add a frame
#   BENCH scale_floor_instr_per_frame_3g|_1000g <n> instr/frame   callgrind, forward_burst
#   BENCH scale_fwd_flow_mpps_1000g <Mpps> Mpps scale_fwd_flow_mpps_3g <Mpps> <ratio>
#                       the same with each burst's frames to one guest (--flow): what the
#                       number of guests costs when every input buffer carries a burst
# The rounds interleave (3 guests, 1,000 guests, 3, 1,000, ...) so a disturbance hits both.
#
# CP (cp_guests_lib.sh: vswitchd with N QDIO guests coupled to one VSWITCH):
#   BENCH scale_query_details_ms_1000g <ms> ms scale_query_details_ms_512g <ms> <ratio>
#   BENCH scale_query_details_ratio_1000g_vs_512g <ratio> ratio   target <= 2.2
#   BENCH scale_query_details_spread_pct_512g|_1000g <pct> %   (max - min) / median of
#                       three batches of 20 queries (the figures above are the medians)
#   BENCH scale_rss_kb_per_guest <kB> kB    (VmRSS at 1,000 - at 512) / 488, all coupled
# vswitchd starts under a soft open-file limit of 1,024, as many systems start a service.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
BIN=$BUILD/bench/bench_scale
ROUNDS=${SCALE_ROUNDS:-3}
FRAMES=${SCALE_FRAMES:-2000000}
CG_FRAMES=${SCALE_CG_FRAMES:-64000}
[ -x "$BIN" ] || { echo "bench_scale not built ($BIN)"; exit 1; }
WORK=$(mktemp -d /tmp/zvs-bench-scale.XXXXXX)
. "$HERE/cp_guests_lib.sh"
cleanup() {
  cp_guests_stop >/dev/null 2>&1
  rm -rf "$WORK"
}
trap cleanup EXIT

# ---- forwarding -----------------------------------------------------------------------
for r in $(seq 1 "$ROUNDS"); do
  for g in 3 1000; do
    for mode in random flow; do
      arg=; [ $mode = flow ] && arg=--flow
      "$BIN" --guests "$g" --frames "$FRAMES" --rounds 1 $arg >"$WORK/fwd.$mode.$g.$r" 2>&1 ||
        { cat "$WORK/fwd.$mode.$g.$r"; echo "bench_scale --guests $g $arg failed"; exit 1; }
      cat "$WORK/fwd.$mode.$g.$r"
    done
  done
done
# median and spread of the rounds' switch rates: "median spread_pct"
stats() {  # MODE GUESTS
  cat "$WORK"/fwd."$1"."$2".* | awk '$1 ~ /^SCALE/ { print $7 }' | sort -g |
    awk '{ v[NR] = $1 } END { m = v[int((NR + 1) / 2)]; printf "%.4f %.1f\n", m, (v[NR] - v[1]) / m * 100 }'
}
read -r m3 s3 < <(stats random 3)
read -r m1k s1k < <(stats random 1000)
read -r f3 _ < <(stats flow 3)
read -r f1k _ < <(stats flow 1000)
ratio=$(awk -v a="$m1k" -v b="$m3" 'BEGIN { printf "%.3f", a / b }')
echo "BENCH scale_fwd_mpps_3g $m3 Mpps"
echo "BENCH scale_fwd_mpps_1000g $m1k Mpps scale_fwd_mpps_3g $m3 $ratio"
echo "BENCH scale_fwd_ratio_1000g_vs_3g $ratio ratio"
echo "BENCH scale_fwd_spread_pct_3g $s3 %"
echo "BENCH scale_fwd_spread_pct_1000g $s1k %"
echo "BENCH scale_fwd_flow_mpps_1000g $f1k Mpps scale_fwd_flow_mpps_3g $f3 $(awk -v a="$f1k" -v b="$f3" 'BEGIN { printf "%.3f", a / b }')"
# what 1,000 guests add to vswitchd's frame, in the unit of the floor's memory line below:
# a target on the difference would not fall when the 3-guest path gets faster, as the ratio does
awk -v a="$m1k" -v b="$m3" 'BEGIN { printf "BENCH scale_added_ns_per_frame_1000g %.1f ns\n", 1e3 / a - 1e3 / b }'

# ---- the floor (tests/tools/scale_floor) -----------------------------------------------
# The least any switch does per frame in the same workload and the same memory layout
# (1 MB regions, 65,000 addresses, random destinations): learn, look up, copy into the
# destination's next input page, describe and prime its buffer, loaded ahead as
# dataplane/forward.c loads. No target: it says what the memory of 1,000 guests costs on
# this machine whatever the switch does, the same instructions at both counts.
FLOOR=$BUILD/tools/scale_floor
FLOOR_LINES="scale_floor_fwd_mpps_1000g scale_floor_fwd_ratio_1000g_vs_3g
  scale_floor_memory_ns_per_frame_1000g scale_floor_instr_per_frame_3g
  scale_floor_instr_per_frame_1000g"
floor_notrun() {  # the floor's lines as not run, with the reason: it has no target, and
  local n          # it must not take the lines that have one down with it
  for n in $FLOOR_LINES; do echo "NOTRUN $n $*"; done
}
if [ ! -x "$FLOOR" ]; then
  floor_notrun "no $FLOOR (make)"
elif ! "$FLOOR" --frames "$FRAMES" --rounds "$(( ROUNDS > 15 ? 15 : ROUNDS ))" \
       >"$WORK/floor" 2>&1; then
  sed 's/^/# /' "$WORK/floor"
  floor_notrun "scale_floor failed (see the log)"
else
  cat "$WORK/floor"
  fmed() {  # fmed GUESTS: the median of the floor's rounds
    awk -v g="$1" '$1 == "FLOOR" && $3 == g { print $7 }' "$WORK/floor" | sort -g |
      awk '{ v[NR] = $1 } END { printf "%.3f", v[int((NR + 1) / 2)] }'
  }
  fl3=$(fmed 3); fl1k=$(fmed 1000)
  fratio=$(awk -v a="$fl1k" -v b="$fl3" 'BEGIN { printf "%.3f", a / b }')
  echo "BENCH scale_floor_fwd_mpps_1000g $fl1k Mpps scale_floor_fwd_mpps_3g $fl3 $fratio"
  echo "BENCH scale_floor_fwd_ratio_1000g_vs_3g $fratio ratio"
  # what 1,000 guests' memory adds a frame, even to the floor, against vswitchd's whole
  # frame at 3 guests
  awk -v a="$fl1k" -v b="$fl3" -v z="$m3" 'BEGIN {
    printf "BENCH scale_floor_memory_ns_per_frame_1000g %.1f ns\n", 1e3 / a - 1e3 / b
    printf "# the floor: %.1f ns a frame at 3 guests, %.1f at 1,000; vswitchd at 3 guests %.1f\n",
      1e3 / b, 1e3 / a, 1e3 / z }'
  if command -v valgrind >/dev/null 2>&1; then
    for g in 3 1000; do
      if ! valgrind --tool=callgrind --toggle-collect=forward_burst \
          --callgrind-out-file="$WORK/cgf.$g.out" "$FLOOR" --frames "$CG_FRAMES" --rounds 1 \
          --guests "$g" >"$WORK/cgf.$g.log" 2>&1; then
        tail -5 "$WORK/cgf.$g.log" | sed 's/^/# /'
        echo "NOTRUN scale_floor_instr_per_frame_${g}g callgrind of the floor failed"
        continue
      fi
      total=$(sed -n 's/^totals: *\([0-9][0-9]*\).*/\1/p' "$WORK/cgf.$g.out" | head -n 1)
      n=$(awk '$1 == "FLOOR" && $2 == "guests" { print $5; exit }' "$WORK/cgf.$g.log")
      if [ -n "$total" ] && [ "${n:-0}" -gt 0 ]; then
        awk -v t="$total" -v n="$n" -v g="$g" \
          'BEGIN { printf "BENCH scale_floor_instr_per_frame_%sg %.1f instr/frame\n", g, t / n }'
      else
        echo "NOTRUN scale_floor_instr_per_frame_${g}g callgrind counted nothing"
      fi
    done
  else
    for g in 3 1000; do echo "NOTRUN scale_floor_instr_per_frame_${g}g valgrind missing"; done
  fi
fi

# ---- instructions (callgrind) ---------------------------------------------------------
if command -v valgrind >/dev/null 2>&1; then
  for g in 3 1000; do
    out=$WORK/cg.$g.out
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out" \
      "$BIN" --callgrind --guests "$g" --frames "$CG_FRAMES" >"$WORK/cg.$g.log" 2>&1 ||
      { tail -5 "$WORK/cg.$g.log"; echo "callgrind of $g guests failed"; exit 1; }
    grep -qx "BENCH_CALLGRIND_MACROS 1" "$WORK/cg.$g.log" ||
      { echo "bench_scale built without valgrind's callgrind.h: nothing counted"; continue; }
    total=$(sed -n 's/^totals: *\([0-9][0-9]*\).*/\1/p' "$out" | head -n 1)
    sw=$(callgrind_annotate --inclusive=yes "$out" 2>/dev/null |
         awk '/:zvs_switch_poll / && $1 ~ /^[0-9,]+$/ { gsub(",", "", $1); print $1; exit }')
    awk -v t="$total" -v s="${sw:-0}" -v n="$CG_FRAMES" -v g="$g" 'BEGIN {
      printf "BENCH scale_instr_per_frame_%sg %.1f instr/frame\n", g, t / n
      printf "BENCH scale_instr_per_frame_switch_%sg %.1f instr/frame\n", g, s / n }'
  done
else
  echo "valgrind missing: no instruction counts"
fi

# ---- CP: QUERY VSWITCH DETAILS and memory ---------------------------------------------
# The soft open-file limit many systems start a service with: vswitchd raises it itself
# (daemon/fd_limit.h), else the 338th guest would fail to couple (3 descriptors a NIC).
ulimit -Sn 1024 2>/dev/null || true
for _ in $(seq 1 20); do echo "QUERY VSWITCH BENCHSW DETAILS"; done >"$WORK/details"
declare -A DET DSP RSS
for n in 512 1000; do
  cp_guests_start "$n" || exit 1
  cp_batch "$WORK/details" >/dev/null || exit 1          # warm-up
  : >"$WORK/det.$n"
  for _ in 1 2 3; do                                     # three timed batches of 20
    t=$(cp_batch "$WORK/details") || { echo "$t"; exit 1; }
    awk -v t="$t" 'BEGIN { printf "%.3f\n", t / 20 * 1e3 }' >>"$WORK/det.$n"
  done
  DET[$n]=$(sort -g "$WORK/det.$n" | awk '{ v[NR] = $1 } END { printf "%.2f", v[2] }')
  DSP[$n]=$(sort -g "$WORK/det.$n" |
    awk '{ v[NR] = $1 } END { printf "%.1f", (v[2] > 0 ? (v[3] - v[1]) / v[2] * 100 : 0) }')
  RSS[$n]=$(cp_rss_kb)
  echo "$n guests: QUERY VSWITCH DETAILS ${DET[$n]} ms (batches: $(tr '\n' ' ' <"$WORK/det.$n")ms)," \
    "vswitchd VmRSS ${RSS[$n]} kB"
  cp_guests_stop || exit 1
done
dr=$(awk -v a="${DET[1000]}" -v b="${DET[512]}" 'BEGIN { printf "%.3f", a / b }')
# ratio column: > 1 means better, so for a time it is the 512-guest figure over ours
echo "BENCH scale_query_details_ms_1000g ${DET[1000]} ms scale_query_details_ms_512g ${DET[512]} $(awk -v r="$dr" 'BEGIN { printf "%.3f", 1 / r }')"
echo "BENCH scale_query_details_ratio_1000g_vs_512g $dr ratio"
echo "BENCH scale_query_details_spread_pct_512g ${DSP[512]} %"
echo "BENCH scale_query_details_spread_pct_1000g ${DSP[1000]} %"
echo "BENCH scale_rss_kb_per_guest $(awk -v a="${RSS[1000]}" -v b="${RSS[512]}" 'BEGIN { printf "%.1f", (a - b) / 488 }') kB"
