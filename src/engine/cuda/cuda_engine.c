/*
 * cuda_engine.c - the host side of the CUDA engine (wl_engine_cuda): kernel selection, rule
 * analysis, the stepping loop with interruption, and the benchmark slots.  The universe lives
 * on the GPU from load to store; this file only calls the C entry points of the .cu files
 * (wlcuda.h), which check every CUDA call and launch.
 *
 * Kernels (the first is the default):
 *   best       the fastest kernel for the rule and grid size (best_kernel): res on grids
 *              under 2^28 cells (which runs wave, or circuit, where it does not apply); on
 *              larger ones lop3p for outer-totalistic rules, circuit for every other rule;
 *   res        small grids kept on the chip: one cooperative launch of up to 1024
 *              generations, full-width bands in registers, one per block, neighbouring
 *              bands exchanged through tagged words in global memory (cuda_res.cuh); tori
 *              1024, 2048, 4096 or 8192 cells wide, bounded grids up to 8192 cells wide,
 *              wave for other grids; rules other than B3/S23 compiled by NVRTC (an
 *              outer-totalistic rule's network on the sums, any other rule's on the nine
 *              cell planes: circuit's); without NVRTC, run-time masks or circuit;
 *   wave       wavefront temporal blocking: one warp streams a strip of rows through K
 *              register-resident generations, no shared memory (cuda_wave.cuh); rules other
 *              than B3/S23 compiled at run time by NVRTC (cuda_rtc.cu);
 *   circuit    wave's kernel with any rule (Hensel, MAP) as a network of LOP3 gates over the
 *              nine cells and the adders' sums, found by wl_rnet_synth (src/core/rulenet.c)
 *              and compiled by NVRTC; lut6x3 when NVRTC is missing;
 *   lop3       bitsliced, several generations per launch in registers (cuda_lop3.cu);
 *   lop3v      the same row logic on a taller tile split between the warps of a block, edge
 *              rows exchanged through shared memory every generation (cuda_lop3v.cu);
 *   lop3p      lop3v's tile on the pair layout (even and odd cells in separate words: one
 *              funnel shift per 64 cells), rules other than B3/S23 compiled at run time by
 *              NVRTC (cuda_pair.cuh, cuda_pair.cu);
 *   bitcount   bitsliced, one generation per launch (cuda_bits.cu);
 *   lut6x3     bit per cell, 6x3 -> 4 cells table (cuda_bits.cu);
 *   patch16    4x4 blocks as 16-bit words, 4x4 -> 2x2 table (cuda_lut.cu);
 *   lut4x4, lut4x4-64   byte per cell, 4x4 -> 2x2 table (cuda_lut.cu);
 *   shared, stride, naive   byte per cell, 512-entry rule table (cuda_byte.cu).
 * The bitsliced kernels need an outer-totalistic rule; for any other rule they fall back to
 * circuit (the same bit layout; lut6x3 when NVRTC is missing) and say so when cfg->verbose
 * is set.
 */
#include "wlcuda.h"
#include "cuda_gl.h" /* render_gl: CUDA-OpenGL interop (cuda_gl.cu) */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "best", then the kernel table's names (wlcuda.h, WLCU_KERNELS) in its order. */
#define KERNEL_NAME(ID, name, ...) name,
static const char *const kernel_names[] = {"best", WLCU_KERNELS(KERNEL_NAME) NULL};

/* The kernel `best` runs on a w x h grid: the fastest verified on an H100.  On grids under
 * 2^28 cells, res for every rule (it runs wave or circuit itself where it does not apply):
 * B3/S23 at 4096^2 for 4096 generations 1.8e13 CUpS against wave's 8.1e12, 2048^2 9.6e12
 * against 2.5e12, 8192^2 2.5e13 against 1.9e13; B36/S23 and B3678/S34678 through NVRTC the
 * same (4096^2: 1.76e13 and 1.80e13 against 7.6e12 and 8.1e12); Hensel and MAP rules 1.2-4.7x
 * circuit from 8192^2 down to 2048^2 (docs/BENCHMARKS.md, "res", 2026-11-26).  Above that,
 * circuit for rules that are not outer-totalistic, and for the others (docs/BENCHMARKS.md,
 * CUDA section "Fourth session", 2026-11-22 08:34 UTC):
 * lop3p on grids of 2^28 cells or more (B3/S23 at 65536^2: 4.17e13 CUpS against lop3v's
 * 3.47e13 and wave's 3.32e13; 3.58e13 against wave's 2.98e13 at 32768^2, 2.66e13 against
 * 2.45e13 at 16384^2; B36/S23 and B3678/S34678 within 2% of wave at 16384^2 and 9-35%
 * faster above); below 2^28 lop3p's 448 x 1984-cell tiles leave SMs idle (B3/S23 1.59e13
 * against wave's 1.94e13 at 8192^2, 1.0e12 against 2.5e12 at 2048^2). */
