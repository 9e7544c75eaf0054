#!/usr/bin/env bash
# The IBM report "z/VM 5.3 Virtual Switch Link Aggregation", its experiment reproduced
# (tests/repro/README.md). `make repro` runs the full matrix; tests/bench/bench_repro.sh a
# subset. Needs root (namespaces, cgroup v2), build/bin/vswitchd, build/tools/{switchmodel,awm}.
#
#   tests/repro/repro.sh [--quick] [--points LIST]
#   tests/repro/repro.sh [--quick] --uneven
#
# --uneven: instead of the matrix, the "uneven inbound" variant (README, "The balancing
# picture"): the client guests get MACIDs that the switch model's dst-mac hash puts on one
# member (configs/repro/USER-GDLGPRF1-UNEVEN.DIRECT), and one group point
# (REPRO_UNEVEN_POINT, str:1492:10) runs once with POLICY LOAD TOTAL and once with LOAD
# OUTBOUND, warm-up 3 x INTERVAL + 2 s so the passes have acted. Its section goes into
# repro.md (replacing an earlier one) and its figures into repro.json under "uneven"; it
# fails unless TOTAL moves GDLGPRF1's outbound off the port the switch uses for inbound
# and OUTBOUND leaves it there. `make repro` runs it after the matrix (about 1.5 minutes).
#
# Environment (defaults are the full run):
#   REPRO_POINTS    what to run, blank-separated KIND:MTU:THREADS (str:1492:10 rr:1492:50);
#                   default: STR 1492 and 8992 and RR 1492 at 1, 10 and 50 threads
#   REPRO_REPEATS   repeats of each point (3)
#   REPRO_WARMUP    seconds before the counted window (REPRO_INTERVAL + 2)
#   REPRO_SECS      counted window in seconds (2 * REPRO_INTERVAL: two balancing passes)
#   REPRO_INTERVAL  balancing passes in the lab, vswitchd --test-interval (ours; 5; the
#                   configurations keep the report's INTERVAL 30, which makes the full
#                   matrix last about 2.5 hours, see the README)
#   REPRO_SCALE     factor on both OSA port limits (0.3; 1.0 = the report's ports: 1 Gbit/s
#                   each way and REPRO_OSA_FPS frames/s; the README says why 0.3)
#   REPRO_OSA_FPS   the OSA port's frame ceiling at scale 1.0, both directions (92000)
#   REPRO_POLICY    the INTERVAL pass's load (TOTAL, the default: inbound plus outbound,
#                   the report's picture; OUTBOUND: outbound only; sent to both LPARs as
#                   SET PORT GROUP CCBGROUP POLICY LOAD OUTBOUND; or LBT [n])
#   REPRO_OUT       results directory (build); writes repro.json, repro.md, repro.jsonl
#   REPRO_UNEVEN_POINT   --uneven's point, STR:MTU:THREADS (str:1492:10)
#   REPRO_UNEVEN_WARMUP  --uneven's warm-up (3 * REPRO_INTERVAL + 2; REPRO_WARMUP is not used)
#   REPRO_UNEVEN_SECS    --uneven's window (2 * REPRO_INTERVAL); writes repro-uneven.jsonl
# --quick: REPRO_REPEATS=1 REPRO_INTERVAL=2 REPRO_WARMUP=3 REPRO_SECS=4 unless set.
#
# Per configuration (base, group) and MTU one lab: two vswitchd (the LPARs GDLGPRF1 and
# GDLGPRF2, configs/repro/), one switch model (configs/repro/lab6509-repro-*.conf) with
# the OSA port model on every OSA-facing port, four guests on taps with their own TCP
# stacks (LNXREGC, LNXVSWC on GDLGPRF1; LNXREGS, LNXVSWS on GDLGPRF2). Each guest's
# processes and each vswitchd run in a cgroup v2 of their own; CPU is cpu.stat usage_usec.
# Everything is removed on exit.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh"
SWITCHMODEL=$BUILD/tools/switchmodel
AWM=$BUILD/tools/awm
HERE=$ROOT/tests/repro

