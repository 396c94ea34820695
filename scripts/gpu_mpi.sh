#!/usr/bin/env bash
# gpu_mpi.sh - the mpi engine on the GPU machine (which has no MPI of its own): mpi:cuda
# against ref with 1 and 2 ranks, the CUDA row strips, and (mode `scale`) weak and strong
# scaling over the node's GPUs.  Writes its logs into $OUT.
#
# It runs from the repository root and needs, carried in .dev-mpi/ (git-ignored):
#   .dev-mpi/root/  Debian's Open MPI runtime and its libraries, unpacked with `dpkg -x`
#                   (openmpi-bin libopenmpi3 openmpi-common libevent-* libhwloc15 libpmix2
#                   libfabric1 libucx0 libibverbs1 ibverbs-providers libnl-* librdmacm1
#                   libpsm2-2 libpsm-infinipath1 libnuma1 libmunge2 libatomic1 libudev1
#                   libuuid1 zlib1g libpng16-16), relocated with OPAL_PREFIX;
#   .dev-mpi/bin/   warplife (with warplife-mpi.so, the engine's module, beside it),
#                   test_mpi, test_rows built here with
#                   -DWL_ENABLE_MPI=ON -DWL_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90.
#
# usage: bash scripts/gpu_mpi.sh check   # mpirun works; mpi:cuda vs ref on 1 and 2 ranks
#        bash scripts/gpu_mpi.sh scale   # check + weak and strong scaling, 1..N GPUs
set -u
MODE=${1:-check}
OUT=${OUT:-/tmp/gpu_mpi_out}
mkdir -p "$OUT"
D=$PWD/.dev-mpi
R=$D/root
B=$D/bin
LOG=$OUT/gpu_mpi_$MODE.log
exec > >(tee "$LOG") 2>&1

# ---- the carried Open MPI (Open MPI 4.1 relocates with OPAL_PREFIX) ----------------------
export OPAL_PREFIX=$R/usr
export PMIX_INSTALL_PREFIX=$R/usr/lib/x86_64-linux-gnu/pmix2
# PMIx's plugins from the carried tree too (the machine has another PMIx's in /usr)
export PMIX_MCA_mca_base_component_path=$R/usr/lib/x86_64-linux-gnu/pmix2/lib/pmix
export PMIX_MCA_pcompress_base_silence_warning=1
export PATH=$R/usr/bin:$PATH
export LD_LIBRARY_PATH=$R/usr/lib/x86_64-linux-gnu:$R/usr/lib/x86_64-linux-gnu/openmpi/lib:${LD_LIBRARY_PATH:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 # commands run as root there
export OMPI_MCA_plm=isolated          # one node: no ssh/rsh launcher
export NCCL_NVLS_ENABLE=0             # the machine's rule (NVLink multicast stays off)
# Shared memory between the ranks of one host (vader) without kernel-assisted single copy
# (CMA may be missing in the sandbox), the ob1 messaging layer (no UCX), no core binding.
MPIRUN="mpirun.openmpi --oversubscribe --bind-to none --mca btl self,vader --mca pml ob1 \
--mca btl_vader_single_copy_mechanism none"

date -u
nvidia-smi -L
nvidia-smi topo -m 2>/dev/null | head -8
NGPU=$(nvidia-smi -L | grep -c '^GPU')
echo "gpus: $NGPU"
$MPIRUN --version | head -1
echo "== mpirun -np 2 hostname"
$MPIRUN -np 2 hostname || { echo "mpirun does not start: stopping"; exit 1; }

fail=0
step() { # step NAME CMD...: runs CMD, records its status
    echo "== $1"
    shift
    "$@"
    local rc=$?
    echo "-- rc=$rc"
    [ "$rc" -eq 0 ] || fail=1
}

# ---- correctness: row strips of every cuda kernel, mpi:cuda against ref ------------------
step "test_rows (ref, cpu, every cuda kernel)" "$B/test_rows"
step "test_mpi --cuda, 1 rank" $MPIRUN -np 1 "$B/test_mpi" --cuda
step "test_mpi --cuda, 2 ranks" $MPIRUN -np 2 "$B/test_mpi" --cuda
[ "$NGPU" -gt 2 ] && step "test_mpi --cuda, $NGPU ranks (one GPU each)" $MPIRUN -np "$NGPU" "$B/test_mpi" --cuda --quick
step "test_mpi (cpu/ref inner, quick), 2 ranks" $MPIRUN -np 2 "$B/test_mpi" --quick

bench() { # bench NP SIZE GENS [ENV...]: the mpi:cuda bench on NP ranks
    local np=$1 size=$2 gens=$3
    shift 3
    echo "== bench mpi:cuda np=$np $size $gens generations $*"
    env WL_MPI_STATS=1 "$@" $MPIRUN -np "$np" "$B/warplife" bench --engine mpi --kernel cuda \
        --size "$size" --generations "$gens" --runs 3 2>&1 | grep -v '^  mpi/cuda: run'
}

# the command end to end: one report from rank 0, a file equal to ref's
cli_check() {
    local T
    T=$(mktemp -d)
    "$B/warplife" soup 1000x700 --seed 5 -o "$T/soup.rle" &&
        $MPIRUN -np 2 "$B/warplife" run "$T/soup.rle" --engine mpi:cuda --torus 1000x700 -m 500 \
            -o "$T/mpi.rle" >"$T/out" &&
        "$B/warplife" run "$T/soup.rle" --engine ref --torus 1000x700 -m 500 -o "$T/ref.rle" -q &&
        cat "$T/out" && [ "$(grep -c '^generation 500 population' "$T/out")" -eq 1 ] &&
        cmp "$T/mpi.rle" "$T/ref.rle" && echo "mpi:cuda file equals ref's"
}
step "warplife run -e mpi:cuda on 2 ranks vs ref" cli_check

if [ "$MODE" = check ]; then
    bench 1 16384x16384 1024
    bench 2 16384x32768 1024
fi

if [ "$MODE" = scale ]; then
    W=65536
    echo "== plain cuda engine, ${W}x${W} (the 1-GPU reference)"
    "$B/warplife" bench --engine cuda --kernel best --size ${W}x${W} --generations 4096 --runs 3 \
        2>&1 | grep -v ': run'
    # weak scaling: 65536 x 65536 cells per GPU
    for np in $(seq 1 "$NGPU"); do bench "$np" ${W}x$((W * np)) 4096; done
    # strong scaling: one 131072 x 131072 universe (2^34 cells) on 1..N GPUs
    for np in $(seq 1 "$NGPU"); do bench "$np" 131072x131072 1024; done
    # halo depth on the largest weak case: fewer, larger exchanges vs more, smaller ones
    for k in 16 256; do bench "$NGPU" ${W}x$((W * NGPU)) 4096 WL_MPI_HALO=$k; done
    # the full-copy path (whole local grid loaded and stored every 64 generations), for scale
    bench "$NGPU" ${W}x$((W * NGPU)) 128 WL_MPI_PATH=full
fi
echo "gpu_mpi.sh $MODE: $([ $fail -eq 0 ] && echo all tests passed || echo FAILURES)"
exit $fail
