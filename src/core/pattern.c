#define _POSIX_C_SOURCE 200809L
/*
 * pattern.c - the engine-independent pattern: a dense bitmap over a rectangle that grows
 * on demand (see struct wl_pattern in internal.h).  The storage's left edge x0 is always a
 * multiple of 64 so that growing to the left moves whole words.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

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
    return p;
}

void wl_pattern_free(wl_pattern *p) {
    if (!p) return;
    free(p->bits);
    free(p->comments);
    free(p);
}

wl_pattern *wl_pattern_clone(const wl_pattern *p) {
    wl_pattern *c = wl_pattern_new();
    if (!c) return NULL;
    free(c->comments); /* wl_pattern_new's empty string; replaced below */
    *c = *p;
    c->bits = NULL;
    c->comments = NULL;
    c->limit = 0;
    size_t words = p->h * p->stride;
    if (words) {
        c->bits = wl_malloc(words * sizeof(uint64_t));
        if (!c->bits) goto fail;
        memcpy(c->bits, p->bits, words * sizeof(uint64_t));
    }
    c->comments = strdup(p->comments);
    if (!c->comments) {
        wl_error(WL_ERR_NOMEM, "out of memory copying comments");
        goto fail;
    }
    return c;
fail:
    free(c->bits);
    free(c->comments);
    free(c);
    return NULL;
}

/* Grows the storage to cover [x0, x1) x [y0, y1) (plus what it covers now). */
static wl_status grow(wl_pattern *p, int64_t x0, int64_t y0, int64_t x1, int64_t y1) {
    if (p->w && p->h) {
        int64_t ox1 = p->x0 + (int64_t)p->w, oy1 = p->y0 + (int64_t)p->h;
        if (p->x0 < x0) x0 = p->x0;
        if (p->y0 < y0) y0 = p->y0;
        if (ox1 > x1) x1 = ox1;
        if (oy1 > y1) y1 = oy1;
    }
    x0 = wl_floordiv(x0, 64) * 64;
    x1 = wl_floordiv(x1 + 63, 64) * 64;
    uint64_t nw = (uint64_t)(x1 - x0), nh = (uint64_t)(y1 - y0);
    size_t nstride = (size_t)(nw / 64);
    uint64_t cap = wl_pattern_max_bytes();
    int by_limit = p->limit && p->limit < cap;
    if (by_limit) cap = p->limit;
    if (nh && nstride > cap / 8 / nh) {
        if (!by_limit)
            return wl_error(WL_ERR_TOO_BIG, "pattern of %llu x %llu cells does not fit in memory",
                            (unsigned long long)nw, (unsigned long long)nh);
        char need[32], lim[32];
        double bytes = (double)nstride * 8.0 * (double)nh;
        return wl_error(WL_ERR_TOO_BIG,
                        "pattern of %llu x %llu cells needs %s, more than the reading limit "
                        "of %s", (unsigned long long)nw, (unsigned long long)nh,
                        bytes < 1.8e19 ? wl_bytes_text((uint64_t)bytes, need) : "over 16 EiB",
                        wl_bytes_text(p->limit, lim));
    }
    uint64_t *nb = wl_calloc((size_t)nh * nstride, sizeof(uint64_t));
    if (!nb) return WL_ERR_NOMEM;
    if (p->bits) {
        size_t xoff = (size_t)((p->x0 - x0) / 64);
        for (uint64_t r = 0; r < p->h; r++)
            memcpy(nb + (size_t)(r + (uint64_t)(p->y0 - y0)) * nstride + xoff,
                   p->bits + r * p->stride, p->stride * sizeof(uint64_t));
        free(p->bits);
    }
    p->bits = nb;
    p->x0 = x0;
    p->y0 = y0;
    p->w = nw;
    p->h = nh;
    p->stride = nstride;
    return WL_OK;
}

static int inside(const wl_pattern *p, int64_t x, int64_t y) {
    return p->w && x >= p->x0 && y >= p->y0 && (uint64_t)(x - p->x0) < p->w &&
           (uint64_t)(y - p->y0) < p->h;
}

/* Ensures (x, y) .. (x + n - 1, y) is stored, growing geometrically so that a reader
 * setting cells one by one does O(log) reallocations. */
