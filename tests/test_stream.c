/*
 * test_stream.c - the out-of-core `stream` engine against the in-memory `ref` engine, cell
 * by cell, on fresh random soups.
 *
 * stream:cpu and stream:ref are run with small memory limits (cfg.gpu_memory), so that a
 * universe of a few hundred rows is cut into many bands and stepped in many passes: halo
 * depths 1, 3, 8 and the planned default (set through WL_STREAM_HALO), band heights forced
 * through WL_STREAM_BAND (uneven last bands, one-row bands), the load_grid/store_grid
 * staging path of inner engines without row ops (WL_STREAM_STAGE=1), universes lower than the
 * halo (H < 2k: windows that repeat rows), 1x1 and 1-row universes.  Rules: B3/S23,
 * HighLife, a B0 rule and a non-totalistic one; torus and bounded; generation counts that
 * are not multiples of the halo, stepped in one call or two.  Also: the poll interrupts
 * at a pass boundary with the universe equal to ref at the reported generation; a limit too
 * small for one band is WL_ERR_TOO_BIG; a GPU engine with gpu_memory below its buffers
 * becomes stream:<engine> and one that fits stays itself.
 *
 * On a machine with a usable CUDA device the same comparisons run for stream:cuda, chosen
 * the way users get it (engine "cuda" + gpu_memory); otherwise that part prints
 * "skipped: ..." with the reason.
 *
 * Usage: test_stream [--quick]   (or WL_TEST_QUICK=1: fewer and smaller cases)
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "internal.h"
#include "wltest.h"

#include <string.h>

static int quick;

/* A soup filling the whole W x H grid (pattern coordinates centred as the universe's). */
static wl_pattern *make_soup(uint64_t w, uint64_t h, uint64_t seed) {
    return wl_test_soup(w, h, 0.4, seed);
}

static void set_env_u64(const char *name, uint64_t v) {
    if (!v) {
        unsetenv(name);
        return;
    }
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    setenv(name, buf, 1);
}

/* Evolves `soup` for gens generations (in two calls when split) and returns the cells,
 * or NULL on an error (counted). */
static wl_pattern *evolve(const wl_config *cfg, const wl_pattern *soup, uint64_t gens,
                          int split, const char *expect_engine) {
    wl_universe *u = NULL;
    wl_status s = wl_universe_create(cfg, &u);
    WL_CHECK_OK(s);
    if (s) return NULL;
    if (expect_engine)
        WL_CHECK(strcmp(wl_universe_engine(u), expect_engine) == 0, "engine %s, expected %s",
                 wl_universe_engine(u), expect_engine);
    wl_test_load_step(u, soup, gens, split);
    wl_pattern *out = NULL;
    WL_CHECK_OK(wl_universe_store(u, &out));
    wl_bigint pop, g;
    uint64_t n = 0, gn = 0;
    WL_CHECK_OK(wl_universe_population(u, &pop));
    wl_bigint_to_u64(&pop, &n);
    wl_universe_generation(u, &g);
    wl_bigint_to_u64(&g, &gn);
    WL_CHECK(gn == gens, "generation %llu after %llu", (unsigned long long)gn,
             (unsigned long long)gens);
    if (out)
        WL_CHECK(n == wl_pattern_population(out), "population %llu, stored %llu",
                 (unsigned long long)n, (unsigned long long)wl_pattern_population(out));
    wl_universe_free(u);
    return out;
}

/* One stream configuration of a case. */
typedef struct stream_cfg {
    const char *engine;  /* "stream:cpu", "cuda" (selection by the limit) ... */
    const char *expect;  /* engine name the universe must report */
    uint64_t limit;      /* gpu_memory */
    uint64_t halo, band; /* WL_STREAM_HALO / WL_STREAM_BAND, 0 = planned */
    int stage;           /* WL_STREAM_STAGE=1: load_grid/store_grid instead of the row ops */
} stream_cfg;

