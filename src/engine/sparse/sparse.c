/*
 * sparse.c - the `sparse` engine: the unbounded plane as a hash map of 64 x 64 bit-packed
 * tiles, of which only the ones that change are computed, by the cpu engine's own
 * bit-sliced row kernels.
 *
 * The plane.  A tile holds 64 rows of one 64-bit word (bit b of rows[r] is the cell
 * (64 tx + b, 64 ty + r)); tiles that do not exist are dead.  Tiles live in a hash map
 * keyed by (tx, ty) (sparse_map.c) and know their eight neighbours by pointer, so that
 * stepping never hashes.  Tiles are made where activity reaches and freed when they are
 * dead and still.  Coordinates are 64-bit (tiles up to 2^56 from the origin).
 *
 * Passes.  The engine advances in passes of j <= K generations (K = PASS_GENS).  For each
 * tile it keeps two change records (sp_box: a row range and a column mask):
 *     d1 = where the state now differs from the state one generation ago,
 *     d2 = where the state now differs from the state two generations ago.
 * The light cone decides what a pass must compute.  If s(t) = s(t-2) on every cell within
 * distance r of x, then s(t+i) = s(t+i-2) at x for i <= r, so a cell farther than j from
 * every cell of d2 is, after an even number j of generations, exactly what it is now:
 * still lifes and period-2 oscillators (blinkers, beehives, the ash of a soup) cost
 * nothing.  Likewise a cell farther than j from every cell of d1 is unchanged after any j
 * generations, which is what an odd pass (only the remainder of a step) uses.  So a pass
 * marks, from each tile's record (d2 for even j, d1 for odd j), the rows within j of the
 * change in the tile itself and in whichever of its eight neighbours the dilated box
 * reaches, creating missing neighbours on the way.  Only marked tiles are computed, and
 * only their marked rows are written back; the rest of the plane is left as it is.
 *
 * Computing.  Marked tiles that are horizontal neighbours form chunks of up to
 * CHUNK_TILES tiles.  A chunk's buffer row holds one word of halo on each side (the
 * neighbour tiles' edge words, zero where none) and the chunk's words, rounded up to the
 * row kernel's vector width (8 words for AVX-512); the buffer's rows are the chunk's rows
 * zlo - j .. zhi + j (from the tiles above and below where they cross the tile edge).
 * Generation i computes rows zlo - j + i .. zhi + j - i, so that after j generations rows
 * zlo .. zhi are exact: the temporal blocking of the cpu engine's tile driver (tile.c),
 * with a horizontal halo of 64 cells (enough for j <= 64).  The row function is the cpu
 * engine's (through its rows_kernel slot): AVX-512 ternary logic for outer-totalistic
 * rules, vpermb lookups for the others; no logic is repeated here.  The last generation is
 * written to a third buffer, so that generations j, j-1 and j-2 are all at hand and the
 * tile's new d1 and d2 come out of two comparisons.  Chunks are spread over a thread pool;
 * results go to a scratch area first (neighbouring chunks still read the old rows), then
 * into the tiles.
 *
 * Why it is fast: a dense soup runs through the same AVX-512 loop as the dense engine
 * (about 70% of its cells are the tiles' own, the rest halo), while a settled soup costs
 * only its few active spots, and a pattern that is entirely still or period 2 is stepped
 * by any number of generations at once.
 */
#include "sparse_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PASS_GENS 16       /* K: generations per pass (even; at most 64, the halo word) */
#define CHUNK_TILES 6      /* tiles per chunk: with two halo words, one AVX-512 row */
#define PARALLEL_TILES 24  /* fewer marked tiles than this run on one thread */
#define COORD_MAX ((int64_t)1 << 56) /* tile coordinates stay within +-2^56 */

enum { N, NE, E, SE, S, SW, W, NW };
static const int DX[8] = {0, 1, 1, 1, 0, -1, -1, -1};
static const int DY[8] = {-1, -1, 0, 1, 1, 1, 0, -1};

static const char *const kernel_names[] = {"best", "avx512", "avx2", "bitsliced", "vpermb",
                                           "lut6x3", NULL};

