/*
 * mc_states.c - Golly's macrocell format for rules of more than two states (Generations,
 * Larger than Life, History, Super), as Golly's multi-state HashLife writes it.
 *
 * The node lines: "1 nw ne sw se" is a 2x2 leaf whose four numbers are cell states
 * (0 .. 255), and "L a b c d" (L >= 2) a 2^L square of four node numbers of level L - 1 (0:
 * empty), each an earlier line; the last line is the root.  The '[' line, '#' lines (#R
 * rule, #G, comments) and blank lines are as in the two-state format (macrocell.c, which
 * hands the node lines here once the #R line has named a rule of more than two states).
 *
 * Placement, as Golly's multi-state HashLife places a root of level L: x from -2^(L-1) to
 * 2^(L-1) - 1 and y from -2^(L-1) + 1 to 2^(L-1), one row lower than its two-state HashLife
 * (the top-left cell of the root's south-east quadrant is (0, 1)).
 *
 * Reading keeps 24 bytes a node (counted against the reading limit) and paints the tree
 * from the root down, skipping empty quadrants.  Writing sorts the live cells into
 * quadrants recursively (no pass over the bounding box) and hash-conses the nodes, so that
 * repeated parts are written once; children come before parents.
 */
#include "io_internal.h"

#include <stdlib.h>

typedef struct mcs_node {
    int32_t level;
    uint32_t kid[4]; /* level 1: the four states; above: node numbers */
} mcs_node;

struct wl_mcs {
    const char *name;
    uint64_t limit;
    mcs_node *v; /* v[id], v[0] the empty node */
    size_t n, cap;
    unsigned states; /* of the rule: states must stay below */
};

wl_mcs *wl_mcs_new(const char *name, uint64_t limit, unsigned states) {
    wl_mcs *m = wl_calloc(1, sizeof *m);
    if (!m) return NULL;
    m->name = name;
    m->limit = limit;
    m->states = states;
    return m;
}

size_t wl_mcs_count(const wl_mcs *m) { return m->n > 1 ? m->n - 1 : 0; }

void wl_mcs_free(wl_mcs *m) {
    if (!m) return;
    free(m->v);
    free(m);
}

/* Reads up to 6 unsigned numbers separated by blanks; returns how many. */
static int numbers(const char *c, size_t n, uint64_t v[6], size_t col[6]) {
    size_t i = 0;
    int k = 0;
    while (i < n && k < 6) {
        while (i < n && (c[i] == ' ' || c[i] == '\t')) i++;
        if (i == n) break;
        if (c[i] < '0' || c[i] > '9') return -1 - (int)i;
        col[k] = i + 1;
        uint64_t x = 0;
        while (i < n && c[i] >= '0' && c[i] <= '9') {
            x = x * 10 + (uint64_t)(c[i++] - '0');
            if (x > UINT32_MAX) x = UINT32_MAX;
        }
        v[k++] = x;
    }
    while (i < n && (c[i] == ' ' || c[i] == '\t')) i++;
    return i < n ? -1 - (int)i : k;
}

wl_status wl_mcs_line(wl_mcs *m, const char *c, size_t n, size_t line) {
    char what[32];
    uint64_t v[6];
    size_t col[6];
    int k = numbers(c, n, v, col);
    if (k < 0)
        return wl_io_error_at(WL_ERR_PARSE, m->name, line, (size_t)(-k),
                              "expected a node line 'level nw ne sw se' of numbers but found %s",
                              wl_io_describe(c, n, (size_t)(-k - 1), what));
    if (k < 5)
        return wl_io_error_at(WL_ERR_PARSE, m->name, line, n + 1,
                              "expected a node line 'level nw ne sw se' (5 numbers)");
    if (v[0] < 1 || v[0] > 62)
        return wl_io_error_at(WL_ERR_PARSE, m->name, line, col[0],
                              "node level %llu out of range (1 .. 62)", (unsigned long long)v[0]);
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 1024;
        if ((uint64_t)cap * sizeof *m->v > m->limit) {
            char need[32], lim[32];
            return wl_error(WL_ERR_TOO_BIG, "%s:%zu: the macrocell nodes would take %s, more "
                            "than the reading limit of %s", m->name, line,
                            wl_bytes_text((uint64_t)cap * sizeof *m->v, need),
                            wl_bytes_text(m->limit, lim));
        }
        mcs_node *nv = wl_realloc(m->v, cap * sizeof *nv);
        if (!nv) return WL_ERR_NOMEM;
        m->v = nv;
        m->cap = cap;
        if (!m->n) { /* v[0]: the empty node */
            memset(&m->v[0], 0, sizeof m->v[0]);
            m->n = 1;
        }
    }
    mcs_node *nd = &m->v[m->n];
    nd->level = (int32_t)v[0];
    for (int q = 0; q < 4; q++) {
        if (nd->level == 1) {
            if (v[q + 1] >= m->states)
                return wl_io_error_at(WL_ERR_PARSE, m->name, line, col[q + 1],
                                      "cell state %llu is out of range for the rule (%u states)",
                                      (unsigned long long)v[q + 1], m->states);
        } else if (v[q + 1] >= m->n || (v[q + 1] && m->v[v[q + 1]].level != nd->level - 1)) {
            return wl_io_error_at(WL_ERR_PARSE, m->name, line, col[q + 1],
                                  "node %llu is not an earlier node of level %d",
                                  (unsigned long long)v[q + 1], nd->level - 1);
        }
        nd->kid[q] = (uint32_t)v[q + 1];
    }
    m->n++;
    return WL_OK;
}

