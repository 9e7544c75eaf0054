#!/usr/bin/env bash
# check: light (LACPDU spacing against the 1 s fast period while lookups time out; 2.2 s of CPU in 17 s)
# The name layer against a real DNS server. dnsmasq (Debian's dnsmasq-base: the program
# alone, no service, never port 53 on the host) runs in a namespace of its own on a veth
# to vswitchd's, answering from a hosts file with a TTL the test sets. vswitchd runs the
# two-port LACP group against the switch model (lacp rate fast: a LACPDU a second on each
# port) and watches one name (RESOLVER in its SYSTEM CONFIG). Asserted:
#   - the name resolves (QUERY RESOLVER shows the hosts file's address);
#   - the record changes (hosts file, SIGHUP) and QUERY shows the new address within the
#     TTL plus one backoff step;
#   - the server stops (SIGSTOP: its socket stays, nothing answers, lookups time out) and
#     the name goes to retrying with its address kept; the server continues (SIGCONT)
#     and the name is resolved again within the backoff step then due;
#   - no LACPDU of ours on OSA port 28BA, captured where it arrives, came later than the
#     period (1 s, plus scheduling slack) after the one before, lookups timing out or not.
# Every wait is bounded; lab_cleanup removes the namespaces and with them every process.
. "$(dirname "$0")/lacp_lab_lib.sh"
. "$(dirname "$0")/dns_lab_lib.sh"

command -v dnsmasq >/dev/null || skip "dnsmasq missing (Debian package dnsmasq-base)"
command -v tshark >/dev/null || skip "tshark missing"

NAME=peer1.zvs.lab
DNS_IP=10.99.0.2
DNS_PORT=5353                           # the test's own port in the test's own namespace
TTL=2                                   # dnsmasq --local-ttl; RESOLVER MINTTL 1 keeps it
STEP=1                                  # the first backoff step (names/name_watch.h)
SLACK=1                                 # polling and scheduling on a shared machine
PERIOD_MAX=1.3                          # fast periodic time 1 s, plus 0.3 s of slack

lab_init names
NS_DNS=$NS_C                            # the group lab drives guests A and B only

resolver_shows() { vmcp "QUERY RESOLVER" | grep -q -- "$1"; }

# Our LACPDUs on 28BA, from the first one on, arrive in NS_PHY on sw-osa28ba.
capture_lacpdus() {
  ip netns exec "$NS_PHY" timeout 40 tshark -q -i sw-osa28ba -f "ether proto 0x8809" \
    -w "$WORK/lacp.pcap" >/dev/null 2>&1 &
  CAP_PID=$!
  sleep 1.5                             # tshark's start-up, before the first PDU
}

start_dns() {
  echo "10.99.1.10 $NAME" >"$WORK/hosts"
  dns_server_start "$NS_DNS" 10.99.0.1 "$DNS_IP" "$DNS_PORT" "$TTL"
}

SYSCONF=$WORK/SYSTEM.CONFIG
{ cat "$ROOT/configs/lab/SYSTEM-GROUP.CONFIG"
  echo "RESOLVER SERVER $DNS_IP:$DNS_PORT TIMEOUT 300 MINTTL 1"
  echo "RESOLVER WATCH $NAME"; } >"$SYSCONF"
start_dns
VSWITCHD_ARGS="-k $WORK/console.sock" LAB_HOOK=capture_lacpdus LAB_TAPS="a b" \
  lab_group_start "$ROOT/configs/switchmodel/lab6509.conf" "$SYSCONF" "$ROOT/configs/lab/USER.DIRECT"
wait_for 15 distributing_is 2 || fail "group not distributing on both ports"
echo "ok: both members distributing"

wait_for 5 resolver_shows "Addresses: 10.99.1.10" ||
  fail "$NAME not resolved: $(vmcp 'QUERY RESOLVER')"
echo "ok: $NAME resolves to 10.99.1.10 through dnsmasq"

# The record changes: dnsmasq re-reads its hosts file on SIGHUP.
echo "10.99.1.20 $NAME" >"$WORK/hosts"
kill -HUP "$DNS_PID"
t0=$SECONDS
wait_for $((TTL + STEP + SLACK)) resolver_shows "Addresses: 10.99.1.20" ||
  fail "new address not shown within TTL $TTL s + step $STEP s: $(vmcp 'QUERY RESOLVER')"
echo "ok: changed record shown after about $((SECONDS - t0)) s (TTL $TTL s)"

# The server stops answering: lookups time out (300 ms a try, two tries).
kill -STOP "$DNS_PID"
t_stop=$(date +%s.%N)
wait_for $((TTL + 2 + SLACK)) resolver_shows "state: retrying" ||
  fail "no retrying state with the server stopped: $(vmcp 'QUERY RESOLVER')"
q=$(vmcp "QUERY RESOLVER")
grep -q "Addresses: 10.99.1.20" <<<"$q" || fail "address not kept while retrying: $q"
grep -q "Last error: timeout" <<<"$q" || fail "last error is not a timeout: $q"
echo "ok: server stopped: retrying, address kept, last error timeout"
sleep 2                                 # two more lookups time out (backoff 1 s, 2 s)
kill -CONT "$DNS_PID"
t_cont=$(date +%s.%N)
wait_for $((4 + 1 + SLACK)) resolver_shows "state: resolved" ||
  fail "not resolved again after the server continued: $(vmcp 'QUERY RESOLVER')"
echo "ok: server back: resolved again"
vmcp "QUERY RESOLVER"

# LACPDU spacing over the whole run, the stopped server's window included.
sleep 1
kill -INT "$CAP_PID" 2>/dev/null; wait "$CAP_PID" 2>/dev/null
tshark -r "$WORK/lacp.pcap" -Y 'lacp.actor.sysid == 02:00:0c:00:00:00' \
  -T fields -e frame.time_epoch 2>/dev/null >"$WORK/ours.txt"
n=$(wc -l <"$WORK/ours.txt")
[ "$n" -ge 8 ] || fail "only $n of our LACPDUs captured on 28BA"
read -r worst in_window < <(awk -v a="$t_stop" -v b="$t_cont" -v m="$PERIOD_MAX" '
  NR > 1 { g = $1 - p; if (g > w) w = g } $1 >= a && $1 <= b { n++ } { p = $1 }
  END { printf "%.3f %d\n", w, n }' "$WORK/ours.txt")
awk -v w="$worst" -v m="$PERIOD_MAX" 'BEGIN { exit !(w <= m) }' ||
  fail "a LACPDU came $worst s after the one before (period 1 s)"
[ "$in_window" -ge 2 ] || fail "only $in_window LACPDUs while the server was stopped"
echo "ok: $n LACPDUs of ours on 28BA, the longest gap $worst s ($in_window while lookups timed out)"
grep -q "Resolver:" "$(lab_stats)" || fail "the counters report has no resolver lines"
echo "ok: the counters report carries the resolver's totals"
kill -TERM "$DNS_PID" 2>/dev/null; wait "$DNS_PID" 2>/dev/null
