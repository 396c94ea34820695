#define _POSIX_C_SOURCE 200809L
/*
 * format.c - the front door of pattern files: format names, detection from content,
 * dispatch to the per-format readers and writers, gzip output.
 *
 * Reading opens a byte source (iosrc.h: a file, standard input or memory, inflated as it
 * is read when it starts with gzip's magic bytes 1f 8b) and never holds more of the input
 * than a window, so the memory a read takes is the pattern's, plus a fixed amount.
 *
 * Detection looks at the content first, never only at the name, and at no more than the
 * first 64 KiB: "[M2]" for macrocell, "#Life 1.05" / "#Life 1.06", a leading '!' line for
 * plaintext, a leading "x =" header or any '#' line for RLE (for a .lif/.life name, '#'
 * lines followed by rows are Life 1.05, by numbers Life 1.06; when the '#' lines fill the
 * 64 KiB, the Life reader decides at its first other line).  Content without such a
 * marker (headerless files) is decided by the file name when it has a known extension,
 * else by its first line: only '.', 'O' and '*' means plaintext, anything else RLE.
 * Input whose first byte (after blank lines) is a control byte or not ASCII - a NUL, the
 * start of an executable, a compressed file inside the gzip, endless zeros - can start no
 * format: it is refused there with WL_ERR_PARSE and its line:col, without reading on.
 *
 * The reading limit: what the pattern may grow to while it is read (bitmap, comments,
 * the reader's tables), wl_read_opts.max_memory or by default a quarter of physical
 * memory; past it the read stops with WL_ERR_TOO_BIG and a message naming the limit.
 * Faults of the file (syntax, numbers beyond what the format can place) are
 * WL_ERR_PARSE; WL_ERR_TOO_BIG means memory (or the limit) and WL_ERR_IO the system.
 */
#include "io_internal.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *wl_format_name(wl_format f) {
    switch (f) {
    case WL_FORMAT_AUTO: return "auto";
    case WL_FORMAT_RLE: return "rle";
    case WL_FORMAT_PLAINTEXT: return "plaintext";
    case WL_FORMAT_LIFE105: return "life105";
    case WL_FORMAT_LIFE106: return "life106";
    case WL_FORMAT_MACROCELL: return "macrocell";
    }
    return "unknown";
}

static int ends_with(const char *s, size_t n, const char *suffix) {
    size_t k = strlen(suffix);
    return n >= k && strncasecmp(s + n - k, suffix, k) == 0;
}

wl_format wl_format_from_path(const char *path, int *gz) {
    if (gz) *gz = 0;
    if (!path) return WL_FORMAT_AUTO;
    size_t n = strlen(path);
    if (ends_with(path, n, ".gz")) {
        if (gz) *gz = 1;
        n -= 3;
    }
    if (ends_with(path, n, ".rle")) return WL_FORMAT_RLE;
    if (ends_with(path, n, ".cells")) return WL_FORMAT_PLAINTEXT;
    if (ends_with(path, n, ".mc")) return WL_FORMAT_MACROCELL;
    /* .lif / .life hold either version; we write 1.06 (the simpler, exact one) and read
     * whichever the content says. */
    if (ends_with(path, n, ".lif") || ends_with(path, n, ".life")) return WL_FORMAT_LIFE106;
    return WL_FORMAT_AUTO;
}

wl_status wl_format_parse(const char *name, wl_format *out) {
    static const struct {
        const char *name;
        wl_format f;
    } names[] = {
        {"auto", WL_FORMAT_AUTO},           {"rle", WL_FORMAT_RLE},
        {"cells", WL_FORMAT_PLAINTEXT},     {"plaintext", WL_FORMAT_PLAINTEXT},
        {"life105", WL_FORMAT_LIFE105},     {"life106", WL_FORMAT_LIFE106},
        {"lif", WL_FORMAT_LIFE106},         {"mc", WL_FORMAT_MACROCELL},
        {"macrocell", WL_FORMAT_MACROCELL},
    };
    if (!name || !out) return wl_error(WL_ERR_INVALID, "wl_format_parse: NULL argument");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(name, names[i].name) == 0) {
            *out = names[i].f;
            return WL_OK;
        }
    return wl_error(WL_ERR_INVALID,
                    "unknown pattern format '%s' (expected rle, cells, life105, life106, mc)",
                    name);
}

/* ---- detection --------------------------------------------------------------------- */

/* Detection looks at no more than this many bytes (see the essay). */
#define DETECT_MAX ((size_t)64 << 10)

