#!/usr/bin/env bash
# check: parallel (exact frame counts on static neighbours; no rate judged; about 2 s)
# The floors `make bench` measures beside vswitchd forward what they are given, exactly:
# tests/tools/tap_pump between a tap it makes and a veth (bench_veth.sh's floor), and
# between an existing interface read through its TPACKET_V2 ring and a veth
# (bench_hercules.sh's), with the counts it prints at exit; tests/tools/scale_floor's own
# check of every frame it places (bench_scale.sh's floor). A floor that dropped, reordered
# or misplaced frames would flatter every figure it is compared with.
. "$(dirname "$0")/lib.sh"
PUMP=$BUILD/tools/tap_pump
FLOOR=$BUILD/tools/scale_floor
[ -x "$PUMP" ] && [ -x "$FLOOR" ] || fail "no $PUMP or $FLOOR (run make)"

lab_init floor
# 1. scale_floor: every frame it places checked by its own drain (exit 1 otherwise).
"$FLOOR" --frames 6400 --rounds 1 --guests "3 50" >"$WORK/floor" 2>&1 ||
  fail "scale_floor: $(cat "$WORK/floor")"
grep -Eq '^FLOOR guests 3 frames 6400 Mpps [0-9.]+$' "$WORK/floor" &&
  grep -Eq '^FLOOR guests 50 frames 6400 Mpps [0-9.]+$' "$WORK/floor" ||
  fail "scale_floor's lines: $(cat "$WORK/floor")"
echo "ok: scale_floor placed 6,400 frames among 3 and among 50 guests, each checked"

LAN=${LAB_IP[lan]} LAN2=${LAB_IP[lan2]}

# pump_run NAME ARGS...: tap_pump in NS_SW, its output in $WORK/NAME.out, PUMP_PID set
pump_run() {
  local name=$1; shift
  ip netns exec "$NS_SW" "$PUMP" "$@" >"$WORK/$name.out" 2>&1 &
  PUMP_PID=$!
  wait_for 5 grep -q '^ready' "$WORK/$name.out" || fail "tap_pump $*: $(cat "$WORK/$name.out")"
}
pump_end() {  # pump_end NAME: TERM, exit 0; its closing line in LINE
  kill -TERM "$PUMP_PID" 2>/dev/null
  wait "$PUMP_PID" || fail "tap_pump exited $?: $(cat "$WORK/$1.out")"
  PUMP_PID=
  LINE=$(grep '^tap_pump: ' "$WORK/$1.out")
}
neigh() {  # neigh NS DEV IP MAC: a permanent neighbour, so no ARP crosses the pump
  ip -n "$1" neigh replace "$3" lladdr "$4" dev "$2" nud permanent
}
mac() { ip -n "$1" -br link show "$2" | awk '{ print $3 }'; }
tap_guest() {  # tap_guest NAME TAP NS IP: a pump on TAP and l0, TAP moved to NS as IP
  pump_run "$1" "$2" l0
  ip -n "$NS_SW" link set "$2" netns "$3" || fail "move $2"
  ip -n "$3" addr add "$4/24" dev "$2"
  ip -n "$3" link set "$2" up
  neigh "$3" "$2" "$LAN" "$(mac "$NS_LAN" eth0)"
  neigh "$NS_LAN" eth0 "$4" "$(mac "$3" "$2")"
}

# 2. A tap it makes, moved into NS_A, and the veth l0 to NS_LAN: five echo requests and
# their replies, 98 bytes each, and nothing else; then 8 MB of TCP, whose super-frames
# cross whole (more bytes a frame than the MTU allows).
ip -n "$NS_SW" link add l0 type veth peer name eth0 netns "$NS_LAN" || fail "veth l0"
ip -n "$NS_SW" link set l0 up
ip -n "$NS_LAN" addr add "$LAN/24" dev eth0
ip -n "$NS_LAN" link set eth0 up
tap_guest tap pmp0 "$NS_A" "${LAB_IP[a]}"
ip netns exec "$NS_A" ping -c 5 -i 0.2 -W 2 "$LAN" >/dev/null || fail "ping through the tap pump"
pump_end tap
expect_eq "tap pump, ping" "$LINE" \
  "tap_pump: out 5 frames 490 bytes (0 dropped), in 5 frames 490 bytes (0 dropped)"

