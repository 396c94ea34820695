/*
 * ocl_engine.c - the host side of the OpenCL engine (wl_engine_opencl): kernel choice, rule
 * code generation, tile parameters, the stepping loop with interruption, population on the
 * device and the benchmark slots.  The universe lives in two device buffers (ping-pong) from
 * load to store, in the wl_grid layout (rows of ceil(W/64) 64-bit words, bit i of word j =
 * column 64 j + i); the kernels are in wl_opencl.cl and wl_opencl_lop3v.cl, which explain the
 * algorithms.
 *
 * Kernels (the first is the default):
 *   best    the fastest for the device: lop3v on GPUs, wide on CPUs (PoCL); lop3v for
 *           every rule that is not outer-totalistic (on CPU devices only for networks of
 *           at most CPU_NET_MAX gates, else table);
 *   lop3v   the CUDA engine's lop3v design: 32-bit words, one word column per lane, items
 *           stacked vertically exchanging edge rows, GENS generations per launch, a LOP3
 *           network per rule (inline PTX on NVIDIA): lop3net's over the sums for
 *           outer-totalistic rules, rulenet's over the nine cells for the others;
 *   wide    the earlier multi-generation kernel on 64-bit words (one item per word column
 *           of NR rows, neighbours' words through local memory); totalistic only (other
 *           rules run `table`, said on stderr when cfg->verbose is set);
 *   simple  bitsliced, one generation per launch (the baseline; also totalistic only);
 *   table   any 2-state rule through its 512-entry table, one generation per launch.
 *
 * Tuning (environment, read when a universe is created; defaults depend on the device):
 *   lop3v: WL_OPENCL_LX      lanes across a group (word columns, 2 of them halo; 32 on NVIDIA)
 *          WL_OPENCL_LY      items stacked vertically (WB)
 *          WL_OPENCL_ROWS    rows per item (NR)
 *          WL_OPENCL_GENS    generations per launch (GENS <= 32, WB x NR > 2 GENS)
 *          WL_OPENCL_UNROLL  1: row loops unrolled (default on GPUs), 0: rolled (CPUs)
 *          WL_OPENCL_MAXRREG register cap on NVIDIA (-cl-nv-maxrregcount; 0: none)
 *          WL_OPENCL_NV=0    the portable build on NVIDIA too (no inline PTX)
 *          WL_OPENCL_LOCAL_MEM  bytes of local memory to use at most (default: the device's;
 *                            without WL_OPENCL_LY, LY halves until the tile fits)
 *   wide:  WL_OPENCL_WIDE_LX, _LY, _ROWS, _GENS, _UNROLL (NR > 2 GENS, GENS <= 63; UNROLL 2
 *          also unrolls the generation loop: PoCL takes over 10 minutes to compile it)
 *   WL_OPENCL_OPTIONS extra clBuildProgram options (e.g. "-cl-nv-verbose"), appended
 */
#include "ocl_internal.h"
#include "rulenet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { K_BEST = -1, K_LOP3V, K_WIDE, K_SIMPLE, K_TABLE };
static const char *const kernel_names[] = {"best", "lop3v", "wide", "simple", "table", NULL};

/* Generations queued between two polls of cfg->poll. */
#define POLL_CHUNK 256u
/* Work groups of the population kernel (at most; each of WL_POP_LOCAL = 256 items). */
#define POP_GROUPS 1024
#define POP_LOCAL 256

typedef struct ocl_engine {
    wlocl_device dev;
    cl_command_queue q;
    cl_mem buf[2];      /* ping-pong grids; buf[cur] holds the current generation */
    int cur;
    cl_mem table;       /* the rule's 512 bits (table kernel) */
    cl_mem partial;     /* POP_GROUPS population partial sums */
    cl_kernel k_step, k_pop, k_rand;
    int kernel;         /* K_LOP3V, K_WIDE, K_SIMPLE or K_TABLE (`best` resolved) */
    uint64_t w, h, nw;
    int torus;
    int lx, ly, nr, gens; /* tile of the multi-generation kernel in use (best or wide) */
    int unroll;           /* 0 rolled, 1 row loops unrolled (GPUs), 2 generations too (wide) */
    int nv;               /* best: the NVIDIA build (inline PTX, warp shuffles) */
    int maxrreg;          /* best on NVIDIA: register cap, 0 none */
    wl_poll_fn poll;
    void *poll_user;
} ocl_engine;