typedef struct sp_chunk {
    sp_tile **tiles; /* n consecutive tiles of one row, west to east */
    unsigned n;
    uint8_t zlo, zhi;
} sp_chunk;

typedef struct sp_ctx {
    wl_config cfg;
    const wl_engine_ops *inner;
    wl_rows_kernel rk;
    wl_pool *pool;
    int nthreads;
    sp_map map;
    unsigned K;
    /* tiles whose d1 or d2 is not empty */
    sp_tile **act;
    size_t nact, act_cap;
    size_t n_d2; /* how many of them have a non-empty d2 */
    /* the pass: marked tiles (in chunk order after chunking), chunks, scratch rows */
    sp_tile **q, **qc;
    size_t nq, q_cap, qc_cap;
    sp_chunk *chunks;
    size_t nchunks;
    uint64_t *scratch; /* 64 words per marked tile, by slot */
    size_t scratch_tiles;
    /* per-thread buffers: three of buf_words each */
    uint64_t **buf;
    size_t pitch, bw_max, buf_words;
    unsigned gens; /* of the current pass */
    /* statistics (WL_SPARSE_STATS=1 prints them when the universe is freed) */
    int stats;
    uint64_t st_passes, st_tiles, st_chunks, st_rows, st_gens;
    size_t next_chunk;
    wl_status fail; /* why tile_get last returned NULL */
} sp_ctx;

static inline int box_empty(sp_box b) { return b.lo >= b.hi; }
static const sp_box BOX_EMPTY = {0, 0, 0};
static const sp_box BOX_FULL = {0, SP_TILE, ~(uint64_t)0};

static sp_box box_union(sp_box a, sp_box b) {
    if (box_empty(a)) return b;
    if (box_empty(b)) return a;
    sp_box r = {a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi, a.cols | b.cols};
    return r;
}

/* ---- growing arrays ----------------------------------------------------------------- */

static wl_status reserve(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return WL_OK;
    size_t c = *cap ? *cap : 256;
    while (c < need) c *= 2;
    void *n = realloc(*p, c * elem);
    if (!n) return wl_error(WL_ERR_NOMEM, "sparse engine: out of memory (%zu tiles)", need);
    *p = n;
    *cap = c;
    return WL_OK;
}

static wl_status act_push(sp_ctx *c, sp_tile *t) {
    if (t->listed) return WL_OK;
    wl_status s = reserve((void **)&c->act, &c->act_cap, c->nact + 1, sizeof *c->act);
    if (s) return s;
    t->listed = 1;
    c->act[c->nact++] = t;
    return WL_OK;
}

/* ---- tiles and their neighbour links ---------------------------------------------------- */

/* The tile at (tx, ty), created (dead, linked to its neighbours) if missing. */
static sp_tile *tile_get(sp_ctx *c, int64_t tx, int64_t ty) {
    if (tx > COORD_MAX || tx < -COORD_MAX || ty > COORD_MAX || ty < -COORD_MAX) {
        c->fail = wl_error(WL_ERR_TOO_BIG, "sparse engine: the pattern reached 2^62 cells "
                                           "from the origin, the edge of the engine's plane");
        return NULL;
    }
    size_t before = c->map.count;
    sp_tile *t = sp_map_get(&c->map, tx, ty);
    if (!t) c->fail = WL_ERR_NOMEM;
    if (!t || c->map.count == before) return t;
    for (int d = 0; d < 8; d++) {
        sp_tile *n = sp_map_find(&c->map, tx + DX[d], ty + DY[d]);
        t->nb[d] = n;
        if (n) n->nb[d ^ 4] = t;
    }
    return t;
}

static sp_tile *neighbour(sp_ctx *c, sp_tile *t, int d) {
    if (!t->nb[d]) t->nb[d] = tile_get(c, t->tx + DX[d], t->ty + DY[d]);
    return t->nb[d];
}

static void tile_remove(sp_ctx *c, sp_tile *t) {
    for (int d = 0; d < 8; d++)
        if (t->nb[d]) t->nb[d]->nb[d ^ 4] = NULL;
    sp_map_remove(&c->map, t);
}

static int tile_dead(const sp_tile *t) {
    uint64_t any = 0;
    for (int r = 0; r < SP_TILE; r++) any |= t->rows[r];
    return any == 0;
}

