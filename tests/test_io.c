#define _POSIX_C_SOURCE 200809L
/*
 * test_io.c - pattern files: every reader on good inputs (expected cells, positions,
 * rules, comments), on bad inputs (expected status and line:col in the message), gzip,
 * read-write-read round trips of random patterns at random (also negative) offsets for
 * every format, atomic writes that leave nothing behind, and sizes too big for memory.
 * The tables of good and bad inputs run again with read windows of 1 to 7 bytes
 * (WL_IO_WINDOW), so that every chunk boundary the streaming readers can meet is met.
 * WL_TEST_QUICK=1 shrinks the random round trips.
 */
#include "internal.h"
#include "wltest.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct xy {
    int64_t x, y;
} xy;

#define MAX_CELLS 16

/* A good input: its text, the format it must be detected as, the rule (NULL = B3/S23),
 * the comments (NULL = don't care) and the exact live cells. */
typedef struct good_case {
    const char *name;
    const char *text;
    wl_format format;
    const char *rule;
    const char *comments;
    int ncells;
    xy cells[MAX_CELLS];
} good_case;

#define GLIDER(dx, dy) {1 + (dx), 0 + (dy)}, {2 + (dx), 1 + (dy)}, {0 + (dx), 2 + (dy)}, \
                       {1 + (dx), 2 + (dy)}, {2 + (dx), 2 + (dy)}

static const good_case good[] = {
    {"glider.rle", "#N Glider\n#C hello\nx = 3, y = 3, rule = B3/S23\nbo$2bo$3o!\n",
     WL_FORMAT_RLE, "B3/S23", "Glider\nhello", 5, {GLIDER(0, 0)}},
    {"nospace.rle", "x=3,y=3,rule=B36/S23\r\nbo$2bo$3o!\r\n", WL_FORMAT_RLE, "B36/S23", "", 5,
     {GLIDER(0, 0)}},
    {"headerless.rle", "bo$2bo$3o!", WL_FORMAT_RLE, NULL, "", 5, {GLIDER(0, 0)}},
    {"headerless2", "2o$o!", WL_FORMAT_RLE, NULL, "", 3, {{0, 0}, {1, 0}, {0, 1}}},
    {"pos.rle", "#CXRLE Pos=-5,7 Gen=12\nx = 3, y = 3\nbo$2bo$3o!", WL_FORMAT_RLE, NULL, "", 5,
     {GLIDER(-5, 7)}},
    {"dotA.rle", "x = 3, y = 1\n.A.A!", WL_FORMAT_RLE, NULL, "", 2, {{1, 0}, {3, 0}}},
    {"dollars.rle", "x=1,y=3\no2$o!", WL_FORMAT_RLE, NULL, "", 2, {{0, 0}, {0, 2}}},
    {"split.rle", "#C hi\nx = 4, y = 1\n#C inside\n1\n2b\n2o\n#C body\n!", WL_FORMAT_RLE, NULL,
     "hi\ninside\nbody", 2, {{12, 0}, {13, 0}}},
    /* a grid and no position: centred on the grid, as Golly places it */
    {"torus.rle", "x = 3, y = 3, rule = B36/S23:T100,50\nbo$2bo$3o!", WL_FORMAT_RLE, "B36/S23",
     "", 5, {GLIDER(-1, -1)}},
    /* too big for the grid: at the grid's corner, clipped to it */
    {"small.rle", "x = 4, y = 2, rule = B3/S23:T3,5\n4o$o2bo!", WL_FORMAT_RLE, "B3/S23", "", 4,
     {{-1, -2}, {0, -2}, {1, -2}, {-1, -1}}},
    {"oldrule.rle", "#r 23/36\nx=1,y=1\no!", WL_FORMAT_RLE, "B36/S23", "", 1, {{0, 0}}},
    {"beyond.rle", "x = 1, y = 1\n3o$b2o!", WL_FORMAT_RLE, NULL, "", 5,
     {{0, 0}, {1, 0}, {2, 0}, {1, 1}, {2, 1}}},
    {"zero.rle", "x = 0, y = 0, rule = B3/S23\n2o!", WL_FORMAT_RLE, NULL, "", 2,
     {{0, 0}, {1, 0}}},
    {"trailer.rle", "x=2,y=1\no! z this is ignored", WL_FORMAT_RLE, NULL, "", 1, {{0, 0}}},
    /* A box of 10^22 cells holding three: a pattern costs its cells, not its box. */
    {"hugebox.rle", "x = 99999999999, y = 99999999999\no$99999999997bo$99999999998$99999999998bo!",
     WL_FORMAT_RLE, NULL, "", 3, {{0, 0}, {99999999997, 1}, {99999999998, 100000000000}}},
    {"nobang.rle", "x=2,y=1\nbo\n", WL_FORMAT_RLE, NULL, "", 1, {{1, 0}}},
    {"glider.cells", "!Name: Glider\n!\n.O\n..O\nOOO\n", WL_FORMAT_PLAINTEXT, NULL,
     "Name: Glider\n", 5, {GLIDER(0, 0)}},
    {"stars", ".*\n\n*.*\n", WL_FORMAT_PLAINTEXT, NULL, "", 3, {{1, 0}, {0, 2}, {2, 2}}},
    {"g.lif",
     "#Life 1.05\n#D desc\n#R 23/36\n#P -1 -1\n.*\n..*\n***\n#P 10 10\n*\n", WL_FORMAT_LIFE105,
     "B36/S23", "desc", 6, {GLIDER(-1, -1), {10, 10}}},
    {"bare.lif", "#Life 1.05\n#N\n#P\n*...*\n", WL_FORMAT_LIFE105, "B3/S23", "", 2,
     {{0, 0}, {4, 0}}},
    {"g106.lif", "#Life 1.06\n0 -1\n1 0\n-1 1\n 0 1 \n1 1\n\n", WL_FORMAT_LIFE106, NULL, "", 5,
     {GLIDER(-1, -1)}},
    {"glider.mc", "[M2] (golly 3.4)\n#R B3/S23\n$$$$$$*$.*$\n.......*$\n**$\n4 0 1 2 3\n",
     WL_FORMAT_MACROCELL, "B3/S23", "", 5, {{0, -2}, {1, -1}, {-1, 0}, {0, 0}, {1, 0}}},
    {"level1.mc", "[M2]\n#G 100\n#C c\n1 1 0 0 1\n2 1 0 0 1\n", WL_FORMAT_MACROCELL, NULL, "c",
     4, {{-2, -2}, {-1, -1}, {0, 0}, {1, 1}}},
    {"leafroot.mc", "[M2]\n*$\n", WL_FORMAT_MACROCELL, NULL, "", 1, {{-4, -4}}},
    {"leafroot2.mc", "[M2]\n$$$$$$*$.*$\n", WL_FORMAT_MACROCELL, NULL, "", 2, {{-4, 2}, {-3, 3}}},
    {"leafroot3.mc", "[M2]\n.......*$\n", WL_FORMAT_MACROCELL, NULL, "", 1, {{3, -4}}},
    {"l2root.mc", "[M2]\n1 0 0 0 1\n2 0 0 0 1\n", WL_FORMAT_MACROCELL, NULL, "", 1, {{1, 1}}},
};

