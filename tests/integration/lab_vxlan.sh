#!/usr/bin/env bash
# check: alone (a kernel vxlan device as the remote VTEP; exact counters; bounded transfers)
# zvswitch as a VXLAN tunnel endpoint (overlay/) against the Linux kernel's vxlan device:
# guest A (a tap, MTU 1450) on LABVSW1, whose uplink is VXLAN VNI 5000 over OSA 28BA (a
# veth, the underlay 10.99.0.0/24) to the LAN namespace, where a kernel vxlan device is
# the remote VTEP 10.99.0.2 holding 10.77.0.100. Both ways, twice: the kernel device with
# a static remote, then learning (flooding to us by the all-zero entry, A's MAC learned
# behind 10.99.0.1). Pings and a bounded TCP transfer with exact byte counts both ways;
# tshark decodes every encapsulated frame on the underlay with no expert warning below
# TCP (the inner stream's own sequence notes are printed).
. "$(dirname "$0")/lib.sh"
command -v tshark >/dev/null || skip "tshark missing"

lab_init vxlan
SYSCONFIG=$WORK/SYSTEM.CONFIG
sed -e 's/^DEFINE VSWITCH LABVSW1 RDEV 28BA/DEFINE VSWITCH LABVSW1 RDEV NONE/' \
  "$ROOT/configs/lab/SYSTEM.CONFIG" >"$SYSCONFIG"
echo "VXLAN VSWITCH LABVSW1 VNI 5000 LOCAL 10.99.0.1 RDEV 28BA REMOTE 10.99.0.2" >>"$SYSCONFIG"

# The underlay: osa28ba (vswitchd's, no address: the VTEP is zvswitch's) to eth0 (.2).
ip -n "$NS_SW" link add osa28ba type veth peer name eth0 netns "$NS_LAN" || fail "veth"
ip -n "$NS_SW" link set osa28ba up
ip -n "$NS_LAN" addr add 10.99.0.2/24 dev eth0
ip -n "$NS_LAN" link set eth0 up
LAB_TAPS=a VSWITCHD_ARGS="-k $WORK/console.sock" lab_vswitchd "$SYSCONFIG" \
  "$ROOT/configs/lab/USER.DIRECT" 1450
ip netns exec "$NS_LAN" tshark -q -i eth0 -w "$WORK/underlay.pcap" -f "udp port 4789" \
  >/dev/null 2>&1 &
tshark_pid=$!
trap 'rc=$?; kill $tshark_pid 2>/dev/null; (exit $rc); lab_cleanup' EXIT

vx_kernel() {  # vx_kernel static|learning: the LAN's remote VTEP, 10.77.0.100 on it
  ip -n "$NS_LAN" link del vx0 2>/dev/null
  if [ "$1" = static ]; then
    ip -n "$NS_LAN" link add vx0 type vxlan id 5000 local 10.99.0.2 remote 10.99.0.1 \
      dstport 4789 dev eth0 nolearning || fail "vxlan static"
  else
    ip -n "$NS_LAN" link add vx0 type vxlan id 5000 local 10.99.0.2 dstport 4789 dev eth0 \
      learning || fail "vxlan learning"
    bridge -n "$NS_LAN" fdb append 00:00:00:00:00:00 dev vx0 dst 10.99.0.1 || fail "fdb"
  fi
  ip -n "$NS_LAN" link set vx0 address 02:00:0a:00:00:64 mtu 1450 up   # one MAC for .100
  ip -n "$NS_LAN" addr add 10.77.0.100/24 dev vx0
  ip -n "$NS_A" neigh flush dev lnxa-f000 2>/dev/null   # a new device, a new MAC
}

