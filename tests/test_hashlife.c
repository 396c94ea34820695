/*
 * test_hashlife.c - the HashLife engine against the reference engine and known facts.
 *
 *  - random small soups under Life, HighLife, Seeds, Hensel rules and random MAP rules
 *    (without B0), stepped in odd increments, compared cell by cell (and population and
 *    bounding box) with `ref` on a bounded grid whose edge nothing reaches;
 *  - R-pentomino (116 cells at 1103), acorn (633 at 5206);
 *  - the Gosper gun's population 36 + 5n at generation 30n for n = 2^40 + 7 and n = 2^60
 *    (generation 30 * 2^60 > 2^64), with exact big integers, and its bounding box growing
 *    linearly out beyond 64-bit coordinates;
 *  - macrocell round trips (plain and gzipped), a hand-written macrocell file with known
 *    cells, and malformed files;
 *  - HashLife's macrocell loader against the pattern reader (both use the one macrocell
 *    grammar): a table of small files (roots of levels 1..3 and deep ones, node lines of
 *    levels 1..3 inside a tree, empty files, comments, CRLF, gzip) must give the same cells,
 *    also when stepped (and the same as `ref`), and bad files the same status and message,
 *    the universe kept; soups through the writer; a file bigger than the store refused, and
 *    a file loaded after a long run filled the store;
 *  - a memory limit that forces garbage collection mid-run (same answer), one too small
 *    (WL_ERR_NOMEM, universe unchanged), interruption through cfg->poll (consistent
 *    universe at the reported generation), B0 refused, cell access and rendering;
 *  - zoomed-out rendering at origins on no pixel grid: random soups (near the origin and
 *    2^44 away) against a naive rendering and the snapshot renderer; a 2^T-wide lattice
 *    (T up to 56, the case that was exponential before) against its exact image at zooms
 *    down to -40; the Gosper gun at 30 * 2^20 against itself one zoom finer.
 *
 * Usage: test_hashlife [--quick]   (WL_TEST_QUICK=1 = --quick: fewer random cases)
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "wltest.h"
#include "../src/engine/hashlife/hl_internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int quick;
static uint64_t rng;

/* threads: 0 = every core */
static wl_universe *make_hl_threads(const wl_rule *rule, uint64_t max_memory, int threads) {
    wl_config cfg;
    wl_config_init(&cfg);
    cfg.engine = "hashlife";
    cfg.topology = WL_TOPOLOGY_PLANE;
    cfg.rule = *rule;
    cfg.max_memory = max_memory;
    cfg.threads = threads;
    wl_universe *u = NULL;
    WL_CHECK_OK(wl_universe_create(&cfg, &u));
    return u;
}

static wl_universe *make_hl(const wl_rule *rule, uint64_t max_memory) {
    return make_hl_threads(rule, max_memory, 0);
}

static wl_universe *make_ref(const wl_rule *rule, uint64_t size) {
    wl_universe *u = NULL;
    WL_CHECK_OK(wl_test_make("ref", NULL, WL_TOPOLOGY_BOUNDED, size, size, rule, 0, &u));
    return u;
}

static int64_t big_i64(const wl_bigint *b) {
    int64_t v = 0;
    wl_bigint_to_i64(b, &v);
    return v;
}

/* Compares cells, population and bounds of a HashLife universe and a reference one;
 * returns 0 (without a failure) when the reference pattern came near its grid's edge. */
static int compare(wl_universe *hl, wl_universe *ref, uint64_t size, const char *what,
                   uint64_t gen) {
    wl_pattern *a = NULL, *b = NULL;
    wl_status sa = wl_universe_store(hl, &a);
    WL_CHECK(sa == WL_OK, "%s: store at generation %llu: %s", what, (unsigned long long)gen,
             wl_last_error());
    WL_CHECK_OK(wl_universe_store(ref, &b));
    if (!a || !b) {
        wl_pattern_free(a);
        wl_pattern_free(b);
        return 0;
    }
    wl_rect rb;
    int alive = wl_pattern_bounds(b, &rb);
    int64_t lim = (int64_t)size / 2 - 4;
    if (alive && (rb.x < -lim || rb.y < -lim || rb.x + (int64_t)rb.w > lim ||
                  rb.y + (int64_t)rb.h > lim)) {
        wl_pattern_free(a);
        wl_pattern_free(b);
        return 0;
    }
    WL_CHECK(wl_pattern_equal_cells(a, b), "%s: cells differ at generation %llu", what,
             (unsigned long long)gen);
    wl_bigint pa;
    WL_CHECK_OK(wl_universe_population(hl, &pa));
    uint64_t pv = 0;
    WL_CHECK(wl_bigint_to_u64(&pa, &pv) && pv == wl_pattern_population(b),
             "%s: population %llu vs %llu at generation %llu", what, (unsigned long long)pv,
             (unsigned long long)wl_pattern_population(b), (unsigned long long)gen);
    wl_bigint x0, y0, x1, y1;
    int empty = 0;
    WL_CHECK_OK(wl_universe_bounds(hl, &x0, &y0, &x1, &y1, &empty));
    WL_CHECK(empty == !alive, "%s: emptiness differs", what);
    if (alive && !empty)
        WL_CHECK(big_i64(&x0) == rb.x && big_i64(&y0) == rb.y &&
                     big_i64(&x1) == rb.x + (int64_t)rb.w - 1 &&
                     big_i64(&y1) == rb.y + (int64_t)rb.h - 1,
                 "%s: bounds differ at generation %llu", what, (unsigned long long)gen);
    wl_pattern_free(a);
    wl_pattern_free(b);
    return 1;
}

static void random_case(const wl_rule *rule, const char *name, int side, double density,
                        uint64_t total_gens) {
    const uint64_t size = 512;
    wl_pattern *p = wl_pattern_new();
    wl_rect r = {-(int64_t)(wl_splitmix64(&rng) % 20), -(int64_t)(wl_splitmix64(&rng) % 20),
                 (uint64_t)side, (uint64_t)side};
    WL_CHECK_OK(wl_pattern_random(p, &r, density, wl_splitmix64(&rng)));
    wl_universe *hl = make_hl(rule, 0), *ref = make_ref(rule, size);
    if (!hl || !ref) goto done;
    WL_CHECK_OK(wl_universe_load(hl, p, NULL));
    WL_CHECK_OK(wl_universe_load(ref, p, NULL));
    uint64_t gen = 0;
    if (!compare(hl, ref, size, name, 0)) goto done;
    while (gen < total_gens) {
        uint64_t inc = 1 + wl_splitmix64(&rng) % 37; /* odd and even, mostly not powers of 2 */
        if (gen + inc > total_gens) inc = total_gens - gen;
        WL_CHECK_OK(wl_universe_step(hl, inc));
        WL_CHECK_OK(wl_universe_step(ref, inc));
        gen += inc;
        if (!compare(hl, ref, size, name, gen)) break;
    }
done:
    wl_universe_free(hl);
    wl_universe_free(ref);
    wl_pattern_free(p);
}

static void random_rules(void) {
    struct {
        const char *text;
        int side;
        double density;
        uint64_t gens;
    } cases[] = {
        {"B3/S23", 24, 0.35, 300},       {"B36/S23", 24, 0.35, 300},
        {"B2/S", 6, 0.3, 40},            {"B3678/S34678", 24, 0.5, 200},
        {"B2-a/S12", 8, 0.3, 60},        {"B3-cnqy/S23-a4ityz", 20, 0.35, 200},
        {"B34/S34", 16, 0.3, 150},
    };
    int reps = quick ? 1 : 3;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wl_rule rule;
        wl_status s = wl_rule_parse(cases[i].text, &rule);
        WL_CHECK_OK(s);
        if (s) continue;
        for (int k = 0; k < reps; k++)
            random_case(&rule, cases[i].text, cases[i].side, cases[i].density, cases[i].gens);
    }
    /* random MAP rules without B0: arbitrary tables, so they usually explode; short runs */
    for (int k = 0; k < (quick ? 2 : 6); k++) {
        wl_rule rule;
        memset(&rule, 0, sizeof rule); /* (a two-state rule: family 0) */
        for (int i = 0; i < 8; i++) rule.table[i] = wl_splitmix64(&rng);
        /* thin out births so that the soup does not fill the grid at once */
        rule.table[0] &= ~1ull;
        for (int i = 0; i < 8; i++) rule.table[i] &= wl_splitmix64(&rng) | 0xFFFF0000FFFF0000ull;
        random_case(&rule, "random MAP", 10, 0.3, 40);
    }
}

/* ---- known facts --------------------------------------------------------------------- */

static wl_pattern *cells(const int (*xy)[2], size_t n) {
    wl_pattern *p = wl_pattern_new();
    for (size_t i = 0; i < n; i++) wl_pattern_set(p, xy[i][0], xy[i][1], 1);
    return p;
}

static uint64_t pop_u64(wl_universe *u) {
    wl_bigint b;
    uint64_t v = UINT64_MAX;
    if (wl_universe_population(u, &b) == WL_OK) wl_bigint_to_u64(&b, &v);
    return v;
}

static void methuselahs(void) {
    static const int rpent[][2] = {{1, 0}, {2, 0}, {0, 1}, {1, 1}, {1, 2}};
    static const int acorn[][2] = {{1, 0}, {3, 1}, {0, 2}, {1, 2}, {4, 2}, {5, 2}, {6, 2}};
    wl_rule life;
    wl_rule_life(&life);
    wl_universe *u = make_hl(&life, 0);
    if (!u) return;
    wl_pattern *p = cells(rpent, 5);
    WL_CHECK_OK(wl_universe_load(u, p, NULL));
    WL_CHECK_OK(wl_universe_step(u, 1103));
    WL_CHECK(pop_u64(u) == 116, "R-pentomino: %llu cells at 1103, expected 116",
             (unsigned long long)pop_u64(u));
    wl_pattern_free(p);
    p = cells(acorn, 7);
    WL_CHECK_OK(wl_universe_load(u, p, NULL));
    for (int i = 0; i < 2; i++) WL_CHECK_OK(wl_universe_step(u, 2603)); /* odd halves */
    WL_CHECK(pop_u64(u) == 633, "acorn: %llu cells at 5206, expected 633",
             (unsigned long long)pop_u64(u));
    wl_pattern_free(p);
    wl_universe_free(u);
}

static const char gun_rle[] =
    "x = 36, y = 9, rule = B3/S23\n"
    "24bo$22bobo$12b2o6b2o12b2o$11bo3bo4b2o12b2o$2o8bo5bo3b2o$2o8bo3bob2o4bobo$\n"
    "10bo5bo7bo$11bo3bo$12b2o!\n";

