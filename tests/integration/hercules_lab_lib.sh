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
