/*
 * test_rows.c - the row-strip engine ops (store_rows / load_rows, used by the mpi engine's
 * halo exchange) of every grid engine and kernel built here, against store_grid and ref.
 *
 * For each engine:kernel (ref; every cpu kernel this CPU runs; every cuda kernel when a GPU
 * is usable) and random sizes (odd widths around word boundaries, 1-row grids), rules Life
 * (bitsliced kernels) and a non-totalistic Hensel rule (table kernels), on both topologies:
 *   1. load a random grid, store_rows a random strip into a buffer whose stride is wider
 *      than needed and whose words were filled with garbage: the strip must equal the
 *      grid's rows, with every bit past the width zero;
 *   2. load_rows random rows whose bits past the width are garbage into a random strip,
 *      then store_grid: the grid must be the old one with the strip replaced (garbage
 *      ignored);
 *   3. step the engine 1..3 generations and compare with ref stepping the same modified
 *      grid: the engine's private halos (byte and nibble halo columns, device padding) must
 *      follow load_rows.
 *   4. load_words (the sparse engine's patches of a box's rim) of random words of random
 *      rows: the grid must be the old one with those words replaced.
 * Also: an out-of-range strip is WL_ERR_INVALID, not a crash; and the translate and bounds
 * ops where an engine has them, on every state of two- and multi-state rules.
 *
 * Usage: test_rows [--quick]   (WL_TEST_QUICK=1 also shrinks the case count)
 */
#include "internal.h"
#include "wltest.h"

#include <string.h>

static uint64_t rng;

static uint64_t rnd(uint64_t n) { return wl_splitmix64(&rng) % n; }

/* Fills a grid with random cells (bits past the width zero). */
static void random_grid(wl_grid *g) {
    for (uint64_t y = 0; y < g->h; y++)
        for (uint64_t x = 0; x < g->w; x++) wl_grid_set(g, x, y, (int)(wl_splitmix64(&rng) & 1));
}

/* Evolves g on ref for `gens` generations into out (allocated w x h). */
static void ref_evolve(const wl_grid *g, const wl_config *base, uint64_t gens, wl_grid *out) {
    wl_config cfg = *base;
    cfg.engine = "ref";
    cfg.kernel = NULL;
    wl_universe *u = NULL;
    WL_CHECK_OK(wl_universe_create(&cfg, &u));
    if (!u) return;
    const wl_engine_ops *ops = wl_universe_ops(u);
    void *ctx = wl_universe_ctx(u);
    uint64_t done;
    WL_CHECK_OK(ops->load_grid(ctx, g));
    WL_CHECK_OK(ops->step(ctx, gens, &done));
    WL_CHECK_OK(ops->store_grid(ctx, out));
    wl_universe_free(u);
}

static int rows_equal(const uint64_t *a, size_t sa, const uint64_t *b, size_t sb, size_t words,
                      uint64_t n) {
    for (uint64_t i = 0; i < n; i++)
        if (memcmp(a + i * sa, b + i * sb, words * 8)) return 0;
    return 1;
}

/* A universe of engine:kernel on a w x h grid; NULL when the kernel does not run here
 * (unavailable, or with `unsupported_ok` a rule it does not take). */
static wl_universe *open_case(const char *engine, const char *kernel, const char *rule,
                              wl_topology topo, uint64_t w, uint64_t h, int unsupported_ok,
                              wl_config *cfg) {
    wl_config_init(cfg);
    cfg->engine = engine;
    cfg->kernel = kernel;
    cfg->topology = topo;
    cfg->width = w;
    cfg->height = h;
    cfg->threads = 2;
    WL_CHECK_OK(wl_rule_parse(rule, &cfg->rule));
    wl_universe *u = NULL;
    wl_status s = wl_universe_create(cfg, &u);
    if (s == WL_ERR_UNAVAILABLE || (unsupported_ok && s == WL_ERR_UNSUPPORTED)) return NULL;
    WL_CHECK(s == WL_OK, "create %s:%s %s %llux%llu: %s", engine, kernel, rule,
             (unsigned long long)w, (unsigned long long)h, wl_last_error());
    return u;
}

