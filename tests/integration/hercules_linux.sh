#!/usr/bin/env bash
# check: guests (the image alone, without the switch: make check-guests; make check boots Linux once, in hercules_linux_vswitch.sh)
# The Debian s390x Linux guest (guests/linux) under Hercules, on an LCS tap bridged to a
# LAN namespace (issue 13):
#
#   NS_H:   hercules (z/Arch, 512M, LCS 0600.2) -- tap0 -- br0 -- vh  ===  eth0 :NS_LAN 10.77.0.100
#           the guest's eth0 is 10.77.0.60, its MAC the OAT file's HWADD + 1
#
# The guest's folder is made from build/guests/linux.ins.template as vswitchd makes it.
# Asserts: the guest boots within 150 s of IPL (first kernel message, /init, eth0 up and
# first ping answered are measured against Hercules' log, stamped as it is written) with
# no /init warning; eth0's MAC is the OAT's HWADD + 1 (= zvs.mac), never the tap's; ping
# gets every reply; the control server's STATUS; TCP moves exact byte counts both ways
# (SHA-256 and pattern checked); iperf3 runs (rate reported); RUN runs a command; a
# console line typed through Hercules runs in the guest; SIGNAL SHUTDOWN
# (Hercules' `ssd`, an SCLP signal-quiesce, sent over Hercules' HTTP command interface)
# ends in the guest's clean power-off within 30 s. Everything is cleaned up on any exit;
# the whole test is bounded (330 s). Knobs: HLX_SHUTDOWN=control (the control server's
# SHUTDOWN instead of ssd), HLX_MAINSIZE=MB (512), HLX_XFER_BYTES=N (4 MiB each way),
# KEEP_WORK=1 (keep the folder and Hercules' stamped log).
[ -n "${HLX_TIMED:-}" ] || HLX_TIMED=1 exec timeout -k 10 330 bash "$0" "$@"
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/hercules_bare_lib.sh"

IMG=$BUILD/guests
PEER="python3 $ROOT/tests/integration/linuxguest_peer.py"

IP=10.77.0.60
LAN_IP=10.77.0.100
TAP_MAC=02:00:5e:77:00:10
HWADD=02:00:5e:77:00:60              # the OAT's HWADD: Hercules gives it to the tap ...
GUEST_MAC=02:00:5e:77:00:61          # ... and the guest gets the HWADD + 1 (measured)
CTL=7001
HTTP=8081                            # Hercules' HTTP server: the operator's commands
BOOT_LIMIT=150
XFER=${HLX_XFER_BYTES:-4194304}      # bytes each way over TCP
HERC_PID=
PIDS=()

stop_hercules() {
  [ -n "$HERC_PID" ] || return 0
  kill -KILL "$HERC_PID" 2>/dev/null    # Hercules ignores SIGTERM while a guest runs
  wait "$HERC_PID" 2>/dev/null
  HERC_PID=
}

cleanup() {
  local status=$?
  stop_hercules
  for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; done
  if [ "$status" -ne 0 ] && [ -f "$WORK/herc.log" ]; then
    echo "--- hercules log (tail)"; tail -n 40 "$WORK/herc.log"
  fi
  (exit "$status")
  lab_cleanup
}
bare_lab_init hlx cleanup
for f in linux-kernel.img linux-initrd.img linux-initrd.off linux-initrd.siz linux.ins.template; do
  [ -s "$IMG/$f" ] || fail "no $IMG/$f after make guests"
done

# --- the guest's folder: the image, its command line, the .ins, the Hercules config ------
# Made from linux.ins.template as vswitchd makes it (guests/vm_conf.c): "*ZVS ARCHMODE"
# and "*ZVS PARMLINE" lines taken out, @PARMLINE@ becomes parmline.txt (the PARMLINE text,
# then zvs.ip= zvs.gw= zvs.mac=, NUL-ended), every file named is linked into the folder
# (Hercules opens .ins lines relative to the .ins file's folder and nowhere else).
G=$WORK/lnx60
mkdir -p "$G"
arch=ESA/390 parm=
while IFS= read -r line; do
  case $line in
    "*ZVS ARCHMODE "*) arch=${line#"*ZVS ARCHMODE "}; continue ;;
    "*ZVS PARMLINE "*) parm=${line#"*ZVS PARMLINE "}; continue ;;
    "*"*) echo "$line"; continue ;;
  esac
  read -r file addr <<< "$line"
  if [ "$file" = @PARMLINE@ ]; then
    file=parmline.txt
  else
    ln "$IMG/$file" "$G/$file" 2>/dev/null || cp "$IMG/$file" "$G/$file" || fail "cannot copy $file"
  fi
  echo "$file $addr"
