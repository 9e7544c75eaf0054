#!/usr/bin/env bash
# check: light (floods at 10,000 frames/s while the other member keeps its LACP timers, 3 s of margin; 4.8 s of CPU in 15 s)
# pcap replay into vswitchd's port group members with tcpreplay (no live peer):
#  1. the real exchange captured between two Open vSwitch instances
#     (tests/pcap/ovs_lacp_exchange.pcap), only the PDUs of one system, into member 28BA:
#     the member's partner becomes exactly that system, key and port, and its LACPDU count
#     is exactly the frames replayed;
#     Then the peer's half of captures of vswitchd's own exchanges with the switch model
#     and with OVS (tests/pcap/zvs_*_exchange.pcap), checked against tshark's decode;
#  2. every crafted bad frame (tests/pcap/*.pcap, plus a loopback of our own system made
#     with lacp_pcapgen) into member 28BA: each lands in its MIB counter (illegal,
#     unknown, loopback) exactly, valid ones in the LACPDU count, the Marker is answered;
#  2b. the long version 2 LACPDUs (tests/pcap/lacp_v2_long.pcap, 642 bytes, and
#     lacp_v2_max.pcap, 1514 bytes) into 28BA: each is one more LACPDU received, none is
#     illegal or malformed;
#  3. floods at 10,000 frames/s on 28BA (valid LACPDUs of a stranger, then truncated
#     ones): all counted, the daemon keeps running, the log stays rate-limited, and the
#     other member (2902, negotiated with the switch model) stays as it was.
. "$(dirname "$0")/lib.sh"
command -v tcpreplay >/dev/null || skip "tcpreplay missing (scripts/deps.sh)"
command -v tshark >/dev/null || skip "tshark missing (scripts/deps.sh)"
GEN=$BUILD/tools/lacp_pcapgen
[ -x "$GEN" ] || fail "no $GEN (run make)"
lab_init replay

# The switch model is the live partner of 2902 only (its Gi2/23 block removed): replays go
# into 28BA, and 2902 shows what must not change.
sed -e '/^interface GigabitEthernet2\/23/,/^!/d' -e '/rate-limit/d' \
  "$ROOT/configs/switchmodel/lab6509.conf" >"$WORK/one-member.conf"
VSWITCHD_ARGS="-l info" LAB_TAPS="a" lab_group_start "$WORK/one-member.conf" \
  "$ROOT/configs/lab/SYSTEM-GROUP.CONFIG" "$ROOT/configs/lab/USER.DIRECT"
wait_for 15 sh -c "grep -q '2902 is collecting, is distributing' '$WORK/vswitchd.log'" ||
  fail "2902 did not negotiate with the switch model"

# member_field REPORT RDEV LABEL N: the N-th number after LABEL on the LACPDUs line of a
# member's block (LABEL "rx", "tx", "illegal", "unknown", "loopback").
member_lacpdus() {
  awk -v dev="$2" -v label="$3" '
    $1 == "RDEV" { cur = $2 }
    cur == dev && $1 == "LACPDUs:" { for (i = 2; i < NF; i++) if ($i == label) { print $(i + 1); exit } }' "$1"
}
member_line() {  # REPORT RDEV PREFIX: the member block line starting with PREFIX
  awk -v dev="$2" -v p="$3" '$1 == "RDEV" { cur = $2 } cur == dev && $1 == p { print; exit }' "$1"
}
replay() {  # IFACE FILE [tcpreplay options]
  local ifc=$1 f=$2; shift 2
  ip netns exec "$NS_PHY" tcpreplay -q -i "$ifc" "$@" "$f" >"$WORK/tcpreplay.log" 2>&1 ||
    fail "tcpreplay $f: $(cat "$WORK/tcpreplay.log")"
}

# ---- 1. the OVS exchange: one system's PDUs -------------------------------------------
ovs_one=$WORK/ovs_a.pcap
tshark -r "$ROOT/tests/pcap/ovs_lacp_exchange.pcap" -Y 'lacp.actor.sysid == 02:00:00:00:0a:01' \
  -w "$ovs_one" 2>/dev/null || fail "tshark filter"
