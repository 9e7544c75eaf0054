#!/usr/bin/env bash
# bench_cp: what a CP command costs on a running vswitchd with many guests (run by
# tests/bench/run.sh; prints its protocol's BENCH lines).
#
# vswitchd runs a NOUPLINK VSWITCH with NICS guests (default 512), each NIC coupled over
# the QDIO attach socket (cp_guests_lib.sh: no taps, no namespaces). vmcp sends each batch of
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
. "$HERE/cp_guests_lib.sh"
cleanup() {
  cp_guests_stop >/dev/null 2>&1
  rm -rf "$WORK"
}
trap cleanup EXIT

cp_guests_start "$NICS" || exit 1
for i in $(seq 1 "$N"); do echo "QUERY VMLAN"; done >"$WORK/query"
for i in $(seq 1 "$N"); do
  if [ $((i % 2)) = 1 ]; then echo "SET VSWITCH BENCHSW ISOLATION ON"; else echo "SET VSWITCH BENCHSW ISOLATION OFF"; fi
done >"$WORK/config"
for i in $(seq 1 $((N / 2))); do
  echo "UNCOUPLE USERID U0001 F000"; echo "COUPLE USERID U0001 F000 TO SYSTEM BENCHSW"
done >"$WORK/couple"
for i in $(seq 1 20); do echo "QUERY VSWITCH BENCHSW DETAILS"; done >"$WORK/details"

cp_batch "$WORK/query" >/dev/null || exit 1     # warm-up: page in, connect paths
tq=$(cp_batch "$WORK/query") || { echo "$tq"; exit 1; }
tc=$(cp_batch "$WORK/config") || { echo "$tc"; exit 1; }
tu=$(cp_batch "$WORK/couple") || { echo "$tu"; exit 1; }
td=$(cp_batch "$WORK/details") || { echo "$td"; exit 1; }
q_us=$(awk -v t="$tq" -v n="$N" 'BEGIN { printf "%.1f", t / n * 1e6 }')
c_us=$(awk -v t="$tc" -v n="$N" 'BEGIN { printf "%.1f", t / n * 1e6 }')
u_us=$(awk -v t="$tu" -v n="$N" 'BEGIN { printf "%.1f", t / n * 1e6 }')
d_ms=$(awk -v t="$td" 'BEGIN { printf "%.2f", t / 20 * 1e3 }')
echo "$N commands per batch, $NICS coupled NICs"
echo "BENCH cp_query_us $q_us us"
echo "BENCH cp_config_us $c_us us cp_query $q_us $(awk -v a="$q_us" -v b="$c_us" 'BEGIN { printf "%.3f", a / b }')"
echo "BENCH cp_couple_us $u_us us"
echo "BENCH cp_query_details_ms $d_ms ms"
cp_guests_stop || exit 1
