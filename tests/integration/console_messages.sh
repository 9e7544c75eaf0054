#!/usr/bin/env bash
# check: light (LACP group failover: exactly four console messages in order, waits of 5-20 s; no traffic)
# The operator console hears a real link down (cp-commands/console_protocol.h,
# "Unsolicited messages"): vswitchd's two-port group against the switch model, an
# operator's `vmcp --console` attached once both members distribute, then the cable of
# 2902 goes down on the switch's side (its veth end set down: osa2902 loses carrier and
# vswitchd hears it from netlink) and comes back. The console prints, in this order, the
# device's carrier loss (ZVSVSW1170E) and the member out of use (ZVSLAG1172E), then the device's
# carrier (ZVSVSW1171I) and the member in use again (ZVSLAG1173I); the log has the same lines.
. "$(dirname "$0")/lacp_lab_lib.sh"       # lib.sh, distributing_is
lab_init console
VSWITCHD_ARGS="-k $WORK/console.sock" LAB_TAPS="a" lab_group_start \
  "$ROOT/configs/switchmodel/lab6509.conf" "$ROOT/configs/lab/SYSTEM-GROUP.CONFIG" \
  "$ROOT/configs/lab/USER.DIRECT"
wait_for 20 distributing_is 2 || fail "group not distributing on both members: $(vmcp QUERY PORT GROUP)"

"$BUILD/bin/vmcp" -s "$WORK/console.sock" --console >"$WORK/console.out" 2>"$WORK/console.err" &
CONSOLE_PID=$!
wait_for 5 grep -q "console attached" "$WORK/console.err" || fail "vmcp --console: $(cat "$WORK/console.err")"
echo "ok: vmcp --console attached"

ip -n "$NS_PHY" link set sw-osa2902 down
wait_for 5 grep -q "ZVSLAG1172E Port group ETHGRP member 2902 is not in use: carrier down" \
  "$WORK/console.out" || fail "no member failure on the console: $(cat "$WORK/console.out")"
ip -n "$NS_PHY" link set sw-osa2902 up
wait_for 15 grep -q "ZVSLAG1173I Port group ETHGRP member 2902 is in use" "$WORK/console.out" ||
  fail "no member recovery on the console: $(cat "$WORK/console.out")"
kill -TERM "$CONSOLE_PID"
wait "$CONSOLE_PID" 2>/dev/null
cat "$WORK/console.out"

# Exactly these, in this order (each line is "hh:mm:ss HCP..."): nothing else happened.
got=$(cut -d' ' -f2- "$WORK/console.out")
want="ZVSVSW1170E Device 2902 of VSWITCH SYSTEM LABVSW1 is not ready: carrier down on interface osa2902
ZVSLAG1172E Port group ETHGRP member 2902 is not in use: carrier down
ZVSVSW1171I Device 2902 of VSWITCH SYSTEM LABVSW1 is ready: carrier up on interface osa2902
ZVSLAG1173I Port group ETHGRP member 2902 is in use: collecting and distributing"
[ "$got" = "$want" ] || fail "console messages differ:
--- want
$want
--- got
$got"
grep -Eq '^[0-2][0-9]:[0-5][0-9]:[0-5][0-9] ZVS[A-Z]{3}[0-9]{4}[IEWS] ' "$WORK/console.out" || fail "no hh:mm:ss stamp"
echo "ok: the console heard the member fail and recover, in order"
while read -r line; do
  grep -qF -- "$line" "$WORK/vswitchd.log" || fail "not in the log: $line"
done <<<"$want"
echo "ok: the log has the same lines"