static void bounds_of(wl_universe *u, wl_bigint b[4]) {
    int empty;
    WL_CHECK_OK(wl_universe_bounds(u, &b[0], &b[1], &b[2], &b[3], &empty));
}

static void gun(void) {
    wl_pattern *p = NULL;
    WL_CHECK_OK(wl_pattern_read_mem(gun_rle, strlen(gun_rle), "gun", &p));
    if (!p) return;
    wl_rule life;
    wl_rule_life(&life);
    wl_universe *u = make_hl(&life, 0);
    if (!u) return;
    WL_CHECK_OK(wl_universe_load(u, p, NULL));
    /* n = 2^40 + 7 in one call of 30n generations */
    uint64_t n = (1ull << 40) + 7;
    WL_CHECK_OK(wl_universe_step(u, 30 * n));
    WL_CHECK(pop_u64(u) == 36 + 5 * n, "gun: %llu cells at 30n, expected %llu",
             (unsigned long long)pop_u64(u), (unsigned long long)(36 + 5 * n));

    /* n3 = 1000 * floor(2^61 / 1000): generation 30 * n3 > 2^64, stepped in four calls of
     * 7.5 * n3; the bounding box is then the linear extrapolation of those at n = 1000 and
     * n = 2000 (n even keeps the gliders' phase), and reaches beyond 64-bit coordinates */
    wl_bigint bx[3][4];
    uint64_t n3 = 1000 * ((1ull << 61) / 1000);
    uint64_t ns[3] = {1000, 2000, n3};
    for (int i = 0; i < 3; i++) {
        WL_CHECK_OK(wl_universe_load(u, p, NULL));
        if (i < 2) {
            WL_CHECK_OK(wl_universe_step(u, 30 * ns[i]));
        } else {
            for (int j = 0; j < 4; j++) WL_CHECK_OK(wl_universe_step(u, 15 * (n3 / 2)));
        }
        bounds_of(u, bx[i]);
    }
    wl_bigint gen, want, pop, t;
    wl_universe_generation(u, &gen);
    wl_bigint_from_u64(&t, 30);
    wl_bigint_from_u64(&want, n3);
    wl_bigint_mul(&want, &want, &t);
    char s1[80], s2[80];
    WL_CHECK(wl_bigint_cmp(&gen, &want) == 0, "gun: generation %s, expected %s",
             wl_bigint_to_str(&gen, s1, sizeof s1), wl_bigint_to_str(&want, s2, sizeof s2));
    WL_CHECK_OK(wl_universe_population(u, &pop));
    wl_bigint_from_u64(&want, n3);
    wl_bigint_from_u64(&t, 5);
    wl_bigint_mul(&want, &want, &t);
    wl_bigint_from_u64(&t, 36);
    wl_bigint_add(&want, &want, &t);
    WL_CHECK(wl_bigint_cmp(&pop, &want) == 0, "gun: population %s at 30*n3, expected %s",
             wl_bigint_to_str(&pop, s1, sizeof s1), wl_bigint_to_str(&want, s2, sizeof s2));
    /* b(n3) = b(1000) + (b(2000) - b(1000)) * (n3 - 1000) / 1000 */
    wl_bigint k;
    wl_bigint_from_u64(&k, (n3 - 1000) / 1000);
    int beyond = 0;
    for (int i = 0; i < 4; i++) {
        wl_bigint d;
        wl_bigint_sub(&d, &bx[1][i], &bx[0][i]);
        wl_bigint_mul(&d, &d, &k);
        wl_bigint_add(&d, &d, &bx[0][i]);
        WL_CHECK(wl_bigint_cmp(&d, &bx[2][i]) == 0, "gun: bound %d is %s, expected %s", i,
                 wl_bigint_to_str(&bx[2][i], s1, sizeof s1), wl_bigint_to_str(&d, s2, sizeof s2));
        int64_t v;
        if (!wl_bigint_to_i64(&bx[2][i], &v)) beyond = 1;
    }
    WL_CHECK(beyond, "gun: bounds at 30*%llu should exceed 64 bits", (unsigned long long)n3);
    wl_pattern *big = NULL;
    WL_CHECK(wl_universe_store(u, &big) == WL_ERR_TOO_BIG, "store of a 2^63-wide pattern");
    wl_pattern_free(big);
    wl_universe_free(u);
    wl_pattern_free(p);
}

/* ---- macrocell ------------------------------------------------------------------------- */

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

static void macrocell(void) {
    char dir[] = "/tmp/test_hashlife_XXXXXX";
    if (!mkdtemp(dir)) {
        WL_CHECK(0, "mkdtemp failed");
        return;
    }
    char path[256], pathgz[256], bad[256];
    snprintf(path, sizeof path, "%s/a.mc", dir);
    snprintf(pathgz, sizeof pathgz, "%s/a.mc.gz", dir);
    snprintf(bad, sizeof bad, "%s/bad.mc", dir);
    wl_rule life;
    wl_rule_life(&life);

    /* round trips of random soups after a few generations */
    for (int rep = 0; rep < 3; rep++) {
        wl_pattern *p = wl_pattern_new();
        wl_rect r = {-37 + rep * 50, -5 - rep * 100, 60 + rep, 70, };
        WL_CHECK_OK(wl_pattern_random(p, &r, 0.4, wl_splitmix64(&rng)));
        wl_universe *a = make_hl(&life, 0), *b = make_hl(&life, 0);
        if (!a || !b) break;
        WL_CHECK_OK(wl_universe_load(a, p, NULL));
        WL_CHECK_OK(wl_universe_step(a, 1 + rep * 17));
        for (int gz = 0; gz < 2; gz++) {
            const char *f = gz ? pathgz : path;
            wl_status saved = wl_universe_save_file(a, f, WL_FORMAT_AUTO, -1);
            if (gz && saved == WL_ERR_UNAVAILABLE) {
                /* a build without zlib: the error is the expected answer */
                printf("skipped: .mc.gz round trip (%s)\n", wl_last_error());
                continue;
            }
            WL_CHECK_OK(saved);
            WL_CHECK_OK(wl_universe_load_file(b, f, NULL));
            wl_pattern *pa = NULL, *pb = NULL;
            WL_CHECK_OK(wl_universe_store(a, &pa));
            WL_CHECK_OK(wl_universe_store(b, &pb));
            WL_CHECK(pa && pb && wl_pattern_equal_cells(pa, pb), "macrocell round trip (gz=%d)",
                     gz);
            WL_CHECK(pop_u64(a) == pop_u64(b), "macrocell round trip population");
            wl_pattern_free(pa);
            wl_pattern_free(pb);
            if (gz) {
                FILE *fh = fopen(f, "rb");
                int c0 = fh ? fgetc(fh) : -1;
                if (fh) fclose(fh);
                WL_CHECK(c0 == 0x1f, "a .mc.gz file starts with the gzip magic");
            }
        }
        /* and the stepped copies agree */
        WL_CHECK_OK(wl_universe_step(a, 100));
        WL_CHECK_OK(wl_universe_step(b, 100));
        WL_CHECK(pop_u64(a) == pop_u64(b), "after round trip, 100 more generations agree");
        wl_universe_free(a);
        wl_universe_free(b);
        wl_pattern_free(p);
    }

    /* a hand-written file: a glider in the leaf at the root's south-east quadrant, whose
     * top-left cell is (0, 0) (Golly centres the root on the origin) */
    write_text(path, "[M2] (test)\n#R B3/S23\n.*$..*$***$\n4 0 0 0 1\n");
    wl_universe *u = make_hl(&life, 0);
    if (u) {
        WL_CHECK_OK(wl_universe_load_file(u, path, NULL));
        static const int glider[][2] = {{1, 0}, {2, 1}, {0, 2}, {1, 2}, {2, 2}};
        wl_pattern *want = cells(glider, 5), *got = NULL;
        WL_CHECK_OK(wl_universe_store(u, &got));
        WL_CHECK(got && wl_pattern_equal_cells(want, got), "hand-written macrocell placement");
        wl_pattern_free(want);
        wl_pattern_free(got);
        /* malformed files: a parse error with a line number; the universe is unchanged */
        write_text(bad, "[M2] (test)\n.*$..*$***$\n4 0 0 0 2\n");
        WL_CHECK(wl_universe_load_file(u, bad, NULL) == WL_ERR_PARSE, "bad child reference");
        WL_CHECK(strstr(wl_last_error(), ":3") != NULL, "error names line 3: %s",
                 wl_last_error());
        write_text(bad, "[M2] (test)\n.*$..*$*****.***$\n");
        WL_CHECK(wl_universe_load_file(u, bad, NULL) == WL_ERR_PARSE, "leaf row too long");
        write_text(bad, "[M2] (test)\n.*$\n5 1 0 0 0\n");
        WL_CHECK(wl_universe_load_file(u, bad, NULL) == WL_ERR_PARSE, "child of wrong level");
        WL_CHECK(pop_u64(u) == 5, "universe unchanged after failed loads");
        wl_universe_free(u);
    }
    unlink(path);
    unlink(pathgz);
    unlink(bad);
    rmdir(dir);
}

/* ---- memory limit, interruption, cells, rendering --------------------------------------- */

static void soup(wl_pattern *p, int side, uint64_t seed) {
    wl_rect r = {-side / 2, -side / 2, (uint64_t)side, (uint64_t)side};
    WL_CHECK_OK(wl_pattern_random(p, &r, 0.375, seed));
}