/* A bad input: the status and a substring ("name:line:col") the message must hold. */
typedef struct bad_case {
    const char *name;
    const char *text;
    wl_status status;
    const char *where;
} bad_case;

static const bad_case bad[] = {
    {"t.rle", "x = 3, y = 3\nbo$\n2bz!", WL_ERR_PARSE, "t.rle:3:3: expected a run count"},
    {"t.rle", "x = 3 y = 3\n", WL_ERR_PARSE, "t.rle:1:7: expected ','"},
    {"t.rle", "x = , y = 3\no!", WL_ERR_PARSE, "t.rle:1:5: expected a number"},
    {"t.rle", "z 3\no!", WL_ERR_PARSE, "t.rle:1:1: expected a run count"},
    {"t.rle", "x = 3, y = 3, rule = B3/S2%\no!", WL_ERR_PARSE, "t.rle:1:22"},
    {"t.rle", "x = 2, y = 2\nb2B!", WL_ERR_PARSE, "t.rle:2:3: cell state 2 is out of range"},
    {"t.rle", "x = 2, y = 2\npA!", WL_ERR_PARSE, "t.rle:2:1: cell state 25 is out of range"},
    {"t.rle", "x = 2, y = 2, rule = /2/3\n2C!", WL_ERR_PARSE, "t.rle:2:2: cell state 3"},
    {"t.rle", "x = 2, y = 2, rule = 23/3/3:Q5\no!", WL_ERR_PARSE, "t.rle:1:22: grid suffix"},
    {"t.rle", "x=1,y=1\n0o!", WL_ERR_PARSE, "t.rle:2:1: run count must be at least 1"},
    {"t.rle", "x=1,y=1\n3", WL_ERR_PARSE, "t.rle:2:2: expected 'b', 'o' or '$'"},
    {"t.rle", "x=1,y=1\n3!", WL_ERR_PARSE, "t.rle:2:2:"},
    {"t.rle", "#CXRLE Pos=1\no!", WL_ERR_PARSE, "t.rle:1:"},
    {"t.rle", "x = 99999999999999999999999, y = 1\no!", WL_ERR_PARSE, "t.rle:1:5:"},
    {"t.rle", "x = 1, y = 4611686018427387905\no!", WL_ERR_PARSE, "t.rle:1:1:"},
    {"t.rle", "99999999999999999999o!", WL_ERR_PARSE, "t.rle:1:1: run count too large"},
    {"t.rle", "4611686018427387904o$4611686018427387904o!", WL_ERR_TOO_BIG, "t.rle:1:"},
    {"t.cells", "!c\n.O\n.X\n", WL_ERR_PARSE, "t.cells:3:2: expected '.', 'O' or '*'"},
    {"t.lif", "#Life 1.05\n#P 1\n", WL_ERR_PARSE, "t.lif:2:5: expected '#P x y'"},
    {"t.lif", "#Life 1.05\n.*x\n", WL_ERR_PARSE, "t.lif:2:3: expected '.', '*'"},
    {"t.lif", "#Life 1.05\n#R B3/S2x\n", WL_ERR_PARSE, "t.lif:2:4"},
    {"t.lif", "#Life 1.06\n1 2\n3 x\n", WL_ERR_PARSE, "t.lif:3:3: expected a cell"},
    {"t.lif", "#Life 1.06\n1 2 3\n", WL_ERR_PARSE, "t.lif:2:5:"},
    {"t.lif", "#Life 1.06\n1 99999999999999999999\n", WL_ERR_PARSE, "t.lif:2:"},
    {"t.mc", "[M2]\n$$*$\n4 0 2 0 0\n", WL_ERR_PARSE, "t.mc:3:1: node refers to line 2"},
    {"t.mc", "[M2]\n*$\n5 1 0 0 0\n", WL_ERR_PARSE, "t.mc:3:1: a level-5 node needs level-4"},
    {"t.mc", "[M2]\n*.x$\n", WL_ERR_PARSE, "t.mc:2:3: expected '.', '*' or '$'"},
    {"t.mc", "[M2]\n*********$\n", WL_ERR_PARSE, "t.mc:2:9: a leaf row has at most 8"},
    {"t.mc", "[M2]\n$$$$$$$$*\n", WL_ERR_PARSE, "t.mc:2:9: a leaf has at most 8 rows"},
    {"t.mc", "[M2]\n1 2 0 0 0\n", WL_ERR_PARSE, "t.mc:2:1: cell state 2"},
    {"t.mc", "[M2]\n*$\n4 1 0 0\n", WL_ERR_PARSE, "t.mc:3:8: expected a node number"},
    {"t.mc", "[M2]\n*$\nfoo\n", WL_ERR_PARSE, "t.mc:3:1: expected a leaf"},
    {"t.mc", "[M2]\n#R 6//12\n1 1 8 0 1\n#R B3/S23\n", WL_ERR_PARSE,
     "t.mc:4:4: a second #R line names a rule of 2 states after node lines of a rule of 12"},
    {"t.mc", "[M2]\n#R 6//12\n1 1 8 0 1\n#R 23/3/4\n", WL_ERR_PARSE, "t.mc:4:4: a second #R"},
    {"t.mc", "[M2]\n#R /2/3\n#R B3/S23\n1 1 2 0 1\n", WL_ERR_PARSE, "t.mc:4:"},
    {"t.zip", "PK\x03\x04\x14\x01\x02pattern.rle", WL_ERR_PARSE,
     "t.zip:1:1: not a pattern file: a zip archive"},
    {"t.mcl", "#MCell 4.20\n#GAME Life\n#RULE 23/3\n#L 3A$\n", WL_ERR_PARSE,
     "t.mcl:1:1: not a pattern file warplife reads: an MCell file"},
    {"t.rle3", "3D version=1 size=8 pos=0,0,0\nx=1 y=1 z=1 rule=3D5,6,7/6\no!\n", WL_ERR_PARSE,
     "t.rle3:1:1: not a pattern file warplife reads: a three-dimensional pattern"},
};

