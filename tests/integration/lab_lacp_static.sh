#!/usr/bin/env bash
# check: light (failover, no LACP; pings only; the capture that must stay empty waited for)
# vswitchd's two-port group against the switch model in channel-group mode on
# (see lacp_lab_lib.sh for what is asserted).
. "$(dirname "$0")/lacp_lab_lib.sh"
lacp_lab on
