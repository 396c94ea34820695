/*
 * rle.c - run-length encoded patterns (.rle), the format Golly and LifeWiki use most.
 *
 * A file is: optional comment lines starting with '#', an optional header line
 *     x = <width>, y = <height>, rule = <rule>
 * (spaces optional, "rule" optional, unknown keys ignored), then the body: tokens
 * "<count><tag>" where the count (default 1) repeats the tag, tag 'b' (or '.') is a dead
 * cell, 'o' (or 'A') a live cell, '$' ends a row, and '!' ends the pattern; anything after
 * '!' is ignored (and not even read).  Whitespace and line breaks between tokens are
 * ignored (digits of one count may be split across lines, as Golly allows).
 *
 * Comment lines (both before the header and at the start of a body line):
 *   #C / #c / #N / #O  text kept as a comment line (without the tag);
 *   #r <rule>          the rule in the old S/B notation ("23/3");
 *   #CXRLE Pos=x,y Gen=g   Golly's extension: the top-left cell of the pattern is (x, y)
 *                      (Gen is read and ignored: a pattern carries no generation);
 *   anything else      (#P, #R, ...) kept as a comment line without the '#' (Golly ignores
 *                      those positions, and so do we).
 *
 * Placement (as Golly): the first cell of the body is (0, 0), or (x, y) of #CXRLE Pos; a
 * pattern whose rule names a bounded grid and that has no position is centred on the grid
 * when its declared size fits, else put at the grid's top-left corner, and cells beyond
 * the grid's size from that corner are dropped (Golly's reader does the same).
 * Numbers beyond what the format can place (a count, size or position past 2^62, or one
 * that overflows 64 bits) and cells outside -2^62 .. 2^62 - 1 are faults of the file:
 * WL_ERR_PARSE.  Cells beyond the declared x/y are accepted, as Golly accepts them (the
 * header's size is only checked to be placeable).  A run count of 0 is a parse error.
 *
 * Multi-state cells (Golly's, for rules of more than two states): '.' is state 0, 'A'..'X'
 * states 1..24, and a prefix 'p'..'y' before 'A'..'X' adds 24 per letter from 'p': "pA" is
 * 25, "yO" 255.  'b' and 'o' still mean 0 and 1.  A state the rule does not have is a parse
 * error.  The writer uses these letters exactly when the rule has more than two states (as
 * Golly does), runs of one state at a time.
 *
 * Reading streams: the header lines are taken whole from the byte source, the body is
 * parsed byte by byte as windows of the input arrive, with its state (x, y, a pending
 * count, the pattern word being filled) in locals that survive window boundaries; a count
 * or a token may be split across two windows.  Speed: a soup's tokens ('b' and 'o' with
 * counts of one digit) are taken 64 bytes at a time from masks made by vector compares
 * (SSE2), anything else byte by byte; live cells go straight into the pattern's current
 * 64-cell word, which is looked up once per word, so 100 MB files read at about 350 MB/s
 * (270 MB/s byte by byte).  The writer walks the pattern's rows with live cells
 * (wl_pattern_each_row) as 64-bit words and finds run ends with count-trailing-zeros, so
 * it costs per run, never per cell of the bounding box.  Lines are at most 70 characters,
 * as the RLE convention asks.
 */
#include "io_internal.h"

#include <stdio.h>
#include <stdlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Coordinates beyond 2^62 cannot be stored by a pattern (it keeps signed 64-bit room). */
#define RLE_COORD_LIMIT ((uint64_t)WL_IO_COORD_LIMIT)
/* The RLE convention: body lines of at most 70 characters. */
#define RLE_LINE_MAX 70
/* The body column of the current word's bit 0 when there is no current word: every
 * column x < 2^62 is then 2^63 or more past it. */
#define RLE_NO_WORD ((uint64_t)1 << 63)

