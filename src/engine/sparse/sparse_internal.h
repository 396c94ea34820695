/*
 * sparse_internal.h - what the files of the sparse engine share: the tile and the hash map
 * of tiles (sparse_map.c).  sparse.c explains the algorithm.
 */
#ifndef WL_SPARSE_INTERNAL_H
#define WL_SPARSE_INTERNAL_H

#include "internal.h"

#include <stdint.h>

/* A sleeping tile's cells, packed (sparse_map.c): its generation of parity 0 in full, and
 * of parity 1 only where it differs (the ash of a soup is still lifes and blinkers: a few
 * rows a tile), about half the memory of the two generations. */
typedef struct sp_packed {
    uint64_t diff_rows;       /* bit r: row r differs between the two generations */
    uint64_t base[WL_TILE];   /* the generation of parity 0 */
    uint64_t diff[];          /* row r of parity 1 XOR row r of parity 0, for each bit r set */
} sp_packed;

/* A 64 x 64 tile of the plane (WL_TILE, layout of wl_tile_job): rows[g & 1] holds the tile
 * at generation g, for the current generation and the one before, in a block of its own
 * (64-byte aligned); or rows is NULL and `packed` holds them, while the tile and all its
 * neighbours sleep.  Tiles that do not exist are dead at both. */
typedef struct sp_tile {
    uint64_t (*rows)[WL_TILE];
    sp_packed *packed;
    struct sp_tile *nb[8]; /* neighbours N, NE, E, SE, S, SW, W, NW (the zero tile: none) */
    uint64_t (*nb_rows[8])[WL_TILE]; /* nb[d]->rows, kept here so that a round reads no
                                        neighbour's header (NULL: it is packed) */
    int64_t tx, ty;
    /* Per round parity k (the round that computes generation g + 1 from g, g & 1 == k):
     * the bricks (WL_BRICK rows) to compute; the tile is on that round's list exactly when
     * they are not zero.  Two, so that a tile marks the next round while the current one
     * runs. */
    uint8_t wake[2];
    uint8_t edited; /* cells were set from outside since its last computation */
    uint8_t zero;   /* the shared all-dead tile that stands for missing neighbours */
    uint8_t ship;   /* during a search for ships: a ship is being taken from this tile */
    uint8_t owner;  /* the thread that computes it in threaded rounds (sparse.c, "Threads") */
    uint8_t edge;   /* a row next to it has another owner: threads may wake it at once */
    uint32_t stepped; /* the generation (mod 2^32) at which it was last computed */
    uint8_t scan_skip, scan_miss; /* searches to skip, and log2 of that after each that
                                     found no ship here (an oscillator is not searched
                                     again and again) */
} sp_tile;

/* An open-addressing hash map from tile coordinates to tiles (linear probing, deletion by
 * backward shift), plus the allocator of the tiles and their blocks of cells. */
typedef struct sp_map {
    sp_tile **slot;
    size_t cap, count; /* cap is a power of two, count < cap / 2 */
    void **free_tiles;
    size_t nfree, free_cap;
    void **free_blocks; /* blocks of cells (2 x 64 words) to reuse */
    size_t nblocks_free, blocks_free_cap;
    size_t npacked, packed_bytes; /* packed tiles, and their bytes */
} sp_map;

wl_status sp_map_init(sp_map *m);
void sp_map_free(sp_map *m);
/* Removes and frees every tile. */
void sp_map_clear(sp_map *m);
/* The tile at (tx, ty), or NULL. */
sp_tile *sp_map_find(const sp_map *m, int64_t tx, int64_t ty);
/* The tile at (tx, ty), created all dead (every field zero, its cells unpacked) if missing;
 * NULL on out of memory (error set). */
sp_tile *sp_map_get(sp_map *m, int64_t tx, int64_t ty);
/* Removes the tile from the map and recycles it. */
void sp_map_remove(sp_map *m, sp_tile *t);
/* Packs tile t's cells (it sleeps, and so do its neighbours); 0 when that would not save
 * memory (many rows differ) or there is no memory for it. */
