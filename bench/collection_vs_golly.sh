#!/usr/bin/env bash
# bench/collection_vs_golly.sh - every pattern file of a folder tree (Golly's own Patterns
# folder, say) run by warplife and by Golly's bgolly to the same generation: whether each
# loads in both and whether the populations agree.  A check of correctness, not of speed.
#
# usage: bench/collection_vs_golly.sh [WARPLIFE] PATTERN_DIR [GENERATIONS]   (defaults:
#        build/warplife, generation 100); BGOLLY=path picks the bgolly (default: the one on
#        PATH); LIMIT=s stops a command after s seconds (default 30).
# warplife runs `run FILE -m G -q --popcount` (its default engine, auto); bgolly runs
# `-a ALGO -m G FILE`, ALGO Golly's algorithm for the family warplife reports for the rule
# (`warplife info`): Generations, "Larger than Life", Super for History and Super rules,
# HashLife for macrocell files of two-state rules, QuickLife for the other two-state ones.
# One line per file: ok (equal populations), DIFF, WLFAIL (warplife refused or failed: its
# message follows), BGFAIL (bgolly gave no population: not finished within LIMIT, or a
# file it does not read); then the counts of each.
set -u
WL=${1:-build/warplife}
DIR=${2:?usage: bench/collection_vs_golly.sh [WARPLIFE] PATTERN_DIR [GENERATIONS]}
G=${3:-100}
BG=${BGOLLY:-$(command -v bgolly || true)}
[ -n "$BG" ] || { echo "collection_vs_golly: no bgolly (set BGOLLY)" >&2; exit 1; }
LIMIT=${LIMIT:-30}
declare -A count
while IFS= read -r -d '' f; do
    info=$("$WL" info "$f" 2>/dev/null)
    rule=$(awk '/^rule /{print $2}' <<<"$info")
    family=$(awk '/^family /{print $2}' <<<"$info" | tr -d ,)
    case "$family" in
        generations) algo=Generations ;;
        larger*) algo="Larger than Life" ;;
        *) case "$rule" in *History*|*Super*) algo=Super ;; *) algo=QuickLife ;; esac ;;
    esac
    case "$f" in *.mc|*.mc.gz) [ "$algo" = QuickLife ] && algo=HashLife ;; esac
    wout=$(timeout "$LIMIT" "$WL" run "$f" -m "$G" -q --popcount 2>&1 | tail -1)
    wpop=$(awk '/^generation /{print $4}' <<<"$wout")
    # (bgolly prints "G: population", both with thousands separators)
    bpop=$(timeout "$LIMIT" "$BG" -a "$algo" -m "$G" "$f" 2>&1 | tr -d , |
           awk -v g="$G" '$1 == g":" {p = $2} END {print p}')
    if [ -z "$wpop" ]; then st=WLFAIL
    elif [ -z "$bpop" ]; then st=BGFAIL
    elif [ "$wpop" = "$bpop" ]; then st=ok
    else st=DIFF; fi
    count[$st]=$(( ${count[$st]:-0} + 1 ))
    printf '%-6s %s  rule %s (%s)  warplife %s  golly %s%s\n' "$st" "${f#"$DIR"/}" "${rule:--}" \
           "$algo" "${wpop:--}" "${bpop:--}" "$([ $st = WLFAIL ] && echo "  ($wout)")"
done < <(find "$DIR" -type f \( -name '*.rle' -o -name '*.mc' -o -name '*.lif' -o -name '*.life' \
                               -o -name '*.cells' -o -name '*.gz' -o -name '*.mcl' -o -name '*.rle3' \) \
         -print0 | sort -z)
for st in ok DIFF WLFAIL BGFAIL; do printf '%s %d  ' "$st" "${count[$st]:-0}"; done
echo
[ "${count[DIFF]:-0}" = 0 ]
