/*
 * test_classic.c - known facts about classic patterns, checked on every engine built.
 *
 * Every fact runs through one helper on `ref` and on the default kernel of every other
 * engine that can run here (plane-only engines such as HashLife take the bounded-grid
 * facts on the plane: the grids are chosen so that nothing reaches their edge, so the
 * plane must agree).  Small facts run on every kernel.  Unavailable engines or kernels
 * are skipped with a printed reason.
 *
 *   R-pentomino   116 cells at generation 1103, on a 560 x 560 bounded grid.  Its six
 *                 gliders are at most 266 cells from the start by then (measured with
 *                 `ref` on an 800 x 800 grid: x -240..260, y -258..266), so none reaches
 *                 the wall (a glider that hits a wall turns into debris and changes the
 *                 count); the test also checks the final bounding box keeps off the edge.
 *   acorn         633 cells at generation 5206.  Its gliders travel ~1250 cells by then,
 *                 so the grid must be 2528 x 2528 (measured, see ACORN_SIZE below):
 *                 6.4M cells x 5206 generations = 3.3e10 cell updates, about 30 s on `ref`
 *                 (~1 Gcell/s) - far too slow for a test.  The acorn therefore runs only
 *                 on engines whose speed, measured on the R-pentomino run just before,
 *                 promises it in under ACORN_BUDGET_S seconds (the CPU engine, which
 *                 test_engines verifies cell by cell against `ref`), and on plane engines
 *                 (HashLife) where it is cheap; otherwise it is skipped with a notice.
 *   diehard       alive at generation 129, empty at 130.
 *   Gosper gun    36 + 5n cells at generation 30n, n = 1..10 (one glider per period).
 *   glider        on a W x H torus it is its start shape moved (k, k) (wrapped) at
 *                 generation 4k, and first returns to the start at 4 lcm(W, H).
 *   blinker       period exactly 2 on odd tori.
 *   HighLife, Seeds, a Hensel rule and a B0 rule: one generation derived by hand.
 *   the files in patterns/ read to the same cells as the coordinates written here.
 *
 * Usage: test_classic [--quick] [-e engine,...]   (WL_TEST_QUICK=1 = --quick: no acorn,
 *        no R-pentomino on ref)
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "internal.h"
#include "wltest.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static int opt_quick;
static const char *opt_engines[16];
static size_t n_opt_engines;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- patterns from coordinates ------------------------------------------------------ */

/* Builds a pattern from rows of text ('o' alive, anything else dead), the top-left
 * character at (x0, y0). */
static wl_pattern *from_rows(const char *const *rows, size_t n, int64_t x0, int64_t y0) {
    wl_pattern *p = wl_pattern_new();
    for (size_t y = 0; p && y < n; y++)
        for (size_t x = 0; rows[y][x]; x++)
            if (rows[y][x] == 'o') wl_pattern_set(p, x0 + (int64_t)x, y0 + (int64_t)y, 1);
    return p;
}

#define ROWS(a) a, sizeof a / sizeof a[0]

static const char *const glider_rows[] = {".o.", "..o", "ooo"};
static const char *const blinker_rows[] = {"ooo"};
static const char *const rpent_rows[] = {".oo", "oo.", ".o."};
static const char *const acorn_rows[] = {".o.....", "...o...", "oo..ooo"};
static const char *const diehard_rows[] = {"......o.", "oo......", ".o...ooo"};
static const char *const gun_rows[] = {
    "........................o...........", "......................o.o...........",
    "............oo......oo............oo", "...........o...o....oo............oo",
    "oo........o.....o...oo..............", "oo........o...o.oo....o.o...........",
    "..........o.....o.......o...........", "...........o...o....................",
    "............oo......................"};

/* Moves a pattern so that its bounding box starts at (0, 0). */
static wl_pattern *normalised(const wl_pattern *p) {
    wl_pattern *q = wl_pattern_new();
    wl_rect r;
    if (!q || !wl_pattern_bounds(p, &r)) return q;
    for (uint64_t y = 0; y < r.h; y++)
        for (uint64_t x = 0; x < r.w; x++)
            if (wl_pattern_get(p, r.x + (int64_t)x, r.y + (int64_t)y))
                wl_pattern_set(q, (int64_t)x, (int64_t)y, 1);
    return q;
}

