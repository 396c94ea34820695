/*
 * ref.c - the reference engine ("ref"): the oracle every other engine is compared with.
 *
 * What it computes.  One generation of any two-state Moore-neighbourhood rule, given as
 * the 512-entry table of warplife.h, on a W x H torus or a W x H bounded grid (cells
 * outside dead forever), for any W, H >= 1.  Nothing is specialised: B0 rules, Hensel
 * rules and arbitrary MAP rules all go through the same table lookup, so the engine is
 * correct for every rule by construction.
 *
 * Memory layout.  One byte per cell (0 or 1), row-major, in a buffer of (W + 2) x (H + 2)
 * bytes: the grid sits at rows 1..H, columns 1..W, surrounded by a one-cell halo.  Two
 * such buffers alternate (read the current generation, write the next, swap).
 *
 * Halo.  On a bounded grid the halo is all zeros and is never written, which is exactly
 * "cells outside are dead forever" (so a B0 rule makes the inside flash while the outside
 * stays dead).  On a torus, before each generation the halo is refilled from the wrapped
 * coordinates: first the left and right halo columns of every inner row (column 0 gets
 * column W, column W + 1 gets column 1), then the top and bottom halo rows as whole-row
 * copies of rows H and 1 (corners included, so they hold the diagonally wrapped cells).
 * This gives every cell the neighbour at ((x + dx) mod W, (y + dy) mod H), also when W or
 * H is 1 or 2 and a cell meets itself or the same neighbour twice: a 1 x 1 torus cell is
 * its own eight neighbours and its table index is 0 or 511.
 *
 * The step.  For each row, a 9-bit window index (NW<<8 | N<<7 | NE<<6 | W<<5 | C<<4 |
 * E<<3 | SW<<2 | S<<1 | SE, Golly's MAP order) slides left to right: moving one column
 * right shifts the index left by one (E becomes C, C becomes W), keeps the two older
 * columns with the mask 0x1B6 (bits 8,7 / 5,4 / 2,1) and brings in the new column from
 * the three rows at bits 6, 3 and 0.  The next state is a byte lookup in the rule table
 * expanded to 512 bytes.  Three byte loads, a few shifts and one lookup per cell: plain,
 * obviously correct, and fast enough that tests can afford grids of a few hundred
 * thousand cells for a thousand generations.
 *
 * Interruption.  cfg->poll is called between generations once at least
 * REF_POLL_CELLS cells have been updated since the last call, so the universe is always
 * at a whole generation when the step returns WL_ERR_INTERRUPTED.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Cells updated between two calls of the poll callback (about a millisecond of work). */
#define REF_POLL_CELLS ((uint64_t)1 << 20)

typedef struct ref_ctx {
    uint64_t w, h;        /* grid size */
    size_t pw;            /* padded row length in bytes: w + 2 */
    int torus;            /* 1 on a torus, 0 on a bounded grid */
    uint8_t *cur, *next;  /* (w + 2) x (h + 2) bytes each, halo included */
    uint8_t table[512];   /* next state for each neighbourhood index */
    wl_poll_fn poll;
    void *poll_user;
    uint64_t since_poll;  /* cells updated since the last poll */
} ref_ctx;

static void ref_destroy(void *vctx) {
    ref_ctx *c = vctx;
    if (!c) return;
    free(c->cur);
    free(c->next);
    free(c);
}