/* ---- marking ------------------------------------------------------------------------ */

static wl_status mark(sp_ctx *c, sp_tile *t, int lo, int hi) {
    if (!t) return c->fail; /* error set by tile_get */
    if (lo < 0) lo = 0;
    if (hi > SP_TILE) hi = SP_TILE;
    if (lo >= hi) return WL_OK;
    if (t->queued) {
        if (lo < t->nlo) t->nlo = (uint8_t)lo;
        if (hi > t->nhi) t->nhi = (uint8_t)hi;
        return WL_OK;
    }
    wl_status s = reserve((void **)&c->q, &c->q_cap, c->nq + 1, sizeof *c->q);
    if (s) return s;
    t->queued = 1;
    t->nlo = (uint8_t)lo;
    t->nhi = (uint8_t)hi;
    c->q[c->nq++] = t;
    return WL_OK;
}

/* Marks the rows a change box b of tile t reaches in j generations, in t and its
 * neighbours. */
static wl_status mark_box(sp_ctx *c, sp_tile *t, sp_box b, int j) {
    int lo = b.lo - j, hi = b.hi + j;
    int north = lo < 0, south = hi > SP_TILE;
    /* columns within j of the west edge are the low bits, of the east edge the high ones */
    int west = j >= 64 ? b.cols != 0 : (b.cols & (((uint64_t)1 << j) - 1)) != 0;
    int east = j >= 64 ? b.cols != 0 : (b.cols >> (64 - j)) != 0;
    wl_status s = mark(c, t, lo, hi);
    if (!s && north) s = mark(c, neighbour(c, t, N), lo + SP_TILE, SP_TILE);
    if (!s && south) s = mark(c, neighbour(c, t, S), 0, hi - SP_TILE);
    if (!s && west) s = mark(c, neighbour(c, t, W), lo, hi);
    if (!s && east) s = mark(c, neighbour(c, t, E), lo, hi);
    if (!s && north && west) s = mark(c, neighbour(c, t, NW), lo + SP_TILE, SP_TILE);
    if (!s && north && east) s = mark(c, neighbour(c, t, NE), lo + SP_TILE, SP_TILE);
    if (!s && south && west) s = mark(c, neighbour(c, t, SW), 0, hi - SP_TILE);
    if (!s && south && east) s = mark(c, neighbour(c, t, SE), 0, hi - SP_TILE);
    return s;
}

/* Groups the marked tiles into chunks of horizontal neighbours (c->qc in chunk order). */
static wl_status make_chunks(sp_ctx *c) {
    wl_status s = WL_OK;
    if (c->qc_cap < c->q_cap) {
        sp_tile **qc = realloc(c->qc, c->q_cap * sizeof *qc);
        if (!qc) return wl_error(WL_ERR_NOMEM, "sparse engine: out of memory");
        c->qc = qc;
        sp_chunk *ch = realloc(c->chunks, c->q_cap * sizeof *ch);
        if (!ch) return wl_error(WL_ERR_NOMEM, "sparse engine: out of memory");
        c->chunks = ch;
        c->qc_cap = c->q_cap;
    }
    sp_tile **qc = c->qc;
    sp_chunk *ch = c->chunks;
    size_t nqc = 0, nch = 0;
    for (size_t i = 0; i < c->nq; i++) {
        sp_tile *t = c->q[i];
        if (t->nb[W] && t->nb[W]->queued) continue; /* not the west end of a run */
        while (t && t->queued) {
            sp_chunk *k = &ch[nch++];
            k->tiles = qc + nqc;
            k->n = 0;
            k->zlo = SP_TILE;
            k->zhi = 0;
            while (t && t->queued && k->n < CHUNK_TILES) {
                t->slot = (uint32_t)nqc;
                qc[nqc++] = t;
                k->n++;
                if (t->nlo < k->zlo) k->zlo = t->nlo;
                if (t->nhi > k->zhi) k->zhi = t->nhi;
                t = t->nb[E];
            }
        }
    }
    c->nchunks = nch;
    return s;
}

/* ---- computing a chunk ------------------------------------------------------------------ */

