/*
 * wlcuda.h - what the C host glue (cuda_engine.c) and the CUDA files (*.cu) of the CUDA
 * engine share: the context of one universe and the C-callable entry points that the .cu
 * files define.  Everything here is plain C so that both compilers read it; the .cu files
 * include it inside extern "C".
 *
 * Device layouts (one per kernel family):
 *   WLCU_BITS   bit per cell, row-major 32-bit words, nw = ceil(W/32) words per row; bit i
 *               of word j of row y is cell (32j + i, y); bits past column W-1 are zero.
 *               Bytes of a row equal the first 4*nw bytes of a wl_grid row (little endian).
 *   WLCU_BYTES  byte per cell (0 or 1), row-major, W bytes per row.
 *   WLCU_PATCH  a 4x4 block of cells per 16-bit word, ceil(W/4) x ceil(H/4) words; bit
 *               4r + c of block (bx, by) is cell (4bx + c, 4by + r); cells past the grid 0.
 *   WLCU_PAIRS  bit per cell in pairs of 32-bit words (E, O), np = ceil(W/64) pairs per
 *               row: bit k of E of pair p is cell (64p + 2k, y), bit k of O is cell
 *               (64p + 2k + 1, y); cells past column W-1 are zero (cuda_pair.cuh).
 */
#ifndef WL_CUDA_H
#define WL_CUDA_H

#include "internal.h"
#include "lop3net.h" /* wl_lop3_net (the wave kernel's rule networks) */
#include "rulenet.h" /* wl_rnet (the circuit kernel's networks, any rule) */

enum wlcu_layout { WLCU_BITS = 0, WLCU_BYTES, WLCU_PATCH, WLCU_PAIRS };

/* ---- the kernels: one row each -----------------------------------------------------------
 * X(ID, "name", layout, totalistic, init, max_gens, launch, whole), in the order the engine
 * lists them (after "best"):
 *   totalistic  1: bit-sliced logic for outer-totalistic rules only (other rules run circuit)
 *   init        set-up after the buffers exist (tables, NVRTC kernels), or NULL
 *   max_gens    generations one launch does at most, or NULL for 1
 *   launch      one launch of `gens` <= max_gens generations from cur to nxt
 *   whole       1: a launch does exactly max_gens generations, the remainder of a step
 *               runs one generation at a time on bitcount (same layout; lut6x3 for the
 *               kernels of any rule, whose init builds its table)
 * Adding a kernel is one row here plus its .cu file. */
#define WLCU_KERNELS(X)                                                                         \
    X(WAVE, "wave", WLCU_BITS, 1, wlcu_wave_prepare, wlcu_wave_max_gens, wlcu_wave_step, 1)     \
    X(RES, "res", WLCU_BITS, 0, wlcu_res_prepare, wlcu_res_max_gens, wlcu_res_step, 0)         \
    X(CIRCUIT, "circuit", WLCU_BITS, 0, wlcu_circuit_prepare, wlcu_wave_max_gens, wlcu_wave_step, 1) \
    X(LOP3, "lop3", WLCU_BITS, 1, NULL, wlcu_lop3_max_gens, wlcu_lop3_step, 1)                  \
    X(LOP3V, "lop3v", WLCU_BITS, 1, NULL, wlcu_lop3v_max_gens, wlcu_lop3v_step, 1)              \
    X(LOP3P, "lop3p", WLCU_PAIRS, 1, wlcu_pair_prepare, wlcu_pair_max_gens, wlcu_pair_step, 0)  \
    X(BITCOUNT, "bitcount", WLCU_BITS, 1, wlcu_bits_init, NULL, wlcu_bits_step, 0)              \
    X(LUT6X3, "lut6x3", WLCU_BITS, 0, wlcu_bits_init, NULL, wlcu_bits_step, 0)                  \
    X(PATCH16, "patch16", WLCU_PATCH, 0, wlcu_lut_init, NULL, wlcu_lut_step, 0)                 \
    X(LUT4X4, "lut4x4", WLCU_BYTES, 0, wlcu_lut_init, NULL, wlcu_lut_step, 0)                   \
    X(LUT4X4_64, "lut4x4-64", WLCU_BYTES, 0, wlcu_lut_init, NULL, wlcu_lut_step, 0)             \
    X(SHARED, "shared", WLCU_BYTES, 0, NULL, NULL, wlcu_byte_step, 0)                           \
    X(STRIDE, "stride", WLCU_BYTES, 0, NULL, NULL, wlcu_byte_step, 0)                           \
    X(NAIVE, "naive", WLCU_BYTES, 0, NULL, NULL, wlcu_byte_step, 0)

