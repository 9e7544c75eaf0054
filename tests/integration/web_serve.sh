#!/usr/bin/env bash
# check: hermetic (no root, no namespaces: perfkit serve on loopback over a generated monitor file)
# perfkit serve as a client sees it, on a monitor file with known counters that grows while
# it is served (tests/tools/monfile_gen) and has one damaged group:
#  - the screens' cells are the fields perfkit prints (RESOLVER and EVENTS' D15R2 among
#    them), the damaged group's error is shown
#    and every other interval is still served, a new interval appears as the file grows;
#  - /metrics passes promtool (Debian's prometheus), carries the system's name, and its
#    counters are the file's, the discards by reason among them;
#  - bad input is refused and counted: other methods, "..", unknown screens, oversized
#    headers, a flood of connections; the server still answers after the flood;
#  - it binds only where --listen says, at nice 19 with a listen backlog of 64.
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || skip "curl missing"
PERFKIT=$BUILD/bin/perfkit GEN=$BUILD/tools/monfile_gen
[ -x "$PERFKIT" ] && [ -x "$GEN" ] || fail "no $PERFKIT or $GEN (run make)"
WORK=$(mktemp -d /tmp/zvs-web.XXXXXX)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$WORK"' EXIT
MON=$WORK/monitor.file

# 5 samples a second apart, group 4 (sample 3, after the event group) damaged, then one
# more sample a second for 4 s.
"$GEN" "$MON" -n 5 -s 1 -y WEBSYS -d 4 -f 4 &
PIDS+=($!)
wait_for 5 test -s "$MON" || fail "monfile_gen wrote nothing"
"$PERFKIT" serve --file "$MON" --listen 127.0.0.1:0 >"$WORK/serve.out" 2>&1 &
PIDS+=($!)
wait_for 5 grep -q serving "$WORK/serve.out" || fail "perfkit serve: $(cat "$WORK/serve.out")"
URL=$(sed -n 's/.*serving \(http:[^ ]*\) .*/\1/p' "$WORK/serve.out")
PORT=${URL##*:}; PORT=${PORT%/}
echo "serving at $URL"
ss -ltn 2>/dev/null | grep -q "127.0.0.1:$PORT " || fail "not listening on 127.0.0.1:$PORT only"
ss -ltn 2>/dev/null | grep ":$PORT " | grep -qv "127.0.0.1:$PORT " && fail "listening elsewhere too"
echo "ok: listens on 127.0.0.1:$PORT only"
# Below vswitchd: the lowest priority; a short listen backlog (ss shows it as Send-Q).
# (the nice value from /proc: ps prints "-" for it when the test itself runs in the idle
# scheduling class, as make check runs hermetic scripts beside the labs)
expect_eq "perfkit serve's nice" "$(sed 's/.*) //' "/proc/${PIDS[1]}/stat" | awk '{ print $17 }')" 19
expect_eq "perfkit serve's listen backlog" "$(ss -ltn "sport = :$PORT" | awk 'NR == 2 { print $3 }')" 64

code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
get() { curl -sf "$URL$1"; }

# The damaged group: its error with its offset, every other interval still served.
wait_for 5 sh -c "curl -sf '${URL}errors' | grep -q 'offset'" || fail "no error page entry"
echo "ok: the damaged group is shown: $(get errors | grep -o 'offset [0-9]*, record [-0-9]*: [^<]*' | head -1)"
n=$(get FCX240 | sed -n 's/.*Interval [0-9]* of \([0-9]*\).*/\1/p')
[ "${n:-0}" -ge 3 ] || fail "only ${n:-0} intervals served beside the damaged group"
echo "ok: $n intervals served"

# The cells of every row are perfkit's fields for the same interval.
check_cells() {  # SCREEN [INDEX]
  get "$1${2:+?i=$2}" >"$WORK/page.html" || fail "GET $1${2:+?i=$2}"
  "$PERFKIT" "$1" --file "$MON" ${2:+--index "$2"} >"$WORK/screen.txt" 2>/dev/null
  python3 - "$WORK/page.html" "$WORK/screen.txt" "$1" <<'PY' || fail "$1 interval $2: cells differ from perfkit's fields"
import html, re, sys
page, text, screen = open(sys.argv[1]).read(), open(sys.argv[2]).read().splitlines(), sys.argv[3]
rows = []
for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", page, re.S):
    tds = [html.unescape(re.sub("<[^>]*>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)]
    if tds:
        rows.append(sum((c.split() for c in tds), []))
first = {"PGROUP": "Group ", "EVENTS": "Date ", "RESOLVER": "Names"}.get(screen, "Addr ")
head = next(i for i, l in enumerate(text) if l.startswith(first) or l.split()[:1] == [first])
want = [l.split() for l in text[head + 1:] if l.strip()]
# A D15R2's line: "date time D15R2 event name old -> new; state, TTL n, last error e", its
# fields (the page's cells) without the words and marks between them.
res = re.compile(r"(\S+) (\S+) (D15R2) +(\S+) +(\S+) (.*) -> (.*); (\S+), TTL (\d+), last error (.*)$")
want = [sum((f.split() for f in res.match(" ".join(w)).groups()), []) if w[2:3] == ["D15R2"] else w
        for w in want]
if screen == "FCX269":
    want = [["<<", "System", ">>"] + w[-8:] if w[0] == "<<" else w for w in want]
if rows != want:
    print(rows, want, sep="\n")
    sys.exit(1)
PY
}
for i in 1 2 3; do
  check_cells FCX240 $i; check_cells FCX269 $i; check_cells PGROUP $i; check_cells RESOLVER $i
done
echo "ok: FCX240, FCX269, PGROUP and RESOLVER cells are perfkit's fields (intervals 1-3)"
get EVENTS | grep -q "<td class=\"t\">carrier lost</td>" || fail "EVENTS has no carrier loss"
get EVENTS | grep -q "<td class=\"t name\">db.example.net</td>" || fail "EVENTS has no D15R2"
check_cells EVENTS
echo "ok: EVENTS cells are perfkit EVENTS' fields, the D15R2's among them"

# The file grows: a new interval appears.
wait_for 6 sh -c "[ \"\$(curl -sf '${URL}FCX240' | sed -n 's/.*Interval [0-9]* of \([0-9]*\).*/\1/p')\" -gt $n ]" ||
  fail "no new interval while the file grew"
echo "ok: a new interval appears as the file grows"

# /metrics: promtool, the system's name, the file's counters (28BA sent 100000 bytes a step;
# sample k holds k(k+1)/2 steps; the last sample is k = 8 once the generator is done).
get metrics >"$WORK/metrics" || fail "GET /metrics"
if command -v promtool >/dev/null; then
  promtool check metrics <"$WORK/metrics" || fail "promtool check metrics: $(promtool check metrics <"$WORK/metrics" 2>&1 | head -5)"
  echo "ok: promtool check metrics"
else
  echo "note: promtool missing (Debian's prometheus): not checked"
fi
grep -q '^zvswitch_uplink_transmit_bytes_total{system="WEBSYS",vswitch="LABVSW1",rdev="28BA",group="ETHGRP"} ' "$WORK/metrics" ||
  fail "no 28BA counter with the system's name"
wait "${PIDS[0]}"
sleep 0.5
get metrics >"$WORK/metrics"
v=$(awk '/^zvswitch_uplink_transmit_bytes_total\{.*rdev="28BA"/ { print $2 }' "$WORK/metrics")
expect_eq "28BA transmit bytes after sample 8" "$v" $((36 * 100000))
v=$(awk '/^zvswitch_uplink_discards_total\{.*rdev="28BA".*reason="not-collecting"\}/ { print $2 }' "$WORK/metrics")
expect_eq "28BA not-collecting discards after sample 8" "$v" 36

# Bad input: refused and counted; the server goes on.
expect_eq "POST" "$(code -X POST "${URL}FCX240")" 405
expect_eq "DELETE" "$(code -X DELETE "${URL}")" 405
expect_eq "a path with .." "$(code --path-as-is "${URL}FCX240/../metrics")" 400
expect_eq "an encoded .." "$(code --path-as-is "${URL}%2e%2e/etc/passwd")" 400
expect_eq "an unknown screen" "$(code "${URL}FCX999")" 404
expect_eq "an unknown interval" "$(code "${URL}FCX240?i=999")" 404
big=$(head -c 6000 /dev/zero | tr '\0' a)
expect_eq "a 6 KB header" "$(code -H "X-Big: $big" "$URL")" 431
huge=$(head -c 40000 /dev/zero | tr '\0' a)
c=$(code -H "X-Huge: $huge" "$URL"); [ "$c" = 431 ] || [ "$c" = 413 ] || fail "a 40 KB header: $c"
echo "ok: a 40 KB header: $c"
python3 "$ROOT/tests/integration/web_flood.py" 127.0.0.1 "$PORT" 2 150 2 >"$WORK/flood" &
FLOOD=$!
sleep 0.5
# One client's flood takes at most its share (16 connections): another address is served.
other=$(curl -s -o /dev/null -w '%{http_code}' --interface 127.0.0.2 --max-time 3 "$URL")
wait "$FLOOD" || fail "flood: $(cat "$WORK/flood")"
cat "$WORK/flood"
expect_eq "a request from 127.0.0.2 during 127.0.0.1's flood" "$other" 200
# The flooding address is served again once the server has seen its connections close
# (their EOFs are read in the server's own loop, slower under ASan): within 5 s.
menu_ok() { [ "$(code --max-time 2 "$URL")" = 200 ]; }
wait_for 5 menu_ok ||
  fail "menu after the flood: $(code --max-time 2 "$URL"), want 200"
echo "ok: menu after the flood = 200"
get metrics >"$WORK/metrics"
r() { awk -v r="reason=\"$1\"" 'index($0, "zvswitch_web_requests_refused_total{") == 1 && index($0, r) { print $2 }' "$WORK/metrics"; }
expect_eq "refused: method" "$(r method)" 2
expect_eq "refused: path" "$(r path)" 2
expect_eq "refused: not_found (the unknown screen; an unknown interval is a page)" "$(r not_found)" 1
expect_eq "refused: headers" "$(r headers)" 2
[ "$(r connections)" -gt 0 ] || fail "the flood's connections past the limit were not counted"
echo "ok: refused: connections $(r connections)"
# The live stream: a stand-in for vswitchd's --monitor-live socket sends a whole file and
# closes, twice (vswitchd stopped and started again); perfkit serve connects again, and
# its counters go on growing from where they were: 28BA's bytes are sample 4's twice.
LIVE=$WORK/live.sock
"$GEN" "$WORK/live.file" -n 5 -s 1 -y LIVESYS || fail "monfile_gen"
python3 - "$LIVE" "$WORK/live.file" <<'PY' &
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(4)
data = open(sys.argv[2], "rb").read()
for n in range(3):
    c, _ = s.accept()
    if n < 2:
        c.sendall(data)
        c.close()
    else:
        time.sleep(20)                  # the third stays open and quiet until killed
PY
PIDS+=($!)
wait_for 5 test -S "$LIVE" || fail "no stand-in live socket"
"$PERFKIT" serve --live "$LIVE" --listen 127.0.0.1:0 >"$WORK/live.out" 2>&1 &
PIDS+=($!)
wait_for 5 grep -q serving "$WORK/live.out" || fail "perfkit serve --live: $(cat "$WORK/live.out")"
LURL=$(sed -n 's/.*serving \(http:[^ ]*\) .*/\1/p' "$WORK/live.out")
wait_for 6 sh -c "curl -sf '${LURL}metrics' | grep -q '^zvswitch_monitor_samples_total{system=\"LIVESYS\"} 10\$'" ||
  fail "the stream was not read twice: $(curl -sf "${LURL}metrics" | grep samples_total)"
v=$(curl -sf "${LURL}metrics" | awk '/^zvswitch_uplink_transmit_bytes_total\{.*rdev="28BA"/ { print $2 }')
expect_eq "28BA transmit bytes across a restart of the stream" "$v" $((2 * 10 * 100000))
echo "web_serve: ok"
