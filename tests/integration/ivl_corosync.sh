#!/usr/bin/env bash
# check: light (corosync's token of 1 s: membership changes in seconds; no traffic)
# Three systems' corosyncs on an IVL network, as the IVL domain runs them: per system a
# network namespace, a mount namespace of its own over /run and /dev/shm (the fixed
# /run/corosync.pid; libqb's rings), its own corosync.conf written by `vswitchd
# --write-corosync` from its SYSTEM CONFIG (knet on its IVL address, token 1 s from IVL
# HEARTBEAT TIMEOUT, the shared authkey, its own state_dir, sched_rr: no), and a client of
# ours on ivl/cluster_corosync.c (build/tools/ivl_probe) in the same namespaces. Asserted:
#   - every system sees the view 1,2,3, quorate, the token timeout of 1000 ms, and every
#     system's message sent in that view (agreed order, virtual synchrony);
#   - the IVL cut from system 3: systems 1 and 2 see the view 1,2 and stay quorate,
#     system 3 sees itself alone without quorum; healed: 1,2,3 again, quorate;
#   - system 2's corosync killed with SIGKILL: its client hears LOST at once; 1 and 3 see
#     the view 1,3 after the token timeout and stay quorate (two of three votes).
# Every wait is bounded; the cleanup stops every process it started (by pid) and removes
# the namespaces and files, also on failure.
set -u
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root for namespaces"; exit 77; }
command -v corosync >/dev/null || { echo "SKIP: corosync missing"; exit 77; }
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VSWITCHD=$ROOT/$BUILD/bin/vswitchd
PROBE=$ROOT/$BUILD/tools/ivl_probe
[ -x "$VSWITCHD" ] && [ -x "$PROBE" ] || { echo "FAIL: build first (vswitchd, ivl_probe)"; exit 1; }

TAG=zvs-ivl-$$
NET=$TAG-net
W=$(mktemp -d /tmp/zvs-ivl-lab.XXXXXX)
PIDS=()

cleanup() {
  for f in "$W"/s*/probe.pid "$W"/s*/corosync.pid; do
    [ -f "$f" ] && kill -TERM "$(cat "$f")" 2>/dev/null
  done
  for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
  sleep 0.3
  for f in "$W"/s*/probe.pid "$W"/s*/corosync.pid; do
    [ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
  done
  for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  for n in 1 2 3; do ip netns del "$TAG-s$n" 2>/dev/null; done
  ip netns del "$NET" 2>/dev/null
  rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' TERM INT

fail() { echo "FAIL: $*"; for n in 1 2 3; do echo "--- system $n"; cat "$W/s$n/probe.log" 2>/dev/null; done; exit 1; }

# the last line of system n's log that starts with $2
last() { grep "^$2" "$W/s$1/probe.log" 2>/dev/null | tail -n 1; }
# wait up to $3 s until system $1's last "$2..." line is exactly $4
wait_last() {
  local end=$((SECONDS + $3))
  while [ $SECONDS -lt $end ]; do
    [ "$(last "$1" "$2")" = "$4" ] && return 0
    sleep 0.1
  done
  fail "system $1: last '$2' line is '$(last "$1" "$2")', not '$4' after $3 s"
}
wait_line() {
  local end=$((SECONDS + $3))
  while [ $SECONDS -lt $end ]; do
    grep -qx -- "$2" "$W/s$1/probe.log" 2>/dev/null && return 0
    sleep 0.1
  done
  fail "system $1: no line '$2' after $3 s"
}

# The IVL network: a bridge in its own namespace, one veth to each system.
ip netns add "$NET" && ip -n "$NET" link add br0 type bridge && ip -n "$NET" link set br0 up ||
  fail "cannot make the IVL network"
head -c 256 /dev/urandom > "$W/authkey" && chmod 400 "$W/authkey"
for n in 1 2 3; do
  NS=$TAG-s$n
  mkdir -p "$W/s$n/state"
  ip netns add "$NS" || fail "cannot make $NS"
  ip link add ivl0 netns "$NS" type veth peer name p$n netns "$NET" || fail "veth $n"
  ip -n "$NET" link set p$n master br0 up
  ip -n "$NS" addr add 10.77.0.$n/24 dev ivl0
  ip -n "$NS" link set ivl0 up
  ip -n "$NS" link set lo up
  cat > "$W/s$n/SYSTEM.CONFIG" <<CONF
SYSTEM_IDENTIFIER_DEFAULT SYS$n
DEFINE VSWITCH IVLVSW TYPE IVL
DEFINE VSWITCH ZVSGLOB TYPE QDIO GLOBAL
IVL MEMBER SYS1 INDEX 1 ADDRESS 10.77.0.1
IVL MEMBER SYS2 INDEX 2 ADDRESS 10.77.0.2
IVL MEMBER SYS3 INDEX 3 ADDRESS 10.77.0.3
IVL HEARTBEAT TIMEOUT 1
CONF
  echo "USER OPERATOR LBYONLY 64M 64M ABCDEFG" > "$W/s$n/USER.DIRECT"
  "$VSWITCHD" -c "$W/s$n/SYSTEM.CONFIG" -u "$W/s$n/USER.DIRECT" \
    --write-corosync "$W/s$n/corosync.conf" --corosync-key "$W/authkey" \
    --corosync-state "$W/s$n/state" || fail "vswitchd --write-corosync on system $n"
  grep -q "ring0_addr: 10.77.0.$n" "$W/s$n/corosync.conf" || fail "system $n's corosync.conf"
done

# A system: its corosync and its client in one mount namespace over its network namespace.
start_system() {
  local n=$1
  : > "$W/s$n/probe.log"
  ip netns exec "$TAG-s$n" unshare -m --propagation private bash -c '
    mount -t tmpfs tmpfs /run && mount -t tmpfs tmpfs /dev/shm || exit 1
    corosync -f -c "$1/corosync.conf" > "$1/corosync.log" 2>&1 &
    echo $! > "$1/corosync.pid"
    echo $$ > "$1/probe.pid"
    exec "$2" ZVSGLOB >> "$1/probe.log" 2>&1' _ "$W/s$n" "$PROBE" &
  PIDS+=($!)
}

for n in 1 2 3; do start_system $n; done
for n in 1 2 3; do
  wait_last $n VIEW 20 "VIEW 1,2,3"
  wait_last $n "QUORUM" 10 "QUORUM 1 1,2,3"
  wait_line $n "TOKEN 1000" 1
  for m in 1 2 3; do wait_line $n "MSG $m v3-$m" 5; done
done
echo "ok: three systems, one view, quorate, every message everywhere"

ip -n "$NET" link set p3 down
for n in 1 2; do
  wait_last $n VIEW 10 "VIEW 1,2"
  wait_last $n QUORUM 5 "QUORUM 1 1,2"
done
wait_last 3 VIEW 10 "VIEW 3"
wait_last 3 QUORUM 5 "QUORUM 0 3"
echo "ok: IVL cut from system 3: 1 and 2 keep quorum, 3 alone without"

ip -n "$NET" link set p3 up
for n in 1 2 3; do
  wait_last $n VIEW 15 "VIEW 1,2,3"
  wait_last $n QUORUM 5 "QUORUM 1 1,2,3"
done
echo "ok: healed"

kill -KILL "$(cat "$W/s2/corosync.pid")"
wait_line 2 "LOST" 5
for n in 1 3; do
  wait_last $n VIEW 10 "VIEW 1,3"
  wait_last $n QUORUM 5 "QUORUM 1 1,3"
done
echo "ok: system 2's corosync killed: its client lost it, 1 and 3 keep quorum"
echo "PASS"