typedef struct rle_state {
    wl_rd *r;
    int64_t px, py; /* placement of the top-left cell */
    int have_pos;   /* #CXRLE gave it */
} rle_state;

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
static int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* Parses "#CXRLE Pos=x,y Gen=g" from c[pos] on (c is the whole line, c[0] in column 1). */
static wl_status parse_cxrle(rle_state *st, const char *c, size_t pos, size_t end,
                             int allow_pos) {
    while (pos < end) {
        if (end - pos >= 4 && memcmp(c + pos, "Pos=", 4) == 0) {
            size_t i = pos + 4;
            int64_t x, y;
            int ovf = 0;
            if (!wl_io_parse_i64(c, end, &i, &x, &ovf) || i >= end || c[i] != ',' ||
                (i++, !wl_io_parse_i64(c, end, &i, &y, &ovf)))
                return wl_rd_error(st->r, WL_ERR_PARSE, i + 1,
                                   ovf ? "position out of range (beyond 2^62)"
                                       : "expected Pos=<x>,<y> with integers");
            if (x < -WL_IO_COORD_LIMIT || x > WL_IO_COORD_LIMIT || y < -WL_IO_COORD_LIMIT ||
                y > WL_IO_COORD_LIMIT)
                return wl_rd_error(st->r, WL_ERR_PARSE, pos + 1,
                                   "position out of range (beyond 2^62)");
            if (allow_pos) {
                st->px = x;
                st->py = y;
                st->have_pos = 1;
            }
            pos = i;
        } else {
            pos++; /* Gen=... and anything else: ignored */
        }
    }
    return WL_OK;
}

/* Handles one '#' line c[0..n) (c[0] == '#', in column 1). */
static wl_status comment_line(rle_state *st, const char *c, size_t n, int in_header) {
    if (n >= 6 && memcmp(c, "#CXRLE", 6) == 0) return parse_cxrle(st, c, 6, n, in_header);
    if (n >= 2 && c[1] == 'r') {
        size_t i = 2;
        while (i < n && is_space(c[i])) i++;
        return wl_rd_rule(st->r, c + i, n - i, i + 1);
    }
    if (n >= 2 && (c[1] == 'C' || c[1] == 'c' || c[1] == 'N' || c[1] == 'O')) {
        size_t i = 2;
        if (i < n && c[i] == ' ') i++;
        return wl_rd_comment(st->r, c + i, n - i);
    }
    return wl_rd_comment(st->r, c + 1, n - 1);
}

/* Parses the header "x = m, y = n, rule = R" in s[0..n), whose s[0] is in column col0. */
static wl_status parse_header(rle_state *st, const char *s, size_t end, size_t col0,
                              uint64_t *w, uint64_t *h) {
    size_t i = 0;
    char what[32];
    for (;;) {
        while (i < end && is_space(s[i])) i++;
        size_t k0 = i;
        while (i < end && is_alpha(s[i])) i++;
        size_t klen = i - k0;
        if (!klen)
            return wl_rd_error(st->r, WL_ERR_PARSE, col0 + i,
                               "expected 'x', 'y' or 'rule' in the header but found %s",
                               wl_io_describe(s, end, i, what));
        while (i < end && is_space(s[i])) i++;
        if (i >= end || s[i] != '=')
            return wl_rd_error(st->r, WL_ERR_PARSE, col0 + i,
                               "expected '=' after '%.*s' but found %s", (int)klen, s + k0,
                               wl_io_describe(s, end, i, what));
        i++;
        while (i < end && is_space(s[i])) i++;
        if (klen == 4 && memcmp(s + k0, "rule", 4) == 0) /* to the end of the line */
            return wl_rd_rule(st->r, s + i, end - i, col0 + i);
        if (klen == 1 && (s[k0] == 'x' || s[k0] == 'y')) {
            uint64_t v = 0;
            size_t d0 = i;
            while (i < end && s[i] >= '0' && s[i] <= '9') {
                uint64_t d = (uint64_t)(s[i] - '0');
                if (v > (UINT64_MAX - d) / 10)
                    return wl_rd_error(st->r, WL_ERR_PARSE, col0 + d0,
                                       "pattern size '%c' overflows 64 bits", s[k0]);
                v = v * 10 + d;
                i++;
            }
            if (i == d0)
                return wl_rd_error(st->r, WL_ERR_PARSE, col0 + i,
                                   "expected a number after '%c =' but found %s", s[k0],
                                   wl_io_describe(s, end, i, what));
            *(s[k0] == 'x' ? w : h) = v;
        } else {
            while (i < end && s[i] != ',') i++; /* unknown key: ignored, as Golly does */
        }
        while (i < end && is_space(s[i])) i++;
        if (i >= end) return WL_OK;
        if (s[i] != ',')
            return wl_rd_error(st->r, WL_ERR_PARSE, col0 + i,
                               "expected ',' or end of line in the header but found %s",
                               wl_io_describe(s, end, i, what));
        i++;
    }
}

/* Checks that a declared size can be placed (beyond 2^62 it is the file's fault). */
static wl_status check_declared(rle_state *st, uint64_t w, uint64_t h) {
    if (w > RLE_COORD_LIMIT || h > RLE_COORD_LIMIT)
        return wl_rd_error(st->r, WL_ERR_PARSE, 1,
                           "declared size x = %llu, y = %llu is beyond the coordinate range "
                           "(2^62)", (unsigned long long)w, (unsigned long long)h);
    return WL_OK;
}

