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

# Every depth: a subfolder without a line of its own follows its parent's (lag/sub/ may
# not include daemon/), one with a line follows that line only (lag/inner/ names nothing,
# so lacp/, which lag/ may use, is refused to it), and an include names the deepest
# configured folder of its path (dataplane/ may not include lag/inner/).
tmp2=$(mktemp -d); trap 'rm -rf "$tmp" "$tmp2"' EXIT
cp -r tests/layering/fixture/. "$tmp2"
rm "$tmp2/dataplane/forward.c"
printf 'lag/inner:\n' >>"$tmp2/layers.conf"
mkdir -p "$tmp2/lag/sub" "$tmp2/lag/inner"
printf '#include "dataplane/switch.h"\n#include "daemon/daemon.h"\n' >"$tmp2/lag/sub/deep.c"
printf '#include "inner.h"\n#include "lacp/lacp.h"\n' >"$tmp2/lag/inner/inner.c"
: >"$tmp2/lag/inner/inner.h"
printf '#include "lag/inner/inner.h"\n' >"$tmp2/dataplane/up.c"
out=$(scripts/layering.sh "$tmp2" 2>&1); rc=$?
expected='dataplane/up.c:1: dataplane/ may not include "lag/inner/inner.h" (it may use: nothing else)
lag/inner/inner.c:2: lag/inner/ may not include "lacp/lacp.h" (it may use: nothing else)
lag/sub/deep.c:2: lag/ may not include "daemon/daemon.h" (it may use: dataplane lacp)
layering: 3 include(s) against the layers in 10 files'
[ $rc -eq 1 ] && [ "$out" = "$expected" ]
r=$?
[ $r -eq 0 ] || { echo "depth: rc $rc, got:"; echo "$out"; }
check $r "subfolders follow their parent's line or their own, at every depth"

echo "layering: $passed passed, $failed failed"
[ $failed -eq 0 ]
