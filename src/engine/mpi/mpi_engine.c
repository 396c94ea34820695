/*
 * mpi_engine.c - the `mpi` engine: one torus or bounded universe split across the ranks of
 * an MPI job, each rank stepping its share with an ordinary grid engine ("cpu" or "ref",
 * chosen by the kernel name: `mpi` + kernel `cpu` is what the CLI calls `mpi:cpu`).
 *
 * What it computes.  Exactly what a single-process grid engine computes on the same
 * W x H universe (torus or bounded, every rule, B0 included): the results are bit-identical
 * to `ref`, whatever the number of ranks.
 *
 * Decomposition.  The H rows are cut into horizontal bands, one per rank, as evenly as
 * possible: rank r owns base + (r < rem) rows, base = H / P, rem = H % P, in rank order.
 * When H < P the last ranks own no row; they still take part in every collective call.
 * Each rank keeps its band as the authoritative state: a W-wide bit grid, the library's
 * common `wl_grid` layout (bit i of word i/64 of a row is column i; bits past W are zero).
 *
 * Deep halos.  A cell's state after s generations depends only on cells within distance s
 * (Chebyshev) at the start.  So to advance s <= k generations a rank builds a LOCAL grid
 * that holds its band plus k rows above and below (and, on a torus, k wrapped columns on
 * the left and on the right), loads it into a BOUNDED inner universe, steps it s times,
 * and copies the band's centre back.  The wrong cells at the local grid's edges (it treats
 * everything outside as dead) spread inwards one cell per generation, so after s <= k
 * generations they have not reached the band.  On a bounded universe the local grid stops
 * at the universe's own top and bottom rows and has exactly width W, so its dead outside is
 * the universe's dead outside: no horizontal halo is needed there, and B0 rules behave
 * exactly as on the single grid.  On a torus the local rows and columns are taken modulo H
 * and W, so a band of 1 row or a universe narrower than k simply repeats itself.  On a torus
 * the local width W + 2k is rounded up to a multiple of 512 cells when that adds at most an
 * eighth (the cpu engine's AVX-512 rows lose half their speed on other widths); the extra
 * columns just hold more wrapped columns.
 * Communication therefore happens once per k generations (k = WL_MPI_HALO rows, clamped to
 * H), not once per generation: that is why the halos are deep.
 *
 * Halo exchange.  Every rank can compute every rank's list of needed global rows (local
 * row i of rank q is global row (r0_q - k + i) mod H on a torus, top_q + i on a bounded
 * grid).  Rank p sends q, in one message, the rows of q's list that p owns, in list order;
 * q receives them and unpacks them in the same order.  With bands of at least k rows those
 * are just the two neighbours; with tiny bands (or k > band) rows come from farther ranks,
 * and the same rule covers it.  The messages use MPI_Irecv / MPI_Isend and one Waitall.
 *
 * Load/store.  load_grid receives the full grid on every rank (each rank's universe
 * wrapper calls it with the same pattern) and keeps its band; store_grid gathers all bands
 * into the full grid on every rank (MPI_Allgatherv), so wl_universe_store works on every
 * rank; population is an MPI_Allreduce of band counts.  Every call on an mpi universe is
 * collective: all ranks must create, load, step, store and free it in the same order.
 *
 * Errors.  The engine duplicates MPI_COMM_WORLD and sets MPI_ERRORS_RETURN on the copy; a
 * failing MPI call becomes WL_ERR_DEVICE with MPI's own message.  A rank that dies makes
 * Open MPI abort the whole job (its default), so no rank waits forever.  The poll callback
 * is not consulted (ranks would have to agree to stop at the same generation).
 *
 * Why it is fast.  The inner engine runs at full single-process speed on W x (band + 2k)
 * cells; the extra work is 2k/band rows of halo and one load + store of the local grid per
 * k generations, and the network carries 2k rows per rank per k generations.
 */
#include "internal.h"

#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

