#!/usr/bin/env bash
# gpu.sh - the one script for the GPU machine: builds warplife with CUDA (Release, sm_90),
# runs the CUDA engine's tests against the reference engine, then the GPU benchmarks, and
# writes every log under $OUT (default ./gpu-out).  The last thing it prints is a short
# summary table.
#
# usage: scripts/gpu.sh [all|test|bench|quick|opencl|lop3v|pair|wave|wavetune|shapes|sizes|circuit|res|multi|ltl|gen|defs]
#        (default all)
#   test   build + test_engines --gpu (every cuda kernel vs ref, cell by cell)
#   bench  build + benchmarks
#   quick  build + test + the 65536^2 lop3 benchmark only
#   lop3v  build + tests of lop3 and lop3v (every rule; every lop3v Life shape) + the
#          65536^2 benchmarks of lop3 against lop3v (shapes, rules, odd size)
#   wave   build + tests of wave and best (NVRTC rules, the mask fallback with
#          WL_CUDA_NO_NVRTC=1, every Life K) + the 65536^2 benchmarks of wave against lop3v
#          (K, topologies, odd size, rules with NVRTC compile times)
#   wavetune  build + a sweep of wave's tuning knobs on B3/S23 (NVRTC builds with other
#          unrolling / register caps, fixed chunk heights) and Nsight Compute's warp-state and
#          scheduler sections for wave and lop3v (ncu.txt)
#   pair   build + tests of lop3p (the pair layout: every rule, NVRTC and the mask fallback,
#          every Life shape in WL_GPU_PAIR_SHAPES), test_rows, and the 65536^2 benchmarks of
#          lop3p against lop3v and wave (shapes, topologies, odd size, other rules)
#   shapes build + tests and 65536^2 benchmarks (torus, bounded) of the lop3v Life shapes
#          named in WL_GPU_SHAPES (default: 40x12x16 40x8x16r)
#   circuit  build + tests of the circuit kernel (any rule; NVRTC, the lut6x3 fallback, K
#          1 and 8) + the 65536^2 benchmarks of the issue #15 rules against B3/S23, K 4 and
#          16 against the default 8, lut6x3, and 4096^2 for 4096 generations
#   sizes  build + a sweep of grid sizes (256^2 .. 32768^2) over the bitsliced kernels, for
#          the choice of `best` by size (WL_GPU_SIZES, WL_GPU_KERNELS, WL_GPU_RULES)
#   res    build + tests of the resident kernel (rounds, rows a warp, the tag's wrap) + its
#          benchmarks against wave on 1024^2 .. 8192^2, 4096 generations, beside best at 65536^2
#          (WL_GPU_RES_BENCH_ONLY=1: no tests; WL_GPU_RES_SWEEP: other shapes, see below)
#   multi  build + test_multistate (every engine, cuda included, against ref on Generations
#          and Larger than Life soups, glued grids, Golly's facts), test_engines --gpu
#          --quick -e cuda, and the benchmarks of the multi-state kernels (Generations and
#          Larger than Life on 4096^2 and larger soups, B3/S23 beside them)
#   gen    build + test_multistate + res's tests, and Generations on small grids: res
#          with its decay one-hot (the default for up to 2 decaying states) against binary
#          (WL_CUDA_RES_ONEHOT=0), 2048^2 and 4096^2, B3/S23 beside them
#   defs   build + the NVRTC kernels' tuning defines side by side: for each of
#          WL_GPU_DEFS ("DEFS;DEFS;..." passed as WL_CUDA_WAVE_DEFS, an empty one first) each
#          rule of WL_GPU_DEFS_RULES on WL_GPU_DEFS_SIZE, `best`, 4096 generations, torus,
#          after test_engines of res with those defines on two NVRTC rules
#   ltl    build + test_multistate, large reaches (k_ltl_square against k_ltl_global's
#          runs, WL_GPU_LTL_SWEEP=0: only those), and Larger than Life's Moore kernels side by side
#          (k_ltl_bits compiled for the range, the one for any rule and k_ltl_tile:
#          WL_CUDA_LTL=bits|bits0|tile) at ranges 1, 5, 10 and 20
#          on 2048^2 .. 65536^2 soups, B3/S23 beside them; then k_ltl_bits against k_ltl_tile
#          at ranges 2-16 (rules of Bosco's proportions) on 512^2 .. 8192^2 tori and 1024^2,
#          2048^2 bounded grids, for ltl_bits_pays's thresholds (bits_pays.txt; not yet
#          re-measured since k_ltl_bits's edges read whole words; WL_GPU_LTL_PAYS_ONLY=1:
#          only this sweep)
# WL_GPU_MULTI_TEST=0 skips test_multistate in multi, ltl and gen (a sweep of unchanged code).
#   opencl build + the OpenCL engine's GPU run (src/engine/opencl/gpu_opencl.sh, logs in
#          $OUT/opencl); WL_GPU_OPENCL=1 adds it to `all` and `bench`
# `all` and `test` also run the other GPU-side tests of the same build: test_rows (row
# strips of every cuda layout), test_stream (stream:cuda, out-of-core, against ref) and the
# NVRTC cache check (a rule compiled once, then loaded from the cache by a second process);
# with .dev-gl/ carried (binaries built on a machine with EGL/SDL2 headers, see
# scripts/gpu_gl.sh) `all` and `test` also run the CUDA-OpenGL interop test and the viewer
# comparison.
# WL_GPU_QUICK_TEST=1 runs test_engines --quick.
# Environment: WL_GPU_JOBS (build jobs, default 16), WL_GPU_BUILD (build dir).
set -u
MODE=${1:-all}
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${WL_GPU_BUILD:-$ROOT/build-gpu}
JOBS=${WL_GPU_JOBS:-16}
SUMMARY=$(mktemp)
: >"$OUT/bench.txt"
note() { echo "$*" | tee -a "$SUMMARY"; }

