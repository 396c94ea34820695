/*
 * hl_macrocell.c - HashLife's native file format, Golly's macrocell ("[M2]"), read straight
 * into the quadtree and written straight from it, plain or gzipped (.mc.gz).
 *
 * The format lists the distinct nodes of the tree bottom-up, one per line, numbered from 1
 * in order of appearance: an 8x8 leaf (level 3) is a line of '.' (dead), '*' (alive) and
 * '$' (end of row; trailing dead cells and rows may be left out); any other node is
 * "level nw ne sw se" with children given by line number, 0 standing for the empty node of
 * level-1.  The last line is the root.  Lines starting with '#' are comments ("#R rule",
 * "#G generation", "#C text").  The root is placed with its centre at (0, 0), as Golly
 * places it and as this engine keeps its own root: a level-L root covers
 * [-2^(L-1), 2^(L-1)) in x and y, so a file written and read back covers the same cells.
 *
 * Reading.  The text is parsed by the project's one macrocell grammar (src/io/mcgrammar.c,
 * shared with the pattern reader), fed a window at a time by a byte source (plain or gzip,
 * never the whole file in memory).  The grammar checks every line and every reference and
 * hands over each node once: levels 1..3 as 8x8 bitmaps (node lines of levels 2 and 3
 * already folded into one), levels 4 and up as four node numbers.  Here a level-3 bitmap
 * becomes a leaf and a level >= 4 node is made from the engine nodes of its quadrants
 * (0: the canonical empty node of level - 1), kept in a table indexed by node number.
 * Levels 1 and 2 are roots only (nothing else can refer to them): such a root's few cells
 * are moved into a centred 8x8 leaf, and a leaf root is split into a centred level-4 node,
 * since the engine's roots are level 4 or more (the grammar keeps the bitmaps of small
 * nodes, so nothing needs to be remembered for them here).  A root deeper than
 * HL_MIN_ROOT_LEVEL whose cells lie in its central half (Golly writes roots with empty
 * borders) is cut down towards that level, so that a file's needless depth does not stand
 * in the way of what the engine can only do for roots up to level 120 (cell positions);
 * nodes deeper than the engine's HL_MAX_LEVEL are kept as their quadrants' numbers until
 * the root is cut down below them (WL_ERR_TOO_BIG if cells lie that far out).
 *
 * Every node of the file must stay alive until the root exists, but only the root, the
 * empty nodes and the protect stack survive a garbage collection: so collection is held
 * off while reading.  The collector runs only when a new node finds the store at its
 * limit (h->limit, from cfg->max_memory), and the reader stops with WL_ERR_TOO_BIG before
 * the store gets there, so the file's nodes must fit in the engine's memory limit.  The
 * old universe's garbage is collected before reading when it fills half of the store; the
 * old root is on the protect stack throughout and is put back if the file is refused, so
 * a bad file leaves the universe as it was.  Errors are the grammar's: WL_ERR_PARSE with
 * "file:line:col" for text that breaks it.
 *
 * Input that is not macrocell (by the pattern reader's own test: "[M2]" first, or a .mc
 * name and a first line that can start only macrocell) is refused with WL_ERR_UNSUPPORTED,
 * and wl_universe_load_file then reads it as a pattern; so is standard input ("-"), which
 * could not be read twice.  The file's rule line is checked as the pattern reader checks
 * it but not applied: the universe keeps the rule it was created with (as
 * wl_universe_load does for patterns).
 *
 * Writing numbers the distinct non-empty nodes reachable from the root in post-order with
 * an index-addressed table, so a tree with a billion cells but a few thousand distinct
 * nodes writes in a few kilobytes.
 */
#include "hl_internal.h"

#include "../../io/io_internal.h" /* wl_io_parse_rule: the #R line, checked as readers do */
#include "../../io/mcgrammar.h"

#include <stdlib.h>
#include <string.h>

/* ---- reading ----------------------------------------------------------------------------- */

/* A node deeper than the engine's nodes go (level > HL_MAX_LEVEL): kept as its quadrants'
 * file node numbers until the root is cut down to a level the engine holds. */
typedef struct hl_mc_deep {
    uint32_t kid[4];
    int empty;
} hl_mc_deep;

typedef struct hl_mc_reader {
    hl_ctx *h;
    const wl_src *src;      /* for the line in messages */
    const wl_mc_grammar *g; /* the levels (and small bitmaps) of file nodes */
    uint32_t *node;         /* node[id]: the engine node of file node id (0 for levels 1, 2;
                             * for deep nodes, their index in deep[]) */
    size_t cap;
    hl_mc_deep *deep;
    size_t ndeep, deep_cap;
} hl_mc_reader;

