/*
 * hl_query.c - what HashLife answers about its quadtree without stepping it: exact
 * population and bounding box (wl_bigint, any size), conversion from and to dense patterns,
 * single cells, and rendering a view (zoomed out at any origin in time linear in the
 * distinct nodes seen: see the essay above hl_render's part, "---- rendering").
 *
 * Every query walks the shared DAG once per distinct node: populations of nodes of levels
 * 6 to 30 (which fit in 62 bits) are kept in a map from node to population that lasts
 * until a garbage collection reuses indices (below level 6 a node's population is summed
 * from at most 64 leaves each time: leaving them out keeps the map a fraction of the
 * store); above that a small per-call map from node to wl_bigint keeps the walk linear in
 * the number of distinct nodes.  The bounding box is
 * found side by side: the distance of the first live row (or column) from a side of a node
 * is the minimum over the two children touching that side, or half the node plus the
 * minimum over the two others when both are empty; memoised per node in the same kind of
 * map, in exact big integers so that universes wider than 2^64 cells are measured right.
 *
 * Positions inside the tree are computed in __int128, which covers roots up to level 120
 * (a square 2^120 cells wide); the few operations that need positions (store, cell access,
 * render) refuse larger roots with WL_ERR_TOO_BIG.
 */
#include "hl_internal.h"

#include <stdlib.h>
#include <string.h>

#define HL_POP_CACHE_LEVEL 30 /* 4^30 cells: populations up to level 30 fit a uint64_t */
#define HL_POS_MAX_LEVEL 120  /* positions of squares are computed in 128 bits */

typedef __int128 i128;

/* ---- a small map from node index to wl_bigint ---------------------------------------- */

typedef struct big_map {
    uint32_t *keys; /* 0 = empty */
    wl_bigint *vals;
    uint32_t mask, used;
} big_map;

static int map_init(big_map *m) {
    m->mask = 255;
    m->used = 0;
    m->keys = calloc(m->mask + 1, sizeof *m->keys);
    m->vals = malloc((m->mask + 1) * sizeof *m->vals);
    return m->keys && m->vals;
}

static void map_free(big_map *m) {
    free(m->keys);
    free(m->vals);
}

static wl_bigint *map_get(const big_map *m, uint32_t k) {
    for (uint32_t i = (k * 2654435761u) & m->mask; m->keys[i]; i = (i + 1) & m->mask)
        if (m->keys[i] == k) return &m->vals[i];
    return NULL;
}

static int map_put(big_map *m, uint32_t k, const wl_bigint *v) {
    if ((m->used + 1) * 2 > m->mask + 1) {
        big_map n = {calloc(2 * (size_t)(m->mask + 1), sizeof *n.keys),
                     malloc(2 * (size_t)(m->mask + 1) * sizeof *n.vals), 2 * m->mask + 1, 0};
        if (!n.keys || !n.vals) {
            map_free(&n);
            return 0;
        }
        for (uint32_t i = 0; i <= m->mask; i++)
            if (m->keys[i]) map_put(&n, m->keys[i], &m->vals[i]);
        map_free(m);
        *m = n;
    }
    uint32_t i = (k * 2654435761u) & m->mask;
    while (m->keys[i]) i = (i + 1) & m->mask;
    m->keys[i] = k;
    m->vals[i] = *v;
    m->used++;
    return 1;
}

/* ---- population ---------------------------------------------------------------------- */

#define HL_POP_MIN_LEVEL 6 /* nodes below this level are not kept in the map */

void hl_popcache_reset(hl_ctx *h) {
    free(h->pop_keys);
    free(h->pop_vals);
    h->pop_keys = NULL;
    h->pop_vals = NULL;
    h->pop_cap = h->pop_count = 0;
}

static inline size_t pop_slot(uint32_t n, size_t cap) {
    return (size_t)(n * 0x9E3779B1u) & (cap - 1);
}

/* Puts (n, v) in the first free slot of its probe in a map of cap slots. */
static void pop_insert(uint32_t *keys, uint64_t *vals, size_t cap, uint32_t n, uint64_t v) {
    size_t j = pop_slot(n, cap);
    while (keys[j]) j = (j + 1) & (cap - 1);
    keys[j] = n;
    vals[j] = v;
}

/* Keeps population v of node n (nothing when there is no memory to grow the map: the
 * population is still right, only not kept). */
static void pop_put(hl_ctx *h, uint32_t n, uint64_t v) {
    if (2 * (h->pop_count + 1) > h->pop_cap) {
        size_t cap = h->pop_cap ? 2 * h->pop_cap : 1024;
        uint32_t *k = calloc(cap, sizeof *k);
        uint64_t *val = malloc(cap * sizeof *val);
        if (!k || !val) {
            free(k);
            free(val);
            return;
        }
        uint32_t *ok = h->pop_keys;
        uint64_t *ov = h->pop_vals;
        size_t ocap = h->pop_cap;
        h->pop_keys = k;
        h->pop_vals = val;
        h->pop_cap = cap;
        for (size_t i = 0; i < ocap; i++)
            if (ok[i]) pop_insert(k, val, cap, ok[i], ov[i]);
        free(ok);
        free(ov);
    }
    pop_insert(h->pop_keys, h->pop_vals, h->pop_cap, n, v);
    h->pop_count++;
}