/* Checks that patterns/<name> reads to the same cells (up to a translation) as `want`. */
static void check_file(const char *name, const wl_pattern *want) {
#ifndef WL_SOURCE_PATTERNS /* set by tests/CMakeLists.txt to the repository's patterns/ */
#define WL_SOURCE_PATTERNS "../patterns"
#endif
    const char *dirs[] = {getenv("WL_PATTERN_DIR"), WL_SOURCE_PATTERNS, "../patterns",
                          "patterns"};
    char path[512];
    wl_pattern *got = NULL;
    wl_status s = WL_ERR_NOT_FOUND;
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0] && s != WL_OK; i++) {
        if (!dirs[i]) continue;
        snprintf(path, sizeof path, "%s/%s", dirs[i], name);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        fclose(f);
        s = wl_pattern_read_file(path, &got);
        if (s) break;
    }
    if (s == WL_ERR_UNSUPPORTED) {
        printf("notice: %s not checked: the pattern reader is not in yet (%s)\n", name,
               wl_last_error());
        return;
    }
    if (s == WL_ERR_NOT_FOUND)
        WL_CHECK(0, "%s not found in $WL_PATTERN_DIR, %s, ../patterns or patterns", name,
                 WL_SOURCE_PATTERNS);
    else
        WL_CHECK(s == WL_OK, "reading %s: %s (%s)", path, wl_status_str(s), wl_last_error());
    if (s) return;
    wl_pattern *a = normalised(got), *b = normalised(want);
    WL_CHECK(wl_pattern_equal_cells(a, b), "%s reads to %llu cells, want %llu, or differs",
             path, (unsigned long long)wl_pattern_population(got),
             (unsigned long long)wl_pattern_population(want));
    wl_rule life;
    wl_rule_life(&life);
    WL_CHECK(wl_rule_equal(wl_pattern_rule(got), &life), "%s: rule is not B3/S23", path);
    wl_pattern_free(a);
    wl_pattern_free(b);
    wl_pattern_free(got);
}

/* ---- targets: engine + kernel ---------------------------------------------------------- */

typedef struct target {
    const char *engine, *kernel;
    unsigned caps;
    int is_default; /* the engine's default kernel */
    double cells_per_s; /* measured on the R-pentomino run, 0 if not measured */
} target;

static target targets[64];
static size_t n_targets;

static int engine_wanted(const char *name) {
    if (!n_opt_engines) return 1;
    for (size_t i = 0; i < n_opt_engines; i++)
        if (strcmp(opt_engines[i], name) == 0) return 1;
    return 0;
}

static void collect_targets(void) {
    for (size_t i = 0; i < wl_engine_count(); i++) {
        const char *name = wl_engine_name(i);
        if (!engine_wanted(name)) continue;
        const wl_engine_ops *e = wl_engine_find(name);
        if (wl_engine_probe(name) != WL_OK) {
            printf("skipped: engine %s: %s\n", name, wl_last_error());
            continue;
        }
        const char *const *ks;
        size_t nk;
        if (wl_engine_kernels(name, &ks, &nk) != WL_OK) continue;
        for (size_t k = 0; k < nk && n_targets < sizeof targets / sizeof targets[0]; k++)
            targets[n_targets++] = (target){name, ks[k], e->caps, k == 0, 0};
    }
}

static int is_plane_only(const target *t) {
    return !(t->caps & (WL_CAP_TORUS | WL_CAP_BOUNDED));
}

/* Creates a universe of target t and loads p.  A bounded-grid request becomes the plane on
 * plane-only engines.  Returns 1 on success, 0 when skipped (reason printed), -1 on a
 * failure (recorded). */