static void memory_limit(void) {
    wl_rule life;
    wl_rule_life(&life);
    wl_pattern *p = wl_pattern_new();
    soup(p, 96, wl_splitmix64(&rng));
    uint64_t gens = quick ? 700 : 2000;
    /* unlimited; one thread each, so that the results computed can be compared */
    wl_universe *a = make_hl_threads(&life, 0, 1), *b = make_hl_threads(&life, 512u << 10, 1);
    if (a && b) {
        WL_CHECK_OK(wl_universe_load(a, p, NULL));
        WL_CHECK_OK(wl_universe_load(b, p, NULL));
        for (uint64_t g = 0; g < gens; g += 100) { /* (the same steps: the same results) */
            WL_CHECK_OK(wl_universe_step(a, 100));
            WL_CHECK_OK(wl_universe_step(b, 100));
        }
        wl_pattern *pa = NULL, *pb = NULL;
        WL_CHECK_OK(wl_universe_store(a, &pa));
        WL_CHECK_OK(wl_universe_store(b, &pb));
        WL_CHECK(pa && pb && wl_pattern_equal_cells(pa, pb), "512 KB limit: same cells");
        hl_ctx *hb = wl_universe_ctx(b);
        WL_CHECK(hb->gc_count > 0, "512 KB limit: garbage was collected (%llu times)",
                 (unsigned long long)hb->gc_count);
        printf("note: 512 KB limit: %llu collections over %llu generations\n",
               (unsigned long long)hb->gc_count, (unsigned long long)gens);
        /* collections keep the results in use, also those of nodes no tree holds: every
         * kept result points at a node in use, and the run computes few results more
         * than the unlimited one (dropping every result no tree reaches, as Golly does,
         * recomputed most of them after each collection) */
        size_t dangling = 0;
        for (uint32_t n = 1; n < hb->top; n++)
            if (hb->nodes[n].level && hb->nodes[n].rexp != HL_NO_RESULT &&
                !hb->nodes[hb->nodes[n].res].level)
                dangling++;
        WL_CHECK(dangling == 0, "512 KB limit: %zu results point at freed nodes", dangling);
        hl_ctx *ha = wl_universe_ctx(a);
        printf("note: results computed: %llu unlimited, %llu under 512 KB\n",
               (unsigned long long)ha->ticks, (unsigned long long)hb->ticks);
        WL_CHECK(hb->ticks <= ha->ticks + ha->ticks / 2,
                 "512 KB limit: %llu results computed against %llu unlimited",
                 (unsigned long long)hb->ticks, (unsigned long long)ha->ticks);
        wl_pattern_free(pa);
        wl_pattern_free(pb);
    }
    wl_universe_free(a);
    wl_universe_free(b);

    /* a collection with room to spare keeps every result, also those of the squares a
     * result was assembled from, which no tree holds (a later square or generation finds
     * them by hashing); only garbage without a result goes */
    wl_universe *d = make_hl(&life, 2u << 20);
    if (d) {
        wl_pattern *q = wl_pattern_new();
        soup(q, 48, wl_splitmix64(&rng));
        WL_CHECK_OK(wl_universe_load(d, q, NULL));
        WL_CHECK_OK(wl_universe_step(d, 200));
        hl_ctx *hd = wl_universe_ctx(d);
        uint32_t results = 0, live = hd->live;
        for (uint32_t n = 1; n < hd->top; n++)
            results += hd->nodes[n].level && hd->nodes[n].rexp != HL_NO_RESULT;
        WL_CHECK(live < hd->limit / 2, "2 MB limit: %u of %u nodes in use", live, hd->limit);
        WL_CHECK_OK(hl_collect(hd));
        uint32_t after = 0;
        for (uint32_t n = 1; n < hd->top; n++)
            after += hd->nodes[n].level && hd->nodes[n].rexp != HL_NO_RESULT;
        WL_CHECK(after == results, "collection with room: %u of %u results kept", after, results);
        printf("note: collection with room: %u results kept, %u of %u nodes\n", after,
               hd->live, live);
        wl_pattern *before = NULL, *now = NULL;
        WL_CHECK_OK(wl_universe_store(d, &before));
        uint64_t ticks = hd->ticks;
        WL_CHECK_OK(wl_universe_load(d, q, NULL)); /* the same soup again: all memoised */
        WL_CHECK_OK(wl_universe_step(d, 200));
        WL_CHECK_OK(wl_universe_store(d, &now));
        WL_CHECK(before && now && wl_pattern_equal_cells(before, now), "soup again: same cells");
        WL_CHECK(hd->ticks == ticks, "soup again: %llu results computed after the collection",
                 (unsigned long long)(hd->ticks - ticks));
        wl_pattern_free(before);
        wl_pattern_free(now);
        wl_pattern_free(q);
        wl_universe_free(d);
    }

    /* too small: the step fails with WL_ERR_NOMEM and leaves the universe as it was */
    wl_universe *c = make_hl(&life, 64u << 10);
    if (c) {
        wl_pattern *q = wl_pattern_new();
        soup(q, 200, wl_splitmix64(&rng));
        wl_status s = wl_universe_load(c, q, NULL);
        if (s == WL_OK) {
            uint64_t before = pop_u64(c);
            s = wl_universe_step(c, 1000);
            WL_CHECK(s == WL_ERR_NOMEM, "64 KB limit: step gives %s", wl_status_str(s));
            WL_CHECK(strstr(wl_last_error(), "memory") != NULL, "message: %s", wl_last_error());
            wl_bigint gen;
            wl_universe_generation(c, &gen);
            uint64_t g = 99;
            wl_bigint_to_u64(&gen, &g);
            WL_CHECK(pop_u64(c) == before && g == 0, "64 KB limit: universe unchanged");
            /* a clear error on load is acceptable too, but then say so */
        } else {
            WL_CHECK(s == WL_ERR_NOMEM, "64 KB limit: load gives %s", wl_status_str(s));
        }
        wl_pattern_free(q);
        wl_universe_free(c);
    }
    wl_pattern_free(p);
}

/* ---- macrocell: the native loader against the pattern reader ----------------------------- */

/* A macrocell text and what both readers must make of it. */
typedef struct mc_case {
    const char *name; /* also the file name: its extension matters to format detection */
    const char *text;
    wl_status want;   /* the status of both paths */
    int native;       /* 1: hashlife's own loader must take it (not WL_ERR_UNSUPPORTED) */
    const char *cells; /* for valid files: the live cells, "x,y x,y ..." (NULL: not checked) */
} mc_case;

static const mc_case mc_cases[] = {
    {"leaf-root.mc", "[M2]\n.*$..*$***$\n", WL_OK, 1, "-3,-4 -2,-3 -4,-2 -3,-2 -2,-2"},
    {"level1-root.mc", "[M2]\n1 1 0 0 1\n", WL_OK, 1, "-1,-1 0,0"},
    {"level1-full.mc", "[M2] (golly 4.2)\n1 1 1 1 1\n", WL_OK, 1, "-1,-1 0,-1 -1,0 0,0"},
    {"level2-root.mc", "[M2]\n1 1 0 0 1\n1 0 1 0 0\n2 1 2 0 1\n", WL_OK, 1,
     "-2,-2 -1,-1 1,-2 0,0 1,1"},
    {"level3-line-root.mc", "[M2]\n1 1 0 0 1\n2 1 0 0 1\n3 2 0 0 2\n", WL_OK, 1,
     "-4,-4 -3,-3 -2,-2 -1,-1 0,0 1,1 2,2 3,3"},
    {"small-lines-inside.mc",
     "[M2]\n1 1 0 0 1\n2 1 0 0 1\n3 0 2 0 0\n.*$..*$***$\n4 3 4 0 3\n5 0 0 5 0\n", WL_OK, 1,
     "-12,0 -11,1 -10,2 -9,3 -7,0 -6,1 -8,2 -7,2 -6,2 -4,8 -3,9 -2,10 -1,11"},
    {"golly-level1.mc", "[M2] (golly 2.0)\n#R B3/S23\n1 0 1 0 0\n1 1 0 0 0\n2 1 2 2 1\n"
                        "3 3 0 0 3\n4 4 4 0 0\n", WL_OK, 1, NULL},
    {"header-only.mc", "[M2] (golly 4.2)\n#R B3/S23\n", WL_OK, 1, ""},
    {"empty-file.mc", "", WL_OK, 1, ""},
    {"empty-level4.mc", "[M2]\n4 0 0 0 0\n", WL_OK, 1, ""},
    {"empty-level1.mc", "[M2]\n1 0 0 0 0\n", WL_OK, 1, ""},
    {"empty-leaf.mc", "[M2]\n$\n5 0 0 0 0\n", WL_OK, 1, ""},
    {"comments.mc",
     "[M2] (golly 3.0)\n#R B3/S23\n#G 1234\n#C a comment\n#D description\n#O someone\n\n"
     ".*$..*$***$\n\n4 1 0 0 1\n",
     WL_OK, 1, "-7,-8 -6,-7 -8,-6 -7,-6 -6,-6 1,0 2,1 0,2 1,2 2,2"},
    {"crlf.mc", "[M2]\r\n#R B3/S23  \r\n.*$..*$***$  \r\n4 0 0 0 1\r\n", WL_OK, 1,
     "1,0 2,1 0,2 1,2 2,2"},
    {"bom-blanks.mc", "\xEF\xBB\xBF\n \n[M2]\n.*$..*$***$\n4 0 0 0 1\n", WL_OK, 1,
     "1,0 2,1 0,2 1,2 2,2"},
    {"no-header.mc", "#R B3/S23\n.*$..*$***$\n4 0 0 0 1\n", WL_OK, 1, "1,0 2,1 0,2 1,2 2,2"},
    {"no-header-node.mc", ".*$..*$***$\n4 0 0 0 1\n", WL_OK, 1, "1,0 2,1 0,2 1,2 2,2"},
    {"other-rule.mc", "[M2]\n#R B36/S23:T100,100\n.*$..*$***$\n4 1 0 0 0\n", WL_OK, 1,
     "-7,-8 -6,-7 -8,-6 -7,-6 -6,-6"},
    {"no-header.txt", ".*$..*$***$\n4 0 0 0 1\n", WL_ERR_PARSE, 0, NULL}, /* read as RLE */
    {"forward-ref.mc", "[M2]\n4 2 0 0 0\n.*$\n", WL_ERR_PARSE, 1, NULL},
    {"self-ref.mc", "[M2]\n.*$\n4 2 0 0 0\n", WL_ERR_PARSE, 1, NULL},
    {"wrong-level.mc", "[M2]\n.*$\n5 1 0 0 0\n", WL_ERR_PARSE, 1, NULL},
    {"level1-kid.mc", "[M2]\n1 1 0 0 0\n4 1 0 0 0\n", WL_ERR_PARSE, 1, NULL},
    {"level2-kid.mc", "[M2]\n1 1 0 0 0\n2 1 0 0 0\n4 2 0 0 0\n", WL_ERR_PARSE, 1, NULL},
    {"state2.mc", "[M2]\n1 2 0 0 0\n", WL_ERR_PARSE, 1, NULL},
    {"level0.mc", "[M2]\n0 0 0 0 0\n", WL_ERR_PARSE, 1, NULL},
    {"negative.mc", "[M2]\n.*$\n4 -1 0 0 0\n", WL_ERR_PARSE, 1, NULL},
    {"short-node.mc", "[M2]\n.*$\n4 1 0 0\n", WL_ERR_PARSE, 1, NULL},
    {"long-node.mc", "[M2]\n.*$\n4 1 0 0 0 0\n", WL_ERR_PARSE, 1, NULL},
    {"huge-number.mc", "[M2]\n.*$\n4 99999999999999999999 0 0 0\n", WL_ERR_PARSE, 1, NULL},
    {"wide-leaf.mc", "[M2]\n.*$..*$*****.***$\n", WL_ERR_PARSE, 1, NULL},
    {"tall-leaf.mc", "[M2]\n*$*$*$*$*$*$*$*$*$\n", WL_ERR_PARSE, 1, NULL},
    {"garbage.mc", "[M2]\nhello world\n", WL_ERR_PARSE, 1, NULL},
    {"rle-body.mc", "[M2]\nx = 3, y = 3\nbo$2bo$3o!\n", WL_ERR_PARSE, 1, NULL},
    {"bad-rule.mc", "[M2]\n#R nonsense\n.*$\n", WL_ERR_PARSE, 1, NULL},
    {"empty-rule.mc", "[M2]\n#R\n.*$\n", WL_ERR_PARSE, 1, NULL},
    {"binary.mc", "\x01\x02\x03\x04", WL_ERR_PARSE, 0, NULL},
};

