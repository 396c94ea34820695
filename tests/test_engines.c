/*
 * test_engines.c - every engine and kernel against the reference engine, cell by cell.
 *
 * What it checks.  For every registered engine (except "ref" itself) x every kernel x a
 * set of rules (Life, HighLife, Seeds, Day & Night, Hensel rules, a random MAP rule, B0
 * rules) x grid sizes (1x1 up to a few hundred cells, odd and tiny ones included, sizes
 * that are not multiples of any tile) x generation counts that are not multiples of any
 * temporal block x both grid topologies, a fresh random soup is evolved by the engine and
 * by `ref`, and the two results are compared cell by cell; the engine's population,
 * bounds and a few get_cell answers must agree with the reference result too.  Half of
 * the runs step in one call, the other half in several chunks (e.g. 5 + 12 for 17), so
 * that an engine that keeps state between calls (temporal blocking, halos, device
 * buffers) is checked too, and a few runs toggle cells with wl_universe_set_cell between
 * two steps (stale caches).
 * Plane-only engines (HashLife) are compared with `ref` on a bounded grid whose margin
 * around the soup is larger than the generation count, so that nothing reaches its edge.
 *
 * `ref` itself is checked first against a naive oracle written here (one table lookup per
 * cell with explicitly wrapped or clipped coordinates), on the small and odd sizes where
 * a torus wraps onto itself (1x1, 1xN, 2xN).
 *
 * The reference result of each (rule, topology, size, generations) case is computed once
 * and shared by every engine and kernel, so the run time is that of the engines under
 * test.  Engines or kernels that cannot run here (WL_ERR_UNAVAILABLE: no device, no
 * AVX-512, a kernel that does not take the rule) are counted as skipped, with the reason
 * printed once, never as passed.
 *
 * Usage: test_engines [--quick] [--cpu | --gpu] [--perf] [-e engine[,engine]]
 *                     [-k kernel[,...]] [-r rule[,...]]
 *                     (options repeatable; WL_TEST_QUICK=1 = --quick)
 *   --cpu   every engine except the device engines (cuda, opencl)
 *   --gpu   only the device engines; prints "skipped: no device" and passes if none is usable
 *   --perf  instead of testing, prints each engine/kernel's speed per rule on a torus
 *   -r      matches a rule's label (life, highlife, seeds, daynight, hensel1, hensel2,
 *           map, b0, map-b0) or its text
 */
#define _POSIX_C_SOURCE 200809L /* strdup, clock_gettime */
#include "internal.h"
#include "wltest.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- command line ------------------------------------------------------------------ */

#define MAX_FILTERS 32

typedef struct filter {
    const char *items[MAX_FILTERS];
    size_t n;
} filter;

static void filter_add(filter *f, char *list) {
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ","))
        if (f->n < MAX_FILTERS) f->items[f->n++] = tok;
}

static int filter_match(const filter *f, const char *a, const char *b) {
    if (!f->n) return 1;
    for (size_t i = 0; i < f->n; i++)
        if ((a && strcmp(f->items[i], a) == 0) || (b && strcmp(f->items[i], b) == 0)) return 1;
    return 0;
}

static filter f_engine, f_kernel, f_rule;
static int opt_quick, opt_cpu, opt_gpu, opt_perf;

static int is_device_engine(const char *name) {
    return strcmp(name, "cuda") == 0 || strcmp(name, "opencl") == 0;
}

/* ---- rules -------------------------------------------------------------------------- */

typedef struct rule_case {
    const char *label;
    const char *text; /* NULL for generated MAP rules */
    wl_rule rule;
    int usable;
} rule_case;

static rule_case rules[] = {
    {"life", "B3/S23", {.family = 0}, 0},
    {"highlife", "B36/S23", {.family = 0}, 0},
    {"seeds", "B2/S", {.family = 0}, 0},
    {"daynight", "B3678/S34678", {.family = 0}, 0},
    {"hensel1", "B2-a/S12", {.family = 0}, 0},
    {"hensel2", "B3-cnqy/S23-a4ityz", {.family = 0}, 0},
    {"map", NULL, {.family = 0}, 0},    /* random table without B0 */
    {"b0", "B0123478/S01234678", {.family = 0}, 0},
    {"map-b0", NULL, {.family = 0}, 0}, /* random table with B0 */
};
#define N_RULES (sizeof rules / sizeof rules[0])

static void random_rule(wl_rule *r, uint64_t *st, int b0) {
    for (int i = 0; i < 8; i++) r->table[i] = wl_splitmix64(st);
    if (b0) r->table[0] |= 1u;
    else r->table[0] &= ~(uint64_t)1;
}

static void setup_rules(uint64_t seed) {
    uint64_t st = seed ^ 0x5EED0F5EEDull;
    for (size_t i = 0; i < N_RULES; i++) {
        rule_case *rc = &rules[i];
        if (!rc->text) {
            random_rule(&rc->rule, &st, strcmp(rc->label, "map-b0") == 0);
            rc->usable = 1;
            continue;
        }
        wl_status s = wl_rule_parse(rc->text, &rc->rule);
        if (s) {
            printf("notice: rule %s (%s) skipped: wl_rule_parse does not accept it yet (%s)\n",
                   rc->label, rc->text, wl_last_error());
            continue;
        }
        rc->usable = 1;
    }
}