#define WLCU_KERNEL_ID(ID, ...) WLCU_K_##ID,
enum wlcu_kernel { WLCU_KERNELS(WLCU_KERNEL_ID) WLCU_K_COUNT };

/* The kernel families cuda_rtc.cu compiles per rule with NVRTC. */
enum wlcu_rtc_family {
    WLCU_RTC_WAVE = 0,
    WLCU_RTC_PAIR,
    WLCU_RTC_CIRCUIT,
    WLCU_RTC_RES,        /* res with an outer-totalistic rule's network (rule 2) */
    WLCU_RTC_RES_CIRCUIT, /* res with any rule's network over the nine cells (rule 3) */
    WLCU_RTC_RES_GEN,    /* res with a Generations rule (rule 2, c->res_planes planes of
                          * decay wrapping at c->res_last) ... */
    WLCU_RTC_RES_GEN_CIRCUIT /* ... and with any Generations table (rule 3) */
};

typedef struct wlcu_ctx {
    int device;
    uint64_t w, h;
    int torus;                /* 1 torus, 0 bounded */
    int kernel;               /* enum wlcu_kernel actually run */
    int layout;               /* enum wlcu_layout */
    uint64_t nw;              /* 32-bit words per row of the bit layout (set for every layout) */
    uint64_t bw, bh;          /* blocks per row / column (WLCU_PATCH) */
    uint64_t np;              /* pairs per row (WLCU_PAIRS) */
    size_t buf_bytes;         /* size of each of cur and nxt */
    void *cur, *nxt;          /* device buffers, swapped after each launch */
    void *table;              /* device lookup table (lut kernels), NULL otherwise */
    wl_rule rule;
    int totalistic;           /* 1: the rule is outer-totalistic (birth, survive hold it) */
    uint16_t birth, survive;  /* outer-totalistic masks (bit n: n live neighbours) */
    int rule_variant;         /* which compiled-in specialisation the bitsliced kernels use */
    int lop3_shape;           /* -1: default lop3 tile shape; else a Life tuning shape */
    int lop3v_shape;          /* the same for lop3v (WL_CUDA_LOP3V) */
    double copy_floor;        /* measured once, CUpS; 0 before */
    void *ev_start, *ev_stop; /* cudaEvent_t */
    uint64_t *d_count;        /* one device counter for the population */
    int verbose;              /* cfg->verbose: notes about fallbacks on stderr */
    int wave_k;               /* wave: generations per launch (set by wlcu_wave_prepare) */
    void *wave_fn;            /* wave: NVRTC kernel (CUfunction) for this rule, or NULL */
    int64_t wave_resident;    /* wave: warps the GPU holds at once for the chosen kernel */
    int64_t wave_hc;          /* wave: rows per chunk (planned once by wlcu_wave_prepare) */
    void *pair_fn;            /* lop3p: NVRTC kernel (CUfunction) for this rule, or NULL */
    int pair_shape;           /* lop3p: index of the compiled Life shape, -1 for other rules */
    int pair_nr, pair_wb;     /* lop3p: rows per warp, warps per block */
    /* wl_lop3_synth (src/core/lop3net.c), set by cuda_engine.c so that the static library's
     * link pulls it in; NULL: cuda_rtc.cu uses its own structured networks only */
    wl_status (*lop3_synth)(uint16_t birth, uint16_t survive, wl_lop3_net *net);
    /* wl_rnet_synth (src/core/rulenet.c), set by cuda_engine.c the same way; NULL: the
     * circuit kernel is unavailable and falls back to lut6x3 */
    wl_status (*rnet_synth)(const wl_rule *rule, int effort, wl_rnet *net);
    void *res_fn;             /* res: the kernel instance for the grid and rule */
    void *res_rtc;            /* res: the NVRTC instance (CUfunction) for other rules, or NULL */
    void *res_x;              /* res: the exchange rows between bands (device), or NULL */
    size_t res_x_bytes;
    int res_shape;            /* res: index of the shape (words a lane, rows a warp) */
    int res_wb;               /* res: warps a block (RS_WB; NVRTC Generations instances may
                                 take others, WL_CUDA_RES_WB) */
    int res_nb, res_band, res_extra, res_kk; /* res: bands and their rows, halo rows */
    unsigned res_tag;         /* res: tag of the next exchange (counts across launches) */
    int res_planes;           /* res: Generations' planes of decay in the lanes (0: two
                                 states) ... */
    int res_pb;               /* ... 0: binary, as in memory; else one-hot (a plane for each
                                 decaying state), from and to res_pb binary planes ... */
    int res_xb;               /* ... binary, exchanged as a code of res_planes planes ... */
    unsigned res_last;        /* ... and its states - 1 */
    void *gl;                 /* OpenGL interop state of cuda_gl.cu, NULL until used */
    void *multi;              /* rules of more than two states (cuda_multi.cu), or NULL */
} wlcu_ctx;