/* A file of a level-L root (5 <= L) with a glider on each side of the centre, reached
 * through chains of single-child nodes: lines 1 leaf, 2 "4 0 0 0 1" (the glider at the se
 * quadrant), 3 "4 1 0 0 0" (at the nw quadrant), then per level k = 5..L-1 two nodes
 * keeping the first chain in the se corner and the second in the nw corner, and a root
 * with the first chain nw and the second se: the gliders at (-8, -8) and (0, 0).  `far`:
 * the root holds the second chain at nw instead, a glider at (-2^(L-1), -2^(L-1)). */
static char *deep_text(int L, int far) {
    size_t cap = 64 + (size_t)L * 64, n = 0;
    char *t = malloc(cap);
    if (!t) return NULL;
    n += (size_t)snprintf(t + n, cap - n, "[M2] (deep)\n.*$..*$***$\n4 0 0 0 1\n4 1 0 0 0\n");
    int a = 2, b = 3, line = 3;
    for (int k = 5; k < L; k++) {
        n += (size_t)snprintf(t + n, cap - n, "%d 0 0 0 %d\n%d %d 0 0 0\n", k, a, k, b);
        a = line + 1;
        b = line + 2;
        line += 2;
    }
    if (far)
        snprintf(t + n, cap - n, "%d %d 0 0 0\n", L, b);
    else
        snprintf(t + n, cap - n, "%d %d 0 0 %d\n", L, a, b);
    return t;
}

static wl_pattern *cell_list(const char *s) {
    wl_pattern *p = wl_pattern_new();
    long long x, y;
    int used;
    while (p && sscanf(s, " %lld,%lld%n", &x, &y, &used) == 2) {
        wl_pattern_set(p, x, y, 1);
        s += used;
    }
    return p;
}

/* Writes len bytes to path (gzipped when gz); 0 when gzip is not built in. */
static int write_bytes(const char *path, const char *text, size_t len, int gz, int cut) {
    char *z = NULL;
    size_t zlen = 0;
    if (gz) {
        if (wl_gzip(text, len, &z, &zlen) != WL_OK) return 0;
        text = z;
        len = cut ? zlen / 2 : zlen;
    }
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(text, 1, len, f);
        fclose(f);
    }
    free(z);
    return f != NULL;
}

/* The cells of a universe, or NULL (with a failed check). */
static wl_pattern *cells_of(wl_universe *u, const char *what) {
    wl_pattern *p = NULL;
    wl_status s = wl_universe_store(u, &p);
    WL_CHECK(s == WL_OK, "%s: store: %s", what, wl_last_error());
    return p;
}

/* Steps a natively loaded universe and one loaded from the pattern reader's pattern in a
 * few increments, checking that they agree (cells, population, bounds) and, while the
 * cells stay within a 256-cell grid, that `ref` does too. */
static void mc_step_check(wl_universe *native, const wl_pattern *p, const char *what) {
    wl_rule life;
    wl_rule_life(&life);
    wl_universe *via = make_hl(&life, 0), *ref = make_ref(&life, 256);
    if (via && ref) {
        WL_CHECK_OK(wl_universe_load(via, p, NULL));
        WL_CHECK_OK(wl_universe_load(ref, p, NULL));
        static const uint64_t incs[] = {1, 3, 8, 21};
        uint64_t gen = 0;
        wl_rect r;
        int on_grid = !wl_pattern_bounds(p, &r) ||
                      (r.x >= -100 && r.y >= -100 && r.x + (int64_t)r.w <= 100 &&
                       r.y + (int64_t)r.h <= 100);
        for (size_t i = 0; i < sizeof incs / sizeof incs[0]; i++) {
            WL_CHECK_OK(wl_universe_step(native, incs[i]));
            WL_CHECK_OK(wl_universe_step(via, incs[i]));
            WL_CHECK_OK(wl_universe_step(ref, incs[i]));
            gen += incs[i];
            char msg[160];
            snprintf(msg, sizeof msg, "%s after %llu generations", what,
                     (unsigned long long)gen);
            wl_test_same(native, via, msg);
            if (on_grid) on_grid = compare(native, ref, 256, msg, gen);
        }
    }
    wl_universe_free(via);
    wl_universe_free(ref);
}

/* One file through both readers: hashlife's loader (by its engine slot and through
 * wl_universe_load_file on a universe holding a blinker) and wl_pattern_read_file. */
static void mc_check_file(const char *path, const char *what, wl_status want, int native,
                          const char *want_cells) {
    wl_rule life;
    wl_rule_life(&life);
    static const int blinker[][2] = {{100, 100}, {101, 100}, {102, 100}};
    wl_pattern *before = cells(blinker, 3), *p = NULL;
    wl_universe *u = make_hl(&life, 0);
    if (!u || !before) goto done;
    WL_CHECK_OK(wl_universe_load(u, before, NULL));

    /* the pattern reader: the reference answer */
    wl_status sp = wl_pattern_read_file(path, &p);
    char msg_p[512];
    snprintf(msg_p, sizeof msg_p, "%s", wl_last_error());
    WL_CHECK(sp == want, "%s: pattern reader gives %s, want %s (%s)", what, wl_status_str(sp),
             wl_status_str(want), msg_p);

    /* the engine's own loader, without the fallback to the pattern reader */
    hl_ctx *h = wl_universe_ctx(u);
    wl_status sn = hl_load_file(h, path);
    WL_CHECK(native ? sn == sp : (sn == sp || sn == WL_ERR_UNSUPPORTED),
             "%s: hashlife's loader gives %s, the pattern reader %s (%s)", what,
             wl_status_str(sn), wl_status_str(sp), wl_last_error());
    if (sn == WL_ERR_PARSE && sp == WL_ERR_PARSE)
        WL_CHECK(strcmp(wl_last_error(), msg_p) == 0, "%s: messages differ: '%s' vs '%s'",
                 what, wl_last_error(), msg_p);
    WL_CHECK(sn == WL_OK || sn == WL_ERR_UNSUPPORTED || strstr(wl_last_error(), path),
             "%s: the message names the file: %s", what, wl_last_error());
    WL_CHECK_OK(wl_universe_load(u, before, NULL));

    /* the universe: same status; the same cells, or the blinker kept */
    wl_status su = wl_universe_load_file(u, path, NULL);
    WL_CHECK(su == sp, "%s: wl_universe_load_file gives %s, the pattern reader %s (%s)", what,
             wl_status_str(su), wl_status_str(sp), wl_last_error());
    wl_pattern *got = cells_of(u, what);
    if (su == WL_OK && sp == WL_OK && got) {
        WL_CHECK(wl_pattern_equal_cells(got, p), "%s: cells differ (%llu vs %llu live)", what,
                 (unsigned long long)wl_pattern_population(got),
                 (unsigned long long)wl_pattern_population(p));
        if (want_cells) {
            wl_pattern *w = cell_list(want_cells);
            WL_CHECK(w && wl_pattern_equal_cells(got, w), "%s: not the expected cells", what);
            wl_pattern_free(w);
        }
        mc_step_check(u, p, what);
    } else if (su != WL_OK && got) {
        WL_CHECK(wl_pattern_equal_cells(got, before), "%s: universe changed by a failed load",
                 what);
    }
    wl_pattern_free(got);
done:
    wl_pattern_free(p);
    wl_pattern_free(before);
    wl_universe_free(u);
}

/* A file whose glider lies beyond the pattern reader's 2^62 but within hashlife's reach:
 * the reader refuses it (WL_ERR_TOO_BIG), hashlife holds 5 cells at -2^(L-1). */
static void mc_far_check(const char *path, const char *what, int L) {
    wl_rule life;
    wl_rule_life(&life);
    wl_pattern *p = NULL;
    wl_status sp = wl_pattern_read_file(path, &p);
    WL_CHECK(sp == WL_ERR_TOO_BIG, "%s: pattern reader gives %s", what, wl_status_str(sp));
    wl_pattern_free(p);
    wl_universe *u = make_hl(&life, 0);
    if (!u) return;
    WL_CHECK_OK(wl_universe_load_file(u, path, NULL));
    WL_CHECK(pop_u64(u) == 5, "%s: population %llu", what, (unsigned long long)pop_u64(u));
    wl_bigint b[4], half, want, zero;
    bounds_of(u, b);
    char text[80];
    snprintf(text, sizeof text, "2^%d", L - 1);
    WL_CHECK(wl_bigint_parse(text, &half) == WL_OK, "parse %s", text);
    wl_bigint_from_u64(&zero, 0);
    wl_bigint_sub(&want, &zero, &half);
    WL_CHECK(wl_bigint_cmp(&b[0], &want) == 0, "%s: leftmost cell at -%s", what, text);
    wl_universe_free(u);
}

