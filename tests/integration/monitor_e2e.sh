#!/usr/bin/env bash
# check: alone (monitor rates within 3 %)
# Monitor records end to end: vswitchd (-m, 2 s interval) with a two-port group against
# the switch model; a guest sends a UDP stream of a known rate to a server; perfkit reads
# the monitor file and its FCX240 (per OSA device) and FCX269 (per NIC) rates match the
# stream; then a TCP stream, whose 64 KB TSO super-frames cross the switch whole, shows on
# FCX240 as the frames the wire carries (at most MTU + 18 bytes a packet, issue 15); its
# CSV and JSON carry the same numbers, and the chart and HTML report are made;
# a live reader on --monitor-live gets new intervals as they are written.
# A corrupted copy of the file still shows every other interval, with an error naming the
# offset.
. "$(dirname "$0")/lacp_lab_lib.sh"
command -v iperf3 >/dev/null || skip "iperf3 missing"
PERFKIT=$BUILD/bin/perfkit
[ -x "$PERFKIT" ] || fail "no $PERFKIT"
lab_init monitor
sed '/rate-limit/d' "$ROOT/configs/switchmodel/lab6509.conf" >"$WORK/sm.conf"
MON=$WORK/monitor.file
VSWITCHD_ARGS="-l info -m $MON -i 2 --monitor-live $WORK/monitor.live" LAB_TAPS="a b" \
  lab_group_start "$WORK/sm.conf" "$ROOT/configs/lab/SYSTEM-GROUP.CONFIG" "$ROOT/configs/lab/USER.DIRECT"
wait_for 15 distributing_is 2 || fail "group not up"
# Intervals in the monitor file; sampled_after N: one more than N, so a sample was written
# after the stream that just ended (its tail is in it). Waited for, not slept for (2.5 s).
intervals() { "$PERFKIT" FCX240 --file "$MON" --all 2>/dev/null | grep -c '^FCX240'; }
sampled_after() { [ "$(intervals)" -gt "$1" ]; }
LAB_TAPS="a b" lab_static_arp
ip netns exec "$NS_LAN" iperf3 -s -1 -D >/dev/null 2>&1
sleep 0.5
# 40 Mbit/s of UDP payload in 1400-byte datagrams: 3571.4 datagrams/s, each a 1442-byte
# frame on the wire (14 Ethernet + 20 IP + 8 UDP headers): 5.15 MB/s of frames.
ip netns exec "$NS_A" iperf3 -u -c "${LAB_IP[lan]}" -b 40M -l 1400 -t 9 >"$WORK/iperf" 2>&1 ||
  fail "iperf3: $(tail -3 "$WORK/iperf")"
n=$(intervals)
wait_for 5 sampled_after "$n" || fail "no monitor sample after the UDP stream"
kill -0 "$VSWITCHD_PID" || fail "vswitchd died"

"$PERFKIT" FCX240 --file "$MON" --all >"$WORK/fcx240" || fail "perfkit FCX240 rc $?"
"$PERFKIT" FCX269 --file "$MON" --all >"$WORK/fcx269" || fail "perfkit FCX269 rc $?"
sed -n '1,12p' "$WORK/fcx240"
# The busiest interval: the System row is the mean of the two OSA rows, so the stream's
# rate is the sum of the device rows' T_Pack.
best=$(awk '/^[0-9A-F][0-9A-F][0-9A-F][0-9A-F] LABVSW1/ { n++; s += $7 }
            /^FCX240/ { if (s > m) m = s; s = 0 } END { if (s > m) m = s; print m }' "$WORK/fcx240")
echo "highest outbound packet rate over both OSA ports: $best/s (sent 3571/s)"
awk -v p="$best" 'BEGIN { exit !(p >= 3571 * 0.97 && p <= 3571 * 1.03) }' ||
  fail "FCX240 outbound packets/s $best, the stream was 3571/s"
echo "ok: FCX240 shows the stream's rate on the OSA ports"
nic=$(awk '$3 == "LABVSW1" && $4 == "LNXA" { v = $11 + 0; if (v > m) m = v } END { print m }' "$WORK/fcx269")
echo "LNXA outbound packets/s in FCX269: $nic"
awk -v p="$nic" 'BEGIN { exit !(p >= 3571 * 0.97 && p <= 3571 * 1.03) }' ||
  fail "FCX269 LNXA packets/s $nic, the stream was 3571/s"
echo "ok: FCX269 shows the guest's rate"

# A TCP stream: LNXA's stack hands its tap TSO super-frames of up to 64 KB, which cross the
# switch whole; the OSA ports count the frames the wire carries (dataplane/wire.h), so no
# FCX240 row shows more than MTU + 18 bytes a packet (a full tagged frame without FCS; the
# lab's MTU is lab_group_start's 1500). Counted as one packet each, a super-frame showed
# about 50 KB a packet. Rates from the CSV: unrounded, unlike the screen's k and M.
MTU=1500
# The live stream (checked below) is read meanwhile: a reader on the socket gets each new
# interval as it is written, and perfkit --live renders it (stdin). It runs 7 s, beside
# the TCP stream, which no rate is judged on.
timeout 7 python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
while True:
    b = s.recv(65536)
    if not b:
        break
    sys.stdout.buffer.write(b)
    sys.stdout.buffer.flush()
' "$WORK/monitor.live" | timeout 8 "$PERFKIT" FCX240 --live >"$WORK/live.out" 2>"$WORK/live.err" &
LIVE=$!
ip netns exec "$NS_LAN" iperf3 -s -1 -D >/dev/null 2>&1
sleep 0.5
ip netns exec "$NS_A" iperf3 -c "${LAB_IP[lan]}" -t 5 >"$WORK/iperf-tcp" 2>&1 ||
  fail "iperf3 TCP: $(tail -3 "$WORK/iperf-tcp")"
n=$(intervals)
wait_for 5 sampled_after "$n" || fail "no monitor sample after the TCP stream"
"$PERFKIT" FCX240 --file "$MON" --all --csv >"$WORK/fcx240.csv" || fail "perfkit FCX240 --csv rc $?"
awk -F, -v lim=$((MTU + 18)) '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { for (d = 0; d < 2; d++) {
        b = $(col[d ? "r_byte" : "t_byte"]); p = $(col[d ? "r_pack" : "t_pack"])
        if (p > 0 && b / p > worst) { worst = b / p; where = $(col["addr"]) " " $(col["end"]) }
        if (b > top) { top = b; top_p = p } } }
    END { printf "TCP stream: busiest OSA row %.0f bytes/s in %.0f packets/s; " \
                 "most bytes a packet %.1f (%s), limit %d\n", top, top_p, worst, where, lim
          exit !(top > 1e6 && worst <= lim) }' "$WORK/fcx240.csv" ||
  fail "FCX240 shows more than MTU + 18 bytes a packet, or no TCP stream"