static uint64_t pop_small(hl_ctx *h, uint32_t n) {
    int level = h->nodes[n].level;
    if (level == HL_LEAF_LEVEL) return (uint64_t)__builtin_popcountll(hl_leaf_bits(h, n));
    if (level >= HL_POP_MIN_LEVEL && h->pop_cap)
        for (size_t j = pop_slot(n, h->pop_cap); h->pop_keys[j]; j = (j + 1) & (h->pop_cap - 1))
            if (h->pop_keys[j] == n) return h->pop_vals[j];
    const hl_node q = h->nodes[n];
    uint64_t s = pop_small(h, q.c[0]) + pop_small(h, q.c[1]) + pop_small(h, q.c[2]) +
                 pop_small(h, q.c[3]);
    if (level >= HL_POP_MIN_LEVEL) pop_put(h, n, s);
    return s;
}

static int pop_big(hl_ctx *h, uint32_t n, int k, big_map *m, wl_bigint *out) {
    if (k <= HL_POP_CACHE_LEVEL) {
        wl_bigint_from_u64(out, pop_small(h, n));
        return 1;
    }
    const wl_bigint *c = map_get(m, n);
    if (c) {
        *out = *c;
        return 1;
    }
    wl_bigint sum, part;
    wl_bigint_from_u64(&sum, 0);
    for (int i = 0; i < 4; i++) {
        uint32_t ch = h->nodes[n].c[i];
        if (ch == h->empty[k - 1]) continue;
        if (!pop_big(h, ch, k - 1, m, &part)) return 0;
        wl_bigint_add(&sum, &sum, &part);
    }
    *out = sum;
    return map_put(m, n, &sum);
}

wl_status hl_population(void *ctx, wl_bigint *out) {
    hl_ctx *h = ctx;
    big_map m;
    if (!map_init(&m)) {
        map_free(&m);
        return wl_error(WL_ERR_NOMEM, "hashlife: out of memory (population)");
    }
    int ok = pop_big(h, h->root, h->root_level, &m, out);
    map_free(&m);
    return ok ? WL_OK : wl_error(WL_ERR_NOMEM, "hashlife: out of memory (population)");
}

/* ---- bounds ---------------------------------------------------------------------------- */

/* Children touching a side first: top, bottom, left, right. */
static const int near_side[4][2] = {{0, 1}, {2, 3}, {0, 2}, {1, 3}};
static const int far_side[4][2] = {{2, 3}, {0, 1}, {1, 3}, {0, 2}};

static int leaf_dist(uint64_t b, int side) {
    uint64_t cols = 0;
    for (int r = 0; r < 8; r++) cols |= (b >> (8 * r)) & 0xFF;
    switch (side) {
    case 0: return __builtin_ctzll(b) / 8;
    case 1: return 7 - (63 - __builtin_clzll(b)) / 8;
    case 2: return __builtin_ctzll(cols);
    default: return 7 - (63 - __builtin_clzll(cols));
    }
}

/* Distance from `side` of non-empty node n (level k) to its first live row or column. */
static int side_dist(hl_ctx *h, uint32_t n, int k, int side, big_map *m, wl_bigint *out) {
    if (k == HL_LEAF_LEVEL) {
        wl_bigint_from_u64(out, (uint64_t)leaf_dist(hl_leaf_bits(h, n), side));
        return 1;
    }
    const wl_bigint *c = map_get(m, n);
    if (c) {
        *out = *c;
        return 1;
    }
    const int *set = near_side[side];
    int extra = 0;
    if (h->nodes[n].c[set[0]] == h->empty[k - 1] && h->nodes[n].c[set[1]] == h->empty[k - 1]) {
        set = far_side[side];
        extra = 1;
    }
    int have = 0;
    wl_bigint best, d;
    for (int i = 0; i < 2; i++) {
        uint32_t ch = h->nodes[n].c[set[i]];
        if (ch == h->empty[k - 1]) continue;
        if (!side_dist(h, ch, k - 1, side, m, &d)) return 0;
        if (!have || wl_bigint_cmp(&d, &best) < 0) best = d;
        have = 1;
    }
    if (extra) {
        wl_bigint half;
        wl_bigint_from_u64(&half, 1);
        for (int i = 0; i < k - 1; i++) wl_bigint_add(&half, &half, &half);
        wl_bigint_add(&best, &best, &half);
    }
    *out = best;
    return map_put(m, n, &best);
}

