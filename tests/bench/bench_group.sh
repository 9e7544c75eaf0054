#!/usr/bin/env bash
# bench_group: the port group end to end, in namespaces against the switch model (run by
# tests/bench/run.sh; prints its protocol's BENCH lines).
#
#   BENCH failover_gap_ms <ms> ms       under iperf3 load, carrier loss of the member
#                                       carrying a flow (ip link set down on the peer) to
#                                       vswitchd publishing the map that sends its buckets
#                                       to the survivor (log time, ms resolution)
#   BENCH failover_wire_gap_ms          the longest silence the server sees in a stream of
#                                       pings (every 1 ms asked; under load ping runs every
#                                       4-12 ms) around the failure: an upper bound
#   BENCH failover_lost_pings           pings that never arrived (lost in the kernel on
#                                       the dead veth before the carrier event)
#   BENCH group_scaling_str_<N>p <x> ratio   aggregate TCP throughput (STR: 8 iperf3
#                                       streams from two guests to 8 servers whose MACs end
#                                       in 00..07, one bucket each) through N = 1, 2, 4, 8
#                                       members rate-limited to GROUP_RATE (default
#                                       200 Mbit/s) each, as a ratio to N = 1 (also
#                                       group_str_<N>p_mbps)
# Targets (run.sh): failover gap <= 10 ms; 2 ports >= 1.9x, 8 ports >= 7.5x.
# Each part runs in its own process and lab. Root, tshark, iperf3. About 2 minutes.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
RATE=${GROUP_RATE:-200000000}

if [ "${1:-}" = "" ]; then
  [ "$(id -u)" -eq 0 ] || { echo "needs root for network namespaces"; exit 77; }
  for t in tshark iperf3; do
    command -v $t >/dev/null || { echo "$t missing (scripts/deps.sh)"; exit 77; }
  done
  rc=0
  bash "$0" failover || rc=1
  base=
  for n in 1 2 4 8; do
    out=$(bash "$0" scaling "$n") || { rc=1; continue; }
    echo "$out"
    mbps=$(echo "$out" | awk '/^BENCH group_str_/ {print $3}')
    [ "$n" = 1 ] && base=$mbps
    [ -n "$base" ] && [ -n "$mbps" ] &&
      awk -v n="$n" -v m="$mbps" -v b="$base" 'BEGIN { printf "BENCH group_scaling_str_%dp %.2f ratio\n", n, m / b }'
  done
  exit $rc
fi

. "$ROOT/tests/integration/lacp_lab_lib.sh"
PART=$1

# A lab with N members (OSA devices 2A00.. on veths osa0..; the model's Gi2/1.. on
# sw-osa0..) and S servers (namespaces srvK with MAC 02:00:0a:00:00:0K behind Gi3/K).
group_lab() {  # N S RATE
  local n=$1 s=$2 rate=$3 i
  lab_init "bgrp-$PART-$n"
  local smconf=$WORK/sm.conf sysconf=$WORK/SYSTEM.CONFIG join=""
  {
    echo "hostname BENCH6509"
    echo "port-channel load-balance src-dst-mac"
    for i in $(seq 0 $((n - 1))); do
      printf 'interface GigabitEthernet2/%d\n attach sw-osa%d\n channel-group 1 mode active\n lacp rate fast\n' $((i + 1)) "$i"
      [ "$rate" != 0 ] && printf ' rate-limit %s\n' "$rate"
      echo "!"
    done
    for i in $(seq 1 "$s"); do
      printf 'interface GigabitEthernet3/%d\n attach sw-srv%d\n switchport access vlan 1\n!\n' "$i" "$i"
    done
  } >"$smconf"
  for i in $(seq 0 $((n - 1))); do
    ip -n "$NS_SW" link add "osa$i" type veth peer name "sw-osa$i" netns "$NS_PHY" || fail veth
    ip -n "$NS_SW" link set "osa$i" up
    ip -n "$NS_PHY" link set "sw-osa$i" up
    join="$join $(printf '2A%02X' "$i")"
  done
  SRV_NS=()
  for i in $(seq 1 "$s"); do
    local ns=$NS_PHY-srv$i
    ip netns add "$ns" || fail "netns $ns"
    LAB_NS+=("$ns")
    SRV_NS[$i]=$ns
    ip -n "$ns" link set lo up
    ip -n "$NS_PHY" link add "sw-srv$i" type veth peer name eth0 netns "$ns" || fail veth
    ip -n "$NS_PHY" link set "sw-srv$i" up
    ip -n "$ns" link set eth0 address "$(printf '02:00:0a:00:00:%02x' $((i - 1)))"
    ip -n "$ns" link set eth0 up
    ip -n "$ns" addr add "10.77.0.$((200 + i))/24" dev eth0
  done
  {
    echo "VMLAN MACPREFIX 02000C"
    echo "SET PORT GROUP BENCHGRP JOIN$join LACP ACTIVE INTERVAL OFF"
    echo "DEFINE VSWITCH LABVSW1 ETHERNET GROUP BENCHGRP"
    for u in LNXA LNXB LNXC; do echo "MODIFY VSWITCH LABVSW1 GRANT $u"; done
    for i in $(seq 0 $((n - 1))); do printf 'RDEVICE 2A%02X INTERFACE osa%d\n' "$i" "$i"; done
  } >"$sysconf"
  SM_SOCK=$WORK/switchmodel.sock
  ip netns exec "$NS_PHY" "$SWITCHMODEL" -c "$smconf" -C "$SM_SOCK" -l "$WORK/switchmodel.log" \
    >"$WORK/switchmodel.out" 2>&1 &
  SM_PID=$!
  wait_for 10 test -S "$SM_SOCK" || fail "switch model: $(tail -3 "$WORK/switchmodel.out")"
  VSWITCHD_ARGS="-l info" LAB_TAPS="a b" lab_vswitchd "$sysconf" "$ROOT/configs/lab/USER.DIRECT"
  wait_for 20 distributing_is "$n" || fail "group of $n did not come up: $(grep Distributing "$(lab_stats)")"
  # Static neighbours: guests <-> servers, no ARP during measurements.
  local g gmac
  for g in a b; do
    local v=NS_${g^^}
    gmac=$(ip -n "${!v}" -br link show "lnx$g-f000" | awk '{print $3}')
    for i in $(seq 1 "$s"); do
      ip -n "${!v}" neigh replace "10.77.0.$((200 + i))" lladdr "$(printf '02:00:0a:00:00:%02x' $((i - 1)))" \
        dev "lnx$g-f000" nud permanent
      ip -n "${SRV_NS[$i]}" neigh replace "${LAB_IP[$g]}" lladdr "$gmac" dev eth0 nud permanent
    done
  done
}

