/*
 * internal.h - what the library's parts share and the public header does not show:
 * error setting, the pattern's storage, the engine interface, and the grid bitmap that
 * every grid engine loads from and stores to.
 */
#ifndef WL_INTERNAL_H
#define WL_INTERNAL_H

#include "warplife.h"

#include <stdarg.h>
#include <stdbool.h>

#if defined(__GNUC__)
#define WL_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define WL_PRINTF(a, b)
#endif

/* ---- errors ------------------------------------------------------------------------ */

/* Records a formatted message as this thread's last error and returns s, so that callers
 * can write `return wl_error(WL_ERR_PARSE, "%s:%d:%d: expected a digit", ...)`. */
wl_status wl_error(wl_status s, const char *fmt, ...) WL_PRINTF(2, 3);
wl_status wl_verror(wl_status s, const char *fmt, va_list ap);
/* Prefixes the current last error with "prefix: " (for adding context on the way out). */
void wl_error_prefix(const char *fmt, ...) WL_PRINTF(1, 2);

/* ---- memory ------------------------------------------------------------------------ */

/* malloc/calloc/realloc that set WL_ERR_NOMEM with a message on failure. */
void *wl_malloc(size_t n);
void *wl_calloc(size_t count, size_t size);
void *wl_realloc(void *p, size_t n);
/* 64-byte aligned allocation (free with wl_aligned_free); NULL + error on failure. */
void *wl_aligned_alloc(size_t n);
void wl_aligned_free(void *p);
/* Bytes of physical memory on this machine (a fallback of 4 GiB if unknown). */
uint64_t wl_physical_memory(void);
/* Writes a byte count for messages into buf (at least 32 bytes): "64 MiB", "1.5 GiB",
 * "300 bytes"; returns buf. */
const char *wl_bytes_text(uint64_t bytes, char *buf);
/* Number of online CPU cores (at least 1). */
int wl_cpu_count(void);
/* The x86-64 extensions the CPU kernels use, each only where the OS saves the registers
 * it needs (0 on other CPUs): found once, by two cpuid leaves and xgetbv. */
enum {
    WL_CPU_AVX2 = 1,
    WL_CPU_AVX512F = 2,
    WL_CPU_AVX512BW = 4,
    WL_CPU_AVX512VBMI = 8,
    WL_CPU_AVX512VBMI2 = 16,
    WL_CPU_GFNI512 = 32, /* GFNI with AVX-512 (its EVEX forms) */
    WL_CPU_AVX512VL = 64 /* AVX-512 on 128- and 256-bit vectors */
};
int wl_cpu_has(unsigned features);
/* dlopen (RTLD_NOW | RTLD_LOCAL) of the module `file` in the running executable's folder
 * (the viewer, the mpi engine: parts whose libraries would slow every command's start);
 * `path` (cap bytes) receives its path.  NULL (error set, the path in it) on failure. */
void *wl_module_open(const char *file, char *path, size_t cap);
/* Seconds on a monotonic clock (for measurements: the plane's engine handover). */
double wl_clock(void);
/* Seconds of CPU time the process has used (all its threads). */
double wl_process_clock(void);

/* ---- gzip (src/io/gzip.c) ----------------------------------------------------------- */

/* Returns 1 if the data starts with gzip's magic bytes (1f 8b). */
int wl_is_gzip(const void *data, size_t len);
/* Inflates gzip data (starting with the magic bytes), concatenated members included, into a
 * new malloc'd buffer with a NUL after the last byte (*out, *out_len; the caller frees
 * *out).  `name` is used in error messages.  WL_ERR_PARSE on data that is not gzip or is
 * corrupt or truncated, WL_ERR_TOO_BIG past a quarter of physical memory,
 * WL_ERR_UNAVAILABLE without zlib.  The whole output is held in memory: the pattern
 * readers inflate a window at a time instead (src/io/iosrc.h). */
wl_status wl_gunzip(const void *data, size_t len, const char *name, char **out,
                    size_t *out_len);
/* Compresses data as one gzip member (zlib level 1) into a new malloc'd buffer. */
wl_status wl_gzip(const void *data, size_t len, char **out, size_t *out_len);

/* ---- patterns ---------------------------------------------------------------------- */

/* A pattern is a hash map of 64x64 tiles, so that it costs what its live cells cost and
 * never what their bounding box covers: two gliders 2^40 cells apart take two tiles.
 * Tile (tx, ty) holds cells x in [64 tx, 64 tx + 64), y in [64 ty, 64 ty + 64); bit c of
 * its row r is the cell (64 tx + c, 64 ty + r).  Only rows ever written are stored: bit r
 * of `mask` says row r is, and the stored rows lie in order in `u.rows` (or in `u.one`
 * while there is one), so a lone cell costs a table slot and no more.  A stored row may
 * be all dead (cells can be cleared); a slot with mask 0 is free. */
#define WL_PATTERN_PLANES 8 /* bits of (state - 1): states up to 256 */

