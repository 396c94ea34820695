/*
 * stream_engine.c - the `stream` engine: a torus or bounded universe too big for the GPU's
 * memory, kept in host memory and streamed through a grid engine band by band
 * (out-of-core).  The kernel name is the inner engine: `stream:cuda` (what `--gpu-memory`
 * selects for the cuda engine), `stream:opencl`, and `stream:cpu` / `stream:ref`, which
 * exercise the same band logic without a GPU (the CI tests).
 *
 * What it computes.  Exactly what the inner engine computes on the whole W x H universe in
 * memory, for every rule (B0 included), topology and size: bit for bit the same cells.
 *
 * Memory layout.  The universe lives in host memory as two wl_grid bitmaps, `cur` and
 * `nxt` (bit x of 64-bit word x/64 of a row is column x; bits past W zero; stride
 * ceil(W/64) words).  With a cuda inner both are page-locked (cudaHostRegister) so that
 * copies run by DMA at full PCIe speed and overlap kernels of the other slot.
 *
 * Deep halos (the mpi engine's idea, src/engine/mpi/mpi_engine.c).  A cell's state after s
 * generations depends only on cells within distance s at the start.  The rows are cut into
 * bands of B rows (stream_plan.c picks B and the halo depth k from the memory limit).  A
 * PASS advances s <= k generations: for each band [y, y + B) an inner universe of W x win
 * cells is loaded with the window of rows [y - k, y + B + k), stepped s generations, and
 * the band's B middle rows are copied into `nxt`; after every band, cur and nxt swap.  The
 * inner universe gets wrong cells only at its window's edges, and they spread one row per
 * generation, so after s <= k generations they have not reached the band:
 *   - torus: the inner is a torus of width W and height B + 2k whose rows are the global
 *     rows (y - k + i) mod H.  Horizontally it is exact (same width, same wrap); vertically
 *     its wrap joins the window's last row to its first, which is garbage that stays in the
 *     halo rows.  A window taller than H simply repeats rows, so H < 2k and one-row bands
 *     need no special case.
 *   - bounded: the inner is bounded, with the window clamped to the universe's rows [0, H)
 *     and of fixed height min(H, B + 2k) (slid up at the bottom edge).  Where the window
 *     ends at the universe's own top or bottom row, the inner's dead outside IS the
 *     universe's dead outside, exact even for B0 rules; other edges are k rows from the band.
 * So halo = generations per pass, and copies per generation shrink as 1/k.
 *
 * Band slots and overlap.  WL_STREAM_SLOTS inner universes (slots) of the same size exist
 * at once, each driven by its own worker thread, which takes the next band of the pass,
 * copies its window in (the inner's load_rows op, one call per run of consecutive host rows:
 * one or two, more only when the window is taller than H), steps it, copies the band out
 * (store_rows) and takes the next.
 * While one slot computes, the other copies: the CUDA engine is compiled with per-thread
 * default streams, so each worker's copies and kernels go to its own stream.  Bands of a
 * pass read only `cur` and write disjoint rows of `nxt`, so the workers share nothing but
 * the band counter.  Engines without the row ops go through load_grid / store_grid of a
 * host staging grid (one per slot).
 *
 * Interruption.  The caller's thread waits for the workers and calls cfg->poll after each
 * finished band.  When it asks to stop, the workers take no new band and the pass is
 * dropped (cur still holds the last whole pass), so WL_ERR_INTERRUPTED leaves the universe
 * at the generation of the last finished pass, as the engine contract asks.  An inner
 * failure drops the pass the same way and returns the worker's error.
 *
 * Why it is fast.  Per pass the GPU computes (B + 2k) / B times the cells of an in-memory
 * pass, and the bus moves each cell 2 + 2k/B bits in and out once per k generations, in
 * the shadow of the other slot's compute.  At 65536^2 with a 512 MiB limit: k = 512, five
 * bands of 13108 rows in windows of 14132, 8% extra compute, ~1.1 GB of copies per pass.
 */
