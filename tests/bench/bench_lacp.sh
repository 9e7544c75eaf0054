#!/usr/bin/env bash
# bench_lacp: LACP timing of vswitchd's port group against real peers, in namespaces
# (run by tests/bench/run.sh; prints its protocol's BENCH lines).
#
#   BENCH lacp_converge_s_switchmodel    link up -> both members distributing, switch model
#                                        (a strict 802.1AX peer: the 2 s aggregate wait)
#   BENCH lacp_converge_s_ovs            the same against Open vSwitch (userspace)
#   BENCH lacp_silent_partner_detect_s_fast   last LACPDU received from a partner that went
#   BENCH lacp_silent_partner_detect_s_slow   silent (nftables egress drop on its veth) ->
#                                        the member leaves Distributing (TIMEOUT SHORT: 3 s,
#                                        TIMEOUT LONG: 90 s)
#   BENCH lacp_pdu_tx_jitter_ms_under_load    worst lateness of a periodic LACPDU (interval
#                                        between consecutive PDUs on the wire minus 1 s)
#                                        while iperf3 saturates the data path (LACP_LOAD_S
#                                        seconds, default 20)
#   BENCH lacp_pdu_tx_late_ms_p50_under_load  the median of the same (the distribution
#                                        is in the log)
#   BENCH lacp_load_vswitchd_cpu_wait_pct     the share of that load's time vswitchd was
#                                        runnable and waiting for a CPU (schedstat)
# Times come from vswitchd's log (ms) and tshark captures (us), both wall clock, so they
# compare exactly. Each part runs in its own process with its own lab (so a failed part
# cleans up alone). Needs root, tshark, nft; OVS for the OVS part (else that line is
# missing and run.sh reports the target as not measured). About 3 minutes.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

if [ "${1:-}" = "" ]; then
  [ "$(id -u)" -eq 0 ] || { echo "needs root for network namespaces"; exit 77; }
  for t in tshark nft iperf3; do
    command -v $t >/dev/null || { echo "$t missing (scripts/deps.sh)"; exit 77; }
  done
  rc=0
  for part in converge_model converge_ovs silent_fast silent_slow jitter; do
    echo "bench_lacp: $part ..." >&2
    bash "$0" "$part" || { echo "bench_lacp: part $part failed" >&2; rc=1; }
  done
  exit $rc
fi

PART=$1
LOAD_S=${LACP_LOAD_S:-20}
. "$ROOT/tests/integration/lacp_lab_lib.sh"

# Epoch seconds (with fraction) of a vswitchd log line's timestamp.
log_epoch() {  # LINE
  local ts
  ts=$(echo "$1" | awk '{print $1 " " $2}')
  date -d "$ts" +%s.%N
}

# First log line after epoch T matching PATTERN, as epoch; waits up to SECS.
log_time_after() {  # T PATTERN SECS
  local t=$1 pat=$2 end=$((SECONDS + $3)) line e
  while [ $SECONDS -le $end ]; do
    while IFS= read -r line; do
      e=$(log_epoch "$line")
      if awk -v a="$e" -v b="$t" 'BEGIN { exit !(a >= b) }'; then
        echo "$e"; return 0
      fi
    done < <(grep -E "$pat" "$WORK/vswitchd.log")
    sleep 0.1
  done
  return 1
}

now_epoch() { date +%s.%N; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a - b }'; }

# Takes both member links down on the peer's side and up again; prints the time from the
# "up" to the later of the two members distributing. $1 $2: the peer's interfaces.
converge_once() {
  ip -n "$NS_PHY" link set "$1" down
  ip -n "$NS_PHY" link set "$2" down
  wait_for 10 distributing_is 0 || fail "members did not leave"
  sleep 0.5
  local t0 a b
  t0=$(now_epoch)
  ip -n "$NS_PHY" link set "$1" up
  ip -n "$NS_PHY" link set "$2" up
  a=$(log_time_after "$t0" "28BA is collecting, is distributing" 15) || fail "28BA did not converge"
  b=$(log_time_after "$t0" "2902 is collecting, is distributing" 15) || fail "2902 did not converge"
  awk -v a="$a" -v b="$b" -v t="$t0" 'BEGIN { m = a > b ? a : b; printf "%.3f\n", m - t }'
}

