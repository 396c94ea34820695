/*
 * ref.c - the reference engine ("ref"): the oracle every other engine is compared with.
 *
 * What it computes.  One generation of any rule of any family (wl_family) on a W x H grid
 * of any topology but the plane, for any W, H >= 1: the two-state rules through their
 * 512-entry table (B0, Hensel and MAP rules alike), Generations through the same table on
 * the state-1 cells plus the decay of the other states, History and Super through the
 * table on the odd (on) states plus the marks (src/core/marks.c), and Larger than Life by
 * counting each cell's neighbourhood (src/core/ltl.c) and testing the count.  Nothing is
 * specialised for speed, so it is correct for every rule by construction.
 *
 * Memory layout.  One byte per cell (its state), row-major, in a buffer of (W + 2) x
 * (H + 2) bytes: the grid sits at rows 1..H, columns 1..W, surrounded by a one-cell halo.
 * Two such buffers alternate (read the current generation, write the next, swap).  A third
 * buffer of the same shape holds each cell's "on" bit (state 1 for Generations, an odd
 * state for History and Super, the state itself for two-state rules), from which the
 * table index is read.
 *
 * Halo.  On a bounded grid the halo is all zeros and never written (cells outside dead
 * forever, so a B0 rule makes the inside flash while the outside stays dead).  On every
 * other topology, before each generation each halo cell is given the state of the grid
 * cell that Golly's glue says it copies (wl_shape_ring: the plain torus wraps, the shifted
 * torus, Klein bottle, cross-surface and sphere glue their edges as Golly does), from a
 * list of (halo cell, grid cell) pairs made once.  This gives every cell of a plain torus
 * the neighbour at ((x + dx) mod W, (y + dy) mod H), also when W or H is 1 or 2.
 *
 * The step.  For range-1 families, a 9-bit window index (NW<<8 | N<<7 | NE<<6 | W<<5 |
 * C<<4 | E<<3 | SW<<2 | S<<1 | SE, Golly's MAP order) slides left to right over the on
 * bits: moving one column right shifts the index left by one, keeps the two older columns
 * with the mask 0x1B6 and brings in the new column at bits 6, 3 and 0.  Larger than Life
 * counts with row prefix sums: for each row of the grid, the prefix sums of its on cells
 * over the row extended by the neighbourhood's reach on both sides (wrapped on a torus,
 * dead on a bounded grid), so that a horizontal run of the neighbourhood costs two
 * lookups; a cell's count is the sum over the neighbourhood's runs (one per row for most
 * shapes).  The triangular neighbourhood flips with the parity of column + row.
 *
 * Interruption.  cfg->poll is called between generations once at least REF_POLL_CELLS
 * cells have been updated since the last call, so the universe is always at a whole
 * generation when the step returns WL_ERR_INTERRUPTED.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Cells updated between two calls of the poll callback (about a millisecond of work). */
#define REF_POLL_CELLS ((uint64_t)1 << 20)

/* One horizontal run of a Larger than Life neighbourhood: offsets dx in [x0, x1] of row dy. */
typedef struct ref_run {
    int dy, x0, x1;
} ref_run;

typedef struct ref_ctx {
    uint64_t w, h;        /* grid size */
    size_t pw;            /* padded row length in bytes: w + 2 */
    wl_topology topo;
    wl_family family;
    unsigned states;
    uint8_t *cur, *next;  /* (w + 2) x (h + 2) bytes each, halo included: the states */
    uint8_t *on;          /* the same shape: each cell's on bit */
    uint8_t table[512];   /* next on bit for each neighbourhood index */
    unsigned marks_nbrs;  /* History and Super: the index bits of the marks' neighbours */
    size_t *ring;         /* pairs (halo offset, grid offset), nring of them */
    size_t nring;
    /* Larger than Life */
    ref_run *runs[2];     /* the runs for a cell of parity 0 and 1 */
    size_t nruns[2];
    int reach;            /* the largest |dx| */
    unsigned middle;      /* a live cell counts itself (LtL's M1) */
    uint8_t *born, *stays; /* by count: birth, survival (count + middle) */
    uint32_t *sums;       /* h rows of prefix sums, (w + 2 reach + 1) each */
    wl_poll_fn poll;
    void *poll_user;
    uint64_t since_poll;  /* cells updated since the last poll */
} ref_ctx;

