/*
 * rle.c - run-length encoded patterns (.rle), the format Golly and LifeWiki use most.
 *
 * A file is: optional comment lines starting with '#', an optional header line
 *     x = <width>, y = <height>, rule = <rule>
 * (spaces optional, "rule" optional, unknown keys ignored), then the body: tokens
 * "<count><tag>" where the count (default 1) repeats the tag, tag 'b' (or '.') is a dead
 * cell, 'o' (or 'A') a live cell, '$' ends a row, and '!' ends the pattern; anything after
 * '!' is ignored.  Whitespace and line breaks between tokens are ignored (digits of one
 * count may be split across lines, as Golly allows).
 *
 * Comment lines (both before the header and at the start of a body line):
 *   #C / #c / #N / #O  text kept as a comment line (without the tag);
 *   #r <rule>          the rule in the old S/B notation ("23/3");
 *   #CXRLE Pos=x,y Gen=g   Golly's extension: the top-left cell of the pattern is (x, y)
 *                      (Gen is read and ignored: a pattern carries no generation);
 *   anything else      (#P, #R, ...) kept as a comment line without the '#' (Golly ignores
 *                      those positions, and so do we).
 *
 * Placement (as Golly): the first cell of the body is (0, 0), or (x, y) of #CXRLE Pos.
 * A header larger than memory allows (or whose x*y overflows) is WL_ERR_TOO_BIG; cells
 * beyond the declared x/y are accepted, as Golly accepts them (the header is only a size
 * hint used to reserve storage in one allocation).  A run count of 0 is a parse error.
 * Multi-state tags ('B'..'X', 'p'..'y') are refused with a message saying so.
 *
 * Speed: the body is parsed in one pass over the bytes with a switch per byte; live runs go
 * straight into the pattern's bitmap through wl_pattern_set_run (word-wide fills), and the
 * storage is reserved once from the header, so 100 MB files read at hundreds of MB/s.
 * The writer walks rows as 64-bit words (wl_pattern_get_row) and finds run ends with
 * count-trailing-zeros, so it costs per run, not per cell.  Lines are at most 70
 * characters, as the RLE convention asks.
 */
#include "io_internal.h"

#include <stdio.h>
#include <stdlib.h>

/* Coordinates beyond 2^62 cannot be stored by a pattern (it keeps signed 64-bit room). */
#define RLE_COORD_LIMIT ((uint64_t)1 << 62)
/* The RLE convention: body lines of at most 70 characters. */
#define RLE_LINE_MAX 70
/* A header only reserves storage when the bitmap is at most this many bytes per input
 * byte (plus a floor), so that a lying header cannot make a tiny file allocate gigabytes;
 * the pattern grows on demand beyond it anyway. */
#define RLE_RESERVE_PER_BYTE 64
#define RLE_RESERVE_FLOOR ((uint64_t)1 << 26)

typedef struct rle_state {
    const char *s;
    size_t len;
    const char *name;
    wl_pattern *p;
    wl_iobuf comments;
    int64_t px, py; /* placement of the top-left cell */
} rle_state;

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
static int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* Parses "#CXRLE Pos=x,y Gen=g" (the part after "#CXRLE"). */
static wl_status parse_cxrle(rle_state *st, size_t pos, size_t end, size_t line,
                             size_t line_start, int allow_pos) {
    while (pos < end) {
        if (end - pos >= 4 && memcmp(st->s + pos, "Pos=", 4) == 0) {
            size_t i = pos + 4;
            int64_t x, y;
            int ovf = 0;
            if (!wl_io_parse_i64(st->s, end, &i, &x, &ovf) || i >= end || st->s[i] != ',' ||
                (i++, !wl_io_parse_i64(st->s, end, &i, &y, &ovf)))
                return wl_io_error_at(ovf ? WL_ERR_TOO_BIG : WL_ERR_PARSE, st->name, line,
                                      i - line_start + 1, "expected Pos=<x>,<y> with integers");
            if (x < -(int64_t)RLE_COORD_LIMIT || x > (int64_t)RLE_COORD_LIMIT ||
                y < -(int64_t)RLE_COORD_LIMIT || y > (int64_t)RLE_COORD_LIMIT)
                return wl_io_error_at(WL_ERR_TOO_BIG, st->name, line, pos - line_start + 1,
                                      "position out of range");
            if (allow_pos) {
                st->px = x;
                st->py = y;
            }
            pos = i;
        } else {
            pos++; /* Gen=... and anything else: ignored */
        }
    }
    return WL_OK;
}

