#!/usr/bin/env bash
# check: parallel (a kernel vxlan device as the remote VTEP; exact counters and bounded transfers, no rates or timers)
# zvswitch as a VXLAN tunnel endpoint (overlay/) against the Linux kernel's vxlan device:
# guest A (a tap, MTU 1450) on LABVSW1, whose uplink is VXLAN VNI 5000 over OSA 28BA (a
# veth, the underlay 10.99.0.0/24) to the LAN namespace, where a kernel vxlan device is
# the remote VTEP 10.99.0.2 holding 10.77.0.100. Both ways, twice: the kernel device with
# a static remote, then learning (flooding to us by the all-zero entry, A's MAC learned
# behind 10.99.0.1). Pings and a bounded TCP transfer with exact byte counts both ways;
# tshark decodes every encapsulated frame on the underlay with no expert warning but TCP's
# sequence analysis of the inner stream (printed as notes). Last, the underlay's MTU
# shrinks and the segment and A's tap follow it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vxlan_lab_lib.sh"
command -v tshark >/dev/null || skip "tshark missing"

lab_init vxlan
SYSCONFIG=$WORK/SYSTEM.CONFIG
vxlan_sysconfig "$SYSCONFIG" "REMOTE 10.99.0.2"

# The underlay: osa28ba (vswitchd's, no address: the VTEP is zvswitch's) to eth0 (.2).
ip -n "$NS_SW" link add osa28ba type veth peer name eth0 netns "$NS_LAN" || fail "veth"
ip -n "$NS_SW" link set osa28ba up
ip -n "$NS_LAN" addr add 10.99.0.2/24 dev eth0
# The LAN's end comes up only after vswitchd started: the underlay has no carrier when the
# VXLAN uplink opens it, and the uplink must hear the carrier come (netlink, through the
# underlay's backend).
vxlan_vswitchd "$SYSCONFIG"
ip -n "$NS_LAN" link set eth0 up
vxlan_capture "$NS_LAN" eth0
trap 'rc=$?; vxlan_capture_stop; (exit $rc); lab_cleanup' EXIT


for mode in static learning; do
  vxlan_kernel_vtep $mode
  vxlan_ping_both "$NS_LAN" 10.77.0.100 "kernel device $mode"
  vxlan_transfer to "$NS_LAN" 10.77.0.100
  vxlan_transfer from "$NS_LAN" 10.77.0.100
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

vxlan_capture_check 1000

# The underlay's MTU shrinks (the operator's `ip link set mtu`): netlink tells the MTU
# alone, the VXLAN uplink's segment follows (1400 - 50), and A's tap, still at the MTU
# vswitchd gave it, is lowered with it in A's namespace.
ip -n "$NS_SW" link set osa28ba mtu 1400
wait_for 5 sh -c "ip -n '$NS_A' link show lnxa-f000 | grep -q ' mtu 1350 '" ||
  fail "A's tap not lowered: $(ip -n "$NS_A" link show lnxa-f000)"
R=$(lab_stats)
grep -q "underlay RDEV: 28BA  MTU: 1350" "$R" ||
  fail "the segment did not follow: $(grep -A1 'VXLAN VTEP' "$R")"
echo "ok: the underlay at 1400, the segment and A's tap at 1350"
