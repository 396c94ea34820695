/*
 * grow.c - the "grow" engine: the unbounded plane on a grid engine, by a bounded grid that
 * grows (and shrinks) with the pattern.  It is how rules that no plane engine runs -
 * Generations, Larger than Life, History, Super - run on the plane, exactly, at the speed
 * of the grid engine inside (its kernel names it: cuda, cpu or ref; "auto" takes the first
 * of those that runs the rule here).
 *
 * Why it is exact.  On a bounded grid the cells outside are dead forever, which is the
 * plane's truth as long as nothing would be born outside.  Without B0 a cell can only be
 * born within the reach r of a live cell (r = 1 for range-1 rules, the neighbourhood's
 * reach for Larger than Life), so live cells spread at most r cells a generation.  If every
 * live cell lies at least m cells inside the grid's edges, then for k = floor(m / r)
 * generations no live cell comes within r of the outside, and the bounded grid computes
 * exactly what the plane would.  The engine steps in such chunks, keeping a box that
 * surely holds the live cells (it grows by k r per chunk), and when the box comes too close
 * to an edge it measures the live cells' real bounding box and, if that is close too,
 * moves the pattern to a new grid with room on every side (a quarter of the box's size and
 * GROW_MARGIN reaches more on each side, so that growth is amortised); a grid far bigger than its
 * pattern is made smaller the same way.  Generations counts carry on unchanged.
 *
 * Coordinates: grid cell (0, 0) is pattern cell (ox, oy); ox and oy are kept even, so the
 * parity of column + row is that of x + y (Larger than Life's triangular neighbourhood
 * flips with it, as Golly's unbounded grid does).  B0 rules cannot live on the plane (an
 * infinity of births) and are refused, except History and Super rules with B0 and S-max,
 * which run as their dual with a dead background.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GROW_MARGIN 16      /* reaches of room on each side of a new grid, at least */
#define GROW_MIN_CHUNK 4    /* fewer generations than this per chunk: measure, maybe move */
#define GROW_SHRINK 16      /* a grid this many times the area it needs is made smaller */
#define GROW_MARGIN_CELLS 256 /* ... but no more room than this on a side, for large reaches */

static const char *const kernels[] = {"auto", "cuda", "cpu", "ref", NULL};

typedef struct grow_ctx {
    wl_config cfg;              /* the plane's configuration */
    const wl_engine_ops *inner; /* the grid engine, and its universe */
    void *ictx;
    const char *inner_name;
    uint64_t w, h;              /* the grid; 0 x 0 while there is none */
    int64_t ox, oy;             /* pattern coordinates of grid cell (0, 0) */
    uint64_t bx0, by0, bx1, by1; /* a box (grid cells, inclusive) that holds every live cell */
    int empty;                  /* no live cell at all */
    uint64_t rx, ry;            /* the rule's reach per generation, across and down */
    unsigned planes;
    /* grids of the current size kept for measuring and moving the pattern (a large
     * range's pattern moves every few generations: fresh grids cost their page faults) */
    wl_grid scratch[2];
    int threads; /* set_threads: the inner grids' (0: all) */
} grow_ctx;

static void grow_destroy(void *v) {
    grow_ctx *c = v;
    if (!c) return;
    if (c->ictx) c->inner->destroy(c->ictx);
    wl_grid_free(&c->scratch[0]);
    wl_grid_free(&c->scratch[1]);
    free(c);
}

/* The horizontal and vertical reach of a Larger than Life neighbourhood. */
typedef struct reach {
    int x, y;
} reach;

static void note_run(void *user, int dy, int x0, int x1) {
    reach *r = user;
    if (-x0 > r->x) r->x = -x0;
    if (x1 > r->x) r->x = x1;
    if (dy > r->y) r->y = dy;
    if (-dy > r->y) r->y = -dy;
}

/* Opens the inner engine on a w x h bounded grid (the kernel's engine, or for "auto" the
 * first that runs the rule). */