/* Handles one '#' line starting at s[pos] (length n, without the newline). */
static wl_status comment_line(rle_state *st, size_t pos, size_t n, size_t line, int in_header) {
    const char *c = st->s + pos;
    if (n >= 6 && memcmp(c, "#CXRLE", 6) == 0)
        return parse_cxrle(st, pos + 6, pos + n, line, pos, in_header);
    if (n >= 2 && c[1] == 'r') {
        size_t i = 2;
        while (i < n && is_space(c[i])) i++;
        wl_rule r;
        wl_status s = wl_io_parse_rule(c + i, n - i, st->name, line, i + 1, &r, &st->comments);
        if (s) return s;
        wl_pattern_set_rule(st->p, &r);
        return WL_OK;
    }
    if (n >= 2 && (c[1] == 'C' || c[1] == 'c' || c[1] == 'N' || c[1] == 'O')) {
        size_t i = 2;
        if (i < n && c[i] == ' ') i++;
        wl_io_add_comment(&st->comments, c + i, n - i);
        return WL_OK;
    }
    wl_io_add_comment(&st->comments, c + 1, n - 1);
    return WL_OK;
}

/* Parses the header line "x = m, y = n, rule = R" at s[pos..pos+n). */
static wl_status parse_header(rle_state *st, size_t pos, size_t n, size_t line, uint64_t *w,
                              uint64_t *h) {
    const char *s = st->s;
    size_t end = pos + n, i = pos;
    char what[32];
    for (;;) {
        while (i < end && is_space(s[i])) i++;
        size_t k0 = i;
        while (i < end && is_alpha(s[i])) i++;
        size_t klen = i - k0;
        if (!klen)
            return wl_io_error_at(WL_ERR_PARSE, st->name, line, i - pos + 1,
                                  "expected 'x', 'y' or 'rule' in the header but found %s",
                                  wl_io_describe(s, end, i, what));
        while (i < end && is_space(s[i])) i++;
        if (i >= end || s[i] != '=')
            return wl_io_error_at(WL_ERR_PARSE, st->name, line, i - pos + 1,
                                  "expected '=' after '%.*s' but found %s", (int)klen,
                                  s + k0, wl_io_describe(s, end, i, what));
        i++;
        while (i < end && is_space(s[i])) i++;
        if (klen == 4 && memcmp(s + k0, "rule", 4) == 0) {
            /* The rule runs to the end of the line (Golly puts it last). */
            wl_rule r;
            wl_status e = wl_io_parse_rule(s + i, end - i, st->name, line, i - pos + 1, &r,
                                           &st->comments);
            if (e) return e;
            wl_pattern_set_rule(st->p, &r);
            return WL_OK;
        }
        if (klen == 1 && (s[k0] == 'x' || s[k0] == 'y')) {
            uint64_t v = 0;
            size_t d0 = i;
            while (i < end && s[i] >= '0' && s[i] <= '9') {
                uint64_t d = (uint64_t)(s[i] - '0');
                if (v > (UINT64_MAX - d) / 10)
                    return wl_io_error_at(WL_ERR_TOO_BIG, st->name, line, d0 - pos + 1,
                                          "pattern size '%c' overflows 64 bits", s[k0]);
                v = v * 10 + d;
                i++;
            }
            if (i == d0)
                return wl_io_error_at(WL_ERR_PARSE, st->name, line, i - pos + 1,
                                      "expected a number after '%c =' but found %s", s[k0],
                                      wl_io_describe(s, end, i, what));
            *(s[k0] == 'x' ? w : h) = v;
        } else {
            while (i < end && s[i] != ',') i++; /* unknown key: ignored, as Golly does */
        }
        while (i < end && is_space(s[i])) i++;
        if (i >= end) return WL_OK;
        if (s[i] != ',')
            return wl_io_error_at(WL_ERR_PARSE, st->name, line, i - pos + 1,
                                  "expected ',' or end of line in the header but found %s",
                                  wl_io_describe(s, end, i, what));
        i++;
    }
}

