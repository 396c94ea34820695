/*
 * mpi_engine.c - the `mpi` engine: one torus or bounded universe split across the ranks of
 * an MPI job, each rank stepping its share with an ordinary grid engine ("cpu", "ref" or
 * "cuda", chosen by the kernel name: `mpi` + kernel `cuda` is what the CLI calls `mpi:cuda`).
 *
 * What it computes.  Exactly what a single-process grid engine computes on the same
 * W x H universe (torus or bounded, every rule, B0 included): the results are bit-identical
 * to `ref`, whatever the number of ranks.
 *
 * Decomposition (mpi_plan.c).  The H rows are cut into horizontal bands, one per rank, as
 * evenly as possible, in rank order; when H < P the last ranks own no row but still take
 * part in every collective call.
 *
 * Deep halos.  A cell's state after s generations depends only on cells within distance s
 * (Chebyshev) at the start.  So a rank keeps a LOCAL grid of its band plus k rows above and
 * below, and advances it k generations between two exchanges of those halo rows: the cells
 * the local grid gets wrong at its edges (it cannot see past them) spread inwards one row
 * per generation and, after s <= k generations, have not reached the band.  Communication
 * therefore happens once per k generations (k = WL_MPI_HALO, default 64, clamped to H).
 *
 * The persistent path (inner engines with the store_rows / load_rows ops: ref, cpu, cuda).
 * The local grid IS the inner universe, created once and never reloaded, so a GPU keeps its
 * state on the device.  Each exchange the rank stores the first and last k rows of its band
 * (two store_rows calls: all the rows any rank can need, since a row needed by another
 * band lies within k rows of this band's edge), sends them (mpi_plan.c), and load_rows the
 * received rows into its halo rows; then it steps s <= k generations.
 *   On a torus the inner universe is a TORUS of width W and height band + 2k.  The
 * horizontal wrap is then exact: local column x neighbours x +- 1 mod W as in the universe.
 * The vertical wrap is not: local row 0 sees local row band + 2k - 1 above it instead of
 * the true row.  But that is the only wrong neighbourhood, in the two outermost rows, and
 * wrongness spreads one row per generation, so after s <= k generations it has reached
 * local rows [0, s) and [band + 2k - s, band + 2k): halo rows, overwritten by the next
 * exchange.  The band, rows [k, k + band), is exact.  (A rank whose band is the whole torus
 * — one rank — needs no halo: its inner torus is the universe itself.)
 *   On a bounded universe the inner universe is BOUNDED, of width W, and its rows stop at
 * the universe's own top and bottom (as today's scheme): there its dead outside is the
 * universe's, exactly, B0 included; at a cut between bands the dead outside is wrong, and
 * the wrongness stays in the k halo rows by the same argument.
 *   Overlap.  Receives are posted before the rank even stores its edge rows, the sends
 * leave as soon as they are stored, and MPI datatypes carry the rows straight from the edge
 * buffer into the receiver's halo buffer (no packing copies, mpi_plan.c).  Stepping cannot start before the halos arrive (every
 * generation of the chunk needs them), and with k = 64 the exchange is a small share of the
 * step on a GPU (0.39 ms against 8.9 ms for 64 generations of a 65536^2 band on an H200,
 * 96% weak-scaling efficiency on 4 GPUs: docs/BENCHMARKS.md), so the chunk is not split
 * further.
 *   GPU halos go through pinned host buffers (the inner engine's host_alloc slot; for cuda,
 * cudaMallocHost): one DMA each way per edge.  Open MPI builds that are CUDA-aware could take device pointers; the
 * verbose notes say whether the library is, but the measured path is the pinned one
 * (Debian's Open MPI is not CUDA-aware).  One rank per GPU: the inner engine's device is
 * the rank's node-local rank (MPI_COMM_TYPE_SHARED) modulo the node's device count (the
 * inner engine's device_count slot).
 *
 * The full path (mpi_full.c), for inner engines without row ops (and WL_MPI_PATH=full): the
 * band lives on the host and the whole local grid is loaded, stepped and stored every
 * chunk.
 *
 * Load/store.  load_grid receives the full grid on every rank (each rank's universe
 * wrapper calls it with the same pattern): the rank loads its local grid, halos included,
 * so the first chunk needs no exchange.  store_grid gathers the bands into the full grid on
 * every rank (MPI_Allgatherv in place), so wl_universe_store works on every rank;
 * population is an MPI_Allreduce of band counts.  Every call on an mpi universe is
 * collective: all ranks must create, load, step, store and free it in the same order.
 *
 * Interruption.  Between chunks rank 0 consults cfg->poll; its answer travels with the
 * per-chunk error agreement (one MPI_Allreduce), so all ranks stop at the same generation
 * and step returns WL_ERR_INTERRUPTED with *done set.
 *
 * Errors.  The engine duplicates MPI_COMM_WORLD and sets MPI_ERRORS_RETURN on the copy; a
 * failing MPI call becomes WL_ERR_DEVICE with MPI's own message.  Errors of creation and of
 * every chunk are agreed on by all ranks, so none waits forever in the next exchange; a
 * rank that dies makes Open MPI abort the whole job (its default).
 *
 * Why it is fast.  Each rank runs its inner engine at full single-process speed on
 * W x (band + 2k) cells; the extra work is 2k/band rows of halo, and per k generations the
 * rank moves 2k rows each way between the engine and the host and over the network.
 */