worst_of_3() {  # IF1 IF2
  local w=0 v i
  for i in 1 2 3; do
    v=$(converge_once "$1" "$2")
    echo "converge run $i: $v s" >&2
    w=$(awk -v a="$w" -v b="$v" 'BEGIN { print (b > a ? b : a) }')
  done
  echo "$w"
}

model_lab() {  # CONFIG-SED SYSCONFIG-EXTRA
  lab_init "bench-$PART"
  local smconf=$WORK/lab6509.conf sysconf=$WORK/SYSTEM.CONFIG
  sed -e "/rate-limit/d" -e "${1:-}" "$ROOT/configs/switchmodel/lab6509.conf" >"$smconf"
  cp "$ROOT/configs/lab/SYSTEM-GROUP.CONFIG" "$sysconf"
  [ -n "${2:-}" ] && echo "$2" >>"$sysconf"
  VSWITCHD_ARGS="-l info" LAB_TAPS="a b" lab_group_start "$smconf" "$sysconf" "$ROOT/configs/lab/USER.DIRECT"
  wait_for 20 distributing_is 2 || fail "group did not come up"
}

# A partner goes silent on member 2902: its LACPDUs are dropped at its veth's egress.
silent() {  # SECS-TO-WAIT
  local peer_mac cap=$WORK/rx.pcap
  peer_mac=$(ip -n "$NS_PHY" -br link show sw-osa2902 | awk '{print $3}')
  ip netns exec "$NS_SW" timeout $(($1 + 30)) tshark -q -i osa2902 \
    -f "ether proto 0x8809 and ether src $peer_mac" -w "$cap" >/dev/null 2>&1 &
  local cap_pid=$!
  # Drop only after a partner PDU has been captured (slow: one every 30 s), so the last
  # one received before the silence is on record.
  wait_for $(($1 / 3 + 5)) sh -c "[ \$(tshark -r '$cap' 2>/dev/null | wc -l) -ge 1 ]" ||
    fail "no partner LACPDU captured before the drop"
  local t_drop
  t_drop=$(now_epoch)
  ip netns exec "$NS_PHY" nft -f - <<EOF || fail "nft"
table netdev zvsbench {
  chain egress { type filter hook egress device "sw-osa2902" priority 0; ether type 0x8809 drop; }
}
EOF
  local t_det
  t_det=$(log_time_after "$t_drop" "2902 (is|not) collecting, not distributing" "$1") ||
    fail "silent partner not detected within $1 s"
  sleep 1
  kill -INT "$cap_pid" 2>/dev/null
  wait "$cap_pid" 2>/dev/null
  local t_last
  t_last=$(tshark -r "$cap" -T fields -e frame.time_epoch 2>/dev/null |
           awk -v d="$t_det" '$1 < d { last = $1 } END { print last }')
  [ -n "$t_last" ] || fail "no LACPDU captured from the partner"
  echo "last PDU $t_last, drop $t_drop, detected $t_det" >&2
  sub "$t_det" "$t_last"
}

case $PART in
converge_model)
  model_lab
  v=$(worst_of_3 sw-osa28ba sw-osa2902)
  echo "BENCH lacp_converge_s_switchmodel $v s"
  ;;
converge_ovs)
  . "$ROOT/tests/integration/ovs_lib.sh"
  lab_init "bench-$PART"
  command -v ovs-vswitchd >/dev/null || PATH=$PATH:/usr/sbin command -v ovs-vswitchd >/dev/null ||
    { echo "OVS missing"; exit 77; }
  for dev in 28ba 2902; do
    ip -n "$NS_SW" link add "osa$dev" type veth peer name "ovs-$dev" netns "$NS_PHY" || fail veth
    ip -n "$NS_SW" link set "osa$dev" up
  done
  OVS_DIR=$WORK/ovs
  trap 'ovs_peer_stop "$OVS_DIR"; lab_cleanup' EXIT
  ovs_peer_start "$NS_PHY" "$OVS_DIR" "ovs-28ba ovs-2902" - fast 02:00:00:00:0a:01 || fail "OVS"
  VSWITCHD_ARGS="-l info" LAB_TAPS="a b" lab_vswitchd "$ROOT/configs/lab/SYSTEM-GROUP.CONFIG" \
    "$ROOT/configs/lab/USER.DIRECT"
  wait_for 20 distributing_is 2 || fail "group did not come up against OVS"
  v=$(worst_of_3 ovs-28ba ovs-2902)
  echo "BENCH lacp_converge_s_ovs $v s"
  ;;