n=$("$GEN" --parse "$ovs_one" | sed -n 's/^summary frames=\([0-9]*\).*/\1/p')
[ "$n" -ge 3 ] || fail "too few frames of system 0a:01 in the OVS capture ($n)"
last=$("$GEN" --parse "$ovs_one" | grep '^[0-9]' | tail -n 1)
rep=$(lab_stats)
rx0=$(member_lacpdus "$rep" 28BA rx)
replay sw-osa28ba "$ovs_one" --pps=20
sleep 0.3
rep=$(lab_stats)
expect_eq "28BA LACPDUs rx after the OVS replay" "$(member_lacpdus "$rep" 28BA rx)" "$((rx0 + n))"
partner=$(member_line "$rep" 28BA Partner:)
echo "$partner"
echo "$partner" | grep -q "Sys 65534,02-00-00-00-0A-01  Key 2  Port 65535,2 " ||
  fail "28BA partner is not OVS's system 65534,02:00:00:00:0a:01 key 2 port 65535,2: $partner"
want_state=$(echo "$last" | sed -n 's/.*actor_state=0x\([0-9a-f]*\).*/\1/p')
[ "$want_state" = 3f ] || fail "unexpected last actor state in capture: $want_state"
# 802.1AX recordPDU: Synchronization is recorded only when the PDU's partner information
# describes us; these PDUs describe the other OVS, so SYN is cleared, the rest kept.
echo "$partner" | grep -q "State ACT STO AGG COL DIS$" || fail "partner state not ACT STO AGG COL DIS"
echo "ok: replayed OVS PDUs set 28BA's partner exactly"

# ---- 1b. captures of vswitchd's own exchanges (with the switch model, with OVS): the
# peer's PDUs replayed into 28BA make it the partner exactly as tshark, an independent
# decoder, reads the last of them.
for fx in zvs_switchmodel_exchange zvs_ovs_exchange; do
  f=$ROOT/tests/pcap/$fx.pcap
  [ -f "$f" ] || fail "missing fixture $f"
  peer=$WORK/$fx.peer.pcap
  tshark -r "$f" -Y 'lacp && lacp.actor.sysid != 02:00:0c:00:00:00' -w "$peer" 2>/dev/null ||
    fail "tshark filter $fx"
  n=$(tshark -r "$peer" 2>/dev/null | wc -l)
  [ "$n" -ge 2 ] || fail "$fx: only $n peer PDUs"
  read -r sp sys key pp port < <(tshark -r "$peer" -T fields -E separator=' ' \
    -e lacp.actor.sys_priority -e lacp.actor.sysid -e lacp.actor.key \
    -e lacp.actor.port_priority -e lacp.actor.port 2>/dev/null | tail -n 1)
  want=$(printf 'Sys %s,%s  Key %s  Port %s,%s ' "$sp" "$(echo "$sys" | tr 'a-f:' 'A-F-')" \
         "$((key))" "$pp" "$((port))")
  rep=$(lab_stats)
  rx0=$(member_lacpdus "$rep" 28BA rx)
  replay sw-osa28ba "$peer" --pps=20
  sleep 0.3
  rep=$(lab_stats)
  expect_eq "$fx: 28BA LACPDUs rx" "$(member_lacpdus "$rep" 28BA rx)" "$((rx0 + n))"
  partner=$(member_line "$rep" 28BA Partner:)
  case $partner in *"$want"*) echo "ok: $fx: partner $want" ;;
    *) fail "$fx: partner is '$partner', tshark reads '$want'" ;; esac
done

# ---- 2. crafted frames into 28BA ----------------------------------------------------------
mkdir -p "$WORK/crafted"
"$GEN" --crafted "$WORK/crafted" --system 02:00:0c:00:00:00 --sys-prio 32768 >/dev/null ||
  fail "lacp_pcapgen --crafted"
