/*
 * ioutil.c - helpers shared by the pattern-file readers and writers: the growable output
 * buffer, parse-error messages with file:line:col, and the reader context's work that
 * every format shares: comments and rules found in a file, the reading limit, and rows
 * of '.'/'*'/'O' cells parsed as they stream by (plaintext and Life 1.05 rows; bit
 * scanning over row bitmaps is inline in io_internal.h).
 */
#include "io_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int wl_iobuf_reserve(wl_iobuf *b, size_t n) {
    if (b->failed) return 0;
    if (b->len + n <= b->cap) return 1;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n) {
        if (cap > SIZE_MAX / 2) {
            b->failed = 1;
            return 0;
        }
        cap *= 2;
    }
    char *np = realloc(b->p, cap);
    if (!np) {
        b->failed = 1;
        return 0;
    }
    b->p = np;
    b->cap = cap;
    return 1;
}

void wl_iobuf_free(wl_iobuf *b) {
    free(b->p);
    memset(b, 0, sizeof *b);
}

void wl_iobuf_put_u64(wl_iobuf *b, uint64_t v) {
    if (b->len + 20 > b->cap && !wl_iobuf_reserve(b, 20)) return;
    b->len += (size_t)wl_u64_digits(v, b->p + b->len);
}

void wl_iobuf_put_i64(wl_iobuf *b, int64_t v) {
    if (v < 0) {
        wl_iobuf_putc(b, '-');
        wl_iobuf_put_u64(b, (uint64_t)0 - (uint64_t)v);
    } else {
        wl_iobuf_put_u64(b, (uint64_t)v);
    }
}

void wl_iobuf_printf(wl_iobuf *b, const char *fmt, ...) {
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof tmp) {
        wl_iobuf_write(b, tmp, (size_t)n);
        return;
    }
    if (!wl_iobuf_reserve(b, (size_t)n + 1)) return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

wl_status wl_io_error_at(wl_status st, const char *name, size_t line, size_t col,
                         const char *fmt, ...) {
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return wl_error(st, "%s:%zu:%zu: %s", name ? name : "<memory>", line, col, msg);
}

const char *wl_io_describe_byte(int c, char *buf) {
    if (c < 0) return "end of file";
    if (c == '\n' || c == '\r') return "end of line";
    if (c >= 0x20 && c < 0x7f)
        snprintf(buf, 32, "'%c'", c);
    else
        snprintf(buf, 32, "byte 0x%02x", (unsigned)c);
    return buf;
}

const char *wl_io_describe(const char *s, size_t len, size_t pos, char *buf) {
    if (pos >= len) return "end of line";
    return wl_io_describe_byte((unsigned char)s[pos], buf);
}

void wl_io_put_grid_suffix(wl_iobuf *out, const wl_pattern *p) {
    wl_shape sh;
    char t[96];
    wl_pattern_shape(p, &sh);
    if (wl_shape_format(&sh, t, sizeof t) == WL_OK) wl_iobuf_puts(out, t);
}

wl_status wl_io_parse_rule(const char *text, size_t n, const char *name, size_t line,
                           size_t col, wl_rule *out, wl_shape *shape) {
    char tmp[WL_RULE_TEXT_MAX * 2];
    while (n && (text[n - 1] == ' ' || text[n - 1] == '\t' || text[n - 1] == '\r')) n--;
    if (n >= sizeof tmp)
        return wl_io_error_at(WL_ERR_PARSE, name, line, col, "rule text too long (%zu characters)",
                              n);
    if (n == 0) return wl_io_error_at(WL_ERR_PARSE, name, line, col, "expected a rule");
    memcpy(tmp, text, n);
    tmp[n] = '\0';
    wl_shape sh;
    wl_status s = wl_rule_parse_grid(tmp, out, &sh);
    if (s != WL_OK) {
        wl_error_prefix("%s:%zu:%zu", name ? name : "<memory>", line, col);
        return WL_ERR_PARSE;
    }
    if (shape) *shape = sh;
    return WL_OK;
}

void wl_io_add_comment(wl_iobuf *comments, const char *text, size_t n) {
    while (n && (text[n - 1] == '\r' || text[n - 1] == ' ' || text[n - 1] == '\t')) n--;
    if (comments->len) wl_iobuf_putc(comments, '\n');
    for (size_t i = 0; i < n; i++) /* keep the text printable and on one line */
        wl_iobuf_putc(comments, text[i] == '\0' ? ' ' : text[i]);
}

int wl_io_parse_i64(const char *s, size_t end, size_t *pos, int64_t *out, int *overflow) {
    size_t i = *pos;
    while (i < end && (s[i] == ' ' || s[i] == '\t')) i++;
    int neg = 0;
    if (i < end && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
    if (i >= end || s[i] < '0' || s[i] > '9') return 0;
    uint64_t v = 0;
    while (i < end && s[i] >= '0' && s[i] <= '9') {
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > ((uint64_t)INT64_MAX - d) / 10) {
            if (overflow) *overflow = 1;
            return 0;
        }
        v = v * 10 + d;
        i++;
    }
    *out = neg ? -(int64_t)v : (int64_t)v;
    *pos = i;
    return 1;
}