wl_status hl_bounds(void *ctx, wl_bigint *xmin, wl_bigint *ymin, wl_bigint *xmax,
                    wl_bigint *ymax, int *empty) {
    hl_ctx *h = ctx;
    int k = h->root_level;
    if (h->root == h->empty[k]) {
        *empty = 1;
        wl_bigint_from_u64(xmin, 0);
        *ymin = *xmax = *ymax = *xmin;
        return WL_OK;
    }
    *empty = 0;
    wl_bigint half, one, d[4];
    wl_bigint_from_u64(&one, 1);
    half = one;
    for (int i = 0; i < k - 1; i++) wl_bigint_add(&half, &half, &half);
    for (int side = 0; side < 4; side++) {
        big_map m;
        if (!map_init(&m)) {
            map_free(&m);
            return wl_error(WL_ERR_NOMEM, "hashlife: out of memory (bounds)");
        }
        int ok = side_dist(h, h->root, k, side, &m, &d[side]);
        map_free(&m);
        if (!ok) return wl_error(WL_ERR_NOMEM, "hashlife: out of memory (bounds)");
    }
    wl_bigint neg_half, top_edge;
    wl_bigint_from_u64(&neg_half, 0);
    wl_bigint_sub(&neg_half, &neg_half, &half);  /* -2^(k-1): first row / column */
    wl_bigint_sub(&top_edge, &half, &one);       /* 2^(k-1) - 1: last row / column */
    wl_bigint_add(ymin, &neg_half, &d[0]);
    wl_bigint_sub(ymax, &top_edge, &d[1]);
    wl_bigint_add(xmin, &neg_half, &d[2]);
    wl_bigint_sub(xmax, &top_edge, &d[3]);
    return WL_OK;
}

/* ---- from and to patterns --------------------------------------------------------------- */

/* The level-k node (3 <= k <= 6) whose top-left cell is (cx, cy) of a 64x64 block of
 * rows (and, for multi-state rules, of h->nplanes blocks of plane rows after them); 0 on
 * failure. */
static uint32_t build_rows(hl_ctx *h, const uint64_t *rows, int cx, int cy, int k) {
    if (k >= 5 && !wl_rows_any(rows, cx, cy, k)) return hl_empty(h, k); /* sparse tiles */
    if (k == HL_LEAF_LEVEL && h->nplanes) {
        uint64_t planes[HL_MAX_PLANES];
        for (unsigned i = 0; i < h->nplanes; i++)
            planes[i] = wl_rows_leaf(rows + 64 * (i + 1), cx / 8, cy / 8);
        return hl_leaf_make_planes(h, wl_rows_leaf(rows, cx / 8, cy / 8), planes);
    }
    if (k == HL_LEAF_LEVEL) return hl_leaf_make(h, wl_rows_leaf(rows, cx / 8, cy / 8));
    size_t sp0 = h->sp;
    int half = 1 << (k - 1);
    uint32_t c[4];
    for (int i = 0; i < 4; i++) {
        c[i] = build_rows(h, rows, cx + (i & 1) * half, cy + (i >> 1) * half, k - 1);
        if (!c[i]) return 0;
        hl_push(h, c[i]);
    }
    uint32_t n = hl_node_make(h, c[0], c[1], c[2], c[3]);
    h->sp = sp0;
    return n;
}

/* The level-k node (k >= 6) made of the pattern tiles v[lo, hi) (quadtree order) whose
 * top-left tile is (bx, by) relative to the root's; 0 on failure.  Empty squares cost
 * nothing, so the time follows the tiles, never the bounding box. */
static uint32_t build(hl_ctx *h, const wl_pattern *p, const wl_tile_ref *v, size_t lo,
                      size_t hi, uint64_t bx, uint64_t by, int k) {
    if (lo == hi) return hl_empty(h, k);
    if (k == 6) {
        uint64_t rows[64 * (1 + HL_MAX_PLANES)] = {0};
        wl_ptile_rows(v[lo].t, rows);
        for (unsigned i = 0; i < h->nplanes; i++) { /* the states' other bits */
            const wl_pattern *pl = wl_pattern_plane(p, i);
            for (int r = 0; pl && r < 64; r++)
                wl_pattern_get_row(pl, v[lo].tx * 64, v[lo].ty * 64 + r, 64, &rows[64 * (i + 1) + r]);
        }
        return build_rows(h, rows, 0, 0, 6);
    }
    uint64_t half = (uint64_t)1 << (k - 7);
    size_t cut[5], sp0 = h->sp;
    wl_tiles_split(v, lo, hi, bx + half, by + half, cut);
    uint32_t c[4];
    for (int i = 0; i < 4; i++) {
        c[i] = build(h, p, v, cut[i], cut[i + 1], bx + (uint64_t)(i & 1) * half,
                     by + (uint64_t)(i >> 1) * half, k - 1);
        if (!c[i]) return 0;
        hl_push(h, c[i]);
    }
    uint32_t n = hl_node_make(h, c[0], c[1], c[2], c[3]);
    h->sp = sp0;
    return n;
}

static int level_covering(int64_t lo, int64_t hi) {
    int k = 6;
    while (k < 65 && !((i128)lo >= -((i128)1 << (k - 1)) && (i128)hi < ((i128)1 << (k - 1)))) k++;
    return k;
}

static wl_status take_failure(hl_ctx *h) {
    wl_status s = h->failure ? h->failure : wl_error(WL_ERR_NOMEM, "hashlife: out of memory");
    h->failure = WL_OK;
    h->sp = 0;
    return s;
}