/* Compares every configuration with ref on one soup. */
static void run_case(const char *rule_text, wl_topology topo, uint64_t w, uint64_t h,
                     uint64_t gens, const stream_cfg *sc, size_t nsc, uint64_t seed) {
    wl_config cfg;
    wl_config_init(&cfg);
    cfg.topology = topo;
    cfg.width = w;
    cfg.height = h;
    cfg.threads = 1;
    WL_CHECK_OK(wl_rule_parse(rule_text, &cfg.rule));
    wl_pattern *soup = make_soup(w, h, seed);
    cfg.engine = "ref";
    wl_pattern *expect = evolve(&cfg, soup, gens, 0, "ref");
    for (size_t i = 0; i < nsc && expect; i++) {
        cfg.engine = sc[i].engine;
        cfg.gpu_memory = sc[i].limit;
        set_env_u64("WL_STREAM_HALO", sc[i].halo);
        set_env_u64("WL_STREAM_BAND", sc[i].band);
        set_env_u64("WL_STREAM_STAGE", (uint64_t)sc[i].stage);
        int split = (int)((seed >> i) & 1);
        wl_pattern *got = evolve(&cfg, soup, gens, split, sc[i].expect);
        WL_CHECK(got && wl_pattern_equal_cells(got, expect),
                 "%s differs from ref: rule %s %s %llux%llu, %llu gens (split %d), limit %llu, "
                 "halo %llu, band %llu",
                 sc[i].engine, rule_text, wl_topology_name(topo), (unsigned long long)w,
                 (unsigned long long)h, (unsigned long long)gens, split,
                 (unsigned long long)sc[i].limit, (unsigned long long)sc[i].halo,
                 (unsigned long long)sc[i].band);
        wl_pattern_free(got);
    }
    set_env_u64("WL_STREAM_HALO", 0);
    set_env_u64("WL_STREAM_BAND", 0);
    set_env_u64("WL_STREAM_STAGE", 0);
    wl_pattern_free(expect);
    wl_pattern_free(soup);
}

/* Bytes of gpu_memory that give `rows` window rows per slot for width w (the plan counts
 * 2 slots x 2 buffers x ceil(w/32) 32-bit words per row). */
static uint64_t limit_for(uint64_t w, uint64_t rows) { return 2 * 2 * ((w + 31) / 32 * 4) * rows; }

static const char *const rules[] = {"B3/S23", "B36/S23", "B0123478/S34678", "B2-a/S12"};
#define N_RULES (sizeof rules / sizeof rules[0])

typedef struct size2 {
    uint64_t w, h;
} size2;

/* stream:cpu and stream:ref on many band layouts. */
static void test_cpu_paths(uint64_t *seed) {
    static const size2 sizes[] = {{100, 137}, {67, 61}, {130, 9}, {1, 1}, {33, 1}, {5, 40}};
    static const size2 sizes_quick[] = {{70, 53}, {1, 1}, {9, 5}};
    const size2 *sz = quick ? sizes_quick : sizes;
    size_t nsz = quick ? 3 : sizeof sizes / sizeof sizes[0];
    for (size_t si = 0; si < nsz; si++) {
        uint64_t w = sz[si].w, h = sz[si].h;
        /* window rows 24: planned halo 3 (24/8), bands of 18; forced halos 1 and 8; bands
         * of 1 row and of 7 rows (uneven last band); no limit (two bands, halo 64 > H) */
        stream_cfg sc[] = {
            {"stream:cpu", "stream", limit_for(w, 24), 0, 0, 0},
            {"stream:cpu", "stream", limit_for(w, 24), 1, 0, 0},
            {"stream:ref", "stream", limit_for(w, 24), 8, 7, 0},
            {"stream:cpu", "stream", limit_for(w, 40), 3, 1, 0},
            {"stream:cpu", "stream", 0, 0, 0, 0},
            {"stream:ref", "stream", limit_for(w, 1000), 0, 0, 0},
            {"stream:cpu", "stream", limit_for(w, 30), 2, 0, 1}, /* staging path */
        };
        size_t nsc = sizeof sc / sizeof sc[0];
        for (size_t ri = 0; ri < N_RULES; ri++)
            for (int topo = 0; topo < 2; topo++) {
                uint64_t gens = 1 + wl_splitmix64(seed) % (quick ? 20 : 41);
                run_case(rules[ri], topo ? WL_TOPOLOGY_BOUNDED : WL_TOPOLOGY_TORUS, w, h, gens,
                         sc, nsc, wl_splitmix64(seed));
            }
    }
}

