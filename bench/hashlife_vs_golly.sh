#!/usr/bin/env bash
# bench/hashlife_vs_golly.sh - the HashLife suite of issue #18, side by side in one run:
# `warplife run -e hashlife` with one thread and with every core against Golly's bgolly with
# its HashLife algorithm (one leap of the whole generation count, -m G -i G), whole-command
# wall time and peak memory of each, the ratios, and whether the populations agree.
#
# usage: bench/hashlife_vs_golly.sh [WARPLIFE] [PATTERN_DIR]   (defaults: build/warplife,
#        ../shared/patterns); REPEAT=n keeps the median of n runs (default 1), the three
#        commands of a case taking turns, timed to the millisecond; BGOLLY=path
#        picks the bgolly (default: the one on PATH; without one only warplife runs);
#        SKIP=regex leaves out the cases whose name matches (e.g. SKIP='soup|metacata');
#        GOLLY_MB=n is bgolly's memory limit (-M; default 8192, as warplife's default cap:
#        bgolly's own default of a few hundred MB makes it collect and recompute, e.g.
#        catacryst to 2^40 in 50 s instead of a few).
#        HALF=1 also runs warplife (one thread) with --maxmemory at half its unlimited peak RSS (issue
#        #18 asks for at most 3x the unlimited time there), stopped after HALF_TIMEOUT
#        seconds (default 300), on a line of its own under each case.
# Cases: the suite of bench/hashlife_cases.sh (the Turing machine, PATTERN_DIR/hashlife, the
# breeders), and a 4096x4096 soup (density 0.5, seed 1, made by warplife and given to both
# as the same RLE file) to generation 1000.
set -u
WL=${1:-build/warplife}
PAT=${2:-../shared/patterns}
REPEAT=${REPEAT:-1}
SKIP=${SKIP:-^$}
BG=${BGOLLY:-$(command -v bgolly || true)}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# once NAME CMD...: one run of CMD, its wall seconds (bash's EPOCHREALTIME, to the
# millisecond) appended to $TMP/NAME.t and its peak RSS (KB) to $TMP/NAME.m, its last output
# line kept in $TMP/NAME.out; returns non-zero when it fails
once() {
    local name=$1 t0 t1
    shift
    t0=${EPOCHREALTIME/,/.}
    /usr/bin/time -f "%M" -o "$TMP/$name.mem1" "$@" >"$TMP/$name.out" 2>/dev/null || return 1
    t1=${EPOCHREALTIME/,/.}
    awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.4f\n", b - a}' >>"$TMP/$name.t"
    cat "$TMP/$name.mem1" >>"$TMP/$name.m"
}

# result NAME: "SECONDS MB" (the median time, the largest peak) of NAME's runs, or "fail"
result() {
    [ -f "$TMP/$1.fail" ] && { echo fail; return; }
    local mem
    mem=$(sort -g "$TMP/$1.m" | tail -1)
    sort -g "$TMP/$1.t" | awk -v m="$mem" '{a[NR]=$1} END {printf "%.3f %.0f", a[int((NR+1)/2)], m / 1024}'
}

. "$(dirname "$0")/hashlife_cases.sh"
"$WL" soup 4096x4096 -s 1 -q -o "$TMP/soup4096.rle" && cases+=("$TMP/soup4096.rle 1000")

ratio() { awk -v a="${1% *}" -v b="$2" 'BEGIN {printf "%.3f", (b > 0 ? a / b : 0)}'; }
printf '%-34s %15s %8s %8s %8s %7s %7s %7s %8s %s\n' pattern generations wl_1t_s wl_all_s \
       golly_s ratio1t ratioall wl_MB golly_MB population
for c in "${cases[@]}"; do
    set -- $c
    f=$1 g=$2 name=$(basename "$1")
    [[ $name =~ $SKIP ]] && continue
    # the three commands take turns, REPEAT rounds, so that this machine's slow and fast
    # moments fall on all of them alike (Golly's own time moved by a third from one run
    # of the suite to the next on the dev VM)
    rm -f "$TMP"/wl.* "$TMP"/wla.* "$TMP"/bg.*
    for _ in $(seq "$REPEAT"); do
        once wl "$WL" run "$f" -e hashlife -m "$g" --popcount -q --threads 1 || touch "$TMP/wl.fail"
        once wla "$WL" run "$f" -e hashlife -m "$g" --popcount -q || touch "$TMP/wla.fail"
        [ -n "$BG" ] && { once bg "$BG" -a HashLife -M "${GOLLY_MB:-8192}" -m "$g" -i "$g" "$f" ||
                          touch "$TMP/bg.fail"; }
    done
    w=$(result wl)
    wpop=$(sed -n 's/.*population \([0-9]*\).*/\1/p' "$TMP/wl.out" | tail -1)
    wa=$(result wla)
    wapop=$(sed -n 's/.*population \([0-9]*\).*/\1/p' "$TMP/wla.out" | tail -1)
    gs=- gm=- r1=- ra=- same="warplife $wpop"
    [ "$wapop" = "$wpop" ] || same="DIFFERENT: warplife one thread $wpop, all $wapop"
    if [ -n "$BG" ]; then
        b=$(result bg)
        bpop=$(tail -1 "$TMP/bg.out" | sed 's/.*: *//; s/,//g')
        if [ "$b" != fail ] && [ "$w" != fail ] && [ "$wa" != fail ]; then
            read -r gs gm <<<"$b"
            r1=$(ratio "$w" "$gs")
            ra=$(ratio "$wa" "$gs")
        fi
        if [ "$wpop" = "$bpop" ] && [ "$wapop" = "$bpop" ]; then same="same ($wpop)"
        else same="DIFFERENT: warplife $wpop / $wapop, golly $bpop"; fi
    fi
    read -r ws wm <<<"${w/fail/fail -}"
    read -r was _ <<<"${wa/fail/fail -}"
    printf '%-34s %15s %8s %8s %8s %7s %7s %7s %8s %s\n' "$name" "$g" "$ws" "$was" "$gs" "$r1" \
           "$ra" "$wm" "$gm" "$same"
    if [ "${HALF:-0}" = 1 ] && [ "$w" != fail ]; then
        half=$((wm / 2))
        rm -f "$TMP"/half.*
        for _ in $(seq "$REPEAT"); do
            once half timeout "${HALF_TIMEOUT:-300}" "$WL" run "$f" -e hashlife -m "$g" --popcount \
                -q --threads 1 --maxmemory "$half" || { touch "$TMP/half.fail"; break; }
        done
        h=$(result half)
        hpop=$(sed -n 's/.*population \([0-9]*\).*/\1/p' "$TMP/half.out" | tail -1)
        if [ "$h" = fail ]; then
            printf '  --maxmemory %s: did not finish in %s s\n' "$half" "${HALF_TIMEOUT:-300}"
        else
            read -r hs hm <<<"$h"
            printf '  --maxmemory %s: %s s, %.2fx the unlimited time, %s MB, population %s\n' \
                "$half" "$hs" "$(awk -v a="$hs" -v b="$ws" 'BEGIN {print (b > 0 ? a / b : 0)}')" \
                "$hm" "$([ "$hpop" = "$wpop" ] && echo same || echo "DIFFERENT ($hpop)")"
        fi
    fi
done
