# Shared helpers for zvswitch's namespace labs. Source it from a test script.
#
# The lab: vswitchd runs in its own network namespace (SW) holding the uplink veth
# `osa28ba` and the guests' taps; each tap is then moved into a guest namespace, and the
# uplink's peer into a LAN namespace. Everything lives in namespaces this script makes,
# named with a per-run prefix, and `lab_cleanup` (run on every exit) deletes them, which
# removes every interface with them.
#
#   lab_init NAME            namespaces zvs-NAME-$$-{sw,lan,a,b,c}; exits 77 without root
#   lab_start SYSCONFIG USERDIRECT [MTU]   veths, vswitchd, taps moved, addresses set
#   lab_group_start SMCONF SYSCONFIG USERDIRECT   the port-group lab: OSA ports 28BA and
#                            2902 are veths to the switch model (namespace PHY) whose
#                            access port leads to the LAN namespace
#   sm CMD                   a command to the running switch model, its response on stdout
#   vmcp CMD                 a CP command to vswitchd's console (VSWITCHD_ARGS="-k $WORK/console.sock"):
#                            exit status = CP rc (vmcp -k --exit-rc)
#   lab_stats                writes the counters report and prints its path
#   counter REPORT OWNER FIELD   a NIC's (or RDEV's) counter from the report
#   fail MSG                 print and exit 1

set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
VSWITCHD=$BUILD/bin/vswitchd

fail() {
  echo "FAIL: $*" >&2
  [ -n "${WORK:-}" ] && [ -f "$WORK/vswitchd.log" ] && tail -n 30 "$WORK/vswitchd.log" >&2
  # Inside $(...) an exit ends only the subshell: end the test itself (its TERM trap
  # exits 1 and the EXIT trap cleans up).
  [ "$BASHPID" != "$$" ] && kill -TERM "$$"
  exit 1
}
skip() { echo "SKIP: $*"; exit 77; }

# What a valgrind log reports, less valgrind's note that it does not model the ioctl
# NS_GET_USERNS (0xb701), which vswitchd's search for a crashed predecessor's taps uses to
# compare namespace owners: it returns a descriptor and writes no memory, so there is
# nothing for valgrind to check; every real finding still makes the run fail (and
# --error-exitcode gives the status).
valgrind_findings() {
  [ -s "$1" ] || return 0
  awk '/Warning: noted but unhandled ioctl 0xb701 / { skip = 2; next }
       skip > 0 && /This could cause spurious|README_MISSING_SYSCALL_OR_IOCTL/ { skip--; next }
       { skip = 0; print }' "$1"
}

lab_cleanup() {
  local status=$? vrc=0
  if [ -n "${VSWITCHD_PID:-}" ]; then
    kill -CONT "$VSWITCHD_PID" 2>/dev/null  # a lab that held it still (SIGSTOP) and failed
    kill -TERM "$VSWITCHD_PID" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$VSWITCHD_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$VSWITCHD_PID" 2>/dev/null
    wait "$VSWITCHD_PID" 2>/dev/null; vrc=$?
    # A clean shutdown exits 0; a sanitizer report (leak, overflow) or a crash does not.
    if [ "$vrc" -ne 0 ]; then
      echo "FAIL: vswitchd exited with status $vrc at shutdown"
      [ -f "$WORK/vswitchd.log" ] && tail -n 40 "$WORK/vswitchd.log"
      [ "$status" -eq 0 ] && status=1
    fi
  fi
  if [ -n "${SM_PID:-}" ]; then
    kill -TERM "$SM_PID" 2>/dev/null
    wait "$SM_PID" 2>/dev/null
  fi
  for ns in "${LAB_NS[@]:-}"; do
    [ -n "$ns" ] || continue
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
    ip netns del "$ns" || echo "cleanup: cannot delete namespace $ns" >&2
  done
  [ -n "${WORK:-}" ] && [ -z "${KEEP_WORK:-}" ] && rm -rf "$WORK"
  exit "$status"
}

