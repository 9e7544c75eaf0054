#!/usr/bin/env bash
# bench_veth: TCP throughput guest -> switch -> LAN over veths, zvswitch against its peers.
#
#   BUILD=build tests/bench/bench_veth.sh        (run by tests/bench/run.sh, `make bench`)
#
# Three switches and a bare veth pair, measured side by side in one run, at MTU 1500 and
# 9000. Each switch has the same shape: a guest namespace, the switch in its own
# namespace, a LAN namespace; the iperf3 client runs in the guest (10.77.0.1), the server
# in the LAN (10.77.0.100).
#   zvswitch   the integration lab (tests/integration/lib.sh, configs/lab/): vswitchd in
#              its namespace, the guest's NIC a tap vswitchd makes (LNXA, lnxa-f000) moved
#              into the guest namespace, the uplink the veth osa28ba whose peer is in the LAN.
#   bridge     a Linux bridge with the guest's and the LAN's veth peers enslaved.
#   ovs        Open vSwitch's userspace datapath (datapath_type=netdev, userspace TSO on),
#              ovsdb-server and ovs-vswitchd from a private directory under our temp dir.
#   bare veth  no switch: the guest's and the LAN's namespaces joined by one veth pair,
#              the ceiling every switch is measured against.
#   pump       no switch in user space: tests/tools/tap_pump, which only moves frames
#              between a tap (the guest's NIC, made as vswitchd makes LNXA's, its
#              gso_max_size and gso_max_segs copied from lnxa-f000) and packet sockets on
#              the uplink veth, as vswitchd's drivers do: the two copies a frame and the
#              system calls, nothing of the switch. The floor of any one-thread user-space
#              switch built on these kernel interfaces: what it cannot beat on this
#              machine, and so how much of zvswitch's distance to the bridge is the
#              switch's own.
# Offloads stay at the kernel's defaults everywhere (TSO and checksum offload on): the
# guests hand every switch TCP super-frames, and each switch must carry them.
#
# Each MTU runs in its own child process (this script with --mtu N), because a lib.sh lab
# lives once per process: lab_init, lab_start, and lab_cleanup when the process exits.
# The child builds all three switches, then runs BENCH_REPS rounds (default 3) of one
# iperf3 TCP stream of BENCH_SECS seconds (default 5) through zvswitch, the bridge, OVS,
# the bare veth pair and the pump in turn (interleaved, so a noisy moment hurts all
# alike); a value is the median of the receiver's bits_per_second. About 3 minutes in all.
#
# TCP congestion control: every run uses the same one, pinned so results compare across
# machines: cubic (the kernel's built-in default) unless BENCH_CC names another (iperf3
# -C). It matters: a test VM whose sysctl chose bbr ran a single stream through zvswitch
# at about 5 Gbit/s with bbr and 14 with cubic; compare results only at the same BENCH_CC.
#
# Output (tests/bench/run.sh's line protocol; ratio > 1 means zvswitch is better):
#   BENCH veth_tcp_gbps_mtu1500 <zvs> Gbit/s
#   BENCH veth_tcp_gbps_mtu1500_vs_ovs <zvs> Gbit/s ovs <ovs> <zvs/ovs>
#   BENCH veth_tcp_gbps_mtu1500_vs_bridge <zvs> Gbit/s bridge <bridge> <zvs/bridge>
#   BENCH veth_tcp_vswitchd_cpu_mtu1500 <percent of one core> %cpu
#   BENCH veth_tcp_vswitchd_cpu_per_gbps_mtu1500 <percent of one core per Gbit/s> %cpu/Gbps
#   BENCH veth_tcp_gbps_mtu1500_spread <max - min over the rounds> Gbit/s
#   BENCH veth_tcp_gbps_mtu1500_vs_bare <zvs> Gbit/s bare-veth <bare> <zvs/bare>
#   BENCH veth_tcp_ratio_vs_bridge_spread_mtu1500 <max - min of the rounds' zvs/bridge> ratio
#   BENCH veth_tcp_pump_gbps_mtu1500 <pump> Gbit/s bridge <bridge> <pump/bridge>
#   BENCH veth_tcp_pump_cpu_per_gbps_mtu1500 <the pump's percent of one core per Gbit/s>
#   BENCH veth_tcp_gbps_mtu1500_vs_pump <zvs> Gbit/s pump <pump> <zvs/pump>
#   BENCH veth_tcp_cpu_per_gbps_mtu1500_vs_pump <zvs> %cpu/Gbps pump <pump> <pump/zvs>
#         (the pump's lines carry no target; a pump that cannot be set up or fails
#         prints them as NOTRUN, and the rest is measured as without it)
#   BENCH veth_tcp_vswitchd_wakeups_per_frame_mtu1500 <voluntary context switches of
#         vswitchd over the frames its uplink carried both ways (wire frames: a super-frame
#         counts as its segments), median of the rounds> wakeups/frame
# and the same for mtu9000 (the CPU per Gbit/s is each round's CPU over its throughput,
# the median of the rounds). Every zvswitch round also checks that vswitchd forwarded what
# iperf3 moved: the uplink's tx_bytes over the round at least the bytes the receiver got
# and at most the bytes sent plus 6 % (headers) and 1 MB (iperf3's control), or the run
# fails: every measured frame went through vswitchd in user space. Lines starting with # are the log: each run with the CPU its
# switch daemon and the whole machine used, vswitchd's counters report, the average bytes
# per frame guest -> LAN (far above the MTU: super-frames crossed whole).
#
# Exit: 0 measured, 77 cannot run here (no root, no iperf3, no Open vSwitch; the last
# line says why), 1 a switch could not be set up or a run failed (the lines that could be
# measured are still printed). Every namespace, veth and daemon made here is removed on
# exit, Ctrl-C and TERM included; the host's own interfaces and OVS paths are never
# touched. Knobs: BENCH_SECS, BENCH_REPS, BENCH_MTUS ("1500 9000"), BENCH_CC, KEEP_WORK=1.
# shellcheck disable=SC2317  # functions called from traps
set -u

