#!/usr/bin/env bash
# check: light (a DNS record changed under traffic; the move timed against a 1 s TTL plus a backoff step; 1.3 s of CPU in 6 s)
# A remote VTEP by host name whose DNS record changes under traffic (overlay/vtep_names.c).
# LABVSW1's uplink is VXLAN VNI 5000 with REMOTE vtep.zvs.lab; dnsmasq (dnsmasq-base, port
# 5353, in a namespace of its own on a veth to vswitchd's) answers it from a hosts file
# with a TTL of 1 s. The underlay is a Linux bridge in PHY joining OSA 28BA and two kernel
# vxlan peers, LAN at 10.99.0.2 and LAN2 at 10.99.0.3, each holding 10.77.0.100 with one
# MAC (a host moved between servers). Guest A pings 10.77.0.100 every 0.1 s; the record
# moves from .2 to .3 (hosts file, SIGHUP). Asserted: QUERY VSWITCH shows the remote at the
# new address within the TTL plus one backoff step; LAN2's vxlan device receives and
# answers; LAN's receives nothing more; the MAC stayed learned behind the same remote.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vxlan_lab_lib.sh"
. "$(dirname "$0")/dns_lab_lib.sh"
command -v dnsmasq >/dev/null || skip "dnsmasq missing (Debian package dnsmasq-base)"

NAME=vtep.zvs.lab
DNS_IP=10.98.0.2
DNS_PORT=5353                           # the test's own port in the test's own namespace
TTL=1                                   # dnsmasq --local-ttl; RESOLVER MINTTL 1 keeps it
STEP=1                                  # the first backoff step (names/name_watch.h)
SLACK=2                                 # polling and scheduling on a shared machine

lab_init vxdns
NS_DNS=$NS_C
SYSCONFIG=$WORK/SYSTEM.CONFIG
vxlan_sysconfig "$SYSCONFIG" "REMOTE $NAME" \
  "RESOLVER SERVER $DNS_IP:$DNS_PORT TIMEOUT 300 MINTTL 1"

vmcp_shows() { vmcp "QUERY VSWITCH LABVSW1 DETAILS" | grep -q -- "$1"; }
vx_count() {  # vx_count NS rx|tx: the packets that NS's vxlan device received or sent
  ip netns exec "$1" cat "/sys/class/net/vx0/statistics/$2_packets"
}
count_at_least() { [ "$(vx_count "$1" "$2")" -ge "$3" ]; }

# The DNS server, on a veth of vswitchd's namespace (the resolver's sockets are the
# kernel's there; the VTEP's underlay is not an IP interface of that namespace).
echo "10.99.0.2 $NAME" >"$WORK/hosts"
dns_server_start "$NS_DNS" 10.98.0.1 "$DNS_IP" "$DNS_PORT" "$TTL"

# The underlay: a bridge in PHY; osa28ba (vswitchd's, no address), LAN's and LAN2's eth0.
ip -n "$NS_PHY" link add br0 type bridge || fail "bridge"
ip -n "$NS_PHY" link set br0 up
ip -n "$NS_SW" link add osa28ba type veth peer name ph-sw netns "$NS_PHY" || fail "veth"
ip -n "$NS_SW" link set osa28ba up
ip -n "$NS_PHY" link set ph-sw master br0 up
n=2
for ns in "$NS_LAN" "$NS_LAN2"; do
  ip -n "$ns" link add eth0 type veth peer name "ph-$n" netns "$NS_PHY" || fail "veth ph-$n"
  ip -n "$NS_PHY" link set "ph-$n" master br0 up
  ip -n "$ns" addr add "10.99.0.$n/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link add vx0 type vxlan id 5000 local "10.99.0.$n" remote 10.99.0.1 \
    dstport 4789 dev eth0 nolearning || fail "vxlan in $ns"
  ip -n "$ns" link set vx0 address 02:00:0a:00:00:64 mtu 1450 up
  ip -n "$ns" addr add 10.77.0.100/24 dev vx0
  n=$((n + 1))
done

vxlan_vswitchd "$SYSCONFIG"
PING_PID=
trap 'rc=$?; kill $PING_PID $DNS_PID 2>/dev/null; (exit $rc); lab_cleanup' EXIT
wait_for 5 vmcp_shows "Remote 0: $NAME  address: 10.99.0.2  state: ACTIVE" ||
  fail "$NAME not resolved: $(vmcp 'QUERY VSWITCH LABVSW1 DETAILS'; vmcp 'QUERY RESOLVER')"
echo "ok: remote VTEP $NAME resolved to 10.99.0.2 through dnsmasq"

ip netns exec "$NS_A" ping -i 0.1 -w 15 -W 1 10.77.0.100 >"$WORK/ping" 2>&1 &
PING_PID=$!
wait_for 5 count_at_least "$NS_LAN" tx 10 || fail "no answers from LAN: $(tail -n 3 "$WORK/ping")"
vmcp_shows "MAC 02-00-0A-00-00-64 VNI 5000  remote 0" || fail "10.77.0.100's MAC not learned"
echo "ok: traffic to 10.99.0.2: LAN's vxlan device received $(vx_count "$NS_LAN" rx)"

# The record changes under traffic: dnsmasq re-reads its hosts file on SIGHUP.
echo "10.99.0.3 $NAME" >"$WORK/hosts"
kill -HUP "$DNS_PID"
t0=$SECONDS
wait_for $((TTL + STEP + SLACK)) vmcp_shows "Remote 0: $NAME  address: 10.99.0.3  state: ACTIVE" ||
  fail "remote not moved within TTL $TTL s + step $STEP s: $(vmcp 'QUERY VSWITCH LABVSW1')"
echo "ok: the remote moved to 10.99.0.3 after about $((SECONDS - t0)) s (TTL $TTL s)"
wait_for 3 count_at_least "$NS_LAN2" tx 10 ||
  fail "LAN2 answered $(vx_count "$NS_LAN2" tx) of $(vx_count "$NS_LAN2" rx): $(tail -n 3 "$WORK/ping")"
old=$(vx_count "$NS_LAN" rx)
sleep 0.5                               # five more pings
expect_eq "LAN's received frames 0.5 s after the move (none more)" "$(vx_count "$NS_LAN" rx)" "$old"
echo "ok: LAN2's vxlan device received $(vx_count "$NS_LAN2" rx), answered $(vx_count "$NS_LAN2" tx)"
vmcp_shows "MAC 02-00-0A-00-00-64 VNI 5000  remote 0" || fail "the learned MAC was lost in the move"
echo "ok: 02:00:0a:00:00:64 still learned behind remote 0"
kill -INT "$PING_PID"; wait "$PING_PID" 2>/dev/null; PING_PID=
tail -n 2 "$WORK/ping" | head -n 1
vmcp "QUERY VSWITCH LABVSW1" | grep -E "Remote 0|Encapsulated|Discards"
kill -TERM "$DNS_PID" 2>/dev/null; wait "$DNS_PID" 2>/dev/null
