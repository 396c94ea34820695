#!/usr/bin/env bash
# test_layers.sh - holds the library's layering (docs/ARCHITECTURE.md, "Layers"):
#
#   core  ->  io, render  ->  engines  ->  universe (the facade)  ->  apps
#
# Each arrow says "may use".  Three checks:
#   1. Symbols: from the object files of libwarplife, which folder defines each global
#      symbol and which folders use it; a use that points up the layers (core using io,
#      io using an engine, an engine using the facade...) or across engine folders (one
#      engine calling another's functions) fails.  Engines reach each other only through
#      the engine interface (wl_engine_find and the ops table, which the facade's registry
#      defines: the one allowed upward name, since it is how an engine asks for another).
#   2. Includes: no file under apps/ includes src/core/internal.h (programs see only
#      include/warplife.h), and no engine folder includes a header of another engine.
#   3. No circle between folders (follows from 1, checked anyway on the folder graph).
#
# usage: test_layers.sh SOURCE_DIR OBJECT_DIR   (OBJECT_DIR: libwarplife's CMakeFiles dir)
set -u
SRC=${1:?source dir}
OBJ=${2:?object dir}
fail=0
bad() { echo "layer check failed: $*"; fail=1; }

# the layer of a folder (src/<x> or src/engine/<x>)
layer_of() {
    case "$1" in
    core) echo 0 ;;
    io | render) echo 1 ;;
    engine/*) echo 2 ;;
    universe) echo 3 ;;
    *) echo 9 ;;
    esac
}

command -v nm >/dev/null || { echo "skipped: no nm"; exit 0; }
# the object files of sources that exist (a build directory may keep objects of files
# that were moved or deleted)
objs=()
while read -r o; do
    rel=${o#*CMakeFiles/libwarplife.dir/}
    [ -e "$SRC/${rel%.o}" ] && objs+=("$o")
done < <(find "$OBJ" -name '*.o' -path '*/src/*' | sort)
[ "${#objs[@]}" -gt 0 ] || { echo "layer check: no object files under $OBJ"; exit 1; }

folder_of_obj() {
    local rel=${1#*src/}
    rel=${rel%/*}
    case "$rel" in engine/*) echo "$rel" | cut -d/ -f1-2 ;; *) echo "${rel%%/*}" ;; esac
}

declare -A def
for o in "${objs[@]}"; do
    f=$(folder_of_obj "$o")
    while read -r sym; do def[$sym]=$f; done < <(nm --defined-only -g "$o" 2>/dev/null |
        awk '$2 ~ /^[TDBRVWCG]$/ {print $3}')
done

declare -A edges
for o in "${objs[@]}"; do
    f=$(folder_of_obj "$o")
    lf=$(layer_of "$f")
    while read -r sym; do
        g=${def[$sym]:-}
        [ -n "$g" ] && [ "$g" != "$f" ] || continue
        lg=$(layer_of "$g")
        edges["$f -> $g"]=1
        # the registry's lookup is how engines find each other (the interface, not a call
        # into another engine's code)
        if [ "$sym" = wl_engine_find ]; then continue; fi
        if [ "$lg" -gt "$lf" ]; then
            bad "${o#"$OBJ"/} ($f) uses $sym from $g, a higher layer"
        elif [ "$lf" = 2 ] && [ "$lg" = 2 ]; then
            bad "${o#"$OBJ"/} ($f) uses $sym from another engine ($g)"
        fi
    done < <(nm --undefined-only "$o" 2>/dev/null | awk '{print $2}')
done

# includes
while read -r file; do
    bad "$file includes internal.h (programs use include/warplife.h only)"
done < <(grep -rl '#include "internal.h"' "$SRC/apps" 2>/dev/null)
for dir in "$SRC"/src/engine/*/; do
    name=$(basename "$dir")
    for other in "$SRC"/src/engine/*/; do
        o=$(basename "$other")
        [ "$o" = "$name" ] && continue
        for h in "$other"*.h "$other"*.cuh; do
            [ -e "$h" ] || continue
            hb=$(basename "$h")
            if grep -rqs "#include \"$hb\"" "$dir"; then
                bad "src/engine/$name includes $hb of src/engine/$o"
            fi
        done
    done
done

# no circle between folders (a depth-first search on the folder graph)
declare -A adj
for e in "${!edges[@]}"; do
    a=${e% -> *}
    b=${e#* -> }
    [ "$(layer_of "$a")" = 2 ] && [ "$b" = universe ] && continue # wl_engine_find only
    adj[$a]="${adj[$a]:-} $b"
done
declare -A state
cycle=""
visit() {
    local n=$1 m
    state[$n]=1
    for m in ${adj[$n]:-}; do
        if [ "${state[$m]:-0}" = 1 ]; then cycle="$cycle $n->$m"; fi
        if [ "${state[$m]:-0}" = 0 ]; then visit "$m"; fi
    done
    state[$n]=2
}
for n in "${!adj[@]}"; do [ "${state[$n]:-0}" = 0 ] && visit "$n"; done
[ -z "$cycle" ] || bad "circle between folders:$cycle"

echo "folder graph:"
for e in "${!edges[@]}"; do echo "  $e"; done | sort
if [ "$fail" = 0 ]; then echo "test_layers: passed"; else echo "test_layers: FAILED"; fi
exit $fail
