#!/usr/bin/env bash
# check: parallel (lab_basic through libpcap)
# The basic lab with the uplink read and written through libpcap (RDEVICE ... BACKEND
# PCAP, configs/lab/SYSTEM-PCAP.CONFIG) instead of AF_PACKET with virtio-net headers:
# the same pings, exact counters, broadcast reach, carrier loss and iperf3 guest-guest
# and guest-LAN, with offloads ON at the LAN side, so the backend's checksum and
# super-frame marking carries TCP both ways. Its iperf3 A->LAN line against lab_basic's
# is the measured cost of libpcap. Also checks that vswitchd really opened the uplink
# with libpcap (its log line "RDEV 28BA on osa28ba (pcap, ...").
#
# How the log is seen: lab_basic deletes its work directory, so vswitchd is started
# through this script in --wrap mode (VSWITCHD_WRAP), which copies its output to a file
# of ours and then becomes vswitchd (same PID, same exit status).
if [ "${1:-}" = "--wrap" ]; then
  copy=$2; shift 2
  exec "$@" > >(tee "$copy") 2>&1
fi
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
LOGCOPY=$(mktemp /tmp/zvs-lab-pcap.XXXXXX)
trap 'rm -f "$LOGCOPY"' EXIT
SYSCONFIG=$ROOT/configs/lab/SYSTEM-PCAP.CONFIG \
VSWITCHD_WRAP="bash $HERE/lab_pcap.sh --wrap $LOGCOPY ${VSWITCHD_WRAP:-}" \
  bash "$HERE/lab_basic.sh"
rc=$?
[ $rc -eq 0 ] || exit $rc
if ! grep -q "RDEV 28BA on osa28ba (pcap, MTU" "$LOGCOPY"; then
  echo "FAIL: vswitchd did not open RDEV 28BA through libpcap:"
  grep "RDEV 28BA" "$LOGCOPY" | head -n 3
  exit 1
fi
echo "ok: RDEV 28BA ran on the libpcap backend"
echo "lab_pcap: passed"