BENCH_SECS=${BENCH_SECS:-5}
BENCH_REPS=${BENCH_REPS:-3}
BENCH_MTUS=${BENCH_MTUS:-1500 9000}
OVS_SCHEMA=${OVS_SCHEMA:-/usr/share/openvswitch/vswitch.ovsschema}

log() { echo "# $*"; }

# ==== parent: checks, then one child per MTU ==============================================

skip77() { echo "SKIP: $*"; exit 77; }

preflight() {
  [ "$(id -u)" -eq 0 ] || skip77 "bench_veth needs root (network namespaces)"
  command -v iperf3 >/dev/null || skip77 "bench_veth needs iperf3 (apt-get install iperf3)"
  local t
  for t in ovsdb-tool ovsdb-server ovs-vswitchd ovs-vsctl; do
    command -v "$t" >/dev/null ||
      skip77 "bench_veth needs Open vSwitch ($t missing; apt-get install openvswitch-switch)"
  done
  [ -r "$OVS_SCHEMA" ] || skip77 "bench_veth needs Open vSwitch's schema ($OVS_SCHEMA)"
  command -v jq >/dev/null || /usr/bin/python3 -c 'import json' 2>/dev/null ||
    skip77 "bench_veth needs jq or /usr/bin/python3 to read iperf3's JSON"
  local m
  for m in $BENCH_MTUS; do
    case $m in *[!0-9]*) echo "FAIL: bad MTU '$m' in BENCH_MTUS"; exit 1 ;; esac
  done
}

# The child runs in the background and is waited for, so a TERM (run.sh's timeout) or
# Ctrl-C reaches our trap at once; the trap passes it on and waits for the child's cleanup.
CHILD=
parent_stop() {
  trap - INT TERM
  if [ -n "$CHILD" ]; then
    kill -TERM "$CHILD" 2>/dev/null
    wait "$CHILD" 2>/dev/null
  fi
  exit "$1"
}

parent() {
  local m rc status=0
  preflight
  trap 'parent_stop 130' INT
  trap 'parent_stop 143' TERM
  for m in $BENCH_MTUS; do
    bash "$0" --mtu "$m" &
    CHILD=$!
    wait "$CHILD"
    rc=$?
    CHILD=
    if [ "$rc" -ne 0 ]; then
      echo "FAIL: the MTU $m measurement failed (status $rc)"
      status=1
    fi
  done
  exit "$status"
}

[ "${1:-}" = --mtu ] || parent

# ==== child: one MTU ======================================================================

MTU=${2:?--mtu needs a number}

# shellcheck source=tests/integration/lib.sh
. "$(cd "$(dirname "$0")/../integration" && pwd)/lib.sh"

GUEST_IP=${LAB_IP[a]}
LAN_IP=${LAB_IP[lan]}
BDIR=                           # ours (OVS, iperf3 output); lib.sh's $WORK is the lab's
PEER_NS=()                      # namespaces made here for the bridge and OVS
SERVER_PIDS=()                  # our iperf3 servers
CLIENT_PID=                     # the running iperf3 client's timeout
PUMP_PID=                       # tests/tools/tap_pump
failed=0