static void step_chunk(sp_ctx *c, int tid, const sp_chunk *k) {
    const int j = (int)c->gens, K = (int)c->K;
    const size_t pitch = c->pitch, n = k->n;
    const size_t bw = (n + 2 + c->rk.vw - 1) / c->rk.vw * c->rk.vw;
    uint64_t *A = c->buf[3 * tid] + c->rk.pad, *B = c->buf[3 * tid + 1] + c->rk.pad;
    uint64_t *C = c->buf[3 * tid + 2] + c->rk.pad;
    const sp_tile *up[CHUNK_TILES + 2], *mid[CHUNK_TILES + 2], *down[CHUNK_TILES + 2];
    sp_tile *const *T = k->tiles;
    mid[0] = T[0]->nb[W];
    up[0] = T[0]->nb[NW];
    down[0] = T[0]->nb[SW];
    for (size_t i = 0; i < n; i++) {
        mid[i + 1] = T[i];
        up[i + 1] = T[i]->nb[N];
        down[i + 1] = T[i]->nb[S];
    }
    mid[n + 1] = T[n - 1]->nb[E];
    up[n + 1] = T[n - 1]->nb[NE];
    down[n + 1] = T[n - 1]->nb[SE];
    const int zlo = k->zlo, zhi = k->zhi;
    /* gather rows zlo - j .. zhi + j (buffer row = cell row + K) */
    for (int r = zlo - j; r < zhi + j; r++) {
        uint64_t *row = A + (size_t)(r + K) * pitch;
        const sp_tile *const *src = r < 0 ? up : r >= SP_TILE ? down : mid;
        int rr = r < 0 ? r + SP_TILE : r >= SP_TILE ? r - SP_TILE : r;
        for (size_t w = 0; w < n + 2; w++) row[w] = src[w] ? src[w]->rows[rr] : 0;
        for (size_t w = n + 2; w < bw; w++) row[w] = 0; /* (beyond bw: below) */
    }
    if (bw < c->bw_max) /* words past bw are the rows' right neighbours: zero them */
        for (int r = zlo - j; r < zhi + j; r++)
            for (uint64_t *b3 = A; b3; b3 = b3 == A ? B : b3 == B ? C : NULL)
                memset(b3 + (size_t)(r + K) * pitch + bw, 0, (c->bw_max - bw) * 8);
    uint64_t *in = A, *out = B, *prev2 = NULL;
    for (int i = 1; i <= j; i++) {
        size_t lo = (size_t)(zlo - j + i + K), hi = (size_t)(zhi + j - i + K);
        uint64_t *dst = i == j ? C : out;
        c->rk.gen_rows(in, dst, pitch, bw, lo, hi, 0, NULL, c->rk.data);
        if (i == j) {
            prev2 = j >= 2 ? out : NULL; /* generation j - 2 */
            out = in;                    /* generation j - 1 */
        } else {
            uint64_t *tmp = in;
            in = out;
            out = tmp;
        }
    }
    const uint64_t *prev1 = out;
    /* results: new rows to scratch, new change boxes */
    for (size_t i = 0; i < n; i++) {
        sp_tile *t = T[i];
        uint64_t *scr = c->scratch + (size_t)t->slot * SP_TILE;
        sp_box d1 = BOX_EMPTY, d2 = BOX_EMPTY;
        for (int r = zlo; r < zhi; r++) {
            size_t at = (size_t)(r + K) * pitch + i + 1;
            uint64_t v = C[at], x1 = v ^ prev1[at];
            uint64_t x2 = prev2 ? v ^ prev2[at] : ~(uint64_t)0;
            scr[r] = v;
            if (x1) {
                if (box_empty(d1)) d1.lo = (uint8_t)r;
                d1.hi = (uint8_t)(r + 1);
                d1.cols |= x1;
            }
            if (x2) {
                if (box_empty(d2)) d2.lo = (uint8_t)r;
                d2.hi = (uint8_t)(r + 1);
                d2.cols |= x2;
            }
        }
        /* Outside rows zlo .. zhi nothing changed against j generations ago, so d2 is
         * empty there after an even pass, and d1 is what it was; after an odd pass both
         * are empty there (see the essay). */
        if ((j & 1) == 0) {
            sp_box o = t->d1;
            if (!box_empty(o) && (o.lo < zlo || o.hi > zhi)) {
                sp_box keep = o;
                if (o.lo >= zlo) keep.lo = (uint8_t)zhi;
                if (o.hi <= zhi) keep.hi = (uint8_t)zlo;
                d1 = box_union(d1, keep);
            }
        }
        t->d1 = d1;
        t->d2 = d2;
        t->nlo = (uint8_t)zlo;
        t->nhi = (uint8_t)zhi;
    }
}

