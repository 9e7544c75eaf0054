#!/usr/bin/env bash
# check: alone (a connection flood beside forwarding; a browser and Prometheus against 1 s intervals)
# perfkit serve on a running vswitchd's live stream, as its users use it: vswitchd (1 s
# monitor interval, --monitor-live) with a two-port LACP group against the switch model;
# known traffic (N pings from LNXA to the LAN host, exactly 4 MiB over TCP); then
#  - /metrics: promtool passes; LNXA's NIC counted exactly the frames sent and received,
#    and the group's OSA ports the same (LACPDUs and Markers, counted apart, taken out);
#    the 4 MiB show as 4 MiB plus headers (at most 10 %) on LNXA's NIC; EVENTS shows a NIC
#    uncoupled and coupled on the console;
#  - headless Chromium reads the menu and every screen; FCX240's and FCX269's cells are the
#    fields `perfkit SCREEN --file` prints for the same interval of vswitchd's file; new
#    figures one interval later; a chart changes without a reload; screenshots in
#    $BUILD/web-lab/ for a person to look at (web_browser.py);
#  - a real Prometheus scrapes perfkit serve and every expression of the Grafana dashboard
#    (configs/grafana/zvswitch-fcx240.json) returns data (web_prom.py);
#  - a flood of connections is refused and counted while pings through vswitchd go on
#    without loss.
. "$(dirname "$0")/lacp_lab_lib.sh"
PERFKIT=$BUILD/bin/perfkit
[ -x "$PERFKIT" ] || fail "no $PERFKIT"
command -v iperf3 >/dev/null || skip "iperf3 missing"
N=20                                     # pings
lab_init web
sed '/rate-limit/d' "$ROOT/configs/switchmodel/lab6509.conf" >"$WORK/sm.conf"
MON=$WORK/monitor.file LIVE=$WORK/monitor.live
VSWITCHD_ARGS="-l info -m $MON -i 1 --monitor-live $LIVE -k $WORK/console.sock" LAB_TAPS="a b" \
  lab_group_start "$WORK/sm.conf" "$ROOT/configs/lab/SYSTEM-GROUP.CONFIG" "$ROOT/configs/lab/USER.DIRECT"
wait_for 15 distributing_is 2 || fail "group not up"
LAB_TAPS="a b" lab_static_arp
wait_for 5 test -S "$LIVE" || fail "no live socket"