/* Halo depth in rows (and columns on a torus): generations stepped between exchanges.  64
 * makes the per-exchange cost (one load and one store of the inner engine, a few ms on a
 * 4096^2 grid) small against 64 generations, while 2 x 64 halo rows stay a few percent of
 * a band of a thousand rows and more.  The environment variable WL_MPI_HALO (1..1024)
 * overrides it, for tuning and for tests that want many exchanges on small grids. */
#define WL_MPI_HALO 64
#define WL_MPI_HALO_MAX 1024
/* On a torus the local grid's width may be rounded up (more wrapped columns) to a multiple
 * of this many cells, where the cpu engine's widest SIMD rows run at full speed, when that
 * costs at most 1/WL_MPI_PAD_SHARE more cells. */
#define WL_MPI_PAD_CELLS 512
#define WL_MPI_PAD_SHARE 8

typedef struct mpi_ctx {
    wl_config cfg;          /* the universe's configuration (engine "mpi") */
    const char *inner_name; /* "cpu" or "ref" */
    MPI_Comm comm;
    int rank, size;
    uint64_t W, H;
    uint64_t k;             /* halo depth, 1..WL_MPI_HALO_MAX, <= H, rank 0's */
    uint64_t kx;            /* horizontal halo: k on a torus, 0 on a bounded grid */
    uint64_t r0, rows;      /* this rank's band: global rows [r0, r0 + rows) */
    size_t gstride;         /* words per global row */
    wl_grid band;           /* rows x W (unallocated when rows == 0) */
    wl_grid local;          /* (W + 2kx) x local rows */
    wl_universe *inner;     /* bounded universe on the local grid (NULL when rows == 0) */
    uint64_t *sendbuf, *recvbuf;
    int *scount, *sdispl, *rcount, *rdispl; /* per-rank counts in rows and row offsets */
} mpi_ctx;

/* ---- MPI errors and start-up ------------------------------------------------------- */

static wl_status mpi_fail(int err, const char *what) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(err, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "code %d", err);
    return wl_error(WL_ERR_DEVICE, "mpi engine: %s failed: %s", what, msg);
}

#define MPI_TRY(call, what)                                                                 \
    do {                                                                                    \
        int mpi_err_ = (call);                                                              \
        if (mpi_err_ != MPI_SUCCESS) return mpi_fail(mpi_err_, what);                       \
    } while (0)

static void finalize_at_exit(void) {
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin) MPI_Finalize();
}

/* Initialises MPI once if the program has not (a plain process becomes a 1-rank job). */
static wl_status ensure_mpi(void) {
    int init = 0, fin = 0;
    MPI_Finalized(&fin);
    if (fin) return wl_error(WL_ERR_UNAVAILABLE, "mpi engine: MPI was already finalized");
    MPI_Initialized(&init);
    if (init) return WL_OK;
    int provided;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return wl_error(WL_ERR_UNAVAILABLE, "mpi engine: MPI_Init_thread failed");
    atexit(finalize_at_exit);
    return WL_OK;
}

/* ---- the decomposition ------------------------------------------------------------- */

static void band_of(const mpi_ctx *c, int r, uint64_t *r0, uint64_t *rows) {
    uint64_t base = c->H / (uint64_t)c->size, rem = c->H % (uint64_t)c->size, ur = (uint64_t)r;
    *rows = base + (ur < rem);
    *r0 = ur * base + (ur < rem ? ur : rem);
}

static int owner_of(const mpi_ctx *c, uint64_t g) {
    uint64_t base = c->H / (uint64_t)c->size, rem = c->H % (uint64_t)c->size;
    if (g < rem * (base + 1)) return (int)(g / (base + 1));
    return (int)(rem + (g - rem * (base + 1)) / base);
}