wl_status hl_load_pattern(void *ctx, const wl_pattern *p) {
    hl_ctx *h = ctx;
    wl_rect r;
    int k = 7; /* at least a square of 2x2 tiles around the origin */
    if (wl_pattern_bounds(p, &r)) {
        int kx = level_covering(r.x, r.x + (int64_t)r.w - 1);
        int ky = level_covering(r.y, r.y + (int64_t)r.h - 1);
        if (kx > k) k = kx;
        if (ky > k) k = ky;
    }
    int64_t org = -(int64_t)((uint64_t)1 << (k - 7)); /* the root's top-left tile */
    wl_tile_ref *v;
    size_t n;
    wl_status s = wl_pattern_tiles(p, WL_TILES_Z, org, org, &v, &n);
    if (s) return s;
    h->sp = 0;
    uint32_t root = build(h, p, v, 0, n, 0, 0, k);
    free(v);
    if (!root) return take_failure(h);
    hl_set_root(h, root, k);
    return WL_OK;
}

/* ORs the live cells of node n (level k, top-left (x, y)) into pattern p. */
static wl_status store_node(hl_ctx *h, uint32_t n, int k, i128 x, i128 y, wl_pattern *p) {
    if (n == h->empty[k]) return WL_OK;
    wl_status s = WL_OK;
    if (k == HL_LEAF_LEVEL) {
        uint64_t b = hl_leaf_bits(h, n), planes[HL_MAX_PLANES];
        for (int r = 0; r < 8 && !s; r++)
            s = wl_pattern_or(p, (int64_t)x, (int64_t)(y + r), (b >> (8 * r)) & 0xFF);
        hl_leaf_planes(h, n, planes);
        for (unsigned i = 0; i < h->nplanes && !s; i++)
            for (int r = 0; r < 8 && !s; r++)
                if ((planes[i] >> (8 * r)) & 0xFF)
                    s = wl_pattern_plane_or(p, i, (int64_t)x, (int64_t)(y + r),
                                            (planes[i] >> (8 * r)) & 0xFF);
        return s;
    }
    i128 half = (i128)1 << (k - 1);
    for (int i = 0; i < 4 && !s; i++)
        s = store_node(h, h->nodes[n].c[i], k - 1, x + (i & 1) * half, y + (i >> 1) * half, p);
    return s;
}

wl_status hl_store_pattern(void *ctx, wl_pattern **out) {
    hl_ctx *h = ctx;
    *out = NULL;
    wl_bigint b[4];
    int empty;
    wl_status s = hl_bounds(h, &b[0], &b[1], &b[2], &b[3], &empty);
    if (s) return s;
    wl_pattern *p = wl_pattern_new();
    if (!p) return WL_ERR_NOMEM;
    wl_pattern_set_rule(p, &h->rule);
    if (!empty) {
        int64_t v[4];
        for (int i = 0; i < 4; i++)
            if (!wl_bigint_to_i64(&b[i], &v[i]) || h->root_level > HL_POS_MAX_LEVEL) {
                wl_pattern_free(p);
                return wl_error(WL_ERR_TOO_BIG,
                                "hashlife: the pattern extends beyond 64-bit coordinates");
            }
        i128 half = (i128)1 << (h->root_level - 1);
        s = store_node(h, h->root, h->root_level, -half, -half, p);
        if (s) {
            wl_pattern_free(p);
            return s;
        }
    }
    *out = p;
    return WL_OK;
}

/* ---- cells ------------------------------------------------------------------------------ */

wl_status hl_get_cell(void *ctx, int64_t x, int64_t y, int *alive) {
    hl_ctx *h = ctx;
    *alive = 0;
    int k = h->root_level;
    if (k > HL_POS_MAX_LEVEL)
        return wl_error(WL_ERR_TOO_BIG, "hashlife: universe too wide for cell access");
    i128 half = (i128)1 << (k - 1);
    if (x < -half || x >= half || y < -half || y >= half) return WL_OK;
    i128 ox = x + half, oy = y + half; /* offsets from the root's top-left corner */
    uint32_t n = h->root;
    while (k > HL_LEAF_LEVEL) {
        if (n == h->empty[k]) return WL_OK;
        i128 hh = (i128)1 << (k - 1);
        int q = (ox >= hh) + 2 * (oy >= hh);
        if (ox >= hh) ox -= hh;
        if (oy >= hh) oy -= hh;
        n = h->nodes[n].c[q];
        k--;
    }
    *alive = (int)(hl_leaf_bits(h, n) >> (oy * 8 + ox) & 1);
    return WL_OK;
}

/* Returns node n (level k) with its level-kr descendant at offset (ox, oy) (a multiple of
 * 2^kr) replaced by node r; 0 on failure.  r must be protected by the caller. */
static uint32_t replace_in(hl_ctx *h, uint32_t n, int k, i128 ox, i128 oy, int kr, uint32_t r) {
    if (k == kr) return r;
    i128 half = (i128)1 << (k - 1);
    int q = (ox >= half) + 2 * (oy >= half);
    uint32_t c[4];
    memcpy(c, h->nodes[n].c, sizeof c);
    uint32_t nc = replace_in(h, c[q], k - 1, ox & (half - 1), oy & (half - 1), kr, r);
    if (!nc) return 0;
    c[q] = nc;
    size_t sp0 = h->sp;
    hl_push(h, nc);
    uint32_t m = hl_node_make(h, c[0], c[1], c[2], c[3]);
    h->sp = sp0;
    return m;
}

