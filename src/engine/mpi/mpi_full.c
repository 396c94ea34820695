/*
 * mpi_full.c - the mpi engine's full-copy path, for inner engines without row-strip ops
 * (and for tests: WL_MPI_PATH=full).  Essay: mpi_engine.c.
 *
 * The band lives on the host (c->band, W bits per row at gstride words).  Every chunk of
 * s <= k generations the rank builds a local grid of its band plus k rows above and below
 * (mpi_plan.c's local rows) and, on a torus, k wrapped columns on the left and on the
 * right, loads it whole into a BOUNDED inner universe, steps s generations and copies the
 * band's centre back.  The wrong cells at the local grid's edges (the inner universe
 * treats everything outside as dead) move inwards one cell per generation, so after s <= k
 * generations they have not reached the band.  On a bounded universe the local grid has
 * exactly width W and stops at the universe's own top and bottom, so its dead outside is
 * the universe's: no horizontal halo is needed, and B0 rules behave as on the single grid.
 * On a torus the local width W + 2k is rounded up to a multiple of WL_MPI_PAD_CELLS when
 * that adds at most 1/WL_MPI_PAD_SHARE (the cpu engine's AVX-512 rows lose half their speed
 * on other widths); the extra columns just hold more wrapped columns.
 *
 * Cost: one load_grid and one store_grid of the whole local grid per k generations, which
 * is fine on a CPU and hopeless for a GPU (the persistent path in mpi_engine.c avoids it).
 */
#include "mpi_internal.h"

#include <string.h>

/* See the header comment. */
#define WL_MPI_PAD_CELLS 512
#define WL_MPI_PAD_SHARE 8

/* Returns n (1..64) bits of src starting at bit off; src holds nwords words. */
static uint64_t get_bits(const uint64_t *src, size_t nwords, uint64_t off, unsigned n) {
    size_t w = (size_t)(off >> 6);
    unsigned s = (unsigned)(off & 63);
    uint64_t v = src[w] >> s;
    if (s && s + n > 64 && w + 1 < nwords) v |= src[w + 1] << (64 - s);
    return n == 64 ? v : v & (((uint64_t)1 << n) - 1);
}

/* ORs n bits of src (from bit soff) into dst (from bit doff); dst's bits there are zero. */
static void copy_bits(uint64_t *dst, uint64_t doff, const uint64_t *src, size_t snwords,
                      uint64_t soff, uint64_t n) {
    while (n) {
        unsigned room = 64 - (unsigned)(doff & 63);
        unsigned c = n < room ? (unsigned)n : room;
        dst[doff >> 6] |= get_bits(src, snwords, soff, c) << (doff & 63);
        doff += c;
        soff += c;
        n -= c;
    }
}

/* The exchange's source: own global row g, from the band. */
static const uint64_t *band_row(mpi_ctx *c, uint64_t g) {
    return c->band.words + (g - c->r0) * c->band.stride;
}

/* The exchange's sink: global row content -> local row li, with the horizontal halo. */
static void put_local_row(mpi_ctx *c, uint64_t li, const uint64_t *src) {
    uint64_t *dst = c->local.words + li * c->local.stride;
    memset(dst, 0, c->local.stride * sizeof *dst);
    uint64_t lw = c->local.w;
    for (uint64_t j = 0; j < lw;) {
        uint64_t col = (j + c->W * c->kx - c->kx) % c->W; /* kx may exceed W */
        uint64_t run = c->W - col < lw - j ? c->W - col : lw - j;
        copy_bits(dst, j, src, c->gstride, col, run);
        j += run;
    }
}

wl_status mpi_full_alloc(mpi_ctx *c, uint64_t *local_width) {
    c->kx = c->cfg.topology == WL_TOPOLOGY_TORUS ? c->k : 0;
    wl_status s = wl_grid_alloc(&c->band, c->W, c->rows);
    uint64_t lw = c->W + 2 * c->kx;
    if (c->cfg.topology == WL_TOPOLOGY_TORUS) {
        uint64_t padded = (lw + WL_MPI_PAD_CELLS - 1) / WL_MPI_PAD_CELLS * WL_MPI_PAD_CELLS;
        if ((padded - lw) * WL_MPI_PAD_SHARE <= lw) lw = padded;
    }
    if (!s) s = wl_grid_alloc(&c->local, lw, c->nloc);
    *local_width = lw;
    return s;
}

/* Copies the band's rows back out of the inner universe's local grid. */
static wl_status collect(mpi_ctx *c) {
    const wl_engine_ops *ops = c->inner_ops;
    memset(c->local.words, 0, c->local.h * c->local.stride * sizeof(uint64_t));
    wl_status s = ops->store_grid(c->inner, &c->local);
    if (s) return s;
    for (uint64_t r = 0; r < c->rows; r++) {
        uint64_t *dst = c->band.words + r * c->band.stride;
        memset(dst, 0, c->band.stride * sizeof *dst);
        copy_bits(dst, 0, c->local.words + (c->off + r) * c->local.stride, c->local.stride,
                  c->kx, c->W);
    }
    return WL_OK;
}

wl_status mpi_full_chunk(mpi_ctx *c, uint64_t s) {
    double t0 = MPI_Wtime();
    wl_status st = mpi_exchange_post(c);
    if (!st) st = mpi_exchange_finish(c, band_row, put_local_row);
    double t1 = MPI_Wtime();
    if (!st && c->inner) {
        const wl_engine_ops *ops = c->inner_ops;
        void *ictx = c->inner;
        uint64_t done = 0;
        st = ops->load_grid(ictx, &c->local);
        if (!st) st = ops->step(ictx, s, &done);
        if (!st) st = collect(c);
    }
    c->t_exchange += t1 - t0;
    c->t_step += MPI_Wtime() - t1;
    c->nexchange++;
    return st;
}
