/*
 * sparse.c - the `sparse` engine: the unbounded plane as a hash map of 64 x 64 bit-packed
 * tiles, of which only the parts that can change are computed, by the cpu engine's tile
 * kernels (its SIMD logic on rows stacked in vectors).
 *
 * The plane.  A tile holds its 64 rows twice: rows[g & 1] is the tile at generation g, for
 * the current generation t and the previous one (bit b of rows[.][r] is the cell
 * (64 tx + b, 64 ty + r)).  Tiles that do not exist are dead at both.  Tiles live in a hash
 * map keyed by (tx, ty) (sparse_map.c) and know their eight neighbours by pointer (a
 * shared all-dead tile where there is none), so that stepping never hashes.  They are made
 * where activity reaches and freed when they are dead at both generations and quiet.
 * Coordinates are 64-bit: tiles up to 2^56 from the origin, cells up to 2^62.
 *
 * Rounds.  The engine advances one generation per round; a round computes generation
 * t + 1 of some bricks (8-row strips of a tile) into rows[(t + 1) & 1], which held
 * generation t - 1.  A brick that is not computed keeps generation t - 1 as its
 * generation t + 1, which is right exactly when nothing near it changed between t - 2 and
 * t: if s(t) = s(t - 2) on every cell within distance 1 of a cell x, then
 * s(t + 1)(x) = f(s(t) around x) = f(s(t - 2) around x) = s(t - 1)(x).  So still lifes
 * and period-2 oscillators (blinkers, beehives, the ash of a soup) cost nothing, and their
 * two phases take turns for free as the parity of t flips: a pattern that is entirely
 * still or period 2 is stepped by any number of generations at once.
 *
 * What to compute.  The tile kernel compares each new brick with the old contents of its
 * rows (generation t - 1 against t + 1) and reports the rows that changed, and the rows
 * where column 0 or column 63 changed.  After the round, each computed tile wakes, for the
 * next round, the bricks within one row of its changed rows, and in its neighbours the
 * bricks next to a changed edge row or column (the northern tile's last brick when row 0
 * changed, the western tile's bricks next to the rows where column 0 changed, and so on,
 * diagonals included), creating missing neighbours on the way.  Only woken bricks are
 * computed; a glider costs one or two bricks per generation, a dense soup every brick.
 * Cells set from outside (loads, edits, cells moved in by the "auto" handover) break the
 * premise s(t) = f(s(t - 1)) at those cells, so an edited tile is computed whole in the
 * next two rounds and its neighbours' bricks next to it in the next one.
 *
 * Threads.  A round's tiles are independent (each reads generation t of itself and its
 * neighbours and writes only its own other half), so large rounds are spread over the
 * thread pool; the bookkeeping (waking, making and freeing tiles) runs on one thread.
 * Small rounds run on the calling thread alone: waking a thread costs more than a glider.
 * So do all rounds for a while when the threads stop paying for themselves (a round waits
 * for its slowest thread, and one that shares its core with another program makes every
 * round wait out the other's time slices; see judge_pay).
 * Each tile has an owner: the threads own bands of tile rows, cut so that each holds
 * about as many of a round's tiles (and cut again when a round finds them uneven).  A
 * threaded round's list is grouped by owner (each thread files the tiles it wakes under
 * their owners), and each thread computes its own tiles and no others, so that a tile, its
 * neighbours and its marks stay in one core's cache from round to round: on the dev VM's
 * two cores a tile step cost 1.65x as much when neighbouring tile rows belonged to
 * different threads (stripes of two rows dealt round) as on one thread.  Then only the
 * tiles of the rows next to another band (edges) can be woken by two threads at once, and
 * only their wake marks are set by atomic operations: the 2048^2 soup's rounds from
 * generation 1152 to 4000 took 8 ms less without any atomics, and 10 ms less without
 * threads helping with each other's parts (WL_SPARSE_HELP=1 brings helping back, and
 * atomics for every tile: the faster thread took batches from the back of the other's
 * part, and those tiles changed cores).
 *
 * Ships and packing.  Objects that fly alone (a soup's gliders) are taken out of the tiles
 * and moved by arithmetic until something may come near them (sparse_ships.c), and tiles
 * that sleep beside sleeping neighbours keep their two generations packed (sparse_map.c),
 * unpacked before a round reads them.
 *
 * Why it is fast: a brick is 512 cells updated by about 26 vector instructions, the same
 * logic as the dense cpu engine's; a settled soup costs only its few oscillators of period
 * 3 or more (its gliders fly as ships); and nothing is ever copied or hashed while stepping.
 */
#include "sparse_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PARALLEL_TILES 32   /* rounds with fewer tiles than this run on one thread */
#define PARALLEL_WAKE 256   /* rounds with this many tiles wake the threads (pick_threads) */
#define THREAD_BATCH 16     /* tiles a thread takes at a time */
#define REBALANCE_GENS 16   /* generations between two cuts of the owners' bands */
#define PAY_SECONDS 0.002   /* threaded rounds' time between two judgements of the threads */
#define PAY_SHARE 0.8       /* they pay if their wall time is under this share of their busy
                               time */
#define SOLO_MIN_GENS 64    /* generations on one thread when they do not pay, at first */
#define SOLO_MAX_GENS 8192  /* and at most */
#define PACK_GENS 256       /* generations between two packings of sleeping tiles */
#define POLL_WORK 65536     /* tile steps (plus rounds) between two checks of the poll
                               callback: some milliseconds */
#define UPGRADE_WORK (1u << 20) /* tile steps (about 0.2 s of vpermb lookups) before a rule
                                   gets its network compiled (see upgrade_kernel) */
/* Dense passes (see "dense passes" below). */
#define DENSE_GENS 64        /* generations per pass: what a margin tile can absorb */
#define DENSE_MIN_GENS 16    /* shorter steps stay on rounds */
#define DENSE_RECHECK 8      /* rounds between two looks for a dense core */
#define DENSE_MIN_TILES 64   /* listed tiles for a pass */
#define DENSE_FILL 0.5       /* listed tiles / tiles of their bounding box, at least */
#define DENSE_BRICKS 0.5     /* woken bricks / bricks of the listed tiles, at least */
#define DENSE_MAX_CELLS ((uint64_t)1 << 28) /* largest grid of a pass */

static const int DX[8] = {0, 1, 1, 1, 0, -1, -1, -1};
static const int DY[8] = {-1, -1, 0, 1, 1, 1, 0, -1};

static const char *const kernel_names[] = {"best",      "avx512", "avx2",   "vpermb", "circuit",
                                           "bitsliced", "lut6x3", "lut4x4", NULL};

/* The tile that stands for every missing neighbour: dead at both generations, never
 * computed, never written. */
static uint64_t zero_block[2][WL_TILE] __attribute__((aligned(64)));
static sp_tile zero_tile = {.rows = zero_block, .zero = 1};

static wl_status list_push(sp_list *l, sp_tile *t) {
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 1024;
        sp_tile **n = realloc(l->t, cap * sizeof *n);
        if (!n) return wl_error(WL_ERR_NOMEM, "sparse engine: out of memory (%zu tiles)", cap);
        l->t = n;
        l->cap = cap;
    }
    l->t[l->n++] = t;
    return WL_OK;
}

/* Appends list b to list a. */
static wl_status list_append(sp_list *a, const sp_list *b) {
    if (a->n + b->n > a->cap) {
        size_t cap = a->cap ? a->cap : 1024;
        while (cap < a->n + b->n) cap *= 2;
        sp_tile **n = realloc(a->t, cap * sizeof *n);
        if (!n) return wl_error(WL_ERR_NOMEM, "sparse engine: out of memory (%zu tiles)", cap);
        a->t = n;
        a->cap = cap;
    }
    if (b->n) memcpy(a->t + a->n, b->t, b->n * sizeof *b->t);
    a->n += b->n;
    return WL_OK;
}

/* Calls the body for every tile t of the map. */
#define FOR_EACH_TILE(c, t)                                                                 \
    for (size_t i_ = 0; i_ < (c)->map.cap; i_++)                                            \
        for (sp_tile *t = (c)->map.slot[i_]; t; t = NULL)

/* ---- tiles and their neighbour links ---------------------------------------------------- */

/* The owner of the tiles of row ty: the band of c->cut it lies in (see "Threads"). */
static inline uint8_t owner_of(const sp_ctx *c, int64_t ty) {
    int lo = 0, hi = c->nown - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (ty < c->cut[mid]) hi = mid;
        else lo = mid + 1;
    }
    return (uint8_t)lo;
}

/* Gives tile t its owner, and says whether it is an edge (see sp_tile). */
static inline void set_owner(const sp_ctx *c, sp_tile *t) {
    t->owner = owner_of(c, t->ty);
    t->edge = owner_of(c, t->ty - 1) != t->owner || owner_of(c, t->ty + 1) != t->owner;
}

/* The tile at (tx, ty), created (dead, linked to its neighbours) if missing; NULL with
 * c->fail set when out of memory or beyond the edge of the plane. */
sp_tile *sp_tile_get(sp_ctx *c, int64_t tx, int64_t ty) {
    if (tx > SP_COORD_MAX || tx < -SP_COORD_MAX || ty > SP_COORD_MAX || ty < -SP_COORD_MAX) {
        c->fail = wl_error(WL_ERR_TOO_BIG, "sparse engine: the pattern reached 2^62 cells "
                                           "from the origin, the edge of the engine's plane");
        return NULL;
    }
    size_t before = c->map.count;
    sp_tile *t = sp_map_get(&c->map, tx, ty);
    if (!t) c->fail = WL_ERR_NOMEM;
    if (!t || c->map.count == before) return t;
    set_owner(c, t);
    for (int d = 0; d < 8; d++) {
        sp_tile *n = sp_map_find(&c->map, tx + DX[d], ty + DY[d]);
        t->nb[d] = n ? n : &zero_tile;
        t->nb_rows[d] = t->nb[d]->rows;
        if (n) {
            n->nb[d ^ 4] = t;
            n->nb_rows[d ^ 4] = t->rows;
        }
    }
    return t;
}

static void tile_remove(sp_ctx *c, sp_tile *t) {
    for (int d = 0; d < 8; d++)
        if (!t->nb[d]->zero) {
            t->nb[d]->nb[d ^ 4] = &zero_tile;
            t->nb[d]->nb_rows[d ^ 4] = zero_tile.rows;
        }
    sp_map_remove(&c->map, t);
}

static int tile_dead(const sp_tile *t) {
    uint64_t any = 0;
    for (int r = 0; r < WL_TILE; r++) any |= sp_row(t, 0, r) | sp_row(t, 1, r);
    return any == 0;
}

/* ---- waking ------------------------------------------------------------------------- */

/* Bit k set where byte k of m is not zero: the bricks holding the rows of m. */
static inline unsigned bricks_of(uint64_t m) {
    m |= m >> 4;
    m |= m >> 2;
    m |= m >> 1;
    m &= 0x0101010101010101ull;
    return (unsigned)((m * 0x0102040810204080ull) >> 56);
}

/* Puts tile u on worker w's unpack list if it or a neighbour holds its cells packed (out
 * of line: wake_tile is inlined at every wake). */
static __attribute__((noinline)) wl_status note_packed(sp_worker *w, sp_tile *u) {
    int any = u->packed != NULL;
    for (int d = 0; d < 8; d++) any |= u->nb_rows[d] == NULL;
    return any ? list_push(&w->unpack, u) : WL_OK;
}

/* Wakes bricks of tile u in the round of parity k.  `shared`: a threaded round, where other
 * threads may wake u at the same time if it is an edge or threads help each other (a
 * literal at every call, so the atomics fold away when it is 0).  A tile newly listed
 * beside packed cells goes on the worker's unpack list: a round reads only unpacked tiles,
 * and no tile beside a listed one is packed (pack_sleepers), so the round unpacks just
 * those (it used to look at every listed tile's neighbours first, a serial pass over the
 * round's headers). */
