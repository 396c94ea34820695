/*
 * macrocell.c - Golly's macrocell format (.mc), a quadtree with shared subtrees, for
 * two-state rules.
 *
 * The file: a "[M2] ..." line, then '#' lines (#R rule, #G generation - read and ignored,
 * #C / other text kept as comments), then node lines numbered 1, 2, 3... in order:
 *   leaf line   an 8x8 square (level 3): rows separated by '$', '.' dead, '*' alive;
 *               trailing dead cells and trailing empty rows are omitted
 *               (".**$*..*$" is two rows);
 *   node line   "level nw ne sw se": a 2^level square made of four 2^(level-1) quadrants,
 *               each the number of an earlier line, or 0 for an empty quadrant.  Level-1
 *               nodes (as multi-state Golly files use) hold four cell states, 0 or 1 here;
 *               levels 2 and 3 may also be given as nodes.
 * The last line is the root.  Placement, as Golly's HashLife places it: a level-L root
 * covers x and y from -2^(L-1) to 2^(L-1) - 1, so its centre is at (0, 0).
 *
 * Reading: the lines go through the macrocell grammar (mcgrammar.c), which checks every
 * reference and hands over each node once, small ones (levels 1..3) as bitmaps.  Every
 * node gets an "empty" flag and (for levels <= 62) the bounding box of its live cells in
 * its own coordinates, computed as the nodes arrive because children precede parents;
 * the tables (this reader's 56 bytes and the grammar's 16 bytes a node) count against the
 * reading limit.  A root deeper than 62 levels is first shrunk while all its cells sit in
 * its central half (Golly often writes roots with empty borders).  The root's bounding box
 * is reserved in the pattern once (WL_ERR_TOO_BIG if it cannot be held: engines with their
 * own quadtree read such files natively) and the tree is walked, skipping empty subtrees,
 * painting each 8x8 (or smaller) bitmap straight into the pattern's rows.
 *
 * Writing: the pattern's bounding box is cut into 8x8 leaves aligned to the root's grid;
 * leaves, then each level of 2x2 groups, are hash-consed (one table keyed by level and
 * children), so identical subtrees are written once and repetitive patterns give small
 * files.  Nodes are numbered in creation order, which puts children before parents.  The
 * root is the smallest level >= 4 whose centred square holds the bounding box.
 */
#include "io_internal.h"
#include "mcgrammar.h"

#include <stdlib.h>

/* Bounding boxes in node coordinates need 2^level to fit comfortably in 63 bits. */
#define MC_MAX_LOCAL_LEVEL 62

/* ---- reader ------------------------------------------------------------------------ */

/* What the reader keeps per node (the grammar keeps the level and small bitmaps). */
typedef struct mc_node {
    uint32_t kid[4];         /* levels >= 4: nw, ne, sw, se node numbers (0 = empty) */
    int empty;
    uint64_t x0, y0, x1, y1; /* inclusive bounding box in node coordinates (if !empty) */
} mc_node;

typedef struct mc_reader {
    wl_rd *r;
    wl_mc_grammar g;
    mc_node *v; /* v[id]; v[0] is the empty node */
    size_t n, cap;
} mc_reader;

/* Both tables together, in bytes. */
static uint64_t table_bytes(const mc_reader *rd) {
    return (uint64_t)rd->cap * sizeof *rd->v + wl_mc_bytes(&rd->g);
}

/* The entry of node rd->n (numbers arrive in order, as the grammar gives them). */
static wl_status mc_push(mc_reader *rd, uint32_t id, mc_node **out) {
    if (rd->n == rd->cap) {
        size_t cap = rd->cap ? rd->cap * 2 : 1024;
        uint64_t bytes = table_bytes(rd) + (uint64_t)(cap - rd->cap) * sizeof *rd->v;
        if (bytes > rd->r->limit) return wl_rd_over_limit(rd->r, bytes, "the macrocell nodes");
        mc_node *nv = wl_realloc(rd->v, cap * sizeof *nv);
        if (!nv) return WL_ERR_NOMEM;
        rd->v = nv;
        rd->cap = cap;
    }
    if (rd->n == 0) { /* slot 0: the empty node */
        memset(&rd->v[0], 0, sizeof rd->v[0]);
        rd->v[0].empty = 1;
        rd->n = 1;
    }
    if (id != rd->n) return wl_error(WL_ERR_INVALID, "macrocell: node %u out of order", id);
    *out = &rd->v[rd->n++];
    memset(*out, 0, sizeof **out);
    return WL_OK;
}

