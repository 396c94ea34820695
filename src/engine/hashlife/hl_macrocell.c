/*
 * hl_macrocell.c - HashLife's native file format, Golly's macrocell ("[M2]"), read straight
 * into the quadtree and written straight from it, plain or gzipped (.mc.gz).
 *
 * The format lists the distinct nodes of the tree bottom-up, one per line, numbered from 1
 * in order of appearance: an 8x8 leaf is a line of '.' (dead), '*' (alive) and '$' (end of
 * row; trailing dead cells and rows may be left out); an internal node is
 * "level nw ne sw se" with level >= 4 (a leaf is level 3) and children given by line
 * number, 0 standing for the empty node of level-1.  The last line is the root.  Lines
 * starting with '#' are comments ("#R rule", "#G generation", "#C text").  The root is
 * placed with its centre at (0, 0), as Golly places it, which is also where this engine
 * keeps its own root: a file written and read back covers the same cells.
 *
 * Reading keeps every node of the file alive until the root is built (garbage collection
 * is held off meanwhile: the file's nodes are the pattern).  Writing numbers the distinct
 * non-empty nodes reachable from the root in post-order with an index-addressed table, so
 * a tree with a billion cells but a few thousand distinct nodes writes in a few
 * kilobytes.  The file's rule line is not applied: the universe keeps the rule it was
 * created with (as wl_universe_load does for patterns).
 */
#include "hl_internal.h"

#include <stdlib.h>
#include <string.h>



/* ---- reading ----------------------------------------------------------------------------- */

typedef struct mc_reader {
    uint32_t *id;   /* engine node of each file line number (index 0 unused) */
    uint8_t *lvl;   /* its level */
    size_t n, cap;
} mc_reader;

static int mc_add(mc_reader *m, uint32_t id, int level) {
    if (m->n + 1 >= m->cap) {
        size_t nc = m->cap ? 2 * m->cap : 1024;
        uint32_t *a = realloc(m->id, nc * sizeof *a);
        if (!a) return 0;
        m->id = a;
        uint8_t *b = realloc(m->lvl, nc);
        if (!b) return 0;
        m->lvl = b;
        m->cap = nc;
    }
    m->n++;
    m->id[m->n] = id;
    m->lvl[m->n] = (uint8_t)level;
    return 1;
}

/* Splits a lone leaf root (level 3, centred on (0,0)) into a level-4 node centred alike. */
static uint32_t leaf_to_level4(hl_ctx *h, uint32_t leaf) {
    uint64_t b = hl_leaf_bits(h, leaf);
    uint32_t q[4];
    uint64_t parts[4] = {(b & 0x000000000F0F0F0Full) << 36, (b & 0x00000000F0F0F0F0ull) << 28,
                         (b & 0x0F0F0F0F00000000ull) >> 28, (b & 0xF0F0F0F000000000ull) >> 36};
    size_t sp0 = h->sp;
    for (int i = 0; i < 4; i++) {
        q[i] = hl_leaf_make(h, parts[i]);
        if (!q[i]) return 0;
        hl_push(h, q[i]);
    }
    uint32_t r = hl_node_make(h, q[0], q[1], q[2], q[3]);
    h->sp = sp0;
    return r;
}