QUICK=
UNEVEN=
while [ $# -gt 0 ]; do
  case $1 in
    --quick) QUICK=1 ;;
    --points) REPRO_POINTS=$2; shift ;;
    --uneven) UNEVEN=1 ;;
    *) echo "usage: $0 [--quick] [--points 'str:1492:10 rr:1492:50'] | [--quick] --uneven" >&2; exit 2 ;;
  esac
  shift
done
if [ -n "$QUICK" ]; then
  : "${REPRO_REPEATS:=1}" "${REPRO_INTERVAL:=2}" "${REPRO_WARMUP:=3}" "${REPRO_SECS:=4}"
fi
REPRO_POINTS=${REPRO_POINTS:-"str:1492:1 str:1492:10 str:1492:50 rr:1492:1 rr:1492:10 rr:1492:50 str:8992:1 str:8992:10 str:8992:50"}
REPRO_REPEATS=${REPRO_REPEATS:-3}
REPRO_INTERVAL=${REPRO_INTERVAL:-5}
REPRO_WARMUP=${REPRO_WARMUP:-$((REPRO_INTERVAL + 2))}
REPRO_SECS=${REPRO_SECS:-$((2 * REPRO_INTERVAL))}
REPRO_SCALE=${REPRO_SCALE:-0.3}
REPRO_POLICY=${REPRO_POLICY:-TOTAL}
REPRO_CONFIGS=${REPRO_CONFIGS:-"base group"}
OUT=${REPRO_OUT:-$BUILD}
# GDLGPRF1's user directory and where run_point writes: the --uneven variant changes both.
USER1=USER-GDLGPRF1.DIRECT
JSONL=$OUT/repro.jsonl
mkdir -p "$OUT"
RATE_BPS=$(awk -v s="$REPRO_SCALE" 'BEGIN { printf "%d", 1e9 * s }')
RATE_FPS=$(awk -v s="$REPRO_SCALE" -v f="${REPRO_OSA_FPS:-92000}" 'BEGIN { printf "%d", f * s }')
QUEUE=256

[ "$(id -u)" -eq 0 ] || skip "needs root for network namespaces and cgroups"
for b in "$VSWITCHD" "$SWITCHMODEL" "$AWM" "$BUILD/bin/perfkit"; do
  [ -x "$b" ] || fail "no $b (run make)"
done
CG_ROOT=/sys/fs/cgroup
[ -f $CG_ROOT/cgroup.procs ] && [ -f $CG_ROOT/cpu.stat ] || CG_ROOT=/sys/fs/cgroup/unified
[ -f $CG_ROOT/cpu.stat ] || skip "no cgroup v2 with cpu.stat"

P=zvs-repro-$$
WORK=$(mktemp -d /tmp/zvs-repro.XXXXXX)
CG=$CG_ROOT/$P
PIDS=()
NSS=()
GUESTS="lnxregc lnxvswc lnxregs lnxvsws"
declare -A GIP=([lnxregc]=10.88.0.1 [lnxvswc]=10.88.0.2 [lnxregs]=10.88.0.11 [lnxvsws]=10.88.0.12)
declare -A GLPAR=([lnxregc]=1 [lnxvswc]=1 [lnxregs]=2 [lnxvsws]=2)
declare -A PEER=([lnxregc]=lnxregs [lnxvswc]=lnxvsws)

