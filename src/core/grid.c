/*
 * grid.c - the bit-per-cell grid that grid engines load from and store to, and its
 * conversion to and from patterns following the placement rule: a W x H grid covers x
 * from -floor(W/2) to W-1-floor(W/2) and y likewise.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

wl_status wl_grid_alloc(wl_grid *g, uint64_t w, uint64_t h) {
    return wl_grid_alloc_planes(g, w, h, 1);
}

/* Planes a grid needs for a rule's states: the live plane and the bits of (states - 2). */
unsigned wl_grid_planes_for(const wl_rule *r) {
    unsigned top = wl_rule_states(r) - 2, n = 1; /* the largest (state - 1) */
    while (top) {
        n++;
        top >>= 1;
    }
    return n;
}

wl_status wl_grid_alloc_planes(wl_grid *g, uint64_t w, uint64_t h, unsigned planes) {
    memset(g, 0, sizeof *g);
    if (!w || !h) return wl_error(WL_ERR_INVALID, "grid size must be at least 1x1");
    if (planes < 1 || planes > 1 + WL_PATTERN_PLANES)
        return wl_error(WL_ERR_INVALID, "a grid has 1 to %d planes", 1 + WL_PATTERN_PLANES);
    uint64_t stride = (w + 63) / 64;
    if (stride > wl_physical_memory() / 8 / h / planes)
        return wl_error(WL_ERR_TOO_BIG, "a %llu x %llu grid does not fit in memory",
                        (unsigned long long)w, (unsigned long long)h);
    size_t bytes = (size_t)(stride * h * 8 * planes);
    g->words = wl_aligned_alloc(bytes);
    if (!g->words) return WL_ERR_NOMEM;
    memset(g->words, 0, bytes);
    g->w = w;
    g->h = h;
    g->stride = (size_t)stride;
    g->planes = planes;
    return WL_OK;
}

void wl_grid_free(wl_grid *g) {
    wl_aligned_free(g->words);
    memset(g, 0, sizeof *g);
}

wl_status wl_grid_check_rows(const char *who, uint64_t w, uint64_t h, uint64_t y0, uint64_t n,
                             size_t stride) {
    if (y0 > h || n > h - y0 || stride < (size_t)((w + 63) / 64))
        return wl_error(WL_ERR_INVALID,
                        "%s: rows %llu+%llu (stride %zu) outside a %llux%llu grid", who, (unsigned long long)y0, (unsigned long long)n, stride,
                        (unsigned long long)w, (unsigned long long)h);
    return WL_OK;
}

uint64_t wl_grid_population(const wl_grid *g) {
    uint64_t n = 0;
    for (uint64_t i = 0; i < g->h * g->stride; i++) n += (uint64_t)__builtin_popcountll(g->words[i]);
    return n;
}

void wl_row_shift(const uint64_t *in, size_t in_words, uint64_t *out, size_t out_words,
                  uint64_t out_w, int64_t dx) {
    const int64_t bits = (int64_t)in_words * 64;
    for (size_t i = 0; i < out_words; i++) {
        int64_t x = (int64_t)i * 64 + dx; /* the source column of bit 0 */
        if (x + 64 <= 0 || x >= bits) {
            out[i] = 0;
            continue;
        }
        int64_t q = x >= 0 ? x / 64 : -1;
        unsigned sh = (unsigned)(x - q * 64);
        uint64_t a = q >= 0 ? in[q] : 0;
        uint64_t b = sh && q + 1 < (int64_t)in_words ? in[q + 1] : 0;
        out[i] = sh ? a >> sh | b << (64 - sh) : a;
    }
    if (out_w % 64 && out_words == (out_w + 63) / 64)
        out[out_words - 1] &= ~(uint64_t)0 >> (64 - out_w % 64);
}

int wl_rows_box(const uint64_t *f, size_t stride, uint64_t h, const uint64_t *e, unsigned P,
                size_t plane_words, uint64_t box[4]) {
    uint64_t x0 = UINT64_MAX, x1 = 0, y0 = UINT64_MAX, y1 = 0;
    for (uint64_t y = 0; y < h; y++) {
        size_t at = (size_t)y * stride, i = P ? 0 : wl_first_word(f + at, stride);
        for (; i < stride; i++) {
            uint64_t v = f[at + i];
            for (unsigned k = 0; k < P; k++) v |= e[k * plane_words + at + i];
            if (!v) continue;
            uint64_t a = i * 64 + (uint64_t)__builtin_ctzll(v), b = i * 64 + 63 - (uint64_t)__builtin_clzll(v);
            if (a < x0) x0 = a;
            if (b > x1) x1 = b;
            if (y < y0) y0 = y;
            y1 = y;
        }
    }
    if (x0 == UINT64_MAX) return 0;
    box[0] = x0, box[1] = y0, box[2] = x1, box[3] = y1;
    return 1;
}

void wl_grid_box_bounds(uint64_t w, uint64_t h, const uint64_t box[4], wl_bigint *xmin,
                        wl_bigint *ymin, wl_bigint *xmax, wl_bigint *ymax) {
    int64_t ox = (int64_t)(w / 2), oy = (int64_t)(h / 2);
    wl_bigint_from_i64(xmin, (int64_t)box[0] - ox);
    wl_bigint_from_i64(ymin, (int64_t)box[1] - oy);
    wl_bigint_from_i64(xmax, (int64_t)box[2] - ox);
    wl_bigint_from_i64(ymax, (int64_t)box[3] - oy);
}