#define _POSIX_C_SOURCE 200809L

#include "stream.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Characters kept of a worker's error message. */
#define ERR_LEN 512

typedef struct stream_ctx stream_ctx;

typedef struct slot {
    stream_ctx *c;
    void *inner;        /* the inner engine's context (stream_ctx.inner_ops): W x plan.win,
                           same topology as the universe */
    wl_grid stage;      /* staging grid (only when the inner lacks the row ops) */
    int use_rows;       /* the inner has store_rows/load_rows (and WL_STREAM_STAGE is unset) */
    pthread_t thread;
    int started;
} slot;

struct stream_ctx {
    wl_config cfg;           /* the universe's configuration */
    const char *inner_name;  /* "cuda", "opencl", "cpu" or "ref" */
    const wl_engine_ops *inner_ops;
    stream_plan plan;
    wl_grid cur, nxt;        /* the universe, current and next generation */
    int pinned;              /* cur and nxt are page-locked (a device inner engine) */
    unsigned nslots;
    slot slots[WL_STREAM_SLOTS];
    /* the pass in progress, guarded by mu */
    pthread_mutex_t mu;
    pthread_cond_t cv_work, cv_done;
    uint64_t pass_id;        /* incremented to start a pass */
    uint64_t pass_gens;      /* generations of the pass */
    uint64_t next_band;      /* next band a worker takes */
    uint64_t bands_done;
    unsigned idle;           /* workers finished with the pass */
    int stop;                /* take no more bands (error or interruption) */
    int quit;                /* workers exit */
    wl_status status;        /* first worker error of the pass */
    char err[ERR_LEN];
};

/* ---- one band ----------------------------------------------------------------------- */

/* Copies the band's window of `cur` into the slot's inner universe. */
static wl_status load_window(stream_ctx *c, slot *sl, uint64_t top) {
    const wl_engine_ops *ops = sl->c->inner_ops;
    void *ictx = sl->inner;
    const uint64_t H = c->plan.H, win = c->plan.win;
    const size_t st = c->cur.stride;
    if (!sl->use_rows) {
        for (uint64_t i = 0; i < win; i++)
            memcpy(sl->stage.words + i * sl->stage.stride,
                   c->cur.words + ((top + i) % H) * st, st * sizeof(uint64_t));
        return ops->load_grid(ictx, &sl->stage);
    }
    for (uint64_t i = 0; i < win;) { /* runs of consecutive host rows */
        uint64_t g = (top + i) % H, n = win - i < H - g ? win - i : H - g;
        wl_status s = ops->load_rows(ictx, i, n, c->cur.words + g * st, st);
        if (s) return s;
        i += n;
    }
    return WL_OK;
}

/* Copies window rows [off, off + rows) of the inner into rows [y0, y0 + rows) of `nxt`. */
static wl_status store_band(stream_ctx *c, slot *sl, uint64_t off, uint64_t y0,
                            uint64_t rows) {
    const wl_engine_ops *ops = sl->c->inner_ops;
    void *ictx = sl->inner;
    const size_t st = c->nxt.stride;
    if (sl->use_rows) return ops->store_rows(ictx, off, rows, c->nxt.words + y0 * st, st);
    memset(sl->stage.words, 0, sl->stage.h * sl->stage.stride * sizeof(uint64_t));
    wl_status s = ops->store_grid(ictx, &sl->stage);
    if (s) return s;
    for (uint64_t i = 0; i < rows; i++)
        memcpy(c->nxt.words + (y0 + i) * st, sl->stage.words + (off + i) * sl->stage.stride,
               st * sizeof(uint64_t));
    return WL_OK;
}

