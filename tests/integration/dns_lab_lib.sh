# A DNS server for the labs that resolve names (names/): dnsmasq (Debian's dnsmasq-base:
# the program alone, no service, never port 53 on the host) in a namespace of its own on
# a veth to vswitchd's, answering from a hosts file with a TTL the test sets. names_dns.sh
# and lab_vxlan_dns.sh source it after lib.sh.
# shellcheck shell=bash
# A sourced library, not a test (tests/run.sh skips *_lib.sh; run on its own it exits 77).
#
#   dns_server_start NS SW_ADDR DNS_ADDR PORT TTL
#                        veth dns0 (NS_SW, SW_ADDR/30) to dns1 (NS, DNS_ADDR/30); dnsmasq
#                        in NS on DNS_ADDR:PORT answering from $WORK/hosts (the caller
#                        writes it first; SIGHUP to DNS_PID re-reads it) with --local-ttl
#                        TTL; returns once it listens (DNS_PID its process)

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  echo "SKIP: dns_lab_lib.sh is a library for other tests"
  exit 77
fi

dns_server_start() {
  local ns=$1 sw_addr=$2 dns_addr=$3 port=$4 ttl=$5
  ip -n "$NS_SW" link add dns0 type veth peer name dns1 netns "$ns" || fail "veth dns0"
  ip -n "$NS_SW" addr add "$sw_addr/30" dev dns0
  ip -n "$NS_SW" link set dns0 up
  ip -n "$ns" addr add "$dns_addr/30" dev dns1
  ip -n "$ns" link set dns1 up
  ip netns exec "$ns" dnsmasq --no-daemon --conf-file=/dev/null --no-resolv --no-hosts \
    --addn-hosts="$WORK/hosts" --local-ttl="$ttl" --listen-address="$dns_addr" \
    --bind-interfaces --port="$port" --user=root --group=root \
    --pid-file="$WORK/dnsmasq.pid" --log-facility=- >"$WORK/dnsmasq.log" 2>&1 &
  DNS_PID=$!
  wait_for 5 ip netns exec "$ns" sh -c "ss -Hlun 'sport = :$port' | grep -q ." ||
    fail "dnsmasq does not listen: $(cat "$WORK/dnsmasq.log")"
  kill -0 "$DNS_PID" 2>/dev/null || fail "dnsmasq did not start: $(cat "$WORK/dnsmasq.log")"
}