static void rule_desc(const rule_case *rc, char *buf, size_t len) {
    if (rc->text) {
        snprintf(buf, len, "%s", rc->text);
        return;
    }
    if (wl_rule_format(&rc->rule, buf, len) == WL_OK && strncmp(buf, "MAP", 3) == 0) return;
    int n = snprintf(buf, len, "table");
    for (int i = 0; i < 8 && n > 0 && (size_t)n < len; i++)
        n += snprintf(buf + n, len - (size_t)n, ":%016llx", (unsigned long long)rc->rule.table[i]);
}

/* ---- sizes and generation counts ------------------------------------------------------ */

typedef struct size2 {
    uint64_t w, h;
} size2;

static const size2 sizes_full[] = {{1, 1},   {1, 7},   {7, 1},    {2, 2},   {2, 5},
                                   {5, 2},   {3, 3},   {31, 17},  {63, 65}, {64, 64},
                                   {65, 33}, {100, 37}, {130, 70}, {257, 129},
                                   {300, 211}};
static const size2 sizes_quick[] = {{1, 1},  {1, 7},   {7, 1},  {2, 5},
                                    {3, 3},  {31, 17}, {64, 64}, {65, 33}};
/* Device engines also get sizes above a thread block or a work group, and tori 1024, 4096 and
 * 8192 cells wide (cuda's res kernel holds a full-width band per block: bands of uneven
 * height, several rounds, one band alone). */
static const size2 sizes_gpu[] = {{1, 1},   {1, 7},    {7, 1},     {3, 3},    {31, 17},
                                  {64, 64}, {65, 33},  {130, 70},  {257, 129}, {1000, 515},
                                  {1031, 1029}, {2048, 1025}, {4099, 67},
                                  {1024, 77},   {4096, 131},  {8192, 41}};
/* Plane engines: the soup's size (the ref grid adds the margin). */
static const size2 sizes_plane[] = {{1, 1}, {3, 3}, {7, 1}, {31, 17}, {64, 64}, {65, 33}, {150, 131},
                                    {100, 37}};

static const uint64_t gens_list[] = {1, 2, 3, 7, 16, 17, 33, 100};
#define N_GENS (sizeof gens_list / sizeof gens_list[0])

/* ---- statistics ------------------------------------------------------------------------ */

#define MAX_EK 64

typedef struct ek_stat {
    const char *engine, *kernel;
    unsigned long passed, failed, skipped;
    double seconds;
} ek_stat;

static ek_stat stats[MAX_EK];
static size_t n_stats;

static ek_stat *stat_for(const char *engine, const char *kernel) {
    for (size_t i = 0; i < n_stats; i++)
        if (strcmp(stats[i].engine, engine) == 0 && strcmp(stats[i].kernel, kernel) == 0)
            return &stats[i];
    if (n_stats == MAX_EK) return &stats[MAX_EK - 1];
    stats[n_stats].engine = engine;
    stats[n_stats].kernel = kernel;
    return &stats[n_stats++];
}

/* Skip reasons are printed once per engine/kernel/rule/reason. */
#define MAX_NOTES 256
static char *notes[MAX_NOTES];
static size_t n_notes;

