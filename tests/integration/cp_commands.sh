#!/usr/bin/env bash
# check: light (LACP timers: DROPTX expiry on both sides; failover; pings only)
# The report's command sequence typed into a running vswitchd, and what each command does
# to the running switch.
#
# vswitchd starts from configs/lab/SYSTEM-CCB.CONFIG (only VMLAN and the RDEVICE
# mappings) and USER-CCB.DIRECT (guests LNXA, LNXB, LNXC logged on, their NICs coupled to
# nothing). Through vmcp the operator then types the report's sequence:
#   SET PORT GROUP CCBGROUP JOIN 28BA 2902 / INTERVAL 30 /
#   DEFINE VSWITCH CCBVSW1 ETHERNET GROUP CCBGROUP QUEUESTORAGE 1M / GRANT / COUPLE
# and the test asserts: LACP comes up with the switch model, guests reach the server
# behind the port channel; QUERY responses equal their golden files
# (tests/golden/commands/query_*.txt; ZVS_GOLDEN_UPDATE=1 rewrites them); refused commands
# answer exactly as tests/golden/commands/refused.txt says and change nothing; an ungranted user
# cannot couple; every refused command leaves the configuration as it was; ISOLATION and
# MACPROTECT act on the data plane at once; REVOKE uncouples; UNCOUPLE keeps the guest's
# interface; DISCONNECT / CONNECT; COUNTERS CLEAR; SWITCHOVER between RDEVs; LEAVE / JOIN;
# SET LACP DROPTX (the fault knob) seen by the physical switch;
# DETACH VSWITCH and SET PORT GROUP DELETE.
. "$(dirname "$0")/lacp_lab_lib.sh"
lab_init cpcmd
GOLDEN=$ROOT/tests/golden/commands

command -v setpriv >/dev/null || skip "setpriv (util-linux) missing"
# LNXA is the Linux user nobody on the console (USER-CCB.DIRECT: LINUXUSER nobody): the
# socket is opened to nobody's group, and nobody gets a copy of vmcp it can run.
chmod 0711 "$WORK"
install -m 0755 "$BUILD/bin/vmcp" "$WORK/vmcp"
as_lnxa() {
  setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$WORK/vmcp" \
    -s "$WORK/console.sock" "$*" 2>&1
}
LAB_EXTRA_OSA="2a00 2b00" VSWITCHD_ARGS="-l info -k $WORK/console.sock --console-group $(id -gn nobody)" \
  lab_group_start "$ROOT/configs/switchmodel/lab6509.conf" "$ROOT/configs/lab/SYSTEM-CCB.CONFIG" \
  "$ROOT/configs/lab/USER-CCB.DIRECT"
wait_for 5 test -S "$WORK/console.sock" || fail "no console socket"

