#!/usr/bin/env bash
# make demo: the zvswitch lab, the measurement report's group scenario in about two minutes.
#
# The switch model plays the report's Catalyst 6509 (configs/switchmodel/lab6509.conf):
# Gi2/23 and Gi2/24 in channel-group 1 mode active, 1 Gbit/s each, two servers on access
# ports. vswitchd starts from configs/lab/SYSTEM-CCB.CONFIG and USER-CCB.DIRECT: only the
# OSA ports' interfaces and the guests LNXA, LNXB, LNXC (their NICs are taps moved into
# their own namespaces) are known. The operator then types the report's commands through
# vmcp: port group CCBGROUP (OSA ports 28BA and 2902, LACP ACTIVE), VSWITCH CCBVSW1 on it,
# grants and couples, and looks at QUERY VSWITCH ... DETAILS and QUERY PORT GROUP. The demo
# shows the negotiation, traffic spread over both OSA ports, one load-balancing pass
# (INTERVAL shortened to 5 s for the demo), a port failure absorbed under load, and ends
# with the Performance Toolkit screens FCX240 and FCX269 of the run (monitor records
# sampled every 5 s) plus an SVG chart and an HTML report written under build/demo/.
# Two mainframe guests join CCBVSW1 right after the group is up (XAUTOLOG: Hercules s390
# machines whose LCS NICs are coupled like any NIC): FP1, the standalone frame program,
# up in a second and shown in the flow; LNX1, Debian s390x Linux, whose boot (about a
# minute, a core of its own) runs behind the story and is shown at the end: it pings
# SERVER1 through the port group and moves a TCP stream across it.
# Everything it makes is removed when it ends.
. "$(cd "$(dirname "$0")/../.." && pwd)/tests/integration/lacp_lab_lib.sh"

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
indent() { sed 's/^/    /'; }
group_block() { sed -n '/^PORT GROUP/,/^  MAC table/p' "$(lab_stats)" | grep -v "MAC table"; }
rdev_tx() {  # RDEV: its TX bytes (to the physical switch)
  counter "$(lab_stats)" "$1" tx_bytes
}

lab_init demo
say "The physical switch: the switch model as the report's Catalyst 6509"
grep -E '^(hostname|port-channel|interface|  *(attach|channel-group|lacp rate|rate-limit))' \
  "$ROOT/configs/switchmodel/lab6509.conf" | indent
say "vswitchd starts from configs/lab/SYSTEM-CCB.CONFIG: the OSA ports, nothing else"
grep -E '^(VMLAN|SET|DEFINE|MODIFY|RDEVICE)' "$ROOT/configs/lab/SYSTEM-CCB.CONFIG" | indent
# The servers' MACs end in 01 and 03: both odd, so both flows start on the same OSA port
# and the load-balancing pass has something to fix.
MON=$WORK/monitor.file
# The report's guests plus two Hercules machines (guests/README.md), their NICs uncoupled
# until the operator couples them, as the report's guests'.
FP1_IP=10.77.0.50 LNX1_IP=10.77.0.60
{ cat "$ROOT/configs/lab/USER-CCB.DIRECT"
  printf 'USER LNX1 PW 256M 256M G\n  IPL LINUX\n  GUESTIP %s/24\n  NICDEF 0600 TYPE QDIO\n  NICBIND 0600 LCS 0600\n' "$LNX1_IP"
  printf 'USER FP1 PW 16M 16M G\n  IPL FRAMEPROG\n  GUESTIP %s/24\n  NICDEF 0600 TYPE QDIO\n  NICBIND 0600 LCS 0600\n' "$FP1_IP"
} >"$WORK/USER.DIRECT"
herc_pids() { sed -n 's/.*XAUTOLOG \([A-Z0-9]*\) by .*Hercules pid \([0-9]*\),.*/\2/p' "$WORK/vswitchd.log"; }
demo_cleanup() {  # no Hercules outlives the demo, whatever happens
  local s=$? p
  [ -f "$WORK/vswitchd.log" ] && for p in $(herc_pids); do kill -KILL "$p" 2>/dev/null; done
  (exit $s)
  lab_cleanup
}
trap demo_cleanup EXIT
FPPEER="python3 $ROOT/tests/integration/frameprog_peer.py"
LXPEER="python3 $ROOT/tests/integration/linuxguest_peer.py"
LAN_MAC1=02:00:0a:00:00:01 LAN_MAC2=02:00:0a:00:00:03 \
  VSWITCHD_ARGS="-l info -m $MON -i 5 -k $WORK/console.sock --test-interval 5 \
--guest-images $BUILD/guests --guest-dir $WORK/guests" \
  lab_group_start "$ROOT/configs/switchmodel/lab6509.conf" "$ROOT/configs/lab/SYSTEM-CCB.CONFIG" \
  "$WORK/USER.DIRECT"