static void note_skip(const char *engine, const char *kernel, const char *rule,
                      const char *why) {
    char buf[768];
    snprintf(buf, sizeof buf, "skipped: %s/%s rule %s: %s", engine, kernel, rule, why);
    for (size_t i = 0; i < n_notes; i++)
        if (strcmp(notes[i], buf) == 0) return;
    if (n_notes < MAX_NOTES) notes[n_notes++] = strdup(buf);
    printf("%s\n", buf);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- helpers ---------------------------------------------------------------------------- */

static uint64_t mix(uint64_t a, uint64_t b) {
    uint64_t st = a ^ (b * 0x9E3779B97F4A7C15ull);
    return wl_splitmix64(&st);
}


/* A soup filling the rectangle of w x h cells centred as the placement rule centres a grid,
 * its density from 5% to 80% (sparse soups die or sprout, dense ones crowd). */
static wl_pattern *make_soup(uint64_t w, uint64_t h, uint64_t seed) {
    return wl_test_soup(w, h, 0.05 + 0.75 * (double)(mix(seed, 1) >> 11) / 9007199254740992.0,
                        seed);
}

/* Finds the first cell (row-major) where two patterns differ inside their joint bounds. */
static int first_diff(const wl_pattern *a, const wl_pattern *b, int64_t *x, int64_t *y,
                      uint64_t *count) {
    wl_rect ra, rb;
    int ea = !wl_pattern_bounds(a, &ra), eb = !wl_pattern_bounds(b, &rb);
    *count = 0;
    if (ea && eb) return 0;
    if (ea) ra = rb;
    if (eb) rb = ra;
    int64_t x0 = ra.x < rb.x ? ra.x : rb.x, y0 = ra.y < rb.y ? ra.y : rb.y;
    int64_t x1 = ra.x + (int64_t)ra.w > rb.x + (int64_t)rb.w ? ra.x + (int64_t)ra.w
                                                              : rb.x + (int64_t)rb.w;
    int64_t y1 = ra.y + (int64_t)ra.h > rb.y + (int64_t)rb.h ? ra.y + (int64_t)ra.h
                                                              : rb.y + (int64_t)rb.h;
    int found = 0;
    for (int64_t yy = y0; yy < y1; yy++)
        for (int64_t xx = x0; xx < x1; xx++)
            if (wl_pattern_get(a, xx, yy) != wl_pattern_get(b, xx, yy)) {
                if (!found) *x = xx, *y = yy;
                found = 1;
                ++*count;
            }
    return found;
}

/* Splits g generations into 1 to 3 chunks chosen from the seed; returns the count. */
static int chunk_plan(uint64_t g, uint64_t seed, uint64_t chunks[3]) {
    if (g < 2) {
        chunks[0] = g;
        return 1;
    }
    uint64_t a = 1 + mix(seed, 2) % (g - 1); /* 1 .. g-1 */
    uint64_t rest = g - a;
    if (rest >= 2 && (mix(seed, 3) & 1)) {
        uint64_t b = 1 + mix(seed, 4) % (rest - 1);
        chunks[0] = a, chunks[1] = b, chunks[2] = rest - b;
        return 3;
    }
    chunks[0] = a, chunks[1] = rest;
    return 2;
}

/* Runs ref on the soup for g generations and stores the result (NULL on failure). */
static wl_pattern *ref_result(wl_topology topo, uint64_t w, uint64_t h, const wl_rule *rule,
                              const wl_pattern *soup, uint64_t g) {
    wl_universe *u;
    wl_pattern *out = NULL;
    wl_status s = wl_test_make("ref", NULL, topo, w, h, rule, 0, &u);
    WL_CHECK(s == WL_OK, "ref create %llux%llu: %s", (unsigned long long)w,
             (unsigned long long)h, wl_last_error());
    if (s) return NULL;
    WL_CHECK_OK(s = wl_universe_load(u, soup, NULL));
    if (!s) WL_CHECK_OK(s = wl_universe_step(u, g));
    if (!s) WL_CHECK_OK(wl_universe_store(u, &out));
    wl_universe_free(u);
    return out;
}

/* ---- ref against a naive oracle ------------------------------------------------------- */

/* One generation by definition: each cell's index from explicitly wrapped (torus) or
 * clipped (bounded) neighbour coordinates. */
static void naive_step(const uint8_t *cur, uint8_t *next, int64_t w, int64_t h, int torus,
                       const wl_rule *rule) {
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++) {
            unsigned idx = 0;
            for (int64_t dy = -1; dy <= 1; dy++)
                for (int64_t dx = -1; dx <= 1; dx++) {
                    int64_t nx = x + dx, ny = y + dy;
                    int alive;
                    if (torus) alive = cur[wl_mod(ny, h) * w + wl_mod(nx, w)];
                    else alive = nx >= 0 && ny >= 0 && nx < w && ny < h ? cur[ny * w + nx] : 0;
                    idx = idx << 1 | (unsigned)alive; /* NW first: bit 8 down to SE: bit 0 */
                }
            next[y * w + x] = (uint8_t)wl_rule_next(rule, idx);
        }
}

static void test_ref_vs_naive(uint64_t seed) {
    static const size2 sz[] = {{1, 1}, {1, 2}, {2, 1}, {2, 2}, {1, 5}, {6, 1}, {2, 3},
                               {3, 2}, {3, 3}, {4, 7}, {31, 17}, {65, 33}};
    static const uint64_t gens[] = {1, 2, 3, 7, 17};
    unsigned long cases = 0, bad = 0;
    for (size_t ri = 0; ri < N_RULES; ri++) {
        const rule_case *rc = &rules[ri];
        if (!rc->usable || !filter_match(&f_rule, rc->label, rc->text)) continue;
        for (int t = 0; t < 2; t++) {
            wl_topology topo = t ? WL_TOPOLOGY_BOUNDED : WL_TOPOLOGY_TORUS;
            for (size_t si = 0; si < sizeof sz / sizeof sz[0]; si++) {
                int64_t w = (int64_t)sz[si].w, h = (int64_t)sz[si].h;
                uint64_t g = gens[(si + ri + (size_t)t) % (sizeof gens / sizeof gens[0])];
                uint64_t cs = mix(mix(seed, ri * 131 + (uint64_t)t), si);
                wl_pattern *soup = make_soup((uint64_t)w, (uint64_t)h, cs);
                uint8_t *a = calloc((size_t)(w * h), 1), *b = calloc((size_t)(w * h), 1);
                if (!soup || !a || !b) {
                    WL_CHECK(0, "out of memory");
                    return;
                }
                for (int64_t y = 0; y < h; y++)
                    for (int64_t x = 0; x < w; x++)
                        a[y * w + x] = (uint8_t)wl_pattern_get(soup, x - w / 2, y - h / 2);
                for (uint64_t i = 0; i < g; i++) {
                    naive_step(a, b, w, h, topo == WL_TOPOLOGY_TORUS, &rc->rule);
                    uint8_t *tmp = a;
                    a = b;
                    b = tmp;
                }
                wl_pattern *got = ref_result(topo, (uint64_t)w, (uint64_t)h, &rc->rule, soup, g);
                int ok = got != NULL;
                int64_t fx = 0, fy = 0;
                for (int64_t y = 0; ok && y < h; y++)
                    for (int64_t x = 0; ok && x < w; x++)
                        if (wl_pattern_get(got, x - w / 2, y - h / 2) != a[y * w + x])
                            ok = 0, fx = x - w / 2, fy = y - h / 2;
                WL_CHECK(ok, "ref vs naive: rule %s %s %lldx%lld gens %llu: first difference "
                         "at (%lld,%lld)", rc->label, wl_topology_name(topo), (long long)w,
                         (long long)h, (unsigned long long)g, (long long)fx, (long long)fy);
                cases++;
                bad += !ok;
                wl_pattern_free(got);
                wl_pattern_free(soup);
                free(a);
                free(b);
            }
        }
    }
    printf("ref vs naive oracle: %lu cases, %lu passed, %lu failed\n", cases, cases - bad, bad);
}