done < "$IMG/linux.ins.template" > "$G/linux.ins"
expect_eq "the template's ARCHMODE" "$arch" "z/Arch"
printf '%s zvs.ip=%s/24 zvs.gw=none zvs.mac=%s zvs.hostname=lnx60 zvs.run=iperf3,httpd\0' "$parm" "$IP" "$GUEST_MAC" > "$G/parmline.txt"
printf '0600 IP 00 PRI %s\nHWADD 00 %s\n' "$IP" "$HWADD" > "$G/lcs.oat"
cat > "$G/hercules.cnf" <<CNF
ARCHMODE $arch
CPUMODEL 2097
MAINSIZE ${HLX_MAINSIZE:-512}
NUMCPU 1
OSTAILOR LINUX
HTTPPORT $HTTP NOAUTH
0009 3215-C /
0600.2 LCS -n /dev/net/tun -m $TAP_MAC -o $G/lcs.oat $IP
CNF
echo "ipl $G/linux.ins" > "$G/hercules.rc"

# Every log line stamped with the wall clock when Hercules writes it.
stamp() { local l; while IFS= read -r l; do printf '%s %s\n' "$EPOCHREALTIME" "$l"; done; }
# at PATTERN: the stamp of the first log line matching PATTERN.
at() { grep -m1 -E -- "$1" "$WORK/herc.log" | cut -d' ' -f1; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
# herc_cmd CMD: a Hercules panel command through its HTTP server; the answer on stdout.
herc_cmd() {
  ip netns exec "$NS_H" python3 -c '
import sys, urllib.parse, urllib.request
url = "http://127.0.0.1:%s/cgi-bin/tasks/cmd?cmd=%s" % (sys.argv[1], urllib.parse.quote(sys.argv[2]))
print(urllib.request.urlopen(url, timeout=10).read().decode(errors="replace"))' "$HTTP" "$1"
}

# A ping every 0.2 s from before the IPL: the first reply is "first ping answered".
ip netns exec "$NS_LAN" ping -D -n -i 0.2 -W 1 -c 2000 "$IP" > "$WORK/ping.out" 2>&1 &
PIDS+=($!)
HERCULES_RC=$G/hercules.rc ip netns exec "$NS_H" hercules -d -f "$G/hercules.cnf" \
  < /dev/null > >(stamp > "$WORK/herc.log") 2>&1 &
HERC_PID=$!
bare_tap_to_bridge "$HWADD"
wait_for 10 grep -q " ipl " "$WORK/herc.log" || fail "Hercules did not run the IPL"
t_ipl=$(at " ipl ")

# --- the boot, bounded --------------------------------------------------------------------
end=$(awk -v t="$t_ipl" -v l="$BOOT_LIMIT" 'BEGIN { printf "%d", t + l + 1 }')
until grep -q "bytes from" "$WORK/ping.out"; do
  [ "$(date +%s)" -lt "$end" ] || fail "no ping answered within $BOOT_LIMIT s of IPL"
  kill -0 "$HERC_PID" 2>/dev/null || fail "Hercules exited during the boot"
  grep -qE "ZVSL0[0-9][0-9][EW]|Kernel panic|HHCCP011I" "$WORK/herc.log" &&
    fail "the boot failed: $(grep -m3 -E "ZVSL0[0-9][0-9][EW]|Kernel panic|HHCCP011I" "$WORK/herc.log")"
  sleep 0.2
done
t_ping=$(grep -m1 "bytes from" "$WORK/ping.out" | sed -n 's/^\[\([0-9.]*\)\].*/\1/p')
{ kill -KILL "${PIDS[0]}"; wait "${PIDS[0]}"; } 2>/dev/null
t_kernel=$(at "Linux version")
t_init=$(at "ZVSL000I")
t_eth=$(at "ZVSL010I")
[ -n "$t_kernel" ] || fail "no 'Linux version' line on the console"
[ -n "$t_init" ] || fail "no ZVSL000I (/init started) on the console"
[ -n "$t_eth" ] || fail "no ZVSL010I (eth0 up) on the console"
echo "measure: IPL to first kernel message $(secs "$t_ipl" "$t_kernel") s, to /init $(secs "$t_ipl" "$t_init") s," \
  "to eth0 up $(secs "$t_ipl" "$t_eth") s, to first ping answered $(secs "$t_ipl" "$t_ping") s"
ok=$(awk -v a="$t_ipl" -v b="$t_ping" -v l="$BOOT_LIMIT" 'BEGIN { print (b - a <= l) ? 1 : 0 }')
expect_eq "boot to first ping within $BOOT_LIMIT s" "$ok" 1
grep -q "ZVSL010I eth0 UP DEV 0.0.0600 MAC $GUEST_MAC IP $IP/24" "$WORK/herc.log" ||
  fail "eth0 banner: $(grep ZVSL010I "$WORK/herc.log")"
! grep -E "ZVSL[0-9]{3}[EW]" "$WORK/herc.log" || fail "the guest's /init warned or failed (above)"
echo "ok: /init: no warnings (zvs.mac=$GUEST_MAC is eth0's MAC; zvs.gw=none taken)"

# --- the guest on the LAN --------------------------------------------------------------------
ip netns exec "$NS_LAN" $PEER wait "$IP" "$CTL" 30 >/dev/null || fail "the control server does not answer"
kmac=$(ip -n "$NS_LAN" neigh show "$IP" | awk '{ for (i = 1; i < NF; i++) if ($i == "lladdr") print $(i + 1) }')
expect_eq "the guest's MAC as the LAN learnt it (ARP)" "$kmac" "$GUEST_MAC"
tmac=$(ip -n "$NS_H" -o link show tap0 | sed -n 's/.*link\/ether \([^ ]*\).*/\1/p')
echo "measure: tap MAC $tmac (-m $TAP_MAC, OAT HWADD $HWADD), guest MAC $kmac"
[ "$tmac" != "$kmac" ] || fail "the tap's MAC equals the guest's ($tmac)"
ping_out=$(ip netns exec "$NS_LAN" ping -c 10 -i 0.2 -W 2 "$IP")
expect_eq "ping replies" "$(echo "$ping_out" | sed -n 's/.* \([0-9]*\) received.*/\1/p')" 10
echo "measure: ping RTT min/avg/max $(echo "$ping_out" | sed -n 's|^rtt [^=]*= \([0-9.]*/[0-9.]*/[0-9.]*\)/.*|\1|p') ms"

status=$(ip netns exec "$NS_LAN" $PEER cmd "$IP" "$CTL" STATUS) || fail "STATUS: $status"
sv() { echo "$status" | awk -v k="$1" '$1 == k { print $2 }'; }
expect_eq "STATUS header" "$(echo "$status" | head -1)" "ZVSL 1"
expect_eq "STATUS mac" "$(sv mac)" "$GUEST_MAC"
expect_eq "STATUS ip" "$(sv ip)" "$IP/24"
expect_eq "STATUS hostname" "$(sv hostname)" "lnx60"
echo "guest: $(grep -m1 -o "ZVSL020I.*(.*)" "$WORK/herc.log" | sed 's/ ([0-9.]* s)$//')"
echo "guest: eth0 mtu $(sv mtu), rx_packets $(sv rx_packets), tx_packets $(sv tx_packets)"
echo "guest: kernel $(sv kernel), /init at $(sv init_s) s, eth0 up at $(sv ethup_s) s, ready at $(sv ready_s) s (kernel uptime)"

# Hercules' CPU time while the guest idles (5 s).
cpu() { awk '{ print $14 + $15 }' "/proc/$HERC_PID/stat"; }
c0=$(cpu); sleep 5; c1=$(cpu)
echo "measure: Hercules CPU while the guest idles: $(awk -v a="$c0" -v b="$c1" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%d", (b - a) * 100 / hz / 5 }') % of a core"

