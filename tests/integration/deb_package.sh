#!/usr/bin/env bash
# check: parallel (root for a mount namespace; no network, no timing: a package build, lintian, dpkg in an overlay)
# The Debian package (debian/README.md): `make deb` builds build/zvswitch_VERSION_ARCH.deb
# with the version vswitchd prints; lintian finds no error and only the warnings the README
# names; then, in a mount namespace of its own over an overlay of / (writes go to a tmpfs,
# the host is never touched), with an empty tmpfs over /run so the maintainer scripts see no
# systemd: `dpkg -i` installs the programs, man pages, the unit (verified, neither enabled
# nor started), the examples in /etc/zvswitch as conffiles and the zvswitch group;
# `dpkg --purge` stops the service (systemd stubs for that step), and leaves nothing of the
# package but the group. Afterwards the host has no zvswitch package, group or /etc/zvswitch
# it did not have before.
. "$(dirname "$0")/lib.sh"

want=$("$ROOT/scripts/version.sh")
deb_name=zvswitch_${want}_$(dpkg --print-architecture).deb

# ---- inside the mount namespace: dpkg -i and dpkg --purge in the overlay -------------------
if [ "${1:-}" = --in-overlay ]; then
  T=$2
  # Never on the host's mounts: this must be a mount namespace of its own.
  [ "$(readlink /proc/self/ns/mnt)" != "$(readlink /proc/1/ns/mnt)" ] || fail "not in a mount namespace of its own"
  mount -t tmpfs tmpfs "$T/rw"
  mkdir "$T/rw/upper" "$T/rw/work"
  mount -t overlay overlay -o "lowerdir=/,upperdir=$T/rw/upper,workdir=$T/rw/work" "$T/root"
  R=$T/root U=$T/rw/upper
  mount --rbind /dev "$R/dev"
  mount -t proc proc "$R/proc"
  mount -t tmpfs tmpfs "$R/run"          # empty: no /run/systemd/system, no systemd
  mount -t tmpfs tmpfs "$R/tmp"
  cp "$BUILD/$deb_name" "$R/tmp/"
  in_root() { chroot "$R" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 "$@"; }

  in_root dpkg -i "/tmp/$deb_name" >"$T/install.log" 2>&1 || fail "dpkg -i: $(tail -n 20 "$T/install.log")"
  [ "$(in_root dpkg-query -W -f='${db:Status-Abbrev}${Version}' zvswitch)" = "ii $want" ] ||
    fail "dpkg does not list zvswitch $want as installed"
  for p in sbin/vswitchd bin/vmcp bin/perfkit; do
    out=$(in_root "/usr/$p" --version 2>&1) || fail "/usr/$p --version: exit status $?"
    [ "$out" = "$(basename "$p") (zvswitch) $want" ] || fail "/usr/$p --version: '$out', want '$(basename "$p") (zvswitch) $want'"
  done
  for m in man8/vswitchd.8.gz man1/vmcp.1.gz man1/perfkit.1.gz; do
    [ -f "$R/usr/share/man/$m" ] || fail "not installed: /usr/share/man/$m"
  done
  echo "ok: dpkg -i installed zvswitch $want: vswitchd, vmcp and perfkit print it; man pages"

  for f in SYSTEM.CONFIG USER.DIRECT; do
    cmp -s "$R/etc/zvswitch/$f" "$ROOT/configs/$f" || fail "/etc/zvswitch/$f is not the example configs/$f"
    in_root dpkg-query -W -f='${Conffiles}\n' zvswitch | grep -q "^ /etc/zvswitch/$f " ||
      fail "/etc/zvswitch/$f is not a conffile"
  done
  in_root vswitchd --check -c /etc/zvswitch/SYSTEM.CONFIG -u /etc/zvswitch/USER.DIRECT >"$T/check.log" 2>&1 ||
    fail "vswitchd --check on the installed examples: $(cat "$T/check.log")"
  gid=$(in_root getent group zvswitch | cut -d: -f3)
  [ -n "$gid" ] && [ "$gid" -lt 1000 ] || fail "no zvswitch system group (gid '$gid')"
  echo "ok: /etc/zvswitch holds the examples as conffiles (vswitchd --check accepts them); system group zvswitch ($gid)"

  unit=/lib/systemd/system/zvswitch.service
  [ -f "$R$unit" ] || fail "not installed: $unit"
  grep -q '^ExecStart=/usr/sbin/vswitchd .* --console-group zvswitch$' "$R$unit" ||
    fail "the unit does not pass --console-group zvswitch: $(grep ExecStart= "$R$unit")"
  # --man=no: man would format the page into man-db's cache (a file the package did not
  # leave); man -w finds the unit's Documentation= page without writing anything.
  in_root man -w vswitchd >/dev/null 2>&1 || fail "man does not find vswitchd(8), the unit's Documentation="
  out=$(in_root systemd-analyze verify --man=no "$unit" 2>&1 | grep -v -e 'Failed to .*bus' -e 'System has not been booted' -e 'Cannot determine' -e 'No such file or directory' || true)
  [ -z "$out" ] || fail "systemd-analyze verify $unit: $out"
  wants=$(find "$R/etc/systemd/system" -name zvswitch.service 2>/dev/null)
  [ -z "$wants" ] || fail "the unit is enabled: $wants"
  grep -q 'deb-systemd-invoke \(start\|restart\)' "$R/var/lib/dpkg/info/zvswitch.postinst" &&
    fail "postinst starts the service: $(grep deb-systemd-invoke "$R/var/lib/dpkg/info/zvswitch.postinst")"
  echo "ok: the unit passes systemd-analyze verify, runs --console-group zvswitch, is neither enabled nor started"

  # Removal with systemd present (stubs that log what the maintainer scripts ask of it).
  mkdir -p "$R/run/systemd/system"
  for stub in deb-systemd-invoke systemctl; do
    printf '#!/bin/sh\necho "%s $*" >>/tmp/systemd.log\n' "$stub" >"$R/usr/local/sbin/$stub"
    chmod +x "$R/usr/local/sbin/$stub"
  done
  in_root dpkg --purge zvswitch >"$T/purge.log" 2>&1 || fail "dpkg --purge: $(tail -n 20 "$T/purge.log")"
  grep -qx 'deb-systemd-invoke stop zvswitch.service' "$R/tmp/systemd.log" ||
    fail "removing the package did not stop the service: $(cat "$R/tmp/systemd.log" 2>/dev/null)"
  rm -f "$R/usr/local/sbin/deb-systemd-invoke" "$R/usr/local/sbin/systemctl"
  rm -rf "$R/run/systemd"
  echo "ok: dpkg --purge stopped the service"

  # What the install and purge changed is exactly what the overlay's upper layer holds:
  # besides folders, only dpkg's own records, the man index and the group may remain.
  in_root dpkg-query -W -f='${db:Status-Abbrev}' zvswitch 2>/dev/null | grep -q '^ii' && fail "still installed after purge"
  left=$(cd "$U" && find . ! -type d | sed 's|^\./||' | sort |
         grep -v -e '^etc/g\(roup\|shadow\)-\?$' -e '^etc/\.pwd\.lock$' -e '^var/lib/dpkg/' -e '^var/log/dpkg\.log$' \
                 -e '^var/cache/man/' -e '^var/cache/debconf/' || true)
  [ -z "$left" ] || fail "left after purge: $left"
  # Files that still name the package: only the group's and dpkg's logs and records of what
  # happened, and man-db's index: its dpkg trigger runs `mandb -p`, which adds pages and
  # purges none (its daily job does), so whatis may still list the pages; man finds none.
  named=$(cd "$U" && { find . -name '*zvswitch*' -o -name '*vswitchd*' -o -name '*vmcp*' -o -name '*perfkit*'; grep -rl zvswitch . 2>/dev/null; } |
          grep -v -e '^\./etc/g\(roup\|shadow\)-\?$' -e '^\./var/lib/dpkg/status' -e '^\./var/lib/dpkg/available' \
                  -e '^\./var/log/dpkg\.log$' -e '^\./var/cache/man/' || true)
  [ -z "$named" ] || fail "the package left: $named"
  for m in vswitchd vmcp perfkit; do
    out=$(in_root man -w "$m" 2>/dev/null) && fail "man still finds $m: $out"
  done
  in_root getent group zvswitch >/dev/null || fail "purge removed the zvswitch group (Debian leaves it)"
  echo "ok: after dpkg --purge nothing of the package remains but the zvswitch group (the overlay keeps: $(cd "$U" && find . ! -type d | sed 's|^\./||' | sort | tr '\n' ' '))"
  exit 0
