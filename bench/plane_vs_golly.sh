#!/usr/bin/env bash
# bench/plane_vs_golly.sh - whole-command wall times on the unbounded plane, side by side in
# one run: `warplife run` with the sparse, hashlife and auto engines against Golly's bgolly
# with QuickLife (and HashLife) when a bgolly is on PATH, and the ratios.
#
# usage: bench/plane_vs_golly.sh [WARPLIFE] [PATTERN_DIR]   (defaults: build/warplife,
#        ../shared/patterns); REPEAT=n runs each command n times and keeps the median;
#        BGOLLY=path picks the bgolly (default: the one on PATH); GHASH=0 skips Golly's
#        HashLife (20-30 s a run on the soup).
# Workloads: a 2048x2048 soup (density 0.5, seed 1) to generations 1000, 20000, 100000, and
# the methuselahs of PATTERN_DIR/methuselahs to their stabilisation.
set -u
WL=${1:-build/warplife}
PAT=${2:-../shared/patterns}
REPEAT=${REPEAT:-3}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
BG=${BGOLLY:-$(command -v bgolly || true)}

# median wall time in seconds of a command (its output discarded)
# (read from bash's EPOCHREALTIME: a `date` process before and after each run added
# about a millisecond to every time, which the ratios of runs of a few ms felt)
wall() {
    local times=()
    for _ in $(seq "$REPEAT"); do
        local t0 t1
        t0=${EPOCHREALTIME:-$(date +%s.%N)}
        "$@" > /dev/null 2>&1 || { echo "fail"; return; }
        t1=${EPOCHREALTIME:-$(date +%s.%N)}
        times+=("$(echo "${t1/,/.} - ${t0/,/.}" | bc -l)")
    done
    printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {printf "%.4f", a[int((NR+1)/2)]}'
}

"$WL" soup 2048x2048 --density 0.5 --seed 1 -o "$TMP/soup2048.rle" > /dev/null 2>&1
jobs=("$TMP/soup2048.rle 1000" "$TMP/soup2048.rle 20000" "$TMP/soup2048.rle 100000")
for spec in "52513m.rle 52513" "acorn.lif 5206" "blom.rle 23314" "iwona.rle 28786" \
            "justyna.rle 26458" "lidka-predecessor.rle 29055" "natural-LWSS.rle 23334" \
            "rabbits.lif 17331" "rabbits-relation-17423.rle 17423" \
            "rabbits-relation-17465.rle 17465" "temp-pulsars-big-s.rle 21035"; do
    set -- $spec
    [ -f "$PAT/methuselahs/$1" ] && jobs+=("$PAT/methuselahs/$1 $2")
done

printf '%-28s %7s %8s %8s %8s %8s %8s %9s %9s\n' pattern gens sparse hashlife auto \
       quicklife g-hash ql/sparse ql/auto
for job in "${jobs[@]}"; do
    set -- $job
    f=$1 m=$2
    sp=$(wall "$WL" run "$f" -m "$m" -e sparse -q)
    hl=$(wall "$WL" run "$f" -m "$m" -e hashlife -q)
    au=$(wall "$WL" run "$f" -m "$m" -q)
    ql=- gh=- r1=- r2=-
    if [ -n "$BG" ]; then
        ql=$(wall "$BG" -a QuickLife -m "$m" -q -q "$f")
        [ "${GHASH:-1}" = 0 ] || gh=$(wall "$BG" -a HashLife -m "$m" -q -q "$f")
        r1=$(echo "$ql / $sp" | bc -l | xargs printf '%.1f')
        r2=$(echo "$ql / $au" | bc -l | xargs printf '%.1f')
    fi
    printf '%-28s %7s %8s %8s %8s %8s %8s %9s %9s\n' "$(basename "$f")" "$m" "$sp" "$hl" "$au" \
           "$ql" "$gh" "$r1" "$r2"
done