/* Replaces the level-kr node whose top-left cell is (x, y) (multiples of 2^kr) by node r,
 * made by make(h, old node, arg) (r = 0: failure), growing the root to cover it. */
static wl_status replace_at(hl_ctx *h, int64_t x, int64_t y, int kr,
                            uint32_t (*make)(hl_ctx *, uint32_t, const void *), const void *arg) {
    int64_t lo = x < y ? x : y, hi = x > y ? x : y;
    int need = level_covering(lo, hi + (((int64_t)1 << kr) - 1));
    if (h->root_level > HL_POS_MAX_LEVEL)
        return wl_error(WL_ERR_TOO_BIG, "hashlife: universe too wide for cell access");
    wl_status s = hl_grow_root(h, need);
    if (s) return s;
    int k = h->root_level;
    i128 ox = (i128)x + ((i128)1 << (k - 1));
    i128 oy = (i128)y + ((i128)1 << (k - 1));
    h->sp = 0;
    uint32_t old = h->root;
    for (int j = k; j > kr; j--) { /* descend to the node being replaced */
        i128 half = (i128)1 << (j - 1);
        old = h->nodes[old].c[((ox & half) ? 1 : 0) + ((oy & half) ? 2 : 0)];
    }
    uint32_t r = make(h, old, arg);
    if (r) {
        hl_push(h, r);
        r = replace_in(h, h->root, k, ox, oy, kr, r);
    }
    if (!r) return take_failure(h);
    hl_set_root(h, r, k);
    return WL_OK;
}

typedef struct {
    int64_t x, y;
    int alive;
} cell_edit;

static uint32_t edit_leaf(hl_ctx *h, uint32_t leaf, const void *arg) {
    const cell_edit *e = arg;
    uint64_t b = hl_leaf_bits(h, leaf), m = 1ull << (wl_mod(e->y, 8) * 8 + wl_mod(e->x, 8));
    if (h->nplanes) { /* a multi-state cell made dead or state 1: its other bits cleared */
        uint64_t planes[HL_MAX_PLANES];
        hl_leaf_planes(h, leaf, planes);
        for (unsigned i = 0; i < h->nplanes; i++) planes[i] &= ~m;
        return hl_leaf_make_planes(h, e->alive ? b | m : b & ~m, planes);
    }
    return hl_leaf_make(h, e->alive ? b | m : b & ~m);
}

wl_status hl_set_cell(void *ctx, int64_t x, int64_t y, int alive) {
    cell_edit e = {x, y, alive};
    return replace_at(ctx, x - wl_mod(x, 8), y - wl_mod(y, 8), HL_LEAF_LEVEL, edit_leaf, &e);
}

/* ---- 64x64 tiles: handing cells to and from other plane engines ------------------------- */

#define HL_TILE_LEVEL 6

/* The level-k node (k >= 3) of the cells of rows[] at column x0, row y0 (64-wide rows). */
static uint32_t tile_node(hl_ctx *h, const uint64_t *rows, int x0, int y0, int k) {
    if (k == HL_LEAF_LEVEL) {
        uint64_t bits = 0;
        for (int r = 0; r < 8; r++) bits |= ((rows[y0 + r] >> x0) & 0xFF) << (8 * r);
        return hl_leaf_make(h, bits);
    }
    size_t sp0 = h->sp;
    int half = 1 << (k - 1);
    uint32_t c[4];
    for (int i = 0; i < 4; i++) {
        c[i] = tile_node(h, rows, x0 + (i & 1) * half, y0 + (i >> 1) * half, k - 1);
        if (!c[i]) return 0;
        hl_push(h, c[i]);
    }
    uint32_t n = hl_node_make(h, c[0], c[1], c[2], c[3]);
    h->sp = sp0;
    return n;
}

static uint32_t make_tile(hl_ctx *h, uint32_t old, const void *rows) {
    (void)old;
    return tile_node(h, rows, 0, 0, HL_TILE_LEVEL);
}

static wl_status two_state_tiles(const hl_ctx *h) {
    return h->nplanes ? wl_error(WL_ERR_UNSUPPORTED, "hashlife: 64x64 tiles carry two-state "
                                                     "cells only (this rule has %u states)",
                                 h->states)
                      : WL_OK;
}

wl_status hl_put_tile(void *ctx, int64_t tx, int64_t ty, const uint64_t *rows) {
    wl_status s = two_state_tiles(ctx);
    if (s) return s;
    const int64_t lim = INT64_MAX / 64;
    if (tx < -lim || tx >= lim || ty < -lim || ty >= lim)
        return wl_error(WL_ERR_TOO_BIG, "hashlife: tile beyond 64-bit cell coordinates");
    return replace_at(ctx, tx * 64, ty * 64, HL_TILE_LEVEL, make_tile, rows);
}

/* ORs the cells of node n (level k >= 3) into rows[] at column x0, row y0. */
static void node_rows(const hl_ctx *h, uint32_t n, int k, int x0, int y0, uint64_t *rows) {
    if (n == h->empty[k]) return;
    if (k == HL_LEAF_LEVEL) {
        uint64_t b = hl_leaf_bits(h, n);
        for (int r = 0; r < 8; r++) rows[y0 + r] |= ((b >> (8 * r)) & 0xFF) << x0;
        return;
    }
    int half = 1 << (k - 1);
    for (int i = 0; i < 4; i++)
        node_rows(h, h->nodes[n].c[i], k - 1, x0 + (i & 1) * half, y0 + (i >> 1) * half, rows);
}

