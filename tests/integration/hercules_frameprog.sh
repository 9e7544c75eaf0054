#!/usr/bin/env bash
# check: parallel (functional: IPL to ARP measured in 0.1-0.25 s against a 10 s bound; rates printed, not judged)
# The standalone s390 frame program (guests/frameprog) under Hercules, on an LCS tap
# bridged to a LAN namespace (issue 13):
#
#   NS_H:   hercules (ESA/390, LCS 0600.2) -- tap0 -- br0 -- vh  ===  eth0 :NS_LAN 10.77.0.100
#           the program answers as 10.77.0.50 with the LCS MAC (the tap's MAC + 1)
#
# Asserts: the image IPLs and ARP resolves to the program's MAC (IPL to first ARP answer
# is measured), ping gets exactly the replies sent, UDP echo returns every byte, the
# counters queried over the network equal exactly what the test sent, broken frames
# and a bad command are counted and survived, the generator sends exactly the frames
# asked for, and a truncated image or a missing parameter block ends in a disabled wait
# with the documented code within 10 s. Everything is bounded (180 s overall).
[ -n "${HFP_TIMED:-}" ] || HFP_TIMED=1 exec timeout -k 10 180 bash "$0" "$@"
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/hercules_bare_lib.sh"

IMAGE=$BUILD/guests/frameprog.bin
PEER="python3 $ROOT/tests/integration/frameprog_peer.py"

IP=10.77.0.50
LAN_IP=10.77.0.100
TAP_MAC=02:00:5e:77:00:10
WANT_MAC=02:00:5e:77:00:11           # the LCS MAC: the tap's MAC + 1
HERC_PID=

stop_hercules() {
  [ -n "$HERC_PID" ] || return 0
  kill -TERM "$HERC_PID" 2>/dev/null
  for _ in $(seq 20); do kill -0 "$HERC_PID" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$HERC_PID" 2>/dev/null
  wait "$HERC_PID" 2>/dev/null
  HERC_PID=
}

cleanup() {
  local status=$?
  stop_hercules
  [ "$status" -ne 0 ] && [ -f "$WORK/herc.log" ] && { echo "--- hercules log (tail)"; tail -n 25 "$WORK/herc.log"; }
  (exit "$status")
  lab_cleanup
}
bare_lab_init hfp cleanup
[ -s "$IMAGE" ] || fail "no $IMAGE after make guests"

# start_guest NAME IMAGE [PARAMS]: Hercules in NS_H IPLing IMAGE (and PARAMS at 0x100000).
start_guest() {
  local name=$1 image=$2 params=${3:-}
  local dir=$WORK/$name
  mkdir -p "$dir"
  # Hercules resolves the .ins lines relative to the .ins file's folder (absolute
  # paths elsewhere are refused): each guest gets its own copies.
  cp "$image" "$dir/frameprog.bin"
  [ -n "$params" ] && cp "$params" "$dir/params.bin"
  sed -e "s|@IMAGE@|frameprog.bin|" -e "s|@PARAMS@|params.bin|" "$BUILD/guests/frameprog.ins.template" |
    { if [ -n "$params" ]; then cat; else grep -v 0x00100000; fi; } > "$dir/fp.ins"
  cat > "$dir/hercules.cnf" <<CNF
ARCHMODE ESA/390
CPUMODEL 2097
MAINSIZE 16
NUMCPU 1
0009 3215-C /
0600.2 LCS -n /dev/net/tun -m $TAP_MAC $IP
CNF
  echo "ipl $dir/fp.ins" > "$dir/hercules.rc"
  ln -sf "$dir/herc.log" "$WORK/herc.log"
  HERCULES_RC=$dir/hercules.rc ip netns exec "$NS_H" hercules -d -f "$dir/hercules.cnf" \
    > "$dir/herc.log" 2>&1 < /dev/null &
  HERC_PID=$!
}