int sp_pack(sp_map *m, sp_tile *t);
/* Unpacks tile t's cells (nothing if they are not packed); fails only on out of memory. */
wl_status sp_unpack(sp_map *m, sp_tile *t);
/* Row r of tile t's generation of parity `par`, packed or not. */
static inline uint64_t sp_row(const sp_tile *t, unsigned par, int r) {
    if (t->rows) return t->rows[par][r];
    const sp_packed *p = t->packed;
    uint64_t w = p->base[r], bit = (uint64_t)1 << r;
    if (par && (p->diff_rows & bit))
        w ^= p->diff[wl_popcount64(p->diff_rows & (bit - 1))];
    return w;
}
/* The box of the cells of rows[0..n) (bit b of rows[r]: the cell (b, r)): box[0..3] =
 * first column, first row, last column, last row; 0 when there are none. */
static inline int sp_rows_box(const uint64_t *rows, int n, int box[4]) {
    uint64_t or = 0;
    int r0 = -1, r1 = -1;
    for (int r = 0; r < n; r++) {
        if (!rows[r]) continue;
        or |= rows[r];
        if (r0 < 0) r0 = r;
        r1 = r;
    }
    if (!or) return 0;
    box[0] = __builtin_ctzll(or);
    box[1] = r0;
    box[2] = 63 - __builtin_clzll(or);
    box[3] = r1;
    return 1;
}

/* A row word w of cells from column x on, split over the tiles it lies in: tile column
 * *tx gets part[0], tile column *tx + 1 part[1] (0 when x is a multiple of 64). */
static inline void sp_word_parts(int64_t x, uint64_t w, int64_t *tx, uint64_t part[2]) {
    unsigned sh = (unsigned)wl_mod(x, WL_TILE);
    *tx = wl_floordiv(x, WL_TILE);
    part[0] = w << sh;
    part[1] = sh ? w >> (64 - sh) : 0;
}

/* Tile t's generation of parity `par`: its rows, or tmp filled with them when packed. */
static inline const uint64_t *sp_rows(const sp_tile *t, unsigned par, uint64_t *tmp) {
    if (t->rows) return t->rows[par];
    for (int r = 0; r < WL_TILE; r++) tmp[r] = sp_row(t, par, r);
    return tmp;
}

/* ---- the engine's state (sparse.c), shared with the ships (sparse_ships.c) ---------- */

typedef struct sp_list {
    sp_tile **t;
    size_t n, cap;
} sp_list;

/* A neighbour to make and wake after a threaded round (threads do not touch the map). */
typedef struct sp_defer {
    sp_tile *t;
    int d;
    unsigned bricks;
} sp_defer;

#define SP_OWNERS_MAX 64 /* owners of tiles (threads beyond this many only help out) */

/* What one thread gathers during a round (each on cache lines of its own: threads write
 * their lists at every tile). */
typedef struct __attribute__((aligned(64))) sp_worker {
    sp_list *next;   /* tiles it put on the next round's list, one list per owner */
    sp_list quiet;   /* tiles it computed that did not change and are dead where computed:
                        perhaps dead everywhere */
    sp_list unpack;  /* tiles it listed that are packed or have packed neighbours */
    sp_defer *defer; /* missing neighbours to make (threaded rounds only) */
    size_t ndefer, defer_cap;
    wl_status fail;  /* first failure (out of memory, edge of the plane) */
    double busy;     /* seconds it spent on its part of the last threaded round */
} sp_worker;

#define SP_COORD_MAX ((int64_t)1 << 56) /* tile coordinates stay within +-2^56 */

/* ---- ships (sparse_ships.c) ---------------------------------------------------------- */

#define SP_SHIP_MAXP 32   /* longest period looked for */
#define SP_SHIP_MAXBOX 32 /* widest and tallest ship, in cells */

/* A kind of ship: an object that, alone on the plane, is itself again after p
 * generations, moved by (dx, dy) != (0, 0).  Phase j is the object j generations after
 * its phase 0, as rows of cells relative to the ship's anchor: bit i of rows[r] is the cell
 * (x0 + i, y0 + r). */
typedef struct sp_phase {
    int x0, y0, w, h;
    unsigned pop;
    uint64_t rows[SP_SHIP_MAXBOX];
} sp_phase;