void wl_io_write_comments(const wl_pattern *p, const char *prefix, wl_iobuf *out) {
    const char *c = wl_pattern_comments(p);
    while (*c) {
        const char *nl = strchr(c, '\n');
        size_t n = nl ? (size_t)(nl - c) : strlen(c);
        wl_iobuf_puts(out, prefix);
        wl_iobuf_write(out, c, n);
        wl_iobuf_putc(out, '\n');
        c += n;
        if (*c == '\n') c++;
    }
}

/* ---- the reader context ------------------------------------------------------------- */

wl_status wl_rd_error(const wl_rd *r, wl_status st, size_t col, const char *fmt, ...) {
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return wl_io_error_at(st, r->src->name, r->src->line, col, "%s", msg);
}

wl_status wl_rd_over_limit(const wl_rd *r, uint64_t bytes, const char *what) {
    char need[32], lim[32];
    return wl_error(WL_ERR_TOO_BIG, "%s:%zu: %s would take %s, more than the reading limit of %s",
                    r->src->name, r->src->line, what, wl_bytes_text(bytes, need),
                    wl_bytes_text(r->limit, lim));
}

wl_status wl_rd_comment(wl_rd *r, const char *text, size_t n) {
    wl_io_add_comment(&r->comments, text, n);
    uint64_t bytes = r->comments.len + wl_pattern_storage_bytes(r->p);
    if (bytes > r->limit) return wl_rd_over_limit(r, bytes, "the pattern with its comments");
    return WL_OK;
}

wl_status wl_rd_rule(wl_rd *r, const char *text, size_t n, size_t col) {
    wl_rule rule;
    wl_shape sh;
    wl_status e = wl_io_parse_rule(text, n, r->src->name, r->src->line, col, &rule, &sh);
    if (!e) {
        wl_pattern_set_rule(r->p, &rule);
        wl_pattern_set_shape(r->p, &sh);
    }
    return e;
}

/* Sets the live run of `len` cells ending before column x of a row (x counts from 0 at
 * x0).  Errors carry the run's position (its column is x - len + 1: rows start lines). */
static wl_status row_run(wl_rd *r, int64_t x0, int64_t y, uint64_t x, uint64_t len) {
    uint64_t first = x - len;
    if (y < -WL_IO_COORD_LIMIT || y >= WL_IO_COORD_LIMIT ||
        x - 1 >= (uint64_t)WL_IO_COORD_LIMIT - (uint64_t)x0) /* x0 + x - 1 >= 2^62 */
        return wl_rd_error(r, WL_ERR_PARSE, (size_t)first + 1,
                           "cell coordinates out of range (beyond 2^62)");
    wl_status e = wl_pattern_set_run(r->p, x0 + (int64_t)first, y, len);
    if (e) wl_error_prefix("%s:%zu:%zu", r->src->name, r->src->line, (size_t)first + 1);
    return e;
}

wl_status wl_rd_row(wl_rd *r, int64_t x0, int64_t y, const char *expected) {
    wl_src *s = r->src;
    const char *b = s->buf;
    size_t pos = s->pos, end = s->end;
    uint64_t x = 0, run = 0; /* cells so far; live cells just before x */
    /* Blanks and CRs after the last cell: harmless at the end of the line (a CR only as
     * its last byte), an error at the first of them if a cell follows. */
    uint64_t blanks = 0, crs = 0;
    size_t blank_col = 0;
    int blank_first = 0, last_cr = 0;
    char what[32];
    wl_status e = WL_OK;
    for (;;) {
        if (pos == end) {
            if ((e = wl_src_refill(s, &b, &pos, &end))) return e;
            if (pos == end) break; /* end of input: the row ends too */
        }
        char c = b[pos];
        if (c == '.' || c == '*' || c == 'O') {
            if (blanks)
                return wl_rd_error(r, WL_ERR_PARSE, blank_col, "%s but found %s", expected,
                                   wl_io_describe_byte(blank_first, what));
            if (c == '.') {
                if (run && (e = row_run(r, x0, y, x, run))) return e;
                run = 0;
            } else {
                run++;
            }
            x++;
            pos++;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r') {
            if (run && (e = row_run(r, x0, y, x, run))) return e;
            run = 0;
            if (!blanks++) {
                blank_col = wl_src_col(s, pos);
                blank_first = c;
            }
            crs += c == '\r';
            last_cr = c == '\r';
            pos++;
            continue;
        }
        if (c == '\n') break;
        s->pos = pos;
        if (blanks)
            return wl_rd_error(r, WL_ERR_PARSE, blank_col, "%s but found %s", expected,
                               wl_io_describe_byte(blank_first, what));
        return wl_rd_error(r, WL_ERR_PARSE, wl_src_col(s, pos), "%s but found %s", expected,
                           wl_io_describe_byte((unsigned char)c, what));
    }
    s->pos = pos;
    if (run && (e = row_run(r, x0, y, x, run))) return e;
    if (crs > (uint64_t)last_cr) /* a CR that is not the line's last byte */
        return wl_rd_error(r, WL_ERR_PARSE, blank_col, "%s but found %s", expected,
                           wl_io_describe_byte(blank_first, what));
    if (pos < end) { /* the newline */
        s->pos = pos + 1;
        wl_src_newline(s, pos);
    }
    return WL_OK;
}