/* Reserves storage for a declared size, or refuses one that cannot fit. */
static wl_status reserve_declared(rle_state *st, uint64_t w, uint64_t h, size_t line) {
    if (!w || !h) return WL_OK;
    if (w > RLE_COORD_LIMIT || h > RLE_COORD_LIMIT ||
        (w + 63) / 64 * 8 > wl_pattern_max_bytes() / h)
        return wl_io_error_at(WL_ERR_TOO_BIG, st->name, line, 1,
                              "declared size x = %llu, y = %llu is larger than memory allows",
                              (unsigned long long)w, (unsigned long long)h);
    uint64_t bytes = (w + 63) / 64 * 8 * h;
    uint64_t budget = RLE_RESERVE_FLOOR + (uint64_t)st->len * RLE_RESERVE_PER_BYTE;
    if (bytes > budget) return WL_OK;
    wl_rect r = {st->px, st->py, w, h};
    wl_status s = wl_pattern_reserve(st->p, &r);
    if (s) wl_error_prefix("%s:%zu:1", st->name, line);
    return s;
}

/* Sets bits [a, a + n) of a row (n >= 1). */
static inline void or_run(uint64_t *row, uint64_t a, uint64_t n) {
    uint64_t b = a + n - 1, wa = a / 64, wb = b / 64;
    uint64_t ma = ~(uint64_t)0 << (a % 64), mb = ~(uint64_t)0 >> (63 - b % 64);
    if (wa == wb) {
        row[wa] |= ma & mb;
        return;
    }
    row[wa] |= ma;
    for (uint64_t i = wa + 1; i < wb; i++) row[i] = ~(uint64_t)0;
    row[wb] |= mb;
}

/* The storage row of body row y, with *bit0 set to the bit of body column 0 in it and
 * *cells to the number of body columns it holds (so body column x < *cells is bit
 * *bit0 + x); NULL when row y or column 0 is outside the storage (the reader then takes
 * the general path, which grows the storage). */
static uint64_t *body_row(const rle_state *st, uint64_t y, uint64_t *bit0, uint64_t *cells) {
    const wl_pattern *p = st->p;
    int64_t ay = st->py + (int64_t)y;
    *cells = 0;
    *bit0 = 0;
    if (!p->w || ay < p->y0 || (uint64_t)(ay - p->y0) >= p->h || st->px < p->x0 ||
        (uint64_t)(st->px - p->x0) >= p->w)
        return NULL;
    *bit0 = (uint64_t)(st->px - p->x0);
    *cells = p->w - *bit0;
    return p->bits + (size_t)(ay - p->y0) * p->stride;
}