static wl_status cl_fail(cl_int err, const char *what) {
    return wl_error(WL_ERR_DEVICE, "OpenCL: %s failed: %s", what, wlocl_strerror(err));
}

static wl_status ocl_probe(void) {
    int n = 0;
    return wlocl_count(&n);
}

static void ocl_destroy(void *ctx) {
    ocl_engine *e = ctx;
    if (!e) return;
    if (e->q) clFinish(e->q);
    if (e->k_step) clReleaseKernel(e->k_step);
    if (e->k_pop) clReleaseKernel(e->k_pop);
    if (e->k_rand) clReleaseKernel(e->k_rand);
    for (int i = 0; i < 2; i++)
        if (e->buf[i]) clReleaseMemObject(e->buf[i]);
    if (e->table) clReleaseMemObject(e->table);
    if (e->partial) clReleaseMemObject(e->partial);
    if (e->q) clReleaseCommandQueue(e->q);
    free(e);
}

/* An integer from the environment within [lo, hi], or def when unset. */
static wl_status env_int(const char *name, int def, int lo, int hi, int *out) {
    const char *v = getenv(name);
    *out = def;
    if (!v || !*v) return WL_OK;
    char *end = NULL;
    long x = strtol(v, &end, 10);
    if (*end || x < lo || x > hi)
        return wl_error(WL_ERR_INVALID, "%s=%s: expected an integer from %d to %d", name, v, lo,
                        hi);
    *out = (int)x;
    return WL_OK;
}

/* Tile parameters of `wide`: defaults per device type, environment overrides, checks. */
static wl_status tile_params_wide(ocl_engine *e) {
    /* GPU: 32 x 2 = 64 work-items, 64 rows each (NVIDIA keeps v[] in registers), 8
     * generations: halo redundancy 32/30 across and 62/48 down; 32 KiB of local memory
     * (LX x LY x NR words) per group.  CPU (PoCL): a group runs as loops on one core;
     * 16 x 4 measured best of the shapes tried on this project's 2-core machine. */
    int lx0 = e->dev.is_cpu ? 16 : 32, ly0 = e->dev.is_cpu ? 4 : 2;
    int nr0 = 64, g0 = 8;
    wl_status s = env_int("WL_OPENCL_WIDE_LX", lx0, 3, 1024, &e->lx);
    if (!s) s = env_int("WL_OPENCL_WIDE_LY", ly0, 1, 1024, &e->ly);
    if (!s) s = env_int("WL_OPENCL_WIDE_ROWS", nr0, 3, 256, &e->nr);
    if (!s) s = env_int("WL_OPENCL_WIDE_GENS", g0, 1, 63, &e->gens);
    if (!s) s = env_int("WL_OPENCL_WIDE_UNROLL", e->dev.is_cpu ? 0 : 1, 0, 2, &e->unroll);
    if (s) return s;
    if (e->nr <= 2 * e->gens)
        return wl_error(WL_ERR_INVALID,
                        "OpenCL: WL_OPENCL_WIDE_ROWS (%d) must exceed twice WL_OPENCL_WIDE_GENS "
                        "(%d)",
                        e->nr, e->gens);
    cl_ulong local = (cl_ulong)e->lx * (cl_ulong)e->ly * (cl_ulong)e->nr * 8; /* xch[] */
    if (local > e->dev.local_mem)
        return wl_error(WL_ERR_INVALID,
                        "OpenCL: tile %d x %d x %d needs %llu bytes of local memory; the "
                        "device has %llu",
                        e->lx, e->ly, e->nr, (unsigned long long)local,
                        (unsigned long long)e->dev.local_mem);
    return WL_OK;
}

/* Tile parameters of `lop3v`.  GPU defaults: the CUDA engine's fastest lop3v shape (8 items
 * of 40 rows stacked, 16 generations, 80 registers: 3 groups of 256 items per SM), also the
 * fastest of the sweep on an H100 through OpenCL (docs/BENCHMARKS.md).  CPU (PoCL): 16 x 4
 * items of 64 rows, 8 generations, rolled loops (the best of 13 shapes tried on PoCL). */