static wl_pattern *from_cells(const xy *c, int n) {
    wl_pattern *p = wl_pattern_new();
    for (int i = 0; i < n; i++) wl_pattern_set(p, c[i].x, c[i].y, 1);
    return p;
}

/* Life files without their "#Life" line: the .lif name and the first row decide. */
static void test_headerless_life(void) {
    const char *t105 = "#D no version line\n#P 2 3\n.*\n", *t106 = "#D x\n5 -6\n";
    wl_pattern *p = NULL;
    WL_CHECK_OK(wl_pattern_read_mem(t105, strlen(t105), "a.lif", &p));
    WL_CHECK(p && wl_pattern_population(p) == 1 && wl_pattern_get(p, 3, 3), "headerless 1.05");
    wl_pattern_free(p);
    p = NULL;
    WL_CHECK_OK(wl_pattern_read_mem(t106, strlen(t106), "a.life", &p));
    WL_CHECK(p && wl_pattern_population(p) == 1 && wl_pattern_get(p, 5, -6), "headerless 1.06");
    wl_pattern_free(p);
    /* The same text without a .lif name is read as RLE, where '*' is an error. */
    WL_CHECK(wl_pattern_read_mem(t105, strlen(t105), "a", &p) == WL_ERR_PARSE, "as RLE");
    WL_CHECK(strstr(wl_last_error(), "a:3:2:") != NULL, "%s", wl_last_error());
}

static void test_good(void) {
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        const good_case *g = &good[i];
        wl_pattern *p = NULL;
        wl_format f = WL_FORMAT_AUTO;
        /* Through a file, so that the detected format is reported too. */
        char path[] = "/tmp/wl_test_io_XXXXXX";
        int fd = mkstemp(path);
        WL_CHECK(fd >= 0, "mkstemp");
        if (fd < 0) continue;
        close(fd);
        WL_CHECK_OK(wl_write_file_atomic(path, g->text, strlen(g->text)));
        wl_status s = wl_pattern_read_file_ex(path, &p, &f);
        unlink(path);
        WL_CHECK(s == WL_OK, "%s: %s", g->name, wl_last_error());
        if (s) continue;
        WL_CHECK(f == g->format, "%s: detected %s", g->name, wl_format_name(f));
        wl_pattern *want = from_cells(g->cells, g->ncells);
        WL_CHECK(wl_pattern_equal_cells(p, want), "%s: cells differ (population %llu)", g->name,
                 (unsigned long long)wl_pattern_population(p));
        wl_pattern_free(want);
        char rule[WL_RULE_TEXT_MAX];
        wl_rule_format(wl_pattern_rule(p), rule, sizeof rule);
        WL_CHECK(strcmp(rule, g->rule ? g->rule : "B3/S23") == 0, "%s: rule %s", g->name, rule);
        if (g->comments)
            WL_CHECK(strcmp(wl_pattern_comments(p), g->comments) == 0, "%s: comments '%s'",
                     g->name, wl_pattern_comments(p));
        wl_pattern_free(p);
        /* The same bytes from memory give the same result. */
        s = wl_pattern_read_mem(g->text, strlen(g->text), g->name, &p);
        WL_CHECK(s == WL_OK, "%s (mem): %s", g->name, wl_last_error());
        wl_pattern_free(p);
    }
}

static void test_bad(void) {
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const bad_case *b = &bad[i];
        wl_pattern *p = (wl_pattern *)&p; /* must be reset to NULL */
        wl_status s = wl_pattern_read_mem(b->text, strlen(b->text), b->name, &p);
        WL_CHECK(s == b->status, "bad case %zu (%s): status %s, want %s (%s)", i, b->text,
                 wl_status_str(s), wl_status_str(b->status), wl_last_error());
        WL_CHECK(strstr(wl_last_error(), b->where) != NULL, "bad case %zu: message '%s' lacks '%s'",
                 i, wl_last_error(), b->where);
        WL_CHECK(p == NULL, "bad case %zu: *out not NULL", i);
    }
}

/* Macrocell roots deeper than 62 levels: shrunk when compact, refused when not. */
static void test_deep_macrocell(void) {
    static char b[8192];
    size_t n;
    wl_pattern *p = NULL;
    /* One cell at the bottom-right of a level-3 leaf, nested in se quadrants up to level
     * 69, then a level-70 root holding it in its nw quadrant: the cell is (-1, -1). */
    n = (size_t)snprintf(b, sizeof b, "[M2]\n$$$$$$$.......*$\n");
    for (int lv = 4; lv <= 69; lv++)
        n += (size_t)snprintf(b + n, sizeof b - n, "%d 0 0 0 %d\n", lv, lv - 3);
    n += (size_t)snprintf(b + n, sizeof b - n, "70 %d 0 0 0\n", 69 - 2);
    WL_CHECK_OK(wl_pattern_read_mem(b, n, "deep.mc", &p));
    if (p) {
        WL_CHECK(wl_pattern_population(p) == 1 && wl_pattern_get(p, -1, -1), "deep cell");
        wl_pattern_free(p);
    }
    /* The same chain, but the root also has a far-away copy: too big. */
    n = (size_t)snprintf(b, sizeof b, "[M2]\n$$$$$$$.......*$\n");
    for (int lv = 4; lv <= 69; lv++)
        n += (size_t)snprintf(b + n, sizeof b - n, "%d 0 0 0 %d\n", lv, lv - 3);
    n += (size_t)snprintf(b + n, sizeof b - n, "70 %d 0 0 %d\n", 69 - 2, 69 - 2);
    WL_CHECK(wl_pattern_read_mem(b, n, "far.mc", &p) == WL_ERR_TOO_BIG, "far: %s",
             wl_last_error());
    /* Two cells 2^40 apart: fits the quadtree, not a dense rectangle. */
    n = (size_t)snprintf(b, sizeof b, "[M2]\n*$\n");
    for (int lv = 4; lv <= 42; lv++)
        n += (size_t)snprintf(b + n, sizeof b - n, "%d %d 0 0 %d\n", lv, lv - 3, lv - 3);
    WL_CHECK(wl_pattern_read_mem(b, n, "wide.mc", &p) == WL_ERR_TOO_BIG, "wide: %s",
             wl_last_error());
}