/* ---- one engine run against a reference result ------------------------------------------ */

typedef struct run_case {
    const rule_case *rc;
    wl_topology topo;   /* the engine's topology */
    uint64_t w, h;      /* the engine's grid size (soup size on the plane) */
    uint64_t gens;
    uint64_t seed;
    const wl_pattern *soup;
    const wl_pattern *expect;
} run_case;

/* Is a creation failure a legitimate skip?  UNAVAILABLE always (no device, no CPU feature,
 * a kernel that does not take this rule); UNSUPPORTED only for engines that do not claim
 * every rule, or for a non-default kernel. */
static int is_skip(const wl_engine_ops *e, const char *kernel, wl_status s) {
    if (s == WL_ERR_UNAVAILABLE) return 1;
    if (s == WL_ERR_UNSUPPORTED) {
        const char *const *ks;
        size_t nk;
        int is_default = wl_engine_kernels(e->name, &ks, &nk) == WL_OK && nk &&
                         strcmp(ks[0], kernel) == 0;
        return !(e->caps & WL_CAP_ANY_RULE) || !is_default;
    }
    return 0;
}

/* Checks the engine's population, bounds and get_cell (its own slots or the universe's
 * defaults) against the reference result; returns 1 if they agree. */
static int check_queries(wl_universe *u, const run_case *c, const char *where) {
    int ok = 1;
    wl_bigint pop;
    uint64_t n = UINT64_MAX;
    wl_status s = wl_universe_population(u, &pop);
    if (s == WL_OK) wl_bigint_to_u64(&pop, &n);
    ok &= s == WL_OK && n == wl_pattern_population(c->expect);
    WL_CHECK(ok, "%s: population %llu, ref %llu (%s)", where, (unsigned long long)n,
             (unsigned long long)wl_pattern_population(c->expect), wl_status_str(s));
    wl_bigint b[4];
    int empty = -1;
    wl_rect r;
    int want_empty = !wl_pattern_bounds(c->expect, &r);
    s = wl_universe_bounds(u, &b[0], &b[1], &b[2], &b[3], &empty);
    int64_t v[4] = {0, 0, 0, 0};
    int bok = s == WL_OK && empty == want_empty;
    for (int i = 0; bok && i < 4; i++) bok = wl_bigint_to_i64(&b[i], &v[i]);
    if (bok && !want_empty)
        bok = v[0] == r.x && v[1] == r.y && v[2] == r.x + (int64_t)r.w - 1 &&
              v[3] == r.y + (int64_t)r.h - 1;
    WL_CHECK(bok, "%s: bounds (%lld,%lld)-(%lld,%lld) empty %d, ref (%lld,%lld) %llux%llu "
             "empty %d (%s)", where, (long long)v[0], (long long)v[1], (long long)v[2],
             (long long)v[3], empty, (long long)r.x, (long long)r.y, (unsigned long long)r.w,
             (unsigned long long)r.h, want_empty, wl_status_str(s));
    ok &= bok;
    /* A few cells: corners of the reference bounds and seeded random ones inside.  Engines
     * without a get_cell slot store the whole grid per call: only on small grids. */
    if (c->w * c->h > 70000) return ok;
    uint64_t st = c->seed;
    int64_t bx = want_empty ? 0 : r.x, by = want_empty ? 0 : r.y;
    int64_t bw = want_empty ? 1 : (int64_t)r.w, bh = want_empty ? 1 : (int64_t)r.h;
    for (int i = 0; i < 4; i++) {
        int64_t rx = (int64_t)(wl_splitmix64(&st) % (uint64_t)bw);
        int64_t ry = (int64_t)(wl_splitmix64(&st) % (uint64_t)bh);
        int64_t x = bx + (i == 0 ? 0 : i == 1 ? bw - 1 : rx);
        int64_t y = by + (i == 0 ? 0 : i == 1 ? bh - 1 : ry);
        int alive = -1;
        s = wl_universe_get_cell(u, x, y, &alive);
        int want = wl_pattern_get(c->expect, x, y);
        WL_CHECK(s == WL_OK && alive == want, "%s: get_cell(%lld,%lld) = %d, ref %d (%s)",
                 where, (long long)x, (long long)y, alive, want, wl_status_str(s));
        ok &= s == WL_OK && alive == want;
    }
    return ok;
}

/* After a device error (a CUDA illegal address poisons the whole context) every later
 * case of the process may fail too: say so once, and how to isolate the first culprit. */
static void device_error_note(const char *engine, const char *kernel) {
    static int told;
    if (told++) return;
    printf("note: device error in %s/%s; later failures in this run may be its consequences "
           "(rerun with -e %s -k %s, or exclude that kernel with -k)\n", engine, kernel, engine,
           kernel);
}