static int start(const target *t, wl_topology topo, uint64_t w, uint64_t h,
                 const wl_rule *rule, const wl_pattern *p, const char *what,
                 wl_universe **u) {
    *u = NULL;
    if (topo == WL_TOPOLOGY_TORUS && !(t->caps & WL_CAP_TORUS)) return 0;
    if (topo == WL_TOPOLOGY_BOUNDED && !(t->caps & WL_CAP_BOUNDED)) {
        if (!(t->caps & WL_CAP_PLANE) || wl_rule_has_b0(rule)) return 0;
        topo = WL_TOPOLOGY_PLANE;
    }
    wl_config cfg;
    wl_config_init(&cfg);
    cfg.engine = t->engine;
    cfg.kernel = t->kernel;
    cfg.topology = topo;
    cfg.width = w;
    cfg.height = h;
    cfg.rule = *rule;
    wl_status s = wl_universe_create(&cfg, u);
    if (s == WL_ERR_UNAVAILABLE ||
        (s == WL_ERR_UNSUPPORTED && (!t->is_default || !(t->caps & WL_CAP_ANY_RULE)))) {
        printf("skipped: %s on %s/%s: %s\n", what, t->engine, t->kernel, wl_last_error());
        return 0;
    }
    WL_CHECK(s == WL_OK, "%s on %s/%s: create: %s", what, t->engine, t->kernel,
             wl_last_error());
    if (s) return -1;
    uint64_t dropped = 0;
    s = wl_universe_load(*u, p, &dropped);
    WL_CHECK(s == WL_OK && dropped == 0, "%s on %s/%s: load: %s (dropped %llu)", what,
             t->engine, t->kernel, wl_last_error(), (unsigned long long)dropped);
    if (s) {
        wl_universe_free(*u);
        *u = NULL;
        return -1;
    }
    return 1;
}

static uint64_t population(wl_universe *u) {
    wl_bigint b;
    uint64_t n = UINT64_MAX;
    if (wl_universe_population(u, &b) == WL_OK) wl_bigint_to_u64(&b, &n);
    return n;
}

static int step(wl_universe *u, uint64_t g, const target *t, const char *what) {
    wl_status s = wl_universe_step(u, g);
    WL_CHECK(s == WL_OK, "%s on %s/%s: step %llu: %s", what, t->engine, t->kernel,
             (unsigned long long)g, wl_last_error());
    return s == WL_OK;
}

/* ---- methuselahs -------------------------------------------------------------------- */

#define RPENT_SIZE 560  /* see the essay: gliders stay within 266 cells of the start */
#define RPENT_GENS 1103
#define RPENT_POP 116
/* Acorn at 5206, measured with `ref` on a 3000 x 3000 bounded grid: live cells in
 * x -1123..1201, y -1247..1249, so a 2528 x 2528 grid (-1264..1263) keeps 14 cells clear. */
#define ACORN_SIZE 2528
#define ACORN_GENS 5206
#define ACORN_POP 633
#define ACORN_BUDGET_S 8.0 /* longest acorn run a test may spend on one engine */

/* Checks that every live cell keeps `margin` cells away from the edge of a size x size
 * grid (pattern coordinates from -size/2). */
static int off_edge(wl_universe *u, uint64_t size, int64_t margin) {
    wl_bigint b[4];
    int empty;
    if (wl_universe_bounds(u, &b[0], &b[1], &b[2], &b[3], &empty) != WL_OK) return 0;
    if (empty) return 1;
    int64_t v[4], lo = -(int64_t)(size / 2), hi = (int64_t)size - 1 - (int64_t)(size / 2);
    for (int i = 0; i < 4; i++)
        if (!wl_bigint_to_i64(&b[i], &v[i])) return 0;
    return v[0] >= lo + margin && v[1] >= lo + margin && v[2] <= hi - margin &&
           v[3] <= hi - margin;
}

