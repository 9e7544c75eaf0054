#!/usr/bin/env bash
# check: alone (JOIN/LEAVE under iperf3 load, no discard allowed; LACP timers)
# Live port-group changes through the operator console (vmcp), under iperf3 load:
#   SET PORT GROUP ETHGRP JOIN 2A00   a third OSA port joins: the switch model bundles it,
#                                     vswitchd distributes on three members;
#   SET PORT GROUP ETHGRP LEAVE 28BA  a member leaves: its buckets move first, then it goes;
#   SET PORT GROUP ETHGRP INTERVAL / LACP, QUERY PORT GROUP, QUERY LACP, and commands that
#   must fail and change nothing (unmapped device, member of no group, a group too full).
# Asserts every TCP connection survives, the remaining members discard nothing, and the
# responses and return codes.
. "$(dirname "$0")/lacp_lab_lib.sh"
command -v iperf3 >/dev/null || skip "iperf3 missing"
lab_init joinleave
sed -e '/rate-limit/d' -e 's/^interface Port-channel1/interface GigabitEthernet2\/25\n attach sw-osa2a00\n channel-group 1 mode active\n lacp rate fast\n!\ninterface Port-channel1/' \
  "$ROOT/configs/switchmodel/lab6509.conf" >"$WORK/sm.conf"
{ cat "$ROOT/configs/lab/SYSTEM-GROUP.CONFIG"; echo "RDEVICE 2A00 INTERFACE osa2a00"; } >"$WORK/SYSTEM.CONFIG"
LAB_EXTRA_OSA=2a00 VSWITCHD_ARGS="-l info -k $WORK/console.sock" LAB_TAPS="a b" \
  lab_group_start "$WORK/sm.conf" "$WORK/SYSTEM.CONFIG" "$ROOT/configs/lab/USER.DIRECT"
wait_for 15 distributing_is 2 || fail "group not up"
[ -x "$BUILD/bin/vmcp" ] || fail "no vmcp"
wait_for 5 test -S "$WORK/console.sock" || fail "no console socket"

out=$(vmcp QUERY PORT GROUP ETHGRP) || fail "QUERY PORT GROUP rc $?: $out"
echo "$out"
echo "$out" | grep -q "^PORT GROUP ETHGRP   VSWITCH LABVSW1  LACP: ACTIVE  Interval: 30  Members: 2  Distributing: 2" ||
  fail "QUERY PORT GROUP header"

# Refused commands change nothing.
out=$(vmcp SET PORT GROUP ETHGRP JOIN 3000); rc=$?
[ $rc -ne 0 ] || fail "JOIN of an unmapped device succeeded"
echo "refused (rc $rc): $out"
out=$(vmcp SET PORT GROUP ETHGRP LEAVE 2A00); rc=$?
[ $rc -ne 0 ] || fail "LEAVE of a non-member succeeded"
echo "refused (rc $rc): $out"
out=$(vmcp SET PORT GROUP NOSUCH LEAVE 28BA); rc=$?
[ $rc -ne 0 ] || fail "LEAVE from an unknown group succeeded"
echo "refused (rc $rc): $out"
distributing_is 2 || fail "a refused command changed the group"

LAB_TAPS="a b" lab_static_arp
ip netns exec "$NS_LAN" iperf3 -s -1 -D -p 5201 >/dev/null 2>&1
ip netns exec "$NS_LAN2" iperf3 -s -1 -D -p 5202 >/dev/null 2>&1
ip netns exec "$NS_LAN2" ip neigh replace "${LAB_IP[b]}" lladdr \
  "$(ip -n "$NS_B" -br link show lnxb-f000 | awk '{print $3}')" dev eth0 nud permanent
ip netns exec "$NS_B" ip neigh replace "${LAB_IP[lan2]}" lladdr 02:00:0a:00:00:02 dev lnxb-f000 nud permanent
sleep 0.5
ip netns exec "$NS_A" iperf3 -c "${LAB_IP[lan]}" -p 5201 -P 4 -t 10 >"$WORK/ia" 2>&1 &
pa=$!
ip netns exec "$NS_B" iperf3 -c "${LAB_IP[lan2]}" -p 5202 -P 4 -t 10 >"$WORK/ib" 2>&1 &
pb=$!
sleep 2
disc0=$(counter "$(lab_stats)" 2902 tx_discards)
out=$(vmcp SET PORT GROUP ETHGRP JOIN 2A00) || fail "JOIN rc $?: $out"
expect_eq "JOIN response" "$out" "Command complete"
wait_for 8 distributing_is 3 || fail "2A00 did not start distributing after JOIN"
echo "ok: 2A00 joined under load and distributes"
sleep 1
out=$(vmcp SET PORT GROUP ETHGRP LEAVE 28BA) || fail "LEAVE rc $?: $out"
expect_eq "LEAVE response" "$out" "Command complete"
distributing_is 2 || fail "28BA still counted after LEAVE"
wait $pa || fail "iperf3 A lost its connection: $(tail -3 "$WORK/ia")"
wait $pb || fail "iperf3 B lost its connection: $(tail -3 "$WORK/ib")"
rep=$(lab_stats)
expect_eq "2902 tx discards during JOIN/LEAVE" "$(counter "$rep" 2902 tx_discards)" "$disc0"
expect_eq "2A00 tx discards" "$(counter "$rep" 2A00 tx_discards)" 0
grep -q "RDEV: 28BA" "$rep" && fail "28BA still an uplink after LEAVE"
out=$(vmcp QUERY PORT GROUP) || fail "QUERY PORT GROUP"
echo "$out"
echo "$out" | grep -q "RDEV 2A00" || fail "2A00 missing from QUERY PORT GROUP"
echo "ok: JOIN and LEAVE under load: every TCP connection completed, nothing discarded"

out=$(vmcp SET PORT GROUP ETHGRP INTERVAL OFF) || fail "INTERVAL OFF"
vmcp QUERY PORT GROUP ETHGRP | grep -q "Interval: OFF" || fail "INTERVAL OFF not shown"
out=$(vmcp QUERY LACP ETHGRP) || fail "QUERY LACP"
echo "$out" | grep -q "Partner: Sys 32768,02-65-" || fail "QUERY LACP shows no partner: $out"
out=$(vmcp SET PORT GROUP ETHGRP LACP INACTIVE) || fail "LACP INACTIVE"
lacp_shown_inactive() { vmcp QUERY PORT GROUP ETHGRP | head -n 1 | grep -q 'LACP: INACTIVE'; }  # asked on every try
wait_for 5 lacp_shown_inactive ||
  fail "LACP INACTIVE not shown"
echo "ok: INTERVAL, LACP and the queries"
