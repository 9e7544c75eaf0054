# The port-group lab against the switch model, shared by lab_lacp_{active,passive,static}.sh.
#
#   lacp_lab MODE          MODE: active | passive | on (the switch model's channel-group
#                          mode; "on" runs the VSWITCH's group with LACP INACTIVE)
# Asserts: both members bundled on both sides (switch model: "(P)"; vswitchd: Distributing
# on both), traffic crosses (guest <-> LAN host behind the switch model), a member pulled
# down (admin shutdown on the switch model) leaves the group and traffic keeps flowing on
# the other, and comes back. With LACP, also that PDUs stopped by the partner (drop-tx)
# take the member out within the short timeout.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/ovs_lib.sh"          # cap_begin, cap_ready, cap_stop

# group_field REPORT FIELD: "Distributing" or "Members" of the PORT GROUP block.
group_field() {
  awk -v f="$2:" '/^  Members:/ { for (i = 1; i <= NF; i++) if ($i == f) { print $(i + 1); exit } }' "$1"
}

group_distributing() { group_field "$(lab_stats)" Distributing; }
distributing_is() { [ "$(group_distributing)" = "$1" ]; }   # re-read on every wait_for try
bundled_is() { [ "$(bundled_members)" = "$1" ]; }

bundled_members() {  # members the switch model shows as bundled (P)
  sm show etherchannel summary | grep -o '([A-Za-z]*P[A-Za-z]*)' | grep -vc 'Po' || true
}

# Capture of the LACP exchange on OSA port 28BA from its first PDU (a LAB_HOOK). Both ends
# of the wire are tapped: vswitchd's AF_PACKET sends bypass the qdisc layer, where a tap on
# the sending side would see them, so each side's PDUs are captured where they arrive.
# CAP_PEER_IF: the peer's end of the wire (the switch model's sw-osa28ba by default). Both
# start side by side and the lab goes on once both capture (not after a fixed start-up
# time, which a loaded machine can exceed).
capture_exchange() {
  command -v tshark >/dev/null || return 0
  CAP=$WORK/exchange.pcap
  cap_begin "$NS_SW" osa28ba "$WORK/cap-sw.pcap" 60 || fail "capture on osa28ba"
  cap_begin "$NS_PHY" "${CAP_PEER_IF:-sw-osa28ba}" "$WORK/cap-phy.pcap" 60 || fail "capture on the peer's end"
  cap_ready "$WORK/cap-sw.pcap" && cap_ready "$WORK/cap-phy.pcap" ||
    fail "tshark did not start capturing the LACP exchange"
  CAP_ON=1
}

# exchange_converged: both sides have converged now. The capture runs three more fast
# periods after it (PDUs from both sides); what the lab does meanwhile on the wire's
# other member, or by pings, counts toward them.
exchange_converged() { CAP_CONVERGED=$EPOCHREALTIME; }

# Stops the capture three fast periods after exchange_converged, and checks every PDU in
# it (ours and the peer's) with tshark: Slow Protocols decoded as LACP or Marker, no
# expert info at warning level or above. With SAVE_PCAP=FILE the first frames are kept
# as a fixture (tests/pcap/zvs_*_exchange.pcap).
check_exchange() {
  [ -n "${CAP_ON:-}" ] || { echo "note: tshark missing, no capture check"; return 0; }
  sleep "$(awk -v t0="${CAP_CONVERGED:-$EPOCHREALTIME}" -v now="$EPOCHREALTIME" \
    'BEGIN { d = 3 - (now - t0); printf "%.2f", (d > 0 ? d : 0) }')"
  cap_stop "$WORK/cap-sw.pcap"; cap_stop "$WORK/cap-phy.pcap"
  if [ "${1:-}" = static ]; then
    n=$(cat <(tshark -r "$WORK/cap-sw.pcap" 2>/dev/null) <(tshark -r "$WORK/cap-phy.pcap" 2>/dev/null) | wc -l)
    expect_eq "Slow Protocols frames on a static (LACP INACTIVE) link" "$n" 0
    return 0
  fi
  # One frame seen at both ends would be counted twice: keep each side's arrivals only.
  tshark -r "$WORK/cap-sw.pcap" -Y 'lacp.actor.sysid != 02:00:0c:00:00:00 || marker' \
    -w "$WORK/cap-in.pcap" 2>/dev/null
  tshark -r "$WORK/cap-phy.pcap" -Y 'lacp.actor.sysid == 02:00:0c:00:00:00 || marker' \
    -w "$WORK/cap-out.pcap" 2>/dev/null
  mergecap -w "$CAP" "$WORK/cap-in.pcap" "$WORK/cap-out.pcap" 2>/dev/null || fail "mergecap"
  local n bad ours

  n=$(tshark -r "$CAP" 2>/dev/null | wc -l)
  [ "$n" -ge 4 ] || fail "captured only $n Slow Protocols frames"
  bad=$(tshark -r "$CAP" -T fields -e frame.number -e _ws.expert.severity 2>/dev/null |
        awk '$2 != "" && $2 >= 6291456' | wc -l)
  [ "$bad" -eq 0 ] || fail "tshark flags $bad of $n captured PDUs"
  ours=$(tshark -r "$CAP" -Y 'lacp.actor.sysid == 02:00:0c:00:00:00' 2>/dev/null | wc -l)
  [ "$ours" -ge 2 ] || { tshark -r "$CAP" -T fields -e eth.src -e lacp.actor.sysid | head -5; fail "none of our LACPDUs in the capture"; }
  echo "ok: $n captured PDUs ($ours ours) decode in tshark with no expert warning"
  if [ -n "${SAVE_PCAP:-}" ]; then
    editcap -r "$CAP" "$SAVE_PCAP" 1-12 && echo "saved $SAVE_PCAP"
  fi
}

