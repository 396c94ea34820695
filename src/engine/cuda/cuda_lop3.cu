/*
 * cuda_lop3.cu - the bitsliced multi-generation kernel (`lop3`; lop3v runs the same row logic
 * on a taller tile of stacked warps, cuda_lop3v.cu, and lop3p that tile on the pair layout,
 * cuda_pair.cuh, which is `best` on large grids).
 *
 * What it computes: LOP3_K generations of an outer-totalistic rule per launch (the host does
 * a remainder of fewer than K generations with the one-step bitcount kernel, so that the
 * generation loop here has a compile-time trip count).
 *
 * Layout: WLCU_BITS (row-major 32-bit words, bit i of word j = cell 32j + i, zero padding
 * after column W-1).  A warp owns a tile of 32 word columns by LOP3_NR rows; lane l holds
 * word column c = 30*group + l - 1 of LOP3_NR consecutive rows in registers (v[0..NR-1],
 * virtual rows y0 - K .. y0 - K + NR - 1).  Only lanes 1..30 and rows K..NR-K-1 are written
 * back: lanes 0 and 31 and the K rows above and below are the halo, recomputed by this warp
 * instead of exchanged (temporal blocking).  After g generations the garbage that enters at
 * the tile's edges has moved g bits into lanes 0 and 31 and g rows in from the top and
 * bottom, so with K <= 32 the written cells are exact.  Redundancy: 32/30 horizontally and
 * sum_g (NR - 2g) / (K (NR - 2K)) vertically, or (NR - 2) / (NR - 2K) = 1.29 for the default
 * compact shape NR = 64, K = 8, which updates rows 1..NR-2 in every generation so that its
 * generation loop need not be unrolled.  Tuning on an H200 (docs/BENCHMARKS.md): with the
 * generation loop unrolled, 64 x 8 ran at 1.4e13 CUpS and 32 x 4 at 2.0e13 (Nsight Compute:
 * 40% of stall cycles waiting for instruction fetch, the ALU pipe 72% busy); the compact
 * 64 x 8 loop, a quarter of the code, ran at 2.15e13 despite its extra rows.
 *
 * Edges: the tile is loaded through wl_win32, so it is a piece of the unrolled periodic plane
 * on a torus (any width, any height, even narrower than a tile), and dead beyond the edge on
 * a bounded grid, where the ghost cells are also cleared after every generation so that
 * nothing is ever born outside.  Interior warps skip both (a warp-uniform branch).
 *
 * One generation of one 32-cell word, all in registers:
 *   - horizontal neighbours: the words of lanes l-1 and l+1 by two warp shuffles, then one
 *     funnel shift each (SHF) gives the planes "cell x-1" and "cell x+1";
 *   - H(i) = xl + v + xr, the 2-bit horizontal sum of row i (2 LOP3: XOR3 and majority);
 *   - rows are done in pairs sharing P = H(i) + H(i+1) (3 bits, 4 LOP3): the 9-cell sums are
 *     H(i-1) + P for row i and P + H(i+2) for row i+1 (5 LOP3 each);
 *   - the rule: for B3/S23 alive iff the 9-sum is 3, or 4 with the centre alive; the sum
 *     mod 8 suffices (8 and 9 are dead either way), so 2 LOP3.  Other rules use the sum's four
 *     planes and compile-time birth/survive masks (wl_rule_planes9), which nvcc folds into a
 *     few LOP3; rules not compiled in use the same evaluator with run-time masks.
 * About 13 logic instructions (LOP3, SHF) and 2 shuffles per 32 cell updates; the memory
 * traffic is one load of NR rows and one store of NR - 2K rows per K generations, far below
 * the copy floor, so the kernel is bound by instruction issue and latency, not memory.
 */
#include "cuda_lop3.cuh"

#include <string.h>

/* Tile shapes: NR rows held per thread, K generations per launch (K <= 32, see above),
 * NR - 2K rows written; a "c" (compact) shape does not unroll its generation loop.  The
 * default shape (64 x 8, compact) serves every rule; Life also gets other shapes for tuning,
 * chosen with the environment variable WL_CUDA_LOP3 (e.g. WL_CUDA_LOP3=48x8c). */
#define LOP3_NR 64     /* default rows held per thread */
#define LOP3_K 8       /* default generations per launch */
#define LOP3_COMPACT 1 /* default: generation loop not unrolled (see lop3_body) */
#define LOP3_NR_MAX 96 /* the largest shape compiled */
#define LOP3_LANES_OUT 30                /* lanes 1..30 are written */
#define LOP3_THREADS 128                 /* 4 warps per block */

/* Bounded grids, tiles at the edge: clears the ghost cells of rows lo..hi-1 (outside the
 * grid nothing is ever alive). */
#define LOP3_MASK(lo, hi)                                                                  \
    do {                                                                                   \
        _Pragma("unroll") for (int i = (lo); i < (hi); i++)                                \
            v[i] &= (uint64_t)(r0 + i) < (uint64_t)h ? cm : 0u;                            \
    } while (0)