wait_for 5 test -S "$WORK/console.sock" || fail "no console"
# INTERVAL 30 as the report typed it; vswitchd runs the passes every 5 s for the demo
# (--test-interval, ours: CP rounds INTERVAL up to a multiple of 30 s).
say "The operator types the report's commands (vmcp; vswitchd --test-interval 5 balances every 5 s)"
for c in "SET PORT GROUP CCBGROUP JOIN 28BA 2902" "SET PORT GROUP CCBGROUP INTERVAL 30" \
         "DEFINE VSWITCH CCBVSW1 ETHERNET GROUP CCBGROUP QUEUESTORAGE 1M" \
         "SET VSWITCH CCBVSW1 GRANT LNXA" "SET VSWITCH CCBVSW1 GRANT LNXB" \
         "SET VSWITCH CCBVSW1 GRANT LNXC" "COUPLE USERID LNXA F000 TO SYSTEM CCBVSW1" \
         "COUPLE USERID LNXB F000 TO SYSTEM CCBVSW1" "COUPLE USERID LNXC F000 TO SYSTEM CCBVSW1"; do
  printf '    vmcp %s\n' "$c"
  out=$(vmcp "$c") || fail "$c: $out"
  echo "$out" | indent | indent
done
t0=$SECONDS
wait_for 20 distributing_is 2 || fail "the port group did not come up"
say "LACP negotiated in about $((SECONDS - t0)) s (802.1AX waits 2 s before aggregating)"
echo "  The physical switch's view:"
sm show etherchannel summary | tail -n 2 | indent
sm show lacp neighbor | tail -n 3 | indent
say "Two mainframe guests: Hercules s390 machines XAUTOLOGged onto CCBVSW1"
echo "  LNX1 IPLs Debian s390x Linux (its boot takes about a minute and a core, behind the"
echo "  rest of the story); FP1 IPLs the standalone frame program (up in a second)."
for c in "SET VSWITCH CCBVSW1 GRANT LNX1" "SET VSWITCH CCBVSW1 GRANT FP1" \
         "COUPLE USERID LNX1 0600 TO SYSTEM CCBVSW1" "COUPLE USERID FP1 0600 TO SYSTEM CCBVSW1" \
         "XAUTOLOG LNX1" "XAUTOLOG FP1"; do
  printf '    vmcp %s\n' "$c"
  out=$(vmcp "$c") || fail "$c: $out"
  echo "$out" | indent | indent
done
T_LNX1=$EPOCHREALTIME
# SERVER1 pings LNX1 every second from now: its first answer times the boot.
ip netns exec "$NS_LAN" ping -D -n -i 1 -W 1 -c 400 "$LNX1_IP" >"$WORK/lnx1.ping" 2>&1 &
LNX1_PING=$!
say "vmcp QUERY VSWITCH CCBVSW1 DETAILS"
vmcp QUERY VSWITCH CCBVSW1 DETAILS | indent   # IBM's layout; the LACP report is QUERY LACP's
say "vmcp QUERY PORT GROUP"
vmcp QUERY PORT GROUP | indent

