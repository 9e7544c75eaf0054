#!/usr/bin/env bash
# check: hermetic (no root, no namespaces, no timing: offline captures and tshark)
# Every PDU the project emits decodes in tshark (an independent dissector) as LACP or
# Marker with no expert info at warning or error level, and with the field values our own
# codec reads back; the crafted fixtures in tests/pcap/ are what tests/pcap/README.md says
# (our parser's verdict per file, byte-identical when regenerated) and tshark flags the
# malformed ones. Builds nothing: uses $BUILD/tools/lacp_pcapgen. No root. Under 30 s.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
GEN=$BUILD/tools/lacp_pcapgen
PCAPS=$ROOT/tests/pcap

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
ok() { echo "ok: $*"; }

command -v tshark >/dev/null || skip "tshark missing (scripts/deps.sh installs it)"
[ -x "$GEN" ] || fail "no $GEN (run make)"
WORK=$(mktemp -d /tmp/zvs-tshark.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
trap 'exit 1' INT TERM
# tshark writes its profile under HOME; keep it in the temp dir, and bound every run.
export HOME=$WORK
ts() { timeout 20 tshark "$@" 2>>"$WORK/tshark.err"; }

WARN_LEVEL=6291456      # _ws.expert.severity of PI_WARN (0x00600000); PI_ERROR is 0x00800000

# worst_severity FILE: the highest expert severity tshark reports in FILE (0: none).
worst_severity() {
  ts -r "$1" -T fields -e _ws.expert.severity |
    tr ',' '\n' | awk 'BEGIN { m = 0 } $1 != "" && $1 + 0 > m { m = $1 + 0 } END { print m }'
}

# ---- 1. Emitted PDUs: our engines' LACPDUs and our Marker / Marker Response -------------
E=$WORK/emitted.pcap
"$GEN" --emitted "$E" 2>"$WORK/gen.err" || fail "lacp_pcapgen --emitted: $(cat "$WORK/gen.err")"
total=$(ts -r "$E" -T fields -e frame.number | wc -l)
[ "$total" -ge 10 ] || fail "emitted capture has only $total frames"
nslow=$(ts -r "$E" -Y slow -T fields -e frame.number | wc -l)
[ "$nslow" = "$total" ] || fail "$((total - nslow)) of $total emitted frames are not Slow Protocols"
# Exactly LACP or Marker at the top, nothing left undissected (no data/malformed layer).
bad=$(ts -r "$E" -T fields -e frame.protocols | sort | uniq -c |
      grep -v -E '^ *[0-9]+ eth:ethertype:slow:(lacp|marker)$')
[ -z "$bad" ] || fail "emitted frames dissected as: $bad"
nlacp=$(ts -r "$E" -Y lacp -T fields -e frame.number | wc -l)
ninfo=$(ts -r "$E" -Y 'marker.tlvType == 1' -T fields -e frame.number | wc -l)
nresp=$(ts -r "$E" -Y 'marker.tlvType == 2' -T fields -e frame.number | wc -l)
[ "$nlacp" -ge 8 ] && [ "$ninfo" -ge 1 ] && [ "$nresp" -ge 1 ] ||
  fail "emitted: $nlacp LACPDUs, $ninfo Marker Information, $nresp Marker Response"
ok "emitted capture: $total frames all decode as Slow Protocols ($nlacp LACP, $ninfo Marker Information, $nresp Marker Response)"
sev=$(worst_severity "$E")
if [ "$sev" -ge "$WARN_LEVEL" ]; then
  ts -r "$E" -q -z expert,warn >&2
  fail "expert info at warning level or above in emitted PDUs (severity $sev)"
fi
ok "no expert info at warning or error level in emitted PDUs (worst severity $sev)"
# Every frame is exactly 124 bytes and every TLV has the length 802.1AX gives it.
lens=$(ts -r "$E" -T fields -e frame.len | sort -u | tr '\n' ' ')
[ "$lens" = "124 " ] || fail "emitted frame lengths: $lens"
tlvs=$(ts -r "$E" -Y lacp -T fields -e lacp.tlv_type -e lacp.tlv_length | sort -u)
[ "$tlvs" = "$(printf '0x01,0x02,0x03,0x00\t0x14,0x14,0x10,0x00')" ] || fail "LACP TLVs: $tlvs"
mtlv=$(ts -r "$E" -Y marker -T fields -e marker.version -e marker.tlvLen | sort -u)
[ "$mtlv" = "$(printf '0x01\t0x10,0x00')" ] || fail "Marker version/TLV lengths: $mtlv"
ok "all frames 124 bytes; TLV types/lengths 1/20 2/20 3/16 0/0, Marker version 1 TLV 16"

# tshark and our codec read the same values from every frame.
LF=(-e frame.number -e lacp.version -e lacp.actor.sys_priority -e lacp.actor.sysid
    -e lacp.actor.key -e lacp.actor.port_priority -e lacp.actor.port -e lacp.actor.state
    -e lacp.partner.sys_priority -e lacp.partner.sysid -e lacp.partner.key
    -e lacp.partner.port_priority -e lacp.partner.port -e lacp.partner.state)
MF=(-e frame.number -e marker.tlvType -e marker.requesterPort -e marker.requesterSystem
    -e marker.requesterTransId)
{ ts -r "$E" -Y lacp -T fields -E separator=' ' "${LF[@]}" | awk '{ $1 = $1 " lacp"; print }'
  ts -r "$E" -Y marker -T fields -E separator=' ' "${MF[@]}" | awk '{ sub(/,.*/, "", $2); $1 = $1 " marker"; print }'
} | sort -n >"$WORK/tshark.txt"
"$GEN" --parse "$E" >"$WORK/ours.raw" || fail "lacp_pcapgen --parse emitted"
awk '
  function kv(k,   i) { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "?" }
  function info(w,   s, p, st) {
    split(kv(w "_sys"), s, ","); split(kv(w "_port"), p, ","); st = kv(w "_state")
    return s[1] " " s[2] " " kv(w "_key") " " p[1] " " p[2] " " substr(st, 1, 4)
  }
  $1 == "summary" { next }
  $2 == "lacp" { printf "%s lacp 0x%02x %s %s\n", $1, kv("ver"), info("actor"), info("partner") }
  $2 ~ /^marker-/ { printf "%s marker 0x%02x %s %s %s\n", $1, ($2 == "marker-info") ? 1 : 2,
                    kv("req_port"), kv("req_sys"), kv("xid") }
  $2 !~ /^(lacp|marker-.*|summary)$/ { print $1, "our parser refused:", $2 }
' "$WORK/ours.raw" | sort -n >"$WORK/ours.txt"
diff "$WORK/tshark.txt" "$WORK/ours.txt" >"$WORK/diff.txt" ||
  fail "tshark and our codec disagree (< tshark, > ours): $(head -n 20 "$WORK/diff.txt")"
ok "tshark and our codec agree on every field of all $total frames"

# Exact values on a sample: A = 02:00:00:00:0a:01 (active, fast, key 10, port 255/1,
# source MAC 02:00:00:00:0a:11), B = 02:00:00:00:0b:01 (passive, slow, key 20, port 255/1).
fields_of() {  # fields_of FILTER FIELD...: values in the LAST frame matching FILTER
  local filter=$1; shift
  local args=() f
  for f in "$@"; do args+=(-e "$f"); done
  ts -r "$E" -Y "$filter" -T fields -E separator=' ' "${args[@]}" | tail -n 1
}
expect() {  # expect WHAT GOT WANT
  [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
  ok "$1 = $3"
}
A_SRC='eth.src == 02:00:00:00:0a:11'
B_SRC='eth.src == 02:00:00:00:0b:11'
first_a=$(ts -r "$E" -Y "lacp && $A_SRC" -T fields -E separator=' ' -e lacp.actor.sysid \
          -e lacp.actor.state.defaulted -e lacp.partner.sysid -e lacp.partner.key | head -n 1)
expect "A's first LACPDU (partner defaulted, all zero): actor, DEF, partner, partner key" \
  "$first_a" "02:00:00:00:0a:01 1 00:00:00:00:00:00 0"
expect "A converged: actor sys_prio sysid key port_prio port state" \
  "$(fields_of "lacp && $A_SRC" lacp.actor.sys_priority lacp.actor.sysid lacp.actor.key \
     lacp.actor.port_priority lacp.actor.port lacp.actor.state)" \
  "32768 02:00:00:00:0a:01 10 255 1 0x3f"
expect "A converged: partner sysid key port state" \
  "$(fields_of "lacp && $A_SRC" lacp.partner.sysid lacp.partner.key lacp.partner.port lacp.partner.state)" \
  "02:00:00:00:0b:01 20 1 0x3c"
expect "B converged: actor sysid key port state, state string" \
  "$(fields_of "lacp && $B_SRC" lacp.actor.sysid lacp.actor.key lacp.actor.port lacp.actor.state \
     lacp.actor.state.activity lacp.actor.state.timeout lacp.actor.state.distributing)" \
  "02:00:00:00:0b:01 20 1 0x3c 0 0 1"
expect "B converged: partner sysid key port state" \
  "$(fields_of "lacp && $B_SRC" lacp.partner.sysid lacp.partner.key lacp.partner.port lacp.partner.state)" \
  "02:00:00:00:0a:01 10 1 0x3f"
expect "collector max delay" "$(fields_of lacp lacp.collector.max_delay)" "0"
expect "Marker Information from A: requester port system transaction id" \
  "$(fields_of "marker.tlvType == 1 && $A_SRC" marker.requesterPort marker.requesterSystem marker.requesterTransId)" \
  "1 02:00:00:00:0a:01 1"
expect "Marker Response from B echoes A's requester fields" \
  "$(fields_of "marker.tlvType == 2 && $B_SRC" marker.requesterPort marker.requesterSystem marker.requesterTransId)" \
  "1 02:00:00:00:0a:01 1"
expect "timestamps strictly increasing" \
  "$(ts -r "$E" -T fields -e frame.time_delta | awk 'NR > 1 && $1 <= 0 { n++ } END { print n + 0 }')" "0"

# ---- 2. Crafted fixtures: committed files = generator output; our verdicts ----------------
[ -d "$PCAPS" ] || fail "no $PCAPS"
mkdir "$WORK/crafted"
"$GEN" --crafted "$WORK/crafted" >"$WORK/crafted.list" 2>"$WORK/gen.err" ||
  fail "lacp_pcapgen --crafted: $(cat "$WORK/gen.err")"
# file, our verdict, tshark's view: malformed (expert error), clean (no warning), lenient
# (tshark sees no problem where our parser refuses the frame: documented in README.md).
FIXTURES="
lacp_truncated.pcap illegal malformed
lacp_oversize.pcap valid clean
lacp_actor_len19.pcap illegal malformed
lacp_partner_len21.pcap illegal malformed
lacp_collector_len15.pcap illegal malformed
lacp_terminator_len1.pcap illegal malformed
lacp_version2.pcap valid clean
lacp_v2_long.pcap valid clean
lacp_v2_max.pcap valid clean
lacp_loopback.pcap loopback clean
lacp_tagged.pcap illegal lenient
lacp_bad_da.pcap illegal lenient
slow_subtype0.pcap illegal lenient
slow_subtype_ossp.pcap unknown clean
marker_info.pcap valid clean
marker_unknown_tlv.pcap illegal malformed
marker_version2.pcap illegal lenient
"
n=0
while read -r f verdict view; do
  [ -n "$f" ] || continue
  n=$((n + 1))
  [ -f "$PCAPS/$f" ] || fail "fixture $f missing from tests/pcap"
  grep -qF "| $f |" "$PCAPS/README.md" || fail "tests/pcap/README.md does not describe $f"
  cmp -s "$PCAPS/$f" "$WORK/crafted/$f" ||
    fail "$f differs from what lacp_pcapgen --crafted makes now (regenerate and review)"
  # Our parser, identity A for the loopback fixture.
  got=$("$GEN" --parse "$PCAPS/$f" --system 02:00:00:00:0a:01 | awk 'NR == 1 { print $3 }')
  [ "$got" = "$verdict" ] || fail "$f: our parser says $got, want $verdict"
  sev=$(worst_severity "$PCAPS/$f")
  case $view in
    malformed) [ "$sev" -ge "$WARN_LEVEL" ] || fail "$f: tshark does not flag it (severity $sev)" ;;
    clean) [ "$sev" -lt "$WARN_LEVEL" ] || fail "$f: tshark flags a fixture that is well formed (severity $sev)" ;;
    lenient) [ "$sev" -lt "$WARN_LEVEL" ] ||
               echo "note: tshark now flags $f (severity $sev); README.md calls it lenient" ;;
  esac
  ok "$f: ours $verdict, tshark $view$( [ "$sev" -gt 0 ] && printf ' (%s)' \
      "$(ts -r "$PCAPS/$f" -T fields -e _ws.expert.message | head -n 1)")"
