#!/usr/bin/env bash
# bench_ivl: Multi-VSwitch Link Aggregation measured in the IVL domain lab
# (tests/integration/ivl_lab_lib.sh: three systems, each with two OSA ports in one
# channel-group of the switch model, every port limited to IVL_RATE, 200 Mbit/s each way;
# two LAN hosts whose MACs end in 03 and 04). Run by tests/bench/run.sh; prints BENCH lines.
#
#   BENCH ivl_fraction_outbound <x> fraction   bytes that crossed the IVL as OUTBOUND over
#                       the bytes the guests sent, UDP from every guest to the LAN while
#                       every system has a distributing member (target <= 0.05)
#   BENCH ivl_fraction_inbound <x> fraction   bytes that crossed as INBOUND over the bytes
#                       the guests received, the LAN sending to every guest, and
#                       ivl_fraction_inbound_predicted, the share the switch's hash
#                       predicts (src-dst-mac: the flows it puts on another system's member)
#   BENCH mvlag_system_loss_gap_ms_carrier <ms> ms   system 2 dies with its links (vswitchd
#                       and corosync SIGKILLed, its OSA links down): the longest silence
#                       between answered pings (asked every 5 ms, LAN to system 1's guest,
#                       a flow the switch hashes onto system 2's member) less 5 ms
#                       (target <= 100)
#   BENCH mvlag_system_loss_gap_ms_silent <ms> ms    the same with its links up: the
#                       switch learns it only by LACP's short timeout (target <= 3500)
#   BENCH mvlag_str_scaling_4p <x> ratio   TCP from the guests of systems 1 and 2 to both
#                       LAN hosts through their four ports against the same streams
#                       through one port (the other three shut down: system 2's guest
#                       crosses the IVL), also mvlag_str_<N>p_mbps (target >= 3.6)
#   BENCH mvlag_str_4p_min_port_busy <x> fraction   the least busy of the four ports in the
#                       four-port run: its bytes on the switch's side over 3 s in the middle
#                       of the run, over 200 Mbit/s (target >= 0.9)
# Root, corosync, iperf3. About 90 s. Timings on a shared machine are noisy: the log
# prints the host's load beside them.
set -u
command -v iperf3 >/dev/null || { echo "iperf3 missing (scripts/deps.sh)"; exit 77; }
export IVL_NSYS=3 IVL_LANS=2 IVL_RATE=${IVL_RATE:-200000000}
export IVL_LAN_MAC1=02:00:0b:00:00:03 IVL_LAN_MAC2=02:00:0b:00:00:04
. "$(dirname "$0")/../integration/ivl_lab_lib.sh"

# sum of a system's IVL port counter: $2 Sent|Received, $3 OUTBOUND|INBOUND|FLOOD (bytes)
ivl_bytes() {
  cp_cmd "$1" "QUERY VSWITCH GLOBSW" |
    awk -v dir="$2:" -v kind="$3" '$1 == dir { for (i = 2; i < NF; i++) if ($i == kind) {
      v = $(i + 2); gsub(/[()]/, "", v); print v; exit } }'
}
sum_ivl() {  # sum_ivl Sent|Received KIND over every system
  local t=0 n v
  for n in 1 2 3; do v=$(ivl_bytes $n "$1" "$2"); t=$((t + ${v:-0})); done
  echo $t
}
guest_bytes() {  # guest_bytes tx|rx: over every guest's tap, from the guest's side
  local t=0 n
  for n in 1 2 3; do
    t=$((t + $(ip netns exec "$TAG-g$n" cat /sys/class/net/lnx$n-f000/statistics/${1}_bytes)))
  done
  echo $t
}
port_bytes() {  # port_bytes IF: bytes the switch received on a member's cable
  ip netns exec "$PHY" cat /sys/class/net/$1/statistics/rx_bytes
}
# The longest silence between two answered pings of a ping -D output, in ms, less the
# 5 ms they are asked apart (ping itself sends more slowly while answers are missing, so
# the lost sequence numbers would undercount it). The silence from the last answer to
# END (epoch seconds, ping -D's clock) counts too, so traffic that never comes back reads
# as the gap it is; no answer after KILL at all is a failure, not a figure.
loss_gap_ms() {  # loss_gap_ms PING-OUTPUT KILL END
  awk -v kill="$2" -v end="$3" '
       /bytes from/ { t = substr($1, 2, length($1) - 2) + 0
         if (have && t - prev > gap) gap = t - prev; prev = t; have = 1
         if (t > kill) after = 1 }
       END { if (!after) { print "no answer after the kill" > "/dev/stderr"; exit 1 }
             if (end - prev > gap) gap = end - prev
             g = gap * 1000 - 5; printf "%d", g < 0 ? 0 : g }' "$1"
}