/* Parses the body from s[pos]; line / line_start locate s[pos] for messages. */
static wl_status parse_body(rle_state *st, size_t pos, size_t line, size_t line_start) {
    const char *s = st->s;
    size_t len = st->len;
    uint64_t x = 0, y = 0, count = 0;
    size_t count_pos = 0; /* where the pending count started (for messages) */
    int have_count = 0;
    char what[32];
    uint64_t row_cells = 0, row_bit0 = 0; /* the current row's storage (see body_row) */
    uint64_t *row = body_row(st, 0, &row_bit0, &row_cells);
    while (pos < len) {
        char c = s[pos];
        switch (c) {
        case '0': case '1': case '2': case '3': case '4':
        case '5': case '6': case '7': case '8': case '9': {
            uint64_t d = (uint64_t)(c - '0');
            if (!have_count) {
                have_count = 1;
                count = 0;
                count_pos = pos;
            }
            if (count > (RLE_COORD_LIMIT - d) / 10)
                return wl_io_error_at(WL_ERR_TOO_BIG, st->name, line, count_pos - line_start + 1,
                                      "run count too large");
            count = count * 10 + d;
            pos++;
            continue;
        }
        case 'b': case '.':
            /* The commonest tokens of all, single cells without a count: short paths. */
            if (!have_count) {
                if (x >= RLE_COORD_LIMIT)
                    return wl_io_error_at(WL_ERR_TOO_BIG, st->name, line, pos - line_start + 1,
                                          "pattern too wide");
                x++;
                pos++;
                continue;
            }
            goto token;
        case 'o': case 'A':
            if (!have_count && x < row_cells) {
                uint64_t b = row_bit0 + x;
                row[b / 64] |= (uint64_t)1 << (b % 64);
                x++;
                pos++;
                continue;
            }
            goto token;
        case '$':
        token: {
            uint64_t n = 1;
            if (have_count) {
                if (count == 0)
                    return wl_io_error_at(WL_ERR_PARSE, st->name, line,
                                          count_pos - line_start + 1,
                                          "run count must be at least 1");
                n = count;
                have_count = 0;
            }
            if (c == '$') {
                if (n > RLE_COORD_LIMIT - y)
                    return wl_io_error_at(WL_ERR_TOO_BIG, st->name, line, pos - line_start + 1,
                                          "pattern too tall");
                y += n;
                x = 0;
                row = body_row(st, y, &row_bit0, &row_cells);
            } else {
                if (n > RLE_COORD_LIMIT - x)
                    return wl_io_error_at(WL_ERR_TOO_BIG, st->name, line, pos - line_start + 1,
                                          "pattern too wide");
                if (c == 'o' || c == 'A') {
                    wl_pattern *p = st->p;
                    /* Position and offset are both within 2^62: only the sum can overflow. */
                    if ((st->px > 0 && (int64_t)x > INT64_MAX - st->px) ||
                        (st->py > 0 && (int64_t)y > INT64_MAX - st->py))
                        return wl_io_error_at(WL_ERR_TOO_BIG, st->name, line,
                                              pos - line_start + 1,
                                              "cell coordinates out of range");
                    int64_t ax = st->px + (int64_t)x, ay = st->py + (int64_t)y;
                    if (p->w && ay >= p->y0 && (uint64_t)(ay - p->y0) < p->h && ax >= p->x0 &&
                        (uint64_t)(ax - p->x0) + n <= p->w) {
                        /* Fast path: inside the reserved storage, set the bits here. */
                        or_run(p->bits + (size_t)(ay - p->y0) * p->stride,
                               (uint64_t)(ax - p->x0), n);
                    } else {
                        wl_status e = wl_pattern_set_run(p, ax, ay, n);
                        if (e) {
                            wl_error_prefix("%s:%zu:%zu", st->name, line, pos - line_start + 1);
                            return e;
                        }
                        /* The storage may have grown and moved. */
                        row = body_row(st, y, &row_bit0, &row_cells);
                    }
                }
                x += n;
            }
            pos++;
            continue;
        }
        case '!':
            if (have_count)
                return wl_io_error_at(WL_ERR_PARSE, st->name, line, pos - line_start + 1,
                                      "expected 'b', 'o' or '$' after a run count but found '!'");
            return WL_OK; /* the rest of the file is ignored, as in Golly */
        case '\n':
            pos++;
            line++;
            line_start = pos;
            /* A line starting with '#' inside the body is a comment line. */
            if (pos < len && s[pos] == '#' && !have_count) {
                size_t n = wl_io_line_len(s, len, pos);
                wl_status e = comment_line(st, pos, n, line, 0);
                if (e) return e;
                pos += n;
            }
            continue;
        case ' ': case '\t': case '\r': case '\f': case '\v':
            pos++;
            continue;
        default:
            if ((c >= 'B' && c <= 'X') || (c >= 'p' && c <= 'y'))
                return wl_io_error_at(
                    WL_ERR_PARSE, st->name, line, pos - line_start + 1,
                    "multi-state cell '%c' in a two-state pattern (warplife runs two-state "
                    "rules only)", c);
            return wl_io_error_at(WL_ERR_PARSE, st->name, line, pos - line_start + 1,
                                  "expected a run count, 'b', 'o', '$' or '!' but found %s",
                                  wl_io_describe(s, len, pos, what));
        }
    }
    if (have_count)
        return wl_io_error_at(WL_ERR_PARSE, st->name, line, pos - line_start + 1,
                              "expected 'b', 'o' or '$' after a run count but found end of file");
    return WL_OK; /* a missing '!' is tolerated, as Golly tolerates it */
}

wl_status wl_rle_read(const char *s, size_t len, const char *name, wl_pattern *p) {
    rle_state st = {s, len, name, p, {0}, 0, 0};
    size_t pos = 0, line = 1;
    int saw_header = 0;
    wl_status e = WL_OK;
    if (len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) pos = 3; /* UTF-8 byte order mark */
    size_t line_start = pos;
    /* Comment lines and the header. */
    while (pos < len) {
        size_t n = wl_io_line_len(s, len, pos);
        size_t i = pos;
        while (i < pos + n && is_space(s[i])) i++;
        if (i == pos + n) { /* blank line */
            pos = wl_io_next_line(s, len, pos);
            line++;
            line_start = pos;
            continue;
        }
        if (s[pos] == '#') {
            e = comment_line(&st, pos, n, line, 1);
            if (e) goto done;
            pos = wl_io_next_line(s, len, pos);
            line++;
            line_start = pos;
            continue;
        }
        size_t j = i + 1;
        while (j < pos + n && is_space(s[j])) j++;
        if (!saw_header && s[i] == 'x' && j < pos + n && s[j] == '=') {
            saw_header = 1;
            uint64_t w = 0, h = 0;
            e = parse_header(&st, pos, n, line, &w, &h);
            if (e) goto done;
            e = reserve_declared(&st, w, h, line);
            if (e) goto done;
            pos = wl_io_next_line(s, len, pos);
            line++;
            line_start = pos;
            continue; /* comment lines may follow the header */
        }
        break; /* the body starts here (headerless RLE when there was no 'x =' line) */
    }
    e = parse_body(&st, pos, line, line_start);
    if (e) goto done;
    e = wl_io_store_comments(p, &st.comments);
done:
    wl_iobuf_free(&st.comments);
    return e;
}

