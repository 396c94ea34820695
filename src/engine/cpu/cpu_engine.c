/*
 * cpu_engine.c - the `cpu` engine: the kernel table, create/destroy, loading and storing
 * grids, stepping with poll checks, and the benchmark helpers.
 *
 * Kernels (see each file's essay):
 *   best       bit-sliced SIMD (AVX-512, else AVX2, else 64-bit words) + all threads +
 *              temporal blocking (tile.c, depth BEST_DEPTH generations per pass)
 *   byte       byte per cell, one thread: the serial baseline (byte.c)
 *   byte-omp   byte per cell, rows split over the thread pool (byte.c)
 *   lut6x3     bit per cell, 18-bit 6x3 neighbourhood -> 4 cells table (lut.c)
 *   lut4x4     bit per cell, 16-bit 4x4 block -> 2x2 block table (lut.c)
 *   nibble     cell per nibble, SWAR neighbour counts (nibble.c)
 *   bitsliced  bit per cell, software adders on 64-bit words (bitsliced.c)
 *   avx2       bitsliced on 256-bit vectors (simd_avx2.c)
 *   avx512     bitsliced on 512-bit vectors with vpternlogq (simd_avx512.c)
 *   vpermb     any rule: 64 table lookups per instruction (AVX-512 VBMI, simd_vpermb.c)
 * One row each in CPU_KERNELS below (name, how it keeps the cells, what it needs from the
 * CPU, threads, generations per pass, row technique); everything else follows from it.
 * All but best and byte-omp use one thread and one generation per pass, so that each
 * measures its own technique.  best and byte-omp use cfg->threads threads (0 = all
 * cores), but at most one per MIN_CELLS_PER_THREAD cells and MAX_THREADS_PER_CORE per core.
 *
 * Rules that are not outer-totalistic run best and avx512 through the vpermb lookups when
 * the CPU has them, and nibble, bitsliced and avx2 (and best and avx512 on other CPUs)
 * through the lut6x3 tables (same threads and blocking); verbose mode says so on stderr.
 * The same table gives the sparse engine its tile kernels (tile_kernel, at the end).
 *
 * Memory: bit kernels hold two full bit-per-cell grids (2 bits per cell; a 65536^2 torus
 * takes 1 GiB) plus per-thread tile buffers of about TILE_CACHE_BYTES.
 */
#include "cpu_internal.h"
#include "rulenet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BEST_DEPTH 16                 /* generations per pass of `best` */
#define TILE_CACHE_BYTES (384u << 10) /* one thread's two tile buffers: part of a 1 MiB L2 */
#define MIN_CELLS_PER_THREAD 16384u   /* smaller universes use fewer threads */
#define MAX_THREADS_PER_CORE 4        /* cfg->threads above this many per core is capped */

/* The row techniques of bit kernels (the gen_rows functions; R_SIMD: the widest the CPU
 * has, AVX-512, else AVX2, else bitsliced). */
enum row_tech { R_NONE, R_SIMD, R_BITSLICED, R_AVX2, R_AVX512, R_VPERMB, R_CIRCUIT, R_LUT6X3, R_LUT4X4 };
/* What a kernel needs from the CPU. */
enum cpu_need { NEED_NONE, NEED_AVX2, NEED_AVX512, NEED_VPERMB };
/* How a kernel keeps the cells. */
enum cpu_family { F_BITS, F_BYTE, F_NIBBLE };

/* The kernels, one row each, the default first:
 *   X(ID, "name", family, needs, threaded, depth, rows)
 * threaded  1: cfg->threads threads; 0: one (a technique measured on its own)
 * depth     generations per pass of the tile driver (temporal blocking)
 * rows      the row technique for outer-totalistic rules; other rules run vpermb where an
 *           AVX-512 kernel runs and the CPU has it, else lut6x3 (lut4x4 runs any rule), and
 *           the nibble kernel runs them as lut6x3 bit rows
 * Adding a kernel is one row here (and its technique's file). */
#define CPU_KERNELS(X)                                                                     \
    X(BEST, "best", F_BITS, NEED_NONE, 1, BEST_DEPTH, R_SIMD)                              \
    X(BYTE, "byte", F_BYTE, NEED_NONE, 0, 1, R_NONE)                                       \
    X(BYTE_OMP, "byte-omp", F_BYTE, NEED_NONE, 1, 1, R_NONE)                               \
    X(LUT6X3, "lut6x3", F_BITS, NEED_NONE, 0, 1, R_LUT6X3)                                 \
    X(LUT4X4, "lut4x4", F_BITS, NEED_NONE, 0, 1, R_LUT4X4)                                 \
    X(NIBBLE, "nibble", F_NIBBLE, NEED_NONE, 0, 1, R_BITSLICED)                            \
    X(BITSLICED, "bitsliced", F_BITS, NEED_NONE, 0, 1, R_BITSLICED)                        \
    X(AVX2, "avx2", F_BITS, NEED_AVX2, 0, 1, R_AVX2)                                       \
    X(AVX512, "avx512", F_BITS, NEED_AVX512, 0, 1, R_AVX512)                               \
    X(VPERMB, "vpermb", F_BITS, NEED_VPERMB, 0, 1, R_VPERMB)                               \
    X(CIRCUIT, "circuit", F_BITS, NEED_AVX2, 0, 1, R_CIRCUIT)

typedef struct cpu_kernel {
    const char *name;
    enum cpu_family family;
    enum cpu_need need;
    int threaded;
    unsigned depth;
    enum row_tech rows;
} cpu_kernel;

#define KERNEL_ROW(ID, name, family, need, threaded, depth, rows)                          \
    {name, family, need, threaded, depth, rows},
static const cpu_kernel kernels[] = {CPU_KERNELS(KERNEL_ROW)};
#define KERNEL_NAME(ID, name, ...) name,
static const char *const kernel_names[] = {CPU_KERNELS(KERNEL_NAME) NULL};
#define NKERNELS (sizeof kernels / sizeof kernels[0])

