/*
 * io_internal.h - what the pattern-file readers and writers in src/io/ share: a growable
 * output buffer with fast number printing, the reader context (wl_rd) with its helpers
 * for comments, rules, rows of cells and "name:line:col: what was expected" messages, and
 * the per-format entry points that format.c dispatches to.
 *
 * Every reader consumes a byte source (iosrc.h) as it streams by, a window at a time, and
 * fills a fresh pattern made by the caller; no reader needs the whole file in memory, and
 * each stops at the first byte that cannot belong to its format.  Every writer appends
 * text to a wl_iobuf.  Only the byte source touches the file system (to read).
 */
#ifndef WL_IO_INTERNAL_H
#define WL_IO_INTERNAL_H

#include "internal.h"
#include "iosrc.h"

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
/* Describes the byte at s[pos] of a line s[0..len) for messages: "'z'", "end of line" (for
 * pos >= len, '\r' and '\n'), or "byte 0x07" (buf must hold 32 bytes); returns buf or a
 * constant. */
const char *wl_io_describe(const char *s, size_t len, size_t pos, char *buf);
/* The same for one byte c (0..255), or "end of file" for c < 0. */
const char *wl_io_describe_byte(int c, char *buf);
/* Parses rule text `text[0..n)` with wl_rule_parse_grid (a Golly bounded-grid suffix
 * such as ":T30,20" goes to *shape, which may be NULL); on failure prefixes the error with
 * "name:line:col: " and returns WL_ERR_PARSE. */
wl_status wl_io_parse_rule(const char *text, size_t n, const char *name, size_t line,
                           size_t col, wl_rule *out, wl_shape *shape);
/* Writes the pattern's grid as Golly's rule suffix (":T30+5,20", ":K30*,20", ...; nothing
 * on the plane), to follow the rule text. */
void wl_io_put_grid_suffix(wl_iobuf *out, const wl_pattern *p);
/* Multi-state macrocell (mc_states.c): a reader of node lines for a rule of `states`
 * states (its table counted against `limit` bytes), which then paints the tree into a
 * pattern; and the writer of a pattern's node lines (after the header lines). */
typedef struct wl_mcs wl_mcs;
wl_mcs *wl_mcs_new(const char *name, uint64_t limit, unsigned states);
void wl_mcs_free(wl_mcs *m);
size_t wl_mcs_count(const wl_mcs *m); /* node lines read */
wl_status wl_mcs_line(wl_mcs *m, const char *c, size_t n, size_t line);
wl_status wl_mcs_place(const wl_mcs *m, wl_pattern *p);
wl_status wl_mcs_write(const wl_pattern *p, wl_iobuf *out);

/* Appends one comment line (no newline inside) to a '\n'-joined comment buffer. */
void wl_io_add_comment(wl_iobuf *comments, const char *text, size_t n);

/* Parses a signed decimal integer at s[*pos] (after optional spaces); returns 0 if there
 * is none or it overflows (then *overflow is set to 1 when it was digits). */
int wl_io_parse_i64(const char *s, size_t end, size_t *pos, int64_t *out, int *overflow);

/* ---- the reader context -------------------------------------------------------------- */

/* Cells of a pattern have coordinates -2^62 <= x, y < 2^62; a file that places a cell
 * outside is WL_ERR_PARSE (a fault of the file, whatever the machine). */
#define WL_IO_COORD_LIMIT ((int64_t)1 << 62)

/* What a reader works with.  `limit` caps what the pattern may grow to while it is read:
 * its bitmap (enforced by the pattern itself through p->limit), the comments and the
 * reader's own tables (checked by the reader); past it reading stops with WL_ERR_TOO_BIG
 * and a message naming the limit. */
typedef struct wl_rd {
    wl_src *src;
    wl_pattern *p;
    wl_iobuf comments; /* comment lines, '\n'-joined, stored into p at the end */
    uint64_t limit;
    wl_format format;  /* what was read; the Life reader sets 1.05 or 1.06 when it knows */
    int header_only;   /* wl_read_opts.header_only */
} wl_rd;

/* Sets an error "name:line:col: <message>" at the source's current line. */
wl_status wl_rd_error(const wl_rd *r, wl_status st, size_t col, const char *fmt, ...)
    WL_PRINTF(4, 5);
/* The WL_ERR_TOO_BIG error of a reader whose pattern would need `bytes` (comments and
 * tables included), more than r->limit: "name:line: <what> would take N, more than the
 * reading limit of L". */
wl_status wl_rd_over_limit(const wl_rd *r, uint64_t bytes, const char *what);
/* Keeps one comment line (text[0..n), trailing blanks dropped); WL_ERR_TOO_BIG when the
 * comments push the pattern past the limit. */
wl_status wl_rd_comment(wl_rd *r, const char *text, size_t n);
/* Parses a rule found at column col of the current line and makes it the pattern's. */
wl_status wl_rd_rule(wl_rd *r, const char *text, size_t n, size_t col);
/* Reads one picture row as it streams by, from buf[pos] (the start of a line) up to and
 * including its '\n': '.' a dead cell, '*' or 'O' a live one, at x0, x0 + 1, ... of row
 * y; trailing blanks and a CR before the newline are ignored.  Any other byte is
 * WL_ERR_PARSE "name:line:col: <expected> but found <byte>"; a live cell outside the
 * coordinate range is WL_ERR_PARSE; a pattern that outgrows memory or the limit is
 * WL_ERR_TOO_BIG at the run's position. */
wl_status wl_rd_row(wl_rd *r, int64_t x0, int64_t y, const char *expected);

/* ---- formats ----------------------------------------------------------------------- */

/* The readers: each consumes r->src from its current position (after any byte order mark)
 * and fills r->p and r->comments.  The Life reader takes WL_FORMAT_LIFE105, _LIFE106, or
 * WL_FORMAT_AUTO to decide from the first line that is not a '#' line (digits or '-':
 * 1.06, anything else 1.05), and sets r->format to the version read. */
wl_status wl_rle_read_src(wl_rd *r);
wl_status wl_plaintext_read_src(wl_rd *r);
wl_status wl_life_read_src(wl_rd *r, wl_format version);
wl_status wl_macrocell_read_src(wl_rd *r);

/* One format over len bytes in memory (gzip data inflated), with the default reading
 * limit: the entry points of the fuzz targets.  They fill the caller's fresh pattern. */
wl_status wl_rle_read(const char *s, size_t len, const char *name, wl_pattern *p);
wl_status wl_plaintext_read(const char *s, size_t len, const char *name, wl_pattern *p);
wl_status wl_life105_read(const char *s, size_t len, const char *name, wl_pattern *p);
wl_status wl_life106_read(const char *s, size_t len, const char *name, wl_pattern *p);
wl_status wl_macrocell_read(const char *s, size_t len, const char *name, wl_pattern *p);

wl_status wl_rle_write(const wl_pattern *p, wl_iobuf *out);
wl_status wl_plaintext_write(const wl_pattern *p, wl_iobuf *out);
wl_status wl_life105_write(const wl_pattern *p, wl_iobuf *out);
wl_status wl_life106_write(const wl_pattern *p, wl_iobuf *out);
wl_status wl_macrocell_write(const wl_pattern *p, wl_iobuf *out);

/* The reading limit when the caller gives none: a quarter of physical memory, or the
 * pattern cap (wl_pattern_max_bytes, which WL_MAX_PATTERN_BYTES lowers) when smaller. */
uint64_t wl_io_default_limit(void);

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