/* Paints node id of level L whose top-left cell is (x, y). */
static wl_status paint(const wl_mcs *m, wl_pattern *p, uint32_t id, int64_t x, int64_t y) {
    const mcs_node *nd = &m->v[id];
    if (nd->level == 1) {
        for (int q = 0; q < 4; q++) {
            if (!nd->kid[q]) continue;
            wl_status e = wl_pattern_set_state(p, x + (q & 1), y + (q >> 1), nd->kid[q]);
            if (e) return e;
        }
        return WL_OK;
    }
    int64_t h = (int64_t)1 << (nd->level - 1);
    for (int q = 0; q < 4; q++) {
        if (!nd->kid[q]) continue;
        wl_status e = paint(m, p, nd->kid[q], x + (q & 1) * h, y + (q >> 1) * h);
        if (e) return e;
    }
    return WL_OK;
}

wl_status wl_mcs_place(const wl_mcs *m, wl_pattern *p) {
    if (m->n <= 1) return WL_OK; /* no node: an empty pattern */
    uint32_t root = (uint32_t)(m->n - 1);
    int64_t h = (int64_t)1 << (m->v[root].level - 1);
    return paint(m, p, root, -h, -h + 1);
}

/* ---- writer ------------------------------------------------------------------------- */

typedef struct mcs_cell {
    int64_t x, y;
    uint8_t state;
} mcs_cell;

typedef struct mcs_writer {
    mcs_node *nodes; /* nodes[id - 1] in creation order */
    size_t n, cap;
    uint32_t *slot;  /* hash table of node ids */
    size_t mask;
    wl_status err;
} mcs_writer;

static uint64_t node_hash(const mcs_node *k) {
    uint64_t h = (uint64_t)k->level * 0x9E3779B97F4A7C15ull;
    for (int q = 0; q < 4; q++) h = (h ^ k->kid[q]) * 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 29);
}

/* The number of node k, made if new; 0 and w->err on failure. */
static uint32_t intern(mcs_writer *w, const mcs_node *k) {
    if (k->level > 1 && !k->kid[0] && !k->kid[1] && !k->kid[2] && !k->kid[3]) return 0;
    if ((w->n + 1) * 2 > w->mask + 1) { /* grow the table to keep it half empty */
        size_t cap = w->mask ? (w->mask + 1) * 2 : 1024;
        uint32_t *ns = wl_calloc(cap, sizeof *ns);
        if (!ns) {
            w->err = WL_ERR_NOMEM;
            return 0;
        }
        for (size_t i = 0; i < w->n; i++) {
            size_t j = node_hash(&w->nodes[i]) & (cap - 1);
            while (ns[j]) j = (j + 1) & (cap - 1);
            ns[j] = (uint32_t)(i + 1);
        }
        free(w->slot);
        w->slot = ns;
        w->mask = cap - 1;
    }
    size_t j = node_hash(k) & w->mask;
    for (; w->slot[j]; j = (j + 1) & w->mask)
        if (!memcmp(&w->nodes[w->slot[j] - 1], k, sizeof *k)) return w->slot[j];
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 1024;
        mcs_node *nn = wl_realloc(w->nodes, cap * sizeof *nn);
        if (!nn) {
            w->err = WL_ERR_NOMEM;
            return 0;
        }
        w->nodes = nn;
        w->cap = cap;
    }
    w->nodes[w->n++] = *k;
    w->slot[j] = (uint32_t)w->n;
    return (uint32_t)w->n;
}

