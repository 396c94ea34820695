/*
 * test_opencl.c - what test_engines does not cover of the opencl engine: tile
 * configurations of the `lop3v` and `wide` kernels (work-group shape, rows per work-item,
 * generations per launch, unrolled or not, the GPU default included, best's fallback rule
 * logic; `best` is one of them, by device) against the ref engine on random soups
 * of odd sizes, torus and bounded; device soups and population; timed steps; interruption;
 * device listing and selection; and that a kernel build failure reports the build log.
 *
 * Runs on whatever OpenCL device 0 is (PoCL on a CPU in CI).  Without any OpenCL device it
 * prints why and passes (there is nothing to test).  WL_TEST_QUICK=1 or --quick: fewer sizes.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, open_memstream */
#include "internal.h"
#include "wltest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int quick;

static wl_pattern *soup(uint64_t w, uint64_t h, uint64_t seed) {
    return wl_test_soup(w, h, 0.4, seed);
}

static wl_universe *make(const char *engine, const char *kernel, wl_topology topo, uint64_t w,
                         uint64_t h, const wl_rule *rule) {
    wl_universe *u = NULL;
    wl_status s = wl_test_make(engine, kernel, topo, w, h, rule, 0, &u);
    WL_CHECK(s == WL_OK, "create %s/%s %llux%llu: %s", engine, kernel ? kernel : "-",
             (unsigned long long)w, (unsigned long long)h, wl_last_error());
    return u;
}


/* Runs an opencl kernel (with the current environment's tile) and ref; returns 1 if equal. */
static int compare_once(const char *label, const char *kernel, wl_topology topo, uint64_t w,
                        uint64_t h, const char *rule_text, uint64_t gens, uint64_t seed) {
    wl_rule rule;
    WL_CHECK_OK(wl_rule_parse(rule_text, &rule));
    wl_pattern *p = soup(w, h, seed), *want = NULL, *got = NULL;
    wl_universe *u = make("opencl", kernel, topo, w, h, &rule);
    int ok = 0;
    if (p && u && wl_universe_load(u, p, NULL) == WL_OK) {
        /* Two steps, the first not a multiple of the generations per launch. */
        uint64_t first = gens / 3;
        wl_status s = wl_universe_step(u, first);
        if (!s) s = wl_universe_step(u, gens - first);
        WL_CHECK(s == WL_OK, "%s: step: %s", label, wl_last_error());
        if (!s) WL_CHECK_OK(wl_universe_store(u, &got));
        want = wl_test_ref_run(topo, w, h, &rule, p, gens);
        ok = got && want && wl_pattern_equal_cells(got, want);
        WL_CHECK(ok, "%s: %s %s %llux%llu gens %llu seed %llu differs from ref (pop %llu, ref %llu)",
                 label, rule_text, wl_topology_name(topo), (unsigned long long)w,
                 (unsigned long long)h, (unsigned long long)gens, (unsigned long long)seed,
                 (unsigned long long)(got ? wl_pattern_population(got) : 0),
                 (unsigned long long)(want ? wl_pattern_population(want) : 0));
    }
    wl_pattern_free(p);
    wl_pattern_free(want);
    wl_pattern_free(got);
    wl_universe_free(u);
    return ok;
}

typedef struct tile {
    const char *kernel, *lx, *ly, *rows, *gens, *unroll, *nosynth, *what;
} tile;

/* Sets or clears (value NULL) the tuning variable WL_OPENCL_<prefix><name>. */
static void set_tune(const char *prefix, const char *name, const char *value) {
    char var[64];
    snprintf(var, sizeof var, "WL_OPENCL_%s%s", prefix, name);
    if (value) setenv(var, value, 1);
    else unsetenv(var);
}