/* Rank r's local grid: n rows; local row i is global row row_of(c, r, i). */
static uint64_t local_rows(const mpi_ctx *c, int r) {
    uint64_t r0, rows;
    band_of(c, r, &r0, &rows);
    if (!rows) return 0;
    if (c->cfg.topology == WL_TOPOLOGY_TORUS) return rows + 2 * c->k;
    uint64_t top = r0 > c->k ? r0 - c->k : 0, bot = r0 + rows + c->k;
    return (bot < c->H ? bot : c->H) - top;
}

static uint64_t row_of(const mpi_ctx *c, int r, uint64_t i) {
    uint64_t r0, rows;
    band_of(c, r, &r0, &rows);
    if (c->cfg.topology == WL_TOPOLOGY_TORUS) return (r0 + i + c->H * c->k - c->k) % c->H;
    return (r0 > c->k ? r0 - c->k : 0) + i;
}

/* Index of this rank's first band row in its local grid. */
static uint64_t band_offset(const mpi_ctx *c) {
    if (c->cfg.topology == WL_TOPOLOGY_TORUS) return c->k;
    return c->r0 > c->k ? c->k : c->r0;
}

/* ---- bit copies ---------------------------------------------------------------------- */

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

/* Writes global row `src` (W bits) into local row `li` with the horizontal halo. */
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

/* ---- halo exchange and stepping ----------------------------------------------------- */

/* Fills the local grid: this rank's band and the rows other ranks own, via point-to-point
 * messages (see the essay).  Every rank calls it, including ranks without rows. */
static wl_status exchange(mpi_ctx *c) {
    size_t gs = c->gstride;
    /* Pack: for every rank q, the rows of q's list that this rank owns, in list order. */
    size_t pos = 0;
    for (int q = 0; q < c->size; q++) {
        c->sdispl[q] = (int)pos;
        uint64_t n = q == c->rank ? 0 : local_rows(c, q);
        for (uint64_t i = 0; i < n; i++) {
            uint64_t g = row_of(c, q, i);
            if (owner_of(c, g) != c->rank) continue;
            memcpy(c->sendbuf + pos * gs, c->band.words + (g - c->r0) * c->band.stride,
                   gs * sizeof(uint64_t));
            pos++;
        }
        c->scount[q] = (int)pos - c->sdispl[q];
    }
    /* Unpack plan: how many rows each rank sends this one. */
    uint64_t nl = local_rows(c, c->rank);
    pos = 0;
    for (int p = 0; p < c->size; p++) {
        c->rdispl[p] = (int)pos;
        if (p != c->rank)
            for (uint64_t i = 0; i < nl; i++)
                if (owner_of(c, row_of(c, c->rank, i)) == p) pos++;
        c->rcount[p] = (int)pos - c->rdispl[p];
    }
    MPI_Request *req = wl_malloc(2 * (size_t)c->size * sizeof *req);
    if (!req) return WL_ERR_NOMEM;
    int nreq = 0, err = MPI_SUCCESS;
    const int tag = 7; /* any fixed tag: one message per ordered pair per exchange */
    for (int p = 0; p < c->size && err == MPI_SUCCESS; p++)
        if (c->rcount[p])
            err = MPI_Irecv(c->recvbuf + (size_t)c->rdispl[p] * gs, c->rcount[p] * (int)gs,
                            MPI_UINT64_T, p, tag, c->comm, &req[nreq++]);
    for (int q = 0; q < c->size && err == MPI_SUCCESS; q++)
        if (c->scount[q])
            err = MPI_Isend(c->sendbuf + (size_t)c->sdispl[q] * gs, c->scount[q] * (int)gs,
                            MPI_UINT64_T, q, tag, c->comm, &req[nreq++]);
    if (err == MPI_SUCCESS) err = MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    free(req);
    if (err != MPI_SUCCESS) return mpi_fail(err, "halo exchange");
    /* Place every local row: own rows from the band, others from the messages in order. */
    int *next = c->scount; /* reuse as per-rank read cursors */
    for (int p = 0; p < c->size; p++) next[p] = c->rdispl[p];
    for (uint64_t i = 0; i < nl; i++) {
        uint64_t g = row_of(c, c->rank, i);
        int p = owner_of(c, g);
        const uint64_t *src = p == c->rank ? c->band.words + (g - c->r0) * c->band.stride
                                           : c->recvbuf + (size_t)next[p]++ * gs;
        put_local_row(c, i, src);
    }
    return WL_OK;
}