static wl_status parse_mc(hl_ctx *h, const char *s, size_t len, const char *path, mc_reader *m,
                          uint32_t *root, int *root_level) {
    size_t pos = 0, line = 0;
    *root = 0;
    *root_level = 0;
    while (pos < len) {
        size_t end = pos;
        while (end < len && s[end] != '\n') end++;
        line++;
        size_t e = end;
        if (e > pos && s[e - 1] == '\r') e--;
        char c = e > pos ? s[pos] : '#';
        if (line == 1) {
            if (e - pos < 4 || memcmp(s + pos, "[M2]", 4) != 0)
                return wl_error(WL_ERR_UNSUPPORTED, "%s: not a macrocell file", path);
        } else if (c == '#') {
            /* comments, rule, generation: the universe keeps its own rule */
        } else if (c == '.' || c == '*' || c == '$') {
            uint64_t bits = 0;
            int x = 0, y = 0;
            for (size_t i = pos; i < e; i++) {
                char ch = s[i];
                if (ch == '$') {
                    y++;
                    x = 0;
                    continue;
                }
                if ((ch != '.' && ch != '*') || x > 7 || y > 7)
                    return wl_error(WL_ERR_PARSE, "%s:%zu:%zu: bad 8x8 leaf (expected '.', '*' "
                                    "or '$' within 8 columns and rows)", path, line, i - pos + 1);
                if (ch == '*') bits |= 1ull << (8 * y + x);
                x++;
            }
            uint32_t n = hl_leaf_make(h, bits);
            if (!n) return h->failure;
            if (!mc_add(m, n, 3)) return wl_error(WL_ERR_NOMEM, "%s: out of memory", path);
            *root = n;
            *root_level = 3;
        } else if (c >= '0' && c <= '9') {
            unsigned long v[5];
            size_t i = pos;
            for (int f = 0; f < 5; f++) {
                while (i < e && (s[i] == ' ' || s[i] == '\t')) i++;
                if (i >= e || s[i] < '0' || s[i] > '9')
                    return wl_error(WL_ERR_PARSE, "%s:%zu:%zu: expected a number (node lines "
                                    "are 'level nw ne sw se')", path, line, i - pos + 1);
                unsigned long x = 0;
                while (i < e && s[i] >= '0' && s[i] <= '9') {
                    x = x * 10 + (unsigned long)(s[i] - '0');
                    if (x > 0xFFFFFFFFul)
                        return wl_error(WL_ERR_PARSE, "%s:%zu:%zu: number too large", path,
                                        line, i - pos + 1);
                    i++;
                }
                v[f] = x;
            }
            int k = (int)v[0];
            if (k < 4 || k > HL_MAX_LEVEL)
                return wl_error(WL_ERR_PARSE, "%s:%zu:1: level %lu not supported (two-state "
                                "files have levels 4..%d)", path, line, v[0], HL_MAX_LEVEL);
            uint32_t ch[4];
            for (int f = 0; f < 4; f++) {
                unsigned long r = v[f + 1];
                if (r == 0) {
                    ch[f] = hl_empty(h, k - 1);
                    if (!ch[f]) return h->failure;
                } else if (r > m->n || m->lvl[r] != k - 1) {
                    return wl_error(WL_ERR_PARSE, "%s:%zu: child %lu is not an earlier node "
                                    "of level %d", path, line, r, k - 1);
                } else {
                    ch[f] = m->id[r];
                }
            }
            uint32_t n = hl_node_make(h, ch[0], ch[1], ch[2], ch[3]);
            if (!n) return h->failure;
            if (!mc_add(m, n, k)) return wl_error(WL_ERR_NOMEM, "%s: out of memory", path);
            *root = n;
            *root_level = k;
        } else {
            return wl_error(WL_ERR_PARSE, "%s:%zu:1: unexpected '%c' (expected a leaf, a node "
                            "line or '#')", path, line, c);
        }
        pos = end + 1;
    }
    return WL_OK;
}

wl_status hl_load_file(void *ctx, const char *path) {
    hl_ctx *h = ctx;
    char *data;
    size_t len;
    wl_status s = wl_read_file(path, &data, &len);
    if (s) return s;
    if (wl_is_gzip(data, len)) {
        char *plain = NULL;
        size_t plen = 0;
        s = wl_gunzip(data, len, path, &plain, &plen);
        free(data);
        if (s) return s;
        data = plain;
        len = plen;
    }
    if (len < 4 || memcmp(data, "[M2]", 4) != 0) {
        free(data);
        return wl_error(WL_ERR_UNSUPPORTED, "%s: not a macrocell file", path);
    }
    /* the file's nodes are all needed until the root exists: no collection meanwhile */
    uint32_t saved_limit = h->limit;
    h->limit = 0xF0000000u;
    mc_reader m = {0};
    uint32_t root;
    int k;
    h->sp = 0;
    s = parse_mc(h, data, len, path, &m, &root, &k);
    if (!s && !root) {
        k = 6;
        root = hl_empty(h, k);
        if (!root) s = h->failure;
    }
    if (!s && k == 3) {
        root = leaf_to_level4(h, root);
        k = 4;
        if (!root) s = h->failure;
    }
    if (!s) {
        uint32_t old_root = h->root;
        int old_level = h->root_level;
        hl_set_root(h, root, k);
        s = hl_grow_root(h, 6);
        if (s) hl_set_root(h, old_root, old_level);
    }
    h->failure = WL_OK;
    h->limit = saved_limit;
    free(m.id);
    free(m.lvl);
    free(data);
    return s;
}