static void macrocell_grammar(void) {
    char dir[] = "/tmp/test_hashlife_mc_XXXXXX";
    if (!mkdtemp(dir)) {
        WL_CHECK(0, "mkdtemp failed");
        return;
    }
    char path[512], what[160];
    int have_gz = 1;
    for (size_t i = 0; i < sizeof mc_cases / sizeof mc_cases[0]; i++) {
        const mc_case *c = &mc_cases[i];
        size_t len = strlen(c->text);
        if (strcmp(c->name, "binary.mc") == 0) len = 4;
        for (int gz = 0; gz < 2; gz++) {
            snprintf(path, sizeof path, "%s/%s%s", dir, c->name, gz ? ".gz" : "");
            if (!write_bytes(path, c->text, len, gz, 0)) {
                have_gz = 0;
                continue;
            }
            snprintf(what, sizeof what, "%s%s", c->name, gz ? " (gzip)" : "");
            mc_check_file(path, what, c->want, c->native, c->cells);
            unlink(path);
        }
    }
    if (!have_gz) printf("skipped: gzip variants (%s)\n", wl_last_error());
    /* deep roots: below and beyond the 62 levels the pattern reader places directly and
     * the 240 levels of hashlife's nodes; far out: a glider at -2^(L-1), which the pattern
     * reader holds up to 2^62 and hashlife up to 2^240 */
    static const int levels[] = {5, 6, 40, 62, 63, 70, 240, 241, 242, 300};
    for (size_t i = 0; i < 2 * sizeof levels / sizeof levels[0]; i++) {
        int L = levels[i / 2], far = (int)(i % 2);
        char *t = deep_text(L, far);
        snprintf(path, sizeof path, "%s/deep%d%s.mc", dir, L, far ? "far" : "");
        snprintf(what, sizeof what, "level-%d root%s", L, far ? ", far out" : "");
        if (t && write_bytes(path, t, strlen(t), 0, 0)) {
            if (!far)
                mc_check_file(path, what, WL_OK, 1,
                              "-7,-8 -6,-7 -8,-6 -7,-6 -6,-6 1,0 2,1 0,2 1,2 2,2");
            else if (L <= 62 || L > HL_MAX_LEVEL)
                mc_check_file(path, what, L <= 62 ? WL_OK : WL_ERR_TOO_BIG, 1, NULL);
            else
                mc_far_check(path, what, L);
        }
        free(t);
        unlink(path);
    }
    /* truncated gzip, and a missing file */
    snprintf(path, sizeof path, "%s/cut.mc.gz", dir);
    static const char glider_mc[] = "[M2]\n#R B3/S23\n.*$..*$***$\n4 0 0 0 1\n";
    if (have_gz && write_bytes(path, glider_mc, strlen(glider_mc), 1, 1))
        mc_check_file(path, "truncated gzip", WL_ERR_PARSE, 1, NULL);
    unlink(path);
    snprintf(path, sizeof path, "%s/missing.mc", dir);
    mc_check_file(path, "missing file", WL_ERR_NOT_FOUND, 1, NULL);
    rmdir(dir);
}

/* Round trips of random soups through hashlife's writer, read back by both readers; and
 * the memory limit while reading: a file bigger than the store is refused (universe kept),
 * and one that fits once the old universe's garbage is gone loads after a long run. */
static void macrocell_native(void) {
    char dir[] = "/tmp/test_hashlife_mcn_XXXXXX";
    if (!mkdtemp(dir)) {
        WL_CHECK(0, "mkdtemp failed");
        return;
    }
    char path[512];
    snprintf(path, sizeof path, "%s/soup.mc", dir);
    wl_rule life;
    wl_rule_life(&life);
    for (int rep = 0; rep < (quick ? 2 : 4); rep++) {
        wl_pattern *p = wl_pattern_new(), *q = NULL;
        wl_rect r = {(int64_t)(wl_splitmix64(&rng) % 2001) - 1000,
                     (int64_t)(wl_splitmix64(&rng) % 2001) - 1000,
                     1 + wl_splitmix64(&rng) % 150, 1 + wl_splitmix64(&rng) % 150};
        WL_CHECK_OK(wl_pattern_random(p, &r, 0.3, wl_splitmix64(&rng)));
        wl_universe *a = make_hl(&life, 0);
        if (a) {
            WL_CHECK_OK(wl_universe_load(a, p, NULL));
            WL_CHECK_OK(wl_universe_save_file(a, path, WL_FORMAT_AUTO, -1));
            wl_pattern *none = wl_pattern_new();
            WL_CHECK_OK(wl_universe_load(a, none, NULL));
            wl_pattern_free(none);
            WL_CHECK_OK(hl_load_file(wl_universe_ctx(a), path));
            wl_pattern *got = cells_of(a, "round trip");
            WL_CHECK(got && wl_pattern_equal_cells(got, p), "soup -> .mc -> hashlife: equal");
            WL_CHECK_OK(wl_pattern_read_file(path, &q));
            WL_CHECK(q && wl_pattern_equal_cells(q, p), "soup -> .mc -> pattern: equal");
            if (q) mc_step_check(a, q, "round trip");
            wl_pattern_free(got);
        }
        wl_universe_free(a);
        wl_pattern_free(p);
        wl_pattern_free(q);
    }

    /* a store of 4096 nodes (the limit from max_memory / 40 bytes) */
    wl_pattern *big = wl_pattern_new(), *small = wl_pattern_new();
    wl_rect rb = {-400, -400, 800, 800}, rs = {-60, -60, 120, 120};
    WL_CHECK_OK(wl_pattern_random(big, &rb, 0.4, wl_splitmix64(&rng)));
    WL_CHECK_OK(wl_pattern_random(small, &rs, 0.4, wl_splitmix64(&rng)));
    char bigp[512], smallp[512];
    snprintf(bigp, sizeof bigp, "%s/big.mc", dir);
    snprintf(smallp, sizeof smallp, "%s/small.mc", dir);
    WL_CHECK_OK(wl_pattern_write_file(big, bigp, WL_FORMAT_MACROCELL, 0));
    WL_CHECK_OK(wl_pattern_write_file(small, smallp, WL_FORMAT_MACROCELL, 0));
    wl_universe *u = make_hl(&life, 4096 * 40);
    if (u) {
        hl_ctx *h = wl_universe_ctx(u);
        wl_pattern *seed = wl_pattern_new();
        soup(seed, 64, wl_splitmix64(&rng));
        WL_CHECK_OK(wl_universe_load(u, seed, NULL));
        /* a file of 10000 leaves does not fit: refused, the soup kept */
        wl_pattern *before = cells_of(u, "before");
        wl_status s = wl_universe_load_file(u, bigp, NULL);
        WL_CHECK(s == WL_ERR_TOO_BIG, "a file bigger than the store: %s (%s)", wl_status_str(s),
                 wl_last_error());
        WL_CHECK(strstr(wl_last_error(), "big.mc:") != NULL, "message: %s", wl_last_error());
        wl_pattern *after = cells_of(u, "after");
        WL_CHECK(before && after && wl_pattern_equal_cells(before, after),
                 "universe unchanged by a file bigger than the store");
        /* run until the store is more than half full, then load a file that fits */
        for (int i = 0; i < 40 && h->live <= h->limit / 2 + 1500; i++)
            WL_CHECK_OK(wl_universe_step(u, 37));
        printf("note: 4096-node store: %u nodes in use before loading a %s\n", h->live,
               "file of ~700 nodes");
        WL_CHECK_OK(wl_universe_load_file(u, smallp, NULL));
        wl_pattern *got = cells_of(u, "small");
        WL_CHECK(got && wl_pattern_equal_cells(got, small), "small file after a long run");
        WL_CHECK_OK(wl_universe_step(u, 100));
        wl_pattern_free(got);
        wl_pattern_free(before);
        wl_pattern_free(after);
        wl_pattern_free(seed);
    }
    wl_universe_free(u);
    wl_pattern_free(big);
    wl_pattern_free(small);
    unlink(bigp);
    unlink(smallp);
    unlink(path);
    rmdir(dir);
}

static int poll_calls;
static int poll_stop_after(void *user) { return ++poll_calls > *(int *)user; }

/* ---- parallel steps ---------------------------------------------------------------------- */

/* Stores both universes and checks that they hold the same cells. */
static void same_cells(wl_universe *a, wl_universe *b, const char *what, uint64_t gen) {
    wl_pattern *pa = NULL, *pb = NULL;
    WL_CHECK_OK(wl_universe_store(a, &pa));
    WL_CHECK_OK(wl_universe_store(b, &pb));
    WL_CHECK(pa && pb && wl_pattern_equal_cells(pa, pb), "%s: cells differ at generation %llu",
             what, (unsigned long long)gen);
    wl_pattern_free(pa);
    wl_pattern_free(pb);
}

/* The store after a parallel step: every node in use is counted live and sits in the hash
 * table once (no node made for a lost race is left over), and no two hold one square. */
static int key_cmp(const void *x, const void *y) {
    return memcmp(x, y, 4 * sizeof(uint32_t));
}
static void store_consistent(const hl_ctx *h, const char *what) {
    uint32_t used = 0, slots = 0;
    for (uint32_t n = 1; n < h->top; n++) used += h->nodes[n].level != 0;
    for (uint32_t i = 0; i <= h->tmask; i++) slots += h->table[i] != 0;
    WL_CHECK(used == h->live && slots == h->live, "%s: %u nodes in use, %u counted, %u in the table",
             what, used, h->live, slots);
    uint32_t (*keys)[4] = malloc((size_t)(used ? used : 1) * sizeof *keys), k = 0;
    if (!keys) return;
    for (uint32_t n = 1; n < h->top; n++)
        if (h->nodes[n].level) memcpy(keys[k++], h->nodes[n].c, sizeof keys[0]);
    qsort(keys, k, sizeof keys[0], key_cmp);
    uint32_t dup = 0;
    for (uint32_t i = 1; i < k; i++) dup += memcmp(keys[i - 1], keys[i], sizeof keys[0]) == 0;
    WL_CHECK(dup == 0, "%s: %u squares stored twice", what, dup);
    free(keys);
}

/* Four threads (more than this machine may have: the threads interleave anyhow) against
 * one, on soups under rules of each kind HashLife runs, through steps short and long
 * (short ones stay serial), a store that has to grow its table and nodes while the threads
 * run, and a memory limit that makes the threads stop for collections. */
/* The rules of the parallel and batches tests: two-state (Moore, Hensel) and multi-state. */
static const char *const soup_rules[] = {"B3/S23", "B36/S23", "B3-cnqy/S23-a4ityz", "23/3/3",
                                         "LifeHistory"};
#define SOUP_RULES (sizeof soup_rules / sizeof soup_rules[0])

/* Rule i of soup_rules into *rule, and a fresh soup of side x side cells for it. */
static wl_pattern *rule_soup(size_t i, int side, wl_rule *rule) {
    WL_CHECK_OK(wl_rule_parse(soup_rules[i], rule));
    wl_pattern *p = wl_pattern_new();
    soup(p, side, wl_splitmix64(&rng));
    return p;
}