static wl_status tile_params_lop3v(ocl_engine *e) {
    int nv0 = e->dev.is_nv;
    wl_status s = env_int("WL_OPENCL_NV", nv0, 0, 1, &e->nv);
    if (!s && e->nv && !e->dev.is_nv)
        return wl_error(WL_ERR_INVALID, "WL_OPENCL_NV=1: %s is not an NVIDIA GPU", e->dev.name);
    if (!s) s = env_int("WL_OPENCL_LX", e->dev.is_cpu ? 16 : 32, 3, 1024, &e->lx);
    if (!s) s = env_int("WL_OPENCL_LY", e->dev.is_cpu ? 4 : 8, 1, 1024, &e->ly);
    if (!s) s = env_int("WL_OPENCL_ROWS", e->dev.is_cpu ? 64 : 40, 1, 256, &e->nr);
    if (!s) s = env_int("WL_OPENCL_GENS", e->dev.is_cpu ? 8 : 16, 1, 32, &e->gens);
    if (!s) s = env_int("WL_OPENCL_UNROLL", e->dev.is_cpu ? 0 : 1, 0, 1, &e->unroll);
    if (!s) s = env_int("WL_OPENCL_MAXRREG", e->nv ? 80 : 0, 0, 255, &e->maxrreg);
    if (s) return s;
    if (e->nv && e->lx != 32)
        return wl_error(WL_ERR_INVALID,
                        "OpenCL: WL_OPENCL_LX=%d: the NVIDIA build of `best` needs 32 lanes "
                        "(one warp; WL_OPENCL_NV=0 for the portable build)",
                        e->lx);
    if (e->ly * e->nr <= 2 * e->gens)
        return wl_error(WL_ERR_INVALID,
                        "OpenCL: WL_OPENCL_LY x WL_OPENCL_ROWS (%d x %d) must exceed twice "
                        "WL_OPENCL_GENS (%d)",
                        e->ly, e->nr, e->gens);
    /* local memory: edge rows [2][LY][2][LX] (NVIDIA) or all rows [LY * NR + 2][LX].  The
     * portable build's default (8 x 40 rows: 41 KiB) exceeds the 32 KiB some GPUs have: then,
     * unless LY was asked for, fewer items are stacked (as long as the halo rule holds). */
    int cap = 0; /* WL_OPENCL_LOCAL_MEM: use at most this many bytes (tests: a small GPU) */
    s = env_int("WL_OPENCL_LOCAL_MEM", 0, 0, 1 << 30, &cap);
    if (s) return s;
    cl_ulong have = e->dev.local_mem, local = 0;
    if (cap > 0 && (cl_ulong)cap < have) have = (cl_ulong)cap;
    const char *ly_env = getenv("WL_OPENCL_LY");
    int ly_fixed = ly_env && *ly_env;
    for (;;) {
        local = e->nv ? (cl_ulong)4 * (cl_ulong)e->ly * (cl_ulong)e->lx * 4
                      : ((cl_ulong)e->ly * (cl_ulong)e->nr + 2) * (cl_ulong)e->lx * 4;
        if (local <= have || ly_fixed || e->ly <= 1 || (e->ly / 2) * e->nr <= 2 * e->gens)
            break;
        e->ly /= 2;
    }
    if (local > have)
        return wl_error(WL_ERR_INVALID,
                        "OpenCL: tile %d x %d x %d needs %llu bytes of local memory; %llu "
                        "are available (the device's, or WL_OPENCL_LOCAL_MEM)",
                        e->lx, e->ly, e->nr, (unsigned long long)local,
                        (unsigned long long)have);
    return WL_OK;
}

static wl_status tile_params(ocl_engine *e) {
    if (e->kernel != K_LOP3V && e->kernel != K_WIDE) return WL_OK;
    wl_status s = e->kernel == K_LOP3V ? tile_params_lop3v(e) : tile_params_wide(e);
    if (s) return s;
    if ((size_t)e->lx * (size_t)e->ly > e->dev.max_wg)
        return wl_error(WL_ERR_INVALID,
                        "OpenCL: work group %d x %d exceeds the device's maximum of %zu items",
                        e->lx, e->ly, e->dev.max_wg);
    return WL_OK;
}

