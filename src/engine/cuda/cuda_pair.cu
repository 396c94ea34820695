/*
 * cuda_pair.cu - the `lop3p` kernel (and `best` for outer-totalistic rules on large grids):
 * lop3v's stacked-warp tile on the pair layout, where a horizontal neighbour costs one funnel
 * shift per 64 cells.  The body, the layout and the edges are explained in cuda_pair.cuh;
 * this file holds the compiled-in kernels (B3/S23 in several tile shapes, and the run-time
 * mask evaluator for rules without an NVRTC kernel), the per-rule choice made once per
 * universe, and the launcher.
 *
 * Tile shape NR x WB (rows per warp x warps per block): each thread keeps 2 (NR + 2) words of
 * rows in registers, so the Life kernel's 40 x 12 takes 168 registers and one block of 12
 * warps per SM; 448 of 480 rows and 31 of 32 pair columns are written.  B3/S23 with the
 * two-row network, H100, 65536^2 torus, 1024 generations (docs/BENCHMARKS.md, "Fourth
 * session"): 40 x 12 4.17e13 CUpS, 28 x 16 4.16e13, 32 x 12 4.09e13, 24 x 20 4.07e13, 64 x 8
 * (255 registers) 4.03e13; also measured and dropped: 20 x 16 3.91e13, 44 x 11 3.86e13,
 * 48 x 10 3.53e13, 56 x 9 3.23e13 (unrolled generation loops longer than the instruction
 * cache holds, it seems: 64 x 8 has a longer one and is fast, so it is not only length).
 * A persistent grid whose blocks prefetch their next tile into shared memory with cp.async
 * was 3-5% slower and was dropped.
 */
#include "cuda_common.cuh"
#include "cuda_pair.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAIR_K 16 /* generations per full launch */

typedef void (*pair_fn)(const uint2 *, uint2 *, int64_t, int64_t, uint64_t, int, int64_t,
                        int64_t, int, unsigned, unsigned);

/* One kernel per rule logic and shape; MINB 1: the register budget is 65536 / (32 WB). */
#define PAIR_KERNEL(name, RULE, NR, WB)                                                    \
    __global__ void __launch_bounds__(32 * (WB), 1)                                         \
        name(const uint2 *in, uint2 *out, int64_t w, int64_t h, uint64_t np, int torus,     \
             int64_t groups, int64_t total, int kk, unsigned birth, unsigned survive) {     \
        pair_body(in, out, w, h, np, torus, groups, total, kk, birth, survive, RULE, NR, WB); \
    }
PAIR_KERNEL(k_pair_life_40x12, 1, 40, 12)
PAIR_KERNEL(k_pair_life_32x12, 1, 32, 12)
PAIR_KERNEL(k_pair_life_28x16, 1, 28, 16)
PAIR_KERNEL(k_pair_life_24x20, 1, 24, 20)
PAIR_KERNEL(k_pair_life_64x8, 1, 64, 8)
PAIR_KERNEL(k_pair_masks, 0, 16, 12) /* the ~25-instruction mask evaluator: a short tile */

static const struct {
    const char *name;
    int nr, wb;
    pair_fn fn;
} life_shapes[] = {
    {"40x12", 40, 12, k_pair_life_40x12}, {"32x12", 32, 12, k_pair_life_32x12},
    {"28x16", 28, 16, k_pair_life_28x16}, {"24x20", 24, 20, k_pair_life_24x20},
    {"64x8", 64, 8, k_pair_life_64x8},
};
#define N_SHAPES ((int)(sizeof life_shapes / sizeof life_shapes[0]))
#define PAIR_MASKS_NR 16
#define PAIR_MASKS_WB 12
/* Shape of the NVRTC rule kernels (networks of 2..7 gates against Life's 3; WL_CUDA_LOP3P_RTC
 * for tuning).  H100, 65536^2 torus (docs/BENCHMARKS.md): 28 x 16 the fastest or within 1%
 * of it for the six rules measured, 32 x 12 1-4% slower. */
#define PAIR_RTC_NR 28
#define PAIR_RTC_WB 16

/* "NRxWB" -> its index in life_shapes, or -1. */
static int shape_of(const char *text) {
    for (int i = 0; text && i < N_SHAPES; i++)
        if (strcmp(life_shapes[i].name, text) == 0) return i;
    return -1;
}

