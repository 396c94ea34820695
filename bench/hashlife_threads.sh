#!/usr/bin/env bash
# bench/hashlife_threads.sh - how HashLife's parallel steps scale: whole-command wall time of
# `warplife run -e hashlife --threads N` for each N of THREADS on the HashLife suite's
# patterns, the speed-up over one thread, and (when a bgolly is given) Golly's HashLife
# in the same run, with the populations compared.
#
# usage: bench/hashlife_threads.sh [WARPLIFE] [PATTERN_DIR]   (defaults: build/warplife,
#        ../shared/patterns); THREADS="1 2 4 8 16" (default: 1, 2, 4, ... up to the cores);
#        REPEAT=n keeps the median of n runs (default 1); BGOLLY=path adds Golly's HashLife
#        (-M GOLLY_MB, default 8192); SKIP=regex leaves out the cases whose name matches.
# Cases: the suite of bench/hashlife_cases.sh (the Turing machine, PATTERN_DIR/hashlife, the
# breeders).
set -u
WL=${1:-build/warplife}
PAT=${2:-../shared/patterns}
REPEAT=${REPEAT:-1}
SKIP=${SKIP:-^$}
BG=${BGOLLY:-}
if [ -z "${THREADS:-}" ]; then
    THREADS=1
    for ((n = 2; n <= $(nproc); n *= 2)); do THREADS="$THREADS $n"; done
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# median wall seconds of a command; its last output line kept in $TMP/out
# (read from bash's EPOCHREALTIME: a `date` process before and after each run added
# about a millisecond to every time, which the ratios of runs of a few ms felt)
wall() {
    local times=()
    for _ in $(seq "$REPEAT"); do
        local t0 t1
        t0=${EPOCHREALTIME:-$(date +%s.%N)}
        "$@" >"$TMP/out" 2>/dev/null || { echo fail; return; }
        t1=${EPOCHREALTIME:-$(date +%s.%N)}
        times+=("$(awk -v a="${t0/,/.}" -v b="${t1/,/.}" 'BEGIN {print b - a}')")
    done
    printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {printf "%.3f", a[int((NR+1)/2)]}'
}

. "$(dirname "$0")/hashlife_cases.sh"

printf '%-30s' pattern
for t in $THREADS; do printf ' %8s' "${t}t_s"; done
for t in $THREADS; do [ "$t" = 1 ] || printf ' %6s' "x${t}t"; done
[ -n "$BG" ] && printf ' %8s %7s' golly_s best/g
printf ' %s\n' population
for c in "${cases[@]}"; do
    set -- $c
    f=$1 g=$2 name=$(basename "$1")
    [[ $name =~ $SKIP ]] && continue
    declare -A tm=()
    pops=""
    best=
    for t in $THREADS; do
        tm[$t]=$(wall "$WL" run "$f" -e hashlife -m "$g" --popcount -q --threads "$t")
        pops="$pops $(sed -n 's/.*population \([0-9]*\).*/\1/p' "$TMP/out" | tail -1)"
        if [ "${tm[$t]}" != fail ] && { [ -z "$best" ] || awk -v a="${tm[$t]}" -v b="$best" 'BEGIN {exit !(a < b)}'; }; then
            best=${tm[$t]}
        fi
    done
    printf '%-30s' "$name"
    for t in $THREADS; do printf ' %8s' "${tm[$t]}"; done
    one=${tm[${THREADS%% *}]}
    for t in $THREADS; do
        [ "$t" = 1 ] && continue
        if [ "$one" = fail ] || [ "${tm[$t]}" = fail ]; then printf ' %6s' -; else
            printf ' %6.2f' "$(awk -v a="$one" -v b="${tm[$t]}" 'BEGIN {print a / b}')"
        fi
    done
    same=$(echo $pops | tr ' ' '\n' | sort -u | wc -l)
    pop=$(echo $pops | cut -d' ' -f1)
    if [ -n "$BG" ]; then
        gs=$(wall "$BG" -a HashLife -M "${GOLLY_MB:-8192}" -m "$g" -i "$g" "$f")
        gpop=$(tail -1 "$TMP/out" | sed 's/.*: *//; s/,//g')
        [ "$gpop" = "$pop" ] || same=2
        printf ' %8s %7s' "$gs" "$( [ "$gs" = fail ] || [ -z "$best" ] && echo - ||
            awk -v a="$best" -v b="$gs" 'BEGIN {printf "%.2f", a / b}')"
    fi
    if [ "$same" = 1 ]; then printf ' %s\n' "$pop"; else printf ' DIFFERENT:%s %s\n' "$pops" "${gpop:-}"; fi
    unset tm
done
