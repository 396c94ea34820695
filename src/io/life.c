/*
 * life.c - the two Life formats of the .lif / .life family.
 *
 * Life 1.05: a "#Life 1.05" line, then '#' lines and blocks of rows.
 *   #D text / #C text   description (kept as comment lines)
 *   #N                  the normal rules (B3/S23)
 *   #R rule             a rule, usually in S/B form ("23/3"); any form wl_rule_parse takes
 *   #P x y              starts a block whose first row's first cell is (x, y); "#P" alone
 *                       means (0, 0), as does a block before any #P
 *   other rows          '.' dead, '*' (or 'O') alive, one line per row going down; an
 *                       empty line is an empty row
 *   Coordinates are used exactly as the file gives them (y grows downwards).
 *
 * Life 1.06: a "#Life 1.06" line, then one "x y" pair of integers per live cell.  The same
 * '#D'/'#N'/'#R' lines are accepted anywhere; blank lines are skipped.
 *
 * One reader serves both: '#' lines and 1.06 cells are taken a line at a time, 1.05 rows
 * are parsed as they stream by (wl_rd_row).  Coordinates outside -2^62 .. 2^62 - 1 (or
 * numbers that overflow) are faults of the file, WL_ERR_PARSE.  When detection could not
 * tell the version (a file without its "#Life" line whose leading '#' lines fill the part
 * detection looks at), the first line that is not a '#' line decides: digits or '-' make
 * it 1.06, anything else 1.05 (as a "#P" line does).
 *
 * Writers: 1.05 writes the pattern's 64-column tile strips (within the format's
 * traditional 80-column lines) as #P blocks, a new block after 16 empty rows, so the
 * output follows the cells, not the bounding box; 1.06 lists live cells row by row, left
 * to right.  Both
 * write the rule as "#N" for Life, "#R S/B" for other two-state outer-totalistic rules
 * (the notation of the format), else "#R" and the canonical rule text with its
 * bounded-grid suffix.  They hold states 0 and 1 only: a multi-state rule's pattern is
 * written when its cells are all 0 or 1.
 */
#include "io_internal.h"

#include <stdlib.h>

/* The 1.05 writer's blocks are 64 columns wide (within the format's traditional
 * 80-column lines) and end after this many empty rows. */
#define LIFE105_GAP 16

static int blank(char c) { return c == ' ' || c == '\t'; }

/* Handles a '#' line c[0..n) shared by both versions (not "#P" of 1.05). */
static wl_status hash_line(wl_rd *r, const char *c, size_t n) {
    char tag = n > 1 ? c[1] : '\0';
    if (tag == 'D' || tag == 'C') {
        size_t i = 2;
        if (i < n && c[i] == ' ') i++;
        return wl_rd_comment(r, c + i, n - i);
    }
    if (tag == 'N' && (n == 2 || blank(c[2]))) {
        wl_rule rule;
        wl_rule_life(&rule);
        wl_pattern_set_rule(r->p, &rule);
        return WL_OK;
    }
    if (tag == 'R') {
        size_t i = 2;
        while (i < n && blank(c[i])) i++;
        return wl_rd_rule(r, c + i, n - i, i + 1);
    }
    if (n >= 5 && memcmp(c, "#Life", 5) == 0) return WL_OK; /* the version line */
    return wl_rd_comment(r, c + 1, n - 1);
}

/* A position a file may give (a block's corner): within +-2^62. */
static int coord_ok(int64_t v) { return v >= -WL_IO_COORD_LIMIT && v <= WL_IO_COORD_LIMIT; }

/* Parses a 1.05 "#P x y" line (c[0..n), trailing blanks trimmed) into *bx, *by. */
static wl_status block_line(wl_rd *r, const char *c, size_t n, int64_t *bx, int64_t *by) {
    size_t i = 2;
    int64_t x = 0, y = 0;
    int ovf = 0;
    char what[32];
    while (i < n && blank(c[i])) i++;
    if (i < n) {
        if (!wl_io_parse_i64(c, n, &i, &x, &ovf) || !wl_io_parse_i64(c, n, &i, &y, &ovf) ||
            i != n) {
            if (ovf)
                return wl_rd_error(r, WL_ERR_PARSE, i + 1,
                                   "block position out of range (beyond 2^62)");
            return wl_rd_error(r, WL_ERR_PARSE, i + 1,
                               "expected '#P x y' with two integers but found %s",
                               wl_io_describe(c, n, i, what));
        }
        if (!coord_ok(x) || !coord_ok(y))
            return wl_rd_error(r, WL_ERR_PARSE, 3, "block position out of range (beyond 2^62)");
    }
    *bx = x;
    *by = y;
    return WL_OK;
}

