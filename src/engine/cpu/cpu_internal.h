/*
 * cpu_internal.h - what the files of the CPU engine share.
 *
 * The engine holds the universe as a bit-per-cell grid (bit i of word row*S + i/64 is the
 * cell in column i, S = ceil(W/64) words per row, bits past column W-1 zero), the same
 * layout as wl_grid, in two full-size buffers (current and next).  The byte and nibble
 * kernels keep their own wider layouts instead (see byte.c, nibble.c).
 *
 * Bit kernels (lut6x3, lut4x4, bitsliced, avx2, avx512, best) all run through one driver,
 * tile.c: a pass copies a tile plus a halo of k rows (and one word of columns) into a
 * small buffer, runs k generations there with a "gen_rows" function (one generation of
 * a range of rows of the tile buffer), and writes the tile's interior back.  The kernels
 * differ only in their gen_rows function, in k and in the number of threads.
 *
 * Tile buffer rows: each row has CPU_PAD words in front of and after its BW data words.
 * The word just before (after) the data holds the horizontal neighbour of the first (last)
 * cell: zero, or in wrap mode a copy of the row's last (first) word, refreshed by the
 * driver before every generation.  Kernels may read the whole pads.
 */
#ifndef WL_CPU_INTERNAL_H
#define WL_CPU_INTERNAL_H

#include "internal.h"
#include "rulenet.h" /* wl_rnet (the circuit kernels) */

#include <stddef.h>
#include <stdint.h>

#define CPU_PAD 8 /* pad words each side of a tile row: one 512-bit vector */

/* ---- rule circuits (bitsliced.c) ---------------------------------------------------- */

/* The next state of an outer-totalistic rule as a function of bit-planes of the 3x3 sum
 * c9 (centre included, 0..9):  c9 = x0 + 2*T with T = q + 2*m + k0 in 0..4 (see
 * bitsliced.c for how the planes arise).  For each T the rule reduces to a function
 * G_T(x0, alive), stored as masks: G_T = alive ? (x0 & p1) ^ q1 : (x0 & p0) ^ q0, each mask
 * all-zero or all-one.  `life` marks B3/S23, which has a shorter hand-reduced circuit. */
typedef struct cpu_circuit {
    int life;
    int popular; /* 1 + index in CPU_POPULAR_RULES, or 0 (the AVX-512 kernel has a
                    compiled loop for each of these rules) */
    int active[5]; /* G_T not identically zero */
    uint64_t p0[5], q0[5], p1[5], q1[5];
} cpu_circuit;

/* Well-known outer-totalistic rules (name, birth mask, survive mask; bit n = n live
 * neighbours) for which simd_avx512.c compiles a loop with the rule's logic as constant
 * ternlog immediates (7 operations instead of 5 per count class). */
