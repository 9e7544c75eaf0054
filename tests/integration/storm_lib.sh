# Fault storms against a running port-group lab, shared by lab_storms.sh (bounded, in
# make check) and tests/bench/bench_storm.sh (the long flap run). Source after
# lacp_lab_lib.sh, with the lab started by storm_start.
#
#   storm_start              the port-group lab against the switch model: LNXA and LNXB on
#                            taps, LNXC an external QDIO guest (-q), console, static ARP
#   storm_flap SECONDS       carrier flaps at 100/s on the member NOT carrying LNXA's UDP
#                            stream to the LAN while the stream runs; sets FLAP_* figures
#   vsw_rss_kb / vsw_fds     vswitchd's private resident memory (RssAnon, KB: what a leak
#                            grows; the NICs' shared QDIO regions and the frame pool's
#                            pages are RssShmem/file and are touched once as traffic
#                            first reaches them) and open descriptors
PY=/usr/bin/python3
PEER=$BUILD/tools/qdio_peer

storm_start() {
  VSWITCHD_ARGS="-l info -q $WORK/qdio.sock -k $WORK/console.sock" LAB_TAPS="a b" \
    lab_group_start "$ROOT/configs/switchmodel/lab6509.conf" "$ROOT/configs/lab/SYSTEM-GROUP.CONFIG" \
    "$ROOT/configs/lab/USER-QDIO.DIRECT"
  wait_for 15 distributing_is 2 || fail "group not up"
  wait_for 5 test -S "$WORK/console.sock" || fail "no console"
  LAB_TAPS="a b" lab_static_arp
  MAC_A=$(ip -n "$NS_A" -br link show lnxa-f000 | awk '{print $3}')
  MAC_C=02:00:0c:00:01:13
  # The LAN host answers LNXC's MAC statically too (nothing floods during a count).
  ip -n "$NS_LAN" neigh replace "${LAB_IP[lan2]}" lladdr 02:00:0a:00:00:02 dev eth0 nud permanent
}