teardown() {  # stop every process we started, delete namespaces and cgroups
  local pid ns d
  for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null; done
  for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && wait "$pid" 2>/dev/null; done
  PIDS=()
  for ns in "${NSS[@]:-}"; do
    [ -n "$ns" ] || continue
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
    ip netns del "$ns" 2>/dev/null
  done
  NSS=()
  if [ -d "$CG" ]; then
    for d in "$CG"/*/; do [ -d "$d" ] && rmdir "$d" 2>/dev/null; done
  fi
}
cleanup() {
  local st=$?
  teardown
  [ -d "$CG" ] && rmdir "$CG" 2>/dev/null
  [ -z "${KEEP_WORK:-}" ] && rm -rf "$WORK"
  exit $st
}
trap cleanup EXIT
trap 'exit 1' INT TERM
mkdir -p "$CG" || skip "cannot create a cgroup under $CG_ROOT"

# run_in NS CGROUP CMD...: CMD in namespace NS, charged to cgroup CGROUP (in the background)
run_in() {
  local ns=$1 cg=$2; shift 2
  mkdir -p "$CG/$cg"
  # Join the cgroup first: ip netns exec mounts a fresh /sys without the cgroup tree.
  sh -c 'echo $$ > "$0/cgroup.procs" && exec ip netns exec "$@"' "$CG/$cg" "$ns" "$@" &
  PIDS+=($!)
}
cpu_usec() { awk '$1 == "usage_usec" { print $2 }' "$CG/$1/cpu.stat" 2>/dev/null || echo 0; }
host_idle() { awk '/^cpu / { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
sm() { "$SWITCHMODEL" -C "$WORK/sm.sock" -x "$*"; }

# vsw_stat LPAR: path of a fresh counters report of that LPAR's vswitchd
vsw_stat() {
  local f=$WORK/stats$1
  rm -f "$f"
  kill -USR1 "${VSW_PID[$1]}"
  wait_for 5 test -s "$f" || fail "no counters report from GDLGPRF$1"
  echo "$f"
}
distributing() {  # distributing LPAR: the port group's Distributing count
  awk '/^  Members:/ { for (i = 1; i <= NF; i++) if ($i == "Distributing:") { print $(i + 1); exit } }' \
    "$(vsw_stat "$1")"
}
both_distributing() { [ "$(distributing 1)" = 2 ] && [ "$(distributing 2)" = 2 ]; }

declare -A VSW_PID
# lab_up CONFIG MTU: the two LPARs, the switch model and the four guests
lab_up() {
  local conf=$1 mtu=$2 l d g wire=$(( $2 > 1500 ? 9000 : 1500 ))
  NS_PHY=$P-phy
  NSS=("$NS_PHY" "$P-l1" "$P-l2" $(for g in $GUESTS; do echo "$P-$g"; done))
  for ns in "${NSS[@]}"; do
    ip netns add "$ns" || fail "ip netns add $ns"
    ip -n "$ns" link set lo up
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  done
  for l in 1 2; do
    for d in 28ba 2902; do
      ip -n "$P-l$l" link add "osa$d" mtu $wire type veth peer name "sw$l-$d" mtu $wire netns "$NS_PHY" ||
        fail "veth sw$l-$d"
      ip -n "$P-l$l" link set "osa$d" up
      ip -n "$NS_PHY" link set "sw$l-$d" up
    done
  done
  # The OSA port model's limits, scaled by REPRO_SCALE (1.0: the report's ports).
  sed -e "s/rate-limit .*/rate-limit $RATE_BPS ${RATE_FPS}pps queue $QUEUE/" \
    "$ROOT/configs/repro/lab6509-repro-$conf.conf" >"$WORK/sm.conf"
  run_in "$NS_PHY" switch "$SWITCHMODEL" -c "$WORK/sm.conf" -C "$WORK/sm.sock" -l "$WORK/sm.log"
  wait_for 10 test -S "$WORK/sm.sock" || fail "switch model did not start: $(tail -3 "$WORK/sm.log")"
  local suffix=; [ "$conf" = base ] && suffix=-BASE
  for l in 1 2; do
    # The files keep the report's INTERVAL 30 (CP rounds to multiples of 30); the lab's
    # shorter passes come from our --test-interval.
    cp "$ROOT/configs/repro/SYSTEM-GDLGPRF$l$suffix.CONFIG" "$WORK/SYSTEM$l.CONFIG"
    rm -f "$WORK/mon$l"
    run_in "$P-l$l" "gdlgprf$l" "$VSWITCHD" -f -c "$WORK/SYSTEM$l.CONFIG" \
      --test-interval "$REPRO_INTERVAL" \
      -u "$ROOT/configs/repro/$([ "$l" = 1 ] && echo "$USER1" || echo USER-GDLGPRF2.DIRECT)" -l warn -s "$WORK/stats$l" \
      -k "$WORK/console$l.sock" -m "$WORK/mon$l" -i "$REPRO_INTERVAL"
    VSW_PID[$l]=${PIDS[-1]}
  done
  for g in $GUESTS; do
    local l=${GLPAR[$g]} ns=$P-$g
    wait_for 20 ip -n "$P-l$l" link show "$g-f000" || fail "GDLGPRF$l made no tap $g-f000"
    ip -n "$P-l$l" link set "$g-f000" netns "$ns" || fail "move $g-f000"
    ip -n "$ns" link set "$g-f000" mtu "$mtu" up
    ip -n "$ns" addr add "${GIP[$g]}/24" dev "$g-f000"
  done
  # The matrix leaves the default (TOTAL) alone; --uneven states both policies it compares.
  if { [ "$REPRO_POLICY" != TOTAL ] || [ -n "$UNEVEN" ]; } && [ "$conf" = group ]; then
    # TOTAL and OUTBOUND are POLICY LOAD's measures; anything else (LBT 75) as given.
    local pol=$REPRO_POLICY
    case $pol in TOTAL|OUTBOUND) pol="LOAD $pol" ;; esac
    for l in 1 2; do
      "$BUILD/bin/vmcp" -s "$WORK/console$l.sock" "SET PORT GROUP CCBGROUP POLICY $pol" >/dev/null ||
        fail "SET PORT GROUP CCBGROUP POLICY $pol refused"
    done
  fi
  # Static neighbours: no ARP on the wire during the runs.
  local h mac
  for g in $GUESTS; do
    mac=$(ip -n "$P-$g" -br link show "$g-f000" | awk '{ print $3 }')
    for h in $GUESTS; do
      [ "$g" = "$h" ] || ip -n "$P-$h" neigh replace "${GIP[$g]}" lladdr "$mac" dev "$h-f000" nud permanent
    done
  done
  if [ "$conf" = group ]; then
    wait_for 30 both_distributing || fail "port groups not distributing on both LPARs"
  fi
  for g in lnxregs lnxvsws; do
    run_in "$P-$g" "$g" "$AWM" server 5001
  done
  sleep 0.5
  for g in lnxregc lnxvswc; do
    ip netns exec "$P-$g" ping -c 2 -i 0.2 -W 2 "${GIP[${PEER[$g]}]}" >/dev/null ||
      fail "$g cannot reach ${PEER[$g]}"
  done
}