static int best_kernel(uint64_t w, uint64_t h, int totalistic) {
    if (w * h < ((uint64_t)1 << 28)) return WLCU_K_RES;
    return totalistic ? WLCU_K_LOP3P : WLCU_K_CIRCUIT;
}

typedef struct cuda_engine {
    wlcu_ctx dev;
    wl_poll_fn poll;
    void *poll_user;
} cuda_engine;

static wl_status cuda_probe(void) { return wlcu_probe(); }

static void cuda_destroy(void *ctx) {
    cuda_engine *e = ctx;
    if (!e) return;
    (void)wlcu_use(&e->dev); /* release on the universe's device, whatever the thread */
    wlcu_gl_release(&e->dev);
    wlcu_multi_release(&e->dev);
    wlcu_release(&e->dev);
    free(e);
}

static wl_status cuda_create(const wl_config *cfg, const char *kernel, void **ctx) {
    *ctx = NULL;
    /* a Larger than Life rule of range 1 and two states runs as its two-state table (the
     * bit-sliced kernels, as on the cpu engine) */
    wl_config as_table;
    cfg = wl_ltl_as_table(cfg, &as_table);
    int id = WLCU_K_LOP3; /* (unknown names do not reach here: the registry checks them) */
    for (int i = 0; i < WLCU_K_COUNT; i++)
        if (strcmp(wlcu_kernels[i].name, kernel) == 0) id = i;
    if (strcmp(kernel, "best") == 0) id = -1;
    uint16_t birth = 0, survive = 0;
    int totalistic = wl_rule_is_totalistic(&cfg->rule, &birth, &survive);
    if (cfg->width > ((uint64_t)1 << 40) || cfg->height > ((uint64_t)1 << 40) ||
        cfg->width * cfg->height / cfg->width != cfg->height)
        return wl_error(WL_ERR_TOO_BIG, "CUDA engine: a %llu x %llu grid is too large",
                        (unsigned long long)cfg->width, (unsigned long long)cfg->height);
    wl_family family = wl_rule_family(&cfg->rule);
    if (family != WL_FAMILY_LIFE) {
        /* Generations and Larger than Life: cuda_multi.cu's kernels on the bit layout */
        if (id >= 0)
            return wl_error(WL_ERR_UNSUPPORTED, "cuda kernel %s runs two-state rules only; %s "
                            "rules run on kernel best", kernel, wl_family_name(family));
        id = WLCU_K_BITCOUNT;
        totalistic = 1; /* (the bit layout's own kernel is never launched) */
    }
    if (id < 0)
        id = best_kernel(cfg->width, cfg->height, totalistic);
    if (wlcu_kernels[id].totalistic && !totalistic) {
        if (cfg->verbose)
            fprintf(stderr,
                    "warplife: cuda kernel '%s' needs an outer-totalistic rule; using circuit\n",
                    kernel);
        id = WLCU_K_CIRCUIT;
    }
    cuda_engine *e = wl_calloc(1, sizeof *e);
    if (!e) return WL_ERR_NOMEM;
    e->dev.w = cfg->width;
    e->dev.h = cfg->height;
    e->dev.torus = cfg->topology == WL_TOPOLOGY_TORUS;
    e->dev.kernel = id;
    e->dev.layout = wlcu_kernels[id].layout;
    e->dev.rule = cfg->rule;
    e->dev.totalistic = totalistic;
    e->dev.birth = birth;
    e->dev.survive = survive;
    e->dev.rule_variant = wlcu_lop3_variant(birth, survive);
    /* WL_CUDA_VERBOSE=1: the notes without a verbose config (benchmarks: NVRTC times) */
    e->dev.lop3_synth = wl_lop3_synth;
    e->dev.rnet_synth = wl_rnet_synth;
    e->dev.verbose = cfg->verbose || (getenv("WL_CUDA_VERBOSE") && *getenv("WL_CUDA_VERBOSE") != '0');
    /* tuning knob: another compiled tile shape for the Life kernel (see cuda_lop3.cu) */
    e->dev.lop3_shape = e->dev.rule_variant == 0 ? wlcu_lop3_shape(getenv("WL_CUDA_LOP3")) : -1;
    e->dev.lop3v_shape =
        e->dev.rule_variant == 0 ? wlcu_lop3v_shape(getenv("WL_CUDA_LOP3V")) : -1;
    e->poll = cfg->poll;
    e->poll_user = cfg->poll_user;
    if ((id == WLCU_K_LOP3 || id == WLCU_K_LOP3V) && e->dev.rule_variant < 0 && cfg->verbose)
        fprintf(stderr,
                "warplife: cuda lop3: rule not compiled in, using the run-time mask evaluator\n");
    wl_status s = wlcu_init(&e->dev, cfg->device);
    if (!s && family != WL_FAMILY_LIFE) s = wlcu_multi_init(&e->dev);
    if (s) {
        cuda_destroy(e);
        return s;
    }
    *ctx = e;
    return WL_OK;
}