vsw_rss_kb() { awk '/^RssAnon:/ { print $2 }' "/proc/$VSWITCHD_PID/status"; }
vsw_fds() { ls "/proc/$VSWITCHD_PID/fd" | wc -l; }
# link_stat NS DEV rx|tx FIELD: the kernel's counter FIELD (packets, dropped, ...) of DEV.
link_stat() { ip -n "$1" -s -j link show dev "$2" |
  $PY -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"][sys.argv[1]][sys.argv[2]])' "$3" "$4"; }
# Frames the switch model's end of a member's wire received (the kernel's veth counter):
# what vswitchd put on the wire, before the switch model (userspace test equipment) reads it.
wire_rx() { link_stat "$NS_PHY" "sw-osa${1,,}" rx packets; }
# What the kernel dropped on member RDEV's veth after vswitchd's send returned (the veth
# counts a frame the peer's backlog refused as tx dropped on vswitchd's end, rx dropped on
# the switch model's): below vswitchd, and counted, so the wire check can still be exact.
wire_dropped() {
  echo $(( $(link_stat "$NS_SW" "osa${1,,}" tx dropped) + $(link_stat "$NS_PHY" "sw-osa${1,,}" rx dropped) ))
}

# The member that carries LNXA -> LAN: the one whose TX grows under 50 pings.
carrying_member() {
  local r0 r1 a b
  r0=$(lab_stats); cp "$r0" "$WORK/carry0"
  ip netns exec "$NS_A" ping -c 50 -i 0.01 -q "${LAB_IP[lan]}" >/dev/null || fail "ping LNXA -> LAN"
  r1=$(lab_stats)
  a=$(( $(counter "$r1" 28BA tx_packets) - $(counter "$WORK/carry0" 28BA tx_packets) ))
  b=$(( $(counter "$r1" 2902 tx_packets) - $(counter "$WORK/carry0" 2902 tx_packets) ))
  if [ "$a" -ge 50 ]; then echo 28BA; elif [ "$b" -ge 50 ]; then echo 2902; else fail "no member carried 50 pings ($a, $b)"; fi
}

# Carrier flaps: the switch model's end of the other member's wire goes down and up
# (SIOCSIFFLAGS, every 5 ms: 100 down/up cycles a second), while a 20 Mbit/s UDP stream
# (2500 datagrams/s of 1000 bytes) runs from LNXA to the LAN over the carrying member.
# Sets FLAP_CARRY FLAP_MEMBER FLAP_CYCLES, FLAP_SENT FLAP_LOST (iperf3: datagrams sent,
# lost end to end, switch model included), FLAP_GUEST_TX FLAP_CARRY_TX (vswitchd: frames
# LNXA sent, frames the carrying member sent, LACPDUs included), FLAP_WIRE_RX (frames that
# arrived at the switch model's end of that wire), FLAP_WIRE_DROPPED (frames the kernel dropped
# on that veth, counted by it), FLAP_DISCARDS (TX discards on the
# carrying member and LNXA), FLAP_RSS_KB FLAP_FDS (growth), FLAP_REJOIN_MS.
storm_flap() {
  local secs=$1
  FLAP_CARRY=$(carrying_member)
  if [ "$FLAP_CARRY" = 28BA ]; then FLAP_MEMBER=2902; else FLAP_MEMBER=28BA; fi
  local dev=sw-osa${FLAP_MEMBER,,}
  local rss0 fds0 r0 r1
  rss0=$(vsw_rss_kb); fds0=$(vsw_fds)
  # The wire's counters before vswitchd's and after them (r1, then the wire, below): a
  # LACPDU sent between two readings then lands in the wire's count only, which the
  # check allows (two), never in vswitchd's only, which it could not tell from a loss.
  # (Read the other way round, a LACPDU sent while lab_stats ran went missing from the
  # wire's delta: a one-frame failure seen under ASan, whose report is slow.)
  local w0 wd0; w0=$(wire_rx "$FLAP_CARRY"); wd0=$(wire_dropped "$FLAP_CARRY")
  r0=$(lab_stats); cp "$r0" "$WORK/flap0"
  ip netns exec "$NS_LAN" iperf3 -s -1 -D -p 5301 >/dev/null 2>&1
  sleep 0.3
  ip netns exec "$NS_A" iperf3 -u -c "${LAB_IP[lan]}" -p 5301 -b 20M -l 1000 -t $((secs + 2)) --json \
    >"$WORK/flap.iperf" 2>&1 &
  local ip=$!
  sleep 1
  ip netns exec "$NS_PHY" $PY - "$dev" "$secs" >"$WORK/flap.out" <<'PYEOF'
import fcntl, socket, struct, sys, time
IFF_UP, SIOCGIFFLAGS, SIOCSIFFLAGS = 1, 0x8913, 0x8914
dev, secs = sys.argv[1].encode(), float(sys.argv[2])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
def flags(v=None):
    if v is None:
        return struct.unpack("16sH", fcntl.ioctl(s, SIOCGIFFLAGS, struct.pack("16sH", dev, 0))[:18])[1]
    fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH", dev, v))
f = flags()
cycles, t0 = 0, time.monotonic()
nxt = t0
while time.monotonic() - t0 < secs:
    flags(f & ~IFF_UP)
    nxt += 0.005; time.sleep(max(0, nxt - time.monotonic()))
    flags(f | IFF_UP)
    nxt += 0.005; time.sleep(max(0, nxt - time.monotonic()))
    cycles += 1
flags(f | IFF_UP)
print(cycles, round(time.monotonic() - t0, 2))
PYEOF
  local t_end
  t_end=$(date +%s%N)
  FLAP_CYCLES=$(awk '{print $1}' "$WORK/flap.out")
  wait "$ip" || fail "iperf3 UDP during the flaps: $(tail -5 "$WORK/flap.iperf")"
  kill -0 "$VSWITCHD_PID" 2>/dev/null || fail "vswitchd died in the flap storm"
  read -r FLAP_SENT FLAP_LOST < <($PY -c '
import json, sys
e = json.load(open(sys.argv[1]))["end"]["sum"]
print(e["packets"], e["lost_packets"])' "$WORK/flap.iperf") || fail "iperf3 JSON"
  # The flapped member comes back once the storm ends.
  wait_for 10 distributing_is 2 || fail "the flapped member did not come back"
  FLAP_REJOIN_MS=$(( ($(date +%s%N) - t_end) / 1000000 ))
  r1=$(lab_stats)
  FLAP_DISCARDS=$(( $(counter "$r1" "$FLAP_CARRY" tx_discards) - $(counter "$WORK/flap0" "$FLAP_CARRY" tx_discards) +
                    $(counter "$r1" LNXA tx_discards) - $(counter "$WORK/flap0" LNXA tx_discards) ))
  FLAP_GUEST_TX=$(( $(counter "$r1" LNXA tx_packets) - $(counter "$WORK/flap0" LNXA tx_packets) ))
  FLAP_CARRY_TX=$(( $(counter "$r1" "$FLAP_CARRY" tx_packets) - $(counter "$WORK/flap0" "$FLAP_CARRY" tx_packets) ))
  FLAP_WIRE_RX=$(( $(wire_rx "$FLAP_CARRY") - w0 ))
  FLAP_WIRE_DROPPED=$(( $(wire_dropped "$FLAP_CARRY") - wd0 ))
  FLAP_RSS_KB=$(( $(vsw_rss_kb) - rss0 ))
  FLAP_FDS=$(( $(vsw_fds) - fds0 ))
}
