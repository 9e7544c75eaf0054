# The VXLAN labs' shared body (overlay/): zvswitch's VTEP 10.99.0.1 on OSA 28BA, guest A
# (a tap, MTU 1450 = 1500 less RFC 7348's 50 bytes over IPv4) on LABVSW1, a remote VTEP
# holding 10.77.0.100 behind it. lab_vxlan.sh (the kernel's vxlan device),
# lab_vxlan_ovs.sh (Open vSwitch's vxlan port) and lab_vxlan_dns.sh (a remote VTEP by
# host name whose record changes) source it after lib.sh.
# shellcheck shell=bash
# A sourced library, not a test (tests/run.sh skips *_lib.sh; run on its own it exits 77).
#
#   vxlan_sysconfig FILE OPERANDS [LINE..]
#                        the lab's SYSTEM CONFIG with LABVSW1's uplink a VXLAN segment:
#                        "VXLAN VSWITCH LABVSW1 VNI 5000 LOCAL 10.99.0.1 RDEV 28BA OPERANDS",
#                        then each LINE (RESOLVER ...); VXLAN_LOCAL replaces 10.99.0.1
#   vxlan_vswitchd FILE  vswitchd on that file with guest A only at MTU 1450, its console
#                        at $WORK/console.sock (the underlay osa28ba must exist in NS_SW)
#   vxlan_capture NS IFACE   tshark on IFACE in NS, VXLAN's UDP port only, into
#                        $WORK/underlay.pcap, until vxlan_capture_check
#   vxlan_capture_check MIN  stops it; every frame decodes as VXLAN (more than MIN of them)
#                        and tshark's expert info has no warning or error but TCP's
#                        sequence analysis of the inner stream (printed as notes)
#   vxlan_transfer to|from NS HOST
#                        VXLAN_BYTES of TCP from A to HOST (a listener in NS) or back,
#                        counted to the byte by the receiver up to the sender's close
#   vxlan_ping_both NS HOST WHAT
#                        pings A -> HOST at the full 1450-byte MTU (DF set) and HOST -> A
#   vxlan_kernel_vtep static|learning
#                        the kernel's vxlan device vx0 in NS_LAN as the remote VTEP
#                        10.99.0.2 (on eth0) holding 10.77.0.100: a static remote
#                        10.99.0.1, or learning with the all-zero entry flooding to it

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  echo "SKIP: vxlan_lab_lib.sh is a library for other tests"
  exit 77
fi

VXLAN_BYTES=${VXLAN_BYTES:-10485760}
VXLAN_CAP_PID=

vxlan_sysconfig() {
  local f=$1 ops=$2
  shift 2
  sed -e 's/^DEFINE VSWITCH LABVSW1 RDEV 28BA/DEFINE VSWITCH LABVSW1 RDEV NONE/' \
    "$ROOT/configs/lab/SYSTEM.CONFIG" >"$f"
  echo "VXLAN VSWITCH LABVSW1 VNI 5000 LOCAL ${VXLAN_LOCAL:-10.99.0.1} RDEV 28BA $ops" >>"$f"
  local l
  for l in "$@"; do echo "$l" >>"$f"; done
}

vxlan_vswitchd() {
  LAB_TAPS=a VSWITCHD_ARGS="-k $WORK/console.sock" lab_vswitchd "$1" \
    "$ROOT/configs/lab/USER.DIRECT" 1450
}

vxlan_capture() {
  ip netns exec "$1" tshark -q -i "$2" -w "$WORK/underlay.pcap" -f "udp port 4789" \
    >/dev/null 2>&1 &
  VXLAN_CAP_PID=$!
}

vxlan_capture_stop() {
  [ -n "$VXLAN_CAP_PID" ] || return 0
  kill "$VXLAN_CAP_PID" 2>/dev/null
  wait "$VXLAN_CAP_PID" 2>/dev/null
  VXLAN_CAP_PID=
}

vxlan_capture_check() {
  local min=$1 n all warn
  vxlan_capture_stop
  n=$(tshark -r "$WORK/underlay.pcap" -Y vxlan 2>/dev/null | wc -l)
  all=$(tshark -r "$WORK/underlay.pcap" 2>/dev/null | wc -l)
  [ "$n" -gt "$min" ] && [ "$n" = "$all" ] || fail "tshark decoded $n of $all frames as VXLAN"
  # Every expert warning (errors included) fails the lab, but one group: TCP's own
  # sequence analysis of the inner stream (group "Sequence": a full window, segments the
  # capture missed, a retransmission seen before its original), which says how the transfer
  # went, not how a frame was built. The frames are intact where they leave us: in the Open
  # vSwitch lab the veth's counters match the OSA port's to the frame while the guest's
  # TCP retransmits what OVS's packet reader or the capture itself lost (the originals
  # are missing from the capture, so tshark calls the retransmission out of order). A
  # TCP checksum, malformed-frame or protocol warning is not in that group and fails.
  tshark -r "$WORK/underlay.pcap" -q -z expert,warn 2>/dev/null >"$WORK/expert.txt"
  warn=$(awk '/^ +[0-9]+ +[A-Za-z]/ && !($3 == "TCP" && $2 == "Sequence")' "$WORK/expert.txt" |
    wc -l)
  [ "$warn" = 0 ] || fail "tshark expert warnings on the underlay: $(cat "$WORK/expert.txt")"
  echo "ok: tshark decoded all $n encapsulated frames, no expert warning but TCP's sequence notes"
  awk '/^ +[0-9]+ +[A-Za-z]/ && $3 == "TCP" && $2 == "Sequence" { print "note: inner TCP: " $0 }' \
    "$WORK/expert.txt"
}

VXLAN_TCP_PY=$ROOT/tests/integration/tcp_bytes.py   # the counted transfer's two ends

vxlan_transfer() {
  local dir=$1 ns=$2 host=$3 srv=recv-server cli=send-client spid got
  [ "$dir" = from ] && srv=send-server cli=recv-client
  ip netns exec "$ns" timeout 30 python3 "$VXLAN_TCP_PY" $srv "$host" "$VXLAN_BYTES" \
    >"$WORK/srv.out" 2>&1 &
  spid=$!
  wait_for 5 ip netns exec "$ns" sh -c "ss -ltn | grep -q ':5301 '" || fail "TCP server"
  ip netns exec "$NS_A" timeout 30 python3 "$VXLAN_TCP_PY" $cli "$host" "$VXLAN_BYTES" \
    >"$WORK/cli.out" 2>&1 ||
    fail "TCP $dir: $(cat "$WORK/cli.out"); $(grep -A14 'Uplink Port' "$(lab_stats)")"
  wait $spid || fail "TCP $dir server: $(cat "$WORK/srv.out")"
  got=$(cat "$WORK/srv.out" "$WORK/cli.out" | grep -E '^[0-9]+$')
  expect_eq "TCP bytes $dir the LAN host" "$got" "$VXLAN_BYTES"
}

vxlan_ping_both() {
  local ns=$1 host=$2 what=$3
  ip netns exec "$NS_A" ping -c 5 -i 0.2 -W 2 -s 1422 -M do "$host" >"$WORK/ping" ||
    fail "ping A->LAN over VXLAN ($what): $(tail -n 2 "$WORK/ping")"
  ip netns exec "$ns" ping -c 3 -i 0.2 -W 2 10.77.0.1 >"$WORK/ping" ||
    fail "ping LAN->A over VXLAN ($what): $(tail -n 2 "$WORK/ping")"
  echo "ok: pings both ways over VXLAN, $what"
}

vxlan_kernel_vtep() {
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