fi

# ---- on the host --------------------------------------------------------------------------
[ "$(id -u)" -eq 0 ] || skip "needs root (a mount namespace over an overlay of /)"
for t in dpkg-buildpackage dh lintian unshare chroot; do
  command -v "$t" >/dev/null || fail "$t is missing (make deps installs it)"
done
host_state() {
  dpkg-query -W -f='${db:Status-Abbrev}\n' zvswitch 2>/dev/null || true
  ls -d /etc/zvswitch /var/lib/dpkg/info/zvswitch.* /lib/systemd/system/zvswitch.service 2>/dev/null || true
  getent group zvswitch || true
}
before=$(host_state)

T=$(mktemp -d /tmp/zvs-deb.XXXXXX)
trap 'rm -rf --one-file-system "$T"' EXIT
mkdir "$T/rw" "$T/root"

make -s -C "$ROOT" --no-print-directory BUILD="$BUILD" deb >"$T/make.log" 2>&1 ||
  fail "make deb: $(tail -n 20 "$T/make.log")"
deb=$BUILD/$deb_name
[ -f "$deb" ] || fail "make deb did not write $deb: $(cat "$T/make.log")"
[ "$(dpkg-deb -f "$deb" Version)" = "$want" ] || fail "package version $(dpkg-deb -f "$deb" Version), want $want"
dpkg-deb -f "$deb" Depends | grep -q 'libpcap0\.8' || fail "Depends lacks dh_shlibdeps' libraries: $(dpkg-deb -f "$deb" Depends)"
[ "$(dpkg-deb -f "$deb" Recommends)" = "hercules, corosync" ] || fail "Recommends: $(dpkg-deb -f "$deb" Recommends), want hercules, corosync"
# dpkg-buildpackage writes beside the tree it builds: that must be build/deb/, not the
# checkout's parent folder.
[ -f "$BUILD/deb/${deb_name%.deb}.changes" ] || fail "no ${deb_name%.deb}.changes in $BUILD/deb"
ls -d "$ROOT"/zvswitch_"$want"* "$ROOT"/../zvswitch_"$want"* 2>/dev/null && fail "make deb wrote outside $BUILD"
echo "ok: make deb wrote $deb_name in ${SECONDS}s (version $want, Depends from dh_shlibdeps, Recommends hercules and corosync)"

