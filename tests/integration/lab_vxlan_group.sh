#!/usr/bin/env bash
# check: light (a member cut under a paced TCP stream over a VXLAN underlay group; LACP timers; 1.5 s of CPU in 6 s)
# zvswitch's VTEP over a LACP port group (VXLAN VSWITCH ... GROUP, overlay/underlay_group.c):
# guest A (a tap, MTU 1450) on LABVSW1, whose uplink is VXLAN VNI 5000 over group ETHGRP
# (OSA 28BA and 2902, LACP ACTIVE) to the switch model's port-channel, behind whose access
# port the LAN namespace's kernel vxlan device is the remote VTEP 10.99.0.2 holding
# 10.77.0.100. A paced TCP transfer from A runs; the member carrying it (its outer UDP
# source port's bucket) has its link cut at the switch model's end half-way; the stream
# moves to the other member and ends with every byte counted.
. "$(dirname "$0")/lacp_lab_lib.sh"

lab_init vxgrp
SYSCONFIG=$WORK/SYSTEM.CONFIG
cp "$ROOT/configs/lab/SYSTEM-GROUP.CONFIG" "$SYSCONFIG"
echo "VXLAN VSWITCH LABVSW1 VNI 5000 LOCAL 10.99.0.1 GROUP ETHGRP REMOTE 10.99.0.2" >>"$SYSCONFIG"
VSWITCHD_ARGS="-l info -k $WORK/console.sock" LAB_TAPS=a \
  lab_group_start "$ROOT/configs/switchmodel/lab6509.conf" "$SYSCONFIG" "$ROOT/configs/lab/USER.DIRECT"
ip -n "$NS_A" link set lnxa-f000 mtu 1450
wait_for 15 distributing_is 2 || fail "group not up: $(cat "$(lab_stats)")"

# The LAN host: the underlay address on eth0, 10.77.0.100 behind the kernel's VTEP.
ip -n "$NS_LAN" addr del "${LAB_IP[lan]}/24" dev eth0
ip -n "$NS_LAN" addr add 10.99.0.2/24 dev eth0
ip -n "$NS_LAN" link add vx0 type vxlan id 5000 local 10.99.0.2 remote 10.99.0.1 \
  dstport 4789 dev eth0 nolearning || fail "vxlan"
ip -n "$NS_LAN" link set vx0 address 02:00:0a:00:00:64 mtu 1450 up
ip -n "$NS_LAN" addr add "${LAB_IP[lan]}/24" dev vx0
ip netns exec "$NS_A" ping -c 3 -i 0.2 -W 2 "${LAB_IP[lan]}" >"$WORK/ping" ||
  fail "ping A->LAN over VXLAN on the group: $(tail -n 2 "$WORK/ping")"
vmcp "QUERY VSWITCH LABVSW1" >"$WORK/qvs"
grep -q "VXLAN VTEP: 10.99.0.1  UDP port: 4789  underlay GROUP: ETHGRP  MTU: 1450" "$WORK/qvs" ||
  fail "no VTEP line: $(cat "$WORK/qvs")"
echo "ok: pings over VXLAN on port group ETHGRP"

# A paced transfer (BYTES in about 2 s), counted by the receiver up to the sender's close.
BYTES=8388608
TCP_PY=$ROOT/tests/integration/tcp_bytes.py
tx() { ip netns exec "$NS_SW" cat "/sys/class/net/osa$1/statistics/tx_packets"; }
ip netns exec "$NS_LAN" timeout 30 python3 "$TCP_PY" recv-server "${LAB_IP[lan]}" $BYTES >"$WORK/srv.out" 2>&1 &
spid=$!
wait_for 5 ip netns exec "$NS_LAN" sh -c "ss -ltn | grep -q ':5301 '" || fail "TCP server"
ip netns exec "$NS_A" timeout 30 python3 "$TCP_PY" send-client "${LAB_IP[lan]}" $BYTES 0.015 >"$WORK/cli.out" 2>&1 &
cpid=$!
sleep 0.5
a0=$(tx 28ba) b0=$(tx 2902); sleep 0.3; a1=$(tx 28ba) b1=$(tx 2902)
if [ $((a1 - a0)) -ge $((b1 - b0)) ]; then busy=28ba other=2902; else busy=2902 other=28ba; fi
echo "member carrying the stream: $busy ($((a1 - a0)) and $((b1 - b0)) frames in 0.3 s on 28BA and 2902)"
o0=$(tx $other)
ip -n "$NS_PHY" link set "sw-osa$busy" down
wait $cpid || fail "TCP sender: $(cat "$WORK/cli.out"); $(vmcp 'QUERY PORT GROUP')"
wait $spid || fail "TCP receiver: $(cat "$WORK/srv.out")"
expect_eq "TCP bytes across the cut" "$(grep -E '^[0-9]+$' "$WORK/srv.out")" $BYTES
o1=$(tx $other)
[ $((o1 - o0)) -gt 1000 ] || fail "the stream did not move to $other ($((o1 - o0)) frames)"
vmcp "QUERY PORT GROUP" >"$WORK/qpg"
grep -q "RDEV ${busy^^} *DOWN *Collecting: NO  Distributing: NO" "$WORK/qpg" ||
  fail "${busy^^} still distributing: $(cat "$WORK/qpg")"
echo "ok: ${busy^^} cut under the stream; $((o1 - o0)) frames moved to ${other^^}; $BYTES bytes arrived"
