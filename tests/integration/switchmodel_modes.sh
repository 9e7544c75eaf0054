#!/usr/bin/env bash
# check: light (switch-model LACP timing: short timeout, convergence; pings only)
# Channel-group modes between two switch models: active/passive bundles both members and
# ping crosses; passive/passive never bundles (no LACPDU ever sent: both show I and
# ping fails); on/on bundles with no LACP at all.
. "$(dirname "$0")/../switchmodel/lab.sh"

sm_lab_init modes
P2='^1 Po1\(SU\) LACP Gi2/23\(P\) Gi2/24\(P\)$'

# active / passive
sm_start A "$SM_CONF/lab6509.conf"
sm_start B "$SM_CONF/lab6509-passive.conf"
sm_wait_line A "$P2" 10
sm_wait_line B "$P2" 10
sm_ping 3 || sm_fail "ping active/passive: $(tail -n 2 "$SM_WORK/ping")"
sm_ok "active/passive bundles, ping crosses"
sm_stop A || sm_fail "A did not exit cleanly"
sm_stop B || sm_fail "B did not exit cleanly"

# passive / passive: nobody starts; after 4 s still nothing bundled, no LACPDU sent
sm_start A "$SM_CONF/lab6509-passive.conf"
sm_start B "$SM_CONF/lab6509-passive.conf"
sleep 4
for s in A B; do
  L=$(sm_group_line $s)
  echo "$L" | grep -Eq '^1 Po1\(SD\) LACP Gi2/23\(I\) Gi2/24\(I\)$' || sm_fail "passive/passive $s: $L"
  TX=$(sm_cmd $s "show lacp counters" | awk '$1 == "Gi2/23" && NF == 8 {print $2}')
  [ "$TX" = 0 ] || sm_fail "passive/passive $s sent $TX LACPDUs"
done
if sm_ping 2; then sm_fail "ping crossed an unbundled channel"; fi
NB=$(sm_cmd B "show interfaces counters" | awk '$1 == "Gi2/23" && NF == 6 {print $2}' | tail -n 1)
sm_ok "passive/passive never bundles ($NB frames dropped as not bundled on B Gi2/23)"
sm_stop A || sm_fail "A did not exit cleanly"
sm_stop B || sm_fail "B did not exit cleanly"

# on / on: static
sm_start A "$SM_CONF/lab6509-on.conf"
sm_start B "$SM_CONF/lab6509-on.conf"
S2='^1 Po1\(SU\) - Gi2/23\(P\) Gi2/24\(P\)$'
sm_wait_line A "$S2" 5
sm_wait_line B "$S2" 5
sm_ping 3 || sm_fail "ping on/on: $(tail -n 2 "$SM_WORK/ping")"
sm_ok "on/on bundles, ping crosses"