static void ref_destroy(void *vctx) {
    ref_ctx *c = vctx;
    if (!c) return;
    free(c->cur);
    free(c->next);
    free(c->on);
    free(c->ring);
    free(c->runs[0]);
    free(c->runs[1]);
    free(c->born);
    free(c->stays);
    free(c->sums);
    free(c);
}

/* Byte of cell (x, y) of the grid (0-based, inside) in buffer b. */
static inline uint8_t *cell(const ref_ctx *c, uint8_t *b, uint64_t x, uint64_t y) {
    return b + (size_t)(y + 1) * c->pw + (size_t)(x + 1);
}

/* Makes the halo's copy list from the topology's glue. */
static wl_status make_ring(ref_ctx *c, const wl_config *cfg) {
    if (c->topo == WL_TOPOLOGY_BOUNDED || c->family == WL_FAMILY_LTL) return WL_OK;
    wl_shape sh = {cfg->topology, cfg->width, cfg->height, cfg->glue};
    size_t n = 2 * (size_t)(c->w + c->h) + 4;
    c->ring = wl_malloc(2 * n * sizeof *c->ring);
    if (!c->ring) return WL_ERR_NOMEM;
    for (int64_t j = -1; j <= (int64_t)c->h; j++) {
        for (int64_t i = -1; i <= (int64_t)c->w; i++) {
            int inside = i >= 0 && j >= 0 && i < (int64_t)c->w && j < (int64_t)c->h;
            if (inside) {
                i = (int64_t)c->w - 1; /* jump to the right halo cell */
                continue;
            }
            uint64_t si, sj;
            if (!wl_shape_ring(&sh, i, j, &si, &sj)) continue;
            c->ring[2 * c->nring] = (size_t)(j + 1) * c->pw + (size_t)(i + 1);
            c->ring[2 * c->nring + 1] = (size_t)(sj + 1) * c->pw + (size_t)(si + 1);
            c->nring++;
        }
    }
    return WL_OK;
}

/* Collects the runs of a Larger than Life neighbourhood. */
typedef struct run_list {
    ref_run *v;
    size_t n, cap;
    int reach;
    int fail;
} run_list;

static void add_run(void *user, int dy, int x0, int x1) {
    run_list *l = user;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        ref_run *nv = realloc(l->v, cap * sizeof *nv);
        if (!nv) {
            l->fail = 1;
            return;
        }
        l->v = nv;
        l->cap = cap;
    }
    l->v[l->n++] = (ref_run){dy, x0, x1};
    if (-x0 > l->reach) l->reach = -x0;
    if (x1 > l->reach) l->reach = x1;
}

static wl_status make_ltl(ref_ctx *c, const wl_ltl *l) {
    uint64_t size = 0;
    for (int parity = 0; parity < 2; parity++) {
        run_list rl = {NULL, 0, 0, 0, 0};
        size = wl_ltl_neighbourhood(l, parity, add_run, &rl);
        if (rl.fail) {
            free(rl.v);
            return wl_error(WL_ERR_NOMEM, "engine 'ref': out of memory for a neighbourhood");
        }
        c->runs[parity] = rl.v;
        c->nruns[parity] = rl.n;
        if (rl.reach > c->reach) c->reach = rl.reach;
    }
    c->middle = l->middle;
    c->born = wl_calloc((size_t)size + 2, 1);
    c->stays = wl_calloc((size_t)size + 2, 1);
    uint64_t row = c->w + 2 * (uint64_t)c->reach + 1;
    if (row > wl_physical_memory() / 8 / 4 / c->h)
        return wl_error(WL_ERR_TOO_BIG, "engine 'ref': the prefix sums of a %llux%llu grid do "
                        "not fit", (unsigned long long)c->w, (unsigned long long)c->h);
    c->sums = wl_malloc((size_t)(row * c->h) * sizeof *c->sums);
    if (!c->born || !c->stays || !c->sums) return WL_ERR_NOMEM;
    for (unsigned k = 0; k < l->nbirth; k++)
        for (uint32_t v = l->birth[k][0]; v <= l->birth[k][1] && v <= size + 1; v++) c->born[v] = 1;
    for (unsigned k = 0; k < l->nsurvive; k++)
        for (uint32_t v = l->survive[k][0]; v <= l->survive[k][1] && v <= size + 1; v++)
            c->stays[v] = 1;
    return WL_OK;
}

