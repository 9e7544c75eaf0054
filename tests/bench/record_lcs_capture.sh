#!/usr/bin/env bash
# record_lcs_capture: records again the captures bench_lcs.sh replays through the LCS
# backend: the frame program's UDP as it leaves the Hercules machine's LCS tap.
#
#   BUILD=build tests/bench/record_lcs_capture.sh [DIR]     (root; default DIR tests/bench/data)
#
# Writes DIR/lcs_frameprog_64.pcap and DIR/lcs_frameprog_1514.pcap (libpcap's pcap format,
# DLT_EN10MB, whole frames). Not run by `make bench` or `make check`: the committed files
# are what the bench replays, so its figures do not move with a recording.
#
#   NS_H:   hercules (ESA/390, LCS 0600.2) -- tap0 -- br0 -- vh  ===  eth0 :NS_LAN 10.77.0.100
#           the frame program 10.77.0.50, MAC 02:00:0c:00:00:12 (the tap's + 1, as LANSTAT
#           reports it)
#
# The machine is bench_hercules.sh's bridge machine (the same image, MAINSIZE 16, LCS
# 0600 with an OAT as vswitchd writes it), the addresses those of its zvswitch rounds;
# the LAN host's MAC is fixed here (02:00:00:4c:41:4e) so that a new recording differs
# from the last only in what the program counts and clocks (the IPv4 identification, the
# TOD clock, the checksums) and in the capture's time stamps. Per size,
# as bench_hercules.sh asks: `GEN 10.77.0.100 9 SIZE 0 0` (port 9, full rate, endless),
# dumpcap on tap0 keeps the first N64 (default 320) or N1514 (default 128) frames the
# program sends to UDP port 9, then STOP. 1514-byte frames are few so that both files
# stay near 220 KB. Exit: 0 recorded, 77 not root, 1 a step failed.
[ -n "${RLC_TIMED:-}" ] || RLC_TIMED=1 exec timeout -k 10 120 bash "$0" "$@"
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/../integration/hercules_bare_lib.sh"
OUT=${1:-$ROOT/tests/bench/data}
N64=${N64:-320}
N1514=${N1514:-128}
IP=10.77.0.50
LAN_IP=10.77.0.100
TAP_MAC=02:00:0c:00:00:11
MAC=02:00:0c:00:00:12
LAN_MAC=02:00:00:4c:41:4e
PEER="python3 $ROOT/tests/integration/frameprog_peer.py"
HERC_PID=

cleanup() {
  local status=$?
  [ -n "$HERC_PID" ] && { kill -KILL "$HERC_PID" 2>/dev/null; wait "$HERC_PID" 2>/dev/null; }
  [ "$status" -ne 0 ] && [ -f "$WORK/herc.log" ] && { echo "--- hercules log (tail)"; tail -n 15 "$WORK/herc.log"; }
  (exit "$status")
  lab_cleanup
}
bare_lab_init rlc cleanup
command -v dumpcap >/dev/null && command -v tshark >/dev/null || fail "no dumpcap or tshark (run make deps)"
mkdir -p "$OUT" || fail "cannot make $OUT"
ip -n "$NS_LAN" link set eth0 down && ip -n "$NS_LAN" link set eth0 address "$LAN_MAC" &&
  ip -n "$NS_LAN" link set eth0 up || fail "the LAN host's MAC"

# The machine: what vswitchd writes for a machine (guests/vm_conf.c), as bench_hercules.sh's
# bridge machine has it.
cp "$BUILD/guests/frameprog.bin" "$WORK/frameprog.bin"
"$ROOT/guests/mkparams.sh" -i "$IP" -n 255.255.255.0 -o "$WORK/params.bin" || fail "mkparams"
sed -e "s|@IMAGE@|frameprog.bin|" -e "s|@PARAMS@|params.bin|" \
  "$BUILD/guests/frameprog.ins.template" >"$WORK/frameprog.ins"
printf 'HWADD 00 %s\n0600 IP 00 PRI %s\n' "$TAP_MAC" "$IP" >"$WORK/lcs.oat"
cat >"$WORK/hercules.cnf" <<EOF
ARCHMODE ESA/390
CPUMODEL 2097
MAINSIZE 16
NUMCPU 1
0009 3215-C /
0600.2 LCS -n /dev/net/tun -m $TAP_MAC -o $WORK/lcs.oat $IP
EOF
echo "ipl $WORK/frameprog.ins" >"$WORK/hercules.rc"
HERCULES_RC=$WORK/hercules.rc ip netns exec "$NS_H" hercules -d -f "$WORK/hercules.cnf" \
  >"$WORK/herc.log" 2>&1 </dev/null &
HERC_PID=$!
bare_tap_to_bridge "$TAP_MAC"
ip netns exec "$NS_LAN" $PEER arp eth0 "$IP" 10 >/dev/null || fail "the frame program did not answer ARP"
grep -q "ZVFP001I LCS 0600 UP MAC $MAC IP $IP" "$WORK/herc.log" || fail "the program's MAC is not $MAC"

# ctl CMD: the program's answer; up to 5 tries, for at full rate an answer may be lost
# (GEN replaces a running generator, STOP is idempotent).
ctl() {
  local i
  for i in 1 2 3 4 5; do
    ip netns exec "$NS_LAN" $PEER ctl "$IP" 7001 "$1" 2>/dev/null && return 0
  done
  return 1
}

# record SIZE N: N frames of SIZE bytes from the program to the LAN's port 9, in order.
record() {
  local size=$1 n=$2
  rm -f "$WORK/cap.pcap"
  ip netns exec "$NS_H" dumpcap -q -P -i tap0 -c "$n" -f "ether src $MAC and udp dst port 9" \
    -w "$WORK/cap.pcap" 2>"$WORK/cap.err" &
  local cap=$!
  wait_for 10 grep -q "Capturing on" "$WORK/cap.err" || fail "dumpcap did not start: $(cat "$WORK/cap.err")"
  [ "$(ctl "GEN $LAN_IP 9 $size 0 0")" = OK ] || fail "GEN $size"
  wait_for 20 bash -c "! kill -0 $cap" || fail "dumpcap got fewer than $n frames of $size bytes"
  wait "$cap" || fail "dumpcap: $(cat "$WORK/cap.err")"
  ctl STOP >/dev/null || fail "STOP"
  [ "$(tshark -r "$WORK/cap.pcap" -T fields -e frame.len 2>/dev/null | sort -u)" = "$size" ] ||
    fail "the capture holds other sizes than $size"
  [ "$(tshark -r "$WORK/cap.pcap" 2>/dev/null | wc -l)" -eq "$n" ] || fail "the capture holds other than $n frames"
  mv "$WORK/cap.pcap" "$WORK/lcs_frameprog_$size.pcap"
  echo "recorded $n frames of $size bytes, $(stat -c %s "$WORK/lcs_frameprog_$size.pcap") bytes"
}
record 64 "$N64"
record 1514 "$N1514"
# Both or neither: a pair from two recordings would be replayed as one.
for size in 64 1514; do
  install -m 644 "$WORK/lcs_frameprog_$size.pcap" "$OUT/" ||   # dumpcap makes it 0600
    fail "cannot write $OUT/lcs_frameprog_$size.pcap"
  echo "wrote $OUT/lcs_frameprog_$size.pcap"
done
