/*
 * cuda_lop3v.cu - the bitsliced multi-generation kernel with warps stacked vertically
 * (`lop3v`; lop3p runs this design on the pair layout, cuda_pair.cuh): a tall tile whose
 * rows are split between the warps of a block, which exchange their edge rows through shared
 * memory once per generation; B3/S23 with hand-placed LOP3 logic, other rules with lop3's
 * row logic (cuda_lop3.cuh).
 *
 * What it computes: K generations of an outer-totalistic rule per launch (the host does a
 * remainder of fewer than K generations with the one-step bitcount kernel).
 *
 * Layout: WLCU_BITS (row-major 32-bit words, bit i of word j = cell 32j + i).  A block of WB
 * warps owns a tile of 32 word columns by WB * NR rows; warp w holds rows w*NR .. w*NR+NR-1
 * of the tile, lane l word column c = 30*group + l - 1, in registers v[1..NR]; v[0] and
 * v[NR+1] hold the rows just above and below the warp's slice, read from the neighbouring
 * warps' edge rows in shared memory before every generation (zero at the tile's top and
 * bottom).  Lanes 0 and 31 and the K rows at the top and bottom of the tile are the halo,
 * recomputed rather than exchanged between blocks: the garbage that enters at the tile's edges
 * moves one cell per generation, so after K generations rows K .. WB*NR-K-1 of lanes 1..30 are
 * exact and are the rows written.
 *
 * Why it is faster than lop3 (H100, B3/S23, 65536^2 torus: 2.14e13 -> 3.07e13 CUpS, 3.39e13
 * with the 3-LOP3 rule network, 3.47e13 with the 40x12x16 Life tile; docs/BENCHMARKS.md has
 * the steps):
 *   - less recomputed halo: lop3 keeps a 64-row tile in one warp and updates rows 1..62 in
 *     every generation, 62 rows computed per 48 written (1.29x).  Here the default tile for
 *     the other rules is 8 warps x 40 rows = 320 rows, 304 written for K = 8 (1.05x); Life's
 *     is 12 warps x 40 rows, 448 of 480 written for K = 16 (1.07x); each thread holds only
 *     NR + 2 rows;
 *   - occupancy: __launch_bounds__ with a minimum of MINB blocks per SM caps the registers
 *     (80 for the defaults: 24 warps per SM).  Uncapped, nvcc used 150-255 registers and the
 *     kernel ran 15-20% slower;
 *   - fewer instructions for Life: LIFE_GENERATION below uses 9 LOP3 (10 before the 3-gate
 *     rule network), 2 funnel shifts and 2 shuffles per 32 cells, where the pair logic
 *     compiles to about 13 LOP3;
 *   - a short unrolled row loop (one generation of NR rows, about 500 instructions), so the
 *     hot loop stays in the instruction cache.
 * The price is one __syncthreads per generation and four shared-memory accesses per thread
 * per generation.  The exchange buffer is double-buffered by generation parity, so one barrier
 * suffices (a warp writes parity p again only after every warp has passed the next barrier,
 * i.e. after all reads of parity p).
 *
 * Edges: as in lop3 (loads through wl_win32 outside the fast path: periodic plane on a torus,
 * dead cells beyond a bounded grid, whose ghost rows and columns are cleared after every
 * generation; warps whose slice lies inside the grid skip both, a warp-uniform branch).
 */
#include "cuda_lop3.cuh"

#include <string.h>

#define V_NR 40          /* default rows per warp */
#define V_WB 8           /* default warps per block (stacked vertically) */
#define V_MINB 3         /* default: blocks per SM to make room for (8 warps x 3: 80 registers) */
#define V_K 8            /* default generations per launch (K <= 32: garbage stays in lanes 0, 31) */
#define V_NR_MAX 48      /* the largest NR compiled */
#define V_WB_MAX 32      /* the largest WB compiled (shared exchange buffer size) */
#define V_LANES_OUT 30   /* lanes 1..30 are written */

