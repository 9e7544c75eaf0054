#!/usr/bin/env bash
# Prints zvswitch's version: the VERSION file, and in a git tree "+gitN.gHASH" after it, N the
# commits since VERSION last changed and HASH the commit built (0.3.0+git12.g1a2b3c4). The
# form sorts as a Debian version does: a later commit of the same VERSION is a higher N, and
# a new VERSION starts above every +git form of the one before.
#   scripts/version.sh [ROOT]
set -eu
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
v=$(tr -d ' \n' <"$root/VERSION")
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
   head=$(git -C "$root" rev-parse --short=7 HEAD 2>/dev/null); then
  base=$(git -C "$root" log -1 --format=%H -- VERSION 2>/dev/null || true)
  if [ -n "$base" ]; then n=$(git -C "$root" rev-list --count "$base..HEAD")
  else n=$(git -C "$root" rev-list --count HEAD); fi
  v="$v+git$n.g$head"
fi
echo "$v"
