#!/usr/bin/env bash
# bench_soak: the soak (run by tests/bench/run.sh; prints BENCH lines). SOAK_SECONDS
# (default 600) of mixed traffic through the port group against the switch model, while
#   - balancing passes run every 2 s (vswitchd --test-interval 2, ours), and every
#     SOAK_PERIOD seconds (default SOAK_SECONDS/40, at least 10) the next disturbance of a
#     cycle of three, each on member 2902 (Gi2/24) and undone after SOAK_PERIOD/3 s (at
#     least 2; drop-tx at least 4, past the fast timeout):
#   - a partner flap: the switch model's `shutdown` / `no shutdown` of its end of the wire
#     (the member loses carrier);
#   - SET PORT GROUP ETHGRP LEAVE 2902 / JOIN 2902 at the console;
#   - `lacp drop-tx Gi2/24 on` / `off` at the switch model (our partner goes silent: the
#     member expires after the fast timeout, then rejoins).
# Traffic, both directions through the group, two sizes: iperf3 UDP from LNXA (tap) to the
# LAN host (10 Mbit/s of 1000-byte datagrams) and from the second LAN host to LNXB (tap;
# 2 Mbit/s of 128-byte datagrams), for the whole run.
#
#   BENCH soak_rss_growth_kb <n> KB       vswitchd's RssAnon at the end minus after the
#                                         warm-up (SOAK_SECONDS/5: 2 minutes of the default
#                                         10; 24 s of a 120 s validation run); target <= 1024
#   BENCH soak_lost_uncounted <n> frames  sent - received - counted discards; target 0
#   BENCH soak_sent_frames, soak_lost_frames, soak_counted_discards, soak_disturbances
# How each term is measured:
#   sent, received   at the generators, not from the switch: iperf3's client counts the
#                    datagrams it sent, its server the sequence numbers it never received
#                    (lost = sent - received; out-of-order datagrams arrive, are not lost);
#                    datagrams the receiving host's kernel dropped because the server's
#                    socket buffer was full (UDP RcvbufErrors of its namespace) were
#                    delivered and count as received (buffers of 4 MB make them rare)
#   counted discards the discards vswitchd counted for a stated reason on the streams'
#                    paths (counters report, last minus first): TX discards of LNXA and of
#                    both members (A -> LAN: no member to send on, queue full), RX discards
#                    of both members (LAN2 -> B: a member not collecting) and of LNXB (its
#                    input queue full); and the discards the switch model counted on its
#                    ports (`show interfaces counters`: NotBundled, VlanDenied, queue
#                    drops, output errors), since frames it drops while a member is shut or not bundled
#                    are the partner's, with its reason
# so soak_lost_uncounted counts frames nobody accounts for. Nothing else crosses the group
# (static neighbours, no IPv6): LACPDUs are not data frames and are counted apart.
# Root, iperf3. About SOAK_SECONDS + 30 s.
. "$(dirname "$0")/../integration/lacp_lab_lib.sh"
. "$(dirname "$0")/../integration/storm_lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "needs root for network namespaces"; exit 77; }
command -v iperf3 >/dev/null || { echo "iperf3 missing (scripts/deps.sh)"; exit 77; }
SECS=${SOAK_SECONDS:-600}
WARM=$(( SECS / 5 ))
PERIOD=${SOAK_PERIOD:-$(( SECS / 40 > 10 ? SECS / 40 : 10 ))}
HOLD=$(( PERIOD / 3 > 2 ? PERIOD / 3 : 2 ))
HOLD_SILENT=$(( HOLD > 4 ? HOLD : 4 ))   # drop-tx: longer than the fast timeout (3 s)
KEEP=$BUILD/bench-logs/soak              # the reports, iperf3 JSON and logs of the run

lab_init soak
VSWITCHD_ARGS="-l info -k $WORK/console.sock --test-interval 2" LAB_TAPS="a b" \
  lab_group_start "$ROOT/configs/switchmodel/lab6509.conf" "$ROOT/configs/lab/SYSTEM-GROUP.CONFIG" \
  "$ROOT/configs/lab/USER-QDIO.DIRECT"
wait_for 15 distributing_is 2 || fail "group not up"
wait_for 5 test -S "$WORK/console.sock" || fail "no console"
LAB_TAPS="a b" lab_static_arp
MAC_B=$(ip -n "$NS_B" -br link show lnxb-f000 | awk '{print $3}')
ip -n "$NS_LAN2" neigh replace "${LAB_IP[b]}" lladdr "$MAC_B" dev eth0 nud permanent
ip -n "$NS_B" neigh replace "${LAB_IP[lan2]}" lladdr 02:00:0a:00:00:02 dev lnxb-f000 nud permanent