# --- TCP: exact byte counts both ways ---------------------------------------------------------
ip netns exec "$NS_LAN" $PEER sink "$IP" "$CTL" "$XFER" > "$WORK/sink.out" &
sink_pid=$!
sleep 0.5
# The control server serves a process per connection: a PING while the SINK runs.
r=$(ip netns exec "$NS_LAN" $PEER cmd "$IP" "$CTL" PING) || fail "PING during SINK: $r"
kill -0 "$sink_pid" 2>/dev/null && echo "ok: PING answered while a SINK was running" ||
  echo "note: the SINK ended before the PING; overlap not shown"
wait "$sink_pid" || fail "LAN -> guest: $(cat "$WORK/sink.out")"
r=$(cat "$WORK/sink.out")
read -r _ n s <<< "$r"
echo "measure: TCP LAN -> guest $n bytes, SHA-256 equal, in $s s ($(awk -v n="$n" -v s="$s" 'BEGIN { printf "%.2f", n * 8 / s / 1e6 }') Mbit/s)"
r=$(ip netns exec "$NS_LAN" $PEER source "$IP" "$CTL" "$XFER") || fail "guest -> LAN: $r"
read -r _ n s <<< "$r"
echo "measure: TCP guest -> LAN $n bytes, every byte checked, in $s s ($(awk -v n="$n" -v s="$s" 'BEGIN { printf "%.2f", n * 8 / s / 1e6 }') Mbit/s)"
if command -v iperf3 >/dev/null; then
  out=$(ip netns exec "$NS_LAN" timeout 30 iperf3 -c "$IP" -t 5 -f m 2>&1) || fail "iperf3 to the guest: $out"
  echo "measure: iperf3 LAN -> guest, 5 s: $(echo "$out" | awk '/sender/ { print $7, $8, "sent,", $9, "retransmissions" } /receiver/ { print $7, $8, "received" }' | paste -sd' ')"
