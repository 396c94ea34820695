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
 * Writers: 1.05 cuts the bounding box into vertical strips of at most 80 columns (the
 * format's traditional line limit) and writes one #P block per strip that has live cells,
 * trimmed to that strip's own rows; 1.06 lists live cells row by row, left to right.  Both
 * write the rule as "#N" for Life, "#R S/B" for other outer-totalistic rules (the
 * notation of the format), else "#R" and the canonical rule text.
 */
#include "io_internal.h"

#include <stdlib.h>

/* Columns per #P block in the 1.05 writer (the format's traditional 80-column lines). */
#define LIFE105_STRIP 80
/* Coordinates beyond 2^62 do not fit a pattern's signed 64-bit room. */
#define LIFE_COORD_LIMIT ((int64_t)1 << 62)

static int blank(char c) { return c == ' ' || c == '\t'; }

/* Handles a '#' line shared by both versions; *handled is 0 for "#P" (1.05 decides). */
static wl_status hash_line(const char *c, size_t n, const char *name, size_t line,
                           wl_pattern *p, wl_iobuf *comments) {
    char tag = n > 1 ? c[1] : '\0';
    if (tag == 'D' || tag == 'C') {
        size_t i = 2;
        if (i < n && c[i] == ' ') i++;
        wl_io_add_comment(comments, c + i, n - i);
    } else if (tag == 'N' && (n == 2 || blank(c[2]))) {
        wl_rule r;
        wl_rule_life(&r);
        wl_pattern_set_rule(p, &r);
    } else if (tag == 'R') {
        size_t i = 2;
        while (i < n && blank(c[i])) i++;
        wl_rule r;
        wl_status e = wl_io_parse_rule(c + i, n - i, name, line, i + 1, &r, comments);
        if (e) return e;
        wl_pattern_set_rule(p, &r);
    } else if (n >= 5 && memcmp(c, "#Life", 5) == 0) {
        /* the version line */
    } else {
        wl_io_add_comment(comments, c + 1, n - 1);
    }
    return WL_OK;
}

static int coord_ok(int64_t v) { return v >= -LIFE_COORD_LIMIT && v <= LIFE_COORD_LIMIT; }

wl_status wl_life105_read(const char *s, size_t len, const char *name, wl_pattern *p) {
    wl_iobuf comments = {0};
    wl_status e = WL_OK;
    size_t pos = 0, line = 1;
    int64_t bx = 0, by = 0, row = 0;
    char what[32];
    if (len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) pos = 3;
    for (; pos < len; line++) {
        size_t n = wl_io_line_len(s, len, pos);
        const char *c = s + pos;
        while (n && blank(c[n - 1])) n--;
        if (n && c[0] == '#') {
            if (n > 1 && c[1] == 'P') {
                size_t i = 2;
                int64_t x = 0, y = 0;
                int ovf = 0;
                while (i < n && blank(c[i])) i++;
                if (i < n) {
                    if (!wl_io_parse_i64(c, n, &i, &x, &ovf) ||
                        !wl_io_parse_i64(c, n, &i, &y, &ovf) || i != n) {
                        e = wl_io_error_at(ovf ? WL_ERR_TOO_BIG : WL_ERR_PARSE, name, line, i + 1,
                                           "expected '#P x y' with two integers but found %s",
                                           wl_io_describe(c, n, i, what));
                        goto done;
                    }
                    if (!coord_ok(x) || !coord_ok(y)) {
                        e = wl_io_error_at(WL_ERR_TOO_BIG, name, line, 3,
                                           "block position out of range");
                        goto done;
                    }
                }
                bx = x;
                by = y;
                row = 0;
            } else {
                e = hash_line(c, n, name, line, p, &comments);
                if (e) goto done;
            }
        } else {
            if (row >= LIFE_COORD_LIMIT) {
                e = wl_io_error_at(WL_ERR_TOO_BIG, name, line, 1, "block too tall");
                goto done;
            }
            e = wl_io_cell_row(p, c, n, bx, by + row, name, line,
                               "expected '.', '*' or a '#' line");
            if (e) goto done;
            row++;
        }
        pos = wl_io_next_line(s, len, pos);
    }
    e = wl_io_store_comments(p, &comments);
done:
    wl_iobuf_free(&comments);
    return e;
}

wl_status wl_life106_read(const char *s, size_t len, const char *name, wl_pattern *p) {
    wl_iobuf comments = {0};
    wl_status e = WL_OK;
    size_t pos = 0, line = 1;
    char what[32];
    if (len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) pos = 3;
    for (; pos < len; line++) {
        size_t n = wl_io_line_len(s, len, pos);
        const char *c = s + pos;
        while (n && blank(c[n - 1])) n--;
        size_t i = 0;
        while (i < n && blank(c[i])) i++;
        if (i == n) {
            /* blank line */
        } else if (c[0] == '#') {
            e = hash_line(c, n, name, line, p, &comments);
            if (e) goto done;
        } else {
            int64_t x, y;
            int ovf = 0;
            if (!wl_io_parse_i64(c, n, &i, &x, &ovf) || !wl_io_parse_i64(c, n, &i, &y, &ovf) ||
                i != n) {
                if (!ovf) while (i < n && blank(c[i])) i++;
                e = wl_io_error_at(ovf ? WL_ERR_TOO_BIG : WL_ERR_PARSE, name, line, i + 1,
                                   ovf ? "coordinate out of range"
                                       : "expected a cell as two integers 'x y' but found %s",
                                   wl_io_describe(c, n, i, what));
                goto done;
            }
            if (!coord_ok(x) || !coord_ok(y)) {
                e = wl_io_error_at(WL_ERR_TOO_BIG, name, line, 1, "coordinate out of range");
                goto done;
            }
            e = wl_pattern_set(p, x, y, 1);
            if (e) {
                wl_error_prefix("%s:%zu:1", name, line);
                goto done;
            }
        }
        pos = wl_io_next_line(s, len, pos);
    }
    e = wl_io_store_comments(p, &comments);
done:
    wl_iobuf_free(&comments);
    return e;
}

/* ---- writers ----------------------------------------------------------------------- */

static wl_status write_rule_line(const wl_pattern *p, wl_iobuf *out) {
    const wl_rule *r = wl_pattern_rule(p);
    wl_rule life;
    wl_rule_life(&life);
    uint16_t b, sv;
    if (wl_rule_equal(r, &life)) {
        wl_iobuf_puts(out, "#N\n");
    } else if (wl_rule_is_totalistic(r, &b, &sv)) {
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
        wl_iobuf_printf(out, "#R %s\n", text);
    }
    return WL_OK;
}

/* Writes a Life file's first lines: the version line, the comments as #D lines, the rule. */
static wl_status write_header(const wl_pattern *p, const char *version, wl_iobuf *out) {
    wl_iobuf_puts(out, version);
    wl_io_write_comments(p, "#D ", out);
    return write_rule_line(p, out);
}

wl_status wl_life105_write(const wl_pattern *p, wl_iobuf *out) {
    wl_status e = write_header(p, "#Life 1.05\n", out);
    if (e) return e;
    wl_rect r;
    if (!wl_pattern_bounds(p, &r)) return WL_OK;
    uint64_t row[(LIFE105_STRIP + 63) / 64];
    for (uint64_t sx = 0; sx < r.w && !out->failed; sx += LIFE105_STRIP) {
        uint64_t sw = r.w - sx < LIFE105_STRIP ? r.w - sx : LIFE105_STRIP;
        int64_t x0 = r.x + (int64_t)sx;
        /* This strip's first and last rows with live cells. */
        uint64_t top = r.h, bottom = 0;
        for (uint64_t ry = 0; ry < r.h; ry++) {
            wl_pattern_get_row(p, x0, r.y + (int64_t)ry, sw, row);
            if (wl_io_next_one(row, sw, 0) < sw) {
                if (top == r.h) top = ry;
                bottom = ry;
            }
        }
        if (top == r.h) continue;
        wl_iobuf_puts(out, "#P ");
        wl_iobuf_put_i64(out, x0);
        wl_iobuf_putc(out, ' ');
        wl_iobuf_put_i64(out, r.y + (int64_t)top);
        wl_iobuf_putc(out, '\n');
        for (uint64_t ry = top; ry <= bottom; ry++) {
            wl_pattern_get_row(p, x0, r.y + (int64_t)ry, sw, row);
            uint64_t last = 0;
            for (uint64_t i = 0; i < sw; i++)
                if (row[i / 64] >> (i % 64) & 1) last = i + 1;
            if (!last) {
                wl_iobuf_putc(out, '.');
            } else {
                for (uint64_t i = 0; i < last; i++)
                    wl_iobuf_putc(out, (row[i / 64] >> (i % 64) & 1) ? '*' : '.');
            }
            wl_iobuf_putc(out, '\n');
        }
    }
    return WL_OK;
}

wl_status wl_life106_write(const wl_pattern *p, wl_iobuf *out) {
    wl_status e = write_header(p, "#Life 1.06\n", out);
    if (e) return e;
    wl_rect r;
    if (!wl_pattern_bounds(p, &r)) return WL_OK;
    size_t nw = (size_t)((r.w + 63) / 64);
    uint64_t *row = wl_malloc(nw * sizeof(uint64_t));
    if (!row) return WL_ERR_NOMEM;
    for (uint64_t ry = 0; ry < r.h && !out->failed; ry++) {
        int64_t y = r.y + (int64_t)ry;
        wl_pattern_get_row(p, r.x, y, r.w, row);
        for (uint64_t a = wl_io_next_one(row, r.w, 0); a < r.w;
             a = wl_io_next_one(row, r.w, a + 1)) {
            wl_iobuf_put_i64(out, r.x + (int64_t)a);
            wl_iobuf_putc(out, ' ');
            wl_iobuf_put_i64(out, y);
            wl_iobuf_putc(out, '\n');
        }
    }
    free(row);
    return WL_OK;
}