/* Compares q with p translated so that p's bounding box starts at (0, 0). */
static int equal_translated(const wl_pattern *p, const wl_pattern *q) {
    wl_rect a, b;
    int ea = wl_pattern_bounds(p, &a), eb = wl_pattern_bounds(q, &b);
    if (ea != eb) return 0;
    if (!ea) return 1;
    if (b.x != 0 || b.y != 0 || a.w != b.w || a.h != b.h) return 0;
    size_t n = (size_t)((a.w + 63) / 64);
    uint64_t *ra = malloc(n * 8), *rb = malloc(n * 8);
    int eq = 1;
    for (uint64_t y = 0; eq && y < a.h; y++) {
        wl_pattern_get_row(p, a.x, a.y + (int64_t)y, a.w, ra);
        wl_pattern_get_row(q, 0, (int64_t)y, a.w, rb);
        eq = memcmp(ra, rb, n * 8) == 0;
    }
    free(ra);
    free(rb);
    return eq;
}

static const wl_format all_formats[] = {WL_FORMAT_RLE, WL_FORMAT_PLAINTEXT, WL_FORMAT_LIFE105,
                                        WL_FORMAT_LIFE106, WL_FORMAT_MACROCELL};

/* A random pattern: random size, offset (often negative), density and shape (soup,
 * sparse scatter or repeated tiles), a random totalistic rule and two comment lines. */
static wl_pattern *random_pattern(uint64_t *st, int quick) {
    wl_pattern *p = wl_pattern_new();
    uint64_t maxw = quick ? 90 : 400, maxh = quick ? 60 : 200;
    wl_rect r = {(int64_t)(wl_splitmix64(st) % 2001) - 1000,
                 (int64_t)(wl_splitmix64(st) % 2001) - 1000, 1 + wl_splitmix64(st) % maxw,
                 1 + wl_splitmix64(st) % maxh};
    int kind = (int)(wl_splitmix64(st) % 4);
    if (kind == 0) {
        wl_pattern_random(p, &r, (double)(wl_splitmix64(st) % 1000) / 1000.0,
                          wl_splitmix64(st));
    } else if (kind == 1) { /* scattered cells far apart */
        int n = (int)(wl_splitmix64(st) % 20);
        for (int i = 0; i < n; i++)
            wl_pattern_set(p, r.x + (int64_t)(wl_splitmix64(st) % (r.w * 8)),
                           r.y + (int64_t)(wl_splitmix64(st) % (r.h * 8)), 1);
    } else if (kind == 2) { /* a tile repeated: repetitive content */
        uint64_t tile = wl_splitmix64(st);
        for (uint64_t y = 0; y < r.h; y++)
            for (uint64_t x = 0; x < r.w; x++)
                if (tile >> ((y % 8) * 8 + x % 8) & 1)
                    wl_pattern_set(p, r.x + (int64_t)x, r.y + (int64_t)y, 1);
    } else { /* a dense soup with long runs */
        wl_pattern_random(p, &r, 0.97, wl_splitmix64(st));
    }
    wl_rule rule;
    char text[32];
    uint16_t bm = (uint16_t)(wl_splitmix64(st) & 0x1fe), sm = (uint16_t)(wl_splitmix64(st) & 0x1ff);
    int k = snprintf(text, sizeof text, "B");
    for (int d = 0; d <= 8; d++)
        if (bm >> d & 1) k += snprintf(text + k, sizeof text - (size_t)k, "%d", d);
    k += snprintf(text + k, sizeof text - (size_t)k, "/S");
    for (int d = 0; d <= 8; d++)
        if (sm >> d & 1) k += snprintf(text + k, sizeof text - (size_t)k, "%d", d);
    if (wl_rule_parse(text, &rule) == WL_OK) wl_pattern_set_rule(p, &rule);
    wl_pattern_set_comments(p, "first comment\n second one, indented");
    return p;
}

static void test_round_trips(unsigned long long seed, int quick) {
    uint64_t st = seed;
    int rounds = quick ? 12 : 60;
    for (int i = 0; i < rounds; i++) {
        wl_pattern *p = random_pattern(&st, quick);
        for (size_t f = 0; f < sizeof all_formats / sizeof all_formats[0]; f++) {
            wl_format fmt = all_formats[f];
            char *buf = NULL;
            size_t len = 0;
            wl_status s = wl_pattern_write_mem(p, fmt, 0, &buf, &len);
            WL_CHECK(s == WL_OK, "round %d %s write: %s", i, wl_format_name(fmt), wl_last_error());
            if (s) continue;
            wl_pattern *q = NULL;
            s = wl_pattern_read_mem(buf, len, "roundtrip", &q);
            WL_CHECK(s == WL_OK, "round %d %s read: %s", i, wl_format_name(fmt), wl_last_error());
            if (!s) {
                int eq = fmt == WL_FORMAT_PLAINTEXT ? equal_translated(p, q)
                                                    : wl_pattern_equal_cells(p, q);
                WL_CHECK(eq, "round %d %s: cells differ", i, wl_format_name(fmt));
                if (fmt != WL_FORMAT_PLAINTEXT)
                    WL_CHECK(wl_rule_equal(wl_pattern_rule(p), wl_pattern_rule(q)),
                             "round %d %s: rule lost", i, wl_format_name(fmt));
                WL_CHECK(strcmp(wl_pattern_comments(q), wl_pattern_comments(p)) == 0,
                         "round %d %s: comments '%s'", i, wl_format_name(fmt),
                         wl_pattern_comments(q));
            }
            if (fmt == WL_FORMAT_RLE) { /* body lines stay within 70 characters */
                size_t start = 0, longest = 0;
                for (size_t j = 0; j <= len; j++)
                    if (j == len || buf[j] == '\n') {
                        if (buf[start] != '#' && buf[start] != 'x' && j - start > longest)
                            longest = j - start;
                        start = j + 1;
                    }
                WL_CHECK(longest <= 70, "RLE line of %zu characters", longest);
            }
            wl_pattern_free(q);
            free(buf);
        }
        wl_pattern_free(p);
    }
}

/* RLE bodies of random tokens (b, o, '.', 'A', counts of one and two digits, '$' with and
 * without counts, line breaks) against a decoder written here, cell by cell: the reader's
 * short paths for soup tokens must give what the general path gives.  Odd rounds are
 * soups: wide rows of alternating 'b' and 'o' with counts of one digit or none (a two-digit
 * one now and then), on long lines, which the reader takes 64 bytes at a time. */