static void parallel(void) {
    static const uint64_t steps[] = {1, 100, 64, 1000, 3000};
    uint64_t par_steps = 0, retries = 0;
    for (size_t i = 0; i < SOUP_RULES; i++) {
        wl_rule rule;
        wl_pattern *p = rule_soup(i, quick ? 64 : 128, &rule);
        wl_universe *one = make_hl_threads(&rule, 0, 1), *four = make_hl_threads(&rule, 0, 4);
        if (one && four) {
            WL_CHECK_OK(wl_universe_load(one, p, NULL));
            WL_CHECK_OK(wl_universe_load(four, p, NULL));
            uint64_t gen = 0;
            for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
                if (quick && steps[k] > 1000) break;
                WL_CHECK_OK(wl_universe_step(one, steps[k]));
                WL_CHECK_OK(wl_universe_step(four, steps[k]));
                gen += steps[k];
                same_cells(one, four, soup_rules[i], gen);
                WL_CHECK(pop_u64(one) == pop_u64(four), "%s: populations differ at %llu",
                         soup_rules[i], (unsigned long long)gen);
            }
            hl_ctx *h = wl_universe_ctx(four);
            WL_CHECK(h->nthreads == 4, "%s: %d threads", soup_rules[i], h->nthreads);
            store_consistent(h, soup_rules[i]);
            par_steps += h->par_steps;
            retries += h->par_retries;
        }
        wl_universe_free(one);
        wl_universe_free(four);
        wl_pattern_free(p);
    }
    WL_CHECK(par_steps > 0, "parallel: %llu steps ran on the threads", (unsigned long long)par_steps);
    printf("note: parallel: %llu steps on 4 threads, %llu stopped to grow the store\n",
           (unsigned long long)par_steps, (unsigned long long)retries);
    if (!quick) WL_CHECK(retries > 0, "parallel: no step stopped to grow the store");

    /* under a memory limit: collections between tries */
    wl_rule life;
    wl_rule_life(&life);
    wl_pattern *p = wl_pattern_new();
    soup(p, 96, wl_splitmix64(&rng));
    wl_universe *a = make_hl_threads(&life, 0, 1), *b = make_hl_threads(&life, 512u << 10, 4);
    if (a && b) {
        WL_CHECK_OK(wl_universe_load(a, p, NULL));
        WL_CHECK_OK(wl_universe_load(b, p, NULL));
        for (uint64_t g = 0; g < (quick ? 700u : 2000u); g += 100) {
            WL_CHECK_OK(wl_universe_step(a, 100));
            WL_CHECK_OK(wl_universe_step(b, 100));
            same_cells(a, b, "parallel, 512 KB limit", g + 100);
        }
        hl_ctx *hb = wl_universe_ctx(b);
        WL_CHECK(hb->gc_count > 0 && hb->par_steps > 0,
                 "parallel, 512 KB limit: %llu collections, %llu parallel steps",
                 (unsigned long long)hb->gc_count, (unsigned long long)hb->par_steps);
        store_consistent(hb, "parallel, 512 KB limit");
        size_t dangling = 0;
        for (uint32_t n = 1; n < hb->top; n++)
            if (hb->nodes[n].level && hb->nodes[n].rexp != HL_NO_RESULT &&
                !hb->nodes[hb->nodes[n].res].level)
                dangling++;
        WL_CHECK(dangling == 0, "parallel, 512 KB limit: %zu results point at freed nodes",
                 dangling);
    }
    wl_universe_free(a);
    wl_universe_free(b);
    wl_pattern_free(p);
}

/* Results in batches (the default) against the plain recursion, under two-state and
 * multi-state rules, on soups big enough that batches fill up and are cut into pieces: the
 * same cells at every step; under a memory limit that collects mid-batch too, keeping
 * only what the trees and the protect stack reach (a node a batch forgot to protect goes
 * at once; nothing may be left pointing at freed nodes); and on two threads. */
static void batches(void) {
    static const uint64_t steps[] = {1, 100, 64, 1000, 3000, 4096};
    int most = 0;
    uint64_t gcs = 0, par_steps = 0;
    for (size_t i = 0; i < SOUP_RULES; i++) {
        wl_rule rule;
        wl_pattern *p = rule_soup(i, quick ? 128 : 160, &rule);
        wl_universe *plain = make_hl_threads(&rule, 0, 1), *bat = make_hl_threads(&rule, 0, 1),
                    *tight = make_hl_threads(&rule, 512u << 10, 1),
                    *par = make_hl_threads(&rule, 0, 2); /* (more take the recursion) */
        if (plain && bat && tight && par) {
            ((hl_ctx *)wl_universe_ctx(plain))->batch = 0;
            ((hl_ctx *)wl_universe_ctx(tight))->gc_trees_only = 1;
            wl_universe *const us[4] = {plain, bat, tight, par};
            for (int u = 0; u < 4; u++) WL_CHECK_OK(wl_universe_load(us[u], p, NULL));
            uint64_t gen = 0;
            for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
                if (quick && steps[k] > 1000) break;
                for (int u = 0; u < 4; u++) WL_CHECK_OK(wl_universe_step(us[u], steps[k]));
                gen += steps[k];
                same_cells(plain, bat, soup_rules[i], gen);
                same_cells(plain, tight, soup_rules[i], gen);
                same_cells(plain, par, soup_rules[i], gen);
            }
            hl_ctx *hb = wl_universe_ctx(bat), *ht = wl_universe_ctx(tight);
            if (hb->batch_most > most) most = hb->batch_most;
            gcs += ht->gc_count;
            par_steps += ((hl_ctx *)wl_universe_ctx(par))->par_steps;
            store_consistent(hb, soup_rules[i]);
            store_consistent(ht, soup_rules[i]);
            size_t dangling = 0;
            for (uint32_t n = 1; n < ht->top; n++)
                if (ht->nodes[n].level && ht->nodes[n].rexp != HL_NO_RESULT &&
                    !ht->nodes[ht->nodes[n].res].level)
                    dangling++;
            WL_CHECK(dangling == 0, "%s, 512 KB: %zu results point at freed nodes", soup_rules[i],
                     dangling);
        }
        wl_universe_free(plain);
        wl_universe_free(bat);
        wl_universe_free(tight);
        wl_universe_free(par);
        wl_pattern_free(p);
    }
    WL_CHECK(most == HL_BATCH, "batches: the largest had %d nodes, not %d", most, HL_BATCH);
    WL_CHECK(gcs > 0, "batches: no collection under 512 KB");
    WL_CHECK(par_steps > 0, "batches: no step ran on two threads");
}

static void interruption(void) {
    wl_rule life;
    wl_rule_life(&life);
    wl_pattern *p = wl_pattern_new();
    soup(p, 128, wl_splitmix64(&rng));
    /* one thread polls every HL_POLL_INTERVAL of its own steps, so the step must stop; on
     * all threads the calling thread does a share of the work only (a 16-core machine
     * finished this soup's 4095 generations within three polls about one run in six), so
     * there it may finish, and must be right either way */
    for (int threads = 1; threads >= 0; threads--) {
        wl_config cfg;
        wl_config_init(&cfg);
        cfg.engine = "hashlife";
        cfg.topology = WL_TOPOLOGY_PLANE;
        cfg.threads = threads;
        int after = 3;
        cfg.poll = poll_stop_after;
        cfg.poll_user = &after;
        wl_universe *u = NULL, *v = make_hl(&life, 0);
        WL_CHECK_OK(wl_universe_create(&cfg, &u));
        if (u && v) {
            WL_CHECK_OK(wl_universe_load(u, p, NULL));
            WL_CHECK_OK(wl_universe_load(v, p, NULL));
            poll_calls = 0;
            wl_status s = wl_universe_step(u, 4095);
            WL_CHECK(s == WL_ERR_INTERRUPTED || (threads != 1 && s == WL_OK),
                     "poll (%d threads): step gives %s", threads, wl_status_str(s));
            wl_bigint gen;
            wl_universe_generation(u, &gen);
            uint64_t g = 0;
            wl_bigint_to_u64(&gen, &g);
            WL_CHECK(s == WL_OK ? g == 4095 : g < 4095, "poll (%d threads): %s at %llu", threads,
                     wl_status_str(s), (unsigned long long)g);
            if (g) WL_CHECK_OK(wl_universe_step(v, g));
            wl_pattern *pu = NULL, *pv = NULL;
            WL_CHECK_OK(wl_universe_store(u, &pu));
            WL_CHECK_OK(wl_universe_store(v, &pv));
            WL_CHECK(pu && pv && wl_pattern_equal_cells(pu, pv),
                     "poll: universe consistent at generation %llu", (unsigned long long)g);
            wl_pattern_free(pu);
            wl_pattern_free(pv);
            /* going on after the interruption reaches the right state */
            after = 1 << 30;
            WL_CHECK_OK(wl_universe_step(u, 4095 - g));
            WL_CHECK_OK(wl_universe_step(v, 4095 - g));
            WL_CHECK(pop_u64(u) == pop_u64(v), "poll: resumed run agrees");
        }
        wl_universe_free(u);
        wl_universe_free(v);
    }
    wl_pattern_free(p);
}

static void b0_and_cells(void) {
    wl_rule r;
    WL_CHECK_OK(wl_rule_parse("B0/S8", &r));
    wl_config cfg;
    wl_config_init(&cfg);
    cfg.engine = "hashlife";
    cfg.topology = WL_TOPOLOGY_PLANE;
    cfg.rule = r;
    wl_universe *u = NULL;
    WL_CHECK(wl_universe_create(&cfg, &u) == WL_ERR_UNSUPPORTED, "B0 rule refused");
    WL_CHECK(strstr(wl_last_error(), "B0") != NULL, "B0 message: %s", wl_last_error());
    wl_universe_free(u);

    wl_rule life;
    wl_rule_life(&life);
    u = make_hl(&life, 0);
    if (!u) return;
    wl_pattern *want = wl_pattern_new();
    for (int i = 0; i < 200; i++) {
        int64_t x = (int64_t)(wl_splitmix64(&rng) % 4000) - 2000;
        int64_t y = (int64_t)(wl_splitmix64(&rng) % 300) - 150;
        int alive = (int)(wl_splitmix64(&rng) & 3) != 0;
        WL_CHECK_OK(wl_universe_set_cell(u, x, y, alive));
        wl_pattern_set(want, x, y, alive);
    }
    WL_CHECK_OK(wl_universe_set_cell(u, INT64_MIN / 2, INT64_MAX / 2, 1));
    /* (too far for the dense pattern `want`: counted separately) */
    int ok = 1;
    for (int i = 0; i < 2000; i++) {
        int64_t x = (int64_t)(wl_splitmix64(&rng) % 4000) - 2000;
        int64_t y = (int64_t)(wl_splitmix64(&rng) % 300) - 150;
        int a = -1;
        WL_CHECK_OK(wl_universe_get_cell(u, x, y, &a));
        if (a != wl_pattern_get(want, x, y)) ok = 0;
    }
    int a = 0;
    WL_CHECK_OK(wl_universe_get_cell(u, INT64_MIN / 2, INT64_MAX / 2, &a));
    WL_CHECK(ok && a == 1, "set_cell / get_cell agree with a pattern");
    WL_CHECK(pop_u64(u) == wl_pattern_population(want) + 1, "population after set_cell");
    wl_pattern_free(want);
    wl_universe_free(u);

    /* rendering against a naive rendering of the stored pattern */
    u = make_hl(&life, 0);
    if (!u) return;
    wl_pattern *p = wl_pattern_new();
    soup(p, 100, wl_splitmix64(&rng));
    WL_CHECK_OK(wl_universe_load(u, p, NULL));
    WL_CHECK_OK(wl_universe_step(u, 37));
    wl_pattern *s = NULL;
    WL_CHECK_OK(wl_universe_store(u, &s));
    const int zooms[] = {2, 0, -1, -3};
    uint32_t *img = malloc(64 * 48 * sizeof *img);
    for (size_t zi = 0; s && img && zi < sizeof zooms / sizeof zooms[0]; zi++) {
        wl_view v = {-50 + (int64_t)zi * 3, -37, zooms[zi], 64, 48, 0xFFFFFFFFu, 0xFF000000u};
        WL_CHECK_OK(wl_universe_render(u, &v, img));
        int same = 1;
        for (uint32_t py = 0; py < v.height; py++)
            for (uint32_t px = 0; px < v.width; px++) {
                int on = 0;
                if (v.zoom >= 0) {
                    on = wl_pattern_get(s, v.x + (px >> v.zoom), v.y + (py >> v.zoom));
                } else {
                    int64_t n = (int64_t)1 << -v.zoom;
                    for (int64_t dy = 0; dy < n; dy++)
                        for (int64_t dx = 0; dx < n; dx++)
                            on |= wl_pattern_get(s, v.x + px * n + dx, v.y + py * n + dy);
                }
                if (img[py * v.width + px] != (on ? v.alive : v.dead)) same = 0;
            }
        WL_CHECK(same, "render at zoom %d", v.zoom);
    }
    free(img);
    wl_pattern_free(s);
    wl_pattern_free(p);
    wl_universe_free(u);
}