typedef struct {
    wl_tile_fn fn;
    void *arg;
} tile_walk;

/* Calls w->fn for the non-empty level-6 nodes under n (level k, top-left (x, y)). */
static wl_status each_tile_in(hl_ctx *h, uint32_t n, int k, i128 x, i128 y,
                              const tile_walk *w) {
    if (n == h->empty[k]) return WL_OK;
    if (k == HL_TILE_LEVEL) {
        const i128 lim = (i128)1 << 62;
        if (x < -lim || x >= lim || y < -lim || y >= lim)
            return wl_error(WL_ERR_TOO_BIG, "hashlife: the pattern extends beyond 2^62 cells "
                                            "from the origin");
        uint64_t rows[64] = {0};
        node_rows(h, n, k, 0, 0, rows);
        return w->fn(w->arg, (int64_t)(x / 64), (int64_t)(y / 64), rows);
    }
    i128 half = (i128)1 << (k - 1);
    for (int i = 0; i < 4; i++) {
        wl_status s = each_tile_in(h, h->nodes[n].c[i], k - 1, x + (i & 1) * half,
                                   y + (i >> 1) * half, w);
        if (s) return s;
    }
    return WL_OK;
}

wl_status hl_each_tile(void *ctx, wl_tile_fn fn, void *arg) {
    hl_ctx *h = ctx;
    tile_walk w = {fn, arg};
    wl_status s = two_state_tiles(h);
    if (s) return s;
    if (h->root_level > HL_POS_MAX_LEVEL)
        return wl_error(WL_ERR_TOO_BIG, "hashlife: the pattern extends beyond 2^62 cells "
                                        "from the origin");
    i128 half = (i128)1 << (h->root_level - 1);
    return each_tile_in(h, h->root, h->root_level, -half, -half, &w);
}

/* ---- rendering --------------------------------------------------------------------------- */

/*
 * Rendering a view.  At zoom >= 0 a cell covers 2^zoom x 2^zoom pixels: the walk descends to
 * the leaves that meet the view and paints their live cells.  At zoom < 0 a pixel is a block
 * of 2^s x 2^s cells (s = -zoom), lit when any cell of the block is alive; the blocks of the
 * view start at (v->x + m 2^s, v->y + l 2^s) for whole m, l: the pixel grid's lines.
 *
 * Nodes bigger than a pixel (level k > s) are split into their children as usual; the walk
 * visits O(view area / pixel area) such positions.  A node of level k <= s is at most one
 * pixel wide, so at most one vertical and one horizontal grid line cross it and it touches
 * at most 2 x 2 pixels.  Where does the line cross?  Nodes of level k sit at multiples of
 * 2^k and the lines at v->x + m 2^s, with 2^k dividing 2^s, so the vertical line crosses
 * EVERY level-k node at the same offset
 *
 *     cx_k = v->x mod 2^k   (a floor modulo: v->x & (2^k - 1) in two's complement),
 *
 * 0 meaning that no line crosses (the node starts on a line); likewise cy_k.  Hence "which
 * of the four parts of node n cut at (cx_k, cy_k) hold a live cell" (4 bits, part (qx, qy)
 * is bit 2 qy + qx, qx = 0 left of the cut, 1 right of it; with cx_k = 0 everything is on
 * the right) depends on the node alone during one render, and is memoised per node index
 * in a small map that lives for one call (the level is fixed by the node; no node is made
 * or collected while rendering, so indices stay valid).
 *
 * The bits of a level-k node come from its children's: the cut falls in the left column of
 * children when cx_k < 2^(k-1) (at offset cx_k) and in the right one otherwise (at offset
 * cx_k - 2^(k-1)); either way the offset inside the child is cx_k mod 2^(k-1) = cx_{k-1},
 * so the children of that column answer with their own memoised bits, whose qx is the
 * node's.  A child of the other column lies wholly on one side (qx = its column), and a
 * child in neither the cut column nor the cut row contributes "any live cell" = child is
 * not the canonical empty node, without being visited.  A leaf answers with four masks.  A
 * node crossed by no line (cx_k = cy_k = 0) answers "non-empty" at once, so aligned views
 * cost what they did.
 *
 * The walk then paints a node of level k <= s in O(1): each set bit lights the pixel that
 * holds the part's first cell.  The total work is O(view positions of nodes bigger than a
 * pixel + distinct nodes of level <= s below them), where the earlier renderer, which only
 * stopped at nodes inside one pixel, split every node straddling a grid line down to the
 * leaves and so paid for the length of all grid lines in cells (minutes to hours for a
 * breeder at generation 2^40 viewed at an unaligned origin).
 *
 * The one node not at a multiple of its size is the root, centred on the origin: the walk
 * starts at its four children.
 *
 * Coordinates are __int128 (roots up to level 120); the cuts are below 2^62 (s <= 62).
 */