fi
r=$(ip netns exec "$NS_LAN" $PEER cmd "$IP" "$CTL" "RUN cat /proc/sys/kernel/ctrl-alt-del") || fail "RUN: $r"
expect_eq "RUN output" "$r" "$(printf '0\nOK exit 0')"
# busybox httpd (zvs.run=httpd): a file RUN writes into /www, fetched over HTTP.
r=$(ip netns exec "$NS_LAN" $PEER cmd "$IP" "$CTL" "RUN yes zvswitch | head -c 1048576 > /www/blob") || fail "RUN: $r"
got=$(ip netns exec "$NS_LAN" python3 -c '
import sys, urllib.request
b = urllib.request.urlopen("http://%s/blob" % sys.argv[1], timeout=30).read()
print(len(b), b == (b"zvswitch\n" * 116509)[:1048576])' "$IP") || fail "HTTP GET from the guest's httpd"
expect_eq "HTTP GET of 1 MiB from the guest's httpd (length, content)" "$got" "1048576 True"

# The console: a line typed into the 3215 (Hercules' "/" prefix) runs in the guest.
herc_cmd '/echo ZVSL-CONSOLE-TEST $((6 * 7))' >/dev/null || fail "Hercules' HTTP command interface did not answer"
if wait_for 10 grep -q "ZVSL-CONSOLE-TEST 42" "$WORK/herc.log"; then
  echo "ok: a console line ran in the guest"
else
  fail "a console line did not run: $(grep -m3 ZVSL-CONSOLE "$WORK/herc.log")"
fi

# --- SIGNAL SHUTDOWN: an SCLP signal-quiesce, then a clean power-off ----------------------------
# (HLX_SHUTDOWN=control tests the control server's SHUTDOWN command instead.)
t_sig=$EPOCHREALTIME
if [ "${HLX_SHUTDOWN:-quiesce}" = control ]; then
  how=control
  r=$(ip netns exec "$NS_LAN" $PEER cmd "$IP" "$CTL" SHUTDOWN) || fail "SHUTDOWN: $r"
  expect_eq "SHUTDOWN reply" "$r" "OK shutting down"
else
  how=signal-quiesce
  ans=$(herc_cmd ssd) || fail "Hercules' HTTP command interface did not answer"
  grep -q "HHCCP081E" <<< "$ans" && fail "Hercules: the guest does not take quiesce signals: $ans"
fi
wait_for 30 grep -q "ZVSL902I" "$WORK/herc.log" || fail "no clean power-off within 30 s of the shutdown request"
grep -q "ZVSL900I SHUTDOWN REQUESTED BY $how" "$WORK/herc.log" ||
  fail "the shutdown was not the $how one: $(grep ZVSL900I "$WORK/herc.log")"
wait_for 10 grep -qE "HHCCP011I|SIGP Stop" "$WORK/herc.log" || fail "the CPU did not stop after the power-off"
t_off=$(at "HHCCP011I|SIGP Stop")
psw=$(grep -A1 -m1 "HHCCP011I" "$WORK/herc.log" | grep -o "PSW=.*" || grep -m1 "SIGP Stop" "$WORK/herc.log" | cut -d' ' -f2-)
echo "measure: shutdown ($how) request to /init's power-off $(secs "$t_sig" "$(at ZVSL902I)") s, to CPU stopped $(secs "$t_sig" "$t_off") s ($psw)"
stop_hercules
echo "PASS"
