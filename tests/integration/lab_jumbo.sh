#!/usr/bin/env bash
# check: parallel (lab_basic at MTU 9000)
# The basic lab at MTU 9000 (jumbo frames, as z/VM guests use with OSA-Express).
MTU=9000 exec bash "$(dirname "$0")/lab_basic.sh"