#define HL_RENDER_MAX_SHIFT 62 /* zoom >= -62: a pixel is at most 2^62 cells wide */

/* A map from node index to the 4 part bits, open addressing, grown at load 1/2. */
typedef struct part_map {
    uint32_t *keys; /* 0 = empty slot (no node has index 0) */
    uint8_t *vals;
    uint32_t mask, used;
} part_map;

static uint32_t part_slot(uint32_t k, uint32_t mask) { return (k * 2654435761u) & mask; }

static int part_map_init(part_map *m, uint32_t slots) {
    m->mask = slots - 1;
    m->used = 0;
    m->keys = calloc(slots, sizeof *m->keys);
    m->vals = malloc(slots);
    return m->keys && m->vals;
}

static void part_map_free(part_map *m) {
    free(m->keys);
    free(m->vals);
}

/* The stored bits of node k, or -1. */
static int part_map_get(const part_map *m, uint32_t k) {
    for (uint32_t i = part_slot(k, m->mask); m->keys[i]; i = (i + 1) & m->mask)
        if (m->keys[i] == k) return m->vals[i];
    return -1;
}

/* Stores the bits of node k (not yet in the map); 0 when out of memory. */
static int part_map_put(part_map *m, uint32_t k, uint8_t bits) {
    if ((m->used + 1) * 2 > m->mask + 1) {
        part_map n; /* node indices < 2^28 (HL_INDEX_BITS): the size stays below 2^30 */
        if (!part_map_init(&n, 2 * (m->mask + 1))) {
            part_map_free(&n);
            return 0;
        }
        for (uint32_t i = 0; i <= m->mask; i++)
            if (m->keys[i]) part_map_put(&n, m->keys[i], m->vals[i]);
        part_map_free(m);
        *m = n;
    }
    uint32_t i = part_slot(k, m->mask);
    while (m->keys[i]) i = (i + 1) & m->mask;
    m->keys[i] = k;
    m->vals[i] = bits;
    m->used++;
    return 1;
}

typedef struct render_job {
    const wl_view *v;
    uint32_t *rgba;
    int shift; /* cells per pixel = 2^shift when zoom < 0, else 0 */
    /* zoom < 0: where the grid lines cut a node of level k (see above), k <= shift */
    uint64_t cutx[HL_RENDER_MAX_SHIFT + 1], cuty[HL_RENDER_MAX_SHIFT + 1];
    part_map parts;
    int failed; /* out of memory in the map */
} render_job;

/* Part bits of a leaf cut at (cx, cy), both in 0..7. */
static unsigned leaf_parts(uint64_t b, uint64_t cx, uint64_t cy) {
    const uint64_t cols = ((1ull << cx) - 1) * 0x0101010101010101ull; /* columns x < cx */
    const uint64_t rows = (1ull << (8 * cy)) - 1;                    /* rows y < cy */
    return (unsigned)((b & cols & rows) != 0) | (unsigned)((b & ~cols & rows) != 0) << 1 |
           (unsigned)((b & cols & ~rows) != 0) << 2 | (unsigned)((b & ~cols & ~rows) != 0) << 3;
}

/* Part bits of node n (level k <= shift) cut at (cutx[k], cuty[k]); 0 after a failure. */
static unsigned node_parts(hl_ctx *h, render_job *j, uint32_t n, int k) {
    if (n == h->empty[k]) return 0;
    const uint64_t cx = j->cutx[k], cy = j->cuty[k];
    if (cx == 0 && cy == 0) return 8; /* no line crosses: all in part (1, 1) */
    if (k == HL_LEAF_LEVEL) return leaf_parts(hl_leaf_bits(h, n), cx, cy);
    int memo = part_map_get(&j->parts, n);
    if (memo >= 0) return (unsigned)memo;
    const uint64_t half = 1ull << (k - 1);
    const unsigned colc = cx >= half, rowc = cy >= half; /* the children the lines cross */
    unsigned out = 0;
    for (unsigned i = 0; i < 4; i++) {
        unsigned ix = i & 1, iy = i >> 1;
        uint32_t c = h->nodes[n].c[i];
        if (c == h->empty[k - 1]) continue;
        if (ix != colc && iy != rowc) {
            out |= 1u << (2 * iy + ix); /* wholly in one part */
            continue;
        }
        unsigned b = node_parts(h, j, c, k - 1);
        for (unsigned q = 0; q < 4; q++) {
            if (!(b >> q & 1)) continue;
            unsigned qx = ix == colc ? (q & 1) : ix, qy = iy == rowc ? (q >> 1) : iy;
            out |= 1u << (2 * qy + qx);
        }
    }
    if (j->failed) return 0;
    if (!part_map_put(&j->parts, n, (uint8_t)out)) j->failed = 1;
    return out;
}