/* Every entry point first makes the universe's device current on the calling thread (the
 * viewer and the mpi engine call from other threads, with devices other than 0). */
#define USE_DEVICE(e)                                                                      \
    do {                                                                                   \
        wl_status use_s_ = wlcu_use(&(e)->dev);                                            \
        if (use_s_) return use_s_;                                                         \
    } while (0)

static wl_status cuda_load_grid(void *ctx, const wl_grid *g) {
    cuda_engine *e = ctx;
    USE_DEVICE(e);
    return e->dev.multi ? wlcu_multi_upload(&e->dev, g) : wlcu_upload(&e->dev, g);
}

static wl_status cuda_store_grid(void *ctx, wl_grid *g) {
    cuda_engine *e = ctx;
    USE_DEVICE(e);
    return e->dev.multi ? wlcu_multi_download(&e->dev, g) : wlcu_download(&e->dev, g);
}

/* The grow engine's moves (the translate slot): multi-state rules only (their bit
 * layout), on the device; the others say unsupported and the grow engine moves the cells
 * through the host. */
static wl_status cuda_translate(void *ctx, int64_t dx, int64_t dy) {
    cuda_engine *e = ctx;
    USE_DEVICE(e);
    if (!e->dev.multi || e->dev.torus)
        return wl_error(WL_ERR_UNSUPPORTED, "cuda engine: translate runs multi-state rules on "
                                            "bounded grids only");
    return wlcu_multi_translate(&e->dev, dx, dy);
}

/* The live cells' box in the placement rule's coordinates (see the cpu engine's): a
 * reduction on the device for multi-state rules, else through a host copy. */
static wl_status cuda_bounds(void *ctx, wl_bigint *xmin, wl_bigint *ymin, wl_bigint *xmax,
                             wl_bigint *ymax, int *empty) {
    cuda_engine *e = ctx;
    USE_DEVICE(e);
    uint64_t box[4] = {0, 0, 0, 0};
    wl_status s;
    if (e->dev.multi) {
        s = wlcu_multi_box(&e->dev, box, empty);
    } else {
        wl_grid g;
        s = wl_grid_alloc(&g, e->dev.w, e->dev.h);
        if (!s) s = wlcu_download(&e->dev, &g);
        if (!s) *empty = !wl_rows_box(g.words, g.stride, g.h, NULL, 0, 0, box);
        wl_grid_free(&g);
    }
    if (!s) wl_grid_box_bounds(e->dev.w, e->dev.h, box, xmin, ymin, xmax, ymax);
    return s;
}

/* Generations queued between two polls (and between two synchronisations). */
#define POLL_CHUNK 256u

static wl_status cuda_step(void *ctx, uint64_t generations, uint64_t *done) {
    cuda_engine *e = ctx;
    *done = 0;
    USE_DEVICE(e);
    while (*done < generations) {
        uint64_t n = generations - *done;
        if (e->poll && n > POLL_CHUNK) n = POLL_CHUNK;
        wl_status s = e->dev.multi ? wlcu_multi_advance(&e->dev, n) : wlcu_advance(&e->dev, n);
        if (!s && e->poll) s = wlcu_sync(&e->dev);
        if (s) return s;
        *done += n;
        if (e->poll && *done < generations && e->poll(e->poll_user))
            return wl_error(WL_ERR_INTERRUPTED, "interrupted after %llu generations",
                            (unsigned long long)*done);
    }
    return wlcu_sync(&e->dev);
}