case $PART in
failover)
  group_lab 2 2 0
  srv=${SRV_NS[2]}                      # MAC ..:01: bucket 01, the second member
  victim=sw-osa1
  for i in 1 2; do ip netns exec "${SRV_NS[$i]}" iperf3 -s -1 -D >/dev/null 2>&1; done
  sleep 0.5
  ip netns exec "$NS_B" iperf3 -c 10.77.0.201 -P 2 -t 8 >/dev/null 2>&1 &
  ip1=$!
  ip netns exec "$NS_A" iperf3 -c 10.77.0.202 -P 2 -t 8 >/dev/null 2>&1 &
  ip2=$!
  ip netns exec "$srv" timeout 20 tshark -q -i eth0 -f "icmp[icmptype] == icmp-echo" \
    -w "$WORK/srv.pcap" >/dev/null 2>&1 &
  cap=$!
  sleep 2
  ip netns exec "$NS_A" ping -q -i 0.001 -c 3000 -W 1 10.77.0.202 >"$WORK/ping" 2>&1 &
  pp=$!
  sleep 1.2
  t_before=$(date +%s.%N)
  ip -n "$NS_PHY" link set "$victim" down
  # The kernel changed the carrier (and queued the netlink event) before `ip` returned;
  # starting `ip` itself takes milliseconds on two busy cores, so time from its return.
  t_down=$(date +%s.%N)
  echo "ip link set down took $(awk -v a="$t_down" -v b="$t_before" 'BEGIN { printf "%.1f", (a - b) * 1000 }') ms" >&2
  wait $pp
  wait $ip1 $ip2
  sleep 0.5
  kill -INT $cap 2>/dev/null; wait $cap 2>/dev/null
  distributing_is 1 || fail "the member did not leave the group"
  rep=$(lab_stats)
  grep "Failover moves" "$rep" >&2
  sent=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' "$WORK/ping")
  got=$(tshark -r "$WORK/srv.pcap" 2>/dev/null | wc -l)
  # The switch's own reaction: carrier loss to the map that sends the member's buckets
  # to the survivor (published inside the carrier event), from vswitchd's log (ms).
  line=$(grep -E "2A01 not collecting, not distributing" "$WORK/vswitchd.log" | tail -n 1)
  [ -n "$line" ] || fail "no failover in the log"
  t_fail=$(date -d "$(echo "$line" | awk '{print $1 " " $2}')" +%s.%N)
  # The log truncates to the millisecond: add it back, so the figure is an upper bound.
  gap=$(awk -v a="$t_fail" -v b="$t_down" 'BEGIN { g = (a + 0.001 - b) * 1000; if (g < 0) g = 0; printf "%.1f", g }')
  # On the wire: the longest silence at the server around the failure. Under iperf3 load
  # ping itself is scheduled every 4-12 ms on two cores, so this bounds the gap from above.
  wire=$(tshark -r "$WORK/srv.pcap" -T fields -e frame.time_epoch 2>/dev/null | awk -v t="$t_down" '
      NR > 1 && $1 > t - 0.05 && p < t + 0.2 { d = $1 - p; if (d > w) w = d } { p = $1 }
      END { printf "%.1f", w * 1000 }')
  echo "pings sent $sent, arrived $got; failover $gap ms after carrier loss; wire gap $wire ms" >&2
  echo "BENCH failover_gap_ms $gap ms"
  echo "BENCH failover_wire_gap_ms $wire ms"
  echo "BENCH failover_lost_pings $((sent - got)) frames"
  ;;
scaling)
  n=$2
  group_lab "$n" 8 "$RATE"
  for i in $(seq 1 8); do ip netns exec "${SRV_NS[$i]}" iperf3 -s -1 -D >/dev/null 2>&1; done
  sleep 0.5
  pids=()
  for i in $(seq 1 8); do
    if [ $i -le 4 ]; then ns=$NS_A; else ns=$NS_B; fi
    ip netns exec "$ns" iperf3 -c "10.77.0.$((200 + i))" -t 8 -J >"$WORK/i$i.json" 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}"
  total=$(python3 "$HERE/iperf_mbps.py" "$WORK"/i*.json)
  echo "members $n: $total Mbit/s" >&2
  echo "BENCH group_str_${n}p_mbps $total Mbit/s"
  ;;
esac