note "device: $(nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv,noheader 2>&1 | head -1); $(nvcc --version 2>&1 | tail -1)"

# ---- build ----------------------------------------------------------------------------
t0=$(date +%s)
if ! { cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DWL_ENABLE_CUDA=ON \
         -DWL_ENABLE_OPENCL=OFF -DWL_ENABLE_MPI=OFF -DWL_ENABLE_VIEWER=OFF &&
       cmake --build "$BUILD" -j"$JOBS" --target warplife test_engines test_rows test_stream test_rtc_cache test_multistate; } >"$OUT/build.log" 2>&1; then
  tail -40 "$OUT/build.log"
  note "BUILD FAILED (see build.log)"
  exit 1
fi
note "build: ok in $(( $(date +%s) - t0 )) s"
WL=$BUILD/apps/cli/warplife
[ -x "$WL" ] || WL=$(find "$BUILD" -name warplife -type f -perm -u+x | head -1)
TE=$(find "$BUILD" -name test_engines -type f -perm -u+x | head -1)

# ---- instruction mix of the lop3 kernel (Life specialisation) ----------------------------
LIB=$(find "$BUILD" -name libwlcuda.a | head -1)
if command -v cuobjdump >/dev/null && [ -n "$LIB" ]; then
  kns="k_lop3v_life k_pair_life_40x12"
  [ "$MODE" = wave ] && kns="k_wave_life16" # $OUT returns at most 8 files
  [ "$MODE" = pair ] && kns="k_pair_life_40x12"
  [ "$MODE" = res ] && kns="k_res_life_4x5"
  [ "$MODE" = wavetune ] && kns=""
  [ -n "${WL_GPU_SASS:-}" ] && kns=$WL_GPU_SASS
  for kn in $kns; do
    cuobjdump -sass "$LIB" 2>&1 | awk -v k="Function : .*${kn}[0-9A-Z]" '$0 ~ k {f=1; next} /Function :/{f=0} f' >"$OUT/sass_$kn.txt"
    grep -oE '^ +/\*[0-9a-f]{4}\*/ +[A-Z0-9_.]+' "$OUT/sass_$kn.txt" | awk -v k=$kn '{sub(/\..*/,"",$2); n[$2]++; t++}
      END{printf "%s SASS: %d instr;", k, t; for(x in n) if(n[x]>t/50) printf " %s %d", x, n[x]; print ""}' |
      tee -a "$SUMMARY"
  done
fi

# ---- tests ----------------------------------------------------------------------------
# te LOG SECONDS [VAR=VALUE ...] ARGS...: test_engines ARGS in tests/ with those variables set,
# output appended to $OUT/LOG; notes the exit status, the time and the pass/fail count.
te() {
  local log=$OUT/$1 secs=$2 envs=() t0
  shift 2
  while [[ "${1:-}" == *=* ]]; do envs+=("$1"); shift; done
  t0=$(date +%s)
  (cd "$ROOT/tests" && env "${envs[@]}" timeout "$secs" "$TE" "$@") >>"$log" 2>&1
  local rc=$?
  note "  ${envs[*]:+${envs[*]} }test_engines $*: rc=$rc in $(( $(date +%s) - t0 )) s: $(grep -E '^test_engines: [0-9]+ passed' "$log" | tail -1)"
}
fails() { grep -E "failed|FAIL|mismatch" "$OUT/$1" | head -"${2:-10}"; } # fails LOG [N]
if [ "$MODE" = all ] || [ "$MODE" = test ] || [ "$MODE" = quick ]; then
  targs="--gpu -e cuda"
  [ -n "${WL_GPU_QUICK_TEST:-}" ] && targs="$targs --quick"
  te test.log 300 $targs
  fails test.log 20
  grep -c "^skipped" "$OUT/test.log" | sed 's/^/  skip notes: /' | tee -a "$SUMMARY"
fi

# ---- lop3v: tests and benchmarks of the vertically stacked kernel against lop3 -----------
LOP3V_SHAPES="40x8x8p 32x8x8m 32x16x8m 32x8x16m 40x8x16r 40x16x8 48x8x16 40x24x16 32x32x16 40x16x16 40x12x16 44x12x16"
if [ "$MODE" = shapes ]; then
  LOP3V_SHAPES=${WL_GPU_SHAPES:-40x12x16 40x8x16r}
fi
if [ "$MODE" = lop3v ] || [ "$MODE" = shapes ]; then
  if [ "$MODE" = lop3v ]; then
    te test.log 200 --gpu -e cuda -k best,lop3,lop3v
    fails test.log
  fi
  for shape in $LOP3V_SHAPES; do
    te test_shapes.log 60 WL_CUDA_LOP3V=$shape --gpu -e cuda -k lop3v -r B3/S23
  done
  fails test_shapes.log
