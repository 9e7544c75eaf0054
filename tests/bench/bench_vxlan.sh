#!/usr/bin/env bash
# bench_vxlan: TCP guest to guest across two VXLAN tunnel endpoints (issue 25), zvswitch
# against the Linux kernel's vxlan device and bridge in the same topology.
#
#   BUILD=build tests/bench/bench_vxlan.sh       (run by tests/bench/run.sh, `make bench`)
#
# Two servers, each a guest namespace and a switch namespace, the switches joined by one
# veth (the underlay 10.99.0.0/24, MTU 1500 or 9000; the guests' MTU 50 bytes less, the
# overhead of RFC 7348 over IPv4), VNI 5000:
#   zvswitch   two vswitchd (configs/lab/ with LABVSW1's uplink a VXLAN segment over OSA
#              28BA, LOCAL .1 REMOTE .2 and back), guest LNXA's tap on each; the
#              encapsulation, learning and the underlay's ARP are vswitchd's own. OSA 28BA
#              is a tap (RDEVICE ... BACKEND TAP, backends/uplink_tap.h) that a bridge joins
#              to the veth: vswitchd writes each guest super-frame once, encapsulated, with
#              the UDP tunnel GSO header, and reads the other side's whole.
#   peer       on each server a Linux bridge joining the guest's veth and a kernel vxlan
#              device (static remote, no learning) on the underlay veth. No bridge on its
#              underlay: its VTEP is the host's own stack, so the zvswitch path alone
#              crosses one (tap, bridge, veth), a hop that only costs zvswitch.
# Offloads stay at the kernel's defaults (the guests hand both paths TCP super-frames).
# Per MTU, BENCH_REPS rounds (default 3) of one iperf3 stream of BENCH_SECS s (default 5)
# from guest 1 to guest 2 on each path in turn; a value is the median of the receiver's
# bits_per_second. Each zvswitch round checks that the sending vswitchd's OSA port carried
# at least what iperf3 received (every measured frame was encapsulated by vswitchd; the
# port counts a tunnel super-frame as the segments it becomes on the wire), and
# measures both vswitchd's CPU (utime + stime) over the round.
# Then callgrind: $BUILD/bench/bench_vxlan_encap (bench_vxlan_encap.c) sends 64-byte
# frames from a guest through the switch and the VXLAN uplink's encapsulation onto an
# in-memory underlay; instructions per frame between its CALLGRIND_START and _STOP, less
# the VTEP's table aging (once a second of the real clock, which under valgrind's slowdown
# would run every few thousand frames instead of every few million).
#
# Output (tests/bench/run.sh's line protocol; ratio > 1 means zvswitch is faster; target
# ratio >= 0.8 against the kernel's path):
#   BENCH vxlan_tcp_gbps_mtu1500 <zvs> Gbit/s linux-vxlan-bridge <kernel> <zvs/kernel>
#   BENCH vxlan_tcp_vswitchd_cpu_per_gbps_mtu1500 <% of one core per Gbit/s> %cpu/Gbps
#   (the same for mtu9000: both vswitchd's CPU together, the median of the rounds)
#   BENCH vxlan_encap_instr_per_frame <n> instr/frame    (switch + VXLAN uplink, 64 B)
#   BENCH vxlan_encap_instr_per_frame_uplink <n> instr/frame    (of which the uplink's tx)
# Lines starting with # are the log.
#
# Exit: 0 measured, 77 cannot run here (no root, no iperf3; the last line says why), 1 a
# path could not be set up or a run failed. Every namespace and daemon made here is
# removed on exit. Knobs: BENCH_SECS, BENCH_REPS, BENCH_MTUS ("1500 9000"), BENCH_CC
# (cubic), CG_FRAMES (200000), KEEP_WORK=1.
# shellcheck disable=SC2317  # functions called from traps
set -u
BENCH_SECS=${BENCH_SECS:-5}
BENCH_REPS=${BENCH_REPS:-3}
BENCH_MTUS=${BENCH_MTUS:-1500 9000}
CG_FRAMES=${CG_FRAMES:-200000}
CC=${BENCH_CC:-cubic}

log() { echo "# $*"; }
[ "$(id -u)" -eq 0 ] || { echo "SKIP: bench_vxlan needs root (network namespaces)"; exit 77; }
command -v iperf3 >/dev/null || { echo "SKIP: bench_vxlan needs iperf3"; exit 77; }