#define CPU_POPULAR_RULES(X)                                                                \
    X(highlife, 0x048, 0x00c)           /* B36/S23 */                                      \
    X(day_night, 0x1c8, 0x1d8)          /* B3678/S34678 */                                 \
    X(seeds, 0x004, 0x000)              /* B2/S */                                         \
    X(replicator, 0x0aa, 0x0aa)         /* B1357/S1357 */                                  \
    X(morley, 0x148, 0x034)             /* B368/S245 */                                    \
    X(maze, 0x008, 0x03e)               /* B3/S12345 */                                    \
    X(mazectric, 0x008, 0x01e)          /* B3/S1234 */                                     \
    X(two_by_two, 0x048, 0x026)         /* B36/S125 */                                     \
    X(life_without_death, 0x008, 0x1ff) /* B3/S012345678 */                                \
    X(diamoeba, 0x1e8, 0x1e0)           /* B35678/S5678 */                                 \
    X(anneal, 0x1d0, 0x1e8)             /* B4678/S35678 */                                 \
    X(coagulations, 0x188, 0x1ec)       /* B378/S235678 */                                 \
    X(pedestrian, 0x108, 0x00c)         /* B38/S23 */                                      \
    X(drylife, 0x088, 0x00c)            /* B37/S23 */                                      \
    X(long_life, 0x038, 0x020)          /* B345/S5 */                                      \
    X(amoeba, 0x0a8, 0x12a)             /* B357/S1358 */                                   \
    X(assimilation, 0x038, 0x0f0)       /* B345/S4567 */                                   \
    X(coral, 0x008, 0x1f0)              /* B3/S45678 */                                    \
    X(gnarl, 0x002, 0x002)              /* B1/S1 */                                        \
    X(serviettes, 0x01c, 0x000)         /* B234/S */                                       \
    X(stains, 0x1c8, 0x1ec)             /* B3678/S235678 */                                \
    X(walled_cities, 0x1f0, 0x03c)      /* B45678/S2345 */                                 \
    X(vote, 0x1e0, 0x1f0)               /* B5678/S45678 */                                 \
    X(three_four, 0x018, 0x018)         /* B34/S34 */                                      \
    X(live_free_or_die, 0x004, 0x001)   /* B2/S0 */                                        \
    X(dotlife, 0x008, 0x00d)            /* B3/S023 */                                      \
    X(iceballs, 0x1e4, 0x1e0)           /* B25678/S5678 */                                 \
    X(bugs, 0x0e8, 0x1e2)               /* B3567/S15678 */                                 \
    X(holstein, 0x1e8, 0x1d0)           /* B35678/S4678 */                                 \
    X(pseudo_life, 0x0a8, 0x10c)        /* B357/S238 */                                    \
    X(lowlife, 0x008, 0x00a)            /* B3/S13 */                                       \
    X(plow_world, 0x188, 0x1ff)         /* B378/S012345678 */                              \
    X(corrosion, 0x008, 0x016)          /* B3/S124 */

/* Builds the circuit of a rule; returns 0 if the rule is not outer-totalistic. */
int cpu_circuit_build(const wl_rule *r, cpu_circuit *c);

/* ---- tile kernels ------------------------------------------------------------------- */

/* Everything a gen_rows or tile function may need (read-only during a run).  It is the
 * library's wl_rows_data (internal.h), opaque outside this folder, so that the sparse
 * engine can run the tile kernels through the cpu engine's tile_kernel slot. */
typedef struct wl_rows_data {
    cpu_circuit circ;
    /* the row function cpu_tile_rows runs (a one-word-wide kernel: bitsliced, lut6x3) */
    void (*tile_rows)(const uint64_t *in, uint64_t *out, size_t pitch, size_t bw, size_t lo,
                      size_t hi, int wrap, const uint64_t *colmask,
                      const struct wl_rows_data *kd);
    int vbmi2;              /* the AVX-512 kernel may use VBMI2 (cpu_avx512_uses_vbmi2) */
    const uint8_t *lut6x3;  /* 2^18 entries: next state of the 4 middle cells (low nibble) */
    const uint8_t *lut4x4;  /* 2^16 entries: next 2x2 block (bit 0 (x,y), 1 (x+1,y), 2
                               (x,y+1), 3 (x+1,y+1)) */
    const uint8_t *table512; /* the rule as 512 bytes 0/1, 64-byte aligned (vpermb) */
    const struct cpu_rnet_prog *rnet; /* the rule's gate network (circuit) */
} cpu_kernel_data;

/* One generation of rows [lo, hi) of a tile buffer: out row r from in rows r-1, r, r+1.
 * Rows are `pitch` words apart; row r's data starts at buf + r * pitch (pads before and
 * after, see above); bw data words per row (a multiple of the kernel's vector width).
 * colmask (may be NULL) is ANDed into every output word (bounded edges).  wrap != 0 (band
 * mode on a torus): the row is circular; kernels declared `wraps` in cpu_tiler_config
 * handle it themselves, for the others the driver copies the edge words into the pads
 * before each generation and they may ignore the flag. */
