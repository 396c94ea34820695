/*
 * mcgrammar.c - the macrocell line grammar (the format and the callback contract are in
 * mcgrammar.h).
 *
 * Each line is classified by its first byte and parsed on its own; the only state carried
 * from line to line is the node table, one entry per node number: its level (to check
 * that a quadrant has the level below its parent's) and, for levels 1..3, its 8x8 bitmap
 * (so that node lines of levels 2 and 3 can be folded into bitmaps from their quadrants'
 * bitmaps, and a consumer never sees a level below 3 as anything but cells).  Entries are
 * 16 bytes; the table doubles as it fills and is refused past max_bytes, so a file of
 * endless node lines stops at a known size.
 *
 * Bitmaps: bit 8 * row + col, (0, 0) the top-left cell.  A level-1 node's states nw, ne,
 * sw, se are bits 0, 1, 8, 9; a level-L node (L = 2, 3) puts its quadrants' 2^(L-1)
 * squares at column offsets 0 / 2^(L-1) and row offsets 0 / 2^(L-1).
 */
#include "mcgrammar.h"

#include "io_internal.h"

#include <stdlib.h>

void wl_mc_init(wl_mc_grammar *g, const char *name, const wl_mc_sink *sink, uint64_t max_bytes) {
    memset(g, 0, sizeof *g);
    g->name = name;
    g->sink = *sink;
    g->max_bytes = max_bytes;
}

void wl_mc_free(wl_mc_grammar *g) {
    free(g->v);
    g->v = NULL;
    g->n = g->cap = 0;
}

/* Appends the entry of the next node (the empty node 0 first); returns its number. */
static wl_status push(wl_mc_grammar *g, size_t line, int level, uint64_t bits, uint32_t *id) {
    if (!g->v) { /* v[0]: the empty node, of any level */
        g->cap = 1024;
        g->v = malloc(g->cap * sizeof *g->v);
        if (!g->v) return wl_error(WL_ERR_NOMEM, "%s: out of memory for macrocell nodes", g->name);
        g->v[0].level = 0;
        g->v[0].bits = 0;
        g->n = 1;
    }
    if (g->n == g->cap) {
        size_t ncap = g->cap * 2;
        char need[32], lim[32];
        if (g->n >= UINT32_MAX - 1 || (uint64_t)ncap * sizeof *g->v > g->max_bytes)
            return wl_error(WL_ERR_TOO_BIG,
                            "%s:%zu: more than %zu macrocell nodes: their table would take %s, "
                            "more than the reading limit of %s", g->name, line, g->n - 1,
                            wl_bytes_text((uint64_t)ncap * sizeof *g->v, need),
                            wl_bytes_text(g->max_bytes, lim));
        void *nv = realloc(g->v, ncap * sizeof *g->v);
        if (!nv) return wl_error(WL_ERR_NOMEM, "%s: out of memory for macrocell nodes", g->name);
        g->v = nv;
        g->cap = ncap;
    }
    g->v[g->n].level = level;
    g->v[g->n].bits = bits;
    *id = (uint32_t)g->n++;
    return WL_OK;
}

static wl_status leaf_line(wl_mc_grammar *g, const char *c, size_t n, size_t line) {
    uint64_t bits = 0;
    unsigned r = 0, col = 0;
    char what[32];
    for (size_t i = 0; i < n; i++) {
        char ch = c[i];
        if (ch == '.' || ch == '*') {
            if (r >= 8 || col >= 8)
                return wl_io_error_at(WL_ERR_PARSE, g->name, line, i + 1,
                                      r >= 8 ? "a leaf has at most 8 rows"
                                             : "a leaf row has at most 8 cells");
            if (ch == '*') bits |= (uint64_t)1 << (8 * r + col);
            col++;
        } else if (ch == '$') {
            r++;
            col = 0;
            if (r > 8)
                return wl_io_error_at(WL_ERR_PARSE, g->name, line, i + 1,
                                      "a leaf has at most 8 rows");
        } else if (ch != ' ' && ch != '\t') {
            return wl_io_error_at(WL_ERR_PARSE, g->name, line, i + 1,
                                  "expected '.', '*' or '$' in a leaf but found %s",
                                  wl_io_describe(c, n, i, what));
        }
    }
    uint32_t id;
    wl_status e = push(g, line, 3, bits, &id);
    return e ? e : g->sink.small(g->sink.ctx, id, 3, bits);
}

/* Combines the four quadrant bitmaps of a level-2 or level-3 node (size 2^level). */
static uint64_t combine_small(const uint64_t q[4], int level) {
    int h = 1 << (level - 1); /* quadrant size */
    uint64_t out = 0;
    for (int k = 0; k < 4; k++) {
        int dx = (k & 1) * h, dy = (k >> 1) * h;
        for (int r = 0; r < h; r++) {
            uint64_t row = (q[k] >> (8 * r)) & 0xff;
            out |= row << (8 * (r + dy) + dx);
        }
    }
    return out;
}