rep=$(lab_stats)
for f in rx illegal unknown loopback; do eval "b_$f=$(member_lacpdus "$rep" 28BA $f)"; done
mk_rx0=$(member_line "$rep" 28BA Markers: | awk '{print $3}')
want_illegal=0 want_unknown=0 want_loop=0 want_rx=0
for f in "$WORK"/crafted/*.pcap; do
  v=$("$GEN" --parse "$f" --system 02:00:0c:00:00:00 --sys-prio 32768 | grep '^[0-9]' | awk '{print $2 " " $3}')
  case $v in
    *illegal*) want_illegal=$((want_illegal + 1)) ;;
    *unknown*) want_unknown=$((want_unknown + 1)) ;;
    *loopback*) want_loop=$((want_loop + 1)); want_rx=$((want_rx + 1)) ;;
    "lacp valid") want_rx=$((want_rx + 1)) ;;
  esac
  replay sw-osa28ba "$f"
done
[ $want_illegal -ge 10 ] && [ $want_unknown -ge 1 ] && [ $want_loop -eq 1 ] ||
  fail "crafted set changed: illegal $want_illegal unknown $want_unknown loopback $want_loop"
sleep 0.3
rep=$(lab_stats)
expect_eq "28BA illegal_rx" "$(member_lacpdus "$rep" 28BA illegal)" "$((b_illegal + want_illegal))"
expect_eq "28BA unknown_rx" "$(member_lacpdus "$rep" 28BA unknown)" "$((b_unknown + want_unknown))"
expect_eq "28BA loopback_rx" "$(member_lacpdus "$rep" 28BA loopback)" "$((b_loopback + want_loop))"
expect_eq "28BA LACPDUs rx" "$(member_lacpdus "$rep" 28BA rx)" "$((b_rx + want_rx))"
expect_eq "28BA Marker PDUs rx (answered)" "$(member_line "$rep" 28BA Markers: | awk '{print $3}')" "$((mk_rx0 + 1))"
grep -q "malformed: $want_illegal\b\|malformed: $((want_illegal + want_unknown))\b" "$rep" ||
  echo "note: glue counter: $(grep 'malformed' "$rep")"

# ---- 2b. long version 2 LACPDUs (802.1AX-2014 TLVs past the 124 bytes of version 1) -------
rep=$(lab_stats)
rx0=$(member_lacpdus "$rep" 28BA rx)
ill0=$(member_lacpdus "$rep" 28BA illegal)
mal0=$(sed -n 's/.*malformed: \([0-9]*\).*/\1/p' "$rep" | head -n 1)
for fx in lacp_v2_long lacp_v2_max; do
  f=$ROOT/tests/pcap/$fx.pcap
  [ -f "$f" ] || fail "missing fixture $f"
  "$GEN" --parse "$f" | grep -q '^1 lacp valid len=' || fail "$fx: our codec does not accept it"
  replay sw-osa28ba "$f"
done
sleep 0.3
rep=$(lab_stats)
expect_eq "28BA LACPDUs rx after the 642- and 1514-byte v2 PDUs" "$(member_lacpdus "$rep" 28BA rx)" "$((rx0 + 2))"
expect_eq "28BA illegal_rx after the long v2 PDUs" "$(member_lacpdus "$rep" 28BA illegal)" "$ill0"
expect_eq "group malformed after the long v2 PDUs" \
  "$(sed -n 's/.*malformed: \([0-9]*\).*/\1/p' "$rep" | head -n 1)" "$mal0"
echo "ok: long v2 LACPDUs (642 and 1514 bytes) accepted"

# ---- 3. floods at 10,000 frames/s on 28BA -------------------------------------------------
"$GEN" --flood "$WORK/flood.pcap" 10000 >/dev/null || fail "lacp_pcapgen --flood"
state2902=$(member_line "$rep" 2902 Machines:)
echo "$state2902" | grep -q "MUX DISTRIBUTING" || fail "2902 not distributing before the flood: $state2902"
rx0=$(member_lacpdus "$rep" 28BA rx)
ill0=$(member_lacpdus "$rep" 28BA illegal)
warn0=$(grep -c "malformed Slow Protocols frame" "$WORK/vswitchd.log")
replay sw-osa28ba "$WORK/flood.pcap" --pps=10000
replay sw-osa28ba "$ROOT/tests/pcap/lacp_truncated.pcap" --pps=10000 --loop=10000
sleep 0.5
kill -0 "$VSWITCHD_PID" 2>/dev/null || fail "vswitchd died under the flood"
rep=$(lab_stats)
expect_eq "28BA LACPDUs rx after 10000 valid" "$(member_lacpdus "$rep" 28BA rx)" "$((rx0 + 10000))"
expect_eq "28BA illegal_rx after 10000 truncated" "$(member_lacpdus "$rep" 28BA illegal)" "$((ill0 + 10000))"
expect_eq "2902 machines unchanged by the flood on 28BA" "$(member_line "$rep" 2902 Machines:)" "$state2902"
warns=$(( $(grep -c "malformed Slow Protocols frame" "$WORK/vswitchd.log") - warn0 ))
[ "$warns" -le 15 ] || fail "log not rate-limited: $warns malformed-frame lines for 10000 frames"
echo "ok: floods counted exactly, log rate-limited ($warns lines), other member untouched"
