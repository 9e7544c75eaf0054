#!/usr/bin/env bash
# check: light (switch-model LACP timing: short timeout, convergence, paced PDUs; a scapy partner or sniffer, pings only)
# Failure injection: "shutdown Gi2/24" on one switch model sets its veth end down, both
# sides drop the member (D), the bundle carries on over Gi2/23 and ping still crosses;
# "no shutdown" brings the member back into the bundle. Markers are answered.
. "$(dirname "$0")/../switchmodel/lab.sh"

sm_lab_init failover
sm_start A "$SM_CONF/lab6509.conf"
sm_start B "$SM_CONF/lab6509.conf"
P2='^1 Po1\(SU\) LACP Gi2/23\(P\) Gi2/24\(P\)$'
sm_wait_line A "$P2" 10
sm_wait_line B "$P2" 10

sm_cmd A "shutdown Gi2/24" >/dev/null || sm_fail "shutdown"
sm_wait_line A '^1 Po1\(SU\) LACP Gi2/23\(P\) Gi2/24\(D\)$' 5
sm_wait_line B '^1 Po1\(SU\) LACP Gi2/23\(P\) Gi2/24\(D\)$' 5
ip -n "$NS_SWA" link show sw-osa2902 | grep -q "state DOWN" || sm_fail "A's veth end not down"
# A few distinct flows: every bucket now maps to the one member left.
sm_ping 5 || sm_fail "ping over one member: $(tail -n 2 "$SM_WORK/ping")"
sm_ok "bundle continues on Gi2/23, ping crosses"

sm_cmd A "no shutdown Gi2/24" >/dev/null || sm_fail "no shutdown"
sm_wait_line A "$P2" 10
sm_wait_line B "$P2" 10
sm_ping 3 || sm_fail "ping after no shutdown"
sm_ok "member back after no shutdown"

# Marker: a Marker Information PDU into B's Gi2/23 (from A's side of the wire, A stopped
# reading it does not matter: the frame is sent on A's veth end) gets a Marker Response.
if /usr/bin/python3 -c 'import scapy' 2>/dev/null; then
  sm_stop A || sm_fail "A did not exit cleanly"
  ip netns exec "$NS_SWA" /usr/bin/python3 - <<'PY' >"$SM_WORK/marker" 2>&1 || sm_fail "marker: $(cat "$SM_WORK/marker")"
from scapy.all import Ether, sendp, AsyncSniffer
from scapy.contrib.slowprot import SlowProtocol
from scapy.contrib.lacp import MarkerProtocol
import time
sn = AsyncSniffer(iface="sw-osa28ba", filter="ether proto 0x8809")
sn.start(); time.sleep(0.5)
m = Ether(dst="01:80:c2:00:00:02", src="02:00:00:00:0a:01", type=0x8809) / SlowProtocol(subtype=2) / \
    MarkerProtocol(marker_type=1, requester_port=7, requester_system="02:00:00:00:0a:01",
                   requester_transaction_id=0x1234)
sendp(m, iface="sw-osa28ba", verbose=False)
time.sleep(1.5)
pk = sn.stop()
resp = [p for p in pk if MarkerProtocol in p and p[MarkerProtocol].marker_type == 2]
assert resp, "no marker response among %d slow frames" % len(pk)
r = resp[0][MarkerProtocol]
assert r.requester_port == 7 and r.requester_transaction_id == 0x1234, r.show(dump=True)
print("marker response ok")
PY
  sm_ok "$(cat "$SM_WORK/marker")"
  R=$(sm_cmd B "show lacp counters" | awk '$1 == "Gi2/23" && NF == 8 {print $4, $5, $6, $7}')
  [ "$R" = "0 1 1 0" ] || sm_fail "B marker counters (sent recv resp-sent resp-recv): $R"
  sm_ok "B counted 1 Marker received, 1 Marker Response sent"
fi