# The OSA port model's counters of every shaped port: "PORT in_frames out_frames in_bytes
# out_bytes in_drops out_drops".
osa_counters() {
  sm show interfaces counters | awk '/^Port +LimitBps/ { on = 1; next }
    on && NF == 10 { print $1, $5, $6, $7, $8, $9, $10 }'
}

# run_point CONF KIND MTU THREADS REP: one measurement, one JSON line in $OUT/repro.jsonl
run_point() {
  local conf=$1 kind=$2 mtu=$3 th=$4 rep=$5 g
  local c0 c1 i0 i1
  for g in lnxregc lnxvswc; do
    run_in "$P-$g" "$g" "$AWM" client "${GIP[${PEER[$g]}]}" 5001 "$kind" "$th" "$REPRO_SECS" \
      "$REPRO_WARMUP"
    eval "CL_$g=${PIDS[-1]}"
  done
  sleep "$REPRO_WARMUP"
  c0=$(for g in gdlgprf1 gdlgprf2 $GUESTS switch; do printf '%s ' "$(cpu_usec $g)"; done)
  i0=$(host_idle)
  osa_counters >"$WORK/osa0"
  sleep "$REPRO_SECS"
  c1=$(for g in gdlgprf1 gdlgprf2 $GUESTS switch; do printf '%s ' "$(cpu_usec $g)"; done)
  i1=$(host_idle)
  osa_counters >"$WORK/osa1"
  # The monitor files as they stand at the window's end: their last interval lies in the
  # window (--uneven shows it; the clients' wind-down comes after).
  cp "$WORK/mon1" "$WORK/mon1-end" 2>/dev/null
  cp "$WORK/mon2" "$WORK/mon2-end" 2>/dev/null
  local awm_lines=
  sleep 0.5                             # the clients notice the end within 0.2 s
  for g in lnxregc lnxvswc; do
    local pid_var=CL_$g
    wait "${!pid_var}" || echo "warning: $g's client reported an error" >&2
  done
  # The clients wrote to the cgroup runner's stdout: collect their lines from the log.
  awm_lines=$(grep -h '^AWM ' "$WORK/awm-out" 2>/dev/null | tail -n 2)
  : >"$WORK/awm-out"
  python3 "$HERE/point.py" --conf "$conf" --kind "$kind" --mtu "$mtu" --threads "$th" \
    --rep "$rep" --secs "$REPRO_SECS" --cpu0 "$c0" --cpu1 "$c1" --idle0 "$i0" --idle1 "$i1" \
    --osa0 "$WORK/osa0" --osa1 "$WORK/osa1" --awm "$awm_lines" --rate-bps "$RATE_BPS" \
    --rate-fps "$RATE_FPS" --interval "$REPRO_INTERVAL" --scale "$REPRO_SCALE" \
    --policy "$REPRO_POLICY" >>"$JSONL" || fail "point.py"
  tail -n 1 "$JSONL" | python3 "$HERE/point.py" --summary >&3
}

