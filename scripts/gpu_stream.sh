#!/usr/bin/env bash
# gpu_stream.sh - out-of-core streaming (the `stream` engine) on the GPU machine: stream:cuda
# against the reference engine cell by cell (tests/test_stream), then the speed target of
# issue 7: in-memory CUpS against streamed CUpS for a universe twice the --gpu-memory limit
# (default 65536x65536 = 512 MiB a buffer, --gpu-memory 512M, B3/S23, 1024 generations).
# Logs go under $OUT (default ./gpu-out); the last lines printed are a summary.
#
# usage: scripts/gpu_stream.sh [all|test|bench]   (default all)
# Environment:
#   WL_STREAM_BIN   a folder holding prebuilt `warplife` and `test_stream` (e.g. carried in
#                   .dev-stream/); otherwise they are built in WL_GPU_BUILD (default
#                   build-gpu) with WL_GPU_JOBS jobs (default 16)
#   WL_STREAM_SIZE, WL_STREAM_LIMIT, WL_STREAM_GENS, WL_STREAM_RUNS   benchmark settings
#   WL_STREAM_KERNEL  the cuda kernel, in memory and inside the stream (default best)
#   WL_STREAM_HALOS   halo depths tried besides the planned one (default "256 1024")
set -u
MODE=${1:-all}
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SIZE=${WL_STREAM_SIZE:-65536x65536}
LIMIT=${WL_STREAM_LIMIT:-512M}
GENS=${WL_STREAM_GENS:-1024}
RUNS=${WL_STREAM_RUNS:-3}
KERNEL=${WL_STREAM_KERNEL:-best}
SUMMARY=$OUT/stream_summary.txt
touch "$SUMMARY"
note() { echo "$*" | tee -a "$SUMMARY"; }

note "device: $(nvidia-smi --query-gpu=name,memory.total,pcie.link.gen.max,pcie.link.width.max,driver_version --format=csv,noheader 2>&1 | head -1); $(date -u +%F)"

# ---- binaries ---------------------------------------------------------------------------
if [ -n "${WL_STREAM_BIN:-}" ] && [ -x "$WL_STREAM_BIN/warplife" ] && [ -x "$WL_STREAM_BIN/test_stream" ]; then
  WL=$(cd "$WL_STREAM_BIN" && pwd)/warplife
  TS=$(cd "$WL_STREAM_BIN" && pwd)/test_stream
  note "binaries: prebuilt in $WL_STREAM_BIN"
else
  BUILD=${WL_GPU_BUILD:-$ROOT/build-gpu}
  t0=$(date +%s)
  if ! { cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DWL_ENABLE_CUDA=ON \
           -DWL_ENABLE_OPENCL=OFF -DWL_ENABLE_MPI=OFF -DWL_ENABLE_VIEWER=OFF &&
         cmake --build "$BUILD" -j"${WL_GPU_JOBS:-16}" --target warplife test_stream; } \
         >"$OUT/stream_build.log" 2>&1; then
    tail -30 "$OUT/stream_build.log"
    note "BUILD FAILED (see stream_build.log)"
    exit 1
  fi
  note "build: ok in $(( $(date +%s) - t0 )) s"
  WL=$(find "$BUILD" -name warplife -type f -perm -u+x | head -1)
  TS=$(find "$BUILD" -name test_stream -type f -perm -u+x | head -1)
fi

# ---- stream:cuda (and stream:cpu, stream:ref) against ref --------------------------------
if [ "$MODE" = all ] || [ "$MODE" = test ]; then
  t0=$(date +%s)
  (cd "$ROOT/tests" && timeout 240 "$TS") >"$OUT/test_stream.log" 2>&1
  rc=$?
  grep -E "check failed|skipped" "$OUT/test_stream.log" | head -10
  note "test_stream: rc=$rc in $(( $(date +%s) - t0 )) s: $(grep -E '^seed|^test_stream:' "$OUT/test_stream.log" | tr '\n' ' ')"
fi

# ---- in-memory against streamed ----------------------------------------------------------
# One bench line: prints the JSON object; $1 = label, the rest = extra options.
bench() {
  local label=$1
  shift
  "$WL" bench --engine cuda --kernel "$KERNEL" --size "$SIZE" --generations "$GENS" --runs "$RUNS" \
    --json "$@" >"$OUT/bench_${KERNEL}_$label.json" 2>"$OUT/bench_${KERNEL}_$label.err"
  local rc=$?
  local cups
  cups=$(grep -o '"cups":[0-9.e+]*' "$OUT/bench_${KERNEL}_$label.json" | cut -d: -f2)
  note "bench $label: rc=$rc $SIZE $GENS gens, cuda $KERNEL $*: CUpS ${cups:-none}, median $(grep -o '"median_s":[0-9.e+-]*' "$OUT/bench_${KERNEL}_$label.json" | cut -d: -f2) s"
  grep -E "out-of-core|error|warplife:" "$OUT/bench_${KERNEL}_$label.err" | head -3 >&2
  echo "${cups:-0}"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }

if [ "$MODE" = all ] || [ "$MODE" = bench ]; then
  mem_t=$(bench torus_inmem --torus | tail -1)
  str_t=$(bench torus_stream --torus --gpu-memory "$LIMIT" | tail -1)
  note "torus: streamed / in-memory = $(ratio "$str_t" "$mem_t") (target >= 0.5)"
  mem_b=$(bench bounded_inmem --bounded | tail -1)
  str_b=$(bench bounded_stream --bounded --gpu-memory "$LIMIT" | tail -1)
  note "bounded: streamed / in-memory = $(ratio "$str_b" "$mem_b") (target >= 0.5)"
  # halo depth (generations per pass): fewer halo rows against more passes
  for k in ${WL_STREAM_HALOS:-256 1024}; do
    str_k=$(WL_STREAM_HALO=$k bench torus_stream_k$k --torus --gpu-memory "$LIMIT" | tail -1)
    note "torus, WL_STREAM_HALO=$k: streamed / in-memory = $(ratio "$str_k" "$mem_t")"
  done
  str_q=$(bench torus_stream_quarter --torus --gpu-memory "${WL_STREAM_LIMIT4:-256M}" | tail -1)
  note "torus, 4x the limit (${WL_STREAM_LIMIT4:-256M}): streamed / in-memory = $(ratio "$str_q" "$mem_t")"
fi
echo "---- summary ----"
cat "$SUMMARY"
