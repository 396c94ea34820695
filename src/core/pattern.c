#define _POSIX_C_SOURCE 200809L
/*
 * pattern.c - the engine-independent pattern: a hash map of 64x64 tiles holding only the
 * rows ever written (see struct wl_pattern in internal.h).  What a pattern costs follows
 * its live cells: a dense soup takes about a bit a cell plus a slot per 4096 cells, a lone
 * cell a 40-byte slot, and the space between far-apart objects nothing.  Readers and
 * engines reach the storage through words (wl_pattern_or, wl_pattern_word), tiles in row
 * or quadtree order (wl_pattern_tiles) and rows (wl_pattern_each_row), never through a
 * rectangle.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Cells live within +-2^62 (half the int64 range, so that sums of two stay exact). */
#define COORD_MAX (INT64_MAX / 2)

/* WL_MAX_PATTERN_BYTES (bytes, if set) lowers the cap: the fuzz targets use it so that a
 * tiny input describing a huge valid pattern ends in WL_ERR_TOO_BIG instead of gigabytes. */
uint64_t wl_pattern_max_bytes(void) {
    uint64_t cap = wl_physical_memory() / 4 * 3;
    const char *env = getenv("WL_MAX_PATTERN_BYTES");
    if (env && *env) {
        uint64_t v = strtoull(env, NULL, 0);
        if (v && v < cap) cap = v;
    }
    return cap;
}

wl_pattern *wl_pattern_new(void) {
    wl_pattern *p = wl_calloc(1, sizeof *p);
    if (!p) return NULL;
    p->comments = wl_calloc(1, 1);
    if (!p->comments) {
        free(p);
        return NULL;
    }
    wl_rule_life(&p->rule);
    p->topo = WL_TOPOLOGY_PLANE;
    return p;
}

static void free_storage(wl_pattern *p) {
    for (size_t i = 0; i < p->cap; i++)
        if (p->slot[i].mask && p->slot[i].cap) free(p->slot[i].u.rows);
    free(p->slot);
    p->slot = NULL;
    p->cap = p->n = 0;
    p->words = 0;
    for (unsigned k = 0; k < p->nplanes; k++) wl_pattern_free(p->plane[k]);
    memset(p->plane, 0, sizeof p->plane);
    p->nplanes = 0;
}

void wl_pattern_free(wl_pattern *p) {
    if (!p) return;
    free_storage(p);
    free(p->comments);
    free(p);
}

uint64_t wl_pattern_storage_bytes(const wl_pattern *p) {
    uint64_t b = (uint64_t)p->cap * sizeof(wl_ptile) + p->words * sizeof(uint64_t);
    for (unsigned k = 0; k < p->nplanes; k++) b += wl_pattern_storage_bytes(p->plane[k]);
    return b;
}

void wl_pattern_clear(wl_pattern *p) { free_storage(p); }

wl_pattern *wl_pattern_clone(const wl_pattern *p) {
    wl_pattern *c = wl_pattern_new();
    if (!c) return NULL;
    c->rule = p->rule;
    c->topo = p->topo;
    c->grid_w = p->grid_w;
    c->grid_h = p->grid_h;
    c->glue = p->glue;
    c->max = p->max;
    if (wl_pattern_set_comments(c, p->comments)) goto fail;
    for (unsigned k = 0; k < p->nplanes; k++) {
        c->plane[k] = wl_pattern_clone(p->plane[k]);
        if (!c->plane[k]) goto fail;
        c->plane[k]->owner = c;
        c->nplanes = k + 1;
    }
    if (p->cap) {
        c->slot = wl_malloc(p->cap * sizeof *c->slot);
        if (!c->slot) goto fail;
        memcpy(c->slot, p->slot, p->cap * sizeof *c->slot);
        c->cap = p->cap;
        for (size_t i = 0; i < c->cap; i++) {
            wl_ptile *t = &c->slot[i];
            if (!t->mask || !t->cap) continue;
            uint64_t *rows = wl_malloc(t->cap * sizeof *rows);
            if (!rows) {
                /* The slots from here on still point at p's rows: forget them. */
                for (size_t j = i; j < c->cap; j++) c->slot[j].cap = 0;
                goto fail;
            }
            memcpy(rows, t->u.rows, t->cap * sizeof *rows);
            t->u.rows = rows;
        }
        c->n = p->n;
        c->words = p->words;
    }
    return c;
fail:
    wl_pattern_free(c);
    return NULL;
}

