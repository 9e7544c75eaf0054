#!/usr/bin/env bash
# The layering check's test: the repository passes it, and the fixture (a small tree whose
# dataplane/forward.c includes upwards and reaches into lacp/'s private header) is
# rejected with exactly those three lines. Prints "layering: N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
passed=0 failed=0
check() { if [ "$1" = 0 ]; then passed=$((passed + 1)); echo "ok   $2"; else failed=$((failed + 1)); echo "FAIL $2"; fi; }

out=$(scripts/layering.sh 2>&1); rc=$?
echo "$out"
check $rc "the repository follows layers.conf"

out=$(scripts/layering.sh tests/layering/fixture 2>&1); rc=$?
expected='dataplane/forward.c:3: dataplane/ may not include "lag/lag.h" (it may use: nothing else)
dataplane/forward.c:4: dataplane/ may not include "daemon/daemon.h" (it may use: nothing else)
dataplane/forward.c:5: dataplane/ may not include "lacp/lacp_internal.h" (it may use: nothing else)
layering: 3 include(s) against the layers in 7 files'
[ $rc -eq 1 ] && [ "$out" = "$expected" ]
r=$?
[ $r -eq 0 ] || { echo "fixture: rc $rc, got:"; echo "$out"; }
check $r "the fixture's upward and private includes are rejected, each named"

# A private header of another folder, included by a folder that may use that folder.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cp -r tests/layering/fixture/. "$tmp"
rm "$tmp/dataplane/forward.c"
printf '#include "lacp/lacp_internal.h"\n' > "$tmp/lag/glue.c"
out=$(scripts/layering.sh "$tmp" 2>&1); rc=$?
[ $rc -eq 1 ] && [ "$(echo "$out" | head -n 1)" = 'lag/glue.c:1: "lacp/lacp_internal.h" is private to lacp/' ]
check $? "a private header is refused to a folder allowed to use its owner"

echo "layering: $passed passed, $failed failed"
[ $failed -eq 0 ]