/* Where warp tile `wid` lies: lane's word column c, virtual row r0 of v[0], and whether the
 * whole tile (halo included) is inside the grid. */
#define LOP3_GEOM(wid)                                                                     \
    int64_t band = (wid) / groups, grp = (wid) % groups;                                   \
    int64_t c = grp * LOP3_LANES_OUT + lane - 1;                                           \
    int64_t r0 = band * (nr - 2 * kk) - kk;                                                \
    int64_t col_lo = (grp * LOP3_LANES_OUT - 1) * 32;                                      \
    int inside = r0 >= 0 && r0 + nr <= h && col_lo >= 0 && col_lo + 32 * 32 <= w;

/* Loads the nr rows of this lane's word column of tile `wid` into v. */
__device__ __forceinline__ void lop3_load(uint32_t *v, const uint32_t *__restrict__ in,
                                          int64_t w, int64_t h, uint64_t nw, int torus,
                                          int64_t groups, int64_t wid, const int nr,
                                          const int kk) {
    const int lane = threadIdx.x & 31;
    LOP3_GEOM(wid)
    if (inside) {
        const uint32_t *p = in + (uint64_t)r0 * nw + (uint64_t)c;
#pragma unroll
        for (int i = 0; i < nr; i++) v[i] = p[(uint64_t)i * nw];
    } else {
#pragma unroll
        for (int i = 0; i < nr; i++) v[i] = wl_win32_call(in, nw, w, h, torus, r0 + i, c);
    }
}

/* The kernel body: one warp tile after another (one per warp unless the grid is capped). */
__device__ __forceinline__ void lop3_body(const uint32_t *__restrict__ in,
                                          uint32_t *__restrict__ out, int64_t w, int64_t h,
                                          uint64_t nw, int torus, int64_t groups, int64_t total,
                                          unsigned birth, unsigned survive,
                                          int life, const int nr, const int kk,
                                          const int compact) {
    const int lane = threadIdx.x & 31;
    const int64_t step = ((int64_t)gridDim.x * LOP3_THREADS) >> 5;
    int64_t wid = (blockIdx.x * (int64_t)LOP3_THREADS + threadIdx.x) >> 5;
    uint32_t v[LOP3_NR_MAX];
    for (; wid < total; wid += step) {
        LOP3_GEOM(wid)
        lop3_load(v, in, w, h, nw, torus, groups, wid, nr, kk);
        const int needmask = !torus && !inside;
        const uint32_t cm = wl_colmask(w, c);
        if (compact) {
            /* the same rows every generation, so that the loop need not unroll: a quarter of
             * the code (instruction-cache stalls) for ~10% more work on garbage rows */
#pragma unroll 1
            for (int g = 1; g <= kk; g++) {
                LOP3_GENERATION(1, nr - 1);
                if (needmask) LOP3_MASK(1, nr - 1);
            }
        } else {
#pragma unroll
            for (int g = 1; g <= kk; g++) {
                LOP3_GENERATION(g, nr - g);
                if (needmask) LOP3_MASK(g, nr - g);
            }
        }
        if (lane >= 1 && lane <= LOP3_LANES_OUT && (uint64_t)c < nw) {
#pragma unroll
            for (int i = kk; i < nr - kk; i++) {
                int64_t y = r0 + i;
                if (y < h) out[(uint64_t)y * nw + (uint64_t)c] = v[i] & cm;
            }
        }
    }
}

typedef void (*lop3_fn)(const uint32_t *, uint32_t *, int64_t, int64_t, uint64_t, int, int64_t,
                        int64_t, unsigned, unsigned);

/* One kernel per compiled-in rule: the masks are literals, so the evaluator folds. */
#define LOP3_KERNEL_SHAPE(name, B, S, LIFE, NR, K, CP)                                      \
    __global__ void __launch_bounds__(LOP3_THREADS)                                         \
        name(const uint32_t *in, uint32_t *out, int64_t w, int64_t h, uint64_t nw, int torus, \
             int64_t groups, int64_t total, unsigned birth, unsigned survive) {             \
        (void)birth;                                                                        \
        (void)survive;                                                                      \
        lop3_body(in, out, w, h, nw, torus, groups, total, B, S, LIFE, NR, K, CP);          \
    }
#define LOP3_KERNEL(name, B, S, LIFE)                                                       \
    LOP3_KERNEL_SHAPE(name, B, S, LIFE, LOP3_NR, LOP3_K, LOP3_COMPACT)

/* masks: bit n = n live neighbours */
#define M(n) (1u << (n))
LOP3_KERNEL(k_lop3_life, M(3), M(2) | M(3), 1)                                  /* B3/S23 */
LOP3_KERNEL(k_lop3_highlife, M(3) | M(6), M(2) | M(3), 0)                        /* B36/S23 */
LOP3_KERNEL(k_lop3_daynight, M(3) | M(6) | M(7) | M(8),
            M(3) | M(4) | M(6) | M(7) | M(8), 0)                                 /* B3678/S34678 */