static void test_rle_tokens(unsigned long long seed) {
    enum { W = 1000, H = 12 };
    uint64_t st = seed ^ 0x7e57;
    for (int round = 0; round < 48; round++) {
        const int soup = round & 1, w = soup ? W : 150;
        static unsigned char want[H][W];
        memset(want, 0, sizeof want);
        static char body[32768];
        size_t n = 0;
        int x = 0, y = 0, line = 0, brk = 60;
        while (y < H && n + 16 < sizeof body) {
            uint64_t r = wl_splitmix64(&st);
            if (soup && x < w - 32 && r % 97 != 0) {
                int cnt = r / 7 % 2         ? 1 + (int)(r / 11 % 9)
                          : r / 7 % 61 == 2 ? 10 + (int)(r / 13 % 20)
                                            : 1;
                char t = (r >> 40 & 1) ? 'o' : 'b';
                if (n && body[n - 1] == t) t = t == 'o' ? 'b' : 'o'; /* (as a writer alternates) */
                if (cnt > 1 || r / 17 % 5 == 0) n += (size_t)snprintf(body + n, 4, "%d", cnt);
                body[n++] = t;
                for (int i = 0; i < cnt; i++)
                    if (t == 'o') want[y][x + i] = 1;
                x += cnt;
            } else if (r % 23 == 0 || x >= w - 12) { /* end of row(s) */
                int k = 1 + (int)(r % 5 == 0);
                if (y + k > H) break;
                n += (size_t)(k > 1 ? snprintf(body + n, 4, "%d$", k) : snprintf(body + n, 4, "$"));
                y += k;
                x = 0;
            } else {
                int cnt = r / 7 % 3 == 0 ? 1 + (int)(r / 11 % 9) : r / 7 % 17 == 1 ? 10 : 1;
                static const char tags[] = "bo.A";
                char t = tags[r / 13 % 4];
                if (cnt > 1 || r / 17 % 9 == 0) n += (size_t)snprintf(body + n, 4, "%d", cnt);
                body[n++] = t;
                for (int i = 0; i < cnt; i++)
                    if (t == 'o' || t == 'A') want[y][x + i] = 1;
                x += cnt;
            }
            if (n - (size_t)line > (size_t)brk) { /* line breaks, inside tokens too */
                body[n++] = '\n';
                line = (int)n;
                if (soup) brk = 40 + (int)(wl_splitmix64(&st) % 400);
            }
        }
        body[n++] = '!';
        body[n] = 0;
        static char text[33000];
        int len = snprintf(text, sizeof text, "x = %d, y = %d, rule = B3/S23\n%s\n", w, H, body);
        wl_pattern *p = NULL;
        WL_CHECK_OK(wl_pattern_read_mem(text, (size_t)len, "tokens.rle", &p));
        uint64_t pop = 0, wrong = 0;
        for (int yy = 0; yy < H; yy++)
            for (int xx = 0; xx < w; xx++) {
                pop += want[yy][xx];
                wrong += p && wl_pattern_get(p, xx, yy) != want[yy][xx];
            }
        WL_CHECK(p && !wrong && wl_pattern_population(p) == pop,
                 "RLE tokens, round %d: %llu cells differ from the decoder's (%s)", round,
                 (unsigned long long)wrong, text);
        wl_pattern_free(p);
    }
}

static void test_empty_and_repetitive(void) {
    wl_pattern *p = wl_pattern_new();
    for (size_t f = 0; f < sizeof all_formats / sizeof all_formats[0]; f++) {
        char *buf;
        size_t len;
        WL_CHECK_OK(wl_pattern_write_mem(p, all_formats[f], 0, &buf, &len));
        wl_pattern *q = NULL;
        WL_CHECK_OK(wl_pattern_read_mem(buf, len, "empty", &q));
        WL_CHECK(q && wl_pattern_population(q) == 0, "empty %s", wl_format_name(all_formats[f]));
        wl_pattern_free(q);
        free(buf);
    }
    /* 1024 x 1024 cells of blocks every 8 cells: the macrocell file stays tiny. */
    for (int64_t y = 0; y < 1024; y += 8)
        for (int64_t x = 0; x < 1024; x += 8) {
            wl_pattern_set(p, x, y, 1);
            wl_pattern_set(p, x + 1, y, 1);
            wl_pattern_set(p, x, y + 1, 1);
            wl_pattern_set(p, x + 1, y + 1, 1);
        }
    char *buf;
    size_t len;
    WL_CHECK_OK(wl_pattern_write_mem(p, WL_FORMAT_MACROCELL, 0, &buf, &len));
    WL_CHECK(len < 400, "repetitive macrocell is %zu bytes", len);
    wl_pattern *q = NULL;
    WL_CHECK_OK(wl_pattern_read_mem(buf, len, "blocks.mc", &q));
    WL_CHECK(q && wl_pattern_equal_cells(p, q), "blocks.mc round trip");
    wl_pattern_free(q);
    free(buf);
    wl_pattern_free(p);
    /* Far from the origin: RLE keeps the position exactly; macrocell refuses beyond 2^61. */
    p = wl_pattern_new();
    int64_t far = ((int64_t)1 << 62) - 5;
    WL_CHECK_OK(wl_pattern_set_run(p, far, -far, 3));
    WL_CHECK_OK(wl_pattern_write_mem(p, WL_FORMAT_RLE, 0, &buf, &len));
    q = NULL;
    WL_CHECK_OK(wl_pattern_read_mem(buf, len, "far.rle", &q));
    WL_CHECK(q && wl_pattern_equal_cells(p, q), "far RLE round trip");
    wl_pattern_free(q);
    free(buf);
    WL_CHECK(wl_pattern_write_mem(p, WL_FORMAT_MACROCELL, 0, &buf, &len) == WL_ERR_TOO_BIG,
             "far macrocell: %s", wl_last_error());
    wl_pattern_free(p);
}

static void test_gzip(unsigned long long seed) {
    uint64_t st = seed ^ 0x5555;
    wl_pattern *p = random_pattern(&st, 1);
    char *buf;
    size_t len;
    wl_status s = wl_pattern_write_mem(p, WL_FORMAT_RLE, 1, &buf, &len);
    if (s == WL_ERR_UNAVAILABLE) {
        printf("note: built without zlib; gzip round trip skipped (%s)\n", wl_last_error());
        const char gz[] = "\x1f\x8b\x08\x00";
        wl_pattern *q;
        WL_CHECK(wl_pattern_read_mem(gz, 4, "x.rle.gz", &q) == WL_ERR_UNAVAILABLE, "no zlib");
        wl_pattern_free(p);
        return;
    }
    WL_CHECK_OK(s);
    WL_CHECK(len >= 2 && (unsigned char)buf[0] == 0x1f && (unsigned char)buf[1] == 0x8b,
             "gzip magic");
    wl_pattern *q = NULL;
    WL_CHECK_OK(wl_pattern_read_mem(buf, len, "x.rle.gz", &q));
    WL_CHECK(q && wl_pattern_equal_cells(p, q), "gzip round trip");
    wl_pattern_free(q);
    /* Truncated gzip data is a clean error. */
    WL_CHECK(wl_pattern_read_mem(buf, len / 2, "cut.rle.gz", &q) == WL_ERR_PARSE, "truncated: %s",
             wl_last_error());
    free(buf);
    for (size_t f = 0; f < sizeof all_formats / sizeof all_formats[0]; f++) {
        WL_CHECK_OK(wl_pattern_write_mem(p, all_formats[f], 1, &buf, &len));
        WL_CHECK_OK(wl_pattern_read_mem(buf, len, "x.gz", &q));
        int eq = all_formats[f] == WL_FORMAT_PLAINTEXT ? equal_translated(p, q)
                                                       : wl_pattern_equal_cells(p, q);
        WL_CHECK(q && eq, "gz %s", wl_format_name(all_formats[f]));
        wl_pattern_free(q);
        free(buf);
    }
    wl_pattern_free(p);
}