static void run_engine(const wl_engine_ops *e, const char *kernel, const run_case *c,
                       int chunked) {
    ek_stat *st = stat_for(e->name, kernel);
    char rdesc[WL_RULE_TEXT_MAX + 160];
    rule_desc(c->rc, rdesc, sizeof rdesc);
    double t0 = now();
    wl_universe *u = NULL;
    /* Thread counts 0 (all cores), 1 and 3, so that a multi-threaded engine's row split
     * is tested with an odd count even on a 2-core machine. */
    static const int thread_choice[3] = {0, 1, 3};
    int threads = thread_choice[mix(c->seed, 5) % 3];
    wl_status s =
        wl_test_make(e->name, kernel, c->topo, c->w, c->h, &c->rc->rule, threads, &u);
    if (s && is_skip(e, kernel, s)) {
        note_skip(e->name, kernel, c->rc->label, wl_last_error());
        st->skipped++;
        return;
    }
    char where[1024];
    uint64_t chunks[3] = {c->gens, 0, 0};
    int nch = chunked ? chunk_plan(c->gens, c->seed, chunks) : 1;
    snprintf(where, sizeof where,
             "engine %s kernel %s rule %s (%s) %s %llux%llu gens %llu steps %llu+%llu+%llu "
             "threads %d seed %llu (ref population %llu)", e->name, kernel, c->rc->label,
             rdesc, wl_topology_name(c->topo),
             (unsigned long long)c->w, (unsigned long long)c->h, (unsigned long long)c->gens,
             (unsigned long long)chunks[0], (unsigned long long)chunks[1],
             (unsigned long long)chunks[2], threads, (unsigned long long)c->seed,
             (unsigned long long)wl_pattern_population(c->expect));
    int ok = s == WL_OK;
    WL_CHECK(ok, "%s: create -> %s (%s)", where, wl_status_str(s), wl_last_error());
    if (ok) {
        s = wl_universe_load(u, c->soup, NULL);
        WL_CHECK(s == WL_OK, "%s: load -> %s (%s)", where, wl_status_str(s), wl_last_error());
        ok = s == WL_OK;
    }
    for (int i = 0; ok && i < nch; i++) {
        s = wl_universe_step(u, chunks[i]);
        WL_CHECK(s == WL_OK, "%s: step %llu -> %s (%s)", where, (unsigned long long)chunks[i],
                 wl_status_str(s), wl_last_error());
        ok = s == WL_OK;
    }
    if (ok) {
        wl_bigint g, want;
        wl_universe_generation(u, &g);
        wl_bigint_from_u64(&want, c->gens);
        ok = wl_bigint_cmp(&g, &want) == 0;
        WL_CHECK(ok, "%s: generation counter wrong", where);
    }
    wl_pattern *got = NULL;
    if (ok) {
        s = wl_universe_store(u, &got);
        WL_CHECK(s == WL_OK, "%s: store -> %s (%s)", where, wl_status_str(s), wl_last_error());
        ok = s == WL_OK;
    }
    if (ok) {
        ok = wl_pattern_equal_cells(got, c->expect);
        if (!ok) {
            int64_t x = 0, y = 0;
            uint64_t n = 0;
            first_diff(got, c->expect, &x, &y, &n);
            WL_CHECK(0, "%s: %llu cells differ from ref (population %llu, ref %llu); first "
                     "at (%lld,%lld): engine %d, ref %d", where, (unsigned long long)n,
                     (unsigned long long)wl_pattern_population(got),
                     (unsigned long long)wl_pattern_population(c->expect), (long long)x,
                     (long long)y, wl_pattern_get(got, x, y), wl_pattern_get(c->expect, x, y));
        } else {
            WL_CHECK(1, "match");
        }
    }
    if (ok) ok = check_queries(u, c, where);
    if (s == WL_ERR_DEVICE) device_error_note(e->name, kernel);
    wl_pattern_free(got);
    wl_universe_free(u);
    if (ok) st->passed++;
    else st->failed++;
    st->seconds += now() - t0;
}

/* ---- the engine list ------------------------------------------------------------------- */

#define MAX_ENGINES 16

typedef struct engine_sel {
    const wl_engine_ops *ops;
    const char *kernels[MAX_EK];
    size_t n_kernels;
} engine_sel;

static size_t select_engines(engine_sel *sel) {
    size_t n = 0;
    for (size_t i = 0; i < wl_engine_count() && n < MAX_ENGINES; i++) {
        const char *name = wl_engine_name(i);
        if (strcmp(name, "ref") == 0 && !opt_perf) continue; /* the oracle itself */
        if (!filter_match(&f_engine, name, NULL)) continue;
        if (opt_gpu && !is_device_engine(name)) continue;
        if (opt_cpu && is_device_engine(name)) continue;
        const wl_engine_ops *e = wl_engine_find(name);
        const char *const *ks;
        size_t nk;
        if (wl_engine_kernels(name, &ks, &nk) != WL_OK) continue;
        wl_status s = wl_engine_probe(name);
        if (s) {
            for (size_t k = 0; k < nk; k++)
                if (filter_match(&f_kernel, ks[k], NULL)) {
                    note_skip(name, ks[k], "*", wl_last_error());
                    stat_for(name, ks[k])->skipped++;
                }
            continue;
        }
        sel[n].ops = e;
        sel[n].n_kernels = 0;
        for (size_t k = 0; k < nk && sel[n].n_kernels < MAX_EK; k++)
            if (filter_match(&f_kernel, ks[k], NULL)) sel[n].kernels[sel[n].n_kernels++] = ks[k];
        if (sel[n].n_kernels) n++;
    }
    return n;
}

