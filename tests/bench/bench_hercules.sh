#!/usr/bin/env bash
# bench_hercules: the standalone s390 frame program (guests/frameprog) under Hercules,
# generating UDP at full rate to a LAN namespace, through zvswitch and through a Linux
# bridge, in the same run (issue 13: the switch must never be the LCS path's bottleneck).
#
#   BUILD=build tests/bench/bench_hercules.sh      (run by tests/bench/run.sh, `make bench`)
#
#   zvswitch  vswitchd in its namespace (tests/integration/lib.sh lab), VSWITCH uplink the
#             veth osa28ba whose peer is eth0 of the LAN namespace (10.77.0.100); the guest
#             is machine FP1 (IPL FRAMEPROG, 10.77.0.50), XAUTOLOGged by vswitchd, its LCS
#             tap the NIC's backend.
#   bridge    the same image, parameters and Hercules configuration (MAINSIZE 16, ESA/390,
#             LCS 0600 with the OAT vswitchd writes), started here in a namespace of its
#             own whose tap is enslaved with a veth to a bridge; the veth's peer is eth1 of
#             the same LAN namespace (10.78.0.100; the guest 10.78.0.50).
#   pump      the bridge's machine and wiring with the bridge out of the way (the veth
#             taken out of br0, the tap never put in): tests/tools/tap_pump --ring moves
#             the frames between the tap and the veth in user space, reading the tap
#             through the same TPACKET_V2 ring vswitchd's LCS driver uses and sending
#             straight from its slots, and does nothing else. The floor of a user-space
#             switch on this path: no target of its own (run.sh gives none to a name
#             with "_pump_", nor to a line whose peer is the pump), it tells how much of
#             zvswitch's distance to the bridge and of its CPU a frame is the switch's own.
# Only one machine runs at a time. A round: GEN to the LAN host's port 9 at full rate
# (rate 0), 1 s to settle, then the LAN interface's rx counters (the kernel's: no user
# program on the receiving side to be the bottleneck) over BENCH_SECS (default 3), STOP.
# The guest's own count of frames generated (gen_out in STOP's answer; the machine is
# started afresh for each round) over the time from GEN to STOP is its generation rate,
# printed beside what arrived, so a reader sees whether the emulator or the switch set the
# pace (a STATS query in the window is not used: under full load it may not get through);
# and, for zvswitch, vswitchd's CPU time (user + system, from /proc) over the frames that
# arrived is its CPU per LCS frame, and its voluntary context switches (each a sleep of
# its event loop) over those frames its wake-ups per frame.
# BENCH_REPS rounds (default 5) per size, zvswitch, bridge and pump interleaved; a value
# is the median.
#
# Output (tests/bench/run.sh's line protocol; ratio > 1 means zvswitch is better):
#   BENCH hercules_lcs_fps_64b <zvs> frames/s bridge <bridge> <zvs/bridge>
#   BENCH hercules_lcs_mbps_1514 <zvs> Mbit/s bridge <bridge> <zvs/bridge>
#   BENCH hercules_lcs_vswitchd_us_per_frame <us> us          (64-byte rounds' median)
#   BENCH hercules_lcs_vswitchd_wakeups_per_frame <n> wakeups/frame    (the same rounds)
#   BENCH hercules_lcs_fps_64b_ratio_spread <max - min of the rounds' zvs/bridge> ratio
#   BENCH hercules_lcs_mbps_1514_ratio_spread <the same at 1514 bytes> ratio
#   BENCH hercules_lcs_vswitchd_us_per_frame_spread <max - min over the 64-byte rounds> us
#   BENCH hercules_lcs_guest_gen_fps_64b <zvs> frames/s   what the guest generated, the
#   BENCH hercules_lcs_guest_gen_fps_64b_beside_br <br> frames/s     rounds' medians
#   BENCH hercules_lcs_pump_fps_64b <pump> frames/s bridge <bridge> <pump/bridge>
#   BENCH hercules_lcs_pump_mbps_1514 <pump> Mbit/s bridge <bridge> <pump/bridge>
#   BENCH hercules_lcs_pump_us_per_frame <us> us        the pump's CPU a 64-byte frame
#   BENCH hercules_lcs_fps_64b_vs_pump <zvs> frames/s pump <pump> <zvs/pump>
#   BENCH hercules_lcs_us_per_frame_vs_pump <zvs> us pump <pump> <pump/zvs>
#                       zvswitch against the floor (no target: what one set there reads)
# Lines starting with # are the log: every round, with what the LCS driver counted.
# On this 2-core machine the emulator's CPU thread takes a core whenever the program
# runs; the bridge forwards in the kernel's softirq, zvswitch in vswitchd, which shares
# the other core with the LAN's kernel and anything else running.
# Exit: 0 measured, 77 not root (the last line says why), 1 a run failed. Every process,
# namespace and interface made here is removed on exit.
set -u
BENCH_SECS=${BENCH_SECS:-3}
BENCH_REPS=${BENCH_REPS:-5}
[ -n "${HB_TIMED:-}" ] || HB_TIMED=1 exec timeout -k 10 600 bash "$0" "$@"
[ "$(id -u)" -eq 0 ] || { echo "bench_hercules: needs root for network namespaces"; exit 77; }
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/../integration/hercules_bare_lib.sh"
command -v hercules >/dev/null || fail "no hercules (run make deps)"
make -s -C "$ROOT" BUILD="$BUILD" guests >/dev/null || fail "make guests failed"
[ -s "$BUILD/guests/frameprog.bin" ] || fail "no frame program image"
PEER="python3 $ROOT/tests/integration/frameprog_peer.py"
lab_init hbench
NS_BR=$NS_B                     # the bridge machine's namespace (the pump's too)
BR_PID=
PUMP_PID=
FLOOR=pump                      # emptied when the pump cannot run: its lines are then NOTRUN
NOFLOOR_WHY=
[ -x "$BUILD/tools/tap_pump" ] || { FLOOR=; NOFLOOR_WHY="no $BUILD/tools/tap_pump (make)"; }

