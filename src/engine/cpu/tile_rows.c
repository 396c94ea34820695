/*
 * tile_rows.c - the portable tile kernel of the sparse engine (wl_tile_job, internal.h):
 * any rule on any CPU, by running a one-word-wide row function of this engine (bitsliced,
 * or a table kernel for rules that are not outer-totalistic) over a copy of the tile.
 *
 * The copy holds the rows the asked bricks need, one above and one below included (from
 * the northern and southern tiles at the edges), each as three words: the west tile's
 * word, the tile's word, the east tile's word.  A row function reads exactly the words
 * before and after its data word as the horizontal neighbours, so with the tile's word as
 * the data (bw = 1) and the neighbours' words where the pads would be, it computes the
 * tile's row with the right cells across both edges.  The results are compared with the
 * output's old rows as the SIMD tile kernels do.  Used where neither AVX-512 nor AVX2 is
 * there (or for rules those loops do not run without AVX-512), and by tests as a second
 * implementation next to the SIMD tile kernels.
 */
#include "cpu_internal.h"

#define PITCH 3 /* words per copied row: west, tile, east */

void cpu_tile_rows(wl_tile_job *job, const cpu_kernel_data *kd) {
    uint64_t in[(WL_TILE + 2) * PITCH], out[(WL_TILE + 2) * PITCH];
    const uint64_t *const *t = job->in;
    unsigned bm = job->bricks & 0xFF;
    job->chg = job->chg_w = job->chg_e = 0;
    job->live = 0;
    if (!bm) return;
    int lo = WL_BRICK * __builtin_ctz(bm), hi = WL_BRICK * (32 - __builtin_clz(bm));
    /* buffer row i holds tile row i - 1 */
    for (int r = lo - 1; r <= hi; r++) {
        uint64_t *dst = in + (size_t)(r + 1) * PITCH;
        if (r < 0) {
            dst[0] = t[WL_NB_NW][WL_TILE - 1];
            dst[1] = t[WL_NB_N][WL_TILE - 1];
            dst[2] = t[WL_NB_NE][WL_TILE - 1];
        } else if (r >= WL_TILE) {
            dst[0] = t[WL_NB_SW][0];
            dst[1] = t[WL_NB_S][0];
            dst[2] = t[WL_NB_SE][0];
        } else {
            dst[0] = t[WL_NB_W][r];
            dst[1] = t[WL_NB_C][r];
            dst[2] = t[WL_NB_E][r];
        }
    }
    const uint64_t *src = in + PITCH + 1; /* tile row 0's data word */
    uint64_t *res = out + PITCH + 1;
    for (unsigned m = bm; m; m &= m - 1) {
        size_t r0 = (size_t)WL_BRICK * (size_t)__builtin_ctz(m);
        kd->tile_rows(src, res, PITCH, 1, r0, r0 + WL_BRICK, 0, NULL, kd);
        for (size_t r = r0; r < r0 + WL_BRICK; r++) {
            uint64_t v = res[r * PITCH], d = v ^ job->out[r];
            job->out[r] = v;
            uint64_t bit = (uint64_t)1 << r;
            if (d) job->chg |= bit;
            if (d & 1) job->chg_w |= bit;
            if (d >> 63) job->chg_e |= bit;
            if (v) job->live |= 1u << (r / WL_BRICK);
        }
    }
}