die() { echo "FAIL: $*"; exit 1; }

# ---- teardown ---------------------------------------------------------------------------

ovs_stop() {
  local d=$BDIR/ovs pf pid
  [ -n "$BDIR" ] || return 0
  for pf in "$d/ovs-vswitchd.pid" "$d/ovsdb-server.pid"; do
    [ -s "$pf" ] || continue
    pid=$(cat "$pf")
    kill -TERM "$pid" 2>/dev/null || continue
    for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
  done
}

# Everything that is ours, then lib.sh's lab_cleanup (vswitchd, the lab's namespaces,
# $WORK), which ends the process with the status it finds in $?.
child_cleanup() {
  local rc=$? ns pid
  trap - EXIT INT TERM
  if [ -n "$CLIENT_PID" ]; then         # interrupted during a run: timeout stops iperf3
    kill -TERM "$CLIENT_PID" 2>/dev/null
    wait "$CLIENT_PID" 2>/dev/null
  fi
  for pid in "${SERVER_PIDS[@]:-}"; do
    [ -n "$pid" ] || continue
    kill -TERM "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  ovs_stop
  pump_stop
  for ns in "${PEER_NS[@]:-}"; do
    [ -n "$ns" ] || continue
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
    ip netns del "$ns" 2>/dev/null
  done
  [ -n "$BDIR" ] && [ -z "${KEEP_WORK:-}" ] && rm -rf "$BDIR"
  (exit "$rc")
  lab_cleanup
  exit "$rc"                            # in case lab_cleanup returns
}

# ---- the three switches -----------------------------------------------------------------

zvs_up() {  # the integration lab, exactly as lab_basic.sh starts it
  lab_init veth
  # lab_init installed lib.sh's traps; ours also removes the peers, then calls lab_cleanup.
  trap child_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  BDIR=$(mktemp -d /tmp/zvs-bench-veth.XXXXXX)
  lab_start "$ROOT/configs/lab/SYSTEM.CONFIG" "$ROOT/configs/lab/USER.DIRECT" "$MTU"
}

peer_ns() {  # peer_ns NAME VAR: a fresh namespace (lo up, IPv6 off), its name in VAR
  local ns=zvs-veth-$$-$1
  ip netns add "$ns" || die "ip netns add $ns"
  PEER_NS+=("$ns")
  ip -n "$ns" link set lo up
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
    net.ipv6.conf.default.disable_ipv6=1
  printf -v "$2" '%s' "$ns"
}

# peer_wires PREFIX: namespaces PREFIX-sw, PREFIX-g, PREFIX-l with veths g0 (sw) -- eth0
# (guest) and l0 (sw) -- eth0 (LAN), addressed like the lab; sets SW_NS, G_NS, L_NS.
peer_wires() {
  local p=$1
  peer_ns "$p-sw" SW_NS
  peer_ns "$p-g" G_NS
  peer_ns "$p-l" L_NS
  ip -n "$SW_NS" link add g0 mtu "$MTU" type veth peer name eth0 mtu "$MTU" netns "$G_NS" ||
    die "veth g0 for $p"
  ip -n "$SW_NS" link add l0 mtu "$MTU" type veth peer name eth0 mtu "$MTU" netns "$L_NS" ||
    die "veth l0 for $p"
  ip -n "$G_NS" addr add "$GUEST_IP/24" dev eth0
  ip -n "$L_NS" addr add "$LAN_IP/24" dev eth0
  ip -n "$G_NS" link set eth0 up
  ip -n "$L_NS" link set eth0 up
}

bridge_up() {
  peer_wires br
  BR_G=$G_NS BR_L=$L_NS
  ip -n "$SW_NS" link add br0 type bridge stp_state 0 forward_delay 0 || die "bridge"
  ip -n "$SW_NS" link set g0 master br0 || die "enslave g0"
  ip -n "$SW_NS" link set l0 master br0 || die "enslave l0"
  ip -n "$SW_NS" link set g0 up
  ip -n "$SW_NS" link set l0 up
  ip -n "$SW_NS" link set br0 up
}