/* The failure a node-making call left in h->failure (cleared), or out of memory. */
static wl_status take_failure(hl_ctx *h) {
    wl_status s = h->failure ? h->failure : wl_error(WL_ERR_NOMEM, "hashlife: out of memory");
    h->failure = WL_OK;
    return s;
}

/* Checks that `more` new nodes fit below the store's limit, so that making them cannot
 * start a garbage collection (which runs when a new node finds h->live >= h->limit), and
 * makes room for node[id]. */
static wl_status reserve(hl_mc_reader *rd, uint32_t id, uint32_t more) {
    hl_ctx *h = rd->h;
    if ((uint64_t)h->live + more > h->limit) {
        char lim[32];
        return wl_error(WL_ERR_TOO_BIG,
                        "%s:%zu: the macrocell file has more nodes than hashlife's memory "
                        "limit of %s holds (%u nodes in use); raise --maxmemory",
                        rd->src->name, rd->src->line, wl_bytes_text(h->max_bytes, lim),
                        h->live);
    }
    if (id >= rd->cap) {
        size_t cap = rd->cap ? rd->cap * 2 : 1024;
        while (cap <= id) cap *= 2;
        uint32_t *nn = realloc(rd->node, cap * sizeof *nn);
        if (!nn)
            return wl_error(WL_ERR_NOMEM, "%s: out of memory for macrocell nodes",
                            rd->src->name);
        rd->node = nn;
        rd->cap = cap;
    }
    return WL_OK;
}

/* A node of level 1..3: a leaf for level 3; levels 1 and 2 (roots only) wait for the end. */
static wl_status on_small(void *ctx, uint32_t id, int level, uint64_t bits) {
    hl_mc_reader *rd = ctx;
    wl_status e = reserve(rd, id, 1);
    if (e) return e;
    rd->node[id] = 0;
    if (level < HL_LEAF_LEVEL) return WL_OK;
    uint32_t n = hl_leaf_make(rd->h, bits);
    if (!n) return take_failure(rd->h);
    rd->node[id] = n;
    return WL_OK;
}

/* Is file node id (0 or a node of level >= 3) empty?  (Empty nodes are made up to
 * HL_MAX_LEVEL before a deep node asks.) */
static int file_empty(const hl_mc_reader *rd, uint32_t id) {
    if (!id) return 1;
    int k = wl_mc_level(rd->g, id);
    if (k > HL_MAX_LEVEL) return rd->deep[rd->node[id]].empty;
    return rd->node[id] == rd->h->empty[k];
}

/* A node deeper than HL_MAX_LEVEL: its quadrants' numbers, kept for the root's cutting. */
static wl_status deep_node(hl_mc_reader *rd, uint32_t id, const uint32_t kid[4]) {
    wl_status e = reserve(rd, id, HL_MAX_LEVEL + 1);
    if (e) return e;
    if (!hl_empty(rd->h, HL_MAX_LEVEL)) return take_failure(rd->h);
    if (rd->ndeep == rd->deep_cap) {
        size_t cap = rd->deep_cap ? rd->deep_cap * 2 : 64;
        hl_mc_deep *nd = realloc(rd->deep, cap * sizeof *nd);
        if (!nd)
            return wl_error(WL_ERR_NOMEM, "%s: out of memory for macrocell nodes",
                            rd->src->name);
        rd->deep = nd;
        rd->deep_cap = cap;
    }
    hl_mc_deep *d = &rd->deep[rd->ndeep];
    d->empty = 1;
    for (int i = 0; i < 4; i++) {
        d->kid[i] = kid[i];
        d->empty &= file_empty(rd, kid[i]);
    }
    rd->node[id] = (uint32_t)rd->ndeep++;
    return WL_OK;
}

/* A node of level >= 4 from its quadrants' engine nodes. */
static wl_status on_node(void *ctx, uint32_t id, int level, const uint32_t kid[4]) {
    hl_mc_reader *rd = ctx;
    hl_ctx *h = rd->h;
    if (level > HL_MAX_LEVEL) return deep_node(rd, id, kid);
    /* the node, and the empty nodes up to level - 1 where not made yet */
    wl_status e = reserve(rd, id, (uint32_t)level + 1);
    if (e) return e;
    uint32_t q[4];
    for (int i = 0; i < 4; i++) {
        q[i] = kid[i] ? rd->node[kid[i]] : hl_empty(h, level - 1);
        if (!q[i]) return take_failure(h);
    }
    uint32_t n = hl_node_make(h, q[0], q[1], q[2], q[3]);
    if (!n) return take_failure(h);
    rd->node[id] = n;
    return WL_OK;
}

