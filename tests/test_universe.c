/*
 * test_universe.c - the public wl_universe calls on the reference engine, which leaves
 * bounds, cell access and rendering to the universe's defaults: placement and dropped
 * cells, the generation counter, set/get cell, bounds, render at zoom 1, 0 and -1, the
 * poll callback, and the errors of wl_universe_create.
 */
#include "internal.h"
#include "wltest.h"

#include <string.h>

static wl_universe *make(wl_topology topo, uint64_t w, uint64_t h) {
    wl_universe *u = NULL;
    WL_CHECK_OK(wl_test_make("ref", NULL, topo, w, h, NULL, 0, &u));
    return u;
}

static uint64_t pop(wl_universe *u) {
    wl_bigint b;
    uint64_t n = UINT64_MAX;
    WL_CHECK_OK(wl_universe_population(u, &b));
    wl_bigint_to_u64(&b, &n);
    return n;
}

static uint64_t gen(const wl_universe *u) {
    wl_bigint b;
    uint64_t n = UINT64_MAX;
    wl_universe_generation(u, &b);
    wl_bigint_to_u64(&b, &n);
    return n;
}

static int get(wl_universe *u, int64_t x, int64_t y) {
    int alive = -1;
    WL_CHECK_OK(wl_universe_get_cell(u, x, y, &alive));
    return alive;
}

/* A 10 x 8 grid covers x -5..4 and y -4..3. */
static void test_placement(void) {
    wl_pattern *p = wl_pattern_new();
    wl_pattern_set(p, -5, -4, 1); /* top-left corner */
    wl_pattern_set(p, 4, 3, 1);   /* bottom-right corner */
    wl_pattern_set(p, 5, 0, 1);   /* one column right of the grid */
    wl_pattern_set(p, 0, -5, 1);  /* one row above */
    wl_pattern_set(p, 100, 100, 1);

    wl_universe *u = make(WL_TOPOLOGY_BOUNDED, 10, 8);
    if (!u) return;
    WL_CHECK(strcmp(wl_universe_engine(u), "ref") == 0, "engine %s", wl_universe_engine(u));
    WL_CHECK(strcmp(wl_universe_kernel(u), "default") == 0, "kernel %s", wl_universe_kernel(u));
    uint64_t dropped = 99;
    WL_CHECK_OK(wl_universe_load(u, p, &dropped));
    WL_CHECK(dropped == 3, "bounded: dropped %llu, want 3", (unsigned long long)dropped);
    WL_CHECK(pop(u) == 2, "bounded population %llu", (unsigned long long)pop(u));
    WL_CHECK(get(u, -5, -4) == 1 && get(u, 4, 3) == 1 && get(u, 5, 0) == 0, "bounded cells");
    WL_CHECK(get(u, -6, 0) == 0 && get(u, 1000, -1000) == 0, "outside reads dead");

    wl_bigint b[4];
    int empty = -1;
    WL_CHECK_OK(wl_universe_bounds(u, &b[0], &b[1], &b[2], &b[3], &empty));
    int64_t v[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; i++) wl_bigint_to_i64(&b[i], &v[i]);
    WL_CHECK(!empty && v[0] == -5 && v[1] == -4 && v[2] == 4 && v[3] == 3,
             "bounds %lld %lld %lld %lld", (long long)v[0], (long long)v[1], (long long)v[2],
             (long long)v[3]);

    /* Generation counter: steps add, load resets, set_cell keeps it. */
    WL_CHECK(gen(u) == 0, "generation after load %llu", (unsigned long long)gen(u));
    WL_CHECK_OK(wl_universe_step(u, 3));
    WL_CHECK_OK(wl_universe_step(u, 0));
    WL_CHECK(gen(u) == 3, "generation %llu, want 3", (unsigned long long)gen(u));
    WL_CHECK(pop(u) == 0, "two lone cells die: %llu", (unsigned long long)pop(u));
    WL_CHECK_OK(wl_universe_set_cell(u, 1, 1, 1));
    WL_CHECK_OK(wl_universe_set_cell(u, 2, 1, 1));
    WL_CHECK_OK(wl_universe_set_cell(u, 3, 1, 1));
    WL_CHECK(gen(u) == 3, "set_cell changed the generation to %llu", (unsigned long long)gen(u));
    WL_CHECK(pop(u) == 3 && get(u, 2, 1) == 1 && get(u, 2, 0) == 0, "set cells");
    WL_CHECK_OK(wl_universe_step(u, 1)); /* the blinker turns vertical */
    WL_CHECK(get(u, 2, 0) == 1 && get(u, 2, 2) == 1 && get(u, 1, 1) == 0, "blinker phase");
    WL_CHECK_OK(wl_universe_set_cell(u, 2, 0, 0));
    WL_CHECK(get(u, 2, 0) == 0 && pop(u) == 2, "clear a cell");
    wl_universe_free(u);

    /* On a torus the same pattern wraps: (5, 0) -> (-5, 0), (0, -5) -> (0, 3),
     * (100, 100) -> (0, 0) (100 = 10 * 10 columns and 104 = 13 * 8 rows from -5, -4). */
    u = make(WL_TOPOLOGY_TORUS, 10, 8);
    if (!u) return;
    dropped = 99;
    WL_CHECK_OK(wl_universe_load(u, p, &dropped));
    WL_CHECK(dropped == 0, "torus: dropped %llu", (unsigned long long)dropped);
    WL_CHECK(pop(u) == 5, "torus population %llu", (unsigned long long)pop(u));
    WL_CHECK(get(u, -5, 0) == 1 && get(u, 0, 3) == 1 && get(u, -1, 0) == 0, "torus wrap");
    wl_universe_free(u);
    wl_pattern_free(p);
}