/* ---- writer ------------------------------------------------------------------------ */

/* The writer's cursor: tokens go straight into the buffer's memory, with room checked
 * once per token (RLE_TOKEN_MAX bytes) rather than through the buffer functions. */
#define RLE_TOKEN_MAX 48
typedef struct rle_out {
    wl_iobuf *b;
    char *q, *end;
    size_t line_len;
} rle_out;

static int out_room(rle_out *o) {
    if (o->q) o->b->len = (size_t)(o->q - o->b->p); /* NULL before the first call */
    if (!wl_iobuf_reserve(o->b, 1 << 16)) return 0;
    o->q = o->b->p + o->b->len;
    o->end = o->b->p + o->b->cap;
    return 1;
}

/* Emits "<n><tag>" (no count when n == 1), breaking lines at RLE_LINE_MAX. */
static inline void emit(rle_out *o, uint64_t n, char tag) {
    if (o->end - o->q < RLE_TOKEN_MAX && !out_room(o)) return;
    char tok[24];
    int k;
    if (n == 1) {
        k = 0;
    } else if (n < 10) {
        tok[0] = (char)('0' + n);
        k = 1;
    } else {
        k = wl_u64_digits(n, tok);
    }
    tok[k++] = tag;
    if (o->line_len + (size_t)k > RLE_LINE_MAX) {
        *o->q++ = '\n';
        o->line_len = 0;
    }
    memcpy(o->q, tok, (size_t)k);
    o->q += k;
    o->line_len += (size_t)k;
}

wl_status wl_rle_write(const wl_pattern *p, wl_iobuf *out) {
    wl_rect r;
    int any = wl_pattern_bounds(p, &r);
    char rule[WL_RULE_TEXT_MAX];
    wl_status e = wl_rule_format(wl_pattern_rule(p), rule, sizeof rule);
    if (e) return e;
    if (any && (r.x != 0 || r.y != 0)) {
        wl_iobuf_puts(out, "#CXRLE Pos=");
        wl_iobuf_put_i64(out, r.x);
        wl_iobuf_putc(out, ',');
        wl_iobuf_put_i64(out, r.y);
        wl_iobuf_putc(out, '\n');
    }
    wl_io_write_comments(p, "#C ", out);
    wl_iobuf_puts(out, "x = ");
    wl_iobuf_put_u64(out, r.w);
    wl_iobuf_puts(out, ", y = ");
    wl_iobuf_put_u64(out, r.h);
    wl_iobuf_puts(out, ", rule = ");
    wl_iobuf_puts(out, rule);
    wl_iobuf_putc(out, '\n');
    rle_out o = {out, NULL, NULL, 0};
    if (!out_room(&o)) return wl_error(WL_ERR_NOMEM, "out of memory writing RLE");
    if (any) {
        size_t nw = (size_t)((r.w + 63) / 64);
        uint64_t *row = wl_malloc(nw * sizeof(uint64_t));
        if (!row) return WL_ERR_NOMEM;
        uint64_t prev = 0;
        int first = 1;
        for (uint64_t ry = 0; ry < r.h; ry++) {
            wl_pattern_get_row(p, r.x, r.y + (int64_t)ry, r.w, row);
            uint64_t a = wl_io_next_one(row, r.w, 0);
            if (a == r.w) continue;
            if (!first) emit(&o, ry - prev, '$');
            first = 0;
            prev = ry;
            uint64_t at = 0;
            while (a < r.w) {
                if (a > at) emit(&o, a - at, 'b');
                uint64_t z = wl_io_next_zero(row, r.w, a);
                emit(&o, z - a, 'o');
                at = z;
                a = wl_io_next_one(row, r.w, z);
            }
            if (out->failed) break;
        }
        free(row);
    }
    emit(&o, 1, '!');
    if (!out->failed) out->len = (size_t)(o.q - out->p);
    wl_iobuf_putc(out, '\n');
    if (out->failed) return wl_error(WL_ERR_NOMEM, "out of memory writing RLE");
    return WL_OK;
}
