#!/usr/bin/env bash
# check: light (LACP negotiation of two OVS within 10 s, measured in 0.4-0.9 s; no traffic; the capture waited for)
# The Open vSwitch peer harness (ovs_lib.sh) checked on its own: two OVS userspace
# instances in two namespaces joined by two veth pairs, both bonds lacp=active fast, show
# every member negotiated within 10 s. Their LACPDUs, captured with tshark on one veth from
# before the bonds exist until 3 s after negotiation, all parse in our codec as valid
# LACPDUs from the two systems, ending in sync/collecting/distributing. A trimmed copy (the
# first frames: the real negotiation with an independent implementation) is written to
# tests/pcap/ovs_lacp_exchange.pcap when that file is missing or UPDATE_PCAP=1; otherwise
# the committed copy is checked the same way. Root; 77 without it or without OVS/tshark.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
GEN=$BUILD/tools/lacp_pcapgen
SAVED=$ROOT/tests/pcap/ovs_lacp_exchange.pcap
KEEP_FRAMES=8
. "$(dirname "$0")/ovs_lib.sh"

fail() {
  echo "FAIL: $*" >&2
  [ "$BASHPID" != "$$" ] && kill -TERM "$$"
  exit 1
}
skip() { echo "SKIP: $*"; exit 77; }
ok() { echo "ok: $*"; }

[ "$(id -u)" -eq 0 ] || skip "needs root for network namespaces"
command -v ip >/dev/null || skip "iproute2 missing"
command -v tshark >/dev/null || skip "tshark missing (scripts/deps.sh)"
command -v editcap >/dev/null || skip "editcap missing (scripts/deps.sh)"
ovs_require
[ -x "$GEN" ] || fail "no $GEN (run make)"