static void test_files(unsigned long long seed) {
    char dir[] = "/tmp/wl_test_io_dir_XXXXXX";
    WL_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    char path[256];
    uint64_t st = seed ^ 0xabcdef;
    wl_pattern *p = random_pattern(&st, 1);
    static const struct {
        const char *ext;
        wl_format fmt;
    } exts[] = {{"rle", WL_FORMAT_RLE},       {"cells", WL_FORMAT_PLAINTEXT},
                {"lif", WL_FORMAT_LIFE106},   {"mc", WL_FORMAT_MACROCELL},
                {"rle.gz", WL_FORMAT_RLE},    {"mc.gz", WL_FORMAT_MACROCELL}};
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        snprintf(path, sizeof path, "%s/p.%s", dir, exts[i].ext);
        wl_status s = wl_pattern_write_file(p, path, WL_FORMAT_AUTO, -1);
        if (s == WL_ERR_UNAVAILABLE) continue; /* .gz without zlib */
        WL_CHECK(s == WL_OK, "write %s: %s", path, wl_last_error());
        wl_pattern *q = NULL;
        wl_format f;
        WL_CHECK_OK(wl_pattern_read_file_ex(path, &q, &f));
        WL_CHECK(f == exts[i].fmt, "%s read as %s", path, wl_format_name(f));
        int eq = q && (exts[i].fmt == WL_FORMAT_PLAINTEXT ? equal_translated(p, q)
                                                          : wl_pattern_equal_cells(p, q));
        WL_CHECK(eq, "%s round trip", path);
        wl_pattern_free(q);
        /* Overwriting keeps the file whole and leaves no temporary file. */
        WL_CHECK_OK(wl_pattern_write_file(p, path, exts[i].fmt, -1));
        unlink(path);
    }
    WL_CHECK(wl_test_dir_entries(dir) == 0, "files left in %s", dir);
    /* Writing into a missing directory fails and leaves nothing behind. */
    snprintf(path, sizeof path, "%s/missing/p.rle", dir);
    WL_CHECK(wl_pattern_write_file(p, path, WL_FORMAT_AUTO, -1) != WL_OK, "missing dir");
    WL_CHECK(strstr(wl_last_error(), "missing") != NULL, "message: %s", wl_last_error());
    WL_CHECK(wl_test_dir_entries(dir) == 0, "missing dir: files left");
    /* Renaming onto a directory fails after the data was written: the temporary file is
     * removed. */
    snprintf(path, sizeof path, "%s/sub", dir);
    mkdir(path, 0700);
    WL_CHECK(wl_write_file_atomic(path, "abc", 3) == WL_ERR_IO, "rename onto a directory");
    WL_CHECK(wl_test_dir_entries(dir) == 1, "rename failure left %d entries",
             wl_test_dir_entries(dir));
    rmdir(path);
    /* wl_read_file: contents, NUL terminator, missing files. */
    snprintf(path, sizeof path, "%s/data", dir);
    WL_CHECK_OK(wl_write_file_atomic(path, "hello\0world", 11));
    char *data;
    size_t len;
    WL_CHECK_OK(wl_read_file(path, &data, &len));
    WL_CHECK(len == 11 && memcmp(data, "hello\0world", 12) == 0, "read_file contents");
    free(data);
    struct stat sb;
    mode_t mask = umask(022);
    umask(mask);
    WL_CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == (0666 & ~mask),
             "new file has mode %o, want %o", (unsigned)(sb.st_mode & 0777),
             (unsigned)(0666 & ~mask));
    unlink(path);
    snprintf(path, sizeof path, "%s/nothing.rle", dir);
    WL_CHECK(wl_read_file(path, &data, &len) == WL_ERR_NOT_FOUND, "missing file");
    wl_pattern *q;
    WL_CHECK(wl_pattern_read_file(path, &q) == WL_ERR_NOT_FOUND, "missing pattern file");
    WL_CHECK(strstr(wl_last_error(), "nothing.rle") != NULL, "%s", wl_last_error());
    rmdir(dir);
    wl_pattern_free(p);
}

/* "-" reads standard input and writes standard output. */
static void test_stdio(void) {
    char path[] = "/tmp/wl_test_io_stdio_XXXXXX";
    int fd = mkstemp(path);
    WL_CHECK(fd >= 0, "mkstemp");
    if (fd < 0) return;
    wl_pattern *p = wl_pattern_new(), *q = NULL;
    wl_pattern_set_run(p, -3, 4, 5);
    /* Standard output redirected into the file. */
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    dup2(fd, STDOUT_FILENO);
    wl_status s = wl_pattern_write_file(p, "-", WL_FORMAT_RLE, 0);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    WL_CHECK(s == WL_OK, "write to -: %s", wl_last_error());
    /* Standard input read from the file. */
    lseek(fd, 0, SEEK_SET);
    saved = dup(STDIN_FILENO);
    dup2(fd, STDIN_FILENO);
    wl_format f = WL_FORMAT_AUTO;
    s = wl_pattern_read_file_ex("-", &q, &f);
    dup2(saved, STDIN_FILENO);
    close(saved);
    close(fd);
    unlink(path);
    WL_CHECK(s == WL_OK && f == WL_FORMAT_RLE, "read from -: %s", wl_last_error());
    WL_CHECK(q && wl_pattern_equal_cells(p, q), "stdio round trip");
    wl_pattern_free(p);
    wl_pattern_free(q);
}