/* The "#R" line: checked as the pattern reader checks it, not applied. */
static wl_status on_rule(void *ctx, const char *text, size_t n, size_t line, size_t col) {
    const hl_mc_reader *rd = ctx;
    wl_rule rule;
    return wl_io_parse_rule(text, n, rd->src->name, line, col, &rule, NULL);
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

/* Cuts a root of level *level (>= HL_MIN_ROOT_LEVEL, empty nodes made up to it) down one
 * level at a time while its cells lie in its central half, to HL_MIN_ROOT_LEVEL at least;
 * each new root is pushed on the protect stack.  0 on failure. */
static uint32_t shrink_root(hl_ctx *h, uint32_t n, int *level) {
    while (*level > HL_MIN_ROOT_LEVEL) {
        int k = *level;
        uint32_t in[4];
        for (int i = 0; i < 4; i++) {
            const hl_node c = h->nodes[h->nodes[n].c[i]];
            for (int j = 0; j < 4; j++)
                if (j != 3 - i && c.c[j] != h->empty[k - 2]) return n;
            in[i] = c.c[3 - i]; /* the grandchild touching the centre */
        }
        n = hl_node_make(h, in[0], in[1], in[2], in[3]);
        if (!n) return 0;
        hl_push(h, n);
        *level = k - 1;
    }
    return n;
}

static wl_status too_wide(const hl_mc_reader *rd) {
    return wl_error(WL_ERR_TOO_BIG, "%s: the macrocell pattern reaches beyond the 2^%d cells "
                    "across that hashlife holds", rd->src->name, HL_MAX_LEVEL);
}

/* Cuts a root deeper than HL_MAX_LEVEL (file node id) down to a level-HL_MAX_LEVEL engine
 * node *out, as shrink_root does, while its cells lie in its central half; WL_ERR_TOO_BIG
 * when they do not. */
static wl_status cut_deep_root(hl_mc_reader *rd, uint32_t id, uint32_t *out) {
    hl_ctx *h = rd->h;
    uint32_t kid[4], in[4];
    memcpy(kid, rd->deep[rd->node[id]].kid, sizeof kid);
    /* quadrants (file node numbers) deeper than the engine's nodes */
    for (int k = wl_mc_level(rd->g, id); k > HL_MAX_LEVEL + 1; k--) {
        for (int i = 0; i < 4; i++) {
            in[i] = 0;
            if (file_empty(rd, kid[i])) continue;
            const hl_mc_deep *d = &rd->deep[rd->node[kid[i]]];
            for (int j = 0; j < 4; j++)
                if (j != 3 - i && !file_empty(rd, d->kid[j])) return too_wide(rd);
            in[i] = d->kid[3 - i];
        }
        memcpy(kid, in, sizeof kid);
    }
    /* quadrants of level HL_MAX_LEVEL: engine nodes */
    for (int i = 0; i < 4; i++) {
        const hl_node c = h->nodes[kid[i] ? rd->node[kid[i]] : h->empty[HL_MAX_LEVEL]];
        for (int j = 0; j < 4; j++)
            if (j != 3 - i && c.c[j] != h->empty[HL_MAX_LEVEL - 1]) return too_wide(rd);
        in[i] = c.c[3 - i];
        hl_push(h, in[i]);
    }
    *out = hl_node_make(h, in[0], in[1], in[2], in[3]);
    return *out ? WL_OK : take_failure(h);
}

/* The root of the file just read, as an engine node of level >= 4 (*level), pushed on the
 * protect stack. */
static wl_status file_root(hl_mc_reader *rd, const wl_mc_grammar *g, uint32_t *root,
                           int *level) {
    hl_ctx *h = rd->h;
    uint32_t id = wl_mc_count(g);
    if (!id) { /* no nodes: an empty universe */
        *level = HL_MIN_ROOT_LEVEL;
        *root = hl_empty(h, *level);
        return *root ? WL_OK : take_failure(h);
    }
    int k = wl_mc_level(g, id);
    uint32_t n = rd->node[id];
    if (k > HL_MAX_LEVEL) {
        wl_status e = cut_deep_root(rd, id, &n);
        if (e) return e;
        k = HL_MAX_LEVEL;
    }
    if (k < HL_LEAF_LEVEL) {
        /* a level-k root covers [-2^(k-1), 2^(k-1)): its cells, at the top-left of the
         * 8x8, move d = 4 - 2^(k-1) columns and rows to sit in a leaf covering [-4, 4) */
        unsigned d = 4u - (1u << (k - 1));
        n = hl_leaf_make(h, wl_mc_bits(g, id) << (9 * d));
        k = HL_LEAF_LEVEL;
        if (!n) return take_failure(h);
    }
    if (k == HL_LEAF_LEVEL) {
        hl_push(h, n);
        n = leaf_to_level4(h, n);
        k = 4;
        if (!n) return take_failure(h);
    }
    hl_push(h, n);
    /* Golly writes roots with empty borders: a needless depth is cut off (the engine
     * computes cell positions for roots up to level 120 only) */
    if (!hl_empty(h, k) || !(n = shrink_root(h, n, &k))) return take_failure(h);
    *root = n;
    *level = k;
    return WL_OK;
}

/* Is the input macrocell?  The pattern reader's detection (format.c) on the first bytes
 * buf[pos..end) after any byte order mark, restricted to what only macrocell can start
 * with: "[M2]" after blanks, or, for a .mc name, nothing but blanks, a '#' line other than
 * "#Life 1.0x", or a leaf or node line.  Anything else (even what detection might still
 * call macrocell) is left to the pattern reader. */
static int is_macrocell(const wl_src *s, const char *path) {
    const uint64_t detect_max = (uint64_t)64 << 10; /* format.c's DETECT_MAX */
    const char *c = s->buf + s->pos;
    size_t n = s->end - s->pos;
    uint64_t at = s->base + s->pos; /* stream offset of c[0] */
    if (at >= detect_max) return 0;
    if (n > detect_max - at) n = (size_t)(detect_max - at);
    while (n && (*c == ' ' || *c == '\t' || *c == '\r' || *c == '\n')) c++, n--;
    if (n >= 4 && memcmp(c, "[M2]", 4) == 0) return 1;
    if (wl_format_from_path(path, NULL) != WL_FORMAT_MACROCELL) return 0;
    if (!n) return 1; /* blanks only (detection stops at 64 KiB of them) */
    if (c[0] == '#') return !(n >= 9 && memcmp(c, "#Life 1.0", 9) == 0);
    return (c[0] >= '0' && c[0] <= '9') || c[0] == '.' || c[0] == '*' || c[0] == '$';
}

wl_status hl_load_file(void *ctx, const char *path) {
    hl_ctx *h = ctx;
    if (h->nplanes) /* multi-state files: the pattern reader takes them */
        return wl_error(WL_ERR_UNSUPPORTED, "hashlife reads two-state macrocell only");
    if (strcmp(path, "-") == 0) /* standard input: the pattern reader takes it in one pass */
        return wl_error(WL_ERR_UNSUPPORTED, "hashlife reads macrocell from files only");
    wl_src src;
    wl_status s = wl_src_open_file(&src, path);
    /* the first 64 KiB (what detection looks at), blanks before "[M2]" included */
    if (!s) s = wl_src_skip_bom(&src);
    if (!s) s = wl_src_need(&src, (size_t)64 << 10);
    if (!s && !is_macrocell(&src, path))
        s = wl_error(WL_ERR_UNSUPPORTED, "%s: not a macrocell file", path);
    if (s) {
        wl_src_close(&src);
        return s;
    }
    /* the old universe's garbage, when it fills half of the store, is collected now: the
     * file's nodes must fit below the limit while collection is held off */
    h->sp = 0;
    if (h->live > h->limit / 2 && hl_collect(h) != WL_OK) wl_clear_error();
    uint32_t old_root = h->root;
    int old_level = h->root_level;
    hl_push(h, old_root); /* kept through any collection until the new root is in place */

    wl_mc_grammar g;
    hl_mc_reader rd = {h, &src, &g, NULL, 0, NULL, 0, 0};
    wl_mc_sink sink = {&rd, on_small, on_node, on_rule, NULL};
    /* the grammar's table (16 bytes a node) is capped by the engine's memory limit, which
     * the engine's nodes (24 bytes each, and their hash slots) reach first */
    wl_mc_init(&g, src.name, &sink, h->max_bytes);
    s = wl_mc_read(&g, &src);
    uint32_t root = 0;
    int k = 0;
    if (!s) s = file_root(&rd, &g, &root, &k);
    if (!s) {
        hl_set_root(h, root, k);
        s = hl_grow_root(h, HL_MIN_ROOT_LEVEL);
        if (s) hl_set_root(h, old_root, old_level);
    }
    h->failure = WL_OK;
    h->sp = 0;
    wl_mc_free(&g);
    free(rd.node);
    free(rd.deep);
    wl_src_close(&src);
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
    if (fmt != WL_FORMAT_MACROCELL || h->nplanes)
        return wl_error(WL_ERR_UNSUPPORTED, "hashlife writes two-state macrocell natively only");
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
