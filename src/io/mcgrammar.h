/*
 * mcgrammar.h - the line grammar of Golly's macrocell format ("[M2]"), with one callback
 * per node, for every reader of the format: the pattern reader (macrocell.c) builds a
 * bitmap from the nodes, and an engine with its own quadtree (HashLife) can build its tree
 * from the same callbacks without parsing the text itself.
 *
 * The format, line by line (a line is given without its newline):
 *   "[M2] ..."      the version line (any line starting with '['), ignored;
 *   "#R rule"       the rule: the `rule` callback gets its text;
 *   "#G gen"        the generation: ignored (a pattern carries none);
 *   other '#' lines comments: the `comment` callback gets the text without "#C", "#c" or
 *                   "#D" and one space after it, or without the '#' for other tags;
 *   blank lines     ignored;
 *   leaf lines      (starting with '.', '*' or '$'): an 8x8 square, level 3; rows end with
 *                   '$', '.' dead, '*' alive, trailing dead cells and trailing empty rows
 *                   left out; blanks inside are ignored;
 *   node lines      "level nw ne sw se": a 2^level square made of four 2^(level-1)
 *                   quadrants given by node number (0 = empty).  Level 1 (as Golly writes
 *                   for multi-state rules) holds four cell states instead, accepted when 0
 *                   or 1; levels 2 and 3 may also be written as node lines.
 * Node lines and leaf lines are numbered 1, 2, 3... in order; the last one is the root.
 *
 * What a consumer gets: every node of level 1..3 (leaves, and node lines of those levels,
 * which the grammar folds into bitmaps) as `small` with its cells, and every node of level
 * 4 and up as `node` with its four quadrants, each already checked to be 0 or an earlier
 * node of the level below.  So a consumer never sees a reference it has to validate, and
 * keeps its own table indexed by node number.  The grammar keeps, per node, its level and
 * (for levels <= 3) its bitmap: 16 bytes a node, capped by `max_bytes`.
 *
 * Errors: WL_ERR_PARSE "name:line:col: what was expected" for text that breaks the
 * grammar; WL_ERR_TOO_BIG when the node table would pass max_bytes; whatever a callback
 * returns stops the reading and is passed back unchanged.
 *
 * An engine with its own quadtree reads a file with it in bounded memory like this:
 * wl_src_open_file(&src, path) (plain or gzip, "-" for standard input), wl_mc_init(&g,
 * src.name, &sink, limit) with a sink whose `small` makes a leaf of each level-3 node
 * (and remembers levels 1 and 2, which only a root can be: their cells sit at the top-left
 * of the 8x8, the root's centre at (2^(level-1), 2^(level-1))) and whose `node` makes a
 * node of four engine nodes (0 standing for the empty node of level - 1); then
 * wl_mc_read(&g, &src), wl_mc_free, wl_src_close.  After the first line, first_is_m2
 * tells whether the file began with "[M2]", for a reader that refuses anything else.
 */
#ifndef WL_MCGRAMMAR_H
#define WL_MCGRAMMAR_H

#include "iosrc.h"

/* Levels are checked against this sanity bound: a file needs a line per level, so deeper
 * trees are corrupt for any file that could be held. */
#define WL_MC_MAX_LEVEL 100000

typedef struct wl_mc_sink {
    void *ctx;
    /* A node of level 1, 2 or 3 numbered `id`: its cells as bit 8 * row + col, (0, 0)
     * being its top-left cell, within the low 2^level x 2^level corner of the 8x8. */
    wl_status (*small)(void *ctx, uint32_t id, int level, uint64_t bits);
    /* A node of level >= 4 numbered `id`: quadrants nw, ne, sw, se by node number, each 0
     * (empty) or an earlier node of level - 1. */
    wl_status (*node)(void *ctx, uint32_t id, int level, const uint32_t kid[4]);
    /* (optional) The text of a "#R" line (blanks around it trimmed), which starts at
     * column `col` of line `line`. */
    wl_status (*rule)(void *ctx, const char *text, size_t n, size_t line, size_t col);
    /* (optional) A comment line's text. */
    wl_status (*comment)(void *ctx, const char *text, size_t n);
} wl_mc_sink;

typedef struct wl_mc_grammar {
    const char *name;  /* the file name in messages */
    wl_mc_sink sink;
    uint64_t max_bytes; /* the node table's cap */
    struct wl_mc_entry {
        int32_t level;
        uint64_t bits; /* levels <= 3: the cells */
    } *v;              /* v[id]; v[0] is the empty node */
    size_t n, cap;     /* n = nodes so far + 1 */
    int first_is_m2;   /* 1 if the first line given was a "[M2]" line */
    size_t lines;      /* lines given so far */
} wl_mc_grammar;

/* Prepares a grammar that reports to `sink` (copied); `name` must outlive it. */
void wl_mc_init(wl_mc_grammar *g, const char *name, const wl_mc_sink *sink, uint64_t max_bytes);
/* Frees the node table. */
void wl_mc_free(wl_mc_grammar *g);
/* Takes one line c[0..n) (without its newline; a trailing CR is the caller's to strip, as
 * wl_src_peek_line does) that is line number `line` of the file. */
wl_status wl_mc_line(wl_mc_grammar *g, const char *c, size_t n, size_t line);
/* Feeds every line of a source to the grammar, from its position to the end. */
wl_status wl_mc_read(wl_mc_grammar *g, wl_src *s);

/* The number of nodes so far (the last one, when there is one, is the root), and the
 * level and (levels <= 3) cells of node id (1 <= id <= count). */
static inline uint32_t wl_mc_count(const wl_mc_grammar *g) { return g->n ? (uint32_t)(g->n - 1) : 0; }
static inline int wl_mc_level(const wl_mc_grammar *g, uint32_t id) { return g->v[id].level; }
static inline uint64_t wl_mc_bits(const wl_mc_grammar *g, uint32_t id) { return g->v[id].bits; }
/* Bytes the node table holds now. */
static inline uint64_t wl_mc_bytes(const wl_mc_grammar *g) { return (uint64_t)g->cap * sizeof *g->v; }

#endif /* WL_MCGRAMMAR_H */
