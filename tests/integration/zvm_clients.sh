#!/usr/bin/env bash
# check: parallel (no uplink, no timing: what z/VM automation reads from the console)
# The z/VM automation that exists, run against zvswitch through tools/vmcp with vmcp's
# default behaviour (the command upper-cased, exit 1 for a non-zero CP return code), as
# the users those clients act for: a class G guest (Linux user `nobody` mapped to LINUX1
# by LINUXUSER) and a class B administrator (uid 65531 mapped to MAINT), and root (the
# operator SYSTEM_USERIDS OPERATOR names).
# Every value is taken out of the response with the client's own expression, written
# here with the same meaning (not copied), cited by client, file and function, and
# compared with what SYSTEM CONFIG and USER DIRECT below say:
#   - userid and system name: xCAT perl-xCAT/xCAT/zvmCPUtils.pm getUserId (word 0 of
#     `vmcp q userid`) and getHost (word 2); s390-tools scripts/dbginfo.sh (the first
#     word, sed 's/^\([^[:space:]]*\).*$/\1/');
#   - NIC discovery: s390-tools zconf/znetconf lookup_type_and_lan_or_vswitch_name
#     (`vmcp "q v nic DEVNO"`: line 1 field 4 the type, line 2 fields 3-5 VSWITCH:, owner,
#     name); xCAT zvmCPUtils.pm getVswitchId (`vmcp q v nic` lines matching VSWITCH, word 4);
#   - layer detection: znetconf lookup_vswitch_layer (`vmcp "q vswitch NAME"`, line 2 field
#     3 is ETHERNET); s390-tools zdev/src/nic.c nic_lan_get_layer2 (`query lan NAME owner
#     SYSTEM`, word 11 of the whole answer); xCAT zvmCPUtils.pm getNetworkLayer (`vmcp q lan
#     NAME`: layer 2 when a line matches ETHERNET, else 3);
#   - MAC prefix: xCAT xCAT-client/bin/zxcatIVP.pl verifyMACUserPrefix (`vmcp QUERY VMLAN`,
#     the lines after "VMLAN MAC address assignment:", the "  MACADDR Prefix:" line, awk
#     field 6); xCAT zvmUtils.pm (the value after "USER Prefix:");
#   - adding a NIC: xCAT chvm --addnic and networking-zvm (`vmcp define nic VDEV type qdio`);
#   - a missing NIC: networking-zvm neutron/plugins/zvm/common/utils.py (its tests quote
#     "HCPNDQ040E Device 0800 does not exist"); vmcp exits 1 with the rc on stderr.
# vswitchd runs in a network namespace of its own (unshare), so its tap is nobody else's.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root to run vmcp as other users"
command -v setpriv >/dev/null || skip "setpriv (util-linux) missing"
command -v unshare >/dev/null || skip "unshare (util-linux) missing"
getent passwd nobody >/dev/null || skip "no user nobody"
[ -x "$VSWITCHD" ] && [ -x "$BUILD/bin/vmcp" ] || fail "no $VSWITCHD or $BUILD/bin/vmcp (run make)"
GROUP=$(id -gn nobody)
GID=$(id -g nobody)
ADMIN=65531                             # MAINT's Linux uid: a number needs no passwd entry
getent passwd "$ADMIN" >/dev/null && skip "uid $ADMIN exists here; the test needs it unused"

WORK=$(mktemp -d /tmp/zvs-zvm-clients.XXXXXX)
trap lab_cleanup EXIT
trap 'exit 1' INT TERM
chmod 0711 "$WORK"
install -m 0755 "$BUILD/bin/vmcp" "$WORK/vmcp"
SOCK=$WORK/console.sock

# The configuration's truth, which every extracted value is compared with.
SYSNAME=ZVSCLI1 SWITCH=CLIVSW1 PREFIX=02000C GUEST=LINUX1 ADMINID=MAINT NIC=F000 OPER=SYSOPER
cat >"$WORK/SYSTEM.CONFIG" <<EOF
SYSTEM_IDENTIFIER_DEFAULT $SYSNAME
SYSTEM_USERIDS OPERATOR $OPER
VMLAN MACPREFIX $PREFIX
DEFINE VSWITCH $SWITCH TYPE QDIO ETHERNET NOUPLINK
MODIFY VSWITCH $SWITCH GRANT $GUEST
EOF
cat >"$WORK/USER.DIRECT" <<EOF
USER $GUEST LNX1PW 1G 2G G
  LINUXUSER nobody
  NICDEF $NIC TYPE QDIO LAN SYSTEM $SWITCH MACID 000101
  NICBIND $NIC TAP zvcli$$
USER $ADMINID MAINTPW 1G 2G BG
  LINUXUSER $ADMIN
EOF

unshare --net -- "$VSWITCHD" -f -c "$WORK/SYSTEM.CONFIG" -u "$WORK/USER.DIRECT" -k "$SOCK" \
  --console-group "$GROUP" -l debug >"$WORK/vswitchd.log" 2>&1 &
