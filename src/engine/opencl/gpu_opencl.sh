#!/usr/bin/env bash
# gpu_opencl.sh - the opencl engine's part of a GPU-machine run (called by scripts/gpu.sh):
# finds OpenCL (headers, ICD loader, the NVIDIA driver's OpenCL library), builds warplife
# with the OpenCL engine in its own build folder, runs the opencl tests against ref
# (test_engines --gpu -e opencl, test_opencl), then `warplife bench --engine opencl` on the
# same workloads as the CUDA benchmarks, with cuda `best` beside it (built in a second folder
# when nvcc is there), and a sweep of best's tile shapes.
#
# usage: src/engine/opencl/gpu_opencl.sh OUTDIR        (logs go to OUTDIR/opencl_*.txt;
#                                                       summary lines on stdout)
# A bare GPU machine may lack the OpenCL headers and loader: carry the folder .device/opencl
# holding the .deb files of opencl-c-headers, ocl-icd-opencl-dev and ocl-icd-libopencl1
# (fetched on a Debian machine with `apt-get download`); they are unpacked under /tmp, not /.
# If the driver's ICD file is missing but libnvidia-opencl.so.1 exists, one is written under
# /tmp and OCL_ICD_VENDORS points there.
# Environment: WL_GPU_JOBS (build jobs, default 16), WL_OPENCL_BENCH_SIZE (default 65536x65536),
# WL_OPENCL_CUDA_WL (a CUDA-enabled warplife for cuda `best` beside opencl: no CUDA build),
# WL_OPENCL_WITH_CUDA=0 (build without CUDA, e.g. to try this script on a CPU with PoCL),
# WL_OPENCL_SWEEP=0 (leave out the sweep of lop3v tile shapes).
set -u
OUTDIR=${1:-$PWD/gpu-out}
mkdir -p "$OUTDIR"
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=$ROOT/build-gpu-opencl
JOBS=${WL_GPU_JOBS:-16}
SIZE=${WL_OPENCL_BENCH_SIZE:-65536x65536}
CUDA_ON=ON
[ "${WL_OPENCL_WITH_CUDA:-1}" = 0 ] && CUDA_ON=OFF
say() { echo "opencl: $*"; }

