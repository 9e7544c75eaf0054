#!/usr/bin/env bash
# check: light (SIGSTOP window: 0.3 s for two pings to reach their taps, the carrier event waited for; failover; pings only)
# A member's link goes while frames for it are on their way: they reach the LAN through
# the other member instead of being lost.
#
# vswitchd is stopped (SIGSTOP) while each guest pings a LAN host, one frame each (LAN
# ...:01 and LAN2 ...:02 start on different members); the echo requests wait in the taps.
# Then the switch model's end of member 2902 goes down and vswitchd continues: it reads the
# taps before it reads the carrier event queued after them, so one request goes to a
# member whose carrier is gone. The kernel refuses it (ENOBUFS); the backend asks the
# driver, learns the link is gone and the switch hands the frame to 28BA (Resteered: 1 in
# QUERY PORT GROUP).
. "$(dirname "$0")/lacp_lab_lib.sh"
lab_init txdown
VSWITCHD_ARGS="-l info -k $WORK/console.sock" LAB_TAPS="a b" \
  lab_group_start "$ROOT/configs/switchmodel/lab6509.conf" "$ROOT/configs/lab/SYSTEM-GROUP.CONFIG" \
  "$ROOT/configs/lab/USER.DIRECT"
wait_for 15 distributing_is 2 || fail "group not up: $(cat "$(lab_stats)")"
LAB_TAPS="a b" lab_static_arp
ip netns exec "$NS_LAN2" ip neigh replace "${LAB_IP[b]}" lladdr \
  "$(ip -n "$NS_B" -br link show lnxb-f000 | awk '{print $3}')" dev eth0 nud permanent
ip netns exec "$NS_B" ip neigh replace "${LAB_IP[lan2]}" lladdr 02:00:0a:00:00:02 dev lnxb-f000 nud permanent
ip netns exec "$NS_A" ping -c 2 -i 0.2 -W 1 "${LAB_IP[lan]}" >/dev/null || fail "ping A -> LAN"
ip netns exec "$NS_B" ping -c 2 -i 0.2 -W 1 "${LAB_IP[lan2]}" >/dev/null || fail "ping B -> LAN2"
vmcp "QUERY PORT GROUP" >"$WORK/qpg0"
grep -q "Resteered: 0$" "$WORK/qpg0" || fail "resteered before the test: $(cat "$WORK/qpg0")"
sleep 0.5                               # vswitchd idle, waiting in epoll

kill -STOP "$VSWITCHD_PID"
ip netns exec "$NS_A" ping -c 1 -W 4 "${LAB_IP[lan]}" >"$WORK/pa" 2>&1 &
pa=$!
ip netns exec "$NS_B" ping -c 1 -W 4 "${LAB_IP[lan2]}" >"$WORK/pb" 2>&1 &
pb=$!
sleep 0.3                               # both requests are in the taps
ip -n "$NS_PHY" link set sw-osa2902 down
# The carrier event is queued behind them once the kernel's link watch has run for osa2902
# (it sets the operational state and sends the netlink event together, under the lock
# that `ip` takes to read the state): waited for, rather than a fixed 0.2 s.
carrier_event_sent() { ip -n "$NS_SW" -br link show osa2902 | awk '$2 ~ /DOWN/ { f = 1 } END { exit !f }'; }
wait_for 5 carrier_event_sent || fail "osa2902 did not lose its carrier"
kill -CONT "$VSWITCHD_PID"
wait $pa || fail "A's echo request was lost: $(cat "$WORK/pa")"
wait $pb || fail "B's echo request was lost: $(cat "$WORK/pb")"
echo "ok: both echo requests answered across the member that went down"

vmcp "QUERY PORT GROUP" >"$WORK/qpg1"
cat "$WORK/qpg1"
grep -q "Resteered: 1$" "$WORK/qpg1" || fail "expected exactly one frame resteered"
grep -q "RDEV 2902 *DOWN *Collecting: NO  Distributing: NO" "$WORK/qpg1" ||
  fail "2902 still in the group"
grep -q "RDEV 28BA *UP *Collecting: YES Distributing: YES Buckets: 256" "$WORK/qpg1" ||
  fail "28BA does not carry every bucket"
echo "ok: the frame went out on 28BA (Resteered: 1); 2902 left the group"

ip -n "$NS_PHY" link set sw-osa2902 up
wait_for 15 distributing_is 2 || fail "2902 did not come back"
ip netns exec "$NS_A" ping -c 2 -i 0.2 -W 1 "${LAB_IP[lan]}" >/dev/null || fail "ping A after 2902 returned"
ip netns exec "$NS_B" ping -c 2 -i 0.2 -W 1 "${LAB_IP[lan2]}" >/dev/null || fail "ping B after 2902 returned"
echo "ok: 2902 back in the group, both hosts reachable"