static void one_case(const char *engine, const char *kernel, const char *rule, wl_topology topo,
                     uint64_t w, uint64_t h) {
    wl_config cfg;
    wl_universe *u = open_case(engine, kernel, rule, topo, w, h, 0, &cfg);
    if (!u) return;
    const wl_engine_ops *ops = wl_universe_ops(u);
    void *ctx = wl_universe_ctx(u);
    WL_CHECK(ops->store_rows && ops->load_rows, "%s has no row ops", engine);
    if (!ops->store_rows || !ops->load_rows) {
        wl_universe_free(u);
        return;
    }
    wl_grid a, b, r;
    if (wl_grid_alloc(&a, w, h) || wl_grid_alloc(&b, w, h) || wl_grid_alloc(&r, w, h)) {
        WL_CHECK(0, "out of memory");
        return;
    }
    random_grid(&a);
    WL_CHECK_OK(ops->load_grid(ctx, &a));
    size_t S = a.stride, stride = S + 1 + (size_t)rnd(3); /* wider than a row */
    uint64_t y0 = rnd(h), n = 1 + rnd(h - y0);
    uint64_t *buf = wl_malloc((size_t)h * stride * 8);
    if (!buf) return;
    /* 1. store_rows into garbage */
    for (size_t i = 0; i < (size_t)h * stride; i++) buf[i] = wl_splitmix64(&rng);
    WL_CHECK_OK(ops->store_rows(ctx, y0, n, buf, stride));
    int ok = rows_equal(buf, stride, a.words + y0 * S, S, S, n);
    for (uint64_t i = 0; i < n && ok; i++)
        for (size_t j = S; j < stride; j++) ok &= buf[i * stride + j] == 0;
    WL_CHECK(ok, "%s:%s %s %s %llux%llu: store_rows(%llu, %llu) differs from the grid", engine,
             kernel, rule, wl_topology_name(topo), (unsigned long long)w, (unsigned long long)h,
             (unsigned long long)y0, (unsigned long long)n);
    /* 2. load_rows of random rows with garbage past the width */
    y0 = rnd(h);
    n = 1 + rnd(h - y0);
    for (size_t i = 0; i < (size_t)n * stride; i++) buf[i] = wl_splitmix64(&rng);
    WL_CHECK_OK(ops->load_rows(ctx, y0, n, buf, stride));
    memcpy(b.words, a.words, (size_t)h * S * 8);
    uint64_t tail = (w & 63) ? (((uint64_t)1 << (w & 63)) - 1) : ~(uint64_t)0;
    for (uint64_t i = 0; i < n; i++) {
        memcpy(b.words + (y0 + i) * S, buf + i * stride, S * 8);
        b.words[(y0 + i) * S + S - 1] &= tail;
    }
    memset(r.words, 0, (size_t)h * S * 8);
    WL_CHECK_OK(ops->store_grid(ctx, &r));
    WL_CHECK(rows_equal(r.words, S, b.words, S, S, h),
             "%s:%s %s %s %llux%llu: load_rows(%llu, %llu) then store_grid differs", engine,
             kernel, rule, wl_topology_name(topo), (unsigned long long)w, (unsigned long long)h,
             (unsigned long long)y0, (unsigned long long)n);
    /* 3. stepping after load_rows agrees with ref */
    uint64_t gens = 1 + rnd(3), done = 0;
    WL_CHECK_OK(ops->step(ctx, gens, &done));
    memset(r.words, 0, (size_t)h * S * 8);
    WL_CHECK_OK(ops->store_grid(ctx, &r));
    ref_evolve(&b, &cfg, gens, &a);
    WL_CHECK(rows_equal(r.words, S, a.words, S, S, h),
             "%s:%s %s %s %llux%llu: %llu generations after load_rows differ from ref", engine,
             kernel, rule, wl_topology_name(topo), (unsigned long long)w, (unsigned long long)h,
             (unsigned long long)gens);
    /* 4. load_words (where the engine has it) of random words of random rows: the grid must
     * be the stepped one with those words replaced, the rest of the rows kept */
    WL_CHECK(ops->load_words || strcmp(engine, "cpu") != 0, "the cpu engine has no load_words");
    if (ops->load_words && ops->store_grid(ctx, &r) == WL_OK) {
        const size_t w0 = (size_t)rnd(S), nw = 1 + (size_t)rnd(S - w0);
        y0 = rnd(h);
        n = 1 + rnd(h - y0);
        for (size_t i = 0; i < (size_t)n * stride; i++) buf[i] = wl_splitmix64(&rng);
        wl_status ws = ops->load_words(ctx, y0, n, w0, nw, buf, stride);
        if (ws == WL_ERR_UNSUPPORTED) { /* (kernels that hold no bit rows) */
            wl_clear_error();
        } else {
            WL_CHECK_OK(ws);
            for (uint64_t i = 0; i < n; i++) {
                memcpy(r.words + (y0 + i) * S + w0, buf + i * stride, nw * 8);
                r.words[(y0 + i) * S + S - 1] &= tail;
            }
            memset(a.words, 0, (size_t)h * S * 8);
            WL_CHECK_OK(ops->store_grid(ctx, &a));
            WL_CHECK(rows_equal(a.words, S, r.words, S, S, h),
                     "%s:%s %s %s %llux%llu: load_words(%llu, %llu, %zu, %zu) then store_grid "
                     "differs", engine, kernel, rule, wl_topology_name(topo),
                     (unsigned long long)w, (unsigned long long)h, (unsigned long long)y0,
                     (unsigned long long)n, w0, nw);
            WL_CHECK(ops->load_words(ctx, 0, 1, S, 1, buf, stride) == WL_ERR_INVALID,
                     "a word past the row accepted");
        }
    }
    /* out of range */
    WL_CHECK(ops->store_rows(ctx, h, 1, buf, stride) == WL_ERR_INVALID, "row h accepted");
    WL_CHECK(ops->load_rows(ctx, 0, h + 1, buf, stride) == WL_ERR_INVALID, "h+1 rows accepted");
    free(buf);
    wl_grid_free(&a);
    wl_grid_free(&b);
    wl_grid_free(&r);
    wl_universe_free(u);
}

