/*
 * ioutil.c - helpers shared by the pattern-file readers and writers: the growable output
 * buffer, parse-error messages with file:line:col, and comment collection (bit scanning
 * over row bitmaps is inline in io_internal.h).
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

const char *wl_io_describe(const char *s, size_t len, size_t pos, char *buf) {
    if (pos >= len) return "end of file";
    unsigned char c = (unsigned char)s[pos];
    if (c == '\n' || c == '\r') return "end of line";
    if (c >= 0x20 && c < 0x7f)
        snprintf(buf, 32, "'%c'", c);
    else
        snprintf(buf, 32, "byte 0x%02x", c);
    return buf;
}

wl_status wl_io_parse_rule(const char *text, size_t n, const char *name, size_t line,
                           size_t col, wl_rule *out, wl_iobuf *comments) {
    char tmp[WL_RULE_TEXT_MAX * 2];
    while (n && (text[n - 1] == ' ' || text[n - 1] == '\t' || text[n - 1] == '\r')) n--;
    const char *colon = memchr(text, ':', n);
    if (colon && colon + 1 < text + n && (colon[1] == 'T' || colon[1] == 'P')) {
        size_t k = (size_t)(colon - text);
        if (comments) {
            char note[160];
            int m =
                snprintf(note, sizeof note, "warplife: topology suffix '%.*s' of the rule ignored",
                         (int)(n - k > 100 ? 100 : n - k), colon);
            if (m > 0)
                wl_io_add_comment(comments, note,
                                  (size_t)m < sizeof note ? (size_t)m : sizeof note - 1);
        }
        n = k;
    }
    if (n >= sizeof tmp)
        return wl_io_error_at(WL_ERR_PARSE, name, line, col, "rule text too long (%zu characters)",
                              n);
    if (n == 0) return wl_io_error_at(WL_ERR_PARSE, name, line, col, "expected a rule");
    memcpy(tmp, text, n);
    tmp[n] = '\0';
    wl_status s = wl_rule_parse(tmp, out);
    if (s != WL_OK) {
        wl_error_prefix("%s:%zu:%zu", name ? name : "<memory>", line, col);
        return WL_ERR_PARSE;
    }
    return WL_OK;
}

void wl_io_add_comment(wl_iobuf *comments, const char *text, size_t n) {
    while (n && (text[n - 1] == '\r' || text[n - 1] == ' ' || text[n - 1] == '\t')) n--;
    if (comments->len) wl_iobuf_putc(comments, '\n');
    for (size_t i = 0; i < n; i++) /* keep the text printable and on one line */
        wl_iobuf_putc(comments, text[i] == '\0' ? ' ' : text[i]);
}

wl_status wl_io_store_comments(wl_pattern *p, wl_iobuf *comments) {
    if (comments->failed) return wl_error(WL_ERR_NOMEM, "out of memory collecting comments");
    wl_iobuf_putc(comments, '\0');
    if (comments->failed) return wl_error(WL_ERR_NOMEM, "out of memory collecting comments");
    return wl_pattern_set_comments(p, comments->p);
}

size_t wl_io_line_len(const char *s, size_t len, size_t pos) {
    const char *nl = pos < len ? memchr(s + pos, '\n', len - pos) : NULL;
    size_t n = nl ? (size_t)(nl - (s + pos)) : len - pos;
    if (n && s[pos + n - 1] == '\r') n--;
    return n;
}

size_t wl_io_next_line(const char *s, size_t len, size_t pos) {
    const char *nl = pos < len ? memchr(s + pos, '\n', len - pos) : NULL;
    return nl ? (size_t)(nl - s) + 1 : len;
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

wl_status wl_io_cell_row(wl_pattern *p, const char *c, size_t n, int64_t x, int64_t y,
                         const char *name, size_t line, const char *expected) {
    size_t i = 0;
    while (i < n) {
        if (c[i] == '.') {
            i++;
            continue;
        }
        if (c[i] != '*' && c[i] != 'O') {
            char what[32];
            return wl_io_error_at(WL_ERR_PARSE, name, line, i + 1, "%s but found %s", expected,
                                  wl_io_describe(c, n, i, what));
        }
        size_t j = i;
        while (j < n && (c[j] == '*' || c[j] == 'O')) j++;
        wl_status e = wl_pattern_set_run(p, x + (int64_t)i, y, j - i);
        if (e) {
            wl_error_prefix("%s:%zu:%zu", name, line, i + 1);
            return e;
        }
        i = j;
    }
    return WL_OK;
}