static wl_status ref_create(const wl_config *cfg, const char *kernel, void **out) {
    (void)kernel;
    *out = NULL;
    if (cfg->topology != WL_TOPOLOGY_TORUS && cfg->topology != WL_TOPOLOGY_BOUNDED)
        return wl_error(WL_ERR_UNSUPPORTED, "engine 'ref' runs on a torus or bounded grid only");
    if (!cfg->width || !cfg->height)
        return wl_error(WL_ERR_INVALID, "engine 'ref' needs a size of at least 1x1");
    uint64_t w = cfg->width, h = cfg->height;
    /* Two padded byte buffers must fit in memory (and their size in a size_t). */
    uint64_t limit = wl_physical_memory() / 2;
    if (w > limit || h > limit || (w + 2) > limit / (h + 2) || (w + 2) * (h + 2) > limit / 2)
        return wl_error(WL_ERR_TOO_BIG, "a %llu x %llu grid is too big for engine 'ref' "
                        "(one byte per cell)", (unsigned long long)w, (unsigned long long)h);
    ref_ctx *c = wl_calloc(1, sizeof *c);
    if (!c) return WL_ERR_NOMEM;
    size_t bytes = (size_t)((w + 2) * (h + 2));
    c->w = w;
    c->h = h;
    c->pw = (size_t)(w + 2);
    c->torus = cfg->topology == WL_TOPOLOGY_TORUS;
    c->cur = wl_calloc(bytes, 1);
    c->next = wl_calloc(bytes, 1);
    if (!c->cur || !c->next) {
        ref_destroy(c);
        return WL_ERR_NOMEM;
    }
    for (unsigned i = 0; i < 512; i++) c->table[i] = (uint8_t)wl_rule_next(&cfg->rule, i);
    c->poll = cfg->poll;
    c->poll_user = cfg->poll_user;
    *out = c;
    return WL_OK;
}

/* Byte of cell (x, y) of the grid (0-based, inside) in buffer b. */
static inline uint8_t *cell(const ref_ctx *c, uint8_t *b, uint64_t x, uint64_t y) {
    return b + (size_t)(y + 1) * c->pw + (size_t)(x + 1);
}

static wl_status ref_load_grid(void *vctx, const wl_grid *g) {
    ref_ctx *c = vctx;
    if (g->w != c->w || g->h != c->h)
        return wl_error(WL_ERR_INVALID, "engine 'ref': grid is %llux%llu, universe %llux%llu",
                        (unsigned long long)g->w, (unsigned long long)g->h,
                        (unsigned long long)c->w, (unsigned long long)c->h);
    memset(c->cur, 0, c->pw * (size_t)(c->h + 2));
    for (uint64_t y = 0; y < c->h; y++) {
        uint8_t *row = cell(c, c->cur, 0, y);
        for (uint64_t x = 0; x < c->w; x++) row[x] = (uint8_t)wl_grid_get(g, x, y);
    }
    return WL_OK;
}

static wl_status ref_store_grid(void *vctx, wl_grid *g) {
    ref_ctx *c = vctx;
    if (g->w != c->w || g->h != c->h)
        return wl_error(WL_ERR_INVALID, "engine 'ref': grid is %llux%llu, universe %llux%llu",
                        (unsigned long long)g->w, (unsigned long long)g->h,
                        (unsigned long long)c->w, (unsigned long long)c->h);
    for (uint64_t y = 0; y < c->h; y++) {
        const uint8_t *row = cell(c, c->cur, 0, y);
        uint64_t *dst = g->words + (size_t)y * g->stride;
        memset(dst, 0, g->stride * sizeof *dst);
        for (uint64_t x = 0; x < c->w; x++)
            if (row[x]) dst[x >> 6] |= (uint64_t)1 << (x & 63);
    }
    return WL_OK;
}

/* Row strips (the mpi engine's halo exchange): rows y0 .. y0+n-1 to / from wl_grid rows at
 * `stride` words per row.  Only the rows' cells are touched; the torus halo is refilled
 * from them before the next generation anyway. */
static wl_status ref_store_rows(void *vctx, uint64_t y0, uint64_t n, uint64_t *rows,
                                size_t stride) {
    ref_ctx *c = vctx;
    wl_status s = wl_grid_check_rows("engine 'ref'", c->w, c->h, y0, n, stride);
    if (s) return s;
    for (uint64_t i = 0; i < n; i++) {
        const uint8_t *row = cell(c, c->cur, 0, y0 + i);
        uint64_t *dst = rows + (size_t)i * stride;
        memset(dst, 0, stride * sizeof *dst);
        for (uint64_t x = 0; x < c->w; x++)
            if (row[x]) dst[x >> 6] |= (uint64_t)1 << (x & 63);
    }
    return WL_OK;
}

