# cp_guests_lib.sh: a vswitchd with many coupled guests for the CP benchmarks (sourced by
# bench_cp.sh and bench_scale.sh; needs nothing but the built programs, no root).
#
# vswitchd runs a NOUPLINK VSWITCH BENCHSW with N guests U0001..UNNNN, each NIC coupled
# over the QDIO attach socket (no taps, no namespaces). The caller sets BUILD (absolute)
# and WORK (a directory of its own) and calls cp_guests_stop on exit.
#   cp_guests_start N     write the configuration for N guests, start vswitchd, wait until
#                         every NIC is coupled (sets CP_PID and VMCP)
#   cp_guests_stop        SIGTERM vswitchd; fails unless it exits 0
#   cp_batch FILE         seconds for vmcp to run every line of FILE over one connection;
#                         fails if a command is refused
#   cp_rss_kb             vswitchd's resident memory now (VmRSS, kB)
CP_PID=
VMCP=

cp_guests_start() {  # N
  local n=$1 i coupled
  {
    echo "VMLAN MACPREFIX 02000C"
    echo "DEFINE VSWITCH BENCHSW NOUPLINK QUEUESTORAGE 1M"
    for i in $(seq 1 "$n"); do printf 'MODIFY VSWITCH BENCHSW GRANT U%04d\n' "$i"; done
  } >"$WORK/SYSTEM.CONFIG"
  {
    echo "USER OPERATOR X 64M 64M ABCDEFG"
    for i in $(seq 1 "$n"); do
      printf 'USER U%04d X 1G 1G G\n  NICDEF F000 TYPE QDIO LAN SYSTEM BENCHSW\n  NICBIND F000 QDIO\n' "$i"
    done
  } >"$WORK/USER.DIRECT"
  rm -f "$WORK/console.sock" "$WORK/qdio.sock"
  "$BUILD/bin/vswitchd" -f -c "$WORK/SYSTEM.CONFIG" -u "$WORK/USER.DIRECT" -l warn \
    -k "$WORK/console.sock" -q "$WORK/qdio.sock" >"$WORK/vswitchd.log" 2>&1 &
  CP_PID=$!
  for _ in $(seq 100); do [ -S "$WORK/console.sock" ] && break; sleep 0.1; done
  [ -S "$WORK/console.sock" ] || { cat "$WORK/vswitchd.log"; echo "vswitchd did not start"; return 1; }
  VMCP="$BUILD/bin/vmcp -s $WORK/console.sock"
  coupled=$($VMCP QUERY VMLAN | awk '/NICs:/ {print $4}')
  [ "$coupled" = "$n" ] || { echo "only $coupled of $n NICs coupled"; return 1; }
}

cp_guests_stop() {
  local rc
  [ -n "$CP_PID" ] || return 0
  kill -TERM "$CP_PID" 2>/dev/null
  wait "$CP_PID"; rc=$?
  CP_PID=
  [ $rc -eq 0 ] || { tail -5 "$WORK/vswitchd.log"; echo "vswitchd exited $rc"; return 1; }
}

cp_batch() {  # FILE
  local t0 t1
  t0=$(date +%s.%N)
  $VMCP <"$1" >"$WORK/out" 2>&1 || { tail -3 "$WORK/out"; echo "batch $1 failed"; return 1; }
  t1=$(date +%s.%N)
  if grep -Eq '^(HCP|ZVS)[A-Z]{3}[0-9]' "$WORK/out"; then
    grep -m3 -E '^(HCP|ZVS)[A-Z]{3}[0-9]' "$WORK/out"; echo "a command was refused"; return 1
  fi
  echo "$t0 $t1" | awk '{ printf "%.6f", $2 - $1 }'
}

cp_rss_kb() {
  awk '/^VmRSS:/ { print $2 }' "/proc/$CP_PID/status"
}
