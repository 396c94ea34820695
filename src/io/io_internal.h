/*
 * io_internal.h - what the pattern-file readers and writers in src/io/ share: a growable
 * output buffer with fast number printing, parse-error helpers that produce the
 * "name:line:col: what was expected" messages, and the per-format entry points that
 * format.c dispatches to.
 *
 * Every reader takes the whole (already gunzipped) file in memory as `s[0..len)` (not
 * necessarily NUL-terminated) and fills a fresh pattern made by the caller; every writer
 * appends text to a wl_iobuf.  Nothing here touches the file system.
 */
#ifndef WL_IO_INTERNAL_H
#define WL_IO_INTERNAL_H

#include "internal.h"

#include <string.h>

/* ---- output buffer ----------------------------------------------------------------- */

/* A growable byte buffer.  Appends never fail visibly: the first allocation failure sets
 * `failed`, later appends do nothing, and the writer checks `failed` once at the end. */
typedef struct wl_iobuf {
    char *p;
    size_t len, cap;
    int failed;
} wl_iobuf;

/* Makes room for n more bytes; returns 0 (and sets failed) on out of memory. */
int wl_iobuf_reserve(wl_iobuf *b, size_t n);
void wl_iobuf_free(wl_iobuf *b);

static inline void wl_iobuf_putc(wl_iobuf *b, char c) {
    if (b->len + 1 > b->cap && !wl_iobuf_reserve(b, 1)) return;
    b->p[b->len++] = c;
}
static inline void wl_iobuf_write(wl_iobuf *b, const char *s, size_t n) {
    if (b->len + n > b->cap && !wl_iobuf_reserve(b, n)) return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
}
static inline void wl_iobuf_puts(wl_iobuf *b, const char *s) { wl_iobuf_write(b, s, strlen(s)); }

/* Writes the decimal digits of v into buf (at least 20 bytes); returns the digit count. */
static inline int wl_u64_digits(uint64_t v, char *buf) {
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (int i = 0; i < n; i++) buf[i] = tmp[n - 1 - i];
    return n;
}
void wl_iobuf_put_u64(wl_iobuf *b, uint64_t v);
void wl_iobuf_put_i64(wl_iobuf *b, int64_t v);
/* printf-style append (for headers; not for the hot paths). */
void wl_iobuf_printf(wl_iobuf *b, const char *fmt, ...) WL_PRINTF(2, 3);

/* ---- parse errors ------------------------------------------------------------------ */

/* Sets a WL_ERR_PARSE (or other status) error "name:line:col: <message>". */
wl_status wl_io_error_at(wl_status st, const char *name, size_t line, size_t col,
                         const char *fmt, ...) WL_PRINTF(5, 6);
/* Describes the byte at s[pos] for messages: "'z'", "end of line", "end of file", or
 * "byte 0x07" (buf must hold 32 bytes); returns buf. */
const char *wl_io_describe(const char *s, size_t len, size_t pos, char *buf);
/* Sets the live cells of one picture row c[0..n) ('.' dead, '*' or 'O' alive, as plaintext
 * and Life 1.05 write them) at columns x, x+1, ... of row y, one run at a time.  Any other
 * character is WL_ERR_PARSE at "name:line:col: <expected> but found <char>"; a run that
 * does not fit in memory is reported at the same place. */
wl_status wl_io_cell_row(wl_pattern *p, const char *c, size_t n, int64_t x, int64_t y,
                         const char *name, size_t line, const char *expected);
/* Parses rule text `text[0..n)` with wl_rule_parse; on failure prefixes the rule error with
 * "name:line:col: " and returns WL_ERR_PARSE.  A Golly topology suffix (":T100,50",
 * ":P...") is not part of a rule: it is dropped and, when `comments` is non-NULL, noted
 * there as a comment line, so that bounded-grid patterns from Golly still load. */
wl_status wl_io_parse_rule(const char *text, size_t n, const char *name, size_t line,
                           size_t col, wl_rule *out, wl_iobuf *comments);
/* Appends one comment line (no newline inside) to a '\n'-joined comment buffer. */
void wl_io_add_comment(wl_iobuf *comments, const char *text, size_t n);
/* Stores the collected comments into the pattern (consumes nothing; caller frees). */
wl_status wl_io_store_comments(wl_pattern *p, wl_iobuf *comments);

/* Length of the line starting at s[pos] (up to, not including, '\n'; a '\r' before the
 * '\n' is excluded too). */
size_t wl_io_line_len(const char *s, size_t len, size_t pos);
/* The start of the line after the one holding pos (just past its '\n'), or len. */
size_t wl_io_next_line(const char *s, size_t len, size_t pos);

/* Parses a signed decimal integer at s[*pos] (after optional spaces); returns 0 if there
 * is none or it overflows (then *overflow is set to 1 when it was digits). */
int wl_io_parse_i64(const char *s, size_t end, size_t *pos, int64_t *out, int *overflow);

/* ---- formats ----------------------------------------------------------------------- */

wl_status wl_rle_read(const char *s, size_t len, const char *name, wl_pattern *p);
wl_status wl_rle_write(const wl_pattern *p, wl_iobuf *out);
wl_status wl_plaintext_read(const char *s, size_t len, const char *name, wl_pattern *p);
wl_status wl_plaintext_write(const wl_pattern *p, wl_iobuf *out);
wl_status wl_life105_read(const char *s, size_t len, const char *name, wl_pattern *p);
wl_status wl_life105_write(const wl_pattern *p, wl_iobuf *out);
wl_status wl_life106_read(const char *s, size_t len, const char *name, wl_pattern *p);
wl_status wl_life106_write(const wl_pattern *p, wl_iobuf *out);
wl_status wl_macrocell_read(const char *s, size_t len, const char *name, wl_pattern *p);
wl_status wl_macrocell_write(const wl_pattern *p, wl_iobuf *out);

/* Detects the format of (gunzipped) content; `path_hint` (may be NULL) breaks ties for
 * content that carries no marker. */
wl_format wl_io_detect(const char *s, size_t len, const char *path_hint);

/* Writes the pattern's comments as lines "<prefix><line>\n". */
void wl_io_write_comments(const wl_pattern *p, const char *prefix, wl_iobuf *out);

/* Scans a row bitmap of n bits for the next live (dead) cell at or after `from`; returns
 * n if there is none. */
static inline uint64_t wl_io_next_one(const uint64_t *w, uint64_t n, uint64_t from) {
    if (from >= n) return n;
    uint64_t i = from / 64, nw = (n + 63) / 64;
    uint64_t v = w[i] & (~(uint64_t)0 << (from % 64));
    while (!v) {
        if (++i >= nw) return n;
        v = w[i];
    }
    uint64_t r = i * 64 + (uint64_t)__builtin_ctzll(v);
    return r < n ? r : n;
}

static inline uint64_t wl_io_next_zero(const uint64_t *w, uint64_t n, uint64_t from) {
    if (from >= n) return n;
    uint64_t i = from / 64, nw = (n + 63) / 64;
    uint64_t v = ~w[i] & (~(uint64_t)0 << (from % 64));
    while (!v) {
        if (++i >= nw) return n;
        v = ~w[i];
    }
    uint64_t r = i * 64 + (uint64_t)__builtin_ctzll(v);
    return r < n ? r : n;
}


#endif /* WL_IO_INTERNAL_H */
