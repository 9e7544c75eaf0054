#!/usr/bin/env bash
# Builds the Debian package $BUILD/zvswitch_VERSION_ARCH.deb with the ecosystem's tools
# (dpkg-buildpackage, debhelper; debian/README.md). `make deb` runs it with the version.
#   BUILD=build JOBS=2 scripts/deb.sh VERSION
# dpkg-buildpackage writes its outputs in the parent of the tree it builds, so it builds a
# copy of the tree at $BUILD/deb/zvswitch-VERSION/: the .deb, .buildinfo, .changes and the
# -dbgsym package land in $BUILD/deb/, and only the .deb is moved up to $BUILD/. The copy
# has no .git, so the version travels in debian/changelog, written here from VERSION (never
# kept in the repository, so it cannot drift from scripts/version.sh); debian/rules reads
# it back and compiles it in.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
version=${1:?usage: scripts/deb.sh VERSION}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$root/$BUILD ;; esac
arch=$(dpkg --print-architecture)
out=$BUILD/deb
src=$out/zvswitch-$version

rm -rf "$out"
mkdir -p "$src"
# The tree as it is (committed or not), less git's data and every build folder.
tar -C "$root" --exclude=./.git --exclude=./build --exclude="./${BUILD#"$root"/}" -cf - . |
  tar -C "$src" -xf -

# The entry's date is the commit's, so two builds of one commit make the same changelog
# (dpkg takes SOURCE_DATE_EPOCH from it: reproducible file dates).
date=$(git -C "$root" log -1 --format=%aD 2>/dev/null || date -R)
maint=$(sed -n 's/^Maintainer: //p' "$src/debian/control")
cat >"$src/debian/changelog" <<EOF
zvswitch ($version) unstable; urgency=medium

  * zvswitch $version, packaged from its tree by make deb.

 -- $maint  $date
EOF

# -b: binary packages only (no source package); -us -uc: unsigned. A clean environment, as
# if typed in the copy: the Makefile reads BUILD, CC, OPT, PREFIX ... from the environment,
# and a calling make's MAKEFLAGS would hand the package's make a jobserver it cannot reach.
(cd "$src" && env -i PATH="$PATH" HOME="$HOME" ${DEB_BUILD_OPTIONS:+DEB_BUILD_OPTIONS="$DEB_BUILD_OPTIONS"} \
   dpkg-buildpackage -b -us -uc -j"${JOBS:-2}") >"$out/build.log" 2>&1 || {
  tail -n 40 "$out/build.log" >&2
  echo "deb: dpkg-buildpackage failed (log: $out/build.log)" >&2
  exit 1
}
mv "$out/zvswitch_${version}_$arch.deb" "$BUILD/"
echo "deb: $BUILD/zvswitch_${version}_$arch.deb"