#include "mpi_internal.h"

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_CUDA_AWARE_SUPPORT */
#endif

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Default halo depth in rows: generations stepped between exchanges.  64 makes the
 * per-exchange latency (a few copies and messages) small against 64 generations, while
 * 2 x 64 halo rows stay a few percent of a band of a thousand rows and more.  The
 * environment variable WL_MPI_HALO (1..WL_MPI_HALO_MAX) overrides it. */
#define WL_MPI_HALO 64
/* Rows per store_rows call when counting a band's population. */
#define POP_CHUNK_ROWS 1024

/* ---- MPI start-up ---------------------------------------------------------------------- */

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

/* All ranks learn whether any rank failed; returns st, or an error if another rank failed. */
static wl_status agree(mpi_ctx *c, wl_status st, const char *what) {
    int bad = st != WL_OK, anybad = 0;
    int err = MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, c->comm);
    if (st) return st;
    if (err != MPI_SUCCESS) return mpi_fail(err, "MPI_Allreduce");
    if (anybad) return wl_error(WL_ERR_DEVICE, "mpi engine: %s failed on another rank", what);
    return WL_OK;
}

/* ---- host buffers for strips (pinned when the inner engine is a GPU) ---------------------- */

static uint64_t *strip_alloc(mpi_ctx *c, uint64_t rows) {
    size_t bytes = (size_t)(rows ? rows : 1) * c->gstride * sizeof(uint64_t);
    if (c->pinned) return c->inner_ops->host_alloc(bytes);
    return wl_malloc(bytes);
}

static void strip_free(mpi_ctx *c, uint64_t *p) {
    if (c->pinned) {
        c->inner_ops->host_free(p);
        return;
    }
    free(p);
}

/* ---- the persistent path ------------------------------------------------------------------ */

/* Where the exchange finds own global row g: its row in the edge buffer (the band's first
 * et rows, then its last et rows; the whole band when 2 et >= rows). */
static uint64_t edge_index(const mpi_ctx *c, uint64_t g) {
    uint64_t b = g - c->r0;
    if (2 * c->et < c->rows && b >= c->et) b = c->et + (b - (c->rows - c->et));
    return b;
}

/* Where halo row li (outside the band) goes: the halo buffer holds the rows above the band,
 * then those below it. */
static uint64_t halo_index(const mpi_ctx *c, uint64_t li) {
    return li < c->off ? li : li - c->rows;
}

/* Copies the band's first and last et rows (or all of it) out of the inner universe. */
static wl_status store_edges(mpi_ctx *c) {
    const wl_engine_ops *ops = c->inner_ops;
    void *ictx = c->inner;
    if (2 * c->et >= c->rows) return ops->store_rows(ictx, c->off, c->rows, c->edge, c->gstride);
    wl_status s = ops->store_rows(ictx, c->off, c->et, c->edge, c->gstride);
    if (!s)
        s = ops->store_rows(ictx, c->off + c->rows - c->et, c->et, c->edge + c->et * c->gstride,
                            c->gstride);
    return s;
}

/* Puts the received halo rows (above and below the band) into the inner universe. */
static wl_status load_halos(mpi_ctx *c) {
    const wl_engine_ops *ops = c->inner_ops;
    void *ictx = c->inner;
    uint64_t top = c->off, bottom = c->nloc - c->off - c->rows;
    wl_status s = WL_OK;
    if (top) s = ops->load_rows(ictx, 0, top, c->halo, c->gstride);
    if (!s && bottom)
        s = ops->load_rows(ictx, c->off + c->rows, bottom, c->halo + top * c->gstride,
                           c->gstride);
    return s;
}