static wl_status ref_create(const wl_config *cfg, const char *kernel, void **out) {
    (void)kernel;
    *out = NULL;
    if (cfg->topology == WL_TOPOLOGY_PLANE)
        return wl_error(WL_ERR_UNSUPPORTED, "engine 'ref' runs on grids only, not the plane");
    if (!cfg->width || !cfg->height)
        return wl_error(WL_ERR_INVALID, "engine 'ref' needs a size of at least 1x1");
    uint64_t w = cfg->width, h = cfg->height;
    /* Three padded byte buffers must fit in memory (and their size in a size_t). */
    uint64_t limit = wl_physical_memory() / 2;
    if (w > limit || h > limit || (w + 2) > limit / (h + 2) || (w + 2) * (h + 2) > limit / 3)
        return wl_error(WL_ERR_TOO_BIG, "a %llu x %llu grid is too big for engine 'ref' "
                        "(one byte per cell)", (unsigned long long)w, (unsigned long long)h);
    ref_ctx *c = wl_calloc(1, sizeof *c);
    if (!c) return WL_ERR_NOMEM;
    size_t bytes = (size_t)((w + 2) * (h + 2));
    c->w = w;
    c->h = h;
    c->pw = (size_t)(w + 2);
    c->topo = cfg->topology;
    c->family = wl_rule_family(&cfg->rule);
    c->states = wl_rule_states(&cfg->rule);
    c->cur = wl_calloc(bytes, 1);
    c->next = wl_calloc(bytes, 1);
    c->on = wl_calloc(bytes, 1);
    wl_status s = !c->cur || !c->next || !c->on ? WL_ERR_NOMEM : make_ring(c, cfg);
    if (!s && c->family == WL_FAMILY_LTL) s = make_ltl(c, &cfg->rule.ltl);
    if (s) {
        ref_destroy(c);
        return s;
    }
    if (c->family == WL_FAMILY_HISTORY || c->family == WL_FAMILY_SUPER) {
        wl_marks_table(&cfg->rule, c->table);
        c->marks_nbrs = wl_marks_neighbours(&cfg->rule);
    } else {
        for (unsigned i = 0; i < 512; i++) c->table[i] = (uint8_t)wl_rule_next(&cfg->rule, i);
    }
    c->poll = cfg->poll;
    c->poll_user = cfg->poll_user;
    *out = c;
    return WL_OK;
}

static wl_status check_size(const ref_ctx *c, const wl_grid *g) {
    if (g->w == c->w && g->h == c->h) return WL_OK;
    return wl_error(WL_ERR_INVALID, "engine 'ref': grid is %llux%llu, universe %llux%llu",
                    (unsigned long long)g->w, (unsigned long long)g->h,
                    (unsigned long long)c->w, (unsigned long long)c->h);
}