VSWITCHD_PID=$!
wait_for 10 test -S "$SOCK" || fail "no console socket"
wait_for 5 grep -q "vswitchd running" "$WORK/vswitchd.log" || fail "vswitchd did not come up"

# vmcp as a client runs it: default options, stdout only; the exit status in $VMCP_RC.
guest() { setpriv --reuid=nobody --regid="$GID" --clear-groups "$WORK/vmcp" -s "$SOCK" "$@"; }
admin() { setpriv --reuid="$ADMIN" --regid="$GID" --clear-groups "$WORK/vmcp" -s "$SOCK" "$@"; }
root() { "$WORK/vmcp" -s "$SOCK" "$@"; }

# 1. Userid and system name (xCAT getUserId / getHost, dbginfo.sh).
out=$(guest q userid) || fail "q userid as the guest: exit $?"
expect_eq "getUserId (word 0)" "$(awk '{ print $1 }' <<<"$out")" "$GUEST"
expect_eq "getHost (word 2)" "$(awk '{ print $3 }' <<<"$out")" "$SYSNAME"
expect_eq "dbginfo.sh's userid" "$(sed -ne 's/^\([^[:space:]]*\).*$/\1/p' <<<"$out")" "$GUEST"
expect_eq "the administrator's userid" "$(admin q userid | awk '{ print $1, $3 }')" \
  "$ADMINID $SYSNAME"
expect_eq "root's userid (SYSTEM_USERIDS OPERATOR)" "$(root q userid | awk '{ print $1, $3 }')" \
  "$OPER $SYSNAME"

# 2. NIC discovery (znetconf, xCAT getVswitchId).
out=$(guest "q v nic $NIC") || fail "q v nic $NIC: exit $?"
expect_eq "znetconf type (line 1, field 4)" "$(awk 'NR == 1 { print $4 }' <<<"$out")" QDIO
expect_eq "znetconf target (line 2, fields 3-5)" "$(awk 'NR == 2 { print $3, $4, $5 }' <<<"$out")" \
  "VSWITCH: SYSTEM $SWITCH"
expect_eq "getVswitchId (VSWITCH lines, word 4)" \
  "$(guest q v nic | grep -a -i VSWITCH | awk '{ print $5 }')" "$SWITCH"

# 3. Layer detection (znetconf, zdev, xCAT getNetworkLayer) as the administrator.
expect_eq "znetconf layer (q vswitch: line 2, field 3)" \
  "$(admin "q vswitch $SWITCH" | awk 'NR == 2 { print $3 }')" ETHERNET
expect_eq "zdev nic_lan_get_layer2 (word 11)" \
  "$(admin "query lan $SWITCH owner SYSTEM" | tr -s ' \n' '\n\n' | grep -v '^$' | sed -n 12p)" \
  ETHERNET
layer=3
admin "q lan $SWITCH" | grep -qi ETHERNET && layer=2
expect_eq "getNetworkLayer" "$layer" 2

# 4. The MAC prefix (zxcatIVP.pl verifyMACUserPrefix, zvmUtils.pm's USER Prefix).
vmlan=$(admin QUERY VMLAN) || fail "QUERY VMLAN: exit $?"
expect_eq "verifyMACUserPrefix (awk \$6)" \
  "$(sed '1,/VMLAN MAC address assignment:/d' <<<"$vmlan" | grep '  MACADDR Prefix:' |
     awk '{ print $6 }')" "$PREFIX"
expect_eq "zvmUtils USER Prefix" \
  "$(grep -i 'USER Prefix:' <<<"$vmlan" | sed 's/.*USER Prefix:\(.*\)/\1/; s/^ *//; s/ *$//')" \
  "$PREFIX"

# 5. Adding a NIC (chvm --addnic, networking-zvm): the guest's own, then it is there.
guest "define nic 0700 type qdio" >/dev/null || fail "define nic 0700 type qdio: exit $?"
expect_eq "the new NIC (q v nic 0700, line 1 field 2)" \
  "$(guest "q v nic 0700" | awk 'NR == 1 { print $2 }')" "0700.P00"

# 6. A missing NIC (networking-zvm): CP's HCPNDQ040E, vmcp exits 1, the rc on stderr.
out=$(guest "q v nic 0800" 2>"$WORK/err"); rc=$?
expect_eq "missing NIC" "$out" "HCPNDQ040E Device 0800 does not exist"
expect_eq "missing NIC: vmcp exit" "$rc" 1
expect_eq "missing NIC: stderr" "$(cat "$WORK/err")" \
  "Error: non-zero CP response for command 'Q V NIC 0800': #40"

# 7. The administrator grants (xCAT grantVSwitch: set vswitch NAME grant USERID).
admin "set vswitch $SWITCH grant $ADMINID" >/dev/null || fail "set vswitch grant: exit $?"

kill -TERM "$VSWITCHD_PID"
wait "$VSWITCHD_PID"; rc=$?
VSWITCHD_PID=
[ $rc -eq 0 ] || fail "vswitchd exit status $rc"
echo "zvm_clients: passed"