/* ORs the n live cells from body column x on into row ay, through the current word
 * (*word, whose bit 0 is body column *wlo), fetching the next words as needed. */
static wl_status or_cells(rle_state *st, int64_t ay, uint64_t x, uint64_t n, uint64_t **word,
                          uint64_t *wlo) {
    wl_pattern *p = st->r->p;
    if (n >= 4096) { /* a long run: the pattern refuses one that cannot fit at once */
        *wlo = RLE_NO_WORD;
        return wl_pattern_set_run(p, st->px + (int64_t)x, ay, n);
    }
    while (n) {
        if (x - *wlo >= 64) {
            int64_t a = st->px + (int64_t)x, a0 = a - wl_mod(a, 64);
            wl_status e = wl_pattern_word(p, a0, ay, word);
            if (e) return e;
            *wlo = (uint64_t)(a0 - st->px);
        }
        unsigned lo = (unsigned)(x - *wlo);
        uint64_t take = 64 - lo < n ? 64 - lo : n;
        **word |= (take == 64 ? ~(uint64_t)0 : (((uint64_t)1 << take) - 1)) << lo;
        x += take;
        n -= take;
    }
    return WL_OK;
}

/* or_cells for a run of n live cells read at buf[at] of the source, its error prefixed
 * with the position (inlined: word and wlo stay in the caller's registers). */
static inline wl_status cells_run(rle_state *st, uint64_t y, uint64_t x, uint64_t n,
                                  uint64_t **word, uint64_t *wlo, size_t at) {
    uint64_t *w2 = *word, wl2 = *wlo;
    wl_status e = or_cells(st, st->py + (int64_t)y, x, n, &w2, &wl2);
    *word = w2;
    *wlo = wl2;
    if (e) {
        wl_src *s = st->r->src;
        wl_error_prefix("%s:%zu:%zu", s->name, s->line, wl_src_col(s, at));
    }
    return e;
}

/* Reads the '#' lines that start the lines after a newline inside the body (buf[pos] is
 * the first byte of a line). */
static wl_status body_comments(rle_state *st) {
    wl_src *s = st->r->src;
    for (;;) {
        wl_status e = wl_src_need(s, 1);
        if (e) return e;
        if (s->pos == s->end || s->buf[s->pos] != '#') return WL_OK;
        const char *c;
        size_t n;
        e = wl_src_peek_line(s, WL_IO_LINE_MAX, &c, &n);
        if (!e) e = comment_line(st, c, n, 0);
        if (e) return e;
        wl_src_next_line(s);
    }
}

/* The run count of the tag being read: the pending count (which is used up), or 1 when
 * there is none; a count of 0 is an error at the place where it started. */
static wl_status take_count(const wl_src *s, int *have_count, uint64_t count, size_t line,
                            size_t col, uint64_t *n) {
    *n = 1;
    if (!*have_count) return WL_OK;
    if (count == 0)
        return wl_io_error_at(WL_ERR_PARSE, s->name, line, col, "run count must be at least 1");
    *n = count;
    *have_count = 0;
    return WL_OK;
}

#if defined(__SSE2__)
/* Classifies the 64 bytes at p: bit i of *dig is set when p[i] is a digit '1'..'9', of
 * *let when it is 'b' or 'o', of *live when it is 'o', of *other when it is none of those
 * ('0' included: a count with a zero is left to the byte-by-byte paths). */
static inline void rle_classify(const char *p, uint64_t *dig, uint64_t *let, uint64_t *live,
                                uint64_t *other) {
    const __m128i lo = _mm_set1_epi8('1' - 1), hi = _mm_set1_epi8('9' + 1);
    const __m128i cb = _mm_set1_epi8('b'), co = _mm_set1_epi8('o');
    uint64_t d = 0, b = 0, o = 0;
    for (int k = 0; k < 4; k++) {
        const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
        const __m128i isd = _mm_and_si128(_mm_cmpgt_epi8(v, lo), _mm_cmplt_epi8(v, hi));
        d |= (uint64_t)(unsigned)_mm_movemask_epi8(isd) << (16 * k);
        b |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, cb)) << (16 * k);
        o |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, co)) << (16 * k);
    }
    *dig = d;
    *let = b | o;
    *live = o;
    *other = ~(d | b | o);
}
#endif