# expect_wait NAME IMAGE [PARAMS] CODE: the guest stops in a disabled wait with CODE.
expect_wait() {
  local name=$1 image=$2 params=$3 code=$4
  start_guest "$name" "$image" "$params"
  wait_for 10 grep -q "HHCCP011I.*Disabled wait state" "$WORK/$name/herc.log" ||
    fail "$name: no disabled wait within 10 s"
  # The PSW line follows HHCCP011I, but another Hercules thread may write a line between
  # them (HHCPN013I, the end of the script): take the first PSW= after HHCCP011I.
  local psw
  wait_for 5 sh -c 'sed -n "/HHCCP011I/,\$p" "$1" | grep -q "PSW="' _ "$WORK/$name/herc.log"
  psw=$(sed -n '/HHCCP011I/,$p' "$WORK/$name/herc.log" | grep -o "PSW=[0-9A-F]* [0-9A-F]*" | head -1)
  [ -n "$psw" ] || psw=$(grep -m1 "HHCCP011I" "$WORK/$name/herc.log")
  echo "$psw" | grep -qi "$code" || fail "$name: wait PSW '$psw', want code $code"
  echo "ok: $name ends in a disabled wait, code $code ($psw)"
  stop_hercules
}

# --- the program up: IPL to the first ARP answer -------------------------------------
"$ROOT/guests/mkparams.sh" -i "$IP" -n 255.255.255.0 -o "$WORK/params.bin" || fail "mkparams"
# The prober asks every 20 ms from before Hercules starts; the IPL moment is when the
# log shows the rc file's ipl command (watched every 10 ms).
ip netns exec "$NS_LAN" $PEER arp eth0 "$IP" 20 > "$WORK/arp.out" &
arp_pid=$!
sleep 0.5
start_guest good "$IMAGE" "$WORK/params.bin"
bare_tap_to_bridge "$TAP_MAC"
end=$((SECONDS + 10))
until grep -q "^ipl " "$WORK/good/herc.log"; do
  [ $SECONDS -lt $end ] || fail "Hercules did not run the IPL"
  sleep 0.01
done
t_ipl=$(date +%s.%N)
wait "$arp_pid" || fail "no ARP answer within 10 s of IPL"
arp_out=$(cat "$WORK/arp.out")
t_arp=${arp_out% *}
mac=${arp_out#* }
expect_eq "ARP answer's MAC" "$mac" "$WANT_MAC"
grep -q "ZVFP001I LCS 0600 UP MAC $WANT_MAC IP $IP" "$WORK/good/herc.log" ||
  fail "console banner missing: $(grep ZVFP "$WORK/good/herc.log")"
ipl_to_arp=$(awk -v a="$t_ipl" -v b="$t_arp" 'BEGIN { printf "%.3f", b - a }')
echo "measure: IPL command to first ARP answer ${ipl_to_arp} s"

# The kernel resolves it too.
ip netns exec "$NS_LAN" ping -c 1 -W 2 "$IP" >/dev/null || fail "first ping"
kmac=$(ip -n "$NS_LAN" neigh show "$IP" | awk '{ for (i = 1; i < NF; i++) if ($i == "lladdr") print $(i + 1) }')
expect_eq "kernel neighbour MAC" "$kmac" "$WANT_MAC"

# From here on nothing but what the test sends reaches the program: a permanent
# neighbour (no ARP), no IPv6; the counters start at zero.
ip -n "$NS_LAN" neigh replace "$IP" lladdr "$WANT_MAC" dev eth0 nud permanent
ctl() { ip netns exec "$NS_LAN" $PEER ctl "$IP" 7001 "$1"; }
reply=$(ctl RESET) || fail "RESET: no reply"
expect_eq "RESET reply" "$reply" "OK"

# --- ping and UDP echo -----------------------------------------------------------------
ping_out=$(ip netns exec "$NS_LAN" ping -c 5 -i 0.2 -W 2 "$IP")
received=$(echo "$ping_out" | sed -n 's/.* \([0-9]*\) received.*/\1/p')
expect_eq "ping replies" "$received" 5
rtt=$(echo "$ping_out" | sed -n 's|^rtt [^=]*= \([0-9.]*\)/\([0-9.]*\)/.*|\2|p')
echo "measure: ping RTT avg ${rtt} ms"
echo_out=$(ip netns exec "$NS_LAN" $PEER echo "$IP" 7 1 100 1472) || fail "UDP echo: $echo_out"
expect_eq "UDP echo, byte for byte" "$echo_out" "ok 3"

# --- the counters: exactly what was sent ---------------------------------------------------
stats=$(ctl STATS) || fail "STATS: no reply"
sv() { echo "$stats" | awk -v k="$1" '$1 == k { print $2 }'; }
expect_eq "STATS header" "$(echo "$stats" | head -1)" "ZVFP 1"
expect_eq "STATS mac" "$(sv mac)" "$WANT_MAC"
# In: 5 echo requests (98 bytes), UDP 1/100/1472 (43, 142, 1514 bytes), the query (47).
# Out: 5 echo replies, the UDP echoes (the 43-byte one padded to 60); the STATS reply is
# counted after the snapshot.
expect_eq frames_in "$(sv frames_in)" 9
expect_eq bytes_in "$(sv bytes_in)" $((5 * 98 + 43 + 142 + 1514 + 47))
expect_eq frames_out "$(sv frames_out)" 8
expect_eq bytes_out "$(sv bytes_out)" $((5 * 98 + 60 + 142 + 1514))
expect_eq icmp_echo_in "$(sv icmp_echo_in)" 5
expect_eq icmp_echo_out "$(sv icmp_echo_out)" 5
expect_eq udp_echo_in "$(sv udp_echo_in)" 3
expect_eq udp_echo_out "$(sv udp_echo_out)" 3
expect_eq arp_req_in "$(sv arp_req_in)" 0
expect_eq ctl_in "$(sv ctl_in)" 1
expect_eq drops "$(sv drops)" 0

# --- bad input: counted, survived -------------------------------------------------------
for kind in badudpsum badicmpsum tcp; do
  ip netns exec "$NS_LAN" $PEER raw eth0 "$WANT_MAC" $kind || fail "raw frame $kind"
done
bad=$(ctl "FROBNICATE now") || fail "bad command: no reply"
case $bad in ERR*) echo "ok: bad command answered: $bad" ;; *) fail "bad command reply: $bad" ;; esac
ip netns exec "$NS_LAN" ping -c 1 -W 2 "$IP" >/dev/null || fail "ping after bad input"
stats=$(ctl STATS) || fail "STATS: no reply"
expect_eq drop_malformed "$(sv drop_malformed)" 2
expect_eq drop_unsupported "$(sv drop_unsupported)" 1
expect_eq ctl_bad "$(sv ctl_bad)" 1
expect_eq icmp_echo_out "$(sv icmp_echo_out)" 6