/* ---- the table ----------------------------------------------------------------------- */

static size_t slot_of(int64_t tx, int64_t ty, size_t cap) {
    uint64_t h = (uint64_t)tx * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)ty + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    return (size_t)h & (cap - 1);
}

static const wl_ptile *find(const wl_pattern *p, int64_t tx, int64_t ty) {
    if (!p->cap) return NULL;
    for (size_t i = slot_of(tx, ty, p->cap);; i = (i + 1) & (p->cap - 1)) {
        const wl_ptile *t = &p->slot[i];
        if (!t->mask) return NULL;
        if (t->tx == tx && t->ty == ty) return t;
    }
}

/* Bits set in v, without a library call on machines built for plain x86-64. */
static inline unsigned popcount(uint64_t v) {
    v -= (v >> 1) & 0x5555555555555555ull;
    v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
    v = (v + (v >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (unsigned)((v * 0x0101010101010101ull) >> 56);
}

static const uint64_t *row_ptr(const wl_ptile *t, int r) {
    const uint64_t *rows = t->cap ? t->u.rows : &t->u.one;
    return rows + popcount(t->mask & (((uint64_t)1 << r) - 1));
}

/* Row r of a tile, 0 when not stored. */
static inline uint64_t tile_row(const wl_ptile *t, int r) {
    return t && (t->mask >> r & 1) ? *row_ptr(t, r) : 0;
}

void wl_ptile_rows(const wl_ptile *t, uint64_t rows[64]) {
    const uint64_t *src = t->cap ? t->u.rows : &t->u.one;
    memset(rows, 0, 64 * sizeof *rows);
    for (uint64_t m = t->mask; m; m &= m - 1) rows[__builtin_ctzll(m)] = *src++;
}

/* The cap on the storage: the reader's limit while one is set, else the memory cap (a
 * plane's storage counts against its owner's). */
static wl_status room(wl_pattern *p, uint64_t more) {
    if (p->owner) p = p->owner;
    if (!p->max) p->max = wl_pattern_max_bytes();
    uint64_t cap = p->max;
    int by_limit = p->limit && p->limit < cap;
    if (by_limit) cap = p->limit;
    uint64_t now = wl_pattern_storage_bytes(p);
    if (more <= cap && now <= cap - more) return WL_OK;
    char lim[32];
    if (!by_limit)
        return wl_error(WL_ERR_TOO_BIG, "pattern does not fit in memory (its cells would take "
                                        "more than %s)", wl_bytes_text(cap, lim));
    return wl_error(WL_ERR_TOO_BIG, "pattern's cells would take more than the reading limit "
                                    "of %s", wl_bytes_text(p->limit, lim));
}

static wl_status grow_table(wl_pattern *p) {
    size_t ncap = p->cap ? p->cap * 2 : 16;
    if (ncap > SIZE_MAX / sizeof(wl_ptile)) return wl_error(WL_ERR_TOO_BIG, "pattern too big");
    wl_status s = room(p, (uint64_t)(ncap - p->cap) * sizeof(wl_ptile));
    if (s) return s;
    wl_ptile *ns = wl_calloc(ncap, sizeof *ns);
    if (!ns) return WL_ERR_NOMEM;
    for (size_t i = 0; i < p->cap; i++) {
        const wl_ptile *t = &p->slot[i];
        if (!t->mask) continue;
        size_t j = slot_of(t->tx, t->ty, ncap);
        while (ns[j].mask) j = (j + 1) & (ncap - 1);
        ns[j] = *t;
    }
    free(p->slot);
    p->slot = ns;
    p->cap = ncap;
    return WL_OK;
}

/* The stored word of row r of tile (tx, ty), created if absent. */
static wl_status word_at(wl_pattern *p, int64_t tx, int64_t ty, int r, uint64_t **out) {
    wl_ptile *t = NULL;
    uint32_t *hint = &p->hint[((uint64_t)tx + 7 * (uint64_t)ty) & 255];
    size_t h = (size_t)*hint - 1;
    if (h < p->cap && p->slot[h].mask && p->slot[h].tx == tx && p->slot[h].ty == ty) {
        t = &p->slot[h];
    } else if (p->cap) {
        for (size_t i = slot_of(tx, ty, p->cap);; i = (i + 1) & (p->cap - 1)) {
            if (!p->slot[i].mask) break;
            if (p->slot[i].tx == tx && p->slot[i].ty == ty) {
                t = &p->slot[i];
                if (i < UINT32_MAX) *hint = (uint32_t)(i + 1);
                break;
            }
        }
    }
    uint64_t bit = (uint64_t)1 << r;
    if (!t) { /* a new tile, at most 7/10 of the slots used */
        if ((p->n + 1) * 10 > p->cap * 7) {
            wl_status s = grow_table(p);
            if (s) return s;
        }
        size_t i = slot_of(tx, ty, p->cap);
        while (p->slot[i].mask) i = (i + 1) & (p->cap - 1);
        t = &p->slot[i];
        t->tx = tx;
        t->ty = ty;
        t->mask = bit;
        t->cap = 0;
        t->n = 1;
        t->u.one = 0;
        p->n++;
        if (i < UINT32_MAX) *hint = (uint32_t)(i + 1);
        *out = &t->u.one;
        return WL_OK;
    }
    if (t->mask & bit) {
        *out = (uint64_t *)row_ptr(t, r);
        return WL_OK;
    }
    unsigned n = t->n;
    /* Rows written top to bottom (readers, engines) append: no count needed. */
    unsigned at = t->mask >> r ? popcount(t->mask & (bit - 1)) : n;
    if (!t->cap || n == t->cap) { /* the one inline row or a full array: a larger array */
        unsigned ncap = t->cap ? t->cap * 4 : 4; /* 4, 16, 64 */
        wl_status s = room(p, (ncap - t->cap) * sizeof(uint64_t));
        if (s) return s;
        uint64_t *rows;
        if (t->cap) {
            rows = wl_realloc(t->u.rows, ncap * sizeof *rows);
        } else {
            rows = wl_malloc(ncap * sizeof *rows);
            if (rows) rows[0] = t->u.one;
        }
        if (!rows) return WL_ERR_NOMEM;
        p->words += ncap - t->cap;
        t->u.rows = rows;
        t->cap = ncap;
    }
    uint64_t *rows = t->u.rows;
    memmove(rows + at + 1, rows + at, (n - at) * sizeof *rows);
    rows[at] = 0;
    t->mask |= bit;
    t->n = n + 1;
    *out = rows + at;
    return WL_OK;
}

static int coords_ok(int64_t x, int64_t y) {
    return x >= -COORD_MAX && x <= COORD_MAX && y >= -COORD_MAX && y <= COORD_MAX;
}

static wl_status out_of_range(void) {
    return wl_error(WL_ERR_TOO_BIG, "cell coordinates out of range");
}

wl_status wl_pattern_word(wl_pattern *p, int64_t x, int64_t y, uint64_t **w) {
    if (!coords_ok(x, y)) return out_of_range();
    return word_at(p, wl_floordiv(x, 64), wl_floordiv(y, 64), (int)wl_mod(y, 64), w);
}

wl_status wl_pattern_or(wl_pattern *p, int64_t x, int64_t y, uint64_t bits) {
    if (!bits) return WL_OK;
    if (!coords_ok(x, y) || !coords_ok(x + 63, y)) return out_of_range();
    int64_t tx = wl_floordiv(x, 64), ty = wl_floordiv(y, 64);
    int r = (int)wl_mod(y, 64);
    unsigned sh = (unsigned)wl_mod(x, 64);
    uint64_t lo = bits << sh, hi = sh ? bits >> (64 - sh) : 0;
    uint64_t *w;
    wl_status s = WL_OK;
    if (lo && !(s = word_at(p, tx, ty, r, &w))) *w |= lo;
    if (hi && !s && !(s = word_at(p, tx + 1, ty, r, &w))) *w |= hi;
    return s;
}

/* ---- cells ------------------------------------------------------------------------------ */

wl_status wl_pattern_reserve(wl_pattern *p, const wl_rect *r) {
    (void)p; /* storage follows the cells; a rectangle only has to be placeable */
    if (!r->w || !r->h) return WL_OK;
    if (r->w > (uint64_t)INT64_MAX / 4 || r->h > (uint64_t)INT64_MAX / 4 ||
        !coords_ok(r->x, r->y) || !coords_ok(r->x + (int64_t)(r->w - 1), r->y + (int64_t)(r->h - 1)))
        return wl_error(WL_ERR_TOO_BIG, "a pattern of %llu x %llu cells there is out of range",
                        (unsigned long long)r->w, (unsigned long long)r->h);
    return WL_OK;
}

/* Clears the cells [x, x + count) of row y where they are stored (allocates nothing). */
static void clear_run(wl_pattern *p, int64_t x, int64_t y, uint64_t count) {
    int64_t ty = wl_floordiv(y, 64), end = x + (int64_t)count;
    int r = (int)wl_mod(y, 64);
    while (x < end) {
        int64_t wx = x - wl_mod(x, 64);
        unsigned a = (unsigned)(x - wx);
        unsigned b = end - wx >= 64 ? 64 : (unsigned)(end - wx);
        uint64_t m = (b == 64 ? ~(uint64_t)0 : (((uint64_t)1 << b) - 1)) & (~(uint64_t)0 << a);
        const wl_ptile *t = find(p, wl_floordiv(wx, 64), ty);
        if (t && (t->mask >> r & 1)) *(uint64_t *)row_ptr(t, r) &= ~m;
        x = wx + 64;
    }
}

/* Clears the plane bits of cells [x, x + count) of row y (they become state 0 or 1). */
static void clear_planes(wl_pattern *p, int64_t x, int64_t y, uint64_t count) {
    for (unsigned k = 0; k < p->nplanes; k++) clear_run(p->plane[k], x, y, count);
}

wl_status wl_pattern_set(wl_pattern *p, int64_t x, int64_t y, int alive) {
    if (!coords_ok(x, y)) return out_of_range();
    clear_planes(p, x, y, 1);
    if (!alive) {
        clear_run(p, x, y, 1);
        return WL_OK;
    }
    return wl_pattern_or(p, x - wl_mod(x, 64), y, (uint64_t)1 << wl_mod(x, 64));
}

/* Makes planes 0 .. n-1 exist. */
static wl_status add_planes(wl_pattern *p, unsigned n) {
    while (p->nplanes < n) {
        wl_pattern *q = wl_pattern_new();
        if (!q) return WL_ERR_NOMEM;
        q->owner = p;
        p->plane[p->nplanes++] = q;
    }
    return WL_OK;
}

wl_status wl_pattern_plane_or(wl_pattern *p, unsigned k, int64_t x, int64_t y, uint64_t bits) {
    if (!bits) return WL_OK;
    if (k >= WL_PATTERN_PLANES) return wl_error(WL_ERR_INVALID, "no pattern plane %u", k);
    wl_status s = add_planes(p, k + 1);
    return s ? s : wl_pattern_or(p->plane[k], x, y, bits);
}

/* Bits needed for v (0 for 0). */
static unsigned bits_of(unsigned v) {
    return v ? 32u - (unsigned)__builtin_clz(v) : 0u;
}

wl_status wl_pattern_set_state_run(wl_pattern *p, int64_t x, int64_t y, uint64_t count,
                                   unsigned state) {
    if (state > WL_STATES_MAX - 1)
        return wl_error(WL_ERR_INVALID, "state %u out of range (0 .. %u)", state,
                        WL_STATES_MAX - 1);
    if (!count) return WL_OK;
    if (state <= 1) {
        if (!state) {
            if (count > (uint64_t)INT64_MAX / 4 || !coords_ok(x, y) ||
                !coords_ok(x + (int64_t)(count - 1), y))
                return out_of_range();
            clear_planes(p, x, y, count);
            clear_run(p, x, y, count);
            return WL_OK;
        }
        return wl_pattern_set_run(p, x, y, count);
    }
    wl_status s = wl_pattern_set_run(p, x, y, count); /* checks the range, clears planes */
    if (!s) s = add_planes(p, bits_of(state - 1));
    for (unsigned k = 0; k < p->nplanes && !s; k++)
        if ((state - 1) >> k & 1) s = wl_pattern_set_run(p->plane[k], x, y, count);
    return s;
}

wl_status wl_pattern_set_state(wl_pattern *p, int64_t x, int64_t y, unsigned state) {
    return wl_pattern_set_state_run(p, x, y, 1, state);
}

unsigned wl_pattern_get_state(const wl_pattern *p, int64_t x, int64_t y) {
    if (!wl_pattern_get(p, x, y)) return 0;
    unsigned s = 1;
    for (unsigned k = 0; k < p->nplanes; k++) s += (unsigned)wl_pattern_get(p->plane[k], x, y) << k;
    return s;
}

void wl_pattern_clip(wl_pattern *p, int64_t x0, int64_t y0, uint64_t w, uint64_t h) {
    for (unsigned k = 0; k < p->nplanes; k++) wl_pattern_clip(p->plane[k], x0, y0, w, h);
    for (size_t i = 0; i < p->cap; i++) {
        wl_ptile *t = &p->slot[i];
        if (!t->mask) continue;
        uint64_t *rows = t->cap ? t->u.rows : &t->u.one;
        uint64_t cols = ~(uint64_t)0; /* the tile's columns inside [x0, x0 + w) */
        if (w) {
            for (int c = 0; c < 64; c++) {
                int64_t x = t->tx * 64 + c;
                if (x < x0 || (uint64_t)(x - x0) >= w) cols &= ~((uint64_t)1 << c);
            }
        }
        int n = 0;
        for (uint64_t m = t->mask; m; m &= m - 1, n++) {
            int64_t y = t->ty * 64 + __builtin_ctzll(m);
            int inside = !h || (y >= y0 && (uint64_t)(y - y0) < h);
            rows[n] = inside ? rows[n] & cols : 0;
        }
    }
}

/* Row r of tile (tx, ty) of a pattern (0 when absent or p is NULL). */
static uint64_t row_of(const wl_pattern *p, int64_t tx, int64_t ty, int r) {
    return p ? tile_row(find(p, tx, ty), r) : 0;
}

unsigned wl_pattern_max_state(const wl_pattern *p) {
    unsigned best = 0;
    for (size_t i = 0; i < p->cap; i++) {
        const wl_ptile *t = &p->slot[i];
        if (!t->mask) continue;
        for (int r = 0; r < 64; r++) {
            uint64_t live = tile_row(t, r);
            if (!live) continue;
            /* the largest (state - 1) in the row, bit by bit from the top plane down */
            unsigned v = 0;
            for (unsigned k = p->nplanes; k--;) {
                uint64_t with = live & row_of(p->plane[k], t->tx, t->ty, r);
                if (with) {
                    live = with;
                    v |= 1u << k;
                }
            }
            if (v + 1 > best) best = v + 1;
        }
    }
    return best;
}

wl_status wl_pattern_set_run(wl_pattern *p, int64_t x, int64_t y, uint64_t count) {
    if (!count) return WL_OK;
    if (count > (uint64_t)INT64_MAX / 4 || !coords_ok(x, y) ||
        !coords_ok(x + (int64_t)(count - 1), y))
        return wl_error(WL_ERR_TOO_BIG, "a run of %llu live cells there is out of range",
                        (unsigned long long)count);
    /* A long run needs a tile per 64 cells: refuse at once one that cannot fit. */
    if (count >= 4096) {
        wl_status s = room(p, count / 64 * (uint64_t)sizeof(wl_ptile));
        if (s) return s;
    }
    int64_t end = x + (int64_t)count; /* [x, end) */
    while (x < end) {
        int64_t wx = x - wl_mod(x, 64);
        unsigned a = (unsigned)(x - wx);
        unsigned b = end - wx >= 64 ? 64 : (unsigned)(end - wx);
        uint64_t m = (b == 64 ? ~(uint64_t)0 : (((uint64_t)1 << b) - 1)) & (~(uint64_t)0 << a);
        uint64_t *w;
        wl_status s = wl_pattern_word(p, wx, y, &w);
        if (s) return s;
        *w |= m;
        x = wx + 64;
    }
    clear_planes(p, end - (int64_t)count, y, count);
    return WL_OK;
}

int wl_pattern_get(const wl_pattern *p, int64_t x, int64_t y) {
    const wl_ptile *t = find(p, wl_floordiv(x, 64), wl_floordiv(y, 64));
    return (int)(tile_row(t, (int)wl_mod(y, 64)) >> wl_mod(x, 64) & 1);
}

uint64_t wl_pattern_population(const wl_pattern *p) {
    uint64_t n = 0;
    for (size_t i = 0; i < p->cap; i++) {
        const wl_ptile *t = &p->slot[i];
        if (!t->mask) continue;
        const uint64_t *rows = t->cap ? t->u.rows : &t->u.one;
        for (unsigned k = t->n; k--;) n += popcount(rows[k]);
    }
    return n;
}

int wl_pattern_bounds(const wl_pattern *p, wl_rect *out) {
    int64_t minx = INT64_MAX, maxx = INT64_MIN, miny = INT64_MAX, maxy = INT64_MIN;
    for (size_t i = 0; i < p->cap; i++) {
        const wl_ptile *t = &p->slot[i];
        if (!t->mask) continue;
        const uint64_t *rows = t->cap ? t->u.rows : &t->u.one;
        uint64_t or = 0;
        int lo = -1, hi = -1;
        for (uint64_t m = t->mask; m; m &= m - 1, rows++) {
            if (!*rows) continue;
            or |= *rows;
            if (lo < 0) lo = __builtin_ctzll(m);
            hi = __builtin_ctzll(m);
        }
        if (!or) continue;
        int64_t x0 = t->tx * 64, y0 = t->ty * 64;
        if (x0 + __builtin_ctzll(or) < minx) minx = x0 + __builtin_ctzll(or);
        if (x0 + 63 - __builtin_clzll(or) > maxx) maxx = x0 + 63 - __builtin_clzll(or);
        if (y0 + lo < miny) miny = y0 + lo;
        if (y0 + hi > maxy) maxy = y0 + hi;
    }
    if (minx == INT64_MAX) {
        memset(out, 0, sizeof *out);
        return 0;
    }
    out->x = minx;
    out->y = miny;
    out->w = (uint64_t)(maxx - minx) + 1;
    out->h = (uint64_t)(maxy - miny) + 1;
    return 1;
}

void wl_pattern_get_row(const wl_pattern *p, int64_t x, int64_t y, uint64_t w,
                        uint64_t *words) {
    uint64_t nwords = (w + 63) / 64;
    memset(words, 0, nwords * sizeof(uint64_t));
    if (!p->n) return;
    int64_t ty = wl_floordiv(y, 64);
    int r = (int)wl_mod(y, 64);
    int sh = (int)wl_mod(x, 64);
    /* Output word k is cells [x + 64 k, + 64): the high part of tile column t0 + k and
     * the low part of t0 + k + 1.  Each tile is looked up once. */
    int64_t t0 = wl_floordiv(x, 64);
    uint64_t cur = tile_row(find(p, t0, ty), r);
    for (uint64_t k = 0; k < nwords; k++) {
        uint64_t next = sh || k + 1 < nwords ? tile_row(find(p, t0 + (int64_t)k + 1, ty), r) : 0;
        words[k] = sh ? cur >> sh | next << (64 - sh) : cur;
        cur = next;
    }
    if (w % 64) words[nwords - 1] &= ~(uint64_t)0 >> (64 - w % 64);
}

/* Whether two planes (NULL: empty) hold the same cells. */
static int planes_equal(const wl_pattern *a, const wl_pattern *b) {
    if (!a && !b) return 1;
    if (!a || !b) return wl_pattern_population(a ? a : b) == 0;
    return wl_pattern_equal_cells(a, b);
}

int wl_pattern_equal_cells(const wl_pattern *a, const wl_pattern *b) {
    unsigned n = a->nplanes > b->nplanes ? a->nplanes : b->nplanes;
    for (unsigned k = 0; k < n; k++)
        if (!planes_equal(wl_pattern_plane(a, k), wl_pattern_plane(b, k))) return 0;
    if (wl_pattern_population(a) != wl_pattern_population(b)) return 0;
    /* Equal counts, and every cell of a alive in b: the same cells. */
    for (size_t i = 0; i < a->cap; i++) {
        const wl_ptile *t = &a->slot[i];
        if (!t->mask) continue;
        const wl_ptile *u = find(b, t->tx, t->ty);
        for (int r = 0; r < 64; r++) {
            uint64_t v = tile_row(t, r);
            if (v & ~tile_row(u, r)) return 0;
        }
    }
    return 1;
}

const wl_rule *wl_pattern_rule(const wl_pattern *p) { return &p->rule; }

void wl_pattern_set_rule(wl_pattern *p, const wl_rule *r) { p->rule = *r; }

wl_topology wl_pattern_topology(const wl_pattern *p, uint64_t *w, uint64_t *h) {
    if (w) *w = p->topo == WL_TOPOLOGY_PLANE ? 0 : p->grid_w;
    if (h) *h = p->topo == WL_TOPOLOGY_PLANE ? 0 : p->grid_h;
    return p->topo;
}

void wl_pattern_set_topology(wl_pattern *p, wl_topology t, uint64_t w, uint64_t h) {
    int none = t == WL_TOPOLOGY_PLANE || (!w && !h);
    p->topo = none ? WL_TOPOLOGY_PLANE : t;
    p->grid_w = none ? 0 : w;
    p->grid_h = none ? 0 : h;
    memset(&p->glue, 0, sizeof p->glue);
}

void wl_pattern_shape(const wl_pattern *p, wl_shape *out) {
    memset(out, 0, sizeof *out);
    out->topology = wl_pattern_topology(p, &out->width, &out->height);
    if (out->topology != WL_TOPOLOGY_PLANE) out->glue = p->glue;
}

void wl_pattern_set_shape(wl_pattern *p, const wl_shape *shape) {
    wl_pattern_set_topology(p, shape->topology, shape->width, shape->height);
    if (p->topo != WL_TOPOLOGY_PLANE) p->glue = shape->glue;
}

const char *wl_pattern_comments(const wl_pattern *p) { return p->comments; }

wl_status wl_pattern_set_comments(wl_pattern *p, const char *text) {
    char *c = strdup(text ? text : "");
    if (!c) return wl_error(WL_ERR_NOMEM, "out of memory copying comments");
    free(p->comments);
    p->comments = c;
    return WL_OK;
}

wl_status wl_pattern_random(wl_pattern *p, const wl_rect *r, double density, uint64_t seed) {
    if (density < 0 || density > 1) return wl_error(WL_ERR_INVALID, "density must be in [0, 1]");
    wl_status s = wl_pattern_reserve(p, r);
    if (s) return s;
    /* Each 64-bit draw decides four cells with 16-bit thresholds, row after row. */
    uint32_t threshold = (uint32_t)(density * 65536.0 + 0.5);
    uint64_t state = seed;
    for (uint64_t y = 0; y < r->h; y++) {
        uint64_t draw = 0, word = 0;
        for (uint64_t x = 0; x < r->w; x++) {
            if ((x & 3) == 0) draw = wl_splitmix64(&state);
            uint32_t v = (uint32_t)(draw & 0xffff);
            draw >>= 16;
            if (v < threshold) word |= (uint64_t)1 << (x & 63);
            if ((x & 63) == 63 || x + 1 == r->w) {
                s = wl_pattern_or(p, r->x + (int64_t)(x & ~(uint64_t)63), r->y + (int64_t)y, word);
                if (s) return s;
                word = 0;
            }
        }
    }
    return WL_OK;
}

/* ---- tiles and rows in order ------------------------------------------------------------- */

static int by_rows(const void *pa, const void *pb) {
    const wl_tile_ref *a = pa, *b = pb;
    if (a->ty != b->ty) return a->ty < b->ty ? -1 : 1;
    return a->tx < b->tx ? -1 : a->tx > b->tx;
}

/* Quadtree (Morton) order: by the 128-bit interleave of (zy, zx), y bits above x bits. */
static int by_z(const void *pa, const void *pb) {
    const wl_tile_ref *a = pa, *b = pb;
    if (a->zk[1] != b->zk[1]) return a->zk[1] < b->zk[1] ? -1 : 1;
    return a->zk[0] < b->zk[0] ? -1 : a->zk[0] > b->zk[0];
}

/* The 32 bits of v at the even bit positions of the result. */
static uint64_t spread32(uint64_t v) {
    v &= 0xFFFFFFFFull;
    v = (v | v << 16) & 0x0000FFFF0000FFFFull;
    v = (v | v << 8) & 0x00FF00FF00FF00FFull;
    v = (v | v << 4) & 0x0F0F0F0F0F0F0F0Full;
    v = (v | v << 2) & 0x3333333333333333ull;
    return (v | v << 1) & 0x5555555555555555ull;
}

wl_status wl_pattern_tiles(const wl_pattern *p, int order, int64_t otx, int64_t oty,
                           wl_tile_ref **out, size_t *n) {
    *out = NULL;
    *n = 0;
    if (!p->n) return WL_OK;
    wl_tile_ref *v = wl_malloc(p->n * sizeof *v);
    if (!v) return WL_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < p->cap; i++) {
        const wl_ptile *t = &p->slot[i];
        if (!t->mask) continue;
        v[k].tx = t->tx;
        v[k].ty = t->ty;
        v[k].zx = (uint64_t)t->tx - (uint64_t)otx;
        v[k].zy = (uint64_t)t->ty - (uint64_t)oty;
        v[k].zk[0] = spread32(v[k].zx) | spread32(v[k].zy) << 1;
        v[k].zk[1] = spread32(v[k].zx >> 32) | spread32(v[k].zy >> 32) << 1;
        v[k].t = t;
        k++;
    }
    if (order == WL_TILES_ROWS) qsort(v, k, sizeof *v, by_rows);
    if (order == WL_TILES_Z) qsort(v, k, sizeof *v, by_z);
    *out = v;
    *n = k;
    return WL_OK;
}

void wl_tiles_split(const wl_tile_ref *v, size_t lo, size_t hi, uint64_t mx, uint64_t my,
                    size_t cut[5]) {
    cut[0] = lo;
    size_t i = lo;
    for (int q = 0; q < 4; q++) {
        while (i < hi && (size_t)((v[i].zy >= my) * 2 + (v[i].zx >= mx)) == (size_t)q) i++;
        cut[q + 1] = i;
    }
    cut[4] = hi;
}

wl_status wl_pattern_each_row(const wl_pattern *p, wl_row_fn fn, void *ctx) {
    wl_tile_ref *v;
    size_t n;
    wl_status s = wl_pattern_tiles(p, WL_TILES_ROWS, 0, 0, &v, &n);
    if (s) return s;
    int64_t *xs = n ? wl_malloc(n * sizeof *xs) : NULL;
    uint64_t *ws = n ? wl_malloc(n * sizeof *ws) : NULL;
    if (n && (!xs || !ws)) s = WL_ERR_NOMEM;
    for (size_t a = 0; a < n && !s;) {
        size_t b = a;
        uint64_t any = 0;
        while (b < n && v[b].ty == v[a].ty) any |= v[b++].t->mask;
        for (int r = 0; r < 64 && !s; r++) {
            if (!(any >> r & 1)) continue;
            size_t m = 0;
            for (size_t i = a; i < b; i++) {
                uint64_t w = tile_row(v[i].t, r);
                if (!w) continue;
                xs[m] = v[i].tx * 64;
                ws[m++] = w;
            }
            if (m) s = fn(ctx, v[a].ty * 64 + r, m, xs, ws);
        }
        a = b;
    }
    free(xs);
    free(ws);
    free(v);
    return s;
}