typedef void (*cpu_gen_rows_fn)(const uint64_t *in, uint64_t *out, size_t pitch, size_t bw,
                                size_t lo, size_t hi, int wrap, const uint64_t *colmask,
                                const cpu_kernel_data *kd);

void cpu_gen_rows_bitsliced(const uint64_t *in, uint64_t *out, size_t pitch, size_t bw,
                            size_t lo, size_t hi, int wrap, const uint64_t *colmask,
                            const cpu_kernel_data *kd);
void cpu_gen_rows_lut6x3(const uint64_t *in, uint64_t *out, size_t pitch, size_t bw,
                         size_t lo, size_t hi, int wrap, const uint64_t *colmask,
                         const cpu_kernel_data *kd);
void cpu_gen_rows_lut4x4(const uint64_t *in, uint64_t *out, size_t pitch, size_t bw,
                         size_t lo, size_t hi, int wrap, const uint64_t *colmask,
                         const cpu_kernel_data *kd);
/* SIMD versions (simd_avx2.c, simd_avx512.c), only called when the CPU has the features. */
void cpu_gen_rows_avx2(const uint64_t *in, uint64_t *out, size_t pitch, size_t bw,
                       size_t lo, size_t hi, int wrap, const uint64_t *colmask,
                       const cpu_kernel_data *kd);
void cpu_gen_rows_avx512(const uint64_t *in, uint64_t *out, size_t pitch, size_t bw,
                         size_t lo, size_t hi, int wrap, const uint64_t *colmask,
                         const cpu_kernel_data *kd);
/* Returns 1 if the CPU has AVX-512 VBMI2 (funnel shifts) and the environment variable
 * WL_CPU_NO_VBMI2 is not set; decided at create time into cpu_kernel_data.vbmi2. */
int cpu_avx512_uses_vbmi2(void);
/* simd_vpermb.c: any rule by AVX-512 VBMI byte lookups (only if cpu_vpermb_available()). */
void cpu_gen_rows_vpermb(const uint64_t *in, uint64_t *out, size_t pitch, size_t bw,
                         size_t lo, size_t hi, int wrap, const uint64_t *colmask,
                         const cpu_kernel_data *kd);
int cpu_vpermb_available(void);
/* simd_circuit.c: any rule as a network of wl_rnet_synth, one vpternlogq per gate
 * (AVX-512F): the interpreter that runs when the network cannot be compiled
 * (circuit_jit.c). */
typedef struct cpu_rnet_prog cpu_rnet_prog;
void cpu_gen_rows_circuit(const uint64_t *in, uint64_t *out, size_t pitch, size_t bw,
                          size_t lo, size_t hi, int wrap, const uint64_t *colmask,
                          const cpu_kernel_data *kd);
wl_status cpu_rnet_prog_build(const wl_rnet *net, cpu_rnet_prog **out);
/* circuit_jit.c: the network compiled to a gen_rows function (and, when tile is not NULL,
 * the sparse engine's tile kernel) by the system C compiler for isa (AVX-512F, with VBMI2
 * funnel shifts, or AVX2: rows of vectors of 8, 8 and 4 words), cached on disk;
 * WL_ERR_UNAVAILABLE when no compiler works, when WL_CPU_JIT=off, or when compile is 0
 * and neither this process nor the disk cache has it (verbose: a note on stderr when it
 * compiles or loads). */
enum { CPU_JIT_AVX512 = 0, CPU_JIT_VBMI2 = 1, CPU_JIT_AVX2 = 2 };
wl_status cpu_circuit_jit(const wl_rnet *net, int isa, int compile, cpu_gen_rows_fn *fn,
                          wl_tile_step_fn *tile, int verbose);