static wl_status ref_load_grid(void *vctx, const wl_grid *g) {
    ref_ctx *c = vctx;
    wl_status s = check_size(c, g);
    if (s) return s;
    memset(c->cur, 0, c->pw * (size_t)(c->h + 2));
    for (uint64_t y = 0; y < c->h; y++) {
        uint8_t *row = cell(c, c->cur, 0, y);
        for (uint64_t x = 0; x < c->w; x++) {
            unsigned st = g->planes > 1 ? wl_grid_state(g, x, y) : (unsigned)wl_grid_get(g, x, y);
            row[x] = (uint8_t)(st < c->states ? st : c->states - 1);
        }
    }
    return WL_OK;
}

static wl_status ref_store_grid(void *vctx, wl_grid *g) {
    ref_ctx *c = vctx;
    wl_status s = check_size(c, g);
    if (s) return s;
    memset(g->words, 0, (size_t)(g->h * g->stride * (g->planes ? g->planes : 1)) * sizeof *g->words);
    for (uint64_t y = 0; y < c->h; y++) {
        const uint8_t *row = cell(c, c->cur, 0, y);
        for (uint64_t x = 0; x < c->w; x++)
            if (row[x]) wl_grid_set_state(g, x, y, row[x]);
    }
    return WL_OK;
}

/* Row strips (the mpi engine's halo exchange, two-state rules): rows y0 .. y0+n-1 to /
 * from wl_grid rows at `stride` words per row.  Only the rows' cells are touched; the
 * halo is refilled from them before the next generation anyway. */
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

/* The on bit of a state. */
static inline uint8_t on_bit(const ref_ctx *c, uint8_t s) {
    switch (c->family) {
    case WL_FAMILY_GENERATIONS:
    case WL_FAMILY_LTL: return s == 1;
    case WL_FAMILY_HISTORY:
    case WL_FAMILY_SUPER: return s & 1;
    default: return s;
    }
}

/* Fills the halo from the glue and the on bits of every cell, halo included. */
static void prepare(ref_ctx *c) {
    for (size_t k = 0; k < c->nring; k++) c->cur[c->ring[2 * k]] = c->cur[c->ring[2 * k + 1]];
    size_t bytes = c->pw * (size_t)(c->h + 2);
    for (size_t i = 0; i < bytes; i++) c->on[i] = on_bit(c, c->cur[i]);
}

/* The next state of a decaying family (Generations, Larger than Life) from the state s and
 * whether the rule makes (or keeps) the cell on. */
static inline uint8_t decay(const ref_ctx *c, uint8_t s, int alive) {
    if (s == 0) return (uint8_t)alive;
    if (s == 1) return alive ? 1 : c->states > 2 ? 2 : 0;
    return (uint8_t)(s + 1u < c->states ? s + 1u : 0u);
}

/* One generation of a range-1 family from c->cur into c->next (inner cells only). */
static void step_table(ref_ctx *c) {
    size_t pw = c->pw, w = (size_t)c->w, h = (size_t)c->h;
    /* the offsets of the nine cells of the window, index bit 8 (NW) down to bit 0 (SE) */
    const ptrdiff_t off[9] = {-(ptrdiff_t)pw - 1, -(ptrdiff_t)pw, -(ptrdiff_t)pw + 1, -1, 0, 1,
                              (ptrdiff_t)pw - 1, (ptrdiff_t)pw, (ptrdiff_t)pw + 1};
    int marks = c->family == WL_FAMILY_HISTORY || c->family == WL_FAMILY_SUPER;
    for (size_t y = 1; y <= h; y++) {
        const uint8_t *up = c->on + (y - 1) * pw, *mid = up + pw, *dn = mid + pw;
        const uint8_t *st = c->cur + y * pw;
        uint8_t *out = c->next + y * pw;
        /* Window over padded columns 0 and 1 (the W and C columns of the first cell). */
        unsigned idx = (unsigned)(up[0] << 7 | mid[0] << 4 | dn[0] << 1 | up[1] << 6 |
                                  mid[1] << 3 | dn[1]);
        for (size_t x = 1; x <= w; x++) {
            idx = ((idx << 1) & 0x1B6u) |
                  (unsigned)(up[x + 1] << 6 | mid[x + 1] << 3 | dn[x + 1]);
            int alive = c->table[idx];
            if (c->family == WL_FAMILY_LIFE) {
                out[x] = (uint8_t)alive;
            } else if (!marks) {
                out[x] = decay(c, st[x], alive);
            } else {
                uint32_t present = 0;
                for (int k = 0; k < 9; k++)
                    if (c->marks_nbrs >> (8 - k) & 1u) present |= 1u << st[(ptrdiff_t)x + off[k]];
                out[x] = (uint8_t)wl_marks_next(c->family == WL_FAMILY_SUPER, st[x], alive, present);
            }
        }
    }
}