/* One chunk: exchange the halos (unless they are fresh from a load), step s generations. */
static wl_status halo_chunk(mpi_ctx *c, uint64_t s) {
    double t0 = MPI_Wtime();
    wl_status st = WL_OK;
    if (!c->fresh) {
        st = mpi_exchange_post_direct(c, c->halo);
        if (st) return st;
        /* a failed store still sends (garbage) so that no rank waits; the error is agreed */
        if (c->inner && c->need_edges) st = store_edges(c);
        double ts = MPI_Wtime();
        wl_status sx = mpi_exchange_finish_direct(c, c->edge, c->halo);
        if (!st) st = sx;
        double tl = MPI_Wtime();
        if (!st && c->inner) st = load_halos(c);
        c->t_store += ts - t0;
        c->t_load += MPI_Wtime() - tl;
        c->nexchange++;
    }
    double t1 = MPI_Wtime();
    if (!st && c->inner) {
        uint64_t done = 0;
        st = c->inner_ops->step(c->inner, s, &done);
    }
    c->fresh = 0;
    c->t_exchange += t1 - t0;
    c->t_step += MPI_Wtime() - t1;
    return st;
}

/* ---- creation ----------------------------------------------------------------------------- */

static void mpi_destroy(void *ctx) {
    mpi_ctx *c = ctx;
    if (!c) return;
    const char *stats = getenv("WL_MPI_STATS"); /* benchmarks: the split of each rank's time */
    if ((c->cfg.verbose || (stats && *stats == '1')) && (c->nexchange || c->t_step > 0))
        fprintf(stderr, "warplife: mpi rank %d: %llu exchanges, %.3f s exchanging (%.3f s "
                "storing and %.3f s loading strips), %.3f s stepping\n", c->rank,
                (unsigned long long)c->nexchange, c->t_exchange, c->t_store, c->t_load,
                c->t_step);
    if (c->inner) c->inner_ops->destroy(c->inner);
    strip_free(c, c->edge);
    strip_free(c, c->halo);
    wl_grid_free(&c->band);
    wl_grid_free(&c->local);
    mpi_plan_free(c);
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin && c->comm != MPI_COMM_NULL) MPI_Comm_free(&c->comm);
    free(c);
}