LOP3_KERNEL(k_lop3_seeds, M(2), 0, 0)                                            /* B2/S */
LOP3_KERNEL(k_lop3_morley, M(3) | M(6) | M(8), M(2) | M(4) | M(5), 0)            /* B368/S245 */

__global__ void __launch_bounds__(LOP3_THREADS)
    k_lop3_generic(const uint32_t *in, uint32_t *out, int64_t w, int64_t h, uint64_t nw,
                   int torus, int64_t groups, int64_t total, unsigned birth, unsigned survive) {
    lop3_body(in, out, w, h, nw, torus, groups, total, birth, survive, 0, LOP3_NR, LOP3_K,
              LOP3_COMPACT);
}

/* Other shapes of the Life kernel, for tuning (WL_CUDA_LOP3=NRxK). */
LOP3_KERNEL_SHAPE(k_lop3_life_32x4, M(3), M(2) | M(3), 1, 32, 4, 0)
LOP3_KERNEL_SHAPE(k_lop3_life_24x4, M(3), M(2) | M(3), 1, 24, 4, 0)
LOP3_KERNEL_SHAPE(k_lop3_life_48x8c, M(3), M(2) | M(3), 1, 48, 8, 1)
LOP3_KERNEL_SHAPE(k_lop3_life_96x8c, M(3), M(2) | M(3), 1, 96, 8, 1)

static const struct {
    const char *name;
    int nr, k;
    lop3_fn fn;
} life_shapes[] = {
    {"32x4", 32, 4, k_lop3_life_32x4},
    {"24x4", 24, 4, k_lop3_life_24x4},
    {"48x8c", 48, 8, k_lop3_life_48x8c},
    {"96x8c", 96, 8, k_lop3_life_96x8c},
};

static const struct {
    uint16_t birth, survive;
    lop3_fn fn;
} variants[] = {
    {M(3), M(2) | M(3), k_lop3_life},
    {M(3) | M(6), M(2) | M(3), k_lop3_highlife},
    {M(3) | M(6) | M(7) | M(8), M(3) | M(4) | M(6) | M(7) | M(8), k_lop3_daynight},
    {M(2), 0, k_lop3_seeds},
    {M(3) | M(6) | M(8), M(2) | M(4) | M(5), k_lop3_morley},
};
#define N_VARIANTS ((int)(sizeof variants / sizeof variants[0]))

extern "C" int wlcu_lop3_variant(uint16_t birth, uint16_t survive) {
    for (int i = 0; i < N_VARIANTS; i++)
        if (variants[i].birth == birth && variants[i].survive == survive) return i;
    return -1;
}

/* The shape index for Life from WL_CUDA_LOP3 ("NRxK"), or -1 for the default shape. */
extern "C" int wlcu_lop3_shape(const char *text) {
    if (!text) return -1;
    for (int i = 0; i < (int)(sizeof life_shapes / sizeof life_shapes[0]); i++)
        if (strcmp(life_shapes[i].name, text) == 0) return i;
    return -1;
}

extern "C" unsigned wlcu_lop3_max_gens(const wlcu_ctx *c) {
    return c->lop3_shape >= 0 ? (unsigned)life_shapes[c->lop3_shape].k : LOP3_K;
}

extern "C" wl_status wlcu_lop3_step(wlcu_ctx *c, unsigned gens) {
    (void)gens; /* always wlcu_lop3_max_gens(c) (the kernel table's `whole`) */
    int nr = LOP3_NR, kk = LOP3_K;
    lop3_fn fn = c->rule_variant >= 0 && c->rule_variant < N_VARIANTS
                     ? variants[c->rule_variant].fn
                     : k_lop3_generic;
    if (c->lop3_shape >= 0) {
        nr = life_shapes[c->lop3_shape].nr;
        kk = life_shapes[c->lop3_shape].k;
        fn = life_shapes[c->lop3_shape].fn;
    }
    int64_t groups = (int64_t)((c->nw + LOP3_LANES_OUT - 1) / LOP3_LANES_OUT);
    int64_t bands = (int64_t)((c->h + (nr - 2 * kk) - 1) / (nr - 2 * kk));
    int64_t total = groups * bands; /* warps */
    int64_t blocks = (total + LOP3_THREADS / 32 - 1) / (LOP3_THREADS / 32);
    /* One warp per tile.  (A persistent grid, with or without loading the next tile before
     * computing the current one, measured 10-20% slower on an H100: docs/BENCHMARKS.md.) */
    if (blocks > 65535 * 256) blocks = 65535 * 256; /* the warps loop beyond that */
    fn<<<(unsigned)blocks, LOP3_THREADS>>>((const uint32_t *)c->cur, (uint32_t *)c->nxt,
                                           (int64_t)c->w, (int64_t)c->h, c->nw, c->torus,
                                           groups, total, c->birth, c->survive);
    WLCU_CHECK_LAUNCH("lop3");
    return WL_OK;
}
