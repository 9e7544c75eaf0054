#!/usr/bin/env bash
# bench_lcs: the deterministic companion of bench_hercules.sh (issue 23): what vswitchd
# spends per frame on a Hercules machine's LCS path, counted rather than timed, so that it
# means the same on a loaded machine.
#
#   BUILD=build tests/bench/bench_lcs.sh      (run by tests/bench/run.sh, `make bench`)
#
# $BUILD/bench/bench_lcs (bench_lcs.c) replays a recorded capture through the LCS backend
# (the packet socket vswitchd makes on the machine's tap, here a veth in the program's own
# namespace, and its guest_tap driver) and the switch: the frame program's UDP to the LAN
# host's port 9 as it left a Hercules machine's LCS tap, 64 and 1514 bytes
# (data/lcs_frameprog_<size>.pcap, recorded by record_lcs_capture.sh), cycled through for
# BENCH_FRAMES frames (default 20000), guest -> switch (out) and, addresses swapped,
# switch -> guest (in):
#   instructions  valgrind --tool=callgrind --instr-atstart=no: the program's own
#                 instructions per frame between its CALLGRIND_START and _STOP (the driver's
#                 pump, the switch's poll, the uplink ring; the kernel's side of the system
#                 calls is not counted, hence the next figure)
#   system calls  strace -c: the socket calls on the LCS socket per frame (recvmmsg,
#                 sendmmsg; readv, writev; getsockopt: the SO_ERROR the driver takes when
#                 its receive ring woke it empty)
# Output (tests/bench/run.sh's line protocol):
#   BENCH lcs_instr_per_frame_<out|in>_<64|1514> <n> instr/frame
#   BENCH lcs_syscalls_per_frame_<out|in>_<64|1514> <n> calls/frame
# or NOTRUN lines when valgrind or strace is missing. Exit: 0 measured (or not run for a
# missing tool), 77 not root (the last line says why), 1 a run failed.
set -u
BUILD=${BUILD:-build}
FRAMES=${BENCH_FRAMES:-20000}
BIN=$BUILD/bench/bench_lcs
DATA=$(dirname "$0")/data
[ "$(id -u)" -eq 0 ] || { echo "bench_lcs: needs root for a network namespace"; exit 77; }
[ -x "$BIN" ] || { echo "bench_lcs: not built ($BIN)"; exit 1; }
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT
status=0
for dir in out in; do
  for size in 64 1514; do
    key=${dir}_${size}
    cap=$DATA/lcs_frameprog_$size.pcap
    if command -v valgrind >/dev/null; then
      if valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$TMP/cg.out" \
           "$BIN" --dir "$dir" --pcap "$cap" --frames "$FRAMES" >"$TMP/cg.log" 2>&1 &&
         grep -q '^BENCH_CALLGRIND_MACROS 1$' "$TMP/cg.log"; then
        ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$TMP/cg.log")
        awk -v ir="$ir" -v n="$FRAMES" -v k="$key" \
          'BEGIN { printf "BENCH lcs_instr_per_frame_%s %.1f instr/frame\n", k, ir / n }'
      else
        echo "# callgrind run $key failed:"; sed 's/^/# /' "$TMP/cg.log" | tail -n 5
        status=1
      fi
    else
      echo "NOTRUN lcs_instr_per_frame_$key valgrind is not installed"
    fi
    if command -v strace >/dev/null; then
      if strace -f -c -o "$TMP/st" "$BIN" --dir "$dir" --pcap "$cap" --frames "$FRAMES" \
           >"$TMP/st.log" 2>&1; then
        awk -v n="$FRAMES" -v k="$key" '
          $NF ~ /^(recvmmsg|sendmmsg|readv|writev|getsockopt)$/ { c += $4 }
          END { printf "BENCH lcs_syscalls_per_frame_%s %.4f calls/frame\n", k, c / n }' "$TMP/st"
      else
        echo "# strace run $key failed:"; sed 's/^/# /' "$TMP/st.log" | tail -n 5
        status=1
      fi
    else
      echo "NOTRUN lcs_syscalls_per_frame_$key strace is not installed"
    fi
  done
done
exit $status