fi
# ---- pair: tests of lop3p (compiled Life shapes, NVRTC rules, fallback) -------------------
PAIR_SHAPES=${WL_GPU_PAIR_SHAPES:-40x12 32x12 28x16 24x20 64x8}
if [ "$MODE" = pair ]; then
  te test.log 240 --gpu -e cuda -k lop3p,best
  fails test.log
  for shape in $PAIR_SHAPES; do
    te test_k.log 60 WL_CUDA_LOP3P=$shape --gpu -e cuda -k lop3p -r B3/S23
  done
  te test_k.log 100 WL_CUDA_NO_NVRTC=1 --gpu -e cuda -k lop3p -r highlife,seeds,daynight,b0
  fails test_k.log
  TB=$(find "$BUILD" -name test_rows -type f -perm -u+x | head -1)
  (cd "$ROOT/tests" && timeout 200 "$TB") >"$OUT/test_rows.log" 2>&1
  note "test_rows: rc=$? $(grep -E 'passed' "$OUT/test_rows.log" | tail -1)"
  grep -E "FAIL|mismatch" "$OUT/test_rows.log" | head -5
fi
# ---- wave: tests of the wavefront kernel (compiled Life, NVRTC rules, fallback) ----------
if [ "$MODE" = wave ]; then
  te test.log 240 --gpu -e cuda -k wave,best,lop3v
  fails test.log
  for k in 8 12; do
    te test_k.log 100 WL_CUDA_WAVE_K=$k --gpu -e cuda -k wave -r life,highlife,b0
  done
  te test_k.log 100 WL_CUDA_NO_NVRTC=1 --gpu -e cuda -k wave -r highlife,seeds,daynight,b0
  fails test_k.log
fi
# the kernel knobs a bench line is run under, named in its log header
KNOBS="WL_CUDA_LOP3 WL_CUDA_LOP3V WL_CUDA_GEN WL_CUDA_LTL WL_CUDA_RES_K WL_CUDA_RES_NR
       WL_CUDA_RES_ONEHOT WL_CUDA_RES_XB WL_CUDA_RES_WORDS WL_CUDA_WAVE_DEFS"
bench() { # bench LOGNAME ARGS...: runs warplife bench, keeps the table lines
  local log=$OUT/$1 on=""
  shift
  for v in $KNOBS; do [ -n "${!v:-}" ] && on+="$v=${!v} "; done
  echo "== ${on}warplife bench $*" >>"$log"
  timeout 240 "$WL" bench "$@" >>"$log" 2>>"$OUT/bench_stderr.log"
  echo "rc=$?" >>"$log"
}
if [ "$MODE" = lop3v ]; then
  B=65536x65536
  for k in lop3 lop3v best; do
    bench bench.txt --engine cuda --kernel $k --size $B --generations 1024 --runs 5 --torus
    bench bench.txt --engine cuda --kernel $k --size $B --generations 1024 --runs 5 --bounded
  done
  for shape in $LOP3V_SHAPES; do
    WL_CUDA_LOP3V=$shape bench bench.txt --engine cuda --kernel lop3v --size $B --generations 1024 --runs 3 --torus
  done
  bench bench.txt --engine cuda --kernel lop3v --size 65519x65521 --generations 1024 --runs 3 --torus
  bench bench.txt --engine cuda --kernel lop3v --size 65519x65521 --generations 1024 --runs 3 --bounded
  for r in B36/S23 B3678/S34678 B2/S B368/S245 B34/S34; do
    bench bench.txt --engine cuda --kernel lop3,lop3v --rule $r --size $B --generations 1024 --runs 3 --torus
  done
  bench bench.txt --engine cuda --kernel lop3v --size 16384x16384 --time 0.3 --runs 3 --torus --verify
fi
if [ "$MODE" = sizes ]; then
  for r in ${WL_GPU_RULES:-B3/S23 B36/S23}; do
    for n in ${WL_GPU_SIZES:-256 512 1024 2048 4096 8192 16384 32768}; do
      bench bench.txt --engine cuda --kernel ${WL_GPU_KERNELS:-best,lop3v,wave,lop3,bitcount} \
        --rule $r --size ${n}x${n} --time 0.3 --runs 3 --torus
    done
  done
fi
if [ "$MODE" = pair ]; then
  B=65536x65536
  export WL_CUDA_VERBOSE=1 # NVRTC compile times on stderr (bench_stderr.log)
  bench bench.txt --engine cuda --kernel lop3p,lop3v,wave --size $B --generations 1024 --runs 5 --torus
  bench bench.txt --engine cuda --kernel lop3p,lop3v --size $B --generations 1024 --runs 5 --bounded
  for shape in $PAIR_SHAPES; do
    WL_CUDA_LOP3P=$shape bench bench.txt --engine cuda --kernel lop3p --size $B --generations 1024 --runs 3 --torus
  done
  bench bench.txt --engine cuda --kernel lop3p --size 65519x65521 --generations 1024 --runs 3 --torus
  bench bench.txt --engine cuda --kernel lop3p --size 65519x65521 --generations 1024 --runs 3 --bounded
  for r in B36/S23 B3678/S34678 B2/S B368/S245 B34/S34 B3/S238; do
    bench bench.txt --engine cuda --kernel lop3p,wave --rule $r --size $B --generations 1024 --runs 3 --torus
  done
  for n in 8192 16384 32768; do
    bench bench.txt --engine cuda --kernel lop3p,wave --size ${n}x${n} --time 0.3 --runs 3 --torus
  done
  bench bench.txt --engine cuda --kernel lop3p --size 16384x16384 --time 0.3 --runs 3 --torus --verify
  unset WL_CUDA_VERBOSE
