#!/usr/bin/env bash
# check: parallel (exact frame counts in windows of seconds; no timers, no rates)
# An external guest program on shared-memory QDIO queues: vswitchd -q SOCKET, LNXC's NIC
# bound with NICBIND QDIO, and tests/tools/qdio_peer attaching to it from another
# process. Frames cross in both directions with exact counts; a second program can
# attach after the first detached; a wrong userid is refused.
. "$(dirname "$0")/lib.sh"
PEER=$BUILD/tools/qdio_peer
[ -x "$PEER" ] || fail "no $PEER (run make)"
PY=/usr/bin/python3

lab_init qdio
SOCK=$WORK/qdio.sock
VSWITCHD_ARGS="-q $SOCK" LAB_TAPS="a b" \
  lab_start "$ROOT/configs/lab/SYSTEM.CONFIG" "$ROOT/configs/lab/USER-QDIO.DIRECT" 1500
wait_for 5 test -S "$SOCK" || fail "no attach socket"
MAC_A=$(ip -n "$NS_A" -br link show lnxa-f000 | awk '{print $3}')
MAC_C=02:00:0c:00:01:13

# Count frames of EtherType 0x88B5 arriving in namespace A for a few seconds.
count_in_a() {
  ip netns exec "$NS_A" $PY - "$1" <<'PYEOF'
import socket, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x88B5))
s.bind(("lnxa-f000", 0))
s.settimeout(0.2)
n, end = 0, time.time() + float(sys.argv[1])
while time.time() < end:
    try:
        s.recv(2048); n += 1
    except socket.timeout:
        pass
print(n)
PYEOF
}

# 1. The program sends 5 frames to LNXA.
count_in_a 4 >"$WORK/count" &
CNT=$!
sleep 1
ip netns exec "$NS_SW" "$PEER" -s "$SOCK" -u lnxc -v F000 -m $MAC_C -d "$MAC_A" -n 5 -e 0 -t 3 \
  >"$WORK/peer1" 2>&1 || fail "qdio_peer send: $(cat "$WORK/peer1")"
wait $CNT
expect_eq "frames LNXA received from the external guest" "$(cat "$WORK/count")" 5

# 2. A new program attaches (the queues were reset when the first one detached) and
#    receives 3 frames that LNXA sends to it.
ip netns exec "$NS_SW" "$PEER" -s "$SOCK" -u LNXC -v F000 -m $MAC_C -d "$MAC_A" -n 0 -e 3 -t 6 \
  >"$WORK/peer2" 2>&1 &
PEER_PID=$!
wait_for 5 grep -c "guest program attached" "$WORK/vswitchd.log" -q
sleep 0.5
ip netns exec "$NS_A" $PY - "$MAC_C" "$MAC_A" <<'PYEOF'
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("lnxa-f000", 0))
dst = bytes.fromhex(sys.argv[1].replace(":", "")); src = bytes.fromhex(sys.argv[2].replace(":", ""))
for i in range(3):
    s.send(dst + src + b"\x88\xb5" + bytes([i]) * 50)
PYEOF
wait $PEER_PID || fail "qdio_peer receive: $(cat "$WORK/peer2")"
expect_eq "external guest" "$(cat "$WORK/peer2")" "sent 0 received 3"

R=$(lab_stats)
expect_eq "LNXC tx_packets" "$(counter "$R" LNXC tx_packets)" 5
expect_eq "LNXC rx_packets" "$(counter "$R" LNXC rx_packets)" 3
expect_eq "LNXC tx_bytes" "$(counter "$R" LNXC tx_bytes)" 320
[ "$(grep -c 'guest program detached' "$WORK/vswitchd.log")" -eq 2 ] || fail "detaches not seen"

# 3. A userid without an external NIC is refused with a reason.
ip netns exec "$NS_SW" "$PEER" -s "$SOCK" -u LNXA -v F000 -m $MAC_C -d "$MAC_A" -n 1 -t 1 \
  >"$WORK/peer3" 2>&1 && fail "attach as LNXA accepted"
grep -q "no NICBIND QDIO NIC" "$WORK/peer3" || fail "refusal reason: $(cat "$WORK/peer3")"
echo "lab_qdio: passed"