typedef struct wl_ptile {
    int64_t tx, ty;
    uint64_t mask;
    uint32_t cap; /* words allocated at u.rows; 0: the one stored row is u.one */
    uint32_t n;   /* rows stored (the bits of mask) */
    union {
        uint64_t one;
        uint64_t *rows;
    } u;
} wl_ptile;

struct wl_pattern {
    wl_ptile *slot;  /* open addressing, linear probing; NULL while empty */
    size_t cap, n;   /* slots (0 or a power of two) and tiles */
    uint64_t words;  /* row words allocated outside the table */
    /* Writers' hints: the slot (+ 1) of a tile recently used, by (tx + 7 ty) mod 256, so
     * that a row-by-row writer finds the tiles of its band without hashing; checked
     * against the slot before use, so a stale hint costs nothing. */
    uint32_t hint[256];
    uint64_t max;    /* wl_pattern_max_bytes() when first needed (0 = not yet) */
    wl_rule rule;
    wl_topology topo; /* the grid the file asked for (WL_TOPOLOGY_PLANE: none) */
    uint64_t grid_w, grid_h;
    wl_glue glue;
    char *comments;  /* never NULL after wl_pattern_new */
    /* While a reader fills the pattern: the bytes its storage may grow to (0 = only the
     * memory cap, wl_pattern_max_bytes).  Growing past it is WL_ERR_TOO_BIG with a message
     * naming the limit.  Readers set it for the time of a read and clear it after. */
    uint64_t limit;
    /* Cells of more than two states (Generations, Larger than Life, History, Super): the
     * tiles above say which cells are live (state != 0); plane k holds bit k of (state - 1)
     * of each live cell.  A state-1 cell sets no plane bit, so a two-state pattern has no
     * planes and every two-state reader, writer and engine ignores them.  Plane bits lie
     * under live cells only (making a cell dead or state 1 clears them).  Each plane is a
     * pattern of its own whose storage counts against its owner's cap and limit. */
    struct wl_pattern *plane[WL_PATTERN_PLANES];
    unsigned nplanes;
    struct wl_pattern *owner; /* of a plane: the pattern it belongs to; else NULL */
};

/* Clears every cell outside columns [x0, x0 + w) and rows [y0, y0 + h) (a side of 0:
 * unbounded that way), planes included. */
void wl_pattern_clip(wl_pattern *p, int64_t x0, int64_t y0, uint64_t w, uint64_t h);
/* ORs bits into plane k of a pattern (as wl_pattern_or), making the planes up to k. */
wl_status wl_pattern_plane_or(wl_pattern *p, unsigned k, int64_t x, int64_t y, uint64_t bits);
/* Plane k of a multi-state pattern (see above), or NULL when it has none. */
static inline const wl_pattern *wl_pattern_plane(const wl_pattern *p, unsigned k) {
    return k < p->nplanes ? p->plane[k] : NULL;
}

/* Largest storage a pattern may allocate, in bytes (a share of physical memory). */
uint64_t wl_pattern_max_bytes(void);
/* Bytes of the pattern's storage now (its table and rows, its planes' included). */
uint64_t wl_pattern_storage_bytes(const wl_pattern *p);
/* ORs `bits` into row y from cell x on (bit i is the cell x + i); creates storage only for
 * nonzero words.  WL_ERR_TOO_BIG past the cap or the limit, or for coordinates beyond
 * +-2^62. */
wl_status wl_pattern_or(wl_pattern *p, int64_t x, int64_t y, uint64_t bits);
/* Points *w at the stored word holding cells [64 floor(x / 64), + 64) of row y, created
 * (dead) if absent; errors as wl_pattern_or.  The pointer is valid until the pattern next
 * grows (another word created). */
wl_status wl_pattern_word(wl_pattern *p, int64_t x, int64_t y, uint64_t **w);

/* The pattern's tiles as an array (free() it), in one of three orders: any; by rows (ty,
 * then tx); or quadtree order around an origin tile (otx, oty): by the interleaved bits of
 * (zy, zx) = (ty - oty, tx - otx) as unsigned numbers, y above x, which visits the
 * quadrants of every aligned square nw, ne, sw, se, each whole - the order in which a
 * quadtree whose root's top-left tile is the origin is built bottom up. */
typedef struct wl_tile_ref {
    int64_t tx, ty;
    uint64_t zx, zy;     /* tx - otx, ty - oty (WL_TILES_Z only) */
    uint64_t zk[2];      /* their interleave, the sort key (low, high word) */
    const wl_ptile *t;
} wl_tile_ref;
enum { WL_TILES_ANY, WL_TILES_ROWS, WL_TILES_Z };
wl_status wl_pattern_tiles(const wl_pattern *p, int order, int64_t otx, int64_t oty,
                           wl_tile_ref **out, size_t *n);
/* The 64 rows of a tile (dead rows included). */
void wl_ptile_rows(const wl_ptile *t, uint64_t rows[64]);
/* For tiles v[lo, hi) in quadtree order, all inside one square whose quadrants meet at
 * (mx, my) (relative tile coordinates): cut[q]..cut[q + 1] are those of quadrant q (0 nw,
 * 1 ne, 2 sw, 3 se). */