fi
if [ "$MODE" = shapes ]; then
  for shape in $LOP3V_SHAPES; do
    for topo in --torus --bounded; do
      WL_CUDA_LOP3V=$shape bench bench.txt --engine cuda --kernel lop3v --size 65536x65536 --generations 1024 --runs 5 $topo
    done
  done
fi

if [ "$MODE" = wave ]; then
  B=65536x65536
  export WL_CUDA_VERBOSE=1 # NVRTC compile times on stderr (bench_stderr.log)
  bench bench.txt --engine cuda --kernel best,lop3v,wave --size $B --generations 1024 --runs 5 --torus
  WL_CUDA_WAVE_HC=512 bench bench.txt --engine cuda --kernel wave --size $B --generations 1024 --runs 3 --torus
  bench bench.txt --engine cuda --kernel best,wave --size $B --generations 1024 --runs 3 --bounded
  bench bench.txt --engine cuda --kernel best,wave --size 65519x65521 --generations 1024 --runs 3 --torus
  bench bench.txt --engine cuda --kernel best --size 65519x65521 --generations 1024 --runs 3 --bounded
  for r in B36/S23 B2/S B34/S34 B3678/S34678 B368/S245 B3/S238; do
    bench bench.txt --engine cuda --kernel best --rule $r --size $B --generations 1024 --runs 3 --torus
  done
  bench bench.txt --engine cuda --kernel best,wave --rule B36/S23 --size $B --generations 1024 --runs 3 --bounded
  bench bench.txt --engine cuda --kernel best --rule B34/S34 --size $B --generations 1024 --runs 3 --bounded
  bench bench.txt --engine cuda --kernel wave --size 16384x16384 --time 0.3 --runs 3 --torus --verify
  unset WL_CUDA_VERBOSE
fi

if [ "$MODE" = wavetune ]; then
  B="--engine cuda --kernel wave --size 65536x65536 --generations 1024 --runs 3 --torus"
  export WL_CUDA_VERBOSE=1
  bench bench.txt $B
  for v in "" "-DWV_UNROLL=2" "-DWV_UNROLL=1" "-DWV_UNROLL=6"; do
    WL_CUDA_WAVE_RTC_LIFE=1 WL_CUDA_WAVE_DEFS="$v" bench bench.txt $B
  done
  WL_CUDA_WAVE_RTC_LIFE=1 WL_CUDA_WAVE_MINB=1 bench bench.txt $B
  WL_CUDA_WAVE_RTC_LIFE=1 WL_CUDA_WAVE_K=12 WL_CUDA_WAVE_MINB=2 bench bench.txt $B
  for hc in 512 1024 2048; do WL_CUDA_WAVE_HC=$hc bench bench.txt $B; done
  unset WL_CUDA_VERBOSE
  if command -v ncu >/dev/null; then
    S="--section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats"
    timeout 200 ncu $S -k regex:k_wave_life16 -c 1 "$WL" bench $B --generations 16 --runs 1 >"$OUT/ncu.txt" 2>&1
    timeout 200 ncu $S -k regex:k_lop3v_life -c 1 "$WL" bench --engine cuda --kernel lop3v --size 65536x65536 --generations 16 --runs 1 >>"$OUT/ncu.txt" 2>&1
    note "ncu: $(grep -cE 'Section' "$OUT/ncu.txt") sections in ncu.txt"
  fi
fi