static wl_status open_grid(grow_ctx *c, uint64_t w, uint64_t h, void **ictx) {
    wl_config ic = c->cfg;
    ic.topology = WL_TOPOLOGY_BOUNDED;
    ic.width = w;
    ic.height = h;
    memset(&ic.glue, 0, sizeof ic.glue);
    ic.kernel = NULL;
    if (c->inner) {
        ic.engine = c->inner->name;
        return wl_engine_open(c->inner, &ic, ictx, NULL);
    }
    static const char *const order[] = {"cuda", "cpu", "ref"};
    wl_status last = WL_ERR_UNSUPPORTED;
    char why[512] = "";
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        if (strcmp(c->inner_name, "auto") != 0 && strcmp(c->inner_name, order[i]) != 0) continue;
        const wl_engine_ops *e = wl_engine_find(order[i]);
        if (!e) continue;
        ic.engine = e->name;
        last = wl_engine_open(e, &ic, ictx, NULL);
        if (last == WL_OK) {
            c->inner = e;
            return WL_OK;
        }
        snprintf(why, sizeof why, "%s", wl_last_error());
    }
    if (!why[0]) snprintf(why, sizeof why, "engine '%s' is not built", c->inner_name);
    return wl_error(last, "engine 'grow': no grid engine to grow on (%s)", why);
}

/* open_grid, on the threads set_threads left it (grow_set_threads). */
static wl_status open_inner(grow_ctx *c, uint64_t w, uint64_t h, void **ictx) {
    wl_status s = open_grid(c, w, h, ictx);
    if (!s && c->threads && c->inner->set_threads) c->inner->set_threads(*ictx, c->threads);
    return s;
}

static wl_status grow_create(const wl_config *cfg, const char *kernel, void **out) {
    *out = NULL;
    if (cfg->topology != WL_TOPOLOGY_PLANE)
        return wl_error(WL_ERR_UNSUPPORTED, "engine 'grow' runs the plane only");
    wl_family f = wl_rule_family(&cfg->rule);
    if (wl_rule_has_b0(&cfg->rule) && f != WL_FAMILY_HISTORY && f != WL_FAMILY_SUPER)
        return wl_error(WL_ERR_UNSUPPORTED, "B0 rules cannot run on the unbounded plane (every "
                        "empty cell would be born); use a torus or a bounded grid");
    grow_ctx *c = wl_calloc(1, sizeof *c);
    if (!c) return WL_ERR_NOMEM;
    c->cfg = *cfg;
    c->inner_name = kernel;
    c->empty = 1;
    c->planes = wl_grid_planes_for(&cfg->rule);
    c->rx = c->ry = 1;
    if (f == WL_FAMILY_LTL) {
        reach r = {0, 0};
        wl_ltl_neighbourhood(&cfg->rule.ltl, 0, note_run, &r);
        wl_ltl_neighbourhood(&cfg->rule.ltl, 1, note_run, &r);
        c->rx = r.x ? (uint64_t)r.x : 1;
        c->ry = r.y ? (uint64_t)r.y : 1;
    }
    /* check now that an inner engine takes the rule (on a small grid) */
    void *probe = NULL;
    wl_status s = open_inner(c, 64, 64, &probe);
    if (s) {
        grow_destroy(c);
        return s;
    }
    c->inner->destroy(probe);
    *out = c;
    return WL_OK;
}

/* Stores the inner grid (all planes when `planes`, else the live cells only) into g. */
static wl_status store(grow_ctx *c, wl_grid *g, unsigned planes) {
    wl_status s = wl_grid_alloc_planes(g, c->w, c->h, planes);
    if (!s) s = c->inner->store_grid(c->ictx, g);
    if (s) wl_grid_free(g);
    return s;
}

/* Scratch grid k, all dead, of the current size with `planes` planes. */
static wl_status scratch(grow_ctx *c, int k, unsigned planes, wl_grid **out) {
    wl_grid *g = &c->scratch[k];
    if (g->words && g->w == c->w && g->h == c->h && g->planes == planes) {
        memset(g->words, 0, g->stride * g->h * planes * 8);
    } else {
        wl_grid_free(g);
        wl_status s = wl_grid_alloc_planes(g, c->w, c->h, planes);
        if (s) return s;
    }
    *out = g;
    return WL_OK;
}

/* The inner grid's cells (all planes when `planes`, else the live cells) into scratch grid
 * k. */
static wl_status store_scratch(grow_ctx *c, int k, unsigned planes, wl_grid **out) {
    wl_status s = scratch(c, k, planes, out);
    return s ? s : c->inner->store_grid(c->ictx, *out);
}

/* The live cells' bounding box in grid cells (looked for inside the box that holds them,
 * or asked of the inner engine); c->empty when there are none. */