/* The GPU of this rank: its node-local rank modulo the node's devices (collective). */
static wl_status pick_device(mpi_ctx *c, int *device) {
    *device = c->cfg.device;
    MPI_Comm node;
    MPI_TRY(MPI_Comm_split_type(c->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
            "MPI_Comm_split_type");
    int local = 0;
    int err = MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    if (err != MPI_SUCCESS) return mpi_fail(err, "MPI_Comm_rank");
    int n = c->inner_ops->device_count ? c->inner_ops->device_count() : 0;
    if (n > 0) *device = local % n;
    return WL_OK;
}

/* Says (rank 0, verbose) how the universe is spread and whether MPI is CUDA-aware. */
static void note_setup(const mpi_ctx *c, int device) {
    if (!c->cfg.verbose) return;
    fprintf(stderr, "warplife: mpi rank %d: rows %llu..%llu, inner %s %llux%llu, device %d\n",
            c->rank, (unsigned long long)c->r0, (unsigned long long)(c->r0 + c->rows),
            c->inner_name, (unsigned long long)c->W, (unsigned long long)c->nloc, device);
    if (c->rank) return;
    const char *aware = "unknown (not Open MPI)";
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    aware = MPIX_Query_cuda_support() ? "yes (device pointers unused: halos go through pinned "
                                        "host memory)"
                                      : "built in, but not at run time";
#elif defined(MPIX_CUDA_AWARE_SUPPORT)
    aware = "no";
#endif
    fprintf(stderr, "warplife: mpi engine: %d ranks, %s path, halo %llu rows; CUDA-aware MPI: "
            "%s\n", c->size, c->persistent ? "persistent" : "full-copy",
            (unsigned long long)c->k, c->inner_ops->caps & WL_CAP_DEVICE ? aware : "n/a");
}

/* Creates this rank's inner universe (and buffers) for its local grid. */
static wl_status create_local(mpi_ctx *c, int device) {
    wl_config ic = c->cfg;
    ic.engine = c->inner_name;
    ic.kernel = NULL;
    ic.height = c->nloc;
    ic.device = device;
    ic.poll = NULL;
    ic.poll_user = NULL;
    wl_status s = WL_OK;
    if (c->persistent) {
        /* a torus stays a torus (exact horizontal wrap); a bounded grid stays bounded */
        ic.width = c->W;
        c->pinned = c->inner_ops->host_alloc && c->inner_ops->host_free;
        if (c->need_edges) c->edge = strip_alloc(c, 2 * c->et < c->rows ? 2 * c->et : c->rows);
        c->halo = strip_alloc(c, c->nloc - c->rows);
        if ((c->need_edges && !c->edge) || !c->halo) return WL_ERR_NOMEM;
    } else {
        ic.topology = WL_TOPOLOGY_BOUNDED;
        s = mpi_full_alloc(c, &ic.width);
        if (s) return s;
    }
    s = wl_engine_open(c->inner_ops, &ic, &c->inner, NULL);
    if (s) wl_error_prefix("mpi engine: inner engine '%s' on rank %d", c->inner_name, c->rank);
    return s;
}

/* Rank 0's settings (its environment decides: remote hosts may differ): k and the path. */
static wl_status settings(mpi_ctx *c, const wl_engine_ops *inner) {
    unsigned long long v[2] = {WL_MPI_HALO, 0};
    const char *env = getenv("WL_MPI_HALO");
    if (env && *env) {
        long h = strtol(env, NULL, 10);
        if (h >= 1 && h <= WL_MPI_HALO_MAX) v[0] = (unsigned long long)h;
    }
    const char *path = getenv("WL_MPI_PATH"); /* "full": the full-copy path (tests) */
    v[1] = inner->store_rows && inner->load_rows && !(path && strcmp(path, "full") == 0);
    MPI_TRY(MPI_Bcast(v, 2, MPI_UNSIGNED_LONG_LONG, 0, c->comm), "MPI_Bcast");
    c->k = v[0] < c->H ? v[0] : c->H;
    c->persistent = (int)v[1];
    return WL_OK;
}

static wl_status setup(mpi_ctx *c, const wl_engine_ops *inner) {
    int err = MPI_Comm_dup(MPI_COMM_WORLD, &c->comm);
    if (err == MPI_SUCCESS) err = MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
    if (err == MPI_SUCCESS) err = MPI_Comm_rank(c->comm, &c->rank);
    if (err == MPI_SUCCESS) err = MPI_Comm_size(c->comm, &c->size);
    if (err != MPI_SUCCESS) return mpi_fail(err, "communicator set-up");
    wl_status s = settings(c, inner);
    if (s) return s;
    /* An inner engine that cannot run here (cuda without a GPU) makes the engine
     * unavailable on every rank, before anything is allocated for it. */
    if (inner->probe && (s = inner->probe()) != WL_OK) {
        char why[256];
        snprintf(why, sizeof why, "%s", wl_last_error());
        s = wl_error(WL_ERR_UNAVAILABLE, "mpi engine: inner engine '%s' cannot run here: %s",
                     c->inner_name, why);
    }
    s = agree(c, s, "the inner engine's probe");
    if (s) return s;
    int device = c->cfg.device;
    if (inner->device_count && (s = pick_device(c, &device))) return s;
    mpi_band_of(c, c->rank, &c->r0, &c->rows);
    c->nloc = mpi_local_rows(c, c->rank);
    c->off = mpi_band_offset(c, c->rank);
    c->et = c->k < c->rows ? c->k : c->rows;
    s = mpi_plan_build(c);
    c->need_edges = c->nsend > 0;
    for (uint64_t n = 0; n < c->nneed; n++) c->need_edges |= c->need_owner[n] == c->rank;
    if (!s && c->persistent) s = mpi_plan_direct(c, edge_index, halo_index);
    if (!s && c->rows) s = create_local(c, device);
    s = agree(c, s, "creation");
    if (!s) note_setup(c, device);
    return s;
}

static wl_status mpi_create(const wl_config *cfg, const char *kernel, void **out) {
    *out = NULL;
    wl_status s = ensure_mpi();
    if (s) return s;
    const wl_engine_ops *inner = wl_engine_find(kernel);
    if (!inner)
        return wl_error(WL_ERR_UNAVAILABLE, "mpi engine: inner engine '%s' is not built", kernel);
    mpi_ctx *c = wl_calloc(1, sizeof *c);
    if (!c) return WL_ERR_NOMEM;
    c->comm = MPI_COMM_NULL;
    c->rowtype = MPI_DATATYPE_NULL;
    c->cfg = *cfg;
    c->inner_name = kernel;
    c->inner_ops = inner;
    c->W = cfg->width;
    c->H = cfg->height;
    c->gstride = (size_t)((c->W + 63) / 64);
    s = setup(c, inner);
    if (s) {
        mpi_destroy(c);
        return s;
    }
    *out = c;
    return WL_OK;
}

/* ---- the ops ------------------------------------------------------------------------------ */

static wl_status mpi_load_grid(void *ctx, const wl_grid *g) {
    mpi_ctx *c = ctx;
    wl_status s = WL_OK;
    if (!c->persistent) {
        for (uint64_t r = 0; r < c->rows; r++)
            memcpy(c->band.words + r * c->band.stride, g->words + (c->r0 + r) * g->stride,
                   c->gstride * sizeof(uint64_t));
        return WL_OK;
    }
    if (c->inner) { /* the local grid, halos included, straight from the full grid */
        wl_grid local;
        s = wl_grid_alloc(&local, c->W, c->nloc);
        if (!s) {
            for (uint64_t i = 0; i < c->nloc; i++)
                memcpy(local.words + i * local.stride,
                       g->words + mpi_row_of(c, c->rank, i) * g->stride,
                       c->gstride * sizeof(uint64_t));
            s = c->inner_ops->load_grid(c->inner, &local);
            wl_grid_free(&local);
        }
    }
    c->fresh = 1;
    return agree(c, s, "load");
}

/* Copies this rank's band rows into rows (gstride words per row). */
static wl_status band_rows(mpi_ctx *c, uint64_t b0, uint64_t n, uint64_t *rows) {
    if (!c->persistent) {
        memcpy(rows, c->band.words + b0 * c->band.stride, n * c->gstride * sizeof(uint64_t));
        return WL_OK;
    }
    return c->inner_ops->store_rows(c->inner, c->off + b0, n,
                                                 rows, c->gstride);
}

static wl_status mpi_store_grid(void *ctx, wl_grid *g) {
    mpi_ctx *c = ctx;
    uint64_t total = c->H * c->gstride;
    if (total > (uint64_t)INT_MAX)
        return wl_error(WL_ERR_TOO_BIG, "mpi engine: the grid exceeds MPI's int count for a "
                        "gather");
    int *cnt = wl_malloc(2 * (size_t)c->size * sizeof(int)), *dsp;
    if (!cnt) return WL_ERR_NOMEM;
    dsp = cnt + c->size;
    for (int r = 0; r < c->size; r++) {
        uint64_t r0, rows;
        mpi_band_of(c, r, &r0, &rows);
        cnt[r] = (int)(rows * c->gstride);
        dsp[r] = (int)(r0 * c->gstride);
    }
    /* Gather in place at gstride (wl_grid_alloc's stride, so g itself when the wrapper made
     * it); otherwise into a temporary, copied row by row. */
    uint64_t *dst = g->stride == c->gstride ? g->words : wl_malloc((size_t)total * 8 + 8);
    wl_status s = dst ? WL_OK : WL_ERR_NOMEM;
    if (!s && c->rows) s = band_rows(c, 0, c->rows, dst + c->r0 * c->gstride);
    s = agree(c, s, "store");
    int err = MPI_SUCCESS;
    if (!s)
        err = MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, dst, cnt, dsp, MPI_UINT64_T,
                             c->comm);
    if (dst && dst != g->words) {
        if (!s && err == MPI_SUCCESS)
            for (uint64_t r = 0; r < c->H; r++)
                memcpy(g->words + r * g->stride, dst + r * c->gstride,
                       c->gstride * sizeof(uint64_t));
        free(dst);
    }
    free(cnt);
    if (!s && err != MPI_SUCCESS) s = mpi_fail(err, "MPI_Allgatherv");
    return s;
}