lab_init() {
  [ "$(id -u)" -eq 0 ] || skip "needs root for network namespaces"
  command -v ip >/dev/null || skip "iproute2 missing"
  [ -x "$VSWITCHD" ] || fail "no $VSWITCHD (run make)"
  local p="zvs-$1-$$"
  NS_SW=$p-sw NS_LAN=$p-lan NS_A=$p-a NS_B=$p-b NS_C=$p-c NS_PHY=$p-phy NS_LAN2=$p-lan2
  LAB_NS=("$NS_SW" "$NS_LAN" "$NS_A" "$NS_B" "$NS_C" "$NS_PHY" "$NS_LAN2")
  WORK=$(mktemp -d /tmp/zvs-lab.XXXXXX)
  trap lab_cleanup EXIT
  trap 'exit 1' INT TERM
  for ns in "${LAB_NS[@]}"; do
    ip netns add "$ns" || fail "ip netns add $ns"
    ip -n "$ns" link set lo up
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  done
}

# Guest addresses: A .1, B .2, C .3, LAN .100 in 10.77.0.0/24.
declare -A LAB_IP=([a]=10.77.0.1 [b]=10.77.0.2 [c]=10.77.0.3 [lan]=10.77.0.100 [lan2]=10.77.0.101)

wait_for() {  # wait_for SECONDS CMD...: until CMD succeeds
  local t=$1; shift
  local end=$((SECONDS + t))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -ge $end ] && return 1
    sleep 0.1
  done
}

lab_start() {
  local sysconfig=$1 userdirect=$2 mtu=${3:-1500}
  ip -n "$NS_SW" link add osa28ba mtu "$mtu" type veth peer name eth0 mtu "$mtu" netns "$NS_LAN" ||
    fail "veth"
  ip -n "$NS_SW" link set osa28ba up
  ip -n "$NS_LAN" link set eth0 up
  ip -n "$NS_LAN" addr add "${LAB_IP[lan]}/24" dev eth0
  lab_vswitchd "$sysconfig" "$userdirect" "$mtu"
}

SWITCHMODEL=$BUILD/tools/switchmodel

# The port-group lab. SMCONF is a switch model configuration (configs/switchmodel/) whose
# channel-group ports attach to sw-osa28ba and sw-osa2902 (Gi2/23, Gi2/24) and whose
# access ports attach to sw-srv1 (the LAN host, .100) and sw-srv2 (LAN2, .101).
lab_group_start() {
  local smconf=$1 sysconfig=$2 userdirect=$3 mtu=${4:-1500}
  [ -x "$SWITCHMODEL" ] || fail "no $SWITCHMODEL (run make)"
  local dev
  for dev in 28ba 2902 ${LAB_EXTRA_OSA:-}; do
    ip -n "$NS_SW" link add "osa$dev" mtu "$mtu" type veth peer name "sw-osa$dev" mtu "$mtu" \
      netns "$NS_PHY" || fail "veth osa$dev"
    ip -n "$NS_SW" link set "osa$dev" up
    ip -n "$NS_PHY" link set "sw-osa$dev" up
    ip netns exec "$NS_PHY" sysctl -qw "net.ipv6.conf.sw-osa$dev.disable_ipv6=1" 2>/dev/null
  done
  local h ns
  for h in 1 2; do
    if [ $h = 1 ]; then ns=$NS_LAN; else ns=$NS_LAN2; fi
    ip -n "$NS_PHY" link add "sw-srv$h" mtu "$mtu" type veth peer name eth0 mtu "$mtu" netns "$ns" ||
      fail "veth sw-srv$h"
    ip -n "$NS_PHY" link set "sw-srv$h" up
    ip -n "$ns" link set eth0 up
  done
  # Fixed MACs: outbound distribution follows the destination MAC's last byte, so tests
  # choose which bucket (and port) each LAN host's traffic starts on.
  ip -n "$NS_LAN" link set eth0 address "${LAN_MAC1:-02:00:0a:00:00:01}"
  ip -n "$NS_LAN2" link set eth0 address "${LAN_MAC2:-02:00:0a:00:00:02}"
  ip -n "$NS_LAN" addr add "${LAB_IP[lan]}/24" dev eth0
  ip -n "$NS_LAN2" addr add "${LAB_IP[lan2]}/24" dev eth0
  # LAB_HOOK: a command run once the wires exist, before anyone talks on them (captures).
  ${LAB_HOOK:-true}
  SM_SOCK=$WORK/switchmodel.sock
  ip netns exec "$NS_PHY" "$SWITCHMODEL" -c "$smconf" -C "$SM_SOCK" -l "$WORK/switchmodel.log" \
    >"$WORK/switchmodel.out" 2>&1 &
  SM_PID=$!
  wait_for 10 test -S "$SM_SOCK" || fail "switch model did not start: $(tail -5 "$WORK/switchmodel.out")"
  lab_vswitchd "$sysconfig" "$userdirect" "$mtu"
}

