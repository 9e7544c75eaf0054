# Interop: vswitchd's two-port group against Open vSwitch's userspace datapath, an
# independent 802.1AX implementation from Debian, shared by lab_lacp_ovs_{fast,slow}.sh.
#
#   lacp_ovs_lab fast|slow   OVS bond lacp=active with lacp-time fast|slow; the VSWITCH's
#                            group asks for the same (TIMEOUT SHORT|LONG)
# Asserts: both sides show both members negotiated/distributing, the partner each side
# sees is the other (system IDs, port numbers = our device numbers), traffic crosses OVS's
# bridge to a LAN host, and a member's link loss is absorbed by both sides.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/ovs_lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lacp_lab_lib.sh"

OVS_SYSID=02:00:00:00:0a:01

lacp_ovs_lab() {
  local time=$1
  lab_init "ovs-$time"
  ovs_require
  local dev
  for dev in 28ba 2902; do
    ip -n "$NS_SW" link add "osa$dev" type veth peer name "ovs-$dev" netns "$NS_PHY" || fail "veth"
    ip -n "$NS_SW" link set "osa$dev" up
  done
  ip -n "$NS_PHY" link add ovs-lan type veth peer name eth0 netns "$NS_LAN" || fail "veth lan"
  ip -n "$NS_LAN" link set eth0 up
  ip -n "$NS_LAN" addr add "${LAB_IP[lan]}/24" dev eth0
  OVS_DIR=$WORK/ovs
  # The test's status survives OVS's stop (lab_cleanup exits with the status it finds).
  trap 's=$?; ovs_peer_stop "$OVS_DIR"; (exit $s); lab_cleanup' EXIT
  # The exchange captured from OVS's first PDU on, which its bond sends as it comes up
  # (with LACP slow, the next only 30 s later): both ends of 28BA's wire, ovs-28ba up for
  # it (ovs_peer_start sets its members up too).
  ip -n "$NS_PHY" link set ovs-28ba up
  CAP_PEER_IF=ovs-28ba capture_exchange
  ovs_peer_start "$NS_PHY" "$OVS_DIR" "ovs-28ba ovs-2902" ovs-lan "$time" "$OVS_SYSID" ||
    fail "OVS did not start"
  local sysconf=$WORK/SYSTEM.CONFIG
  cp "$ROOT/configs/lab/SYSTEM-GROUP.CONFIG" "$sysconf"
  [ "$time" = slow ] && echo "SET PORT GROUP ETHGRP TIMEOUT LONG" >>"$sysconf"
  local t0=$SECONDS
  LAB_TAPS="a b" lab_vswitchd "$sysconf" "$ROOT/configs/lab/USER.DIRECT"
  wait_for 20 distributing_is 2 || fail "vswitchd: not distributing on both: $(cat "$(lab_stats)")"
  ovs_peer_wait_negotiated "$OVS_DIR" 20 || fail "OVS not negotiated: $(ovs_peer_lacp_show "$OVS_DIR")"
  echo "ok: both sides negotiated, both members distributing, after about $((SECONDS - t0)) s ($time)"
  exchange_converged
  ovs_peer_lacp_show "$OVS_DIR" | tee "$WORK/ovs-lacp"
  grep -q "partner sys_id: 02:00:0c:00:00:00" "$WORK/ovs-lacp" || fail "OVS does not see zvswitch's system"
  grep -q "port_id: 10426\|port_id: 0x28ba\|10426" "$WORK/ovs-lacp" || fail "OVS does not see port 28BA"
  local rep
  rep=$(lab_stats)
  grep -q "Partner: Sys 65535,02-00-00-00-0A-01\|Partner: Sys [0-9]*,02-00-00-00-0A-01" "$rep" ||
    fail "vswitchd does not see OVS's system: $(grep Partner "$rep")"
  if [ "$time" = slow ]; then
    grep -q "Actor:.*State ACT AGG SYN" "$rep" || fail "actor should ask for long timeout: $(grep Actor: "$rep")"
  fi
  LAB_TAPS="a b" lab_static_arp
  ip netns exec "$NS_A" ping -c 5 -i 0.1 -W 1 "${LAB_IP[lan]}" >"$WORK/ping" || fail "ping across OVS"
  ip netns exec "$NS_B" ping -c 5 -i 0.1 -W 1 "${LAB_IP[lan]}" >"$WORK/ping" || fail "ping B across OVS"
  echo "ok: traffic crosses the aggregated link through OVS"
  check_exchange
  ip -n "$NS_PHY" link set ovs-28ba down
  wait_for 5 distributing_is 1 || fail "vswitchd did not drop the member whose link went down"
  ip netns exec "$NS_A" ping -c 3 -i 0.1 -W 1 "${LAB_IP[lan]}" >/dev/null || fail "ping with one member"
  ip -n "$NS_PHY" link set ovs-28ba up
  wait_for 20 distributing_is 2 || fail "member did not return"
  ovs_peer_wait_negotiated "$OVS_DIR" 20 || fail "OVS did not renegotiate"
  echo "ok: link loss absorbed and recovered on both sides"
  grep -q 'malformed: 0' "$(lab_stats)" || fail "malformed PDUs seen"
}