static wl_status on_small(void *ctx, uint32_t id, int level, uint64_t bits) {
    (void)level;
    mc_node *nd = NULL;
    wl_status e = mc_push(ctx, id, &nd);
    if (e) return e;
    nd->empty = bits == 0;
    if (!bits) return WL_OK;
    uint64_t cols = 0;
    for (int r = 0; r < 8; r++) cols |= (bits >> (8 * r)) & 0xff;
    nd->y0 = (uint64_t)__builtin_ctzll(bits) / 8;
    nd->y1 = (uint64_t)(63 - __builtin_clzll(bits)) / 8;
    nd->x0 = (uint64_t)__builtin_ctzll(cols);
    nd->x1 = (uint64_t)(63 - __builtin_clzll(cols));
    return WL_OK;
}

static wl_status on_node(void *ctx, uint32_t id, int level, const uint32_t kid[4]) {
    mc_reader *rd = ctx;
    mc_node *nd = NULL;
    wl_status e = mc_push(rd, id, &nd);
    if (e) return e;
    memcpy(nd->kid, kid, sizeof nd->kid);
    nd->empty = 1;
    uint64_t half = (uint64_t)1 << (level - 1 <= MC_MAX_LOCAL_LEVEL ? level - 1 : 0);
    for (int k = 0; k < 4; k++) {
        const mc_node *ch = &rd->v[kid[k]];
        if (ch->empty) continue;
        if (level > MC_MAX_LOCAL_LEVEL) { /* too big for local boxes: flag only */
            nd->empty = 0;
            continue;
        }
        uint64_t dx = (k & 1) ? half : 0, dy = (k >> 1) ? half : 0;
        uint64_t x0 = ch->x0 + dx, y0 = ch->y0 + dy, x1 = ch->x1 + dx, y1 = ch->y1 + dy;
        if (nd->empty) {
            nd->x0 = x0, nd->y0 = y0, nd->x1 = x1, nd->y1 = y1;
            nd->empty = 0;
        } else {
            if (x0 < nd->x0) nd->x0 = x0;
            if (y0 < nd->y0) nd->y0 = y0;
            if (x1 > nd->x1) nd->x1 = x1;
            if (y1 > nd->y1) nd->y1 = y1;
        }
    }
    return WL_OK;
}

static wl_status on_rule(void *ctx, const char *text, size_t n, size_t line, size_t col) {
    (void)line; /* the source's current line */
    return wl_rd_rule(((mc_reader *)ctx)->r, text, n, col);
}

static wl_status on_comment(void *ctx, const char *text, size_t n) {
    return wl_rd_comment(((mc_reader *)ctx)->r, text, n);
}

/* ORs an 8x8 bitmap whose top-left cell is (x, y) into the pattern (storage reserved). */
static void paint_small(wl_pattern *p, int64_t x, int64_t y, uint64_t bits) {
    if (x < p->x0) {
        /* Only a root of level 1..3 (origin -1, -2 or -4) can start left of the storage,
         * whose left edge is a multiple of 64: set its few cells one by one. */
        for (; bits; bits &= bits - 1) {
            int b = __builtin_ctzll(bits);
            wl_pattern_set(p, x + b % 8, y + b / 8, 1);
        }
        return;
    }
    uint64_t dx = (uint64_t)(x - p->x0);
    size_t wi = (size_t)(dx / 64);
    unsigned sh = (unsigned)(dx % 64);
    for (int r = 0; r < 8 && bits >> (8 * r); r++) {
        uint64_t byte = (bits >> (8 * r)) & 0xff;
        if (!byte) continue;
        uint64_t *row = p->bits + (size_t)(y + r - p->y0) * p->stride;
        row[wi] |= byte << sh;
        /* Spilled bits are live cells, hence inside the reserved storage. */
        if (sh > 56 && (byte >> (64 - sh))) row[wi + 1] |= byte >> (64 - sh);
    }
}

/* Paints the quadrants kid[] of a level-`level` node whose top-left is (x, y). */
static void paint(mc_reader *rd, const uint32_t kid[4], int level, int64_t x, int64_t y) {
    int64_t half = (int64_t)1 << (level - 1);
    for (int k = 0; k < 4; k++) {
        uint32_t c = kid[k];
        if (rd->v[c].empty) continue;
        int64_t cx = x + ((k & 1) ? half : 0), cy = y + ((k >> 1) ? half : 0);
        if (wl_mc_level(&rd->g, c) <= 3)
            paint_small(rd->r->p, cx, cy, wl_mc_bits(&rd->g, c));
        else
            paint(rd, rd->v[c].kid, wl_mc_level(&rd->g, c), cx, cy);
    }
}

