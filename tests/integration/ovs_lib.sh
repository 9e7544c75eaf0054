# Open vSwitch's userspace datapath as an independent LACP peer, and packet captures.
# shellcheck shell=bash
# A sourced library, not a test (tests/run.sh must skip it; run on its own it exits 77).
#
# Each OVS instance lives in a network namespace the caller made and in a private directory
# (database, sockets, pidfiles, logs): nothing under /etc, /var/run/openvswitch or
# /var/log is touched (OVS_RUNDIR/OVS_LOGDIR/OVS_DBDIR/OVS_SYSCONFDIR all point at DIR,
# every daemon gets explicit --pidfile/--unixctl/--log-file/--remote paths).
#
#   ovs_require                       exit 77 unless ovs-vswitchd, ovsdb-server, ovs-vsctl,
#                                     ovs-appctl and ovsdb-tool are installed
#   ovs_start NS DIR                  ovsdb-server and ovs-vswitchd in NS, no bridge yet;
#                                     returns 1 (log tail on stderr) on failure
#   ovs_peer_start NS DIR "IF1 IF2.." ACCESS fast|slow SYSTEM_ID
#                                     bridge br0 (datapath_type=netdev) in NS with the
#                                     access port ACCESS ("-" for none) and bond0 over the
#                                     listed interfaces, lacp=active, balance-slb, lacp-time,
#                                     lacp-system-id; returns 1 (log tail on stderr) on failure
#   ovs_peer_stop DIR                 TERM by pidfile, wait up to 5 s, then KILL; idempotent
#   ovs_peer_lacp_show DIR [BOND]     `ovs-appctl lacp/show`
#   ovs_peer_bond_show DIR [BOND]     `ovs-appctl bond/show`
#   ovs_peer_lacp_stats DIR [BOND]    `ovs-appctl lacp/show-stats`
#   ovs_peer_members_negotiated DIR [BOND]
#                                     0 when the bond says "negotiated" and every member is
#                                     "current attached" in lacp/show and "enabled" in
#                                     bond/show (at least one member)
#   ovs_peer_wait_negotiated DIR SECONDS [BOND]   polls the above every 0.1 s
#   ovs_appctl DIR CMD...             ovs-appctl against that instance (5 s timeout)
#   ovs_vsctl DIR ARGS...             ovs-vsctl against that instance's database
#   cap_start NS IFACE FILE [SECONDS] tshark on IFACE in NS, Slow Protocols frames only
#                                     (ether proto 0x8809), pcap format, into FILE; returns
#                                     once capturing; stops by itself after SECONDS (60)
#   cap_begin NS IFACE FILE [SECONDS] the same, returning at once (several captures start
#                                     side by side); cap_ready FILE then waits until it is
#                                     capturing (10 s at most; 1 and stopped if not)
#   cap_stop FILE                     stops that capture (TERM, then KILL) and waits for it
#   cap_stop_all                      stops every capture still running (for traps)
#
# The caller owns the namespaces and interfaces and removes them in its trap; it should call
# ovs_peer_stop for each DIR and cap_stop_all from the same trap.

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  echo "SKIP: ovs_lib.sh is a library for other tests"
  exit 77
fi

OVS_SCHEMA=${OVS_SCHEMA:-/usr/share/openvswitch/vswitch.ovsschema}
declare -A OVS_CAP_PIDS=()

ovs_require() {
  local b
  for b in ovs-vswitchd ovsdb-server ovs-vsctl ovs-appctl ovsdb-tool; do
    command -v "$b" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin command -v "$b" >/dev/null 2>&1 ||
      { echo "SKIP: $b missing (Debian package openvswitch-switch; scripts/deps.sh)"; exit 77; }
  done
  [ -f "$OVS_SCHEMA" ] || { echo "SKIP: no $OVS_SCHEMA"; exit 77; }
  case :$PATH: in *:/usr/sbin:*) ;; *) PATH=$PATH:/usr/sbin ;; esac
}

# The environment every OVS program of instance DIR runs with.
_ovs_env() {
  local d=$1; shift
  env OVS_RUNDIR="$d" OVS_LOGDIR="$d" OVS_DBDIR="$d" OVS_SYSCONFDIR="$d" OVS_PKGDATADIR=/usr/share/openvswitch "$@"
}

