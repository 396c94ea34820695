/*
 * nibble.c - the `nibble` kernel: one cell per 4-bit nibble of a 64-bit word (16 cells per
 * word), neighbour counts by whole-word additions (SWAR: "SIMD within a register").
 *
 * Layout: H rows of NW = ceil((W + 2) / 16) words; the cell (x, y) is nibble x + 1 of row
 * y (word (x + 1) / 16, bits 4 ((x + 1) % 16) ..), holding 0 or 1.  Nibbles 0 and W + 1 are
 * halo columns: copies of the cells W - 1 and 0 on a torus, zero on a bounded grid; rows
 * above and below the grid are reached through row pointers (wrapped row or zero row).
 *
 * Counting: for a word C of a row, its west and east neighbours are whole-word shifts by
 * one nibble (with the neighbouring word's edge nibble shifted in), and the horizontal sum
 * h = west + C + east (at most 3 per nibble) is one pair of additions.  The 3x3 sum
 * c9 = h(above) + h(own) + h(below) is at most 9, so no nibble ever carries into the next.
 *
 * Rule: outer-totalistic only.  For each count c the kernel tests every nibble for
 * c9 == c at once (XOR with c in every nibble, then OR-fold the nibble's four bits) and
 * ORs in the cells born (dead, birth[c]) or surviving (alive, survive[c - 1]).  Only the
 * counts the rule uses are tested (Life: 3, and 4 for live cells).  Other rules run with
 * the lut6x3 kernel instead (see cpu_engine.c).
 */
#include "cpu_internal.h"

#include <stdlib.h>
#include <string.h>

#define NIB_ONES 0x1111111111111111ull /* bit 0 of every nibble */

struct cpu_nibble {
    uint64_t w, h;
    size_t nw; /* words per row */
    int torus;
    uint64_t *cur, *nxt, *zero;
    int ncounts;
    uint64_t count_pattern[10];   /* c in every nibble */
    uint64_t birth[10], surv[10]; /* all-ones if the count c gives birth / survival */
};

static void set_rule(cpu_nibble *b, uint16_t birth, uint16_t survive);

wl_status cpu_nibble_create(uint64_t w, uint64_t h, int torus, uint16_t birth,
                            uint16_t survive, cpu_nibble **out) {
    *out = NULL;
    cpu_nibble *b = wl_calloc(1, sizeof *b);
    if (!b) return WL_ERR_NOMEM;
    b->w = w;
    b->h = h;
    b->nw = (size_t)((w + 2 + 15) / 16);
    b->torus = torus;
    if (b->nw * 8 * 2 > wl_physical_memory() / 2 / h) {
        free(b);
        return wl_error(WL_ERR_TOO_BIG, "cpu nibble kernel: %llu x %llu does not fit in memory",
                        (unsigned long long)w, (unsigned long long)h);
    }
    b->cur = wl_calloc(b->nw * (size_t)h, 8);
    b->nxt = wl_calloc(b->nw * (size_t)h, 8);
    b->zero = wl_calloc(b->nw, 8);
    if (!b->cur || !b->nxt || !b->zero) {
        cpu_nibble_destroy(b);
        return WL_ERR_NOMEM;
    }
    set_rule(b, birth, survive);
    *out = b;
    return WL_OK;
}

/* Chooses the counts to test from the birth/survive masks. */
static void set_rule(cpu_nibble *b, uint16_t birth, uint16_t survive) {
    b->ncounts = 0;
    for (unsigned c = 0; c <= 9; c++) {
        int bb = c <= 8 && ((birth >> c) & 1), ss = c >= 1 && ((survive >> (c - 1)) & 1);
        if (!bb && !ss) continue;
        int k = b->ncounts++;
        b->count_pattern[k] = NIB_ONES * c;
        b->birth[k] = bb ? ~(uint64_t)0 : 0;
        b->surv[k] = ss ? ~(uint64_t)0 : 0;
    }
}

void cpu_nibble_destroy(cpu_nibble *b) {
    if (!b) return;
    free(b->cur);
    free(b->nxt);
    free(b->zero);
    free(b);
}