typedef struct sp_ship_type {
    unsigned p;
    int dx, dy;
    int hx0, hy0, hx1, hy1; /* the hull: every phase's cells lie in it (inclusive) */
    int reach; /* every cell lies within this of where the anchor would be at the mean
                  speed, on both axes (the hull, and a step) */
    sp_phase ph[SP_SHIP_MAXP];
} sp_ship_type;

/* A ship in flight: at generation g0 it is in phase 0 with its anchor at (ax, ay); it
 * lives outside the tiles until generation `horizon`, by which nothing else can have come
 * near it, and is looked at again then. */
typedef struct sp_ship {
    const sp_ship_type *type;
    int64_t ax, ay;
    uint64_t g0, horizon;
    double vx, vy; /* its velocity: where it is, roughly, without a division (ship_near) */
    uint64_t last_k; /* its last horizon, less the generation of that look */
    uint64_t born;   /* the generation it was taken out of the tiles */
} sp_ship;

typedef struct sp_ships {
    int enabled;      /* WL_SPARSE_SHIPS=off clears it */
    sp_ship *s;
    size_t n, cap;
    sp_ship_type **types;
    size_t ntypes, types_cap;
    uint64_t next;      /* the earliest horizon (UINT64_MAX: no ships) */
    uint64_t scan_next; /* the generation of the next search for ships among the tiles */
    uint64_t scan_gens; /* generations between two searches (sparse_ships.c, "Taking a
                           ship out": longer while the ships taken out land soon) */
    uint64_t took, wasted; /* ships taken out, and ships landed soon after, lately (each
                              halved whenever the interval is set) */
    uint64_t *frames;   /* scratch: SP_SHIP_MAXP + 1 tiles of a ship's trial run */
    uint64_t st_found, st_landed, st_checks, st_tried;
} sp_ships;

/* A box of tiles, inclusive. */
typedef struct sp_box {
    int64_t x0, y0, x1, y1;
} sp_box;