void wl_tiles_split(const wl_tile_ref *v, size_t lo, size_t hi, uint64_t mx, uint64_t my,
                    size_t cut[5]);
/* The 8x8 square of a 64x64 block of rows whose top-left cell is (8 i, 8 j): bit 8 r + c
 * is the cell (8 i + c, 8 j + r). */
static inline uint64_t wl_rows_leaf(const uint64_t *rows, int i, int j) {
    uint64_t b = 0;
    for (int r = 0; r < 8; r++) b |= ((rows[8 * j + r] >> (8 * i)) & 0xff) << (8 * r);
    return b;
}
/* Whether the 2^k x 2^k square (k <= 6) whose top-left cell is (cx, cy) of a 64x64 block
 * of rows has a live cell. */
static inline int wl_rows_any(const uint64_t *rows, int cx, int cy, int k) {
    uint64_t any = 0, m = k == 6 ? ~(uint64_t)0 : (((uint64_t)1 << (1 << k)) - 1) << cx;
    for (int r = cy; r < cy + (1 << k); r++) any |= rows[r];
    return (any & m) != 0;
}
/* Calls fn for every row with live cells, top to bottom, with its nonzero words left to
 * right: word k holds cells [x[k], x[k] + 64) (x[k] a multiple of 64).  Stops at and
 * returns the first nonzero status fn returns. */
typedef wl_status (*wl_row_fn)(void *ctx, int64_t y, size_t n, const int64_t *x,
                               const uint64_t *w);
wl_status wl_pattern_each_row(const wl_pattern *p, wl_row_fn fn, void *ctx);

/* ---- bounded-grid shapes (shape.c) ---------------------------------------------------- */

/* For a cell (i, j) of the ring just outside a w x h grid of shape s (i in -1 .. w, j in
 * -1 .. h, on the ring), the grid cell whose state it takes before a generation, as Golly
 * glues the edges: returns 1 and sets (*si, *sj), or 0 when the ring cell is dead (a
 * bounded plane).  Range-1 rules only. */
int wl_shape_ring(const wl_shape *s, int64_t i, int64_t j, uint64_t *si, uint64_t *sj);

/* ---- Larger than Life (ltl.c) --------------------------------------------------------- */

/* A Larger than Life rule of range 1 and two states on the square ('M') or the diamond
 * ('N') is a two-state rule of Moore's or von Neumann's neighbourhood: sets *out to that
 * rule (its table; "B1/S0V" for Golly's gnarl, R1,C2,S0,B1,NN) and returns 1.  Returns 0
 * for every other rule and for those that give birth on 0 neighbours.  Engines run the
 * table where it is faster than counting; the universe keeps the rule as written. */
int wl_ltl_two_state(const wl_rule *r, wl_rule *out);
/* cfg, or when its rule has such a table, *tmp: a copy of cfg with that rule (what the cpu
 * and cuda engines create from). */
const wl_config *wl_ltl_as_table(const wl_config *cfg, wl_config *tmp);

/* ---- History and Super (marks.c) --------------------------------------------------------- */

/* The next state of a cell of state c under History (super = 0) or Super (super = 1):
 * `alive` is what the rule's two-state table (wl_marks_table) says of the cell's 3x3 block
 * of on (odd) cells, and `present` has bit s set when a neighbour (of the rule's
 * neighbourhood, wl_marks_neighbours) is in state s. */
unsigned wl_marks_next(int super, unsigned c, int alive, uint32_t present);
/* The two-state rule the marks run by: the rule's table, or for a B0 rule (with S-max) its
 * dual; and that table as bytes. */
void wl_marks_rule(const wl_rule *r, wl_rule *out);
void wl_marks_table(const wl_rule *r, uint8_t table[512]);
/* The neighbours whose states the marks look at, as index bits of the 3x3 block. */
unsigned wl_marks_neighbours(const wl_rule *r);

/* ---- grids ------------------------------------------------------------------------- */

/* A row-major bit-per-cell grid of w x h cells: bit i of words[row * stride + i / 64] is
 * the cell in column i.  Bits past column w - 1 in each row are zero.  This is the common
 * currency of the grid engines (ref, cpu, cuda, opencl, mpi). */
typedef struct wl_grid {
    uint64_t w, h;
    size_t stride; /* words per row, >= (w + 63) / 64 */
    uint64_t *words;
    /* Multi-state rules: plane 0 (the words above) holds the live cells (state != 0); plane
     * k >= 1, at words + k * h * stride, bit k - 1 of (state - 1) of each live cell, as
     * patterns keep them.  Two-state grids have 1 plane (0 in a grid made by hand means
     * 1). */
    unsigned planes;
} wl_grid;

/* Allocates a zeroed grid with stride (w + 63) / 64 (64-byte aligned), of one plane or of
 * `planes` (wl_grid_planes_for: what a rule's states need). */