static inline int get_nib(const uint64_t *row, uint64_t p) {
    return (int)((row[p >> 4] >> (4 * (p & 15))) & 1);
}
static inline void put_nib(uint64_t *row, uint64_t p, int v) {
    uint64_t m = (uint64_t)15 << (4 * (p & 15));
    row[p >> 4] = (row[p >> 4] & ~m) | ((uint64_t)(v & 1) << (4 * (p & 15)));
}

static void fix_halo(const cpu_nibble *b, uint64_t *row) {
    put_nib(row, 0, b->torus ? get_nib(row, b->w) : 0);
    put_nib(row, b->w + 1, b->torus ? get_nib(row, 1) : 0);
}

void cpu_nibble_load(cpu_nibble *b, const wl_grid *g) {
    memset(b->cur, 0, b->nw * (size_t)b->h * 8);
    for (uint64_t y = 0; y < b->h; y++) {
        uint64_t *row = b->cur + y * b->nw;
        for (uint64_t x = 0; x < b->w; x++)
            if (wl_grid_get(g, x, y)) put_nib(row, x + 1, 1);
        fix_halo(b, row);
    }
}

void cpu_nibble_store(const cpu_nibble *b, wl_grid *g) {
    for (uint64_t y = 0; y < b->h; y++) {
        const uint64_t *row = b->cur + y * b->nw;
        for (uint64_t x = 0; x < b->w; x++)
            if (get_nib(row, x + 1)) wl_grid_set(g, x, y, 1);
    }
}

void cpu_nibble_load_rows(cpu_nibble *b, uint64_t y0, uint64_t n, const uint64_t *rows,
                          size_t stride) {
    for (uint64_t i = 0; i < n; i++) {
        uint64_t *row = b->cur + (y0 + i) * b->nw;
        const uint64_t *src = rows + (size_t)i * stride;
        memset(row, 0, b->nw * 8);
        for (uint64_t x = 0; x < b->w; x++)
            if ((src[x >> 6] >> (x & 63)) & 1u) put_nib(row, x + 1, 1);
        fix_halo(b, row);
    }
}

void cpu_nibble_store_rows(const cpu_nibble *b, uint64_t y0, uint64_t n, uint64_t *rows,
                           size_t stride) {
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t *row = b->cur + (y0 + i) * b->nw;
        uint64_t *dst = rows + (size_t)i * stride;
        for (uint64_t x = 0; x < b->w; x++)
            if (get_nib(row, x + 1)) dst[x >> 6] |= (uint64_t)1 << (x & 63);
    }
}

static const uint64_t *row_at(const cpu_nibble *b, int64_t y) {
    if (y < 0) return b->torus ? b->cur + (b->h - 1) * b->nw : b->zero;
    if ((uint64_t)y >= b->h) return b->torus ? b->cur : b->zero;
    return b->cur + (uint64_t)y * b->nw;
}

/* Horizontal three-cell sums of word i of a row (nibble-wise, at most 3). */
static inline uint64_t hsum(const uint64_t *row, size_t i, size_t nw) {
    uint64_t c = row[i];
    uint64_t west = (c << 4) | (i ? row[i - 1] >> 60 : 0);
    uint64_t east = (c >> 4) | (i + 1 < nw ? row[i + 1] << 60 : 0);
    return west + c + east;
}

void cpu_nibble_step(cpu_nibble *b) {
    size_t nw = b->nw;
    for (uint64_t y = 0; y < b->h; y++) {
        const uint64_t *n = row_at(b, (int64_t)y - 1), *c = row_at(b, (int64_t)y),
                       *s = row_at(b, (int64_t)y + 1);
        uint64_t *o = b->nxt + y * nw;
        for (size_t i = 0; i < nw; i++) {
            uint64_t sum = hsum(n, i, nw) + hsum(c, i, nw) + hsum(s, i, nw);
            uint64_t alive = c[i] & NIB_ONES, next = 0;
            for (int k = 0; k < b->ncounts; k++) {
                uint64_t z = sum ^ b->count_pattern[k];
                uint64_t eq = ~(z | z >> 1 | z >> 2 | z >> 3) & NIB_ONES; /* nibble == c */
                next |= eq & ((alive & b->surv[k]) | (~alive & b->birth[k]));
            }
            o[i] = next;
        }
        fix_halo(b, o);
    }
    uint64_t *t = b->cur;
    b->cur = b->nxt;
    b->nxt = t;
}