/* d = the 3-input logic function with truth table `lut` of a, b, c (one LOP3): bit
 * 4a + 2b + c of lut is the result; e.g. 0x96 = a ^ b ^ c, 0xE8 = majority(a, b, c).  Written
 * in PTX so that the compiler keeps exactly the planned operations. */
#define LOP3_ASM(d, a, b, c, lut) \
    asm("lop3.b32 %0, %1, %2, %3, " #lut ";" : "=r"(d) : "r"(a), "r"(b), "r"(c))

/* Horizontal 3-sum s + 2c of word x: s = L ^ x ^ R, c = majority (2 LOP3 after the shifts). */
#define HSUM3(x, s, c)                                                                     \
    do {                                                                                   \
        uint32_t l_ = __shfl_up_sync(FULL_MASK, (x), 1);                                   \
        uint32_t r_ = __shfl_down_sync(FULL_MASK, (x), 1);                                 \
        uint32_t xl_ = __funnelshift_l(l_, (x), 1), xr_ = __funnelshift_r((x), r_, 1);     \
        LOP3_ASM(s, xl_, (x), xr_, 0x96);                                                  \
        LOP3_ASM(c, xl_, (x), xr_, 0xE8);                                                  \
    } while (0)

/* One generation of B3/S23 on rows lo..hi-1 in place in v[] (rows lo-1 and hi are read, not
 * written), 7 LOP3 per row after the horizontal sums.  With (s_j, c_j) the horizontal sum of
 * row j, the 9-cell total of row i is T = S + 2 Cs with S = s_{i-1} + s_i + s_{i+1} = x0 + 2k
 * and Cs = c_{i-1} + c_i + c_{i+1} = y1 + 2 y2 (two full adders: XOR3 and majority each), so
 * T = x0 + 2m with m = k + y1 + 2 y2, and alive = T == 3 | (centre & T == 4) takes 3 LOP3
 * (the network wl_lop3_synth finds, src/core/lop3net.c; cuda_wave.cuh explains it):
 *   t0 = [m == 0 or m == 2]                  (lut 0x43 of k, y1, y2)
 *   t1 = x0 ? !t0 : t0 & centre              (lut 0x2C of t0, x0, centre)
 *   next = t1 & !(x0 & y2)                   (lut 0x70 of t1, x0, y2)
 * It relies on a live centre never having T = 0.  Until 2026-11-22 05:55 this was a
 * hand-placed 4-LOP3 network (an earlier search had missed the 3-gate ones that use that
 * don't-care); all 512 neighbourhoods checked. */
#define LIFE_GENERATION(lo, hi)                                                            \
    do {                                                                                   \
        uint32_t sa, ca, sb, cb; /* horizontal sums of rows i-1 and i */                   \
        HSUM3(v[(lo) - 1], sa, ca);                                                        \
        HSUM3(v[(lo)], sb, cb);                                                            \
        _Pragma("unroll") for (int i = (lo); i < (hi); i++) {                              \
            uint32_t sn, cn, x0, k, y1, y2, t0, t1, n;                                     \
            HSUM3(v[i + 1], sn, cn); /* row i+1, old value */                              \
            LOP3_ASM(x0, sa, sb, sn, 0x96);                                                \
            LOP3_ASM(k, sa, sb, sn, 0xE8);                                                 \
            LOP3_ASM(y1, ca, cb, cn, 0x96);                                                \
            LOP3_ASM(y2, ca, cb, cn, 0xE8);                                                \
            LOP3_ASM(t0, k, y1, y2, 0x43);                                                 \
            LOP3_ASM(t1, t0, x0, v[i], 0x2C);                                              \
            LOP3_ASM(n, t1, x0, y2, 0x70);                                                 \
            v[i] = n;                                                                      \
            sa = sb;                                                                       \
            ca = cb;                                                                       \
            sb = sn;                                                                       \
            cb = cn;                                                                       \
        }                                                                                  \
    } while (0)

/* The kernel body: one block tile after another (one per block unless the grid is capped).
 * nr must be even (rows are updated in pairs). */
__device__ __forceinline__ void lop3v_body(const uint32_t *__restrict__ in,
                                           uint32_t *__restrict__ out, int64_t w, int64_t h,
                                           uint64_t nw, int torus, int64_t groups,
                                           int64_t total, unsigned birth, unsigned survive,
                                           int life, const int nr, const int wb, const int kk) {
    /* life: 0 any rule (masks), 1 B3/S23 by LIFE_GENERATION, 2 B3/S23 by LOP3_GENERATION */
    /* edge rows: [parity][warp][0 = top row, 1 = bottom row][lane] */
    __shared__ uint32_t edge[2][V_WB_MAX][2][32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t out_rows = (int64_t)wb * nr - 2 * kk; /* rows written per tile */
    int ph = 0;                                         /* exchange buffer parity */
    uint32_t v[V_NR_MAX + 2];
    for (int64_t tile = blockIdx.x; tile < total; tile += gridDim.x) {
        const int64_t band = tile / groups, grp = tile % groups;
        const int64_t c = grp * V_LANES_OUT + lane - 1;
        const int64_t r0 = band * out_rows - kk + (int64_t)warp * nr; /* row of v[1] */
        const int64_t col_lo = (grp * V_LANES_OUT - 1) * 32;
        const int inside = r0 >= 0 && r0 + nr <= (int64_t)h && col_lo >= 0 &&
                           col_lo + 32 * 32 <= (int64_t)w;
        if (inside) {
            const uint32_t *p = in + (uint64_t)r0 * nw + (uint64_t)c;
#pragma unroll
            for (int i = 0; i < nr; i++) v[i + 1] = p[(uint64_t)i * nw];
        } else {
#pragma unroll
            for (int i = 0; i < nr; i++) v[i + 1] = wl_win32_call(in, nw, w, h, torus, r0 + i, c);
        }
        const int needmask = !torus && !inside;
        const uint32_t cm = wl_colmask(w, c);
#pragma unroll 1
        for (int g = 0; g < kk; g++) {
            STACKED_EXCHANGE(edge, ph, warp, lane, v, nr, wb);
            if (life == 1) LIFE_GENERATION(1, nr + 1);
            else LOP3_GENERATION(1, nr + 1);
            if (needmask) {
#pragma unroll
                for (int i = 1; i <= nr; i++)
                    v[i] &= (uint64_t)(r0 + i - 1) < (uint64_t)h ? cm : 0u;
            }
        }
        if (lane >= 1 && lane <= V_LANES_OUT && (uint64_t)c < nw) {
#pragma unroll
            for (int i = 1; i <= nr; i++) {
                const int bl = warp * nr + i - 1; /* row within the tile */
                const int64_t y = r0 + i - 1;
                if (bl >= kk && bl < wb * nr - kk && y < (int64_t)h)
                    out[(uint64_t)y * nw + (uint64_t)c] = v[i] & cm;
            }
        }
    }
}

typedef void (*lop3v_fn)(const uint32_t *, uint32_t *, int64_t, int64_t, uint64_t, int,
                         int64_t, int64_t, unsigned, unsigned);

/* One kernel per compiled-in rule and shape: the masks are literals, so the evaluator folds.
 * MINB: blocks per SM that ptxas must make room for (1: no register cap; 8 with 4 warps or
 * 4 with 8 warps caps the kernel at 64 registers, 32 warps per SM). */
#define LOP3V_KERNEL_SHAPE(name, B, S, LIFE, NR, WB, K, MINB)                               \
    __global__ void __launch_bounds__(32 * (WB), MINB)                                      \
        name(const uint32_t *in, uint32_t *out, int64_t w, int64_t h, uint64_t nw, int torus, \
             int64_t groups, int64_t total, unsigned birth, unsigned survive) {             \
        (void)birth;                                                                        \
        (void)survive;                                                                      \
        lop3v_body(in, out, w, h, nw, torus, groups, total, B, S, LIFE, NR, WB, K);         \
    }
#define LOP3V_KERNEL(name, B, S, LIFE)                                                      \
    LOP3V_KERNEL_SHAPE(name, B, S, LIFE, V_NR, V_WB, V_K, V_MINB)

/* masks: bit n = n live neighbours */
#define M(n) (1u << (n))
LOP3V_KERNEL(k_lop3v_life, M(3), M(2) | M(3), 1)                                 /* B3/S23 */
LOP3V_KERNEL(k_lop3v_highlife, M(3) | M(6), M(2) | M(3), 0)                       /* B36/S23 */
LOP3V_KERNEL(k_lop3v_daynight, M(3) | M(6) | M(7) | M(8),
             M(3) | M(4) | M(6) | M(7) | M(8), 0)                                /* B3678/S34678 */
LOP3V_KERNEL(k_lop3v_seeds, M(2), 0, 0)                                           /* B2/S */
LOP3V_KERNEL(k_lop3v_morley, M(3) | M(6) | M(8), M(2) | M(4) | M(5), 0)           /* B368/S245 */

__global__ void __launch_bounds__(32 * V_WB, V_MINB)
    k_lop3v_generic(const uint32_t *in, uint32_t *out, int64_t w, int64_t h, uint64_t nw,
                    int torus, int64_t groups, int64_t total, unsigned birth,
                    unsigned survive) {
    lop3v_body(in, out, w, h, nw, torus, groups, total, birth, survive, 0, V_NR, V_WB, V_K);
}

/* Other shapes of the Life kernel, for tuning (WL_CUDA_LOP3V=NRxWBxK; the suffix says how
 * MINB caps the registers: "m" 64, "r" 80, none: 128 or more).  "p": lop3's pair logic. */
LOP3V_KERNEL_SHAPE(k_lop3v_life_40x8x8p, M(3), M(2) | M(3), 2, 40, 8, 8, 3)
LOP3V_KERNEL_SHAPE(k_lop3v_life_32x8x8m, M(3), M(2) | M(3), 1, 32, 8, 8, 4)
LOP3V_KERNEL_SHAPE(k_lop3v_life_32x16x8m, M(3), M(2) | M(3), 1, 32, 16, 8, 2)
LOP3V_KERNEL_SHAPE(k_lop3v_life_32x8x16m, M(3), M(2) | M(3), 1, 32, 8, 16, 4)
LOP3V_KERNEL_SHAPE(k_lop3v_life_40x8x16r, M(3), M(2) | M(3), 1, 40, 8, 16, 3)
LOP3V_KERNEL_SHAPE(k_lop3v_life_40x16x8, M(3), M(2) | M(3), 1, 40, 16, 8, 1)
LOP3V_KERNEL_SHAPE(k_lop3v_life_48x8x16, M(3), M(2) | M(3), 1, 48, 8, 16, 2)
/* Taller tiles: one block of 16-32 warps per SM (the register cap then comes from the block
 * size alone: 65536 / (32 * WB) registers), 2K recomputed rows out of WB * NR. */
LOP3V_KERNEL_SHAPE(k_lop3v_life_40x24x16, M(3), M(2) | M(3), 1, 40, 24, 16, 1)
LOP3V_KERNEL_SHAPE(k_lop3v_life_32x32x16, M(3), M(2) | M(3), 1, 32, 32, 16, 1)
LOP3V_KERNEL_SHAPE(k_lop3v_life_40x16x16, M(3), M(2) | M(3), 1, 40, 16, 16, 1)
/* Two blocks of 12 warps per SM (80 registers): 448 of 480 rows written, the default since
 * 2026-11-22 07:35 (H100: 3.47e13 against 40x8x16r's 3.39e13; docs/BENCHMARKS.md). */
LOP3V_KERNEL_SHAPE(k_lop3v_life_40x12x16, M(3), M(2) | M(3), 1, 40, 12, 16, 2)
LOP3V_KERNEL_SHAPE(k_lop3v_life_44x12x16, M(3), M(2) | M(3), 1, 44, 12, 16, 2)

static const struct {
    const char *name;
    int nr, wb, k;
    lop3v_fn fn;
} life_shapes[] = {
    {"40x8x8p", 40, 8, 8, k_lop3v_life_40x8x8p},
    {"32x8x8m", 32, 8, 8, k_lop3v_life_32x8x8m},
    {"32x16x8m", 32, 16, 8, k_lop3v_life_32x16x8m},
    {"32x8x16m", 32, 8, 16, k_lop3v_life_32x8x16m},
    {"40x8x16r", 40, 8, 16, k_lop3v_life_40x8x16r},
    {"40x16x8", 40, 16, 8, k_lop3v_life_40x16x8},
    {"48x8x16", 48, 8, 16, k_lop3v_life_48x8x16},
    {"40x24x16", 40, 24, 16, k_lop3v_life_40x24x16},
    {"32x32x16", 32, 32, 16, k_lop3v_life_32x32x16},
    {"40x16x16", 40, 16, 16, k_lop3v_life_40x16x16},
    {"40x12x16", 40, 12, 16, k_lop3v_life_40x12x16},
    {"44x12x16", 44, 12, 16, k_lop3v_life_44x12x16},
};
#define N_SHAPES ((int)(sizeof life_shapes / sizeof life_shapes[0]))

static const struct {
    uint16_t birth, survive;
    lop3v_fn fn;
} variants[] = {
    {M(3), M(2) | M(3), k_lop3v_life},
    {M(3) | M(6), M(2) | M(3), k_lop3v_highlife},
    {M(3) | M(6) | M(7) | M(8), M(3) | M(4) | M(6) | M(7) | M(8), k_lop3v_daynight},
    {M(2), 0, k_lop3v_seeds},
    {M(3) | M(6) | M(8), M(2) | M(4) | M(5), k_lop3v_morley},
};
#define N_VARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* The Life shape used when WL_CUDA_LOP3V is not set (a name in life_shapes; the other rules
 * use V_NR x V_WB x V_K): the fastest verified one on an H100 (docs/BENCHMARKS.md). */
#define V_LIFE_DEFAULT "40x12x16"

extern "C" int wlcu_lop3v_shape(const char *text) {
    if (!text) text = V_LIFE_DEFAULT;
    for (int i = 0; i < N_SHAPES; i++)
        if (strcmp(life_shapes[i].name, text) == 0) return i;
    return -1;
}

extern "C" unsigned wlcu_lop3v_max_gens(const wlcu_ctx *c) {
    return c->lop3v_shape >= 0 && c->lop3v_shape < N_SHAPES
               ? (unsigned)life_shapes[c->lop3v_shape].k
               : V_K;
}

extern "C" wl_status wlcu_lop3v_step(wlcu_ctx *c, unsigned gens) {
    (void)gens; /* always wlcu_lop3v_max_gens(c) (the kernel table's `whole`) */
    int nr = V_NR, wb = V_WB, kk = V_K;
    lop3v_fn fn = k_lop3v_generic;
    for (int i = 0; i < N_VARIANTS; i++)
        if (variants[i].birth == c->birth && variants[i].survive == c->survive)
            fn = variants[i].fn;
    if (c->lop3v_shape >= 0 && c->lop3v_shape < N_SHAPES) { /* Life only (set by the caller) */
        nr = life_shapes[c->lop3v_shape].nr;
        wb = life_shapes[c->lop3v_shape].wb;
        kk = life_shapes[c->lop3v_shape].k;
        fn = life_shapes[c->lop3v_shape].fn;
    }
    int64_t groups = (int64_t)((c->nw + V_LANES_OUT - 1) / V_LANES_OUT);
    int64_t out_rows = (int64_t)wb * nr - 2 * kk;
    int64_t bands = (int64_t)((c->h + out_rows - 1) / out_rows);
    int64_t total = groups * bands; /* block tiles */
    int64_t blocks = total;
    if (blocks > 65535 * 256) blocks = 65535 * 256; /* the blocks loop beyond that */
    fn<<<(unsigned)blocks, 32 * wb>>>((const uint32_t *)c->cur, (uint32_t *)c->nxt,
                                      (int64_t)c->w, (int64_t)c->h, c->nw, c->torus, groups,
                                      total, c->birth, c->survive);
    WLCU_CHECK_LAUNCH("lop3v");
    return WL_OK;
}