static void pass_task(void *arg, int tid, int nthreads) {
    (void)nthreads;
    sp_ctx *c = arg;
    for (;;) {
        size_t i = __atomic_fetch_add(&c->next_chunk, 1, __ATOMIC_RELAXED);
        if (i >= c->nchunks) break;
        step_chunk(c, tid, &c->chunks[i]);
    }
}

static void copy_task(void *arg, int tid, int nthreads) {
    sp_ctx *c = arg;
    size_t per = (c->nq + (size_t)nthreads - 1) / (size_t)nthreads;
    size_t a = (size_t)tid * per, b = a + per < c->nq ? a + per : c->nq;
    for (size_t i = a; i < b; i++) {
        sp_tile *t = c->qc[i];
        const uint64_t *scr = c->scratch + (size_t)t->slot * SP_TILE;
        memcpy(t->rows + t->nlo, scr + t->nlo, (size_t)(t->nhi - t->nlo) * 8);
    }
}

/* ---- one pass ----------------------------------------------------------------------------- */

static wl_status pass(sp_ctx *c, unsigned j) {
    wl_status s = WL_OK;
    int even = (j & 1) == 0;
    c->nq = 0;
    for (size_t i = 0; i < c->nact && !s; i++) {
        sp_tile *t = c->act[i];
        sp_box b = even ? t->d2 : t->d1;
        if (!box_empty(b)) s = mark_box(c, t, b, (int)j);
    }
    if (!s) s = make_chunks(c);
    if (!s && c->nq > c->scratch_tiles) {
        uint64_t *scr = realloc(c->scratch, c->q_cap * SP_TILE * sizeof *scr);
        if (!scr) s = wl_error(WL_ERR_NOMEM, "sparse engine: out of memory");
        else {
            c->scratch = scr;
            c->scratch_tiles = c->q_cap;
        }
    }
    if (s) { /* nothing computed: unmark, the universe is as it was */
        for (size_t i = 0; i < c->nq; i++) c->q[i]->queued = 0;
        return s;
    }
    c->gens = j;
    c->next_chunk = 0;
    if (c->stats) {
        c->st_passes++;
        c->st_tiles += c->nq;
        c->st_chunks += c->nchunks;
        c->st_gens += j;
        for (size_t i = 0; i < c->nchunks; i++)
            c->st_rows += (uint64_t)(c->chunks[i].zhi - c->chunks[i].zlo + j) * j;
    }
    int parallel = c->nthreads > 1 && c->nq >= PARALLEL_TILES;
    if (parallel) {
        wl_pool_run(c->pool, pass_task, c);
        wl_pool_run(c->pool, copy_task, c);
    } else {
        pass_task(c, 0, 1);
        copy_task(c, 0, 1);
    }
    /* after an odd pass, tiles left alone are unchanged against two generations ago */
    if (!even)
        for (size_t i = 0; i < c->nact; i++)
            if (!c->act[i]->queued) c->act[i]->d2 = BOX_EMPTY;
    /* the new list of changing tiles: the old one and the computed ones, less the still;
     * computed tiles that are dead and still are freed */
    size_t keep = 0;
    c->n_d2 = 0;
    for (size_t i = 0; i < c->nact; i++) {
        sp_tile *t = c->act[i];
        if (t->queued) { /* handled with the marked tiles below */
            t->listed = 0;
            continue;
        }
        if (box_empty(t->d1) && box_empty(t->d2)) {
            t->listed = 0;
            continue;
        }
        c->n_d2 += !box_empty(t->d2);
        c->act[keep++] = t;
    }
    c->nact = keep;
    for (size_t i = 0; i < c->nq; i++) {
        sp_tile *t = c->qc[i];
        t->queued = 0;
        if (box_empty(t->d1) && box_empty(t->d2)) {
            if (tile_dead(t)) tile_remove(c, t);
            continue;
        }
        if (!s) s = act_push(c, t);
        c->n_d2 += !box_empty(t->d2);
    }
    return s;
}