static void light(const render_job *j, i128 cx, i128 cy) {
    const wl_view *v = j->v;
    i128 dx = cx - v->x, dy = cy - v->y;
    if (v->zoom >= 0) {
        i128 s = (i128)1 << v->zoom, px0 = dx * s, py0 = dy * s;
        i128 xa = px0 < 0 ? 0 : px0, xb = px0 + s > v->width ? v->width : px0 + s;
        i128 ya = py0 < 0 ? 0 : py0, yb = py0 + s > v->height ? v->height : py0 + s;
        for (i128 py = ya; py < yb; py++)
            for (i128 px = xa; px < xb; px++)
                j->rgba[(size_t)py * v->width + (size_t)px] = v->alive;
    } else {
        i128 px = dx >> j->shift, py = dy >> j->shift; /* arithmetic shift: floor */
        if (px >= 0 && py >= 0 && px < v->width && py < v->height)
            j->rgba[(size_t)py * v->width + (size_t)px] = v->alive;
    }
}

static void render_node(hl_ctx *h, render_job *j, uint32_t n, int k, i128 x, i128 y,
                        i128 vx1, i128 vy1) {
    if (n == h->empty[k] || j->failed) return;
    i128 size = (i128)1 << k;
    const wl_view *v = j->v;
    if (x + size <= v->x || y + size <= v->y || x >= vx1 || y >= vy1) return;
    if (v->zoom < 0 && k <= j->shift) {
        /* at most 2 x 2 pixels: light those whose part holds a live cell */
        unsigned b = node_parts(h, j, n, k);
        for (unsigned q = 0; q < 4; q++)
            if (b >> q & 1)
                light(j, x + ((q & 1) ? (i128)j->cutx[k] : 0),
                      y + ((q >> 1) ? (i128)j->cuty[k] : 0));
        return;
    }
    if (k == HL_LEAF_LEVEL) {
        uint64_t b = hl_leaf_bits(h, n);
        for (int i = 0; i < 64; i++)
            if (b >> i & 1) light(j, x + (i & 7), y + (i >> 3));
        return;
    }
    i128 half = size / 2;
    for (int i = 0; i < 4; i++)
        render_node(h, j, h->nodes[n].c[i], k - 1, x + (i & 1) * half, y + (i >> 1) * half,
                    vx1, vy1);
}

wl_status hl_render(void *ctx, const wl_view *v, uint32_t *rgba) {
    hl_ctx *h = ctx;
    if (h->nplanes && v->zoom >= 0) { /* each state its colour, when the cells fit memory */
        wl_bigint b[4];
        int64_t e[4];
        int empty, fits = 1;
        wl_status s = hl_bounds(h, &b[0], &b[1], &b[2], &b[3], &empty);
        if (s) return s;
        for (int i = 0; i < 4; i++) fits &= wl_bigint_to_i64(&b[i], &e[i]);
        if (empty || (fits && e[2] - e[0] < (1 << 14) && e[3] - e[1] < (1 << 14)))
            return hl_states_render(h, v, rgba);
    }
    if (h->root_level > HL_POS_MAX_LEVEL)
        return wl_error(WL_ERR_TOO_BIG, "hashlife: universe too wide to render");
    if (v->zoom < -HL_RENDER_MAX_SHIFT || v->zoom > 30)
        return wl_error(WL_ERR_INVALID, "hashlife: zoom %d out of range", v->zoom);
    for (size_t i = 0; i < (size_t)v->width * v->height; i++) rgba[i] = v->dead;
    render_job *j = malloc(sizeof *j);
    if (!j) return wl_error(WL_ERR_NOMEM, "hashlife: out of memory (render)");
    j->v = v;
    j->rgba = rgba;
    j->shift = v->zoom < 0 ? -v->zoom : 0;
    j->failed = 0;
    for (int k = 0; k <= j->shift; k++) {
        uint64_t mask = (1ull << k) - 1; /* floor modulo 2^k of a two's complement value */
        j->cutx[k] = (uint64_t)v->x & mask;
        j->cuty[k] = (uint64_t)v->y & mask;
    }
    enum { PART_MAP_SLOTS = 1024 }; /* first size; grows by doubling */
    if (!part_map_init(&j->parts, PART_MAP_SLOTS)) {
        part_map_free(&j->parts);
        free(j);
        return wl_error(WL_ERR_NOMEM, "hashlife: out of memory (render)");
    }
    i128 vx1, vy1;
    if (v->zoom >= 0) {
        vx1 = v->x + (((i128)v->width + ((i128)1 << v->zoom) - 1) >> v->zoom);
        vy1 = v->y + (((i128)v->height + ((i128)1 << v->zoom) - 1) >> v->zoom);
    } else {
        vx1 = v->x + ((i128)v->width << j->shift);
        vy1 = v->y + ((i128)v->height << j->shift);
    }
    /* The root (level L) is centred on the origin, at -2^(L-1): not a multiple of 2^L, so
     * the cut offsets above do not hold for it; its children (at -2^(L-1) and 0) are. */
    int L = h->root_level; /* >= 4: a root is never a lone leaf */
    i128 half = (i128)1 << (L - 1);
    if (h->root != h->empty[L])
        for (int i = 0; i < 4; i++)
            render_node(h, j, h->nodes[h->root].c[i], L - 1, -half + (i & 1) * half,
                        -half + (i >> 1) * half, vx1, vy1);
    int failed = j->failed;
    part_map_free(&j->parts);
    free(j);
    return failed ? wl_error(WL_ERR_NOMEM, "hashlife: out of memory (render)") : WL_OK;
}
