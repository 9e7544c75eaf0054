#!/usr/bin/env bash
# check: parallel (exact counters on static ARP; iperf3 rates printed, not judged; waits bounded in seconds)
# vswitchd with three namespace guests on taps and one uplink veth to a LAN namespace:
# exact counters for a known ping exchange, broadcast reach, TCP through the switch
# (offloads on: super-frames and partial checksums must survive), MTU ${MTU:-1500}.
. "$(dirname "$0")/lib.sh"
MTU=${MTU:-1500}
PSIZE=$((MTU - 28))           # ICMP payload that fills the MTU exactly
# The configuration (lab_pcap.sh runs this lab with the uplink through libpcap).
SYSCONFIG=${SYSCONFIG:-$ROOT/configs/lab/SYSTEM.CONFIG}
USERDIRECT=${USERDIRECT:-$ROOT/configs/lab/USER.DIRECT}

lab_init basic
lab_start "$SYSCONFIG" "$USERDIRECT" "$MTU"
lab_static_arp

# 1. A known exchange: 5 full-size echo requests A->B and A->LAN, 5 replies each.
ip netns exec "$NS_A" ping -c 5 -i 0.2 -W 2 -s "$PSIZE" -M do "${LAB_IP[b]}" >"$WORK/ping-b" ||
  fail "ping A->B: $(tail -n 2 "$WORK/ping-b")"
ip netns exec "$NS_A" ping -c 5 -i 0.2 -W 2 -s "$PSIZE" -M do "${LAB_IP[lan]}" >"$WORK/ping-lan" ||
  fail "ping A->LAN: $(tail -n 2 "$WORK/ping-lan")"
FRAME=$((MTU + 14))
R=$(lab_stats)
expect_eq "LNXA tx_packets" "$(counter "$R" LNXA tx_packets)" 10
expect_eq "LNXA rx_packets" "$(counter "$R" LNXA rx_packets)" 10
expect_eq "LNXA tx_bytes" "$(counter "$R" LNXA tx_bytes)" $((10 * FRAME))
expect_eq "LNXB rx_packets" "$(counter "$R" LNXB rx_packets)" 5
expect_eq "LNXB tx_packets" "$(counter "$R" LNXB tx_packets)" 5
expect_eq "LNXC rx_packets" "$(counter "$R" LNXC rx_packets)" 0
expect_eq "28BA tx_packets" "$(counter "$R" 28BA tx_packets)" 5
expect_eq "28BA rx_packets" "$(counter "$R" 28BA rx_packets)" 5
expect_eq "28BA rx_bytes" "$(counter "$R" 28BA rx_bytes)" $((5 * FRAME))
expect_eq "LNXA tx_discards" "$(counter "$R" LNXA tx_discards)" 0

# 2. Broadcast from A reaches B, C and the LAN once each (nobody answers a broadcast ping).
ip netns exec "$NS_A" ping -b -c 1 -W 1 10.77.0.255 >/dev/null 2>&1
R=$(lab_stats)
expect_eq "LNXB rx_packets after broadcast" "$(counter "$R" LNXB rx_packets)" 6
expect_eq "LNXC rx_packets after broadcast" "$(counter "$R" LNXC rx_packets)" 1
expect_eq "28BA tx_packets after broadcast" "$(counter "$R" 28BA tx_packets)" 6
expect_eq "LNXA rx_packets after broadcast" "$(counter "$R" LNXA rx_packets)" 10

# 3. TCP: iperf3 guest-guest and guest-LAN, bounded to 2 s each.
iperf() {  # iperf SERVER_NS SERVER_IP
  ip netns exec "$1" iperf3 -s -1 -D -I "$WORK/iperf.pid" >/dev/null 2>&1
  wait_for 5 ip netns exec "$1" sh -c "ss -ltn | grep -q ':5201 '" || fail "iperf3 server"
  timeout 30 ip netns exec "$NS_A" iperf3 -c "$2" -t 2 -J >"$WORK/iperf.json" 2>&1 ||
    fail "iperf3 to $2: $(grep -m1 error "$WORK/iperf.json")"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%.2f" % (d["end"]["sum_received"]["bits_per_second"]/1e9))' "$WORK/iperf.json"
}
GG=$(iperf "$NS_B" "${LAB_IP[b]}")
echo "ok: iperf3 A->B TCP $GG Gbit/s (MTU $MTU)"
GL=$(iperf "$NS_LAN" "${LAB_IP[lan]}")
echo "ok: iperf3 A->LAN TCP $GL Gbit/s (MTU $MTU)"
R=$(lab_stats)
expect_eq "LNXA tx_errors" "$(counter "$R" LNXA tx_errors)" 0
expect_eq "28BA tx_errors" "$(counter "$R" 28BA tx_errors)" 0

# 4. Uplink carrier loss: counted and survived.
ip -n "$NS_LAN" link set eth0 down
wait_for 5 grep -q "carrier down" "$WORK/vswitchd.log" || fail "no carrier-down event"
ip netns exec "$NS_A" ping -c 2 -i 0.2 -W 1 "${LAB_IP[lan]}" >/dev/null 2>&1 && fail "ping through a dead uplink"
R=$(lab_stats)
grep -q "NO CARRIER" "$R" || fail "report does not show NO CARRIER"
expect_eq "28BA tx_discards (link down)" "$(counter "$R" 28BA tx_discards)" 2
ip -n "$NS_LAN" link set eth0 up
wait_for 5 sh -c 'grep "Device 28BA" "$1" | tail -n 1 | grep -q "carrier up"' _ "$WORK/vswitchd.log" ||
  fail "no carrier-up event"
ip netns exec "$NS_A" ping -c 3 -i 0.2 -W 2 "${LAB_IP[lan]}" >/dev/null || fail "ping after carrier returned"
echo "ok: uplink carrier loss counted and survived"
# 5. A guest's tap goes down and up under the switch (Hercules guests do this when they
#    restart their LAN): its NIC survives and traffic resumes.
ip -n "$NS_B" link set lnxb-f000 down
ip netns exec "$NS_A" ping -c 2 -i 0.2 -W 1 "${LAB_IP[b]}" >/dev/null 2>&1 && fail "ping to a guest whose tap is down"
ip -n "$NS_B" link set lnxb-f000 up
ip netns exec "$NS_A" ping -c 3 -i 0.2 -W 2 "${LAB_IP[b]}" >/dev/null || fail "ping after the guest's tap came back"
echo "ok: a guest tap down and up is survived"
kill -0 "$VSWITCHD_PID" || fail "vswitchd died"
echo "lab_basic MTU $MTU: passed"
