#!/usr/bin/env bash
# Install every Debian package zvswitch needs to build, test, benchmark and run its demo.
# Idempotent: packages already present are skipped, so `make check` can call this each time
# at the cost of a dpkg query per package and one apt-cache query.
set -euo pipefail

PACKAGES=(
  build-essential clang llvm libclang-rt-14-dev pkg-config    # compilers, sanitizer runtimes
  libpcap-dev zlib1g-dev libc-ares-dev libcmocka-dev           # libraries we link
  libmicrohttpd-dev                                            # perfkit serve's HTTP
  libcpg-dev libvotequorum-dev libcmap-dev                    # Corosync's clients: the IVL domain (ivl/cluster_corosync.c)
  corosync                                                     # its engine: one per system in the IVL lab
  lcov valgrind                                                # coverage, leak checking
  iproute2 iperf3 ethtool nftables iputils-ping procps psmisc  # namespace labs
  tcpreplay tshark python3-scapy                               # pcap replay and decoding
  dnsmasq-base                                                 # names lab: a DNS server the test runs (no service)
  openvswitch-switch                                           # OVS userspace: bench peer, LACP peer
  hercules                                                     # the emulated mainframe
  gcc-s390x-linux-gnu binutils-s390x-linux-gnu                 # cross tools: guest images (make guests)
  cpio kmod xz-utils binutils                                  # the Linux guest's initramfs (make guests)
  debhelper dpkg-dev lintian                                   # make deb: the Debian package
  adduser man-db systemd                                       # its lab: what dpkg -i and its checks run
  curl chromium chromium-driver python3-selenium               # perfkit serve's labs: a client, a headless browser
  prometheus                                                   # promtool and a server to scrape /metrics
)

# The Linux guest image is made from Debian's s390x packages, fetched with `apt-get
# download` and unpacked with `dpkg -x` (nothing s390x is installed): dpkg must know the
# architecture and apt its package lists.
need_arch=0
dpkg --print-foreign-architectures | grep -qx s390x || need_arch=1
if [ $need_arch -eq 0 ] && ! apt-cache show linux-image-s390x:s390x >/dev/null 2>&1; then
  need_arch=2
fi
if [ $need_arch -ne 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "deps: dpkg needs the s390x architecture (Linux guest image); run 'make deps' as root" >&2
    exit 1
  fi
  [ $need_arch -eq 1 ] && { echo "deps: adding the s390x architecture (package lists only)"; dpkg --add-architecture s390x; }
  apt-get update -qq
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "deps: missing packages: ${missing[*]}; run 'make deps' as root" >&2
  exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Keep package maintainer scripts from starting services (OVS) on the host: tests and
# benchmarks start their own instances in private directories.
policy=/usr/sbin/policy-rc.d
made_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' > "$policy"; chmod +x "$policy"; made_policy=1
fi
trap '[ $made_policy -eq 1 ] && rm -f "$policy"' EXIT
echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
# man-db's trigger rebuilds the whole manual index after every install that ships a man page
# (seconds each time, for an index nothing of ours reads: `man -w` finds pages without it).
echo "man-db man-db/auto-update boolean false" | debconf-set-selections
apt-get update -qq
# --force-unsafe-io: dpkg skips its fsync per unpacked file; a machine that loses power
# mid-install reinstalls. Measured on chromium (reinstalled, lists fetched, 2 runs each):
# 21.2 s and 8.7 s without, 13.1 s and 7.2 s with.
apt-get install -y -qq --no-install-recommends -o Dpkg::Options::=--force-unsafe-io \
  "${missing[@]}" >/dev/null
echo "deps: done"