/* What looking at a prefix of the input gave. */
typedef enum { DETECT_DONE, DETECT_MORE, DETECT_BINARY, DETECT_ZIP, DETECT_FOREIGN } detect_result;

/* Files of Golly's collection in formats warplife does not read, known by their first
 * bytes: refused by name.  Read as RLE, an MCell file (all '#' lines) gave an empty Life
 * pattern without a word, and an RLE3 file a complaint about its "3D". */
static const struct {
    const char *mark, *what;
} foreign[] = {
    {"#MCell", "an MCell file (its #L lines are not read: open it in Golly and save it as RLE)"},
    {"3D version=", "a three-dimensional pattern (RLE3, for Golly's 3D.lua)"},
};
#define NFOREIGN (sizeof foreign / sizeof foreign[0])

static int is_ws(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* Is c[0..n) a prefix of the marker m (which is longer than n)? */
static int could_be(const char *c, size_t n, const char *m) {
    return n < strlen(m) && memcmp(c, m, n) == 0;
}

/* Is the line s[0..n) made only of '.', 'O' and '*' (plaintext cells)? */
static int plaintext_line(const char *s, size_t n) {
    if (!n) return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] != '.' && s[i] != 'O' && s[i] != '*') return 0;
    return 1;
}

/* Can no pattern file start with this byte (after blanks)?  Control bytes other than
 * blanks, and bytes of 0x80 and up (binary data; a UTF-8 byte order mark is skipped
 * before). */