extern "C" wl_status wlcu_pair_prepare(wlcu_ctx *c) {
    c->pair_fn = NULL;
    if (c->birth == 0x8 && c->survive == 0xC) { /* B3/S23: compiled in */
        int s = shape_of(getenv("WL_CUDA_LOP3P")); /* tuning: another tile shape */
        c->pair_shape = s >= 0 ? s : 0;
        c->pair_nr = life_shapes[c->pair_shape].nr;
        c->pair_wb = life_shapes[c->pair_shape].wb;
        return WL_OK;
    }
    c->pair_shape = -1;
    const char *off = getenv("WL_CUDA_NO_NVRTC");
    wl_status s = WL_ERR_UNAVAILABLE;
    int per_sm = 0;
    int nr = PAIR_RTC_NR, wb = PAIR_RTC_WB;
    const char *shape = getenv("WL_CUDA_LOP3P_RTC"); /* tuning: "NRxWB" of the NVRTC kernels */
    if (!(shape && sscanf(shape, "%dx%d", &nr, &wb) == 2 && nr >= 2 && nr <= PR_NR_MAX &&
          wb >= 1 && wb <= PR_WB_MAX && wb * nr > 2 * PAIR_K)) {
        nr = PAIR_RTC_NR;
        wb = PAIR_RTC_WB;
    }
    if (!(off && *off && *off != '0'))
        s = wlcu_rtc_kernel(c, WLCU_RTC_PAIR, PAIR_K, nr, wb, &c->pair_fn, &per_sm);
    if (s == WL_OK) {
        c->pair_nr = nr;
        c->pair_wb = wb;
        return WL_OK;
    }
    if (c->verbose)
        fprintf(stderr, "warplife: cuda lop3p: no run-time compiled kernel for this rule (%s); "
                        "using the run-time mask evaluator\n",
                s == WL_ERR_UNAVAILABLE && off ? "WL_CUDA_NO_NVRTC" : wl_last_error());
    wl_clear_error();
    c->pair_fn = NULL;
    c->pair_nr = PAIR_MASKS_NR;
    c->pair_wb = PAIR_MASKS_WB;
    return WL_OK;
}

extern "C" unsigned wlcu_pair_max_gens(const wlcu_ctx *c) {
    (void)c; /* every instance: PAIR_K */
    return PAIR_K;
}

extern "C" wl_status wlcu_pair_step(wlcu_ctx *c, unsigned gens) {
    int kk = (int)gens;
    if (kk < 1 || kk > (int)wlcu_pair_max_gens(c))
        return wl_error(WL_ERR_INVALID, "CUDA lop3p: %u generations in one launch", gens);
    const int nr = c->pair_nr, wb = c->pair_wb;
    int64_t w = (int64_t)c->w, h = (int64_t)c->h;
    uint64_t np = c->np;
    /* np / 31 + 1 groups: when 31 divides np the last pair's upper half is lane 0's of one
     * more group (cuda_pair.cuh) */
    int64_t groups = (int64_t)(np / PR_STRIDE + 1);
    int64_t out_rows = (int64_t)wb * nr - 2 * kk;
    int64_t total = groups * ((h + out_rows - 1) / out_rows); /* block tiles */
    int64_t blocks = total < 65535 * 256 ? total : 65535 * 256; /* the blocks loop beyond */
    const uint2 *in = (const uint2 *)c->cur;
    uint2 *out = (uint2 *)c->nxt;
    int torus = c->torus;
    unsigned birth = c->birth, survive = c->survive;
    if (c->pair_fn) {
        void *args[] = {&in, &out, &w, &h, &np, &torus, &groups, &total, &kk, &birth, &survive};
        return wlcu_rtc_launch(c->pair_fn, (unsigned)blocks, 32 * (unsigned)wb, args);
    }
    pair_fn fn = c->pair_shape >= 0 ? life_shapes[c->pair_shape].fn : k_pair_masks;
    fn<<<(unsigned)blocks, 32 * wb>>>(in, out, w, h, np, torus, groups, total, kk, birth,
                                      survive);
    WLCU_CHECK_LAUNCH("lop3p");
    return WL_OK;
}

/* ---- conversions between the bit layout and the pair layout ---- */

/* bits (nw words per row) -> pairs (np per row): one thread per pair. */
__global__ void k_bits_to_pairs(const uint32_t *bits, uint2 *pairs, uint64_t n, uint64_t nw,
                                uint64_t np) {
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n * np;
         i += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t y = i / np, p = i % np;
        const uint32_t *row = bits + y * nw;
        const uint32_t lo = row[2 * p], hi = 2 * p + 1 < nw ? row[2 * p + 1] : 0u;
        pairs[i] = wl_pair_from_bits(lo, hi);
    }
}

/* pairs -> bits: one thread per bit-layout word. */
__global__ void k_pairs_to_bits(const uint2 *pairs, uint32_t *bits, uint64_t n, uint64_t nw,
                                uint64_t np) {
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n * nw;
         i += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t y = i / nw, j = i % nw;
        bits[i] = wl_pair_bitword(pairs + y * np, j);
    }
}

extern "C" wl_status wlcu_pairs_from_bits(wlcu_ctx *c, const uint32_t *bits, void *pairs,
                                          uint64_t n) {
    if (!n) return WL_OK;
    k_bits_to_pairs<<<wlcu_blocks(n * c->np, 256), 256>>>(bits, (uint2 *)pairs, n, c->nw, c->np);
    WLCU_CHECK_LAUNCH("bits_to_pairs");
    return WL_OK;
}

extern "C" wl_status wlcu_pairs_to_bits(wlcu_ctx *c, const void *pairs, uint32_t *bits,
                                        uint64_t n) {
    if (!n) return WL_OK;
    k_pairs_to_bits<<<wlcu_blocks(n * c->nw, 256), 256>>>((const uint2 *)pairs, bits, n, c->nw,
                                                          c->np);
    WLCU_CHECK_LAUNCH("pairs_to_bits");
    return WL_OK;
}
