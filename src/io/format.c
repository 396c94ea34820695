#define _POSIX_C_SOURCE 200809L
/*
 * format.c - the front door of pattern files: format names, detection from content,
 * gzip (zlib) in both directions, and dispatch to the per-format readers and writers.
 *
 * Detection looks at the content first, never only at the name: gzip by its magic bytes
 * 1f 8b (inflated, then detected again), "[M2]" for macrocell, "#Life 1.05" / "#Life 1.06",
 * a leading '!' line for plaintext, a leading "x =" header or any '#' line for RLE (for a
 * .lif/.life name, '#' lines followed by rows are Life 1.05, by numbers Life 1.06).  Content
 * without such a marker (headerless files) is decided by the file name when it has a known
 * extension, else by its first line: only '.', 'O' and '*' means plaintext, anything else
 * RLE.
 *
 * Decompressed data is capped at a quarter of physical memory (WL_ERR_TOO_BIG beyond), so
 * that a small "zip bomb" cannot exhaust memory.
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

/* Is the line s[0..n) made only of '.', 'O' and '*' (plaintext cells)? */
static int plaintext_line(const char *s, size_t n) {
    if (!n) return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] != '.' && s[i] != 'O' && s[i] != '*') return 0;
    return 1;
}

wl_format wl_io_detect(const char *s, size_t len, const char *path_hint) {
    size_t pos = 0;
    if (len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) pos = 3;
    while (pos < len && (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\r' || s[pos] == '\n'))
        pos++;
    const char *c = s + pos;
    size_t n = len - pos;
    if (n >= 4 && memcmp(c, "[M2]", 4) == 0) return WL_FORMAT_MACROCELL;
    if (n >= 10 && memcmp(c, "#Life 1.05", 10) == 0) return WL_FORMAT_LIFE105;
    if (n >= 10 && memcmp(c, "#Life 1.06", 10) == 0) return WL_FORMAT_LIFE106;
    if (n >= 1 && c[0] == '!') return WL_FORMAT_PLAINTEXT;
    wl_format hint = wl_format_from_path(path_hint, NULL);
    if (n >= 1 && c[0] == '#') {
        /* '#' lines start RLE files, and also Life files that lack their "#Life" line:
         * for a .lif/.life name, the first other line decides (digits: 1.06, else 1.05). */
        if (hint == WL_FORMAT_MACROCELL) return hint; /* a .mc without its [M2] line */
        if (hint != WL_FORMAT_LIFE105 && hint != WL_FORMAT_LIFE106) return WL_FORMAT_RLE;
        size_t i = pos;
        while (i < len) {
            size_t ln = wl_io_line_len(s, len, i);
            if (ln && s[i] != '#') {
                if (s[i] == 'x') return WL_FORMAT_RLE;
                return (s[i] == '-' || (s[i] >= '0' && s[i] <= '9')) ? WL_FORMAT_LIFE106
                                                                     : WL_FORMAT_LIFE105;
            }
            i += ln;
            while (i < len && s[i] != '\n') i++;
            i++;
        }
        return WL_FORMAT_LIFE106;
    }
    if (n >= 1 && c[0] == 'x') {
        size_t i = 1;
        while (i < n && (c[i] == ' ' || c[i] == '\t')) i++;
        if (i < n && c[i] == '=') return WL_FORMAT_RLE;
    }
    if (hint != WL_FORMAT_AUTO) return hint;
    if (plaintext_line(c, wl_io_line_len(s, len, pos))) return WL_FORMAT_PLAINTEXT;
    return WL_FORMAT_RLE;
}

/* ---- reading ----------------------------------------------------------------------- */

static wl_status read_mem(const void *data, size_t len, const char *name, wl_pattern **out,
                          wl_format *format) {
    if (!out || (!data && len))
        return wl_error(WL_ERR_INVALID, "wl_pattern_read_mem: NULL argument");
    *out = NULL;
    if (!name) name = "<memory>";
    char *inflated = NULL;
    if (wl_is_gzip(data, len)) {
        size_t n;
        wl_status e = wl_gunzip(data, len, name, &inflated, &n);
        if (e) return e;
        data = inflated;
        len = n;
    }
    const char *s = data ? data : "";
    wl_format f = wl_io_detect(s, len, name);
    wl_pattern *p = wl_pattern_new();
    wl_status e = p ? WL_OK : WL_ERR_NOMEM;
    if (!e) switch (f) {
        case WL_FORMAT_PLAINTEXT: e = wl_plaintext_read(s, len, name, p); break;
        case WL_FORMAT_LIFE105: e = wl_life105_read(s, len, name, p); break;
        case WL_FORMAT_LIFE106: e = wl_life106_read(s, len, name, p); break;
        case WL_FORMAT_MACROCELL: e = wl_macrocell_read(s, len, name, p); break;
        default: e = wl_rle_read(s, len, name, p); f = WL_FORMAT_RLE; break;
        }
    free(inflated);
    if (e) {
        wl_pattern_free(p);
        return e;
    }
    if (format) *format = f;
    *out = p;
    return WL_OK;
}

wl_status wl_pattern_read_mem(const void *data, size_t len, const char *name, wl_pattern **out) {
    return read_mem(data, len, name, out, NULL);
}

wl_status wl_pattern_read_file_ex(const char *path, wl_pattern **out, wl_format *format) {
    if (!path || !out) return wl_error(WL_ERR_INVALID, "wl_pattern_read_file: NULL argument");
    char *data;
    size_t len;
    wl_status e = wl_read_file(path, &data, &len);
    if (e) return e;
    e = read_mem(data, len, strcmp(path, "-") == 0 ? "<stdin>" : path, out, format);
    free(data);
    return e;
}

wl_status wl_pattern_read_file(const char *path, wl_pattern **out) {
    return wl_pattern_read_file_ex(path, out, NULL);
}

/* ---- writing ----------------------------------------------------------------------- */

static wl_status write_buf(const wl_pattern *p, wl_format fmt, int gz, wl_iobuf *b) {
    wl_status e;
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
