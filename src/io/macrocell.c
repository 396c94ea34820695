/*
 * macrocell.c - Golly's macrocell format (.mc), a quadtree with shared subtrees, for
 * two-state rules.
 *
 * Rules of more than two states have leaves of four cell states instead (mc_states.c):
 * once the #R line names such a rule, the node lines go there.
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
 * node gets an "empty" flag, its population and its count of 64x64 squares with cells
 * (saturating), computed as the nodes arrive because children precede parents; the tables
 * (this reader's 40 bytes and the grammar's 16 bytes a node) count against the reading
 * limit.  A root deeper than 62 levels is first
 * shrunk while all its cells sit in its central half (Golly often writes roots with empty
 * borders).  A tree whose cells and squares need more than the limit (a bit a cell, a
 * table slot a square) is refused before painting (WL_ERR_TOO_BIG: engines with their own quadtree read such files
 * natively); otherwise the tree is walked, skipping empty subtrees, painting each 8x8 (or
 * smaller) bitmap into the pattern's tiles, which cost what the cells cost, however far
 * apart they are.
 *
 * Writing: the tree is built bottom up from the pattern's 64x64 tiles taken in quadtree
 * order (each tile cut into 8x8 leaves), so the time follows the tiles, not the bounding
 * box; every node is hash-consed (one table keyed by level and children), so identical
 * subtrees are written once and repetitive patterns give small files.  Nodes are numbered
 * in creation order (depth first), which puts children before parents.  The root is the
 * smallest level >= 4 whose centred square holds the bounding box.
 */
#include "io_internal.h"
#include "mcgrammar.h"

#include <stdlib.h>

/* A pattern's cells lie within +-2^62: a root deeper than this is shrunk towards its
 * centre first (its cells farther out cannot be placed). */
#define MC_MAX_LOCAL_LEVEL 62

/* ---- reader ------------------------------------------------------------------------ */

/* What a node callback returns to stop the grammar at the first node (header_only). */
#define MC_HEADER_DONE WL_ERR_INTERRUPTED

/* What the reader keeps per node (the grammar keeps the level and small bitmaps). */
typedef struct mc_node {
    uint32_t kid[4];         /* levels >= 4: nw, ne, sw, se node numbers (0 = empty) */
    int empty;
    uint64_t pop;            /* live cells, saturating at UINT64_MAX */
    uint64_t tiles;          /* levels >= 6: its 64x64 squares with cells, saturating */
} mc_node;

static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

typedef struct mc_reader {
    wl_rd *r;
    wl_mc_grammar g;
    mc_node *v; /* v[id]; v[0] is the empty node */
    size_t n, cap;
    wl_mcs *ms; /* the node lines of a rule of more than two states (mc_states.c) */
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
    if (((mc_reader *)ctx)->r->header_only) return MC_HEADER_DONE;
    mc_node *nd = NULL;
    wl_status e = mc_push(ctx, id, &nd);
    if (e) return e;
    nd->empty = bits == 0;
    nd->pop = (uint64_t)__builtin_popcountll(bits);
    return WL_OK;
}

static wl_status on_node(void *ctx, uint32_t id, int level, const uint32_t kid[4]) {
    (void)level;
    mc_reader *rd = ctx;
    if (rd->r->header_only) return MC_HEADER_DONE;
    mc_node *nd = NULL;
    wl_status e = mc_push(rd, id, &nd);
    if (e) return e;
    memcpy(nd->kid, kid, sizeof nd->kid);
    nd->empty = 1;
    for (int k = 0; k < 4; k++) {
        const mc_node *ch = &rd->v[kid[k]];
        nd->empty &= ch->empty;
        nd->pop = sat_add(nd->pop, ch->pop);
        if (level > 6) nd->tiles = sat_add(nd->tiles, ch->tiles);
    }
    if (level == 6) nd->tiles = !nd->empty;
    return WL_OK;
}