wl_status wl_grid_alloc(wl_grid *g, uint64_t w, uint64_t h);
wl_status wl_grid_alloc_planes(wl_grid *g, uint64_t w, uint64_t h, unsigned planes);
unsigned wl_grid_planes_for(const wl_rule *r);
/* The state of cell (x, y) of a grid of any number of planes. */
static inline unsigned wl_grid_state(const wl_grid *g, uint64_t x, uint64_t y) {
    size_t at = (size_t)(y * g->stride + (x >> 6)), plane = (size_t)(g->h * g->stride);
    if (!((g->words[at] >> (x & 63)) & 1u)) return 0;
    unsigned s = 1;
    for (unsigned k = 1; k < g->planes; k++) s += (unsigned)((g->words[at + k * plane] >> (x & 63)) & 1u) << (k - 1);
    return s;
}
/* Sets cell (x, y) of a grid of any number of planes to `state` (< 2^(planes - 1) + 1). */
static inline void wl_grid_set_state(wl_grid *g, uint64_t x, uint64_t y, unsigned state) {
    size_t at = (size_t)(y * g->stride + (x >> 6)), plane = (size_t)(g->h * g->stride);
    uint64_t m = (uint64_t)1 << (x & 63);
    for (unsigned k = 0; k < (g->planes ? g->planes : 1); k++) { /* 0: a grid made by hand */
        int on = k ? state && ((state - 1) >> (k - 1) & 1u) : state != 0;
        g->words[at + k * plane] = on ? g->words[at + k * plane] | m : g->words[at + k * plane] & ~m;
    }
}
void wl_grid_free(wl_grid *g);
/* Checks a row-strip request (store_rows / load_rows) on a w x h grid: rows y0 .. y0+n-1
 * inside the grid and `stride` words per row enough for wl_grid's layout.  WL_OK, or
 * WL_ERR_INVALID with a message that starts with `who` (the engine). */
wl_status wl_grid_check_rows(const char *who, uint64_t w, uint64_t h, uint64_t y0, uint64_t n,
                             size_t stride);
static inline int wl_grid_get(const wl_grid *g, uint64_t x, uint64_t y) {
    return (int)((g->words[y * g->stride + (x >> 6)] >> (x & 63)) & 1u);
}
static inline void wl_grid_set(wl_grid *g, uint64_t x, uint64_t y, int alive) {
    uint64_t *w = &g->words[y * g->stride + (x >> 6)];
    uint64_t m = (uint64_t)1 << (x & 63);
    *w = alive ? (*w | m) : (*w & ~m);
}
/* Places a pattern on a fresh zeroed grid g (already allocated, w x h) following the
 * placement rule of wl_universe_load: column = x + floor(w/2), row = y + floor(h/2); on a
 * torus coordinates wrap, on a bounded grid cells outside are dropped and counted. */
wl_status wl_grid_from_pattern(wl_grid *g, const wl_pattern *p, wl_topology topo,
                               uint64_t *dropped);
/* Converts a grid back to a new pattern in pattern coordinates. */
wl_status wl_grid_to_pattern(const wl_grid *g, const wl_rule *rule, wl_pattern **out);
/* The same with cell (x0, y0) of the pattern at the grid's corner, every plane of the grid
 * read or filled; the from direction clips cells outside the grid unless topo is a torus
 * (which wraps them). */
wl_status wl_grid_from_pattern_at(wl_grid *g, const wl_pattern *p, wl_topology topo,
                                  int64_t x0, int64_t y0, uint64_t *dropped);
wl_status wl_grid_to_pattern_at(const wl_grid *g, const wl_rule *rule, int64_t x0, int64_t y0,
                                wl_pattern **out);
/* Number of live cells of a grid. */
uint64_t wl_grid_population(const wl_grid *g);
/* The index of the first non-zero word of w[0 .. n), or n: eight words at a time while
 * they are zero (the mostly empty rows of a grow engine's grid). */
static inline size_t wl_first_word(const uint64_t *w, size_t n) {
    size_t i = 0;
    while (i + 8 <= n && !(w[i] | w[i + 1] | w[i + 2] | w[i + 3] | w[i + 4] | w[i + 5] | w[i + 6] |
                           w[i + 7]))
        i += 8;
    while (i < n && !w[i]) i++;
    return i;
}
/* Row `out` (out_words words, bits past out_w cleared) gets bit x = bit x + dx of row `in`
 * (in_words words), dead where x + dx lies outside [0, in_words * 64). */
void wl_row_shift(const uint64_t *in, size_t in_words, uint64_t *out, size_t out_words,
                  uint64_t out_w, int64_t dx);
/* A w x h grid's box of cells (wl_rows_box's) as bounds in the placement rule's coordinates
 * (grid cell (0, 0) is (-floor(w/2), -floor(h/2))): what a grid engine's bounds slot gives. */
void wl_grid_box_bounds(uint64_t w, uint64_t h, const uint64_t box[4], wl_bigint *xmin,
                        wl_bigint *ymin, wl_bigint *xmax, wl_bigint *ymax);
/* The box of the live cells of h rows of `stride` words (a word live where it or the same
 * word of one of the P planes at e + k * plane_words is not zero): box[0..3] = first
 * column, first row, last column, last row; 0 when there are none. */
int wl_rows_box(const uint64_t *f, size_t stride, uint64_t h, const uint64_t *e, unsigned P,
                size_t plane_words, uint64_t box[4]);