# cp CMD...: the command must succeed; its response is printed and kept in $out.
cp() {
  out=$(vmcp "$@") || fail "'$*' rc $?: $out"
  echo "> $*"; echo "$out" | sed 's/^/  /'
}
# cp_rc RC CMD...: the command must end with return code RC (vmcp caps it at 255). The
# command and its response are also appended to $WORK/refused (golden: refused.txt).
cp_rc() {
  local want=$1; shift
  out=$(vmcp "$@"); local rc=$?
  echo "> $*  (rc $rc)"; echo "$out" | sed 's/^/  /'
  printf '> %s\n%s\nrc=%s\n' "$*" "$out" "$rc" >>"$WORK/refused"
  [ "$rc" = "$want" ] || fail "'$*': rc $rc, want $want"
}
# Volatile parts of a response: uplink counters and rates (LACP PDUs run on their own
# clock), the LACP report inside DETAILS, the MAC table's learned entries.
normalize() {
  awk '
    /^PORT GROUP .* Timeout: / { lag = 1 }       # an LACP report (no longer in DETAILS)
    lag && /^  MAC table:/ { lag = 0 }
    lag { next }
    /RDEV: / { up = 5 }
    up > 0 && /Drops:/ { next }
    up > 0 { if ($0 !~ /RDEV: /) { gsub(/[0-9]+/, "#"); gsub(/# +/, "# ") }; up-- }
    /MAC table:/ { gsub(/[0-9]+/, "#") }
    /Out: .*Mbit/ { sub(/Out: [0-9.]+/, "Out: #"); sub(/In: [0-9.]+/, "In: #") }
    { print }'
}
golden() {  # golden NAME CMD...: the response (normalized) equals query_NAME.txt
  local name=$1; shift
  cp "$@"
  local got; got=$(echo "$out" | normalize)
  if [ -n "${ZVS_GOLDEN_UPDATE:-}" ]; then
    printf '%s\n' "$got" >"$GOLDEN/query_$name.txt"
    echo "golden: wrote query_$name.txt"
    return
  fi
  diff -u "$GOLDEN/query_$name.txt" <(printf '%s\n' "$got") || fail "QUERY response $name differs"
}
# The configuration as the operator can see it: everything a refused command could touch.
snapshot() {
  local u
  { vmcp QUERY VSWITCH ALL ACCESSLIST; vmcp QUERY PORT GROUP; vmcp QUERY VMLAN
    for u in OPERATOR LNXA LNXB LNXC; do vmcp QUERY NIC USERID $u DETAILS; done; } 2>&1 |
    grep -v -e 'Packets:' -e 'Bytes:' -e 'Drops:' -e 'Mbit/s'
}

golden empty_vmlan QUERY VMLAN
cp_rc 0 QUERY VSWITCH
expect_eq "no switch yet" "$out" "ZVSCMD1138I No VSWITCH to show"

echo "== the report's sequence"
cp SET PORT GROUP CCBGROUP JOIN 28BA 2902
expect_eq "JOIN" "$out" "Command complete"
cp SET PORT GROUP CCBGROUP INTERVAL 30
cp DEFINE VSWITCH CCBVSW1 ETHERNET GROUP CCBGROUP QUEUESTORAGE 1M
expect_eq "DEFINE VSWITCH" "$out" "VSWITCH SYSTEM CCBVSW1 is created"
cp SET VSWITCH CCBVSW1 GRANT LNXA
cp SET VSWITCH CCBVSW1 GRANT LNXB
echo "== LNXA (class G, Linux user nobody) on the console"
out=$(as_lnxa DEFINE VSWITCH MYVSW); rc=$?
expect_eq "class G DEFINE VSWITCH (rc $rc)" "$out" "ZVSCMD1100E Not authorized: DEFINE VSWITCH requires privilege class B
Error: non-zero CP response for command 'DEFINE VSWITCH MYVSW': #1100"
expect_eq "vmcp's exit status for a non-zero CP rc (s390-tools: 1)" "$rc" 1
out=$(as_lnxa COUPLE USERID LNXB F000 TO SYSTEM CCBVSW1); rc=$?
expect_eq "class G COUPLE for another user (rc $rc)" "$out" "ZVSCMD1100E Not authorized: COUPLE USERID requires privilege class B
Error: non-zero CP response for command 'COUPLE USERID LNXB F000 TO SYSTEM CCBVSW1': #1100"
out=$(as_lnxa COUPLE F000 TO SYSTEM CCBVSW1) || fail "LNXA's own COUPLE rc $?: $out"
expect_eq "COUPLE" "$out" "NIC F000 is connected to VSWITCH SYSTEM CCBVSW1"
cp COUP USERID LNXB F000 SYSTEM CCBVSW1
cp_rc 255 COUPLE USERID LNXC F000 TO SYSTEM CCBVSW1
expect_eq "ungranted COUPLE" "$out" "ZVSVSW1121E User LNXC is not authorized to couple to VSWITCH CCBVSW1"
wait_for 15 distributing_is 2 || fail "CCBGROUP did not come up: $(vmcp Q PORT GROUP)"
# Our side distributing does not mean the partner collects yet: wait for its bundle too.
wait_for 10 bundled_is 2 || fail "the switch model did not bundle 28BA and 2902"
echo "ok: CCBGROUP distributes on 28BA and 2902, the physical switch bundles both"

LAB_TAPS="a b c" lab_static_arp
wait_for 10 ip netns exec "$NS_A" ping -c 1 -W 1 "${LAB_IP[lan]}" || fail "LNXA cannot reach SERVER1"
ip netns exec "$NS_A" ping -c 2 -W 1 -i 0.2 "${LAB_IP[b]}" >/dev/null || fail "LNXA cannot reach LNXB"
ip netns exec "$NS_C" ping -c 1 -W 1 "${LAB_IP[a]}" >/dev/null && fail "uncoupled LNXC reached LNXA"
echo "ok: coupled guests reach the server and each other; LNXC is not coupled"

echo "== queries"
cp SET VSWITCH CCBVSW1 COUNTERS CLEAR
ip netns exec "$NS_A" ping -c 3 -i 0.2 "${LAB_IP[b]}" >/dev/null || fail "ping LNXA -> LNXB"
golden vswitch_brief QUERY VSWITCH CCBVSW1
golden vswitch_details Q VSW CCBVSW1 DET
golden vswitch_accesslist QUERY VSWITCH CCBVSW1 ACCESSLIST
golden vswitch_active QUERY VSWITCH ALL ACTIVE
golden port_group QUERY PORT GROUP CCBGROUP
golden nic QUERY NIC USERID LNXA
golden nic_details QUERY NIC USERID LNXB F000 DETAILS
golden vmlan QUERY VMLAN
out=$(as_lnxa QUERY VSWITCH CCBVSW1 DETAILS) || fail "LNXA's QUERY VSWITCH rc $?: $out"
got=$(echo "$out" | normalize)
if [ -n "${ZVS_GOLDEN_UPDATE:-}" ]; then printf '%s\n' "$got" >"$GOLDEN/query_vswitch_classg.txt"
else diff -u "$GOLDEN/query_vswitch_classg.txt" <(printf '%s\n' "$got") || fail "class G QUERY VSWITCH differs"; fi
echo "ok: class G sees its own adapter only"
expect_eq "LNXA NIC TX after 3 pings" "$(counter "$(lab_stats)" LNXA tx_packets)" 3
expect_eq "LNXB NIC RX after 3 pings" "$(counter "$(lab_stats)" LNXB rx_packets)" 3

echo "== refused commands change nothing"
before=$(snapshot)
cp_rc 255 DEFINE VSWITCH CCBVSW1 ETHERNET
cp_rc 255 DEFINE VSWITCH NEWVSW QUEUESTORAGE 9M
cp_rc 255 DEFINE VSWITCH NEWVSW GROUP CCBGROUP
cp_rc 255 DEFINE VSWITCH NEWVSW RDEV 28BA
cp_rc 255 DEFINE VSWITCH NEWVSW RDEV 3000
cp_rc 255 SET VSWITCH NOSUCH GRANT LNXC
cp_rc 255 SET VSWITCH CCBVSW1 REVOKE LNXC
cp_rc 255 SET VSWITCH CCBVSW1 GRANT LNXC VLAN 10
cp_rc 255 SET VSWITCH CCBVSW1 GROUP NOSUCH
cp_rc 255 SET PORT GROUP CCBGROUP INTERVAL 0
cp_rc 255 SET PORT GROUP CCBGROUP JOIN 28BA
cp_rc 255 SET PORT GROUP CCBGROUP JOIN 3000
cp_rc 255 SET PORT GROUP CCBGROUP LEAVE 2A00
cp_rc 255 SET PORT GROUP CCBGROUP DELETE
cp_rc 255 SET PORT GROUP CCBGROUP JOIN 1 2 3 4 5 6 7 8 9
cp_rc 255 COUPLE USERID LNXA F000 TO SYSTEM CCBVSW1
cp_rc 255 COUPLE USERID NOBODY F000 TO SYSTEM CCBVSW1
cp_rc 255 UNCOUPLE USERID LNXC F000
cp_rc 255 DETACH NIC USERID LNXA 0700
cp_rc 255 DEFINE NIC USERID LNXA F001
cp_rc 255 DETACH VSWITCH NOSUCH
cp_rc 26 DEFINE VSWITCH
cp_rc 1 FROBNICATE CCBVSW1
cp_rc 2 COUPLE USERID LNXA XYZW TO SYSTEM CCBVSW1
after=$(snapshot)
if [ -n "${ZVS_GOLDEN_UPDATE:-}" ]; then cat "$WORK/refused" >"$GOLDEN/refused.txt"
else diff -u "$GOLDEN/refused.txt" "$WORK/refused" || fail "refused commands answer differently"; fi
[ "$before" = "$after" ] || { diff <(echo "$before") <(echo "$after"); fail "a refused command changed the configuration"; }
echo "ok: 24 refused commands, configuration unchanged"
distributing_is 2 || fail "a refused command disturbed the group"

echo "== ISOLATION and MACPROTECT act on the data plane"
cp SET VSWITCH CCBVSW1 ISOLATION ON
ip netns exec "$NS_A" ping -c 1 -W 1 "${LAB_IP[b]}" >/dev/null && fail "ISOLATION ON: LNXA still reaches LNXB"
ip netns exec "$NS_A" ping -c 1 -W 1 "${LAB_IP[lan]}" >/dev/null || fail "ISOLATION ON: LNXA lost SERVER1"
cp SET VSWITCH CCBVSW1 ISOLATION OFF
ip netns exec "$NS_A" ping -c 1 -W 1 "${LAB_IP[b]}" >/dev/null || fail "ISOLATION OFF: LNXA cannot reach LNXB"
echo "ok: ISOLATION ON stops guest-to-guest traffic only, OFF restores it"
cp SET VSWITCH CCBVSW1 MACPROTECT ON
macs0=$(counter "$(lab_stats)" LNXA tx_discards)
ip -n "$NS_A" link set lnxa-f000 address 02:00:0c:00:0f:ff
ip -n "$NS_B" neigh replace "${LAB_IP[a]}" lladdr 02:00:0c:00:0f:ff dev lnxb-f000 nud permanent
ip netns exec "$NS_A" ping -c 2 -W 1 -i 0.2 "${LAB_IP[b]}" >/dev/null && fail "MACPROTECT ON: a forged MAC got through"
macs1=$(counter "$(lab_stats)" LNXA tx_discards)
[ "$macs1" -ge $((macs0 + 2)) ] || fail "MACPROTECT drops not counted ($macs0 -> $macs1)"
cp SET VSWITCH CCBVSW1 MACPROTECT OFF
ip netns exec "$NS_A" ping -c 1 -W 1 "${LAB_IP[b]}" >/dev/null || fail "MACPROTECT OFF: forged MAC still refused"
ip -n "$NS_A" link set lnxa-f000 address 02:00:0c:00:01:01
LAB_TAPS="a b c" lab_static_arp
echo "ok: MACPROTECT ON drops a forged source MAC ($((macs1 - macs0)) discards), OFF lets it pass"

echo "== UNCOUPLE keeps the guest's interface; REVOKE uncouples"
cp UNCOUPLE USERID LNXA F000
expect_eq "UNCOUPLE" "$out" "NIC F000 is disconnected from VSWITCH SYSTEM CCBVSW1"
ip -n "$NS_A" link show lnxa-f000 >/dev/null || fail "UNCOUPLE removed the guest's interface"
wait_for 10 sh -c "ip -n '$NS_A' link show lnxa-f000 | grep -q NO-CARRIER" || fail "no carrier loss on UNCOUPLE"
ip netns exec "$NS_A" ping -c 1 -W 1 "${LAB_IP[b]}" >/dev/null && fail "uncoupled LNXA reached LNXB"
cp COUPLE USERID LNXA F000 TO SYSTEM CCBVSW1
wait_for 10 ip netns exec "$NS_A" ping -c 1 -W 1 "${LAB_IP[b]}" || fail "re-coupled LNXA cannot reach LNXB"
echo "ok: UNCOUPLE drops the link, the interface stays; COUPLE brings it back"
cp SET VSWITCH CCBVSW1 REVOKE LNXB
expect_eq "REVOKE" "$out" "NIC F000 of LNXB is uncoupled
Command complete"
cp QUERY NIC USERID LNXB
echo "$out" | grep -q "LAN: \* None" || fail "REVOKE left LNXB coupled"
ip netns exec "$NS_A" ping -c 1 -W 1 "${LAB_IP[b]}" >/dev/null && fail "revoked LNXB still reachable"
echo "ok: REVOKE uncoupled LNXB"

echo "== the port group live: LEAVE, JOIN, DISCONNECT, CONNECT"
cp SET PORT GROUP CCBGROUP LEAVE 2902
distributing_is 1 || fail "LEAVE 2902: group still has 2 distributing"
cp SET PORT GROUP CCBGROUP JOIN 2902
wait_for 10 distributing_is 2 || fail "2902 did not return after JOIN"
# The class A fault knobs: 2902 stops sending LACPDUs, the physical switch times it out
# (short timeout: 3 s) and takes it out of the bundle; vswitchd follows; OFF heals it.
cp SET LACP 2902 DROPTX ON
wait_for 8 bundled_is 1 || fail "DROPTX ON: the switch model kept 2902 bundled"
wait_for 5 distributing_is 1 || fail "DROPTX ON: vswitchd still distributes on 2902"
cp SET LACP 2902 DROPTX OFF
wait_for 10 bundled_is 2 || fail "DROPTX OFF: 2902 not bundled again"
wait_for 10 distributing_is 2 || fail "DROPTX OFF: 2902 not distributing again"
echo "ok: SET LACP 2902 DROPTX ON took the member out on both sides, OFF brought it back"
cp SET VSWITCH CCBVSW1 DISCONNECT
cp QUERY VSWITCH CCBVSW1
echo "$out" | grep -q "State: Disconnected" || fail "DISCONNECT not shown"
ip netns exec "$NS_A" ping -c 1 -W 1 "${LAB_IP[lan]}" >/dev/null && fail "DISCONNECT: SERVER1 still reachable"
cp SET VSWITCH CCBVSW1 CONNECT
wait_for 15 distributing_is 2 || fail "CONNECT: the group did not come back"
wait_for 5 ip netns exec "$NS_A" ping -c 1 -W 1 "${LAB_IP[lan]}" || fail "CONNECT: SERVER1 unreachable"
echo "ok: LEAVE/JOIN and DISCONNECT/CONNECT change the running group"

echo "== RDEV failover by command: SWITCHOVER"
cp DEFINE VSWITCH RDEVSW RDEV 2A00 2B00 2C00 NOGROUP
echo "$out" | grep -q "^Warning: VSWITCH RDEVSW RDEV 2C00 cannot be opened: interface osa2c00" ||
  fail "no warning for the device that cannot be opened"
# A device that cannot be opened is retried by every pass, but neither reported again nor
# allowed to make the pass close and reopen the devices that work.
cp SET VSWITCH RDEVSW ISOLATION ON
expect_eq "the next command repeats no warning" "$out" "Command complete"
grep -q "RDEV 2A00 closed" "$WORK/vswitchd.log" && fail "a command bounced the working RDEV 2A00"
cp QUERY VSWITCH RDEVSW
echo "$out" | grep -q "RDEV: 2A00.P00 .*ACTIVE" || fail "2A00 not active on RDEVSW"
cp SET VSWITCH RDEVSW SWITCHOVER
expect_eq "SWITCHOVER" "$out" "VSWITCH SYSTEM RDEVSW uplink switched over to RDEV 2B00"
cp SET VSWITCH RDEVSW UPLINK SWITCHOVER RDEV 2A00
cp_rc 255 SET VSWITCH RDEVSW SWITCHOVER RDEV 2A00
cp_rc 255 SET VSWITCH CCBVSW1 SWITCHOVER
cp DETACH VSWITCH RDEVSW
expect_eq "DETACH VSWITCH" "$out" "VSWITCH SYSTEM RDEVSW is destroyed"

echo "== every running group has its own LACP key, also after another group is deleted"
cp SET PORT GROUP GA LACP ACTIVE
cp SET PORT GROUP GB JOIN 2C00
cp DEFINE VSWITCH SWB GROUP GB
cp SET PORT GROUP GA DELETE
cp SET PORT GROUP GD JOIN 2D00
cp DEFINE VSWITCH SWD GROUP GD
keys=$(vmcp QUERY LACP | grep -o '^PORT GROUP [A-Z]* .*Key: [0-9]*' | awk '{print $3, $NF}' | sort | tr '\n' ' ')
expect_eq "LACP keys of the running groups" "$keys" "CCBGROUP 1 GB 2 GD 3 "
cp DETACH VSWITCH SWB
cp DETACH VSWITCH SWD
cp SET PORT GROUP GB DELETE
cp SET PORT GROUP GD DELETE

echo "== DETACH VSWITCH uncouples its guests; the group can then be deleted"
cp_rc 255 SET PORT GROUP CCBGROUP DELETE
cp DETACH VSWITCH CCBVSW1
cp QUERY NIC USERID LNXA
echo "$out" | grep -q "LAN: \* None" || fail "DETACH VSWITCH left LNXA coupled"
cp SET PORT GROUP CCBGROUP DELETE
cp_rc 0 QUERY PORT GROUP
expect_eq "no group left" "$out" "ZVSLAG1118I No port groups are defined"
echo "== a GRANT's VLANs change a coupled trunk guest at once"
cp DEFINE VSWITCH VLSW NOUPLINK VLAN AWARE
cp SET VSWITCH VLSW GRANT LNXB PORTTYPE TRUNK VLAN 10
cp SET VSWITCH VLSW GRANT LNXC VLAN 20
cp COUPLE USERID LNXB F000 TO SYSTEM VLSW
cp COUPLE USERID LNXC F000 TO SYSTEM VLSW
# This kernel has no VLAN interfaces: LNXB sends 802.1Q frames (VID 20, to LNXC's MAC) on
# a raw socket; the counters say where they went.
send_vid20() {  # send_vid20 COUNT
  ip netns exec "$NS_B" python3 - "$1" <<'PYEOF'
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("lnxb-f000", 0))
frame = (bytes.fromhex("02000c000113" "02000c00010a" "8100" "0014" "88b5") + b"zvs-vid20".ljust(46, b"."))
for _ in range(int(sys.argv[1])):
    s.send(frame)
PYEOF
}
rep=$(lab_stats)
c0=$(counter "$rep" LNXC rx_packets) b0=$(counter "$rep" LNXB tx_discards)
send_vid20 3
rep=$(lab_stats)
expect_eq "LNXC RX before GRANT VLAN 20" "$(counter "$rep" LNXC rx_packets)" "$c0"
expect_eq "LNXB TX discards before GRANT VLAN 20" "$(counter "$rep" LNXB tx_discards)" "$((b0 + 3))"
cp SET VSWITCH VLSW GRANT LNXB VLAN 20
cp QUERY VSWITCH VLSW ACCESSLIST
echo "$out" | grep -q "LNXB      Porttype: Trunk  VLAN: 10 20" || fail "ACCESSLIST does not show VLANs 10 20"
send_vid20 3
rep=$(lab_stats)
expect_eq "LNXC RX after GRANT VLAN 20" "$(counter "$rep" LNXC rx_packets)" "$((c0 + 3))"
expect_eq "LNXB TX discards after GRANT VLAN 20" "$(counter "$rep" LNXB tx_discards)" "$((b0 + 3))"
cp SET VSWITCH VLSW REVOKE LNXB
echo "ok: GRANT VLAN 20 opened VLAN 20 to the coupled trunk guest at once"
echo "PASS: cp_commands"