sm() {
  "$SWITCHMODEL" -C "$SM_SOCK" -x "$*"
}

# The labs keep the case they type (-k) and test the CP return code itself (--exit-rc,
# ours; vmcp's default exit status is s390-tools' 0/1/2/3/4, tested by vmcp_exit.sh).
vmcp() {
  "$BUILD/bin/vmcp" -k --exit-rc -s "$WORK/console.sock" "$*"
}

# Starts vswitchd in NS_SW and moves its guests' taps into their namespaces.
lab_vswitchd() {
  local sysconfig=$1 userdirect=$2 mtu=${3:-1500}
  # VSWITCHD_WRAP: a command to run vswitchd under (valgrind ...), split on spaces.
  # VSWITCHD_ARGS: more options (e.g. -q socket); LAB_TAPS: guests whose NIC is a tap.
  ip netns exec "$NS_SW" ${VSWITCHD_WRAP:-} "$VSWITCHD" -f -c "$sysconfig" -u "$userdirect" -l debug \
     -s "$WORK/stats" ${VSWITCHD_ARGS:-} >"$WORK/vswitchd.log" 2>&1 &
  VSWITCHD_PID=$!
  local g
  for g in ${LAB_TAPS:-a b c}; do
    local tap=lnx$g-f000 ns_var=NS_${g^^}
    local ns=${!ns_var}
    wait_for 20 ip -n "$NS_SW" link show "$tap" || fail "vswitchd made no tap $tap"
    ip -n "$NS_SW" link set "$tap" netns "$ns" || fail "move $tap"
    ip -n "$ns" link set "$tap" mtu "$mtu" up
    ip -n "$ns" addr add "${LAB_IP[$g]}/24" dev "$tap"
  done
  kill -0 "$VSWITCHD_PID" 2>/dev/null || fail "vswitchd exited"
}

# Static neighbours everywhere: no ARP on the wire, so counters show only what a test sends.
lab_static_arp() {
  local macs
  declare -A mac
  local taps=(${LAB_TAPS:-a b c})
  for g in "${taps[@]}"; do
    local ns_var=NS_${g^^}
    mac[$g]=$(ip -n "${!ns_var}" -br link show "lnx$g-f000" | awk '{print $3}')
  done
  mac[lan]=$(ip -n "$NS_LAN" -br link show eth0 | awk '{print $3}')
  for g in "${taps[@]}" lan; do
    local ns dev
    if [ $g = lan ]; then ns=$NS_LAN dev=eth0; else local v=NS_${g^^}; ns=${!v} dev=lnx$g-f000; fi
    for h in "${taps[@]}" lan; do
      [ $g = $h ] && continue
      ip -n "$ns" neigh replace "${LAB_IP[$h]}" lladdr "${mac[$h]}" dev "$dev" nud permanent
    done
  done
}

lab_stats() {
  rm -f "$WORK/stats"
  kill -USR1 "$VSWITCHD_PID"
  wait_for 5 test -s "$WORK/stats" || fail "no counters report"
  echo "$WORK/stats"
}

# counter REPORT WHO FIELD: WHO is a NIC owner (LNXA) or an RDEV (28BA); FIELD is one of
# rx_packets rx_discards rx_errors tx_packets tx_discards tx_errors rx_bytes tx_bytes.
counter() {
  awk -v who="$2" -v field="$3" '
    /Adapter Owner:/ { cur = $3 }
    /RDEV:/ { cur = $2; sub(/\.P00$/, "", cur) }
    cur == who && /RX Packets:/ { v["rx_packets"]=$3; v["rx_discards"]=$5; v["rx_errors"]=$7 }
    cur == who && /TX Packets:/ { v["tx_packets"]=$3; v["tx_discards"]=$5; v["tx_errors"]=$7 }
    cur == who && /RX Bytes:/   { v["rx_bytes"]=$3; v["tx_bytes"]=$6; cur = "" }
    END { if (field in v) print v[field]; else print "missing" }' "$1"
}

expect_eq() {  # expect_eq WHAT GOT WANT
  [ "$2" = "$3" ] || fail "$1: got $2, want $3"
  echo "ok: $1 = $3"
}
