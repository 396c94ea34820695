#define _POSIX_C_SOURCE 200809L
/*
 * test_io_stream.c - the pattern readers as streams: input refused at its first byte
 * (binary data, a gzip stream of zeros), lines longer than a reader takes whole, rows and
 * bodies longer than any window, the reading limit (bitmap, comments, macrocell tables),
 * the format reported when a read fails, Life files whose version only the reader can
 * tell, and gzip streams (concatenated, truncated, corrupt) read through windows of 1 to
 * 7 bytes as well as the default.  Memory and time on hostile inputs are measured by
 * test_io_bounds.c.
 */
#include "internal.h"
#include "wltest.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The read windows every case runs with (NULL: the default). */
static const char *const windows[] = {NULL, "1", "2", "3", "5", "7"};
#define NWINDOWS (sizeof windows / sizeof windows[0])

static void set_window(const char *w) {
    if (w)
        setenv("WL_IO_WINDOW", w, 1);
    else
        unsetenv("WL_IO_WINDOW");
}

/* Reads data[0..len) with a limit (0 = default) under every window; checks the status, a
 * substring of the message (when failing) and the format reported; returns the pattern
 * of the default window's read (the caller frees it) when the read succeeds. */
static wl_pattern *read_all_windows(const char *what, const void *data, size_t len,
                                    const char *name, uint64_t limit, wl_status want,
                                    const char *where, wl_format want_fmt) {
    wl_pattern *first = NULL;
    wl_read_opts o = {.max_memory = limit};
    for (size_t w = 0; w < NWINDOWS; w++) {
        set_window(windows[w]);
        wl_pattern *p = NULL;
        wl_format f = (wl_format)-1;
        wl_status s = wl_pattern_read_mem_opts(data, len, name, &o, &p, &f);
        const char *wn = windows[w] ? windows[w] : "default";
        WL_CHECK(s == want, "%s (window %s): status %s, want %s (%s)", what, wn,
                 wl_status_str(s), wl_status_str(want), wl_last_error());
        if (s && where)
            WL_CHECK(strstr(wl_last_error(), where) != NULL, "%s (window %s): '%s' lacks '%s'",
                     what, wn, wl_last_error(), where);
        WL_CHECK(f == want_fmt, "%s (window %s): format %s, want %s", what, wn,
                 wl_format_name(f), wl_format_name(want_fmt));
        WL_CHECK((s == WL_OK) == (p != NULL), "%s: *out and status disagree", what);
        if (!first) {
            first = p;
        } else if (p) {
            WL_CHECK(wl_pattern_equal_cells(first, p), "%s (window %s): cells differ", what, wn);
            WL_CHECK(strcmp(wl_pattern_comments(first), wl_pattern_comments(p)) == 0,
                     "%s (window %s): comments differ", what, wn);
            wl_pattern_free(p);
        }
    }
    set_window(NULL);
    return first;
}

/* A growable text for building inputs. */
typedef struct text {
    char *p;
    size_t len, cap;
} text;