# ---- the other GPU-side tests of this build ---------------------------------------------
if [ "$MODE" = all ] || [ "$MODE" = test ]; then
  for t in test_rows test_stream; do
    TB=$(find "$BUILD" -name $t -type f -perm -u+x | head -1)
    [ -n "$TB" ] || { note "$t: not built"; continue; }
    t0=$(date +%s)
    (cd "$ROOT/tests" && timeout 200 "$TB") >"$OUT/$t.log" 2>&1
    rc=$?
    grep -E "FAIL|mismatch" "$OUT/$t.log" | head -5
    note "$t: rc=$rc in $(( $(date +%s) - t0 )) s: $(grep -E 'passed' "$OUT/$t.log" | tail -1)"
  done
  # NVRTC disk cache: a rule compiled by one process is loaded by the next; a corrupted
  # entry (checksum) or one the driver rejects (test_rtc_cache --garble) is recompiled;
  # WL_CACHE_DIR=off compiles.  Every run's population must equal the cpu engine's.
  export WL_CACHE_DIR=$OUT/rtc-cache
  rm -rf "$WL_CACHE_DIR"
  "$WL" soup 1024x1024 -s 7 -q -o "$OUT/soup.rle"
  RUN=(run "$OUT/soup.rle" --rule B36/S23 --torus 4096x4096 -m 1000 --popcount -q)
  want=$("$WL" "${RUN[@]}" --engine cpu 2>&1)
  TRC=$(find "$BUILD" -name test_rtc_cache -type f -perm -u+x | head -1)
  for step in first second flipped garbled off; do
    f=$(ls "$WL_CACHE_DIR"/*.cubin 2>/dev/null | head -1)
    case $step in
      flipped) [ -n "$f" ] && printf Z | dd of="$f" bs=1 seek=4000 conv=notrunc 2>/dev/null ;;
      garbled) [ -n "$f" ] && [ -n "$TRC" ] && "$TRC" --garble "$f" >/dev/null 2>&1 ;;
    esac
    t0=$(date +%s.%N)
    got=$( { [ $step = off ] && export WL_CACHE_DIR=off; WL_CUDA_VERBOSE=1 "$WL" "${RUN[@]}" \
             --engine cuda --kernel best; } 2>"$OUT/rtc_$step.log")
    rc=$?
    same=no; [ "$got" = "$want" ] && same=yes
    note "NVRTC cache, $step run: rc=$rc, population as cpu: $same, $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}') s wall; $(grep -iE 'compiled in|loaded from|rejected|cache' "$OUT/rtc_$step.log" | head -2 | cut -c1-160 | tr '\n' ' ')"
  done
  unset WL_CACHE_DIR
fi

# ---- the circuit kernel (any rule: Hensel, MAP), issue #15 ------------------------------
# rules of the issue's targets: two named Hensel rules, three random Hensel rules and two
# random MAP rules (drawn once, fixed here so that runs compare)
CIRCUIT_RULES="B2-a/S12 B3-cnqy/S23-a4ityz B2akn/S2ace4aijwz6an8 B2-ce3cei6k/S1c7c8 B2cen4iwyz7c8/S02-kn3akqr6ain MAPKQn+mVX1p6OSui7lDtNN3GI/2CAF8Iov1l0ALDHLdcm/Wuelc0momdo5J76Enmzmzmc3P2RQCEY346wVC9OGEQ MAPUrSHxnfjbFSzduaYHPY0k05rRaywBCDpqFHb57H+91YjNv0FyZ9oYYus83MaOuOXATeXvLOhCft+2xt9eVQZVQ"
if [ "$MODE" = circuit ]; then
  te test.log 300 --gpu -e cuda -k circuit,best
  te test_k.log 120 WL_CUDA_NO_NVRTC=1 --gpu -e cuda -k circuit -r hensel1,map
  for k in 1 8; do
    te test_k.log 120 WL_CUDA_CIRCUIT_K=$k --gpu -e cuda -k circuit -r life,hensel2,map-b0
  done
  fails test.log
  fails test_k.log
  B=65536x65536
  export WL_CUDA_VERBOSE=1 # network sizes and NVRTC times on stderr (bench_stderr.log)
  bench bench.txt --engine cuda --kernel best,circuit --rule B3/S23 --size $B --generations 1024 --runs 3 --torus
  for r in $CIRCUIT_RULES; do
    bench bench.txt --engine cuda --kernel best --rule "$r" --size $B --generations 1024 --runs 3 --torus
  done
  bench bench.txt --engine cuda --kernel best,circuit --rule B3/S23 --size $B --generations 1024 --runs 3 --torus
  for k in 4 16; do
    for r in B2-a/S12 B2akn/S2ace4aijwz6an8; do
      WL_CUDA_CIRCUIT_K=$k bench bench.txt --engine cuda --kernel circuit --rule "$r" --size $B --generations 1024 --runs 3 --torus
    done
  done
  bench bench.txt --engine cuda --kernel lut6x3 --rule B2-a/S12 --size $B --generations 128 --runs 3 --torus
  bench bench.txt --engine cuda --kernel best --rule B2-a/S12 --size $B --generations 1024 --runs 3 --bounded
  for r in B3/S23 B2-a/S12; do
    bench bench.txt --engine cuda --kernel best --rule $r --size 4096x4096 --generations 4096 --runs 3 --torus
  done
  unset WL_CUDA_VERBOSE
  grep -E "network|compiled|cache" "$OUT/bench_stderr.log" | cut -c1-200 | sort | uniq | head -30 >"$OUT/circuit_nets.txt"
fi

# ---- res: the resident kernel for small grids (issue #15's third target) -----------------
if [ "$MODE" = res ] || [ "$MODE" = gen ]; then
  [ -n "${WL_GPU_RES_BENCH_ONLY:-}" ] || {
  te test.log 240 --gpu -e cuda -k res,best
  for k in 1 3 8; do
    te test_k.log 100 WL_CUDA_RES_K=$k --gpu -e cuda -k res -r life,b0
  done
  for nr in 3 4 9 17; do
    te test_k.log 100 WL_CUDA_RES_NR=$nr --gpu -e cuda -k res -r life,highlife
  done
  te test_k.log 100 WL_CUDA_RES_TAG=0xffffffe0 --gpu -e cuda -k res -r life
  te test_k.log 100 WL_CUDA_NO_NVRTC=1 --gpu -e cuda -k res,best -r highlife,seeds,b0,hensel1,map
  for nr in 3 9; do
    te test_k.log 100 WL_CUDA_RES_NR=$nr --gpu -e cuda -k res -r hensel2,map,map-b0
  done
  fails test.log
  fails test_k.log
  }
fi
if [ "$MODE" = res ]; then
  export WL_CUDA_VERBOSE=1 # the band plans on stderr (bench_stderr.log)
  bench bench.txt --engine cuda --kernel best --size 65536x65536 --generations 1024 --runs 3 --torus
  for n in 1024 2048 4096 8192; do
    bench bench.txt --engine cuda --kernel best,res,wave --size ${n}x${n} --generations 4096 --runs 3 --torus
  done
  for n in 2048 4096 8192; do
    bench bench.txt --engine cuda --kernel res,wave --size ${n}x${n} --generations 4096 --runs 3 --bounded
  done
  bench bench.txt --engine cuda --kernel res,wave --size 4000x4000 --generations 4096 --runs 3 --bounded
  # shapes against the default: WL_GPU_RES_SWEEP="M:NR:K ..." (a torus 1024 M cells wide)
  for spec in ${WL_GPU_RES_SWEEP:-1:4:8 4:6:8 8:9:8}; do
    IFS=: read -r m nr k <<<"$spec"
    WL_CUDA_RES_NR=$nr WL_CUDA_RES_K=$k bench bench.txt --engine cuda --kernel res --size $((m * 1024))x$((m * 1024)) --generations 4096 --runs 3 --torus
  done
  for r in B36/S23 B3678/S34678; do
    for n in 2048 4096 8192; do
      bench bench.txt --engine cuda --kernel best,res,wave --rule $r --size ${n}x${n} --generations 4096 --runs 3 --torus
    done
  done
  WL_CUDA_NO_NVRTC=1 bench bench.txt --engine cuda --kernel res,wave --rule B36/S23 --size 4096x4096 --generations 4096 --runs 3 --torus
  # rules that are not outer-totalistic: res with the circuit network (rule 3) against circuit
  for r in B2-a/S12 B2akn/S2ace4aijwz6an8 "MAPKQn+mVX1p6OSui7lDtNN3GI/2CAF8Iov1l0ALDHLdcm/Wuelc0momdo5J76Enmzmzmc3P2RQCEY346wVC9OGEQ"; do
    for n in 2048 4096 8192; do
      bench bench.txt --engine cuda --kernel best,res,circuit --rule "$r" --size ${n}x${n} --generations 4096 --runs 3 --torus
    done
  done
  bench bench.txt --engine cuda --kernel res --size 4096x4096 --time 0.3 --runs 3 --torus --verify
  unset WL_CUDA_VERBOSE
  grep -E "cuda res" "$OUT/bench_stderr.log" | sort | uniq -c | head -20 | tee -a "$SUMMARY"
fi

# ---- multi: the multi-state families (Generations, Larger than Life) ------------------------
if { [ "$MODE" = all ] || [ "$MODE" = multi ] || [ "$MODE" = ltl ] || [ "$MODE" = gen ]; } &&
   [ "${WL_GPU_MULTI_TEST:-1}" != 0 ]; then
  TM=$(find "$BUILD" -name test_multistate -type f -perm -u+x | head -1)
  t0=$(date +%s)
  (cd "$ROOT/tests" && timeout 400 "$TM") >"$OUT/multi.log" 2>&1
  note "  test_multistate: rc=$? in $(( $(date +%s) - t0 )) s: $(grep -E '^test_multistate:' "$OUT/multi.log" | tail -1)"
  fails multi.log 20
fi
if [ "$MODE" = multi ]; then
  te test.log 300 --gpu --quick -e cuda
  fails test.log 10
  for sz in 4096x4096 16384x16384; do
    bench bench.txt --engine cuda --kernel best --rule B3/S23 --size $sz --time 0.5 --runs 3 --torus
    for r in 23/3/3 345/2/4 1456/2356/16 12/34/256 /2/3 345/2/4H "R5,C0,M1,S34..58,B34..45,NM" \
             "R5,C0,S33-57,B34-45,NN" "R5,C0,S33-57,B34-45,NC" "R10,C0,M1,S123..212,B123..170,NM" \
             "R7,C2,S4-13,B5-9,N+" "R50,C2,S3333-5192,B3025-6154" "R10,C255,S1-2,B3"; do
      bench bench.txt --engine cuda --kernel best --rule "$r" --size $sz --time 0.5 --runs 3 --torus
    done
  done
  # Generations: k_genv (registers, the default for Moore rules) against k_gen (tiles)
  for r in 23/3/3 345/2/4 1456/2356/16; do
    WL_CUDA_GEN=tile bench bench.txt --engine cuda --kernel best --rule $r --size 16384x16384 --time 0.5 --runs 3 --torus
  done
  for r in "R5,C0,M1,S34..58,B34..45,NM" "R10,C0,M1,S123..212,B123..170,NM"; do # bit-sliced against the tile kernel
    WL_CUDA_LTL=tile bench bench.txt --engine cuda --kernel best --rule "$r" --size 16384x16384 --time 0.5 --runs 3 --torus
  done
  bench bench.txt --engine cuda --kernel best --rule "R5,C0,M1,S34..58,B34..45,NM" --size 65536x65536 --generations 16 --runs 3 --torus
  for m in regs tile64 tile32; do # the crossover
    for sz in 4096x4096 8192x8192; do
      WL_CUDA_GEN=$m bench bench.txt --engine cuda --kernel best --rule 23/3/3 --size $sz --time 0.5 --runs 3 --torus
    done
  done
  bench bench.txt --engine cuda --kernel best --rule 23/3/3 --size 65536x65536 --generations 256 --runs 3 --torus
  bench bench.txt --engine cuda --kernel best --rule 345/2/4 --size 65536x65536 --generations 256 --runs 3 --torus
  bench bench.txt --engine cuda --kernel best --rule 23/3/3 --size 65536x65536 --generations 256 --runs 3 --bounded
  bench bench.txt --engine cuda --kernel best --rule "R5,C0,M1,S34..58,B34..45,NM" --size 32768x32768 --generations 16 --runs 3 --torus
fi

if [ "$MODE" = gen ]; then
  export WL_CUDA_VERBOSE=1 # plans and NVRTC times on stderr (bench_stderr.log)
  # res: the decay one-hot in the lanes (the default, up to 2 decaying states) against binary
  # (WL_CUDA_RES_ONEHOT=0), side by side; rules of more states are binary either way
  GMAP="MAPKQn+mVX1p6OSui7lDtNN3GI/2CAF8Iov1l0ALDHLdcm/Wuelc0momdo5J76Enmzmzmc3P2RQCEY346wVC9OGEQ/3"
  bench bench.txt --engine cuda --kernel best --size 4096x4096 --generations 4096 --runs 3 --torus
  for r in 23/3/3 /2/3 345/2/4 2367/3457/5 345/2/4H 013/2/3V "$GMAP"; do
    for oh in 2 0; do
      WL_CUDA_RES_ONEHOT=$oh bench bench.txt --engine cuda --kernel best --rule "$r" --size 4096x4096 --generations 4096 --runs 3 --torus
    done
  done
  # binary E exchanged as one code of P planes (the default for rules of at most 2^P
  # states, P <= 4) against F and E's P planes (WL_CUDA_RES_XB=0)
  for xb in 1 0; do
    for r in 1456/2356/16 12345/45678/8; do
      WL_CUDA_RES_XB=$xb bench bench.txt --engine cuda --kernel best --rule $r --size 4096x4096 --generations 4096 --runs 3 --torus
    done
  done
  for r in 1456/2356/16 12345/45678/8; do # checked against ref first
    bench bench.txt --engine cuda --kernel best --rule $r --size 4096x4096 --time 0.3 --runs 1 --torus --verify
  done
  for r in 345/2/4 2367/3457/5 345/2/4H "$GMAP"; do # checked against ref first
    bench bench.txt --engine cuda --kernel best --rule "$r" --size 2048x2048 --time 0.3 --runs 3 --bounded --verify
  done
  for sz in 1024x1024 2048x2048; do # 256 states (8 planes) on res, checked against ref first
    bench bench.txt --engine cuda --kernel best --rule 12/34/256 --size $sz --generations 4096 --runs 3 --torus --verify
  done
  for m in res tile; do
    WL_CUDA_GEN=$m bench bench.txt --engine cuda --kernel best --rule 345/2/4 --size 4096x4096 --generations 4096 --runs 3 --bounded
  done
  unset WL_CUDA_VERBOSE
  grep -E "cuda res|generations" "$OUT/bench_stderr.log" | sed 's/in [0-9.]* s/in N s/' | sort | uniq -c | head -24 | tee -a "$SUMMARY"
fi

if [ "$MODE" = defs ]; then
  IFS=';' read -r -a dlist <<<";${WL_GPU_DEFS:-}"
  for d in "${dlist[@]}"; do
    [ -z "$d" ] || te test_defs.log 100 "WL_CUDA_WAVE_DEFS=$d" --gpu -e cuda -k res -r highlife,hensel1
    for r in ${WL_GPU_DEFS_RULES:-B36/S23 23/3/3}; do
      echo "== WL_CUDA_WAVE_DEFS='$d'" >>"$OUT/bench.txt"
      WL_CUDA_WAVE_DEFS=$d bench bench.txt --engine cuda --kernel best --rule "$r" --size ${WL_GPU_DEFS_SIZE:-4096x4096} --generations 4096 --runs 3 --torus
    done
  done
  fails test_defs.log
fi

if [ "$MODE" = ltl ] && [ "${WL_GPU_LTL_PAYS_ONLY:-0}" = 0 ]; then
  # large reaches: the Moore square by k_ltl_square against k_ltl_global's runs
  # (WL_CUDA_LTL=runs), Golly's R100 and R500 bug rules on a soup, the cpu engine beside
  for r in "R100,C2,S10349-15739,B9350-12360" "R500,C2,S256693-390373,B231893-306545"; do
    for m in runs square; do
      WL_CUDA_LTL=$m bench bench.txt --engine cuda --kernel best --rule "$r" --size 4096x4096 --generations 8 --runs 3 --torus
    done
    bench bench.txt --engine cpu --kernel best --rule "$r" --size 4096x4096 --generations 8 --runs 3 --torus
    WL_CUDA_LTL=square bench bench.txt --engine cuda --kernel best --rule "$r" --size 8192x8192 --generations 64 --runs 3 --bounded
  done
fi
if [ "$MODE" = ltl ] && [ "${WL_GPU_LTL_SWEEP:-1}" != 0 ]; then
  [ "${WL_GPU_LTL_PAYS_ONLY:-0}" != 0 ] || {
  bench bench.txt --engine cuda --kernel best --rule B3/S23 --size 16384x16384 --time 0.5 --runs 3 --torus
  for r in "R1,C0,M0,S2..3,B3..3,NM" "R5,C0,M1,S34..58,B34..45,NM" "R10,C0,M1,S123..212,B123..170,NM" \
           "R20,C0,M1,S400..700,B450..600,NM"; do
    for sz in 2048x2048 4096x4096 8192x8192 16384x16384; do
      for m in bits bits0 tile; do
        WL_CUDA_LTL=$m bench bench.txt --engine cuda --kernel best --rule "$r" --size $sz --time 0.5 --runs 3 --torus
      done
    done
  done
  bench bench.txt --engine cuda --kernel best --rule "R5,C0,M1,S34..58,B34..45,NM" --size 65536x65536 --generations 16 --runs 3 --torus
  bench bench.txt --engine cuda --kernel best --rule "R5,C0,M1,S34..58,B34..45,NM" --size 65536x65536 --generations 16 --runs 3 --bounded
  bench bench.txt --engine cuda --kernel best --rule "R10,C0,M1,S123..212,B123..170,NM" --size 65536x65536 --generations 8 --runs 3 --torus
  }
  # ltl_bits_pays: where k_ltl_bits overtakes k_ltl_tile, by range and grid
  for R in 2 3 5 8 10 12 16; do
    r=$(awk -v R=$R 'BEGIN{N=(2*R+1)^2; printf "R%d,C0,M1,S%d..%d,B%d..%d,NM", R, int(0.28*N), int(0.48*N), int(0.28*N), int(0.37*N)}')
    for sz in 512 1024 2048 4096 8192; do
      for m in bits tile; do
        WL_CUDA_LTL=$m bench bits_pays.txt --engine cuda --kernel best --rule "$r" --size ${sz}x${sz} --time 0.3 --runs 3 --torus
      done
    done
    for sz in 1024 2048; do
      for m in bits tile; do
        WL_CUDA_LTL=$m bench bits_pays.txt --engine cuda --kernel best --rule "$r" --size ${sz}x${sz} --time 0.3 --runs 3 --bounded
      done
    done
  done
fi

# ---- benchmarks -----------------------------------------------------------------------
if [ "$MODE" = all ] || [ "$MODE" = bench ] || [ "$MODE" = quick ]; then
  B=65536x65536
  bench bench.txt --engine cuda --kernel best,lop3p,lop3v,wave,lop3 --size $B --generations 1024 --runs 5 --torus
  bench bench.txt --engine cuda --kernel best,lop3p,lop3v,wave,lop3 --size $B --generations 1024 --runs 5 --bounded
  if [ "$MODE" != quick ]; then
    bench bench.txt --engine cuda --kernel bitcount,lut6x3,patch16 --size $B --generations 256 --runs 3 --torus
    bench bench.txt --engine cuda --kernel bitcount,lut6x3,patch16 --size $B --generations 256 --runs 3 --bounded
    bench bench.txt --engine cuda --kernel lut4x4,lut4x4-64,shared,stride,naive --size $B --generations 16 --runs 3 --torus
    # odd sizes (not multiples of 32) and a smaller grid
    bench bench.txt --engine cuda --kernel best,bitcount --size 65519x65521 --generations 1024 --runs 3 --torus
    bench bench.txt --engine cuda --kernel best,bitcount --size 65519x65521 --generations 1024 --runs 3 --bounded
    bench bench.txt --engine cuda --size 16384x16384 --time 0.3 --runs 3 --torus --verify
    bench bench.txt --engine cuda --size 8192x8192 --time 0.3 --runs 3 --torus --verify
    # other outer-totalistic rules (compiled-in specialisations, and the run-time evaluator)
    for r in B36/S23 B3678/S34678 B2/S B368/S245 B34/S34 B3/S238; do
      bench bench.txt --engine cuda --kernel best --rule $r --size $B --generations 1024 --runs 3 --torus
    done
    # rules that are not outer-totalistic: best runs circuit (issue #15), against lut6x3
    bench bench.txt --engine cuda --kernel best,lut6x3 --rule B2-a/S12 --size $B --generations 128 --runs 3 --torus
    # 80% of GPU memory in two bit-packed buffers (square grid, side a multiple of 1024)
    mem_mib=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | head -1)
    side=$(awk -v m="$mem_mib" 'BEGIN{c=0.8*m*1048576*8/2; s=int(sqrt(c)/1024)*1024; print s}')
    bench bench.txt --engine cuda --kernel best --size ${side}x${side} --generations 64 --runs 2 --torus
  fi
fi

# ---- the OpenCL engine's part (its own script, its own build folder) ---------------------
OCL=$ROOT/src/engine/opencl/gpu_opencl.sh
if [ -f "$OCL" ] && { [ "$MODE" = opencl ] || { [ -n "${WL_GPU_OPENCL:-}" ] &&
                      { [ "$MODE" = all ] || [ "$MODE" = bench ]; }; }; }; then
  # cuda `best` beside it from this script's own build (no second CUDA build)
  WL_OPENCL_CUDA_WL=$WL bash "$OCL" "$OUT/opencl" 2>&1 | tee -a "$SUMMARY" | tail -5
fi

# ---- CUDA-OpenGL interop (binaries carried in .dev-gl: the machine lacks GL headers) ----
if { [ "$MODE" = all ] || [ "$MODE" = test ]; } && [ -x "$ROOT/.dev-gl/test_gl_interop" ]; then
  (cd "$ROOT" && OUT="$OUT/gl" bash scripts/gpu_gl.sh .dev-gl/test_gl_interop .dev-gl/warplife \
     .dev-gl/lib) >"$OUT/gl.log" 2>&1
  note "gl interop: rc=$? $(grep -E 'passed|differ' "$OUT/gl.log" | tail -3 | tr '\n' ' ')"
fi

# ---- summary (last) ---------------------------------------------------------------------
{
  echo
  echo "== summary ($(date -u +%FT%TZ))"
  cat "$SUMMARY"
  grep -E "^(==|cuda|rc=[1-9])" "$OUT/bench.txt" | sed 's/^== //; s/warplife bench //' 
  grep -iE "error|fail|wrong" "$OUT/bench_stderr.log" 2>/dev/null | head -10
} | tee "$OUT/final.txt"
rm -f "$SUMMARY"