done <<<"$FIXTURES"
listed=$(wc -l <"$WORK/crafted.list")
[ "$listed" -eq "$n" ] || fail "lacp_pcapgen makes $listed fixtures, this test knows $n"
# The same parser verdict for the loopback fixture without our identity: a valid LACPDU.
got=$("$GEN" --parse "$PCAPS/lacp_loopback.pcap" | awk 'NR == 1 { print $3 }')
expect "lacp_loopback.pcap verdict without --system" "$got" "valid"

# The real exchange with Open vSwitch (ovs_peer_selftest.sh makes it): valid for both.
O=$PCAPS/ovs_lacp_exchange.pcap
if [ -f "$O" ]; then
  grep -qF "| ovs_lacp_exchange.pcap |" "$PCAPS/README.md" || fail "README.md does not describe ovs_lacp_exchange.pcap"
  sum=$("$GEN" --parse "$O" | tail -n 1)
  n=$(printf '%s\n' "$sum" | sed -n 's/.*frames=\([0-9]*\).*/\1/p')
  expect "ovs_lacp_exchange.pcap: our parser" "$sum" \
    "summary frames=$n lacp=$n marker=0 other=0 valid=$n illegal=0 unknown=0 loopback=0 not_slow=0"
  sev=$(worst_severity "$O")
  [ "$sev" -lt "$WARN_LEVEL" ] || fail "ovs_lacp_exchange.pcap: tshark expert severity $sev"
  ok "ovs_lacp_exchange.pcap: $n LACPDUs, tshark clean"
fi

# ---- 3. A flood: 10,000 valid LACPDUs in one second from one partner -------------------
"$GEN" --flood "$WORK/flood.pcap" 10000 || fail "lacp_pcapgen --flood"
expect "flood: our parser" "$("$GEN" --parse "$WORK/flood.pcap" | tail -n 1)" \
  "summary frames=10000 lacp=10000 marker=0 other=0 valid=10000 illegal=0 unknown=0 loopback=0 not_slow=0"
expect "flood: LACPDUs tshark decodes" "$(ts -r "$WORK/flood.pcap" -Y lacp -T fields -e frame.number | wc -l)" "10000"
expect "flood: duration (s)" "$(ts -r "$WORK/flood.pcap" -T fields -e frame.time_relative | tail -n 1)" "0.999900000"
echo "lacp_tshark: passed"