"$PERFKIT" serve --live "$LIVE" --listen 127.0.0.1:0 >"$WORK/serve.out" 2>&1 &
SERVE_PID=$!
serve_stop() { kill "$SERVE_PID" 2>/dev/null; wait "$SERVE_PID" 2>/dev/null; }
trap 'rc=$?; serve_stop; (exit $rc); lab_cleanup' EXIT
wait_for 5 grep -q serving "$WORK/serve.out" || fail "perfkit serve: $(cat "$WORK/serve.out")"
URL=$(sed -n 's/.*serving \(http:[^ ]*\) .*/\1/p' "$WORK/serve.out")
HOSTPORT=${URL#http://}; HOSTPORT=${HOSTPORT%/}
echo "perfkit serve at $URL"

scrape() { curl -sf "${URL}metrics" >"$1" || fail "GET /metrics"; }
samples() { curl -sf "${URL}metrics" | awk '/^zvswitch_monitor_samples_total/ { print $2 }'; }
# val FILE METRIC MATCH: the sum of METRIC's series whose labels contain MATCH.
val() { awk -v m="$2{" -v s="$3" 'index($0, m) == 1 && index($0, s) { t += $NF } END { print t + 0 }' "$1"; }
# after COUNT: waits until perfkit serve has read COUNT more samples than now.
after() { local s0; s0=$(samples); wait_for 10 sh -c "[ \"\$(curl -sf '${URL}metrics' | awk '/^zvswitch_monitor_samples_total/ { print \$2 }')\" -ge $((s0 + $1)) ]" ||
            fail "perfkit serve read no new sample"; }
# A real Prometheus scraping perfkit serve from now on, beside the rest of the lab (it
# waits seconds for its scrapes, with little CPU); its result is read after the browser's.
python3 "$ROOT/tests/integration/web_prom.py" "$HOSTPORT" "$ROOT/configs/grafana/zvswitch-fcx240.json" \
  "$WORK/prom" 25 >"$WORK/prom.out" 2>&1 &
PROM=$!
after 2

# Known traffic: N pings LNXA -> LAN host.
scrape "$WORK/m0"
ip netns exec "$NS_A" ping -c $N -i 0.05 -W 2 "${LAB_IP[lan]}" >"$WORK/ping" ||
  fail "ping: $(tail -2 "$WORK/ping")"
after 2                                   # a whole interval after the last reply
scrape "$WORK/m1"
NIC='userid="LNXA"' GRP='group="ETHGRP"'
d() { echo $(( $(val "$WORK/m1" "$1" "$2") - $(val "$WORK/m0" "$1" "$2") )); }
expect_eq "LNXA transmit packets rose by" "$(d zvswitch_nic_transmit_packets_total "$NIC")" $N
expect_eq "LNXA receive packets rose by" "$(d zvswitch_nic_receive_packets_total "$NIC")" $N
lacp_tx=$(( $(d zvswitch_lacp_lacpdus_sent_total "$GRP") + $(d zvswitch_lacp_markers_sent_total "$GRP") ))
lacp_rx=$(( $(d zvswitch_lacp_lacpdus_received_total "$GRP") + $(d zvswitch_lacp_marker_responses_received_total "$GRP") + $(d zvswitch_lacp_marker_requests_received_total "$GRP") ))
tx=$(d zvswitch_uplink_transmit_packets_total "$GRP") rx=$(d zvswitch_uplink_receive_packets_total "$GRP")
echo "OSA ports: transmit +$tx, receive +$rx; LACP/Marker PDUs in the same time: sent $lacp_tx, received $lacp_rx"
[ "$tx" -eq $N ] || [ "$tx" -eq $((N + lacp_tx)) ] || fail "OSA ports sent $tx frames, the test $N (PDUs $lacp_tx)"
[ "$rx" -eq $N ] || [ "$rx" -eq $((N + lacp_rx)) ] || fail "OSA ports received $rx frames, the test $N (PDUs $lacp_rx)"
echo "ok: the OSA ports counted the $N requests and $N replies"
if command -v promtool >/dev/null; then
  promtool check metrics <"$WORK/m1" || fail "promtool: $(promtool check metrics <"$WORK/m1" 2>&1 | head -3)"
  echo "ok: promtool check metrics"
else
  fail "promtool missing (Debian's prometheus; make deps)"
fi
grep -q "system=\"[A-Z0-9@#\$?-]\{1,8\}\"" "$WORK/m1" || fail "no system label"

# A bounded TCP transfer: exactly 4 MiB LNXA -> LAN host, all of it read by the server
# before the client closes (a sink that counts to EOF, then closes its side).
SINK_PORT=5299
ip netns exec "$NS_LAN" python3 -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", int(sys.argv[1]))); s.listen(1); s.settimeout(10)
c, _ = s.accept(); c.settimeout(10); n = 0
while True:
    b = c.recv(1 << 16)
    if not b: break
    n += len(b)
open(sys.argv[2], "w").write(str(n)); c.close()' "$SINK_PORT" "$WORK/sink.count" &
SINK=$!
sleep 0.3
ip netns exec "$NS_A" python3 -c '
import socket, sys
c = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
c.sendall(bytes(4 << 20)); c.shutdown(socket.SHUT_WR)
while c.recv(1 << 16): pass' "${LAB_IP[lan]}" "$SINK_PORT" || fail "the TCP transfer failed"
wait "$SINK" || fail "the TCP sink failed"
got=$(cat "$WORK/sink.count")
expect_eq "bytes the LAN host received" "$got" $((4 << 20))
sent_bytes() {
  scrape "$WORK/m2"
  b=$(( $(val "$WORK/m2" zvswitch_nic_transmit_bytes_total "$NIC") - $(val "$WORK/m1" zvswitch_nic_transmit_bytes_total "$NIC") ))
  [ "$b" -ge "$got" ] && [ "$b" -le $((got * 11 / 10)) ]  # headers: about 5 % at MTU 1500
}
for _ in $(seq 25); do sent_bytes && break; sleep 0.2; done
sent_bytes || fail "LNXA's NIC counted $b bytes; the LAN host received $got bytes of TCP payload (want at most 10 % more)"
echo "ok: the TCP transfer shows: LNXA +$b bytes on the wire for $got bytes received"

# NIC link events for EVENTS (the stream began after vswitchd's own): LNXC's NIC (no
# guest behind it) uncoupled and coupled again, as an operator does on the console.
vmcp UNCOUPLE USERID LNXC F000 >/dev/null || fail "UNCOUPLE LNXC"
wait_for 5 sh -c "curl -sf '${URL}EVENTS' | grep -q 'link down'" || fail "EVENTS shows no link down"
vmcp COUPLE USERID LNXC F000 TO SYSTEM LABVSW1 >/dev/null || fail "COUPLE LNXC"
wait_for 5 sh -c "curl -sf '${URL}EVENTS' | grep -q 'link up'" || fail "EVENTS shows no link up"
echo "ok: EVENTS shows LNXC's NIC going down and up"

OUT=$BUILD/web-lab
rm -rf "$OUT"
/usr/bin/python3 "$ROOT/tests/integration/web_browser.py" "$URL" "$MON" "$PERFKIT" "$OUT" 1 >"$WORK/browser.out" 2>&1
brc=$?
cat "$WORK/browser.out"
wait "$PROM"; prc=$?
cat "$WORK/prom.out"
[ $brc -eq 0 ] || fail "the browser's checks failed (rc $brc)"
[ $prc -eq 0 ] || fail "Prometheus' checks failed (rc $prc)"
echo "ok: screenshots in $OUT: $(cd "$OUT" && ls | tr '\n' ' ')"

# A flood of connections beside forwarding: pings through vswitchd lose nothing.
python3 "$ROOT/tests/integration/web_flood.py" 127.0.0.1 "${HOSTPORT##*:}" 1.5 150 2 >"$WORK/flood" &
FLOOD=$!
sleep 0.2
ip netns exec "$NS_A" ping -c $N -i 0.05 -W 2 "${LAB_IP[lan]}" >"$WORK/ping2" ||
  fail "forwarding during the flood: $(tail -2 "$WORK/ping2")"
wait "$FLOOD"
cat "$WORK/flood"
grep -q " 0% packet loss" "$WORK/ping2" || fail "loss during the flood: $(tail -2 "$WORK/ping2")"
echo "ok: forwarding went on during the flood ($(grep -o '[0-9]* received' "$WORK/ping2"))"
kill -0 "$VSWITCHD_PID" || fail "vswitchd died"
wait_for 12 sh -c "curl -sf -o /dev/null '$URL'" || fail "perfkit serve does not answer after the flood"
scrape "$WORK/m3"
c=$(val "$WORK/m3" zvswitch_web_requests_refused_total 'reason="connections"')
[ "$c" -gt 0 ] || fail "the flood's refused connections were not counted"
echo "ok: $c connections refused and counted; perfkit serve answers after the flood"
echo "web_lab: ok"
