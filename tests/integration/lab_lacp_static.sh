#!/usr/bin/env bash
# check: alone (failover; capture start-up window)
# vswitchd's two-port group against the switch model in channel-group mode on
# (see lacp_lab_lib.sh for what is asserted).
. "$(dirname "$0")/lacp_lab_lib.sh"
lacp_lab on
