#!/usr/bin/env bash
# Checks every #include of the product's folders against layers.conf: a folder may include
# its own headers, the folders its line names, and system headers; never another folder's
# private header (*_impl.h, *_internal.h). Prints each violation as file:line and exits 1 if
# there is any.
#   scripts/layering.sh [ROOT]     ROOT: the tree to check (default: the repository)
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
conf="$root/layers.conf"
[ -f "$conf" ] || { echo "layering: no $conf" >&2; exit 2; }

declare -A allowed says
folders=()
while read -r line; do
    line=${line%%#*}
    [ -n "${line// /}" ] || continue
    folder=${line%%:*}
    folders+=("$folder")
    uses=$(echo ${line#*:})
    allowed[$folder]=" $folder $uses "
    says[$folder]=${uses:-nothing else}
done < "$conf"

bad=0 files=0
for folder in "${folders[@]}"; do
    [ -d "$root/$folder" ] || { echo "layering: layers.conf names $folder/, which does not exist" >&2; bad=$((bad + 1)); continue; }
    for f in "$root/$folder"/*.[ch]; do
        [ -e "$f" ] || continue
        files=$((files + 1))
        while IFS=: read -r lineno inc; do
            inc=${inc#*\"}; inc=${inc%%\"*}
            case $inc in
            */*) to=${inc%%/*} ;;
            *)   to=$folder ;;              # a header beside the file
            esac
            rel=${f#"$root"/}
            if [[ ${allowed[$folder]} != *" $to "* ]]; then
                echo "$rel:$lineno: $folder/ may not include \"$inc\" (it may use: ${says[$folder]})"
                bad=$((bad + 1))
            elif [ "$to" != "$folder" ] && [[ $inc == *_impl.h || $inc == *_internal.h ]]; then
                echo "$rel:$lineno: \"$inc\" is private to $to/"
                bad=$((bad + 1))
            fi
        done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" || true)
    done
done
if [ "$bad" -gt 0 ]; then
    echo "layering: $bad include(s) against the layers in $files files"
    exit 1
fi
echo "layering: $files files, every include follows layers.conf"