void cpu_rnet_prog_free(cpu_rnet_prog *p);
int cpu_rnet_prog_gates(const cpu_rnet_prog *p);
/* The rule as 512 aligned bytes (free with wl_aligned_free); NULL + error on failure. */
uint8_t *cpu_vpermb_table_build(const wl_rule *r);
/* Builds the lookup tables of lut.c for a rule (malloc'd; NULL + error on failure). */
uint8_t *cpu_lut6x3_build(const wl_rule *r);
uint8_t *cpu_lut4x4_build(const wl_rule *r);

/* ---- tile kernels of the sparse engine (wl_tile_job in internal.h) ------------------ */

/* Rows stacked in 512-bit vectors, bit-sliced logic (outer-totalistic rules only). */
void cpu_tile_avx512(wl_tile_job *job, const cpu_kernel_data *kd);
void cpu_tile_avx2(wl_tile_job *job, const cpu_kernel_data *kd);
/* Rows stacked in 512-bit vectors, vpermb lookups (any rule; cpu_vpermb_available()). */
void cpu_tile_vpermb(wl_tile_job *job, const cpu_kernel_data *kd);
/* Any CPU, any rule: kd->tile_rows on a gathered copy of the tile's rows with their west and
 * east neighbour words (tile_rows.c). */
void cpu_tile_rows(wl_tile_job *job, const cpu_kernel_data *kd);

/* ---- tile driver (tile.c) ------------------------------------------------------------ */

typedef struct cpu_tiler cpu_tiler;

typedef struct cpu_tiler_config {
    uint64_t w, h;
    int torus;
    cpu_gen_rows_fn gen_rows;
    const cpu_kernel_data *kd;
    unsigned vw;       /* vector width of gen_rows in words (1, 4 or 8) */
    int wraps;         /* gen_rows handles wrap itself (no pad refresh needed) */
    unsigned depth;    /* generations per pass (1..64) */
    size_t cache_bytes; /* budget for one thread's two tile buffers */
    wl_pool *pool;    /* threads (may be a pool of 1) */
    int dead_stays_dead; /* the rule has no B0: a tile dead with its halo is dead g
                            generations later, and is not computed */
    /* (optional) called by the thread that wrote them, after each tile's rows y0 .. y0 +
     * rows - 1, words w0 .. w0 + words - 1 of dst are written (while they are in its
     * cache): Generations' decay (multi.c) */
    void (*post)(void *arg, const uint64_t *src, uint64_t *dst, uint64_t y0, size_t rows,
                 size_t w0, size_t words);
    void *post_arg;
    /* (optional, instead of post) state planes that go with the cells (Generations' and
     * History's, multi.c): `planes` planes of S * h words each, gathered with each tile and
     * its halo, advanced after each generation in the buffer by gen_post (arg post_arg; rows
     * [lo, hi), words [c0, c1) of buffer rows `pitch` words apart: `in` the firing cells
     * before, `out` what the rule made of them, which it turns into the firing cells
     * after, planes `pstride` words apart), and scattered to the pass's destination planes
     * (cpu_tiler_pass_planes), so that they too take g generations a trip through memory */
    unsigned planes;
    void (*gen_post)(void *arg, const uint64_t *in, uint64_t *out, uint64_t *planes,
                     size_t pstride, size_t pitch, size_t c0, size_t c1, size_t lo, size_t hi);
} cpu_tiler_config;

wl_status cpu_tiler_create(const cpu_tiler_config *tc, cpu_tiler **out);
void cpu_tiler_destroy(cpu_tiler *t);
/* Advances `gens` <= depth generations from src (stride S words) into dst. */
void cpu_tiler_pass(cpu_tiler *t, const uint64_t *src, uint64_t *dst, unsigned gens);
/* The same with the config's state planes, from psrc into pdst (planes of S * h words, one
 * after another; not the same memory). */
void cpu_tiler_pass_planes(cpu_tiler *t, const uint64_t *src, uint64_t *dst, unsigned gens,
                           const uint64_t *psrc, uint64_t *pdst);