/* ---- zoomed-out rendering at unaligned origins ----------------------------------------- */

static int64_t floor_div(int64_t a, int64_t b) { /* b > 0 */
    return a / b - (a % b < 0);
}

/* Random views around a stepped random soup placed near the origin or far from it (up to
 * +-2^44): zooms -8..2 with origins on no particular grid, odd and even sizes, each compared
 * pixel by pixel with a naive rendering of the stored pattern's live cells (a pixel is lit
 * iff one of them falls in its block) and with the snapshot renderer (src/render). */
static void render_unaligned(void) {
    wl_rule life;
    wl_rule_life(&life);
    int patterns = quick ? 3 : 8, views = quick ? 25 : 60;
    uint32_t *img = malloc(80 * 80 * sizeof *img), *want = malloc(80 * 80 * sizeof *want),
             *snapimg = malloc(80 * 80 * sizeof *snapimg);
    int64_t(*live)[2] = NULL;
    for (int pi = 0; pi < patterns && img && want && snapimg; pi++) {
        wl_universe *u = make_hl(&life, 0);
        if (!u) break;
        int far = pi & 1;
        int64_t ox = far ? (int64_t)(wl_splitmix64(&rng) % (1ull << 45)) - (1ll << 44) : 0;
        int64_t oy = far ? (int64_t)(wl_splitmix64(&rng) % (1ull << 45)) - (1ll << 44) : 0;
        int side = 20 + (int)(wl_splitmix64(&rng) % 100);
        wl_pattern *p = wl_pattern_new();
        wl_rect r = {ox - (int64_t)(wl_splitmix64(&rng) % 64), oy - (int64_t)(wl_splitmix64(&rng) % 64),
                     (uint64_t)side, (uint64_t)(side + (int)(wl_splitmix64(&rng) % 31))};
        WL_CHECK_OK(wl_pattern_random(p, &r, 0.05 + 0.4 * (double)(wl_splitmix64(&rng) % 100) / 100,
                                      wl_splitmix64(&rng)));
        WL_CHECK_OK(wl_universe_load(u, p, NULL));
        WL_CHECK_OK(wl_universe_step(u, wl_splitmix64(&rng) % 60));
        wl_pattern *st = NULL;
        wl_snapshot *snap = NULL;
        WL_CHECK_OK(wl_universe_store(u, &st));
        wl_rect b;
        if (!st || !wl_pattern_bounds(st, &b)) goto next; /* died out: nothing to draw */
        WL_CHECK_OK(wl_pattern_snapshot(st, &snap));
        /* the live cells, once */
        size_t n = 0;
        free(live);
        live = malloc(wl_pattern_population(st) * sizeof *live);
        if (!live) goto next;
        for (int64_t y = b.y; y < b.y + (int64_t)b.h; y++)
            for (int64_t x = b.x; x < b.x + (int64_t)b.w; x++)
                if (wl_pattern_get(st, x, y)) {
                    live[n][0] = x;
                    live[n][1] = y;
                    n++;
                }
        int bad = 0;
        for (int vi = 0; vi < views; vi++) {
            wl_view v;
            v.zoom = 2 - (int)(wl_splitmix64(&rng) % 11); /* 2..-8, mostly zoomed out */
            int sh = v.zoom < 0 ? -v.zoom : 0;
            v.width = 1 + (uint32_t)(wl_splitmix64(&rng) % 80);
            v.height = 1 + (uint32_t)(wl_splitmix64(&rng) % 80);
            v.alive = 0xFFFFFFFFu;
            v.dead = 0xFF000000u;
            /* a cell of the pattern's box (or near it) lands on a random pixel, at a random
             * place inside that pixel's block */
            int64_t span = (int64_t)1 << sh;
            int64_t fx = b.x - 8 + (int64_t)(wl_splitmix64(&rng) % (b.w + 16));
            int64_t fy = b.y - 8 + (int64_t)(wl_splitmix64(&rng) % (b.h + 16));
            if (v.zoom >= 0) {
                v.x = fx - (int64_t)(wl_splitmix64(&rng) % ((v.width >> v.zoom) + 1));
                v.y = fy - (int64_t)(wl_splitmix64(&rng) % ((v.height >> v.zoom) + 1));
            } else {
                v.x = fx - (int64_t)(wl_splitmix64(&rng) % ((uint64_t)v.width * span));
                v.y = fy - (int64_t)(wl_splitmix64(&rng) % ((uint64_t)v.height * span));
            }
            size_t np = (size_t)v.width * v.height;
            for (size_t i = 0; i < np; i++) want[i] = v.dead;
            for (size_t i = 0; i < n; i++) {
                int64_t px, py;
                if (v.zoom >= 0) {
                    int64_t cx = live[i][0] - v.x, cy = live[i][1] - v.y;
                    if (cx < 0 || cy < 0) continue;
                    for (int64_t yy = cy << v.zoom; yy < (cy + 1) << v.zoom; yy++)
                        for (int64_t xx = cx << v.zoom; xx < (cx + 1) << v.zoom; xx++)
                            if (xx < v.width && yy < v.height)
                                want[(size_t)yy * v.width + (size_t)xx] = v.alive;
                    continue;
                }
                px = floor_div(live[i][0] - v.x, span);
                py = floor_div(live[i][1] - v.y, span);
                if (px >= 0 && py >= 0 && px < v.width && py < v.height)
                    want[(size_t)py * v.width + (size_t)px] = v.alive;
            }
            WL_CHECK_OK(wl_universe_render(u, &v, img));
            WL_CHECK_OK(wl_snapshot_render(snap, &v, snapimg));
            int same = memcmp(img, want, np * sizeof *img) == 0;
            int same_snap = memcmp(snapimg, want, np * sizeof *img) == 0;
            WL_CHECK(same, "unaligned render: pattern %d view %d: origin (%lld, %lld) zoom %d "
                     "%ux%u differs from the naive rendering", pi, vi, (long long)v.x,
                     (long long)v.y, v.zoom, v.width, v.height);
            WL_CHECK(same_snap, "unaligned render: the snapshot renderer differs at (%lld, "
                     "%lld) zoom %d %ux%u", (long long)v.x, (long long)v.y, v.zoom, v.width,
                     v.height);
            if (!same && ++bad > 3) break;
        }
    next:
        wl_snapshot_free(snap);
        wl_pattern_free(st);
        wl_pattern_free(p);
        wl_universe_free(u);
    }
    free(live);
    free(img);
    free(want);
    free(snapimg);
}

/* Whether [lo, hi) contains a value congruent to r modulo 16. */
static int has_residue(int64_t lo, int64_t hi, int64_t r) {
    if (lo >= hi) return 0;
    int64_t first = lo + ((r - lo) % 16 + 16) % 16;
    return first < hi;
}

/* The case that made the former renderer split nodes down to the leaves along every pixel
 * grid line: a square 2^T cells wide (T = 20..56) filled with a lattice of period 16 (one
 * live cell per 16 x 16 tile, at a random place), written as a macrocell file of T - 2
 * lines, rendered at zooms -1..-40 from origins on no grid.  The expected image is exact: a
 * pixel is lit iff its block, cut to the square, holds a column and a row of the lattice.
 * Before, a view 48 pixels wide at zoom -30 walked about 2^36 cells of grid line. */
