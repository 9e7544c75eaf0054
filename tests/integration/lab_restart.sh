#!/usr/bin/env bash
# check: light (LACP fast timeout: both members back within 3 s of the restart; iperf3 at 50 Mbit/s across a crash; 2.3 s of CPU in 20 s)
# Restart after a crash: vswitchd is killed with SIGKILL under traffic and started again.
#   - the namespace guests keep their taps (persistent, adopted by the new process): same
#     interface, ifindex, MAC and address, and a TCP stream (iperf3) across the crash
#     completes and carries data after it;
#   - an external QDIO guest (qdio_peer -r) re-attaches by itself and receives again;
#   - LACP: the switch model expires the dead daemon's members, and both members are
#     distributing again within 3 s of the new process starting (fast timeout), seen from
#     the switch model (show etherchannel summary) and QUERY PORT GROUP;
#   - the monitor file reads to its last complete interval; a torn last group is reported
#     and skipped, and the new process appends after it;
#   - the stale console, attach and monitor-live sockets and the pidfile do not block the
#     start; a second vswitchd beside a live one is refused (pidfile; sockets) and changes
#     nothing;
#   - a console command typed before the crash (INTERVAL OFF) is gone: SYSTEM CONFIG rules;
#   - a tap the new configuration no longer has (LNXB's) is deleted, not leaked;
#   - a clean stop (SIGTERM) deletes the taps, the sockets and the pidfile.
# Bounded: about 30 s, iperf3 at 50 Mbit/s for 16 s.
. "$(dirname "$0")/lacp_lab_lib.sh"
command -v iperf3 >/dev/null || skip "iperf3 missing"
PEER=$BUILD/tools/qdio_peer
PERFKIT=$BUILD/bin/perfkit
[ -x "$PEER" ] && [ -x "$PERFKIT" ] || fail "no $PEER or $PERFKIT (run make)"
PY=/usr/bin/python3

lab_init restart
QSOCK=$WORK/qdio.sock CSOCK=$WORK/console.sock LIVE=$WORK/monitor.live PIDF=$WORK/vswitchd.pid
MON=$WORK/monitor.file
DAEMON_ARGS="-l info -q $QSOCK -k $CSOCK -m $MON -i 1 --monitor-live $LIVE -p $PIDF"
VSWITCHD_ARGS=$DAEMON_ARGS LAB_TAPS="a b" \
  lab_group_start "$ROOT/configs/switchmodel/lab6509.conf" "$ROOT/configs/lab/SYSTEM-GROUP.CONFIG" \
  "$ROOT/configs/lab/USER-QDIO.DIRECT"
wait_for 15 distributing_is 2 || fail "group not up"
wait_for 5 test -s "$PIDF" || fail "no pidfile"
MAC_A=$(ip -n "$NS_A" -br link show lnxa-f000 | awk '{print $3}')
MAC_C=02:00:0c:00:01:13
IFX_A=$(ip -n "$NS_A" -o link show lnxa-f000 | cut -d: -f1)

# A console command that must not survive the crash.
out=$(vmcp SET PORT GROUP ETHGRP INTERVAL OFF) || fail "INTERVAL OFF: $out"
vmcp QUERY PORT GROUP ETHGRP | grep -q "Interval: OFF" || fail "INTERVAL OFF not in effect"

send_a_to_c() {  # three 0x88B5 frames from LNXA to the QDIO guest
  ip netns exec "$NS_A" $PY - "$MAC_C" "$MAC_A" <<'PYEOF'
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("lnxa-f000", 0))
dst = bytes.fromhex(sys.argv[1].replace(":", "")); src = bytes.fromhex(sys.argv[2].replace(":", ""))
for i in range(3):
    s.send(dst + src + b"\x88\xb5" + bytes([i]) * 50)
PYEOF
}

# Traffic: a TCP stream A -> LAN across the crash, and the QDIO guest waiting for frames.
ip netns exec "$NS_LAN" iperf3 -s -1 -D -p 5201 >/dev/null 2>&1
sleep 0.3
ip netns exec "$NS_A" iperf3 -c "${LAB_IP[lan]}" -p 5201 -b 50M -t 16 -i 1 --json >"$WORK/iperf" 2>&1 &
IPERF=$!
ip netns exec "$NS_SW" "$PEER" -s "$QSOCK" -u LNXC -v F000 -m $MAC_C -d "$MAC_A" -n 0 -e 6 -t 40 -r \
  >"$WORK/peer" 2>"$WORK/peer.err" &
PEER_PID=$!
wait_for 5 grep -qx attached "$WORK/peer" || fail "qdio_peer did not attach: $(cat "$WORK/peer.err")"
send_a_to_c
sleep 3
MON_N0=$("$PERFKIT" FCX240 --file "$MON" --all 2>/dev/null | grep -c '^FCX240')