static wl_status measure(grow_ctx *c) {
    if (c->inner->bounds) { /* (in the placement rule's coordinates) */
        wl_bigint b[4];
        int64_t v[4];
        int empty;
        wl_status s = c->inner->bounds(c->ictx, &b[0], &b[1], &b[2], &b[3], &empty);
        if (s) return s;
        c->empty = empty;
        if (empty) return WL_OK;
        for (int k = 0; k < 4; k++)
            if (!wl_bigint_to_i64(&b[k], &v[k]))
                return wl_error(WL_ERR_INVALID, "engine 'grow': the grid's bounds overflow");
        c->bx0 = (uint64_t)(v[0] + (int64_t)(c->w / 2));
        c->by0 = (uint64_t)(v[1] + (int64_t)(c->h / 2));
        c->bx1 = (uint64_t)(v[2] + (int64_t)(c->w / 2));
        c->by1 = (uint64_t)(v[3] + (int64_t)(c->h / 2));
        return WL_OK;
    }
    wl_grid *gp;
    wl_status s = store_scratch(c, 0, 1, &gp);
    if (s) return s;
    uint64_t box[4]; /* (the rows of the box that holds every live cell) */
    c->empty = !wl_rows_box(gp->words + c->by0 * gp->stride, gp->stride, c->by1 - c->by0 + 1,
                            NULL, 0, 0, box);
    if (!c->empty) {
        c->bx0 = box[0];
        c->bx1 = box[2];
        c->by1 = c->by0 + box[3];
        c->by0 += box[1];
    }
    return WL_OK;
}

/* The room left on each side of a new grid for a reach of r: GROW_MARGIN reaches, but no
 * more than GROW_MARGIN_CELLS cells beyond GROW_MIN_CHUNK + 1 reaches (a large range's
 * margins would otherwise dwarf its pattern). */
static uint64_t margin(uint64_t r) {
    uint64_t m = GROW_MARGIN * r, least = (GROW_MIN_CHUNK + 1) * r;
    if (m > GROW_MARGIN_CELLS) m = GROW_MARGIN_CELLS;
    return m < least ? least : m;
}

/* The pattern coordinate of cell 0 of a grid of n cells across (or down) that centres the
 * n0 cells from x0: even, so that the parity of x + y is that of column + row. */
static int64_t centred(int64_t x0, uint64_t n0, uint64_t n) {
    int64_t o = x0 - (int64_t)((n - n0) / 2);
    return o - wl_mod(o, 2);
}

/* The grid for live cells in the rectangle r (pattern coordinates): its size, and the
 * pattern coordinates of its cell (0, 0), with room around r. */
static void fit(const grow_ctx *c, const wl_rect *r, uint64_t *w, uint64_t *h, int64_t *ox,
                int64_t *oy) {
    uint64_t mx = margin(c->rx) + r->w / 4, my = margin(c->ry) + r->h / 4;
    *w = (r->w + 2 * mx + 63) & ~(uint64_t)63; /* whole words, as bit engines like */
    /* a wide grid in whole 512-cell vectors: the cpu engine steps such rows without column
     * masks (its band mode), twice as fast - Golly's what-a-mess to 3000 on grow: 1.8 ->
     * 1.1 s, as its grid happened to be 3968 or 4096 cells wide - at a cost of under half a
     * 1024-cell row for other engines; not for Larger than Life, whose counts cost every
     * column (r100-neumann-bug to 3000: 2.3 -> 2.9 s) */
    if (*w >= 1024 && wl_rule_family(&c->cfg.rule) != WL_FAMILY_LTL)
        *w = (*w + 511) & ~(uint64_t)511;
    *h = r->h + 2 * my;
    *ox = centred(r->x, r->w, *w);
    *oy = centred(r->y, r->h, *h);
}

/* Puts the cells of pattern p, whose live cells lie in the rectangle r (pattern
 * coordinates), on a new grid with room around them. */
static wl_status place(grow_ctx *c, const wl_pattern *p, const wl_rect *r) {
    uint64_t w, h;
    int64_t ox, oy;
    fit(c, r, &w, &h, &ox, &oy);
    void *ictx = NULL;
    wl_status s = open_inner(c, w, h, &ictx);
    if (s) return s;
    wl_grid g;
    s = wl_grid_alloc_planes(&g, w, h, c->planes);
    if (!s) s = wl_grid_from_pattern_at(&g, p, WL_TOPOLOGY_BOUNDED, ox, oy, NULL);
    if (!s) s = c->inner->load_grid(ictx, &g);
    wl_grid_free(&g);
    if (s) {
        c->inner->destroy(ictx);
        return s;
    }
    if (c->ictx) c->inner->destroy(c->ictx);
    c->ictx = ictx;
    c->w = w;
    c->h = h;
    c->ox = ox;
    c->oy = oy;
    c->bx0 = (uint64_t)(r->x - ox);
    c->by0 = (uint64_t)(r->y - oy);
    c->bx1 = c->bx0 + r->w - 1;
    c->by1 = c->by0 + r->h - 1;
    c->empty = 0;
    return WL_OK;
}

