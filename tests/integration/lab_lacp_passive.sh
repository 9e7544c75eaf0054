#!/usr/bin/env bash
# check: light (switch-model LACP timing: short-timeout expiry, convergence; pings only; the capture of the exchange waited for)
# vswitchd's two-port group against the switch model in channel-group mode passive
# (see lacp_lab_lib.sh for what is asserted).
. "$(dirname "$0")/lacp_lab_lib.sh"
lacp_lab passive