# --- the generator: exactly the frames asked for ------------------------------------------
ip netns exec "$NS_LAN" $PEER sink 9000 20 500 > "$WORK/sink.out" &
sink_pid=$!
wait_for 5 grep -q ready "$WORK/sink.out" || fail "sink did not start"
reply=$(ctl "GEN $LAN_IP 9000 100 1000 500") || fail "GEN: no reply"
expect_eq "GEN reply" "$reply" "OK"
wait "$sink_pid"
read -r n nbytes span < <(tail -1 "$WORK/sink.out")
expect_eq "generated datagrams received" "$n" 500
expect_eq "generated payload bytes" "$nbytes" $((500 * (100 - 42)))
echo "measure: 500 frames at a requested 1000/s took ${span} s"

# Full rate, 64-byte frames: a rough figure for the LCS path, guest to LAN.
ip netns exec "$NS_LAN" $PEER sink 9001 20 30000 > "$WORK/sink2.out" &
sink_pid=$!
wait_for 5 grep -q ready "$WORK/sink2.out" || fail "sink did not start"
ctl "GEN $LAN_IP 9001 64 0 30000" >/dev/null || fail "GEN: no reply"
wait "$sink_pid"
read -r n nbytes span < <(tail -1 "$WORK/sink2.out")
fps=$(awk -v n="$n" -v s="$span" 'BEGIN { if (s > 0) printf "%d", n / s; else print 0 }')
echo "measure: generator at full rate, 64-byte frames: $n of 30000 received in ${span} s = $fps frames/s"
stats=$(ctl STATS)
echo "program: gen_out $(sv gen_out), drop_tx_full $(sv drop_tx_full)"
[ "$n" -gt 0 ] || fail "no generated frames at full rate"

# UDP reflection, 64-byte frames, a window of 32 in flight.
read -r sent got secs < <(ip netns exec "$NS_LAN" $PEER blast "$IP" 7 22 3 32)
rfps=$(awk -v n="$got" -v s="$secs" 'BEGIN { printf "%d", n / s }')
echo "measure: UDP echo reflection, 64-byte frames: $got echoes in ${secs} s = $rfps frames/s"
stop_hercules

# --- broken images: a disabled wait with the documented code, never a hang -----------------
head -c $(( $(stat -c %s "$IMAGE") / 2 )) "$IMAGE" > "$WORK/truncated.bin"
expect_wait truncated "$WORK/truncated.bin" "$WORK/params.bin" 00000BAD
expect_wait noparams "$IMAGE" "" 00000BA1
echo "PASS"