/* Advances band b by `gens` (<= k) generations from `cur` into `nxt`. */
static wl_status run_band(stream_ctx *c, slot *sl, uint64_t b, uint64_t gens) {
    uint64_t y0, rows, top, off, done = 0;
    stream_plan_band(&c->plan, b, &y0, &rows, &top, &off);
    wl_status s = load_window(c, sl, top);
    if (!s) s = sl->c->inner_ops->step(sl->inner, gens, &done);
    if (!s) s = store_band(c, sl, off, y0, rows);
    if (s) wl_error_prefix("stream engine: band %llu (rows %llu..%llu)", (unsigned long long)b,
                           (unsigned long long)y0, (unsigned long long)(y0 + rows - 1));
    return s;
}

/* ---- workers and passes ---------------------------------------------------------------- */

/* A worker: waits for a pass, takes bands until none is left (or the pass is stopped),
 * reports each finished band, and waits for the next pass. */
static void *worker_main(void *arg) {
    slot *sl = arg;
    stream_ctx *c = sl->c;
    wl_status dev = WL_OK;
    if (c->inner_ops->device_bind) dev = c->inner_ops->device_bind(c->cfg.device);
    char dev_err[ERR_LEN];
    snprintf(dev_err, sizeof dev_err, "%s", dev ? wl_last_error() : "");
    pthread_mutex_lock(&c->mu);
    uint64_t seen = 0;
    for (;;) {
        while (!c->quit && c->pass_id == seen) pthread_cond_wait(&c->cv_work, &c->mu);
        if (c->quit) break;
        seen = c->pass_id;
        while (!c->stop && c->next_band < c->plan.nbands) {
            uint64_t b = c->next_band++, gens = c->pass_gens;
            pthread_mutex_unlock(&c->mu);
            wl_status s = dev ? dev : run_band(c, sl, b, gens);
            char msg[ERR_LEN];
            if (s) snprintf(msg, sizeof msg, "%s", dev ? dev_err : wl_last_error());
            pthread_mutex_lock(&c->mu);
            if (s && !c->status) {
                c->status = s;
                memcpy(c->err, msg, sizeof msg);
            }
            if (s) c->stop = 1;
            c->bands_done++;
            pthread_cond_signal(&c->cv_done);
        }
        c->idle++;
        pthread_cond_signal(&c->cv_done);
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

/* Runs one pass of `gens` generations over every band.  Returns WL_OK (then cur and nxt
 * are swapped), a worker's error, or WL_ERR_INTERRUPTED when the poll asked to stop; in
 * both failures cur is unchanged. */
static wl_status run_pass(stream_ctx *c, uint64_t gens) {
    int interrupted = 0;
    pthread_mutex_lock(&c->mu);
    c->pass_gens = gens;
    c->next_band = 0;
    c->bands_done = 0;
    c->idle = 0;
    c->stop = 0;
    c->status = WL_OK;
    c->pass_id++;
    pthread_cond_broadcast(&c->cv_work);
    uint64_t polled = 0;
    while (c->idle < c->nslots) {
        pthread_cond_wait(&c->cv_done, &c->mu);
        /* poll once per finished band while bands remain to be taken */
        if (c->cfg.poll && !c->stop && c->bands_done > polled &&
            c->next_band < c->plan.nbands) {
            polled = c->bands_done;
            pthread_mutex_unlock(&c->mu);
            int halt = c->cfg.poll(c->cfg.poll_user);
            pthread_mutex_lock(&c->mu);
            if (halt) c->stop = interrupted = 1;
        }
    }
    wl_status s = c->status;
    char msg[ERR_LEN];
    memcpy(msg, c->err, sizeof msg);
    pthread_mutex_unlock(&c->mu);
    if (s) return wl_error(s, "%s", msg);
    if (interrupted) return WL_ERR_INTERRUPTED; /* the caller words the message */
    wl_grid t = c->cur;
    c->cur = c->nxt;
    c->nxt = t;
    return WL_OK;
}

static wl_status stream_step(void *ctx, uint64_t generations, uint64_t *done) {
    stream_ctx *c = ctx;
    *done = 0;
    while (*done < generations) {
        uint64_t s = generations - *done < c->plan.k ? generations - *done : c->plan.k;
        wl_status st = run_pass(c, s);
        if (st == WL_ERR_INTERRUPTED)
            return wl_error(WL_ERR_INTERRUPTED, "interrupted after %llu generations",
                            (unsigned long long)*done);
        if (st) return st;
        *done += s;
        /* between passes too: one pass can be the whole step */
        if (c->cfg.poll && *done < generations && c->cfg.poll(c->cfg.poll_user))
            return wl_error(WL_ERR_INTERRUPTED, "interrupted after %llu generations",
                            (unsigned long long)*done);
    }
    return WL_OK;
}

/* ---- creation ------------------------------------------------------------------------ */

static void stream_destroy(void *ctx) {
    stream_ctx *c = ctx;
    if (!c) return;
    pthread_mutex_lock(&c->mu);
    c->quit = 1;
    pthread_cond_broadcast(&c->cv_work);
    pthread_mutex_unlock(&c->mu);
    for (unsigned i = 0; i < c->nslots; i++) {
        if (c->slots[i].started) pthread_join(c->slots[i].thread, NULL);
        if (c->slots[i].inner) c->inner_ops->destroy(c->slots[i].inner);
        wl_grid_free(&c->slots[i].stage);
    }
    if (c->pinned) {
        c->inner_ops->host_unregister(c->cur.words);
        c->inner_ops->host_unregister(c->nxt.words);
    }
    wl_grid_free(&c->cur);
    wl_grid_free(&c->nxt);
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->cv_work);
    pthread_cond_destroy(&c->cv_done);
    free(c);
}

/* Bytes one buffer of the inner engine holds per row of W cells: the plan's unit.  Device
 * engines say it (their layout: bits, bytes, ...); other inners are counted as bit-packed
 * (the limit is a GPU notion; for cpu and ref it only sizes the bands). */
static uint64_t inner_row_bytes(const wl_engine_ops *inner, const char *kernel, uint64_t W) {
    if (inner->row_bytes) return inner->row_bytes(W, kernel);
    return (W + 31) / 32 * 4;
}

/* Reads a positive integer from the environment (0 when unset or not a number). */
static uint64_t env_u64(const char *name) {
    const char *v = getenv(name);
    if (!v || !*v) return 0;
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    return *end ? 0 : (uint64_t)n;
}

/* Page-locks the two host grids for a device inner engine; refusal only costs speed. */
static void pin_host(stream_ctx *c) {
    const wl_engine_ops *e = c->inner_ops;
    if (!e->host_register || !e->host_unregister) return;
    size_t bytes = (size_t)(c->cur.h * c->cur.stride * sizeof(uint64_t));
    if (e->host_register(c->cur.words, bytes) == WL_OK) {
        if (e->host_register(c->nxt.words, bytes) == WL_OK) {
            c->pinned = 1;
            return;
        }
        e->host_unregister(c->cur.words);
    }
    if (c->cfg.verbose)
        fprintf(stderr, "warplife: stream engine: host memory not page-locked (%s); copies "
                        "will be slower\n", wl_last_error());
    wl_clear_error();
}

/* Creates the slots' inner universes (W x win, the universe's topology and rule). */
static wl_status create_slots(stream_ctx *c, const char *inner_kernel) {
    wl_config ic = c->cfg;
    ic.engine = c->inner_name;
    ic.kernel = inner_kernel;
    ic.height = c->plan.win;
    ic.gpu_memory = 0; /* the inner holds one window: never stream it again */
    ic.poll = NULL;    /* the stream engine polls between bands */
    ic.poll_user = NULL;
    if (strcmp(c->inner_name, "cpu") == 0) { /* the slots share the cores */
        int t = c->cfg.threads > 0 ? c->cfg.threads : wl_cpu_count();
        ic.threads = t / (int)c->nslots > 0 ? t / (int)c->nslots : 1;
    }
    for (unsigned i = 0; i < c->nslots; i++) {
        slot *sl = &c->slots[i];
        sl->c = c;
        wl_status s = wl_engine_open(c->inner_ops, &ic, &sl->inner, NULL);
        if (s) {
            wl_error_prefix("stream engine: inner engine '%s' (%llu x %llu window)",
                            c->inner_name, (unsigned long long)c->plan.W,
                            (unsigned long long)c->plan.win);
            return s;
        }
        const wl_engine_ops *ops = sl->c->inner_ops;
        if (!ops->load_grid || !ops->store_grid)
            return wl_error(WL_ERR_UNSUPPORTED, "stream engine: inner engine '%s' is not a "
                            "grid engine", c->inner_name);
        /* WL_STREAM_STAGE=1 forces the staging path (tests) */
        sl->use_rows = ops->load_rows && ops->store_rows && !env_u64("WL_STREAM_STAGE");
        if (!sl->use_rows) {
            s = wl_grid_alloc(&sl->stage, c->plan.W, c->plan.win);
            if (s) return s;
        }
        /* work queued at creation (buffer clears) must be done before another thread's
         * stream uses the buffers */
        if (ops->synchronize && (s = ops->synchronize(sl->inner))) return s;
    }
    return WL_OK;
}

static wl_status start_workers(stream_ctx *c) {
    for (unsigned i = 0; i < c->nslots; i++) {
        if (pthread_create(&c->slots[i].thread, NULL, worker_main, &c->slots[i]) != 0)
            return wl_error(WL_ERR_NOMEM, "stream engine: cannot start worker thread %u", i);
        c->slots[i].started = 1;
    }
    return WL_OK;
}

static wl_status stream_create(const wl_config *cfg, const char *kernel, void **out) {
    *out = NULL;
    if (!wl_engine_find(kernel))
        return wl_error(WL_ERR_UNAVAILABLE, "stream engine: inner engine '%s' is not built "
                        "into this warplife", kernel);
    /* The inner's own kernel: cfg->kernel unless it names the inner engine (stream:cpu). */
    const char *inner_kernel =
        cfg->kernel && *cfg->kernel && strcmp(cfg->kernel, kernel) != 0 ? cfg->kernel : NULL;
    stream_ctx *c = wl_calloc(1, sizeof *c);
    if (!c) return WL_ERR_NOMEM;
    c->cfg = *cfg;
    c->inner_ops = wl_engine_find(kernel);
    c->inner_name = c->inner_ops->name;
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv_work, NULL);
    pthread_cond_init(&c->cv_done, NULL);
    /* WL_STREAM_HALO / WL_STREAM_BAND force the halo depth and the band height (tests). */
    wl_status s = stream_plan_make(cfg->width, cfg->height, cfg->topology == WL_TOPOLOGY_TORUS,
                                   cfg->gpu_memory,
                                   inner_row_bytes(c->inner_ops, inner_kernel, cfg->width),
                                   env_u64("WL_STREAM_HALO"), env_u64("WL_STREAM_BAND"),
                                   &c->plan);
    c->nslots = c->plan.nbands < WL_STREAM_SLOTS ? (unsigned)c->plan.nbands : WL_STREAM_SLOTS;
    if (!s) s = wl_grid_alloc(&c->cur, cfg->width, cfg->height);
    if (!s) s = wl_grid_alloc(&c->nxt, cfg->width, cfg->height);
    if (!s) pin_host(c);
    if (!s) s = create_slots(c, inner_kernel);
    if (!s) s = start_workers(c);
    if (s) {
        stream_destroy(c);
        return s;
    }
    if (cfg->verbose)
        fprintf(stderr, "warplife: stream engine: %llu bands of %llu rows through %u %s "
                        "universes of %llu x %llu, %llu generations per pass%s\n",
                (unsigned long long)c->plan.nbands, (unsigned long long)c->plan.band, c->nslots,
                c->inner_name, (unsigned long long)c->plan.W, (unsigned long long)c->plan.win,
                (unsigned long long)c->plan.k, c->pinned ? ", host memory page-locked" : "");
    *out = c;
    return WL_OK;
}