static void test_tiles(uint64_t seed) {
    /* lop3v: LX lanes x LY items stacked, ROWS rows each, GENS <= 32, LY x ROWS > 2 GENS;
     * wide: LX x LY items of ROWS rows, GENS <= 63, ROWS > 2 GENS. */
    static const tile tiles[] = {
        {"lop3v", "3", "1", "3", "1", "0", "0", "smallest: one output column, one output row"},
        {"lop3v", "5", "3", "7", "9", "0", "0", "odd shape, 3 output rows"},
        {"lop3v", "4", "2", "40", "32", "0", "0", "deepest temporal block (32 generations)"},
        {"lop3v", "32", "1", "3", "1", "0", "0", "one warp, one output row"},
        {"lop3v", "32", "3", "7", "9", "0", "1", "one warp wide, odd shape, fallback rule logic"},
        {"lop3v", "32", "2", "40", "32", "0", "0", "one warp wide, 32 generations"},
        {"lop3v", "16", "4", "64", "8", "0", "0", "CPU default"},
        {"lop3v", "32", "8", "40", "16", "1", "0", "GPU default, unrolled"},
        {"wide", "3", "1", "3", "1", "0", "0", "smallest: one output column, one output row"},
        {"wide", "4", "1", "130", "63", "0", "0", "deepest temporal block (63 generations)"},
        {"wide", "16", "4", "64", "8", "0", "0", "CPU default"},
    };
    static const struct {
        uint64_t w, h;
    } sizes[] = {{1, 1}, {70, 3}, {129, 65}, {64, 200}, {300, 41}, {2, 130}};
    static const char *const rules[] = {"B3/S23", "B36/S23", "B0123478/S01234678", "B2/S"};
    size_t n_sizes = quick ? 3 : sizeof sizes / sizeof sizes[0];
    uint64_t st = seed;
    for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
        const char *pre = strcmp(tiles[t].kernel, "wide") == 0 ? "WIDE_" : "";
        set_tune(pre, "LX", tiles[t].lx);
        set_tune(pre, "LY", tiles[t].ly);
        set_tune(pre, "ROWS", tiles[t].rows);
        set_tune(pre, "GENS", tiles[t].gens);
        set_tune(pre, "UNROLL", tiles[t].unroll);
        set_tune("", "NO_SYNTH", tiles[t].nosynth);
        /* NVIDIA's build of lop3v needs 32 lanes; narrower tiles test the portable build
         * there (on other devices it is the only one). */
        set_tune("", "NV", strcmp(tiles[t].lx, "32") != 0 ? "0" : NULL);
        char label[200];
        snprintf(label, sizeof label, "%s tile %sx%s rows %s gens %s unroll %s%s (%s)",
                 tiles[t].kernel, tiles[t].lx, tiles[t].ly, tiles[t].rows, tiles[t].gens,
                 tiles[t].unroll, strcmp(tiles[t].nosynth, "1") == 0 ? " no-synth" : "",
                 tiles[t].what);
        unsigned pass = 0, total = 0;
        for (size_t si = 0; si < n_sizes; si++)
            for (int topo = 0; topo < 2; topo++) {
                const char *rule = rules[wl_splitmix64(&st) % 4];
                uint64_t gens = 1 + wl_splitmix64(&st) % 140;
                total++;
                pass += (unsigned)compare_once(
                    label, tiles[t].kernel, topo ? WL_TOPOLOGY_BOUNDED : WL_TOPOLOGY_TORUS,
                    sizes[si].w, sizes[si].h, rule, gens, wl_splitmix64(&st));
            }
        printf("%s: %u/%u match ref\n", label, pass, total);
        static const char *const names[] = {"LX", "LY", "ROWS", "GENS", "UNROLL"};
        for (int i = 0; i < 5; i++) set_tune(pre, names[i], NULL);
        set_tune("", "NO_SYNTH", NULL);
        set_tune("", "NV", NULL);
    }
}