static wl_status step(void *v, uint64_t generations, uint64_t *done) {
    sp_ctx *c = v;
    uint64_t n = 0;
    *done = 0;
    while (n < generations) {
        uint64_t left = generations - n;
        if (c->nact == 0) break; /* everything still: any number of generations is free */
        if (c->n_d2 == 0) {       /* everything still or period 2 */
            if ((left & 1) == 0) break;
            n += left - 1;
            left = 1;
        }
        unsigned j = left < c->K ? (unsigned)left : c->K;
        wl_status s = pass(c, j);
        if (s) { /* nothing was computed: the universe stays at generation n */
            *done = n;
            return s;
        }
        n += j;
        if (n < generations && c->cfg.poll && c->cfg.poll(c->cfg.poll_user)) {
            *done = n;
            return wl_error(WL_ERR_INTERRUPTED, "sparse engine: interrupted after %llu "
                                                "generations", (unsigned long long)n);
        }
    }
    *done = generations;
    return WL_OK;
}

/* ---- create / destroy -------------------------------------------------------------------- */

static void destroy(void *v) {
    sp_ctx *c = v;
    if (!c) return;
    if (c->stats)
        fprintf(stderr, "warplife: sparse engine: %llu passes (%llu generations), %llu tile "
                        "steps, %llu chunk steps, %llu chunk rows computed, %zu tiles now\n",
                (unsigned long long)c->st_passes, (unsigned long long)c->st_gens,
                (unsigned long long)c->st_tiles, (unsigned long long)c->st_chunks,
                (unsigned long long)c->st_rows, c->map.count);
    if (c->inner && c->rk.gen_rows) c->inner->rows_kernel_free(&c->rk);
    if (c->buf)
        for (int i = 0; i < 3 * c->nthreads; i++) wl_aligned_free(c->buf[i]);
    free(c->buf);
    wl_pool_destroy(c->pool);
    sp_map_free(&c->map);
    free(c->act);
    free(c->q);
    free(c->qc);
    free(c->chunks);
    free(c->scratch);
    free(c);
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
    if (!inner || !inner->rows_kernel)
        return wl_error(WL_ERR_UNAVAILABLE, "sparse engine: needs the cpu engine's kernels");
    sp_ctx *c = wl_calloc(1, sizeof *c);
    if (!c) return WL_ERR_NOMEM;
    c->cfg = *cfg;
    c->K = PASS_GENS;
    c->stats = getenv("WL_SPARSE_STATS") && atoi(getenv("WL_SPARSE_STATS")) > 0;
    const char *env = getenv("WL_SPARSE_PASS"); /* for tuning experiments */
    if (env && atoi(env) >= 2 && atoi(env) <= 64) c->K = (unsigned)atoi(env) & ~1u;
    wl_status s = sp_map_init(&c->map);
    if (s) goto fail;
    wl_config icfg = *cfg;
    icfg.kernel = kernel;
    icfg.topology = WL_TOPOLOGY_TORUS;
    s = inner->rows_kernel(&icfg, &c->rk);
    if (s) goto fail;
    c->inner = inner;
    c->nthreads = cfg->threads > 0 ? cfg->threads : wl_cpu_count();
    if (c->nthreads > 4 * wl_cpu_count()) c->nthreads = 4 * wl_cpu_count();
    c->pool = wl_pool_create(c->nthreads);
    if (!c->pool) {
        s = WL_ERR_NOMEM;
        goto fail;
    }
    c->bw_max = (CHUNK_TILES + 2 + c->rk.vw - 1) / c->rk.vw * c->rk.vw;
    c->pitch = c->bw_max + 2 * c->rk.pad;
    c->buf_words = (SP_TILE + 2 * (size_t)c->K) * c->pitch + 2 * c->rk.pad;
    c->buf = wl_calloc(3 * (size_t)c->nthreads, sizeof *c->buf);
    if (!c->buf) {
        s = WL_ERR_NOMEM;
        goto fail;
    }
    for (int i = 0; i < 3 * c->nthreads; i++) {
        c->buf[i] = wl_aligned_alloc(c->buf_words * 8);
        if (!c->buf[i]) {
            s = WL_ERR_NOMEM;
            goto fail;
        }
        memset(c->buf[i], 0, c->buf_words * 8); /* pads stay zero for ever */
    }
    if (cfg->verbose)
        fprintf(stderr, "warplife: sparse engine: 64x64 tiles, %u generations per pass, "
                        "%s rows, %d thread%s\n",
                c->K, c->rk.name, c->nthreads, c->nthreads == 1 ? "" : "s");
    *out = c;
    return WL_OK;
fail:
    destroy(c);
    return s;
}