static wl_status ensure(wl_pattern *p, int64_t x, int64_t y, uint64_t n) {
    if (inside(p, x, y) && inside(p, x + (int64_t)n - 1, y)) return WL_OK;
    if (x > INT64_MAX - (int64_t)n || x < INT64_MIN / 2 || y < INT64_MIN / 2 ||
        x > INT64_MAX / 2 || y > INT64_MAX / 2)
        return wl_error(WL_ERR_TOO_BIG, "cell coordinates out of range");
    int64_t x0 = x, y0 = y, x1 = x + (int64_t)n, y1 = y + 1;
    if (p->w && p->h) {
        /* Double in the direction of growth. */
        int64_t gw = (int64_t)p->w, gh = (int64_t)p->h;
        if (x0 < p->x0) x0 = (x0 < p->x0 - gw) ? x0 : p->x0 - gw;
        if (x1 > p->x0 + gw) x1 = (x1 > p->x0 + 2 * gw) ? x1 : p->x0 + 2 * gw;
        if (y0 < p->y0) y0 = (y0 < p->y0 - gh) ? y0 : p->y0 - gh;
        if (y1 > p->y0 + gh) y1 = (y1 > p->y0 + 2 * gh) ? y1 : p->y0 + 2 * gh;
    }
    wl_status s = grow(p, x0, y0, x1, y1);
    /* The doubled box is over the cap (or memory): half the growth, a quarter, ... down to
     * exactly what the cells need.  Each retry fails before allocating, and a pattern that
     * fills its cap grows by at least half the room left each time rather than a row at a
     * time. */
    int64_t ex1 = x + (int64_t)n, ey1 = y + 1;
    for (int k = 1; s && k <= 64; k++) {
        uint64_t dx0 = (uint64_t)(x - x0) >> k, dy0 = (uint64_t)(y - y0) >> k;
        uint64_t dx1 = (uint64_t)(x1 - ex1) >> k, dy1 = (uint64_t)(y1 - ey1) >> k;
        if (s != WL_ERR_TOO_BIG && s != WL_ERR_NOMEM) break;
        wl_clear_error();
        s = grow(p, x - (int64_t)dx0, y - (int64_t)dy0, ex1 + (int64_t)dx1, ey1 + (int64_t)dy1);
        if (!(dx0 | dy0 | dx1 | dy1)) break; /* that was the exact box */
    }
    return s;
}

wl_status wl_pattern_reserve(wl_pattern *p, const wl_rect *r) {
    if (!r->w || !r->h) return WL_OK;
    if (r->w > (uint64_t)INT64_MAX / 4 || r->h > (uint64_t)INT64_MAX / 4 ||
        r->x > INT64_MAX / 2 || r->y > INT64_MAX / 2 || r->x < INT64_MIN / 2 ||
        r->y < INT64_MIN / 2)
        return wl_error(WL_ERR_TOO_BIG, "pattern of %llu x %llu cells does not fit in memory",
                        (unsigned long long)r->w, (unsigned long long)r->h);
    if (inside(p, r->x, r->y) && inside(p, r->x + (int64_t)r->w - 1, r->y + (int64_t)r->h - 1))
        return WL_OK;
    return grow(p, r->x, r->y, r->x + (int64_t)r->w, r->y + (int64_t)r->h);
}

wl_status wl_pattern_set(wl_pattern *p, int64_t x, int64_t y, int alive) {
    if (!alive) {
        if (inside(p, x, y)) {
            uint64_t dx = (uint64_t)(x - p->x0);
            p->bits[(uint64_t)(y - p->y0) * p->stride + dx / 64] &= ~((uint64_t)1 << (dx % 64));
        }
        return WL_OK;
    }
    wl_status s = ensure(p, x, y, 1);
    if (s) return s;
    uint64_t dx = (uint64_t)(x - p->x0);
    p->bits[(uint64_t)(y - p->y0) * p->stride + dx / 64] |= (uint64_t)1 << (dx % 64);
    return WL_OK;
}

wl_status wl_pattern_set_run(wl_pattern *p, int64_t x, int64_t y, uint64_t count) {
    if (!count) return WL_OK;
    if (count > (uint64_t)INT64_MAX / 4)
        return wl_error(WL_ERR_TOO_BIG, "a run of %llu live cells is too long to hold",
                        (unsigned long long)count);
    wl_status s = ensure(p, x, y, count);
    if (s) return s;
    uint64_t *row = p->bits + (uint64_t)(y - p->y0) * p->stride;
    uint64_t a = (uint64_t)(x - p->x0), b = a + count; /* [a, b) */
    uint64_t wa = a / 64, wb = (b - 1) / 64;
    uint64_t ma = ~(uint64_t)0 << (a % 64);
    uint64_t mb = ~(uint64_t)0 >> (63 - (b - 1) % 64);
    if (wa == wb) {
        row[wa] |= ma & mb;
    } else {
        row[wa] |= ma;
        for (uint64_t i = wa + 1; i < wb; i++) row[i] = ~(uint64_t)0;
        row[wb] |= mb;
    }
    return WL_OK;
}

int wl_pattern_get(const wl_pattern *p, int64_t x, int64_t y) {
    if (!inside(p, x, y)) return 0;
    uint64_t dx = (uint64_t)(x - p->x0);
    return (int)((p->bits[(uint64_t)(y - p->y0) * p->stride + dx / 64] >> (dx % 64)) & 1u);
}