static void test_format_names(void) {
    int gz = -1;
    WL_CHECK(wl_format_from_path("a/b.rle.gz", &gz) == WL_FORMAT_RLE && gz == 1, "rle.gz");
    WL_CHECK(wl_format_from_path("X.CELLS", &gz) == WL_FORMAT_PLAINTEXT && gz == 0, "CELLS");
    WL_CHECK(wl_format_from_path("x.mc", NULL) == WL_FORMAT_MACROCELL, "mc");
    WL_CHECK(wl_format_from_path("x.lif", NULL) == WL_FORMAT_LIFE106, "lif");
    WL_CHECK(wl_format_from_path("x.txt", NULL) == WL_FORMAT_AUTO, "txt");
    wl_format f;
    const char *names[] = {"rle", "cells", "plaintext", "life105", "life106", "lif", "mc",
                           "macrocell"};
    const wl_format want[] = {WL_FORMAT_RLE, WL_FORMAT_PLAINTEXT, WL_FORMAT_PLAINTEXT,
                              WL_FORMAT_LIFE105, WL_FORMAT_LIFE106, WL_FORMAT_LIFE106,
                              WL_FORMAT_MACROCELL, WL_FORMAT_MACROCELL};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        WL_CHECK(wl_format_parse(names[i], &f) == WL_OK && f == want[i], "%s", names[i]);
    WL_CHECK(wl_format_parse("png", &f) == WL_ERR_INVALID, "png");
    for (size_t i = 0; i < sizeof all_formats / sizeof all_formats[0]; i++) {
        WL_CHECK(wl_format_parse(wl_format_name(all_formats[i]), &f) == WL_OK &&
                     f == all_formats[i], "name of %d", (int)all_formats[i]);
    }
    char *buf;
    size_t len;
    wl_pattern *p = wl_pattern_new();
    WL_CHECK(wl_pattern_write_mem(p, WL_FORMAT_AUTO, 0, &buf, &len) == WL_ERR_INVALID, "auto");
    wl_pattern_free(p);
}

/* Golly's bounded-grid suffixes: every grid is read, kept (glue included) and written back
 * by RLE and macrocell. */
static void test_grid_suffix(void) {
    static const struct {
        const char *rule;
        wl_topology topo;
        uint64_t w, h;
    } cases[] = {
        {"B3/S23:T100,50", WL_TOPOLOGY_TORUS, 100, 50},
        {"B3/S23:t64", WL_TOPOLOGY_TORUS, 64, 64},
        {"B36/S23:P30,20", WL_TOPOLOGY_BOUNDED, 30, 20},
        {"23/3:P7", WL_TOPOLOGY_BOUNDED, 7, 7},
        {"B3/S23:T20,30+5", WL_TOPOLOGY_TORUS, 20, 30},  /* a shifted torus */
        {"B3/S23:K20,30*", WL_TOPOLOGY_KLEIN, 20, 30},   /* a Klein bottle */
        {"B3/S23:K20*+1,30", WL_TOPOLOGY_KLEIN, 20, 30}, /* twisted and shifted */
        {"B3/S23:C20,30", WL_TOPOLOGY_CROSS, 20, 30},    /* a cross-surface */
        {"B3/S23:S20", WL_TOPOLOGY_SPHERE, 20, 20},      /* a sphere */
        {"B3/S23:T0,30", WL_TOPOLOGY_TORUS, 0, 30},      /* a tube, unbounded one way */
        {"B3/S23:P40,0", WL_TOPOLOGY_BOUNDED, 40, 0},    /* a strip */
        {"B3/S23:T0,0", WL_TOPOLOGY_PLANE, 0, 0},        /* no bounds at all */
        {"LifeHistory:T30+7,20", WL_TOPOLOGY_TORUS, 30, 20},
        {"345/2/4:S30", WL_TOPOLOGY_SPHERE, 30, 30},
        {"R3,C0,S2-3,B3:T3,3", WL_TOPOLOGY_TORUS, 6, 6}, /* raised to twice the range */
        {"B3/S23", WL_TOPOLOGY_PLANE, 0, 0},
    };
    /* each case twice: centred by Golly's placement, and at 0,0 by its position */
    for (size_t k = 0; k < 2 * sizeof cases / sizeof cases[0]; k++) {
        size_t i = k / 2;
        char text[160];
        snprintf(text, sizeof text, "%sx = 3, y = 1, rule = %s\n3o!\n",
                 k % 2 ? "#CXRLE Pos=0,0\n" : "", cases[i].rule);
        wl_pattern *p = NULL;
        WL_CHECK_OK(wl_pattern_read_mem(text, strlen(text), "grid.rle", &p));
        if (!p) continue;
        uint64_t w, h;
        wl_topology t = wl_pattern_topology(p, &w, &h);
        WL_CHECK(t == cases[i].topo && w == cases[i].w && h == cases[i].h,
                 "%s: topology %s %llux%llu", cases[i].rule, wl_topology_name(t),
                 (unsigned long long)w, (unsigned long long)h);
        wl_shape sh, bsh;
        wl_pattern_shape(p, &sh);
        static const wl_format fmts[] = {WL_FORMAT_RLE, WL_FORMAT_MACROCELL, WL_FORMAT_LIFE105,
                                         WL_FORMAT_LIFE106};
        for (int f = 0; f < 4; f++) {
            wl_pattern *back = NULL;
            WL_CHECK_OK(wl_test_round_trip(p, fmts[f], &back));
            if (back) wl_pattern_shape(back, &bsh);
            WL_CHECK(back && !memcmp(&sh, &bsh, sizeof sh) && wl_pattern_equal_cells(p, back) &&
                         wl_rule_equal(wl_pattern_rule(p), wl_pattern_rule(back)),
                     "%s through %s", cases[i].rule, wl_format_name(fmts[f]));
            wl_pattern_free(back);
        }
        wl_pattern_free(p);
    }
}

/* Multi-state patterns: random states (every prefix letter too) at random places, through
 * RLE and macrocell, plain and gzipped, come back cell by cell; the two-state formats
 * refuse them, but take the rule's patterns of states 0 and 1 alone (the Life formats with
 * the rule); a two-state rule refuses a cell of state 2 on writing. */