/* ---- host-side state ------------------------------------------------------------------ */

static wl_status stream_load_grid(void *ctx, const wl_grid *g) {
    stream_ctx *c = ctx;
    size_t n = g->stride < c->cur.stride ? g->stride : c->cur.stride;
    for (uint64_t y = 0; y < c->cur.h; y++) {
        uint64_t *dst = c->cur.words + y * c->cur.stride;
        memset(dst, 0, c->cur.stride * sizeof *dst);
        memcpy(dst, g->words + y * g->stride, n * sizeof *dst);
        if (c->cur.w & 63) dst[c->cur.stride - 1] &= ((uint64_t)1 << (c->cur.w & 63)) - 1;
    }
    return WL_OK;
}

static wl_status stream_store_grid(void *ctx, wl_grid *g) {
    stream_ctx *c = ctx;
    size_t n = g->stride < c->cur.stride ? g->stride : c->cur.stride;
    for (uint64_t y = 0; y < c->cur.h; y++)
        memcpy(g->words + y * g->stride, c->cur.words + y * c->cur.stride, n * sizeof(uint64_t));
    return WL_OK;
}

static wl_status stream_population(void *ctx, wl_bigint *out) {
    wl_bigint_from_u64(out, wl_grid_population(&((stream_ctx *)ctx)->cur));
    return WL_OK;
}