static void test_methuselah(target *t, const char *what, const char *const *rows, size_t nr,
                            uint64_t size, uint64_t gens, uint64_t want, int measure) {
    wl_rule life;
    wl_rule_life(&life);
    wl_pattern *p = from_rows(rows, nr, 0, 0);
    wl_universe *u;
    if (start(t, WL_TOPOLOGY_BOUNDED, size, size, &life, p, what, &u) == 1) {
        double t0 = now();
        if (step(u, gens, t, what)) {
            double dt = now() - t0;
            if (measure && dt > 0) t->cells_per_s = (double)size * (double)size * (double)gens / dt;
            uint64_t n = population(u);
            WL_CHECK(n == want, "%s on %s/%s: population %llu at generation %llu, want %llu",
                     what, t->engine, t->kernel, (unsigned long long)n,
                     (unsigned long long)gens, (unsigned long long)want);
            if (!is_plane_only(t))
                WL_CHECK(off_edge(u, size, 2), "%s on %s/%s: cells reached the grid edge: "
                         "the grid is too small for this fact", what, t->engine, t->kernel);
            printf("%s on %s/%s: %llu cells at generation %llu (%.2f s)\n", what, t->engine,
                   t->kernel, (unsigned long long)n, (unsigned long long)gens, dt);
        }
        wl_universe_free(u);
    }
    wl_pattern_free(p);
}

static void test_diehard(const target *t) {
    wl_rule life;
    wl_rule_life(&life);
    wl_pattern *p = from_rows(ROWS(diehard_rows), -4, -1);
    wl_universe *u;
    if (start(t, WL_TOPOLOGY_BOUNDED, 96, 96, &life, p, "diehard", &u) == 1) {
        if (step(u, 129, t, "diehard")) {
            uint64_t n = population(u);
            WL_CHECK(n > 0 && n != UINT64_MAX, "diehard on %s/%s: empty at 129", t->engine,
                     t->kernel);
            if (step(u, 1, t, "diehard"))
                WL_CHECK(population(u) == 0, "diehard on %s/%s: %llu cells at 130", t->engine,
                         t->kernel, (unsigned long long)population(u));
        }
        wl_universe_free(u);
    }
    wl_pattern_free(p);
}

static void test_gun(const target *t) {
    wl_rule life;
    wl_rule_life(&life);
    /* Top-left at (-90, -90) on a 200 x 200 grid (-100..99): by generation 300 the first
     * glider has moved about 75 cells down-right, to about (12, 0), far from the edge. */
    wl_pattern *p = from_rows(ROWS(gun_rows), -90, -90);
    wl_universe *u;
    if (start(t, WL_TOPOLOGY_BOUNDED, 200, 200, &life, p, "Gosper gun", &u) == 1) {
        WL_CHECK(population(u) == 36, "gun: %llu cells at 0", (unsigned long long)population(u));
        for (uint64_t n = 1; n <= 10; n++) {
            if (!step(u, 30, t, "Gosper gun")) break;
            uint64_t pop = population(u);
            WL_CHECK(pop == 36 + 5 * n, "Gosper gun on %s/%s: %llu cells at generation %llu, "
                     "want %llu", t->engine, t->kernel, (unsigned long long)pop,
                     (unsigned long long)(30 * n), (unsigned long long)(36 + 5 * n));
        }
        wl_universe_free(u);
    }
    wl_pattern_free(p);
}

/* ---- tori: glider and blinker ---------------------------------------------------------- */

/* Wraps a coordinate into the range a torus of size n covers, -floor(n/2) .. n-1-floor(n/2). */
static int64_t wrap(int64_t v, int64_t n) { return wl_mod(v + n / 2, n) - n / 2; }

static wl_pattern *shifted_on_torus(const char *const *rows, size_t nr, int64_t dx,
                                    int64_t dy, int64_t w, int64_t h) {
    wl_pattern *src = from_rows(rows, nr, -1, -1), *p = wl_pattern_new();
    wl_rect r;
    if (src && p && wl_pattern_bounds(src, &r))
        for (int64_t y = r.y; y < r.y + (int64_t)r.h; y++)
            for (int64_t x = r.x; x < r.x + (int64_t)r.w; x++)
                if (wl_pattern_get(src, x, y))
                    wl_pattern_set(p, wrap(x + dx, w), wrap(y + dy, h), 1);
    wl_pattern_free(src);
    return p;
}

static uint64_t gcd(uint64_t a, uint64_t b) { return b ? gcd(b, a % b) : a; }

