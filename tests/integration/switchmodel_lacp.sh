#!/usr/bin/env bash
# check: light (switch-model LACP timing: short timeout, convergence; pings only)
# Two switch models back to back over two veth pairs, LACP on both ends: active/active
# bundles both members (P) and ping crosses between the hosts on their access ports.
# Then: Marker/LACP counters move, the MAC table learns the far host on Po1, and an
# LACP silence (drop-tx on one side) unbundles that member within the 3 s short timeout.
. "$(dirname "$0")/../switchmodel/lab.sh"

sm_lab_init lacp
sm_start A "$SM_CONF/lab6509.conf"
sm_start B "$SM_CONF/lab6509.conf"
P2='^1 Po1\(SU\) LACP Gi2/23\(P\) Gi2/24\(P\)$'
sm_wait_line A "$P2" 10
sm_wait_line B "$P2" 10
sm_ping 3 || sm_fail "ping across the port-channel: $(tail -n 2 "$SM_WORK/ping")"
sm_ok "ping A host -> B host across Po1"

# The far host is learned on the port-channel, the near one on its access port.
MACB=$(ip -n "$NS_HB" -br link show eth0 | awk '{print $3}' | tr -d : | sed 's/\(....\)\(....\)\(....\)/\1.\2.\3/')
sm_cmd A "show mac address-table" | grep -Eq "^ +1 +$MACB +DYNAMIC +Po1$" ||
  sm_fail "B's host $MACB not on Po1 in A's table: $(sm_cmd A 'show mac address-table')"
sm_ok "A learned $MACB on Po1"

# Partner information: B's system on both members, state 0x3F (fast, in sync, coll, dist).
neighbors_3f() {
  [ "$(sm_cmd A "show lacp neighbor" | awk '$1 ~ /^Gi2\/2[34]$/ && $2 == "FA" && $NF == "0x3F"' | wc -l)" = 2 ]
}
sm_wait 5 neighbors_3f || sm_fail "show lacp neighbor: $(sm_cmd A 'show lacp neighbor')"
sm_ok "both partners FA 0x3F"

# Abbreviated commands and interface names, and a refused command exits non-zero.
sm_cmd A "sh ether sum" | grep -q "Po1(SU)" || sm_fail "abbreviated show"
if sm_cmd A "show nonsense" >/dev/null; then sm_fail "a bad command exited 0"; fi
sm_ok "abbreviations and refusals"

# B stops sending LACPDUs on Gi2/24: A's member expires (3 s) and leaves the bundle.
sm_cmd B "lacp drop-tx gi2/24 on" >/dev/null || sm_fail "drop-tx"
sm_wait_line A '^1 Po1\(SU\) LACP Gi2/23\(P\) Gi2/24\([^P]\)$' 8
sm_ping 3 || sm_fail "ping with one member: $(tail -n 2 "$SM_WORK/ping")"
sm_cmd B "lacp drop-tx gi2/24 off" >/dev/null
sm_wait_line A "$P2" 10
sm_ok "member left on LACP silence and came back"