/* Reserves rect in the pattern, whose bitmap may take what the tables leave of the limit. */
static wl_status reserve(mc_reader *rd, const wl_rect *rect) {
    wl_pattern *p = rd->r->p;
    uint64_t saved = p->limit, tables = table_bytes(rd);
    p->limit = rd->r->limit > tables ? rd->r->limit - tables : 1;
    wl_status e = wl_pattern_reserve(p, rect);
    p->limit = saved;
    if (e) wl_error_prefix("%s", rd->r->src->name);
    return e;
}

/* Builds the pattern from the root (the last node). */
static wl_status place(mc_reader *rd) {
    uint32_t root_id = wl_mc_count(&rd->g);
    if (!root_id) return WL_OK; /* no nodes: an empty pattern */
    const mc_node *root = &rd->v[root_id];
    int level = wl_mc_level(&rd->g, root_id);
    if (root->empty) return WL_OK;
    if (level <= 3) {
        int64_t h = (int64_t)1 << (level - 1);
        wl_rect r = {-h + (int64_t)root->x0, -h + (int64_t)root->y0, root->x1 - root->x0 + 1,
                     root->y1 - root->y0 + 1};
        wl_status e = reserve(rd, &r);
        if (e) return e;
        paint_small(rd->r->p, -h, -h, wl_mc_bits(&rd->g, root_id));
        return WL_OK;
    }
    /* A virtual root: level and quadrants, shrunk towards the centre while too deep. */
    uint32_t kid[4];
    memcpy(kid, root->kid, sizeof kid);
    while (level > MC_MAX_LOCAL_LEVEL) {
        uint32_t inner[4] = {0, 0, 0, 0};
        for (int k = 0; k < 4; k++) {
            const mc_node *ch = &rd->v[kid[k]];
            if (ch->empty) continue;
            for (int g = 0; g < 4; g++) {
                uint32_t gc = ch->kid[g];
                if (g == 3 - k) inner[k] = gc; /* the grandchild touching the centre */
                else if (!rd->v[gc].empty)
                    return wl_error(WL_ERR_TOO_BIG,
                                    "%s: macrocell pattern spans more than 2^%d cells, too "
                                    "big to hold as a rectangle", rd->r->src->name,
                                    MC_MAX_LOCAL_LEVEL);
            }
        }
        memcpy(kid, inner, sizeof kid);
        level--;
    }
    /* Bounding box of the (possibly virtual) root, in its own coordinates. */
    uint64_t half = (uint64_t)1 << (level - 1);
    int any = 0;
    uint64_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    for (int k = 0; k < 4; k++) {
        const mc_node *ch = &rd->v[kid[k]];
        if (ch->empty) continue;
        uint64_t dx = (k & 1) ? half : 0, dy = (k >> 1) ? half : 0;
        uint64_t a = ch->x0 + dx, b = ch->y0 + dy, c = ch->x1 + dx, d = ch->y1 + dy;
        if (!any || a < x0) x0 = a;
        if (!any || b < y0) y0 = b;
        if (!any || c > x1) x1 = c;
        if (!any || d > y1) y1 = d;
        any = 1;
    }
    if (!any) return WL_OK;
    int64_t org = -(int64_t)half;
    wl_rect r = {org + (int64_t)x0, org + (int64_t)y0, x1 - x0 + 1, y1 - y0 + 1};
    wl_status e = reserve(rd, &r);
    if (e) return e;
    paint(rd, kid, level, org, org);
    return WL_OK;
}

wl_status wl_macrocell_read_src(wl_rd *r) {
    mc_reader rd = {r, {0}, NULL, 0, 0};
    wl_mc_sink sink = {&rd, on_small, on_node, on_rule, on_comment};
    wl_mc_init(&rd.g, r->src->name, &sink, r->limit);
    wl_status e = wl_mc_read(&rd.g, r->src);
    if (!e) e = place(&rd);
    wl_mc_free(&rd.g);
    free(rd.v);
    return e;
}

/* ---- writer ------------------------------------------------------------------------ */

/* Hash-consing table: (level, a, b, c, d) -> node number.  Leaves use a, b for the 64
 * cells and c = d = 0. */
typedef struct mc_key {
    uint32_t level, a, b, c, d;
} mc_key;