/* ---- snapshots (src/render/render.c): what the facade fills -------------------------- */

wl_snapshot *wl_snapshot_new(void);
/* Makes the snapshot a zeroed bitmap of w x h cells whose first cell is (x0, y0), stride
 * (w + 63) / 64 words (the layout of wl_grid), reusing its memory; *bits = the words.
 * WL_ERR_TOO_BIG when it cannot fit, WL_ERR_NOMEM. */
wl_status wl_snapshot_bitmap(wl_snapshot *s, int64_t x0, int64_t y0, uint64_t w, uint64_t h,
                             uint64_t **bits);
/* The same with `planes` planes (wl_grid's layout: the live cells, then the bits of state
 * - 1), all zeroed; the rule's states and family for the palette. */
wl_status wl_snapshot_bitmap_planes(wl_snapshot *s, int64_t x0, int64_t y0, uint64_t w,
                                    uint64_t h, unsigned planes, uint64_t **bits);
void wl_snapshot_set_rule(wl_snapshot *s, const wl_rule *r);
/* Copies a pattern's cells into the snapshot. */
wl_status wl_snapshot_from_pattern(wl_snapshot *s, const wl_pattern *p);
void wl_snapshot_set_generation(wl_snapshot *s, const wl_bigint *g);

/* ---- thread pool (pool.c) ---------------------------------------------------------- */

typedef struct wl_pool wl_pool;
typedef void (*wl_task_fn)(void *arg, int tid, int nthreads);
/* Starts n-1 worker threads (the caller is thread 0).  NULL + error on failure. */
wl_pool *wl_pool_create(int n);
/* Runs fn(arg, tid, n) on all n threads and returns when every call has returned. */
void wl_pool_run(wl_pool *p, wl_task_fn fn, void *arg);
/* wl_pool_run for a job whose parts any of its threads may take (from a common counter):
 * threads that have not joined it when the caller ran out of parts take no part (pool.c) */
void wl_pool_run_any(wl_pool *p, wl_task_fn fn, void *arg);
int wl_pool_size(const wl_pool *p);
/* Jobs run on the first n threads from now on (n outside 1 .. size: all of them); the
 * others sleep without spinning.  Between jobs only, from the thread that runs them. */
void wl_pool_set_active(wl_pool *p, int n);
int wl_pool_active(const wl_pool *p);
void wl_pool_destroy(wl_pool *p);

/* ---- tile kernels (what the sparse engine borrows from the cpu engine) ------------- */

/* An engine's kernel data, opaque outside the engine that made it (the cpu engine's is its
 * cpu_kernel_data). */
typedef struct wl_rows_data wl_rows_data;

/* A tile of the plane is 64 x 64 cells held as 64 words, one per row: bit b of word r is
 * the cell (64 tx + b, 64 ty + r).  A tile kernel computes one generation of a tile brick
 * by brick (a brick = WL_BRICK consecutive rows). */
#define WL_TILE 64
#define WL_BRICK 8
/* The neighbours of a tile, in this order, then the tile itself. */
enum { WL_NB_N, WL_NB_NE, WL_NB_E, WL_NB_SE, WL_NB_S, WL_NB_SW, WL_NB_W, WL_NB_NW, WL_NB_C };

typedef struct wl_tile_job {
    /* generation t: the tile (in[WL_NB_C]) and its eight neighbours, 64 words each, 64-byte
     * aligned; a missing neighbour is 64 zero words */
    const uint64_t *in[9];
    /* the tile at generation t + 1 (64 words, 64-byte aligned, not one of in[]): only the
     * rows of the bricks asked for are written, and their old contents are compared with
     * the new ones */
    uint64_t *out;
    unsigned bricks; /* bit k: compute rows 8k .. 8k+7 */
    /* results: bit r set where row r of out changed anywhere / in column 0 / in column 63 */
    uint64_t chg, chg_w, chg_e;
    unsigned live; /* result: bit k set where computed brick k of out has a live cell */
} wl_tile_job;

typedef void (*wl_tile_step_fn)(wl_tile_job *job, const wl_rows_data *kd);

/* A tile kernel for one rule, made by an engine's tile_kernel slot and freed by its
 * tile_kernel_free slot. */
typedef struct wl_tile_kernel {
    wl_tile_step_fn step;
    const char *name;       /* the technique, for notes ("avx512", "vpermb", ...) */
    int compile_later;      /* kernel "circuit" (compiled for the rule, about half a second
                               once per rule) would be faster than this one: worth asking
                               for once a run has done enough work */
    const wl_rows_data *data;
    void *owner;            /* the engine's allocation behind data */
} wl_tile_kernel;

/* ---- engines ----------------------------------------------------------------------- */

/* A strip of a grid at its last three generations (the step_tail slot below). */
typedef void (*wl_tail_fn)(void *arg, uint64_t y0, size_t rows, size_t w0, size_t words,
                           const uint64_t *const gen[3], size_t pitch);

/* One 64x64 tile of the plane (layout of wl_tile_job). */
typedef wl_status (*wl_tile_fn)(void *arg, int64_t tx, int64_t ty, const uint64_t *rows);

