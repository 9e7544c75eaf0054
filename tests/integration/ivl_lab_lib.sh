# The IVL domain lab (sourced by tests/integration/ivl_domain.sh and
# tests/bench/bench_ivl.sh): IVL_NSYS systems (2 or 3, default 3), each a vswitchd beside
# its own corosync in one network namespace and one mount namespace over /run and
# /dev/shm (the fixed /run/corosync.pid, libqb's rings), its corosync.conf written by
# `vswitchd --write-corosync` and named again by --corosync-conf (checked at the join);
# each system has two OSA ports (osa1 = 28BA, osa2 = 2902) cabled to the switch model,
# whose one channel-group holds every system's ports (system n: Gi2/2n-1, Gi2/2n), and a
# guest namespace on its tap (10.89.0.n, MAC 02-00-An-00-01-01); the IVL network is a
# bridge joining the systems' ivl0 devices (the TYPE IVL switch's RDEV E00, MTU 1600,
# corosync's knet on 10.88.0.n); IVL_LANS LAN hosts (1 or 2) on the switch's access ports
# (10.89.0.100 and .101, MACs IVL_LAN_MAC1 / IVL_LAN_MAC2). IVL_RATE: every channel-group
# port limited to that many bit/s (empty: not limited). Each system's SYSTEM CONFIG says
# SET PORT GROUP GG ... LACP ACTIVE SHARED (ours in the file), so a system joins the domain
# when it starts, a restarted one too; IVL_SHARED_BY_COMMAND lists the systems whose file
# leaves GG EXCLUSIVE and that are given SHARED by the CP command instead, once started.
#
#   ivl_lab_init                 namespaces, wires, files, the switch model; exits 77
#                                without root, corosync or the programs
#   ivl_start_system N [late]    corosync, then vswitchd once corosync answers, the tap into
#                                the guest (a restart adopts the one there); on a system of
#                                IVL_SHARED_BY_COMMAND, SET PORT GROUP GG LACP ACTIVE SHARED;
#                                `late`: vswitchd first, corosync only once the test
#                                creates $W/sN/corosync.go
#   ivl_stop_system N SIGNAL     signal vswitchd and its corosync
#   sm CMD, cp_cmd N CMD         the switch model's / system N's console
#   group_line, bundled "1 3"    the bundle as the switch shows it; exactly those systems'
#                                ports bundled (P)
#   status_is N TEXT, distributing N COUNT, guest_ping N ADDR COUNT, wait_for SECONDS CMD..
#   fail MSG, ok MSG
# Every wait is bounded; the EXIT trap stops every process started here (by pid) and
# deletes the namespaces, also on failure.
set -u
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root for namespaces"; exit 77; }
command -v corosync >/dev/null || { echo "SKIP: corosync missing"; exit 77; }
BUILD=${BUILD:-build}
IVL_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
case $BUILD in /*) ;; *) BUILD=$IVL_ROOT/$BUILD ;; esac
VSWITCHD=$BUILD/bin/vswitchd
VMCP=$BUILD/bin/vmcp
SWITCHMODEL=$BUILD/tools/switchmodel
for b in "$VSWITCHD" "$VMCP" "$SWITCHMODEL"; do
  [ -x "$b" ] || { echo "FAIL: build first ($b)"; exit 1; }
done
IVL_NSYS=${IVL_NSYS:-3}
IVL_LANS=${IVL_LANS:-1}
IVL_LAN_MAC1=${IVL_LAN_MAC1:-02:00:0b:00:00:64}
IVL_LAN_MAC2=${IVL_LAN_MAC2:-02:00:0b:00:00:65}
IVL_RATE=${IVL_RATE:-}
IVL_SHARED_BY_COMMAND=${IVL_SHARED_BY_COMMAND:-}

# Whether system $1 is given SHARED by the command (not by its SYSTEM CONFIG).
shared_by_command() { case " $IVL_SHARED_BY_COMMAND " in *" $1 "*) return 0 ;; esac; return 1; }

TAG=zivl-$$
NET=$TAG-net PHY=$TAG-phy LAN=$TAG-lan LAN2=$TAG-lan2
W=$(mktemp -d /tmp/zvs-ivl-lab.XXXXXX)
export HOME=$W                          # tshark's profile
NSS=("$NET" "$PHY" "$LAN" "$LAN2")
for n in $(seq "$IVL_NSYS"); do NSS+=("$TAG-s$n" "$TAG-g$n"); done
PIDS=()
SM_PID=

ivl_stop_system() {  # ivl_stop_system N SIGNAL: vswitchd and its corosync
  for f in "$W/s$1/vswitchd.pid" "$W/s$1/corosync.pid"; do
    [ -f "$f" ] && kill "-$2" "$(cat "$f")" 2>/dev/null
  done
  return 0                             # (no wait: called from subshells, it would block)
}

ivl_cleanup() {
  local status=$?
  for n in $(seq "$IVL_NSYS"); do ivl_stop_system "$n" TERM; done
  [ -n "$SM_PID" ] && kill -TERM "$SM_PID" 2>/dev/null
  sleep 0.5
  for n in $(seq "$IVL_NSYS"); do ivl_stop_system "$n" KILL; done
  for p in "${PIDS[@]}" $SM_PID; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  for ns in "${NSS[@]}"; do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
    ip netns del "$ns" 2>/dev/null
  done
  [ -z "${KEEP_WORK:-}" ] && rm -rf "$W"
  exit $status
}
trap ivl_cleanup EXIT
trap 'exit 1' TERM INT

sm() { "$SWITCHMODEL" -C "$W/sm.sock" -x "$*"; }
cp_cmd() { "$VMCP" -k --exit-rc -s "$W/s$1/console.sock" "$2"; }
group_line() { sm "show etherchannel summary" | awk '$1 == "1"' | tr -s ' ' | sed 's/ $//'; }

fail() {
  echo "FAIL: $*"
  for n in $(seq "$IVL_NSYS"); do
    echo "--- system $n"; tail -n 15 "$W/s$n/vswitchd.log" 2>/dev/null
  done
  echo "--- switch: $(group_line 2>/dev/null)"
  [ "$BASHPID" != "$$" ] && kill -TERM "$$"
  exit 1
}
ok() { echo "ok: $*"; }
wait_for() {  # wait_for SECONDS CMD...
  local end=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -ge $end ] && return 1
    sleep 0.1
  done
}
bundled() {  # bundled "1 2 3": exactly those systems' ports are in the bundle (P)
  local line want n p
  line=$(group_line)
  for n in $(seq "$IVL_NSYS"); do
    for p in $((2 * n - 1)) $((2 * n)); do
      case " $1 " in *" $n "*) want="P" ;; *) want="[^P]" ;; esac
      echo "$line" | grep -Eq "Gi2/$p\($want\)" || return 1
    done
  done
}
status_is() { cp_cmd "$1" "QUERY PORT GROUP GG" | grep -q "Status: $2"; }
distributing() { cp_cmd "$1" "QUERY PORT GROUP GG" | grep -Eq "Members: [0-9]+  Distributing: $2\$"; }
guest_ping() {  # guest_ping N ADDRESS COUNT: no loss and no duplicate
  local out=$W/ping-$1-$2
  ip netns exec "$TAG-g$1" ping -c "$3" -i 0.2 -W 2 "$2" >"$out" 2>&1 || return 1
  ! grep -q "DUP!" "$out"
}

ivl_lab_init() {
  local n x p dev k ns mac
  for ns in "${NSS[@]}"; do
    ip netns add "$ns" || fail "ip netns add $ns"
    ip -n "$ns" link set lo up
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  done
  ip -n "$NET" link add br0 mtu 1600 type bridge && ip -n "$NET" link set br0 up || fail "bridge"
  for k in $(seq "$IVL_LANS"); do
    ns=$LAN; mac=$IVL_LAN_MAC1
    [ "$k" = 2 ] && ns=$LAN2 mac=$IVL_LAN_MAC2
    ip -n "$PHY" link add sw-srv$k type veth peer name eth0 netns "$ns" || fail "veth LAN $k"
    ip -n "$PHY" link set sw-srv$k up
    ip -n "$ns" link set eth0 address "$mac" up
    ip -n "$ns" addr add 10.89.0.$((99 + k))/24 dev eth0
  done
  head -c 256 /dev/urandom > "$W/authkey" && chmod 400 "$W/authkey"
  {
    echo "hostname LABIVL"
    echo "lacp system-priority 32768"
    echo "port-channel load-balance src-dst-mac"
    for n in $(seq "$IVL_NSYS"); do
      for x in a b; do
        p=$((2 * n - 1)); [ $x = b ] && p=$((2 * n))
        printf 'interface GigabitEthernet2/%s\n attach sw-s%s%s\n channel-protocol lacp\n' "$p" "$n" "$x"
        printf ' channel-group 1 mode active\n lacp rate fast\n'
        [ -n "$IVL_RATE" ] && printf ' rate-limit %s\n' "$IVL_RATE"
        echo "!"
      done
    done
    printf 'interface Port-channel1\n switchport mode trunk\n no shutdown\n!\n'
    for k in $(seq "$IVL_LANS"); do
      printf 'interface GigabitEthernet3/%s\n attach sw-srv%s\n switchport access vlan 1\n!\n' "$k" "$k"
    done
    echo end
  } > "$W/sw.conf"
  for n in $(seq "$IVL_NSYS"); do
    local S=$TAG-s$n
    mkdir -p "$W/s$n/state"
    for x in a b; do
      dev=osa1; [ $x = b ] && dev=osa2
      ip -n "$S" link add "$dev" type veth peer name "sw-s$n$x" netns "$PHY" || fail "veth $n$x"
      ip -n "$S" link set "$dev" up
      ip -n "$PHY" link set "sw-s$n$x" up
    done
    ip link add ivl0 netns "$S" mtu 1600 type veth peer name p$n netns "$NET" mtu 1600 ||
      fail "ivl $n"
    ip -n "$NET" link set p$n master br0 up
    ip -n "$S" addr add 10.88.0.$n/24 dev ivl0
    ip -n "$S" link set ivl0 up
    {
      echo "SYSTEM_IDENTIFIER_DEFAULT SYS$n"
      echo "VMLAN MACPREFIX 0200A$n"
      echo "DEFINE VSWITCH IVLVSW TYPE IVL RDEV E00"
      echo "DEFINE VSWITCH GLOBSW TYPE QDIO GLOBAL GROUP GG"
      if shared_by_command $n; then
        echo "SET PORT GROUP GG JOIN 28BA 2902 LACP ACTIVE"
      else
        echo "SET PORT GROUP GG JOIN 28BA 2902 LACP ACTIVE SHARED"
      fi
      echo "MODIFY VSWITCH GLOBSW GRANT LNX$n"
      echo "RDEVICE E00 INTERFACE ivl0"
      echo "RDEVICE 28BA INTERFACE osa1"
      echo "RDEVICE 2902 INTERFACE osa2"
      for k in $(seq "$IVL_NSYS"); do echo "IVL MEMBER SYS$k INDEX $k ADDRESS 10.88.0.$k"; done
      echo "IVL HEARTBEAT TIMEOUT 1"
    } > "$W/s$n/SYSTEM.CONFIG"
    cat > "$W/s$n/USER.DIRECT" <<DIR
USER OPERATOR LBYONLY 64M 64M ABCDEFG
USER LNX$n LBYONLY 1G 2G G
  NICDEF F000 TYPE QDIO LAN SYSTEM GLOBSW MACID 000101
  NICBIND F000 TAP lnx$n-f000
DIR
    "$VSWITCHD" -c "$W/s$n/SYSTEM.CONFIG" -u "$W/s$n/USER.DIRECT" \
      --write-corosync "$W/s$n/corosync.conf" --corosync-key "$W/authkey" \
      --corosync-state "$W/s$n/state" || fail "vswitchd --write-corosync on system $n"
  done
  ip netns exec "$PHY" "$SWITCHMODEL" -c "$W/sw.conf" -C "$W/sm.sock" -l "$W/sm.log" \
    >"$W/sm.out" 2>&1 &
  SM_PID=$!
  wait_for 10 test -S "$W/sm.sock" || fail "switch model did not start: $(tail -n 5 "$W/sm.out")"
}

ivl_start_system() {
  local n=$1
  rm -f "$W/s$n/console.sock" "$W/s$n/corosync.go"
  # /run/netns is kept visible under the new /run: a vswitchd restarted after a crash finds
  # its tap in the guest's namespace by it (README.md, "Restart after a crash").
  mkdir -p "$W/s$n/netns"
  ip netns exec "$TAG-s$n" unshare -m --propagation private bash -c '
    mount --rbind /run/netns "$1/netns" && mount -t tmpfs tmpfs /run &&
      mkdir /run/netns && mount --move "$1/netns" /run/netns &&
      mount -t tmpfs tmpfs /dev/shm || exit 1
    if [ "$3" = late ]; then            # started when the test creates corosync.go
      ( for _ in $(seq 300); do [ -e "$1/corosync.go" ] && break; sleep 0.1; done
        exec corosync -f -c "$1/corosync.conf" > "$1/corosync.log" 2>&1 ) &
      echo $! > "$1/corosync.pid"
    else
      corosync -f -c "$1/corosync.conf" > "$1/corosync.log" 2>&1 &
      echo $! > "$1/corosync.pid"
      for _ in $(seq 50); do corosync-cmapctl totem.token >/dev/null 2>&1 && break; sleep 0.1; done
    fi
    echo $$ > "$1/vswitchd.pid"
    # --hercules after --corosync-conf: its parsing once freed the corosync.conf path (the
    # check at the join then read freed memory and reported the file as unreadable).
    exec "$2" -f -c "$1/SYSTEM.CONFIG" -u "$1/USER.DIRECT" -k "$1/console.sock" \
      -s "$1/stats" --corosync-conf "$1/corosync.conf" --hercules hercules -l debug \
      >> "$1/vswitchd.log" 2>&1
    ' _ "$W/s$n" "$VSWITCHD" "${2:-}" &
  PIDS+=($!)
  disown $!                             # a SIGKILL the test sends is no news on stderr
  wait_for 10 test -S "$W/s$n/console.sock" || fail "system $n's vswitchd did not start"
  # The console opens before the NICs are made: the tap may come a moment later (a slow
  # start, a sanitizer build on a busy machine). A restart's tap is still in the guest.
  wait_for 10 bash -c "ip -n '$TAG-s$n' link show 'lnx$n-f000' || ip -n '$TAG-g$n' link show 'lnx$n-f000'" \
    >/dev/null 2>&1 || fail "system $n: vswitchd made no tap lnx$n-f000"
  if ip -n "$TAG-s$n" link show "lnx$n-f000" >/dev/null 2>&1; then
    ip -n "$TAG-s$n" link set "lnx$n-f000" netns "$TAG-g$n" || fail "move tap $n"
    ip -n "$TAG-g$n" addr add 10.89.0.$n/24 dev "lnx$n-f000"
  fi
  wait_for 5 ip -n "$TAG-g$n" link show "lnx$n-f000" || fail "system $n: no tap in its guest"
  ip -n "$TAG-g$n" link set "lnx$n-f000" up
  if shared_by_command $n; then
    cp_cmd "$n" "SET PORT GROUP GG LACP ACTIVE SHARED" >/dev/null || fail "system $n: SHARED refused"
  fi
}
