#!/usr/bin/env bash
# check: alone (valgrind)
# vswitchd as an operator runs it: --check on good and bad files, background mode with a
# pidfile, clean shutdown on SIGTERM, and a run under valgrind with traffic that must end
# with no error and no leak.
. "$(dirname "$0")/lib.sh"
command -v valgrind >/dev/null || skip "valgrind missing"

# 1. --check: the shipped configurations are clean; a broken one names file, line, operand.
for pair in "SYSTEM.CONFIG USER.DIRECT" "lab/SYSTEM.CONFIG lab/USER.DIRECT" "lab/SYSTEM-VLAN.CONFIG lab/USER-VLAN.DIRECT"; do
  set -- $pair
  "$VSWITCHD" --check -c "$ROOT/configs/$1" -u "$ROOT/configs/$2" >/tmp/zvs-check.$$ 2>&1 ||
    fail "--check $1 $2: $(cat /tmp/zvs-check.$$)"
  grep -q "ZVSCFG1099I .* 0 error" /tmp/zvs-check.$$ || fail "--check $1: no clean summary"
done
echo "ok: shipped configurations pass --check"
BAD=$(mktemp /tmp/zvs-bad.XXXXXX)
printf 'VMLAN MACPREFIX 02000C\nDEFINE VSWITCH BADSW RDEV 28BA QUEUESTORAGE 9M\n' >"$BAD"
"$VSWITCHD" --check -c "$BAD" >/tmp/zvs-check.$$ 2>&1 && fail "--check accepted QUEUESTORAGE 9M"
grep -q ":2: ZVSCFG1003E.*QUEUESTORAGE" /tmp/zvs-check.$$ || fail "--check message: $(cat /tmp/zvs-check.$$)"
"$VSWITCHD" -f -c "$BAD" >/tmp/zvs-check.$$ 2>&1 && fail "vswitchd started on a bad configuration"
echo "ok: a bad configuration is refused with file:line and the operand"
rm -f "$BAD" /tmp/zvs-check.$$

lab_init life
# 2. Background mode: detaches, writes the pidfile, removes it at SIGTERM.
ip -n "$NS_SW" link add osa28ba type veth peer name eth0 netns "$NS_LAN"
ip -n "$NS_SW" link set osa28ba up
ip netns exec "$NS_SW" "$VSWITCHD" -c "$ROOT/configs/lab/SYSTEM.CONFIG" -u "$ROOT/configs/lab/USER.DIRECT" \
  -p "$WORK/vswitchd.pid" -L "$WORK/vswitchd.log" || fail "background start"
wait_for 5 test -s "$WORK/vswitchd.pid" || fail "no pidfile"
PID=$(cat "$WORK/vswitchd.pid")
kill -0 "$PID" || fail "pid $PID not running"
# logrotate: the log is renamed, SIGHUP makes vswitchd open a new file at the old path.
mv "$WORK/vswitchd.log" "$WORK/vswitchd.log.1"
kill -HUP "$PID"
wait_for 5 grep -q "signal 1: log reopened" "$WORK/vswitchd.log" || fail "no new log after SIGHUP"
grep -q "log reopened" "$WORK/vswitchd.log.1" && fail "the renamed log got the line meant for the new one"
grep -q "vswitchd running" "$WORK/vswitchd.log.1" || fail "the renamed log lost its lines"
kill -0 "$PID" || fail "SIGHUP stopped vswitchd"
echo "ok: SIGHUP reopens the log (logrotate)"
kill -TERM "$PID"
wait_for 5 sh -c "! kill -0 $PID" || fail "vswitchd ignored SIGTERM"
[ -e "$WORK/vswitchd.pid" ] && fail "pidfile left behind"
grep -q "vswitchd stopped" "$WORK/vswitchd.log" || fail "no clean stop in the log"
echo "ok: background mode, pidfile, SIGTERM"

# 2b. A stop at each start-up step (ZVSWITCH_STOP_AT raises SIGTERM there), in the
# background and in the foreground: the daemon ends by itself with status 0, says it
# stopped, and leaves no pidfile, console socket or process behind.
for mode in background foreground; do
  for step in config log detach create ready; do
    [ $mode = foreground ] && [ $step = detach ] && continue
    rm -f "$WORK/step.log" "$WORK/step.pid"
    flag=; [ $mode = foreground ] && flag=-f
    ZVSWITCH_STOP_AT=$step timeout 10 ip netns exec "$NS_SW" "$VSWITCHD" $flag \
      -c "$ROOT/configs/lab/SYSTEM.CONFIG" -u "$ROOT/configs/lab/USER.DIRECT" \
      -p "$WORK/step.pid" -L "$WORK/step.log" -k "$WORK/step.console" 2>>"$WORK/step.err"
    rc=$?
    [ $rc -eq 0 ] || fail "$mode stop at $step: exit status $rc"
    wait_for 5 grep -q "vswitchd stopped" "$WORK/step.log" || fail "$mode stop at $step: no clean stop in the log"
    wait_for 5 sh -c "! pgrep -f '$WORK/[s]tep.console' >/dev/null" || fail "$mode stop at $step: vswitchd still running"
    [ -e "$WORK/step.pid" ] && fail "$mode stop at $step: pidfile left behind"
    [ -e "$WORK/step.console" ] && fail "$mode stop at $step: console socket left behind"
  done
done
echo "ok: a stop at every start-up step (config, log, detach, create, ready) cleans up"
ip -n "$NS_SW" link del osa28ba

# 3. Under valgrind with traffic: no error, no leak at SIGTERM. (A sanitizer build has
#    its own leak checker at exit instead: valgrind cannot run it.)
if ldd "$VSWITCHD" | grep -q libasan; then
  echo "daemon_lifecycle: passed (valgrind part left to ASan in this build)"
  exit 0
fi
VSWITCHD_WRAP="valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect --error-exitcode=99 --log-file=$WORK/valgrind.log"
lab_start "$ROOT/configs/lab/SYSTEM.CONFIG" "$ROOT/configs/lab/USER.DIRECT" 1500
ip netns exec "$NS_A" ping -c 5 -i 0.2 -W 5 "${LAB_IP[b]}" >/dev/null || fail "ping under valgrind"
ip netns exec "$NS_A" ping -c 5 -i 0.2 -W 5 "${LAB_IP[lan]}" >/dev/null || fail "ping LAN under valgrind"
lab_stats >/dev/null
kill -TERM "$VSWITCHD_PID"
wait "$VSWITCHD_PID"; rc=$?
VSWITCHD_PID=
[ $rc -eq 0 ] || fail "valgrind: exit $rc: $(head -n 40 "$WORK/valgrind.log")"
findings=$(valgrind_findings "$WORK/valgrind.log")
[ -n "$findings" ] && fail "valgrind reported: $(echo "$findings" | head -n 40)"
echo "ok: valgrind clean (no errors, no leaks) after traffic and SIGTERM"
echo "daemon_lifecycle: passed"
