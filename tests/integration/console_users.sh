#!/usr/bin/env bash
# check: parallel (no network, no timing: who may use the console)
# Who may use the operator console: USER DIRECT LINUXUSER maps Linux users to CP userids,
# --console-group opens the socket file to a group (mode 0660).
#   - vswitchd refuses to start on a LINUXUSER that is not a Linux user, on an unknown
#     --console-group, and on --console-group without --console, and says which;
#   - the socket is mode 0660, group of `nobody`; root is still OPERATOR (classes A-G);
#   - `nobody`, mapped as LINUX1 class G, reaches the console and is refused a class B
#     command with ZVSCMD1100E (so the mapping gave LINUX1's class G, not root's classes);
#   - a uid in the group but not in the directory gets ZVSCON1101E (vmcp exits 1, as
#     s390-tools' vmcp for any non-zero CP return code); a mapped uid outside the group
#     never reaches the console (file mode; vmcp exits 3, a Linux error).
# No network: one NOUPLINK switch, no NICs. Needs root (setpriv to other uids).
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root to run vmcp as other users"
command -v setpriv >/dev/null || skip "setpriv (util-linux) missing"
getent passwd nobody >/dev/null || skip "no user nobody"
[ -x "$VSWITCHD" ] && [ -x "$BUILD/bin/vmcp" ] || fail "no $VSWITCHD or $BUILD/bin/vmcp (run make)"
GROUP=$(id -gn nobody)                  # nogroup on Debian, nobody elsewhere
GID=$(id -g nobody)
STRANGER=65533                          # a uid no directory entry names
getent passwd "$STRANGER" >/dev/null && skip "uid $STRANGER exists here; the test needs it unused"

WORK=$(mktemp -d /tmp/zvs-console-users.XXXXXX)
trap lab_cleanup EXIT
trap 'exit 1' INT TERM
chmod 0711 "$WORK"                      # others may reach the socket, not list the files
# vmcp where every uid may run it ($BUILD may sit under a directory others cannot enter).
install -m 0755 "$BUILD/bin/vmcp" "$WORK/vmcp"
SOCK=$WORK/console.sock

cat >"$WORK/SYSTEM.CONFIG" <<'EOF'
VMLAN MACPREFIX 02000C
DEFINE VSWITCH CONSW NOUPLINK
EOF
cat >"$WORK/USER.DIRECT" <<'EOF'
USER LINUX1 LNX1PW 1G 2G G
  LINUXUSER nobody
USER MAINT MAINTPW 1G 2G BG
EOF
printf 'USER LINUX1 LNX1PW 1G 2G G\n  LINUXUSER zvs-no-such-user\n' >"$WORK/BAD.DIRECT"

# 1. Refusals at start, each naming what is wrong (nothing runs: no socket is left).
start_refused() {  # start_refused WANT-STDERR vswitchd-args...
  local want=$1; shift
  timeout 10 "$VSWITCHD" -f -c "$WORK/SYSTEM.CONFIG" "$@" >"$WORK/start.out" 2>&1 &&
    fail "vswitchd started with $*"
  grep -qxF "$want" "$WORK/start.out" || fail "vswitchd $*: $(cat "$WORK/start.out"), want: $want"
  [ -e "$SOCK" ] && fail "a refused start left $SOCK"
  echo "ok: refused: $want"
}
start_refused "vswitchd: $WORK/BAD.DIRECT:2: ZVSCFG1067E LINUXUSER zvs-no-such-user of USER LINUX1 is not a Linux user on this system" \
  -u "$WORK/BAD.DIRECT" -k "$SOCK"
start_refused "vswitchd: console group zvs-no-such-group: no such group" \
  -u "$WORK/USER.DIRECT" -k "$SOCK" --console-group zvs-no-such-group
start_refused "vswitchd: --console-group needs --console" \
  -u "$WORK/USER.DIRECT" --console-group "$GROUP"

# 2. The daemon with the console group.
"$VSWITCHD" -f -c "$WORK/SYSTEM.CONFIG" -u "$WORK/USER.DIRECT" -k "$SOCK" \
  --console-group "$GROUP" -l debug >"$WORK/vswitchd.log" 2>&1 &
VSWITCHD_PID=$!
wait_for 10 test -S "$SOCK" || fail "no console socket"
wait_for 5 grep -q "vswitchd running" "$WORK/vswitchd.log" || fail "vswitchd did not come up"
expect_eq "socket mode and group" "$(stat -c '%a %U %G' "$SOCK")" "660 root $GROUP"

as() {  # as UID GID CMD: vmcp as that user, output (stdout and stderr) then "rc=N"
  local uid=$1 gid=$2; shift 2
  setpriv --reuid="$uid" --regid="$gid" --clear-groups "$WORK/vmcp" -s "$SOCK" "$*" 2>&1
  echo "rc=$?"
}

# 3. root: OPERATOR, classes A-G, as before.
out=$("$WORK/vmcp" -s "$SOCK" 'QUERY VSWITCH CONSW') || fail "root QUERY VSWITCH rc $?: $out"
grep -q CONSW <<<"$out" || fail "root QUERY VSWITCH: $out"
echo "ok: root is OPERATOR (QUERY VSWITCH, class B, answered)"

# 4. nobody is LINUX1, class G: a class B command is refused by privilege, not by identity.
expect_eq "nobody SET PORT GROUP" "$(as nobody "$GID" 'SET PORT GROUP G1 LACP ACTIVE')" \
  "ZVSCMD1100E Not authorized: SET PORT GROUP requires privilege class B
Error: non-zero CP response for command 'SET PORT GROUP G1 LACP ACTIVE': #1100
rc=1"
expect_eq "nobody QUERY PORT GROUP" "$(as nobody "$GID" 'QUERY PORT GROUP')" \
  "ZVSCMD1100E Not authorized: QUERY PORT GROUP requires privilege class B
Error: non-zero CP response for command 'QUERY PORT GROUP': #1100
rc=1"

# 5. In the group, not in the directory: ZVSCON1101E, and the connection is closed.
expect_eq "uid $STRANGER in the group" "$(as "$STRANGER" "$GID" 'QUERY PORT GROUP')" \
  "ZVSCON1101E Console access denied: uid $STRANGER is not mapped to a CP userid
Error: non-zero CP response for command 'QUERY PORT GROUP': #1101
rc=1"

# 6. Mapped, but not in the group: the file mode keeps it out (vmcp: 3, a Linux error).
expect_eq "nobody outside the group" "$(as nobody "$STRANGER" 'QUERY PORT GROUP')" \
  "Error: Could not reach vswitchd at $SOCK: Permission denied
rc=3"

# 7. The daemon is unharmed and stops cleanly (lab_cleanup checks its exit status too).
kill -0 "$VSWITCHD_PID" || fail "vswitchd died"
kill -TERM "$VSWITCHD_PID"
wait "$VSWITCHD_PID"; rc=$?
VSWITCHD_PID=
[ $rc -eq 0 ] || fail "vswitchd exit status $rc"
[ -e "$SOCK" ] && fail "socket left after stop"
echo "ok: clean stop, socket removed"
echo "console_users: passed"