/* Copies the band's rows back out of the inner universe's local grid. */
static wl_status collect(mpi_ctx *c) {
    const wl_engine_ops *ops = wl_universe_ops(c->inner);
    memset(c->local.words, 0, c->local.h * c->local.stride * sizeof(uint64_t));
    wl_status s = ops->store_grid(wl_universe_ctx(c->inner), &c->local);
    if (s) return s;
    uint64_t off = band_offset(c);
    for (uint64_t r = 0; r < c->rows; r++) {
        uint64_t *dst = c->band.words + r * c->band.stride;
        memset(dst, 0, c->band.stride * sizeof *dst);
        copy_bits(dst, 0, c->local.words + (off + r) * c->local.stride, c->local.stride, c->kx,
                  c->W);
    }
    return WL_OK;
}

/* Advances s (1..k) generations.  Errors are agreed on by all ranks, so that one rank's
 * failure does not leave the others waiting in the next exchange. */
static wl_status step_chunk(mpi_ctx *c, uint64_t s) {
    wl_status st = exchange(c);
    if (!st && c->inner) {
        const wl_engine_ops *ops = wl_universe_ops(c->inner);
        void *ictx = wl_universe_ctx(c->inner);
        st = ops->load_grid(ictx, &c->local);
        uint64_t done = 0;
        if (!st) st = ops->step(ictx, s, &done);
        if (!st) st = collect(c);
    }
    int bad = st != WL_OK, anybad = 0;
    MPI_TRY(MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, c->comm), "MPI_Allreduce");
    if (st) return st;
    if (anybad) return wl_error(WL_ERR_DEVICE, "mpi engine: another rank failed to step");
    return WL_OK;
}

/* ---- the ops ----------------------------------------------------------------------- */

static void mpi_destroy(void *ctx) {
    mpi_ctx *c = ctx;
    if (!c) return;
    wl_universe_free(c->inner);
    wl_grid_free(&c->band);
    wl_grid_free(&c->local);
    free(c->sendbuf);
    free(c->recvbuf);
    free(c->scount);
    free(c->sdispl);
    free(c->rcount);
    free(c->rdispl);
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin && c->comm != MPI_COMM_NULL) MPI_Comm_free(&c->comm);
    free(c);
}

/* Sizes the send and receive buffers for the largest exchange this rank will see. */
static wl_status alloc_buffers(mpi_ctx *c) {
    uint64_t nsend = 0, nrecv = 0;
    for (int q = 0; q < c->size; q++) {
        uint64_t n = q == c->rank ? 0 : local_rows(c, q);
        for (uint64_t i = 0; i < n; i++)
            if (owner_of(c, row_of(c, q, i)) == c->rank) nsend++;
    }
    uint64_t nl = local_rows(c, c->rank);
    for (uint64_t i = 0; i < nl; i++)
        if (owner_of(c, row_of(c, c->rank, i)) != c->rank) nrecv++;
    uint64_t most = nsend > nrecv ? nsend : nrecv;
    if (most * c->gstride > (uint64_t)INT_MAX)
        return wl_error(WL_ERR_TOO_BIG, "mpi engine: a halo message of %llu rows of %llu cells "
                        "exceeds MPI's int count", (unsigned long long)most,
                        (unsigned long long)c->W);
    c->sendbuf = wl_malloc((size_t)(nsend ? nsend : 1) * c->gstride * sizeof(uint64_t));
    c->recvbuf = wl_malloc((size_t)(nrecv ? nrecv : 1) * c->gstride * sizeof(uint64_t));
    size_t ib = (size_t)c->size * sizeof(int);
    c->scount = wl_malloc(ib);
    c->sdispl = wl_malloc(ib);
    c->rcount = wl_malloc(ib);
    c->rdispl = wl_malloc(ib);
    if (!c->sendbuf || !c->recvbuf || !c->scount || !c->sdispl || !c->rcount || !c->rdispl)
        return WL_ERR_NOMEM;
    return WL_OK;
}

