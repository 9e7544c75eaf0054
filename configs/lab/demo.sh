#!/usr/bin/env bash
# make demo: the zvswitch lab in two minutes.
#
# vswitchd starts in its own network namespace from configs/lab/SYSTEM.CONFIG and
# USER.DIRECT: VSWITCH LABVSW1 with one OSA uplink (RDEV 28BA, a veth to a LAN namespace)
# and three guests LNXA, LNXB, LNXC whose NICs are taps moved into their own namespaces.
# The demo pings and runs iperf3 between them, then shows what an operator looks at: the
# switch's counters, z/VM style. Everything it makes is removed when it ends.
. "$(cd "$(dirname "$0")/../.." && pwd)/tests/integration/lib.sh"

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

lab_init demo
say "Starting vswitchd (configs/lab/SYSTEM.CONFIG, configs/lab/USER.DIRECT)"
sed -n '/^DEFINE\|^MODIFY\|^RDEVICE\|^VMLAN/p' "$ROOT/configs/lab/SYSTEM.CONFIG" | sed 's/^/    /'
lab_start "$ROOT/configs/lab/SYSTEM.CONFIG" "$ROOT/configs/lab/USER.DIRECT" 1500
sed -n 's/^.* vswitchd I /    /p' "$WORK/vswitchd.log"

say "Guests: namespaces with their NICs (taps driven through QDIO queues)"
for g in a b c; do
  v=NS_${g^^}
  printf '    LNX%s  %s  %s\n' "${g^^}" "${LAB_IP[$g]}" "$(ip -n "${!v}" -br link show "lnx$g-f000" | awk '{print $3}')"
done
printf '    LAN   %s  (behind OSA 28BA)\n' "${LAB_IP[lan]}"

say "ping LNXA -> LNXB (guest to guest, stays inside the switch)"
ip netns exec "$NS_A" ping -c 3 -i 0.2 "${LAB_IP[b]}" | sed 's/^/    /'
say "ping LNXA -> LAN (out through the OSA uplink)"
ip netns exec "$NS_A" ping -c 3 -i 0.2 "${LAB_IP[lan]}" | sed 's/^/    /'

for target in b lan; do
  ns_var=NS_${target^^}
  say "iperf3 LNXA -> ${target^^} (TCP, 3 s)"
  ip netns exec "${!ns_var}" iperf3 -s -1 -D >/dev/null 2>&1
  wait_for 5 ip netns exec "${!ns_var}" sh -c "ss -ltn | grep -q ':5201 '"
  timeout 30 ip netns exec "$NS_A" iperf3 -c "${LAB_IP[$target]}" -t 3 | grep -E 'sender|receiver' | sed 's/^/    /'
done

say "What the operator sees: VSWITCH counters (device view: an OSA transmits to the LAN, a NIC transmits into the switch)"
sed 's/^/    /' "$(lab_stats)"
say "Done; the lab is being removed."