/* Bad tunings and a broken build are refused with messages that say why. */
static void test_errors(void) {
    wl_rule life;
    wl_rule_life(&life);
    wl_config c;
    wl_config_init(&c);
    c.engine = "opencl";
    c.width = c.height = 64;
    wl_universe *u = NULL;

    c.kernel = "lop3v";
    setenv("WL_OPENCL_LY", "2", 1);
    setenv("WL_OPENCL_ROWS", "10", 1);
    setenv("WL_OPENCL_GENS", "10", 1);
    wl_status s = wl_universe_create(&c, &u);
    WL_CHECK(s == WL_ERR_INVALID && strstr(wl_last_error(), "WL_OPENCL_ROWS"),
             "lop3v: rows x items <= 2 gens: got %s (%s)", wl_status_str(s), wl_last_error());
    wl_universe_free(u);
    u = NULL;
    setenv("WL_OPENCL_GENS", "33", 1);
    s = wl_universe_create(&c, &u);
    WL_CHECK(s == WL_ERR_INVALID && strstr(wl_last_error(), "WL_OPENCL_GENS"),
             "lop3v: 33 gens: got %s (%s)", wl_status_str(s), wl_last_error());
    wl_universe_free(u);
    u = NULL;
    unsetenv("WL_OPENCL_LY");
    unsetenv("WL_OPENCL_ROWS");
    unsetenv("WL_OPENCL_GENS");
    c.kernel = "wide";
    setenv("WL_OPENCL_WIDE_ROWS", "10", 1);
    setenv("WL_OPENCL_WIDE_GENS", "5", 1);
    s = wl_universe_create(&c, &u);
    WL_CHECK(s == WL_ERR_INVALID && strstr(wl_last_error(), "WL_OPENCL_WIDE_ROWS"),
             "wide: rows <= 2 gens: got %s (%s)", wl_status_str(s), wl_last_error());
    wl_universe_free(u);
    u = NULL;
    unsetenv("WL_OPENCL_WIDE_ROWS");
    unsetenv("WL_OPENCL_WIDE_GENS");
    c.kernel = "lop3v";

    /* An undefined identifier as the work-group width: the OpenCL compiler fails, and the
     * message must carry its log, which names the identifier. */
    setenv("WL_OPENCL_OPTIONS", "-D WL_BLANES=wl_broken_on_purpose", 1);
    s = wl_universe_create(&c, &u);
    WL_CHECK(s == WL_ERR_DEVICE && strstr(wl_last_error(), "build log") &&
                 strstr(wl_last_error(), "wl_broken_on_purpose"),
             "broken build: got %s (%s)", wl_status_str(s), wl_last_error());
    wl_universe_free(u);
    u = NULL;
    unsetenv("WL_OPENCL_OPTIONS");
    c.kernel = NULL;

    /* lop3v on a device with little local memory: LY (not set) halves until the portable
     * build's tile fits (32 lanes x 64 rows x LY: 33 KiB at LY 4, 16.6 KiB at LY 2), the
     * result still equal to ref; with 1000 bytes nothing fits and the message says so. */
    setenv("WL_OPENCL_NV", "0", 1);
    setenv("WL_OPENCL_LX", "32", 1);
    setenv("WL_OPENCL_ROWS", "64", 1);
    setenv("WL_OPENCL_GENS", "8", 1);
    setenv("WL_OPENCL_LOCAL_MEM", "20000", 1);
    compare_once("lop3v, 20000 bytes of local memory", "lop3v", WL_TOPOLOGY_TORUS, 200, 150,
                 "B3/S23", 45, 12345);
    setenv("WL_OPENCL_LOCAL_MEM", "1000", 1);
    c.kernel = "lop3v";
    s = wl_universe_create(&c, &u);
    WL_CHECK(s == WL_ERR_INVALID && strstr(wl_last_error(), "local memory"),
             "lop3v in 1000 bytes: got %s (%s)", wl_status_str(s), wl_last_error());
    wl_universe_free(u);
    u = NULL;
    c.kernel = NULL;
    unsetenv("WL_OPENCL_NV");
    unsetenv("WL_OPENCL_LX");
    unsetenv("WL_OPENCL_ROWS");
    unsetenv("WL_OPENCL_GENS");
    unsetenv("WL_OPENCL_LOCAL_MEM");

    c.device = 100000;
    s = wl_universe_create(&c, &u);
    WL_CHECK(s == WL_ERR_UNAVAILABLE && strstr(wl_last_error(), "does not exist"),
             "device 100000: got %s (%s)", wl_status_str(s), wl_last_error());
    wl_universe_free(u);
}

static void test_devices(void) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    WL_CHECK(f != NULL, "open_memstream");
    if (!f) return;
    WL_CHECK_OK(wl_engine_devices("opencl", f));
    fclose(f);
    WL_CHECK(text && strstr(text, "opencl device 0: "), "device list: '%s'", text ? text : "");
    printf("%s", text ? text : "");
    free(text);
    WL_CHECK(wl_engine_devices("ref", stdout) == WL_ERR_UNSUPPORTED, "ref has no devices");
}

/* Device soups, population on the device, timed steps and interruption against ref. */
static int poll_calls;
static int stop_at_second_poll(void *user) {
    (void)user;
    return ++poll_calls >= 2;
}

