#!/usr/bin/env bash
# check: light (valgrind; LACP timers with waits of 20-40 s; pings only)
# vswitchd with everything this release added, under valgrind: a two-port LACP group
# against the switch model, the operator console (JOIN/LEAVE/LACP/INTERVAL/QUERY and a
# refused command), monitor records with the live socket, a member's link lost and back,
# traffic; then SIGTERM. No valgrind error, no leak, exit 0. (A sanitizer build runs the
# same code under ASan in the other labs; valgrind cannot run it, so this test skips.)
. "$(dirname "$0")/lacp_lab_lib.sh"
command -v valgrind >/dev/null || skip "valgrind missing"
lab_init grpvg
if ldd "$VSWITCHD" | grep -q libasan; then
  skip "sanitizer build: ASan covers this code in the other labs"
fi
sed -e '/rate-limit/d' -e 's/^interface Port-channel1/interface GigabitEthernet2\/25\n attach sw-osa2a00\n channel-group 1 mode active\n lacp rate fast\n!\ninterface Port-channel1/' \
  "$ROOT/configs/switchmodel/lab6509.conf" >"$WORK/sm.conf"
{ cat "$ROOT/configs/lab/SYSTEM-GROUP.CONFIG"; echo "RDEVICE 2A00 INTERFACE osa2a00"; } >"$WORK/SYSTEM.CONFIG"
VSWITCHD_WRAP="valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect --error-exitcode=99 --log-file=$WORK/valgrind.log" \
LAB_EXTRA_OSA=2a00 VSWITCHD_ARGS="-k $WORK/console.sock -m $WORK/mon -i 1 --monitor-live $WORK/mon.live" \
LAB_TAPS="a b" lab_group_start "$WORK/sm.conf" "$WORK/SYSTEM.CONFIG" "$ROOT/configs/lab/USER.DIRECT"
wait_for 40 distributing_is 2 || fail "group not up under valgrind"
LAB_TAPS="a b" lab_static_arp
ip netns exec "$NS_A" ping -c 5 -i 0.2 -W 5 "${LAB_IP[lan]}" >/dev/null || fail "ping under valgrind"
timeout 3 python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.recv(65536)' "$WORK/mon.live" || true
vmcp SET PORT GROUP ETHGRP JOIN 2A00 >/dev/null || fail "JOIN"
wait_for 30 distributing_is 3 || fail "2A00 did not join"
vmcp SET PORT GROUP ETHGRP LEAVE 28BA >/dev/null || fail "LEAVE"
vmcp SET PORT GROUP ETHGRP INTERVAL 45 >/dev/null || fail "INTERVAL"   # CP rounds: 60
vmcp QUERY LACP >/dev/null || fail "QUERY LACP"
vmcp QUERY VSWITCH LABVSW1 DETAILS >/dev/null || fail "QUERY VSWITCH"
vmcp SET PORT GROUP ETHGRP JOIN 9999 >/dev/null && fail "a bad JOIN succeeded"
vmcp SET LACP 2902 DROPTX ON >/dev/null || fail "SET LACP"
vmcp SET LACP 2902 DROPTX OFF >/dev/null || fail "SET LACP OFF"
sm shutdown Gi2/24 >/dev/null
wait_for 20 distributing_is 1 || fail "member down not seen"
sm no shutdown Gi2/24 >/dev/null
wait_for 40 distributing_is 2 || fail "member did not return"
vmcp SET PORT GROUP ETHGRP LACP INACTIVE >/dev/null || fail "LACP INACTIVE"
# The running configuration: switches, NICs and grants made, changed and destroyed.
for c in "DEFINE VSWITCH VGSW NOUPLINK VLAN AWARE" "SET VSWITCH VGSW GRANT LNXC PORTTYPE TRUNK VLAN 10" \
         "SET VSWITCH VGSW GRANT LNXC VLAN 20" "UNCOUPLE USERID LNXC F000" \
         "COUPLE USERID LNXC F000 TO SYSTEM VGSW" \
         "SET VSWITCH VGSW MACPROTECT ON" "SET VSWITCH VGSW ISOLATION ON" \
         "QUERY VSWITCH VGSW ACCESSLIST" "QUERY NIC USERID LNXC DETAILS" "QUERY VMLAN" \
         "SET VSWITCH LABVSW1 COUNTERS CLEAR" "SET VSWITCH VGSW REVOKE LNXC" \
         "DEFINE NIC USERID LNXA 0700" "DETACH NIC USERID LNXA 0700" \
         "UNCOUPLE USERID LNXB F000" "COUPLE USERID LNXB F000 TO SYSTEM LABVSW1" \
         "DETACH VSWITCH VGSW" "SET VSWITCH LABVSW1 DISCONNECT" "SET VSWITCH LABVSW1 CONNECT"; do
  out=$(vmcp "$c") || fail "$c: $out"
done
vmcp DEFINE VSWITCH LABVSW1 >/dev/null && fail "a duplicate DEFINE succeeded"
# LACP INACTIVE's final LACPDUs told the switch model (still channel-group mode active)
# that both members are Individual, and it took them out of Po1: LACP comes back before
# the last ping, as an operator would end such a mismatch.
vmcp SET PORT GROUP ETHGRP LACP ACTIVE >/dev/null || fail "LACP ACTIVE"
wait_for 40 distributing_is 2 || fail "group did not return after CONNECT"
wait_for 20 bundled_is 2 || fail "the switch model did not bundle both members again: $(sm show etherchannel summary)"
ip netns exec "$NS_A" ping -c 3 -i 0.2 -W 5 "${LAB_IP[lan]}" >/dev/null || fail "ping at the end"
kill -TERM "$VSWITCHD_PID"
wait "$VSWITCHD_PID"; rc=$?
VSWITCHD_PID=
[ $rc -eq 0 ] || fail "valgrind: exit $rc: $(head -n 40 "$WORK/valgrind.log")"
findings=$(valgrind_findings "$WORK/valgrind.log")
[ -n "$findings" ] && fail "valgrind reported: $(echo "$findings" | head -n 40)"
"$BUILD/bin/perfkit" PGROUP --file "$WORK/mon" --all >/dev/null || fail "perfkit on the monitor file"
echo "ok: valgrind clean (no errors, no leaks) across LACP, the console, the monitor and failover"
