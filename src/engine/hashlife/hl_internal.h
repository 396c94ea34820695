/*
 * hl_internal.h - what the HashLife engine's files share: the node store, the context, and
 * the functions one file provides to the others.  See hashlife.c for the algorithm.
 *
 * Nodes are addressed by 32-bit indices into one array.  Index 0 is "no node" (used for
 * "no memoised result yet" and to unwind after an interruption or an error).  A leaf is an
 * 8x8 square held as one uint64_t: bit 8*y + x is the cell in column x, row y (x to the
 * right, y downwards), stored in c[0] (low 32 bits) and c[1] (high 32 bits) with
 * c[2] = c[3] = HL_LEAF_MARK so that a leaf never hashes like an internal node.
 */
#ifndef WL_HL_INTERNAL_H
#define WL_HL_INTERNAL_H

#include "internal.h"

#include <stdint.h>

#define HL_LEAF_MARK 0xFFFFFFFFu
#define HL_LEAF_LEVEL 3 /* a leaf covers 2^3 x 2^3 cells */
#define HL_MIN_ROOT_LEVEL 6 /* the central-quarter test needs great-grandchildren */
#define HL_MAX_LEVEL 240 /* coordinates stay far below the 2^255 of a wl_bigint */
#define HL_INDEX_BITS 28 /* node indices < 2^28 (10 GB of nodes): 4 bits of a table slot tag */
#define HL_NO_RESULT 0xFFu /* rexp value of a node without a memoised result */

typedef struct hl_node {
    uint32_t c[4];  /* children nw, ne, sw, se (or the leaf's bits, see above) */
    uint32_t res;   /* memoised result (0 = none); valid when rexp matches, see hashlife.c */
    uint8_t level;  /* 3 = leaf, 0 = free */
    uint8_t rexp;   /* log2 of the generations res is advanced by (HL_NO_RESULT = none) */
    uint16_t spare; /* (padding: the struct is 24 bytes) */
} hl_node;

typedef struct hl_ctx {
    wl_config cfg;
    wl_rule rule;
    uint16_t birth, survive; /* outer-totalistic rules: bit n = born / survives with n */
    int totalistic;
    int life;                /* B3/S23: the fastest base case */

    /* node store */
    hl_node *nodes;
    size_t nodes_mapped; /* bytes of address space reserved for nodes (0: malloc'd) */
    uint32_t cap;     /* allocated entries */
    uint32_t top;     /* entries used so far (free ones below it are on the free list) */
    uint32_t free_head; /* free list through c[0] (0 = empty) */
    uint32_t live;    /* nodes in use */
    uint32_t limit;   /* node count that triggers a garbage collection */
    uint64_t max_bytes;

    /* open-addressing hash table of node indices (0 = empty slot) */
    uint32_t *table;
    size_t table_mapped; /* bytes of the table's own mapping (0: malloc'd) */
    uint32_t tmask;   /* table size - 1 (a power of two) */

    uint32_t empty[HL_MAX_LEVEL + 1]; /* canonical empty node of each level (0 = not made) */

    /* the universe: a square of level root_level centred on (0, 0), covering
     * [-2^(L-1), 2^(L-1)) in x and y */
    uint32_t root;
    int root_level;

    /* nodes held by frames of the recursion, protected from garbage collection */
    uint32_t *stack;
    size_t sp, stack_cap;

    /* step state */
    int step_exp;       /* the current step is 2^step_exp generations */
    wl_status failure;  /* set when the recursion must unwind (interrupt, out of memory) */
    uint32_t poll_countdown;
    uint64_t gc_count;

    /* population cache (lazily allocated, UINT64_MAX = not known) for levels <= 30 */
    uint64_t *popcache;
} hl_ctx;

/* ---- node store (hashlife.c) ---- */
/* Returns the canonical node with these children (level = level of children + 1), or 0 on
 * failure (ctx->failure set).  Children must be protected or reachable from the root. */
uint32_t hl_node_make(hl_ctx *h, uint32_t nw, uint32_t ne, uint32_t sw, uint32_t se);
/* Returns the canonical leaf with these 64 cells, or 0 on failure. */
uint32_t hl_leaf_make(hl_ctx *h, uint64_t bits);
/* Canonical empty node of a level (3..HL_MAX_LEVEL), 0 on failure. */
uint32_t hl_empty(hl_ctx *h, int level);
static inline uint64_t hl_leaf_bits(const hl_ctx *h, uint32_t n) {
    return (uint64_t)h->nodes[n].c[0] | ((uint64_t)h->nodes[n].c[1] << 32);
}
static inline int hl_is_empty(const hl_ctx *h, uint32_t n, int level) {
    return n == h->empty[level];
}
/* Makes the root cover at least level `level` (wrapping it, centre kept). */
wl_status hl_grow_root(hl_ctx *h, int level);
/* Replaces the universe with a root (level >= 3), resetting memo-independent state. */
void hl_set_root(hl_ctx *h, uint32_t root, int level);
/* Collects garbage now (what the root, the empty nodes and the protect stack reach is
 * kept); WL_ERR_NOMEM when the live trees fill seven eighths of the limit. */
wl_status hl_collect(hl_ctx *h);
/* Protects a node from garbage collection until the stack is popped below it. */
static inline void hl_push(hl_ctx *h, uint32_t n) { h->stack[h->sp++] = n; }

/* ---- base case (hl_leaf.c) ---- */
/* Advances the 16x16 square made of four leaves by `gens` (1, 2 or 4) generations and
 * returns its centre 8x8 as leaf bits. */
uint64_t hl_leaf_step(const hl_ctx *h, uint64_t nw, uint64_t ne, uint64_t sw, uint64_t se,
                      int gens);
/* The centre 8x8 of the 16x16 square made of four leaves (no time step). */
uint64_t hl_leaf_centre(uint64_t nw, uint64_t ne, uint64_t sw, uint64_t se);

/* ---- queries (hl_query.c) ---- */
wl_status hl_population(void *ctx, wl_bigint *out);
wl_status hl_bounds(void *ctx, wl_bigint *xmin, wl_bigint *ymin, wl_bigint *xmax,
                    wl_bigint *ymax, int *empty);
wl_status hl_load_pattern(void *ctx, const wl_pattern *p);
wl_status hl_store_pattern(void *ctx, wl_pattern **out);
wl_status hl_get_cell(void *ctx, int64_t x, int64_t y, int *alive);
wl_status hl_set_cell(void *ctx, int64_t x, int64_t y, int alive);
wl_status hl_render(void *ctx, const wl_view *view, uint32_t *rgba);
wl_status hl_each_tile(void *ctx, wl_tile_fn fn, void *arg);
wl_status hl_put_tile(void *ctx, int64_t tx, int64_t ty, const uint64_t *rows);
/* Forgets cached populations of nodes (after a garbage collection reused indices). */
void hl_popcache_reset(hl_ctx *h);

/* ---- macrocell (hl_macrocell.c) ---- */
wl_status hl_load_file(void *ctx, const char *path);
wl_status hl_save_file(void *ctx, const char *path, wl_format fmt, int gz);

#endif
