#!/usr/bin/env bash
# check: parallel (a kernel vxlan device as the remote VTEP; exact counters and bounded transfers, no rates or timers)
# zvswitch's VTEP on a tap underlay (RDEVICE 28BA ... BACKEND TAP) against the Linux
# kernel's vxlan device: the UDP tunnel super-frames vswitchd writes and reads whole
# (overlay/README.md, "Offloads on this kernel") meet a real peer. The system's side: the
# persistent tap osa28ba, made here as an administrator would, and a bridge joining it to
# the veth whose other end is the LAN's eth0, where the kernel's vxlan device (static
# remote, then learning) is the remote VTEP 10.99.0.2 holding 10.77.0.100. Pings at the
# full MTU and a bounded TCP transfer with exact byte counts both ways, each mode: the
# guest's TCP super-frames leave vswitchd encapsulated whole (the capture on the LAN's
# eth0 holds frames longer than the underlay's MTU: nothing segmented them on the way)
# and the kernel's segment them when its vxlan socket takes them; the kernel's own
# super-frames reach vswitchd whole through the bridge and the tap and leave for the guest
# as one TCP super-frame; the OSA port counts each super-frame as the wire frames it
# becomes. tshark decodes every frame on the underlay as VXLAN with no expert warning but
# TCP's sequence analysis of the inner stream.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vxlan_lab_lib.sh"
command -v tshark >/dev/null || skip "tshark missing"

lab_init vxlantap
SYSCONFIG=$WORK/SYSTEM.CONFIG
vxlan_sysconfig "$SYSCONFIG" "REMOTE 10.99.0.2"
sed -i 's/^RDEVICE 28BA INTERFACE osa28ba$/& BACKEND TAP/' "$SYSCONFIG"
grep -q "^RDEVICE 28BA INTERFACE osa28ba BACKEND TAP$" "$SYSCONFIG" || fail "no RDEVICE line to change"

# The system's part: the tap (vswitchd attaches, never creates), a bridge, the wire.
ip -n "$NS_SW" tuntap add osa28ba mode tap vnet_hdr || fail "ip tuntap add"
ip -n "$NS_SW" link add br0 type bridge stp_state 0 forward_delay 0 || fail "bridge"
ip -n "$NS_SW" link add u0 type veth peer name eth0 netns "$NS_LAN" || fail "veth"
ip -n "$NS_SW" link set osa28ba master br0 up
ip -n "$NS_SW" link set u0 master br0 up
ip -n "$NS_SW" link set br0 up
ip -n "$NS_LAN" addr add 10.99.0.2/24 dev eth0
ip -n "$NS_LAN" link set eth0 up
vxlan_vswitchd "$SYSCONFIG"
wait_for 5 bash -c "'$BUILD/bin/vmcp' -s '$WORK/console.sock' 'QUERY VSWITCH LABVSW1' |
  grep -q 'VXLAN VTEP'" || fail "no VTEP: $('$BUILD/bin/vmcp' -s "$WORK/console.sock" 'QUERY VSWITCH LABVSW1')"
vxlan_capture "$NS_LAN" eth0
trap 'rc=$?; vxlan_capture_stop; (exit $rc); lab_cleanup' EXIT


for mode in static learning; do
  vxlan_kernel_vtep $mode
  vxlan_ping_both "$NS_LAN" 10.77.0.100 "kernel device $mode, tap underlay"
  vxlan_transfer to "$NS_LAN" 10.77.0.100
  vxlan_transfer from "$NS_LAN" 10.77.0.100
done

R=$(lab_stats)
grep -q "VXLAN VTEP: 10.99.0.1  UDP port: 4789  underlay RDEV: 28BA  MTU: 1450" "$R" ||
  fail "no VTEP line in the report: $(grep -A3 VXLAN "$R")"
grep "Remote 0:" "$R"
grep "Encapsulated:" "$R"
# The VTEP's own start-up (the LAN's IPv6 chatter through the bridge, counted
# vxlan-not-vxlan; the first frame waiting for ARP, vxlan-no-neighbour) is all it may
# refuse.
grep "Discards vxlan-" "$R" | sed 's/^ */note: /'
bad=$(grep "Discards vxlan-" "$R" | grep -v -e vxlan-not-vxlan -e vxlan-no-neighbour)
[ -z "$bad" ] || fail "frames refused: $bad"
# The OSA port counts a super-frame as the wire frames it becomes (its segments), the VTEP
# each guest frame it encapsulated once: more than twice as many when super-frames
# crossed whole.
enc=$(awk '/Encapsulated:/ { print $2 }' "$R")
wire=$(counter "$R" 28BA tx_packets)
[ "$wire" -gt $((2 * enc)) ] ||
  fail "OSA 28BA sent $wire frames for $enc encapsulated: no super-frame crossed whole"
echo "ok: $enc encapsulated, $wire frames on the wire (super-frames counted as segments)"
expect_eq "LNXA tx_errors" "$(counter "$R" LNXA tx_errors)" 0

vxlan_capture_check 100
# Super-frames on the wire: frames longer than the underlay's 1514 bytes, both ways (the
# capture sees each skb as the veth carried it, before anything segments it).
BIG_OUT=$(tshark -r "$WORK/underlay.pcap" -Y "frame.len > 1514 && ip.src == 10.99.0.1" 2>/dev/null | wc -l)
BIG_IN=$(tshark -r "$WORK/underlay.pcap" -Y "frame.len > 1514 && ip.src == 10.99.0.2" 2>/dev/null | wc -l)
MAX=$(tshark -r "$WORK/underlay.pcap" -T fields -e frame.len 2>/dev/null | sort -n | tail -n 1)
[ "$BIG_OUT" -gt 0 ] || fail "vswitchd wrote no tunnel super-frame (largest frame $MAX bytes)"
[ "$BIG_IN" -gt 0 ] || fail "the kernel sent no tunnel super-frame to vswitchd (largest $MAX)"
echo "ok: super-frames on the underlay: $BIG_OUT from vswitchd, $BIG_IN to it, the largest $MAX bytes"
echo "PASS"