/* The kernel named `name` (NULL or "" = the default), or NULL with an error. */
static const cpu_kernel *kernel_named(const char *name) {
    if (!name || !*name) return &kernels[0];
    for (size_t i = 0; i < NKERNELS; i++)
        if (strcmp(kernels[i].name, name) == 0) return &kernels[i];
    wl_error(WL_ERR_NOT_FOUND, "cpu engine: no kernel '%s'", name);
    return NULL;
}

/* A bit kernel's row function and the tables it reads (what tile.c and the sparse engine
 * run). */
typedef struct cpu_rows {
    cpu_kernel_data kd;
    uint8_t *lut6x3, *lut4x4, *table512;
    cpu_rnet_prog *rnet;
} cpu_rows;

typedef struct cpu_ctx {
    wl_config cfg;
    const cpu_kernel *kernel;
    uint64_t w, h;
    size_t S;
    int torus;
    wl_pool *pool;
    /* bit kernels */
    uint64_t *cur, *nxt;
    cpu_tiler *tiler;
    unsigned depth;
    cpu_rows rows;
    /* byte / nibble */
    cpu_byte *byte;
    cpu_nibble *nibble;
    /* Generations, Larger than Life, History and Super (multi.c): cur / nxt hold the
     * state-1 (on) cells */
    cpu_multi *multi;
    int blocked; /* Generations, History: the planes go through the tile driver with the
                    cells, depth generations a pass (else a generation a pass, decayed or
                    marked in place) */
    int super;   /* Super: a generation a pass, the marks after it on the whole grid */
    /* the tiler's configuration, and the rule its table kernel runs (History and Super:
     * the two-state rule under the marks) */
    cpu_tiler_config tc;
    wl_rule table_rule;
    /* best runs another kernel until the rule's gate network is compiled (see
     * upgrade_rows, count_pass): the seconds and generations of passes since, and the
     * seconds that the compiler is taken to cost */
    int compile_later;
    double later_s, later_after;
    uint64_t later_gens;
} cpu_ctx;

static int have_avx2(void) {
#if defined(WL_CPU_X86_SIMD)
    return wl_cpu_has(WL_CPU_AVX2);
#else
    return 0;
#endif
}

static int have_avx512(void) {
#if defined(WL_CPU_X86_SIMD)
    return wl_cpu_has(WL_CPU_AVX512F);
#else
    return 0;
#endif
}

static int have_vpermb(void) {
#if defined(WL_CPU_X86_SIMD)
    return cpu_vpermb_available();
#else
    return 0;
#endif
}

/* WL_OK if this CPU has the instructions kernel k needs, else WL_ERR_UNAVAILABLE. */
static wl_status kernel_usable(const cpu_kernel *k) {
    if (k->need == NEED_AVX2 && !have_avx2())
        return wl_error(WL_ERR_UNAVAILABLE,
                        "cpu kernel %s: this CPU (or build) has no AVX2 instructions", k->name);
    if (k->need == NEED_VPERMB && !have_vpermb())
        return wl_error(WL_ERR_UNAVAILABLE, "cpu kernel vpermb: this CPU (or build) lacks "
                                            "AVX-512BW, AVX-512 VBMI or GFNI");
    if (k->need == NEED_AVX512 && !have_avx512())
        return wl_error(WL_ERR_UNAVAILABLE,
                        "cpu kernel avx512: this CPU (or build) has no AVX-512F instructions");
    return WL_OK;
}

/* The row technique kernel k runs for a rule on this CPU (see CPU_KERNELS). */
static enum row_tech tech_for(const cpu_kernel *k, int totalistic) {
    enum row_tech t = k->rows;
    if (t == R_SIMD) t = have_avx512() ? R_AVX512 : have_avx2() ? R_AVX2 : R_BITSLICED;
    if (totalistic || t == R_LUT4X4 || t == R_LUT6X3 || t == R_VPERMB || t == R_CIRCUIT)
        return t;
    return t == R_AVX512 && have_vpermb() ? R_VPERMB : R_LUT6X3;
}

static void rows_free(cpu_rows *r) {
    free(r->lut6x3);
    free(r->lut4x4);
    wl_aligned_free(r->table512);
#if defined(WL_CPU_X86_SIMD)
    cpu_rnet_prog_free(r->rnet);
#endif
    memset(r, 0, sizeof *r);
}

#if defined(WL_CPU_X86_SIMD)
/* The instructions the compiled networks use here (circuit_jit.c): AVX-512 (with VBMI2
 * where the CPU has it), else AVX2. */
static int jit_isa(void) {
    return have_avx512() ? cpu_avx512_uses_vbmi2() ? CPU_JIT_VBMI2 : CPU_JIT_AVX512
                         : CPU_JIT_AVX2;
}

/* The circuit kernel's row function for a rule: the network compiled (circuit_jit.c; with
 * compile 0 only when it is in the disk cache already), or, when interpret is set, no
 * compiler works and the CPU has AVX-512, the interpreter (simd_circuit.c).  *vw: the
 * function's vector width in words. */
static wl_status circuit_rows(const wl_rule *rule, int verbose, int compile, int interpret,
                              cpu_rows *r, cpu_gen_rows_fn *fn, unsigned *vw, const char **name) {
    wl_rnet net;
    /* (cached per process and on disk; a search takes 0.3-2 s: only to compile) */
    wl_status st = compile ? wl_rnet_synth(rule, 1, &net) : wl_rnet_synth_cached(rule, 1, &net);
    if (st) return st;
    r->kd.vbmi2 = cpu_avx512_uses_vbmi2();
    cpu_gen_rows_fn jit = NULL;
    const int isa = jit_isa();
    st = cpu_circuit_jit(&net, isa, compile, &jit, NULL, verbose);
    *vw = isa == CPU_JIT_AVX2 ? 4 : 8;
    if (!st) {
        *fn = jit;
        if (name) *name = "circuit (compiled)";
        return WL_OK;
    }
    if (!interpret || isa == CPU_JIT_AVX2) return st;
    if (verbose) fprintf(stderr, "warplife: %s; interpreting the network\n", wl_last_error());
    wl_clear_error();
    st = cpu_rnet_prog_build(&net, &r->rnet);
    if (st) return st;
    r->kd.rnet = r->rnet;
    *fn = cpu_gen_rows_circuit;
    if (name) *name = "circuit (interpreted)";
    return WL_OK;
}
#endif