static wl_status make_kernel(cl_program p, const char *name, cl_kernel *k) {
    cl_int err = CL_SUCCESS;
    *k = clCreateKernel(p, name, &err);
    return *k ? WL_OK : cl_fail(err, name);
}

/* The grid arguments common to the step kernels: in, out, w, h, nw, torus. */
static wl_status set_grid_args(ocl_engine *e, cl_kernel k, int from) {
    cl_long w = (cl_long)e->w, h = (cl_long)e->h, nw = (cl_long)e->nw;
    cl_int torus = e->torus;
    cl_int err = clSetKernelArg(k, 0, sizeof(cl_mem), &e->buf[from]);
    err |= clSetKernelArg(k, 1, sizeof(cl_mem), &e->buf[1 - from]);
    err |= clSetKernelArg(k, 2, sizeof w, &w);
    err |= clSetKernelArg(k, 3, sizeof h, &h);
    err |= clSetKernelArg(k, 4, sizeof nw, &nw);
    err |= clSetKernelArg(k, 5, sizeof torus, &torus);
    return err == CL_SUCCESS ? WL_OK : wl_error(WL_ERR_DEVICE, "OpenCL: clSetKernelArg failed");
}

#define CPU_NET_MAX 48

static wl_status ocl_create(const wl_config *cfg, const char *kernel, void **ctx) {
    *ctx = NULL;
    int id = K_BEST;
    if (strcmp(kernel, "lop3v") == 0) id = K_LOP3V;
    else if (strcmp(kernel, "wide") == 0) id = K_WIDE;
    else if (strcmp(kernel, "simple") == 0) id = K_SIMPLE;
    else if (strcmp(kernel, "table") == 0) id = K_TABLE;
    uint16_t birth = 0, survive = 0;
    int totalistic = wl_rule_is_totalistic(&cfg->rule, &birth, &survive);
    if (!totalistic && (id == K_BEST || id == K_LOP3V)) {
        id = K_LOP3V; /* any rule through its gate network (WL_RULE9) */
    } else if (id != K_TABLE && !totalistic) {
        if (cfg->verbose)
            fprintf(stderr,
                    "warplife: opencl kernel '%s' needs an outer-totalistic rule; using table\n",
                    kernel);
        id = K_TABLE;
    }
    uint64_t nw = (cfg->width + 63) / 64;
    if (cfg->width == 0 || cfg->height == 0)
        return wl_error(WL_ERR_INVALID, "OpenCL engine: the grid needs a nonzero size");
    if (cfg->width > ((uint64_t)1 << 40) || cfg->height > ((uint64_t)1 << 40) ||
        nw * cfg->height / cfg->height != nw || nw * cfg->height > ((uint64_t)1 << 60))
        return wl_error(WL_ERR_TOO_BIG, "OpenCL engine: a %llu x %llu grid is too large",
                        (unsigned long long)cfg->width, (unsigned long long)cfg->height);
    ocl_engine *e = wl_calloc(1, sizeof *e);
    if (!e) return WL_ERR_NOMEM;
    e->kernel = id;
    e->w = cfg->width;
    e->h = cfg->height;
    e->nw = nw;
    e->torus = cfg->topology == WL_TOPOLOGY_TORUS;
    e->poll = cfg->poll;
    e->poll_user = cfg->poll_user;
    wl_status s = wlocl_device_get(cfg->device, &e->dev);
    /* best on a CPU device (PoCL, 2 cores, 2048^2): the network ran B2-a/S12 (12 gates) at
     * 2.7x table's speed but a random MAP table (86 gates) at 0.7x, so CPU devices keep
     * table for networks of more than CPU_NET_MAX gates */
    if (!s && !totalistic && id == K_LOP3V && strcmp(kernel, "best") == 0 && e->dev.is_cpu) {
        wl_rnet net;
        if (wl_rnet_synth(&cfg->rule, 1, &net) == WL_OK && net.n > CPU_NET_MAX)
            e->kernel = id = K_TABLE;
        wl_clear_error();
    }
    /* best: lop3v on GPUs (and other non-CPU devices); on CPUs (PoCL) wide, which measured
     * about 1.6x faster there (docs/BENCHMARKS.md). */
    if (!s && id == K_BEST) e->kernel = e->dev.is_cpu ? K_WIDE : K_LOP3V;
    if (!s) s = tile_params(e);
    size_t bytes = (size_t)(nw * cfg->height * 8);
    if (!s && bytes > e->dev.max_alloc)
        s = wl_error(WL_ERR_TOO_BIG,
                     "OpenCL engine: the grid needs %zu bytes per buffer; %s allows %llu", bytes,
                     e->dev.name, (unsigned long long)e->dev.max_alloc);
    cl_int err = CL_SUCCESS;
    if (!s) {
        e->q = clCreateCommandQueue(e->dev.context, e->dev.device, CL_QUEUE_PROFILING_ENABLE,
                                    &err);
        if (!e->q) s = cl_fail(err, "clCreateCommandQueue");
    }
    for (int i = 0; i < 2 && !s; i++) {
        e->buf[i] = clCreateBuffer(e->dev.context, CL_MEM_READ_WRITE, bytes, NULL, &err);
        if (!e->buf[i]) s = cl_fail(err, "clCreateBuffer (grid)");
    }
    if (!s) {
        e->partial = clCreateBuffer(e->dev.context, CL_MEM_READ_WRITE,
                                    POP_GROUPS * sizeof(cl_ulong), NULL, &err);
        if (!e->partial) s = cl_fail(err, "clCreateBuffer (population)");
    }
    /* The program: the rule function + the kernels.  The table kernel takes its rule as a
     * buffer, so it gets a stub and one program serves every rule. */
    char prefix[16384], options[1024];
    if (!s) {
        if (e->kernel != K_TABLE && !totalistic)
            s = wlocl_circuit_code(&cfg->rule, prefix, sizeof prefix);
        else if (e->kernel != K_TABLE) s = wlocl_rule_code(birth, survive, prefix, sizeof prefix);
        else
            snprintf(prefix, sizeof prefix,
                     "/* table kernel: the rule is a buffer; the rule logic is unused */\n"
                     "ulong wl_rule_eval(ulong s0, ulong s1, ulong s2, ulong s3, "
                     "ulong c) { return 0UL; }\n"
                     "#define WL_RULE5(n_, x0_, k_, y1_, y2_, c_) n_ = 0u\n");
        /* Only the kernel in use gets its tile; the others keep their sources' defaults. */
        if (e->kernel == K_LOP3V)
            snprintf(options, sizeof options,
                     "-D WL_BLANES=%d -D WL_BWB=%d -D WL_BNR=%d -D WL_BGENS=%d -D WL_BUNROLL=%d "
                     "-D WL_NV=%d",
                     e->lx, e->ly, e->nr, e->gens, e->unroll, e->nv);
        else if (e->kernel == K_WIDE)
            snprintf(options, sizeof options,
                     "-D WL_LX=%d -D WL_LY=%d -D WL_NR=%d -D WL_GENS=%d -D WL_FULL_UNROLL=%d",
                     e->lx, e->ly, e->nr, e->gens, e->unroll);
        else
            snprintf(options, sizeof options, "-D WL_NV=0");
        if (e->kernel == K_LOP3V && e->nv && e->maxrreg > 0) {
            size_t n = strlen(options);
            snprintf(options + n, sizeof options - n, " -cl-nv-maxrregcount=%d", e->maxrreg);
        }
        const char *extra = getenv("WL_OPENCL_OPTIONS");
        if (extra && *extra) {
            size_t n = strlen(options);
            if (n + 1 + strlen(extra) >= sizeof options)
                s = wl_error(WL_ERR_INVALID, "WL_OPENCL_OPTIONS is too long (%zu characters)",
                             strlen(extra));
            else
                snprintf(options + n, sizeof options - n, " %s", extra);
        }
    }
    cl_program prog = NULL;
    if (!s) s = wlocl_program(&e->dev, prefix, options, &prog);
    if (!s) {
        const char *kn = e->kernel == K_LOP3V     ? "wl_lop3v"
                         : e->kernel == K_WIDE   ? "wl_wide"
                         : e->kernel == K_SIMPLE ? "wl_simple"
                                          : "wl_table";
        s = make_kernel(prog, kn, &e->k_step);
    }
    if (!s) s = make_kernel(prog, "wl_popcount", &e->k_pop);
    if (!s) s = make_kernel(prog, "wl_randomize", &e->k_rand);
    if (!s && e->kernel == K_TABLE) {
        /* The kernel's index order (wl_opencl.cl): bit 0 NW, 1 N, 2 NE, 3 W, 4 C, 5 E, 6 SW,
         * 7 S, 8 SE; the rule's: NW<<8 | N<<7 | NE<<6 | W<<5 | C<<4 | E<<3 | SW<<2 | S<<1 |
         * SE, the same bits reversed. */
        cl_uchar t[512];
        for (unsigned k = 0; k < 512; k++) {
            unsigned idx = 0;
            for (int b = 0; b < 9; b++) idx |= ((k >> b) & 1u) << (8 - b);
            t[k] = (cl_uchar)wl_rule_next(&cfg->rule, idx);
        }
        e->table = clCreateBuffer(e->dev.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                  sizeof t, t, &err);
        if (!e->table) s = cl_fail(err, "clCreateBuffer (rule table)");
        else if ((err = clSetKernelArg(e->k_step, 6, sizeof(cl_mem), &e->table)) != CL_SUCCESS)
            s = cl_fail(err, "clSetKernelArg (rule table)");
    }
    if (!s) {
        /* All cells dead: fill the current buffer with zeros. */
        cl_ulong zero = 0;
        err = clEnqueueFillBuffer(e->q, e->buf[0], &zero, sizeof zero, 0, bytes, 0, NULL, NULL);
        if (err != CL_SUCCESS) s = cl_fail(err, "clEnqueueFillBuffer");
    }
    if (s) {
        ocl_destroy(e);
        return s;
    }
    *ctx = e;
    return WL_OK;
}

