/*
 * stream_plan.c - how the `stream` engine cuts a universe into bands: the halo depth k, the
 * band height B and the window of rows each band's inner universe holds.
 *
 * The budget.  WL_STREAM_SLOTS inner universes live at once, each with two buffers (current
 * and next) of `win` rows, so a limit L allows R = L / (slots * 2 * row_bytes) window rows
 * per slot.  On a torus a window is B + 2k rows (k halo rows above and below the band); on
 * a bounded grid it is min(H, B + 2k) (windows stop at the universe's own edges).
 *
 * The halo depth.  A pass moves every band in and out once and advances k generations, so
 * copies per generation shrink as 1/k while the halo's extra compute grows as 2k / B.  By
 * default k is R / 8 (halo rows at most a quarter of a window), capped at 512 and rounded
 * down to a multiple of 64 (the CUDA engine's multi-generation kernels do 8 or 16
 * generations per launch; a pass of a multiple of that needs no one-step tail).  The cap:
 * on an H100 (PCIe 5 x16) two passes of 512 hide their copies behind compute and waste less
 * on halos than one pass of 1024 (docs/BENCHMARKS.md, out-of-core).  With R = 16384 rows
 * (65536 cells wide, 512 MiB) that is k = 512 and bands of 15360 rows at most.
 *
 * Bands.  n = ceil(H / Bmax) bands, all of B = ceil(H / n) rows except a shorter last one,
 * so that the last band is never a sliver (a sliver would cost a full window of compute).
 */
#include "stream.h"

#include <string.h>

/* Default halo: a window's rows / HALO_SHARE, at most HALO_CAP, a multiple of HALO_ROUND. */
#define HALO_SHARE 8
#define HALO_CAP 512
#define HALO_ROUND 64
/* Default halo without a memory limit (stream:cpu and stream:ref asked for by name). */
#define HALO_UNLIMITED 64

static uint64_t default_halo(uint64_t window_rows) {
    uint64_t k = window_rows / HALO_SHARE;
    if (k > HALO_CAP) k = HALO_CAP;
    if (k >= HALO_ROUND) k -= k % HALO_ROUND;
    return k ? k : 1;
}

wl_status stream_plan_make(uint64_t W, uint64_t H, int torus, uint64_t limit,
                           uint64_t row_bytes, uint64_t halo, uint64_t band, stream_plan *p) {
    memset(p, 0, sizeof *p);
    if (!W || !H || !row_bytes)
        return wl_error(WL_ERR_INVALID, "stream engine: empty %llu x %llu universe",
                        (unsigned long long)W, (unsigned long long)H);
    p->W = W;
    p->H = H;
    p->torus = torus != 0;
    p->row_bytes = row_bytes;
    uint64_t k = halo > WL_STREAM_HALO_MAX ? WL_STREAM_HALO_MAX : halo;
    uint64_t bmax;
    if (limit) {
        uint64_t rows = limit / WL_STREAM_SLOTS / 2 / row_bytes; /* R: window rows per slot */
        if (!k) k = default_halo(rows);
        if (!torus && H <= rows) {
            bmax = H; /* a bounded universe that fits one window needs no halo at all */
        } else if (rows >= 2 * k + 1) {
            bmax = rows - 2 * k;
        } else {
            return wl_error(WL_ERR_TOO_BIG,
                            "stream engine: a memory limit of %llu bytes holds %llu rows of "
                            "%llu cells per band slot (%d slots of 2 buffers); a halo of %llu "
                            "rows needs at least %llu",
                            (unsigned long long)limit, (unsigned long long)rows,
                            (unsigned long long)W, WL_STREAM_SLOTS, (unsigned long long)k,
                            (unsigned long long)(2 * k + 1));
        }
    } else {
        if (!k) k = HALO_UNLIMITED;
        bmax = (H + 1) / 2; /* no limit: two bands, one per slot */
    }
    if (band && band < bmax) bmax = band;
    uint64_t n = (H + bmax - 1) / bmax;
    p->k = k;
    p->band = (H + n - 1) / n;
    p->nbands = (H + p->band - 1) / p->band;
    p->win = p->band + 2 * k;
    if (!torus && p->win > H) p->win = H;
    return WL_OK;
}

void stream_plan_band(const stream_plan *p, uint64_t b, uint64_t *y0, uint64_t *rows,
                      uint64_t *top, uint64_t *off) {
    *y0 = b * p->band;
    *rows = p->H - *y0 < p->band ? p->H - *y0 : p->band;
    if (p->torus) {
        /* k rows above the band, wrapping; the window may be taller than H (rows repeat). */
        *top = (*y0 + p->H - p->k % p->H) % p->H;
        *off = p->k;
    } else {
        /* k rows above where there are any, the window slid up at the bottom edge so that
         * it still holds k rows below the band or reaches row H - 1. */
        uint64_t t = *y0 > p->k ? *y0 - p->k : 0;
        if (t + p->win > p->H) t = p->H - p->win;
        *top = t;
        *off = *y0 - t;
    }
}
