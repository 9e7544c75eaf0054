#!/usr/bin/env bash
# check: alone (LACP timers: short-timeout expiry, convergence)
# vswitchd's two-port group against the switch model in channel-group mode active
# (see lacp_lab_lib.sh for what is asserted).
. "$(dirname "$0")/lacp_lab_lib.sh"
lacp_lab active