hb_cleanup() {
  local s=$? p
  [ -n "$BR_PID" ] && kill -KILL "$BR_PID" 2>/dev/null
  [ -n "$PUMP_PID" ] && kill -KILL "$PUMP_PID" 2>/dev/null
  if [ -f "$WORK/vswitchd.log" ]; then
    for p in $(sed -n 's/.*Hercules pid \([0-9]*\),.*/\1/p' "$WORK/vswitchd.log"); do
      kill -KILL "$p" 2>/dev/null
    done
  fi
  (exit $s)
  lab_cleanup
}
trap hb_cleanup EXIT

cat >"$WORK/SYSTEM.CONFIG" <<'EOF'
VMLAN MACPREFIX 02000C
DEFINE VSWITCH BENCHSW ETHERNET RDEV 28BA
MODIFY VSWITCH BENCHSW GRANT FP1
RDEVICE 28BA INTERFACE osa28ba
EOF
cat >"$WORK/USER.DIRECT" <<'EOF'
USER FP1 PW 16M 16M G
  IPL FRAMEPROG
  GUESTIP 10.77.0.50/24
  NICDEF 0600 TYPE QDIO LAN SYSTEM BENCHSW
  NICBIND 0600 LCS 0600
EOF
grep -q "^DEFINE VSWITCH" "$WORK/SYSTEM.CONFIG" || fail "config"
VSWITCHD_ARGS="-l info -k $WORK/console.sock --guest-images $BUILD/guests --guest-dir $WORK/guests" \
  LAB_TAPS=" " lab_start "$WORK/SYSTEM.CONFIG" "$WORK/USER.DIRECT"
wait_for 10 test -S "$WORK/console.sock" || fail "no console"

# The bridge: NS_BR holds br0 and vb, whose peer is eth1 of the LAN.
bare_bridge "$NS_BR" vb eth1 10.78.0.100/24