static int binary_byte(unsigned char c) {
    return (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') ||
           c >= 0x7f;
}

/* Decides the format from the prefix s[0..len) of the input.  `whole`: the prefix is the
 * whole input; `capped`: it is all detection will look at.  Returns DETECT_MORE when a
 * longer prefix could change the answer, DETECT_BINARY (with *at the offset of the byte)
 * when no format can start like this, else DETECT_DONE with *f (and *life_auto set when
 * only the Life reader can tell 1.05 from 1.06). */
static detect_result detect_prefix(const char *s, size_t len, int whole, int capped,
                                   const char *path_hint, wl_format *f, int *life_auto,
                                   size_t *at) {
    /* (DETECT_FOREIGN: *at is the index in `foreign`) */
    int done = whole || capped; /* no more bytes to look at */
    size_t pos = 0;
    *life_auto = 0;
    if (!done && len < 3 && could_be(s, len, "\xEF\xBB\xBF")) return DETECT_MORE;
    if (len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) pos = 3;
    while (pos < len && is_ws(s[pos])) pos++;
    if (pos == len && !done) return DETECT_MORE;
    const char *c = s + pos;
    size_t n = len - pos;
    if (!done && (could_be(c, n, "[M2]") || could_be(c, n, "#Life 1.05") ||
                  could_be(c, n, "#Life 1.06") || could_be(c, n, "PK\x03\x04")))
        return DETECT_MORE;
    for (size_t k = 0; k < NFOREIGN; k++) {
        size_t m = strlen(foreign[k].mark);
        if (!done && could_be(c, n, foreign[k].mark)) return DETECT_MORE;
        if (n >= m && memcmp(c, foreign[k].mark, m) == 0) return *at = k, DETECT_FOREIGN;
    }
    /* a zip archive (Golly's collections ship some): its "PK" would read as RLE cells */
    if (n >= 4 && memcmp(c, "PK\x03\x04", 4) == 0) return DETECT_ZIP;
    if (n >= 1 && binary_byte((unsigned char)c[0])) {
        *at = pos;
        return DETECT_BINARY;
    }
    *f = WL_FORMAT_RLE;
    if (n >= 4 && memcmp(c, "[M2]", 4) == 0) return *f = WL_FORMAT_MACROCELL, DETECT_DONE;
    if (n >= 10 && memcmp(c, "#Life 1.05", 10) == 0) return *f = WL_FORMAT_LIFE105, DETECT_DONE;
    if (n >= 10 && memcmp(c, "#Life 1.06", 10) == 0) return *f = WL_FORMAT_LIFE106, DETECT_DONE;
    if (n >= 1 && c[0] == '!') return *f = WL_FORMAT_PLAINTEXT, DETECT_DONE;
    wl_format hint = wl_format_from_path(path_hint, NULL);
    if (n >= 1 && c[0] == '#') {
        /* '#' lines start RLE files, and also Life files that lack their "#Life" line:
         * for a .lif/.life name, the first other line decides (digits: 1.06, else 1.05). */
        if (hint == WL_FORMAT_MACROCELL) return *f = hint, DETECT_DONE; /* .mc, no [M2] */
        if (hint != WL_FORMAT_LIFE105 && hint != WL_FORMAT_LIFE106) return DETECT_DONE;
        for (size_t i = pos; i < len;) {
            char ch = s[i];
            if (ch == '\r' && i + 1 == len && !done) return DETECT_MORE;
            int empty = ch == '\n' || (ch == '\r' && (i + 1 == len || s[i + 1] == '\n'));
            if (!empty && ch != '#') {
                if (ch == 'x') return DETECT_DONE; /* an RLE header */
                *f = (ch == '-' || (ch >= '0' && ch <= '9')) ? WL_FORMAT_LIFE106
                                                            : WL_FORMAT_LIFE105;
                return DETECT_DONE;
            }
            const char *nl = memchr(s + i, '\n', len - i);
            i = nl ? (size_t)(nl - s) + 1 : len;
        }
        if (!done) return DETECT_MORE;
        *f = WL_FORMAT_LIFE106; /* only '#' lines: a Life file without cells */
        *life_auto = !whole;    /* more lines follow: the Life reader decides */
        return DETECT_DONE;
    }
    if (n >= 1 && c[0] == 'x') {
        size_t i = 1;
        while (i < n && (c[i] == ' ' || c[i] == '\t')) i++;
        if (i == n && !done) return DETECT_MORE;
        if (i < n && c[i] == '=') return DETECT_DONE;
    }
    if (hint != WL_FORMAT_AUTO) return *f = hint, DETECT_DONE;
    const char *nl = memchr(c, '\n', n);
    if (!nl && !done) return DETECT_MORE;
    size_t ln = nl ? (size_t)(nl - c) : n;
    if (ln && c[ln - 1] == '\r') ln--;
    if (plaintext_line(c, ln)) *f = WL_FORMAT_PLAINTEXT;
    return DETECT_DONE;
}

/* Detects the format of the source from its first bytes (consuming none); refuses input
 * that no format can start with. */
static wl_status detect(wl_src *s, const char *path_hint, wl_format *f, int *life_auto) {
    size_t want = 64;
    for (;;) {
        /* A fault of the input (corrupt gzip data) after some bytes: decide on the bytes
         * before it if they suffice, as a larger window would have (the reader meets the
         * fault again where it reads on), so that the outcome is the same in any window. */
        wl_status e = wl_src_need(s, want);
        if (e && s->end == s->pos) return e;
        size_t avail = s->end - s->pos, at = 0;
        int capped = avail >= DETECT_MAX;
        const char *b = s->buf + s->pos;
        detect_result r = detect_prefix(b, capped ? DETECT_MAX : avail, s->eof && !capped,
                                        capped, path_hint, f, life_auto, &at);
        if (r == DETECT_DONE) {
            if (e) wl_clear_error();
            return WL_OK;
        }
        if (r == DETECT_ZIP)
            return wl_io_error_at(WL_ERR_PARSE, s->name, 1, 1,
                                  "not a pattern file: a zip archive (unpack it and read its "
                                  "pattern files)");
        if (r == DETECT_FOREIGN)
            return wl_io_error_at(WL_ERR_PARSE, s->name, 1, 1, "not a pattern file warplife reads: %s",
                                  foreign[at].what);
        if (r == DETECT_BINARY) {
            size_t line = 1, col0 = 0; /* col0: offset of the byte's line */
            if (avail >= 3 && memcmp(b, "\xEF\xBB\xBF", 3) == 0) col0 = 3;
            for (size_t i = 0; i < at; i++)
                if (b[i] == '\n') line++, col0 = i + 1;
            char what[32];
            return wl_io_error_at(WL_ERR_PARSE, s->name, line, at - col0 + 1,
                                  "not a pattern file: %s where a pattern file has text "
                                  "(RLE, plaintext, Life 1.05/1.06 or macrocell)",
                                  wl_io_describe_byte((unsigned char)b[at], what));
        }
        if (e) return e;
        want = avail * 2 > DETECT_MAX ? DETECT_MAX : avail * 2 + 1;
    }
}

/* ---- reading ----------------------------------------------------------------------- */

uint64_t wl_io_default_limit(void) {
    uint64_t quarter = wl_physical_memory() / 4, cap = wl_pattern_max_bytes();
    return quarter < cap ? quarter : cap;
}

/* Runs the reader of format f on the source (from just after any byte order mark) into
 * r->p, then stores the comments.  The pattern's bitmap is held to r->limit meanwhile. */
static wl_status run_reader(wl_rd *r, wl_format f, int life_auto) {
    wl_status e = wl_src_skip_bom(r->src);
    r->format = f;
    r->p->limit = r->limit ? r->limit : 1;
    if (!e) switch (f) {
        case WL_FORMAT_PLAINTEXT: e = wl_plaintext_read_src(r); break;
        case WL_FORMAT_LIFE105:
        case WL_FORMAT_LIFE106: e = wl_life_read_src(r, life_auto ? WL_FORMAT_AUTO : f); break;
        case WL_FORMAT_MACROCELL: e = wl_macrocell_read_src(r); break;
        default: r->format = WL_FORMAT_RLE; e = wl_rle_read_src(r); break;
        }
    r->p->limit = 0;
    if (!e && r->format == WL_FORMAT_AUTO) r->format = WL_FORMAT_LIFE106; /* no cells */
    if (!e) {
        wl_iobuf_putc(&r->comments, '\0');
        e = r->comments.failed ? wl_error(WL_ERR_NOMEM, "out of memory collecting comments")
                               : wl_pattern_set_comments(r->p, r->comments.p);
    }
    wl_iobuf_free(&r->comments);
    return e;
}

/* Detects and reads a pattern from an open source; *format (if non-NULL) gets the format
 * detected, also when reading then fails (WL_FORMAT_AUTO when detection did not finish). */
static wl_status read_src(wl_src *s, const char *path_hint, const wl_read_opts *opts,
                          wl_pattern **out, wl_format *format) {
    wl_format f = WL_FORMAT_AUTO;
    int life_auto = 0;
    wl_status e = detect(s, path_hint, &f, &life_auto);
    if (format) *format = e ? WL_FORMAT_AUTO : f;
    if (e) return e;
    wl_pattern *p = wl_pattern_new();
    if (!p) return WL_ERR_NOMEM;
    wl_rd r = {s, p, {0}, opts && opts->max_memory ? opts->max_memory : wl_io_default_limit(),
               f, opts && opts->header_only};
    e = run_reader(&r, f, life_auto);
    if (!e && r.header_only) wl_pattern_clear(p);
    if (format) *format = r.format;
    if (e) {
        wl_pattern_free(p);
        return e;
    }
    *out = p;
    return WL_OK;
}

wl_status wl_pattern_read_mem_opts(const void *data, size_t len, const char *name,
                                   const wl_read_opts *opts, wl_pattern **out,
                                   wl_format *format) {
    if (format) *format = WL_FORMAT_AUTO;
    if (!out || (!data && len))
        return wl_error(WL_ERR_INVALID, "wl_pattern_read_mem: NULL argument");
    *out = NULL;
    wl_src s;
    wl_status e = wl_src_open_mem(&s, data, len, name);
    if (!e) e = read_src(&s, s.name, opts, out, format);
    wl_src_close(&s);
    return e;
}

wl_status wl_pattern_read_mem(const void *data, size_t len, const char *name, wl_pattern **out) {
    return wl_pattern_read_mem_opts(data, len, name, NULL, out, NULL);
}

wl_status wl_pattern_read_file_opts(const char *path, const wl_read_opts *opts,
                                    wl_pattern **out, wl_format *format) {
    if (format) *format = WL_FORMAT_AUTO;
    if (!path || !out) return wl_error(WL_ERR_INVALID, "wl_pattern_read_file: NULL argument");
    *out = NULL;
    wl_src s;
    wl_status e = wl_src_open_file(&s, path);
    if (!e) e = read_src(&s, s.name, opts, out, format);
    wl_src_close(&s);
    return e;
}

wl_status wl_pattern_read_file_ex(const char *path, wl_pattern **out, wl_format *format) {
    wl_format f;
    wl_status e = wl_pattern_read_file_opts(path, NULL, out, &f);
    if (!e && format) *format = f;
    return e;
}

wl_status wl_pattern_read_file(const char *path, wl_pattern **out) {
    return wl_pattern_read_file_opts(path, NULL, out, NULL);
}

/* The one-format entry points (fuzz targets): memory, default limit, no detection. */
static wl_status read_mem_as(wl_format f, const char *s, size_t len, const char *name,
                             wl_pattern *p) {
    wl_src src;
    wl_status e = wl_src_open_mem(&src, s, len, name);
    if (!e) {
        wl_rd r = {&src, p, {0}, wl_io_default_limit(), f, 0};
        e = run_reader(&r, f, 0);
    }
    wl_src_close(&src);
    return e;
}

wl_status wl_rle_read(const char *s, size_t len, const char *name, wl_pattern *p) {
    return read_mem_as(WL_FORMAT_RLE, s, len, name, p);
}
wl_status wl_plaintext_read(const char *s, size_t len, const char *name, wl_pattern *p) {
    return read_mem_as(WL_FORMAT_PLAINTEXT, s, len, name, p);
}
wl_status wl_life105_read(const char *s, size_t len, const char *name, wl_pattern *p) {
    return read_mem_as(WL_FORMAT_LIFE105, s, len, name, p);
}
wl_status wl_life106_read(const char *s, size_t len, const char *name, wl_pattern *p) {
    return read_mem_as(WL_FORMAT_LIFE106, s, len, name, p);
}
wl_status wl_macrocell_read(const char *s, size_t len, const char *name, wl_pattern *p) {
    return read_mem_as(WL_FORMAT_MACROCELL, s, len, name, p);
}

/* ---- writing ----------------------------------------------------------------------- */

/* Plaintext and Life 1.05/1.06 have two states: they refuse a cell above 1 (Golly writes
 * those only as RLE and macrocell).  A multi-state rule's pattern with only states 0 and 1
 * fits; the Life formats carry its rule on their "#R" line. */
static wl_status two_state_only(const wl_pattern *p, wl_format fmt) {
    unsigned top = wl_pattern_max_state(p);
    if (top <= 1) return WL_OK;
    char rule[WL_RULE_TEXT_MAX];
    wl_rule_format(wl_pattern_rule(p), rule, sizeof rule);
    return wl_error(WL_ERR_UNSUPPORTED, "the %s format has two states only; the pattern has "
                    "cells in state %u (rule %s; write RLE or macrocell instead)",
                    wl_format_name(fmt), top, rule);
}

static wl_status write_buf(const wl_pattern *p, wl_format fmt, int gz, wl_iobuf *b) {
    wl_status e;
    if (fmt == WL_FORMAT_PLAINTEXT || fmt == WL_FORMAT_LIFE105 || fmt == WL_FORMAT_LIFE106) {
        e = two_state_only(p, fmt);
        if (e) return e;
    }
    switch (fmt) {
    case WL_FORMAT_RLE: e = wl_rle_write(p, b); break;
    case WL_FORMAT_PLAINTEXT: e = wl_plaintext_write(p, b); break;
    case WL_FORMAT_LIFE105: e = wl_life105_write(p, b); break;
    case WL_FORMAT_LIFE106: e = wl_life106_write(p, b); break;
    case WL_FORMAT_MACROCELL: e = wl_macrocell_write(p, b); break;
    default: return wl_error(WL_ERR_INVALID, "cannot write format '%s'", wl_format_name(fmt));
    }
    if (!e && b->failed) e = wl_error(WL_ERR_NOMEM, "out of memory writing a pattern");
    if (e) return e;
    if (gz) {
        char *z;
        size_t zlen;
        e = wl_gzip(b->p, b->len, &z, &zlen);
        if (e) return e;
        wl_iobuf_free(b);
        b->p = z;
        b->len = b->cap = zlen;
    }
    return WL_OK;
}

wl_status wl_pattern_write_mem(const wl_pattern *p, wl_format fmt, int gz, char **out,
                               size_t *len) {
    if (!p || !out || !len) return wl_error(WL_ERR_INVALID, "wl_pattern_write_mem: NULL argument");
    wl_iobuf b = {0};
    wl_status e = write_buf(p, fmt, gz, &b);
    if (e) {
        wl_iobuf_free(&b);
        return e;
    }
    if (!b.p) { /* never NULL on success, even when empty */
        b.p = malloc(1);
        if (!b.p) return wl_error(WL_ERR_NOMEM, "out of memory");
    }
    *out = b.p;
    *len = b.len;
    return WL_OK;
}

wl_status wl_pattern_write_file(const wl_pattern *p, const char *path, wl_format fmt, int gz) {
    if (!p || !path) return wl_error(WL_ERR_INVALID, "wl_pattern_write_file: NULL argument");
    int path_gz;
    wl_format from_path = wl_format_from_path(path, &path_gz);
    if (fmt == WL_FORMAT_AUTO) fmt = from_path != WL_FORMAT_AUTO ? from_path : WL_FORMAT_RLE;
    if (gz < 0) gz = path_gz;
    wl_iobuf b = {0};
    wl_status e = write_buf(p, fmt, gz, &b);
    if (!e) e = wl_write_file_atomic(path, b.p ? b.p : "", b.len);
    wl_iobuf_free(&b);
    return e;
}
