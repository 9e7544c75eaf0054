# Lab helpers for the switch model's integration tests (sourced by
# tests/integration/switchmodel_*.sh).
#
# Two switch models back to back: namespaces $NS_SWA and $NS_SWB, joined by two veth
# pairs whose ends are both named sw-osa28ba and sw-osa2902 (the channel-group members
# of configs/switchmodel/lab6509*.conf); a host namespace on each switch's first access
# port: $NS_HA (10.78.0.1) on A's sw-srv1, $NS_HB (10.78.0.2) on B's sw-srv1. The
# namespaces, and with them every interface, are deleted by the EXIT trap.
#
#   sm_lab_init NAME         namespaces and links; exits 77 without root
#   sm_start A|B CONFIG [HOSTNAME]   start a switch model (own hostname => own LACP system)
#   sm_cmd A|B COMMAND       run a control command, print the response
#   sm_group_line A|B        the "show etherchannel summary" line of group 1, spaces squeezed
#   sm_wait_line A|B REGEX SECONDS   until the group line matches
#   sm_fail MSG / sm_ok MSG

set -u
SM_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$SM_ROOT/$BUILD ;; esac
SWITCHMODEL=${SWITCHMODEL:-$BUILD/tools/switchmodel}
SM_CONF=$SM_ROOT/configs/switchmodel

sm_fail() {
  echo "FAIL: $*" >&2
  for s in A B; do
    [ -f "${SM_WORK:-/nonexistent}/$s.log" ] && { echo "--- switch $s log" >&2; tail -n 25 "$SM_WORK/$s.log" >&2; }
  done
  [ "$BASHPID" != "$$" ] && kill -TERM "$$"
  exit 1
}
sm_ok() { echo "ok: $*"; }
sm_skip() { echo "SKIP: $*"; exit 77; }

declare -A SM_PID=()

sm_stop() {  # sm_stop A|B: SIGTERM, wait, the exit status must be 0
  local s=$1 pid=${SM_PID[$1]:-} rc=0
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null; rc=$?
  SM_PID[$s]=
  return $rc
}

sm_cleanup() {
  local status=$?
  for s in "${!SM_PID[@]}"; do
    if ! sm_stop "$s"; then
      echo "FAIL: switch model $s did not exit cleanly" >&2
      [ -f "$SM_WORK/$s.log" ] && tail -n 20 "$SM_WORK/$s.log" >&2
      [ $status -eq 0 ] && status=1
    fi
  done
  for ns in "${SM_NS[@]:-}"; do
    [ -n "$ns" ] || continue
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
    ip netns del "$ns" 2>/dev/null || echo "cleanup: cannot delete namespace $ns" >&2
  done
  [ -n "${SM_WORK:-}" ] && [ -z "${KEEP_WORK:-}" ] && rm -rf "$SM_WORK"
  exit $status
}

sm_wait() {  # sm_wait SECONDS CMD...
  local end=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -ge $end ] && return 1
    sleep 0.1
  done
}

sm_lab_init() {
  [ "$(id -u)" -eq 0 ] || sm_skip "needs root for network namespaces"
  command -v ip >/dev/null || sm_skip "iproute2 missing"
  [ -x "$SWITCHMODEL" ] || sm_fail "no $SWITCHMODEL (run make)"
  local p="zsm-$1-$$"
  NS_SWA=$p-swa NS_SWB=$p-swb NS_HA=$p-ha NS_HB=$p-hb
  SM_NS=("$NS_SWA" "$NS_SWB" "$NS_HA" "$NS_HB")
  SM_WORK=$(mktemp -d /tmp/zsm-lab.XXXXXX)
  trap sm_cleanup EXIT
  trap 'exit 1' INT TERM
  for ns in "${SM_NS[@]}"; do
    ip netns add "$ns" || sm_fail "ip netns add $ns"
    ip -n "$ns" link set lo up
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  done
  local m
  for m in sw-osa28ba sw-osa2902; do
    ip -n "$NS_SWA" link add "$m" type veth peer name "$m" netns "$NS_SWB" || sm_fail "veth $m"
  done
  ip -n "$NS_SWA" link add sw-srv1 type veth peer name eth0 netns "$NS_HA" || sm_fail "veth A"
  ip -n "$NS_SWB" link add sw-srv1 type veth peer name eth0 netns "$NS_HB" || sm_fail "veth B"
  ip -n "$NS_SWA" link add sw-srv2 type veth peer name sw-srv2x || sm_fail "veth A2"
  ip -n "$NS_SWB" link add sw-srv2 type veth peer name sw-srv2x || sm_fail "veth B2"
  for ns in "$NS_SWA" "$NS_SWB"; do
    for m in sw-osa28ba sw-osa2902 sw-srv1 sw-srv2 sw-srv2x; do ip -n "$ns" link set "$m" up; done
  done
  ip -n "$NS_HA" link set eth0 up
  ip -n "$NS_HB" link set eth0 up
  ip -n "$NS_HA" addr add 10.78.0.1/24 dev eth0
  ip -n "$NS_HB" addr add 10.78.0.2/24 dev eth0
}

sm_ns() { [ "$1" = A ] && echo "$NS_SWA" || echo "$NS_SWB"; }

sm_start() {  # sm_start A|B CONFIG [HOSTNAME]
  local s=$1 conf=$2 host=${3:-LAB6509$1}
  sed "s/^hostname .*/hostname $host/" "$conf" >"$SM_WORK/$s.conf"
  ip netns exec "$(sm_ns "$s")" ${SM_WRAP:-} "$SWITCHMODEL" -c "$SM_WORK/$s.conf" \
    -C "$SM_WORK/$s.sock" -l "$SM_WORK/$s.log" ${SM_ARGS:-} >>"$SM_WORK/$s.out" 2>&1 &
  SM_PID[$s]=$!
  sm_wait 10 test -S "$SM_WORK/$s.sock" || sm_fail "switch model $s did not start: $(tail -n 5 "$SM_WORK/$s.out" "$SM_WORK/$s.log" 2>/dev/null)"
}

sm_cmd() { "$SWITCHMODEL" -C "$SM_WORK/$1.sock" -x "$2"; }

sm_group_line() {
  sm_cmd "$1" "show etherchannel summary" | awk '$1 == "1" && $2 ~ /^Po1/' | tr -s ' ' | sed 's/ $//'
}

sm_line_matches() { sm_group_line "$1" | grep -Eq "$2"; }

sm_wait_line() {  # sm_wait_line A|B REGEX SECONDS
  sm_wait "$3" sm_line_matches "$1" "$2" ||
    sm_fail "switch $1: group line '$(sm_group_line "$1")' never matched /$2/ in $3 s"
  sm_ok "switch $1: $(sm_group_line "$1")"
}

sm_ping() {  # sm_ping: A's host pings B's host
  ip netns exec "$NS_HA" ping -c "${1:-3}" -i 0.2 -W 2 10.78.0.2 >"$SM_WORK/ping" 2>&1
}