static void test_glider_torus(const target *t, int64_t w, int64_t h) {
    wl_rule life;
    wl_rule_life(&life);
    char what[64];
    snprintf(what, sizeof what, "glider on a %lldx%lld torus", (long long)w, (long long)h);
    /* The glider moves (+1, +1) every 4 generations; it is back where it started when the
     * shift is a multiple of both w and h: after 4 lcm(w, h) generations. */
    uint64_t period = 4 * ((uint64_t)w / gcd((uint64_t)w, (uint64_t)h) * (uint64_t)h);
    wl_pattern *p0 = shifted_on_torus(ROWS(glider_rows), 0, 0, w, h);
    wl_universe *u;
    if (start(t, WL_TOPOLOGY_TORUS, (uint64_t)w, (uint64_t)h, &life, p0, what, &u) == 1) {
        uint64_t first_return = 0, bad = 0;
        for (uint64_t g = 1; g <= period && !bad; g++) {
            if (!step(u, 1, t, what)) break;
            wl_pattern *s = NULL;
            if (wl_universe_store(u, &s) != WL_OK) {
                WL_CHECK(0, "%s: store: %s", what, wl_last_error());
                break;
            }
            if (!first_return && wl_pattern_equal_cells(s, p0)) first_return = g;
            if (g % 4 == 0) {
                int64_t k = (int64_t)(g / 4);
                wl_pattern *e = shifted_on_torus(ROWS(glider_rows), k, k, w, h);
                if (!wl_pattern_equal_cells(s, e)) bad = g;
                wl_pattern_free(e);
            }
            wl_pattern_free(s);
        }
        WL_CHECK(!bad, "%s on %s/%s: not the start shape moved by (k, k) at generation %llu",
                 what, t->engine, t->kernel, (unsigned long long)bad);
        WL_CHECK(bad || first_return == period, "%s on %s/%s: first return at %llu, want %llu",
                 what, t->engine, t->kernel, (unsigned long long)first_return,
                 (unsigned long long)period);
        wl_universe_free(u);
    }
    wl_pattern_free(p0);
}

static void test_blinker_torus(const target *t, int64_t w, int64_t h) {
    static const char *const vertical[] = {"o", "o", "o"};
    wl_rule life;
    wl_rule_life(&life);
    char what[64];
    snprintf(what, sizeof what, "blinker on a %lldx%lld torus", (long long)w, (long long)h);
    wl_pattern *p0 = from_rows(ROWS(blinker_rows), -1, 0);
    wl_pattern *p1 = from_rows(ROWS(vertical), 0, -1);
    wl_universe *u;
    if (start(t, WL_TOPOLOGY_TORUS, (uint64_t)w, (uint64_t)h, &life, p0, what, &u) == 1) {
        for (int g = 1; g <= 4; g++) {
            wl_pattern *s = NULL;
            if (!step(u, 1, t, what) || wl_universe_store(u, &s) != WL_OK) break;
            WL_CHECK(wl_pattern_equal_cells(s, g % 2 ? p1 : p0), "%s on %s/%s: wrong phase at "
                     "generation %d", what, t->engine, t->kernel, g);
            wl_pattern_free(s);
        }
        wl_universe_free(u);
    }
    wl_pattern_free(p0);
    wl_pattern_free(p1);
}

/* ---- hand-derived single generations in other rules --------------------------------- */

/* Steps `before` one generation under `rule_text` on a 9x9 torus and bounded grid (and
 * the plane) and compares with `after`.  Rows are placed with their top-left at (-4, -4)
 * so the 9x9 text is the whole grid. */
static void hand_case(const target *t, const char *rule_text, const char *const *before,
                      const char *const *after, size_t n, uint64_t gens) {
    wl_rule rule;
    if (wl_rule_parse(rule_text, &rule) != WL_OK) {
        static int told;
        if (!told++) printf("notice: rule %s not checked: %s\n", rule_text, wl_last_error());
        return;
    }
    wl_pattern *p = from_rows(before, n, -4, -4), *e = from_rows(after, n, -4, -4);
    for (int topo = 0; topo < 2; topo++) {
        wl_topology tp = topo ? WL_TOPOLOGY_BOUNDED : WL_TOPOLOGY_TORUS;
        char what[96];
        snprintf(what, sizeof what, "%s hand case (%s)", rule_text, wl_topology_name(tp));
        wl_universe *u;
        if (start(t, tp, 9, 9, &rule, p, what, &u) != 1) continue;
        wl_pattern *s = NULL;
        if (step(u, gens, t, what) && wl_universe_store(u, &s) == WL_OK)
            WL_CHECK(wl_pattern_equal_cells(s, e), "%s on %s/%s: %llu cells, want %llu", what,
                     t->engine, t->kernel, (unsigned long long)wl_pattern_population(s),
                     (unsigned long long)wl_pattern_population(e));
        wl_pattern_free(s);
        wl_universe_free(u);
    }
    wl_pattern_free(p);
    wl_pattern_free(e);
}