typedef struct mc_hash {
    mc_key *keys;
    uint32_t *ids; /* 0 = free slot */
    size_t mask, used;
} mc_hash;

static uint64_t key_hash(const mc_key *k) {
    uint64_t h = (uint64_t)k->level * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)k->a << 32 | k->b) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ (h >> 31)) * 0x94D049BB133111EBull;
    h ^= ((uint64_t)k->c << 32 | k->d) * 0xD6E8FEB86659FD93ull;
    return h ^ (h >> 29);
}

static wl_status hash_grow(mc_hash *t) {
    size_t ncap = t->mask ? (t->mask + 1) * 2 : 4096;
    mc_key *nk = wl_malloc(ncap * sizeof *nk);
    uint32_t *ni = wl_calloc(ncap, sizeof *ni);
    if (!nk || !ni) {
        free(nk);
        free(ni);
        return WL_ERR_NOMEM;
    }
    for (size_t i = 0; t->mask && i <= t->mask; i++) {
        if (!t->ids[i]) continue;
        size_t j = (size_t)key_hash(&t->keys[i]) & (ncap - 1);
        while (ni[j]) j = (j + 1) & (ncap - 1);
        nk[j] = t->keys[i];
        ni[j] = t->ids[i];
    }
    free(t->keys);
    free(t->ids);
    t->keys = nk;
    t->ids = ni;
    t->mask = ncap - 1;
    return WL_OK;
}

typedef struct mc_writer {
    mc_hash h;
    mc_key *nodes; /* nodes[id - 1] */
    size_t n, cap;
    wl_status err; /* why intern() returned 0 */
} mc_writer;

/* Returns the node number for key k, adding it if new; 0 on out of memory. */
static uint32_t intern(mc_writer *w, const mc_key *k) {
    w->err = WL_ERR_NOMEM;
    if ((w->h.used + 1) * 2 > w->h.mask + 1 && hash_grow(&w->h)) return 0;
    size_t j = (size_t)key_hash(k) & w->h.mask;
    while (w->h.ids[j]) {
        if (memcmp(&w->h.keys[j], k, sizeof *k) == 0) return w->h.ids[j];
        j = (j + 1) & w->h.mask;
    }
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 4096;
        mc_key *nn = wl_realloc(w->nodes, cap * sizeof *nn);
        if (!nn) return 0;
        w->nodes = nn;
        w->cap = cap;
    }
    if (w->n >= UINT32_MAX - 1) {
        w->err = wl_error(WL_ERR_TOO_BIG, "too many distinct macrocell nodes");
        return 0;
    }
    w->nodes[w->n++] = *k;
    w->h.keys[j] = *k;
    w->h.ids[j] = (uint32_t)w->n;
    w->h.used++;
    return (uint32_t)w->n;
}

static void write_leaf(wl_iobuf *out, uint64_t bits) {
    int last_row = (63 - __builtin_clzll(bits)) / 8;
    for (int r = 0; r <= last_row; r++) {
        unsigned byte = (unsigned)(bits >> (8 * r)) & 0xff;
        for (int c = 0; byte >> c; c++) wl_iobuf_putc(out, (byte >> c & 1) ? '*' : '.');
        wl_iobuf_putc(out, '$');
    }
    wl_iobuf_putc(out, '\n');
}