static void render_dense_square(void) {
    char dir[] = "/tmp/test_hashlife_sq_XXXXXX";
    if (!mkdtemp(dir)) {
        WL_CHECK(0, "mkdtemp failed");
        return;
    }
    char path[256];
    snprintf(path, sizeof path, "%s/sq.mc", dir);
    wl_rule life;
    wl_rule_life(&life);
    uint32_t *img = malloc(48 * 48 * sizeof *img);
    for (int rep = 0; rep < (quick ? 2 : 5) && img; rep++) {
        int T = 20 + (int)(wl_splitmix64(&rng) % 37);
        int a = (int)(wl_splitmix64(&rng) % 8), bb = (int)(wl_splitmix64(&rng) % 8);
        int q4 = (int)(wl_splitmix64(&rng) % 4), qr = (int)(wl_splitmix64(&rng) % 4);
        /* lines: 1 leaf, 2 level 4 (the leaf in quadrant q4), 3.. levels 5..T (four copies),
         * then a level T+1 root with the square in quadrant qr */
        char *text = malloc(64 * (size_t)(T + 4));
        if (!text) break;
        int len = sprintf(text, "[M2] (test)\n#R B3/S23\n");
        for (int y = 0; y <= bb; y++) {
            for (int x = 0; x <= a && y == bb; x++) text[len++] = x == a ? '*' : '.';
            text[len++] = '$';
        }
        text[len++] = '\n';
        len += sprintf(text + len, "4 %d %d %d %d\n", q4 == 0, q4 == 1, q4 == 2, q4 == 3);
        for (int k = 5; k <= T; k++) {
            int c = k - 3; /* the line of level k - 1 */
            len += sprintf(text + len, "%d %d %d %d %d\n", k, c, c, c, c);
        }
        int sq = T - 2; /* the square's line */
        len += sprintf(text + len, "%d %d %d %d %d\n", T + 1, qr == 0 ? sq : 0, qr == 1 ? sq : 0,
                       qr == 2 ? sq : 0, qr == 3 ? sq : 0);
        write_text(path, text);
        free(text);
        wl_universe *u = make_hl(&life, 0);
        if (!u) break;
        WL_CHECK_OK(wl_universe_load_file(u, path, NULL));
        /* the root (level T + 1) is centred on the origin */
        int64_t side = (int64_t)1 << T;
        int64_t x0 = -side + (qr & 1) * side, y0 = -side + (qr >> 1) * side;
        int64_t rx = x0 + (q4 & 1) * 8 + a, ry = y0 + (q4 >> 1) * 8 + bb; /* a lattice cell */
        /* one live cell per 16 x 16 tile: 4^(T - 4) (beyond 2^64 pop_u64 says UINT64_MAX) */
        uint64_t tiles = T < 36 ? (uint64_t)1 << (2 * (T - 4)) : UINT64_MAX;
        WL_CHECK(pop_u64(u) == tiles, "dense square: population");
        int bad = 0;
        for (int vi = 0; vi < (quick ? 30 : 80); vi++) {
            int s = 1 + (int)(wl_splitmix64(&rng) % 40);
            if (vi % 3 == 0) s = 10 + (int)(wl_splitmix64(&rng) % 7); /* -10..-16 often */
            wl_view v = {0, 0, -s, 1 + (uint32_t)(wl_splitmix64(&rng) % 48),
                         1 + (uint32_t)(wl_splitmix64(&rng) % 48), 0xFFFFFFFFu, 0xFF000000u};
            int64_t span = (int64_t)1 << s;
            /* a corner or edge point of the square, or any point of it, on a random pixel */
            int64_t fx = x0 + (int64_t)(wl_splitmix64(&rng) % 3) * (side / 2);
            int64_t fy = y0 + (int64_t)(wl_splitmix64(&rng) % 3) * (side / 2);
            if (vi % 4 == 1) {
                fx = x0 + (int64_t)(wl_splitmix64(&rng) % (uint64_t)side);
                fy = y0 + (int64_t)(wl_splitmix64(&rng) % (uint64_t)side);
            }
            v.x = fx - (int64_t)(wl_splitmix64(&rng) % ((uint64_t)v.width * (uint64_t)span));
            v.y = fy - (int64_t)(wl_splitmix64(&rng) % ((uint64_t)v.height * (uint64_t)span));
            WL_CHECK_OK(wl_universe_render(u, &v, img));
            int same = 1;
            for (uint32_t py = 0; py < v.height; py++) {
                int64_t ylo = v.y + (int64_t)py * span, yhi = ylo + span;
                ylo = ylo > y0 ? ylo : y0;
                yhi = yhi < y0 + side ? yhi : y0 + side;
                int rowhit = has_residue(ylo, yhi, ry);
                for (uint32_t px = 0; px < v.width; px++) {
                    int64_t xlo = v.x + (int64_t)px * span, xhi = xlo + span;
                    xlo = xlo > x0 ? xlo : x0;
                    xhi = xhi < x0 + side ? xhi : x0 + side;
                    int on = rowhit && has_residue(xlo, xhi, rx);
                    if (img[py * v.width + px] != (on ? v.alive : v.dead)) same = 0;
                }
            }
            WL_CHECK(same, "dense square 2^%d: view (%lld, %lld) zoom %d %ux%u differs", T,
                     (long long)v.x, (long long)v.y, v.zoom, v.width, v.height);
            if (!same && ++bad > 3) break;
        }
        wl_universe_free(u);
    }
    free(img);
    unlink(path);
    rmdir(dir);
}

/* The Gosper gun at generation 30 * 2^20 (its glider stream 7.8 million cells long),
 * rendered at zooms -10..-16 from unaligned origins: each image must be the OR of the 2 x 2
 * pixel groups of the image at one zoom finer from the same origin (blocks halve exactly). */
static void render_gun_zooms(void) {
    wl_pattern *p = NULL;
    WL_CHECK_OK(wl_pattern_read_mem(gun_rle, strlen(gun_rle), "gun", &p));
    wl_rule life;
    wl_rule_life(&life);
    wl_universe *u = p ? make_hl(&life, 0) : NULL;
    enum { W = 61, H = 47 }; /* odd sizes */
    uint32_t *img = malloc(W * H * sizeof *img), *fine = malloc(4 * W * H * sizeof *fine);
    if (u && img && fine) {
        WL_CHECK_OK(wl_universe_load(u, p, NULL));
        WL_CHECK_OK(wl_universe_step(u, 30ull << 20));
        wl_bigint bx[4];
        bounds_of(u, bx);
        int64_t xmax = big_i64(&bx[2]), ymax = big_i64(&bx[3]);
        int lit_total = 0;
        for (int s = 10; s <= 16; s++) {
            int64_t span = (int64_t)1 << s;
            /* somewhere along the glider stream, which runs from the gun to (xmax, ymax) */
            int64_t t = (int64_t)(wl_splitmix64(&rng) % 1000);
            wl_view v = {xmax / 1000 * t - (int64_t)(wl_splitmix64(&rng) % (W * span)),
                         ymax / 1000 * t - (int64_t)(wl_splitmix64(&rng) % (H * span)), -s, W, H,
                         0xFFFFFFFFu, 0xFF000000u};
            wl_view vf = v;
            vf.zoom = -(s - 1);
            vf.width = 2 * W;
            vf.height = 2 * H;
            WL_CHECK_OK(wl_universe_render(u, &v, img));
            WL_CHECK_OK(wl_universe_render(u, &vf, fine));
            int same = 1;
            for (int py = 0; py < H; py++)
                for (int px = 0; px < W; px++) {
                    int on = 0;
                    for (int d = 0; d < 4; d++)
                        on |= fine[(size_t)(2 * py + (d >> 1)) * vf.width + 2 * px + (d & 1)] ==
                              v.alive;
                    lit_total += on;
                    if (img[py * W + px] != (on ? v.alive : v.dead)) same = 0;
                }
            WL_CHECK(same, "gun at 30*2^20: zoom %d at (%lld, %lld) is not the OR of zoom %d",
                     -s, (long long)v.x, (long long)v.y, -(s - 1));
        }
        WL_CHECK(lit_total > 0, "gun at 30*2^20: the views along the stream show gliders");
    }
    free(img);
    free(fine);
    wl_universe_free(u);
    wl_pattern_free(p);
}

/* The base case of outer-totalistic rules in each of its compiled forms (portable, AVX2,
 * AVX-512VL: a machine runs only the best it has through the engine) against the rule cell
 * by cell: random 16x16 squares, random rules (Life's own logic too), 1, 2 and 4
 * generations, the centre 8x8 compared. */
static int leaf_cell(const uint64_t q[4], int y, int x) { /* (dead outside the square) */
    if (y < 0 || y > 15 || x < 0 || x > 15) return 0;
    return (int)(q[(y >> 3) * 2 + (x >> 3)] >> ((y & 7) * 8 + (x & 7)) & 1);
}

static void leaf_isas(void) {
    static hl_ctx h; /* (only the rule's fields are read) */
    int ran[3] = {0, 0, 0}, bad = 0;
    for (int t = 0; t < (quick ? 300 : 3000) && !bad; t++) {
        memset(&h, 0, sizeof h);
        h.totalistic = 1;
        if (t % 3 == 0) {
            h.life = 1, h.birth = 1u << 3, h.survive = 1u << 2 | 1u << 3;
        } else {
            h.birth = (uint16_t)(wl_splitmix64(&rng) & 0x1FE); /* (no B0) */
            h.survive = (uint16_t)(wl_splitmix64(&rng) & 0x1FF);
        }
        uint64_t q[4]; /* (density 1/2, or 1/4 on odd rounds) */
        for (int i = 0; i < 4; i++) {
            q[i] = wl_splitmix64(&rng);
            if (t & 1) q[i] &= wl_splitmix64(&rng);
        }
        const int gens = 1 << (t % 3);
        uint8_t a[16][16], b[16][16];
        for (int y = 0; y < 16; y++)
            for (int x = 0; x < 16; x++) a[y][x] = (uint8_t)leaf_cell(q, y, x);
        for (int g = 0; g < gens; g++) {
            for (int y = 0; y < 16; y++)
                for (int x = 0; x < 16; x++) {
                    int n = 0;
                    for (int dy = -1; dy <= 1; dy++)
                        for (int dx = -1; dx <= 1; dx++)
                            if ((dy || dx) && y + dy >= 0 && y + dy < 16 && x + dx >= 0 &&
                                x + dx < 16)
                                n += a[y + dy][x + dx];
                    b[y][x] = (uint8_t)((a[y][x] ? h.survive : h.birth) >> n & 1);
                }
            memcpy(a, b, sizeof a);
        }
        uint64_t want = 0;
        for (int y = 0; y < 8; y++)
            for (int x = 0; x < 8; x++) want |= (uint64_t)a[y + 4][x + 4] << (8 * y + x);
        for (int isa = 0; isa < 3; isa++) {
            uint64_t got;
            if (!hl_leaf_step_isa(&h, isa, q[0], q[1], q[2], q[3], gens, &got)) continue;
            ran[isa]++;
            if (got != want) {
                WL_CHECK(0, "leaf step isa %d, B%x/S%x, %d generations: %016llx, want %016llx",
                         isa, h.birth, h.survive, gens, (unsigned long long)got,
                         (unsigned long long)want);
                bad = 1;
            }
        }
    }
    WL_CHECK(ran[0] > 0, "the portable leaf step ran");
    printf("leaf step forms checked: portable %d, AVX2 %d, AVX-512VL %d squares\n", ran[0], ran[1],
           ran[2]);
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--quick") == 0) quick = 1;
    const char *q = getenv("WL_TEST_QUICK");
    if (q && *q && strcmp(q, "0") != 0) quick = 1;
    rng = wl_test_seed();
    if (wl_engine_probe("hashlife") != WL_OK) {
        printf("hashlife not built: %s\n", wl_last_error());
        return wl_test_finish("test_hashlife");
    }
    leaf_isas();
    random_rules();
    methuselahs();
    gun();
    macrocell();
    macrocell_grammar();
    macrocell_native();
    memory_limit();
    parallel();
    batches();
    interruption();
    b0_and_cells();
    render_unaligned();
    render_dense_square();
    render_gun_zooms();
    return wl_test_finish("test_hashlife");
}