typedef struct sp_ctx {
    wl_config cfg;
    const wl_engine_ops *inner;
    wl_tile_kernel tk;
    uint64_t work_total; /* tile steps (and rounds) so far: tk.compile_later asks for the
                            compiled network once it reaches upgrade_work (sparse.c,
                            upgrade_kernel) */
    uint64_t upgrade_work; /* UPGRADE_WORK, or WL_SPARSE_UPGRADE (tests) */
    wl_pool *pool;
    int nthreads;
    int active;          /* the threads rounds may use now (set_threads: the race of the
                            "auto" engine shares the cores with HashLife) */
    int help;            /* WL_SPARSE_HELP=1 (tests) */
    size_t parallel_min; /* rounds of fewer tiles stay on one thread */
    int force_threads;   /* WL_SPARSE_PARALLEL=n: rounds of n tiles or more always use the
                            threads (tests and tuning) */
    int last_nw;         /* threads of the last round (see pick_threads) */
    /* whether the threads pay (see pick_threads): the threaded rounds' wall time and their
     * threads' busy time since the last judgement, and rounds run on one thread until
     * generation solo_until, for solo_gens at the next failure */
    double pay_wall, pay_busy;
    uint64_t solo_until, solo_gens;
    sp_worker *workers; /* one per thread */
    int nown;           /* owners of tiles: min(nthreads, SP_OWNERS_MAX) */
    /* c->next grouped by owner (as the rounds leave it): owner o's tiles end at
     * next_end[o]; 0 when something else added to or took from the list */
    int grouped;
    int by_owner;       /* wakes go on the workers' list of the tile's owner (else list 0) */
    int exclusive;      /* each owner's part is computed by its own thread alone (no
                           helping), so only edge tiles are woken by two threads at once;
                           while fewer threads than owners run (set_threads), they help */
    int64_t cut[SP_OWNERS_MAX]; /* owner o has the tile rows from cut[o - 1] to cut[o] - 1
                                   (see sparse.c, "Threads") */
    uint64_t rebalance_next;    /* the generation from which the bands may be cut again */
    size_t next_end[SP_OWNERS_MAX], round_end[SP_OWNERS_MAX];
    uint64_t *cursors;  /* threaded rounds: what is left of owner o's part of the round at
                           cursors[8 o] (each on a cache line of its own; see take_batch) */
    sp_map map;
    unsigned par;     /* parity of the current generation: rows[par] is the plane now */
    sp_list next;     /* the tiles of the next round (wake[par] set) */
    sp_list round;    /* the tiles of the running round */
    sp_list unpack;   /* listed tiles to unpack, with their neighbours, before the next
                         round (the workers' unpack lists, gathered) */
    int resync;       /* the last round's bookkeeping failed: wake everything first */
    wl_status fail;   /* why tile_get last returned NULL */
    uint64_t poll_work; /* tile steps and rounds since the poll callback was last called */
    uint64_t gen;       /* generations stepped since the universe was made */
    uint64_t pack_next; /* the generation of the next packing of sleeping tiles */
    int all_packed;     /* no round since every sleeping tile was packed */
    sp_ships ships;     /* objects flying alone, outside the tiles (sparse_ships.c) */
    /* dense passes: the cpu engine on a bounded grid (its size) */
    int dense_mode;     /* 0 off, 1 by the thresholds, 2 always (WL_SPARSE_DENSE, tests) */
    uint64_t dense_next; /* the generation of the next look for a dense core */
    unsigned dense_ends; /* chains that ended because the pattern thinned out */
    void *grid_ctx;
    uint64_t grid_w, grid_h;
    uint64_t *strip;      /* 64 rows of the grid: how the box goes in */
    int64_t live_t0, live_t1; /* the grid's tile rows that may hold live cells */
    uint64_t *gchg;       /* per grid tile: the last pass's change records (dense_chg_strip) */
    uint8_t *gwake;       /* per grid tile: the marks they make (chain_next) */
    struct sp_mark *marks; /* scratch: the tiles a dense core is sought among */
    size_t marks_cap;
    int64_t gx0, gy0;     /* the plane's tile at grid tile (0, 0) */
    int chain;            /* a chain is on (sparse.c, "Chains"): the grid, not the tiles, holds
                             the interior of cbox at the current generation */
    sp_box cbox;          /* the box of the chain's last pass */
    /* statistics (WL_SPARSE_STATS=1 prints them when the universe is freed) */
    int stats;
    uint64_t st_rounds, st_tiles, st_bricks, st_parallel, st_dense, st_dense_gens;
    uint64_t st_chained, st_moved; /* passes that went on from a chain, and that moved the
                                      grid under it (kept always: the tests read them) */
} sp_ctx;


/* Ships (sparse_ships.c). */
wl_status sp_ships_init(sp_ctx *c);
void sp_ships_free(sp_ctx *c);
/* Looks for ships among the listed tiles and takes them out of the tiles.  Between rounds. */
wl_status sp_ships_scan(sp_ctx *c);
/* Looks again at the ships whose horizon is the current generation: each flies on with a
 * new horizon, or lands (goes back into the tiles) when something may come near it. */
wl_status sp_ships_due(sp_ctx *c);
/* Lands every ship (before cells are set from outside). */
wl_status sp_ships_land_all(sp_ctx *c);
/* Forgets every ship (a new pattern). */
void sp_ships_clear(sp_ctx *c);
/* Ship i at the current generation: its cells are rows[0..h) at (x, y) (bit b of rows[r]
 * is the cell (x + b, y + r)); returns h. */
int sp_ship_cells(const sp_ctx *c, size_t i, int64_t *x, int64_t *y, const uint64_t **rows);

/* The tile at (tx, ty), created (dead, linked to its neighbours) if missing; NULL with
 * c->fail set when out of memory or beyond the edge of the plane. */
sp_tile *sp_tile_get(sp_ctx *c, int64_t tx, int64_t ty);
/* Wakes every brick within one cell of the box [x0, x1] x [y0, y1] of cells, where cells
 * were changed at both generations in a way that keeps them exact.  Between rounds. */
wl_status sp_wake_box(sp_ctx *c, int64_t x0, int64_t y0, int64_t x1, int64_t y1);
/* Cells of t were set from outside: it is computed whole in the next two rounds, and the
 * edges around it in the next one.  Between rounds only. */
wl_status sp_edited(sp_ctx *c, sp_tile *t);

#endif