/* Grid engines: every rule x topology x size x (two) generation counts. */
static void test_grid_engines(const engine_sel *sel, size_t n_sel, uint64_t seed) {
    int any = 0;
    for (size_t i = 0; i < n_sel; i++)
        if (sel[i].ops->caps & (WL_CAP_TORUS | WL_CAP_BOUNDED)) any = 1;
    if (!any) return;
    const size2 *sizes = opt_gpu ? sizes_gpu : opt_quick ? sizes_quick : sizes_full;
    size_t n_sizes = opt_gpu ? sizeof sizes_gpu / sizeof sizes_gpu[0]
                   : opt_quick ? sizeof sizes_quick / sizeof sizes_quick[0]
                               : sizeof sizes_full / sizeof sizes_full[0];
    size_t per_size = opt_quick ? 1 : 2; /* generation counts per size */
    unsigned long run = 0;
    for (size_t ri = 0; ri < N_RULES; ri++) {
        const rule_case *rc = &rules[ri];
        if (!rc->usable || !filter_match(&f_rule, rc->label, rc->text)) continue;
        for (int t = 0; t < 2; t++) {
            wl_topology topo = t ? WL_TOPOLOGY_BOUNDED : WL_TOPOLOGY_TORUS;
            unsigned cap = t ? WL_CAP_BOUNDED : WL_CAP_TORUS;
            for (size_t si = 0; si < n_sizes; si++) {
                for (size_t gi = 0; gi < per_size; gi++) {
                    /* Rotate through the generation counts so every count meets every
                     * rule and many sizes. */
                    uint64_t g = gens_list[(si * per_size + gi + ri + (size_t)t * 3) % N_GENS];
                    /* Large grids keep to at most 33 generations (the ref run dominates). */
                    if (sizes[si].w * sizes[si].h > (opt_gpu ? 1000000u : 50000u) && g > 33)
                        g = 33;
                    uint64_t cs = mix(mix(mix(seed, ri), (uint64_t)t), si * 16 + gi);
                    wl_pattern *soup = make_soup(sizes[si].w, sizes[si].h, cs);
                    WL_CHECK(soup != NULL, "soup: %s", wl_last_error());
                    if (!soup) continue;
                    wl_pattern *expect =
                        ref_result(topo, sizes[si].w, sizes[si].h, &rc->rule, soup, g);
                    if (expect) {
                        run_case c = {rc, topo, sizes[si].w, sizes[si].h, g, cs, soup, expect};
                        for (size_t ei = 0; ei < n_sel; ei++) {
                            if (!(sel[ei].ops->caps & cap)) continue;
                            for (size_t k = 0; k < sel[ei].n_kernels; k++)
                                run_engine(sel[ei].ops, sel[ei].kernels[k], &c,
                                           (int)((run + k) & 1));
                        }
                        run++;
                    }
                    wl_pattern_free(expect);
                    wl_pattern_free(soup);
                }
            }
        }
    }
}

/* Edits between steps: step a little, toggle a few cells with wl_universe_set_cell (the
 * engine's own slot, or the universe's default through store and load), step again, and
 * compare with ref doing the same.  Catches engines whose caches (halos, temporal blocks,
 * device buffers) go stale when cells change between steps. */
