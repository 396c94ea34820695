/*
 * hl_internal.h - what the HashLife engine's files share: the node store, the context, and
 * the functions one file provides to the others.  See hashlife.c for the algorithm.
 *
 * Nodes are addressed by 32-bit indices into one array.  Index 0 is "no node" (used for
 * "no memoised result yet" and to unwind after an interruption or an error).  A leaf is an
 * 8x8 square held as one uint64_t: bit 8*y + x is the cell in column x, row y (x to the
 * right, y downwards), stored in c[0] (low 32 bits) and c[1] (high 32 bits) with
 * c[2] = c[3] = HL_LEAF_MARK so that a leaf never hashes like an internal node.
 *
 * Multi-state rules (Generations, History, Super; hl_states.c) keep the same leaves for the
 * cells that are not 0 and hang the other bits of the states off c[2]: a chain of plane
 * nodes (level HL_PLANE_LEVEL, c[3] = HL_PLANE_MARK), the i-th holding bit i of
 * (state - 1) of the leaf's live cells in c[0] and c[1] and the next plane in c[2]
 * (HL_LEAF_MARK ends the chain, and a chain ends at its last nonzero plane).  Chains are
 * hash-consed like everything else, so a leaf whose live cells are all in state 1 is the
 * two-state leaf, and every query that asks only which cells are live (population,
 * bounds, rendering) reads the leaves as they are.
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
#define HL_PLANE_MARK 0xFFFFFFFEu /* c[3] of a plane node (never a node index) */
#define HL_PLANE_LEVEL 0xFE /* level of a plane node: no tree node has it */
#define HL_MAX_PLANES 8  /* bits of (state - 1): 256 states */
#define HL_BATCH 128     /* nodes whose results are computed together (hashlife.c, "batches") */

typedef struct hl_node {
    uint32_t c[4];  /* children nw, ne, sw, se (or the leaf's bits, see above) */
    uint32_t res;   /* memoised result (0 = none); valid when rexp matches, see hashlife.c */
    uint8_t level;  /* 3 = leaf, 0 = free */
    uint8_t rexp;   /* log2 of the generations res is advanced by (HL_NO_RESULT = none) */
    uint16_t used;  /* the clock (low 16 bits) when res was last read or written:
                       collections keep recently used results (hashlife.c) */
} hl_node;

typedef struct hl_ctx {
    wl_config cfg;
    wl_rule rule;
    wl_rule step_rule;       /* the two-state rule the on cells follow (hl_leaf.c): the
                                rule, or for History and Super wl_marks_rule's (a B0 rule's
                                dual) */
    uint16_t birth, survive; /* outer-totalistic rules: bit n = born / survives with n */
    int totalistic;
    int life;                /* B3/S23: the fastest base case */
    int leaf_isa;            /* outer-totalistic rules: the base case's compiled form
                                (hl_leaf_best_isa, chosen once: hl_leaf.c) */
    uint8_t *leaf_table;     /* other rules: the leaf table (hl_leaf.c), else NULL */

    /* multi-state rules (hl_states.c): planes of (state - 1) a leaf may carry (0 for
     * two-state rules, and for Generations with 2 states, which is its two-state table) */
    unsigned nplanes;
    unsigned states;
    wl_family family;
    unsigned marks_nbrs;     /* History and Super: the neighbours whose marks count */

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
    size_t table_reserved; /* ... when it was reserved for every size up to table_most, its
                              bytes (the table grows in place, table_rebuild), else 0 */
    uint32_t tmask;   /* table size - 1 (a power of two) */
    uint64_t table_most; /* slots of the largest table the memory limit was reckoned with
                            (table_full in hashlife.c) */

    uint32_t empty[HL_MAX_LEVEL + 1]; /* canonical empty node of each level (0 = not made) */

    /* the universe: a square of level root_level centred on (0, 0), covering
     * [-2^(L-1), 2^(L-1)) in x and y */
    uint32_t root;
    int root_level;

    /* nodes held by frames of the recursion, protected from garbage collection */
    uint32_t *stack;
    size_t sp, stack_cap;
    /* the batched recursion's scratch, one frame a level, made on first use (hashlife.c,
     * "batches"; NULL until then) */
    struct hl_bframe **bframes;
    int batch;          /* results in batches (hashlife.c; 0: the plain recursion, as
                           WL_HASHLIFE_BATCH=0 asks, for comparisons) */
    int batch_most;     /* statistics: the largest batch so far */
    int gc_trees_only;  /* tests: collections keep only what the trees and the protect stack
                           reach (no recent results), so that a node a frame forgot to
                           protect goes at once */

    /* step state */
    int step_exp;       /* the current step is 2^step_exp generations */
    wl_status failure;  /* set when the recursion must unwind (interrupt, out of memory) */
    uint32_t poll_countdown;
    uint64_t gc_count;
    uint64_t ticks;     /* results computed so far */
    int tick_shift;     /* the clock of the results' stamps is ticks >> tick_shift */

    /* populations of nodes of levels HL_POP_MIN_LEVEL .. 30 (hl_query.c): an open-
     * addressing map from node index (0: an empty slot) to population, made on demand */
    uint32_t *pop_keys;
    uint64_t *pop_vals;
    size_t pop_cap, pop_count;

    /* parallel steps (hashlife.c, "threads"): every thread runs the recursion on a context
     * of its own that shares the master's store */
    struct hl_ctx *master; /* the context whose store is shared (itself on the master) */
    int par;               /* a parallel step runs: nodes are made through the shared path */
    uint8_t ord9[9], ord4[4]; /* the order this thread visits the sub-squares in */
    int tid;               /* this thread's number in parallel steps (0: the master) */
    uint32_t spare;        /* a node made for an insertion another thread won, reused next */
    uint32_t credit;       /* nodes this thread has counted live and not made yet */
    uint32_t chunk_next, chunk_end; /* indices this thread took from the top of the store */
    /* master: HL_STOP_* (atomic), why the threads unwind; read by every thread all the
     * time, so on a cache line of its own (beside the fields this thread writes at every
     * node, the others' reads would miss every time) */
    char stop_pad0[64];
    int stop;
    char stop_pad1[64];
    int nthreads;          /* master: threads of a parallel step (1: serial) */
    uint64_t last_ticks;   /* master: results the last step computed (is the next parallel?) */
    int stepped;           /* master: a step was made (last_ticks says something) */
    uint32_t par_root;     /* master: the root's result a parallel step found */
    wl_pool *pool;
    struct hl_ctx *helpers; /* nthreads - 1 contexts, with stacks of their own */
    uint64_t par_steps, par_retries; /* statistics (WL_HASHLIFE_STATS=1 prints them) */
    uint64_t par_ticks[2];  /* results of parallel steps computed by the master, the others */
} hl_ctx;

