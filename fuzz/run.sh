#!/usr/bin/env bash
# fuzz/run.sh [SECONDS] - builds the libFuzzer targets with clang (ASan + UBSan, library
# instrumented too) in build-fuzz and runs each for SECONDS seconds (default 10) on a
# fresh copy of its seed corpus (fuzz/seeds/<target>/) with its dictionary
# (fuzz/dict/<target>.dict).  Exits non-zero if any target crashes, leaks, hits undefined
# behaviour, runs out of memory or fails its round-trip check; the offending input is
# saved as build-fuzz/crash-<target>-*.
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

# A tiny input may describe a valid but astronomically large pattern: cap pattern memory
# (the library then answers WL_ERR_TOO_BIG) so that such inputs are not reported as OOM.
export WL_MAX_PATTERN_BYTES=$((256 << 20))
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

status=0
for t in $targets; do
    corpus=$(mktemp -d "${TMPDIR:-/tmp}/wl-fuzz-$t.XXXXXX")
    cp "$root/fuzz/seeds/$t/"* "$corpus/"
    log=$build/fuzz-$t.log
    dict=()
    if [ -f "$root/fuzz/dict/$t.dict" ]; then dict=(-dict="$root/fuzz/dict/$t.dict"); fi
    if "$build/fuzz/fuzz_$t" "${dict[@]}" -max_total_time="$secs" -max_len=8192 -timeout=30 \
        -rss_limit_mb=2048 -artifact_prefix="$build/crash-$t-" "$corpus" >"$log" 2>&1; then
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