static void run_edit_case(const engine_sel *es, const char *kernel, const rule_case *rc,
                          wl_topology topo, uint64_t w, uint64_t h, uint64_t cs) {
    ek_stat *st = stat_for(es->ops->name, kernel);
    uint64_t a = 1 + mix(cs, 7) % 9, b = 1 + mix(cs, 8) % 17;
    int64_t xs[3], ys[3];
    for (int i = 0; i < 3; i++) {
        xs[i] = (int64_t)(mix(cs, 10 + (uint64_t)i) % w) - (int64_t)(w / 2);
        ys[i] = (int64_t)(mix(cs, 20 + (uint64_t)i) % h) - (int64_t)(h / 2);
    }
    wl_pattern *soup = make_soup(w, h, cs);
    wl_universe *u[2] = {NULL, NULL};
    wl_pattern *out[2] = {NULL, NULL};
    double t0 = now();
    int ok = soup != NULL;
    for (int k = 0; ok && k < 2; k++) {
        const char *en = k ? es->ops->name : "ref", *kn = k ? kernel : NULL;
        wl_status s = wl_test_make(en, kn, topo, w, h, &rc->rule, 0, &u[k]);
        if (s && k && is_skip(es->ops, kernel, s)) {
            note_skip(en, kernel, rc->label, wl_last_error());
            st->skipped++;
            ok = -1;
            break;
        }
        if (!s) s = wl_universe_load(u[k], soup, NULL);
        if (!s) s = wl_universe_step(u[k], a);
        for (int i = 0; i < 3 && !s; i++) {
            int alive = -1;
            s = wl_universe_get_cell(u[k], xs[i], ys[i], &alive);
            if (!s) s = wl_universe_set_cell(u[k], xs[i], ys[i], !alive);
            int now_alive = -1;
            if (!s) s = wl_universe_get_cell(u[k], xs[i], ys[i], &now_alive);
            if (!s && now_alive != !alive) {
                WL_CHECK(0, "edit: %s/%s set_cell(%lld,%lld) did not toggle", en,
                         kn ? kn : "default", (long long)xs[i], (long long)ys[i]);
                ok = 0;
            }
        }
        if (!s) s = wl_universe_step(u[k], b);
        if (!s) s = wl_universe_store(u[k], &out[k]);
        WL_CHECK(s == WL_OK, "edit: %s/%s %s rule %s %llux%llu: %s", en, kn ? kn : "default",
                 wl_topology_name(topo), rc->label, (unsigned long long)w,
                 (unsigned long long)h, wl_last_error());
        if (s) ok = 0;
    }
    if (ok == 1) {
        ok = wl_pattern_equal_cells(out[0], out[1]);
        int64_t x = 0, y = 0;
        uint64_t n = 0;
        if (!ok) first_diff(out[1], out[0], &x, &y, &n);
        WL_CHECK(ok, "edit: engine %s kernel %s rule %s %s %llux%llu: step %llu, toggle "
                 "(%lld,%lld) (%lld,%lld) (%lld,%lld), step %llu: %llu cells differ from ref, "
                 "first at (%lld,%lld)", es->ops->name, kernel, rc->label,
                 wl_topology_name(topo), (unsigned long long)w, (unsigned long long)h,
                 (unsigned long long)a, (long long)xs[0], (long long)ys[0], (long long)xs[1],
                 (long long)ys[1], (long long)xs[2], (long long)ys[2], (unsigned long long)b,
                 (unsigned long long)n, (long long)x, (long long)y);
    }
    if (ok == 1) st->passed++;
    else if (ok == 0) st->failed++;
    st->seconds += now() - t0;
    for (int k = 0; k < 2; k++) {
        wl_pattern_free(out[k]);
        wl_universe_free(u[k]);
    }
    wl_pattern_free(soup);
}

static void test_edits(const engine_sel *sel, size_t n_sel, uint64_t seed) {
    static const size2 sz[] = {{31, 17}, {65, 33}, {130, 70}};
    size_t n_sz = opt_quick ? 1 : sizeof sz / sizeof sz[0];
    for (size_t ri = 0; ri < N_RULES; ri++) {
        const rule_case *rc = &rules[ri];
        /* Life and a random MAP rule: the two code paths of most engines. */
        if (strcmp(rc->label, "life") != 0 && strcmp(rc->label, "map") != 0) continue;
        if (!rc->usable || !filter_match(&f_rule, rc->label, rc->text)) continue;
        for (int t = 0; t < 2; t++) {
            wl_topology topo = t ? WL_TOPOLOGY_BOUNDED : WL_TOPOLOGY_TORUS;
            unsigned cap = t ? WL_CAP_BOUNDED : WL_CAP_TORUS;
            for (size_t si = 0; si < n_sz; si++) {
                uint64_t cs = mix(mix(mix(seed, ri + 2000), (uint64_t)t), si);
                for (size_t ei = 0; ei < n_sel; ei++) {
                    if (!(sel[ei].ops->caps & cap)) continue;
                    for (size_t k = 0; k < sel[ei].n_kernels; k++)
                        run_edit_case(&sel[ei], sel[ei].kernels[k], rc, topo, sz[si].w,
                                      sz[si].h, cs);
                }
            }
        }
    }
}

/* Plane engines: the soup on the plane against ref on a bounded grid with a margin wider
 * than the generation count (no B0 rules: the plane cannot run them). */
static void test_plane_engines(const engine_sel *sel, size_t n_sel, uint64_t seed) {
    int any = 0;
    for (size_t i = 0; i < n_sel; i++)
        if ((sel[i].ops->caps & WL_CAP_PLANE) &&
            !(sel[i].ops->caps & (WL_CAP_TORUS | WL_CAP_BOUNDED)))
            any = 1;
    if (!any) return;
    size_t n_sizes = sizeof sizes_plane / sizeof sizes_plane[0];
    if (opt_quick) n_sizes = 4;
    unsigned long run = 0;
    for (size_t ri = 0; ri < N_RULES; ri++) {
        const rule_case *rc = &rules[ri];
        if (!rc->usable || !filter_match(&f_rule, rc->label, rc->text)) continue;
        if (wl_rule_has_b0(&rc->rule)) continue;
        for (size_t si = 0; si < n_sizes; si++) {
            uint64_t g = gens_list[(si * 3 + ri) % N_GENS];
            uint64_t w = sizes_plane[si].w, h = sizes_plane[si].h;
            uint64_t cs = mix(mix(seed, ri + 1000), si);
            wl_pattern *soup = make_soup(w, h, cs);
            WL_CHECK(soup != NULL, "soup: %s", wl_last_error());
            if (!soup) continue;
            /* Margin g + 2 on each side: a signal moves at most one cell per generation. */
            uint64_t margin = 2 * (g + 2);
            wl_pattern *expect =
                ref_result(WL_TOPOLOGY_BOUNDED, w + margin, h + margin, &rc->rule, soup, g);
            if (expect) {
                run_case c = {rc, WL_TOPOLOGY_PLANE, w, h, g, cs, soup, expect};
                for (size_t ei = 0; ei < n_sel; ei++) {
                    unsigned caps = sel[ei].ops->caps;
                    if (!(caps & WL_CAP_PLANE) || (caps & (WL_CAP_TORUS | WL_CAP_BOUNDED)))
                        continue;
                    for (size_t k = 0; k < sel[ei].n_kernels; k++)
                        run_engine(sel[ei].ops, sel[ei].kernels[k], &c, (int)((run + k) & 1));
                }
                run++;
            }
            wl_pattern_free(expect);
            wl_pattern_free(soup);
        }
    }
}