static wl_status ocl_load_grid(void *ctx, const wl_grid *g) {
    ocl_engine *e = ctx;
    size_t row = (size_t)e->nw * 8;
    cl_int err;
    if (g->stride == e->nw) {
        err = clEnqueueWriteBuffer(e->q, e->buf[e->cur], CL_TRUE, 0, row * e->h, g->words, 0,
                                   NULL, NULL);
    } else {
        size_t buf_origin[3] = {0, 0, 0}, host_origin[3] = {0, 0, 0};
        size_t region[3] = {row, (size_t)e->h, 1};
        err = clEnqueueWriteBufferRect(e->q, e->buf[e->cur], CL_TRUE, buf_origin, host_origin,
                                       region, row, 0, g->stride * 8, 0, g->words, 0, NULL,
                                       NULL);
    }
    return err == CL_SUCCESS ? WL_OK : cl_fail(err, "writing the grid to the device");
}

static wl_status ocl_store_grid(void *ctx, wl_grid *g) {
    ocl_engine *e = ctx;
    size_t row = (size_t)e->nw * 8;
    cl_int err;
    if (g->stride == e->nw) {
        err = clEnqueueReadBuffer(e->q, e->buf[e->cur], CL_TRUE, 0, row * e->h, g->words, 0,
                                  NULL, NULL);
    } else {
        size_t buf_origin[3] = {0, 0, 0}, host_origin[3] = {0, 0, 0};
        size_t region[3] = {row, (size_t)e->h, 1};
        err = clEnqueueReadBufferRect(e->q, e->buf[e->cur], CL_TRUE, buf_origin, host_origin,
                                      region, row, 0, g->stride * 8, 0, g->words, 0, NULL,
                                      NULL);
    }
    return err == CL_SUCCESS ? WL_OK : cl_fail(err, "reading the grid from the device");
}