/* ---- patterns and cells ---------------------------------------------------------------- */

static void clear(sp_ctx *c) {
    sp_map_clear(&c->map);
    c->nact = c->n_d2 = 0;
}

/* A tile whose cells were set from outside: its history is unknown, so it counts as
 * changed everywhere. */
static wl_status touched(sp_ctx *c, sp_tile *t) {
    t->d1 = t->d2 = BOX_FULL;
    return act_push(c, t);
}

static wl_status load_pattern(void *v, const wl_pattern *p) {
    sp_ctx *c = v;
    clear(c);
    wl_rect r;
    if (!wl_pattern_bounds(p, &r)) return WL_OK;
    int64_t tx0 = wl_floordiv(r.x, SP_TILE);
    int64_t tx1 = wl_floordiv(r.x + (int64_t)r.w - 1, SP_TILE);
    size_t nw = (size_t)(tx1 - tx0 + 1);
    uint64_t *words = wl_malloc(nw * 8);
    if (!words) return WL_ERR_NOMEM;
    wl_status s = WL_OK;
    for (uint64_t i = 0; i < r.h && !s; i++) {
        int64_t y = r.y + (int64_t)i;
        wl_pattern_get_row(p, tx0 * SP_TILE, y, nw * SP_TILE, words);
        int64_t ty = wl_floordiv(y, SP_TILE);
        for (size_t w = 0; w < nw && !s; w++) {
            if (!words[w]) continue;
            sp_tile *t = tile_get(c, tx0 + (int64_t)w, ty);
            if (!t) {
                s = c->fail;
                break;
            }
            t->rows[wl_mod(y, SP_TILE)] = words[w];
            if (!t->listed) s = touched(c, t);
        }
    }
    free(words);
    if (s) clear(c);
    c->n_d2 = c->nact;
    return s;
}

/* Calls fn for every tile with a live cell. */
#define FOR_EACH_TILE(c, t)                                                                 \
    for (size_t i_ = 0; i_ < (c)->map.cap; i_++)                                            \
        for (sp_tile *t = (c)->map.slot[i_]; t; t = NULL)