static wl_status create_local(mpi_ctx *c) {
    wl_status s = alloc_buffers(c);
    if (s || !c->rows) return s;
    s = wl_grid_alloc(&c->band, c->W, c->rows);
    uint64_t lw = c->W + 2 * c->kx;
    if (c->cfg.topology == WL_TOPOLOGY_TORUS) {
        uint64_t padded = (lw + WL_MPI_PAD_CELLS - 1) / WL_MPI_PAD_CELLS * WL_MPI_PAD_CELLS;
        if ((padded - lw) * WL_MPI_PAD_SHARE <= lw) lw = padded;
    }
    if (!s) s = wl_grid_alloc(&c->local, lw, local_rows(c, c->rank));
    if (s) return s;
    wl_config ic = c->cfg;
    ic.engine = c->inner_name;
    ic.kernel = NULL;
    ic.topology = WL_TOPOLOGY_BOUNDED;
    ic.width = c->local.w;
    ic.height = c->local.h;
    ic.poll = NULL;
    ic.poll_user = NULL;
    s = wl_universe_create(&ic, &c->inner);
    if (s) wl_error_prefix("mpi engine: inner engine '%s' on rank %d", c->inner_name, c->rank);
    return s;
}

static wl_status mpi_create(const wl_config *cfg, const char *kernel, void **out) {
    *out = NULL;
    wl_status s = ensure_mpi();
    if (s) return s;
    if (!wl_engine_find(kernel))
        return wl_error(WL_ERR_UNAVAILABLE, "mpi engine: inner engine '%s' is not built", kernel);
    mpi_ctx *c = wl_calloc(1, sizeof *c);
    if (!c) return WL_ERR_NOMEM;
    c->comm = MPI_COMM_NULL;
    c->cfg = *cfg;
    c->inner_name = kernel;
    int err = MPI_Comm_dup(MPI_COMM_WORLD, &c->comm);
    if (err == MPI_SUCCESS) err = MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
    if (err == MPI_SUCCESS) err = MPI_Comm_rank(c->comm, &c->rank);
    if (err == MPI_SUCCESS) err = MPI_Comm_size(c->comm, &c->size);
    if (err != MPI_SUCCESS) {
        s = mpi_fail(err, "communicator set-up");
        mpi_destroy(c);
        return s;
    }
    c->W = cfg->width;
    c->H = cfg->height;
    c->k = WL_MPI_HALO;
    const char *env = getenv("WL_MPI_HALO");
    if (env && *env) {
        long v = strtol(env, NULL, 10);
        if (v >= 1 && v <= WL_MPI_HALO_MAX) c->k = (uint64_t)v;
    }
    /* Ranks must agree on k; rank 0's environment decides (remote hosts may differ). */
    unsigned long long k0 = c->k;
    err = MPI_Bcast(&k0, 1, MPI_UNSIGNED_LONG_LONG, 0, c->comm);
    if (err != MPI_SUCCESS) {
        s = mpi_fail(err, "MPI_Bcast");
        mpi_destroy(c);
        return s;
    }
    c->k = k0;
    if (c->k > c->H) c->k = c->H;
    c->kx = cfg->topology == WL_TOPOLOGY_TORUS ? c->k : 0;
    c->gstride = (size_t)((c->W + 63) / 64);
    band_of(c, c->rank, &c->r0, &c->rows);
    s = create_local(c);
    /* All ranks agree on success, so that none goes on alone into collective calls. */
    int bad = s != WL_OK, anybad = 0;
    err = MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, c->comm);
    if (!s && err != MPI_SUCCESS) s = mpi_fail(err, "MPI_Allreduce");
    if (!s && anybad) s = wl_error(WL_ERR_DEVICE, "mpi engine: creation failed on another rank");
    if (s) {
        mpi_destroy(c);
        return s;
    }
    *out = c;
    return WL_OK;
}