#if defined(WL_CPU_X86_SIMD)
/* Whether kernel k runs the rule (circuit built into circ) through its compiled gate
 * network (circuit_jit.c), on grids (select_rows) and tiles (tile_kernel) alike: best
 * does, on AVX-512, for rules that are not outer-totalistic and for outer-totalistic ones
 * other than Life and CPU_POPULAR_RULES, whose avx512 loops evaluate masks at run time
 * (4096^2, dev VM, same run: B35/S236 1.44e11 compiled against 1.12e11, B34/S456 1.33e11
 * against 1.15e11; Life's own loop stays faster, 1.57e11 against 1.42e11; tiles, bench_tile:
 * B2-a/S12 9.2 ns a brick against vpermb's 52, B35/S236 7.9 against 10.5).  On AVX2
 * without AVX-512, for every rule but Life (Zen 1 dev VM, 2048^2 on one thread: B3-k/S23
 * 1.42e10 against lut6x3's 2.36e9, B35/S236 1.55e10 against the avx2 loop's 1.30e10;
 * tiles: B2-a/S12 51 ns a brick against 273, B35/S236 49 against 54). */
static int circuit_pays(const cpu_kernel *k, int totalistic, const cpu_circuit *circ) {
    if (k->rows != R_SIMD) return 0;
    if (have_avx512()) return !totalistic || (!circ->life && !circ->popular);
    return have_avx2() && (!totalistic || !circ->life);
}

/* Whether best compiles a network that circuit_pays for and the disk cache does not have
 * (the search and the compiler: about half a second to a second, once per rule) rather
 * than run its other kernel: on grids of at least JIT_MIN_CELLS cells (a generation of a
 * smaller one costs too little for the compiler to pay within a short run: Golly's small
 * Generations patterns to 1000 generations took 0.7-1.0 s with it on the Zen 1 dev VM, a
 * few ms without), and there once the grid's passes have taken JIT_AFTER_SECONDS with the
 * other kernel (upgrade_rows: a run that ends sooner never waits for the compiler, and one
 * that goes on spends at most about twice what it needed; Golly's unusual-ruler, a
 * Generations pattern that grows to 2^22 cells, to generation 1000 took 0.40 s compiling
 * at once and 0.05 s without, on the Zen 5 dev VM), and (tile kernels: after enough work,
 * see sparse.c) where the other kernel is much slower: not for the outer-totalistic rules
 * on AVX2, whose loop is within 20% of the compiled network. */
#define JIT_MIN_CELLS ((uint64_t)1 << 22)
static int circuit_compile_pays(int totalistic) {
    return have_avx512() || !totalistic;
}
#endif

#define JIT_AFTER_SECONDS 0.4

/* Chooses the row function of bit kernel k for a rule (tech_for) and builds the tables it
 * reads into *r (verbose: a note on stderr when a rule makes the kernel run another
 * technique).  Sets *fn, the vector width *vw in words, *wraps (the function handles
 * circular rows itself) and, if tech is non-NULL, the technique's name. */
static wl_status select_rows(const cpu_kernel *k, const wl_rule *rule, uint64_t cells,
                             int verbose, cpu_rows *r, cpu_gen_rows_fn *fn, unsigned *vw,
                             int *wraps, const char **tech, int *later) {
    int totalistic = wl_rule_is_totalistic(rule, NULL, NULL);
    enum row_tech t = tech_for(k, totalistic);
    memset(r, 0, sizeof *r);
    cpu_circuit_build(rule, &r->kd.circ);
#if defined(WL_CPU_X86_SIMD)
    /* the compiled network when a C compiler is at hand, else the kernels below */
    /* (a small grid of a rule whose other loop is nearly as fast does not even look in the
     * cache: the network's synthesis costs a new rule tens of ms) */
    /* (a network that is not in the cache yet is compiled later, on a big grid, once the
     * run has spent as long as the compiler takes: upgrade_rows) */
    const int big = cells >= JIT_MIN_CELLS, worth = circuit_compile_pays(totalistic);
    if (circuit_pays(k, totalistic, &r->kd.circ) && (big || worth)) {
        if (circuit_rows(rule, verbose, 0, 0, r, fn, vw, tech) == WL_OK) {
            *wraps = 0;
            return WL_OK;
        }
        wl_clear_error(); /* not cached: the kernels below */
        *later = big && worth;
    }
#else
    (void)cells;
    (void)later;
#endif
    *fn = cpu_gen_rows_bitsliced;
    *vw = 1;
    *wraps = 0;
    const char *name = "bitsliced";
    switch (t) {
    case R_LUT6X3:
        r->lut6x3 = cpu_lut6x3_build(rule);
        if (!r->lut6x3) return WL_ERR_NOMEM;
        r->kd.lut6x3 = r->lut6x3;
        *fn = cpu_gen_rows_lut6x3;
        name = "lut6x3";
        break;
    case R_LUT4X4:
        r->lut4x4 = cpu_lut4x4_build(rule);
        if (!r->lut4x4) return WL_ERR_NOMEM;
        r->kd.lut4x4 = r->lut4x4;
        *fn = cpu_gen_rows_lut4x4;
        name = "lut4x4";
        break;
#if defined(WL_CPU_X86_SIMD)
    case R_VPERMB:
        r->table512 = cpu_vpermb_table_build(rule);
        if (!r->table512) return WL_ERR_NOMEM;
        r->kd.table512 = r->table512;
        *fn = cpu_gen_rows_vpermb;
        *vw = 8;
        name = "vpermb";
        break;
    case R_CIRCUIT: {
        wl_status st = circuit_rows(rule, verbose, 1, 1, r, fn, vw, &name);
        if (st) return st;
        break;
    }
    case R_AVX2:
        *fn = cpu_gen_rows_avx2;
        *vw = 4;
        *wraps = 1;
        name = "avx2";
        break;
    case R_AVX512:
        *fn = cpu_gen_rows_avx512;
        *vw = 8;
        *wraps = 1;
        r->kd.vbmi2 = cpu_avx512_uses_vbmi2();
        name = "avx512";
        break;
#endif
    default: break;
    }
    if (verbose && !totalistic && t != k->rows && k->rows != R_NONE)
        fprintf(stderr, "warplife: cpu kernel %s: rule is not outer-totalistic; running the "
                        "%s table kernel instead\n", k->name, name);
    if (tech) *tech = name;
    return WL_OK;
}