/* Parses the body from the source's position to '!' or the end of the input. */
static wl_status parse_body(rle_state *st) {
    wl_rd *r = st->r;
    wl_src *s = r->src;
    const char *b = s->buf;
    size_t pos = s->pos, end = s->end;
    uint64_t x = 0, y = 0, count = 0;
    size_t count_line = 0, count_col = 0; /* where the pending count started */
    int have_count = 0;
    char what[32];
    wl_status e;
    uint64_t *word = NULL, wlo = RLE_NO_WORD; /* the current word (see or_cells) */
#if defined(__SSE2__)
    uint64_t simd_from = 0; /* stream offset before which 64-byte chunks are not tried */
    int simd_miss = 0;      /* chunks in a row that took less than 8 bytes */
#endif
    for (;;) {
        if (pos == end) { /* the window is used up: the next one */
            if ((e = wl_src_refill(s, &b, &pos, &end))) return e;
            if (pos == end) break;
        }
        /* A soup's tokens, nearly all: 'b' or 'o' with a count of one digit or none, the
         * live ones inside the current word.  The count's presence (a coin toss in a soup)
         * is computed by masks, not a branch, and b and o alternate, so the loop runs
         * without mispredictions; anything else (longer counts, '$', a run leaving the
         * word, errors) leaves it for the paths below. */
        if (!have_count) {
#if defined(__SSE2__)
            /* 64 bytes at a time while they hold only 'b', 'o' and one-digit counts: the
             * bytes are classified by vector compares, and the tokens are taken from the
             * masks, letter by letter, so that the loop carries only the mask and x from
             * token to token (the loop below carries the position through a load and a
             * compare: about three times the cycles a token).  It stops before anything
             * else (a count of two digits or of 0, '$', a line break, a run beyond the
             * coordinate limit) and leaves it to the paths below. */
            while (end - pos >= 64 && x < RLE_COORD_LIMIT / 4 && s->base + pos >= simd_from) {
                uint64_t dig, let, live, other;
                rle_classify(b + pos, &dig, &let, &live, &other);
                /* up to the first other byte or count of two digits */
                const uint64_t stop = other | (dig & dig >> 1);
                if (stop) let &= ((uint64_t)1 << __builtin_ctzll(stop)) - 1;
                const uint64_t counted = dig << 1; /* letters that follow a digit */
                uint64_t cells = 0; /* live cells for the current word (kept in a register) */
                size_t next = pos;  /* after the last token taken */
                int cut = 0;        /* a run out of range: left to the paths below */
                while (let) {
                    const unsigned i = (unsigned)__builtin_ctzll(let);
                    const uint64_t isd = counted >> i & 1, keep = 0 - isd;
                    const uint64_t n = (((uint64_t)(unsigned char)b[pos + i - isd] - '0') & keep) |
                                       (1 & ~keep);
                    if (live >> i & 1) {
                        if (x - wlo + n <= 64) {
                            cells |= (((uint64_t)1 << n) - 1) << (x - wlo);
                        } else if (x + n <= RLE_COORD_LIMIT - (uint64_t)st->px &&
                                   y < RLE_COORD_LIMIT - (uint64_t)st->py) {
                            /* (a run into another word: the word is looked up) */
                            if (cells) *word |= cells;
                            cells = 0;
                            if ((e = cells_run(st, y, x, n, &word, &wlo, pos + i))) return e;
                        } else {
                            cut = 1; /* (out of range: the paths below say so) */
                            break;
                        }
                    }
                    let &= let - 1;
                    x += n;
                    next = pos + i + 1;
                }
                if (cells) *word |= cells;
                const int whole = !cut && (next == pos + 64 || (!stop && next + 1 == pos + 64));
                /* (bodies that are not soups, rows of a cell or two: after four chunks in a
                 * row that took less than 8 bytes each, the byte paths alone for 4096 bytes) */
                if (next - pos >= 8) {
                    simd_miss = 0;
                } else if (++simd_miss >= 4) {
                    simd_miss = 0;
                    simd_from = s->base + next + 4096;
                }
                pos = next;
                if (!whole) break;
            }
#endif
            while (end - pos >= 2 && x < RLE_COORD_LIMIT / 4) {
                const uint64_t d = (uint64_t)(unsigned char)b[pos] - '0';
                const uint64_t isd = d < 10, keep = 0 - isd; /* all ones with a digit */
                const uint64_t n = (d & keep) | (1 & ~keep);  /* (masks: gcc made a branch
                                                               * of `isd ? d : 1`) */
                const char t = b[pos + isd];
                if (n == 0) break; /* "0b": the error path's */
                if (t == 'b' || t == '.') {
                    x += n;
                } else if ((t == 'o' || t == 'A') && x - wlo + n <= 64) {
                    *word |= (((uint64_t)1 << n) - 1) << (x - wlo);
                    x += n;
                } else {
                    break;
                }
                pos += 1 + isd;
            }
            if (pos == end) continue;
        }
        char c = b[pos];
        /* The commonest token of a soup: a count of a few digits and 'b' or 'o', whole in
         * the window and in range, read at once (the switch below costs a mispredicted
         * jump per byte); anything else, errors included, takes the switch. */
        if (!have_count && (unsigned)(c - '0') < 10) {
            uint64_t n = (uint64_t)(c - '0');
            size_t q = pos + 1;
            while (q < end && (unsigned)(b[q] - '0') < 10 && n < ((uint64_t)1 << 40))
                n = n * 10 + (uint64_t)(b[q++] - '0');
            if (q < end && n && n < ((uint64_t)1 << 40) && x + n < RLE_COORD_LIMIT / 2) {
                char t = b[q];
                if (t == 'b' || t == '.') {
                    x += n;
                    pos = q + 1;
                    continue;
                }
                if ((t == 'o' || t == 'A') && x + n <= RLE_COORD_LIMIT - (uint64_t)st->px &&
                    y < RLE_COORD_LIMIT - (uint64_t)st->py) {
                    if ((e = cells_run(st, y, x, n, &word, &wlo, q))) return e;
                    x += n;
                    pos = q + 1;
                    continue;
                }
            }
        }
        switch (c) {
        case '0': case '1': case '2': case '3': case '4':
        case '5': case '6': case '7': case '8': case '9': {
            uint64_t d = (uint64_t)(c - '0');
            if (!have_count) {
                have_count = 1;
                count = 0;
                count_line = s->line;
                count_col = wl_src_col(s, pos);
            }
            if (count > (RLE_COORD_LIMIT - d) / 10)
                return wl_io_error_at(WL_ERR_PARSE, s->name, count_line, count_col,
                                      "run count too large (more than 2^62)");
            count = count * 10 + d;
            pos++;
            continue;
        }
        case 'b': case '.':
            /* The commonest tokens of all, single cells without a count: short paths. */
            if (!have_count) {
                if (x >= RLE_COORD_LIMIT)
                    return wl_rd_error(r, WL_ERR_PARSE, wl_src_col(s, pos),
                                       "pattern too wide (more than 2^62 cells)");
                x++;
                pos++;
                continue;
            }
            goto token;
        case 'o': case 'A':
            if (!have_count && x - wlo < 64) {
                *word |= (uint64_t)1 << (x - wlo);
                x++;
                pos++;
                continue;
            }
            goto token;
        case '$':
        token: {
            uint64_t n;
            if ((e = take_count(s, &have_count, count, count_line, count_col, &n))) return e;
            if (c == '$') {
                if (n > RLE_COORD_LIMIT - y)
                    return wl_rd_error(r, WL_ERR_PARSE, wl_src_col(s, pos),
                                       "pattern too tall (more than 2^62 rows)");
                y += n;
                x = 0;
                wlo = RLE_NO_WORD;
            } else {
                if (n > RLE_COORD_LIMIT - x)
                    return wl_rd_error(r, WL_ERR_PARSE, wl_src_col(s, pos),
                                       "pattern too wide (more than 2^62 cells)");
                if (c == 'o' || c == 'A') {
                    /* Live cells must stay below 2^62 (the position is within +-2^62). */
                    if (x + n > RLE_COORD_LIMIT - (uint64_t)st->px ||
                        y >= RLE_COORD_LIMIT - (uint64_t)st->py)
                        return wl_rd_error(r, WL_ERR_PARSE, wl_src_col(s, pos),
                                           "cell coordinates out of range (beyond 2^62)");
                    if ((e = cells_run(st, y, x, n, &word, &wlo, pos))) return e;
                }
                x += n;
            }
            pos++;
            continue;
        }
        case '!':
            s->pos = pos + 1;
            if (have_count)
                return wl_rd_error(r, WL_ERR_PARSE, wl_src_col(s, pos),
                                   "expected 'b', 'o' or '$' after a run count but found '!'");
            return WL_OK; /* the rest of the input is ignored, as in Golly */
        case '\n':
            wl_src_newline(s, pos);
            pos++;
            if (!have_count) { /* a line starting with '#' inside the body is a comment */
                s->pos = pos;
                e = body_comments(st);
                if (e) return e;
                b = s->buf;
                pos = s->pos;
                end = s->end;
            }
            continue;
        case ' ': case '\t': case '\r': case '\f': case '\v':
            pos++;
            continue;
        default:
            if ((c >= 'B' && c <= 'X') || (c >= 'p' && c <= 'y')) {
                /* a multi-state cell: 'A'..'X' are states 1..24, a prefix 'p'..'y' before
                 * one of them adds 24 per letter from 'p' (states 25..255) */
                size_t col = wl_src_col(s, pos);
                unsigned state = c >= 'B' && c <= 'X' ? (unsigned)(c - 'A' + 1) : 1;
                pos++;
                if (c >= 'p') {
                    if (pos == end && (e = wl_src_refill(s, &b, &pos, &end))) return e;
                    if (pos < end && b[pos] >= 'A' && b[pos] <= 'X')
                        state = 24u * (unsigned)(c - 'p' + 1) + (unsigned)(b[pos++] - 'A' + 1);
                    /* else Golly's leniency: a lone prefix is state 1 */
                }
                unsigned states = wl_rule_states(wl_pattern_rule(r->p));
                char rt[WL_RULE_TEXT_MAX];
                if (state >= states) {
                    s->pos = pos;
                    wl_rule_format(wl_pattern_rule(r->p), rt, sizeof rt);
                    return wl_rd_error(r, WL_ERR_PARSE, col, "cell state %u is out of range for "
                                       "rule %s (%u states)", state, rt, states);
                }
                uint64_t n;
                if ((e = take_count(s, &have_count, count, count_line, count_col, &n))) return e;
                if (n > RLE_COORD_LIMIT - x || x + n > RLE_COORD_LIMIT - (uint64_t)st->px ||
                    y >= RLE_COORD_LIMIT - (uint64_t)st->py) {
                    s->pos = pos;
                    return wl_rd_error(r, WL_ERR_PARSE, col,
                                       "cell coordinates out of range (beyond 2^62)");
                }
                e = wl_pattern_set_state_run(r->p, st->px + (int64_t)x, st->py + (int64_t)y, n,
                                             state);
                if (e) {
                    wl_error_prefix("%s:%zu:%zu", s->name, s->line, col);
                    return e;
                }
                wlo = RLE_NO_WORD; /* the pattern may have moved its words */
                x += n;
                continue;
            }
            s->pos = pos;
            return wl_rd_error(r, WL_ERR_PARSE, wl_src_col(s, pos),
                               "expected a run count, 'b', 'o', '$' or '!' but found %s",
                               wl_io_describe_byte((unsigned char)c, what));
        }
    }
    s->pos = pos;
    if (have_count)
        return wl_rd_error(r, WL_ERR_PARSE, wl_src_col(s, pos),
                           "expected 'b', 'o' or '$' after a run count but found end of file");
    return WL_OK; /* a missing '!' is tolerated, as Golly tolerates it */
}