/* ORs the `n` low bits of v into row `row` at column `col` (col + n <= w). */
static void or_bits(uint64_t *row, uint64_t col, uint64_t v, unsigned n) {
    if (n < 64) v &= ((uint64_t)1 << n) - 1;
    if (!v) return;
    unsigned sh = (unsigned)(col & 63);
    row[col >> 6] |= v << sh;
    if (sh && sh + n > 64) row[(col >> 6) + 1] |= v >> (64 - sh);
}

/* ORs the 64 cells of pattern row y from x on (bit i = cell x + i) into the grid plane
 * `base`, cell (x0, y0) at its corner, wrapped on a torus (clip = 0) or clipped; returns
 * the cells clipped. */
static uint64_t put_word(const wl_grid *g, uint64_t *base, int clip, int64_t x0, int64_t y0,
                         int64_t x, int64_t y, uint64_t v) {
    int64_t gy = y - y0; /* row in the grid before wrapping */
    if (clip && (gy < 0 || (uint64_t)gy >= g->h))
        return (uint64_t)__builtin_popcountll(v);
    uint64_t lost = 0;
    uint64_t *dst = base + (uint64_t)wl_mod(gy, (int64_t)g->h) * g->stride;
    while (v) {
        /* Copy runs of up to 64 cells that stay within one grid span. */
        unsigned bit = (unsigned)__builtin_ctzll(v);
        int64_t gx = x + bit - x0;
        if (clip && (gx < 0 || (uint64_t)gx >= g->w)) {
            lost++;
            v &= v - 1;
            continue;
        }
        uint64_t col = (uint64_t)wl_mod(gx, (int64_t)g->w);
        uint64_t room = g->w - col; /* cells until the grid's right edge */
        unsigned take = 64 - bit;
        if (take > room) take = (unsigned)room;
        uint64_t chunk = v >> bit;
        if (take < 64) chunk &= ((uint64_t)1 << take) - 1;
        or_bits(dst, col, chunk, take);
        v &= (take + bit >= 64) ? 0 : ~((((uint64_t)1 << take) - 1) << bit);
    }
    return lost;
}

wl_status wl_grid_from_pattern_at(wl_grid *g, const wl_pattern *p, wl_topology topo,
                                  int64_t x0, int64_t y0, uint64_t *dropped) {
    uint64_t lost = 0;
    if (dropped) *dropped = 0;
    int clip = topo != WL_TOPOLOGY_TORUS;
    for (unsigned k = 0; k < g->planes; k++) {
        const wl_pattern *src = k ? wl_pattern_plane(p, k - 1) : p;
        if (!src) continue;
        uint64_t *base = g->words + (size_t)k * g->h * g->stride;
        wl_tile_ref *v;
        size_t n;
        wl_status s = wl_pattern_tiles(src, WL_TILES_ANY, 0, 0, &v, &n);
        if (s) return s;
        for (size_t i = 0; i < n; i++) {
            uint64_t rows[64];
            wl_ptile_rows(v[i].t, rows);
            for (int r = 0; r < 64; r++) {
                if (!rows[r]) continue;
                uint64_t l = put_word(g, base, clip, x0, y0, v[i].tx * 64, v[i].ty * 64 + r, rows[r]);
                if (!k) lost += l;
            }
        }
        free(v);
    }
    if (dropped) *dropped = lost;
    return WL_OK;
}

wl_status wl_grid_from_pattern(wl_grid *g, const wl_pattern *p, wl_topology topo,
                               uint64_t *dropped) {
    return wl_grid_from_pattern_at(g, p, topo, -(int64_t)(g->w / 2), -(int64_t)(g->h / 2),
                                   dropped);
}

wl_status wl_grid_to_pattern_at(const wl_grid *g, const wl_rule *rule, int64_t x0, int64_t y0,
                                wl_pattern **out) {
    *out = NULL;
    wl_pattern *p = wl_pattern_new();
    if (!p) return WL_ERR_NOMEM;
    if (rule) p->rule = *rule;
    wl_status s = WL_OK;
    for (unsigned k = 0; k < g->planes && !s; k++) {
        const uint64_t *base = g->words + (size_t)k * g->h * g->stride;
        for (uint64_t r = 0; r < g->h && !s; r++) {
            const uint64_t *row = base + r * g->stride;
            for (size_t i = 0; i < g->stride && !s; i++) {
                uint64_t v = row[i];
                if (i * 64 + 64 > g->w) v &= i * 64 >= g->w ? 0 : ~(uint64_t)0 >> (64 - (g->w - i * 64));
                if (!v) continue;
                int64_t x = (int64_t)(i * 64) + x0, y = (int64_t)r + y0;
                s = k ? wl_pattern_plane_or(p, k - 1, x, y, v) : wl_pattern_or(p, x, y, v);
            }
        }
    }
    if (s) {
        wl_pattern_free(p);
        return s;
    }
    *out = p;
    return WL_OK;
}

wl_status wl_grid_to_pattern(const wl_grid *g, const wl_rule *rule, wl_pattern **out) {
    return wl_grid_to_pattern_at(g, rule, -(int64_t)(g->w / 2), -(int64_t)(g->h / 2), out);
}
