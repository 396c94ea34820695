#!/usr/bin/env bash
# fuzz/run.sh [SECONDS] - builds the libFuzzer targets with clang (ASan + UBSan, library
# instrumented too) in build-fuzz and runs each for SECONDS seconds (default 10) on a
# fresh copy of its seed corpus (fuzz/seeds/<target>/, gzip bombs among them) with its
# dictionary (fuzz/dict/<target>.dict).  Exits non-zero if any target crashes, leaks, hits
# undefined behaviour, fails its round-trip or window check, takes more than 1 GiB of
# memory (-rss_limit_mb) or 512 MiB in one allocation (-malloc_limit_mb), or spends more
# than 10 s on one input (-timeout: the readers stream, so even a bomb must fail fast);
# the offending input is saved as build-fuzz/crash-<target>-* (oom-*, timeout-*).
#
# Environment: CC_FUZZ (default clang), FUZZ_JOBS (build parallelism, default 2),
# FUZZ_TARGETS (default "rle plaintext life macrocell auto").
set -euo pipefail

secs=${1:-10}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-fuzz
cc=${CC_FUZZ:-clang}
targets=${FUZZ_TARGETS:-"rle plaintext life macrocell auto"}

if ! command -v "$cc" >/dev/null 2>&1; then
    echo "fuzz/run.sh: $cc not found (libFuzzer needs clang)" >&2
    exit 1
fi

mkdir -p "$build"
flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DWL_FUZZ=ON -DWL_ENABLE_CUDA=OFF -DWL_ENABLE_OPENCL=OFF -DWL_ENABLE_MPI=OFF \
    -DWL_ENABLE_VIEWER=OFF -DCMAKE_C_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >"$build/configure.log" 2>&1 ||
    { cat "$build/configure.log" >&2; exit 1; }
build_targets=()
for t in $targets; do build_targets+=(--target "fuzz_$t"); done
cmake --build "$build" -j"${FUZZ_JOBS:-2}" "${build_targets[@]}" >"$build/build.log" 2>&1 ||
    { tail -50 "$build/build.log" >&2; exit 1; }

# A tiny input may describe a valid but astronomically large pattern (a kilobyte of RLE
# can span 100000 x 6000 cells): cap pattern memory (the library then answers
# WL_ERR_TOO_BIG; the reading limit follows the cap) so that such inputs are neither
# reported as OOM nor slow the fuzzer down with copies of huge bitmaps.  Growing to the
# cap takes 1.5 times it at the moment of the copy, plus ASan's quarantine: well inside
# the RSS limit below.
export WL_MAX_PATTERN_BYTES=$((32 << 20))
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

status=0
for t in $targets; do
    corpus=$(mktemp -d "${TMPDIR:-/tmp}/wl-fuzz-$t.XXXXXX")
    cp "$root/fuzz/seeds/$t/"* "$corpus/"
    log=$build/fuzz-$t.log
    dict=()
    if [ -f "$root/fuzz/dict/$t.dict" ]; then dict=(-dict="$root/fuzz/dict/$t.dict"); fi
    if "$build/fuzz/fuzz_$t" "${dict[@]}" -max_total_time="$secs" -max_len=8192 -timeout=10 \
        -rss_limit_mb=1024 -malloc_limit_mb=512 -artifact_prefix="$build/crash-$t-" \
        "$corpus" >"$log" 2>&1; then
        runs=$(grep -Eo 'Done [0-9]+ runs' "$log" | grep -Eo '[0-9]+' | tail -1 || true)
        echo "fuzz_$t: ok (${runs:-?} runs in ${secs} s, corpus grew to $(ls "$corpus" | wc -l) files)"
    else
        echo "fuzz_$t: FAILED (log: $log)" >&2
        tail -40 "$log" >&2
        status=1
    fi
    rm -rf "$corpus"
done
exit $status