/* Parses a 1.06 cell line c[0..n) (trailing blanks trimmed, i at its first non-blank). */
static wl_status cell_line(wl_rd *r, const char *c, size_t n, size_t i) {
    int64_t x, y;
    int ovf = 0;
    char what[32];
    if (!wl_io_parse_i64(c, n, &i, &x, &ovf) || !wl_io_parse_i64(c, n, &i, &y, &ovf) || i != n) {
        if (ovf)
            return wl_rd_error(r, WL_ERR_PARSE, i + 1, "coordinate out of range (beyond 2^62)");
        while (i < n && blank(c[i])) i++;
        return wl_rd_error(r, WL_ERR_PARSE, i + 1,
                           "expected a cell as two integers 'x y' but found %s",
                           wl_io_describe(c, n, i, what));
    }
    if (x < -WL_IO_COORD_LIMIT || x >= WL_IO_COORD_LIMIT || y < -WL_IO_COORD_LIMIT ||
        y >= WL_IO_COORD_LIMIT)
        return wl_rd_error(r, WL_ERR_PARSE, 1, "coordinate out of range (beyond 2^62)");
    wl_status e = wl_pattern_set(r->p, x, y, 1);
    if (e) wl_error_prefix("%s:%zu:1", r->src->name, r->src->line);
    return e;
}

wl_status wl_life_read_src(wl_rd *r, wl_format version) {
    wl_src *s = r->src;
    int64_t bx = 0, by = 0, row = 0; /* 1.05: the block's corner, rows read in it */
    wl_status e;
    r->format = version;
    for (;;) {
        if ((e = wl_src_need(s, 2))) return e;
        if (s->pos == s->end) return WL_OK;
        const char *c;
        size_t n;
        char first = s->buf[s->pos];
        if (r->format == WL_FORMAT_AUTO && first != '#') {
            /* Not yet decided: an empty line is an empty 1.05 row or nothing in 1.06. */
            int empty = first == '\n' ||
                        (first == '\r' && (s->end - s->pos < 2 || s->buf[s->pos + 1] == '\n'));
            if (empty) {
                if ((e = wl_src_peek_line(s, WL_IO_LINE_MAX, &c, &n))) return e;
                wl_src_next_line(s);
                row++;
                continue;
            }
            r->format = (first == '-' || (first >= '0' && first <= '9')) ? WL_FORMAT_LIFE106
                                                                         : WL_FORMAT_LIFE105;
            if (r->format == WL_FORMAT_LIFE106) row = 0;
        }
        if (r->format == WL_FORMAT_LIFE105 && first != '#') {
            if (row >= WL_IO_COORD_LIMIT)
                return wl_rd_error(r, WL_ERR_PARSE, 1, "block too tall (more than 2^62 rows)");
            if ((e = wl_rd_row(r, bx, by + row, "expected '.', '*' or a '#' line"))) return e;
            row++;
            continue;
        }
        if ((e = wl_src_peek_line(s, WL_IO_LINE_MAX, &c, &n))) return e;
        while (n && blank(c[n - 1])) n--;
        if (n > 1 && c[0] == '#' && c[1] == 'P' && r->format != WL_FORMAT_LIFE106) {
            r->format = WL_FORMAT_LIFE105;
            e = block_line(r, c, n, &bx, &by);
            row = 0;
        } else if (n && c[0] == '#') {
            e = hash_line(r, c, n);
        } else {
            size_t i = 0;
            while (i < n && blank(c[i])) i++;
            if (i < n) e = cell_line(r, c, n, i); /* else a blank line */
        }
        if (e) return e;
        wl_src_next_line(s);
    }
}

/* ---- writers ----------------------------------------------------------------------- */