# One STR interval's FCX240 of each LPAR: the monitor interval with the most RDEV bytes.
keep_fcx240() {
  local tag=$1 l
  for l in 1 2; do
    cp "$WORK/mon$l" "$WORK/fcx-$tag-mon$l" 2>/dev/null
  done
}

main() {
  : >"$OUT/repro.jsonl"
  : >"$WORK/awm-out"
  exec 3>&1
  local t0=$SECONDS conf mtu pt kind pm th rep mtus
  echo "repro: points [$REPRO_POINTS] x $REPRO_REPEATS, warm-up $REPRO_WARMUP s, window $REPRO_SECS s," \
       "INTERVAL $REPRO_INTERVAL, OSA port $RATE_BPS bit/s and $RATE_FPS frames/s (scale $REPRO_SCALE)," \
       "policy $REPRO_POLICY"
  mtus=$(for pt in $REPRO_POINTS; do echo "$pt" | cut -d: -f2; done | sort -un)
  for conf in $REPRO_CONFIGS; do
    for mtu in $mtus; do
      echo "== lab: $conf, MTU $mtu"
      lab_up "$conf" "$mtu" >>"$WORK/awm-out"
      for pt in $REPRO_POINTS; do
        IFS=: read -r kind pm th <<<"$pt"
        [ "$pm" = "$mtu" ] || continue
        for rep in $(seq "$REPRO_REPEATS"); do
          run_point "$conf" "$kind" "$mtu" "$th" "$rep" >>"$WORK/awm-out"
        done
        if [ "$kind" = str ] && [ "$th" = 10 ] && [ "$mtu" = 1492 ]; then keep_fcx240 "$conf"; fi
      done
      teardown
    done
  done
  python3 "$HERE/tables.py" --in "$OUT/repro.jsonl" --json "$OUT/repro.json" --md "$OUT/repro.md" \
    --elapsed $((SECONDS - t0))
  for conf in $REPRO_CONFIGS; do
    for l in 1 2; do
      local f=$WORK/fcx-$conf-mon$l
      [ -s "$f" ] || continue
      local idx
      idx=$("$BUILD/bin/perfkit" FCX240 --file "$f" --all | awk '
          function num(v) { x = v + 0; if (v ~ /M$/) x *= 1e6; else if (v ~ /k$/) x *= 1e3; return x }
          /^FCX240/ { i++ } /^>>/ { s = num($6) + num($9); if (s > best) { best = s; bi = i } }
          END { print bi ? bi : 1 }')
      printf '\nFCX240 of GDLGPRF%s (%s, STR MTU 1492, 10 threads), its busiest interval:\n' \
        "$l" "$conf" | tee -a "$OUT/repro.md"
      "$BUILD/bin/perfkit" FCX240 --file "$f" --index "$idx" | tee -a "$OUT/repro.md"
    done
  done
  echo "repro: done in $((SECONDS - t0)) s; $OUT/repro.json, $OUT/repro.md"
}

# The "uneven inbound" variant (--uneven): the report's second FCX240. The switch model
# puts both clients' STR answers on one of GDLGPRF1's OSA ports; POLICY LOAD TOTAL should
# send GDLGPRF1's outbound (the clients' ACKs) to the other port, LOAD OUTBOUND should not.
uneven() {
  local t0=$SECONDS pol kind mtu th n g
  IFS=: read -r kind mtu th <<<"${REPRO_UNEVEN_POINT:-str:1492:10}"
  [ "$kind" = str ] || fail "REPRO_UNEVEN_POINT must be an STR point: the picture is STR's"
  USER1=USER-GDLGPRF1-UNEVEN.DIRECT
  JSONL=$OUT/repro-uneven.jsonl
  # Longer warm-up than the matrix's: the buckets a joining member took are held down two
  # intervals and a pass needs a measured interval, so the window must start after the
  # passes have acted, or it would average the picture before and after the move.
  REPRO_WARMUP=${REPRO_UNEVEN_WARMUP:-$((3 * REPRO_INTERVAL + 2))}
  REPRO_SECS=${REPRO_UNEVEN_SECS:-$((2 * REPRO_INTERVAL))}
  : >"$JSONL"
  : >"$WORK/awm-out"
  exec 3>&1
  echo "repro --uneven: STR MTU $mtu, $th threads, group, client MACs on one member," \
       "POLICY LOAD TOTAL then OUTBOUND; warm-up $REPRO_WARMUP s, window $REPRO_SECS s," \
       "INTERVAL $REPRO_INTERVAL, OSA port $RATE_BPS bit/s and $RATE_FPS frames/s"
  for pol in TOTAL OUTBOUND; do
    REPRO_POLICY=$pol
    echo "== lab: group, MTU $mtu, uneven inbound, POLICY LOAD $pol"
    lab_up group "$mtu" >>"$WORK/awm-out"
    # What the switch model's hash does with the clients' MACs, from the model itself.
    sm show etherchannel load-balance >"$WORK/uneven-lb-$pol"
    for g in lnxregc lnxvswc; do
      printf '%s %s\n' "$g" "$(ip -n "$P-$g" -br link show "$g-f000" | awk '{ print $3 }')"
    done >"$WORK/uneven-macs-$pol"
    run_point group str "$mtu" "$th" 1 >>"$WORK/awm-out"
    # GDLGPRF1's FCX240: the last monitor interval completed inside the counted window.
    n=$("$BUILD/bin/perfkit" FCX240 --file "$WORK/mon1-end" --all | grep -c '^FCX240')
    [ "$n" -gt 0 ] || fail "no monitor interval of GDLGPRF1 in the window"
    "$BUILD/bin/perfkit" FCX240 --file "$WORK/mon1-end" --index "$n" >"$WORK/uneven-fcx-$pol" ||
      fail "perfkit FCX240 --index $n"
    teardown
  done
  python3 "$HERE/uneven.py" --in "$JSONL" --work "$WORK" --json "$OUT/repro.json" \
    --md "$OUT/repro.md" --warmup "$REPRO_WARMUP" --elapsed $((SECONDS - t0)) ||
    fail "uneven inbound: the balancing picture is not what POLICY LOAD TOTAL and OUTBOUND should give (above)"
  echo "repro --uneven: done in $((SECONDS - t0)) s; $OUT/repro.json (\"uneven\"), $OUT/repro.md"
}

if [ -n "$UNEVEN" ]; then uneven; else main; fi
