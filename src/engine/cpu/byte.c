/*
 * byte.c - the byte-per-cell kernels `byte` (one thread, the serial baseline for speedups)
 * and `byte-omp` (rows split across the persistent thread pool).
 *
 * Layout: H rows of W + 2 bytes; byte 1 + x of row y is the cell (x, y), 0 or 1.  Bytes 0
 * and W + 1 are halo columns: on a torus copies of columns W - 1 and 0, on a bounded grid
 * zero.  The rows above row 0 and below row H - 1 are reached through row pointers: the
 * wrapped row on a torus, a row of zeros on a bounded grid, so no halo rows are stored.
 *
 * Any rule: the 9-bit neighbourhood index (NW<<8 | N<<7 | NE<<6 | W<<5 | C<<4 | E<<3 |
 * SW<<2 | S<<1 | SE) selects the next state from a 512-byte table.  Moving one cell right
 * shifts the index left by one, keeps the middle and right columns (mask 0x1B6) and ORs in
 * the new right column, so each cell costs three byte loads and a table lookup.
 *
 * Threads: each thread computes a band of rows into the other buffer and then fills the
 * halo columns of its own rows; the pool's join at the end of the generation is the one
 * barrier per generation.
 */
#include "cpu_internal.h"

#include <stdlib.h>
#include <string.h>

struct cpu_byte {
    uint64_t w, h;
    size_t pitch; /* w + 2 */
    int torus;
    uint8_t *cur, *nxt, *zero;
    uint8_t table[512];
    wl_pool *pool;
};

wl_status cpu_byte_create(uint64_t w, uint64_t h, int torus, const wl_rule *r,
                          wl_pool *pool, cpu_byte **out) {
    *out = NULL;
    if (w > ((uint64_t)1 << 40) / h)
        return wl_error(WL_ERR_TOO_BIG, "cpu byte kernel: %llu x %llu cells is too many bytes",
                        (unsigned long long)w, (unsigned long long)h);
    uint64_t bytes = (w + 2) * h;
    if (bytes * 2 > wl_physical_memory() / 2)
        return wl_error(WL_ERR_TOO_BIG,
                        "cpu byte kernel: %llu x %llu needs %llu MiB, more than half of memory",
                        (unsigned long long)w, (unsigned long long)h,
                        (unsigned long long)(bytes * 2 >> 20));
    cpu_byte *b = wl_calloc(1, sizeof *b);
    if (!b) return WL_ERR_NOMEM;
    b->w = w;
    b->h = h;
    b->pitch = (size_t)w + 2;
    b->torus = torus;
    b->pool = pool;
    b->cur = wl_calloc((size_t)bytes, 1);
    b->nxt = wl_calloc((size_t)bytes, 1);
    b->zero = wl_calloc(b->pitch, 1);
    if (!b->cur || !b->nxt || !b->zero) {
        cpu_byte_destroy(b);
        return WL_ERR_NOMEM;
    }
    for (unsigned i = 0; i < 512; i++) b->table[i] = (uint8_t)wl_rule_next(r, i);
    *out = b;
    return WL_OK;
}

void cpu_byte_destroy(cpu_byte *b) {
    if (!b) return;
    free(b->cur);
    free(b->nxt);
    free(b->zero);
    free(b);
}

static void fix_halo(const cpu_byte *b, uint8_t *row) {
    row[0] = b->torus ? row[b->w] : 0;
    row[b->w + 1] = b->torus ? row[1] : 0;
}

void cpu_byte_load(cpu_byte *b, const wl_grid *g) {
    for (uint64_t y = 0; y < b->h; y++) {
        uint8_t *row = b->cur + y * b->pitch;
        for (uint64_t x = 0; x < b->w; x++) row[1 + x] = (uint8_t)wl_grid_get(g, x, y);
        fix_halo(b, row);
    }
}

void cpu_byte_store(const cpu_byte *b, wl_grid *g) {
    for (uint64_t y = 0; y < b->h; y++) {
        const uint8_t *row = b->cur + y * b->pitch;
        for (uint64_t x = 0; x < b->w; x++)
            if (row[1 + x]) wl_grid_set(g, x, y, 1);
    }
}

void cpu_byte_load_rows(cpu_byte *b, uint64_t y0, uint64_t n, const uint64_t *rows,
                        size_t stride) {
    for (uint64_t i = 0; i < n; i++) {
        uint8_t *row = b->cur + (y0 + i) * b->pitch;
        const uint64_t *src = rows + (size_t)i * stride;
        for (uint64_t x = 0; x < b->w; x++) row[1 + x] = (uint8_t)((src[x >> 6] >> (x & 63)) & 1u);
        fix_halo(b, row);
    }
}

void cpu_byte_store_rows(const cpu_byte *b, uint64_t y0, uint64_t n, uint64_t *rows,
                         size_t stride) {
    for (uint64_t i = 0; i < n; i++) {
        const uint8_t *row = b->cur + (y0 + i) * b->pitch;
        uint64_t *dst = rows + (size_t)i * stride;
        for (uint64_t x = 0; x < b->w; x++)
            if (row[1 + x]) dst[x >> 6] |= (uint64_t)1 << (x & 63);
    }
}

static const uint8_t *row_at(const cpu_byte *b, int64_t y) {
    if (y < 0) return b->torus ? b->cur + (b->h - 1) * b->pitch : b->zero;
    if ((uint64_t)y >= b->h) return b->torus ? b->cur : b->zero;
    return b->cur + (uint64_t)y * b->pitch;
}

/* Rows [y0, y1) of one generation. */
static void step_rows(cpu_byte *b, uint64_t y0, uint64_t y1) {
    const uint8_t *t = b->table;
    for (uint64_t y = y0; y < y1; y++) {
        const uint8_t *n = row_at(b, (int64_t)y - 1), *c = row_at(b, (int64_t)y),
                      *s = row_at(b, (int64_t)y + 1);
        uint8_t *o = b->nxt + y * b->pitch;
        /* index of the cell before column 0, holding columns -1 and 0 (bytes 0, 1) */
        unsigned idx = (unsigned)(n[0] << 7 | n[1] << 6 | c[0] << 4 | c[1] << 3 | s[0] << 1 | s[1]);
        for (size_t x = 1; x <= b->w; x++) {
            idx = ((idx << 1) & 0x1B6u) | (unsigned)(n[x + 1] << 6 | c[x + 1] << 3 | s[x + 1]);
            o[x] = t[idx];
        }
        fix_halo(b, o);
    }
}

static void step_task(void *arg, int tid, int n) {
    cpu_byte *b = arg;
    uint64_t y0 = b->h * (uint64_t)tid / (uint64_t)n, y1 = b->h * (uint64_t)(tid + 1) / (uint64_t)n;
    step_rows(b, y0, y1);
}

void cpu_byte_step(cpu_byte *b) {
    if (b->pool) wl_pool_run(b->pool, step_task, b);
    else step_rows(b, 0, b->h);
    uint8_t *t = b->cur;
    b->cur = b->nxt;
    b->nxt = t;
}
