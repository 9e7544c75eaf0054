#!/usr/bin/env bash
# Build the Debian s390x Linux guest image (issue 13) from Debian's own s390x packages.
#
#   guests/linux/build.sh OUTDIR CACHEDIR
#
# OUTDIR (build/guests, the folder of named images: IPL LINUX) gets: linux-kernel.img
# (Debian's s390x vmlinuz, IPLed at 0), linux-initrd.img (a gzipped newc cpio:
# busybox-static, the LCS modules, iperf3 and its libraries, /init), linux-initrd.off and
# linux-initrd.siz (4-byte big-endian start and size of the initrd, IPLed at 0x1040c and
# 0x10414), linux.ins.template (the IPL list, guests/README.md), and linux.manifest.txt
# (the packages and versions the image was made from; written last). CACHEDIR keeps the
# downloaded .debs: a package is fetched only when no .deb of it is there (`rm -rf
# CACHEDIR` to refresh).
#
# Nothing s390x is installed on the host: the packages are fetched with `apt-get download`
# (the s390x architecture must be known to dpkg: `make deps` adds it) and unpacked with
# `dpkg -x`. Kernel modules come from the kernel package; their dependencies are read with
# the host's modinfo, shared libraries with the host's readelf (both read any ELF).
set -euo pipefail

OUT=${1:?usage: build.sh OUTDIR CACHEDIR}
CACHE=${2:?usage: build.sh OUTDIR CACHEDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
ARCH=s390x
# iperf3 and its libraries (about 2 MB more initrd, about 1 s more boot); ZVS_LINUX_IPERF3=0
# leaves them out.
WITH_IPERF3=${ZVS_LINUX_IPERF3:-1}
# Loaded in this order after their dependencies (modinfo's "depends").
MODULES=(ccwgroup lcs)

die() { echo "guests-linux: $*" >&2; exit 1; }
for t in apt-get apt-cache dpkg dpkg-deb modinfo readelf cpio gzip; do
  command -v "$t" >/dev/null || die "no $t on the host: run 'make deps' as root"
done
dpkg --print-foreign-architectures | grep -qx $ARCH ||
  die "dpkg does not know the $ARCH architecture: run 'make deps' as root"

mkdir -p "$OUT" "$CACHE"
OUT=$(cd "$OUT" && pwd) CACHE=$(cd "$CACHE" && pwd)

# The kernel: whatever linux-image-s390x (Debian's meta package) points at.
KPKG=$(apt-cache depends "linux-image-$ARCH:$ARCH" 2>/dev/null |
  sed -n "s/^ *Depends: \(linux-image-[0-9][^:]*-$ARCH\).*/\1/p" | head -1)
[ -n "$KPKG" ] || die "apt knows no linux-image-$ARCH:$ARCH: run 'make deps' (apt-get update) as root"
PKGS=("$KPKG" busybox-static)
[ "$WITH_IPERF3" = 1 ] && PKGS+=(iperf3 libiperf0 libc6 libsctp1 libssl3)

# cached PKG: the cached .deb of PKG, if any.
cached() { ls "$CACHE/${1}_"*"_$ARCH.deb" 2>/dev/null | tail -1 || true; }

# The packages not cached yet, downloaded once, in one apt-get call: apt starts once and
# queues them all (one call per package, one after another, took about 20 s).
missing=()
for p in "${PKGS[@]}"; do [ -n "$(cached "$p")" ] || missing+=("$p:$ARCH"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "guests-linux: downloading ${missing[*]}" >&2
  (cd "$CACHE" && apt-get download -q=2 "${missing[@]}" >/dev/null 2>"$CACHE/apt.err") ||
    die "apt-get download ${missing[*]} failed: $(tail -3 "$CACHE/apt.err")"
fi

# fetch PKG: the cached .deb of PKG.
fetch() {
  local f
  f=$(cached "$1")
  [ -n "$f" ] || die "no .deb for $1 after download"
  echo "$f"
}

STAGE=$(mktemp -d "$OUT/.stage.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
PKGROOT=$STAGE/pkgroot
ROOT=$STAGE/initramfs
mkdir -p "$PKGROOT" "$ROOT"
: > "$STAGE/manifest"
for p in "${PKGS[@]}"; do
  deb=$(fetch "$p")
  dpkg -x "$deb" "$PKGROOT"
  echo "package $(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version)" >> "$STAGE/manifest"
done

KVER=${KPKG#linux-image-}
VMLINUZ=$PKGROOT/boot/vmlinuz-$KVER
[ -s "$VMLINUZ" ] || die "no /boot/vmlinuz-$KVER in $KPKG"
KMOD=$PKGROOT/lib/modules/$KVER

# --- the initramfs tree ----------------------------------------------------------------
mkdir -p "$ROOT"/{bin,sbin,dev,proc,sys,tmp,run,etc,root,usr/bin,usr/sbin,lib/modules}
cp "$PKGROOT/bin/busybox" "$ROOT/bin/busybox"
# The applet links are made by /init at boot (`busybox --install -s`): busybox cannot
# run on this host to list them.
ln -s busybox "$ROOT/bin/sh"
install -m 0755 "$HERE/init" "$ROOT/init"
install -m 0755 "$HERE/zvs-ctl" "$ROOT/bin/zvs-ctl"
printf 'root:x:0:0:root:/root:/bin/sh\n' > "$ROOT/etc/passwd"
printf 'root:x:0:\n' > "$ROOT/etc/group"
printf '127.0.0.1 localhost\n' > "$ROOT/etc/hosts"

# Modules and what they depend on, in load order (dependencies first), uncompressed.
declare -A seen=()
order=()
add_module() {
  local m=$1 f dep
  [ -n "${seen[$m]:-}" ] && return 0
  seen[$m]=1
  f=$(find "$KMOD/kernel" \( -name "$m.ko" -o -name "$m.ko.xz" -o -name "$m.ko.zst" -o -name "$m.ko.gz" \) | head -1)
  [ -n "$f" ] || die "module $m not in $KPKG"
  case $f in
    *.xz) xz -dc "$f" > "$STAGE/$m.ko" ;;
    *.zst) zstd -qdc "$f" > "$STAGE/$m.ko" ;;
    *.gz) gzip -dc "$f" > "$STAGE/$m.ko" ;;
    *) cp "$f" "$STAGE/$m.ko" ;;
  esac
  for dep in $(modinfo -F depends "$STAGE/$m.ko" | tr ',' ' '); do add_module "$dep"; done
  order+=("$m")
}
for m in "${MODULES[@]}"; do add_module "$m"; done
for m in "${order[@]}"; do cp "$STAGE/$m.ko" "$ROOT/lib/modules/$m.ko"; done
printf '%s\n' "${order[@]}" > "$ROOT/lib/modules/load-order"
echo "$KVER" > "$ROOT/etc/zvs-kernel"