static wl_status bounds_of(sp_ctx *c, int64_t *x0, int64_t *y0, int64_t *x1, int64_t *y1) {
    int any = 0;
    FOR_EACH_TILE(c, t) {
        uint64_t or = 0;
        int rlo = -1, rhi = -1;
        for (int r = 0; r < SP_TILE; r++)
            if (t->rows[r]) {
                or |= t->rows[r];
                if (rlo < 0) rlo = r;
                rhi = r;
            }
        if (!or) continue;
        int64_t ax = t->tx * SP_TILE + __builtin_ctzll(or);
        int64_t bx = t->tx * SP_TILE + 63 - __builtin_clzll(or);
        int64_t ay = t->ty * SP_TILE + rlo, by = t->ty * SP_TILE + rhi;
        if (!any || ax < *x0) *x0 = ax;
        if (!any || bx > *x1) *x1 = bx;
        if (!any || ay < *y0) *y0 = ay;
        if (!any || by > *y1) *y1 = by;
        any = 1;
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
    uint64_t n = 0;
    FOR_EACH_TILE(c, t) {
        for (int r = 0; r < SP_TILE; r++) n += (uint64_t)__builtin_popcountll(t->rows[r]);
    }
    wl_bigint_from_u64(out, n);
    return WL_OK;
}

static wl_status store_pattern(void *v, wl_pattern **out) {
    sp_ctx *c = v;
    *out = wl_pattern_new();
    if (!*out) return WL_ERR_NOMEM;
    wl_pattern *p = *out;
    wl_pattern_set_rule(p, &c->cfg.rule);
    int64_t x0, y0, x1, y1;
    if (bounds_of(c, &x0, &y0, &x1, &y1) != WL_OK) return WL_OK;
    wl_rect r = {x0, y0, (uint64_t)(x1 - x0) + 1, (uint64_t)(y1 - y0) + 1};
    wl_status s = wl_pattern_reserve(p, &r);
    if (s) {
        wl_pattern_free(p);
        *out = NULL;
        return s;
    }
    FOR_EACH_TILE(c, t) {
        for (int rr = 0; rr < SP_TILE; rr++) {
            uint64_t w = t->rows[rr];
            if (!w) continue;
            /* the word covers x = 64 tx .. 64 tx + 63, clipped to the reserved storage */
            int64_t x = t->tx * SP_TILE, y = t->ty * SP_TILE + rr;
            while (w) { /* one run of live cells at a time */
                int b = __builtin_ctzll(w);
                uint64_t rest = ~(w >> b);
                int run = rest ? __builtin_ctzll(rest) : 64 - b;
                s = wl_pattern_set_run(p, x + b, y, (uint64_t)run);
                if (s) {
                    wl_pattern_free(p);
                    *out = NULL;
                    return s;
                }
                w &= run == 64 ? 0 : ~((((uint64_t)1 << run) - 1) << b);
            }
        }
    }
    return WL_OK;
}

static wl_status get_cell(void *v, int64_t x, int64_t y, int *alive) {
    sp_ctx *c = v;
    sp_tile *t = sp_map_find(&c->map, wl_floordiv(x, SP_TILE), wl_floordiv(y, SP_TILE));
    *alive = t ? (int)((t->rows[wl_mod(y, SP_TILE)] >> wl_mod(x, SP_TILE)) & 1) : 0;
    return WL_OK;
}

static wl_status set_cell(void *v, int64_t x, int64_t y, int alive) {
    sp_ctx *c = v;
    int64_t tx = wl_floordiv(x, SP_TILE), ty = wl_floordiv(y, SP_TILE);
    sp_tile *t = alive ? tile_get(c, tx, ty) : sp_map_find(&c->map, tx, ty);
    if (!t) return alive ? c->fail : WL_OK;
    uint64_t m = (uint64_t)1 << wl_mod(x, SP_TILE);
    uint64_t *row = &t->rows[wl_mod(y, SP_TILE)];
    uint64_t was = *row;
    *row = alive ? was | m : was & ~m;
    if (*row == was) return WL_OK;
    wl_status s = touched(c, t);
    c->n_d2++;
    return s;
}

static wl_status each_tile(void *v, wl_tile_fn fn, void *arg) {
    sp_ctx *c = v;
    FOR_EACH_TILE(c, t) {
        uint64_t or = 0;
        for (int r = 0; r < SP_TILE; r++) or |= t->rows[r];
        if (!or) continue;
        wl_status s = fn(arg, t->tx, t->ty, t->rows);
        if (s) return s;
    }
    return WL_OK;
}

static wl_status put_tile(void *v, int64_t tx, int64_t ty, const uint64_t *rows) {
    sp_ctx *c = v;
    uint64_t or = 0;
    for (int r = 0; r < SP_TILE; r++) or |= rows[r];
    sp_tile *t = or ? tile_get(c, tx, ty) : sp_map_find(&c->map, tx, ty);
    if (!t) return or ? c->fail : WL_OK;
    memcpy(t->rows, rows, sizeof t->rows);
    wl_status s = touched(c, t);
    c->n_d2++;
    return s;
}

const wl_engine_ops wl_engine_sparse = {
    .name = "sparse",
    .description = "the unbounded plane as 64x64 bit-packed tiles; only tiles that change "
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
    .each_tile = each_tile,
    .put_tile = put_tile,
};