/* Is the line at the source's position an "x = ..." header?  (buf[pos] is 'x'.)  Looks
 * only as far as the '=' (a body line may be long). */
static wl_status is_header(wl_src *s, int *yes) {
    *yes = 0;
    for (size_t k = 1; k < WL_IO_LINE_MAX; k++) {
        wl_status e = wl_src_need(s, k + 1);
        if (e) return e;
        if (s->end - s->pos <= k) return WL_OK;
        char c = s->buf[s->pos + k];
        if (c == '=') *yes = 1;
        if (c == '\n' || !is_space(c)) return WL_OK;
    }
    return WL_OK;
}

/* Golly's placement of a pattern without a #CXRLE position whose rule names a bounded grid
 * of gw x gh cells (0: unbounded that way), declared w x h: centred when it fits, else at
 * the grid's top-left corner; cells further from that corner than the grid reaches are
 * dropped (*clip). */
static void place_in_grid(rle_state *st, uint64_t w, uint64_t h, uint64_t gw, uint64_t gh,
                          int *clip) {
    if (w && h && (!gw || w <= gw) && (!gh || h <= gh)) {
        st->px = -(int64_t)(w / 2);
        st->py = -(int64_t)(h / 2);
    } else {
        st->px = -(int64_t)(gw / 2);
        st->py = -(int64_t)(gh / 2);
    }
    *clip = 1;
}