/* Bits of the soup's density (it is quantised to 1/2^DENSITY_BITS). */
#define DENSITY_BITS 8

/* A host soup (the benchmark's): each cell alive with probability round(density * 256) /
 * 256, 64 cells at a time: folding random words from the density's lowest set bit up, OR
 * for a 1 bit and AND for a 0, gives each bit probability (p + bit) / 2 per step. */
static wl_status stream_randomize(void *ctx, double density, uint64_t seed) {
    stream_ctx *c = ctx;
    double d = density < 0 ? 0 : density > 1 ? 1 : density;
    unsigned q = (unsigned)(d * (1u << DENSITY_BITS) + 0.5);
    for (uint64_t y = 0; y < c->cur.h; y++) {
        uint64_t state = seed ^ (y * 0x9E3779B97F4A7C15ull); /* a stream per row */
        uint64_t *row = c->cur.words + y * c->cur.stride;
        for (size_t i = 0; i < c->cur.stride; i++) {
            uint64_t v = 0;
            if (q >= (1u << DENSITY_BITS)) v = ~(uint64_t)0;
            else if (q) {
                unsigned j = 0;
                while (!((q >> j) & 1u)) j++;
                for (; j < DENSITY_BITS; j++) {
                    uint64_t r = wl_splitmix64(&state);
                    v = ((q >> j) & 1u) ? (v | r) : (v & r);
                }
            }
            row[i] = v;
        }
        if (c->cur.w & 63) row[c->cur.stride - 1] &= ((uint64_t)1 << (c->cur.w & 63)) - 1;
    }
    return WL_OK;
}

static const char *const stream_kernels[] = {"cuda", "opencl", "cpu", "ref", NULL};

const wl_engine_ops wl_engine_stream = {
    .name = "stream",
    .description = "out-of-core: a universe in host memory streamed band by band through an "
                   "inner grid engine (kernel = inner engine: cuda, opencl, cpu, ref), k "
                   "generations per pass; chosen by --gpu-memory",
    .caps = WL_CAP_TORUS | WL_CAP_BOUNDED | WL_CAP_ANY_RULE,
    .kernels = stream_kernels,
    .create = stream_create,
    .destroy = stream_destroy,
    .load_grid = stream_load_grid,
    .store_grid = stream_store_grid,
    .step = stream_step,
    .population = stream_population,
    .randomize = stream_randomize,
};
