#!/usr/bin/env bash
# bench_storm: the long carrier-flap storm (run by tests/bench/run.sh; prints BENCH lines).
# lab_storms.sh (make check) runs the same storm for 10 s with exact assertions; here it
# runs STORM_SECONDS (default 60) and reports:
#   BENCH storm_flap_cycles <n> cycles         down/up cycles done on the flapped member
#                                              (100/s asked)
#   BENCH storm_flap_loss_frames <n> frames    UDP datagrams (20 Mbit/s over the other
#                                              member) lost end to end
#   BENCH storm_flap_switch_loss_frames <n>    of those, frames vswitchd did not deliver to
#                                              the wire (guest TX - member TX - discards;
#                                              target 0)
#   BENCH storm_flap_discards <n> frames       TX discards on the carrying member and guest
#   BENCH storm_flap_rss_growth_kb <n> KB      vswitchd's RssAnon growth over the storm
#   BENCH storm_flap_fd_growth <n> fds         its descriptors' growth (target 0)
#   BENCH storm_flap_rejoin_ms <ms> ms         the flapped member distributing again after
# Root, iperf3. About STORM_SECONDS + 25 s.
. "$(dirname "$0")/../integration/lacp_lab_lib.sh"
. "$(dirname "$0")/../integration/storm_lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "needs root for network namespaces"; exit 77; }
command -v iperf3 >/dev/null || { echo "iperf3 missing (scripts/deps.sh)"; exit 77; }
SECS=${STORM_SECONDS:-60}

lab_init bstorm
storm_start
storm_flap "$SECS"
echo "flap storm: $FLAP_CYCLES cycles on $FLAP_MEMBER in $SECS s, $FLAP_CARRY carried: guest TX $FLAP_GUEST_TX, member TX $FLAP_CARRY_TX, wire RX $FLAP_WIRE_RX, iperf3 sent $FLAP_SENT lost $FLAP_LOST"
echo "BENCH storm_flap_cycles $FLAP_CYCLES cycles"
echo "BENCH storm_flap_loss_frames $FLAP_LOST frames"
sw_loss=$(( FLAP_GUEST_TX - FLAP_DISCARDS - (FLAP_CARRY_TX < FLAP_GUEST_TX ? FLAP_CARRY_TX : FLAP_GUEST_TX) ))
echo "BENCH storm_flap_switch_loss_frames $sw_loss frames"
echo "BENCH storm_flap_discards $FLAP_DISCARDS frames"
echo "BENCH storm_flap_rss_growth_kb $FLAP_RSS_KB KB"
echo "BENCH storm_flap_fd_growth $FLAP_FDS fds"
echo "BENCH storm_flap_rejoin_ms $FLAP_REJOIN_MS ms"