static int poll_calls, poll_stop_at;
static int poll_fn(void *user) {
    (void)user;
    return ++poll_calls >= poll_stop_at;
}

/* Interruption: the step stops at a pass boundary, equal to ref at that generation. */
static void test_interrupt(uint64_t *seed) {
    const uint64_t w = 90, h = 77, halo = 5;
    wl_config cfg;
    wl_config_init(&cfg);
    cfg.width = w;
    cfg.height = h;
    cfg.engine = "stream:cpu";
    cfg.gpu_memory = limit_for(w, 20); /* bands of 10 rows: 8 bands per pass */
    cfg.poll = poll_fn;
    set_env_u64("WL_STREAM_HALO", halo);
    wl_pattern *soup = make_soup(w, h, wl_splitmix64(seed));
    wl_universe *u = NULL;
    WL_CHECK_OK(wl_universe_create(&cfg, &u));
    set_env_u64("WL_STREAM_HALO", 0);
    if (!u) {
        wl_pattern_free(soup);
        return;
    }
    WL_CHECK_OK(wl_universe_load(u, soup, NULL));
    poll_calls = 0;
    poll_stop_at = 3 + (int)(wl_splitmix64(seed) % 20);
    wl_status s = wl_universe_step(u, 1000);
    WL_CHECK(s == WL_ERR_INTERRUPTED, "step returned %s, expected interrupted",
             wl_status_str(s));
    wl_bigint g;
    uint64_t gn = 0;
    wl_universe_generation(u, &g);
    wl_bigint_to_u64(&g, &gn);
    WL_CHECK(gn % halo == 0 && gn < 1000, "interrupted at generation %llu (halo %llu)",
             (unsigned long long)gn, (unsigned long long)halo);
    wl_pattern *got = NULL;
    WL_CHECK_OK(wl_universe_store(u, &got));
    cfg.engine = "ref";
    cfg.poll = NULL;
    wl_pattern *expect = evolve(&cfg, soup, gn, 0, "ref");
    WL_CHECK(got && expect && wl_pattern_equal_cells(got, expect),
             "interrupted stream universe differs from ref at generation %llu",
             (unsigned long long)gn);
    /* it goes on from there */
    poll_stop_at = 1 << 30;
    WL_CHECK_OK(wl_universe_step(u, 13));
    wl_pattern_free(got);
    wl_pattern_free(expect);
    WL_CHECK_OK(wl_universe_store(u, &got));
    expect = evolve(&cfg, soup, gn + 13, 0, "ref");
    WL_CHECK(got && expect && wl_pattern_equal_cells(got, expect),
             "stream universe differs from ref after resuming");
    wl_pattern_free(got);
    wl_pattern_free(expect);
    wl_pattern_free(soup);
    wl_universe_free(u);
}