# The switch model's counted drops over all its ports: the row of its drop table
# (`Port NotBundled VlanDenied InQueueDrop OutQueueDrop OutErrors`), every column.
sm_drops() {
  sm show interfaces counters | awk '
    /^Port +NotBundled/ { on = 1; next }
    on && NF == 6 { s += $2 + $3 + $4 + $5 + $6; next }
    on { on = 0 }
    END { print s + 0 }'
}
sum_discards() {  # sum_discards REPORT
  local r=$1 w f
  for w in LNXA:tx 28BA:tx 2902:tx 28BA:rx 2902:rx LNXB:rx; do
    f=$(counter "$r" "${w%:*}" "${w#*:}_discards")
    [[ $f =~ ^[0-9]+$ ]] || fail "no ${w#*:}_discards of ${w%:*} in the counters report"
  done
  echo $(( $(counter "$r" LNXA tx_discards) + $(counter "$r" 28BA tx_discards) +
           $(counter "$r" 2902 tx_discards) + $(counter "$r" 28BA rx_discards) +
           $(counter "$r" 2902 rx_discards) + $(counter "$r" LNXB rx_discards) ))
}

# Drops the kernel counted on the streams' interfaces (not the switch's: a diagnostic, to
# tell where uncounted frames went): rx and tx "dropped" of every veth and tap end.
kernel_drops() {
  local ns dev t=0 v
  for nd in "$NS_SW:osa28ba" "$NS_SW:osa2902" "$NS_PHY:sw-osa28ba" "$NS_PHY:sw-osa2902" \
            "$NS_PHY:sw-srv1" "$NS_PHY:sw-srv2" "$NS_A:lnxa-f000" "$NS_B:lnxb-f000" \
            "$NS_LAN:eth0" "$NS_LAN2:eth0"; do
    ns=${nd%%:*}; dev=${nd#*:}
    v=$(ip -n "$ns" -s -j link show dev "$dev" 2>/dev/null |
        $PY -c 'import json,sys; s=json.load(sys.stdin)[0]["stats64"]; print(s["rx"]["dropped"] + s["tx"]["dropped"])' 2>/dev/null)
    t=$((t + ${v:-0}))
  done
  echo "$t"
}

# Datagrams that reached a receiving generator's host but not the generator: its UDP
# receive buffer was full (RcvbufErrors of the namespace, /proc/net/snmp). They were
# delivered, so they are counted as received (at the generators, not by the switch).
rcvbuf_drops() {
  local ns t=0 v
  for ns in "$NS_LAN" "$NS_B"; do
    v=$(ip netns exec "$ns" awk '/^Udp:/ { if (!h) { for (i = 1; i <= NF; i++) c[$i] = i; h = 1 } else print $c["RcvbufErrors"] }' /proc/net/snmp)
    t=$((t + ${v:-0}))
  done
  echo "$t"
}
# Receive buffers that hold a second of each stream: a generator starved of CPU for a
# moment (the machine is shared) should not lose what the switch delivered.
for ns in "$NS_LAN" "$NS_B"; do ip netns exec "$ns" sysctl -qw net.core.rmem_max=8388608 2>/dev/null; done

r0=$(lab_stats); cp "$r0" "$WORK/soak0"
k0=$(kernel_drops); b0=$(rcvbuf_drops)
d0=$(sum_discards "$WORK/soak0"); m0=$(sm_drops)
# The servers' own JSON: lost datagrams per second, to put each loss next to the
# disturbance before it.
ip netns exec "$NS_LAN" iperf3 -s -1 -D -p 5301 -J --logfile "$WORK/srv1.json" >/dev/null 2>&1
ip netns exec "$NS_B" iperf3 -s -1 -D -p 5302 -J --logfile "$WORK/srv2.json" >/dev/null 2>&1
sleep 0.5
: >"$WORK/events"
event() { echo "$(( $(date +%s%N) / 1000000 - t0ms )) $1" >>"$WORK/events"; }
t0ms=$(( $(date +%s%N) / 1000000 ))
ip netns exec "$NS_A" iperf3 -u -c "${LAB_IP[lan]}" -p 5301 -b 10M -l 1000 -w 4M -t "$SECS" --json \
  >"$WORK/s1.iperf" 2>&1 &
p1=$!
ip netns exec "$NS_LAN2" iperf3 -u -c "${LAB_IP[b]}" -p 5302 -b 2M -l 128 -w 4M -t "$SECS" --json \
  >"$WORK/s2.iperf" 2>&1 &
p2=$!
t0=$(date +%s); rss_warm=''; n=0
while [ $(( $(date +%s) - t0 )) -lt $(( SECS - PERIOD )) ]; do
  sleep "$PERIOD"
  if [ -z "$rss_warm" ] && [ $(( $(date +%s) - t0 )) -ge "$WARM" ]; then rss_warm=$(vsw_rss_kb); fi
  case $(( n % 3 )) in
    0) event shutdown; sm shutdown Gi2/24 >/dev/null; sleep "$HOLD"
       event no-shutdown; sm no shutdown Gi2/24 >/dev/null ;;
    1) event leave; vmcp SET PORT GROUP ETHGRP LEAVE 2902 >/dev/null || fail "LEAVE 2902"
       sleep "$HOLD"; event join; vmcp SET PORT GROUP ETHGRP JOIN 2902 >/dev/null || fail "JOIN 2902" ;;
    2) event drop-tx; sm lacp drop-tx Gi2/24 on >/dev/null; sleep "$HOLD_SILENT"
       event drop-tx-off; sm lacp drop-tx Gi2/24 off >/dev/null ;;
  esac
  n=$((n + 1))
  kill -0 "$VSWITCHD_PID" 2>/dev/null || fail "vswitchd died in the soak (after $n disturbances)"
