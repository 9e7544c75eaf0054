#!/usr/bin/env bash
# make demo-compare: runs `make demo` and compares its transcript, masked by mask.sed, with
# transcript.txt, the masked transcript of the code before the house was restructured. A
# restructuring that changes nothing an operator sees leaves no difference; any line that
# differs is printed (diff -u) and the exit status is 1. The raw transcript is kept in
# $BUILD/demo/transcript.raw for a look at what was masked.
#   tests/golden/demo/compare.sh            (BUILD: the build folder, default build)
set -euo pipefail
cd "$(dirname "$0")/../../.."
BUILD=${BUILD:-build}
mkdir -p "$BUILD/demo"
raw=$BUILD/demo/transcript.raw
rc=0
make --no-print-directory BUILD="$BUILD" demo >"$raw" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { tail -n 20 "$raw"; echo "demo-compare: make demo failed (exit $rc)"; exit 1; }
if sed -E -f tests/golden/demo/mask.sed "$raw" | diff -u tests/golden/demo/transcript.txt -; then
  echo "demo-compare: the masked transcript equals tests/golden/demo/transcript.txt"
else
  echo "demo-compare: the masked transcript differs (above; raw: $raw)"
  exit 1
fi