bare_up() {  # the guest's eth0 and the LAN's eth0: the two ends of one veth pair
  peer_ns bare-g BARE_G
  peer_ns bare-l BARE_L
  ip -n "$BARE_G" link add eth0 mtu "$MTU" type veth peer name eth0 mtu "$MTU" \
    netns "$BARE_L" || die "bare veth pair"
  ip -n "$BARE_G" addr add "$GUEST_IP/24" dev eth0
  ip -n "$BARE_L" addr add "$LAN_IP/24" dev eth0
  ip -n "$BARE_G" link set eth0 up
  ip -n "$BARE_L" link set eth0 up
}

# The pump: namespaces pump-sw (the pump and the uplink veth l0), pump-g (the guest, its
# NIC the pump's tap renamed eth0), pump-l (the LAN). The tap gets vswitchd's tap's
# super-frame limits, so the guest hands both the same super-frames.
pump_up() {  # returns 1 (logged) when the pump cannot be set up: the floor is then not run
  local gso segs
  peer_ns pump-sw PUMP_SW
  peer_ns pump-g PUMP_G
  peer_ns pump-l PUMP_L
  ip -n "$PUMP_SW" link add l0 mtu "$MTU" type veth peer name eth0 mtu "$MTU" \
    netns "$PUMP_L" || { log "pump: no veth l0"; return 1; }
  ip -n "$PUMP_L" addr add "$LAN_IP/24" dev eth0
  ip -n "$PUMP_L" link set eth0 up
  ip -n "$PUMP_SW" link set l0 up
  [ -x "$BUILD/tools/tap_pump" ] || { log "pump: no $BUILD/tools/tap_pump (make)"; return 1; }
  ip netns exec "$PUMP_SW" "$BUILD/tools/tap_pump" pmp0 l0 >"$BDIR/pump.out" 2>&1 &
  PUMP_PID=$!
  wait_for 5 grep -q '^ready' "$BDIR/pump.out" ||
    { log "pump: tap_pump did not start: $(cat "$BDIR/pump.out")"; return 1; }
  read -r gso segs <<<"$(ip -n "$NS_A" -d link show lnxa-f000 |
    sed -n 's/.* gso_max_size \([0-9]*\) gso_max_segs \([0-9]*\).*/\1 \2/p')"
  [ -n "$gso" ] || { log "pump: lnxa-f000's gso_max_size not found"; return 1; }
  ip -n "$PUMP_SW" link set pmp0 gso_max_size "$gso" gso_max_segs "$segs" ||
    { log "pump: pmp0 refused gso_max_size $gso gso_max_segs $segs"; return 1; }
  ip -n "$PUMP_SW" link set pmp0 netns "$PUMP_G" || { log "pump: pmp0 not moved"; return 1; }
  ip -n "$PUMP_G" link set pmp0 name eth0 mtu "$MTU" up
  ip -n "$PUMP_G" addr add "$GUEST_IP/24" dev eth0
  log "pump: tap gso_max_size $gso gso_max_segs $segs, as vswitchd's lnxa-f000"
}

pump_stop() {  # TERM, wait, log its counters; 1 when it had died or ended badly
  local rc=0
  [ -n "$PUMP_PID" ] || return 0
  kill -0 "$PUMP_PID" 2>/dev/null || rc=1
  kill -TERM "$PUMP_PID" 2>/dev/null
  wait "$PUMP_PID" 2>/dev/null || rc=1
  PUMP_PID=
  grep -q '^tap_pump: out' "$BDIR/pump.out" 2>/dev/null || rc=1
  log "pump: $(tail -n 2 "$BDIR/pump.out" 2>/dev/null | tr '\n' ' ')"
  return "$rc"
}

pump_uplink() {  # "<tx_bytes> <frames both ways>" of the pump's l0 so far
  local d=/sys/class/net/l0/statistics
  ip netns exec "$PUMP_SW" sh -c "echo \$(cat $d/tx_bytes) \$((\$(cat $d/tx_packets) + \$(cat $d/rx_packets)))"
}

ovs_env() {  # ovs_env NS CMD...: run an OVS program in NS with every path in our directory
  local ns=$1 d=$BDIR/ovs; shift
  env OVS_RUNDIR="$d" OVS_LOGDIR="$d" OVS_DBDIR="$d" OVS_SYSCONFDIR="$d" \
    ip netns exec "$ns" "$@"
}

ovs_vsctl() { timeout 30 ovs-vsctl --db="unix:$BDIR/ovs/db.sock" --timeout=20 "$@"; }