static void test_hand_cases(const target *t) {
    /* HighLife: two rows of three with a gap row.  The gap's centre has 6 neighbours (born
     * only under B6), the row ends have 1 (die), the row centres have 2 (survive), and the
     * cells above and below the centres have 3 (born): a vertical line of five. */
    static const char *const hl0[] = {".........", ".........", ".........", "...ooo...",
                                      ".........", "...ooo...", ".........", ".........",
                                      "........."};
    static const char *const hl1[] = {".........", ".........", "....o....", "....o....",
                                      "....o....", "....o....", "....o....", ".........",
                                      "........."};
    static const char *const life1[] = {".........", ".........", "....o....", "....o....",
                                        ".........", "....o....", "....o....", ".........",
                                        "........."};
    hand_case(t, "B36/S23", hl0, hl1, 9, 1);
    hand_case(t, "B3/S23", hl0, life1, 9, 1);
    /* Seeds: a domino dies (no survival) and the four cells beside its long sides have
     * exactly two neighbours each: they are born. */
    static const char *const sd0[] = {".........", ".........", ".........", ".........",
                                      "....oo...", ".........", ".........", ".........",
                                      "........."};
    static const char *const sd1[] = {".........", ".........", ".........", "....oo...",
                                      ".........", "....oo...", ".........", ".........",
                                      "........."};
    hand_case(t, "B2/S", sd0, sd1, 9, 1);
    /* Hensel B2-a/S12: beside a domino every two-neighbour cell sees an edge and the
     * corner next to it (the "2a" configuration), which B2-a excludes, and each domino
     * cell has one neighbour (S1): the domino is a still life here, while totalistic
     * B2/S12 would grow it. */
    hand_case(t, "B2-a/S12", sd0, sd0, 9, 3);
    /* Golly's von Neumann neighbourhood (N W E S): no dead cell beside a domino has two
     * orthogonal live neighbours, so under B2/SV it simply dies, where Seeds grows it. */
    static const char *const empty9[] = {".........", ".........", ".........", ".........",
                                         ".........", ".........", ".........", ".........",
                                         "........."};
    hand_case(t, "B2/SV", sd0, empty9, 9, 1);
    /* Golly's hexagonal neighbourhood (NW N W E S SE: the NE and SW cells do not count):
     * of the cells beside the domino only the one above its left cell (S and SE alive) and
     * the one below its right cell (N and NW alive) see two, so B2/SH turns it into a
     * diagonal pair - not the mirror image, which a wrong pair of corners would give. */
    static const char *const hx1[] = {".........", ".........", ".........", "....o....",
                                      ".........", ".....o...", ".........", ".........",
                                      "........."};
    hand_case(t, "B2/SH", sd0, hx1, 9, 1);
}

/* B0 on a 9x9 grid: B0/S turns an empty grid full, then every cell dies (no S): the
 * inside flashes with period 2 (outside a bounded grid stays dead). */