/* ---- node store (hashlife.c) ---- */
/* Returns the canonical node with these children (level = level of children + 1), or 0 on
 * failure (ctx->failure set).  Children must be protected or reachable from the root. */
uint32_t hl_node_make(hl_ctx *h, uint32_t nw, uint32_t ne, uint32_t sw, uint32_t se);
/* Returns the canonical leaf with these 64 cells, or 0 on failure. */
uint32_t hl_leaf_make(hl_ctx *h, uint64_t bits);
/* The same with a chain of planes (HL_LEAF_MARK: none), and a link of a chain (multi-state
 * rules, see above); 0 on failure.  `chain` and `next` must be protected. */
uint32_t hl_leaf_make_chain(hl_ctx *h, uint64_t bits, uint32_t chain);
uint32_t hl_plane_make(hl_ctx *h, uint32_t lo, uint32_t hi, uint32_t next);
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
/* The 16x16 square's four words as one vector (the vector extension of GCC and clang:
 * one AVX2 operation, two SSE2 ones, or four word operations, whatever the target; lanes
 * moved by __builtin_shufflevector, GCC 12 and clang); HL_V4(w) is the array w[4] as such
 * a vector. */
typedef uint64_t hl_v4 __attribute__((vector_size(32), aligned(8), may_alias));
#define HL_V4(w) (*(hl_v4 *)(void *)(w))
/* Advances the 16x16 square made of four leaves by `gens` (1, 2 or 4) generations and
 * returns its centre 8x8 as leaf bits. */
uint64_t hl_leaf_step(const hl_ctx *h, uint64_t nw, uint64_t ne, uint64_t sw, uint64_t se,
                      int gens);
/* hl_leaf_step of an outer-totalistic rule by one of its compiled forms (tests): isa 0
 * portable, 1 AVX2, 2 AVX-512VL; 0 where the machine lacks that isa's instructions. */
int hl_leaf_step_isa(const hl_ctx *h, int isa, uint64_t nw, uint64_t ne, uint64_t sw,
                     uint64_t se, int gens, uint64_t *out);
/* The best of those forms the machine runs (hl_ctx.leaf_isa). */
int hl_leaf_best_isa(void);
/* The centre 8x8 of the 16x16 square made of four leaves (no time step). */
uint64_t hl_leaf_centre(uint64_t nw, uint64_t ne, uint64_t sw, uint64_t se);
/* The pieces of hl_leaf_step, for the multi-state base case: the 16x16 square of four
 * leaves as four words (rows 4i..4i+3 in w[i], 16 bits a row), its centre 8x8 as leaf
 * bits, and one generation of the two-state rule on it in place (the outer ring of cells
 * goes wrong each generation, as in hl_leaf_step). */
void hl_square_assemble(uint64_t nw, uint64_t ne, uint64_t sw, uint64_t se, uint64_t w[4]);
uint64_t hl_square_centre(const uint64_t w[4]);
void hl_square_gen(const hl_ctx *h, uint64_t w[4]);
/* Builds h->leaf_table for a rule that is not outer-totalistic (64 KiB, about a tenth
 * of a millisecond); WL_ERR_NOMEM on failure. */
wl_status hl_leaf_table_init(hl_ctx *h);

/* ---- multi-state rules (hl_states.c) ---- */
/* Sets up h->nplanes and the rest for a multi-state rule (does nothing for a two-state
 * one); WL_ERR_UNSUPPORTED for what HashLife cannot run (Larger than Life, B0). */
wl_status hl_states_init(hl_ctx *h);
/* planes[i] = bit i of (state - 1) of the leaf's cells, i < h->nplanes. */
void hl_leaf_planes(const hl_ctx *h, uint32_t leaf, uint64_t *planes);
/* The leaf with these live cells and planes (bits outside `live` ignored); 0 on failure. */
uint32_t hl_leaf_make_planes(hl_ctx *h, uint64_t live, const uint64_t *planes);
/* The base case for multi-state rules: the 16x16 square of four leaves advanced `gens`
 * (1, 2 or 4) generations, its centre 8x8 as a leaf; 0 on failure. */
uint32_t hl_states_step(hl_ctx *h, const uint32_t leaf[4], int gens);
/* The centre 8x8 of four leaves (no time step), as a leaf; 0 on failure. */
uint32_t hl_states_centre(hl_ctx *h, const uint32_t leaf[4]);
/* Renders a multi-state universe with the states' colours (through a snapshot). */
wl_status hl_states_render(hl_ctx *h, const wl_view *v, uint32_t *rgba);

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