static void destroy(void *v) {
    cpu_ctx *c = v;
    if (!c) return;
    cpu_tiler_destroy(c->tiler);
    cpu_byte_destroy(c->byte);
    cpu_nibble_destroy(c->nibble);
    cpu_multi_destroy(c->multi);
    wl_pool_destroy(c->pool);
    wl_aligned_free(c->cur);
    wl_aligned_free(c->nxt);
    rows_free(&c->rows);
    free(c);
}

static wl_status create(const wl_config *cfg, const char *kernel, void **out) {
    *out = NULL;
    /* a Larger than Life rule of range 1 and two states runs as its two-state table (the
     * bit-sliced kernels: Golly's gnarl to generation 1000 765 -> 32 ms) */
    wl_config as_table;
    cfg = wl_ltl_as_table(cfg, &as_table);
    const cpu_kernel *k = kernel_named(kernel);
    if (!k) return WL_ERR_NOT_FOUND;
    if (cfg->topology == WL_TOPOLOGY_PLANE)
        return wl_error(WL_ERR_UNSUPPORTED, "cpu engine: runs tori and bounded grids only");
    if (!cfg->width || !cfg->height)
        return wl_error(WL_ERR_INVALID, "cpu engine: size must be at least 1x1");
    wl_status s = kernel_usable(k);
    if (s) return s;
    cpu_ctx *c = wl_calloc(1, sizeof *c);
    if (!c) return WL_ERR_NOMEM;
    c->cfg = *cfg;
    c->kernel = k;
    c->w = cfg->width;
    c->h = cfg->height;
    c->torus = cfg->topology == WL_TOPOLOGY_TORUS;
    c->S = (size_t)((c->w + 63) / 64);
    int threads = cfg->threads > 0 ? cfg->threads : wl_cpu_count();
    /* at most MAX_THREADS_PER_CORE per core: each thread owns ~TILE_CACHE_BYTES of buffers */
    if (threads > MAX_THREADS_PER_CORE * wl_cpu_count()) threads = MAX_THREADS_PER_CORE * wl_cpu_count();
    /* a thread per MIN_CELLS_PER_THREAD cells at most: waking threads costs more than
     * stepping a tiny universe */
    uint64_t max_threads = (cfg->width * cfg->height + MIN_CELLS_PER_THREAD - 1) / MIN_CELLS_PER_THREAD;
    if (cfg->width > UINT64_MAX / cfg->height) max_threads = (uint64_t)threads;
    if ((uint64_t)threads > max_threads) threads = (int)max_threads;
    c->pool = wl_pool_create(k->threaded ? threads : 1);
    if (!c->pool) {
        destroy(c);
        return WL_ERR_NOMEM;
    }
    uint16_t birth = 0, survive = 0;
    int totalistic = wl_rule_is_totalistic(&cfg->rule, &birth, &survive);
    wl_family family = wl_rule_family(&cfg->rule);
    if (family != WL_FAMILY_LIFE && k != &kernels[0]) {
        s = wl_error(WL_ERR_UNSUPPORTED, "cpu kernel %s runs two-state rules only; %s rules run "
                     "on kernel best", k->name, wl_family_name(family));
        goto fail;
    }

    if (k->family == F_BYTE) {
        s = cpu_byte_create(c->w, c->h, c->torus, &cfg->rule, k->threaded ? c->pool : NULL,
                            &c->byte);
        if (s) goto fail;
        *out = c;
        return WL_OK;
    }
    if (k->family == F_NIBBLE && totalistic) {
        s = cpu_nibble_create(c->w, c->h, c->torus, birth, survive, &c->nibble);
        if (s) goto fail;
        *out = c;
        return WL_OK;
    }
    /* bit kernels: two full grids and a tiler */
    if (c->S > wl_physical_memory() / 4 / 8 / c->h) {
        s = wl_error(WL_ERR_TOO_BIG, "cpu engine: %llu x %llu cells need more than half of memory",
                     (unsigned long long)c->w, (unsigned long long)c->h);
        goto fail;
    }
    size_t bytes = c->S * (size_t)c->h * 8;
    c->cur = wl_aligned_alloc(bytes);
    c->nxt = wl_aligned_alloc(bytes);
    if (!c->cur || !c->nxt) {
        s = WL_ERR_NOMEM;
        goto fail;
    }
    memset(c->cur, 0, bytes);
    memset(c->nxt, 0, bytes);
    cpu_tiler_config tc = {.w = c->w, .h = c->h, .torus = c->torus, .depth = 1,
                           .cache_bytes = TILE_CACHE_BYTES, .pool = c->pool, .vw = 1};
    const char *env = getenv("WL_CPU_TILE_KB"); /* for tuning experiments */
    if (env && atoi(env) > 0) tc.cache_bytes = (size_t)atoi(env) << 10;
    /* History and Super: the marks around the two-state table, which is the rule's own or,
     * for a rule with B0 (and S8), its dual (wl_marks_rule): a two-state rule without B0 */
    wl_rule table_rule = cfg->rule;
    if (family == WL_FAMILY_HISTORY || family == WL_FAMILY_SUPER)
        wl_marks_rule(&cfg->rule, &table_rule);
    c->super = family == WL_FAMILY_SUPER;
    if (family != WL_FAMILY_LIFE) {
        s = cpu_multi_create(cfg, c->pool, &c->multi);
        if (s) goto fail;
        if (family == WL_FAMILY_LTL) { /* counts, no table kernel */
            c->depth = 1;
            *out = c;
            return WL_OK;
        }
    }
    s = select_rows(k, &table_rule, c->w * c->h, cfg->verbose, &c->rows, &tc.gen_rows, &tc.vw,
                    &tc.wraps, NULL, &c->compile_later);
    if (s) goto fail;
    tc.kd = &c->rows.kd;
    tc.dead_stays_dead = !wl_rule_has_b0(&table_rule);
    /* Generations and History: the decay (the marks) between generations, in the tile's
     * buffers (its planes carried along), or, without room for a second set of planes, each
     * tile's as soon as it is written, a generation a pass (Super: after the pass) */
    tc.planes = c->multi ? cpu_multi_blocked(c->multi) : 0;
    c->blocked = tc.planes > 0;
    tc.post_arg = c->multi;
    if (c->blocked) tc.gen_post = cpu_multi_decay_buf;
    else if (c->multi && !c->super) tc.post = cpu_multi_decay_tile;
    tc.depth = c->multi && !c->blocked ? 1 : k->depth;
    if (tc.depth > 1) {
        const char *d = getenv("WL_CPU_DEPTH"); /* for tuning experiments */
        if (d && atoi(d) >= 1 && atoi(d) <= 64) tc.depth = (unsigned)atoi(d);
    }
    s = cpu_tiler_create(&tc, &c->tiler);
    if (s) goto fail;
    c->depth = cpu_tiler_depth(c->tiler);
    c->tc = tc;
    c->table_rule = table_rule;
    const char *after = getenv("WL_CPU_JIT_AFTER"); /* seconds (tests: 0) */
    c->later_after = after && *after ? atof(after) : JIT_AFTER_SECONDS;
    if (cfg->verbose)
        fprintf(stderr, "warplife: cpu kernel %s: %s\n", kernel, cpu_tiler_describe(c->tiler));
    *out = c;
    return WL_OK;
fail:
    destroy(c);
    return s;
}