static size_t round_up(uint64_t n, size_t m) { return (size_t)((n + m - 1) / m * m); }

/* Queues `generations` generations.  If first/last are non-NULL, the event of the first and
 * of the last launch are returned in them (the caller releases them). */
static wl_status enqueue(ocl_engine *e, uint64_t generations, cl_event *first, cl_event *last) {
    while (generations > 0) {
        uint64_t n = 1;
        size_t global[2], local[2];
        const size_t *lp = NULL;
        if (e->kernel == K_LOP3V || e->kernel == K_WIDE) {
            n = generations < (uint64_t)e->gens ? generations : (uint64_t)e->gens;
            uint64_t groups, rows_y;
            if (e->kernel == K_LOP3V) { /* 32-bit word columns; a group is one band */
                uint64_t rout = (uint64_t)(e->ly * e->nr - 2 * e->gens);
                groups = (2 * e->nw + (uint64_t)e->lx - 3) / (uint64_t)(e->lx - 2);
                rows_y = (e->h + rout - 1) / rout * (uint64_t)e->ly;
            } else { /* 64-bit word columns; each item row is one band */
                uint64_t rout = (uint64_t)(e->nr - 2 * e->gens);
                groups = (e->nw + (uint64_t)e->lx - 3) / (uint64_t)(e->lx - 2);
                rows_y = round_up((e->h + rout - 1) / rout, (size_t)e->ly);
            }
            global[0] = (size_t)groups * (size_t)e->lx;
            global[1] = (size_t)rows_y;
            local[0] = (size_t)e->lx;
            local[1] = (size_t)e->ly;
            lp = local;
            cl_int k = (cl_int)n;
            if (clSetKernelArg(e->k_step, 6, sizeof k, &k) != CL_SUCCESS)
                return wl_error(WL_ERR_DEVICE, "OpenCL: clSetKernelArg failed");
        } else {
            global[0] = (size_t)e->nw;
            global[1] = (size_t)e->h;
        }
        wl_status s = set_grid_args(e, e->k_step, e->cur);
        if (s) return s;
        cl_event ev = NULL;
        cl_event *evp = (first || last) ? &ev : NULL;
        cl_int err = clEnqueueNDRangeKernel(e->q, e->k_step, 2, NULL, global, lp, 0, NULL, evp);
        if (err != CL_SUCCESS) return cl_fail(err, "launching the step kernel");
        if (ev) {
            if (first && !*first) {
                *first = ev;
                clRetainEvent(ev);
            }
            if (last) {
                if (*last) clReleaseEvent(*last);
                *last = ev;
            } else {
                clReleaseEvent(ev);
            }
        }
        e->cur = 1 - e->cur;
        generations -= n;
    }
    return WL_OK;
}