static inline wl_status wake_tile(sp_ctx *c, sp_worker *w, sp_tile *u, unsigned k,
                                  unsigned bricks, int shared) {
    /* a tile is listed exactly when it has bricks to compute, so the wake that makes its
     * marks non-zero lists it: one atomic operation a new mark, a plain read for a mark
     * already made */
    if (shared && (u->edge || !c->exclusive)) {
        if ((__atomic_load_n(&u->wake[k], __ATOMIC_RELAXED) & bricks) == bricks) return WL_OK;
        if (__atomic_fetch_or(&u->wake[k], (uint8_t)bricks, __ATOMIC_RELAXED)) return WL_OK;
    } else {
        const uint8_t old = u->wake[k];
        u->wake[k] = (uint8_t)(old | bricks);
        if (old) return WL_OK;
    }
    /* (c->map.npacked changes only between rounds) */
    if (c->map.npacked) {
        wl_status s = note_packed(w, u);
        if (s) return s;
    }
    return list_push(&w->next[c->by_owner ? u->owner : 0], u);
}

/* Moves what worker w woke onto the next round's list (outside rounds). */
static wl_status worker_flush(sp_ctx *c, sp_worker *w) {
    wl_status s = list_append(&c->unpack, &w->unpack);
    w->unpack.n = 0;
    for (int o = 0; o < c->nown; o++) {
        if (!w->next[o].n) continue;
        c->grouped = 0;
        wl_status a = list_append(&c->next, &w->next[o]);
        if (!s) s = a;
        w->next[o].n = 0;
    }
    return s;
}

/* Wakes bricks of neighbour d of t in the round of parity k, making the neighbour if it is
 * missing (a threaded round defers that to the end of the round). */
static inline wl_status wake_nb(sp_ctx *c, sp_worker *w, sp_tile *t, int d, unsigned k,
                                unsigned bricks, int shared) {
    sp_tile *u = t->nb[d];
    if (u->zero) {
        if (shared) {
            if (w->ndefer == w->defer_cap) {
                size_t cap = w->defer_cap ? 2 * w->defer_cap : 256;
                sp_defer *n = realloc(w->defer, cap * sizeof *n);
                if (!n) return wl_error(WL_ERR_NOMEM, "sparse engine: out of memory");
                w->defer = n;
                w->defer_cap = cap;
            }
            w->defer[w->ndefer++] = (sp_defer){t, d, bricks};
            return WL_OK;
        }
        u = sp_tile_get(c, t->tx + DX[d], t->ty + DY[d]);
        if (!u) return c->fail;
    }
    return wake_tile(c, w, u, k, bricks, shared);
}

/* Wakes, in the round of parity k, what a change of tile t in rows chg (column 0 in chg_w,
 * column 63 in chg_e) can affect in the next generation: the bricks within one row of it,
 * in t and around it. */
static inline wl_status wake_around(sp_ctx *c, sp_worker *w, sp_tile *t, unsigned k,
                                    uint64_t chg, uint64_t chg_w, uint64_t chg_e, int shared) {
    wl_status s = WL_OK;
    if (!chg) return s;
    s = wake_tile(c, w, t, k, bricks_of(chg | chg << 1 | chg >> 1), shared);
    if (!s && (chg & 1)) s = wake_nb(c, w, t, WL_NB_N, k, 0x80, shared);
    if (!s && (chg >> 63)) s = wake_nb(c, w, t, WL_NB_S, k, 0x01, shared);
    if (!s && chg_w) {
        s = wake_nb(c, w, t, WL_NB_W, k, bricks_of(chg_w | chg_w << 1 | chg_w >> 1), shared);
        if (!s && (chg_w & 1)) s = wake_nb(c, w, t, WL_NB_NW, k, 0x80, shared);
        if (!s && (chg_w >> 63)) s = wake_nb(c, w, t, WL_NB_SW, k, 0x01, shared);
    }
    if (!s && chg_e) {
        s = wake_nb(c, w, t, WL_NB_E, k, bricks_of(chg_e | chg_e << 1 | chg_e >> 1), shared);
        if (!s && (chg_e & 1)) s = wake_nb(c, w, t, WL_NB_NE, k, 0x80, shared);
        if (!s && (chg_e >> 63)) s = wake_nb(c, w, t, WL_NB_SE, k, 0x01, shared);
    }
    return s;
}

/* Cells of t were set from outside: compute it and the edges around it in the next round,
 * and t again in the round after (see the essay).  Outside rounds (one thread). */
wl_status sp_edited(sp_ctx *c, sp_tile *t) {
    t->edited = 1;
    const uint64_t all = ~(uint64_t)0;
    sp_worker *w = &c->workers[0];
    wl_status s = wake_around(c, w, t, c->par, all, all, all, 0);
    wl_status s2 = worker_flush(c, w);
    return s ? s : s2;
}

/* Wakes, for the next round, every brick within one cell of the box [x0, x1] x [y0, y1]
 * (making missing tiles): cells there were set from outside in a way that keeps the plane
 * exact at both generations (a ship landing or leaving).  Between rounds. */
wl_status sp_wake_box(sp_ctx *c, int64_t x0, int64_t y0, int64_t x1, int64_t y1) {
    sp_worker *w = &c->workers[0];
    wl_status s = WL_OK;
    x0--, y0--, x1++, y1++;
    for (int64_t ty = wl_floordiv(y0, WL_TILE); ty <= wl_floordiv(y1, WL_TILE) && !s; ty++) {
        int64_t r0 = y0 - ty * WL_TILE, r1 = y1 - ty * WL_TILE;
        if (r0 < 0) r0 = 0;
        if (r1 > WL_TILE - 1) r1 = WL_TILE - 1;
        uint64_t rows = (~(uint64_t)0 >> (63 - (r1 - r0))) << r0;
        for (int64_t tx = wl_floordiv(x0, WL_TILE); tx <= wl_floordiv(x1, WL_TILE) && !s; tx++) {
            sp_tile *t = sp_tile_get(c, tx, ty);
            s = t ? wake_tile(c, w, t, c->par, bricks_of(rows), 0) : c->fail;
        }
    }
    wl_status s2 = worker_flush(c, w);
    return s ? s : s2;
}

/* After a failed round: everything is computed in the next two rounds, as after a load. */
static wl_status resync(sp_ctx *c) {
    sp_list all = {0};
    wl_status s = WL_OK;
    for (size_t i = 0; i < c->map.cap && !s; i++) {
        sp_tile *t = c->map.slot[i];
        if (!t) continue;
        t->wake[0] = t->wake[1] = 0;
        s = list_push(&all, t);
    }
    c->next.n = 0;
    c->grouped = 0;
    for (size_t i = 0; i < all.n && !s; i++) s = sp_edited(c, all.t[i]);
    free(all.t);
    if (!s) c->resync = 0;
    return s;
}

/* ---- a round ------------------------------------------------------------------------- */

/* Computes tile t (generation t + 1 of its woken bricks) and wakes what its change
 * reaches, for the next round. */
static inline void compute_tile(sp_ctx *c, sp_worker *w, sp_tile *t, int shared) {
    const unsigned p = c->par;
    wl_tile_job j;
    for (int d = 0; d < 8; d++) j.in[d] = t->nb_rows[d][p];
    j.in[WL_NB_C] = t->rows[p];
    j.out = t->rows[p ^ 1];
    j.bricks = t->wake[p];
    t->stepped = (uint32_t)c->gen;
    t->wake[p] = 0;
    c->tk.step(&j, c->tk.data);
    wl_status s;
    if (t->edited) {
        t->edited = 0;
        const uint64_t all = ~(uint64_t)0;
        s = wake_around(c, w, t, p ^ 1, all, all, all, shared);
    } else if (j.chg) {
        s = wake_around(c, w, t, p ^ 1, j.chg, j.chg_w, j.chg_e, shared);
    } else if (!j.live) { /* quiet, and dead where computed: perhaps dead everywhere */
        s = list_push(&w->quiet, t);
    } else {
        s = WL_OK;
    }
    if (s && !w->fail) w->fail = s;
}

/* Where owner o's part of the grouped round starts in c->round (it ends at round_end[o]). */
static inline size_t part_start(const sp_ctx *c, int o) { return o ? c->round_end[o - 1] : 0; }

/* Takes the next batch of owner o's part of the round: from its front for the owner,
 * from its back for a helper (so that the two meet once, instead of taking turns over
 * neighbouring tiles).  The part's state is (back << 32 | front), tiles [front, back) of
 * it left.  Returns the batch's size (0: none left), its first tile in *first. */