wl_status wl_macrocell_write(const wl_pattern *p, wl_iobuf *out) {
    char rule[WL_RULE_TEXT_MAX];
    wl_status e = wl_rule_format(wl_pattern_rule(p), rule, sizeof rule);
    if (e) return e;
    wl_iobuf_puts(out, "[M2] (warplife " WL_VERSION_STRING ")\n#R ");
    wl_iobuf_puts(out, rule);
    wl_iobuf_putc(out, '\n');
    wl_io_write_comments(p, "#C ", out);
    wl_rect r;
    if (!wl_pattern_bounds(p, &r)) return WL_OK;
    /* Root level: the smallest L >= 4 with [-2^(L-1), 2^(L-1)) covering the box. */
    int L = 4;
    for (;; L++) {
        int64_t h = (int64_t)1 << (L - 1);
        if (r.x >= -h && r.y >= -h && r.x + (int64_t)r.w <= h && r.y + (int64_t)r.h <= h) break;
        if (L >= MC_MAX_LOCAL_LEVEL)
            return wl_error(WL_ERR_TOO_BIG,
                            "macrocell: the pattern reaches beyond 2^61 cells from the origin");
    }
    uint64_t half = (uint64_t)1 << (L - 1);
    /* Leaf grid: leaf (i, j) covers x from 8i - half; indices [lx0, lx1] x [ly0, ly1]. */
    uint64_t lx0 = ((uint64_t)r.x + half) >> 3, lx1 = ((uint64_t)r.x + r.w - 1 + half) >> 3;
    uint64_t ly0 = ((uint64_t)r.y + half) >> 3, ly1 = ((uint64_t)r.y + r.h - 1 + half) >> 3;
    size_t gw = (size_t)(lx1 - lx0 + 1), gh = (size_t)(ly1 - ly0 + 1);
    mc_writer w = {{NULL, NULL, 0, 0}, NULL, 0, 0, WL_OK};
    uint32_t *grid = wl_malloc(gw * gh * sizeof *grid);
    size_t rw = (gw * 8 + 63) / 64;
    uint64_t *rows = wl_malloc(8 * rw * sizeof *rows);
    if (!grid || !rows) {
        e = WL_ERR_NOMEM;
        goto done;
    }
    int64_t gx = (int64_t)(lx0 * 8 - half); /* pattern x of the grid's first column */
    for (size_t j = 0; j < gh; j++) {
        int64_t gy = (int64_t)((ly0 + j) * 8 - half);
        for (int k = 0; k < 8; k++) wl_pattern_get_row(p, gx, gy + k, gw * 8, rows + k * rw);
        for (size_t i = 0; i < gw; i++) {
            uint64_t bits = 0;
            for (int k = 0; k < 8; k++)
                bits |= ((rows[k * rw + i / 8] >> (8 * (i % 8))) & 0xff) << (8 * k);
            uint32_t id = 0;
            if (bits) {
                mc_key key = {3, (uint32_t)bits, (uint32_t)(bits >> 32), 0, 0};
                id = intern(&w, &key);
                if (!id) {
                    e = w.err;
                    goto done;
                }
            }
            grid[j * gw + i] = id;
        }
    }
    /* Combine 2x2 groups level by level up to the root. */
    uint64_t x0 = lx0, y0 = ly0;
    for (int level = 4; level <= L; level++) {
        uint64_t nx0 = x0 >> 1, ny0 = y0 >> 1;
        size_t nw = (size_t)(((x0 + gw - 1) >> 1) - nx0 + 1);
        size_t nh = (size_t)(((y0 + gh - 1) >> 1) - ny0 + 1);
        uint32_t *next = wl_malloc(nw * nh * sizeof *next);
        if (!next) {
            e = WL_ERR_NOMEM;
            goto done;
        }
        for (size_t j = 0; j < nh; j++) {
            for (size_t i = 0; i < nw; i++) {
                uint32_t q[4];
                for (int k = 0; k < 4; k++) {
                    uint64_t cx = ((nx0 + i) << 1) + (uint64_t)(k & 1);
                    uint64_t cy = ((ny0 + j) << 1) + (uint64_t)(k >> 1);
                    q[k] = (cx >= x0 && cx < x0 + gw && cy >= y0 && cy < y0 + gh)
                               ? grid[(size_t)(cy - y0) * gw + (size_t)(cx - x0)]
                               : 0;
                }
                uint32_t id = 0;
                if (q[0] | q[1] | q[2] | q[3]) {
                    mc_key key = {(uint32_t)level, q[0], q[1], q[2], q[3]};
                    id = intern(&w, &key);
                    if (!id) {
                        e = w.err;
                        free(next);
                        goto done;
                    }
                }
                next[j * nw + i] = id;
            }
        }
        free(grid);
        grid = next;
        x0 = nx0;
        y0 = ny0;
        gw = nw;
        gh = nh;
    }
    for (size_t i = 0; i < w.n && !out->failed; i++) {
        const mc_key *k = &w.nodes[i];
        if (k->level == 3) {
            write_leaf(out, (uint64_t)k->a | (uint64_t)k->b << 32);
        } else {
            wl_iobuf_put_u64(out, k->level);
            wl_iobuf_putc(out, ' ');
            wl_iobuf_put_u64(out, k->a);
            wl_iobuf_putc(out, ' ');
            wl_iobuf_put_u64(out, k->b);
            wl_iobuf_putc(out, ' ');
            wl_iobuf_put_u64(out, k->c);
            wl_iobuf_putc(out, ' ');
            wl_iobuf_put_u64(out, k->d);
            wl_iobuf_putc(out, '\n');
        }
    }
done:
    free(grid);
    free(rows);
    free(w.h.keys);
    free(w.h.ids);
    free(w.nodes);
    return e;
}