# The bridge machine: what vswitchd writes for FP1 (vm_conf.c), with its own address.
BRDIR=$WORK/brguest
mkdir -p "$BRDIR"
cp "$BUILD/guests/frameprog.bin" "$BRDIR/frameprog.bin"
"$ROOT/guests/mkparams.sh" -i 10.78.0.50 -n 255.255.255.0 -o "$BRDIR/params.bin" || fail "mkparams"
sed -e "s|@IMAGE@|frameprog.bin|" -e "s|@PARAMS@|params.bin|" \
  "$BUILD/guests/frameprog.ins.template" >"$BRDIR/frameprog.ins"
printf 'HWADD 00 02:00:0c:00:00:11\n0600 IP 00 PRI 10.78.0.50\n' >"$BRDIR/lcs.oat"
cat >"$BRDIR/hercules.cnf" <<EOF
ARCHMODE ESA/390
CPUMODEL 2097
MAINSIZE 16
NUMCPU 1
0009 3215-C /
0600.2 LCS -n /dev/net/tun -m 02:00:0c:00:00:11 -o $BRDIR/lcs.oat 10.78.0.50
EOF
echo "ipl $BRDIR/frameprog.ins" >"$BRDIR/hercules.rc"

# The LAN host runs the discard service (RFC 863) on UDP port 9, where GEN sends: a socket
# bound there and never read, its small buffer full at once, so the LAN's kernel drops
# each datagram at the socket (counted, rx counters unchanged) instead of attempting an
# ICMP port unreachable per frame. Without it that attempt (the route lookup runs before
# ICMP's rate limit) was 27 % of the CPU charged to vswitchd on this path, the LAN's
# kernel running in vswitchd's softirq (README.md, "Where vswitchd's CPU goes"); the
# bridge rounds pay the same in the emulator's context. Both paths have it.
# (not a job of this shell: the namespace's clean-up kills it without a notice)
( ip netns exec "$NS_LAN" python3 -c '
import signal, socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.bind(("0.0.0.0", 9))
signal.pause()' </dev/null >/dev/null 2>&1 & )
wait_for 5 bash -c "ip netns exec '$NS_LAN' ss -lun | grep -q ':9 '" || fail "no discard service on the LAN"

ctl() {  # ctl IP CMD: up to 5 tries (STOP and STATS are idempotent; GEN replaces)
  local i
  for i in 1 2 3 4 5; do
    ip netns exec "$NS_LAN" $PEER ctl "$1" 7001 "$2" 2>/dev/null && return 0
  done
  return 1
}
lan_rx() {  # lan_rx DEV: "packets bytes" the LAN's kernel received on DEV
  ip netns exec "$NS_LAN" sh -c "cat /sys/class/net/$1/statistics/rx_packets /sys/class/net/$1/statistics/rx_bytes" |
    tr '\n' ' '
}

start_zvs() {
  "$BUILD/bin/vmcp" -s "$WORK/console.sock" "XAUTOLOG FP1" >/dev/null || fail "XAUTOLOG FP1"
  ip netns exec "$NS_LAN" $PEER arp eth0 10.77.0.50 10 >/dev/null || fail "FP1 not up"
}
stop_zvs() {
  "$BUILD/bin/vmcp" -s "$WORK/console.sock" "QUERY NIC USERID FP1 DETAILS" | grep "LCS from" | sed 's/^ */# /'
  "$BUILD/bin/vmcp" -s "$WORK/console.sock" "FORCE FP1" >/dev/null || fail "FORCE FP1"
  wait_for 5 bash -c "! '$BUILD/bin/vmcp' -s '$WORK/console.sock' 'QUERY NAMES' | grep -q FP1" || fail "FP1 still on"
}
# The bridge's machine (the pump's too) started in NS_BR, up to its tap; $1 names it.
start_br_machine() {
  HERCULES_RC=$BRDIR/hercules.rc ip netns exec "$NS_BR" hercules -d -f "$BRDIR/hercules.cnf" \
    >"$BRDIR/herc.log" 2>&1 </dev/null &
  BR_PID=$!
  wait_for 10 ip -n "$NS_BR" link show tap0 || fail "$1 machine: no tap"
}
start_br() {
  start_br_machine bridge
  ip -n "$NS_BR" link set tap0 master br0 || fail "tap0 into br0"
  ip netns exec "$NS_LAN" $PEER arp eth1 10.78.0.50 10 >/dev/null || fail "bridge machine not up"
}
stop_br() {
  kill -KILL "$BR_PID" 2>/dev/null; wait "$BR_PID" 2>/dev/null; BR_PID=
  wait_for 5 bash -c "! ip -n '$NS_BR' link show tap0" || fail "tap0 stayed"
}
# pump_gave_up WHY: a pump round that cannot go on ends the floor (its lines NOTRUN,
# with WHY), not the run: the round's machine and pump stopped, vb back in br0, a line of
# zeros for the round.
pump_gave_up() {
  floor_off "$1"
  stop_pump >&2
  echo "0 0 0 0 0"
}
floor_off() {  # floor_off WHY: the floor is not run; the first reason is the one kept
  [ -n "$NOFLOOR_WHY" ] || NOFLOOR_WHY=$(tr '\n' ' ' <<<"$1")
  FLOOR=
}
# The pump: the bridge's machine, the veth out of br0, tap_pump between tap0 and vb.
# A pump that does not start, or ends badly, is logged and leaves the floor not run.
start_pump() {
  ip -n "$NS_BR" link set vb nomaster || fail "vb out of br0"
  start_br_machine pump
  ip netns exec "$NS_BR" "$BUILD/tools/tap_pump" --ring tap0 vb >"$WORK/pump.out" 2>&1 &
  PUMP_PID=$!
  wait_for 5 grep -q '^ready' "$WORK/pump.out" ||
    floor_off "tap_pump did not start: $(head -c 200 "$WORK/pump.out")"
  [ -z "$FLOOR" ] || ip netns exec "$NS_LAN" $PEER arp eth1 10.78.0.50 10 >/dev/null ||
    floor_off "the pump's machine did not answer ARP"
}
stop_pump() {
  local rc=0
  kill -0 "$PUMP_PID" 2>/dev/null || rc=1
  kill -TERM "$PUMP_PID" 2>/dev/null; wait "$PUMP_PID" 2>/dev/null || rc=1; PUMP_PID=
  grep -q '^tap_pump: out' "$WORK/pump.out" || rc=1
  sed 's/^/# /' "$WORK/pump.out"
  [ "$rc" -eq 0 ] || floor_off "tap_pump died or ended badly (see the log)"
  stop_br
  ip -n "$NS_BR" link set vb master br0 || fail "vb back into br0"
}

# round KIND SIZE: prints "fps mbps gen_fps us_per_frame wakeups_per_frame" (the last two
# the forwarder's CPU and voluntary context switches per frame that arrived: vswitchd's,
# the pump's; 0 for the bridge, whose work is the kernel's)
round() {
  local kind=$1 size=$2 ip lan dev
  case $kind in
    zvs)  ip=10.77.0.50 lan=10.77.0.100 dev=eth0; start_zvs; CPU_PID=$VSWITCHD_PID ;;
    pump) ip=10.78.0.50 lan=10.78.0.100 dev=eth1; start_pump; CPU_PID=$PUMP_PID
          if [ -z "$FLOOR" ]; then pump_gave_up "$NOFLOOR_WHY"; return 0; fi ;;
    *)    ip=10.78.0.50 lan=10.78.0.100 dev=eth1; start_br; CPU_PID= ;;
  esac
  if [ "$(ctl $ip "GEN $lan 9 $size 0 0")" != OK ]; then
    [ "$kind" = pump ] || fail "$kind: GEN"
    pump_gave_up "GEN through the pump failed"; return 0
  fi
  local tg0 tg1 gen
  tg0=$(date +%s.%N)
  sleep 1
  local a b t0 t1 cpu0 cpu1 hz
  hz=$(getconf CLK_TCK)
  local w0 w1
  read -r a b < <(lan_rx $dev); t0=$(date +%s.%N); cpu0=$(cpu_ticks); w0=$(wakeups)
  sleep "$BENCH_SECS"
  read -r c d < <(lan_rx $dev); t1=$(date +%s.%N); cpu1=$(cpu_ticks); w1=$(wakeups)
  local stop
  if ! stop=$(ctl $ip STOP); then
    [ "$kind" = pump ] || fail "$kind: STOP"
    pump_gave_up "STOP through the pump failed"; return 0
  fi
  tg1=$(date +%s.%N)
  gen=$(awk '$2 == "gen_out" { print $3 }' <<<"$stop")
  [ -n "$gen" ] || gen=0
  [ -n "$CPU_PID" ] || { cpu1=$cpu0; w1=$w0; }
  echo "# $kind size $size: $((c - a)) frames, $((d - b)) bytes at the LAN; guest $stop;" \
    "${kind/zvs/vswitchd} $(awk -v c=$((cpu1 - cpu0)) -v hz="$hz" -v t0="$t0" -v t1="$t1" \
    'BEGIN { printf "%.0f", 100 * c / hz / (t1 - t0) }')% of a core" >&2
  case $kind in
    zvs)  stop_zvs >&2 ;;
    pump) stop_pump >&2 ;;
    *)    stop_br ;;
  esac
  awk -v p=$((c - a)) -v B=$((d - b)) -v g="$gen" -v c=$((cpu1 - cpu0)) -v hz="$hz" \
    -v t0="$t0" -v t1="$t1" -v tg0="$tg0" -v tg1="$tg1" -v w=$((w1 - w0)) \
    'BEGIN { printf "%.0f %.1f %.0f %.3f %.5f\n", p / (t1 - t0), B * 8 / (t1 - t0) / 1e6,
      g / (tg1 - tg0), (p > 0 ? c / hz / p * 1e6 : 0), (p > 0 ? w / p : 0) }'
}
# The forwarder's (CPU_PID's) CPU ticks and voluntary context switches; 0 without one.
cpu_ticks() { [ -n "$CPU_PID" ] && awk '{ print $14 + $15 }' "/proc/$CPU_PID/stat" || echo 0; }
wakeups() {
  [ -n "$CPU_PID" ] && awk '/^voluntary_ctxt_switches:/ { print $2 }' "/proc/$CPU_PID/status" ||
    echo 0
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for size in 64 1514; do
  : >"$WORK/zvs.$size"; : >"$WORK/br.$size"; : >"$WORK/pump.$size"
  for r in $(seq "$BENCH_REPS"); do
    round zvs $size >>"$WORK/zvs.$size"
    round br $size >>"$WORK/br.$size"
    [ -n "$FLOOR" ] && round pump $size >>"$WORK/pump.$size"
    echo "# round $r size $size: zvs $(tail -1 "$WORK/zvs.$size"), bridge $(tail -1 "$WORK/br.$size")," \
      "pump $(tail -1 "$WORK/pump.$size") (frames/s at the LAN, Mbit/s, frames/s the guest" \
      "generated, the forwarder's us/frame and wake-ups/frame)"
  done
done
# vs_bridge LINE KIND FIELD SIZE UNIT FMT: the median of KIND's rounds' FIELD at SIZE
# against the bridge's (printf FMT for both values), as a BENCH line with its ratio.
vs_bridge() {
  local z b
  z=$(cut -d' ' -f"$3" "$WORK/$2.$4" | median); b=$(cut -d' ' -f"$3" "$WORK/br.$4" | median)
  awk -v n="$1" -v z="$z" -v b="$b" -v u="$5" -v f="$6" \
    'BEGIN { printf "BENCH %s " f " %s bridge " f " %.3f\n", n, z, u, b, (b > 0 ? z / b : 0) }'
}
# of LINE KIND FIELD UNIT FMT: the median of KIND's 64-byte rounds' FIELD as a BENCH line.
of() {
  awk -v n="$1" -v z="$(cut -d' ' -f"$3" "$WORK/$2.64" | median)" -v u="$4" -v f="$5" \
    'BEGIN { printf "BENCH %s " f " %s\n", n, z, u }'
}
vs_bridge hercules_lcs_fps_64b zvs 1 64 frames/s %d
vs_bridge hercules_lcs_mbps_1514 zvs 2 1514 Mbit/s %.1f
of hercules_lcs_vswitchd_us_per_frame zvs 4 us %.3f
of hercules_lcs_vswitchd_wakeups_per_frame zvs 5 wakeups/frame %.5f
# The spread over the rounds (max - min): of each round's zvswitch/bridge ratio (the two
# runs of a round are interleaved, so a round's ratio sees one moment of the machine), and
# of vswitchd's CPU a frame.
ratio_spread() {  # ratio_spread FIELD SIZE
  paste -d' ' <(cut -d' ' -f"$1" "$WORK/zvs.$2") <(cut -d' ' -f"$1" "$WORK/br.$2") |
    awk '$2 > 0 { r = $1 / $2; if (n++ == 0 || r < lo) lo = r; if (n == 1 || r > hi) hi = r }
         END { printf "%.3f\n", (n ? hi - lo : 0) }'
}
spread() {  # spread FIELD SIZE: max - min of the zvswitch rounds
  cut -d' ' -f"$1" "$WORK/zvs.$2" |
    awk '{ if (NR == 1 || $1 < lo) lo = $1; if (NR == 1 || $1 > hi) hi = $1 }
         END { printf "%.3f\n", (NR ? hi - lo : 0) }'
}
echo "BENCH hercules_lcs_fps_64b_ratio_spread $(ratio_spread 1 64) ratio"
echo "BENCH hercules_lcs_mbps_1514_ratio_spread $(ratio_spread 2 1514) ratio"
echo "BENCH hercules_lcs_vswitchd_us_per_frame_spread $(spread 4 64) us"
z=$(cut -d' ' -f3 "$WORK/zvs.64" | median); b=$(cut -d' ' -f3 "$WORK/br.64" | median)
echo "BENCH hercules_lcs_guest_gen_fps_64b $z frames/s"
echo "BENCH hercules_lcs_guest_gen_fps_64b_beside_br $b frames/s"
# The floor (tests/tools/tap_pump): against the same bridge rounds; not run (its reason
# given) when the pump could not run every round, without failing the lines with targets.
if [ -n "$FLOOR" ]; then
  vs_bridge hercules_lcs_pump_fps_64b pump 1 64 frames/s %d
  vs_bridge hercules_lcs_pump_mbps_1514 pump 2 1514 Mbit/s %.1f
  of hercules_lcs_pump_us_per_frame pump 4 us %.3f
  # zvswitch against the floor, medians of the same rounds: what a target set on the floor
  # would read (ratio > 1: zvswitch better; for the CPU a frame the pump's over ours)
  zf=$(cut -d' ' -f1 "$WORK/zvs.64" | median); pf=$(cut -d' ' -f1 "$WORK/pump.64" | median)
  zu=$(cut -d' ' -f4 "$WORK/zvs.64" | median); pu=$(cut -d' ' -f4 "$WORK/pump.64" | median)
  awk -v z="$zf" -v p="$pf" -v zu="$zu" -v pu="$pu" 'BEGIN {
    printf "BENCH hercules_lcs_fps_64b_vs_pump %d frames/s pump %d %.3f\n", z, p, (p > 0 ? z / p : 0)
    printf "BENCH hercules_lcs_us_per_frame_vs_pump %.3f us pump %.3f %.3f\n", zu, pu,
      (zu > 0 ? pu / zu : 0) }'
else
  for n in hercules_lcs_pump_fps_64b hercules_lcs_pump_mbps_1514 hercules_lcs_pump_us_per_frame \
           hercules_lcs_fps_64b_vs_pump hercules_lcs_us_per_frame_vs_pump; do
    echo "NOTRUN $n $NOFLOOR_WHY"
  done
fi