/* Renders a 4 x 4 bounded grid holding a 2 x 2 block at (0, 0) and (1, 1) only. */
static void test_render(void) {
    wl_universe *u = make(WL_TOPOLOGY_BOUNDED, 4, 4); /* covers -2..1 */
    if (!u) return;
    WL_CHECK_OK(wl_universe_set_cell(u, -2, -2, 1));
    WL_CHECK_OK(wl_universe_set_cell(u, 1, 1, 1));
    const uint32_t on = 0xFFFFFFFFu, off = 0xFF000000u;
    uint32_t px[64];
    wl_view v = {-2, -2, 0, 4, 4, on, off};
    WL_CHECK_OK(wl_universe_render(u, &v, px));
    int ok = 1;
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++)
            ok &= px[y * 4 + x] == (((x == 0 && y == 0) || (x == 3 && y == 3)) ? on : off);
    WL_CHECK(ok, "zoom 0 render");
    /* zoom -1: each pixel covers 2 x 2 cells; pixel (0,0) holds (-2,-2), (1,1) holds (1,1). */
    wl_view v2 = {-2, -2, -1, 2, 2, on, off};
    WL_CHECK_OK(wl_universe_render(u, &v2, px));
    WL_CHECK(px[0] == on && px[1] == off && px[2] == off && px[3] == on, "zoom -1 render");
    /* zoom 1: each cell is 2 x 2 pixels. */
    wl_view v3 = {-2, -2, 1, 8, 8, on, off};
    WL_CHECK_OK(wl_universe_render(u, &v3, px));
    ok = 1;
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 8; x++)
            ok &= px[y * 8 + x] == (((x < 2 && y < 2) || (x >= 6 && y >= 6)) ? on : off);
    WL_CHECK(ok, "zoom 1 render");
    wl_universe_free(u);
}

/* store then load gives back the same cells, on an odd width past a 64-bit word. */
static void test_roundtrip(unsigned long long seed) {
    wl_universe *u = make(WL_TOPOLOGY_TORUS, 131, 67);
    if (!u) return;
    wl_pattern *p = wl_pattern_new(), *q = NULL;
    wl_rect r = {-65, -33, 131, 67};
    WL_CHECK_OK(wl_pattern_random(p, &r, 0.4, seed));
    WL_CHECK_OK(wl_universe_load(u, p, NULL));
    WL_CHECK_OK(wl_universe_store(u, &q));
    WL_CHECK(q && wl_pattern_equal_cells(p, q), "store after load differs");
    WL_CHECK(pop(u) == wl_pattern_population(p), "population %llu vs %llu",
             (unsigned long long)pop(u), (unsigned long long)wl_pattern_population(p));
    wl_pattern_free(q);
    wl_pattern_free(p);
    wl_universe_free(u);
}

static int poll_calls;
static int stop_at_second(void *user) {
    (void)user;
    return ++poll_calls >= 2;
}