tap_guest tap2 pmp1 "$NS_B" "${LAB_IP[b]}"
ip netns exec "$NS_LAN" python3 "$ROOT/tests/integration/tcp_bytes.py" recv-server "$LAN" \
  8388608 >"$WORK/tcp.recv" 2>&1 &
srv=$!
wait_for 5 ip netns exec "$NS_LAN" sh -c "ss -ltn | grep -q ':5301 '" || fail "no TCP receiver"
timeout 20 ip netns exec "$NS_B" python3 "$ROOT/tests/integration/tcp_bytes.py" send-client \
  "$LAN" 8388608 >/dev/null 2>&1 || fail "TCP through the tap pump"
wait "$srv" || fail "TCP receiver: $(cat "$WORK/tcp.recv")"
expect_eq "bytes the LAN received" "$(tail -n 1 "$WORK/tcp.recv")" 8388608
pump_end tap2
read -r frames bytes dropped <<<"$(sed -n 's/^tap_pump: out \([0-9]*\) frames \([0-9]*\) bytes (\([0-9]*\) dropped).*/\1 \2 \3/p' <<<"$LINE")"
expect_eq "tap pump, TCP: frames dropped" "$dropped" 0
[ "$bytes" -ge 8388608 ] || fail "tap pump carried $bytes bytes out, fewer than the 8 MB sent"
[ $((bytes / frames)) -gt 1514 ] ||
  fail "tap pump: $((bytes / frames)) bytes a frame: super-frames did not cross whole ($LINE)"
echo "ok: tap pump, TCP: $frames frames, $((bytes / frames)) bytes a frame"

# 3. --ring: NS_C's veth peer gC read through the receive ring, the veth l1 to NS_LAN2:
# five echo requests, then 200 UDP datagrams of 18 bytes (60-byte frames) to a socket
# that takes them, every one forwarded: the pump's count and the LAN's rx counter agree.
ip -n "$NS_SW" link add gC type veth peer name eth0 netns "$NS_C" || fail "veth gC"
ip -n "$NS_SW" link add l1 type veth peer name eth0 netns "$NS_LAN2" || fail "veth l1"
for d in gC l1; do ip -n "$NS_SW" link set "$d" up; done
ip -n "$NS_C" addr add "${LAB_IP[c]}/24" dev eth0
ip -n "$NS_LAN2" addr add "$LAN2/24" dev eth0
ip -n "$NS_C" link set eth0 up
ip -n "$NS_LAN2" link set eth0 up
neigh "$NS_C" eth0 "$LAN2" "$(mac "$NS_LAN2" eth0)"
neigh "$NS_LAN2" eth0 "${LAB_IP[c]}" "$(mac "$NS_C" eth0)"
pump_run ring --ring gC l1
ip netns exec "$NS_C" ping -c 5 -i 0.2 -W 2 "$LAN2" >/dev/null || fail "ping through the ring pump"
ip netns exec "$NS_LAN2" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 9)); s.settimeout(5)
print("bound", flush=True)
n = 0
while n < 200:
    s.recv(64); n += 1
print(n)' "$LAN2" >"$WORK/udp.recv" 2>&1 &
sink=$!
wait_for 5 grep -q bound "$WORK/udp.recv" || fail "no UDP sink"
ip netns exec "$NS_C" python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(200):
    s.sendto(b"%018d" % i, (sys.argv[1], 9)); time.sleep(0.001)' "$LAN2" ||
  fail "UDP through the ring pump"
wait "$sink" || fail "UDP sink: $(cat "$WORK/udp.recv")"
expect_eq "datagrams the LAN took" "$(tail -n 1 "$WORK/udp.recv")" 200
pump_end ring
# 5 echo requests of 98 bytes, 200 datagrams in frames of 60 (14 + 20 + 8 + 18)
expect_eq "ring pump" "$LINE" \
  "tap_pump: out 205 frames 12490 bytes (0 dropped), in 5 frames 490 bytes (0 dropped)"
expect_eq "LAN2 eth0 rx_packets" \
  "$(ip netns exec "$NS_LAN2" cat /sys/class/net/eth0/statistics/rx_packets)" 205
echo "PASS: floor_tools"