ovs_up() {
  local d=$BDIR/ovs
  peer_wires ovs
  OVS_G=$G_NS OVS_L=$L_NS
  mkdir -p "$d"
  ovsdb-tool create "$d/conf.db" "$OVS_SCHEMA" || die "ovsdb-tool create"
  ovs_env "$SW_NS" ovsdb-server "$d/conf.db" --remote="punix:$d/db.sock" \
    --pidfile="$d/ovsdb-server.pid" --unixctl="$d/ovsdb-server.ctl" \
    --log-file="$d/ovsdb-server.log" -vconsole:off --detach --no-chdir 2>>"$d/stderr" ||
    die "ovsdb-server: $(tail -n 3 "$d/ovsdb-server.log" "$d/stderr" 2>&1)"
  ovs_vsctl --no-wait init || die "ovs-vsctl init"
  # Read at start-up only: set before ovs-vswitchd runs.
  ovs_vsctl --no-wait set Open_vSwitch . other_config:userspace-tso-enable=true ||
    die "userspace-tso-enable"
  ovs_env "$SW_NS" ovs-vswitchd "unix:$d/db.sock" --pidfile="$d/ovs-vswitchd.pid" \
    --unixctl="$d/ovs-vswitchd.ctl" --log-file="$d/ovs-vswitchd.log" -vconsole:off \
    --detach --no-chdir 2>>"$d/stderr" ||
    die "ovs-vswitchd: $(tail -n 3 "$d/ovs-vswitchd.log" "$d/stderr" 2>&1)"
  ovs_vsctl add-br br0 -- set bridge br0 datapath_type=netdev \
    -- add-port br0 g0 -- add-port br0 l0 ||
    die "ovs bridge: $(tail -n 5 "$d/ovs-vswitchd.log")"
  ip -n "$SW_NS" link set g0 up
  ip -n "$SW_NS" link set l0 up
  # Without userspace TSO OVS is several times slower: not the peer the targets mean.
  grep -q 'Userspace TCP Segmentation Offloading support enabled' "$d/ovs-vswitchd.log" ||
    die "ovs: userspace TSO not enabled: $(grep -i tso "$d/ovs-vswitchd.log")"
  log "ovs: $(ovs-vswitchd --version | head -n 1), userspace TSO enabled"
}

# ---- measuring --------------------------------------------------------------------------

# iperf3 servers stay up for the whole child. They are our background jobs (not iperf3
# -D), so we reap them: a daemonized one killed at teardown lingers as a zombie of init,
# and iperf3 -D refuses to start over its pidfile.
server_up() {  # server_up NS
  ip netns exec "$1" iperf3 -s -B "$LAN_IP" --logfile "$BDIR/iperf-$1.log" &
  SERVER_PIDS+=($!)
  wait_for 5 ip netns exec "$1" sh -c "ss -ltn | grep -q '$LAN_IP:5201 '" ||
    die "iperf3 server in $1 not listening: $(tail -n 3 "$BDIR/iperf-$1.log")"
}

# Reachability before timing: resolves ARP and fills the switch's MAC table.
reach() {  # reach NAME GUEST_NS
  ip netns exec "$2" ping -c 3 -i 0.2 -W 2 "$LAN_IP" >/dev/null ||
    die "$1: guest cannot ping the LAN"
}

# json_of JSONFILE: "<receiver's bits_per_second> <sender's mean RTT in us> <bytes
# received> <bytes sent>" of an iperf3 -J output, nothing when the run failed.
json_of() {
  if command -v jq >/dev/null; then
    jq -re '"\(.end.sum_received.bits_per_second) \(.end.streams[0].sender.mean_rtt // 0) \(.end.sum_received.bytes) \(.end.sum_sent.bytes)"' \
      "$1" 2>/dev/null
  else
    /usr/bin/python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))["end"]
print(e["sum_received"]["bits_per_second"], e["streams"][0]["sender"].get("mean_rtt", 0),
      e["sum_received"]["bytes"], e["sum_sent"]["bytes"])' \
      "$1" 2>/dev/null
  fi
}

zvs_uplink() {  # "<tx_bytes> <frames both ways>" of the uplink (28BA) so far
  local report
  report=$(lab_stats) || return 1
  echo "$(counter "$report" 28BA tx_bytes)" \
    "$(( $(counter "$report" 28BA tx_packets) + $(counter "$report" 28BA rx_packets) ))"
}

wakeups() {  # wakeups PID: its voluntary context switches so far (each a sleep in the loop)
  awk '/^voluntary_ctxt_switches:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0
}