/* The same, and each tile's last three generations to fn as the step_tail slot of
 * wl_engine_ops says (a dead tile: rows of zeros, pitch 0).  Not with `post`; after
 * cpu_tiler_tail_init, which makes the buffers (fails only on out of memory). */
void cpu_tiler_pass_tail(cpu_tiler *t, const uint64_t *src, uint64_t *dst, unsigned gens,
                         wl_tail_fn fn, void *arg);
wl_status cpu_tiler_tail_init(cpu_tiler *t);
/* Generations per pass actually used (depth, or less for small tiles). */
unsigned cpu_tiler_depth(const cpu_tiler *t);
/* A one-line description of the tiling chosen (for verbose notes). */
const char *cpu_tiler_describe(const cpu_tiler *t);

/* ---- byte and nibble kernels (byte.c, nibble.c) ---------------------------------------- */

typedef struct cpu_byte cpu_byte;
wl_status cpu_byte_create(uint64_t w, uint64_t h, int torus, const wl_rule *r,
                          wl_pool *pool, cpu_byte **out);
void cpu_byte_destroy(cpu_byte *b);
void cpu_byte_load(cpu_byte *b, const wl_grid *g);
void cpu_byte_store(const cpu_byte *b, wl_grid *g);
void cpu_byte_step(cpu_byte *b); /* one generation (threads from its pool, if any) */
/* Row strips: rows y0 .. y0+n-1 from / to wl_grid rows of `stride` words (the caller
 * checked the range; store ORs cells into zeroed rows, load replaces the rows' cells). */
void cpu_byte_load_rows(cpu_byte *b, uint64_t y0, uint64_t n, const uint64_t *rows,
                        size_t stride);
void cpu_byte_store_rows(const cpu_byte *b, uint64_t y0, uint64_t n, uint64_t *rows,
                         size_t stride);

/* ---- rules of more than two states (multi.c) ------------------------------------------- */

/* Generations and Larger than Life: the state-1 cells are the engine's bit grid F (cur /
 * nxt); the other states live in the cpu_multi's planes. */
typedef struct cpu_multi cpu_multi;
wl_status cpu_multi_create(const wl_config *cfg, wl_pool *pool, cpu_multi **out);
void cpu_multi_destroy(cpu_multi *m);
/* Grids in wl_grid's plane layout from / to F (f) and the planes. */
void cpu_multi_load(cpu_multi *m, const wl_grid *g, uint64_t *f);
void cpu_multi_store(const cpu_multi *m, const uint64_t *f, wl_grid *g);
uint64_t cpu_multi_population(const cpu_multi *m, const uint64_t *f);
/* The decay planes (P of them, one grid's words apart; NULL when P is 0). */
uint64_t *cpu_multi_planes(const cpu_multi *m, unsigned *P);
/* The planes were changed in place (translate): what is made from them is made again. */
void cpu_multi_changed(cpu_multi *m);
/* Larger than Life's counts, as multi.c hands a band of rows to a kernel. */
typedef struct cpu_ltl_run {
    int dy, x0, x1; /* offsets dx in [x0, x1] of row dy */
} cpu_ltl_run;
typedef struct cpu_ltl_view {
    const uint64_t *f; /* firing cells (S words a row, h rows) */
    uint64_t *fn;      /* what the rule makes of them */
    uint64_t w, h;
    size_t S;
    int torus;
    int R, Ry;         /* reach across and down */
    int moore;         /* the square: sliding column sums */
    int diamond;       /* von Neumann's diamond: sliding diagonal windows (multi.c) */
    int simd_dia;      /* ... by cpu_ltl_band_diamond_avx512 */
    unsigned middle;   /* LtL's M1: a firing cell counts itself for survival */
    const cpu_ltl_run *runs[2]; /* the runs for cells of parity 0 and 1 of x + y */
    size_t nruns[2];
    const uint32_t (*birth)[2], (*survive)[2];
    unsigned nbirth, nsurvive;
    const uint8_t *table; /* (NULL: test the intervals) for each count c of the
                             neighbourhood: bit 0 birth, bit 1 survival (c + middle) */
    size_t ext;        /* w + 2 R + 1 */
    int skip;          /* a bounded grid and no B0: rows and columns out of reach of every
                          firing cell are dead without counting */
    uint32_t least;    /* skip: the least count (the cell left out) at which a cell may fire
                          next, by which cpu_ltl_trim cuts each row (0: no cutting) */
    int wide;          /* counts reach 2^16 - 1 (Moore from range 128, the circle from 144):
                          simd_ltl.c sums them in 32-bit lanes */
    int64_t fy0, fy1;  /* skip: rows outside [fy0, fy1] hold no firing cell (the last
                          generation's rows out of every firing cell's reach; 0 and h - 1
                          when that is not known) */
} cpu_ltl_view;
typedef struct cpu_ltl_buffers {
    uint64_t *bits;    /* two extended bit rows */
    uint16_t *col, *cnt, *ring;
    uint32_t *cnt32, *q32; /* wide: the counts, and the column sums' prefix sums (Moore) */
    int32_t *lo, *hi;  /* the extents of the band's rows (skip) */
    int32_t *win;      /* skip: those of the windows of 2 Ry + 1 rows around each row, and
                          room to compute them (4 times as many entries as lo) */
    uint8_t *zero;     /* ring slots known to hold an empty row's prefix sums (skip) */
    uint64_t *xring;   /* Moore: the extended bit rows in the column sums (2 Ry + 2) */
    const uint16_t **rp; /* other shapes: a row's runs as pointers into the prefix rows */
    uint32_t *blk;     /* skip: the window's firing cells in each 32 extended columns */
    int64_t busy0, busy1; /* out (skip): the first and last row of the band within reach of
                             a firing cell (busy1 < busy0: none) */
} cpu_ltl_buffers;
/* Row y (any integer) of the view's firing cells: wrapped on a torus, NULL outside a
 * bounded grid. */