ivl_lab_init
for n in 1 2 3; do ivl_start_system $n; done
wait_for 20 bundled "1 2 3" || fail "the switch did not bundle all six ports: $(group_line)"
for n in 1 2 3; do wait_for 5 status_is $n "ACTIVE  Systems: 3" || fail "system $n not ACTIVE"; done
for n in 1 2 3; do guest_ping $n 10.89.0.100 2 >/dev/null; guest_ping $n 10.89.0.101 2 >/dev/null; done
echo "converged: $(group_line); load $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- ivl_fraction_outbound / _inbound -----------------------------------------------------
lan_servers() {  # one-shot iperf3 servers on the LAN host, one per guest
  for p in 5201 5202 5203; do
    ip netns exec "$LAN" iperf3 -s -1 -D -p $p >/dev/null 2>&1
  done
  sleep 0.3
}
lan_servers
o0=$(sum_ivl Sent OUTBOUND) t0=$(guest_bytes tx)
clients=()                              # (a bare wait would wait for the vswitchds too)
for n in 1 2 3; do
  ip netns exec "$TAG-g$n" iperf3 -u -b 20M -t 2 -c 10.89.0.100 -p $((5200 + n)) >/dev/null 2>&1 &
  clients+=($!)
done
wait "${clients[@]}"
out=$(( $(sum_ivl Sent OUTBOUND) - o0 )) sent=$(( $(guest_bytes tx) - t0 ))
[ "$sent" -gt 1000000 ] || fail "the guests sent only $sent bytes"
echo "outbound: $out of $sent guest bytes crossed the IVL"
awk -v o="$out" -v s="$sent" 'BEGIN { printf "BENCH ivl_fraction_outbound %.4f fraction\n", o / s }'

lan_servers
i0=$(sum_ivl Received INBOUND) r0=$(guest_bytes rx)
clients=()
for n in 1 2 3; do
  ip netns exec "$TAG-g$n" iperf3 -R -u -b 20M -t 2 -c 10.89.0.100 -p $((5200 + n)) >/dev/null 2>&1 &
  clients+=($!)