static unsigned take_batch(sp_ctx *c, int o, int owner, size_t *first) {
    uint64_t *st = &c->cursors[8 * o], v = __atomic_load_n(st, __ATOMIC_RELAXED);
    for (;;) {
        uint32_t f = (uint32_t)v, b = (uint32_t)(v >> 32);
        if (f >= b) return 0;
        uint32_t n = b - f < THREAD_BATCH ? b - f : THREAD_BATCH;
        uint64_t nv = owner ? (uint64_t)b << 32 | (f + n) : (uint64_t)(b - n) << 32 | f;
        if (__atomic_compare_exchange_n(st, &v, nv, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
            *first = part_start(c, o) + (owner ? f : b - n);
            return n;
        }
    }
}

/* A threaded round: thread tid computes the tiles it owns (and, with WL_SPARSE_HELP=1,
 * then helps with the others'; see "Threads").  The list used to be dealt out in batches
 * to whichever thread came: tiles and their neighbours changed cores from round to round. */
static void compute_task(void *arg, int tid, int nthreads) {
    (void)nthreads;
    sp_ctx *c = arg;
    sp_worker *w = &c->workers[tid];
    const int own = tid % c->nown;
    const double t0 = wl_clock();
    for (int k = 0; k < (c->exclusive ? 1 : c->nown); k++) {
        const int o = own + k < c->nown ? own + k : own + k - c->nown;
        size_t i;
        for (unsigned n; (n = take_batch(c, o, k == 0 && tid < c->nown, &i)) != 0;)
            for (size_t end = i + n; i < end; i++) compute_tile(c, w, c->round.t[i], 1);
    }
    w->busy = wl_clock() - t0;
}

/* Groups the round's list by owner (when something other than a round made it). */
static wl_status group_round(sp_ctx *c) {
    sp_list *r = &c->round, *tmp = &c->next; /* (empty while the round runs) */
    if (tmp->cap < r->n) {
        sp_tile **n = realloc(tmp->t, r->n * sizeof *n);
        if (!n) return wl_error(WL_ERR_NOMEM, "sparse engine: out of memory (%zu tiles)", r->n);
        tmp->t = n;
        tmp->cap = r->n;
    }
    size_t at[SP_OWNERS_MAX] = {0};
    for (size_t i = 0; i < r->n; i++) at[r->t[i]->owner]++;
    size_t sum = 0;
    for (int o = 0; o < c->nown; o++) {
        const size_t k = at[o];
        at[o] = sum;
        sum += k;
        c->round_end[o] = sum;
    }
    for (size_t i = 0; i < r->n; i++) tmp->t[at[r->t[i]->owner]++] = r->t[i];
    sp_list l = *r;
    *r = *tmp;
    r->n = l.n;
    *tmp = l;
    tmp->n = 0;
    return WL_OK;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Whether the round's parts (grouped) are uneven enough to cut the bands again. */
static int uneven(const sp_ctx *c) {
    size_t most = 0;
    for (int o = 0; o < c->nown; o++) {
        size_t n = c->round_end[o] - part_start(c, o);
        if (n > most) most = n;
    }
    return most > c->round.n / (size_t)c->nown * 5 / 4 + THREAD_BATCH;
}

/* Cuts the owners' bands of tile rows so that each holds as many of the round's tiles,
 * and gives every tile its owner (a pass over the map: only when the parts grew uneven,
 * at most every REBALANCE_GENS generations).  (Cuts by each thread's measured time per
 * tile were tried: on the GPU machine's 16 cores they made the soups 15-35% slower.) */
static wl_status cut_bands(sp_ctx *c, const sp_list *r) {
    int64_t *ty = malloc((r->n ? r->n : 1) * sizeof *ty);
    if (!ty) return wl_error(WL_ERR_NOMEM, "sparse engine: out of memory (%zu tiles)", r->n);
    for (size_t i = 0; i < r->n; i++) ty[i] = r->t[i]->ty;
    qsort(ty, r->n, sizeof *ty, cmp_i64);
    for (int o = 0; o + 1 < c->nown; o++)
        c->cut[o] = r->n ? ty[r->n * (size_t)(o + 1) / (size_t)c->nown] : o;
    free(ty);
    FOR_EACH_TILE(c, t) set_owner(c, t);
    c->rebalance_next = c->gen + REBALANCE_GENS;
    return WL_OK;
}

static wl_status rebalance(sp_ctx *c) {
    wl_status s = cut_bands(c, &c->round);
    return s ? s : group_round(c);
}

/* Whether the threads paid for themselves in the threaded rounds of the last PAY_SECONDS:
 * if their wall time was more than PAY_SHARE of the time their threads were busy, about
 * what one thread would have taken, the rounds run on one thread for solo_gens generations
 * (doubling at each such judgement in a row, up to SOLO_MAX_GENS).  A round waits for its
 * slowest thread, so a thread that shares its core with another program holds up every
 * round for the other's time slices: with a busy loop on one core, the 2048^2 soup to
 * 20000 took 792 ms on the dev VM's two threads (217-320 ms on one), 1299 ms on the GPU
 * machine's sixteen; 354 and 167 ms with this.  Unloaded, the ratio is 0.53-0.67 on two
 * threads, and nothing changed. */
static void judge_pay(sp_ctx *c) {
    if (c->pay_wall > PAY_SHARE * c->pay_busy) {
        c->solo_gens = c->solo_gens ? 2 * c->solo_gens : SOLO_MIN_GENS;
        if (c->solo_gens > SOLO_MAX_GENS) c->solo_gens = SOLO_MAX_GENS;
        c->solo_until = c->gen + c->solo_gens;
    } else {
        c->solo_gens = 0;
    }
    c->pay_wall = c->pay_busy = 0;
}

/* How many threads a round of n tiles runs on: all for rounds of PARALLEL_WAKE tiles or
 * more, and for rounds of PARALLEL_TILES or more while the last round ran on them (its
 * workers still spin, see pool.c); one otherwise.  A round that finds the workers asleep
 * waits tens of microseconds for them, which only a large round pays back, so a
 * methuselah's occasional mid-size round stays on one thread, while a settling soup's
 * rounds, mid-size for thousands of generations, stay on all.  (This replaced a choice by
 * timing each way per size of round: the timings of a shared machine are noisy, and the
 * choice of one thread, the costlier mistake, came too often; on the dev VM and on the
 * GPU machine's 16 cores the soups ran faster with all threads on every round of 32.) */
static int pick_threads(sp_ctx *c, size_t n) {
    if (c->active == 1 || n < c->parallel_min || (c->gen < c->solo_until && !c->force_threads))
        return 1;
    if (c->force_threads || n >= PARALLEL_WAKE || c->last_nw > 1) return c->active;
    return 1;
}

/* Unpacks the tiles listed beside packed cells, and those neighbours (see wake_tile);
 * on failure (out of memory) the ones left stay on the list. */
static wl_status unpack_listed(sp_ctx *c) {
    wl_status s = WL_OK;
    size_t i = 0;
    for (; i < c->unpack.n && !s; i++) {
        sp_tile *t = c->unpack.t[i];
        s = t->packed ? sp_unpack(&c->map, t) : WL_OK;
        for (int d = 0; d < 8 && !s; d++)
            if (!t->nb_rows[d]) s = sp_unpack(&c->map, t->nb[d]);
    }
    if (s) i--; /* (the failed one stays) */
    if (i && i < c->unpack.n)
        memmove(c->unpack.t, c->unpack.t + i, (c->unpack.n - i) * sizeof *c->unpack.t);
    c->unpack.n -= i;
    return s;
}

/* One generation.  On failure (a tile could not be made, out of memory) the plane is
 * exact at the new generation but what to wake is not: c->resync is set. */
static wl_status one_round(sp_ctx *c) {
    /* the round's tiles and their neighbours, unpacked (failing, nothing has changed) */
    wl_status us = unpack_listed(c);
    if (us) return us;
    sp_list l = c->round;
    c->round = c->next;
    c->next = l;
    c->next.n = 0;
    const int grouped = c->grouped;
    c->grouped = 0;
    sp_list *r = &c->round;
    const int nw = pick_threads(c, r->n);
    c->last_nw = nw;
    if (c->stats) {
        c->st_rounds++;
        c->st_parallel += nw > 1;
        c->st_tiles += r->n;
        for (size_t i = 0; i < r->n; i++)
            c->st_bricks += (uint64_t)wl_popcount64(r->t[i]->wake[c->par]);
    }
    /* the next round's list is grouped by owner when it may run on the threads (a small
     * round's is one list: merging one per owner costs a small round more than the
     * grouping saves) */
    c->by_owner = c->nown > 1 && (nw > 1 || r->n * 2 >= c->parallel_min);
    if (nw > 1) {
        wl_status s = WL_OK;
        if (grouped) memcpy(c->round_end, c->next_end, (size_t)c->nown * sizeof *c->round_end);
        else s = group_round(c);
        if (!s && c->gen >= c->rebalance_next && uneven(c)) s = rebalance(c);
        if (s) { /* (out of memory: the list goes back, nothing has changed) */
            sp_list t = c->next;
            c->next = c->round;
            c->round = t;
            return s;
        }
        for (int o = 0; o < c->nown; o++) /* (every part's tiles left: [0, size)) */
            c->cursors[8 * o] = (uint64_t)(c->round_end[o] - part_start(c, o)) << 32;
        const double t0 = wl_clock();
        wl_pool_run(c->pool, compute_task, c);
        c->pay_wall += wl_clock() - t0;
        for (int i = 0; i < nw; i++) c->pay_busy += c->workers[i].busy;
        if (c->pay_wall >= PAY_SECONDS) judge_pay(c);
    } else {
        sp_worker *w = &c->workers[0];
        for (size_t i = 0; i < r->n; i++) compute_tile(c, w, r->t[i], 0);
    }
    c->par ^= 1;
    /* the deferred neighbours (made, and woken through worker 0), then the next round's
     * list, grouped by owner, then the tiles that went quiet */
    wl_status s = WL_OK;
    sp_worker *w0 = &c->workers[0];
    for (int i = 0; i < nw; i++) {
        sp_worker *w = &c->workers[i];
        if (!s && w->fail) /* (a worker's message stayed on its own thread) */
            s = i ? wl_error(w->fail, "sparse engine: out of memory") : w->fail;
        w->fail = WL_OK;
        for (size_t k = 0; k < w->ndefer && !s; k++) {
            sp_defer *e = &w->defer[k];
            s = wake_nb(c, w0, e->t, e->d, c->par, e->bricks, 0);
        }
        w->ndefer = 0;
    }
    if (nw == 1 && !c->by_owner) { /* (one list: no copy) */
        sp_list t = c->next;
        c->next = w0->next[0];
        w0->next[0] = t;
        c->next_end[0] = c->next.n;
    } else {
        for (int o = 0; o < c->nown; o++) {
            for (int i = 0; i < nw; i++) {
                sp_list *lst = &c->workers[i].next[o];
                if (!lst->n) continue;
                wl_status a = list_append(&c->next, lst);
                if (!s) s = a;
                lst->n = 0;
            }
            c->next_end[o] = c->next.n;
        }
    }
    c->grouped = !s && (c->by_owner || c->nown == 1);
    for (int i = 0; i < nw; i++) {
        sp_worker *w = &c->workers[i];
        if (!w->unpack.n) continue;
        wl_status a = list_append(&c->unpack, &w->unpack);
        if (!s) s = a;
        w->unpack.n = 0;
    }
    for (int i = 0; i < nw; i++) {
        sp_worker *w = &c->workers[i];
        if (!s) /* tiles that went quiet and are dead at both generations go */
            for (size_t k = 0; k < w->quiet.n; k++) {
                sp_tile *t = w->quiet.t[k];
                if (!t->wake[c->par] && tile_dead(t)) tile_remove(c, t);
            }
        w->quiet.n = 0;
    }
    if (s) c->resync = 1;
    return s;
}

/* ---- dense passes ---------------------------------------------------------------------
 *
 * While a pattern churns everywhere (a young soup), rounds cost more than they save: most
 * bricks are woken anyway, and the dense cpu engine, which steps many generations per pass
 * over blocks that stay in cache, does the same work about four times faster.  So when
 * the listed tiles that have most of their bricks woken gather in a core box that they
 * fill for the most part, that box plus a margin of two tiles is copied into a bounded
 * grid of the cpu engine (through its ordinary ops) and advanced k <= DENSE_GENS
 * generations there.  The margin makes that exact without knowing what lies beyond the
 * grid: activity spreads at most k <= 64 cells, so it stays in the inner margin tile, and
 * the grid's dead border corrupts at most k cells inward, so only the outer margin tile,
 * which nothing active reaches, is wrong there (it was asleep, so its own two buffers in
 * the map are right at every generation).  Listed tiles outside the core (gliders that
 * left a soup) must lie at least DENSE_GAP tiles from it; they go on in rounds meanwhile,
 * and by the same speed limit their activity cannot reach the grid, nor the grid's theirs.
 *
 * Chains.  After a pass the grid, not the tiles, holds the box's interior (the box less its
 * outer ring), and further passes go on from it without copying the box in and out: a
 * chain.  Each pass reads back only its change records, where generation t + k differs
 * from t + k - 2 (from the cpu engine's last blocked pass, strip by strip while they are
 * in its cache: step_tail), and they make the marks a round would (chain_marks), judged
 * as dense_box judges the listed tiles (chain_next): the dense ones must still fill their
 * core, no marked tile may lie apart from it (a glider leaving the soup), and no listed
 * tile outside may come within two tiles of the next box, which is the last one and the
 * core with its margin; the grid moves under a box that grew past its edge (the engine's
 * translate), and a box larger than the grid ends the chain.  Before the next pass the
 * outer ring, which the dead border corrupted, and whatever the box gained are copied in
 * again from the tiles (asleep there, so exact), and the grid tiles just outside the box,
 * where the corruption may have spread, are cleared.  A chain goes on from one step to
 * the next; it ends when it fails those tests, when fewer than DENSE_MIN_GENS generations
 * are left to a step's end or a ship's horizon, before ships are looked at, and when
 * anything else looks at the tiles (settle).  Then the interior goes back into its tiles,
 * generation t only: the marked tiles are marked edited, so that the next two rounds
 * compute them whole (as after a load), and in the others nothing changed near them, so
 * generation t + 1 equals t - 1 there, and one step of the tile kernel makes their other
 * buffer (chain_flush).  A chain that fails the tests makes the next look for a dense core
 * wait (DENSE_RECHECK times 4^n rounds after the n-th such end): the soup's fill hovers
 * about the thresholds for a while as it thins out, and passes that end at once cost more
 * than rounds there.  Before chains every pass copied its box in and wrote every tile's
 * two generations and change records back: the 2048^2 soup to generation 1000 took 0.040 s
 * of step time, and 0.034 s with chains, on the dev VM (medians of 9; the cpu engine on a
 * 2560^2 torus, the soup's area then, 0.026 s). */

#define DENSE_GAP 4 /* tiles between the core and any listed tile outside it */

static inline int in_box(const sp_box *b, int64_t x, int64_t y, int64_t d) {
    return x >= b->x0 - d && x <= b->x1 + d && y >= b->y0 - d && y <= b->y1 + d;
}

static inline void box_add(sp_box *b, int64_t x, int64_t y) {
    if (x < b->x0) b->x0 = x;
    if (x > b->x1) b->x1 = x;
    if (y < b->y0) b->y0 = y;
    if (y > b->y1) b->y1 = y;
}

static int box_near(const sp_box *b, const sp_tile *t, int64_t d) {
    return in_box(b, t->tx, t->ty, d);
}

/* Whether the fill of a core of nx x ny tiles pays for a pass: `in` tiles of it listed,
 * with `bricks` bricks woken. */
static int dense_fills(double nx, double ny, size_t in, uint64_t bricks) {
    return (double)in >= DENSE_FILL * nx * ny && (double)bricks >= DENSE_BRICKS * 8.0 * (double)in;
}

/* The marked tiles that a core is sought among (a round's list, or a chain's box). */
typedef struct sp_mark {
    int64_t x, y;
    unsigned bricks; /* the woken ones */
} sp_mark;

/* Makes room for n marks in c->marks (0 when there is no memory: no pass then). */
static int marks_room(sp_ctx *c, size_t n) {
    if (n <= c->marks_cap) return 1;
    sp_mark *m = realloc(c->marks, n * sizeof *m);
    if (!m) {
        wl_clear_error();
        return 0;
    }
    c->marks = m;
    c->marks_cap = n;
    return 1;
}

/* The core of a dense pass among the n marked tiles of c->marks: the box of those with
 * most of their bricks woken, grown by the marked tiles near it until none is near; with
 * in and bricks the marked tiles in it and their woken bricks.  0 when there are too few
 * such tiles. */
static int core_of(const sp_ctx *c, size_t n, sp_box *core, size_t *in, uint64_t *bricks) {
    const sp_mark *m = c->marks;
    size_t ndense = 0;
    for (size_t i = 0; i < n; i++) {
        if (c->dense_mode == 1 && wl_popcount64(m[i].bricks) < 4) continue;
        if (!ndense++) *core = (sp_box){m[i].x, m[i].y, m[i].x, m[i].y};
        box_add(core, m[i].x, m[i].y);
    }
    if (!ndense || (c->dense_mode == 1 && ndense < DENSE_MIN_TILES)) return 0;
    for (int grown = 1; grown;) {
        grown = 0;
        *in = 0;
        *bricks = 0;
        for (size_t i = 0; i < n; i++) {
            if (!in_box(core, m[i].x, m[i].y, DENSE_GAP)) continue;
            if (!in_box(core, m[i].x, m[i].y, 0)) {
                box_add(core, m[i].x, m[i].y);
                grown = 1;
            }
            (*in)++;
            *bricks += (uint64_t)wl_popcount64(m[i].bricks);
        }
    }
    return 1;
}

/* The core box of a dense pass, if one pays now.  left: generations to go. */
static int dense_box(sp_ctx *c, uint64_t left, sp_box *core) {
    if (!c->dense_mode || left < DENSE_MIN_GENS || c->next.n == 0) return 0;
    if (c->dense_mode == 1 && c->next.n < DENSE_MIN_TILES) return 0;
    if (!marks_room(c, c->next.n)) return 0;
    for (size_t i = 0; i < c->next.n; i++) {
        const sp_tile *t = c->next.t[i];
        c->marks[i] = (sp_mark){t->tx, t->ty, t->wake[c->par]};
    }
    size_t in = 0;
    uint64_t bricks = 0;
    if (!core_of(c, c->next.n, core, &in, &bricks)) return 0;
    if (core->x0 - 2 < -SP_COORD_MAX || core->x1 + 2 > SP_COORD_MAX || core->y0 - 2 < -SP_COORD_MAX ||
        core->y1 + 2 > SP_COORD_MAX)
        return 0;
    double nx = (double)(core->x1 - core->x0 + 1), ny = (double)(core->y1 - core->y0 + 1);
    if ((nx + 4) * (ny + 4) * WL_TILE * WL_TILE > (double)DENSE_MAX_CELLS) return 0;
    return c->dense_mode == 2 || dense_fills(nx, ny, in, bricks);
}

/* The cpu engine on a bounded grid of at least nx x ny tiles and the staging grids.  The
 * grid is kept while it is big enough and not more than twice the area needed, and a new
 * one has slack of DENSE_SLACK tiles each way, so that a growing soup reuses it for several
 * passes (making one costs page faults) and chains can grow in it; its width is a multiple
 * of 8 tiles, whole rows of 512-bit vectors, which the cpu engine steps without column
 * masks (over twice as fast as other widths). */
#define DENSE_SLACK 8
static wl_status dense_grid(sp_ctx *c, int64_t nx, int64_t ny) {
    const uint64_t gw = c->grid_w / WL_TILE, gh = c->grid_h / WL_TILE;
    if (c->grid_ctx && gw >= (uint64_t)nx && gh >= (uint64_t)ny &&
        gw * gh <= 2 * (uint64_t)(nx + DENSE_SLACK) * (uint64_t)(ny + DENSE_SLACK))
        return WL_OK;
    if (c->grid_ctx) c->inner->destroy(c->grid_ctx);
    c->grid_ctx = NULL;
    c->grid_w = c->grid_h = 0;
    free(c->strip);
    free(c->gchg);
    free(c->gwake);
    c->strip = NULL;
    c->gchg = NULL;
    c->gwake = NULL;
    uint64_t w = (uint64_t)(nx + DENSE_SLACK + 7) / 8 * 8 * WL_TILE;
    uint64_t h = (uint64_t)(ny + DENSE_SLACK) * WL_TILE;
    wl_config g = c->cfg;
    g.engine = c->inner->name;
    g.kernel = "best";
    g.topology = WL_TOPOLOGY_BOUNDED;
    g.width = w;
    g.height = h;
    g.verbose = 0;
    g.poll = NULL; /* a pass is short: the rounds' loop polls between passes */
    wl_status s = c->inner->create(&g, "best", &c->grid_ctx);
    if (!s && (!(c->strip = malloc(WL_TILE * w / 8)) ||
               !(c->gchg = malloc(3 * (size_t)(w / WL_TILE) * (size_t)(h / WL_TILE) * sizeof *c->gchg)) ||
               !(c->gwake = malloc((size_t)(w / WL_TILE) * (size_t)(h / WL_TILE)))))
        s = wl_error(WL_ERR_NOMEM, "sparse engine: out of memory (dense pass)");
    /* (a step of the empty grid makes the engine's buffers for step_tail, so that a pass
     * cannot fail half way) */
    if (!s) s = c->inner->step_tail(c->grid_ctx, 1, NULL, NULL);
    if (!s && c->active < c->nthreads && c->inner->set_threads)
        c->inner->set_threads(c->grid_ctx, c->active);
    if (s) {
        if (c->grid_ctx) c->inner->destroy(c->grid_ctx);
        c->grid_ctx = NULL;
        free(c->strip);
        free(c->gchg);
        free(c->gwake);
        c->strip = NULL;
        c->gchg = NULL;
        c->gwake = NULL;
        return s;
    }
    c->grid_w = w;
    c->grid_h = h;
    c->live_t0 = c->live_t1 = 0; /* (the new grid is dead) */
    return WL_OK;
}

/* A pass's change records, strip by strip of the grid as the cpu engine's threads finish
 * them (its step_tail): for grid tile i (the grid's tiles are the plane's, one word
 * across), c->gchg[3 i], [3 i + 1] and [3 i + 2] are the rows where the tile, its column 0
 * and its column 63 differ between generations n and n - 2, as far as the marks of a round
 * (wake_around) can tell: within a brick only its first and last rows are told apart (a
 * change in the others is put on row 3 of the brick), which is what the marks depend on,
 * and it lets the rows of a brick be ORed word by word. */
static void dense_chg_strip(void *arg, uint64_t y0, size_t rows, size_t w0, size_t words,
                            const uint64_t *const gen[3], size_t pitch) {
    enum { CHUNK = 32 }; /* words at a time */
    sp_ctx *c = arg;
    const size_t gnx = (size_t)(c->grid_w / WL_TILE);
    for (uint64_t y = y0; y < y0 + rows;) {
        const unsigned r0 = (unsigned)(y % WL_TILE);
        const uint64_t left = y0 + rows - y; /* rows of the strip from y */
        const unsigned r1 = left < WL_TILE - r0 ? r0 + (unsigned)left : WL_TILE;
        uint64_t *chg = c->gchg + 3 * ((size_t)(y / WL_TILE) * gnx + w0);
        for (size_t i0 = 0; i0 < words; i0 += CHUNK) {
            const size_t nw = words - i0 < CHUNK ? words - i0 : CHUNK;
            uint64_t m[CHUNK] = {0}, mw[CHUNK] = {0}, me[CHUNK] = {0};
            for (unsigned r = r0; r < r1;) { /* the part of a brick in the strip */
                const unsigned re = r1 < (r / 8 + 1) * 8 ? r1 : (r / 8 + 1) * 8, k = r / 8 * 8;
                uint64_t o[CHUNK] = {0}, f[CHUNK] = {0}, l[CHUNK] = {0};
                for (unsigned q = r; q < re; q++) {
                    const size_t a = (size_t)(y - y0 + q - r0) * pitch + i0;
                    const uint64_t *g2 = gen[2] + a, *g0 = gen[0] ? gen[0] + a : NULL;
                    if (!g0) { /* (n == 1: everything may have changed) */
                        for (size_t i = 0; i < nw; i++) o[i] = f[i] = l[i] = ~(uint64_t)0;
                        break;
                    }
                    if (q == k) {
                        for (size_t i = 0; i < nw; i++) o[i] |= f[i] = g2[i] ^ g0[i];
                    } else if (q == k + 7) {
                        for (size_t i = 0; i < nw; i++) o[i] |= l[i] = g2[i] ^ g0[i];
                    } else {
                        for (size_t i = 0; i < nw; i++) o[i] |= g2[i] ^ g0[i];
                    }
                }
                for (size_t i = 0; i < nw; i++) {
                    m[i] |= (uint64_t)(f[i] != 0) << k | (uint64_t)(o[i] != 0) << (k + 3) |
                            (uint64_t)(l[i] != 0) << (k + 7);
                    mw[i] |= (f[i] & 1) << k | (o[i] & 1) << (k + 3) | (l[i] & 1) << (k + 7);
                    me[i] |= (f[i] >> 63) << k | (o[i] >> 63) << (k + 3) | (l[i] >> 63) << (k + 7);
                }
                r = re;
            }
            /* (a tile's rows may come in two strips, on two threads) */
            for (size_t i = 0; i < nw; i++) {
                uint64_t *t = chg + 3 * (i0 + i);
                if (m[i]) __atomic_fetch_or(&t[0], m[i], __ATOMIC_RELAXED);
                if (mw[i]) __atomic_fetch_or(&t[1], mw[i], __ATOMIC_RELAXED);
                if (me[i]) __atomic_fetch_or(&t[2], me[i], __ATOMIC_RELAXED);
            }
        }
        y += r1 - r0;
    }
}

/* Fills the strip's columns of tiles x0 .. x1 (plane coordinates) of tile row y: the
 * map's tiles where they lie in box b, dead elsewhere. */
static void strip_fill(sp_ctx *c, const sp_box *b, int64_t y, int64_t x0, int64_t x1) {
    const size_t S = (size_t)(c->grid_w / 64);
    const unsigned p = c->par;
    for (int64_t x = x0; x <= x1; x++) {
        const sp_tile *t = in_box(b, x, y, 0) ? sp_map_find(&c->map, x, y) : NULL;
        uint64_t *dst = c->strip + (x - c->gx0);
        for (int r = 0; r < WL_TILE; r++) dst[(size_t)r * S] = t ? sp_row(t, p, r) : 0;
    }
}

/* Writes the grid's tile rows lo to hi - 1 for a pass on box b (dense_pass), through a
 * strip of 64 rows: the box's tiles from the map, dead cells everywhere else, except in
 * `keep` (the last box's interior, in a chain), where the grid holds them right already:
 * beside it only the tiles between it and the edge of the last box's ring of corruption,
 * `old` widened by a tile, are written (the grid is dead beyond). */
static wl_status dense_in_rows(sp_ctx *c, const sp_box *b, const sp_box *keep,
                               const sp_box *old, int64_t lo, int64_t hi) {
    const wl_engine_ops *e = c->inner;
    const size_t S = (size_t)(c->grid_w / 64);
    const int64_t gx1 = c->gx0 + (int64_t)(c->grid_w / WL_TILE) - 1;
    wl_status s = WL_OK;
    for (int64_t j = lo; j < hi && !s; j++) {
        const int64_t y = c->gy0 + j;
        const uint64_t y0 = (uint64_t)j * WL_TILE;
        if (y < keep->y0 || y > keep->y1) { /* the whole row */
            memset(c->strip, 0, WL_TILE * S * sizeof *c->strip);
            strip_fill(c, b, y, b->x0 > c->gx0 ? b->x0 : c->gx0, b->x1 < gx1 ? b->x1 : gx1);
            s = e->load_rows(c->grid_ctx, y0, WL_TILE, c->strip, S);
            continue;
        }
        int64_t xl = b->x0 < old->x0 - 1 ? b->x0 : old->x0 - 1;
        int64_t xr = b->x1 > old->x1 + 1 ? b->x1 : old->x1 + 1;
        if (xl < c->gx0) xl = c->gx0;
        if (xr > gx1) xr = gx1;
        const int64_t part[2][2] = {{xl, keep->x0 - 1}, {keep->x1 + 1, xr}};
        for (int k = 0; k < 2 && !s; k++) {
            if (part[k][0] > part[k][1]) continue;
            strip_fill(c, b, y, part[k][0], part[k][1]);
            const size_t w0 = (size_t)(part[k][0] - c->gx0);
            s = e->load_words(c->grid_ctx, y0, WL_TILE, w0, (size_t)(part[k][1] - part[k][0] + 1),
                              c->strip + w0, S);
        }
    }
    return s;
}

/* Advances up to k generations (DENSE_MIN_GENS <= k <= DENSE_GENS; *adv says how many):
 * the box b (a core and its margin of two tiles) through the cpu engine's grid, the listed
 * tiles outside it in rounds (see above), and leaves a chain on that box.  With a chain on,
 * b contains its box and lies in the grid (chain_next).  Fails with nothing changed
 * (*adv = 0) when there is no memory for the grid or the box's tiles (a chain that was on
 * stays on); a round's failure stops early, with the plane exact at the generation
 * reached and c->resync set, as after a failed round. */
static wl_status dense_pass(sp_ctx *c, unsigned k, const sp_box *b, uint64_t *adv) {
    *adv = 0;
    const int chained = c->chain;
    const int64_t nx = b->x1 - b->x0 + 1, ny = b->y1 - b->y0 + 1;
    /* (first, as a round would: the box's tiles leave the list below, so none may stay on
     * the unpack list) */
    wl_status s = unpack_listed(c);
    if (!s && !chained) s = dense_grid(c, nx, ny);
    if (s) return s;
    const wl_engine_ops *e = c->inner;
    const int64_t gnx = (int64_t)(c->grid_w / WL_TILE), gny = (int64_t)(c->grid_h / WL_TILE);
    /* the box in the middle of the grid (plane tile (gx0, gy0) at grid (0, 0)); the grid
     * outside it is dead (what lies there on the plane is not needed, as the outer margin's
     * edge shows), and the cpu engine does not compute dead bands.  (Across, the box starts
     * one word past a vector of 8 words: the cpu engine computes the live words and one
     * each side, in whole vectors, see its tile.c) */
    if (!chained || b->x0 < c->gx0 || b->y0 < c->gy0 || b->x1 >= c->gx0 + gnx ||
        b->y1 >= c->gy0 + gny) {
        int64_t off = (gnx - nx) / 2;
        if (off >= 1) off -= (off - 1) % 8;
        const int64_t gx0 = b->x0 - off, gy0 = b->y0 - (gny - ny) / 2;
        /* (a chain's box grew past the grid's edge: the grid moves under it, the last
         * box's interior in it; what falls off is dead or corrupt) */
        if (chained) {
            s = e->translate(c->grid_ctx, (gx0 - c->gx0) * WL_TILE, (gy0 - c->gy0) * WL_TILE);
            if (s) return s;
            c->st_moved++;
        }
        c->gx0 = gx0;
        c->gy0 = gy0;
    }
    /* what the grid holds right: the last box's interior */
    const sp_box old = c->cbox;
    const sp_box keep = chained ? (sp_box){old.x0 + 1, old.y0 + 1, old.x1 - 1, old.y1 - 1}
                                : (sp_box){0, 0, -1, -1};
    /* the interior's tiles exist before anything changes, so that ending the chain cannot
     * fail */
    for (int64_t y = b->y0 + 1; y < b->y1 && !s; y++)
        for (int64_t x = b->x0 + 1; x < b->x1 && !s; x++) {
            if (in_box(&keep, x, y, 0)) continue;
            sp_tile *t = sp_tile_get(c, x, y);
            s = t ? sp_unpack(&c->map, t) : c->fail;
        }
    if (s) return s;
    /* The box into the engine's grid (its generation t), a tile row of the grid at a time
     * through a strip of 64 rows: its tiles from the map except where the grid holds them
     * right, dead everywhere else.  The rows written are those of the box and those the
     * last pass may have left live (a chain's: its box and one tile around it). */
    const unsigned p = c->par;
    const int64_t r0 = b->y0 - c->gy0, r1 = r0 + ny; /* the box's tile rows in the grid */
    int64_t lo = r0, hi = r1;
    if (chained) {
        c->live_t0 = old.y0 - 1 - c->gy0;
        c->live_t1 = old.y1 + 2 - c->gy0;
    }
    if (c->live_t0 < c->live_t1) {
        if (c->live_t0 < lo) lo = c->live_t0 > 0 ? c->live_t0 : 0;
        if (c->live_t1 > hi) hi = c->live_t1 < gny ? c->live_t1 : gny;
    }
    s = dense_in_rows(c, b, &keep, &old, lo, hi);
    if (s) return s; /* (cannot happen: rows of the grid) */
    /* the box's tiles leave the list (a fresh box's core holds them all; a chain's box
     * holds none, see chain_next); the others go on in rounds */
    size_t kept_n = 0;
    for (size_t i = 0; i < c->next.n; i++) {
        sp_tile *t = c->next.t[i];
        if (box_near(b, t, 0)) {
            t->wake[p] = 0;
            t->edited = 0;
        } else {
            c->next.t[kept_n++] = t;
        }
    }
    c->next.n = kept_n;
    c->grouped = 0;
    unsigned n = 0;
    wl_status rs = WL_OK;
    while (n < k && c->next.n && !rs) {
        rs = one_round(c);
        n++;
    }
    if (!rs && n < k) { /* outside the box everything sleeps: its phases take turns */
        c->par ^= (k - n) & 1;
        n = k;
    }
    *adv = n;
    /* the grid advances n generations, and says where they changed */
    memset(c->gchg, 0, 3 * (size_t)gnx * (size_t)gny * sizeof *c->gchg);
    s = e->step_tail(c->grid_ctx, n, dense_chg_strip, c);
    if (s) { /* cannot happen (dense_grid made the buffers); the plane would be half advanced */
        c->resync = 1;
        return s;
    }
    c->chain = 1;
    c->cbox = *b;
    c->st_chained += (uint64_t)chained;
    /* (cells spread at most one tile beyond the box) */
    c->live_t0 = r0 > 0 ? r0 - 1 : 0;
    c->live_t1 = r1 < gny ? r1 + 1 : gny;
    if (c->stats) {
        c->st_dense++;
        c->st_dense_gens += n;
    }
    return rs;
}

/* Grid tile (x, y)'s index (plane tile coordinates). */
static inline size_t grid_at(const sp_ctx *c, int64_t x, int64_t y) {
    return (size_t)(y - c->gy0) * (size_t)(c->grid_w / WL_TILE) + (size_t)(x - c->gx0);
}

/* The marks that a round would make (wake_around) from the change records of a chain's
 * last pass, on the tiles of its box, in c->gwake. */
static void chain_marks(sp_ctx *c) {
    const sp_box *b = &c->cbox;
    uint8_t *wk = c->gwake;
    for (int64_t y = b->y0; y <= b->y1; y++)
        memset(wk + grid_at(c, b->x0, y), 0, (size_t)(b->x1 - b->x0 + 1));
    for (int64_t y = b->y0 + 1; y < b->y1; y++)
        for (int64_t x = b->x0 + 1; x < b->x1; x++) {
            const size_t i = grid_at(c, x, y);
            const uint64_t m = c->gchg[3 * i], mw = c->gchg[3 * i + 1], me = c->gchg[3 * i + 2];
            if (!m) continue;
            const size_t up = grid_at(c, x, y - 1) - i, dn = grid_at(c, x, y + 1) - i;
            wk[i] |= (uint8_t)bricks_of(m | m << 1 | m >> 1);
            if (m & 1) wk[i - up] |= 0x80;
            if (m >> 63) wk[i + dn] |= 0x01;
            if (mw) {
                wk[i - 1] |= (uint8_t)bricks_of(mw | mw << 1 | mw >> 1);
                if (mw & 1) wk[i - 1 - up] |= 0x80;
                if (mw >> 63) wk[i - 1 + dn] |= 0x01;
            }
            if (me) {
                wk[i + 1] |= (uint8_t)bricks_of(me | me << 1 | me >> 1);
                if (me & 1) wk[i + 1 - up] |= 0x80;
                if (me >> 63) wk[i + 1 + dn] |= 0x01;
            }
        }
}

/* The box of a chain's next pass (see above), or 0 when the chain ends.  The marks of the
 * last pass's changes (chain_marks) are judged as dense_box judges the listed tiles. */
static int chain_next(sp_ctx *c, sp_box *next) {
    if (!c->dense_mode) return 0;
    const sp_box *b = &c->cbox;
    const uint8_t *wk = c->gwake;
    chain_marks(c);
    /* the core, among the tiles the marks wake, as dense_box finds it */
    const size_t area = (size_t)(b->x1 - b->x0 + 1) * (size_t)(b->y1 - b->y0 + 1);
    if (!marks_room(c, area)) return 0;
    size_t nwoken = 0;
    for (int64_t y = b->y0; y <= b->y1; y++)
        for (int64_t x = b->x0; x <= b->x1; x++)
            if (wk[grid_at(c, x, y)]) c->marks[nwoken++] = (sp_mark){x, y, wk[grid_at(c, x, y)]};
    sp_box core;
    size_t in = 0;
    uint64_t bricks = 0;
    if (!core_of(c, nwoken, &core, &in, &bricks)) return 0;
    /* (a woken tile apart from the core: a glider that left, for rounds) */
    if (in < nwoken) return 0;
    const double nx = (double)(core.x1 - core.x0 + 1), ny = (double)(core.y1 - core.y0 + 1);
    if (c->dense_mode == 1 && !dense_fills(nx, ny, in, bricks)) return 0;
    /* the next box: the last one and the core with its margin, in the grid, not much larger
     * than it needs to be, and clear of the listed tiles outside */
    sp_box nb = *b;
    box_add(&nb, core.x0 - 2, core.y0 - 2);
    box_add(&nb, core.x1 + 2, core.y1 + 2);
    const int64_t gnx = (int64_t)(c->grid_w / WL_TILE), gny = (int64_t)(c->grid_h / WL_TILE);
    if (nb.x1 - nb.x0 >= gnx || nb.y1 - nb.y0 >= gny) return 0;
    if ((double)(nb.x1 - nb.x0 + 1) * (double)(nb.y1 - nb.y0 + 1) > 2 * (nx + 4) * (ny + 4))
        return 0;
    for (size_t i = 0; i < c->next.n; i++)
        if (box_near(&nb, c->next.t[i], 2)) return 0;
    *next = nb;
    return 1;
}

/* chain_flush's two passes over the box's interior: its cells from the grid into the
 * tiles' buffers of parity t, through a strip of 64 rows; then, in the tiles that the last
 * changes do not mark, generation t + 1 into the others. */
static wl_status flush_rows(sp_ctx *c, const sp_box *b) {
    const size_t S = (size_t)(c->grid_w / 64);
    const unsigned p = c->par;
    wl_status s = WL_OK;
    for (int64_t y = b->y0 + 1; y < b->y1 && !s; y++) {
        s = c->inner->store_rows(c->grid_ctx, (uint64_t)(y - c->gy0) * WL_TILE, WL_TILE,
                                 c->strip, S);
        for (int64_t x = b->x0 + 1; x < b->x1 && !s; x++) {
            sp_tile *t = sp_map_find(&c->map, x, y); /* (made by the pass, still unpacked) */
            const uint64_t *src = c->strip + (x - c->gx0);
            for (int r = 0; r < WL_TILE; r++) t->rows[p][r] = src[(size_t)r * S];
        }
    }
    return s;
}

static void flush_step(sp_ctx *c, const sp_box *b) {
    const unsigned p = c->par;
    uint64_t tmp[8][WL_TILE] __attribute__((aligned(64)));
    for (int64_t y = b->y0 + 1; y < b->y1; y++)
        for (int64_t x = b->x0 + 1; x < b->x1; x++) {
            if (c->gwake[grid_at(c, x, y)]) continue;
            sp_tile *t = sp_map_find(&c->map, x, y);
            wl_tile_job tj;
            for (int d = 0; d < 8; d++) tj.in[d] = sp_rows(t->nb[d], p, tmp[d]);
            tj.in[WL_NB_C] = t->rows[p];
            tj.out = t->rows[p ^ 1];
            tj.bricks = 0xFF;
            c->tk.step(&tj, c->tk.data);
        }
}

/* Ends a chain (see above): the interior of its box goes back into the tiles, generation
 * t.  The tiles that the last pass's changes mark are marked edited; in the others nothing
 * changes near them, so generation t + 1 is t - 1 there (the premise of the rounds), and
 * one step of the tile kernel makes it.  On failure (out of memory marking them) the cells
 * are right and c->resync is set. */
static wl_status chain_flush(sp_ctx *c) {
    if (!c->chain) return WL_OK;
    c->chain = 0;
    chain_marks(c);
    const sp_box *b = &c->cbox;
    wl_status s = flush_rows(c, b); /* (cannot fail: rows of the grid) */
    if (!s) flush_step(c, b);
    for (int64_t y = b->y0 + 1; y < b->y1 && !s; y++)
        for (int64_t x = b->x0 + 1; x < b->x1 && !s; x++)
            if (c->gwake[grid_at(c, x, y)]) s = sp_edited(c, sp_map_find(&c->map, x, y));
    /* the tiles left asleep (neither marked nor woken by a marked one) that are dead at
     * both generations go, as a round's quiet ones do (the pass made every tile of the
     * box: a soup's settled box kept a fifth of its tiles empty, 2.06 bits a cell of the
     * occupied tiles instead of 1.76) */
    for (int64_t y = b->y0 + 1; y < b->y1 && !s; y++)
        for (int64_t x = b->x0 + 1; x < b->x1; x++) {
            sp_tile *t = sp_map_find(&c->map, x, y);
            if (!t->wake[0] && !t->wake[1] && !t->edited && tile_dead(t)) tile_remove(c, t);
        }
    if (s) c->resync = 1;
    return s;
}

/* Between steps the tiles hold the plane: whatever looks at them ends a chain first (a
 * failure there leaves the cells right, and the marks to c->resync). */
static void settle(sp_ctx *c) {
    if (chain_flush(c)) wl_clear_error();
}

/* Packs the cells of the tiles that sleep beside sleeping neighbours and were not computed
 * in the last PACK_GENS generations (see sparse_map.c): every PACK_GENS generations, a pass
 * over the map; `settled`: nothing is listed, every tile is packed that can be. */
static void pack_sleepers(sp_ctx *c, int settled) {
    c->pack_next = c->gen + PACK_GENS;
    FOR_EACH_TILE(c, t) {
        if (t->packed || t->wake[0] || t->wake[1] || t->edited ||
            (!settled && (uint32_t)c->gen - t->stepped < PACK_GENS)) /* (computed lately: may
                                                                        soon be again) */
            continue;
        int quiet = 1;
        for (int d = 0; d < 8; d++) quiet &= !t->nb[d]->wake[c->par];
        if (quiet) sp_pack(&c->map, t);
    }
}

/* A rule that is not outer-totalistic (or outer-totalistic but neither Life nor a popular
 * rule) runs the vpermb lookups (the avx512 loop) under `best` until its gate network is
 * compiled: the cpu engine takes a compiled tile kernel only from its cache, as compiling
 * takes about half a second, and says compile_later.  Once a run has done UPGRADE_WORK
 * tile steps, the network is compiled (or found: a dense pass's grid may have compiled
 * it) and the tiles go on with it, about five (two) times faster.  Between rounds; on
 * failure nothing changes. */
static void upgrade_kernel(sp_ctx *c) {
    c->tk.compile_later = 0; /* (asked once) */
    wl_config icfg = c->cfg;
    icfg.kernel = "circuit";
    icfg.topology = WL_TOPOLOGY_TORUS;
    wl_tile_kernel tk;
    if (c->inner->tile_kernel(&icfg, &tk) != WL_OK) {
        wl_clear_error();
        return;
    }
    if (strcmp(tk.name, "circuit (compiled)") != 0) { /* (no compiler: the lut6x3 rows) */
        c->inner->tile_kernel_free(&tk);
        return;
    }
    c->inner->tile_kernel_free(&c->tk);
    c->tk = tk;
    if (c->cfg.verbose)
        fprintf(stderr, "warplife: sparse engine: now the compiled circuit tile kernel\n");
}

static wl_status step_gens(sp_ctx *c, uint64_t generations, uint64_t *done) {
    sp_ships *S = &c->ships;
    *done = 0;
    if (c->resync) {
        settle(c);
        wl_status s = resync(c);
        if (s) return s;
    }
    uint64_t n = 0;
    while (n < generations) {
        wl_status s = WL_OK;
        /* (ships look at the tiles: a chain ends first; it packs nothing) */
        if (c->chain && (c->gen >= S->next || c->gen >= S->scan_next)) s = chain_flush(c);
        if (!s && c->gen >= S->next) s = sp_ships_due(c);
        if (!s && c->gen >= S->scan_next) s = sp_ships_scan(c);
        if (!s && !c->chain && c->gen >= c->pack_next) pack_sleepers(c, 0);
        if (s) {
            c->resync = 1;
            *done = n;
            return s;
        }
        /* at most up to the next ship's horizon */
        uint64_t lim = generations - n;
        if (S->next - c->gen < lim) lim = S->next - c->gen;
        if (c->next.n == 0 && !c->chain) { /* everything still or period 2: the phases just
                                              take turns */
            if (!c->all_packed) { /* (once, since the last round) */
                pack_sleepers(c, 1); /* (nothing is listed: all of it sleeps) */
                c->all_packed = 1;
            }
            c->par ^= (unsigned)(lim & 1);
            n += lim;
            c->gen += lim;
            continue;
        }
        uint64_t adv = 0, work = 0;
        sp_box box = {0, 0, 0, 0};
        int dense;
        if (c->chain) {
            dense = lim >= DENSE_MIN_GENS && chain_next(c, &box);
            if (!dense) { /* rounds take over, for a while at least */
                s = chain_flush(c);
                if (lim >= DENSE_MIN_GENS && c->dense_mode == 1) { /* (back off, see above) */
                    c->dense_next = c->gen + (DENSE_RECHECK << (c->dense_ends < 8 ? 2 * c->dense_ends : 16));
                    c->dense_ends++;
                }
                if (s) {
                    *done = n;
                    return s;
                }
                continue;
            }
        } else {
            const int look = c->gen >= c->dense_next;
            dense = look && dense_box(c, lim, &box);
            if (look && !dense && c->dense_mode == 1) /* (a look is a pass over the list: not
                                                         every round) */
                c->dense_next = c->gen + DENSE_RECHECK;
            box = (sp_box){box.x0 - 2, box.y0 - 2, box.x1 + 2, box.y1 + 2}; /* the margin */
        }
        if (dense) {
            unsigned k = lim < DENSE_GENS ? (unsigned)lim : DENSE_GENS;
            s = dense_pass(c, k, &box, &adv);
            if (s && !adv) { /* no memory for the grid or tiles (nothing changed): rounds from
                                now */
                wl_clear_error();
                c->dense_mode = 0;
                s = chain_flush(c);
                if (s) {
                    *done = n;
                    return s;
                }
            }
            work = adv * (uint64_t)(box.x1 - box.x0 + 1) * (uint64_t)(box.y1 - box.y0 + 1);
            /* no ships are looked for while the pattern churns */
            S->scan_next = c->gen + adv + DENSE_GENS;
        }
        if (!adv) {
            s = one_round(c);
            adv = 1;
            work = c->round.n + 1;
        }
        n += adv;
        c->gen += adv;
        c->all_packed = 0;
        if (s) {
            *done = n;
            return s;
        }
        c->poll_work += work;
        c->work_total += work;
        if (c->tk.compile_later && c->work_total >= c->upgrade_work) upgrade_kernel(c);
        if (c->poll_work >= POLL_WORK && n < generations && c->cfg.poll) {
            c->poll_work = 0;
            if (!c->cfg.poll(c->cfg.poll_user)) continue;
            *done = n;
            return wl_error(WL_ERR_INTERRUPTED, "sparse engine: interrupted after %llu "
                                                "generations", (unsigned long long)n);
        }
    }
    *done = generations;
    return WL_OK;
}

/* (a chain goes on from one step to the next: see settle) */
static wl_status step(void *v, uint64_t generations, uint64_t *done) {
    sp_ctx *c = v;
    wl_status s = step_gens(c, generations, done);
    if (s && c->chain && chain_flush(c)) wl_clear_error(); /* (a failed step: rounds next) */
    return s;
}

/* ---- create / destroy -------------------------------------------------------------------- */

static void destroy(void *v) {
    sp_ctx *c = v;
    if (!c) return;
    if (c->stats) {
        size_t live = 0;
        FOR_EACH_TILE(c, t) {
            uint64_t any = 0;
            for (int r = 0; r < WL_TILE; r++) any |= sp_row(t, c->par, r);
            live += any != 0;
        }
        double bytes = (double)c->map.count * sizeof(sp_tile) + (double)c->map.cap * sizeof(sp_tile *) +
                       (double)(c->map.count - c->map.npacked) * 2 * WL_TILE * sizeof(uint64_t) +
                       (double)c->map.packed_bytes + 16.0 * (double)c->map.npacked /* malloc */;
        fprintf(stderr, "warplife: sparse engine: %llu dense passes (%llu generations, %llu "
                        "chained, %llu moved), %llu rounds (%llu on threads), %llu tile steps, %llu brick steps; %zu "
                        "tiles now (%zu packed), %zu with live cells; %.2f bits per cell of "
                        "those\n",
                (unsigned long long)c->st_dense, (unsigned long long)c->st_dense_gens,
                (unsigned long long)c->st_chained, (unsigned long long)c->st_moved,
                (unsigned long long)c->st_rounds, (unsigned long long)c->st_parallel,
                (unsigned long long)c->st_tiles, (unsigned long long)c->st_bricks,
                c->map.count, c->map.npacked, live,
                live ? bytes * 8 / ((double)live * WL_TILE * WL_TILE) : 0.0);
    }
    if (c->stats)
        fprintf(stderr, "warplife: sparse engine: ships: %llu objects tried, %llu taken out, "
                        "%llu looks, %llu landed, %zu flying, %zu kinds; searches every %llu "
                        "generations now\n",
                (unsigned long long)c->ships.st_tried, (unsigned long long)c->ships.st_found,
                (unsigned long long)c->ships.st_checks, (unsigned long long)c->ships.st_landed,
                c->ships.n, c->ships.ntypes, (unsigned long long)c->ships.scan_gens);
    sp_ships_free(c);
    if (c->inner && c->tk.step) c->inner->tile_kernel_free(&c->tk);
    if (c->grid_ctx) c->inner->destroy(c->grid_ctx);
    free(c->strip);
    free(c->gchg);
    free(c->gwake);
    free(c->marks);
    wl_pool_destroy(c->pool);
    /* (one list per owner the engine was made for: set_threads may have cut fewer bands) */
    const int lists = c->nthreads < SP_OWNERS_MAX ? c->nthreads : SP_OWNERS_MAX;
    if (c->workers)
        for (int i = 0; i < c->nthreads; i++) {
            for (int o = 0; o < lists && c->workers[i].next; o++) free(c->workers[i].next[o].t);
            wl_aligned_free(c->workers[i].next);
            free(c->workers[i].quiet.t);
            free(c->workers[i].unpack.t);
            free(c->workers[i].defer);
        }
    wl_aligned_free(c->workers);
    wl_aligned_free(c->cursors);
    sp_map_free(&c->map);
    free(c->next.t);
    free(c->round.t);
    free(c->unpack.t);
    wl_aligned_free(c);
}

static wl_status create(const wl_config *cfg, const char *kernel, void **out) {
    *out = NULL;
    if (cfg->topology != WL_TOPOLOGY_PLANE)
        return wl_error(WL_ERR_UNSUPPORTED, "sparse engine: runs the unbounded plane only");
    if (wl_rule_has_b0(&cfg->rule))
        return wl_error(WL_ERR_UNSUPPORTED,
                        "sparse engine: rules with B0 (birth on zero neighbours) fill the "
                        "whole plane at once; run them on a torus or bounded grid");
    const wl_engine_ops *inner = wl_engine_find("cpu");
    if (!inner || !inner->tile_kernel || !inner->step_tail || !inner->load_words || !inner->translate)
        return wl_error(WL_ERR_UNAVAILABLE, "sparse engine: needs the cpu engine's kernels");
    sp_ctx *c = wl_aligned_alloc(sizeof *c);
    if (!c) return WL_ERR_NOMEM;
    memset(c, 0, sizeof *c);
    c->cfg = *cfg;
    c->stats = getenv("WL_SPARSE_STATS") && atoi(getenv("WL_SPARSE_STATS")) > 0;
    const char *pmin = getenv("WL_SPARSE_PARALLEL");
    c->parallel_min = pmin && atoi(pmin) > 0 ? (size_t)atoi(pmin) : PARALLEL_TILES;
    c->force_threads = pmin && atoi(pmin) > 0;
    const char *dense = getenv("WL_SPARSE_DENSE"); /* off / always: tests and tuning */
    c->dense_mode = !dense ? 1 : strcmp(dense, "off") == 0 ? 0 : strcmp(dense, "always") == 0 ? 2 : 1;
    wl_status s = sp_map_init(&c->map);
    if (!s) s = sp_ships_init(c);
    if (s) goto fail;
    wl_config icfg = *cfg;
    icfg.kernel = kernel;
    icfg.topology = WL_TOPOLOGY_TORUS;
    s = inner->tile_kernel(&icfg, &c->tk);
    if (s) goto fail;
    const char *up = getenv("WL_SPARSE_UPGRADE"); /* tile steps before it (tests) */
    c->upgrade_work = up && atoll(up) > 0 ? (uint64_t)atoll(up) : UPGRADE_WORK;
    c->inner = inner;
    c->nthreads = cfg->threads > 0 ? cfg->threads : wl_cpu_count();
    if (c->nthreads > 4 * wl_cpu_count()) c->nthreads = 4 * wl_cpu_count();
    c->pool = wl_pool_create(c->nthreads);
    c->workers = wl_aligned_alloc((size_t)c->nthreads * sizeof *c->workers);
    if (c->workers) memset(c->workers, 0, (size_t)c->nthreads * sizeof *c->workers);
    c->nown = c->nthreads < SP_OWNERS_MAX ? c->nthreads : SP_OWNERS_MAX;
    const char *help = getenv("WL_SPARSE_HELP"); /* threads help with others' parts (tests) */
    c->help = help && atoi(help) > 0;
    c->active = c->nthreads;
    c->exclusive = c->nown == c->nthreads && !c->help;
    c->cursors = wl_aligned_alloc((size_t)c->nown * 8 * sizeof *c->cursors);
    /* (each worker's lists on cache lines of their own: it pushes onto them at every tile) */
    const size_t list_bytes = ((size_t)c->nown * sizeof(sp_list) + 63) / 64 * 64;
    for (int i = 0; i < c->nthreads && c->workers; i++) {
        if (!(c->workers[i].next = wl_aligned_alloc(list_bytes))) {
            s = WL_ERR_NOMEM;
            goto fail;
        }
        memset(c->workers[i].next, 0, list_bytes);
    }
    if (!c->pool || !c->workers || !c->cursors) {
        s = WL_ERR_NOMEM;
        goto fail;
    }
    if (cfg->verbose)
        fprintf(stderr, "warplife: sparse engine: 64x64 tiles, %s tile kernel, %d thread%s\n",
                c->tk.name, c->nthreads, c->nthreads == 1 ? "" : "s");
    *out = c;
    return WL_OK;
fail:
    destroy(c);
    return s;
}

/* ---- patterns and cells ---------------------------------------------------------------- */

static void clear(sp_ctx *c) {
    sp_map_clear(&c->map);
    sp_ships_clear(c);
    c->next.n = 0;
    c->unpack.n = 0;
    c->grouped = 0;
    c->resync = 0;
    c->chain = 0; /* (the grid's rows from live_t0 are cleared by the next pass) */
}

static wl_status load_pattern(void *v, const wl_pattern *p) {
    sp_ctx *c = v;
    clear(c);
    wl_tile_ref *pt; /* the pattern's tiles are this engine's tiles */
    size_t n;
    wl_status s = wl_pattern_tiles(p, WL_TILES_ANY, 0, 0, &pt, &n);
    if (s) return s;
    sp_list made = {0};
    for (size_t i = 0; i < n && !s; i++) {
        uint64_t rows[WL_TILE], any = 0;
        wl_ptile_rows(pt[i].t, rows);
        for (int r = 0; r < WL_TILE; r++) any |= rows[r];
        if (!any) continue;
        sp_tile *t = sp_tile_get(c, pt[i].tx, pt[i].ty);
        if (!t) {
            s = c->fail;
            break;
        }
        memcpy(t->rows[c->par], rows, sizeof rows);
        s = list_push(&made, t);
    }
    for (size_t i = 0; i < made.n && !s; i++) s = sp_edited(c, made.t[i]);
    free(pt);
    free(made.t);
    if (s) clear(c);
    return s;
}

/* Widens the box [x0, x1] x [y0, y1] (none yet when !*any) to the cells of box b of rows
 * whose cell (0, 0) is (x, y). */
static void box_union(int *any, int64_t *x0, int64_t *y0, int64_t *x1, int64_t *y1, int64_t x,
                      int64_t y, const int b[4]) {
    if (!*any || x + b[0] < *x0) *x0 = x + b[0];
    if (!*any || y + b[1] < *y0) *y0 = y + b[1];
    if (!*any || x + b[2] > *x1) *x1 = x + b[2];
    if (!*any || y + b[3] > *y1) *y1 = y + b[3];
    *any = 1;
}

static wl_status bounds_of(sp_ctx *c, int64_t *x0, int64_t *y0, int64_t *x1, int64_t *y1) {
    settle(c);
    int any = 0, b[4];
    uint64_t tmp[WL_TILE];
    FOR_EACH_TILE(c, t) {
        if (sp_rows_box(sp_rows(t, c->par, tmp), WL_TILE, b))
            box_union(&any, x0, y0, x1, y1, t->tx * WL_TILE, t->ty * WL_TILE, b);
    }
    for (size_t i = 0; i < c->ships.n; i++) {
        int64_t x, y;
        const uint64_t *rows;
        int h = sp_ship_cells(c, i, &x, &y, &rows);
        if (sp_rows_box(rows, h, b)) box_union(&any, x0, y0, x1, y1, x, y, b);
    }
    return any ? WL_OK : WL_ERR_NOT_FOUND;
}

static wl_status bounds(void *v, wl_bigint *xmin, wl_bigint *ymin, wl_bigint *xmax,
                        wl_bigint *ymax, int *empty) {
    int64_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    *empty = bounds_of(v, &x0, &y0, &x1, &y1) != WL_OK;
    wl_bigint_from_i64(xmin, x0);
    wl_bigint_from_i64(ymin, y0);
    wl_bigint_from_i64(xmax, x1);
    wl_bigint_from_i64(ymax, y1);
    return WL_OK;
}

static wl_status population(void *v, wl_bigint *out) {
    sp_ctx *c = v;
    settle(c);
    uint64_t n = 0;
    FOR_EACH_TILE(c, t) {
        for (int r = 0; r < WL_TILE; r++) n += (uint64_t)wl_popcount64(sp_row(t, c->par, r));
    }
    for (size_t i = 0; i < c->ships.n; i++) {
        int64_t x, y;
        const uint64_t *rows;
        int h = sp_ship_cells(c, i, &x, &y, &rows);
        for (int r = 0; r < h; r++) n += (uint64_t)wl_popcount64(rows[r]);
    }
    wl_bigint_from_u64(out, n);
    return WL_OK;
}

static wl_status store_pattern(void *v, wl_pattern **out) {
    sp_ctx *c = v;
    settle(c);
    *out = wl_pattern_new();
    if (!*out) return WL_ERR_NOMEM;
    wl_pattern *p = *out;
    wl_pattern_set_rule(p, &c->cfg.rule);
    wl_status s = WL_OK;
    FOR_EACH_TILE(c, t) {
        for (int rr = 0; rr < WL_TILE && !s; rr++)
            s = wl_pattern_or(p, t->tx * WL_TILE, t->ty * WL_TILE + rr, sp_row(t, c->par, rr));
    }
    for (size_t i = 0; i < c->ships.n && !s; i++) {
        int64_t x, y;
        const uint64_t *rows;
        int h = sp_ship_cells(c, i, &x, &y, &rows);
        for (int r = 0; r < h && !s; r++) s = wl_pattern_or(p, x, y + r, rows[r]);
    }
    if (s) {
        wl_pattern_free(p);
        *out = NULL;
    }
    return s;
}

static wl_status get_cell(void *v, int64_t x, int64_t y, int *alive) {
    sp_ctx *c = v;
    settle(c);
    sp_tile *t = sp_map_find(&c->map, wl_floordiv(x, WL_TILE), wl_floordiv(y, WL_TILE));
    *alive = t ? (int)((sp_row(t, c->par, (int)wl_mod(y, WL_TILE)) >> wl_mod(x, WL_TILE)) & 1) : 0;
    for (size_t i = 0; i < c->ships.n && !*alive; i++) {
        int64_t sx, sy;
        const uint64_t *rows;
        int h = sp_ship_cells(c, i, &sx, &sy, &rows);
        if (y >= sy && y < sy + h && x >= sx && x < sx + 64)
            *alive = (int)((rows[y - sy] >> (x - sx)) & 1);
    }
    return WL_OK;
}

static wl_status set_cell(void *v, int64_t x, int64_t y, int alive) {
    sp_ctx *c = v;
    settle(c);
    wl_status ls = sp_ships_land_all(c); /* an edit may be where a ship flies */
    if (ls) return ls;
    int64_t tx = wl_floordiv(x, WL_TILE), ty = wl_floordiv(y, WL_TILE);
    sp_tile *t = alive ? sp_tile_get(c, tx, ty) : sp_map_find(&c->map, tx, ty);
    if (!t) return alive ? c->fail : WL_OK;
    ls = sp_unpack(&c->map, t);
    if (ls) return ls;
    uint64_t m = (uint64_t)1 << wl_mod(x, WL_TILE);
    uint64_t *row = &t->rows[c->par][wl_mod(y, WL_TILE)];
    uint64_t was = *row;
    *row = alive ? was | m : was & ~m;
    return *row == was ? WL_OK : sp_edited(c, t);
}

/* The tiles with the ships' cells added: the tiles that ships touch are copied into a map
 * of their own (the engine's state is not changed). */
static wl_status each_tile(void *v, wl_tile_fn fn, void *arg) {
    sp_ctx *c = v;
    settle(c);
    sp_map ov = {0};
    wl_status s = c->ships.n ? sp_map_init(&ov) : WL_OK;
    for (size_t i = 0; i < c->ships.n && !s; i++) {
        int64_t x, y;
        const uint64_t *rows;
        int h = sp_ship_cells(c, i, &x, &y, &rows);
        for (int r = 0; r < h && !s; r++) {
            const int64_t ty = wl_floordiv(y + r, WL_TILE);
            int64_t tx;
            uint64_t part[2];
            sp_word_parts(x, rows[r], &tx, part);
            for (int k = 0; k < 2 && !s; k++) {
                if (!part[k]) continue;
                size_t before = ov.count;
                sp_tile *o = sp_map_get(&ov, tx + k, ty);
                if (!o) {
                    s = WL_ERR_NOMEM;
                    break;
                }
                const sp_tile *t = ov.count != before ? sp_map_find(&c->map, tx + k, ty) : NULL;
                if (t) memcpy(o->rows[0], sp_rows(t, c->par, o->rows[1]), sizeof o->rows[0]);
                o->rows[0][wl_mod(y + r, WL_TILE)] |= part[k];
            }
        }
    }
    uint64_t tmp[WL_TILE];
    FOR_EACH_TILE(c, t) {
        if (s) break;
        const sp_tile *o = ov.slot ? sp_map_find(&ov, t->tx, t->ty) : NULL;
        const uint64_t *rows = o ? o->rows[0] : sp_rows(t, c->par, tmp);
        uint64_t or = 0;
        for (int r = 0; r < WL_TILE; r++) or |= rows[r];
        if (or) s = fn(arg, t->tx, t->ty, rows);
    }
    for (size_t i = 0; i < ov.cap && !s; i++) {
        const sp_tile *o = ov.slot[i];
        if (o && !sp_map_find(&c->map, o->tx, o->ty)) s = fn(arg, o->tx, o->ty, o->rows[0]);
    }
    if (ov.slot) sp_map_free(&ov);
    return s;
}

static wl_status put_tile(void *v, int64_t tx, int64_t ty, const uint64_t *rows) {
    sp_ctx *c = v;
    settle(c);
    wl_status ls = sp_ships_land_all(c);
    if (ls) return ls;
    uint64_t or = 0;
    for (int r = 0; r < WL_TILE; r++) or |= rows[r];
    sp_tile *t = or ? sp_tile_get(c, tx, ty) : sp_map_find(&c->map, tx, ty);
    if (!t) return or ? c->fail : WL_OK;
    ls = sp_unpack(&c->map, t);
    if (ls) return ls;
    memcpy(t->rows[c->par], rows, sizeof t->rows[0]);
    return sp_edited(c, t);
}

/* ---- rendering (the viewer, when the pattern is too wide for a snapshot) ------------- */

typedef __int128 sp_i128;

/* Floor division of a 128-bit value by 2^k (k <= 63): the pixel of a cell coordinate. */
static inline sp_i128 floor_shift(sp_i128 a, int k) { return a >> k; }

/* Draws rows of cells (bit b of rows[r] is the cell (x + b, y + r): a tile, or a ship) into
 * the view (see render.c for the meaning of zoom): zoomed in, each live
 * cell is a square of pixels; zoomed out, each pixel that covers a live cell is lit, found
 * by skipping, along each row word, to the first live cell past the pixel just lit. */
static void render_rows(const uint64_t *rows, int nrows, int64_t x, int64_t y, const wl_view *v,
                        uint32_t *rgba) {
    const sp_i128 X = (sp_i128)x - v->x, Y = (sp_i128)y - v->y;
    const int z = v->zoom;
    for (int r = 0; r < nrows; r++) {
        uint64_t w = rows[r];
        if (!w) continue;
        if (z >= 0) {
            sp_i128 y0 = (Y + r) * ((sp_i128)1 << z); /* a multiplication: Y + r may be negative */
            if (y0 >= (sp_i128)v->height || y0 + (1 << z) <= 0) continue;
            for (; w; w &= w - 1) {
                sp_i128 x0 = (X + __builtin_ctzll(w)) * ((sp_i128)1 << z);
                if (x0 >= (sp_i128)v->width || x0 + (1 << z) <= 0) continue;
                for (sp_i128 py = y0 < 0 ? 0 : y0; py < y0 + (1 << z) && py < (sp_i128)v->height; py++)
                    for (sp_i128 px = x0 < 0 ? 0 : x0; px < x0 + (1 << z) && px < (sp_i128)v->width; px++)
                        rgba[(size_t)py * v->width + (size_t)px] = v->alive;
            }
        } else {
            sp_i128 py = floor_shift(Y + r, -z);
            if (py < 0 || py >= (sp_i128)v->height) continue;
            uint32_t *line = rgba + (size_t)py * v->width;
            while (w) {
                int b = __builtin_ctzll(w);
                sp_i128 px = floor_shift(X + b, -z);
                if (px >= (sp_i128)v->width) break;
                if (px >= 0) line[(size_t)px] = v->alive;
                /* the first cell of the next pixel, relative to the tile */
                sp_i128 next = (px + 1) * ((sp_i128)1 << -z) - X;
                if (next >= 64) break;
                w &= ~(uint64_t)0 << (int)next;
            }
        }
    }
}

static wl_status render(void *v, const wl_view *view, uint32_t *rgba) {
    sp_ctx *c = v;
    settle(c);
    if (!view || !rgba || !view->width || !view->height || view->zoom > 20 || view->zoom < -40)
        return wl_error(WL_ERR_INVALID, "sparse engine: render: empty view or zoom outside "
                                        "[-40, 20]");
    size_t np = (size_t)view->width * view->height;
    for (size_t i = 0; i < np; i++) rgba[i] = view->dead;
    /* the tiles the view covers: looked up one by one, or the whole map when that is
     * shorter */
    int z = view->zoom;
    sp_i128 w = z >= 0 ? ((sp_i128)view->width >> z) + 1 : (sp_i128)view->width << -z;
    sp_i128 h = z >= 0 ? ((sp_i128)view->height >> z) + 1 : (sp_i128)view->height << -z;
    sp_i128 tx0 = floor_shift(view->x, 6), ty0 = floor_shift(view->y, 6);
    sp_i128 tx1 = floor_shift((sp_i128)view->x + w, 6), ty1 = floor_shift((sp_i128)view->y + h, 6);
    sp_i128 ntiles = (tx1 - tx0 + 1) * (ty1 - ty0 + 1);
    uint64_t tmp[WL_TILE];
    for (size_t i = 0; i < c->ships.n; i++) {
        int64_t x, y;
        const uint64_t *rows;
        int nr = sp_ship_cells(c, i, &x, &y, &rows);
        render_rows(rows, nr, x, y, view, rgba);
    }
    if (ntiles > (sp_i128)c->map.count) {
        FOR_EACH_TILE(c, t) {
            if (t->tx >= tx0 && t->tx <= tx1 && t->ty >= ty0 && t->ty <= ty1)
                render_rows(sp_rows(t, c->par, tmp), WL_TILE, t->tx * WL_TILE, t->ty * WL_TILE, view, rgba);
        }
        return WL_OK;
    }
    for (sp_i128 ty = ty0; ty <= ty1; ty++)
        for (sp_i128 tx = tx0; tx <= tx1; tx++) {
            if (tx > SP_COORD_MAX || tx < -SP_COORD_MAX || ty > SP_COORD_MAX || ty < -SP_COORD_MAX) continue;
            const sp_tile *t = sp_map_find(&c->map, (int64_t)tx, (int64_t)ty);
            if (t) render_rows(sp_rows(t, c->par, tmp), WL_TILE, t->tx * WL_TILE, t->ty * WL_TILE, view, rgba);
        }
    return WL_OK;
}

/* Rounds and dense passes on the first n threads (n < 1: all): the bands of tile rows are
 * cut again for that many owners (when that fails, the threads help with the parts of the
 * owners that do not run). */
static void set_threads(void *v, int n) {
    sp_ctx *c = v;
    n = n < 1 || n > c->nthreads ? c->nthreads : n;
    if (n == c->active) return;
    c->active = n;
    wl_pool_set_active(c->pool, n);
    if (c->grid_ctx && c->inner->set_threads) c->inner->set_threads(c->grid_ctx, n);
    /* a band for each thread (cut by the next round's tiles), the list grouped again */
    const int nown = n < SP_OWNERS_MAX ? n : SP_OWNERS_MAX, was = c->nown;
    c->nown = nown;
    if (nown != was && cut_bands(c, &c->next)) { /* (no memory: they help each other) */
        wl_clear_error();
        c->nown = was;
    }
    c->grouped = 0;
    c->exclusive = c->nown == n && !c->help;
}

const wl_engine_ops wl_engine_sparse = {
    .name = "sparse",
    .description = "the unbounded plane as 64x64 bit-packed tiles; only the parts that change "
                   "(not still, not period 2) are stepped, by the cpu engine's SIMD kernels",
    .caps = WL_CAP_PLANE,
    .kernels = kernel_names,
    .create = create,
    .destroy = destroy,
    .load_pattern = load_pattern,
    .store_pattern = store_pattern,
    .step = step,
    .population = population,
    .bounds = bounds,
    .get_cell = get_cell,
    .set_cell = set_cell,
    .render = render,
    .each_tile = each_tile,
    .put_tile = put_tile,
    .set_threads = set_threads,
};