static wl_status on_rule(void *ctx, const char *text, size_t n, size_t line, size_t col) {
    (void)line; /* the source's current line */
    mc_reader *rd = ctx;
    unsigned before = wl_rule_states(wl_pattern_rule(rd->r->p));
    wl_status e = wl_rd_rule(rd->r, text, n, col);
    unsigned states = wl_rule_states(wl_pattern_rule(rd->r->p));
    /* the node lines of a multi-state rule hold states below its count: once some are
     * read, a later #R line may not change that count; before any, it starts afresh */
    if (!e && rd->ms && states != before) {
        if (wl_mcs_count(rd->ms))
            return wl_rd_error(rd->r, WL_ERR_PARSE, col,
                               "a second #R line names a rule of %u states after node lines "
                               "of a rule of %u", states, before);
        wl_mcs_free(rd->ms);
        rd->ms = NULL;
    }
    if (!e && states > 2 && !rd->ms && wl_mc_count(&rd->g) == 0) {
        rd->ms = wl_mcs_new(rd->r->src->name, rd->r->limit, states);
        if (!rd->ms) e = WL_ERR_NOMEM;
    }
    return e;
}

static wl_status on_comment(void *ctx, const char *text, size_t n) {
    return wl_rd_comment(((mc_reader *)ctx)->r, text, n);
}

/* ORs an 8x8 bitmap whose top-left cell is (x, y) into the pattern. */
static wl_status paint_small(wl_pattern *p, int64_t x, int64_t y, uint64_t bits) {
    wl_status e = WL_OK;
    for (int r = 0; r < 8 && !e && bits >> (8 * r); r++)
        e = wl_pattern_or(p, x, y + r, (bits >> (8 * r)) & 0xff);
    return e;
}

/* ORs the cells of the quadrants kid[] of a node of level <= 6 into a 64x64 block of rows,
 * its top-left at (cx, cy) of the block. */
static void paint_rows(const mc_reader *rd, const uint32_t kid[4], int level, int cx, int cy,
                       uint64_t *rows) {
    int half = 1 << (level - 1);
    for (int k = 0; k < 4; k++) {
        uint32_t c = kid[k];
        if (rd->v[c].empty) continue;
        int qx = cx + (k & 1) * half, qy = cy + (k >> 1) * half;
        if (wl_mc_level(&rd->g, c) <= 3) {
            uint64_t bits = wl_mc_bits(&rd->g, c);
            for (int r = 0; r < 8; r++) rows[qy + r] |= ((bits >> (8 * r)) & 0xff) << qx;
        } else {
            paint_rows(rd, rd->v[c].kid, wl_mc_level(&rd->g, c), qx, qy, rows);
        }
    }
}

/* Paints the quadrants kid[] of a level-`level` node whose top-left is (x, y): a node of
 * a whole tile is painted into a block first, then stored row by row in order. */
static wl_status paint(mc_reader *rd, const uint32_t kid[4], int level, int64_t x, int64_t y) {
    wl_status e = WL_OK;
    if (level == 6 && !wl_mod(x, 64) && !wl_mod(y, 64)) {
        uint64_t rows[64] = {0};
        paint_rows(rd, kid, level, 0, 0, rows);
        for (int r = 0; r < 64 && !e; r++) e = wl_pattern_or(rd->r->p, x, y + r, rows[r]);
        return e;
    }
    int64_t half = (int64_t)1 << (level - 1);
    for (int k = 0; k < 4 && !e; k++) {
        uint32_t c = kid[k];
        if (rd->v[c].empty) continue;
        int64_t cx = x + ((k & 1) ? half : 0), cy = y + ((k >> 1) ? half : 0);
        if (wl_mc_level(&rd->g, c) <= 3)
            e = paint_small(rd->r->p, cx, cy, wl_mc_bits(&rd->g, c));
        else
            e = paint(rd, rd->v[c].kid, wl_mc_level(&rd->g, c), cx, cy);
    }
    return e;
}

/* Paints the root's cells; the pattern's storage may take what the tables leave of the
 * limit. */