# shellcheck source=tests/integration/lib.sh
. "$(cd "$(dirname "$0")/../integration" && pwd)/lib.sh"
# shellcheck source=tests/integration/vxlan_lab_lib.sh
. "$ROOT/tests/integration/vxlan_lab_lib.sh"
[ -x "$VSWITCHD" ] || { echo "FAIL: no $VSWITCHD (make all)"; exit 1; }

WORK=$(mktemp -d /tmp/zvs-bench-vxlan.XXXXXX)
P=
NSS=()
PIDS=()
cleanup() {
  local rc=$? ns pid
  trap - EXIT INT TERM
  for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null; done
  for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && wait "$pid" 2>/dev/null; done
  for ns in "${NSS[@]:-}"; do
    [ -n "$ns" ] || continue
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
    ip netns del "$ns" 2>/dev/null
  done
  [ -z "${KEEP_WORK:-}" ] && rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkns() {  # mkns NAME: a fresh namespace $P-NAME (lo up, IPv6 off; P names the MTU too)
  ip netns add "$P-$1" || fail "ip netns add $P-$1"
  NSS+=("$P-$1")
  ip -n "$P-$1" link set lo up
  ip netns exec "$P-$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
    net.ipv6.conf.default.disable_ipv6=1
}

teardown() {  # the namespaces and daemons of one MTU
  local ns pid
  for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null; done
  for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && wait "$pid" 2>/dev/null; done
  PIDS=()
  for ns in "${NSS[@]:-}"; do [ -n "$ns" ] && ip netns del "$ns" 2>/dev/null; done
  NSS=()
}

# zvs_up MTU: servers z1 and z2, vswitchd in z1-sw and z2-sw, guests in z1-g and z2-g.
zvs_up() {
  local m=$1 i
  for i in 1 2; do mkns "z$i-sw"; mkns "z$i-g"; done
  ip -n "$P-z1-sw" link add u0 mtu "$m" type veth peer name u0 mtu "$m" \
    netns "$P-z2-sw" || fail "underlay veth"
  # OSA 28BA is a tap (RDEVICE ... BACKEND TAP) that a bridge joins to the veth, as the
  # peer path's vxlan device is joined to its guest: vswitchd writes one UDP tunnel
  # super-frame per guest super-frame, and reads the other side's whole.
  for i in 1 2; do
    local ns=$P-z$i-sw
    ip -n "$ns" tuntap add osa28ba mode tap vnet_hdr || fail "underlay tap $i"
    ip -n "$ns" link add br0 type bridge stp_state 0 forward_delay 0 || fail "bridge $i"
    ip -n "$ns" link set osa28ba mtu "$m" master br0 up
    ip -n "$ns" link set u0 master br0 up
    ip -n "$ns" link set br0 up
  done
  # vswitchd starts once the wire has carrier, so the timed rounds never include the
  # uplink coming up (lab_vxlan.sh tests that it does); the tap's comes with vswitchd.
  for i in 1 2; do
    wait_for 5 ip netns exec "$P-z$i-sw" grep -qx 1 /sys/class/net/u0/carrier ||
      fail "no carrier on the underlay"
  done
  for i in 1 2; do
    local ns=$P-z$i-sw
    VXLAN_LOCAL=10.99.0.$i vxlan_sysconfig "$WORK/SYSTEM$i.CONFIG" "REMOTE 10.99.0.$((3 - i))"
    # Two systems, two MAC prefixes: the same user directory would give both guests one MAC.
    [ "$i" = 2 ] && sed -i 's/^VMLAN MACPREFIX 02000C$/VMLAN MACPREFIX 02000D/' "$WORK/SYSTEM2.CONFIG"
    sed -i 's/^RDEVICE 28BA INTERFACE osa28ba$/& BACKEND TAP/' "$WORK/SYSTEM$i.CONFIG"
    ip netns exec "$ns" "$VSWITCHD" -f -c "$WORK/SYSTEM$i.CONFIG" \
      -u "$ROOT/configs/lab/USER.DIRECT" -s "$WORK/stats$i" >"$WORK/vswitchd$i.log" 2>&1 &
    PIDS+=($!)
    eval "ZPID$i=\$!"
    wait_for 20 ip -n "$ns" link show lnxa-f000 || fail "vswitchd $i made no tap"
    ip -n "$ns" link set lnxa-f000 netns "$P-z$i-g" || fail "move tap $i"
    ip -n "$P-z$i-g" link set lnxa-f000 mtu $((m - 50)) up
    ip -n "$P-z$i-g" addr add "10.77.0.$i/24" dev lnxa-f000
  done
  G1=$P-z1-g G2=$P-z2-g
}

# kernel_up MTU: the same two servers with a bridge and a vxlan device each.
kernel_up() {
  local m=$1 i
  for i in 1 2; do mkns "k$i-h"; mkns "k$i-g"; done
  ip -n "$P-k1-h" link add u0 mtu "$m" type veth peer name u0 mtu "$m" netns "$P-k2-h" ||
    fail "underlay veth"
  for i in 1 2; do
    local h=$P-k$i-h
    ip -n "$h" addr add "10.99.0.$i/24" dev u0
    ip -n "$h" link set u0 up
    ip -n "$h" link add vx0 type vxlan id 5000 local "10.99.0.$i" remote "10.99.0.$((3 - i))" \
      dstport 4789 dev u0 nolearning || fail "vxlan $i"
    ip -n "$h" link add br0 type bridge stp_state 0 forward_delay 0 || fail "bridge $i"
    ip -n "$h" link add g0 mtu $((m - 50)) type veth peer name eth0 mtu $((m - 50)) \
      netns "$P-k$i-g" || fail "guest veth $i"
    ip -n "$h" link set vx0 mtu $((m - 50)) master br0 up
    ip -n "$h" link set g0 master br0 up
    ip -n "$h" link set br0 up
    ip -n "$P-k$i-g" addr add "10.77.0.$i/24" dev eth0
    ip -n "$P-k$i-g" link set eth0 up
  done
  K1=$P-k1-g K2=$P-k2-g
}

server_up() {  # server_up NS: iperf3 on guest 2's address, our background job
  ip netns exec "$1" iperf3 -s -B 10.77.0.2 --logfile "$WORK/iperf-$1.log" &
  PIDS+=($!)
  wait_for 5 ip netns exec "$1" sh -c "ss -ltn | grep -q '10.77.0.2:5201 '" ||
    fail "iperf3 server in $1 not listening"
}

ticks() {  # ticks PID..: utime + stime of the processes, in clock ticks
  local pid t=0
  for pid in "$@"; do
    t=$((t + $(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat")))
  done
  echo "$t"
}

osa_tx_bytes() {  # the bytes vswitchd 1 sent on its OSA port (the encapsulated stream)
  rm -f "$WORK/stats1"
  kill -USR1 "$ZPID1"
  wait_for 5 test -s "$WORK/stats1" || fail "no counters report from vswitchd 1"
  counter "$WORK/stats1" 28BA tx_bytes
}

# round PATH MTU REP: one iperf3 stream guest 1 -> guest 2; appends Gbit/s (and, for
# zvswitch, both daemons' % of one core per Gbit/s) to $WORK/PATH-MTU.*.
round() {
  local path=$1 m=$2 rep=$3 ns=$G1 out=$WORK/$1-$2-$3.json t0 t1 c0 c1 f0 bps rbytes g cpu per
  [ "$path" = kernel ] && ns=$K1
  if [ "$path" = zvswitch ]; then f0=$(osa_tx_bytes); c0=$(ticks "$ZPID1" "$ZPID2"); fi
  t0=$(date +%s%N)
  timeout $((BENCH_SECS + 15)) ip netns exec "$ns" \
    iperf3 -c 10.77.0.2 -t "$BENCH_SECS" -C "$CC" -J >"$out" 2>&1
  t1=$(date +%s%N)
  read -r bps rbytes < <(python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))["end"]["sum_received"]
print(e["bits_per_second"], e["bytes"])' "$out" 2>/dev/null)
  [ -n "${bps:-}" ] || fail "$path mtu $m round $rep: iperf3 failed: $(tail -n 3 "$out")"
  g=$(awk -v b="$bps" 'BEGIN { printf "%.2f", b / 1e9 }')
  echo "$g" >>"$WORK/$path-$m.gbps"
  if [ "$path" = zvswitch ]; then
    c1=$(ticks "$ZPID1" "$ZPID2")
    local fwd=$(( $(osa_tx_bytes) - f0 ))
    [ "$fwd" -ge "$rbytes" ] ||
      fail "zvswitch mtu $m round $rep: OSA 28BA sent $fwd bytes, iperf3 received $rbytes"
    awk -v c="$((c1 - c0))" -v hz="$(getconf CLK_TCK)" -v ns="$((t1 - t0))" -v g="$g" \
      'BEGIN { cpu = 100 * c / hz / (ns / 1e9); printf "%.1f %.1f\n", cpu, (g > 0 ? cpu / g : 0) }' \
      >"$WORK/cpu"
    read -r cpu per <"$WORK/cpu"
    echo "$per" >>"$WORK/$path-$m.cpu"
    log "zvswitch mtu $m round $rep: $g Gbit/s, both vswitchd $cpu% of a core," \
      "OSA 28BA carried $fwd bytes for $rbytes received"
  else
    log "kernel mtu $m round $rep: $g Gbit/s"
  fi
}

median() {  # median FILE: of its numbers, one a line
  sort -g "$1" | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

measure_mtu() {
  local m=$1 rep path z k
  log "MTU $m (guests $((m - 50))): zvswitch and the kernel's vxlan + bridge, $BENCH_REPS x $BENCH_SECS s, $CC"
  P=zvs-vxb-$$-$m
  zvs_up "$m"
  kernel_up "$m"
  server_up "$G2"; server_up "$K2"
  ip netns exec "$G1" ping -c 3 -i 0.2 -W 2 10.77.0.2 >/dev/null || fail "zvswitch: no ping"
  ip netns exec "$K1" ping -c 3 -i 0.2 -W 2 10.77.0.2 >/dev/null || fail "kernel: no ping"
  for rep in $(seq "$BENCH_REPS"); do
    for path in zvswitch kernel; do round "$path" "$m" "$rep"; done
  done
  z=$(median "$WORK/zvswitch-$m.gbps")
  k=$(median "$WORK/kernel-$m.gbps")
  echo "BENCH vxlan_tcp_gbps_mtu$m $z Gbit/s linux-vxlan-bridge $k" \
    "$(awk -v z="$z" -v k="$k" 'BEGIN { printf "%.3f", (k > 0 ? z / k : 0) }')"
  echo "BENCH vxlan_tcp_vswitchd_cpu_per_gbps_mtu$m $(median "$WORK/zvswitch-$m.cpu") %cpu/Gbps"
  rm -f "$WORK/stats1"; kill -USR1 "$ZPID1"; wait_for 5 test -s "$WORK/stats1" &&
    grep -E "VXLAN VTEP|Remote 0|Encapsulated|Discards" "$WORK/stats1" | sed 's/^/# vswitchd 1: /'
  teardown
}

callgrind_encap() {
  local bin=$BUILD/bench/bench_vxlan_encap cg=$WORK/cg.out total tick tx
  if ! command -v valgrind >/dev/null; then
    echo "NOTRUN vxlan_encap_instr_per_frame valgrind is not installed"; return
  fi
  [ -x "$bin" ] || fail "no $bin (make all)"
  valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$cg" "$bin" \
    --frames "$CG_FRAMES" >"$WORK/cg.log" 2>&1 && grep -q '^BENCH_CALLGRIND_MACROS 1$' "$WORK/cg.log" ||
    fail "callgrind run failed: $(tail -n 5 "$WORK/cg.log")"
  total=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$WORK/cg.log")
  callgrind_annotate --inclusive=yes "$cg" >"$WORK/cg.txt" 2>/dev/null
  incl() { awk -v fn=":$1 " 'index($0, fn) && $1 ~ /^[0-9,]+$/ { gsub(",", "", $1); print $1; exit }' "$WORK/cg.txt"; }
  tick=$(incl zvs_vtep_tick); tx=$(incl vx_tx)
  [ -n "$tx" ] || fail "callgrind: no vx_tx in the profile"
  log "callgrind: $total instructions for $CG_FRAMES frames, table aging ${tick:-0}, uplink tx $tx"
  awk -v t="$total" -v a="${tick:-0}" -v x="$tx" -v n="$CG_FRAMES" 'BEGIN {
    printf "BENCH vxlan_encap_instr_per_frame %.1f instr/frame\n", (t - a) / n
    printf "BENCH vxlan_encap_instr_per_frame_uplink %.1f instr/frame\n", (x - a) / n }'
}

callgrind_encap
for m in $BENCH_MTUS; do measure_mtu "$m"; done
exit 0