/* The translate and bounds ops (the grow engine's moves and measures) of a bounded grid,
 * against the loaded grid: a random grid of every state of the rule, moved by (dx, dy)
 * (past the edges too), must come back as the grid shifted, every plane, dead where it came
 * from outside; the bounds are those of the live cells, in the placement rule's
 * coordinates. */
static void translate_case(const char *engine, const char *kernel, const char *rule, uint64_t w,
                           uint64_t h) {
    wl_config cfg;
    wl_universe *u = open_case(engine, kernel, rule, WL_TOPOLOGY_BOUNDED, w, h, 1, &cfg);
    if (!u) return;
    wl_status s;
    const wl_engine_ops *ops = wl_universe_ops(u);
    void *ctx = wl_universe_ctx(u);
    unsigned planes = wl_grid_planes_for(&cfg.rule), states = wl_rule_states(&cfg.rule);
    wl_grid a, r;
    if (wl_grid_alloc_planes(&a, w, h, planes) || wl_grid_alloc_planes(&r, w, h, planes)) {
        WL_CHECK(0, "out of memory");
        return;
    }
    const size_t pw = a.stride * h; /* words of a plane */
    int sparse = (int)rnd(2); /* a few cells, so that the box is not the whole grid */
    for (uint64_t y = 0; y < h; y++)
        for (uint64_t x = 0; x < w; x++) {
            if (rnd(sparse ? 40 : 2)) continue;
            unsigned st = 1 + (unsigned)rnd(states - 1);
            a.words[y * a.stride + x / 64] |= (uint64_t)1 << (x & 63);
            for (unsigned k = 1; k < planes; k++)
                if ((st - 1) >> (k - 1) & 1) a.words[k * pw + y * a.stride + x / 64] |= (uint64_t)1 << (x & 63);
        }
    WL_CHECK_OK(ops->load_grid(ctx, &a));
    if (ops->bounds) {
        wl_bigint b[4];
        int64_t got[4] = {0, 0, 0, 0}, want[4] = {INT64_MAX, INT64_MAX, INT64_MIN, INT64_MIN};
        int empty = -1;
        WL_CHECK_OK(ops->bounds(ctx, &b[0], &b[1], &b[2], &b[3], &empty));
        for (int k = 0; k < 4; k++) wl_bigint_to_i64(&b[k], &got[k]);
        for (uint64_t y = 0; y < h; y++)
            for (uint64_t x = 0; x < w; x++)
                if (wl_grid_get(&a, x, y)) {
                    int64_t px = (int64_t)x - (int64_t)(w / 2), py = (int64_t)y - (int64_t)(h / 2);
                    if (px < want[0]) want[0] = px;
                    if (py < want[1]) want[1] = py;
                    if (px > want[2]) want[2] = px;
                    if (py > want[3]) want[3] = py;
                }
        int none = want[0] == INT64_MAX;
        WL_CHECK(empty == none && (none || !memcmp(got, want, sizeof got)),
                 "%s:%s %s %llux%llu: bounds %lld,%lld..%lld,%lld (empty %d), the grid's "
                 "%lld,%lld..%lld,%lld", engine, kernel, rule, (unsigned long long)w,
                 (unsigned long long)h, (long long)got[0], (long long)got[1], (long long)got[2],
                 (long long)got[3], empty, (long long)want[0], (long long)want[1],
                 (long long)want[2], (long long)want[3]);
    }
    if (ops->translate) {
        int64_t dx = (int64_t)rnd(2 * w + 5) - (int64_t)w - 2, dy = (int64_t)rnd(2 * h + 5) - (int64_t)h - 2;
        if (rnd(3) == 0) dx = (int64_t)rnd(9) - 4; /* small moves, as the grow engine makes */
        s = ops->translate(ctx, dx, dy);
        WL_CHECK(s == WL_OK || s == WL_ERR_UNSUPPORTED, "%s:%s translate: %s", engine, kernel,
                 wl_last_error());
        if (!s) WL_CHECK_OK(ops->store_grid(ctx, &r));
        int ok = 1;
        for (unsigned k = 0; k < planes && ok && !s; k++) /* (unsupported: the byte kernels) */
            for (uint64_t y = 0; y < h && ok; y++)
                for (uint64_t x = 0; x < w && ok; x++) {
                    int64_t sx = (int64_t)x + dx, sy = (int64_t)y + dy;
                    int want = sx >= 0 && sy >= 0 && (uint64_t)sx < w && (uint64_t)sy < h &&
                               (a.words[k * pw + (uint64_t)sy * a.stride + (uint64_t)sx / 64] >> (sx & 63) & 1);
                    ok = want == (int)(r.words[k * pw + y * r.stride + x / 64] >> (x & 63) & 1);
                }
        WL_CHECK(ok, "%s:%s %s %llux%llu: translate(%lld, %lld) differs from the grid moved",
                 engine, kernel, rule, (unsigned long long)w, (unsigned long long)h,
                 (long long)dx, (long long)dy);
    }
    wl_grid_free(&a);
    wl_grid_free(&r);
    wl_universe_free(u);
}