silent_fast)
  model_lab
  echo "BENCH lacp_silent_partner_detect_s_fast $(silent 10) s"
  ;;
silent_slow)
  model_lab "s/lacp rate fast/lacp rate normal/" "SET PORT GROUP ETHGRP TIMEOUT LONG"
  echo "BENCH lacp_silent_partner_detect_s_slow $(silent 100) s"
  ;;
jitter)
  model_lab
  mac=$(ip -n "$NS_SW" -br link show osa28ba | awk '{print $3}')
  cap=$WORK/tx.pcap
  ip netns exec "$NS_PHY" timeout $((LOAD_S + 28)) tshark -q -i sw-osa28ba \
    -f "ether proto 0x8809 and ether src $mac" -w "$cap" >/dev/null 2>&1 &
  cap_pid=$!
  LAB_TAPS="a b" lab_static_arp
  for h in lan lan2; do
    v=NS_${h^^}
    ip netns exec "${!v}" iperf3 -s -1 -D >/dev/null 2>&1
  done
  sleep 1
  # vswitchd's time runnable but waiting for a CPU (schedstat: run time, run delay, runs),
  # the part of a PDU's lateness no change in vswitchd bounds.
  read -r _ wait0 runs0 <"/proc/$VSWITCHD_PID/schedstat"
  t0=$(date +%s.%N)
  ip netns exec "$NS_A" iperf3 -c "${LAB_IP[lan]}" -P 2 -t "$LOAD_S" >"$WORK/iperf-a" 2>&1 &
  ipa=$!
  ip netns exec "$NS_B" iperf3 -c "${LAB_IP[lan2]}" -P 2 -t "$LOAD_S" >"$WORK/iperf-b" 2>&1 &
  ipb=$!
  wait $ipa; wait $ipb
  read -r _ wait1 runs1 <"/proc/$VSWITCHD_PID/schedstat"
  t1=$(date +%s.%N)
  kill -INT "$cap_pid" 2>/dev/null; wait "$cap_pid" 2>/dev/null
  grep -h "SUM.*receiver" "$WORK/iperf-a" "$WORK/iperf-b" >&2
  # Periodic PDUs are 1 s apart; a PDU sent for another reason (NTT) comes sooner and
  # does not move the periodic timer, so only gaps of at least 0.5 s are periodic ones.
  # The periodic timer restarts when a PDU goes (802.1AX 6.4.13), so each gap minus 1 s
  # is that PDU's own lateness: the worst is the target, the distribution goes to the log.
  tshark -r "$cap" -T fields -e frame.time_epoch 2>/dev/null |
    awk 'NR > 1 { d = $1 - p; if (d >= 0.5) printf "%.3f\n", (d - 1.0) * 1000 } { p = $1 }' |
    sort -g >"$WORK/late"
  [ "$(wc -l <"$WORK/late")" -ge 8 ] || fail "too few LACPDUs captured under load"
  awk '{ v[NR] = $1 } END {
    printf "periodic LACPDU lateness under load, %d PDUs (ms): min %.1f p50 %.1f p90 %.1f max %.1f\n",
      NR, v[1], v[int((NR + 1) / 2)], v[int(NR * 0.9 + 0.999)], v[NR] }' "$WORK/late" >&2
  v=$(awk 'END { printf "%.1f\n", $1 }' "$WORK/late")
  p50=$(awk '{ v[NR] = $1 } END { printf "%.1f\n", v[int((NR + 1) / 2)] }' "$WORK/late")
  echo "BENCH lacp_pdu_tx_late_ms_p50_under_load $p50 ms"
  awk -v w="$((wait1 - wait0))" -v r="$((runs1 - runs0))" -v a="$t0" -v b="$t1" 'BEGIN {
    printf "vswitchd waited for a CPU %.0f ms in %d runs (%.1f us each) over %.1f s of load\n",
      w / 1e6, r, r ? w / r / 1e3 : 0, b - a }' >&2
  echo "BENCH lacp_load_vswitchd_cpu_wait_pct $(awk -v w="$((wait1 - wait0))" -v a="$t0" -v b="$t1" \
    'BEGIN { printf "%.1f", w / 1e9 / (b - a) * 100 }') %"
  echo "BENCH lacp_pdu_tx_jitter_ms_under_load $v ms"
  ;;
*)
  echo "unknown part $PART"; exit 1 ;;
esac