ovs_vsctl() {
  local d=$1; shift
  _ovs_env "$d" timeout 15 ovs-vsctl --db="unix:$d/db.sock" --timeout=10 "$@"
}

ovs_appctl() {
  local d=$1; shift
  _ovs_env "$d" timeout 5 ovs-appctl --timeout=5 -t "$d/ovs-vswitchd.ctl" "$@"
}

_ovs_wait_file() {  # _ovs_wait_file SECONDS PATH: until PATH exists (a socket or a file)
  local end=$((SECONDS + $1))
  until [ -e "$2" ]; do
    [ $SECONDS -ge "$end" ] && return 1
    sleep 0.05
  done
}

_ovs_fail() {  # _ovs_fail DIR MSG: message and the logs' tails on stderr, return 1
  echo "ovs_peer: $2" >&2
  local f
  for f in "$1"/ovsdb-server.log "$1"/ovs-vswitchd.log; do
    [ -f "$f" ] && { echo "--- $f" >&2; tail -n 15 "$f" >&2; }
  done
  return 1
}

ovs_start() {
  local ns=$1 d=$2
  mkdir -p "$d" || return 1
  rm -f "$d/conf.db"
  ovsdb-tool create "$d/conf.db" "$OVS_SCHEMA" || _ovs_fail "$d" "ovsdb-tool create" || return 1
  _ovs_env "$d" ip netns exec "$ns" ovsdb-server "$d/conf.db" --remote="punix:$d/db.sock" \
    --pidfile="$d/ovsdb-server.pid" --unixctl="$d/ovsdb-server.ctl" \
    --log-file="$d/ovsdb-server.log" -vconsole:off --detach --no-chdir 2>>"$d/ovsdb-server.stderr" ||
    { _ovs_fail "$d" "ovsdb-server did not start"; return 1; }
  _ovs_wait_file 10 "$d/db.sock" || { _ovs_fail "$d" "no $d/db.sock"; return 1; }
  ovs_vsctl "$d" --no-wait init || { _ovs_fail "$d" "ovs-vsctl init"; return 1; }
  _ovs_env "$d" ip netns exec "$ns" ovs-vswitchd "unix:$d/db.sock" \
    --pidfile="$d/ovs-vswitchd.pid" --unixctl="$d/ovs-vswitchd.ctl" \
    --log-file="$d/ovs-vswitchd.log" -vconsole:off --detach --no-chdir 2>>"$d/ovs-vswitchd.stderr" ||
    { _ovs_fail "$d" "ovs-vswitchd did not start"; return 1; }
  _ovs_wait_file 10 "$d/ovs-vswitchd.ctl" || { _ovs_fail "$d" "no $d/ovs-vswitchd.ctl"; return 1; }
}

ovs_peer_start() {
  local ns=$1 d=$2 members=$3 access=$4 time=$5 sysid=$6 m
  case $time in fast|slow) ;; *) echo "ovs_peer_start: lacp time '$time' is not fast|slow" >&2; return 1 ;; esac
  [ -n "$members" ] || { echo "ovs_peer_start: no bond members" >&2; return 1; }
  ovs_start "$ns" "$d" || return 1
  for m in $members; do ip -n "$ns" link set "$m" up || return 1; done
  ovs_vsctl "$d" add-br br0 -- set bridge br0 datapath_type=netdev ||
    { _ovs_fail "$d" "add-br br0"; return 1; }
  if [ "$access" != - ]; then
    ip -n "$ns" link set "$access" up || return 1
    ovs_vsctl "$d" add-port br0 "$access" || { _ovs_fail "$d" "add-port $access"; return 1; }
  fi
  # shellcheck disable=SC2086 # members is a list
  ovs_vsctl "$d" add-bond br0 bond0 $members lacp=active bond_mode=balance-slb \
    other_config:lacp-time="$time" other_config:lacp-system-id="$sysid" ||
    { _ovs_fail "$d" "add-bond"; return 1; }
}

_ovs_stop_pidfile() {  # _ovs_stop_pidfile PIDFILE
  local pid
  [ -f "$1" ] || return 0
  pid=$(cat "$1" 2>/dev/null)
  case $pid in ''|*[!0-9]*) rm -f "$1"; return 0 ;; esac
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null
  for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  rm -f "$1"
}