static void test_multistate(uint64_t seed) {
    static const char *const rules[] = {"23/3/256", "345/2/4", "LifeSuper", "R5,C30,S33-57,B34-45"};
    uint64_t st = seed;
    for (int round = 0; round < 12; round++) {
        wl_rule rule;
        WL_CHECK_OK(wl_rule_parse(rules[round % 4], &rule));
        unsigned states = wl_rule_states(&rule);
        wl_pattern *p = wl_pattern_new();
        wl_pattern_set_rule(p, &rule);
        int64_t spread = round < 6 ? 40 : 5000;
        for (int k = 0; k < 300; k++) {
            int64_t x = (int64_t)(wl_test_rand(&st) % (uint64_t)(2 * spread)) - spread;
            int64_t y = (int64_t)(wl_test_rand(&st) % (uint64_t)(2 * spread)) - spread;
            uint64_t run = 1 + wl_test_rand(&st) % 5;
            WL_CHECK_OK(wl_pattern_set_state_run(p, x, y, run, (unsigned)(wl_test_rand(&st) % states)));
        }
        WL_CHECK(wl_pattern_max_state(p) < states, "max state %u", wl_pattern_max_state(p));
        /* states 0 and 1 alone fit the two-state formats; the Life formats keep the rule */
        wl_pattern *low = wl_pattern_new();
        wl_pattern_set_rule(low, &rule);
        for (int k = 0; k < 100; k++)
            WL_CHECK_OK(wl_pattern_set(low, (int64_t)(wl_test_rand(&st) % 90) - 45,
                                       (int64_t)(wl_test_rand(&st) % 70) - 35, 1));
        static const wl_format lifes[] = {WL_FORMAT_LIFE105, WL_FORMAT_LIFE106};
        for (int f = 0; f < 2; f++) {
            wl_pattern *back = NULL;
            WL_CHECK_OK(wl_test_round_trip(low, lifes[f], &back));
            WL_CHECK(back && wl_pattern_equal_cells(low, back) &&
                         wl_rule_equal(wl_pattern_rule(back), &rule),
                     "round %d: %s of states 0 and 1", round, wl_format_name(lifes[f]));
            wl_pattern_free(back);
        }
        wl_pattern_free(low);
        static const wl_format fmts[] = {WL_FORMAT_RLE, WL_FORMAT_MACROCELL};
        for (int f = 0; f < 2; f++) {
            for (int gz = 0; gz < 2; gz++) {
                char *text = NULL;
                size_t len = 0;
                wl_pattern *back = NULL;
                WL_CHECK_OK(wl_pattern_write_mem(p, fmts[f], gz, &text, &len));
                WL_CHECK_OK(wl_pattern_read_mem(text, len, "multi", &back));
                WL_CHECK(back && wl_pattern_equal_cells(p, back) &&
                             wl_rule_equal(wl_pattern_rule(back), &rule),
                         "round %d: %s%s changed the cells or the rule", round,
                         wl_format_name(fmts[f]), gz ? ".gz" : "");
                free(text);
                wl_pattern_free(back);
            }
        }
        static const wl_format two[] = {WL_FORMAT_PLAINTEXT, WL_FORMAT_LIFE105, WL_FORMAT_LIFE106};
        for (int f = 0; f < 3; f++) {
            char *text = NULL;
            size_t len = 0;
            WL_CHECK(wl_pattern_write_mem(p, two[f], 0, &text, &len) == WL_ERR_UNSUPPORTED,
                     "%s wrote a multi-state pattern", wl_format_name(two[f]));
            free(text);
        }
        wl_pattern_free(p);
    }
    /* the same cell read back by state: every letter of Golly's alphabet */
    wl_pattern *p = wl_pattern_new();
    wl_rule rule;
    WL_CHECK_OK(wl_rule_parse("23/3/256", &rule));
    wl_pattern_set_rule(p, &rule);
    for (unsigned s = 0; s < 256; s++) WL_CHECK_OK(wl_pattern_set_state(p, (int64_t)s % 17, (int64_t)s / 17, s));
    wl_pattern *back = NULL;
    WL_CHECK_OK(wl_test_round_trip(p, WL_FORMAT_RLE, &back));
    for (unsigned s = 0; back && s < 256; s++)
        WL_CHECK(wl_pattern_get_state(back, (int64_t)s % 17, (int64_t)s / 17) == s, "state %u", s);
    wl_pattern_free(back);
    /* states overwrite states; dead and state 1 clear the planes */
    WL_CHECK_OK(wl_pattern_set_state(p, 0, 20, 200));
    WL_CHECK_OK(wl_pattern_set_state(p, 0, 20, 3));
    WL_CHECK(wl_pattern_get_state(p, 0, 20) == 3, "overwrite");
    WL_CHECK_OK(wl_pattern_set(p, 0, 20, 1));
    WL_CHECK(wl_pattern_get_state(p, 0, 20) == 1, "set to 1");
    WL_CHECK_OK(wl_pattern_set_state(p, 0, 20, 77));
    WL_CHECK_OK(wl_pattern_set(p, 0, 20, 0));
    WL_CHECK_OK(wl_pattern_set_run(p, 0, 20, 1));
    WL_CHECK(wl_pattern_get_state(p, 0, 20) == 1, "died, then born");
    WL_CHECK(wl_pattern_set_state(p, 0, 0, 256) == WL_ERR_INVALID, "state 256");
    /* a two-state rule with a cell of state 2 */
    wl_rule_life(&rule);
    wl_pattern_set_rule(p, &rule);
    char *text = NULL;
    size_t len = 0;
    WL_CHECK(wl_pattern_write_mem(p, WL_FORMAT_RLE, 0, &text, &len) == WL_ERR_INVALID,
             "RLE of state 255 under B3/S23");
    free(text);
    wl_pattern_free(p);
}

int main(void) {
    unsigned long long seed = wl_test_seed();
    const char *q = getenv("WL_TEST_QUICK");
    int quick = q && *q && strcmp(q, "0") != 0;
    test_format_names();
    /* The readers take their input a window at a time: every table again with windows of
     * 1 to 7 bytes, so that lines, tokens, counts, CRLFs and numbers are cut everywhere. */
    static const char *const windows[] = {NULL, "1", "2", "3", "4", "5", "6", "7"};
    for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++) {
        if (windows[w])
            setenv("WL_IO_WINDOW", windows[w], 1);
        else
            unsetenv("WL_IO_WINDOW");
        test_good();
        test_grid_suffix();
        test_multistate(seed);
        test_headerless_life();
        test_bad();
        test_deep_macrocell();
        test_empty_and_repetitive();
        test_rle_tokens(seed + w);
        if (windows[w] && (w == 1 || w == 7)) test_gzip(seed + w);
    }
    unsetenv("WL_IO_WINDOW");
    test_round_trips(seed, quick);
    setenv("WL_IO_WINDOW", "3", 1);
    test_round_trips(seed ^ 0x3333, 1);
    unsetenv("WL_IO_WINDOW");
    test_gzip(seed);
    test_files(seed);
    test_stdio();
    return wl_test_finish("test_io");
}
