#!/usr/bin/env bash
# mktrailer.sh RAW OUT: sets the image's check word (its last 4 bytes) so that the
# big-endian 32-bit words from 0x200 to the end sum to zero modulo 2^32; the program
# checks this at start and stops with wait code 0BAD on a truncated or damaged image.
# The sum is printed with %.0f: mawk's %d stops at 2^31 - 1, which made a wrong check
# word for every image whose sum passed it.
set -euo pipefail
raw=$1 out=$2
size=$(stat -c %s "$raw")
[ $((size % 8)) -eq 0 ] && [ "$size" -gt 520 ] || { echo "mktrailer: bad image size $size" >&2; exit 1; }
sum=$(od -An -v -tu4 --endian=big -j 512 -N $((size - 512 - 4)) "$raw" |
      awk '{ for (i = 1; i <= NF; i++) s = (s + $i) % 4294967296 } END { printf "%.0f", s }')
check=$(( (4294967296 - sum) % 4294967296 ))
tmp=$out.tmp
head -c $((size - 4)) "$raw" > "$tmp"
printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((check >> 24 & 255)) $((check >> 16 & 255)) \
  $((check >> 8 & 255)) $((check & 255)))" >> "$tmp"
mv "$tmp" "$out"