/* Every kernel of `engine` on random sizes, rules and topologies. */
static int test_engine(const char *engine, int cases) {
    static const uint64_t widths[] = {1, 5, 31, 32, 33, 63, 64, 65, 100, 127, 130, 257, 600};
    static const char *const rules[] = {"B3/S23", "B2-a/S12"};
    const char *const *names;
    size_t nk;
    if (wl_engine_kernels(engine, &names, &nk)) return 0;
    for (size_t k = 0; k < nk; k++)
        for (int i = 0; i < cases; i++) {
            uint64_t w = widths[rnd(sizeof widths / sizeof widths[0])];
            uint64_t h = i == 0 ? 1 : 1 + rnd(70);
            one_case(engine, names[k], rules[i & 1], (i >> 1) & 1 ? WL_TOPOLOGY_BOUNDED
                                                                  : WL_TOPOLOGY_TORUS, w, h);
            static const char *const all_rules[] = {"B3/S23", "B2-a/S12", "345/2/4",
                                                    "R2,C4,M1,S2..6,B3..5,NM", "12/34/40"};
            translate_case(engine, names[k], all_rules[rnd(5)], w, h);
        }
    return 1;
}

int main(int argc, char **argv) {
    int quick = getenv("WL_TEST_QUICK") && atoi(getenv("WL_TEST_QUICK"));
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--quick") == 0) quick = 1;
    rng = wl_test_seed();
    int cases = quick ? 4 : 12;
    test_engine("ref", cases);
    test_engine("cpu", cases);
    if (wl_engine_find("cuda") && wl_engine_probe("cuda") == WL_OK) {
        printf("test_rows: cuda kernels too\n");
        test_engine("cuda", cases);
    } else {
        wl_clear_error();
    }
    return wl_test_finish("test_rows");
}