static wl_status mpi_load_grid(void *ctx, const wl_grid *g) {
    mpi_ctx *c = ctx;
    for (uint64_t r = 0; r < c->rows; r++)
        memcpy(c->band.words + r * c->band.stride, g->words + (c->r0 + r) * g->stride,
               c->gstride * sizeof(uint64_t));
    return WL_OK;
}

static wl_status mpi_store_grid(void *ctx, wl_grid *g) {
    mpi_ctx *c = ctx;
    int *cnt = wl_malloc(2 * (size_t)c->size * sizeof(int)), *dsp;
    if (!cnt) return WL_ERR_NOMEM;
    dsp = cnt + c->size;
    uint64_t total = c->H * c->gstride;
    if (total > (uint64_t)INT_MAX) {
        free(cnt);
        return wl_error(WL_ERR_TOO_BIG, "mpi engine: the grid exceeds MPI's int count for a "
                        "gather");
    }
    for (int r = 0; r < c->size; r++) {
        uint64_t r0, rows;
        band_of(c, r, &r0, &rows);
        cnt[r] = (int)(rows * c->gstride);
        dsp[r] = (int)(r0 * c->gstride);
    }
    /* The band is packed at gstride (wl_grid_alloc's stride); so is g when allocated by the
     * wrapper, otherwise gather into a temporary and copy row by row. */
    uint64_t *dst = g->stride == c->gstride ? g->words : wl_malloc((size_t)total * 8 + 8);
    if (!dst) {
        free(cnt);
        return WL_ERR_NOMEM;
    }
    static uint64_t none; /* a valid send address for ranks without rows */
    int err = MPI_Allgatherv(c->rows ? c->band.words : &none, cnt[c->rank], MPI_UINT64_T, dst,
                             cnt, dsp, MPI_UINT64_T, c->comm);
    if (dst != g->words) {
        if (err == MPI_SUCCESS)
            for (uint64_t r = 0; r < c->H; r++)
                memcpy(g->words + r * g->stride, dst + r * c->gstride,
                       c->gstride * sizeof(uint64_t));
        free(dst);
    }
    free(cnt);
    if (err != MPI_SUCCESS) return mpi_fail(err, "MPI_Allgatherv");
    return WL_OK;
}

static wl_status mpi_step(void *ctx, uint64_t generations, uint64_t *done) {
    mpi_ctx *c = ctx;
    *done = 0;
    while (*done < generations) {
        uint64_t s = generations - *done < c->k ? generations - *done : c->k;
        wl_status st = step_chunk(c, s);
        if (st) return st;
        *done += s;
    }
    return WL_OK;
}

static wl_status mpi_population(void *ctx, wl_bigint *out) {
    mpi_ctx *c = ctx;
    uint64_t mine = c->rows ? wl_grid_population(&c->band) : 0, all = 0;
    MPI_TRY(MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, c->comm), "MPI_Allreduce");
    wl_bigint_from_u64(out, all);
    return WL_OK;
}

static const char *const mpi_kernels[] = {"cpu", "ref", NULL};

const wl_engine_ops wl_engine_mpi = {
    .name = "mpi",
    .description = "a torus or bounded grid split into row bands across MPI ranks, deep "
                   "halos exchanged every 64 generations; kernel = inner engine (cpu, ref)",
    .caps = WL_CAP_TORUS | WL_CAP_BOUNDED | WL_CAP_ANY_RULE,
    .kernels = mpi_kernels,
    .create = mpi_create,
    .destroy = mpi_destroy,
    .load_grid = mpi_load_grid,
    .store_grid = mpi_store_grid,
    .step = mpi_step,
    .population = mpi_population,
};
