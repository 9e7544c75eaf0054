#!/usr/bin/env bash
# check: light (switch-model LACP timing: short timeout, convergence, paced PDUs; a scapy partner or sniffer, pings only)
# Vendor quirk profiles on a scripted partner (scapy sends LACPDUs into switch model B):
# require-aggregation refuses a partner without the Aggregation bit, reject-partner-
# port-zero a partner with port number 0 (both: member suspended 's', counted as
# rejected, never bundled); suspend-individual shows a member with no LACPDUs as 's'
# where the default profile shows 'I'. A valid partner PDU is accepted (not 's').
. "$(dirname "$0")/../switchmodel/lab.sh"
/usr/bin/python3 -c 'import scapy.contrib.lacp' 2>/dev/null || sm_skip "python3-scapy missing"

sm_lab_init quirks
sm_start B "$SM_CONF/lab6509-quirks.conf"
sm_wait_line B '^1 Po1\(SD\) LACP Gi2/23\(s\) Gi2/24\(s\)$' 8     # no LACPDUs: suspended

send_pdus() {  # send_pdus PORT STATE COUNT
  ip netns exec "$NS_SWA" /usr/bin/python3 - "$@" <<'PY'
import sys, time
from scapy.all import Ether, sendp
from scapy.contrib.slowprot import SlowProtocol
from scapy.contrib.lacp import LACP
port, state, count = int(sys.argv[1]), int(sys.argv[2], 0), int(sys.argv[3])
p = Ether(dst="01:80:c2:00:00:02", src="02:00:00:00:0a:11", type=0x8809) / SlowProtocol(subtype=1) / \
    LACP(actor_system_priority=32768, actor_system="02:00:00:00:0a:01", actor_key=1,
         actor_port_priority=32768, actor_port_numer=port, actor_state=state)
for _ in range(count):
    sendp(p, iface="sw-osa28ba", verbose=False)
    time.sleep(0.3)
PY
}
rejected() { sm_cmd B "show lacp counters" | awk '$1 == "Gi2/23" && NF == 6 {print $3}'; }

send_pdus 1 0x03 3 || sm_fail "scapy"                   # active, fast, NOT aggregatable
[ "$(rejected)" = 3 ] || sm_fail "require-aggregation: rejected $(rejected), want 3"
sm_line_matches B 'Gi2/23\(s\)' || sm_fail "not suspended: $(sm_group_line B)"
sm_ok "require-aggregation: 3 PDUs rejected, Gi2/23 suspended"

send_pdus 0 0x07 2 || sm_fail "scapy"                   # aggregatable, port number 0
[ "$(rejected)" = 5 ] || sm_fail "reject-partner-port-zero: rejected $(rejected), want 5"
sm_ok "reject-partner-port-zero: 2 more PDUs rejected"

send_pdus 1 0x07 2 || sm_fail "scapy"                   # a valid partner
[ "$(rejected)" = 5 ] || sm_fail "a valid PDU was rejected"
RX=$(sm_cmd B "show lacp counters" | awk '$1 == "Gi2/23" && NF == 8 {print $3}')
[ "$RX" = 2 ] || sm_fail "valid PDUs received: $RX, want 2"
sm_line_matches B 'Gi2/23\([wP]\)' || sm_fail "valid partner still suspended: $(sm_group_line B)"
sm_ok "valid partner accepted: $(sm_group_line B)"
sm_stop B || sm_fail "B did not exit cleanly"

# The default profile shows a silent LACP member as stand-alone.
sm_start B "$SM_CONF/lab6509.conf"
sm_wait_line B '^1 Po1\(SD\) LACP Gi2/23\(I\) Gi2/24\(I\)$' 8