say "Guests and servers"
for g in a b c; do
  v=NS_${g^^}
  printf '    LNX%s     %-12s %s\n' "${g^^}" "${LAB_IP[$g]}" "$(ip -n "${!v}" -br link show "lnx$g-f000" | awk '{print $3}')"
done
printf '    SERVER1  %-12s %s  (behind the port channel, Gi3/1)\n' "${LAB_IP[lan]}" 02:00:0a:00:00:01
printf '    SERVER2  %-12s %s  (Gi3/2)\n' "${LAB_IP[lan2]}" 02:00:0a:00:00:03
lab_static_arp
ip netns exec "$NS_B" ip neigh replace "${LAB_IP[lan2]}" lladdr 02:00:0a:00:00:03 dev lnxb-f000 nud permanent
ip netns exec "$NS_LAN2" ip neigh replace "${LAB_IP[b]}" lladdr \
  "$(ip -n "$NS_B" -br link show lnxb-f000 | awk '{print $3}')" dev eth0 nud permanent

say "ping LNXA -> LNXB (guest to guest, stays inside the switch)"
ip netns exec "$NS_A" ping -c 3 -i 0.2 "${LAB_IP[b]}" | tail -n 2 | indent
say "ping LNXA -> SERVER1 (out through the port group)"
ip netns exec "$NS_A" ping -c 3 -i 0.2 "${LAB_IP[lan]}" | tail -n 2 | indent

say "FP1, the standalone s390 guest, from SERVER1 through the port group"
ip netns exec "$NS_LAN" $FPPEER arp eth0 "$FP1_IP" 10 >/dev/null || fail "FP1 did not answer ARP"
ip netns exec "$NS_LAN" ping -c 3 -i 0.2 "$FP1_IP" | tail -n 2 | indent
ip netns exec "$NS_LAN" $FPPEER sink 9000 10 3000 >"$WORK/fp1.sink" &
fps=$!
wait_for 5 grep -q ready "$WORK/fp1.sink" || fail "sink did not start"
ip netns exec "$NS_LAN" $FPPEER ctl "$FP1_IP" 7001 "GEN ${LAB_IP[lan]} 9000 1000 2000 3000" >/dev/null ||
  fail "FP1 GEN"
wait "$fps"
read -r n _ span < <(tail -1 "$WORK/fp1.sink")
echo "    FP1 -> SERVER1: $n UDP datagrams of 1000 bytes asked at 2000/s, received in $span s"

say "Load balancing: LNXA -> SERVER1 and LNXB -> SERVER2 at once, 14 s, 1 Gbit/s per OSA port"
echo "  Both destinations end in an odd suffix, so both start on the same OSA port; every"
echo "  INTERVAL the switch measures bucket load and moves one (after a Marker flush)."
ip netns exec "$NS_LAN" iperf3 -s -1 -D -p 5201 >/dev/null 2>&1
ip netns exec "$NS_LAN2" iperf3 -s -1 -D -p 5202 >/dev/null 2>&1
sleep 0.5
tx28=$(rdev_tx 28BA) tx29=$(rdev_tx 2902)
ip netns exec "$NS_A" iperf3 -c "${LAB_IP[lan]}" -p 5201 -P 4 -t 14 -f m >"$WORK/ia" 2>&1 &
pa=$!
ip netns exec "$NS_B" iperf3 -c "${LAB_IP[lan2]}" -p 5202 -P 4 -t 14 -f m >"$WORK/ib" 2>&1 &
pb=$!
wait $pa; wait $pb
printf '    %-8s %-22s %-22s\n' second "LNXA->SERVER1 Mbit/s" "LNXB->SERVER2 Mbit/s"
paste <(grep '^\[SUM\]' "$WORK/ia" | head -n 14 | awk '{print $6}') \
      <(grep '^\[SUM\]' "$WORK/ib" | head -n 14 | awk '{print $6}') |
  awk '{ printf "    %-8d %-22s %-22s\n", NR, $1, $2 }'
