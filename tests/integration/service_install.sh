#!/usr/bin/env bash
# check: hermetic (no root, no namespaces, no timing: make install into a staging directory)
# vswitchd as a service: `make install` lays out programs, man pages, the systemd unit (with
# the installed paths), logrotate and examples; every program answers --help; the man
# pages format without a warning; systemd accepts the unit. Needs no namespace.
. "$(dirname "$0")/lib.sh"

STAGE=$(mktemp -d /tmp/zvs-install.XXXXXX)
trap 'rm -rf "$STAGE"' EXIT
PREFIX=$STAGE/usr
make -s -C "$ROOT" --no-print-directory BUILD="$BUILD" install PREFIX="$PREFIX" \
  SYSCONFDIR="$STAGE/etc" >"$STAGE/install.log" 2>&1 || fail "make install: $(tail -n 5 "$STAGE/install.log")"
for f in sbin/vswitchd bin/vmcp bin/perfkit; do
  [ -x "$PREFIX/$f" ] || fail "not installed: $f"
done
for f in share/man/man8/vswitchd.8 share/man/man1/vmcp.1 share/man/man1/perfkit.1 \
         lib/systemd/system/zvswitch.service share/doc/zvswitch/examples/SYSTEM.CONFIG \
         share/doc/zvswitch/examples/USER.DIRECT; do
  [ -f "$PREFIX/$f" ] || fail "not installed: $f"
done
[ -f "$STAGE/etc/logrotate.d/zvswitch" ] || fail "not installed: logrotate.d/zvswitch"
echo "ok: make install laid out programs, man pages, unit, logrotate, examples"

unit=$PREFIX/lib/systemd/system/zvswitch.service
grep -q '@' "$unit" && fail "unit still has a placeholder: $(grep '@' "$unit")"
grep -qx "ExecStart=$PREFIX/sbin/vswitchd -c $STAGE/etc/zvswitch/SYSTEM.CONFIG -u $STAGE/etc/zvswitch/USER.DIRECT -p /run/zvswitch/vswitchd.pid -L /var/log/zvswitch/vswitchd.log -k /run/zvswitch/console.sock" "$unit" ||
  fail "ExecStart does not name the installed program: $(grep ExecStart= "$unit")"
grep -qx 'Type=forking' "$unit" && grep -qx 'PIDFile=/run/zvswitch/vswitchd.pid' "$unit" || fail "unit does not wait for the pidfile"
if command -v systemd-analyze >/dev/null; then
  out=$(MANPATH=$PREFIX/share/man systemd-analyze verify "$unit" 2>&1 | grep -v -e 'Failed to .*bus' -e 'System has not been booted' -e 'Cannot determine' -e 'No such file or directory' || true)
  [ -z "$out" ] || fail "systemd-analyze verify: $out"
  echo "ok: systemd-analyze verify accepts the unit"
fi

for p in sbin/vswitchd bin/vmcp bin/perfkit; do
  out=$("$PREFIX/$p" --help 2>&1) || fail "$p --help: exit status $?"
  echo "$out" | head -n 1 | grep -q "^usage: $(basename "$p") " || fail "$p --help: $(echo "$out" | head -n 1)"
done
echo "ok: vswitchd, vmcp and perfkit answer --help with their usage"

# One version everywhere: VERSION, with +gitN.gHASH in a git tree (scripts/version.sh), a
# form a Debian version can carry; each program prints it, and perfkit's HTML report names it.
want=$("$ROOT/scripts/version.sh")
[[ $want =~ ^[0-9]+\.[0-9]+\.[0-9]+(\+git[0-9]+\.g[0-9a-f]{7,})?$ ]] || fail "scripts/version.sh: '$want'"
for p in sbin/vswitchd bin/vmcp bin/perfkit; do
  out=$("$PREFIX/$p" --version 2>&1) || fail "$p --version: exit status $?"
  [ "$out" = "$(basename "$p") (zvswitch) $want" ] || fail "$p --version: '$out', want '$(basename "$p") (zvswitch) $want'"
done
"$PREFIX/bin/perfkit" report --file "$ROOT/tests/golden/monitor/four-groups-v2.mon" \
  --html "$STAGE/report.html" >/dev/null 2>&1 || fail "perfkit report: exit status $?"
grep -qF "<meta name=\"generator\" content=\"perfkit (zvswitch) $want\">" "$STAGE/report.html" &&
  grep -qxF "<p>Written by perfkit (zvswitch) $want</p>" "$STAGE/report.html" ||
  fail "the HTML report does not name perfkit $want"
echo "ok: vswitchd, vmcp, perfkit and the HTML report say version $want"

for m in share/man/man8/vswitchd.8 share/man/man1/vmcp.1 share/man/man1/perfkit.1; do
  warn=$(groff -man -ww -z "$PREFIX/$m" 2>&1)
  [ -z "$warn" ] || fail "$m: $warn"
  LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$PREFIX/$m" 2>/dev/null | grep -q '^NAME' || fail "$m does not render"
done
echo "ok: the man pages format without a warning"
