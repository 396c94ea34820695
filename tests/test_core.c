/*
 * test_core.c - big integers, patterns and the grid placement rule.
 */
#include "internal.h"
#include "wltest.h"

#include <string.h>

static void test_bigint(void) {
    wl_bigint a, b, c;
    char buf[96];
    wl_bigint_from_u64(&a, UINT64_MAX);
    wl_bigint_from_u64(&b, 1);
    wl_bigint_add(&c, &a, &b);
    WL_CHECK(strcmp(wl_bigint_to_str(&c, buf, sizeof buf), "18446744073709551616") == 0, "%s", buf);
    wl_bigint_mul(&c, &c, &c); /* 2^128 */
    WL_CHECK(strcmp(wl_bigint_to_str(&c, buf, sizeof buf),
                    "340282366920938463463374607431768211456") == 0, "%s", buf);
    WL_CHECK_OK(wl_bigint_parse("2^128", &a));
    WL_CHECK(wl_bigint_cmp(&a, &c) == 0, "2^128 parse");
    WL_CHECK_OK(wl_bigint_parse("-17", &a));
    WL_CHECK(strcmp(wl_bigint_to_str(&a, buf, sizeof buf), "-17") == 0, "%s", buf);
    int64_t v;
    WL_CHECK(wl_bigint_to_i64(&a, &v) && v == -17, "to_i64");
    wl_bigint_from_i64(&b, 5);
    WL_CHECK(wl_bigint_cmp(&a, &b) < 0, "-17 < 5");
    wl_bigint_sub(&c, &b, &a);
    WL_CHECK(wl_bigint_to_i64(&c, &v) && v == 22, "5 - -17");
    WL_CHECK(wl_bigint_parse("12x", &a) == WL_ERR_PARSE, "bad digit");
    WL_CHECK(strstr(wl_last_error(), "position 3") != NULL, "%s", wl_last_error());
    WL_CHECK_OK(wl_bigint_parse("18446744073709551615", &a));
    uint64_t u;
    WL_CHECK(wl_bigint_to_u64(&a, &u) && u == UINT64_MAX, "u64 max");
}

static void test_pattern(unsigned long long seed) {
    wl_pattern *p = wl_pattern_new();
    uint64_t st = seed;
    /* Random cells over a wide range, mirrored in a plain list. */
    enum { N = 2000 };
    int64_t xs[N], ys[N];
    for (int i = 0; i < N; i++) {
        xs[i] = (int64_t)(wl_splitmix64(&st) % 3000) - 1500;
        ys[i] = (int64_t)(wl_splitmix64(&st) % 500) - 250;
        WL_CHECK_OK(wl_pattern_set(p, xs[i], ys[i], 1));
    }
    for (int i = 0; i < N; i++) WL_CHECK(wl_pattern_get(p, xs[i], ys[i]), "cell %d lost", i);
    wl_pattern *q = wl_pattern_clone(p);
    WL_CHECK(wl_pattern_equal_cells(p, q), "clone equal");
    WL_CHECK_OK(wl_pattern_set(q, 99999, 5, 1));
    WL_CHECK(!wl_pattern_equal_cells(p, q), "clone differs after set");
    wl_pattern_free(q);
    wl_pattern_clear(p);
    WL_CHECK(wl_pattern_population(p) == 0, "clear");
    WL_CHECK_OK(wl_pattern_set_run(p, -70, 3, 200));
    WL_CHECK(wl_pattern_population(p) == 200, "run pop %llu",
             (unsigned long long)wl_pattern_population(p));
    wl_rect r;
    WL_CHECK(wl_pattern_bounds(p, &r) && r.x == -70 && r.y == 3 && r.w == 200 && r.h == 1,
             "bounds %lld %lld %llu %llu", (long long)r.x, (long long)r.y,
             (unsigned long long)r.w, (unsigned long long)r.h);
    uint64_t words[4];
    wl_pattern_get_row(p, -71, 3, 130, words);
    WL_CHECK((words[0] & 1) == 0 && (words[0] >> 1) == (UINT64_MAX >> 1) && words[1] == UINT64_MAX &&
             words[2] == 3, "get_row");
    wl_pattern_free(p);
}

/* The placement rule: a W x H grid covers x from -floor(W/2) to W-1-floor(W/2). */
static void test_grid_placement(unsigned long long seed) {
    uint64_t st = seed ^ 0xabcdef;
    for (int trial = 0; trial < 20; trial++) {
        uint64_t w = 1 + wl_splitmix64(&st) % 150, h = 1 + wl_splitmix64(&st) % 40;
        wl_pattern *p = wl_pattern_new();
        for (int i = 0; i < 300; i++)
            wl_pattern_set(p, (int64_t)(wl_splitmix64(&st) % 400) - 200,
                           (int64_t)(wl_splitmix64(&st) % 100) - 50, 1);
        for (int topo = 0; topo < 2; topo++) {
            wl_grid g;
            WL_CHECK_OK(wl_grid_alloc(&g, w, h));
            uint64_t dropped = 0;
            WL_CHECK_OK(wl_grid_from_pattern(&g, p, (wl_topology)topo, &dropped));
            /* Check every grid cell against the rule, cell by cell. */
            uint64_t inside = 0;
            int64_t ox = (int64_t)(w / 2), oy = (int64_t)(h / 2);
            for (uint64_t y = 0; y < h; y++)
                for (uint64_t x = 0; x < w; x++) {
                    int want = 0;
                    if (topo == WL_TOPOLOGY_BOUNDED) {
                        want = wl_pattern_get(p, (int64_t)x - ox, (int64_t)y - oy);
                    } else {
                        for (int64_t py = (int64_t)y - oy - (int64_t)h * 200; py < 200; py += (int64_t)h)
                            for (int64_t px = (int64_t)x - ox - (int64_t)w * 400; px < 400 && !want;
                                 px += (int64_t)w)
                                if (px >= -200 && py >= -50 && wl_pattern_get(p, px, py)) want = 1;
                    }
                    inside += (uint64_t)want;
                    WL_CHECK(wl_grid_get(&g, x, y) == want, "%s %llux%llu cell %llu,%llu",
                             wl_topology_name((wl_topology)topo), (unsigned long long)w,
                             (unsigned long long)h, (unsigned long long)x, (unsigned long long)y);
                }
            if (topo == WL_TOPOLOGY_BOUNDED)
                WL_CHECK(inside + dropped == wl_pattern_population(p), "dropped count");
            /* Round trip back to a pattern. */
            wl_pattern *back;
            WL_CHECK_OK(wl_grid_to_pattern(&g, NULL, &back));
            WL_CHECK(wl_pattern_population(back) == wl_grid_population(&g), "to_pattern pop");
            wl_grid g2;
            WL_CHECK_OK(wl_grid_alloc(&g2, w, h));
            WL_CHECK_OK(wl_grid_from_pattern(&g2, back, (wl_topology)topo, NULL));
            WL_CHECK(memcmp(g.words, g2.words, g.h * g.stride * 8) == 0, "grid round trip");
            wl_grid_free(&g2);
            wl_pattern_free(back);
            wl_grid_free(&g);
        }
        wl_pattern_free(p);
    }
}

int main(void) {
    unsigned long long seed = wl_test_seed();
    test_bigint();
    test_pattern(seed);
    test_grid_placement(seed);
    return wl_test_finish("test_core");
}
