#!/usr/bin/env bash
# mkparams.sh: writes the frame program's parameter block (version 1, 64 bytes; the
# layout is in guests/README.md) for one guest.
#
#   mkparams.sh -i IP [-n NETMASK] [-e ECHO_PORT] [-c CTL_PORT] [-m respond|reflect|generate]
#               [-d DEVNO] [-g IP:PORT:SIZE:RATE:COUNT] -o FILE
set -euo pipefail
usage() { sed -n 4,5p "$0" >&2; exit 2; }
ip= mask=0.0.0.0 echo_port=7 ctl_port=7001 mode=respond devno=0 gen=0.0.0.0:0:0:0:0 out=
while getopts i:n:e:c:m:d:g:o: opt; do
  case $opt in
    i) ip=$OPTARG ;; n) mask=$OPTARG ;; e) echo_port=$OPTARG ;; c) ctl_port=$OPTARG ;;
    m) mode=$OPTARG ;; d) devno=$OPTARG ;; g) gen=$OPTARG ;; o) out=$OPTARG ;; *) usage ;;
  esac
done
[ -n "$ip" ] && [ -n "$out" ] || usage
case $mode in respond) m=0 ;; reflect) m=1 ;; generate) m=2 ;; *) usage ;; esac
ip4() {  # dotted quad -> 8 hex digits
  local IFS=. a b c d
  read -r a b c d <<<"$1"
  for o in "$a" "$b" "$c" "$d"; do
    [[ $o =~ ^[0-9]+$ ]] && [ "$o" -le 255 ] || { echo "mkparams: bad address $1" >&2; exit 2; }
  done
  printf '%02x%02x%02x%02x' "$a" "$b" "$c" "$d"
}
IFS=: read -r gip gport gsize grate gcount <<<"$gen"
hex=5a565042                              # magic "ZVPB"
hex+=$(printf '%04x%04x' 1 64)            # version, length
hex+=$(ip4 "$ip")$(ip4 "$mask")
hex+=$(printf '%04x%04x%04x%04x' "$echo_port" "$ctl_port" "$m" "$((16#${devno#0x}))")
hex+=$(ip4 "$gip")$(printf '%04x%04x%08x%08x' "$gport" "$gsize" "$grate" "$gcount")
hex+=$(printf '%048d' 0)                  # reserved
[ ${#hex} -eq 128 ] || { echo "mkparams: a value is out of range" >&2; exit 2; }
esc=
for ((i = 0; i < 128; i += 2)); do esc+="\\x${hex:i:2}"; done
printf "$esc" > "$out"