static wl_status node_line(wl_mc_grammar *g, const char *c, size_t n, size_t line) {
    int64_t v[5];
    size_t i = 0;
    char what[32];
    for (int k = 0; k < 5; k++) {
        int ovf = 0;
        size_t at = i;
        while (at < n && (c[at] == ' ' || c[at] == '\t')) at++;
        if (at < n && c[at] == '-')
            return wl_io_error_at(WL_ERR_PARSE, g->name, line, at + 1,
                                  "expected a non-negative integer but found '-'");
        if (!wl_io_parse_i64(c, n, &i, &v[k], &ovf))
            return wl_io_error_at(WL_ERR_PARSE, g->name, line, at + 1,
                                  ovf ? "number too large"
                                      : k == 0 ? "expected a node level but found %s"
                                               : "expected a node number but found %s",
                                  wl_io_describe(c, n, at, what));
    }
    while (i < n && (c[i] == ' ' || c[i] == '\t')) i++;
    if (i != n)
        return wl_io_error_at(WL_ERR_PARSE, g->name, line, i + 1,
                              "expected end of line after 'level nw ne sw se' but found %s",
                              wl_io_describe(c, n, i, what));
    int64_t level = v[0];
    if (level < 1 || level > WL_MC_MAX_LEVEL)
        return wl_io_error_at(WL_ERR_PARSE, g->name, line, 1, "bad node level %lld",
                              (long long)level);
    size_t next = g->n ? g->n : 1; /* the number this line gets */
    uint64_t q[4] = {0, 0, 0, 0};
    uint32_t kid[4] = {0, 0, 0, 0};
    for (int k = 0; k < 4; k++) {
        int64_t ref = v[k + 1];
        if (level == 1) {
            if (ref > 1)
                return wl_io_error_at(WL_ERR_PARSE, g->name, line, 1,
                                      "cell state %lld in a level-1 node, but the rule "
                                      "has two states (a multi-state rule's #R line comes "
                                      "before the nodes)", (long long)ref);
            continue;
        }
        if ((uint64_t)ref >= next)
            return wl_io_error_at(WL_ERR_PARSE, g->name, line, 1,
                                  "node refers to line %lld, which is not an earlier node",
                                  (long long)ref);
        if (ref && g->v[ref].level != level - 1)
            return wl_io_error_at(WL_ERR_PARSE, g->name, line, 1,
                                  "a level-%lld node needs level-%lld quadrants but node %lld "
                                  "has level %d", (long long)level, (long long)(level - 1),
                                  (long long)ref, g->v[ref].level);
        kid[k] = (uint32_t)ref;
        if (level <= 3 && ref) q[k] = g->v[ref].bits;
    }
    uint64_t bits = 0;
    if (level == 1)
        bits = (uint64_t)v[1] | (uint64_t)v[2] << 1 | (uint64_t)v[3] << 8 | (uint64_t)v[4] << 9;
    else if (level <= 3)
        bits = combine_small(q, (int)level);
    uint32_t id;
    wl_status e = push(g, line, (int)level, bits, &id);
    if (e) return e;
    if (level <= 3) return g->sink.small(g->sink.ctx, id, (int)level, bits);
    return g->sink.node(g->sink.ctx, id, (int)level, kid);
}

/* A '#' line c[0..n) (n >= 1). */
static wl_status hash_line(wl_mc_grammar *g, const char *c, size_t n, size_t line) {
    if (n > 1 && c[1] == 'R') {
        size_t i = 2;
        while (i < n && (c[i] == ' ' || c[i] == '\t')) i++;
        return g->sink.rule ? g->sink.rule(g->sink.ctx, c + i, n - i, line, i + 1) : WL_OK;
    }
    if (n > 1 && c[1] == 'G') return WL_OK; /* the generation: a pattern carries none */
    if (!g->sink.comment) return WL_OK;
    if (n > 1 && (c[1] == 'C' || c[1] == 'c' || c[1] == 'D')) {
        size_t i = 2;
        if (i < n && c[i] == ' ') i++;
        return g->sink.comment(g->sink.ctx, c + i, n - i);
    }
    return g->sink.comment(g->sink.ctx, c + 1, n - 1);
}

wl_status wl_mc_line(wl_mc_grammar *g, const char *c, size_t n, size_t line) {
    char what[32];
    if (g->lines++ == 0) g->first_is_m2 = n >= 4 && memcmp(c, "[M2]", 4) == 0;
    while (n && (c[n - 1] == ' ' || c[n - 1] == '\t')) n--;
    if (n == 0 || c[0] == '[') return WL_OK; /* blank, or the "[M2] (golly ...)" line */
    if (c[0] == '#') return hash_line(g, c, n, line);
    if (c[0] == '.' || c[0] == '*' || c[0] == '$') return leaf_line(g, c, n, line);
    if (c[0] >= '0' && c[0] <= '9') return node_line(g, c, n, line);
    return wl_io_error_at(WL_ERR_PARSE, g->name, line, 1,
                          "expected a leaf ('.', '*', '$'), a node line 'level nw ne sw se' "
                          "or a '#' line but found %s",
                          wl_io_describe(c, n, 0, what));
}

wl_status wl_mc_read(wl_mc_grammar *g, wl_src *s) {
    for (;;) {
        const char *c;
        size_t n;
        wl_status e = wl_src_peek_line(s, WL_IO_LINE_MAX, &c, &n);
        if (e) return e;
        if (!c) return WL_OK;
        e = wl_mc_line(g, c, n, s->line);
        if (e) return e;
        wl_src_next_line(s);
    }
}
