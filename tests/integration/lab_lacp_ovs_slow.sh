#!/usr/bin/env bash
# check: alone (LACP timers against OVS, failover)
# vswitchd's port group negotiating LACP (slow) with Open vSwitch (see lacp_ovs_lib.sh).
. "$(dirname "$0")/lacp_ovs_lib.sh"
lacp_ovs_lab slow
