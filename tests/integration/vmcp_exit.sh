#!/usr/bin/env bash
# check: hermetic (no root, no namespaces, no timing: vmcp against a stand-in console)
# vmcp behaves as s390-tools' vmcp(8) by default, because automation reads its exit status:
# the command upper-cased unless -k; 0 done, 1 a non-zero CP return code (with s390-tools'
# stderr line), 2 a response longer than --buffer (16384 by default; cut there, and 2 even
# with a non-zero rc, as s390-tools checks truncation first), 3 a Linux error (no
# vswitchd), 4 invalid options or a command over 240 characters. --exit-rc (ours) makes the
# exit status the CP rc itself, capped at 255, and cuts nothing. Commands from stdin (ours)
# get CMS's ready message. The console is vmcp_fake_console.py, which answers by the command.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 missing"
VMCP=$BUILD/bin/vmcp
[ -x "$VMCP" ] || fail "no $VMCP (run make)"
WORK=$(mktemp -d /tmp/zvs-vmcp.XXXXXX)
SOCK=$WORK/console.sock
python3 "$ROOT/tests/integration/vmcp_fake_console.py" "$SOCK" 2>"$WORK/fake.err" &
FAKE=$!
trap 'kill $FAKE 2>/dev/null; wait $FAKE 2>/dev/null; rm -rf "$WORK"' EXIT
wait_for 10 test -e "$SOCK.ready" || fail "the stand-in console did not start: $(cat "$WORK/fake.err")"

# run ARGS...: vmcp's stdout, stderr and exit status into OUT, ERR, RC.
run() {
  "$VMCP" -s "$SOCK" "$@" >"$WORK/out" 2>"$WORK/err"; RC=$?
  OUT=$(cat "$WORK/out"); ERR=$(cat "$WORK/err")
}

run 'echo Query vswitch'
expect_eq "upper-cased by default" "$OUT|$ERR|$RC" "ECHO QUERY VSWITCH||0"
run -k 'echo Query vswitch'
expect_eq "-k keeps the case" "$OUT|$ERR|$RC" "echo Query vswitch||0"
run echo two words
expect_eq "arguments joined with blanks" "$OUT|$RC" "ECHO TWO WORDS|0"

run 'rc 3'
expect_eq "a non-zero CP rc: exit 1" "$OUT|$ERR|$RC" \
  "HCPCMD003E Invalid option - FAKE|Error: non-zero CP response for command 'RC 3': #3|1"
run --exit-rc 'rc 3'
expect_eq "--exit-rc: the rc itself" "$RC" 3
run --exit-rc 'rc 1122'
expect_eq "--exit-rc: capped at 255" "$RC" 255

run 'big 16384'
expect_eq "16384 bytes fit the default buffer" "$(wc -c <"$WORK/out")|$ERR|$RC" "16384||0"
run 'big 20000'
expect_eq "20000 bytes: cut at 16384, exit 2" "$(wc -c <"$WORK/out")|$ERR|$RC" \
  "16384|Error: output (20000 bytes) was truncated, try --buffer to increase size|2"
run 'big 20000 5'
expect_eq "cut and a non-zero rc: 2, as s390-tools checks truncation first" "$(wc -c <"$WORK/out")|$RC" "16384|2"
run -b 32k 'big 20000'
expect_eq "-b 32k" "$(wc -c <"$WORK/out")|$ERR|$RC" "20000||0"
run -b 4096 'big 5000'
expect_eq "-b 4096" "$(wc -c <"$WORK/out")|$RC" "4096|2"
run --exit-rc 'big 100000'
expect_eq "--exit-rc cuts nothing" "$(wc -c <"$WORK/out")|$RC" "100000|0"

run -b 100 'echo x'
expect_eq "-b below 4096" "$ERR|$RC" "Error: Invalid buffersize (needs to be between 4096 and 1048576)|4"
run -b 2M 'echo x'
expect_eq "-b above 1M" "$RC" 4
run --bogus 'echo x'
expect_eq "an unknown option" "$(tail -n 1 "$WORK/err")|$RC" "Try 'vmcp --help' for more information.|4"
cmd240="ECHO $(printf 'A%.0s' $(seq 235))"
run "$cmd240"
expect_eq "240 characters" "${#cmd240}|$RC" "240|0"
run "${cmd240}B"
expect_eq "241 characters" "$ERR|$RC" "Error: Command too long (cannot be longer than 240 characters)|4"

"$VMCP" -s "$WORK/none.sock" 'echo x' >"$WORK/out" 2>"$WORK/err"; RC=$?
expect_eq "no vswitchd: a Linux error" "$(cat "$WORK/err")|$RC" \
  "Error: Could not reach vswitchd at $WORK/none.sock: No such file or directory|3"
"$VMCP" --exit-rc -s "$WORK/none.sock" 'echo x' >/dev/null 2>&1; RC=$?
expect_eq "no vswitchd with --exit-rc" "$RC" 1

printf 'echo one\nrc 7\n\necho two\n' | "$VMCP" -s "$SOCK" >"$WORK/out" 2>"$WORK/err"; RC=$?
expect_eq "commands from stdin" "$(cat "$WORK/out")|$RC" "ECHO ONE
HCPCMD003E Invalid option - FAKE
Ready(00007);
ECHO TWO|0"
printf 'rc 7\n' | "$VMCP" --exit-rc -s "$SOCK" >/dev/null 2>&1; RC=$?
expect_eq "stdin, the last rc with --exit-rc" "$RC" 7

out=$("$VMCP" --version); expect_eq "--version" "$out" "vmcp (zvswitch) $("$ROOT/scripts/version.sh")"
echo "ok: vmcp answers as s390-tools' vmcp: case, exit statuses 0-4, buffer, 240 characters"