lacp_lab() {
  local mode=$1
  lab_init "lacp-$mode"
  local smconf=$WORK/lab6509.conf sysconf=$WORK/SYSTEM.CONFIG
  sed "s/channel-group 1 mode active/channel-group 1 mode $mode/" \
    "$ROOT/configs/switchmodel/lab6509.conf" >"$smconf"
  if [ "$mode" = on ]; then
    sed 's/LACP ACTIVE/LACP INACTIVE/' "$ROOT/configs/lab/SYSTEM-GROUP.CONFIG" >"$sysconf"
  else
    cp "$ROOT/configs/lab/SYSTEM-GROUP.CONFIG" "$sysconf"
  fi
  LAB_HOOK=capture_exchange LAB_TAPS="a b" lab_group_start "$smconf" "$sysconf" \
    "$ROOT/configs/lab/USER.DIRECT"
  local t0=$SECONDS
  wait_for 15 distributing_is 2 || fail "vswitchd: group not distributing on both ports: $(cat "$(lab_stats)")"
  echo "ok: both members distributing after $((SECONDS - t0)) s (mode $mode)"
  sm show etherchannel summary
  wait_for 10 bundled_is 2 || fail "switch model did not bundle both ports: $(sm show etherchannel summary)"
  echo "ok: switch model bundled both members"
  exchange_converged
  if [ "$mode" != on ]; then
    sm show lacp neighbor | tee "$WORK/neighbor"
    grep -q '0200.0c00.0000\|02-00-0C-00-00-00\|02:00:0c:00:00:00' "$WORK/neighbor" ||
      fail "switch model's LACP neighbor is not zvswitch's system 02-00-0C-00-00-00"
  fi

  LAB_TAPS="a b" lab_static_arp
  ip netns exec "$NS_A" ping -c 5 -i 0.1 -W 1 "${LAB_IP[lan]}" >"$WORK/ping1" || fail "ping A -> LAN: $(cat "$WORK/ping1")"
  ip netns exec "$NS_B" ping -c 5 -i 0.1 -W 1 "${LAB_IP[lan]}" >"$WORK/ping2" || fail "ping B -> LAN"
  echo "ok: guests reach the LAN host across the port channel"
  if [ "$mode" = on ]; then check_exchange static; else check_exchange; fi

  # A member goes down on the physical switch: carrier loss on our side.
  sm shutdown Gi2/23 >/dev/null || fail "switch model: shutdown Gi2/23"
  wait_for 5 distributing_is 1 || fail "member did not leave the group after shutdown"
  ip netns exec "$NS_A" ping -c 5 -i 0.1 -W 1 "${LAB_IP[lan]}" >"$WORK/ping3" || fail "ping after member down"
  echo "ok: one member down, traffic continues on the other"
  sm no shutdown Gi2/23 >/dev/null || fail "switch model: no shutdown Gi2/23"
  wait_for 15 distributing_is 2 || fail "member did not return"
  echo "ok: member back in the group"

  if [ "$mode" != on ]; then
    # The partner goes silent on one member: short timeout, 3 s, then out.
    sm lacp drop-tx Gi2/24 on >/dev/null || fail "switch model: lacp drop-tx"
    local s=$SECONDS
    wait_for 8 distributing_is 1 || fail "silent partner not detected"
    echo "ok: silent partner detected after about $((SECONDS - s)) s"
    sm lacp drop-tx Gi2/24 off >/dev/null
    wait_for 15 distributing_is 2 || fail "member did not return after PDUs resumed"
    ip netns exec "$NS_B" ping -c 3 -i 0.1 -W 1 "${LAB_IP[lan]}" >/dev/null || fail "ping at the end"
  fi
  local rep
  rep=$(lab_stats)
  grep -q 'malformed: 0' "$rep" || fail "malformed Slow Protocols frames seen: $(grep malformed "$rep")"
  echo "ok: no malformed PDU in the whole run"
}