# The crash.
kill -KILL "$VSWITCHD_PID"
wait "$VSWITCHD_PID" 2>/dev/null
OLD_PID=$VSWITCHD_PID
VSWITCHD_PID=
echo "vswitchd $OLD_PID killed with SIGKILL"
for f in "$QSOCK" "$CSOCK" "$LIVE"; do [ -S "$f" ] || fail "no stale socket $f (the test needs one)"; done
[ -s "$PIDF" ] || fail "no stale pidfile"
expect_eq "LNXA's tap after the crash (ifindex)" "$(ip -n "$NS_A" -o link show lnxa-f000 | cut -d: -f1)" "$IFX_A"
ip -n "$NS_A" -br addr show lnxa-f000 | grep -q "${LAB_IP[a]}/24" || fail "LNXA lost its address"
ip -n "$NS_B" link show lnxb-f000 >/dev/null 2>&1 || fail "LNXB's tap went with the crash"

# The monitor file: every complete interval reads; then a torn last group (a write cut
# mid-block) is reported and skipped, never a crash.
"$PERFKIT" FCX240 --file "$MON" --all >"$WORK/mon1" 2>"$WORK/mon1.err" ||
  fail "perfkit after the crash rc $?: $(cat "$WORK/mon1.err")"
MON_N1=$(grep -c '^FCX240' "$WORK/mon1")
[ "$MON_N1" -ge "$MON_N0" ] && [ "$MON_N1" -ge 4 ] || fail "monitor intervals after the crash: $MON_N1 (had $MON_N0)"
echo "ok: the monitor file reads to its last interval after SIGKILL ($MON_N1 intervals)"
SIZE=$(stat -c %s "$MON")
truncate -s $((SIZE - 4096 + 100)) "$MON"  # the last block cut after 100 bytes
"$PERFKIT" FCX240 --file "$MON" --all >"$WORK/mon2" 2>"$WORK/mon2.err"
rc=$?
[ $rc -le 1 ] || fail "perfkit on a torn file: rc $rc"
grep -qi "truncated\|cut short" "$WORK/mon2.err" || fail "torn block not reported: $(cat "$WORK/mon2.err")"
expect_eq "intervals shown from the torn file" "$(grep -c '^FCX240' "$WORK/mon2")" $((MON_N1 - 1))

# A pidfile naming a live vswitchd refuses a start (the "live" one here is a sleeping
# process named vswitchd: the check is by pid and name).
cp "$(command -v sleep)" "$WORK/vswitchd"
"$WORK/vswitchd" 30 &
FAKE=$!
echo "$FAKE" >"$WORK/fake.pid"
ip netns exec "$NS_SW" "$VSWITCHD" -f -c "$ROOT/configs/lab/SYSTEM-GROUP.CONFIG" \
  -u "$ROOT/configs/lab/USER-QDIO.DIRECT" -p "$WORK/fake.pid" >"$WORK/refused0" 2>&1 &&
  fail "started beside a live pidfile"
kill "$FAKE"; wait "$FAKE" 2>/dev/null
grep -q "already running (pid $FAKE" "$WORK/refused0" || fail "pidfile refusal: $(cat "$WORK/refused0")"
echo "ok: a pidfile naming a live vswitchd refuses the start"

# Wait until the switch model has expired the dead daemon's members (3 s short timeout),
# so the re-convergence measured is a real one.
wait_for 8 bundled_is 0 || fail "switch model still bundles a dead daemon's members"

# The restart, from SYSTEM CONFIG, with USER DIRECT without LNXB.
grep -v -e '^USER LNXB' -e 'lnxb-f000' -e 'MACID 00010A' "$ROOT/configs/lab/USER-QDIO.DIRECT" >"$WORK/USER2.DIRECT"
T0=$(date +%s%N)
ip netns exec "$NS_SW" "$VSWITCHD" -f -c "$ROOT/configs/lab/SYSTEM-GROUP.CONFIG" -u "$WORK/USER2.DIRECT" \
  -s "$WORK/stats" $DAEMON_ARGS >"$WORK/vswitchd.log" 2>&1 &
VSWITCHD_PID=$!
converged() {
  [ "$(bundled_members)" = 2 ] &&
    vmcp QUERY PORT GROUP ETHGRP 2>/dev/null | grep -q "Distributing: 2"
}
for _ in $(seq 200); do converged && break; sleep 0.05; done
T1=$(date +%s%N)
converged || fail "LACP did not re-converge in 10 s"
MS=$(( (T1 - T0) / 1000000 ))
echo "re-converged: both members bundled (switch model) and distributing (QUERY PORT GROUP) $MS ms after the new process started"
[ "$MS" -le 3000 ] || fail "re-convergence took $MS ms (want <= 3000)"
kill -0 "$VSWITCHD_PID" 2>/dev/null || fail "the new vswitchd exited"
grep -q "tap lnxa-f000 adopted" "$WORK/vswitchd.log" || fail "lnxa-f000 not adopted"
grep -q "tap lnxb-f000: left by a previous vswitchd, no NIC of the configuration uses it: deleted" \
  "$WORK/vswitchd.log" || fail "lnxb-f000 not purged"