static wl_status ocl_step(void *ctx, uint64_t generations, uint64_t *done) {
    ocl_engine *e = ctx;
    *done = 0;
    while (*done < generations) {
        uint64_t n = generations - *done;
        if (e->poll && n > POLL_CHUNK) n = POLL_CHUNK;
        wl_status s = enqueue(e, n, NULL, NULL);
        if (s) return s;
        if (e->poll) {
            cl_int err = clFinish(e->q);
            if (err != CL_SUCCESS) return cl_fail(err, "clFinish");
        }
        *done += n;
        if (e->poll && *done < generations && e->poll(e->poll_user))
            return wl_error(WL_ERR_INTERRUPTED, "interrupted after %llu generations",
                            (unsigned long long)*done);
    }
    cl_int err = clFinish(e->q);
    return err == CL_SUCCESS ? WL_OK : cl_fail(err, "clFinish");
}

static wl_status ocl_population(void *ctx, wl_bigint *out) {
    ocl_engine *e = ctx;
    cl_ulong n = (cl_ulong)(e->nw * e->h);
    size_t groups = (size_t)((n + POP_LOCAL - 1) / POP_LOCAL);
    if (groups > POP_GROUPS) groups = POP_GROUPS;
    if (groups == 0) groups = 1;
    size_t global = groups * POP_LOCAL, local = POP_LOCAL;
    cl_int err = clSetKernelArg(e->k_pop, 0, sizeof(cl_mem), &e->buf[e->cur]);
    err |= clSetKernelArg(e->k_pop, 1, sizeof n, &n);
    err |= clSetKernelArg(e->k_pop, 2, sizeof(cl_mem), &e->partial);
    if (err != CL_SUCCESS) return wl_error(WL_ERR_DEVICE, "OpenCL: clSetKernelArg failed");
    err = clEnqueueNDRangeKernel(e->q, e->k_pop, 1, NULL, &global, &local, 0, NULL, NULL);
    if (err != CL_SUCCESS) return cl_fail(err, "launching the population kernel");
    cl_ulong part[POP_GROUPS];
    err = clEnqueueReadBuffer(e->q, e->partial, CL_TRUE, 0, groups * sizeof(cl_ulong), part, 0,
                              NULL, NULL);
    if (err != CL_SUCCESS) return cl_fail(err, "reading the population");
    uint64_t total = 0;
    for (size_t i = 0; i < groups; i++) total += part[i];
    wl_bigint_from_u64(out, total);
    return WL_OK;
}