done
[ -n "$rss_warm" ] || rss_warm=$(vsw_rss_kb)
wait "$p1" || fail "iperf3 LNXA -> LAN: $(tail -5 "$WORK/s1.iperf")"
wait "$p2" || fail "iperf3 LAN2 -> LNXB: $(tail -5 "$WORK/s2.iperf")"
rss_end=$(vsw_rss_kb)
wait_for 15 distributing_is 2 || fail "the group did not come back to 2 members"
r1=$(lab_stats)
d1=$(sum_discards "$r1"); m1=$(sm_drops); k1=$(kernel_drops); b1=$(rcvbuf_drops)
mkdir -p "$KEEP"
cp "$WORK/soak0" "$KEEP/counters.start"; cp "$r1" "$KEEP/counters.end"
sm show interfaces counters >"$KEEP/switchmodel.counters" 2>&1
cp "$WORK"/s?.iperf "$WORK"/srv?.json "$WORK/events" "$WORK/vswitchd.log" "$WORK/switchmodel.log" "$KEEP/" 2>/dev/null
# Lost datagrams per disturbance: each server second with losses goes to the last event
# that began before that second ended ("quiet" before the first).
$PY - "$WORK/events" "$WORK/srv1.json" "$WORK/srv2.json" <<'PYEOF' | tee "$KEEP/loss_by_event"
import json, sys
ev = [(int(l.split()[0]) / 1000.0, l.split()[1]) for l in open(sys.argv[1]) if l.strip()]
by = {}
for f in sys.argv[2:]:
    try:
        ivs = json.load(open(f))["intervals"]
    except Exception as e:
        print("loss by event: %s unreadable (%s)" % (f, e)); continue
    for iv in ivs:
        s = iv["sum"]; lost = s.get("lost_packets", 0)
        if not lost:
            continue
        k = "quiet"
        for t, kind in ev:
            if t <= s["end"]:
                k = kind
        by[k] = by.get(k, 0) + lost
print("loss by event:", " ".join("%s %d" % kv for kv in sorted(by.items())) or "none")
PYEOF
read -r sent1 lost1 < <($PY -c 'import json,sys; e=json.load(open(sys.argv[1]))["end"]["sum"]; print(e["packets"], e["lost_packets"])' "$WORK/s1.iperf") || fail "iperf3 JSON 1"
read -r sent2 lost2 < <($PY -c 'import json,sys; e=json.load(open(sys.argv[1]))["end"]["sum"]; print(e["packets"], e["lost_packets"])' "$WORK/s2.iperf") || fail "iperf3 JSON 2"
sent=$((sent1 + sent2)); lost=$((lost1 + lost2 - (b1 - b0)))
disc=$((d1 - d0)); smd=$((m1 - m0))
echo "soak: ${SECS}s, warm-up ${WARM}s, $n disturbances every ${PERIOD}s (held ${HOLD}s);" \
     "A->LAN sent $sent1 lost $lost1, LAN2->B sent $sent2 lost $lost2;" \
     "receivers' full buffers $((b1 - b0)) (delivered: not lost);" \
     "vswitchd discards $disc, switch model drops $smd, kernel drops $((k1 - k0)) (not the" \
     "switch's; a diagnostic); RssAnon $rss_warm -> $rss_end KB (logs: $KEEP)"
echo "BENCH soak_sent_frames $sent frames"
echo "BENCH soak_lost_frames $lost frames"
echo "BENCH soak_counted_discards $((disc + smd)) frames"
echo "BENCH soak_disturbances $n events"
echo "BENCH soak_lost_uncounted $((lost - disc - smd)) frames"
echo "BENCH soak_rss_growth_kb $((rss_end - rss_warm)) KB"