# lintian: no error; every warning kept is named, with its reason, in debian/README.md.
lintian "$deb" >"$T/lintian.log" 2>&1
grep -v -e '^running with root privileges' "$T/lintian.log" >"$T/tags" || true
grep '^E: ' "$T/tags" && fail "lintian reports errors"
while read -r _ _ tag _; do
  grep -q -- "\`$tag\`" "$ROOT/debian/README.md" || fail "lintian warning $tag is not named in debian/README.md"
done < <(grep '^W: ' "$T/tags")
echo "ok: lintian: no error, $(grep -c '^W: ' "$T/tags") warnings, each named in debian/README.md"

# The README's Install section: the two commands a user types.
sed -n '/^## Install/,/^## /p' "$ROOT/README.md" >"$T/install.md"
grep -q '^make deb' "$T/install.md" && grep -q '^sudo apt install \./build/zvswitch_.*_amd64\.deb' "$T/install.md" ||
  fail "README.md has no Install section with make deb and apt install"
echo "ok: README.md's Install section: make deb, apt install"

t0=$SECONDS
unshare --mount --propagation private bash "$0" --in-overlay "$T" || exit 1
echo "ok: install, checks and purge in the overlay took $((SECONDS - t0))s"

after=$(host_state)
[ "$after" = "$before" ] || fail "the host changed: before '$before', after '$after'"
[ -z "$(findmnt -rn -o TARGET | grep -F "$T")" ] || fail "a mount of the test is left on the host"
echo "ok: the host is untouched (no zvswitch package, group or /etc/zvswitch of the test)"