# bytes_match RUN FWD RECEIVED SENT: the forwarder (vswitchd or the pump) sent FWD bytes
# on its uplink toward the LAN while iperf3 moved RECEIVED of SENT; returns 1 (logged)
# when they do not match.
bytes_match() {
  if awk -v f="$2" -v r="$3" -v s="$4" 'BEGIN { exit !(f >= r && f <= s * 1.06 + 1e6) }'; then
    log "$1: forwarded $2 bytes on the uplink, iperf3 received $3 of $4 sent: match"
  else
    log "$1: forwarded $2 bytes on the uplink, iperf3 received $3 of $4 sent: MISMATCH"
    return 1
  fi
}

cpu_ticks() {  # cpu_ticks PID: utime + stime in clock ticks (0 if gone)
  awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null || echo 0
}

sys_ticks() {  # sys_ticks: "busy total" jiffies of all CPUs, from /proc/stat
  awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print t - $5 - $6, t; exit }' /proc/stat
}

# run_one NAME REP GUEST_NS [PID]: one iperf3 run; appends its Gbit/s to $BDIR/gbps-NAME.
# With PID, appends the CPU that process used during the run, in % of one core, to
# $BDIR/cpu-NAME. Returns 1 if the run failed.
run_one() {
  local name=$1 rep=$2 ns=$3 pid=${4:-} out=$BDIR/$1-$2.json
  local t0 t1 c0=0 c1 s0 s1 bps rtt rbytes sbytes gbps what="" f0="" n0 f1 n1 w0=0 up=
  case $name in                 # the forwarders in user space: their uplink's counters
    zvswitch) up=zvs_uplink; w0=$(wakeups "$pid") ;;
    pump)     up=pump_uplink ;;         # (its wake-ups are not compared)
  esac
  [ -n "$up" ] && read -r f0 n0 <<<"$($up)"
  [ -n "$pid" ] && c0=$(cpu_ticks "$pid")
  s0=$(sys_ticks)
  t0=$(date +%s%N)
  # In the background and waited for: `wait` returns at once on Ctrl-C or TERM and the
  # trap runs. A foreground child would hold the trap back until it ends, and Ctrl-C
  # would be ignored altogether when the child does not die of SIGINT itself.
  timeout $((BENCH_SECS + 15)) ip netns exec "$ns" \
    iperf3 -c "$LAN_IP" -t "$BENCH_SECS" -C "$CC" -J >"$out" 2>&1 &
  CLIENT_PID=$!
  wait "$CLIENT_PID"
  CLIENT_PID=
  t1=$(date +%s%N)
  s1=$(sys_ticks)
  read -r bps rtt rbytes sbytes <<<"$(json_of "$out")"
  if [ -z "$bps" ] || [ "$bps" = null ]; then
    log "$name mtu $MTU run $rep: FAILED: $(grep -m1 '"error"' "$out" || tail -n 1 "$out")"
    return 1
  fi
  if [ -n "$f0" ]; then
    read -r f1 n1 <<<"$($up)"
    bytes_match "$name mtu $MTU run $rep" "$((f1 - f0))" "$rbytes" "$sbytes" || return 1
    if [ "$name" = zvswitch ]; then     # the veth counts the pump's super-frames as one
      awk -v w="$(( $(wakeups "$pid") - w0 ))" -v n="$((n1 - n0))" \
        'BEGIN { if (n > 0) printf "%.5f\n", w / n }' >>"$BDIR/wakeups-$name"
      what="$(tail -n 1 "$BDIR/wakeups-$name") wake-ups a frame, "
    fi
  fi
  if [ -n "$pid" ]; then
    c1=$(cpu_ticks "$pid")
    awk -v c="$((c1 - c0))" -v hz="$(getconf CLK_TCK)" -v ns="$((t1 - t0))" \
      'BEGIN { printf "%.0f\n", 100 * c / hz / (ns / 1e9) }' >>"$BDIR/cpu-$name"
    what="${what}daemon $(tail -n 1 "$BDIR/cpu-$name")% of a core, "
  fi
  gbps=$(awk -v b="$bps" 'BEGIN { printf "%.2f\n", b / 1e9 }')
  echo "$gbps" >>"$BDIR/gbps-$name"
  [ -n "$pid" ] && awk -v c="$(tail -n 1 "$BDIR/cpu-$name")" -v g="$gbps" \
    'BEGIN { if (g > 0) printf "%.2f\n", c / g }' >>"$BDIR/cpu-per-gbps-$name"
  # shellcheck disable=SC2086
  set -- $s0 $s1
  log "$name mtu $MTU run $rep: $gbps Gbit/s (${what}machine $(awk -v b="$(($3 - $1))" \
    -v t="$(($4 - $2))" 'BEGIN { printf "%.0f", t ? 100 * b / t : 0 }')% busy of $(nproc) CPUs," \
    "mean RTT $rtt us)"
}