/* --perf: times each selected engine and kernel on one random soup per rule (a torus of
 * PERF_SIZE^2 cells, PERF_GENS generations, after a one-generation warm-up) and prints the
 * cell updates per second.  It checks nothing beyond the step succeeding: speed lives in
 * benchmarks (docs/BENCHMARKS.md), this is a quick look. */
#define PERF_SIZE 2048
#define PERF_GENS 100

static void perf_engines(const engine_sel *sel, size_t n_sel, uint64_t seed) {
    wl_pattern *soup = make_soup(PERF_SIZE, PERF_SIZE, seed);
    if (!soup) return;
    for (size_t ri = 0; ri < N_RULES; ri++) {
        const rule_case *rc = &rules[ri];
        if (!rc->usable || !filter_match(&f_rule, rc->label, rc->text)) continue;
        for (size_t ei = 0; ei < n_sel; ei++) {
            if (!(sel[ei].ops->caps & WL_CAP_TORUS)) continue;
            for (size_t k = 0; k < sel[ei].n_kernels; k++) {
                wl_universe *u;
                const char *kn = sel[ei].kernels[k];
                if (wl_test_make(sel[ei].ops->name, kn, WL_TOPOLOGY_TORUS, PERF_SIZE,
                                  PERF_SIZE, &rc->rule, 0, &u) != WL_OK) {
                    printf("perf %-10s %-16s %-9s skipped: %s\n", sel[ei].ops->name, kn,
                           rc->label, wl_last_error());
                    continue;
                }
                wl_status s = wl_universe_load(u, soup, NULL);
                if (!s) s = wl_universe_step(u, 1);
                double t0 = now();
                if (!s) s = wl_universe_step(u, PERF_GENS);
                wl_bigint pop; /* population forces device engines to finish */
                if (!s) s = wl_universe_population(u, &pop);
                double dt = now() - t0;
                WL_CHECK(s == WL_OK, "perf %s/%s: %s", sel[ei].ops->name, kn, wl_last_error());
                if (!s)
                    printf("perf %-10s %-16s %-9s %8.3f Gcell/s\n", sel[ei].ops->name, kn,
                           rc->label, (double)PERF_SIZE * PERF_SIZE * PERF_GENS / dt / 1e9);
                wl_universe_free(u);
            }
        }
    }
    wl_pattern_free(soup);
}

static void usage(void) {
    fprintf(stderr, "usage: test_engines [--quick] [--cpu|--gpu] [--perf] [-e engine,...] "
                    "[-k kernel,...] [-r rule,...]\n");
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--quick") == 0) opt_quick = 1;
        else if (strcmp(a, "--cpu") == 0) opt_cpu = 1;
        else if (strcmp(a, "--gpu") == 0) opt_gpu = 1;
        else if (strcmp(a, "--perf") == 0) opt_perf = 1;
        else if ((strcmp(a, "-e") == 0 || strcmp(a, "-k") == 0 || strcmp(a, "-r") == 0) &&
                 i + 1 < argc) {
            filter *f = a[1] == 'e' ? &f_engine : a[1] == 'k' ? &f_kernel : &f_rule;
            filter_add(f, argv[++i]);
        } else {
            usage();
            return 2;
        }
    }
    const char *q = getenv("WL_TEST_QUICK");
    if (q && *q && strcmp(q, "0") != 0) opt_quick = 1;
    uint64_t seed = wl_test_seed();
    setup_rules(seed);
    double t0 = now();

    if (!opt_gpu && !opt_perf && filter_match(&f_engine, "ref", NULL)) test_ref_vs_naive(seed);

    engine_sel sel[MAX_ENGINES];
    size_t n_sel = select_engines(sel);
    if (opt_gpu && n_sel == 0) {
        printf("test_engines: skipped: no device (no usable cuda or opencl engine)\n");
        return wl_test_finish("test_engines");
    }
    if (n_sel == 0) printf("notice: no engine other than ref selected or usable\n");
    if (opt_perf) {
        perf_engines(sel, n_sel, seed);
        return wl_test_finish("test_engines");
    }
    test_grid_engines(sel, n_sel, seed);
    test_plane_engines(sel, n_sel, seed);
    test_edits(sel, n_sel, seed);

    for (size_t i = 0; i < n_stats; i++)
        printf("engine %-10s kernel %-16s %5lu passed, %lu failed, %lu skipped (%.2f s)\n",
               stats[i].engine, stats[i].kernel, stats[i].passed, stats[i].failed,
               stats[i].skipped, stats[i].seconds);
    printf("total time %.2f s\n", now() - t0);
    for (size_t i = 0; i < n_notes; i++) free(notes[i]);
    return wl_test_finish("test_engines");
}