static inline const uint64_t *cpu_ltl_row(const cpu_ltl_view *v, int64_t y) {
    if (y < 0 || y >= (int64_t)v->h) {
        if (!v->torus) return NULL;
        y = wl_mod(y, (int64_t)v->h);
    }
    return v->f + (size_t)y * v->S;
}
/* The firing bit of column x (any integer) of a row: wrapped or dead. */
static inline uint32_t cpu_ltl_bit(const cpu_ltl_view *v, const uint64_t *row, int64_t x) {
    if (x < 0 || x >= (int64_t)v->w) {
        if (!v->torus) return 0;
        x = wl_mod(x, (int64_t)v->w);
    }
    return (uint32_t)(row[x >> 6] >> (x & 63) & 1u);
}
/* Rows y0 - Ry .. y1 + Ry of a bounded grid: the first and last word with firing cells of
 * each (lo > hi for none), so that rows and columns out of every live cell's reach are
 * skipped (rules without B0: dead cells there stay dead); rows outside [fy0, fy1] are not
 * read. */
void cpu_ltl_row_extents(const cpu_ltl_view *v, uint64_t y0, uint64_t y1, int32_t *lo,
                         int32_t *hi);
/* simd_ltl.c (AVX-512BW; counts in 16-bit lanes, or 32-bit ones when wide): rows [y0, y1)
 * of fn; returns the cells it counted (a bounded grid's rows and columns out of reach of
 * every firing cell are not). */
uint64_t cpu_ltl_band_avx512(const cpu_ltl_view *v, uint64_t y0, uint64_t y1, cpu_ltl_buffers *b);
/* Skip: the output row's chunks [*c0, *c1), of n cells, cut at both ends to those where
 * a cell may fire, from blk, the window's firing cells over each n extended columns
 * (multi.c). */
void cpu_ltl_trim(const cpu_ltl_view *v, const uint32_t *blk, size_t n, size_t *c0,
                  size_t *c1);
