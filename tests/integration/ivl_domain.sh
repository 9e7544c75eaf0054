#!/usr/bin/env bash
# check: light (LACP short timeout and corosync's 1 s token: seconds of timers; pings only)
# Multi-VSwitch Link Aggregation end to end: three systems, each a vswitchd beside its own
# corosync (one network namespace and one mount namespace over /run and /dev/shm per
# system, the corosync.conf written by `vswitchd --write-corosync` and checked again at
# the join by --corosync-conf), each with two OSA ports, all six in ONE channel-group of
# the switch model, and one guest namespace per system on a tap; the IVL network is a
# bridge joining the systems' IVL devices (ivl0, the TYPE IVL switch's RDEV, MTU 1600).
# Asserted:
#   - convergence: SHARED in systems 1 and 2's SYSTEM CONFIG, the CP command SET PORT
#     GROUP GG LACP ACTIVE SHARED typed on system 3 once started; the domain ACTIVE with
#     three systems everywhere, the switch bundles all six ports (P); tshark on the
#     switch's ports sees one actor system id and key and the port numbers 0x0101-0x0302;
#   - every guest reaches the LAN host and the other systems' guests, no reply twice;
#   - system 1's members shut down on the switch: its guest still reaches the LAN (its
#     frames cross the IVL as OUTBOUND to another system's members);
#   - the IVL cut from system 3: it has no quorum and leaves the LAG, the switch keeps the
#     other four ports, system 1's guest still reaches the LAN; healed, all six again;
#   - system 2 killed with SIGKILL (vswitchd and its corosync, its OSA links left up): the
#     switch drops its ports at LACP's short timeout, the others carry on; restarted
#     before its corosync, it runs alone and says so (ZVSIVL1264W), then joins again from
#     its SYSTEM CONFIG alone (no command typed, no restart) once corosync starts, and its
#     guest reaches the LAN.
# The lab itself (namespaces, wires, files, systems) is ivl_lab_lib.sh's.
. "$(dirname "$0")/ivl_lab_lib.sh"
command -v tshark >/dev/null || { echo "SKIP: tshark missing"; exit 77; }

IVL_SHARED_BY_COMMAND=3                 # the command's path; 1 and 2 by their files
ivl_lab_init
T0=$SECONDS
for n in 1 2 3; do ivl_start_system $n; done
wait_for 20 bundled "1 2 3" || fail "the switch did not bundle all six ports: $(group_line)"
for n in 1 2 3; do
  wait_for 5 status_is $n "ACTIVE  Systems: 3" || fail "system $n: $(cp_cmd $n 'QUERY PORT GROUP GG')"
done
grep -q ZVSIVL1267W "$W"/s*/vswitchd.log && fail "a generated corosync.conf reported as differing"
ok "converged in $((SECONDS - T0)) s: $(group_line)"

# One actor system and key, six distinct port numbers, as the partner reads them.
ip netns exec "$PHY" timeout 10 tshark -q -a duration:2.5 -i sw-s1a -i sw-s1b -i sw-s2a \
  -i sw-s2b -i sw-s3a -i sw-s3b -f "ether proto 0x8809" -w "$W/lacp.pcapng" >/dev/null 2>&1
ACTORS=$(tshark -r "$W/lacp.pcapng" -Y lacp -T fields -e lacp.actor.sysid -e lacp.actor.key -e lacp.actor.port 2>/dev/null | sort -u)
PORTS=$(echo "$ACTORS" | awk '$1 == "02:49:56:4c:00:41" && $2 == 1 { print $3 }' | sort -n | tr '\n' ' ')
[ "$PORTS" = "257 258 513 514 769 770 " ] ||
  fail "LACPDUs toward the switch: $ACTORS (want system 02:49:56:4c:00:41 key 1 ports 257-770)"
ok "tshark: one actor 02:49:56:4c:00:41 key 1, ports 0x0101 0x0102 0x0201 0x0202 0x0301 0x0302"

for n in 1 2 3; do
  guest_ping $n 10.89.0.100 3 || fail "guest $n -> LAN: $(tail -n 3 "$W/ping-$n-10.89.0.100")"
done
guest_ping 1 10.89.0.2 3 || fail "guest 1 -> guest 2: $(tail -n 3 "$W/ping-1-10.89.0.2")"
guest_ping 2 10.89.0.3 3 || fail "guest 2 -> guest 3: $(tail -n 3 "$W/ping-2-10.89.0.3")"
guest_ping 3 10.89.0.1 3 || fail "guest 3 -> guest 1: $(tail -n 3 "$W/ping-3-10.89.0.1")"
ok "every guest reaches the LAN and the other systems' guests, no duplicate"