echo "  Bytes each OSA port sent in that run:"
printf '    28BA %6.0f MB    2902 %6.0f MB\n' "$(( ($(rdev_tx 28BA) - tx28) / 1000000 ))" \
  "$(( ($(rdev_tx 2902) - tx29) / 1000000 ))"
group_block | sed -n '1,2p' | indent

say "A port fails under load: Gi2/23 is shut down on the physical switch 3 s into a 9 s run"
ip netns exec "$NS_LAN" iperf3 -s -1 -D -p 5201 >/dev/null 2>&1
sleep 0.5
ip netns exec "$NS_A" iperf3 -c "${LAB_IP[lan]}" -p 5201 -P 2 -t 9 -f m >"$WORK/ic" 2>&1 &
pc=$!
sleep 3
sm shutdown Gi2/23 >/dev/null
wait $pc
grep -E '^\[SUM\]' "$WORK/ic" | head -n 9 | awk '{ printf "    second %-3d %s Mbit/s\n", NR, $6 }'
grep -E 'SUM.*(sender|receiver)' "$WORK/ic" | indent
echo "  Every TCP connection survived; the switch moved the failed port's buckets at once:"
group_block | sed -n '2p' | indent
sm show etherchannel summary | tail -n 1 | indent
sm no shutdown Gi2/23 >/dev/null
wait_for 15 distributing_is 2 && echo "    Gi2/23 back: both ports distributing again"

sm show interfaces counters | indent

say "LNX1, the Debian s390x Linux guest, XAUTOLOGged at the start"
end=$(awk -v t="$T_LNX1" 'BEGIN { printf "%d", t + 151 }')
until grep -q "bytes from" "$WORK/lnx1.ping"; do
  [ "$(date +%s)" -lt "$end" ] || fail "LNX1 did not answer a ping within 150 s of XAUTOLOG"
  sleep 0.5
done
kill "$LNX1_PING" 2>/dev/null; wait "$LNX1_PING" 2>/dev/null
t=$(grep -m1 "bytes from" "$WORK/lnx1.ping" | sed -n 's/^\[\([0-9.]*\)\].*/\1/p')
echo "  XAUTOLOG to the first ping answered: $(awk -v a="$T_LNX1" -v b="$t" 'BEGIN { printf "%.1f", b - a }') s (now $(awk -v a="$T_LNX1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }') s after XAUTOLOG)"
echo "  vmcp QUERY CONSLOG LNX1 (its console, the guest's own lines):"
vmcp "QUERY CONSLOG LNX1 200" | grep -E "^(ZVSL0[0-2][0-9]I|Linux version)" | cut -c1-100 | indent | indent
ip netns exec "$NS_LAN" $LXPEER wait "$LNX1_IP" 7001 30 >/dev/null || fail "LNX1's control server"
echo "  LNX1 pings SERVER1 (run in the guest through its control server):"
ip netns exec "$NS_LAN" $LXPEER cmd "$LNX1_IP" 7001 "RUN ping -c 3 -W 2 ${LAB_IP[lan]}" |
  grep -E "transmitted|round-trip" | indent | indent
echo "  A TCP stream LNX1 -> SERVER1 through the port group (iperf3 in the guest, 6 s):"
ip netns exec "$NS_LAN" timeout 30 iperf3 -c "$LNX1_IP" -R -t 6 -f m >"$WORK/il" 2>&1 ||
  fail "iperf3 with LNX1: $(tail -3 "$WORK/il")"
grep -E "sender|receiver" "$WORK/il" | indent
sleep 5                                 # a monitor sample with LNX1's stream in it
say "What the operator sees now: vmcp QUERY VSWITCH CCBVSW1 DETAILS"
vmcp QUERY VSWITCH CCBVSW1 DETAILS | indent