/* Splits c[lo, hi) in place: cells with (key(cell) true) first; returns the cut. */
static size_t split(mcs_cell *c, size_t lo, size_t hi, int by_y, int64_t at) {
    size_t i = lo, j = hi;
    while (i < j) {
        int64_t v = by_y ? c[i].y : c[i].x;
        if (v < at) {
            i++;
        } else {
            mcs_cell t = c[i];
            c[i] = c[--j];
            c[j] = t;
        }
    }
    return i;
}

/* The node of level L whose top-left cell is (x, y), from the cells c[lo, hi) inside it. */
static uint32_t build(mcs_writer *w, mcs_cell *c, size_t lo, size_t hi, int L, int64_t x,
                      int64_t y) {
    mcs_node k;
    memset(&k, 0, sizeof k);
    k.level = L;
    if (lo == hi) return 0;
    if (L == 1) {
        for (size_t i = lo; i < hi; i++)
            k.kid[(c[i].y - y) * 2 + (c[i].x - x)] = c[i].state;
        return intern(w, &k);
    }
    int64_t h = (int64_t)1 << (L - 1);
    size_t mid = split(c, lo, hi, 1, y + h);           /* north | south */
    size_t nmid = split(c, lo, mid, 0, x + h);         /* nw | ne */
    size_t smid = split(c, mid, hi, 0, x + h);         /* sw | se */
    size_t cut[5] = {lo, nmid, mid, smid, hi};
    for (int q = 0; q < 4; q++) {
        k.kid[q] = build(w, c, cut[q], cut[q + 1], L - 1, x + (q & 1) * h, y + (q >> 1) * h);
        if (w->err) return 0;
    }
    return intern(w, &k);
}

/* Collects the live cells with their states. */
typedef struct mcs_collect {
    const wl_pattern *p;
    mcs_cell *c;
    size_t n;
} mcs_collect;

static wl_status collect_row(void *ctx, int64_t y, size_t n, const int64_t *x, const uint64_t *w) {
    mcs_collect *cc = ctx;
    for (size_t k = 0; k < n; k++) {
        uint64_t planes[WL_PATTERN_PLANES] = {0};
        for (unsigned b = 0; b < WL_PATTERN_PLANES; b++) {
            const wl_pattern *pl = wl_pattern_plane(cc->p, b);
            if (pl) wl_pattern_get_row(pl, x[k], y, 64, &planes[b]);
        }
        for (uint64_t v = w[k]; v; v &= v - 1) {
            int bit = __builtin_ctzll(v);
            unsigned s = 1;
            for (unsigned b = 0; b < WL_PATTERN_PLANES; b++) s += (unsigned)(planes[b] >> bit & 1) << b;
            cc->c[cc->n++] = (mcs_cell){x[k] + bit, y, (uint8_t)s};
        }
    }
    return WL_OK;
}

wl_status wl_mcs_write(const wl_pattern *p, wl_iobuf *out) {
    wl_rect r;
    if (!wl_pattern_bounds(p, &r)) return WL_OK;
    /* Root level: the smallest L >= 3 whose square, x from -2^(L-1) and y from
     * -2^(L-1) + 1, holds the box. */
    int L = 3;
    for (;; L++) {
        int64_t h = (int64_t)1 << (L - 1);
        if (r.x >= -h && r.y >= -h + 1 && r.x + (int64_t)r.w <= h && r.y + (int64_t)r.h <= h + 1)
            break;
        if (L >= 61)
            return wl_error(WL_ERR_TOO_BIG,
                            "macrocell: the pattern reaches beyond 2^60 cells from the origin");
    }
    uint64_t pop = wl_pattern_population(p);
    mcs_collect cc = {p, wl_malloc((size_t)pop * sizeof(mcs_cell)), 0};
    if (!cc.c) return WL_ERR_NOMEM;
    wl_status e = wl_pattern_each_row(p, collect_row, &cc);
    mcs_writer w;
    memset(&w, 0, sizeof w);
    int64_t h = (int64_t)1 << (L - 1);
    if (!e) build(&w, cc.c, 0, cc.n, L, -h, -h + 1);
    if (!e) e = w.err;
    for (size_t i = 0; !e && i < w.n && !out->failed; i++) {
        const mcs_node *k = &w.nodes[i];
        wl_iobuf_put_u64(out, (uint64_t)k->level);
        for (int q = 0; q < 4; q++) {
            wl_iobuf_putc(out, ' ');
            wl_iobuf_put_u64(out, k->kid[q]);
        }
        wl_iobuf_putc(out, '\n');
    }
    free(cc.c);
    free(w.nodes);
    free(w.slot);
    return e;
}