echo "ok: FCX240 counts the TCP stream's frames on the wire"

"$PERFKIT" FCX240 --file "$MON" --index 1 --csv >"$WORK/csv" || fail "csv"
"$PERFKIT" FCX240 --file "$MON" --index 1 --json >"$WORK/json" || fail "json"
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$WORK/json" || fail "JSON does not parse"
[ "$(wc -l <"$WORK/csv")" -ge 3 ] || fail "CSV too short"
"$PERFKIT" chart --file "$MON" --svg "$WORK/chart.svg" || fail "chart"
grep -q "<polyline" "$WORK/chart.svg" || fail "no series in the chart"
"$PERFKIT" report --file "$MON" --html "$WORK/report.html" || fail "report"
grep -q "FCX240" "$WORK/report.html" && grep -q "<svg" "$WORK/report.html" || fail "report content"
echo "ok: CSV, JSON, SVG chart and HTML report"

# Navigation as a terminal user drives it: next, next, previous, quit.
printf 'n\nn\np\nq\n' | "$PERFKIT" FCX240 --file "$MON" --nav >"$WORK/nav" 2>&1 || fail "perfkit --nav"
grep '^FCX240' "$WORK/nav" | awk '{ print $6 }' >"$WORK/nav.starts"
[ "$(sed -n 2p "$WORK/nav.starts")" \> "$(sed -n 1p "$WORK/nav.starts")" ] &&
  [ "$(sed -n 4p "$WORK/nav.starts")" = "$(sed -n 2p "$WORK/nav.starts")" ] ||
  fail "navigation did not move next, next, previous: $(tr '\n' ' ' <"$WORK/nav.starts")"
echo "ok: interval navigation (n, n, p)"
"$PERFKIT" PGROUP --file "$MON" --all | grep -q "^ETHGRP   LABVSW1  28BA" || fail "PGROUP screen"

# The live stream, read since the TCP stream began.
wait $LIVE
n=$(grep -c '^FCX240' "$WORK/live.out")
[ "$n" -ge 2 ] || fail "perfkit --live showed $n screens in 6 s of 2 s intervals: $(cat "$WORK/live.err")"
grep -q "^28BA LABVSW1" "$WORK/live.out" || fail "live screen has no 28BA row"
echo "ok: the live stream reached perfkit --live ($n screens)"

# Corruption: one byte of the second group's control block; the rest still reads.
cp "$MON" "$WORK/bad.file"
printf '\xff' | dd of="$WORK/bad.file" bs=1 seek=$((4096 * 2 + 20)) conv=notrunc 2>/dev/null
"$PERFKIT" FCX240 --file "$WORK/bad.file" --all >"$WORK/bad.out" 2>"$WORK/bad.err"
rc=$?
[ $rc -eq 1 ] || fail "perfkit on a corrupt file: rc $rc (want 1: data error, output made)"
grep -q "offset" "$WORK/bad.err" || fail "no offset in the error: $(cat "$WORK/bad.err")"
[ "$(grep -c '^FCX240' "$WORK/bad.out")" -ge 2 ] || fail "other intervals lost"
echo "ok: a corrupt group is reported ($(head -1 "$WORK/bad.err")) and the rest is shown"