/* Limits and selection. */
static void test_limits(void) {
    wl_config cfg;
    wl_config_init(&cfg);
    cfg.width = 1000;
    cfg.height = 1000;
    cfg.engine = "stream:cpu";
    cfg.gpu_memory = limit_for(1000, 2); /* 2 rows a window: not even a 1-row band + halo */
    wl_universe *u = NULL;
    wl_status s = wl_universe_create(&cfg, &u);
    WL_CHECK(s == WL_ERR_TOO_BIG && !u, "tiny limit: %s (%s)", wl_status_str(s),
             wl_last_error());
    wl_universe_free(u);
    u = NULL;
    /* the cpu engine is no GPU engine: a limit does not make it stream */
    cfg.engine = "cpu";
    s = wl_universe_create(&cfg, &u);
    if (s == WL_ERR_NOT_FOUND || s == WL_ERR_UNAVAILABLE) {
        printf("notice: cpu engine not built; selection check done on ref\n");
        cfg.engine = "ref";
        s = wl_universe_create(&cfg, &u);
    }
    WL_CHECK_OK(s);
    if (u) WL_CHECK(strcmp(wl_universe_engine(u), "stream") != 0, "cpu engine streamed");
    wl_universe_free(u);
}

/* stream:cuda as users get it: engine "cuda" with a limit below its two buffers. */
static void test_cuda(uint64_t *seed) {
    if (wl_engine_probe("cuda") != WL_OK) {
        printf("skipped: stream:cuda: %s\n", wl_last_error());
        return;
    }
    static const size2 sizes[] = {{1000, 700}, {2051, 333}, {64, 64}, {31, 5}};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        uint64_t w = sizes[si].w, h = sizes[si].h;
        /* the first: engine "cuda" with half its two bit-packed buffers (2 ceil(w/8) h
         * bytes) as the limit must stream (too small for 31x5: skipped there) */
        uint64_t half = (w + 7) / 8 * h;
        stream_cfg sc[] = {
            {"cuda", "stream", half, 0, 0, 0},
            {"stream:cuda", "stream", limit_for(w, 24), 0, 0, 0},
            {"stream:cuda", "stream", limit_for(w, 100), 16, 0, 0},
            {"stream:cuda", "stream", limit_for(w, 60), 5, 7, 0},
            {"stream:cuda", "stream", limit_for(w, 40), 3, 1, 0},
            {"stream:cuda", "stream", limit_for(w, 50), 4, 0, 1}, /* staging path */
            {"cuda", "cuda", 0, 0, 0, 0}, /* no limit: in memory */
        };
        int skip_first = half / limit_for(w, 1) < 3;
        for (size_t ri = 0; ri < N_RULES; ri++)
            for (int topo = 0; topo < 2; topo++) {
                uint64_t gens = 1 + wl_splitmix64(seed) % 150;
                run_case(rules[ri], topo ? WL_TOPOLOGY_BOUNDED : WL_TOPOLOGY_TORUS, w, h, gens,
                         sc + skip_first, sizeof sc / sizeof sc[0] - (size_t)skip_first,
                         wl_splitmix64(seed));
            }
    }
    /* a cuda kernel named explicitly reaches the inner engine: the bit layout's lop3, the
     * byte layout (the plan counts a byte per cell: 12-row windows) and the 4x4 patch layout */
    stream_cfg k[] = {{"cuda:lop3", "stream", limit_for(500, 100), 0, 0, 0},
                      {"cuda:shared", "stream", limit_for(500, 100), 0, 0, 0},
                      {"cuda:patch16", "stream", limit_for(500, 100), 0, 0, 0}};
    for (int topo = 0; topo < 2; topo++)
        run_case("B3/S23", topo ? WL_TOPOLOGY_BOUNDED : WL_TOPOLOGY_TORUS, 500, 301, 77, k, 3,
                 wl_splitmix64(seed));
}

int main(int argc, char **argv) {
    const char *q = getenv("WL_TEST_QUICK");
    quick = (q && *q && strcmp(q, "0") != 0) || (argc > 1 && strcmp(argv[1], "--quick") == 0);
    uint64_t seed = wl_test_seed();
    test_limits();
    test_cpu_paths(&seed);
    test_interrupt(&seed);
    test_cuda(&seed);
    return wl_test_finish("test_stream");
}