/* All of these return WL_OK or an error set through wl_error (WL_ERR_DEVICE for a failed
 * CUDA call, with the call, file and line; WL_ERR_TOO_BIG when memory is short). */

/* WL_OK if a CUDA device is usable, else WL_ERR_UNAVAILABLE saying why. */
wl_status wlcu_probe(void);
/* Selects cfg->device and allocates the buffers and tables for ctx's kernel and layout
 * (fields w, h, torus, kernel, layout, rule, birth, survive, rule_variant set by caller). */
wl_status wlcu_init(wlcu_ctx *c, int device);
/* Frees everything wlcu_init allocated (safe on a partly initialised context). */
void wlcu_release(wlcu_ctx *c);
/* Replaces the cells with the host grid g / copies them into g (zeroed, w x h). */
wl_status wlcu_upload(wlcu_ctx *c, const wl_grid *g);
wl_status wlcu_download(wlcu_ctx *c, wl_grid *g);
/* Queues `gens` generations (asynchronous; errors of the launches are checked). */
wl_status wlcu_advance(wlcu_ctx *c, uint64_t gens);
/* Waits for the queued work. */
wl_status wlcu_sync(wlcu_ctx *c);
/* Exact population, counted on the device. */
wl_status wlcu_population(wlcu_ctx *c, uint64_t *pop);
/* Random soup made on the device: each cell alive with probability `density`. */
wl_status wlcu_randomize(wlcu_ctx *c, double density, uint64_t seed);
/* Runs `gens` generations between two device events; *seconds = elapsed time. */
wl_status wlcu_timed(wlcu_ctx *c, uint64_t gens, double *seconds);
/* Measures device-to-device copy bandwidth (bytes read + written per second). */
wl_status wlcu_copy_bandwidth(wlcu_ctx *c, double *bytes_per_s);

/* ---- per-family launchers (defined in the family's .cu file) ---- */
/* Each family's launch (the kernel table's `launch`) steps `gens` generations, at most its
 * max_gens (exactly max_gens for the `whole` families), from cur to nxt. */
wl_status wlcu_byte_step(wlcu_ctx *c, unsigned gens);   /* cuda_byte.cu */
wl_status wlcu_lut_init(wlcu_ctx *c);                   /* cuda_lut.cu: tables */
wl_status wlcu_lut_step(wlcu_ctx *c, unsigned gens);
wl_status wlcu_bits_init(wlcu_ctx *c);                  /* cuda_bits.cu */
wl_status wlcu_bits_step(wlcu_ctx *c, unsigned gens);   /* c->kernel: lut6x3 or bitcount */
/* One generation by bitcount whatever c->kernel is (the remainder of the whole families). */
wl_status wlcu_bitcount_step(wlcu_ctx *c);
/* One generation by lut6x3 (the remainder of `circuit`; needs wlcu_lut6x3_table). */
wl_status wlcu_lut6x3_step(wlcu_ctx *c);
/* Builds lut6x3's table for c's rule on the device (c->table) unless it is there. */
wl_status wlcu_lut6x3_table(wlcu_ctx *c);
wl_status wlcu_lop3_step(wlcu_ctx *c, unsigned gens); /* cuda_lop3.cu */
unsigned wlcu_lop3_max_gens(const wlcu_ctx *c);
/* The Life tuning shape named by text ("NRxK", from WL_CUDA_LOP3), or -1. */
int wlcu_lop3_shape(const char *text);
/* Returns the lop3 specialisation index for a (birth, survive) pair, or -1 for the generic
 * mask evaluator. */