static wl_status ref_load_rows(void *vctx, uint64_t y0, uint64_t n, const uint64_t *rows,
                               size_t stride) {
    ref_ctx *c = vctx;
    wl_status s = wl_grid_check_rows("engine 'ref'", c->w, c->h, y0, n, stride);
    if (s) return s;
    for (uint64_t i = 0; i < n; i++) {
        uint8_t *row = cell(c, c->cur, 0, y0 + i);
        const uint64_t *src = rows + (size_t)i * stride;
        for (uint64_t x = 0; x < c->w; x++) row[x] = (uint8_t)((src[x >> 6] >> (x & 63)) & 1u);
    }
    return WL_OK;
}

/* Refills the torus halo of the current buffer from the wrapped coordinates. */
static void fill_torus_halo(ref_ctx *c) {
    uint8_t *b = c->cur;
    size_t pw = c->pw, w = (size_t)c->w, h = (size_t)c->h;
    for (size_t y = 1; y <= h; y++) {
        uint8_t *row = b + y * pw;
        row[0] = row[w];     /* x = -1 is x = W - 1 */
        row[w + 1] = row[1]; /* x = W is x = 0 */
    }
    memcpy(b, b + h * pw, pw);           /* y = -1 is y = H - 1, corners included */
    memcpy(b + (h + 1) * pw, b + pw, pw); /* y = H is y = 0 */
}

/* Computes one generation from c->cur into c->next (inner cells only) and swaps. */
static void step_once(ref_ctx *c) {
    if (c->torus) fill_torus_halo(c);
    size_t pw = c->pw, w = (size_t)c->w, h = (size_t)c->h;
    for (size_t y = 1; y <= h; y++) {
        const uint8_t *up = c->cur + (y - 1) * pw;
        const uint8_t *mid = up + pw;
        const uint8_t *dn = mid + pw;
        uint8_t *out = c->next + y * pw;
        /* Window over padded columns 0 and 1 (the W and C columns of the first cell). */
        unsigned idx = (unsigned)(up[0] << 7 | mid[0] << 4 | dn[0] << 1 | up[1] << 6 |
                                  mid[1] << 3 | dn[1]);
        for (size_t x = 1; x <= w; x++) {
            idx = ((idx << 1) & 0x1B6u) |
                  (unsigned)(up[x + 1] << 6 | mid[x + 1] << 3 | dn[x + 1]);
            out[x] = c->table[idx];
        }
    }
    uint8_t *t = c->cur;
    c->cur = c->next;
    c->next = t;
}

static wl_status ref_step(void *vctx, uint64_t generations, uint64_t *done) {
    ref_ctx *c = vctx;
    uint64_t cells = c->w * c->h;
    *done = 0;
    for (uint64_t g = 0; g < generations; g++) {
        step_once(c);
        *done = g + 1;
        c->since_poll += cells;
        if (c->poll && c->since_poll >= REF_POLL_CELLS && g + 1 < generations) {
            c->since_poll = 0;
            if (c->poll(c->poll_user))
                return wl_error(WL_ERR_INTERRUPTED, "engine 'ref': interrupted after %llu "
                                "of %llu generations", (unsigned long long)(g + 1),
                                (unsigned long long)generations);
        }
    }
    return WL_OK;
}

static wl_status ref_population(void *vctx, wl_bigint *out) {
    ref_ctx *c = vctx;
    uint64_t n = 0;
    for (uint64_t y = 0; y < c->h; y++) {
        const uint8_t *row = cell(c, c->cur, 0, y);
        for (uint64_t x = 0; x < c->w; x++) n += row[x];
    }
    wl_bigint_from_u64(out, n);
    return WL_OK;
}

const wl_engine_ops wl_engine_ref = {
    .name = "ref",
    .description = "reference: one byte per cell, any rule through its 512-entry table",
    .caps = WL_CAP_TORUS | WL_CAP_BOUNDED | WL_CAP_ANY_RULE,
    .kernels = NULL, /* one kernel, "default" */
    .create = ref_create,
    .destroy = ref_destroy,
    .load_grid = ref_load_grid,
    .store_grid = ref_store_grid,
    .step = ref_step,
    .population = ref_population,
    .store_rows = ref_store_rows,
    .load_rows = ref_load_rows,
    /* bounds, set_cell, get_cell and render use the universe's defaults (through store). */
};