static wl_status load_grid(void *v, const wl_grid *g) {
    cpu_ctx *c = v;
    if (c->multi) {
        cpu_multi_load(c->multi, g, c->cur);
        return WL_OK;
    }
    if (c->byte) {
        cpu_byte_load(c->byte, g);
        return WL_OK;
    }
    if (c->nibble) {
        cpu_nibble_load(c->nibble, g);
        return WL_OK;
    }
    uint64_t tail = (c->w & 63) ? (((uint64_t)1 << (c->w & 63)) - 1) : ~(uint64_t)0;
    for (uint64_t y = 0; y < c->h; y++) {
        uint64_t *row = c->cur + (size_t)y * c->S;
        memcpy(row, g->words + (size_t)y * g->stride, c->S * 8);
        row[c->S - 1] &= tail;
    }
    return WL_OK;
}

static wl_status store_grid(void *v, wl_grid *g) {
    cpu_ctx *c = v;
    if (c->multi) {
        cpu_multi_store(c->multi, c->cur, g);
        return WL_OK;
    }
    if (c->byte) {
        cpu_byte_store(c->byte, g);
        return WL_OK;
    }
    if (c->nibble) {
        cpu_nibble_store(c->nibble, g);
        return WL_OK;
    }
    for (uint64_t y = 0; y < c->h; y++)
        memcpy(g->words + (size_t)y * g->stride, c->cur + (size_t)y * c->S, c->S * 8);
    return WL_OK;
}

/* The live cells' box in the placement rule's coordinates (grid cell (0, 0) is
 * (-floor(W/2), -floor(H/2))), by a scan of the words in place (the grow engine measures
 * its pattern every few generations). */
static wl_status bounds(void *v, wl_bigint *xmin, wl_bigint *ymin, wl_bigint *xmax,
                        wl_bigint *ymax, int *empty) {
    cpu_ctx *c = v;
    uint64_t box[4] = {0, 0, 0, 0};
    if (c->byte || c->nibble) {
        wl_grid g;
        wl_status s = wl_grid_alloc(&g, c->w, c->h);
        if (s) return s;
        store_grid(c, &g);
        *empty = !wl_rows_box(g.words, g.stride, g.h, NULL, 0, 0, box);
        wl_grid_free(&g);
    } else {
        unsigned P = 0;
        const uint64_t *e = c->multi ? cpu_multi_planes(c->multi, &P) : NULL;
        *empty = !wl_rows_box(c->cur, c->S, c->h, e, P, c->S * (size_t)c->h, box);
    }
    wl_grid_box_bounds(c->w, c->h, box, xmin, ymin, xmax, ymax);
    return WL_OK;
}

/* Moves a grid's rows in place: (x, y) gets (x + dx, y + dy) (see the translate slot).
 * empty: room for h flags (a grow engine's grid is mostly empty rows, which stay as they
 * are when they receive an empty row). */
static void translate_rows(uint64_t *rows, size_t S, uint64_t w, uint64_t h, int64_t dx,
                           int64_t dy, uint64_t *tmp, uint8_t *empty) {
    for (uint64_t y = 0; y < h; y++) empty[y] = wl_first_word(rows + (size_t)y * S, S) == S;
    for (uint64_t k = 0; k < h; k++) { /* rows in the order that reads each before it is written */
        uint64_t y = dy > 0 ? k : h - 1 - k;
        int64_t sy = (int64_t)y + dy;
        uint64_t *out = rows + (size_t)y * S;
        if (sy < 0 || sy >= (int64_t)h || empty[sy]) {
            if (!empty[y]) memset(out, 0, S * 8);
            continue;
        }
        wl_row_shift(rows + (size_t)sy * S, S, tmp, S, w, dx);
        memcpy(out, tmp, S * 8);
    }
}