# A bounded TCP transfer with exact byte counts: BYTES from the sender, counted by the
# receiver up to the sender's close.
BYTES=10485760
TCP_PY=$ROOT/tests/integration/tcp_bytes.py
transfer() {  # transfer to|from: BYTES of TCP from A to the LAN host or back
  local srv=recv-server cli=send-client
  [ "$1" = from ] && srv=send-server cli=recv-client
  ip netns exec "$NS_LAN" timeout 30 python3 "$TCP_PY" $srv 10.77.0.100 $BYTES >"$WORK/srv.out" 2>&1 &
  local spid=$!
  wait_for 5 ip netns exec "$NS_LAN" sh -c "ss -ltn | grep -q ':5301 '" || fail "TCP server"
  ip netns exec "$NS_A" timeout 30 python3 "$TCP_PY" $cli 10.77.0.100 $BYTES >"$WORK/cli.out" 2>&1 ||
    fail "TCP $1: $(cat "$WORK/cli.out"); $(grep -A14 'Uplink Port' "$(lab_stats)")"
  wait $spid || fail "TCP $1 server: $(cat "$WORK/srv.out")"
  local got
  got=$(cat "$WORK/srv.out" "$WORK/cli.out" | grep -E '^[0-9]+$')
  expect_eq "TCP bytes $1 the LAN host" "$got" $BYTES
}

for mode in static learning; do
  vx_kernel $mode
  ip netns exec "$NS_A" ping -c 5 -i 0.2 -W 2 -s 1422 -M do 10.77.0.100 >"$WORK/ping" ||
    fail "ping A->LAN over VXLAN ($mode): $(tail -n 2 "$WORK/ping")"
  ip netns exec "$NS_LAN" ping -c 3 -i 0.2 -W 2 10.77.0.1 >"$WORK/ping" ||
    fail "ping LAN->A over VXLAN ($mode): $(tail -n 2 "$WORK/ping")"
  echo "ok: pings both ways over VXLAN, kernel device $mode"
  transfer to
  transfer from
  if [ $mode = learning ]; then
    A_MAC=$(ip -n "$NS_A" -br link show lnxa-f000 | awk '{print $3}')
    bridge -n "$NS_LAN" fdb show dev vx0 | grep -q "$A_MAC dst 10.99.0.1" ||
      fail "the kernel did not learn A's MAC behind 10.99.0.1: $(bridge -n "$NS_LAN" fdb show dev vx0)"
    echo "ok: the kernel learned $A_MAC behind 10.99.0.1"
  fi
done

# A frame that cannot fit the underlay is reported by the guest's MTU, never fragmented:
# the tap's 1450 is what the uplink's MTU allows (1500 - 50).
R=$(lab_stats)
grep -q "VXLAN VTEP: 10.99.0.1  UDP port: 4789  underlay RDEV: 28BA  MTU: 1450" "$R" ||
  fail "no VTEP line in the report: $(grep -A3 VXLAN "$R")"
grep "Remote 0:" "$R"
grep "Encapsulated:" "$R"
! grep -q "Discards vxlan-mtu-exceeded" "$R" || fail "frames dropped for the MTU"
expect_eq "LNXA tx_errors" "$(counter "$R" LNXA tx_errors)" 0

kill $tshark_pid; wait $tshark_pid 2>/dev/null
N=$(tshark -r "$WORK/underlay.pcap" -Y vxlan 2>/dev/null | wc -l)
ALL=$(tshark -r "$WORK/underlay.pcap" 2>/dev/null | wc -l)
[ "$N" -gt 1000 ] && [ "$N" = "$ALL" ] || fail "tshark decoded $N of $ALL frames as VXLAN"
# Expert warnings (errors included) about the frames themselves: the encapsulation and
# everything under TCP. TCP's own sequence analysis of the inner stream (a full window,
# D-SACK, segments the capture missed) says how the transfer went, not how it was framed.
tshark -r "$WORK/underlay.pcap" -q -z expert,warn 2>/dev/null >"$WORK/expert.txt"
WARN=$(awk '/^ +[0-9]+ +[A-Za-z]/ && $3 != "TCP"' "$WORK/expert.txt" | wc -l)
[ "$WARN" = 0 ] || fail "tshark expert warnings on the underlay: $(cat "$WORK/expert.txt")"
echo "ok: tshark decoded all $N encapsulated frames, no expert warning below TCP"
awk '/^ +[0-9]+ +[A-Za-z]/ && $3 == "TCP" { print "note: inner TCP: " $0 }' "$WORK/expert.txt"