# ---- OpenCL headers and loader ----------------------------------------------------------
CMAKE_CL=()
if [ ! -f /usr/include/CL/cl.h ] || ! ldconfig -p | grep -q 'libOpenCL\.so ('; then
  if ls "$ROOT"/.device/opencl/*.deb >/dev/null 2>&1; then
    P=/tmp/wl-opencl-prefix
    mkdir -p "$P"
    for f in "$ROOT"/.device/opencl/*.deb; do dpkg -x "$f" "$P"; done
    LIBDIR=$(dirname "$(find "$P" -name 'libOpenCL.so.1*' | head -1)")
    CMAKE_CL=(-DOpenCL_INCLUDE_DIR="$P/usr/include" -DOpenCL_LIBRARY="$LIBDIR/libOpenCL.so.1")
    export LD_LIBRARY_PATH="$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    say "headers and ICD loader from the carried .device/opencl packages"
  else
    say "no OpenCL headers/loader here and no carried .device/opencl/*.deb: skipped"
    exit 0
  fi
fi

# ---- the NVIDIA OpenCL driver (an ICD) ----------------------------------------------------
# The GPU machine also has PoCL registered, which would be device 0: load the NVIDIA driver's
# library alone (OCL_ICD_FILENAMES) so that device 0 is the GPU and every run below uses it.
NVCL=$(ldconfig -p | awk '/libnvidia-opencl.so/{print $NF; exit}')
[ -z "$NVCL" ] && NVCL=$(find /usr/local/nvidia /usr/lib /usr/lib64 -name 'libnvidia-opencl.so*' 2>/dev/null | head -1)
if [ -n "$NVCL" ]; then
  export OCL_ICD_FILENAMES=$NVCL OCL_ICD_VENDORS=/nonexistent
  say "using only the NVIDIA OpenCL driver $NVCL"
else
  say "no NVIDIA OpenCL driver library (libnvidia-opencl.so) on this machine"
fi

# ---- build ----------------------------------------------------------------------------------
# The OpenCL engine alone (C only: seconds), and the CUDA engine in its own folder in the
# background (for cuda `best` on the same GPU), so a CUDA build problem cannot stop the
# OpenCL run.
t0=$(date +%s)
if ! { cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DWL_ENABLE_CUDA=OFF \
         -DWL_ENABLE_OPENCL=ON -DWL_ENABLE_MPI=OFF -DWL_ENABLE_VIEWER=OFF "${CMAKE_CL[@]}" &&
       cmake --build "$BUILD" -j"$JOBS" --target warplife test_engines test_opencl; } \
       >"$OUTDIR/opencl_build.txt" 2>&1; then
  tail -20 "$OUTDIR/opencl_build.txt"
  say "BUILD FAILED (see opencl_build.txt)"
  exit 1
fi
say "build: ok in $(( $(date +%s) - t0 )) s"
CUDA_PID=
WLC=${WL_OPENCL_CUDA_WL:-} # a CUDA-enabled warplife built elsewhere (scripts/gpu.sh's)
if [ -z "$WLC" ] && [ "$CUDA_ON" = ON ] && command -v nvcc >/dev/null 2>&1; then
  { cmake -S "$ROOT" -B "$BUILD-cuda" -DCMAKE_BUILD_TYPE=Release -DWL_ENABLE_CUDA=ON \
      -DWL_ENABLE_OPENCL=OFF -DWL_ENABLE_MPI=OFF -DWL_ENABLE_VIEWER=OFF &&
    cmake --build "$BUILD-cuda" -j"$JOBS" --target warplife; } >"$OUTDIR/opencl_cuda_build.txt" 2>&1 &
  CUDA_PID=$!
fi
WL=$(find "$BUILD" -name warplife -type f -perm -u+x | head -1)
TE=$(find "$BUILD" -name test_engines -type f -perm -u+x | head -1)
TO=$(find "$BUILD" -name test_opencl -type f -perm -u+x | head -1)
if ! "$WL" info | grep -q '^  opencl '; then
  say "CMake did not find OpenCL: the opencl engine is not built (see opencl_build.txt)"
  exit 0
fi
"$WL" info --devices 2>&1 | tee "$OUTDIR/opencl_devices.txt" | sed 's/^/opencl: /'
command -v nvidia-smi >/dev/null && say "$(nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | head -1)"

# ---- tests ----------------------------------------------------------------------------------
t0=$(date +%s)
(cd "$ROOT/tests" && timeout 300 "$TE" --gpu -e opencl) >"$OUTDIR/opencl_test.txt" 2>&1
say "test_engines --gpu -e opencl: rc=$? $(grep -E '^test_engines: ' "$OUTDIR/opencl_test.txt" | tail -1) ($(( $(date +%s) - t0 )) s)"
grep -E "kernel (best|lop3v|wide|simple|table)" "$OUTDIR/opencl_test.txt" | sed 's/^/opencl:   /'
t0=$(date +%s)
(cd "$ROOT/tests" && timeout 300 "$TO") >"$OUTDIR/opencl_test2.txt" 2>&1
say "test_opencl: rc=$? $(grep -E '^test_opencl: ' "$OUTDIR/opencl_test2.txt" | tail -1) ($(( $(date +%s) - t0 )) s)"
grep -E "tile|FAIL" "$OUTDIR/opencl_test2.txt" | head -20 | sed 's/^/opencl:   /'

# ---- benchmarks ---------------------------------------------------------------------------
if [ -n "$CUDA_PID" ]; then
  if wait "$CUDA_PID"; then WLC=$(find "$BUILD-cuda" -name warplife -type f -perm -u+x | head -1)
  else tail -5 "$OUTDIR/opencl_cuda_build.txt"; say "CUDA build failed: no cuda figures"; fi
fi
B=$OUTDIR/opencl_bench.txt
: >"$B"
bench() { # bench [ENV=VALUE...] -- ARGS...: one warplife bench run, table lines kept
  local envs=() bin=$WL
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  [ "$1" = cuda ] && { bin=$WLC; shift; [ -z "$bin" ] && return; }
  echo "== ${envs[*]} warplife bench $*" >>"$B"
  env "${envs[@]}" timeout 240 "$bin" bench "$@" >>"$B" 2>>"$OUTDIR/opencl_bench_stderr.txt"
  echo "rc=$?" >>"$B"
}
G="--size $SIZE --generations 1024 --torus --verify"
bench -- --engine opencl --kernel best $G --runs 5
bench -- cuda --engine cuda --kernel best $G --runs 5
bench -- --engine opencl --kernel best --size "$SIZE" --generations 1024 --runs 5 --bounded --verify
# tile shapes of best (lop3v) on NVIDIA: items stacked (LY), rows per item, generations, register cap
SWEEP="8 40 16 0|8 40 8 80|8 32 16 64|8 32 8 64|16 32 16 64|8 48 16 96|4 40 16 80|8 40 16 72|8 40 24 80|6 40 16 80|12 40 16 80"
[ "${WL_OPENCL_SWEEP:-1}" = 0 ] && SWEEP=
IFS='|' read -r -a SHAPES <<<"$SWEEP"
for t in "${SHAPES[@]}"; do
  set -- $t
  bench WL_OPENCL_LY=$1 WL_OPENCL_ROWS=$2 WL_OPENCL_GENS=$3 WL_OPENCL_MAXRREG=$4 -- \
    --engine opencl --kernel best $G --runs 3
done
bench WL_OPENCL_NO_SYNTH=1 -- --engine opencl --kernel best $G --runs 3
bench WL_OPENCL_NV=0 -- --engine opencl --kernel best $G --runs 3
bench -- --engine opencl --kernel best --rule B36/S23 $G --runs 3
bench -- cuda --engine cuda --kernel best --rule B36/S23 $G --runs 3
# rules that are not outer-totalistic: lop3v with rulenet's network (WL_RULE9), issue #15
for r in B2-a/S12 B2akn/S2ace4aijwz6an8; do
  bench -- --engine opencl --kernel best --rule $r $G --runs 3
  bench -- --engine opencl --kernel table --rule $r --size "$SIZE" --generations 64 --torus --runs 2
  bench -- cuda --engine cuda --kernel best --rule $r $G --runs 3
done
bench -- --engine opencl --kernel wide $G --runs 3
bench -- --engine opencl --kernel best --size 65519x65521 --generations 1024 --runs 3 --torus --verify
bench -- --engine opencl --size 16384x16384 --time 0.3 --runs 3 --torus --verify
bench -- cuda --engine cuda --kernel best $G --runs 5
grep -E "^(==|opencl|cuda|rc=[1-9])" "$B" | sed 's/^== /opencl: /; s/warplife bench //'
grep -iE "error|fail" "$OUTDIR/opencl_bench_stderr.txt" 2>/dev/null | head -5 | sed 's/^/opencl: /'
exit 0