static wl_status translate(void *v, int64_t dx, int64_t dy) {
    cpu_ctx *c = v;
    if (c->byte || c->nibble || c->torus)
        return wl_error(WL_ERR_UNSUPPORTED, "cpu engine: no translate on this kernel or a torus");
    uint64_t *tmp = wl_malloc(c->S * 8 + c->h);
    if (!tmp) return WL_ERR_NOMEM;
    unsigned P = 0;
    uint64_t *e = c->multi ? cpu_multi_planes(c->multi, &P) : NULL;
    uint8_t *empty = (uint8_t *)(tmp + c->S);
    translate_rows(c->cur, c->S, c->w, c->h, dx, dy, tmp, empty);
    for (unsigned k = 0; k < P; k++)
        translate_rows(e + (size_t)k * c->S * c->h, c->S, c->w, c->h, dx, dy, tmp, empty);
    if (c->multi) cpu_multi_changed(c->multi);
    free(tmp);
    return WL_OK;
}

/* Row strips (the mpi engine's halo exchange): rows y0 .. y0+n-1 of the current grid to /
 * from wl_grid rows of `stride` words.  The bit kernels hold exactly wl_grid's rows, so a
 * strip is one memcpy per row (tail bits masked on load, as in load_grid); the byte and
 * nibble kernels convert cell by cell. */
static wl_status store_rows(void *v, uint64_t y0, uint64_t n, uint64_t *rows, size_t stride) {
    cpu_ctx *c = v;
    if (c->multi) return wl_error(WL_ERR_UNSUPPORTED, "cpu engine: no row strips of multi-state rules");
    wl_status s = wl_grid_check_rows("cpu engine", c->w, c->h, y0, n, stride);
    if (s) return s;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t *dst = rows + (size_t)i * stride;
        if (c->byte || c->nibble) memset(dst, 0, stride * 8);
        else {
            memcpy(dst, c->cur + (size_t)(y0 + i) * c->S, c->S * 8);
            memset(dst + c->S, 0, (stride - c->S) * 8);
        }
    }
    if (c->byte) cpu_byte_store_rows(c->byte, y0, n, rows, stride);
    if (c->nibble) cpu_nibble_store_rows(c->nibble, y0, n, rows, stride);
    return WL_OK;
}

static wl_status load_rows(void *v, uint64_t y0, uint64_t n, const uint64_t *rows,
                           size_t stride) {
    cpu_ctx *c = v;
    if (c->multi) return wl_error(WL_ERR_UNSUPPORTED, "cpu engine: no row strips of multi-state rules");
    wl_status s = wl_grid_check_rows("cpu engine", c->w, c->h, y0, n, stride);
    if (s) return s;
    if (c->byte) {
        cpu_byte_load_rows(c->byte, y0, n, rows, stride);
        return WL_OK;
    }
    if (c->nibble) {
        cpu_nibble_load_rows(c->nibble, y0, n, rows, stride);
        return WL_OK;
    }
    uint64_t tail = (c->w & 63) ? (((uint64_t)1 << (c->w & 63)) - 1) : ~(uint64_t)0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t *row = c->cur + (size_t)(y0 + i) * c->S;
        memcpy(row, rows + (size_t)i * stride, c->S * 8);
        row[c->S - 1] &= tail;
    }
    return WL_OK;
}

static wl_status load_words(void *v, uint64_t y0, uint64_t n, size_t w0, size_t nw,
                           const uint64_t *rows, size_t stride) {
    cpu_ctx *c = v;
    if (c->multi || c->byte || c->nibble)
        return wl_error(WL_ERR_UNSUPPORTED, "cpu engine: no word patches on this kernel");
    if (y0 > c->h || n > c->h - y0 || w0 > c->S || nw > c->S - w0 || (n > 1 && stride < nw))
        return wl_error(WL_ERR_INVALID, "cpu engine: words %zu+%zu of rows %llu+%llu (stride "
                        "%zu) outside a grid of %zu words x %llu rows", w0, nw,
                        (unsigned long long)y0, (unsigned long long)n, stride, c->S,
                        (unsigned long long)c->h);
    uint64_t tail = (c->w & 63) ? (((uint64_t)1 << (c->w & 63)) - 1) : ~(uint64_t)0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t *row = c->cur + (size_t)(y0 + i) * c->S;
        memcpy(row + w0, rows + (size_t)i * stride, nw * 8);
        row[c->S - 1] &= tail;
    }
    return WL_OK;
}

/* Compiles the rule's gate network that best deferred (select_rows, circuit_compile_pays)
 * and goes on with it: a new tiler with the compiled row function.  Between passes; when
 * the compiler fails, the grid goes on as it was. */
static void upgrade_rows(cpu_ctx *c) {
    c->compile_later = 0; /* (tried once) */
#if defined(WL_CPU_X86_SIMD)
    cpu_tiler_config tc = c->tc;
    tc.wraps = 0;
    cpu_tiler *t = NULL;
    /* (with its tail buffers: step_tail makes them before its first pass, so that it fails
     * before anything changes) */
    if (circuit_rows(&c->table_rule, c->cfg.verbose, 1, 0, &c->rows, &tc.gen_rows, &tc.vw,
                     NULL) != WL_OK ||
        cpu_tiler_create(&tc, &t) != WL_OK || cpu_tiler_tail_init(t) != WL_OK) {
        cpu_tiler_destroy(t);
        wl_clear_error();
        return;
    }
    cpu_tiler_destroy(c->tiler);
    c->tiler = t;
    c->tc = tc;
    c->depth = cpu_tiler_depth(t);
    if (c->cfg.verbose)
        fprintf(stderr, "warplife: cpu kernel %s: now the compiled circuit, after %.2f s: %s\n",
                c->kernel->name, c->later_s, cpu_tiler_describe(t));
#endif
}

/* A pass of g generations that began at t0 ran while best waits to compile, and the step
 * has `left` generations to go: it compiles (upgrade_rows) once the passes so far took as
 * long as the compiler does (a run stepped in short calls, as the viewer and the grow
 * engine step), or when the generations left in this step would. */
static void count_pass(cpu_ctx *c, double t0, unsigned g, uint64_t left) {
    c->later_s += wl_clock() - t0;
    c->later_gens += g;
    if (c->later_s >= c->later_after ||
        c->later_s / (double)c->later_gens * (double)left >= c->later_after)
        upgrade_rows(c);
}