static wl_status paint_root(mc_reader *rd, const uint32_t *kid, int level, int64_t org,
                            uint64_t bits) {
    wl_pattern *p = rd->r->p;
    uint64_t saved = p->limit, tables = table_bytes(rd);
    p->limit = rd->r->limit > tables ? rd->r->limit - tables : 1;
    wl_status e = kid ? paint(rd, kid, level, org, org) : paint_small(p, org, org, bits);
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
    if (level <= 3)
        return paint_root(rd, NULL, level, -((int64_t)1 << (level - 1)), wl_mc_bits(&rd->g, root_id));
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
                                    "%s: macrocell pattern reaches more than 2^%d cells "
                                    "from its centre, beyond the coordinates a pattern "
                                    "holds", rd->r->src->name,
                                    MC_MAX_LOCAL_LEVEL - 1);
            }
        }
        memcpy(kid, inner, sizeof kid);
        level--;
    }
    uint64_t pop = 0, tiles = 0;
    for (int k = 0; k < 4; k++) {
        pop = sat_add(pop, rd->v[kid[k]].pop);
        tiles = sat_add(tiles, rd->v[kid[k]].tiles);
    }
    if (!pop) return WL_OK;
    /* What the pattern will take at least: a slot per 64x64 square with cells (at most
     * 7/10 of the slots used) and a bit per cell.  A tree that needs more than the room
     * left is refused before painting any: a few lines can describe 2^40 cells. */
    uint64_t need = sat_add(pop / 8, tiles > UINT64_MAX / 64 ? UINT64_MAX
                                                            : tiles * sizeof(wl_ptile) * 10 / 7);
    uint64_t tables = table_bytes(rd), room = rd->r->limit > tables ? rd->r->limit - tables : 0;
    if (need > room)
        return wl_rd_over_limit(rd->r, sat_add(need, tables), "the macrocell pattern's cells");
    return paint_root(rd, kid, level, -(int64_t)((uint64_t)1 << (level - 1)), 0);
}

/* Feeds the source's lines to the grammar, or once a multi-state rule was named, its node
 * lines to the multi-state reader. */
static wl_status read_lines(mc_reader *rd) {
    wl_src *s = rd->r->src;
    char what[32];
    for (;;) {
        const char *c;
        size_t n;
        wl_status e = wl_src_peek_line(s, WL_IO_LINE_MAX, &c, &n);
        if (e) return e;
        if (!c) return WL_OK;
        if (rd->ms && n && ((c[0] >= '0' && c[0] <= '9') || c[0] == '.' || c[0] == '*' ||
                            c[0] == '$')) {
            if (rd->r->header_only) return MC_HEADER_DONE;
            if (c[0] < '0' || c[0] > '9')
                return wl_io_error_at(WL_ERR_PARSE, s->name, s->line, 1,
                                      "expected a node line of numbers (the rule has more "
                                      "than two states) but found %s",
                                      wl_io_describe(c, n, 0, what));
            e = wl_mcs_line(rd->ms, c, n, s->line);
        } else {
            e = wl_mc_line(&rd->g, c, n, s->line);
        }
        if (e) return e;
        wl_src_next_line(s);
    }
}