# The Performance Toolkit view of this run: vswitchd wrote monitor records every 5 s.
kill -TERM "$VSWITCHD_PID"; wait "$VSWITCHD_PID" 2>/dev/null; VSWITCHD_PID=
PERFKIT=$BUILD/bin/perfkit
# Per interval: the two OSA rows' outbound bytes/s (k/M expanded). The skewed interval has
# one port busy and the other idle; the balanced one has the largest smaller row.
"$PERFKIT" FCX240 --file "$MON" --all | awk '
    function num(v) { x = v + 0; if (v ~ /M$/) x *= 1e6; else if (v ~ /k$/) x *= 1e3; return x }
    /^FCX240/ { i++ } /^[0-9A-F][0-9A-F][0-9A-F][0-9A-F] CCBVSW1/ { print i, num($6) }' |
  awk '{ v[$1] = v[$1] " " $2 } END { for (k in v) { split(v[k], a, " "); lo = a[1] < a[2] ? a[1] : a[2]
        hi = a[1] < a[2] ? a[2] : a[1]; print k, lo, hi } }' | sort -n >"$WORK/rows"
skewed=$(awk '$3 > 20e6 && $2 < $3 / 20 { print $1; exit }' "$WORK/rows")
balanced=$(sort -k2 -g "$WORK/rows" | tail -n 1 | awk '{ print $1 }')
if [ -n "$skewed" ]; then
  say "FCX240 (VSWITCH) before the load-balancing pass: both flows on one OSA port"
  "$PERFKIT" FCX240 --file "$MON" --index "$skewed" | indent
fi
say "FCX240 after the pass: both OSA ports carrying the load"
"$PERFKIT" FCX240 --file "$MON" --index "$balanced" | indent
# Packets are frames on the wire (a TSO/GRO super-frame counts as its segments), so no
# FCX240 row carries more than an Ethernet frame without FCS: MTU + 18 bytes a packet.
"$PERFKIT" FCX240 --file "$MON" --all --csv | awk -F, -v mtu=1500 '
  NR > 1 { if ($10 > 0 && $9 / $10 > m) m = $9 / $10; if ($13 > 0 && $12 / $13 > m) m = $12 / $13 }
  END { printf "    FCX240, every interval and port: at most %.0f bytes a packet (MTU %d + 18 = %d)%s\n",
               m, mtu, mtu + 18, m <= mtu + 18 ? "" : "  <-- MORE THAN A WIRE FRAME" }'
busiest=$balanced
say "FCX269 (VNIC) for the same interval"
"$PERFKIT" FCX269 --file "$MON" --index "$busiest" | indent
# The interval in which LNX1 moved the most (FCX269's LNX1 row, k/M expanded).
lnx1_iv=$("$PERFKIT" FCX269 --file "$MON" --all | awk '
    function num(v) { x = v + 0; if (v ~ /M$/) x *= 1e6; else if (v ~ /k$/) x *= 1e3; return x }
    /^FCX269/ { i++ } /LNX1/ { s = 0; for (f = 2; f <= NF; f++) s += num($f); if (s > best) { best = s; iv = i } }
    END { print iv }')
if [ -n "$lnx1_iv" ]; then
  say "FCX269 (VNIC) while LNX1 streamed to SERVER1: the mainframe guests' rows"
  "$PERFKIT" FCX269 --file "$MON" --index "$lnx1_iv" | indent
fi
say "Port groups (zvswitch's own screen)"
"$PERFKIT" PGROUP --file "$MON" --index "$busiest" | indent
say "The monitor's events: Gi2/23's failure and recovery (D6R22/D6R23; zvswitch's own list)"
"$PERFKIT" EVENTS --file "$MON" | indent
OUTDIR=$BUILD/demo
mkdir -p "$OUTDIR"
cp "$MON" "$OUTDIR/monitor.file"
"$PERFKIT" chart --file "$MON" --svg "$OUTDIR/rdev-bytes.svg" &&
  "$PERFKIT" report --file "$MON" --html "$OUTDIR/report.html" &&
  echo "    The chart of every OSA port's bytes/s over the run, and a report with the screens:
    $OUTDIR/rdev-bytes.svg and $OUTDIR/report.html (open in a browser);
    the monitor file is $OUTDIR/monitor.file (try: $PERFKIT FCX240 --file $OUTDIR/monitor.file --nav)"
say "Done; the lab is being removed."