enum {
    WL_CAP_TORUS = 1u << 0,
    WL_CAP_BOUNDED = 1u << 1,
    WL_CAP_PLANE = 1u << 2,
    WL_CAP_ANY_RULE = 1u << 3, /* every rule, B0 included, on its topologies */
    WL_CAP_DEVICE = 1u << 4,   /* the universe lives in a device's memory (GPU engines):
                                  wl_config.gpu_memory applies, see src/engine/stream */
    WL_CAP_GLUED = 1u << 5,    /* Golly's glued grids: Klein bottle, cross-surface, sphere,
                                  and (with WL_CAP_TORUS) shifted tori */
    WL_CAP_GENERATIONS = 1u << 6, /* rule families beyond two states (wl_family) */
    WL_CAP_LTL = 1u << 7,
    WL_CAP_HISTORY = 1u << 8,  /* History */
    WL_CAP_SUPER = 1u << 9     /* Super */
};

/* An engine: a table of functions plus a context pointer made by create().  Slots marked
 * (optional) may be NULL; the universe wrapper then supplies a default (through
 * store/load) or returns WL_ERR_UNSUPPORTED, so callers never test for NULL. */
typedef struct wl_engine_ops {
    const char *name;
    const char *description;
    unsigned caps;
    const char *const *kernels; /* NULL-terminated; kernels[0] is the default */

    /* WL_OK if the engine can run on this machine; otherwise an error saying why. */
    wl_status (*probe)(void); /* (optional: NULL = always available) */
    /* Creates a context for cfg (topology, size, rule, threads...).  `kernel` is a name
     * from the kernels list (never NULL).  Must fail cleanly with a message. */
    wl_status (*create)(const wl_config *cfg, const char *kernel, void **ctx);
    void (*destroy)(void *ctx);
    /* Grid engines: replace all cells with the grid g (cfg->width x cfg->height). */
    wl_status (*load_grid)(void *ctx, const wl_grid *g); /* (optional: grid engines) */
    /* Grid engines: copy all cells into g (allocated by the caller, w x h, zeroed). */
    wl_status (*store_grid)(void *ctx, wl_grid *g); /* (optional: grid engines) */
    /* Plane engines: replace all cells with the pattern's. */
    wl_status (*load_pattern)(void *ctx, const wl_pattern *p); /* (optional) */
    /* Plane engines: store all cells into a new pattern. */
    wl_status (*store_pattern)(void *ctx, wl_pattern **out); /* (optional) */
    /* Advances `generations` generations and sets *done to the number actually advanced
     * (== generations on success; fewer when interrupted through cfg->poll, in which case
     * it returns WL_ERR_INTERRUPTED with the universe consistent at that generation). */
    wl_status (*step)(void *ctx, uint64_t generations, uint64_t *done);
    /* (optional: default stores and counts) */
    wl_status (*population)(void *ctx, wl_bigint *out);
    /* (optional: default stores and measures) */
    wl_status (*bounds)(void *ctx, wl_bigint *xmin, wl_bigint *ymin, wl_bigint *xmax,
                        wl_bigint *ymax, int *empty);
    /* (optional) native file reading/writing (HashLife: macrocell).  Return
     * WL_ERR_UNSUPPORTED to let the wrapper fall back to patterns. */
    wl_status (*load_file)(void *ctx, const char *path);
    wl_status (*save_file)(void *ctx, const char *path, wl_format fmt, int gz);
    /* (optional) cell access; default goes through store/load. */
    wl_status (*set_cell)(void *ctx, int64_t x, int64_t y, int alive);
    wl_status (*get_cell)(void *ctx, int64_t x, int64_t y, int *alive);
    /* (optional) rendering; default goes through store. */
    wl_status (*render)(void *ctx, const wl_view *view, uint32_t *rgba);

    /* -- benchmarking (all optional) -- */
    /* Fills the universe with a random soup of the given density made where the cells live
     * (on the GPU for device engines), so that huge benchmarks need no host-side soup.  The
     * soup need not equal wl_pattern_random's; it must be random and seeded. */
    wl_status (*randomize)(void *ctx, double density, uint64_t seed);
    /* Steps like step() and measures the time the engine itself spent (device events for
     * GPUs), returned in *seconds.  Without it, the bench times step() on the host clock. */
    wl_status (*timed_step)(void *ctx, uint64_t generations, double *seconds);
    /* Blocks until all queued work is finished (GPU engines). */
    wl_status (*synchronize)(void *ctx);
    /* The device's measured copy bandwidth expressed as CUpS of a one-generation pass
     * moving 2 bits per cell update (bytes/s x 4); 0 if not applicable. */
    double (*copy_floor_cups)(void *ctx);

    /* (optional) Lists the engine's devices on out, one line each (wl_engine_devices). */
    wl_status (*list_devices)(FILE *out);

    /* -- row strips (optional: grid engines; used by the mpi engine's halo exchange) -- */
    /* Copies rows y0 .. y0+n-1 into rows[i * stride + ...] in wl_grid's layout (bit x of word
     * x/64 is column x; bits past the width are zero).  0 <= y0, y0 + n <= height. */
    wl_status (*store_rows)(void *ctx, uint64_t y0, uint64_t n, uint64_t *rows, size_t stride);
    /* Replaces rows y0 .. y0+n-1 with rows[] (same layout; bits past the width ignored). */
    wl_status (*load_rows)(void *ctx, uint64_t y0, uint64_t n, const uint64_t *rows,
                           size_t stride);
    /* (optional) Replaces words w0 .. w0+nw-1 (columns 64 w0 .. 64 (w0 + nw) - 1) of rows
     * y0 .. y0+n-1 with rows[i * stride + k], k < nw, and leaves the rest of the rows as
     * they are (the sparse engine's chains patch the rim of a box in a grid). */
    wl_status (*load_words)(void *ctx, uint64_t y0, uint64_t n, size_t w0, size_t nw,
                            const uint64_t *rows, size_t stride);
    /* (optional: grid engines on a bounded grid) Moves every cell, all states, from
     * (x + dx, y + dy) to (x, y); cells from outside the grid are dead, and what is moved
     * past its edges is lost (the grow engine moves only dead cells out). */
    wl_status (*translate)(void *ctx, int64_t dx, int64_t dy);

    /* (optional) Renders the view into an OpenGL pixel buffer object (name `gl_buffer`, at
     * least view->width * view->height * 4 bytes, RGBA like render()) without passing through
     * host memory (CUDA-OpenGL interop).  The caller's GL context must be current. */
    wl_status (*render_gl)(void *ctx, const wl_view *view, unsigned gl_buffer);

    /* -- device (optional: engines that keep the universe in a device's memory; what the
     * wrapper engines, mpi and stream, need from an inner engine without naming it) -- */
    /* Number of devices this engine can use here (0 when none). */
    int (*device_count)(void);
    /* Binds the calling thread to device `device` (a wrapper's own worker threads). */
    wl_status (*device_bind)(int device);
    /* Page-locked host memory, which the device copies to and from at full speed (DMA):
     * allocate (NULL + error on failure) and free; lock memory allocated elsewhere
     * (WL_ERR_DEVICE if the driver refuses) and unlock it. */
    void *(*host_alloc)(size_t bytes);
    void (*host_free)(void *p);
    wl_status (*host_register)(void *p, size_t bytes);
    void (*host_unregister)(void *p);
    /* Bytes of device memory one buffer of a universe of this kernel (NULL: the default)
     * holds per grid row of `width` cells (the stream engine's unit for its bands). */
    uint64_t (*row_bytes)(uint64_t width, const char *kernel);

    /* -- tile kernels (optional: the cpu engine's logic for the sparse engine's tiles) -- */
    /* Makes the engine's fastest tile kernel for cfg->rule (cfg->kernel may name one of the
     * engine's kernels; NULL = its default) into *out. */
    wl_status (*tile_kernel)(const wl_config *cfg, wl_tile_kernel *out);
    void (*tile_kernel_free)(wl_tile_kernel *k);

    /* -- dense passes (optional: grid engines; the sparse engine's passes over the dense
     * core of a pattern) -- */
    /* Advances n >= 1 generations like step() (without polling) and hands the universe's
     * last three generations to fn, strip by strip while they are in cache: fn is called on
     * the engine's threads, at the same time, once for each strip of a set that covers the
     * grid without overlap (rows y0 .. y0 + rows - 1, words w0 .. w0 + words - 1), with row
     * j word i of generation n - 2 + k at gen[k][j * pitch + i] (bits past the width zero;
     * gen[0] NULL when n == 1; fn NULL: none, the engine only makes what it needs for it,
     * so that later calls cannot fail).  What a dense pass reads back, without
     * single-generation steps nor copies of the grid. */
    wl_status (*step_tail)(void *ctx, uint64_t n, wl_tail_fn fn, void *arg);

    /* -- tiles (optional: plane engines; how a universe hands its cells from one engine to
     * another without a dense copy of the bounding box, see universe.c) -- */
    /* Calls fn for every 64x64 tile that holds a live cell; stops at fn's first error and
     * returns it.  The engine's state is not changed. */
    wl_status (*each_tile)(void *ctx, wl_tile_fn fn, void *arg);
    /* Replaces the cells of tile (tx, ty) with rows[0..63] (layout of wl_tile_fn). */
    wl_status (*put_tile)(void *ctx, int64_t tx, int64_t ty, const uint64_t *rows);

    /* -- threads (optional) -- */
    /* Runs on at most n of the threads it was made with from now on (n < 1: all of them);
     * between steps.  The "auto" engine's race on the plane shares the cores with HashLife. */
    void (*set_threads)(void *ctx, int n);
} wl_engine_ops;

