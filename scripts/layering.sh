#!/usr/bin/env bash
# Checks every #include of the product's folders against layers.conf: a folder may include
# its own headers, the folders its line names, and system headers; never another folder's
# private header (*_impl.h, *_internal.h). Every depth is checked: a file belongs to the
# deepest folder layers.conf names above it (guests/frameprog/x.c to guests/frameprog, a
# subfolder without a line of its own to its parent's), and an include "a/b/h.h" names the
# deepest configured folder of its path. Prints each violation as file:line and exits 1 if
# there is any.
set -euo pipefail
root=$(cd "${1:-$(dirname "$0")/..}" && pwd)
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

# owner PATH: the deepest folder layers.conf names that holds PATH (a file or an include),
# or nothing.
owner() {
    local p=$1 best='' f
    for f in "${folders[@]}"; do
        [[ $p == "$f"/* ]] && [ ${#f} -gt ${#best} ] && best=$f
    done
    echo "$best"
}

bad=0 files=0
for folder in "${folders[@]}"; do
    [ -d "$root/$folder" ] || { echo "layering: layers.conf names $folder/, which does not exist" >&2; bad=$((bad + 1)); continue; }
done
while IFS= read -r -d '' f; do
    rel=${f#"$root"/}
    folder=$(owner "$rel")
    [ -n "$folder" ] || continue
    files=$((files + 1))
    while IFS=: read -r lineno inc; do
        inc=${inc#*\"}; inc=${inc%%\"*}
        case $inc in
        */*) to=$(owner "$inc"); [ -n "$to" ] || to=${inc%%/*} ;;
        *)   to=$folder ;;              # a header beside the file
        esac
        if [[ ${allowed[$folder]} != *" $to "* ]]; then
            echo "$rel:$lineno: $folder/ may not include \"$inc\" (it may use: ${says[$folder]})"
            bad=$((bad + 1))
        elif [ "$to" != "$folder" ] && [[ $inc == *_impl.h || $inc == *_internal.h ]]; then
            echo "$rel:$lineno: \"$inc\" is private to $to/"
            bad=$((bad + 1))
        fi
    done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" || true)
done < <(for d in "${folders[@]}"; do [ -d "$root/$d" ] && find "$root/$d" -name '*.[ch]' -print0; done | sort -zu)
if [ "$bad" -gt 0 ]; then
    echo "layering: $bad include(s) against the layers in $files files"
    exit 1
fi
echo "layering: $files files, every include follows layers.conf"
