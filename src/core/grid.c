/*
 * grid.c - the bit-per-cell grid that grid engines load from and store to, and its
 * conversion to and from patterns following the placement rule: a W x H grid covers x
 * from -floor(W/2) to W-1-floor(W/2) and y likewise.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

wl_status wl_grid_alloc(wl_grid *g, uint64_t w, uint64_t h) {
    memset(g, 0, sizeof *g);
    if (!w || !h) return wl_error(WL_ERR_INVALID, "grid size must be at least 1x1");
    uint64_t stride = (w + 63) / 64;
    if (stride > wl_physical_memory() / 8 / h)
        return wl_error(WL_ERR_TOO_BIG, "a %llu x %llu grid does not fit in memory",
                        (unsigned long long)w, (unsigned long long)h);
    size_t bytes = (size_t)(stride * h * 8);
    g->words = wl_aligned_alloc(bytes);
    if (!g->words) return WL_ERR_NOMEM;
    memset(g->words, 0, bytes);
    g->w = w;
    g->h = h;
    g->stride = (size_t)stride;
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

/* ORs the `n` low bits of v into row `row` at column `col` (col + n <= w). */
static void or_bits(uint64_t *row, uint64_t col, uint64_t v, unsigned n) {
    if (n < 64) v &= ((uint64_t)1 << n) - 1;
    if (!v) return;
    unsigned sh = (unsigned)(col & 63);
    row[col >> 6] |= v << sh;
    if (sh && sh + n > 64) row[(col >> 6) + 1] |= v >> (64 - sh);
}

/* ORs the 64 cells of pattern row y from x on (bit i = cell x + i) into the grid, placed
 * and wrapped as wl_grid_from_pattern says; returns the cells a bounded grid drops. */
static uint64_t put_word(wl_grid *g, wl_topology topo, int64_t x, int64_t y, uint64_t v) {
    int64_t ox = (int64_t)(g->w / 2), oy = (int64_t)(g->h / 2);
    int64_t gy = y + oy; /* row in the grid before wrapping */
    if (topo == WL_TOPOLOGY_BOUNDED && (gy < 0 || (uint64_t)gy >= g->h))
        return (uint64_t)__builtin_popcountll(v);
    uint64_t lost = 0;
    uint64_t *dst = g->words + (uint64_t)wl_mod(gy, (int64_t)g->h) * g->stride;
    while (v) {
        /* Copy runs of up to 64 cells that stay within one grid span. */
        unsigned bit = (unsigned)__builtin_ctzll(v);
        int64_t gx = x + bit + ox;
        if (topo == WL_TOPOLOGY_BOUNDED && (gx < 0 || (uint64_t)gx >= g->w)) {
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

wl_status wl_grid_from_pattern(wl_grid *g, const wl_pattern *p, wl_topology topo,
                               uint64_t *dropped) {
    uint64_t lost = 0;
    if (dropped) *dropped = 0;
    wl_tile_ref *v;
    size_t n;
    wl_status s = wl_pattern_tiles(p, WL_TILES_ANY, 0, 0, &v, &n);
    if (s) return s;
    for (size_t i = 0; i < n; i++) {
        uint64_t rows[64];
        wl_ptile_rows(v[i].t, rows);
        for (int r = 0; r < 64; r++)
            if (rows[r]) lost += put_word(g, topo, v[i].tx * 64, v[i].ty * 64 + r, rows[r]);
    }
    free(v);
    if (dropped) *dropped = lost;
    return WL_OK;
}

wl_status wl_grid_to_pattern(const wl_grid *g, const wl_rule *rule, wl_pattern **out) {
    *out = NULL;
    wl_pattern *p = wl_pattern_new();
    if (!p) return WL_ERR_NOMEM;
    if (rule) p->rule = *rule;
    int64_t ox = (int64_t)(g->w / 2), oy = (int64_t)(g->h / 2);
    wl_status s = WL_OK;
    for (uint64_t r = 0; r < g->h && !s; r++) {
        const uint64_t *row = g->words + r * g->stride;
        for (size_t i = 0; i < g->stride && !s; i++) {
            uint64_t v = row[i];
            if (i * 64 + 64 > g->w) v &= i * 64 >= g->w ? 0 : ~(uint64_t)0 >> (64 - (g->w - i * 64));
            s = wl_pattern_or(p, (int64_t)(i * 64) - ox, (int64_t)r - oy, v);
        }
    }
    if (s) {
        wl_pattern_free(p);
        return s;
    }
    *out = p;
    return WL_OK;
}