/* A universe's engine, for wrapper engines (mpi, stream) that drive an inner universe, and
 * for tests and bench/ programs that reach into an engine. */
const wl_engine_ops *wl_universe_ops(const wl_universe *u);
void *wl_universe_ctx(const wl_universe *u);

/* The plane's "auto" (handover.c): the sparse engine hands the universe to HashLife when
 * a timed trial shows HashLife faster. */
typedef struct wl_handover wl_handover;
/* NULL when the handover does not apply (not the plane, no HashLife or one that cannot run
 * the rule, no way to move the cells). */
wl_handover *wl_handover_new(const wl_config *cfg, const wl_engine_ops *first);
void wl_handover_free(wl_handover *h);
/* The configuration to create the first engine with (its poll goes through the handover,
 * which may cut a step short when HashLife has got to the target), and the kernel it was
 * opened with (set once the first engine is open). */
const wl_config *wl_handover_first_config(const wl_handover *h);
void wl_handover_set_first_kernel(wl_handover *h, const char *kernel);
/* Starts over on the first engine (after a load). */
void wl_handover_reset(wl_handover *h);
/* Steps like ops->step on the engine (*ops, *ctx), which it may replace. */
wl_status wl_handover_step(wl_handover *h, const wl_engine_ops **ops, void **ctx, uint64_t n,
                           uint64_t *done);
