#!/usr/bin/env bash
# bench/busy_core.sh - the sparse engine's threads when another program shares a core:
# whole-command wall times of `warplife run` on a 2048x2048 soup (density 0.5, seed 1) on
# the plane, with all threads, with one thread, and with all threads while a busy loop runs
# on CPU 1 (taskset), medians of REPEAT runs (default 5).  A round waits for its slowest
# thread, so without the engine's threads-pay judgement (sparse.c, judge_pay) the loaded
# runs took 3.6x (dev VM) to 9x (16 cores) the unloaded ones.
#
# usage: bench/busy_core.sh [WARPLIFE] [GENERATIONS]   (defaults: build/warplife, 20000)
set -u
WL=${1:-build/warplife}
GENS=${2:-20000}
REPEAT=${REPEAT:-5}
TMP=$(mktemp -d)
BUSY=
cleanup() { [ -n "$BUSY" ] && kill "$BUSY" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
command -v taskset >/dev/null || { echo "busy_core.sh: taskset (util-linux) is needed" >&2; exit 1; }
[ "$(nproc)" -ge 2 ] || { echo "busy_core.sh: needs two cores or more" >&2; exit 1; }

# median wall time in milliseconds of a command (its output discarded), or "fail"
wall() {
    : > "$TMP/times"
    for _ in $(seq "$REPEAT"); do
        local t0 t1
        t0=$(date +%s%N)
        "$@" > /dev/null 2>&1 || { echo fail; return; }
        t1=$(date +%s%N)
        echo $(((t1 - t0) / 1000)) >> "$TMP/times"
    done
    sort -n "$TMP/times" | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)] / 1000}'
}

"$WL" soup 2048x2048 --density 0.5 --seed 1 -o "$TMP/soup.rle" -q || exit 1
run=("$WL" run "$TMP/soup.rle" -m "$GENS" -e sparse -q)
printf '%-32s %10s\n' case ms
printf '%-32s %10s\n' "all threads" "$(wall "${run[@]}")"
printf '%-32s %10s\n' "one thread" "$(wall "${run[@]}" --threads 1)"
taskset -c 1 bash -c 'while :; do :; done' &
BUSY=$!
sleep 0.2
printf '%-32s %10s\n' "all threads, CPU 1 busy" "$(wall "${run[@]}")"
printf '%-32s %10s\n' "one thread, CPU 1 busy" "$(wall "${run[@]}" --threads 1)"