ovs_peer_stop() {
  local d=$1
  [ -n "$d" ] && [ -d "$d" ] || return 0
  _ovs_stop_pidfile "$d/ovs-vswitchd.pid"
  _ovs_stop_pidfile "$d/ovsdb-server.pid"
}

ovs_peer_lacp_show() { ovs_appctl "$1" lacp/show "${2:-bond0}"; }
ovs_peer_bond_show() { ovs_appctl "$1" bond/show "${2:-bond0}"; }
ovs_peer_lacp_stats() { ovs_appctl "$1" lacp/show-stats "${2:-bond0}"; }

# lacp/show (OVS 3.x) looks like:
#   ---- bond0 ----
#     status: active negotiated
#     ...
#   <member>: up1: current attached
#     port_id: 1 ...
# and bond/show has "lacp_status: negotiated" and "member up1: enabled" (older releases
# say "slave"). Whitespace and ordering are not relied on; every member line counts.
ovs_peer_members_negotiated() {
  local d=$1 bond=${2:-bond0} lacp bondout
  lacp=$(ovs_peer_lacp_show "$d" "$bond" 2>/dev/null) || return 1
  bondout=$(ovs_peer_bond_show "$d" "$bond" 2>/dev/null) || return 1
  printf '%s\n' "$lacp" | grep -Eq '^[[:space:]]*status:.*[[:space:]]negotiated([[:space:]]|$)' || return 1
  printf '%s\n' "$bondout" | grep -Eq '^[[:space:]]*lacp_status:[[:space:]]*negotiated[[:space:]]*$' || return 1
  printf '%s\n' "$lacp" | awk '
    /^[[:space:]]*(member|slave)[[:space:]]*:?[[:space:]]*[^:]+:/ {
      n++; if ($0 !~ /current/ || $0 !~ /attached/ || $0 ~ /defaulted|expired|detached/) bad++ }
    END { exit !(n > 0 && bad == 0) }' || return 1
  printf '%s\n' "$bondout" | awk '
    /^[[:space:]]*(member|slave)[[:space:]]+[^:]+:/ { n++; if ($0 !~ /:[[:space:]]*enabled/) bad++ }
    END { exit !(n > 0 && bad == 0) }'
}

ovs_peer_wait_negotiated() {  # DIR SECONDS [BOND]
  local end=$((SECONDS + $2))
  until ovs_peer_members_negotiated "$1" "${3:-bond0}"; do
    [ $SECONDS -ge "$end" ] && return 1
    sleep 0.1
  done
}

cap_start() {  # NS IFACE FILE [SECONDS]
  cap_begin "$@" && cap_ready "$3"
}

cap_begin() {  # NS IFACE FILE [SECONDS]
  local ns=$1 ifc=$2 file=$3 secs=${4:-60}
  command -v tshark >/dev/null || { echo "cap_begin: tshark missing" >&2; return 1; }
  rm -f "$file" "$file.err"
  # -F pcap: libpcap format, so libpcap readers (lacp_pcapgen --parse, tcpreplay) take it.
  ip netns exec "$ns" timeout $((secs + 5)) tshark -n -q -i "$ifc" -F pcap -w "$file" \
    -f 'ether proto 0x8809' -a "duration:$secs" 2>"$file.err" &
  OVS_CAP_PIDS[$file]=$!
}

cap_ready() {  # FILE: capturing once the file has its header and tshark said so
  local file=$1 pid=${OVS_CAP_PIDS[$1]:-} end=$((SECONDS + 10))
  [ -n "$pid" ] || { echo "cap_ready: no capture into $file" >&2; return 1; }
  until [ -s "$file" ] && grep -q "Capturing on" "$file.err" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null || [ $SECONDS -ge "$end" ]; then
      echo "cap_ready: tshark did not start: $(cat "$file.err")" >&2
      cap_stop "$file"
      return 1
    fi
    sleep 0.05
  done
}

cap_stop() {  # FILE
  local pid=${OVS_CAP_PIDS[$1]:-}
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  unset "OVS_CAP_PIDS[$1]"
  return 0
}

cap_stop_all() {
  local f
  for f in "${!OVS_CAP_PIDS[@]}"; do cap_stop "$f"; done
}