/* The von Neumann diamond (diamond.h): words of one band's buffers; rows [y0, y1) of fn,
 * built for AVX-512 (simd_ltl.c), and in busy the first and last row it counted. */
size_t cpu_ltl_diamond_words(const cpu_ltl_view *v);
void cpu_ltl_band_diamond_avx512(const cpu_ltl_view *v, uint64_t y0, uint64_t y1, uint32_t *buf,
                                 int64_t busy[2]);
/* decay.h built for AVX-512F (simd_decay.c). */
void cpu_decay_avx512(unsigned P, uint64_t first, const uint64_t *f, uint64_t *fn, uint64_t *ep,
                      size_t plane, size_t a, size_t b);
/* Bytes of one thread's block of buffers for it, and the buffers' places in such a block
 * (64-byte aligned; lo, hi and zero are allocated apart). */
size_t cpu_ltl_buffer_bytes(const cpu_ltl_view *v);
void cpu_ltl_buffers_place(const cpu_ltl_view *v, void *block, cpu_ltl_buffers *b);
/* Larger than Life: what the rule makes of the firing cells f, into fn; `follows`: f is
 * the fn of the call before (its firing cells, after the decay), nothing else changed. */
void cpu_multi_ltl(cpu_multi *m, const uint64_t *f, uint64_t *fn, int follows);
/* The decay of the other states: fn holds what the rule makes of f (T) on entry, the
 * next firing cells on exit; the planes advance a generation.  The whole grid, or (as the
 * tile driver's post callback, arg the cpu_multi) one tile's region. */
void cpu_multi_decay(cpu_multi *m, const uint64_t *f, uint64_t *fn);
void cpu_multi_decay_tile(void *arg, const uint64_t *f, uint64_t *fn, uint64_t y0, size_t rows,
                          size_t w0, size_t words);
/* Generations and History with temporal blocking: the decay (the marks) as the tile
 * driver's gen_post (arg the cpu_multi), on a tile's buffers; cpu_multi_blocked makes the
 * planes' second set and says how many planes the tiles carry (0: Larger than Life or
 * Super, or no memory for them: a generation a pass with cpu_multi_decay_tile), and
 * cpu_multi_pass_blocked runs a pass of the tiler (made with that many planes) from src
 * into dst, the planes into their second set, which then becomes current. */
void cpu_multi_decay_buf(void *arg, const uint64_t *in, uint64_t *out, uint64_t *planes,
                         size_t pstride, size_t pitch, size_t c0, size_t c1, size_t lo,
                         size_t hi);
unsigned cpu_multi_blocked(cpu_multi *m);
void cpu_multi_pass_blocked(cpu_multi *m, cpu_tiler *t, const uint64_t *src, uint64_t *dst,
                            unsigned gens);
/* Super: the next states from the firing cells f and what the table made of them in fn
 * (the on cells next, on exit), a generation on the whole grid (multi.c, "Super"). */
void cpu_multi_super(cpu_multi *m, const uint64_t *f, uint64_t *fn);

typedef struct cpu_nibble cpu_nibble;
/* Outer-totalistic rules only (birth/survive masks as wl_rule_is_totalistic gives). */
wl_status cpu_nibble_create(uint64_t w, uint64_t h, int torus, uint16_t birth,
                            uint16_t survive, cpu_nibble **out);
void cpu_nibble_destroy(cpu_nibble *b);
void cpu_nibble_load(cpu_nibble *b, const wl_grid *g);
void cpu_nibble_store(const cpu_nibble *b, wl_grid *g);
void cpu_nibble_step(cpu_nibble *b);
/* Row strips, as cpu_byte_load_rows / cpu_byte_store_rows. */
void cpu_nibble_load_rows(cpu_nibble *b, uint64_t y0, uint64_t n, const uint64_t *rows,
                          size_t stride);
void cpu_nibble_store_rows(const cpu_nibble *b, uint64_t y0, uint64_t n, uint64_t *rows,
                           size_t stride);

#endif