static wl_status mpi_step(void *ctx, uint64_t generations, uint64_t *done) {
    mpi_ctx *c = ctx;
    *done = 0;
    while (*done < generations) {
        uint64_t s = generations - *done < c->k ? generations - *done : c->k;
        wl_status st = c->persistent ? halo_chunk(c, s) : mpi_full_chunk(c, s);
        /* one collective per chunk: any rank's error, and rank 0's poll answer */
        int flags[2] = {st != WL_OK, 0}, all[2] = {0, 0};
        if (c->rank == 0 && !st && c->cfg.poll && *done + s < generations)
            flags[1] = c->cfg.poll(c->cfg.poll_user) != 0;
        int err = MPI_Allreduce(flags, all, 2, MPI_INT, MPI_MAX, c->comm);
        if (st) return st;
        if (err != MPI_SUCCESS) return mpi_fail(err, "MPI_Allreduce");
        if (all[0]) return wl_error(WL_ERR_DEVICE, "mpi engine: another rank failed to step");
        *done += s;
        if (all[1])
            return wl_error(WL_ERR_INTERRUPTED, "mpi engine: interrupted after %llu generations",
                            (unsigned long long)*done);
    }
    return WL_OK;
}

static wl_status mpi_population(void *ctx, wl_bigint *out) {
    mpi_ctx *c = ctx;
    uint64_t mine = 0, all = 0;
    wl_status s = WL_OK;
    if (c->rows && c->persistent && c->nloc == c->rows && c->inner_ops->population) {
        /* no halo: the inner is the band */
        wl_bigint b;
        s = c->inner_ops->population(c->inner, &b);
        if (!s && !wl_bigint_to_u64(&b, &mine)) s = wl_error(WL_ERR_TOO_BIG, "population");
    } else if (c->rows) {
        uint64_t step = c->rows < POP_CHUNK_ROWS ? c->rows : POP_CHUNK_ROWS;
        uint64_t *buf = wl_malloc((size_t)step * c->gstride * sizeof(uint64_t));
        if (!buf) s = WL_ERR_NOMEM;
        for (uint64_t b0 = 0; !s && b0 < c->rows; b0 += step) {
            uint64_t n = c->rows - b0 < step ? c->rows - b0 : step;
            s = band_rows(c, b0, n, buf);
            for (size_t i = 0; !s && i < (size_t)n * c->gstride; i++)
                mine += (uint64_t)__builtin_popcountll(buf[i]);
        }
        free(buf);
    }
    s = agree(c, s, "population");
    if (s) return s;
    MPI_TRY(MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, c->comm), "MPI_Allreduce");
    wl_bigint_from_u64(out, all);
    return WL_OK;
}