static void put(text *t, const char *s, size_t n) {
    if (t->len + n + 1 > t->cap) {
        t->cap = (t->len + n + 1) * 2;
        t->p = realloc(t->p, t->cap);
        if (!t->p) abort();
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = '\0';
}
static void puts_n(text *t, const char *s, size_t times) {
    for (size_t i = 0; i < times; i++) put(t, s, strlen(s));
}

/* Input no format can start with is refused at its first byte. */
static void test_refusal(void) {
    static const struct {
        const char *what, *data;
        size_t len;
        const char *where;
    } cases[] = {
        {"NUL", "\0\0\0\0", 4, "z:1:1: not a pattern file: byte 0x00"},
        {"after blank lines", "\n\n  \x01x", 6, "z:3:3: not a pattern file: byte 0x01"},
        {"after a BOM", "\xEF\xBB\xBF\xff", 4, "z:1:1: not a pattern file: byte 0xff"},
        {"executable", "\x7f" "ELF\x02\x01", 6, "z:1:1: not a pattern file: byte 0x7f"},
        {"PNG", " \x89PNG\r\n", 7, "z:1:2: not a pattern file: byte 0x89"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        wl_pattern_free(read_all_windows(cases[i].what, cases[i].data, cases[i].len, "z", 0,
                                         WL_ERR_PARSE, cases[i].where, WL_FORMAT_AUTO));
    /* A gzip stream of a megabyte of zeros: refused at 1:1 of the inflated text. */
    char *zeros = calloc(1, 1 << 20), *gz = NULL;
    size_t gzlen = 0;
    if (zeros && wl_gzip(zeros, 1 << 20, &gz, &gzlen) == WL_OK) {
        wl_pattern_free(read_all_windows("gzip of zeros", gz, gzlen, "z.rle.gz", 0, WL_ERR_PARSE,
                                         "z.rle.gz:1:1: not a pattern file", WL_FORMAT_AUTO));
        free(gz);
    }
    free(zeros);
}

/* Lines a reader takes whole have a cap; rows and RLE bodies stream and have none. */
static void test_long_lines(void) {
    text t = {0};
    put(&t, "#C ", 3);
    puts_n(&t, "a", (1 << 20) + 1);
    put(&t, "\no!", 3);
    wl_pattern_free(read_all_windows("long comment", t.p, t.len, "c.rle", 0, WL_ERR_PARSE,
                                     "c.rle:1:1: line longer than 1 MiB", WL_FORMAT_RLE));
    /* A 3 MB RLE body on one line, and a plaintext row of 3 million cells. */
    t.len = 0;
    put(&t, "x = 3000002, y = 1\n", 19);
    puts_n(&t, "b", 3000000);
    put(&t, "2o!", 3);
    wl_pattern *p = read_all_windows("long body line", t.p, t.len, "b.rle", 0, WL_OK, NULL,
                                     WL_FORMAT_RLE);
    WL_CHECK(p && wl_pattern_population(p) == 2 && wl_pattern_get(p, 3000001, 0), "long body");
    wl_pattern_free(p);
    t.len = 0;
    puts_n(&t, ".", 3000000);
    put(&t, "O \r\n", 4);
    p = read_all_windows("long row", t.p, t.len, "r.cells", 0, WL_OK, NULL,
                         WL_FORMAT_PLAINTEXT);
    WL_CHECK(p && wl_pattern_population(p) == 1 && wl_pattern_get(p, 3000000, 0), "long row");
    wl_pattern_free(p);
    free(t.p);
}

/* The reading limit: the cells' storage, the comments and macrocell's tables count; the message
 * names the limit; the pattern read keeps no limit afterwards. */
static void test_limits(void) {
    text t = {0};
    put(&t, "x = 1, y = 100000\n", 18);
    puts_n(&t, "o$", 100000); /* 100000 rows of one word: 800 kB of bitmap */
    wl_pattern_free(read_all_windows("rows over the limit", t.p, t.len, "rows.rle", 256 << 10,
                                     WL_ERR_TOO_BIG, "more than the reading limit of 256 KiB",
                                     WL_FORMAT_RLE));
    wl_pattern *p = read_all_windows("rows within the limit", t.p, t.len, "rows.rle", 1 << 20,
                                     WL_OK, NULL, WL_FORMAT_RLE);
    WL_CHECK(p && wl_pattern_population(p) == 100000, "rows within the limit");
    if (p) WL_CHECK_OK(wl_pattern_set(p, 0, 600000, 1)); /* 4.8 MB: no limit any more */
    wl_pattern_free(p);
    /* Headerless: the same (storage follows the cells, whatever the header says). */
    p = read_all_windows("rows headerless", t.p + 18, t.len - 18, "rows.rle", 1 << 20, WL_OK,
                         NULL, WL_FORMAT_RLE);
    WL_CHECK(p && wl_pattern_population(p) == 100000, "rows headerless");
    wl_pattern_free(p);

    t.len = 0;
    puts_n(&t, "#C a comment line of some length, to fill the limit with comments\n", 20000);
    put(&t, "o!", 2);
    wl_pattern_free(read_all_windows("comments over the limit", t.p, t.len, "c.rle", 256 << 10,
                                     WL_ERR_TOO_BIG, "its comments would take", WL_FORMAT_RLE));
    t.len = 0;
    put(&t, "[M2]\n", 5);
    puts_n(&t, "4 0 0 0 0\n", 20000);
    wl_pattern_free(read_all_windows("macrocell nodes over the limit", t.p, t.len, "n.mc",
                                     256 << 10, WL_ERR_TOO_BIG, "reading limit of 256 KiB",
                                     WL_FORMAT_MACROCELL));
    /* Far-apart cells cost what cells cost: a box of 10^10 cells in a limit of 1 MiB. */
    const char *far = "#Life 1.06\n0 0\n100000 100000\n";
    p = read_all_windows("far cells", far, strlen(far), "f.lif", 1 << 20, WL_OK, NULL,
                         WL_FORMAT_LIFE106);
    WL_CHECK(p && wl_pattern_population(p) == 2 && wl_pattern_get(p, 100000, 100000),
             "far cells");
    wl_pattern_free(p);
    /* A macrocell diagonal of 2048 cells across a 2^14 square: few nodes, few tiles. */
    t.len = 0;
    put(&t, "[M2]\n*$\n", 8);
    for (int lv = 4; lv <= 14; lv++) {
        char line[64];
        snprintf(line, sizeof line, "%d %d 0 0 %d\n", lv, lv - 3, lv - 3);
        put(&t, line, strlen(line));
    }
    p = read_all_windows("macrocell diagonal", t.p, t.len, "r.mc", 1 << 20, WL_OK, NULL,
                         WL_FORMAT_MACROCELL);
    WL_CHECK(p && wl_pattern_population(p) == 2048 && wl_pattern_get(p, -8192, -8192) &&
             wl_pattern_get(p, 8192 - 8, 8192 - 8), "macrocell diagonal");
    wl_pattern_free(p);
    /* A filled 2^14 square (2^28 cells) in 12 lines: refused before painting a cell. */
    t.len = 0;
    put(&t, "[M2]\n", 5);
    for (int r = 0; r < 8; r++) put(&t, "********$", 9);
    put(&t, "\n", 1);
    for (int lv = 4; lv <= 14; lv++) {
        char line[64];
        snprintf(line, sizeof line, "%d %d %d %d %d\n", lv, lv - 3, lv - 3, lv - 3, lv - 3);
        put(&t, line, strlen(line));
    }
    wl_pattern_free(read_all_windows("macrocell cells over the limit", t.p, t.len, "r.mc",
                                     1 << 20, WL_ERR_TOO_BIG, "cells would take",
                                     WL_FORMAT_MACROCELL));
    free(t.p);
}

/* A Life file without its "#Life" line and with more leading '#' lines than detection
 * looks at: the reader tells the version from the first other line. */
static void test_life_version_late(void) {
    text t = {0};
    puts_n(&t, "#D a description line that goes on for a while, many times over\n", 2000);
    size_t mark = t.len;
    put(&t, "\n#P 2 3\n.*\n", 11);
    wl_pattern *p = read_all_windows("late 1.05", t.p, t.len, "late.lif", 0, WL_OK, NULL,
                                     WL_FORMAT_LIFE105);
    WL_CHECK(p && wl_pattern_population(p) == 1 && wl_pattern_get(p, 3, 3), "late 1.05 cells");
    wl_pattern_free(p);
    t.len = mark;
    put(&t, "\n.*\n", 4); /* an empty row, then a row: the cell is on row 2 */
    p = read_all_windows("late 1.05 rows", t.p, t.len, "late.lif", 0, WL_OK, NULL,
                         WL_FORMAT_LIFE105);
    WL_CHECK(p && wl_pattern_population(p) == 1 && wl_pattern_get(p, 1, 1), "late 1.05 rows");
    wl_pattern_free(p);
    t.len = mark;
    put(&t, "\n5 -6\n-1 2\n", 11);
    p = read_all_windows("late 1.06", t.p, t.len, "late.life", 0, WL_OK, NULL,
                         WL_FORMAT_LIFE106);
    WL_CHECK(p && wl_pattern_population(p) == 2 && wl_pattern_get(p, 5, -6), "late 1.06 cells");
    wl_pattern_free(p);
    free(t.p);
}

/* Numbers a format cannot place are faults of the file (WL_ERR_PARSE), not of memory. */
static void test_file_faults(void) {
    static const struct {
        const char *name, *text, *where;
    } cases[] = {
        {"a.rle", "99999999999999999999999o!", "a.rle:1:1: run count too large"},
        {"a.rle", "#CXRLE Pos=4611686018427387900,0\n10o!", "a.rle:2:3: cell coordinates"},
        {"a.rle", "#CXRLE Pos=0,4611686018427387903\n$o!", "a.rle:2:2: cell coordinates"},
        {"a.rle", "#CXRLE Pos=99999999999999999999,0\no!", "a.rle:1:"},
        {"a.rle", "4611686018427387904b4611686018427387904b!", "a.rle:1:40: pattern too wide"},
        {"a.lif", "#Life 1.06\n4611686018427387904 0\n", "a.lif:2:1: coordinate out of range"},
        {"a.lif", "#Life 1.06\n0 -99999999999999999999\n", "a.lif:2:"},
        {"a.lif", "#Life 1.05\n#P 4611686018427387904 0\n.*\n", "a.lif:3:2: cell coordinates"},
        {"a.lif", "#Life 1.05\n#P 0 99999999999999999999\n", "a.lif:2:"},
        {"a.lif", "#Life 1.05\n#P 0 4611686018427387905\n", "a.lif:2:3: block position"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wl_format f = WL_FORMAT_AUTO;
        wl_pattern *p = NULL;
        wl_status s = wl_pattern_read_mem_opts(cases[i].text, strlen(cases[i].text),
                                               cases[i].name, NULL, &p, &f);
        WL_CHECK(s == WL_ERR_PARSE, "case %zu: %s (%s)", i, wl_status_str(s), wl_last_error());
        WL_CHECK(strstr(wl_last_error(), cases[i].where) != NULL, "case %zu: '%s' lacks '%s'", i,
                 wl_last_error(), cases[i].where);
        WL_CHECK(p == NULL && f != WL_FORMAT_AUTO, "case %zu: pattern or format", i);
    }
}

/* gzip streams through every window: members one after another, cut short, damaged. */
static void test_gzip_streams(void) {
    const char *a = "#C first\nx = 3, y = 1\nobo!", *b = "not read: after the '!'";
    char *za, *zb;
    size_t la, lb;
    wl_status s = wl_gzip(a, strlen(a), &za, &la);
    if (s == WL_ERR_UNAVAILABLE) {
        printf("note: no zlib in this build; gzip streams skipped\n");
        return;
    }
    WL_CHECK_OK(s);
    WL_CHECK_OK(wl_gzip(b, strlen(b), &zb, &lb));
    char *two = malloc(la + lb);
    memcpy(two, za, la);
    memcpy(two + la, zb, lb);
    wl_pattern *p = read_all_windows("two members", two, la + lb, "two.rle.gz", 0, WL_OK, NULL,
                                     WL_FORMAT_RLE);
    WL_CHECK(p && wl_pattern_population(p) == 2 && wl_pattern_get(p, 2, 0), "two members");
    wl_pattern_free(p);
    /* The first member's text without its '!', then a second member with more rows. */
    const char *c = "x = 3, y = 2\nobo$", *d = "3o!";
    char *zc, *zd;
    size_t lc, ld;
    WL_CHECK_OK(wl_gzip(c, strlen(c), &zc, &lc));
    WL_CHECK_OK(wl_gzip(d, strlen(d), &zd, &ld));
    char *cd = malloc(lc + ld);
    memcpy(cd, zc, lc);
    memcpy(cd + lc, zd, ld);
    p = read_all_windows("a body across members", cd, lc + ld, "cd.rle.gz", 0, WL_OK, NULL,
                         WL_FORMAT_RLE);
    WL_CHECK(p && wl_pattern_population(p) == 5 && wl_pattern_get(p, 1, 1), "across members");
    wl_pattern_free(p);
    /* Cut in the second member's trailer: its text is whole, and the reader stops at
     * the '!' before the cut in every window.  Cut in its data: truncated.  Damaged in
     * the first. */
    p = read_all_windows("truncated trailer", cd, lc + ld - 5, "t.rle.gz", 0, WL_OK, NULL,
                         WL_FORMAT_RLE);
    WL_CHECK(p && wl_pattern_population(p) == 5, "truncated trailer");
    wl_pattern_free(p);
    wl_pattern_free(read_all_windows("truncated", cd, lc + ld - 12, "t.rle.gz", 0, WL_ERR_PARSE,
                                     "t.rle.gz: truncated gzip data", WL_FORMAT_RLE));
    char *bad = malloc(la);
    memcpy(bad, za, la);
    for (size_t i = 10; i < la - 8; i++) bad[i] = (char)0xff;
    wl_pattern_free(read_all_windows("corrupt", bad, la, "bad.rle.gz", 0, WL_ERR_PARSE,
                                     "bad.rle.gz: corrupt gzip data", WL_FORMAT_AUTO));
    /* A damaged checksum after text that detection cannot place: the same fault in every
     * window (fuzz/seeds/auto/late-crc.gz, found by the fuzzer, is a text detection can
     * place, where the reader's fault at 1:1 must come first in every window). */
    char late[4100] = "[M";
    memset(late + 2, 'o', 4000);
    late[4002] = '\0';
    char *zt;
    size_t lt;
    WL_CHECK_OK(wl_gzip(late, strlen(late), &zt, &lt));
    zt[lt - 8] ^= 1; /* the CRC-32 of the trailer */
    wl_pattern_free(read_all_windows("bad checksum late", zt, lt, "crc.gz", 0, WL_ERR_PARSE,
                                     "crc.gz: corrupt gzip data", WL_FORMAT_AUTO));
    free(zt);
    /* The same through a file. */
    char path[] = "/tmp/wl_test_io_stream_XXXXXX";
    int fd = mkstemp(path);
    WL_CHECK(fd >= 0, "mkstemp");
    if (fd >= 0) {
        close(fd);
        WL_CHECK_OK(wl_write_file_atomic(path, cd, lc + ld));
        for (size_t w = 0; w < NWINDOWS; w++) {
            set_window(windows[w]);
            wl_format f;
            p = NULL;
            WL_CHECK_OK(wl_pattern_read_file_opts(path, NULL, &p, &f));
            WL_CHECK(p && f == WL_FORMAT_RLE && wl_pattern_population(p) == 5, "gz file");
            wl_pattern_free(p);
        }
        set_window(NULL);
        unlink(path);
    }
    free(bad);
    free(cd);
    free(zc);
    free(zd);
    free(two);
    free(za);
    free(zb);
}

int main(void) {
    test_refusal();
    test_long_lines();
    test_limits();
    test_life_version_late();
    test_file_faults();
    test_gzip_streams();
    return wl_test_finish("test_io_stream");
}