median() {  # median FILE: of the numbers in FILE, one per line (nothing if none)
  [ -s "$1" ] || return 0
  sort -g "$1" | awk '{ v[NR] = $1 }
    END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

spread() {  # spread FILE: max - min of the numbers in FILE (nothing if none)
  [ -s "$1" ] || return 0
  sort -g "$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f\n", hi - lo }'
}

ratio() {  # ratio A B: A / B, nothing when B is missing or 0
  awk -v a="$1" -v b="${2:-0}" 'BEGIN { if (b > 0) printf "%.3f\n", a / b }'
}

zvs_report() {  # the counters report and the average frame size guest -> LAN
  local report
  report=$(lab_stats) || { echo "$report"; failed=1; return; }
  log "vswitchd counters after mtu $MTU:"
  sed 's/^/#   /' "$report"
  # Far above the MTU when super-frames cross the switch whole; about the MTU when
  # something segments them in software.
  log "zvswitch mtu $MTU: guest -> LAN $(awk -v b="$(counter "$report" 28BA tx_bytes)" \
    -v p="$(counter "$report" 28BA tx_packets)" \
    'BEGIN { printf "%.0f", p ? b / p : 0 }') bytes per frame on average"
}

child() {
  local rep sw zvs br ovs bare pump ovs_pid name r CC
  log "MTU $MTU: zvswitch, Linux bridge, OVS userspace (TSO), bare veth pair, pump, $BENCH_REPS x $BENCH_SECS s each"
  zvs_up
  bridge_up
  ovs_up
  bare_up
  local floor=pump
  pump_up || floor=
  ovs_pid=$(cat "$BDIR/ovs/ovs-vswitchd.pid")
  server_up "$NS_LAN"; server_up "$BR_L"; server_up "$OVS_L"; server_up "$BARE_L"
  reach zvswitch "$NS_A"; reach bridge "$BR_G"; reach ovs "$OVS_G"; reach bare "$BARE_G"
  if [ -n "$floor" ]; then
    server_up "$PUMP_L"
    ip netns exec "$PUMP_G" ping -c 3 -i 0.2 -W 2 "$LAN_IP" >/dev/null ||
      { log "pump: its guest cannot ping the LAN"; floor=; }
  fi
  # The same TCP congestion control for all three, named in the log: it moves the
  # results a lot (see the header).
  CC=${BENCH_CC:-cubic}
  grep -qw "$CC" /proc/sys/net/ipv4/tcp_available_congestion_control ||
    modprobe -q "tcp_$CC" 2>/dev/null ||
    die "TCP congestion control '$CC' not available here (BENCH_CC)"
  log "TCP congestion control: $CC (BENCH_CC; default cubic, the kernel's own default)"
  for rep in $(seq "$BENCH_REPS"); do
    for sw in zvswitch bridge ovs bare $floor; do
      case $sw in
        zvswitch) run_one $sw "$rep" "$NS_A" "$VSWITCHD_PID" ;;
        bridge)   run_one $sw "$rep" "$BR_G" ;;
        ovs)      run_one $sw "$rep" "$OVS_G" "$ovs_pid" ;;
        bare)     run_one $sw "$rep" "$BARE_G" ;;
        pump)     run_one $sw "$rep" "$PUMP_G" "$PUMP_PID" || floor= ;;
      esac || failed=1
    done
    # The round's zvswitch/bridge ratio: both measured back to back, so a noisy moment
    # moves the two alike and the ratios' spread says how far one round can be trusted.
    r=$(ratio "$(sed -n "${rep}p" "$BDIR/gbps-zvswitch" 2>/dev/null)" \
              "$(sed -n "${rep}p" "$BDIR/gbps-bridge" 2>/dev/null)")
    [ -n "$r" ] && echo "$r" >>"$BDIR/ratio-bridge"
  done
  zvs=$(median "$BDIR/gbps-zvswitch")
  br=$(median "$BDIR/gbps-bridge")
  ovs=$(median "$BDIR/gbps-ovs")
  bare=$(median "$BDIR/gbps-bare")
  # A floor that broke is not run, with its reason: it has no target, and it must not
  # take the lines that do have one down with it.
  if [ -n "$floor" ] && ! pump_stop; then floor=; fi
  pump=
  [ -n "$floor" ] && pump=$(median "$BDIR/gbps-pump")
  if [ -z "$floor" ]; then
    for r in veth_tcp_pump_gbps_mtu$MTU veth_tcp_pump_cpu_per_gbps_mtu$MTU \
             veth_tcp_gbps_mtu${MTU}_vs_pump veth_tcp_cpu_per_gbps_mtu${MTU}_vs_pump; do
      echo "NOTRUN $r tap_pump could not be set up or failed (see the log)"
    done
  fi
  for sw in zvswitch ovs pump; do
    [ -s "$BDIR/cpu-$sw" ] &&
      log "$sw mtu $MTU daemon CPU per run (% of one core): $(tr '\n' ' ' <"$BDIR/cpu-$sw")"
  done
  zvs_report
  name=veth_tcp_gbps_mtu$MTU
  if [ -n "$zvs" ]; then
    echo "BENCH $name $zvs Gbit/s"
    r=$(ratio "$zvs" "$ovs")
    [ -n "$r" ] && echo "BENCH ${name}_vs_ovs $zvs Gbit/s ovs $ovs $r"
    r=$(ratio "$zvs" "$br")
    [ -n "$r" ] && echo "BENCH ${name}_vs_bridge $zvs Gbit/s bridge $br $r"
    [ -s "$BDIR/cpu-zvswitch" ] &&
      echo "BENCH veth_tcp_vswitchd_cpu_mtu$MTU $(median "$BDIR/cpu-zvswitch") %cpu"
    [ -s "$BDIR/cpu-per-gbps-zvswitch" ] &&
      echo "BENCH veth_tcp_vswitchd_cpu_per_gbps_mtu$MTU $(median "$BDIR/cpu-per-gbps-zvswitch") %cpu/Gbps"
    echo "BENCH ${name}_spread $(spread "$BDIR/gbps-zvswitch") Gbit/s"
    r=$(ratio "$zvs" "$bare")
    [ -n "$r" ] && echo "BENCH ${name}_vs_bare $zvs Gbit/s bare-veth $bare $r"
    [ -n "$bare" ] && [ -n "$br" ] &&
      log "bridge mtu $MTU against the bare veth pair: $(ratio "$br" "$bare")"
    [ -s "$BDIR/ratio-bridge" ] &&
      echo "BENCH veth_tcp_ratio_vs_bridge_spread_mtu$MTU $(spread "$BDIR/ratio-bridge") ratio" &&
      log "zvswitch/bridge mtu $MTU per round: $(tr '\n' ' ' <"$BDIR/ratio-bridge")"
    [ -s "$BDIR/wakeups-zvswitch" ] &&
      echo "BENCH veth_tcp_vswitchd_wakeups_per_frame_mtu$MTU $(median "$BDIR/wakeups-zvswitch") wakeups/frame"
    # The floor (tests/tools/tap_pump): no target of its own; it tells what the targets
    # leave a switch in user space on this machine.
    if [ -n "$pump" ]; then
      r=$(ratio "$pump" "$br")
      [ -n "$r" ] && echo "BENCH veth_tcp_pump_gbps_mtu$MTU $pump Gbit/s bridge $br $r"
      [ -s "$BDIR/cpu-per-gbps-pump" ] &&
        echo "BENCH veth_tcp_pump_cpu_per_gbps_mtu$MTU $(median "$BDIR/cpu-per-gbps-pump") %cpu/Gbps"
      r=$(ratio "$zvs" "$pump")
      [ -n "$r" ] && echo "BENCH ${name}_vs_pump $zvs Gbit/s pump $pump $r"
      zc=$(median "$BDIR/cpu-per-gbps-zvswitch"); pc=$(median "$BDIR/cpu-per-gbps-pump")
      r=                                # the pump's over ours: > 1, zvswitch is cheaper
      [ -n "$pc" ] && [ -n "$zc" ] && r=$(ratio "$pc" "$zc")
      if [ -n "$r" ]; then
        echo "BENCH veth_tcp_cpu_per_gbps_mtu${MTU}_vs_pump $zc %cpu/Gbps pump $pc $r"
      else
        echo "NOTRUN veth_tcp_cpu_per_gbps_mtu${MTU}_vs_pump no CPU a Gbit/s measured for both"
      fi
    fi
    for sw in zvswitch bridge ovs bare pump; do
      [ -s "$BDIR/gbps-$sw" ] &&
        log "$sw mtu $MTU Gbit/s per round: $(tr '\n' ' ' <"$BDIR/gbps-$sw")(spread $(spread "$BDIR/gbps-$sw"))"
    done
  fi
  [ "$failed" -eq 0 ] || die "some runs failed (see above)"
  exit 0
}

child