static wl_status ocl_randomize(void *ctx, double density, uint64_t seed) {
    ocl_engine *e = ctx;
    if (!(density >= 0.0 && density <= 1.0))
        return wl_error(WL_ERR_INVALID, "density %g is not within 0..1", density);
    cl_uint p16 = (cl_uint)lround(density * 65536.0); /* 16-bit fixed point probability */
    cl_long w = (cl_long)e->w, h = (cl_long)e->h, nw = (cl_long)e->nw;
    cl_ulong sd = seed;
    cl_int err = clSetKernelArg(e->k_rand, 0, sizeof(cl_mem), &e->buf[e->cur]);
    err |= clSetKernelArg(e->k_rand, 1, sizeof w, &w);
    err |= clSetKernelArg(e->k_rand, 2, sizeof h, &h);
    err |= clSetKernelArg(e->k_rand, 3, sizeof nw, &nw);
    err |= clSetKernelArg(e->k_rand, 4, sizeof p16, &p16);
    err |= clSetKernelArg(e->k_rand, 5, sizeof sd, &sd);
    if (err != CL_SUCCESS) return wl_error(WL_ERR_DEVICE, "OpenCL: clSetKernelArg failed");
    size_t global[2] = {(size_t)e->nw, (size_t)e->h};
    err = clEnqueueNDRangeKernel(e->q, e->k_rand, 2, NULL, global, NULL, 0, NULL, NULL);
    if (err != CL_SUCCESS) return cl_fail(err, "launching the soup kernel");
    err = clFinish(e->q);
    return err == CL_SUCCESS ? WL_OK : cl_fail(err, "clFinish");
}

/* Device time from the start of the first launch to the end of the last (profiling events),
 * so host-side launch overheads between kernels count only if they stall the device. */
static wl_status ocl_timed_step(void *ctx, uint64_t generations, double *seconds) {
    ocl_engine *e = ctx;
    cl_event first = NULL, last = NULL;
    *seconds = 0;
    wl_status s = enqueue(e, generations, &first, &last);
    cl_int err = clFinish(e->q);
    if (!s && err != CL_SUCCESS) s = cl_fail(err, "clFinish");
    if (!s && first && last) {
        cl_ulong t0 = 0, t1 = 0;
        err = clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
        err |= clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
        if (err != CL_SUCCESS) s = wl_error(WL_ERR_DEVICE, "OpenCL: profiling info failed");
        else *seconds = (double)(t1 - t0) * 1e-9;
    }
    if (first) clReleaseEvent(first);
    if (last) clReleaseEvent(last);
    return s;
}

static wl_status ocl_synchronize(void *ctx) {
    cl_int err = clFinish(((ocl_engine *)ctx)->q);
    return err == CL_SUCCESS ? WL_OK : cl_fail(err, "clFinish");
}

const wl_engine_ops wl_engine_opencl = {
    .name = "opencl",
    .description = "OpenCL devices (any vendor, PoCL on CPUs): bitsliced multi-generation "
                   "kernels with a LOP3 network generated per rule, plus table and simple "
                   "kernels",
    .caps = WL_CAP_TORUS | WL_CAP_BOUNDED | WL_CAP_ANY_RULE | WL_CAP_DEVICE,
    .kernels = kernel_names,
    .probe = ocl_probe,
    .create = ocl_create,
    .destroy = ocl_destroy,
    .load_grid = ocl_load_grid,
    .store_grid = ocl_store_grid,
    .step = ocl_step,
    .population = ocl_population,
    .randomize = ocl_randomize,
    .timed_step = ocl_timed_step,
    .synchronize = ocl_synchronize,
    .list_devices = wlocl_list_devices,
};
