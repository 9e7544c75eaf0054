#!/usr/bin/env bash
# check: alone (throughput: the two-port/one-port ratio; INTERVAL passes; failover under load)
# Port-group load balancing end to end, against the switch model with 1 Gbit/s per member
# (rate-limit, as the report's 1 GbE OSA ports):
#  - skew: both LAN hosts' MACs end in odd suffixes (01, 03), so both heavy flows start on
#    the same member; with passes every 2 s (vswitchd --test-interval, ours: the config
#    keeps the report's INTERVAL 30) a pass moves one of them within 2 intervals and
#    each flow then gets about a port's worth;
#  - aggregate: 10 parallel iperf3 streams from two guests to two servers reach >= 1.9x
#    what the same streams get through one member (the other shut down).
. "$(dirname "$0")/lacp_lab_lib.sh"
command -v iperf3 >/dev/null || skip "iperf3 missing"
lab_init balance
cp "$ROOT/configs/lab/SYSTEM-GROUP.CONFIG" "$WORK/SYSTEM.CONFIG"
LAN_MAC1=02:00:0a:00:00:01 LAN_MAC2=02:00:0a:00:00:03 LAB_TAPS="a b" \
  VSWITCHD_ARGS="-l info --test-interval ${BAL_INTERVAL:-2}" \
  lab_group_start "$ROOT/configs/switchmodel/lab6509.conf" "$WORK/SYSTEM.CONFIG" "$ROOT/configs/lab/USER.DIRECT"
wait_for 15 distributing_is 2 || fail "group not up"
LAB_TAPS="a b" lab_static_arp
ip netns exec "$NS_LAN2" ip neigh replace "${LAB_IP[b]}" lladdr \
  "$(ip -n "$NS_B" -br link show lnxb-f000 | awk '{print $3}')" dev eth0 nud permanent
ip netns exec "$NS_B" ip neigh replace "${LAB_IP[lan2]}" lladdr 02:00:0a:00:00:03 dev lnxb-f000 nud permanent
ip netns exec "$NS_A" ip neigh replace "${LAB_IP[lan]}" lladdr 02:00:0a:00:00:01 dev lnxa-f000 nud permanent

# iperf_pair SECS STREAMS: A -> LAN and B -> LAN2 at once; prints "a_gbps b_gbps" of the
# last 4 seconds (receiver side intervals).
iperf_pair() {
  local secs=$1 p=$2
  ip netns exec "$NS_LAN" iperf3 -s -1 -D -p 5201 >/dev/null 2>&1
  ip netns exec "$NS_LAN2" iperf3 -s -1 -D -p 5202 >/dev/null 2>&1
  sleep 0.5
  ip netns exec "$NS_A" iperf3 -c "${LAB_IP[lan]}" -p 5201 -P "$p" -t "$secs" -J >"$WORK/ia.json" 2>&1 &
  local a=$!
  ip netns exec "$NS_B" iperf3 -c "${LAB_IP[lan2]}" -p 5202 -P "$p" -t "$secs" -J >"$WORK/ib.json" 2>&1 &
  local b=$!
  wait $a; wait $b
  python3 - "$WORK/ia.json" "$WORK/ib.json" <<'PY'
import json, sys
out = []
for f in sys.argv[1:]:
    d = json.load(open(f))
    iv = d["intervals"][-4:]
    out.append(sum(i["sum"]["bits_per_second"] for i in iv) / len(iv) / 1e9)
print("%.3f %.3f" % tuple(out))
PY
}

rep=$(lab_stats)
moves0=$(awk '/^  Members:/ { for (i = 1; i <= NF; i++) if ($i == "Moves:") print $(i + 1) }' "$rep")
read -r a b < <(iperf_pair 12 5)
echo "skewed start, after rebalancing: A $a Gbit/s, B $b Gbit/s"
rep=$(lab_stats)
grep "Passes:" "$rep"
moves=$(awk '/^  Members:/ { for (i = 1; i <= NF; i++) if ($i == "Moves:") print $(i + 1) }' "$rep")
[ "$moves" -gt "$moves0" ] || fail "no bucket moved by the INTERVAL passes"
awk -v a="$a" -v b="$b" 'BEGIN { exit !(a > 0.8 && b > 0.8) }' ||
  fail "flows not spread over both ports after rebalancing: A $a, B $b Gbit/s"
echo "ok: the skew was rebalanced: each flow has a port ($moves moves)"
two=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a + b }')

sm shutdown Gi2/24 >/dev/null
wait_for 5 distributing_is 1 || fail "member did not leave"
read -r a1 b1 < <(iperf_pair 6 5)
one=$(awk -v a="$a1" -v b="$b1" 'BEGIN { printf "%.3f", a + b }')
ratio=$(awk -v t="$two" -v o="$one" 'BEGIN { printf "%.2f", t / o }')
echo "aggregate: two ports $two Gbit/s, one port $one Gbit/s, ratio $ratio"
awk -v r="$ratio" 'BEGIN { exit !(r >= 1.9) }' || fail "two ports give only ${ratio}x one port"
echo "ok: two ports carry ${ratio}x one port"

# A member pulled down under load: both iperf3 runs complete (no TCP connection lost).
sm no shutdown Gi2/24 >/dev/null
wait_for 15 distributing_is 2 || fail "member did not return"
ip netns exec "$NS_LAN" iperf3 -s -1 -D -p 5201 >/dev/null 2>&1
ip netns exec "$NS_LAN2" iperf3 -s -1 -D -p 5202 >/dev/null 2>&1
sleep 0.5
ip netns exec "$NS_A" iperf3 -c "${LAB_IP[lan]}" -p 5201 -P 3 -t 6 >"$WORK/fa" 2>&1 &
pa=$!
ip netns exec "$NS_B" iperf3 -c "${LAB_IP[lan2]}" -p 5202 -P 3 -t 6 >"$WORK/fb" 2>&1 &
pb=$!
sleep 2
sm shutdown Gi2/23 >/dev/null
wait $pa || fail "iperf3 A lost its connection when a member went down: $(tail -3 "$WORK/fa")"
wait $pb || fail "iperf3 B lost its connection when a member went down: $(tail -3 "$WORK/fb")"
grep -q "Failover moves: [1-9]" "$(lab_stats)" || fail "no failover moves counted"
echo "ok: member down under load, every TCP connection completed ($(grep -h 'SUM.*sender' "$WORK/fa" "$WORK/fb" | awk '{s += $(NF-1)} END {print s + 0}') retransmits)"