wl_status wl_macrocell_read_src(wl_rd *r) {
    mc_reader rd = {r, {0}, NULL, 0, 0, NULL};
    wl_mc_sink sink = {&rd, on_small, on_node, on_rule, on_comment};
    wl_mc_init(&rd.g, r->src->name, &sink, r->limit);
    wl_status e = read_lines(&rd);
    if (e == MC_HEADER_DONE && r->header_only) e = WL_OK; /* the first node: done */
    else if (!e && rd.ms) e = wl_mcs_place(rd.ms, r->p);
    else if (!e) e = place(&rd);
    wl_mc_free(&rd.g);
    wl_mcs_free(rd.ms);
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

/* The node of level k >= 4 with quadrants q[] (numbers, 0 empty, -1 failed): its number,
 * 0 when empty, -1 on failure (w->err says why). */
static int64_t make_node(mc_writer *w, int k, const int64_t q[4]) {
    if (q[0] < 0 || q[1] < 0 || q[2] < 0 || q[3] < 0) return -1;
    if (!(q[0] | q[1] | q[2] | q[3])) return 0;
    mc_key key = {(uint32_t)k, (uint32_t)q[0], (uint32_t)q[1], (uint32_t)q[2], (uint32_t)q[3]};
    uint32_t id = intern(w, &key);
    return id ? (int64_t)id : -1;
}

/* The node of level k (3..6) whose top-left cell is (cx, cy) of a 64x64 block: its
 * number, 0 when empty, -1 on failure (w->err says why). */
static int64_t node_rows(mc_writer *w, const uint64_t *rows, int cx, int cy, int k) {
    if (k >= 5 && !wl_rows_any(rows, cx, cy, k)) return 0; /* sparse tiles */
    if (k > 3) {
        int half = 1 << (k - 1);
        int64_t q[4];
        for (int i = 0; i < 4; i++)
            q[i] = node_rows(w, rows, cx + (i & 1) * half, cy + (i >> 1) * half, k - 1);
        return make_node(w, k, q);
    }
    uint64_t bits = wl_rows_leaf(rows, cx / 8, cy / 8);
    if (!bits) return 0;
    mc_key key = {3, (uint32_t)bits, (uint32_t)(bits >> 32), 0, 0};
    uint32_t id = intern(w, &key);
    return id ? (int64_t)id : -1;
}

/* The node of level k >= 6 made of tiles v[lo, hi) (quadtree order) whose top-left tile
 * is (bx, by) relative to the root's. */
static int64_t node_tiles(mc_writer *w, const wl_tile_ref *v, size_t lo, size_t hi,
                          uint64_t bx, uint64_t by, int k) {
    if (lo == hi) return 0;
    if (k == 6) {
        uint64_t rows[64];
        wl_ptile_rows(v[lo].t, rows);
        return node_rows(w, rows, 0, 0, 6);
    }
    uint64_t half = (uint64_t)1 << (k - 7);
    size_t cut[5];
    wl_tiles_split(v, lo, hi, bx + half, by + half, cut);
    int64_t q[4];
    for (int i = 0; i < 4; i++) {
        q[i] = node_tiles(w, v, cut[i], cut[i + 1], bx + (uint64_t)(i & 1) * half,
                          by + (uint64_t)(i >> 1) * half, k - 1);
        if (q[i] < 0) return -1;
    }
    return make_node(w, k, q);
}

wl_status wl_macrocell_write(const wl_pattern *p, wl_iobuf *out) {
    char rule[WL_RULE_TEXT_MAX];
    wl_status e = wl_rule_format(wl_pattern_rule(p), rule, sizeof rule);
    if (e) return e;
    wl_iobuf_puts(out, "[M2] (warplife " WL_VERSION_STRING ")\n#R ");
    wl_iobuf_puts(out, rule);
    wl_io_put_grid_suffix(out, p);
    wl_iobuf_putc(out, '\n');
    wl_io_write_comments(p, "#C ", out);
    if (wl_rule_states(wl_pattern_rule(p)) > 2) return wl_mcs_write(p, out);
    unsigned top = wl_pattern_max_state(p);
    if (top > 1)
        return wl_error(WL_ERR_INVALID, "macrocell: the pattern has cells of state %u but its "
                        "rule %s has two states", top, rule);
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
    mc_writer w = {{NULL, NULL, 0, 0}, NULL, 0, 0, WL_OK};
    wl_tile_ref *v = NULL;
    size_t n = 0;
    int64_t root;
    if (L <= 6) { /* inside [-32, 32)^2: one block of 64 rows */
        uint64_t rows[64];
        for (int k = 0; k < 64; k++) wl_pattern_get_row(p, -32, k - 32, 64, &rows[k]);
        int at = 32 - (1 << (L - 1));
        root = node_rows(&w, rows, at, at, L);
    } else {
        int64_t org = -((int64_t)1 << (L - 7)); /* the root's top-left tile */
        e = wl_pattern_tiles(p, WL_TILES_Z, org, org, &v, &n);
        if (e) goto done;
        root = node_tiles(&w, v, 0, n, 0, 0, L);
    }
    if (root < 0) {
        e = w.err;
        goto done;
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
    free(v);
    free(w.h.keys);
    free(w.h.ids);
    free(w.nodes);
    return e;
}