int wlcu_lop3_variant(uint16_t birth, uint16_t survive);
/* cuda_lop3v.cu: wlcu_lop3v_max_gens(c) generations per launch, warps stacked vertically. */
wl_status wlcu_lop3v_step(wlcu_ctx *c, unsigned gens);
unsigned wlcu_lop3v_max_gens(const wlcu_ctx *c);
/* The Life shape of lop3v named by text ("NRxWBxK", from WL_CUDA_LOP3V), or -1 for the
 * default shape; text NULL: the shape Life uses by default. */
int wlcu_lop3v_shape(const char *text);
/* cuda_wave.cu: wavefront kernel, wlcu_wave_max_gens(c) generations per launch.  prepare
 * picks the instance for c's rule (compiled-in Life, NVRTC, or run-time masks) once, after
 * wlcu_init; step launches it from cur to nxt. */
wl_status wlcu_wave_prepare(wlcu_ctx *c);
/* The `circuit` kernel: the wave kernel with any rule's network of wl_rnet_synth compiled
 * by NVRTC (rule 3 of cuda_wave.cuh), K generations per launch, the remainder of a step by
 * lut6x3 (whose table prepare builds); lut6x3 for everything when NVRTC is missing. */
wl_status wlcu_circuit_prepare(wlcu_ctx *c);
wl_status wlcu_wave_step(wlcu_ctx *c, unsigned gens);
unsigned wlcu_wave_max_gens(const wlcu_ctx *c);
/* cuda_res.cu: the resident kernel for small grids (cuda_res.cuh): up to
 * wlcu_res_max_gens generations per cooperative launch.  prepare plans the bands, or switches
 * the context to wave (and prepares that) for grids it does not run. */
wl_status wlcu_res_prepare(wlcu_ctx *c);
wl_status wlcu_res_step(wlcu_ctx *c, unsigned gens);
unsigned wlcu_res_max_gens(const wlcu_ctx *c);
/* res for a Generations rule of P planes of decay and `states` states, compiled by NVRTC:
 * outer-totalistic on the Moore neighbourhood (birth and survive masks in c->birth,
 * c->survive) as its 5-input network, or (circuit) any other table (hexagonal, von
 * Neumann, MAP) as wl_rnet_synth's network over the nine cells; WL_ERR_UNAVAILABLE when res
 * does not run it (the grid, planes that do not fit a lane, no NVRTC).  step:
 * gens (<= wlcu_res_max_gens) generations from (cur, ein) to (nxt, eout), E's P planes of
 * nw x h words each. */
wl_status wlcu_res_gen_prepare(wlcu_ctx *c, unsigned P, unsigned states, int circuit);
wl_status wlcu_res_gen_step(wlcu_ctx *c, unsigned gens, const uint32_t *ein, uint32_t *eout);
/* cuda_pair.cu: the lop3p kernel on the pair layout.  prepare picks the instance for c's
 * rule (compiled-in Life, NVRTC, or run-time masks) once, after wlcu_init; step launches
 * `gens` (1 .. wlcu_pair_max_gens) generations from cur to nxt. */
wl_status wlcu_pair_prepare(wlcu_ctx *c);
wl_status wlcu_pair_step(wlcu_ctx *c, unsigned gens);
unsigned wlcu_pair_max_gens(const wlcu_ctx *c);
/* n rows of the bit layout (nw words per row) <-> n rows of the pair layout (np pairs per
 * row); source and destination must not overlap. */
wl_status wlcu_pairs_from_bits(wlcu_ctx *c, const uint32_t *bits, void *pairs, uint64_t n);
wl_status wlcu_pairs_to_bits(wlcu_ctx *c, const void *pairs, uint32_t *bits, uint64_t n);
/* cuda_rtc.cu: the kernel of `family` for c's rule compiled by NVRTC with K = kk (wave) or
 * a tile of nr rows x wb warps (pair; K is then the largest kk a launch takes; res: nr rows
 * a warp, wb words a lane, kk unused), cached per process and on disk; *fn = CUfunction,
 * *per_sm = resident blocks per SM.
 * WL_ERR_UNAVAILABLE when NVRTC or the driver entry points are missing, WL_ERR_DEVICE when
 * compiling or loading fails: the caller then uses another kernel.  launch: cuLaunchKernel
 * on the default stream. */
