#!/usr/bin/env bash
# check: parallel (a kernel vxlan device as the remote VTEP; exact counters and bounded transfers, no rates or timers)
# The VXLAN uplink over a tap underlay (RDEVICE ... BACKEND TAP, backends/uplink_tap.h)
# against the Linux kernel's vxlan device: OSA 28BA is a tap in the switch namespace that
# a bridge joins to a veth, whose other end is the LAN namespace's eth0 (10.99.0.2, a
# kernel vxlan device with a static remote holding 10.77.0.100). Guest A's TCP
# super-frames cross whole both ways: vswitchd writes each once with the UDP tunnel GSO
# header, the kernel's come to it whole through the tap. Pings and a bounded TCP transfer
# with exact byte counts both ways; the OSA port counts more wire frames than the VTEP
# encapsulated (super-frames counted as the segments they become), nothing is refused.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vxlan_lab_lib.sh"

lab_init vxtap
SYSCONFIG=$WORK/SYSTEM.CONFIG
vxlan_sysconfig "$SYSCONFIG" "REMOTE 10.99.0.2"
sed -i 's/^RDEVICE 28BA INTERFACE osa28ba$/& BACKEND TAP/' "$SYSCONFIG"
grep -q "^RDEVICE 28BA INTERFACE osa28ba BACKEND TAP$" "$SYSCONFIG" || fail "no RDEVICE line"

# The underlay: the tap osa28ba (vswitchd attaches; no address: the VTEP is zvswitch's),
# bridged to u0, whose peer eth0 is the LAN's.
ip -n "$NS_SW" tuntap add osa28ba mode tap vnet_hdr || fail "tap"
ip -n "$NS_SW" link add br0 type bridge stp_state 0 forward_delay 0 || fail "bridge"
ip -n "$NS_SW" link add u0 type veth peer name eth0 netns "$NS_LAN" || fail "veth"
ip -n "$NS_SW" link set osa28ba master br0 up
ip -n "$NS_SW" link set u0 master br0 up
ip -n "$NS_SW" link set br0 up
ip -n "$NS_LAN" addr add 10.99.0.2/24 dev eth0
ip -n "$NS_LAN" link set eth0 up
vxlan_vswitchd "$SYSCONFIG"
ip -n "$NS_LAN" link add vx0 type vxlan id 5000 local 10.99.0.2 remote 10.99.0.1 \
  dstport 4789 dev eth0 nolearning || fail "vxlan"
ip -n "$NS_LAN" link set vx0 address 02:00:0a:00:00:64 mtu 1450 up
ip -n "$NS_LAN" addr add 10.77.0.100/24 dev vx0

vxlan_ping_both "$NS_LAN" 10.77.0.100 "tap underlay"
vxlan_transfer to "$NS_LAN" 10.77.0.100
vxlan_transfer from "$NS_LAN" 10.77.0.100

R=$(lab_stats)
grep -q "VXLAN VTEP: 10.99.0.1  UDP port: 4789  underlay RDEV: 28BA  MTU: 1450" "$R" ||
  fail "no VTEP line in the report: $(grep -A3 VXLAN "$R")"
grep "Remote 0:" "$R"
grep "Encapsulated:" "$R"
# The VTEP's own start-up (the LAN's IPv6 chatter, the first ARP) is all it may refuse.
bad=$(grep "Discards vxlan-" "$R" | grep -v -e vxlan-not-vxlan -e vxlan-no-neighbour)
[ -z "$bad" ] || fail "frames refused: $bad"
enc=$(awk '/Encapsulated:/ { print $2 }' "$R")
wire=$(counter "$R" 28BA tx_packets)
[ "$wire" -gt $((2 * enc)) ] ||
  fail "OSA 28BA sent $wire frames for $enc encapsulated: no super-frame crossed whole"
echo "ok: $enc encapsulated, $wire frames on the wire (super-frames counted as segments)"
expect_eq "LNXA tx_errors" "$(counter "$R" LNXA tx_errors)" 0
