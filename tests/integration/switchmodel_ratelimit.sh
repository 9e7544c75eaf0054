#!/usr/bin/env bash
# check: light (rate limit: iperf3 within 85-102 % of 200 Mbit/s, a shaped stream: 1.7 s of CPU in 13 s)
# Rate limit: switch model A's server port Gi3/1 is limited to 200 Mbit/s (token bucket
# shaper each way, configs/switchmodel/lab6509-ratelimit.conf). iperf3 TCP between the
# hosts (offloads on: super-frames cross with their virtio-net metadata) must measure
# 85..102 % of the limit in both directions.
. "$(dirname "$0")/../switchmodel/lab.sh"
command -v iperf3 >/dev/null || sm_skip "iperf3 missing"
LIMIT=200000000

sm_lab_init rate
sm_start A "$SM_CONF/lab6509-ratelimit.conf"
sm_start B "$SM_CONF/lab6509.conf"
sm_wait_line A '^1 Po1\(SU\) LACP Gi2/23\(P\) Gi2/24\(P\)$' 10
sm_ping 2 || sm_fail "ping: $(tail -n 2 "$SM_WORK/ping")"

measure() {  # measure [-R]: bits/s received
  ip netns exec "$NS_HB" iperf3 -s -1 -D -I "$SM_WORK/iperf.pid" >/dev/null 2>&1
  sm_wait 5 ip netns exec "$NS_HB" sh -c "ss -ltn | grep -q ':5201 '" || sm_fail "iperf3 server"
  timeout 20 ip netns exec "$NS_HA" iperf3 -c 10.78.0.2 -t 4 -O 1 "$@" -J >"$SM_WORK/iperf.json" 2>&1 ||
    sm_fail "iperf3 $*: $(grep -m1 error "$SM_WORK/iperf.json")"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(int(d["end"]["sum_received"]["bits_per_second"]))' "$SM_WORK/iperf.json"
}
for dir in "" -R; do
  BPS=$(measure $dir)
  PCT=$((BPS * 100 / LIMIT))
  [ $PCT -ge 85 ] && [ $PCT -le 102 ] || sm_fail "iperf3 ${dir:-A->B}: $BPS bit/s = $PCT % of $LIMIT"
  sm_ok "iperf3 ${dir:-A->B}: $BPS bit/s = $PCT % of the 200 Mbit/s limit"
done
sm_cmd A "show interfaces counters" | awk '$1 == "Gi3/1" && NF == 6' >"$SM_WORK/drops"
sm_ok "Gi3/1 NotBundled VlanDenied InQueueDrop OutQueueDrop OutErrors: $(cut -c11- "$SM_WORK/drops" | tr -s ' ')"