uint64_t wl_pattern_population(const wl_pattern *p) {
    uint64_t n = 0, words = p->h * p->stride;
    for (uint64_t i = 0; i < words; i++) n += (uint64_t)__builtin_popcountll(p->bits[i]);
    return n;
}

int wl_pattern_bounds(const wl_pattern *p, wl_rect *out) {
    int64_t minx = INT64_MAX, maxx = INT64_MIN, miny = INT64_MAX, maxy = INT64_MIN;
    for (uint64_t r = 0; r < p->h; r++) {
        const uint64_t *row = p->bits + r * p->stride;
        for (size_t i = 0; i < p->stride; i++) {
            if (!row[i]) continue;
            int64_t y = p->y0 + (int64_t)r;
            int64_t lo = p->x0 + (int64_t)(i * 64) + __builtin_ctzll(row[i]);
            int64_t hi = p->x0 + (int64_t)(i * 64) + 63 - __builtin_clzll(row[i]);
            if (lo < minx) minx = lo;
            if (hi > maxx) maxx = hi;
            if (y < miny) miny = y;
            if (y > maxy) maxy = y;
        }
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

void wl_pattern_clear(wl_pattern *p) {
    free(p->bits);
    p->bits = NULL;
    p->x0 = p->y0 = 0;
    p->w = p->h = 0;
    p->stride = 0;
}

void wl_pattern_get_row(const wl_pattern *p, int64_t x, int64_t y, uint64_t w,
                        uint64_t *words) {
    uint64_t nwords = (w + 63) / 64;
    memset(words, 0, nwords * sizeof(uint64_t));
    if (!p->w || y < p->y0 || (uint64_t)(y - p->y0) >= p->h) return;
    const uint64_t *row = p->bits + (uint64_t)(y - p->y0) * p->stride;
    /* Output bit i is storage column c = x - x0 + i.  Walk output words. */
    for (uint64_t k = 0; k < nwords; k++) {
        int64_t c = (x - p->x0) + (int64_t)(k * 64); /* column of output bit 0 of word k */
        uint64_t v = 0;
        int64_t wi = wl_floordiv(c, 64);
        int sh = (int)wl_mod(c, 64);
        if (wi >= 0 && (uint64_t)wi < p->stride) v = row[wi] >> sh;
        if (sh && wi + 1 >= 0 && (uint64_t)(wi + 1) < p->stride) v |= row[wi + 1] << (64 - sh);
        words[k] = v;
    }
    if (w % 64) words[nwords - 1] &= ~(uint64_t)0 >> (64 - w % 64);
}

int wl_pattern_equal_cells(const wl_pattern *a, const wl_pattern *b) {
    wl_rect ra, rb;
    int ea = wl_pattern_bounds(a, &ra), eb = wl_pattern_bounds(b, &rb);
    if (ea != eb) return 0;
    if (!ea) return 1;
    if (memcmp(&ra, &rb, sizeof ra) != 0) return 0;
    size_t n = (size_t)((ra.w + 63) / 64);
    uint64_t *wa = wl_malloc(n * sizeof(uint64_t)), *wb = wl_malloc(n * sizeof(uint64_t));
    int eq = wa && wb;
    for (uint64_t r = 0; eq && r < ra.h; r++) {
        wl_pattern_get_row(a, ra.x, ra.y + (int64_t)r, ra.w, wa);
        wl_pattern_get_row(b, ra.x, ra.y + (int64_t)r, ra.w, wb);
        eq = memcmp(wa, wb, n * sizeof(uint64_t)) == 0;
    }
    free(wa);
    free(wb);
    return eq;
}

const wl_rule *wl_pattern_rule(const wl_pattern *p) { return &p->rule; }

void wl_pattern_set_rule(wl_pattern *p, const wl_rule *r) { p->rule = *r; }

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
    /* Each 64-bit draw decides four cells with 16-bit thresholds. */
    uint32_t threshold = (uint32_t)(density * 65536.0 + 0.5);
    uint64_t state = seed;
    for (uint64_t y = 0; y < r->h; y++) {
        uint64_t draw = 0;
        for (uint64_t x = 0; x < r->w; x++) {
            if ((x & 3) == 0) draw = wl_splitmix64(&state);
            uint32_t v = (uint32_t)(draw & 0xffff);
            draw >>= 16;
            if (v < threshold) {
                uint64_t dx = (uint64_t)(r->x + (int64_t)x - p->x0);
                p->bits[(uint64_t)(r->y + (int64_t)y - p->y0) * p->stride + dx / 64] |=
                    (uint64_t)1 << (dx % 64);
            }
        }
    }
    return WL_OK;
}