/* The poll callback interrupts a long step at a whole generation. */
static void test_poll(unsigned long long seed) {
    wl_config cfg;
    wl_config_init(&cfg);
    cfg.engine = "ref";
    cfg.width = 1024; /* 1M cells: ref polls about once per generation */
    cfg.height = 1024;
    cfg.poll = stop_at_second;
    wl_universe *u = NULL, *v = NULL;
    WL_CHECK_OK(wl_universe_create(&cfg, &u));
    cfg.poll = NULL;
    WL_CHECK_OK(wl_universe_create(&cfg, &v));
    if (!u || !v) return;
    wl_pattern *p = wl_pattern_new(), *a = NULL, *b = NULL;
    wl_rect r = {-512, -512, 1024, 1024};
    WL_CHECK_OK(wl_pattern_random(p, &r, 0.3, seed));
    WL_CHECK_OK(wl_universe_load(u, p, NULL));
    WL_CHECK_OK(wl_universe_load(v, p, NULL));
    wl_status s = wl_universe_step(u, 1000);
    uint64_t g = gen(u);
    WL_CHECK(s == WL_ERR_INTERRUPTED, "step with poll: %s", wl_status_str(s));
    WL_CHECK(g >= 1 && g < 1000, "interrupted at generation %llu", (unsigned long long)g);
    WL_CHECK_OK(wl_universe_step(v, g));
    WL_CHECK_OK(wl_universe_store(u, &a));
    WL_CHECK_OK(wl_universe_store(v, &b));
    WL_CHECK(a && b && wl_pattern_equal_cells(a, b), "interrupted universe is not at a whole "
             "generation %llu", (unsigned long long)g);
    wl_pattern_free(a);
    wl_pattern_free(b);
    wl_pattern_free(p);
    wl_universe_free(u);
    wl_universe_free(v);
}

static void test_errors(void) {
    wl_config cfg;
    wl_config_init(&cfg);
    cfg.engine = "ref";
    wl_universe *u = NULL;
    WL_CHECK(wl_universe_create(&cfg, &u) == WL_ERR_INVALID, "0x0 grid accepted");
    cfg.width = cfg.height = 4;
    cfg.topology = WL_TOPOLOGY_PLANE;
    WL_CHECK(wl_universe_create(&cfg, &u) == WL_ERR_UNSUPPORTED, "ref on the plane accepted");
    cfg.topology = WL_TOPOLOGY_TORUS;
    cfg.kernel = "nonesuch";
    WL_CHECK(wl_universe_create(&cfg, &u) == WL_ERR_NOT_FOUND, "unknown kernel accepted");
    cfg.kernel = "default";
    WL_CHECK_OK(wl_universe_create(&cfg, &u));
    wl_universe_free(u);
    cfg.kernel = NULL;
    cfg.engine = "no-such-engine";
    WL_CHECK(wl_universe_create(&cfg, &u) == WL_ERR_NOT_FOUND, "unknown engine accepted");
    /* A 1 x 1 torus: the cell is its own 8 neighbours (index 511 when alive): under B3/S23
     * it has 8 live neighbours and dies; under B0/S8 it lives on. */
    cfg.engine = "ref";
    cfg.width = cfg.height = 1;
    WL_CHECK_OK(wl_universe_create(&cfg, &u));
    if (u) {
        WL_CHECK_OK(wl_universe_set_cell(u, 0, 0, 1));
        WL_CHECK_OK(wl_universe_step(u, 1));
        WL_CHECK(get(u, 0, 0) == 0, "1x1 torus under Life");
        wl_universe_free(u);
    }
    WL_CHECK_OK(wl_rule_parse("B/S8", &cfg.rule));
    WL_CHECK_OK(wl_universe_create(&cfg, &u));
    if (u) {
        WL_CHECK_OK(wl_universe_set_cell(u, 0, 0, 1));
        WL_CHECK_OK(wl_universe_step(u, 5));
        WL_CHECK(get(u, 0, 0) == 1, "1x1 torus under S8");
        wl_universe_free(u);
    }
}

int main(void) {
    unsigned long long seed = wl_test_seed();
    test_placement();
    test_render();
    test_roundtrip(seed);
    test_poll(seed);
    test_errors();
    return wl_test_finish("test_universe");
}