static void test_b0_flash(const target *t) {
    wl_rule rule;
    if (wl_rule_parse("B0/S", &rule) != WL_OK) return;
    wl_pattern *empty = wl_pattern_new(), *full = wl_pattern_new();
    for (int y = -4; y <= 4; y++)
        for (int x = -4; x <= 4; x++) wl_pattern_set(full, x, y, 1);
    for (int topo = 0; topo < 2; topo++) {
        wl_topology tp = topo ? WL_TOPOLOGY_BOUNDED : WL_TOPOLOGY_TORUS;
        wl_universe *u;
        if (start(t, tp, 9, 9, &rule, empty, "B0/S flash", &u) != 1) continue;
        for (int g = 1; g <= 4; g++) {
            wl_pattern *s = NULL;
            if (!step(u, 1, t, "B0/S flash") || wl_universe_store(u, &s) != WL_OK) break;
            WL_CHECK(wl_pattern_equal_cells(s, g % 2 ? full : empty),
                     "B0/S flash on %s/%s %s: wrong at generation %d", t->engine, t->kernel,
                     wl_topology_name(tp), g);
            wl_pattern_free(s);
        }
        wl_universe_free(u);
    }
    wl_pattern_free(empty);
    wl_pattern_free(full);
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) opt_quick = 1;
        else if (strcmp(argv[i], "-e") == 0 && i + 1 < argc) {
            for (char *tok = strtok(argv[++i], ","); tok && n_opt_engines < 16;
                 tok = strtok(NULL, ","))
                opt_engines[n_opt_engines++] = tok;
        } else {
            fprintf(stderr, "usage: test_classic [--quick] [-e engine,...]\n");
            return 2;
        }
    }
    const char *q = getenv("WL_TEST_QUICK");
    if (q && *q && strcmp(q, "0") != 0) opt_quick = 1;

    /* The pattern files carry the same cells as the coordinates used below. */
    struct {
        const char *file;
        const char *const *rows;
        size_t n;
    } files[] = {{"glider.rle", ROWS(glider_rows)},   {"blinker.rle", ROWS(blinker_rows)},
                 {"rpentomino.rle", ROWS(rpent_rows)}, {"acorn.rle", ROWS(acorn_rows)},
                 {"diehard.rle", ROWS(diehard_rows)},  {"gosperglidergun.rle", ROWS(gun_rows)}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        wl_pattern *p = from_rows(files[i].rows, files[i].n, 0, 0);
        check_file(files[i].file, p);
        wl_pattern_free(p);
    }

    collect_targets();
    double fastest = 0;
    target *fast = NULL;
    for (size_t i = 0; i < n_targets; i++) {
        target *t = &targets[i];
        test_diehard(t);
        test_gun(t);
        test_glider_torus(t, 7, 9);
        test_glider_torus(t, 11, 5);
        test_blinker_torus(t, 5, 5);
        test_blinker_torus(t, 9, 7);
        test_hand_cases(t);
        test_b0_flash(t);
        if (!t->is_default) continue;
        /* ref takes ~0.5 s here in Release but ~15 s under Debug + sanitizers: quick runs
         * (the sanitizer pass) leave it to the Release run. */
        if (opt_quick && strcmp(t->engine, "ref") == 0)
            printf("notice: R-pentomino on ref skipped (quick mode)\n");
        else
            test_methuselah(t, "R-pentomino", ROWS(rpent_rows), RPENT_SIZE, RPENT_GENS,
                            RPENT_POP, 1);
        if (!is_plane_only(t) && t->cells_per_s > fastest) fastest = t->cells_per_s, fast = t;
        if (is_plane_only(t) && !opt_quick)
            test_methuselah(t, "acorn", ROWS(acorn_rows), ACORN_SIZE, ACORN_GENS, ACORN_POP, 0);
    }
    /* The acorn on the fastest grid engine, if it can be done within the budget. */
    double cost = (double)ACORN_SIZE * ACORN_SIZE * ACORN_GENS;
    if (opt_quick) {
        printf("notice: acorn skipped (quick mode)\n");
    } else if (fast && cost / fastest <= ACORN_BUDGET_S) {
        test_methuselah(fast, "acorn", ROWS(acorn_rows), ACORN_SIZE, ACORN_GENS, ACORN_POP, 0);
    } else {
        printf("notice: acorn skipped on grid engines: the fastest (%s, %.2f Gcell/s) would "
               "need %.0f s for %dx%d x %d generations\n", fast ? fast->engine : "none",
               fastest / 1e9, fast ? cost / fastest : 0.0, ACORN_SIZE, ACORN_SIZE, ACORN_GENS);
    }
    return wl_test_finish("test_classic");
}