wl_status wlcu_rtc_kernel(wlcu_ctx *c, int family, int kk, int nr, int wb, void **fn,
                          int *per_sm);
wl_status wlcu_rtc_launch(void *fn, unsigned blocks, unsigned threads, void **args);
/* A cooperative launch of an NVRTC kernel with `smem` bytes of dynamic shared memory (res). */
wl_status wlcu_rtc_coop_launch(void *fn, unsigned blocks, unsigned threads, unsigned smem,
                               void **args);
/* Makes c->device current on the calling thread (every engine entry point calls it). */
wl_status wlcu_use(wlcu_ctx *c);
/* Layout conversions between WLCU_BITS (src/dst `bits`) and the context's layout. */
wl_status wlcu_bits_to_layout(wlcu_ctx *c, const uint32_t *bits, void *dst);
wl_status wlcu_layout_to_bits(wlcu_ctx *c, const void *src, uint32_t *bits);

/* One row of the kernel table (WLCU_KERNELS), indexed by enum wlcu_kernel. */
typedef struct wlcu_kernel_info {
    const char *name;
    int layout;
    int totalistic;
    wl_status (*init)(wlcu_ctx *c);
    unsigned (*max_gens)(const wlcu_ctx *c);
    wl_status (*launch)(wlcu_ctx *c, unsigned gens);
    int whole;
} wlcu_kernel_info;
extern const wlcu_kernel_info wlcu_kernels[WLCU_K_COUNT]; /* cuda_device.cu */

/* ---- rules of more than two states (cuda_multi.cu): Generations, Larger than Life ---- */
/* After wlcu_init (kernel bitcount's bit layout holds the state-1 cells): the other states'
 * planes and the rule's device data. */
wl_status wlcu_multi_init(wlcu_ctx *c);
void wlcu_multi_release(wlcu_ctx *c);
/* Host grids in wl_grid's planes (live cells, bits of state - 1) to and from the device. */
wl_status wlcu_multi_upload(wlcu_ctx *c, const wl_grid *g);
wl_status wlcu_multi_download(wlcu_ctx *c, wl_grid *g);
wl_status wlcu_multi_population(wlcu_ctx *c, uint64_t *pop);
/* Clears the other states (after a soup of state-1 cells). */
wl_status wlcu_multi_clear(wlcu_ctx *c);
/* Every plane moved: (x, y) gets (x + dx, y + dy), dead from outside (the translate slot). */
wl_status wlcu_multi_translate(wlcu_ctx *c, int64_t dx, int64_t dy);
/* The live cells' box in grid cells (first column, first row, last column, last row). */
wl_status wlcu_multi_box(wlcu_ctx *c, uint64_t box[4], int *empty);
/* Queues `gens` generations. */
wl_status wlcu_multi_advance(wlcu_ctx *c, uint64_t gens);

/* ---- row strips and host helpers (cuda_rows.cu; used by the mpi engine) ---- */
/* store_rows / load_rows engine ops: ctx is the engine's context (its first member is the
 * wlcu_ctx); rows in wl_grid's layout at `stride` 64-bit words per row. */
wl_status wlcu_store_rows(void *ctx, uint64_t y0, uint64_t n, uint64_t *rows, size_t stride);
wl_status wlcu_load_rows(void *ctx, uint64_t y0, uint64_t n, const uint64_t *rows,
                         size_t stride);
/* The engine's device slots (wl_engine_ops): number of CUDA devices (0 when there is none
 * or the driver fails); pinned (page-locked) host memory, NULL + WL_ERR_NOMEM on failure
 * (cuda_rows.cu); page-locking memory allocated elsewhere and selecting the device on a
 * thread (cuda_pin.cu). */
int wlcu_device_count(void);
void *wlcu_host_alloc(size_t bytes);
void wlcu_host_free(void *p);
wl_status wlcu_host_register(void *p, size_t bytes);
void wlcu_host_unregister(void *p);
wl_status wlcu_thread_device(int device);

#endif
