# Shared by the labs of a guest image under bare Hercules, without vswitchd
# (hercules_frameprog.sh, hercules_linux.sh), and by bench/bench_hercules.sh for its bridge
# machine: Hercules' LCS tap (tap0) in a Linux bridge whose veth leads to a LAN namespace.
# Source it after lib.sh.
#
#   bare_lab_init TAG CLEANUP   exits 77 without root; hercules, python3 and `make guests`
#                               required (a failure, never a skip: make deps installs them);
#                               WORK a new /tmp/zvs-TAG.XXXXXX; CLEANUP (the lab's function)
#                               the EXIT trap, INT and TERM exit 1; namespaces NS_H (Hercules)
#                               and NS_LAN, zvs-TAG-$$-{h,lan}, in LAB_NS, lo up, IPv6 off;
#                               the bridge: bare_bridge NS_H vh eth0 LAN_IP/24
#   bare_bridge NS VETH LANDEV ADDR
#                               br0 in NS; the veth VETH in br0, its peer LANDEV in NS_LAN
#                               with ADDR; all up
#   bare_tap_to_bridge [TAPMAC] Hercules' tap0 in NS_H (10 s at most), its MAC set (Hercules 3.13 sets -m late), into br0
# CLEANUP ends as hercules_lab_lib.sh's herc_cleanup does, with `(exit $status); lab_cleanup`:
# lib.sh's lab_cleanup kills what runs in LAB_NS, deletes them, removes WORK (kept with
# KEEP_WORK=1) and exits with that status (no vswitchd or switch model here to stop).

bare_lab_init() {
  local tag=$1 ns
  [ "$(id -u)" -eq 0 ] || skip "needs root for network namespaces"
  command -v hercules >/dev/null || fail "no hercules (run make deps)"
  command -v python3 >/dev/null || fail "no python3 (run make deps)"
  make -s -C "$ROOT" BUILD="$BUILD" guests >/dev/null || fail "make guests failed"
  NS_H=zvs-$tag-$$-h NS_LAN=zvs-$tag-$$-lan
  LAB_NS=()
  WORK=$(mktemp -d "/tmp/zvs-$tag.XXXXXX")
  trap "$2" EXIT
  trap 'exit 1' INT TERM
  for ns in "$NS_H" "$NS_LAN"; do
    ip netns add "$ns" || fail "ip netns add $ns"
    LAB_NS+=("$ns")
    ip -n "$ns" link set lo up
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  done
  bare_bridge "$NS_H" vh eth0 "$LAN_IP/24"
}

bare_bridge() {
  local ns=$1 veth=$2 landev=$3 addr=$4
  ip -n "$ns" link add br0 type bridge || fail "bridge"
  ip -n "$ns" link add "$veth" type veth peer name "$landev" netns "$NS_LAN" || fail "veth"
  ip -n "$ns" link set "$veth" master br0
  ip -n "$ns" link set "$veth" up
  ip -n "$ns" link set br0 up
  ip -n "$NS_LAN" link set "$landev" up
  ip -n "$NS_LAN" addr add "$addr" dev "$landev"
}

bare_tap_to_bridge() {  # bare_tap_to_bridge [TAPMAC]
  # Watched every 10 ms: with TAPMAC the tap gets its MAC here at once, as vswitchd does,
  # because Hercules 3.13 sets -m through hercifc without waiting for it, and a guest whose
  # LANSTAT comes first (STARTLAN's 250 ms pause, less on a loaded machine) takes the
  # kernel's random MAC + 1.
  local end=$((SECONDS + 10))
  until ip -n "$NS_H" link show tap0 >/dev/null 2>&1; do
    [ $SECONDS -lt $end ] || fail "Hercules opened no tap in 10 s"
    sleep 0.01
  done
  [ -z "${1:-}" ] || ip -n "$NS_H" link set tap0 address "$1" || fail "tap0's MAC"
  ip -n "$NS_H" link set tap0 master br0 || fail "tap0 into the bridge"
}