static wl_status grow_store(void *v, wl_pattern **out) {
    grow_ctx *c = v;
    *out = NULL;
    if (!c->ictx) {
        *out = wl_pattern_new();
        if (!*out) return WL_ERR_NOMEM;
        wl_pattern_set_rule(*out, &c->cfg.rule);
        return WL_OK;
    }
    wl_grid g;
    wl_status s = store(c, &g, c->planes);
    if (s) return s;
    s = wl_grid_to_pattern_at(&g, &c->cfg.rule, c->ox, c->oy, out);
    wl_grid_free(&g);
    return s;
}

/* Moves the cells of every plane of src into dst (same size): dst (x, y) = src (x + dx,
 * y + dy), dead where that lies outside. */
static void shift_grid(const wl_grid *src, wl_grid *dst, int64_t dx, int64_t dy) {
    for (unsigned k = 0; k < src->planes; k++)
        for (uint64_t y = 0; y < dst->h; y++) {
            int64_t sy = (int64_t)y + dy;
            uint64_t *out = dst->words + ((size_t)k * dst->h + y) * dst->stride;
            if (sy >= 0 && sy < (int64_t)src->h)
                wl_row_shift(src->words + ((size_t)k * src->h + (size_t)sy) * src->stride,
                             src->stride, out, dst->stride, dst->w, dx);
        }
}

/* Moves the pattern to a grid fitted to its live cells: the same grid, its cells shifted,
 * when it has the size needed or up to twice the area; else a new one. */
static wl_status refit(grow_ctx *c) {
    wl_rect r = {c->ox + (int64_t)c->bx0, c->oy + (int64_t)c->by0, c->bx1 - c->bx0 + 1,
                 c->by1 - c->by0 + 1};
    uint64_t w, h;
    int64_t ox, oy;
    fit(c, &r, &w, &h, &ox, &oy);
    if (w <= c->w && h <= c->h && (double)c->w * (double)c->h <= 2.0 * (double)w * (double)h) {
        ox = centred(r.x, r.w, c->w); /* in the grid as it is */
        oy = centred(r.y, r.h, c->h);
        wl_status s = c->inner->translate ? c->inner->translate(c->ictx, ox - c->ox, oy - c->oy)
                                          : WL_ERR_UNSUPPORTED;
        if (s == WL_ERR_UNSUPPORTED) { /* through the host: out, shifted, in */
            wl_grid *old, *moved;
            s = store_scratch(c, 0, c->planes, &old);
            if (!s) s = scratch(c, 1, c->planes, &moved);
            if (s) return s;
            shift_grid(old, moved, ox - c->ox, oy - c->oy);
            s = c->inner->load_grid(c->ictx, moved);
            if (s) { /* (the cells as they were, if the engine can take them back) */
                c->inner->load_grid(c->ictx, old);
                return s;
            }
        } else if (s) {
            return s;
        }
        c->bx0 = (uint64_t)(r.x - ox);
        c->by0 = (uint64_t)(r.y - oy);
        c->bx1 = c->bx0 + r.w - 1;
        c->by1 = c->by0 + r.h - 1;
        c->ox = ox;
        c->oy = oy;
        return WL_OK;
    }
    wl_pattern *p;
    wl_status s = grow_store(c, &p);
    if (s) return s;
    s = place(c, p, &r);
    wl_pattern_free(p);
    return s;
}

static wl_status grow_load(void *v, const wl_pattern *p) {
    grow_ctx *c = v;
    wl_rect r;
    if (!wl_pattern_bounds(p, &r)) {
        if (c->ictx) c->inner->destroy(c->ictx);
        c->ictx = NULL;
        c->w = c->h = 0;
        c->empty = 1;
        return WL_OK;
    }
    return place(c, p, &r);
}

/* Generations that can run before a live cell may come within reach of an edge. */
static uint64_t room(const grow_ctx *c) {
    uint64_t m[4] = {c->bx0, c->w - 1 - c->bx1, c->by0, c->h - 1 - c->by1};
    uint64_t kx = (m[0] < m[1] ? m[0] : m[1]) / c->rx, ky = (m[2] < m[3] ? m[2] : m[3]) / c->ry;
    return kx < ky ? kx : ky;
}