static wl_status cuda_population(void *ctx, wl_bigint *out) {
    uint64_t pop = 0;
    USE_DEVICE((cuda_engine *)ctx);
    cuda_engine *e = ctx;
    wl_status s = e->dev.multi ? wlcu_multi_population(&e->dev, &pop) : wlcu_population(&e->dev, &pop);
    if (!s) wl_bigint_from_u64(out, pop);
    return s;
}

static wl_status cuda_randomize(void *ctx, double density, uint64_t seed) {
    cuda_engine *e = ctx;
    USE_DEVICE(e);
    wl_status s = wlcu_randomize(&e->dev, density, seed);
    if (!s && e->dev.multi) s = wlcu_multi_clear(&e->dev);
    return s;
}

static wl_status cuda_timed_step(void *ctx, uint64_t generations, double *seconds) {
    cuda_engine *e = ctx;
    USE_DEVICE(e);
    if (e->dev.multi) { /* host clock around the queued work and the wait for it */
        double t0 = wl_clock();
        wl_status s = wlcu_multi_advance(&e->dev, generations);
        if (!s) s = wlcu_sync(&e->dev);
        *seconds = wl_clock() - t0;
        return s;
    }
    return wlcu_timed(&e->dev, generations, seconds);
}

static wl_status cuda_synchronize(void *ctx) {
    USE_DEVICE((cuda_engine *)ctx);
    return wlcu_sync(&((cuda_engine *)ctx)->dev);
}

#ifdef WL_HAVE_CUDA_GL
static wl_status cuda_render_gl(void *ctx, const wl_view *view, unsigned gl_buffer) {
    return wlcu_gl_render(&((cuda_engine *)ctx)->dev, view, gl_buffer);
}
#define CUDA_RENDER_GL cuda_render_gl
#else
#define CUDA_RENDER_GL NULL /* built without OpenGL headers */
#endif

/* Bytes per grid row of one buffer: the kernel's layout (bits in 32-bit words, pairs of
 * them, or bytes; 4x4 patches of 16 bits take what bits take). */
static uint64_t cuda_row_bytes(uint64_t width, const char *kernel) {
    int layout = WLCU_BITS;
    for (int i = 0; kernel && i < WLCU_K_COUNT; i++)
        if (strcmp(wlcu_kernels[i].name, kernel) == 0) layout = wlcu_kernels[i].layout;
    switch (layout) {
    case WLCU_BYTES: return width;
    case WLCU_PAIRS: return (width + 63) / 64 * 8;
    default: return (width + 31) / 32 * 4;
    }
}

static double cuda_copy_floor(void *ctx) {
    cuda_engine *e = ctx;
    if (wlcu_use(&e->dev)) return 0;
    if (e->dev.copy_floor == 0) {
        double bps = 0;
        if (wlcu_copy_bandwidth(&e->dev, &bps) == WL_OK) e->dev.copy_floor = bps * 4.0;
    }
    return e->dev.copy_floor;
}

const wl_engine_ops wl_engine_cuda = {
    .name = "cuda",
    .description = "NVIDIA GPU: bitsliced multi-generation kernel and the kernels of the GPU "
                   "Life papers (byte, table, patch)",
    .caps = WL_CAP_TORUS | WL_CAP_BOUNDED | WL_CAP_ANY_RULE | WL_CAP_DEVICE |
            WL_CAP_GENERATIONS | WL_CAP_LTL,
    .kernels = kernel_names,
    .probe = cuda_probe,
    .create = cuda_create,
    .destroy = cuda_destroy,
    .load_grid = cuda_load_grid,
    .store_grid = cuda_store_grid,
    .step = cuda_step,
    .population = cuda_population,
    .randomize = cuda_randomize,
    .timed_step = cuda_timed_step,
    .synchronize = cuda_synchronize,
    .copy_floor_cups = cuda_copy_floor,
    .store_rows = wlcu_store_rows, /* cuda_rows.cu (the mpi engine's halos) */
    .load_rows = wlcu_load_rows,
    .translate = cuda_translate,
    .bounds = cuda_bounds,
    .device_count = wlcu_device_count,
    .device_bind = wlcu_thread_device,
    .host_alloc = wlcu_host_alloc,
    .host_free = wlcu_host_free,
    .host_register = wlcu_host_register,
    .host_unregister = wlcu_host_unregister,
    .row_bytes = cuda_row_bytes,
    .render_gl = CUDA_RENDER_GL,
};