static wl_status step(void *v, uint64_t generations, uint64_t *done) {
    cpu_ctx *c = v;
    uint64_t n = 0;
    while (n < generations) {
        if (c->byte) {
            cpu_byte_step(c->byte);
            n++;
        } else if (c->nibble) {
            cpu_nibble_step(c->nibble);
            n++;
        } else if (c->multi && !c->blocked) {
            if (c->tiler) { /* the table; each tile decaying or marking as it is written
                               (tc.post: Generations and History without room for a second
                               set of planes), or Super's marks after the pass */
                const double t0 = c->compile_later ? wl_clock() : 0;
                cpu_tiler_pass(c->tiler, c->cur, c->nxt, 1);
                if (c->super) cpu_multi_super(c->multi, c->cur, c->nxt);
                if (c->compile_later) count_pass(c, t0, 1, generations - n - 1);
            } else { /* Larger than Life: the counts, then the decay */
                cpu_multi_ltl(c->multi, c->cur, c->nxt, n > 0); /* (n > 0: cur is its own) */
                cpu_multi_decay(c->multi, c->cur, c->nxt);
            }
            uint64_t *t = c->cur;
            c->cur = c->nxt;
            c->nxt = t;
            n++;
        } else {
            unsigned g = generations - n < c->depth ? (unsigned)(generations - n) : c->depth;
            const double t0 = c->compile_later ? wl_clock() : 0;
            if (c->blocked) /* the table and the decay (marks), g generations */
                cpu_multi_pass_blocked(c->multi, c->tiler, c->cur, c->nxt, g);
            else
                cpu_tiler_pass(c->tiler, c->cur, c->nxt, g);
            uint64_t *t = c->cur;
            c->cur = c->nxt;
            c->nxt = t;
            n += g;
            if (c->compile_later) count_pass(c, t0, g, generations - n);
        }
        if (n < generations && c->cfg.poll && c->cfg.poll(c->cfg.poll_user)) {
            *done = n;
            return wl_error(WL_ERR_INTERRUPTED, "cpu engine: interrupted after %llu generations",
                            (unsigned long long)n);
        }
    }
    *done = n;
    return WL_OK;
}

/* step() in passes of at most depth generations, the last of them handing the tail to fn
 * (tile.c) and of at least 2 generations when n allows. */
static wl_status step_tail(void *v, uint64_t n, wl_tail_fn fn, void *arg) {
    cpu_ctx *c = v;
    if (!c->tiler || c->multi || n < 1)
        return wl_error(WL_ERR_UNSUPPORTED, "cpu engine: no tail step for this kernel");
    wl_status s = cpu_tiler_tail_init(c->tiler);
    if (s) return s;
    for (uint64_t left = n; left;) {
        unsigned g = left <= c->depth        ? (unsigned)left
                     : left - c->depth < 2 ? (unsigned)(left - 2)
                                           : c->depth;
        if (g == left) {
            cpu_tiler_pass_tail(c->tiler, c->cur, c->nxt, g, fn, arg);
        } else {
            const double t0 = c->compile_later ? wl_clock() : 0;
            cpu_tiler_pass(c->tiler, c->cur, c->nxt, g);
            if (c->compile_later) count_pass(c, t0, g, left - g);
        }
        uint64_t *t = c->cur;
        c->cur = c->nxt;
        c->nxt = t;
        left -= g;
    }
    return WL_OK;
}

static wl_status population(void *v, wl_bigint *out) {
    cpu_ctx *c = v;
    if (c->multi) {
        wl_bigint_from_u64(out, cpu_multi_population(c->multi, c->cur));
        return WL_OK;
    }
    if (c->byte || c->nibble) {
        wl_grid g;
        wl_status s = wl_grid_alloc(&g, c->w, c->h);
        if (s) return s;
        store_grid(c, &g);
        wl_bigint_from_u64(out, wl_grid_population(&g));
        wl_grid_free(&g);
        return WL_OK;
    }
    uint64_t n = 0;
    for (size_t i = 0; i < c->S * (size_t)c->h; i++) n += (uint64_t)__builtin_popcountll(c->cur[i]);
    wl_bigint_from_u64(out, n);
    return WL_OK;
}

/* Random soup of the given density: 16 random bits per cell compared with a threshold,
 * or raw random words for density 0.5. */
static wl_status randomize(void *v, double density, uint64_t seed) {
    cpu_ctx *c = v;
    wl_grid g = {0};
    uint64_t *words = c->cur;
    size_t stride = c->S;
    if (c->byte || c->nibble || c->multi) {
        wl_status s = wl_grid_alloc(&g, c->w, c->h);
        if (s) return s;
        words = g.words;
        stride = g.stride;
    }
    uint64_t state = seed;
    uint64_t thr = density <= 0 ? 0 : density >= 1 ? 65536 : (uint64_t)(density * 65536.0);
    uint64_t tail = (c->w & 63) ? (((uint64_t)1 << (c->w & 63)) - 1) : ~(uint64_t)0;
    for (uint64_t y = 0; y < c->h; y++) {
        uint64_t *row = words + (size_t)y * stride;
        for (size_t i = 0; i < c->S; i++) {
            uint64_t wv = 0;
            if (thr == 32768) {
                wv = wl_splitmix64(&state);
            } else {
                for (unsigned b = 0; b < 64; b += 4) {
                    uint64_t r = wl_splitmix64(&state);
                    for (unsigned j = 0; j < 4; j++)
                        wv |= (uint64_t)(((r >> (16 * j)) & 0xFFFF) < thr) << (b + j);
                }
            }
            row[i] = wv;
        }
        row[c->S - 1] &= tail;
    }
    if (c->byte || c->nibble || c->multi) {
        load_grid(c, &g);
        wl_grid_free(&g);
    }
    return WL_OK;
}