# System 1's members shut down: its guest goes on over the IVL.
sm "shutdown Gi2/1" >/dev/null && sm "shutdown Gi2/2" >/dev/null || fail "shutdown"
wait_for 5 distributing 1 0 || fail "system 1 still distributes"
guest_ping 1 10.89.0.100 5 || fail "guest 1 -> LAN over the IVL: $(tail -n 3 "$W/ping-1-10.89.0.100")"
cp_cmd 1 "QUERY VSWITCH GLOBSW" | grep -Eq "Sent: +OUTBOUND [1-9]" ||
  fail "system 1 sent nothing OUTBOUND: $(cp_cmd 1 'QUERY VSWITCH GLOBSW' | grep -A3 'IVL port')"
sm "no shutdown Gi2/1" >/dev/null && sm "no shutdown Gi2/2" >/dev/null || fail "no shutdown"
wait_for 10 bundled "1 2 3" || fail "system 1's ports did not come back: $(group_line)"
ok "system 1's members down: its guest reached the LAN across the IVL (OUTBOUND)"

# The IVL cut from system 3: it leaves the LAG, the others keep it.
ip -n "$NET" link set p3 down
wait_for 8 status_is 3 "NO QUORUM" || fail "system 3: $(cp_cmd 3 'QUERY PORT GROUP GG' | grep Status)"
wait_for 5 bundled "1 2" || fail "the switch kept system 3's ports: $(group_line)"
status_is 1 "ACTIVE  Systems: 2" || fail "system 1: $(cp_cmd 1 'QUERY PORT GROUP GG' | grep Status)"
guest_ping 1 10.89.0.100 3 || fail "guest 1 -> LAN with the IVL cut: $(tail -n 3 "$W/ping-1-10.89.0.100")"
ok "IVL cut from system 3: it left the LAG (no quorum), systems 1 and 2 kept it"
ip -n "$NET" link set p3 up
wait_for 10 status_is 3 "ACTIVE  Systems: 3" ||
  fail "system 3 did not rejoin: $(cp_cmd 3 'QUERY PORT GROUP GG' | grep -E 'Status|System|State')"
wait_for 10 bundled "1 2 3" || fail "system 3's ports did not come back: $(group_line)"
guest_ping 3 10.89.0.100 3 || fail "guest 3 -> LAN after the heal"
ok "healed: all six ports again"

# System 2 killed with its links up: the switch drops its ports by LACP's timeout.
ivl_stop_system 2 KILL
wait_for 8 bundled "1 3" || fail "the switch kept system 2's ports: $(group_line)"
guest_ping 1 10.89.0.100 3 || fail "guest 1 -> LAN with system 2 dead"
ok "system 2 killed: its ports left the bundle, systems 1 and 3 carry on"
# Restarted before its corosync: it runs alone, then joins once corosync starts (the join
# is tried once a second), no restart and no command.
LOG_LINES=$(wc -l <"$W/s2/vswitchd.log")   # the log is appended: this run's lines only
ivl_start_system 2 late
wait_for 5 status_is 2 "ALONE (COROSYNC NOT RUNNING)" ||
  fail "system 2 without corosync: $(cp_cmd 2 'QUERY PORT GROUP GG' | grep -E 'Status')"
tail -n +"$((LOG_LINES + 1))" "$W/s2/vswitchd.log" |
  grep -q "ZVSIVL1264W VSWITCH GLOBSW runs alone: corosync is not running" ||
  fail "system 2 did not say it runs alone: $(grep ZVSIVL "$W/s2/vswitchd.log" | tail -n 3)"
touch "$W/s2/corosync.go"
wait_for 15 bundled "1 2 3" || fail "system 2's ports did not come back: $(group_line)"
wait_for 5 status_is 2 "ACTIVE  Systems: 3" ||
  fail "system 2 did not rejoin: $(cp_cmd 2 'QUERY PORT GROUP GG' | grep -E 'Status|System|State')"
guest_ping 2 10.89.0.100 3 || fail "guest 2 -> LAN after the restart"
ok "system 2 restarted before its corosync: alone, then joined when corosync started, its guest reaches the LAN"
echo "PASS ($((SECONDS - T0)) s)"