wl_status wl_rle_read_src(wl_rd *r) {
    rle_state st = {r, 0, 0, 0};
    wl_src *s = r->src;
    int saw_header = 0, clip = 0;
    uint64_t decl_w = 0, decl_h = 0;
    wl_status e;
    /* Comment lines and the header, line by line, up to the first byte of the body. */
    for (;;) {
        if ((e = wl_src_need(s, 1))) return e;
        if (s->pos == s->end) break; /* no body at all */
        const char *c;
        size_t n;
        if (s->buf[s->pos] == '#') {
            if ((e = wl_src_peek_line(s, WL_IO_LINE_MAX, &c, &n))) return e;
            if ((e = comment_line(&st, c, n, 1))) return e;
            wl_src_next_line(s);
            continue;
        }
        /* Blanks before a line's first token belong to nothing: consume them. */
        while (s->pos < s->end && is_space(s->buf[s->pos]))
            if (++s->pos == s->end && (e = wl_src_more(s))) return e;
        if (s->pos == s->end) break;
        if (s->buf[s->pos] == '\n') { /* a blank line */
            wl_src_newline(s, s->pos);
            s->pos++;
            continue;
        }
        int header = 0;
        if (!saw_header && s->buf[s->pos] == 'x' && (e = is_header(s, &header))) return e;
        if (!header) break; /* the body starts here (headerless RLE when no 'x =' line) */
        saw_header = 1;
        size_t col0 = wl_src_col(s, s->pos);
        uint64_t w = 0, h = 0;
        if ((e = wl_src_peek_line(s, WL_IO_LINE_MAX, &c, &n))) return e;
        if ((e = parse_header(&st, c, n, col0, &w, &h))) return e;
        if ((e = check_declared(&st, w, h))) return e;
        decl_w = w;
        decl_h = h;
        wl_src_next_line(s); /* comment lines may follow the header */
    }
    if (r->header_only) return WL_OK;
    wl_shape sh;
    wl_pattern_shape(r->p, &sh);
    if (sh.topology != WL_TOPOLOGY_PLANE && !st.have_pos)
        place_in_grid(&st, decl_w, decl_h, sh.width, sh.height, &clip);
    e = parse_body(&st);
    if (!e && clip) wl_pattern_clip(r->p, st.px, st.py, sh.width, sh.height);
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

/* Emits "<n><tag>" (no count when n == 1; the tag one or two characters), breaking lines
 * at RLE_LINE_MAX. */
static inline void emit_tag(rle_out *o, uint64_t n, const char *tag, int taglen) {
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
    for (int i = 0; i < taglen; i++) tok[k++] = tag[i];
    if (o->line_len + (size_t)k > RLE_LINE_MAX) {
        *o->q++ = '\n';
        o->line_len = 0;
    }
    memcpy(o->q, tok, (size_t)k);
    o->q += k;
    o->line_len += (size_t)k;
}

static inline void emit(rle_out *o, uint64_t n, char tag) {
    emit_tag(o, n, &tag, 1);
}

/* The writer's walk over the rows with live cells. */
typedef struct rle_rows {
    rle_out *o;
    int64_t x0, prev; /* the left edge; the last row written (relative to the top) */
    int64_t top;
    int first_done;
} rle_rows;

static wl_status rle_row(void *ctx, int64_t y, size_t n, const int64_t *x, const uint64_t *w) {
    rle_rows *rr = ctx;
    rle_out *o = rr->o;
    int64_t ry = y - rr->top;
    if (rr->first_done) emit(o, (uint64_t)(ry - rr->prev), '$');
    rr->first_done = 1;
    rr->prev = ry;
    int64_t at = rr->x0;           /* the next cell to describe */
    int64_t run = 0, run_end = 0;  /* the pending run of live cells [run, run_end) */
    for (size_t k = 0; k < n; k++) {
        uint64_t v = w[k];
        while (v) {
            int b = __builtin_ctzll(v);
            uint64_t rest = ~(v >> b);
            int len = rest ? __builtin_ctzll(rest) : 64 - b;
            int64_t a = x[k] + b;
            if (run_end == a && run_end > run) {
                run_end += len; /* continues from the word before */
            } else {
                if (run_end > run) {
                    if (run > at) emit(o, (uint64_t)(run - at), 'b');
                    emit(o, (uint64_t)(run_end - run), 'o');
                    at = run_end;
                }
                run = a;
                run_end = a + len;
            }
            v &= b + len >= 64 ? 0 : ~(uint64_t)0 << (b + len);
        }
    }
    if (run_end > run) {
        if (run > at) emit(o, (uint64_t)(run - at), 'b');
        emit(o, (uint64_t)(run_end - run), 'o');
    }
    return o->b->failed ? WL_ERR_NOMEM : WL_OK;
}

/* Emits "<n><state letters>" for a run of n cells of one state (multi-state RLE: '.' for
 * 0, 'A'..'X' for 1..24, a prefix 'p'..'y' and a letter for 25..255). */
static void emit_state(rle_out *o, uint64_t n, unsigned state) {
    char tag[2];
    if (state == 0) {
        emit(o, n, '.');
    } else if (state <= 24) {
        emit(o, n, (char)('A' + state - 1));
    } else {
        tag[0] = (char)('p' + (state - 25) / 24);
        tag[1] = (char)('A' + (state - 25) % 24);
        emit_tag(o, n, tag, 2);
    }
}

/* The multi-state writer's rows: each run of live cells is split into runs of one state,
 * read from the pattern's planes a word at a time. */
typedef struct rle_state_rows {
    rle_rows rows;
    const wl_pattern *p;
} rle_state_rows;

static wl_status rle_state_row(void *ctx, int64_t y, size_t n, const int64_t *x,
                               const uint64_t *w) {
    rle_state_rows *sr = ctx;
    rle_rows *rr = &sr->rows;
    rle_out *o = rr->o;
    int64_t ry = y - rr->top;
    if (rr->first_done) emit(o, (uint64_t)(ry - rr->prev), '$');
    rr->first_done = 1;
    rr->prev = ry;
    int64_t at = rr->x0; /* the next cell to describe */
    unsigned run_state = 0;
    int64_t run = 0, run_end = 0;
    for (size_t k = 0; k < n; k++) {
        uint64_t planes[WL_PATTERN_PLANES] = {0};
        for (unsigned b = 0; b < WL_PATTERN_PLANES; b++) {
            const wl_pattern *pl = wl_pattern_plane(sr->p, b);
            if (pl) wl_pattern_get_row(pl, x[k], y, 64, &planes[b]);
        }
        for (uint64_t v = w[k]; v; v &= v - 1) {
            int bit = __builtin_ctzll(v);
            unsigned state = 1;
            for (unsigned b = 0; b < WL_PATTERN_PLANES; b++) state += (unsigned)(planes[b] >> bit & 1) << b;
            int64_t a = x[k] + bit;
            if (run_end == a && state == run_state) {
                run_end++;
                continue;
            }
            if (run_end > run) {
                if (run > at) emit_state(o, (uint64_t)(run - at), 0);
                emit_state(o, (uint64_t)(run_end - run), run_state);
                at = run_end;
            }
            run = a;
            run_end = a + 1;
            run_state = state;
        }
    }
    if (run_end > run) {
        if (run > at) emit_state(o, (uint64_t)(run - at), 0);
        emit_state(o, (uint64_t)(run_end - run), run_state);
    }
    return o->b->failed ? WL_ERR_NOMEM : WL_OK;
}

wl_status wl_rle_write(const wl_pattern *p, wl_iobuf *out) {
    wl_rect r;
    int any = wl_pattern_bounds(p, &r);
    char rule[WL_RULE_TEXT_MAX];
    wl_status e = wl_rule_format(wl_pattern_rule(p), rule, sizeof rule);
    if (e) return e;
    wl_shape sh;
    wl_pattern_shape(p, &sh);
    /* a bounded grid's pattern without a position would be centred on reading (Golly's
     * placement): its position is written even at 0,0 */
    if (any && (r.x != 0 || r.y != 0 || sh.topology != WL_TOPOLOGY_PLANE)) {
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
    wl_io_put_grid_suffix(out, p);
    wl_iobuf_putc(out, '\n');
    rle_out o = {out, NULL, NULL, 0};
    if (!out_room(&o)) return wl_error(WL_ERR_NOMEM, "out of memory writing RLE");
    if (any) {
        rle_rows rr = {&o, r.x, 0, r.y, 0};
        rle_state_rows sr = {rr, p};
        /* Golly writes the multi-state letters exactly when the rule has more than two
         * states, whatever states the cells use */
        int multi = wl_rule_states(wl_pattern_rule(p)) > 2;
        unsigned top = multi ? 0 : wl_pattern_max_state(p);
        if (top > 1)
            return wl_error(WL_ERR_INVALID, "RLE: the pattern has cells of state %u but its rule "
                            "%s has two states", top, rule);
        wl_status e2 = multi ? wl_pattern_each_row(p, rle_state_row, &sr)
                             : wl_pattern_each_row(p, rle_row, &rr);
        if (e2 && e2 != WL_ERR_NOMEM) return e2;
        if (e2) out->failed = 1;
    }
    emit(&o, 1, '!');
    if (!out->failed) out->len = (size_t)(o.q - out->p);
    wl_iobuf_putc(out, '\n');
    if (out->failed) return wl_error(WL_ERR_NOMEM, "out of memory writing RLE");
    return WL_OK;
}