static wl_status write_rule_line(const wl_pattern *p, wl_iobuf *out) {
    const wl_rule *r = wl_pattern_rule(p);
    wl_rule life;
    wl_rule_life(&life);
    wl_shape sh;
    wl_pattern_shape(p, &sh);
    uint16_t b, sv;
    /* the format's own forms ("#N", "#R S/B") only where they say everything: two states
     * and no bounded-grid suffix; else the canonical text with its suffix */
    int plain = sh.topology == WL_TOPOLOGY_PLANE && wl_rule_states(r) == 2;
    if (plain && wl_rule_equal(r, &life)) {
        wl_iobuf_puts(out, "#N\n");
    } else if (plain && wl_rule_is_totalistic(r, &b, &sv)) {
        wl_iobuf_puts(out, "#R ");
        for (int k = 0; k <= 8; k++)
            if (sv >> k & 1) wl_iobuf_putc(out, (char)('0' + k));
        wl_iobuf_putc(out, '/');
        for (int k = 0; k <= 8; k++)
            if (b >> k & 1) wl_iobuf_putc(out, (char)('0' + k));
        wl_iobuf_putc(out, '\n');
    } else {
        char text[WL_RULE_TEXT_MAX];
        wl_status e = wl_rule_format(r, text, sizeof text);
        if (e) return e;
        wl_iobuf_printf(out, "#R %s", text);
        wl_io_put_grid_suffix(out, p);
        wl_iobuf_putc(out, '\n');
    }
    return WL_OK;
}

/* Writes a Life file's first lines: the version line, the comments as #D lines, the rule. */
static wl_status write_header(const wl_pattern *p, const char *version, wl_iobuf *out) {
    wl_iobuf_puts(out, version);
    wl_io_write_comments(p, "#D ", out);
    return write_rule_line(p, out);
}

/* Tiles by column strip, then top to bottom. */
static int by_columns(const void *pa, const void *pb) {
    const wl_tile_ref *a = pa, *b = pb;
    if (a->tx != b->tx) return a->tx < b->tx ? -1 : 1;
    return a->ty < b->ty ? -1 : a->ty > b->ty;
}

/* One row of a 1.05 block: '*' and '.' up to the last live cell. */
static void put_row105(wl_iobuf *out, uint64_t w) {
    int last = 63 - __builtin_clzll(w);
    if (!wl_iobuf_reserve(out, (size_t)last + 2)) return;
    for (int i = 0; i <= last; i++) out->p[out->len++] = (w >> i & 1) ? '*' : '.';
    out->p[out->len++] = '\n';
}

wl_status wl_life105_write(const wl_pattern *p, wl_iobuf *out) {
    wl_status e = write_header(p, "#Life 1.05\n", out);
    if (e) return e;
    wl_tile_ref *v;
    size_t n;
    e = wl_pattern_tiles(p, WL_TILES_ANY, 0, 0, &v, &n);
    if (e) return e;
    if (n) qsort(v, n, sizeof *v, by_columns);
    /* A block per run of rows of one 64-column strip, a new one past a gap of
     * LIFE105_GAP empty rows, so that far-apart cells cost blocks, not empty lines. */
    int64_t last = 0; /* the last row written in the current strip */
    for (size_t i = 0; i < n && !out->failed; i++) {
        int fresh = i == 0 || v[i].tx != v[i - 1].tx;
        uint64_t rows[64];
        wl_ptile_rows(v[i].t, rows);
        for (int r = 0; r < 64 && !out->failed; r++) {
            if (!rows[r]) continue;
            int64_t y = v[i].ty * 64 + r;
            if (fresh || y - last > LIFE105_GAP) {
                wl_iobuf_puts(out, "#P ");
                wl_iobuf_put_i64(out, v[i].tx * 64);
                wl_iobuf_putc(out, ' ');
                wl_iobuf_put_i64(out, y);
                wl_iobuf_putc(out, '\n');
                fresh = 0;
            } else {
                for (int64_t k = last + 1; k < y; k++) wl_iobuf_puts(out, ".\n");
            }
            put_row105(out, rows[r]);
            last = y;
        }
    }
    free(v);
    return WL_OK;
}

static wl_status life106_row(void *ctx, int64_t y, size_t n, const int64_t *x,
                             const uint64_t *w) {
    wl_iobuf *out = ctx;
    for (size_t k = 0; k < n && !out->failed; k++)
        for (uint64_t v = w[k]; v; v &= v - 1) {
            wl_iobuf_put_i64(out, x[k] + __builtin_ctzll(v));
            wl_iobuf_putc(out, ' ');
            wl_iobuf_put_i64(out, y);
            wl_iobuf_putc(out, '\n');
        }
    return WL_OK;
}

wl_status wl_life106_write(const wl_pattern *p, wl_iobuf *out) {
    wl_status e = write_header(p, "#Life 1.06\n", out);
    if (e) return e;
    return wl_pattern_each_row(p, life106_row, out);
}