/* ---- writing ------------------------------------------------------------------------------ */

typedef struct mc_writer {
    char *p;
    size_t len, cap;
    int failed;
    uint32_t *num; /* file line number of each engine node (0 = not written yet) */
    uint32_t count;
} mc_writer;

static void put(mc_writer *w, const char *s, size_t n) {
    if (w->failed) return;
    if (w->len + n + 1 > w->cap) {
        size_t nc = w->cap ? w->cap : 4096;
        while (w->len + n + 1 > nc) nc *= 2;
        char *np = realloc(w->p, nc);
        if (!np) {
            w->failed = 1;
            return;
        }
        w->p = np;
        w->cap = nc;
    }
    memcpy(w->p + w->len, s, n);
    w->len += n;
}

static void put_leaf(mc_writer *w, uint64_t b) {
    char line[8 * 9 + 2];
    size_t n = 0;
    int last_row = 7;
    while (last_row >= 0 && !((b >> (8 * last_row)) & 0xFF)) last_row--;
    for (int y = 0; y <= last_row; y++) {
        uint64_t row = (b >> (8 * y)) & 0xFF;
        for (int x = 0; x < 8 && (row >> x); x++) line[n++] = (row >> x & 1) ? '*' : '.';
        line[n++] = '$';
    }
    line[n++] = '\n';
    put(w, line, n);
}

/* Writes node n (level k, non-empty) after its children; iterative depth is the level. */
static void write_node(hl_ctx *h, mc_writer *w, uint32_t n, int k) {
    if (w->num[n] || w->failed) return;
    if (k == HL_LEAF_LEVEL) {
        put_leaf(w, hl_leaf_bits(h, n));
    } else {
        uint32_t ref[4];
        for (int i = 0; i < 4; i++) {
            uint32_t c = h->nodes[n].c[i];
            if (c == h->empty[k - 1]) {
                ref[i] = 0;
            } else {
                write_node(h, w, c, k - 1);
                ref[i] = w->num[c];
            }
        }
        char line[80];
        int len = snprintf(line, sizeof line, "%d %u %u %u %u\n", k, ref[0], ref[1], ref[2],
                           ref[3]);
        put(w, line, (size_t)len);
    }
    w->num[n] = ++w->count;
}

wl_status hl_save_file(void *ctx, const char *path, wl_format fmt, int gz) {
    hl_ctx *h = ctx;
    int gz_name = 0;
    wl_format by_name = wl_format_from_path(path, &gz_name);
    if (fmt == WL_FORMAT_AUTO) fmt = by_name;
    if (fmt != WL_FORMAT_MACROCELL)
        return wl_error(WL_ERR_UNSUPPORTED, "hashlife writes macrocell natively only");
    if (gz < 0) gz = gz_name;
    mc_writer w = {0};
    w.num = calloc(h->top, sizeof *w.num);
    if (!w.num) return wl_error(WL_ERR_NOMEM, "hashlife: out of memory writing %s", path);
    char rule[WL_RULE_TEXT_MAX], head[WL_RULE_TEXT_MAX + 64];
    if (wl_rule_format(&h->rule, rule, sizeof rule)) strcpy(rule, "B3/S23");
    int hl = snprintf(head, sizeof head, "[M2] (warplife %s)\n#R %s\n", WL_VERSION_STRING, rule);
    put(&w, head, (size_t)hl);
    if (h->root != h->empty[h->root_level]) write_node(h, &w, h->root, h->root_level);
    free(w.num);
    if (w.failed) {
        free(w.p);
        return wl_error(WL_ERR_NOMEM, "hashlife: out of memory writing %s", path);
    }
    wl_status s;
    if (gz) {
        char *z = NULL;
        size_t zlen = 0;
        s = wl_gzip(w.p, w.len, &z, &zlen);
        if (!s) {
            s = wl_write_file_atomic(path, z, zlen);
            free(z);
        }
        free(w.p);
        return s;
    }
    s = wl_write_file_atomic(path, w.p, w.len);
    free(w.p);
    return s;
}