/* Keeps the universe on the engine it is on now (no more trials) until the next reset. */
void wl_handover_stay(wl_handover *h);
/* Puts the universe back on a fresh first engine (when it is not on it) and resets. */
wl_status wl_handover_restart(wl_handover *h, const wl_engine_ops **ops, void **ctx);
/* Loads a file with the second engine's own reader (HashLife: macrocell files too big for
 * a pattern) and moves the universe onto it; WL_ERR_UNSUPPORTED when it has none or the
 * file is not of its format. */
wl_status wl_handover_load_file(wl_handover *h, const wl_engine_ops **ops, void **ctx,
                                const char *path);
/* The kernel name of engine ops in this handover. */
const char *wl_handover_kernel(const wl_handover *h, const wl_engine_ops *ops);
/* Copies every live cell of one plane engine into another, tile by tile (two-state) or
 * as one pattern (by_pattern: multi-state cells). */
wl_status wl_handover_move(const wl_engine_ops *from, void *from_ctx, const wl_engine_ops *to,
                           void *to_ctx, int by_pattern);

/* The capability bit (WL_CAP_TORUS, _BOUNDED, _PLANE, _GLUED) an engine needs for topology
 * t, and the one (WL_CAP_GENERATIONS, _LTL, _HISTORY; 0 for two-state rules) it needs for a
 * rule family. */
unsigned wl_topology_cap(wl_topology t);
unsigned wl_family_cap(wl_family f);
/* WL_OK if engine e supports cfg's topology (and a grid's size is at least 1x1, a sphere
 * square) and the family of cfg's rule, else WL_ERR_UNSUPPORTED / WL_ERR_INVALID with a
 * message that names the engines that do. */
wl_status wl_engine_check(const wl_engine_ops *e, const wl_config *cfg);
/* Opens an instance of engine e for cfg without the facade (what wl_universe_create does
 * once it has chosen the engine, and what wrapper engines do for their inner engine): the
 * engine must run here (probe), support cfg's topology (and a grid's size be at least
 * 1x1), and have the kernel cfg->kernel (NULL or "": its default); then e->create.
 * *kernel (may be NULL) receives the kernel's constant name. (src/core/engine.c) */
wl_status wl_engine_open(const wl_engine_ops *e, const wl_config *cfg, void **ctx,
                         const char **kernel);

/* Finds a built-in engine by name; NULL if unknown. */
const wl_engine_ops *wl_engine_find(const char *name);

/* Engines defined in their own folders (registered in src/core/registry.c). */
extern const wl_engine_ops wl_engine_ref;
extern const wl_engine_ops wl_engine_cpu;
extern const wl_engine_ops wl_engine_cuda;
extern const wl_engine_ops wl_engine_opencl;
extern const wl_engine_ops wl_engine_hashlife;
extern const wl_engine_ops wl_engine_mpi;
extern const wl_engine_ops wl_engine_stream;
extern const wl_engine_ops wl_engine_sparse;
extern const wl_engine_ops wl_engine_grow;

/* ---- small helpers ----------------------------------------------------------------- */

/* splitmix64: the deterministic generator behind soups and tests. */
static inline uint64_t wl_splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Floor division and non-negative modulo for signed 64-bit values (d > 0). */
/* The number of set bits of x: the popcnt instruction where the target has it, else a SWAR
 * sum (the generic x86-64 target otherwise calls libgcc's __popcountdi2, several times
 * slower in the sparse engine's hot loops). */
static inline unsigned wl_popcount64(uint64_t x) {
#if defined(__POPCNT__)
    return (unsigned)__builtin_popcountll(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (unsigned)((x * 0x0101010101010101ull) >> 56);
#endif
}

static inline int64_t wl_floordiv(int64_t a, int64_t d) {
    int64_t q = a / d;
    return (a % d != 0 && ((a < 0) != (d < 0))) ? q - 1 : q;
}
static inline int64_t wl_mod(int64_t a, int64_t d) {
    int64_t m = a % d;
    return m < 0 ? m + d : m;
}

#endif /* WL_INTERNAL_H */