/* The tile_kernel slot: the tile step of the sparse engine for cfg->rule with the kernel
 * named by cfg->kernel (default best).  best and avx512 run the bit-sliced logic of
 * simd_avx512.c on rows stacked in vectors for outer-totalistic rules, and the vpermb
 * lookups (where the CPU has them) for other rules (best: their gate network compiled by
 * circuit_jit.c when it is cached; circuit compiles it); vpermb always the lookups; bitsliced,
 * lut6x3 and lut4x4 run their row function through cpu_tile_rows (bitsliced falls back to
 * lut6x3 for rules that are not outer-totalistic, as in select_rows); avx2, and best
 * without AVX-512, run simd_avx2.c's tile loop (4 rows to a vector) for outer-totalistic
 * rules, and there best and circuit compile the network for AVX2 where circuit_pays.
 * Kernels with no tile form (byte, byte-omp, nibble) are refused. */
static wl_status tile_kernel(const wl_config *cfg, wl_tile_kernel *out) {
    memset(out, 0, sizeof *out);
    const cpu_kernel *k = kernel_named(cfg->kernel);
    if (!k) return WL_ERR_NOT_FOUND;
    int totalistic = wl_rule_is_totalistic(&cfg->rule, NULL, NULL);
    enum row_tech t = tech_for(k, totalistic);
    if (k->family != F_BITS)
        return wl_error(WL_ERR_UNSUPPORTED, "cpu kernel %s has no tile form", k->name);
    wl_status s = kernel_usable(k);
    if (s) return s;
    cpu_rows *r = wl_calloc(1, sizeof *r);
    if (!r) return WL_ERR_NOMEM;
    cpu_circuit_build(&cfg->rule, &r->kd.circ);
    out->step = cpu_tile_rows;
    out->name = "bitsliced";
    r->kd.tile_rows = cpu_gen_rows_bitsliced;
#if defined(WL_CPU_X86_SIMD)
    /* the rule's gate network compiled into a tile kernel where it pays (circuit_pays,
     * as on grids); else the kernels below (best: vpermb lookups, the avx512 loop or the
     * lut6x3 rows; circuit: the lut6x3 rows).  circuit compiles (about half a second, once
     * per rule: the object stays in the disk cache); best takes the compiled kernel only
     * when it is there already, so that a short run of a new rule does not wait for the
     * compiler, and says compile_later (the sparse engine asks for circuit once a run has
     * done enough work, see sparse.c).  avx512 keeps its techniques, as it does on grids. */
    const int better = circuit_pays(k, totalistic, &r->kd.circ);
    if (t == R_CIRCUIT || better) {
        wl_rnet net;
        cpu_gen_rows_fn rows = NULL;
        wl_tile_step_fn tile = NULL;
        wl_status js = t == R_CIRCUIT ? wl_rnet_synth(&cfg->rule, 1, &net)
                                      : wl_rnet_synth_cached(&cfg->rule, 1, &net);
        if (!js)
            js = cpu_circuit_jit(&net, jit_isa(), t == R_CIRCUIT, &rows, &tile, cfg->verbose);
        if (!js && tile) {
            out->step = tile;
            out->name = "circuit (compiled)";
            out->data = &r->kd;
            out->owner = r;
            return WL_OK;
        }
        wl_clear_error();
        if (t == R_CIRCUIT && !totalistic) t = R_LUT6X3;
        out->compile_later = better && circuit_compile_pays(totalistic);
    }
#endif
    switch (t) {
#if defined(WL_CPU_X86_SIMD)
    case R_AVX2:
        out->step = cpu_tile_avx2;
        out->name = "avx2";
        break;
    case R_AVX512:
        out->step = cpu_tile_avx512;
        out->name = "avx512";
        r->kd.vbmi2 = cpu_avx512_uses_vbmi2();
        break;
    case R_VPERMB:
        r->table512 = cpu_vpermb_table_build(&cfg->rule);
        if (!r->table512) s = WL_ERR_NOMEM;
        r->kd.table512 = r->table512;
        out->step = cpu_tile_vpermb;
        out->name = "vpermb";
        break;
#endif
    case R_LUT4X4:
        r->lut4x4 = cpu_lut4x4_build(&cfg->rule);
        if (!r->lut4x4) s = WL_ERR_NOMEM;
        r->kd.lut4x4 = r->lut4x4;
        r->kd.tile_rows = cpu_gen_rows_lut4x4;
        out->name = "lut4x4";
        break;
    case R_LUT6X3:
        r->lut6x3 = cpu_lut6x3_build(&cfg->rule);
        if (!r->lut6x3) s = WL_ERR_NOMEM;
        r->kd.lut6x3 = r->lut6x3;
        r->kd.tile_rows = cpu_gen_rows_lut6x3;
        out->name = "lut6x3";
        break;
    default: break; /* bitsliced */
    }
    if (s) {
        rows_free(r);
        free(r);
        memset(out, 0, sizeof *out);
        return s;
    }
    out->data = &r->kd;
    out->owner = r;
    return WL_OK;
}

static void tile_kernel_free(wl_tile_kernel *k) {
    if (!k || !k->owner) return;
    rows_free(k->owner);
    free(k->owner);
    memset(k, 0, sizeof *k);
}

static void set_threads(void *v, int n) {
    cpu_ctx *c = v;
    wl_pool_set_active(c->pool, n);
}

const wl_engine_ops wl_engine_cpu = {
    .name = "cpu",
    .description = "multi-threaded CPU engine: bit-sliced SIMD (AVX-512/AVX2) with temporal "
                   "blocking, plus byte, table and SWAR kernels for comparison; Generations, "
                   "Larger than Life, History and Super on kernel best",
    .caps = WL_CAP_TORUS | WL_CAP_BOUNDED | WL_CAP_ANY_RULE | WL_CAP_GENERATIONS | WL_CAP_LTL |
            WL_CAP_HISTORY | WL_CAP_SUPER,
    .kernels = kernel_names,
    .create = create,
    .destroy = destroy,
    .load_grid = load_grid,
    .store_grid = store_grid,
    .step = step,
    .population = population,
    .randomize = randomize,
    .store_rows = store_rows,
    .load_rows = load_rows,
    .load_words = load_words,
    .translate = translate,
    .bounds = bounds,
    .step_tail = step_tail,
    .tile_kernel = tile_kernel,
    .tile_kernel_free = tile_kernel_free,
    .set_threads = set_threads,
};