NS_A=zvs-ovsst-$$-a
NS_B=zvs-ovsst-$$-b
WORK=$(mktemp -d /tmp/zvs-ovsst.XXXXXX)
cleanup() {
  local status=$?
  cap_stop_all
  ovs_peer_stop "$WORK/ovsA"
  ovs_peer_stop "$WORK/ovsB"
  for ns in "$NS_A" "$NS_B"; do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
    ip netns del "$ns" 2>/dev/null
  done
  if [ "$status" -ne 0 ] && [ -z "${KEEP_WORK:-}" ]; then
    for f in "$WORK"/ovs*/ovs-vswitchd.log; do [ -f "$f" ] && { echo "--- $f"; tail -n 20 "$f"; }; done
  fi
  [ -z "${KEEP_WORK:-}" ] && rm -rf "$WORK"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

for ns in "$NS_A" "$NS_B"; do
  ip netns add "$ns" || fail "ip netns add $ns"
  ip -n "$ns" link set lo up
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
done
# Two links A.up1-B.up1, A.up2-B.up2; an access veth pair inside each namespace.
for i in 1 2; do
  ip -n "$NS_A" link add "up$i" type veth peer name "up$i" netns "$NS_B" || fail "veth up$i"
  ip -n "$NS_A" link set "up$i" up
  ip -n "$NS_B" link set "up$i" up
done
for ns in "$NS_A" "$NS_B"; do
  ip -n "$ns" link add acc0 type veth peer name acc0p || fail "veth acc0 in $ns"
  ip -n "$ns" link set acc0p up
done

CAP=$WORK/exchange.pcap
cap_start "$NS_A" up1 "$CAP" 30 || fail "capture on A.up1"
start=$(date +%s%N)
ovs_peer_start "$NS_A" "$WORK/ovsA" "up1 up2" acc0 fast 02:00:00:00:0a:01 || fail "OVS A"
ovs_peer_start "$NS_B" "$WORK/ovsB" "up1 up2" acc0 fast 02:00:00:00:0b:01 || fail "OVS B"
ovs_peer_wait_negotiated "$WORK/ovsA" 10 || { ovs_peer_lacp_show "$WORK/ovsA"; fail "A not negotiated in 10 s"; }
ovs_peer_wait_negotiated "$WORK/ovsB" 10 || { ovs_peer_lacp_show "$WORK/ovsB"; fail "B not negotiated in 10 s"; }
ms=$(( ($(date +%s%N) - start) / 1000000 ))
ok "both OVS bonds negotiated, every member current/attached/enabled, ${ms} ms after start"
ovs_peer_lacp_show "$WORK/ovsA" | sed 's/^/  A: /' | head -n 30
# The check must be able to fail: a bond that does not exist is not negotiated.
ovs_peer_members_negotiated "$WORK/ovsA" nosuchbond && fail "a missing bond counts as negotiated"
sleep 3
cap_stop "$CAP"
ovs_peer_members_negotiated "$WORK/ovsA" || fail "A no longer negotiated after 3 s"
stats=$(ovs_peer_lacp_stats "$WORK/ovsA") || fail "lacp/show-stats"
printf '%s\n' "$stats" | sed 's/^/  A: /' | head -n 20
rx=$(printf '%s\n' "$stats" | awk -F: '/RX PDUs/ { s += $2 } END { print s + 0 }')
[ "$rx" -ge 4 ] || fail "A's lacp/show-stats counts $rx RX PDUs"
ok "A's lacp/show-stats: $rx RX PDUs over both members"

# check_capture FILE MIN: every frame a valid LACPDU from one of the two systems, both seen.
check_capture() {
  local f=$1 min=$2 out sum n
  out=$("$GEN" --parse "$f") || fail "lacp_pcapgen --parse $f"
  sum=$(printf '%s\n' "$out" | tail -n 1)
  n=$(printf '%s\n' "$sum" | sed -n 's/.*frames=\([0-9]*\).*/\1/p')
  [ "${n:-0}" -ge "$min" ] || fail "$f: only ${n:-0} frames"
  [ "$sum" = "summary frames=$n lacp=$n marker=0 other=0 valid=$n illegal=0 unknown=0 loopback=0 not_slow=0" ] ||
    fail "$f: our codec: $sum"
  printf '%s\n' "$out" | grep -q 'actor_sys=[0-9]*,02:00:00:00:0a:01 ' || fail "$f: no PDU from A"
  printf '%s\n' "$out" | grep -q 'actor_sys=[0-9]*,02:00:00:00:0b:01 ' || fail "$f: no PDU from B"
  printf '%s\n' "$out" | grep -v '^summary' |
    grep -v -E 'actor_sys=[0-9]+,02:00:00:00:0(a|b):01 ' && fail "$f: PDU from an unknown system"
  echo "$out"
}
out=$(check_capture "$CAP" 6)
n=$(printf '%s\n' "$out" | tail -n 1 | sed 's/.*frames=\([0-9]*\).*/\1/')
printf '%s\n' "$out" | head -n 4 | sed 's/^/  /'
# Converged: the last PDU of each side claims sync, collecting, distributing, fast, active.
for sys in 0a:01 0b:01; do
  last=$(printf '%s\n' "$out" | grep "actor_sys=[0-9]*,02:00:00:00:$sys " | tail -n 1)
  st=$(printf '%s\n' "$last" | sed -n 's/.*actor_state=0x\([0-9a-f]*\).*/\1/p')
  [ $(( 16#${st:-0} & 0x3f )) -eq $((0x3f)) ] || fail "last PDU of 02:00:00:00:$sys: state 0x$st"
done
ok "all $n captured frames are valid LACPDUs from A and B in our codec; both end in 0x3f"
tshark -r "$CAP" -T fields -e _ws.expert.severity 2>/dev/null | grep -q . &&
  echo "note: tshark has expert info on OVS's PDUs: $(tshark -r "$CAP" -q -z expert 2>/dev/null | head -n 5)"

if [ ! -f "$SAVED" ] || [ -n "${UPDATE_PCAP:-}" ]; then
  editcap -F pcap -r "$CAP" "$WORK/trim.pcap" "1-$KEEP_FRAMES" || fail "editcap"
  cp "$WORK/trim.pcap" "$SAVED" || fail "cannot write $SAVED"
  ok "saved the first $KEEP_FRAMES frames as tests/pcap/ovs_lacp_exchange.pcap"
fi
check_capture "$SAVED" 4 >/dev/null
ok "tests/pcap/ovs_lacp_exchange.pcap: every frame a valid LACPDU from A or B"
echo "ovs_peer_selftest: passed"