ip -n "$NS_B" link show lnxb-f000 >/dev/null 2>&1 && fail "lnxb-f000 left behind"
echo "ok: LNXA's tap adopted, LNXB's (gone from USER DIRECT) deleted"
pidfile_is_new() { [ "$(cat "$PIDF" 2>/dev/null)" = "$VSWITCHD_PID" ]; }   # re-read on every try
wait_for 5 pidfile_is_new || fail "pidfile not rewritten"
out=$(vmcp QUERY PORT GROUP ETHGRP) || fail "QUERY PORT GROUP after restart"
echo "$out" | grep -q "Interval: 30" || fail "INTERVAL OFF survived the restart: $out"
echo "ok: the console's INTERVAL OFF did not survive; SYSTEM CONFIG's INTERVAL 30 rules"

# The guest's interface is the same one.
expect_eq "LNXA's tap ifindex after the restart" "$(ip -n "$NS_A" -o link show lnxa-f000 | cut -d: -f1)" "$IFX_A"
expect_eq "LNXA's MAC after the restart" "$(ip -n "$NS_A" -br link show lnxa-f000 | awk '{print $3}')" "$MAC_A"
ip netns exec "$NS_A" ping -c 2 -W 2 -i 0.2 "${LAB_IP[lan]}" >/dev/null || fail "ping LNXA -> LAN after restart"

# The QDIO guest re-attached by itself and receives again.
wait_for 10 grep -qx reattached "$WORK/peer" || fail "qdio_peer did not re-attach: $(cat "$WORK/peer.err")"
send_a_to_c
wait "$PEER_PID" || fail "qdio_peer: $(cat "$WORK/peer" "$WORK/peer.err")"
expect_eq "QDIO guest" "$(tail -n 1 "$WORK/peer")" "sent 0 received 6 reattached 1"

# A second vswitchd beside the live one: refused by its live sockets, nothing changed.
ip netns exec "$NS_SW" timeout 10 "$VSWITCHD" -f -c "$ROOT/configs/lab/SYSTEM-GROUP.CONFIG" \
  -u "$WORK/USER2.DIRECT" -l info -q "$QSOCK" -k "$CSOCK" >"$WORK/refused1" 2>&1 &&
  fail "a second vswitchd started on live sockets"
grep -q "Address already in use" "$WORK/refused1" || fail "second start: $(cat "$WORK/refused1")"
vmcp QUERY PORT GROUP ETHGRP | grep -q "Distributing: 2" || fail "the live daemon was disturbed"
echo "ok: a second vswitchd on live sockets is refused"

# The TCP stream survived the crash and carried data after the restart.
wait "$IPERF" || fail "iperf3 lost its connection across the restart: $(tail -5 "$WORK/iperf")"
$PY - "$WORK/iperf" <<'PYEOF' || fail "TCP stream after the restart"
import json, sys
r = json.load(open(sys.argv[1]))
iv = [i["sum"]["bytes"] for i in r["intervals"]]
print("iperf3 bytes per second:", iv)
sys.exit(0 if len(iv) >= 15 and iv[-1] > 0 and iv[-2] > 0 else 1)
PYEOF
echo "ok: the TCP stream across the crash completed and carried data after the restart"

# The monitor file after the restart: the torn group is skipped, old and new intervals read.
# (The new process has written an interval a second since the restart, seconds ago: waited
# for, bounded, rather than a fixed 2.2 s.)
intervals_after_restart() {
  [ "$("$PERFKIT" FCX240 --file "$MON" --all 2>/dev/null | grep -c '^FCX240')" -ge $((MON_N1 + 1)) ]
}
wait_for 5 intervals_after_restart
"$PERFKIT" FCX240 --file "$MON" --all >"$WORK/mon3" 2>"$WORK/mon3.err"
rc=$?
[ $rc -le 1 ] || fail "perfkit after the restart rc $rc"
n3=$(grep -c '^FCX240' "$WORK/mon3")
[ "$n3" -ge $((MON_N1 + 1)) ] || fail "intervals after the restart: $n3 (before $((MON_N1 - 1)))"
grep -qi "offset" "$WORK/mon3.err" || fail "the torn group is not reported after the restart"
echo "ok: the monitor file holds $n3 intervals across the restart; the torn group: $(head -n 1 "$WORK/mon3.err")"

# A clean stop deletes what it made: taps (wherever they are), sockets, pidfile.
kill -TERM "$VSWITCHD_PID"
wait "$VSWITCHD_PID"; rc=$?
VSWITCHD_PID=
expect_eq "vswitchd exit status after SIGTERM" "$rc" 0
ip -n "$NS_A" link show lnxa-f000 >/dev/null 2>&1 && fail "a clean stop left LNXA's tap"
for f in "$QSOCK" "$CSOCK" "$LIVE" "$PIDF"; do [ -e "$f" ] && fail "a clean stop left $f"; done
echo "ok: a clean stop deleted the taps, the sockets and the pidfile"
echo "lab_restart: passed (re-convergence $MS ms)"
