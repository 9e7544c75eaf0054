#!/usr/bin/env bash
# bench_cp: what a CP command costs on a running vswitchd with many guests (run by
# tests/bench/run.sh; prints its protocol's BENCH lines).
#
# vswitchd runs a NOUPLINK VSWITCH with NICS guests (default 512), each NIC coupled and
# driven over the QDIO attach socket (no taps, no namespaces). vmcp sends each batch of
# commands over one console connection, one command after the other's response:
#   BENCH cp_query_us <us> us           QUERY VMLAN: parse and a short response
#   BENCH cp_config_us <us> us <query> <ratio>   SET VSWITCH ISOLATION ON/OFF: a
#                                       configuration command, so a copy of the running
#                                       configuration, the apply and a reconciler pass over
#                                       every switch and NIC; the ratio is query/config
#                                       (what the copy-and-reconcile design costs on top)
#   BENCH cp_couple_us <us> us          UNCOUPLE and COUPLE of one NIC (its QDIO queues
#                                       made and freed), per command
#   BENCH cp_query_details_ms <ms> ms   QUERY VSWITCH DETAILS of the switch with NICS
#                                       adapters (the largest response)
# No target: the issue names none. Needs nothing but the built programs; ~10 s.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
NICS=${NICS:-512}
N=${CP_COMMANDS:-1000}
WORK=$(mktemp -d /tmp/zvs-bench-cp.XXXXXX)
PID=
cleanup() {
  [ -n "$PID" ] && { kill -TERM "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; }
  rm -rf "$WORK"
}
trap cleanup EXIT

{
  echo "VMLAN MACPREFIX 02000C"
  echo "DEFINE VSWITCH BENCHSW NOUPLINK QUEUESTORAGE 1M"
  for i in $(seq 1 "$NICS"); do printf 'MODIFY VSWITCH BENCHSW GRANT U%04d\n' "$i"; done
} >"$WORK/SYSTEM.CONFIG"
{
  echo "USER OPERATOR X 64M 64M ABCDEFG"
  for i in $(seq 1 "$NICS"); do
    printf 'USER U%04d X 1G 1G G\n  NICDEF F000 TYPE QDIO LAN SYSTEM BENCHSW\n  NICBIND F000 QDIO\n' "$i"
  done
} >"$WORK/USER.DIRECT"
"$BUILD/bin/vswitchd" -f -c "$WORK/SYSTEM.CONFIG" -u "$WORK/USER.DIRECT" -l warn \
  -k "$WORK/console.sock" -q "$WORK/qdio.sock" >"$WORK/vswitchd.log" 2>&1 &
PID=$!
for _ in $(seq 100); do [ -S "$WORK/console.sock" ] && break; sleep 0.1; done
[ -S "$WORK/console.sock" ] || { cat "$WORK/vswitchd.log"; echo "vswitchd did not start"; exit 1; }
VMCP="$BUILD/bin/vmcp -s $WORK/console.sock"
coupled=$($VMCP QUERY VMLAN | awk '/NICs:/ {print $4}')
[ "$coupled" = "$NICS" ] || { echo "only $coupled of $NICS NICs coupled"; exit 1; }

# batch FILE: seconds for vmcp to run every line of FILE (one connection).
batch() {
  local t0 t1
  t0=$(date +%s.%N)
  $VMCP <"$1" >"$WORK/out" 2>&1 || { tail -3 "$WORK/out"; echo "batch $1 failed"; exit 1; }
  t1=$(date +%s.%N)
  grep -Eq '^(HCP|ZVS)[A-Z]{3}[0-9]' "$WORK/out" && { grep -m3 -E '^(HCP|ZVS)[A-Z]{3}[0-9]' "$WORK/out"; echo "a command was refused"; exit 1; }
  echo "$t0 $t1" | awk '{ printf "%.6f", $2 - $1 }'
}
for i in $(seq 1 "$N"); do echo "QUERY VMLAN"; done >"$WORK/query"
for i in $(seq 1 "$N"); do
  if [ $((i % 2)) = 1 ]; then echo "SET VSWITCH BENCHSW ISOLATION ON"; else echo "SET VSWITCH BENCHSW ISOLATION OFF"; fi
done >"$WORK/config"
for i in $(seq 1 $((N / 2))); do
  echo "UNCOUPLE USERID U0001 F000"; echo "COUPLE USERID U0001 F000 TO SYSTEM BENCHSW"
done >"$WORK/couple"
for i in $(seq 1 20); do echo "QUERY VSWITCH BENCHSW DETAILS"; done >"$WORK/details"

batch "$WORK/query" >/dev/null                  # warm-up: page in, connect paths
tq=$(batch "$WORK/query")
tc=$(batch "$WORK/config")
tu=$(batch "$WORK/couple")
td=$(batch "$WORK/details")
q_us=$(awk -v t="$tq" -v n="$N" 'BEGIN { printf "%.1f", t / n * 1e6 }')
c_us=$(awk -v t="$tc" -v n="$N" 'BEGIN { printf "%.1f", t / n * 1e6 }')
u_us=$(awk -v t="$tu" -v n="$N" 'BEGIN { printf "%.1f", t / n * 1e6 }')
d_ms=$(awk -v t="$td" 'BEGIN { printf "%.2f", t / 20 * 1e3 }')
echo "$N commands per batch, $NICS coupled NICs"
echo "BENCH cp_query_us $q_us us"
echo "BENCH cp_config_us $c_us us cp_query $q_us $(awk -v a="$q_us" -v b="$c_us" 'BEGIN { printf "%.3f", a / b }')"
echo "BENCH cp_couple_us $u_us us"
echo "BENCH cp_query_details_ms $d_ms ms"
kill -TERM "$PID"; wait "$PID"; rc=$?; PID=
[ $rc -eq 0 ] || { tail -5 "$WORK/vswitchd.log"; echo "vswitchd exited $rc"; exit 1; }
