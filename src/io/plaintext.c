/*
 * plaintext.c - the plaintext format (.cells): one text line per row of cells.
 *
 * Lines starting with '!' are comments (kept without the '!' and one following space).
 * Every other line is a row, top to bottom: '.' is a dead cell, 'O' (or '*') a live one;
 * trailing spaces and a CR before the newline are ignored, and an empty line is an empty
 * row.  The first row's first cell is (0, 0): the format has no position, so placement is
 * always top-left at the origin.  Anything else in a row is a parse error that names the
 * line and column.
 *
 * Reading streams: comment lines are taken whole, rows are parsed byte by byte as the
 * input arrives (wl_rd_row), so a row may be as long as the pattern allows without being
 * held in memory as text.  The writer emits the comments as "!" lines, then the rows of
 * the bounding box with trailing dead cells trimmed (an empty row is written as a single
 * '.', which some other readers need).  Runs of live cells go into the bitmap with
 * wl_pattern_set_run.
 */
#include "io_internal.h"

#include <stdlib.h>

wl_status wl_plaintext_read_src(wl_rd *r) {
    wl_src *s = r->src;
    int64_t y = 0;
    for (;;) {
        wl_status e = wl_src_need(s, 1);
        if (e) return e;
        if (s->pos == s->end) return WL_OK;
        if (s->buf[s->pos] == '!') {
            const char *c;
            size_t n;
            e = wl_src_peek_line(s, WL_IO_LINE_MAX, &c, &n);
            if (e) return e;
            size_t i = 1;
            if (i < n && c[i] == ' ') i++;
            e = wl_rd_comment(r, c + i, n - i);
            if (e) return e;
            wl_src_next_line(s);
            continue;
        }
        e = wl_rd_row(r, 0, y, "expected '.', 'O' or '*'");
        if (e) return e;
        y++;
    }
}

wl_status wl_plaintext_write(const wl_pattern *p, wl_iobuf *out) {
    /* "!" + text; a text that starts with a space gets "! " so that the reader, which
     * drops one space after the '!', gives it back unchanged. */
    const char *c = wl_pattern_comments(p);
    while (*c) {
        const char *nl = strchr(c, '\n');
        size_t n = nl ? (size_t)(nl - c) : strlen(c);
        wl_iobuf_puts(out, c[0] == ' ' ? "! " : "!");
        wl_iobuf_write(out, c, n);
        wl_iobuf_putc(out, '\n');
        c += n;
        if (*c == '\n') c++;
    }
    wl_rect r;
    if (!wl_pattern_bounds(p, &r)) return WL_OK;
    size_t nw = (size_t)((r.w + 63) / 64);
    uint64_t *row = wl_malloc(nw * sizeof(uint64_t));
    if (!row) return WL_ERR_NOMEM;
    for (uint64_t ry = 0; ry < r.h && !out->failed; ry++) {
        wl_pattern_get_row(p, r.x, r.y + (int64_t)ry, r.w, row);
        uint64_t at = 0, a = wl_io_next_one(row, r.w, 0);
        if (a == r.w) {
            wl_iobuf_puts(out, ".\n");
            continue;
        }
        while (a < r.w) {
            uint64_t z = wl_io_next_zero(row, r.w, a);
            if (!wl_iobuf_reserve(out, (size_t)(z - at))) break;
            memset(out->p + out->len, '.', (size_t)(a - at));
            memset(out->p + out->len + (a - at), 'O', (size_t)(z - a));
            out->len += (size_t)(z - at);
            at = z;
            a = wl_io_next_one(row, r.w, z);
        }
        wl_iobuf_putc(out, '\n');
    }
    free(row);
    return WL_OK;
}
