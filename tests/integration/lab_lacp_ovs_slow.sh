#!/usr/bin/env bash
# check: light (LACP timers against OVS, failover; pings only; the capture of the exchange waited for)
# vswitchd's port group negotiating LACP (slow) with Open vSwitch (see lacp_ovs_lib.sh).
. "$(dirname "$0")/lacp_ovs_lib.sh"
lacp_ovs_lab slow