/* One generation of Larger than Life from c->cur into c->next. */
static void step_ltl(ref_ctx *c) {
    size_t w = (size_t)c->w, h = (size_t)c->h, R = (size_t)c->reach;
    size_t row = w + 2 * R + 1; /* sums[y * row + i]: on cells of columns -R .. i - R - 1 */
    int torus = c->topo == WL_TOPOLOGY_TORUS;
    for (size_t y = 0; y < h; y++) {
        const uint8_t *on = c->on + (y + 1) * c->pw + 1;
        uint32_t *s = c->sums + y * row, acc = 0;
        s[0] = 0;
        for (size_t i = 0; i + 1 < row; i++) {
            int64_t x = (int64_t)i - (int64_t)R;
            uint8_t v = 0;
            if (x >= 0 && x < (int64_t)w) v = on[x];
            else if (torus) v = on[wl_mod(x, (int64_t)w)];
            acc += v;
            s[i + 1] = acc;
        }
    }
    for (size_t y = 0; y < h; y++) {
        const uint8_t *st = c->cur + (y + 1) * c->pw + 1;
        uint8_t *out = c->next + (y + 1) * c->pw + 1;
        for (size_t x = 0; x < w; x++) {
            int parity = (int)((x + y) & 1);
            const ref_run *r = c->runs[parity];
            uint64_t count = 0;
            for (size_t k = 0; k < c->nruns[parity]; k++) {
                int64_t yy = (int64_t)y + r[k].dy;
                if (yy < 0 || yy >= (int64_t)h) {
                    if (!torus) continue;
                    yy = wl_mod(yy, (int64_t)h);
                }
                const uint32_t *s = c->sums + (size_t)yy * row;
                /* columns x + x0 .. x + x1 are sums indices x + x0 + R .. x + x1 + R + 1,
                 * inside the row since R is the neighbourhood's reach */
                count += s[(int64_t)x + r[k].x1 + (int64_t)R + 1] - s[(int64_t)x + r[k].x0 + (int64_t)R];
            }
            uint8_t cur = st[x];
            int alive = cur == 0 ? c->born[count] : cur == 1 ? c->stays[count + c->middle] : 0;
            out[x] = decay(c, cur, alive);
        }
    }
}

static wl_status ref_step(void *vctx, uint64_t generations, uint64_t *done) {
    ref_ctx *c = vctx;
    uint64_t cells = c->w * c->h;
    *done = 0;
    for (uint64_t g = 0; g < generations; g++) {
        prepare(c);
        if (c->family == WL_FAMILY_LTL) step_ltl(c);
        else step_table(c);
        uint8_t *t = c->cur;
        c->cur = c->next;
        c->next = t;
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
        for (uint64_t x = 0; x < c->w; x++) n += row[x] != 0;
    }
    wl_bigint_from_u64(out, n);
    return WL_OK;
}

const wl_engine_ops wl_engine_ref = {
    .name = "ref",
    .description = "reference: one byte per cell, every rule family and Golly topology, "
                   "computed the obvious way",
    .caps = WL_CAP_TORUS | WL_CAP_BOUNDED | WL_CAP_ANY_RULE | WL_CAP_GLUED |
            WL_CAP_GENERATIONS | WL_CAP_LTL | WL_CAP_HISTORY | WL_CAP_SUPER,
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