done
wait "${clients[@]}"
in=$(( $(sum_ivl Received INBOUND) - i0 )) got=$(( $(guest_bytes rx) - r0 ))
# The switch's hash: bucket (dst ^ src last byte) & 7, member bucket % 6 in port order,
# system member / 2 + 1; a guest's flow crosses when that system is not its own.
lan=$((16#${IVL_LAN_MAC1##*:})) cross=0
for n in 1 2 3; do
  m=$(( ((lan ^ 0x01) & 7) % 6 ))
  [ $((m / 2 + 1)) != $n ] && cross=$((cross + 1))
done
echo "inbound: $in of $got guest bytes crossed the IVL; the hash predicts $cross of 3 flows"
awk -v i="$in" -v g="$got" 'BEGIN { printf "BENCH ivl_fraction_inbound %.4f fraction\n", i / g }'
awk -v c="$cross" 'BEGIN { printf "BENCH ivl_fraction_inbound_predicted %.4f fraction\n", c / 3 }'

# ---- a system dies: with its links, then silently -----------------------------------------
loss_run() {  # loss_run NAME KILL-COMMAND: pings LAN -> guest 1 across system 2's death
  local out=$W/ping-$1
  ip netns exec "$LAN" ping -D -n -i 0.005 -c 1400 -W 1 10.89.0.1 >"$out" 2>&1 &
  local pid=$! t_kill t_end
  sleep 1.5
  t_kill=$(date +%s.%N)
  "${@:2}"
  wait $pid
  t_end=$(date +%s.%N)
  echo "$1: $(tail -n 2 "$out" | head -n 1); load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  loss_gap_ms "$out" "$t_kill" "$t_end" || fail "$1: LAN -> guest 1 never answered after the kill"
}
kill_with_links() {
  ivl_stop_system 2 KILL
  ip -n "$TAG-s2" link set osa1 down
  ip -n "$TAG-s2" link set osa2 down
}
restart_2() {
  ip -n "$TAG-s2" link set osa1 up
  ip -n "$TAG-s2" link set osa2 up
  ivl_start_system 2
  wait_for 20 bundled "1 2 3" || fail "system 2's ports did not come back: $(group_line)"
  wait_for 5 status_is 2 "ACTIVE  Systems: 3" || fail "system 2 did not rejoin"
}
gap=$(loss_run carrier kill_with_links)
echo "BENCH mvlag_system_loss_gap_ms_carrier $gap ms"
restart_2
gap=$(loss_run silent ivl_stop_system 2 KILL)
echo "BENCH mvlag_system_loss_gap_ms_silent $gap ms"
restart_2

# ---- STR through four ports of two systems, against one ------------------------------------
sm "shutdown Gi2/5" >/dev/null && sm "shutdown Gi2/6" >/dev/null || fail "shutdown"
wait_for 10 bundled "1 2" || fail "system 3's ports still bundled: $(group_line)"
# Bundled at the switch is not yet distributing at vswitchd (the Mux's wait after a
# restart): the four ports are measured only once each system distributes on both.
for n in 1 2; do
  wait_for 10 distributing $n 2 || fail "system $n does not distribute on both members"
done
str_mbps() {  # str_mbps SECONDS: four TCP streams, guests 1 and 2 to both LAN hosts
  local s=$1 k n pids=()
  for k in 1 2; do
    for p in 5201 5202; do
      ip netns exec "$([ $k = 1 ] && echo "$LAN" || echo "$LAN2")" iperf3 -s -1 -D -p $p >/dev/null 2>&1
    done
  done
  sleep 0.3
  for n in 1 2; do
    for k in 1 2; do
      ip netns exec "$TAG-g$n" iperf3 -c 10.89.0.$((99 + k)) -p $((5200 + n)) -t "$s" -J \
        >"$W/str-$n-$k.json" 2>&1 &
      pids+=($!)
    done
  done
  wait "${pids[@]}"
  python3 "$(dirname "$0")/iperf_mbps.py" "$W"/str-*.json
}
# Each port's bytes over 3 s in the middle of the run (slow start and the streams' ends
# left out), sampled beside it.
sample_ports() {  # sample_ports FILE: "port bytes" lines, and the time in FILE.t
  date +%s.%N > "$1.t"
  for x in s1a s1b s2a s2b; do echo "$x $(port_bytes sw-$x)"; done > "$1"
}
( sleep 2; sample_ports "$W/ports0"; sleep 3; sample_ports "$W/ports1" ) &
sampler=$!
m4=$(str_mbps 6)
wait $sampler
busy=$(join "$W/ports0" "$W/ports1" | awk -v r="$IVL_RATE" -v t0="$(cat "$W/ports0.t")" \
    -v t1="$(cat "$W/ports1.t")" '
  { f = ($3 - $2) * 8 / ((t1 - t0) * r); printf "port sw-%s: %.3f of %s bit/s\n", $1, f, r > "/dev/stderr"
    if (NR == 1 || f < m) m = f }
  END { printf "%.3f", m }')
for x in Gi2/2 Gi2/3 Gi2/4; do sm "shutdown $x" >/dev/null || fail "shutdown $x"; done
wait_for 10 distributing 2 0 || fail "system 2 still distributes"
m1=$(str_mbps 6)
echo "STR: four ports $m4 Mbit/s, one port $m1 Mbit/s; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "BENCH mvlag_str_4p_mbps $m4 Mbit/s"
echo "BENCH mvlag_str_1p_mbps $m1 Mbit/s"
awk -v a="$m4" -v b="$m1" 'BEGIN { printf "BENCH mvlag_str_scaling_4p %.2f ratio\n", a / b }'
echo "BENCH mvlag_str_4p_min_port_busy $busy fraction"