# iperf3 and the shared objects it needs (readelf's NEEDED, resolved in the package tree).
if [ "$WITH_IPERF3" = 1 ]; then
  LIBDIRS=("$PKGROOT/lib/$ARCH-linux-gnu" "$PKGROOT/usr/lib/$ARCH-linux-gnu")
  declare -A have=()
  add_elf() {
    local f=$1 n d l
    for n in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
      [ -n "${have[$n]:-}" ] && continue
      have[$n]=1
      l=
      for d in "${LIBDIRS[@]}"; do [ -e "$d/$n" ] && { l=$d/$n; break; }; done
      [ -n "$l" ] || die "iperf3 needs $n, which no unpacked package has"
      mkdir -p "$ROOT/lib/$ARCH-linux-gnu"
      cp -L "$l" "$ROOT/lib/$ARCH-linux-gnu/$n"
      add_elf "$l"
    done
  }
  # The program interpreter, /lib/ld64.so.1 on s390x (libc also names it as NEEDED).
  interp=$(readelf -l "$PKGROOT/usr/bin/iperf3" | sed -n 's/.*interpreter: \(.*\)\]/\1/p')
  [ -n "$interp" ] || die "iperf3 has no program interpreter"
  have[$(basename "$interp")]=1
  cp "$PKGROOT/usr/bin/iperf3" "$ROOT/usr/bin/iperf3"
  add_elf "$PKGROOT/usr/bin/iperf3"
  mkdir -p "$ROOT$(dirname "$interp")"
  cp -L "$PKGROOT$interp" "$ROOT$interp"
fi

# --- the IPL files --------------------------------------------------------------------
( cd "$ROOT" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet ) |
  gzip -9n > "$STAGE/initrd.img"
cp "$VMLINUZ" "$STAGE/kernel.img"
size=$(stat -c %s "$STAGE/initrd.img")
# be32 N: N as 4 big-endian bytes.
be32() { printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $(($1 >> 24 & 255)) $(($1 >> 16 & 255)) $(($1 >> 8 & 255)) $(($1 & 255)))"; }
be32 $((0x02000000)) > "$STAGE/initrd.off"
be32 "$size" > "$STAGE/initrd.siz"
# The kernel first: it covers 0x1040c..0x104ff, which the later lines overwrite. The
# *ZVS lines are for vswitchd (guests/vm_conf.c): the architecture, Hercules' OSTAILOR
# (LINUX: no program-check dump for each page fault the kernel takes as normal), and the
# start of the kernel command line, to which it appends zvs.ip=, zvs.gw= and zvs.mac=.
cat > "$STAGE/linux.ins.template" <<'INS'
* zvswitch Debian s390x Linux guest: kernel at 0, initrd at 0x2000000, command line at 0x10480
*ZVS ARCHMODE z/Arch
*ZVS OSTAILOR LINUX
*ZVS PARMLINE conmode=3215 condev=0x0009 console=ttyS0 zvs.ctl=7001 zvs.run=iperf3
linux-kernel.img 0x00000000
linux-initrd.off 0x0001040c
linux-initrd.siz 0x00010414
@PARMLINE@ 0x00010480
linux-initrd.img 0x02000000
INS
{
  echo "kernel $KVER"
  echo "modules ${order[*]}"
  cat "$STAGE/manifest"
  echo "linux-kernel.img $(stat -c %s "$STAGE/kernel.img")"
  echo "linux-initrd.img $size"
} > "$STAGE/manifest.txt"
for f in kernel.img initrd.img initrd.off initrd.siz; do
  mv -f "$STAGE/$f" "$OUT/linux-$f"
done
mv -f "$STAGE/linux.ins.template" "$OUT/linux.ins.template"
mv -f "$STAGE/manifest.txt" "$OUT/linux.manifest.txt"
echo "guests-linux: $OUT: kernel $KVER ($(stat -c %s "$OUT/linux-kernel.img") bytes), initrd $size bytes"
