#!/usr/bin/env bash
# bench_hercules_linux: how long the Debian s390x Linux guest (guests/linux) takes from
# XAUTOLOG to the first ping answered across the VSWITCH and its LACP port group (issue 13).
#
#   BUILD=build tests/bench/bench_hercules_linux.sh     (run by tests/bench/run.sh, `make bench`)
#
# The topology of tests/integration/hercules_linux_vswitch.sh (hercules_lab_lib.sh): machine
# LNX1 (IPL LINUX, 512M, 10.77.0.60, LCS NIC on CCBVSW1), the port group 28BA+2902 against
# the switch model, the LAN host 10.77.0.100 behind it pinging every 0.2 s from just before
# XAUTOLOG; the time is the first echo reply's kernel timestamp (ping -D) less XAUTOLOG's.
# One boot (it takes a core for about a minute; the figure moves with the machine's load,
# so the load average is printed with it). Bounded: the boot 150 s, the script 200 s.
#
#   BENCH hercules_linux_boot_to_ping_s <seconds> s
#
# Exit: 0 measured, 77 not root, 1 failed (no ping within 150 s). Every process, namespace
# and file it made is removed.
[ "$(id -u)" -eq 0 ] || { echo "bench_hercules_linux: needs root for network namespaces"; exit 77; }
[ -n "${BHL_TIMED:-}" ] || BHL_TIMED=1 exec timeout -k 10 200 bash "$0" "$@"
. "$(dirname "$0")/../integration/hercules_lab_lib.sh"
herc_lab_init bhl >&2
[ -s "$BUILD/guests/linux-kernel.img" ] || fail "no Linux guest image after make guests"
IP=10.77.0.60
herc_lab_configs CCBVSW1 "" a "LNX1 512M $IP LINUX"
LAB_TAPS=a herc_lab_start "$WORK/SYSTEM.CONFIG" "$WORK/USER.DIRECT" >&2
ip netns exec "$NS_LAN" ping -D -n -i 0.2 -W 1 -c 1000 "$IP" >"$WORK/ping.out" 2>&1 &
ping_pid=$!
load=$(cut -d' ' -f1 /proc/loadavg)
t_x=$EPOCHREALTIME
vmcp "XAUTOLOG LNX1" | grep -q "^Command accepted" || fail "XAUTOLOG LNX1"
end=$(( $(date +%s) + 151 ))
until grep -q "bytes from" "$WORK/ping.out"; do
  [ "$(date +%s)" -lt "$end" ] || fail "no ping answered within 150 s of XAUTOLOG"
  sleep 0.2
done
t_ping=$(grep -m1 "bytes from" "$WORK/ping.out" | sed -n 's/^\[\([0-9.]*\)\].*/\1/p')
kill "$ping_pid" 2>/dev/null; wait "$ping_pid" 2>/dev/null
vmcp "FORCE LNX1" >/dev/null
echo "# load average $load at XAUTOLOG, $(cut -d' ' -f1 /proc/loadavg) at the first ping" >&2
awk -v a="$t_x" -v b="$t_ping" 'BEGIN { printf "BENCH hercules_linux_boot_to_ping_s %.1f s\n", b - a }'