/* The box after k generations (clipped to the grid). */
static void spread(grow_ctx *c, uint64_t k) {
    uint64_t dx = k * c->rx, dy = k * c->ry;
    c->bx0 = c->bx0 > dx ? c->bx0 - dx : 0;
    c->by0 = c->by0 > dy ? c->by0 - dy : 0;
    c->bx1 = c->bx1 + dx < c->w ? c->bx1 + dx : c->w - 1;
    c->by1 = c->by1 + dy < c->h ? c->by1 + dy : c->h - 1;
}

static wl_status grow_step(void *v, uint64_t generations, uint64_t *done) {
    grow_ctx *c = v;
    *done = 0;
    while (*done < generations) {
        if (c->empty || !c->ictx) { /* nothing lives: nothing ever will (no B0) */
            *done = generations;
            return WL_OK;
        }
        uint64_t k = room(c);
        if (k < GROW_MIN_CHUNK) {
            wl_status s = measure(c);
            if (s) return s;
            if (c->empty) continue;
            k = room(c);
            uint64_t need = (c->bx1 - c->bx0 + 1 + 2 * GROW_MARGIN * c->rx) *
                            (c->by1 - c->by0 + 1 + 2 * GROW_MARGIN * c->ry);
            if (k < GROW_MIN_CHUNK || c->w * c->h / GROW_SHRINK > need) {
                s = refit(c);
                if (s) return s;
                k = room(c);
            }
        }
        uint64_t n = generations - *done < k ? generations - *done : k, got = 0;
        wl_status s = c->inner->step(c->ictx, n, &got);
        *done += got;
        spread(c, got);
        if (s) return s;
        /* (between the inner steps too: a chunk of k generations may be a pass, which the
         * inner engine does not poll after) */
        if (*done < generations && c->cfg.poll && c->cfg.poll(c->cfg.poll_user))
            return wl_error(WL_ERR_INTERRUPTED, "grow engine: interrupted after %llu "
                            "generations", (unsigned long long)*done);
    }
    return WL_OK;
}

static wl_status grow_population(void *v, wl_bigint *out) {
    grow_ctx *c = v;
    if (!c->ictx) {
        wl_bigint_from_u64(out, 0);
        return WL_OK;
    }
    if (c->inner->population) return c->inner->population(c->ictx, out);
    wl_grid g;
    wl_status s = store(c, &g, 1);
    if (s) return s;
    wl_bigint_from_u64(out, wl_grid_population(&g));
    wl_grid_free(&g);
    return WL_OK;
}

static wl_status grow_bounds(void *v, wl_bigint *xmin, wl_bigint *ymin, wl_bigint *xmax,
                             wl_bigint *ymax, int *empty) {
    grow_ctx *c = v;
    *empty = 1;
    if (c->ictx) {
        wl_status s = measure(c);
        if (s) return s;
        *empty = c->empty;
    }
    if (*empty) {
        wl_bigint_from_i64(xmin, 0);
        wl_bigint_from_i64(ymin, 0);
        wl_bigint_from_i64(xmax, 0);
        wl_bigint_from_i64(ymax, 0);
        return WL_OK;
    }
    wl_bigint_from_i64(xmin, c->ox + (int64_t)c->bx0);
    wl_bigint_from_i64(ymin, c->oy + (int64_t)c->by0);
    wl_bigint_from_i64(xmax, c->ox + (int64_t)c->bx1);
    wl_bigint_from_i64(ymax, c->oy + (int64_t)c->by1);
    return WL_OK;
}

/* The inner grid's threads, now and on every grid it grows into. */
static void grow_set_threads(void *v, int n) {
    grow_ctx *c = v;
    c->threads = n;
    if (c->ictx && c->inner->set_threads) c->inner->set_threads(c->ictx, n);
}

const wl_engine_ops wl_engine_grow = {
    .name = "grow",
    .description = "the plane on a grid engine (kernel: which one) whose bounded grid grows "
                   "with the pattern: Generations, Larger than Life, History and Super on "
                   "the plane",
    .caps = WL_CAP_PLANE | WL_CAP_GENERATIONS | WL_CAP_LTL | WL_CAP_HISTORY | WL_CAP_SUPER,
    .kernels = kernels,
    .create = grow_create,
    .destroy = grow_destroy,
    .load_pattern = grow_load,
    .store_pattern = grow_store,
    .step = grow_step,
    .population = grow_population,
    .bounds = grow_bounds,
    .set_threads = grow_set_threads,
};