/* A soup made where the cells live: the inner engine's own (on the GPU for cuda), seeded
 * per rank; the halos are then filled by the first exchange. */
static wl_status mpi_randomize(void *ctx, double density, uint64_t seed) {
    mpi_ctx *c = ctx;
    wl_status s = WL_OK;
    uint64_t state = seed ^ (0x9E3779B97F4A7C15ull * (uint64_t)(c->rank + 1));
    uint64_t rseed = wl_splitmix64(&state);
    const wl_engine_ops *ops = c->inner ? c->inner_ops : NULL;
    if (ops && c->persistent && ops->randomize) {
        s = ops->randomize(c->inner, density, rseed);
    } else if (c->rows) {
        wl_grid g = {0};
        int in_band = !c->persistent; /* full path: the band; else the whole local grid */
        s = in_band ? WL_OK : wl_grid_alloc(&g, c->W, c->nloc);
        if (in_band) g = c->band;
        uint64_t thr = density <= 0 ? 0 : density >= 1 ? 65536 : (uint64_t)(density * 65536.0);
        for (uint64_t y = 0; !s && y < g.h; y++)
            for (uint64_t x = 0; x < c->W; x++) /* 16 random bits per cell against thr */
                wl_grid_set(&g, x, y, (wl_splitmix64(&state) & 0xFFFF) < thr);
        if (!s && !in_band) s = ops->load_grid(c->inner, &g);
        if (!in_band) wl_grid_free(&g);
    }
    c->fresh = 0;
    return agree(c, s, "randomize");
}

/* The engine's operations.  Its name, capabilities and kernels are listed by the library
 * (mpi_module.c, wl_engine_mpi), which forwards to these: this file is built into the
 * module warplife-mpi.so, so that only `-e mpi` loads MPI. */
const wl_engine_ops wl_engine_mpi_impl = {
    .name = "mpi",
    .create = mpi_create,
    .destroy = mpi_destroy,
    .load_grid = mpi_load_grid,
    .store_grid = mpi_store_grid,
    .step = mpi_step,
    .population = mpi_population,
    .randomize = mpi_randomize,
};
