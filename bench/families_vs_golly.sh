#!/usr/bin/env bash
# bench/families_vs_golly.sh - Golly's multi-state families side by side with Golly's own
# algorithm for each (bgolly -a Generations, "Larger than Life", Super), whole-command wall
# times in one run, and whether the populations agree.
#
# usage: bench/families_vs_golly.sh [WARPLIFE] [GOLLY_PATTERNS]   (defaults: build/warplife,
#        no pattern folder); BGOLLY=path picks the bgolly (default: the one on PATH);
#        REPEAT=n runs each command n times and keeps the median (default 1); ENGINE=e runs
#        warplife with -e e (default auto: the grow engine on the cpu or cuda engine);
#        LIMIT=s stops a command after s seconds (default 120; shown as "timeout").
# Workloads: random soups on the plane (4096^2 under Generations rules for 200 generations,
# 2048^2 under Larger than Life rules for 300) and, given Golly's Patterns folder, every file of its
# Generations, Larger-than-Life and Super folders, to generation GENS (default 1000).
set -u
WL=${1:-build/warplife}
GP=${2:-}
REPEAT=${REPEAT:-1}
GENS=${GENS:-1000}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
BG=${BGOLLY:-$(command -v bgolly || true)}
EOPT=()
[ -n "${ENGINE:-}" ] && EOPT=(-e "$ENGINE")

# median wall time in seconds of a command; its last output line goes to $TMP/last
# (read from bash's EPOCHREALTIME: a `date` process before and after each run added
# about a millisecond to every time, which the ratios of runs of a few ms felt)
wall() {
    local times=()
    for _ in $(seq "$REPEAT"); do
        local t0 t1
        t0=${EPOCHREALTIME:-$(date +%s.%N)}
        timeout "${LIMIT:-120}" "$@" > "$TMP/out" 2>&1
        local rc=$?
        [ $rc = 124 ] && { echo "timeout"; return; }
        [ $rc = 0 ] || { echo "fail"; return; }
        t1=${EPOCHREALTIME:-$(date +%s.%N)}
        times+=("$(echo "${t1/,/.} - ${t0/,/.}" | bc -l)")
    done
    tail -1 "$TMP/out" > "$TMP/last"
    printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {printf "%.3f", a[int((NR+1)/2)]}'
}

# the Golly algorithm of a rule
algo() {
    case "$1" in
        *History*|*Super*) echo Super ;;
        R[0-9]*|[0-9]*,*) echo "Larger than Life" ;;
        *) echo Generations ;;
    esac
}

jobs=()
for rule in "345/2/4" "/2/3" "23/3/3" "1456/2356/16"; do
    "$WL" soup 4096x4096 --density 0.5 --seed 1 -o "$TMP/g.rle" > /dev/null 2>&1
    f="$TMP/soup-gen-$(echo "$rule" | tr '/' '_').rle"
    sed "s|rule = B3/S23|rule = $rule|" "$TMP/g.rle" > "$f"
    jobs+=("$f|$rule|${SOUP_GENS:-200}")
done
for rule in "R5,C0,M1,S34..58,B34..45,NM" "R10,C0,M1,S123..212,B123..170,NM" "R5,C2,S33-57,B34-45,NN"; do
    "$WL" soup 2048x2048 --density 0.5 --seed 1 -o "$TMP/l.rle" > /dev/null 2>&1
    f="$TMP/soup-ltl-$(echo "$rule" | tr '/,.' '___').rle"
    sed "s|rule = B3/S23|rule = $rule|" "$TMP/l.rle" > "$f"
    jobs+=("$f|$rule|${SOUP_GENS:-300}")
done
if [ -n "$GP" ]; then
    for d in Generations Larger-than-Life Super; do
        for f in "$GP/$d"/*.rle "$GP/$d"/*.rle.gz; do
            [ -f "$f" ] || continue
            rule=$("$WL" info "$f" 2>/dev/null | awk '/^rule /{print $2}')
            jobs+=("$f|$rule|$GENS")
        done
    done
fi

printf '%-44s %-10s %6s %9s %9s %9s %s\n' pattern family gens warplife golly golly/wl populations
for job in "${jobs[@]}"; do
    IFS='|' read -r f rule m <<< "$job"
    w=$(wall "$WL" run "$f" -m "$m" --popcount -q "${EOPT[@]}")
    wp=$(awk '{print $4}' "$TMP/last")
    g=- gp=- ratio=- same=-
    if [ -n "$BG" ]; then
        g=$(wall "$BG" -a "$(algo "$rule")" -m "$m" "$f")
        gp=$(sed 's/.*: //; s/,//g' "$TMP/last")
        if [ "$g" != fail ] && [ "$w" != fail ] && [ "$g" != timeout ] && [ "$w" != timeout ]; then
            ratio=$(echo "$g / $w" | bc -l | xargs printf '%.1f')
            [ "$wp" = "$gp" ] && same=equal || same="DIFFER ($wp, $gp)"
        fi
    fi
    printf '%-44s %-10s %6s %9s %9s %9s %s\n' "$(basename "$f" | cut -c1-44)" \
           "$(algo "$rule" | cut -c1-10)" "$m" "$w" "$g" "$ratio" "$same"
done