static void test_slots(uint64_t seed) {
    wl_rule life;
    wl_rule_life(&life);
    const uint64_t w = 1000, h = 301; /* last word of each row partial */
    wl_universe *u = make("opencl", "best", WL_TOPOLOGY_TORUS, w, h, &life);
    if (!u) return;
    const wl_engine_ops *ops = wl_universe_ops(u);
    void *ctx = wl_universe_ctx(u);
    wl_bigint pop;
    uint64_t n = 0;
    for (int d = 0; d < 3; d++) {
        double density = d == 0 ? 0.0 : d == 1 ? 1.0 : 0.25;
        WL_CHECK_OK(ops->randomize(ctx, density, seed + (uint64_t)d));
        WL_CHECK_OK(wl_universe_population(u, &pop));
        WL_CHECK(wl_bigint_to_u64(&pop, &n), "population fits");
        wl_pattern *p = NULL;
        WL_CHECK_OK(wl_universe_store(u, &p));
        uint64_t counted = p ? wl_pattern_population(p) : 0;
        WL_CHECK(n == counted, "density %g: device population %llu, stored cells %llu", density,
                 (unsigned long long)n, (unsigned long long)counted);
        wl_pattern_free(p);
    }
    WL_CHECK(n != 0, "soup not empty");
    /* density 1 filled exactly the grid (no cells past column w - 1) is checked above via
     * the stored count; here the 0.25 soup is within 6 standard deviations (about 0.0035). */
    double frac = (double)n / (double)(w * h);
    WL_CHECK(frac > 0.2465 && frac < 0.2535, "density 0.25 soup has fraction %g", frac);

    /* timed_step: the same cells as ref, and a positive device time. */
    wl_pattern *start = NULL, *got = NULL;
    WL_CHECK_OK(wl_universe_store(u, &start));
    double sec = 0;
    WL_CHECK(wl_universe_caps(u) & WL_CAN_TIME, "opencl: no engine-timed steps");
    WL_CHECK_OK(wl_universe_step_timed(u, 37, &sec));
    WL_CHECK(sec > 0, "timed_step measured %g s", sec);
    WL_CHECK_OK(ops->synchronize(ctx));
    WL_CHECK_OK(wl_universe_store(u, &got));
    wl_pattern *want = start ? wl_test_ref_run(WL_TOPOLOGY_TORUS, w, h, &life, start, 37) : NULL;
    WL_CHECK(got && want && wl_pattern_equal_cells(got, want), "timed_step differs from ref");
    wl_pattern_free(got);
    wl_pattern_free(want);
    wl_pattern_free(start);
    wl_universe_free(u);

    /* Interruption: stopped at the second poll, consistent at the generation it reports. */
    wl_config c;
    wl_config_init(&c);
    c.engine = "opencl";
    c.topology = WL_TOPOLOGY_BOUNDED;
    c.width = 200;
    c.height = 100;
    c.poll = stop_at_second_poll;
    u = NULL;
    WL_CHECK_OK(wl_universe_create(&c, &u));
    if (!u) return;
    wl_pattern *p = soup(200, 100, seed ^ 77);
    WL_CHECK_OK(wl_universe_load(u, p, NULL));
    poll_calls = 0;
    wl_status s = wl_universe_step(u, 100000);
    WL_CHECK(s == WL_ERR_INTERRUPTED, "poll stop: got %s", wl_status_str(s));
    wl_bigint g;
    uint64_t gen = 0;
    wl_universe_generation(u, &g);
    WL_CHECK(wl_bigint_to_u64(&g, &gen) && gen > 0 && gen < 100000, "stopped at %llu",
             (unsigned long long)gen);
    got = NULL;
    WL_CHECK_OK(wl_universe_store(u, &got));
    want = wl_test_ref_run(WL_TOPOLOGY_BOUNDED, 200, 100, &life, p, gen);
    WL_CHECK(got && want && wl_pattern_equal_cells(got, want),
             "interrupted at %llu: differs from ref", (unsigned long long)gen);
    wl_pattern_free(got);
    wl_pattern_free(want);
    wl_pattern_free(p);
    wl_universe_free(u);
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--quick") == 0) quick = 1;
    const char *q = getenv("WL_TEST_QUICK");
    if (q && *q && strcmp(q, "0") != 0) quick = 1;
    wl_status s = wl_engine_probe("opencl");
    if (s) {
        printf("test_opencl: skipped: %s\n", wl_last_error());
        WL_CHECK(s == WL_ERR_UNAVAILABLE && *wl_last_error(), "probe says why: %s",
                 wl_status_str(s));
        return wl_test_finish("test_opencl");
    }
    uint64_t seed = wl_test_seed();
    test_devices();
    test_errors();
    test_slots(seed);
    test_tiles(seed);
    return wl_test_finish("test_opencl");
}
