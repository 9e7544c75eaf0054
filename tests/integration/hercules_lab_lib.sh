# Shared by the labs of Hercules machines on the VSWITCH (hercules_vswitch.sh: the frame
# program; hercules_linux_vswitch.sh: the Debian s390x Linux guest). Source it after
# setting nothing; it sources lacp_lab_lib.sh (lib.sh's port-group lab).
#
#   herc_lab_init NAME          lab_init NAME (exits 77 without root), then hercules,
#                               python3 and `make guests` required (a failure, never a
#                               skip: make deps installs them); the EXIT trap kills every
#                               Hercules vswitchd started (by PID) before lab_cleanup
#   herc_lab_start SYSCONFIG USERDIRECT
#                               the switch model (lab6509.conf without rate limits), the
#                               port group 28BA+2902 to it, vswitchd with its machine
#                               options (--guest-images $BUILD/guests, --guest-dir
#                               $WORK/guests, -k console, HERC_ARGS: more), the group up
#                               (20 s at most), static ARP between LAB_TAPS and the LAN
#   herc_lab_configs VSWITCH OPERANDS TAPS MACHINE...
#                               writes $WORK/SYSTEM.CONFIG and $WORK/USER.DIRECT: MACPREFIX
#                               02000C, MACIDRANGE SYSTEM 000001-0000FF USER 000100-FFFFFF,
#                               port group ETHGRP (28BA+2902, LACP ACTIVE, INTERVAL 30),
#                               DEFINE VSWITCH VSWITCH ETHERNET GROUP ETHGRP OPERANDS, a
#                               GRANT for every user below; the tap guests TAPS ("a b":
#                               LNXA MACID 000101, LNXB 00010A, NIC F000 on tap lnxX-f000,
#                               LAB_TAPS' names), then each MACHINE, "USERID STORAGE IP IPL..."
#                               (IPL: the rest, "FRAMEPROG" or "INS /path/x.ins"): IPL,
#                               GUESTIP IP/24, NIC 0600 bound to its LCS device 0600
#   herc_pids                   the PIDs of every Hercules vswitchd started (its log)
#   expect_resp WHAT CMD RE     the CP response to CMD matches RE (grep -E)
#   nic_counters USER; nic_field USER FIELD   QUERY NIC DETAILS' counters of USER's NIC
. "$(dirname "${BASH_SOURCE[0]}")/lacp_lab_lib.sh"

herc_pids() {
  sed -n 's/.*XAUTOLOG \([A-Z0-9]*\) by .*Hercules pid \([0-9]*\),.*/\2/p' "$WORK/vswitchd.log"
}

herc_cleanup() {
  local s=$? p
  if [ -f "$WORK/vswitchd.log" ]; then
    for p in $(herc_pids); do kill -KILL "$p" 2>/dev/null; done
  fi
  (exit $s)
  lab_cleanup
}

herc_lab_init() {
  lab_init "$1"
  trap herc_cleanup EXIT
  command -v hercules >/dev/null || fail "no hercules (run make deps)"
  command -v python3 >/dev/null || fail "no python3 (run make deps)"
  make -s -C "$ROOT" BUILD="$BUILD" guests >/dev/null || fail "make guests failed"
}

declare -A HERC_TAP_MACID=([a]=000101 [b]=00010A)

herc_lab_configs() {
  local vsw=$1 operands=$2 taps=$3 t m user stor ip ipl
  shift 3
  {
    for t in $taps; do
      printf 'USER LNX%s LBYONLY 1G 2G G\n' "${t^^}"
      printf '  NICDEF F000 TYPE QDIO LAN SYSTEM %s MACID %s\n' "$vsw" "${HERC_TAP_MACID[$t]}"
      printf '  NICBIND F000 TAP lnx%s-f000\n' "$t"
    done
    for m in "$@"; do
      read -r user stor ip ipl <<<"$m"
      printf 'USER %s PW %s %s G\n  IPL %s\n  GUESTIP %s/24\n' "$user" "$stor" "$stor" "$ipl" "$ip"
      printf '  NICDEF 0600 TYPE QDIO LAN SYSTEM %s\n  NICBIND 0600 LCS 0600\n' "$vsw"
    done
  } >"$WORK/USER.DIRECT"
  {
    echo "VMLAN MACPREFIX 02000C"
    echo "VMLAN MACIDRANGE SYSTEM 000001-0000FF USER 000100-FFFFFF"
    echo "SET PORT GROUP ETHGRP JOIN 28BA 2902 LACP ACTIVE INTERVAL 30"
    echo "DEFINE VSWITCH $vsw ETHERNET GROUP ETHGRP${operands:+ $operands}"
    sed -n "s/^USER \([^ ]*\) .*/MODIFY VSWITCH $vsw GRANT \1/p" "$WORK/USER.DIRECT"
    echo "RDEVICE 28BA INTERFACE osa28ba"
    echo "RDEVICE 2902 INTERFACE osa2902"
  } >"$WORK/SYSTEM.CONFIG"
}

herc_lab_start() {
  sed '/rate-limit/d' "$ROOT/configs/switchmodel/lab6509.conf" >"$WORK/sm.conf"
  VSWITCHD_ARGS="-k $WORK/console.sock --guest-images $BUILD/guests --guest-dir $WORK/guests ${HERC_ARGS:-}" \
    lab_group_start "$WORK/sm.conf" "$1" "$2"
  wait_for 20 distributing_is 2 || fail "port group not up"
  lab_static_arp
}

expect_resp() {
  local out
  out=$(vmcp "$2" 2>&1)
  echo "$out" | grep -qE "$3" || fail "$1: '$2' answered '$out', want /$3/"
  echo "ok: $1: $(echo "$out" | head -1)"
}

# The counter lines of QUERY NIC DETAILS (the same as the counters report).
nic_counters() { vmcp "QUERY NIC USERID $1 DETAILS" >"$WORK/nic.$1"; }
nic_field() {
  awk -v f="$2" '
    /RX Packets:/ { v["rx_packets"]=$3; v["rx_discards"]=$5 }
    /TX Packets:/ { v["tx_packets"]=$3; v["tx_discards"]=$5 }
    /RX Bytes:/   { v["rx_bytes"]=$3; v["tx_bytes"]=$6 }
    /LCS to guest:/ { v["lcs_tx"]=$4; v["lcs_down"]=$7; v["lcs_full"]=$10 }
    /LCS from guest:/ { v["lcs_rx"]=$4; v["lcs_rderr"]=$8; v["lcs_qfull"]=$11; v["lcs_kdrop"]=$14 }
    END { print (f in v) ? v[f] : "missing" }' "$WORK/nic.$1"
}
