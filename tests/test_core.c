/*
 * test_core.c - big integers, patterns, the grid placement rule, and the CPU's features.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
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

/* ---- the tiled pattern against a plain model ------------------------------------------- */

#define MODEL_MAX 4096

/* A model pattern: a list of distinct live cells. */
typedef struct model {
    int64_t x[MODEL_MAX], y[MODEL_MAX];
    int n;
} model;

static int model_find(const model *m, int64_t x, int64_t y) {
    for (int i = 0; i < m->n; i++)
        if (m->x[i] == x && m->y[i] == y) return i;
    return -1;
}

static void model_set(model *m, int64_t x, int64_t y, int alive) {
    int i = model_find(m, x, y);
    if (alive && i < 0 && m->n < MODEL_MAX) {
        m->x[m->n] = x;
        m->y[m->n++] = y;
    } else if (!alive && i >= 0) {
        m->x[i] = m->x[--m->n];
        m->y[i] = m->y[m->n];
    }
}

/* A coordinate near one of a few far-apart centres (2^60, -2^40, 0, ...). */
static int64_t coord(uint64_t *st) {
    static const int64_t centre[] = {0, -64, 1000, -((int64_t)1 << 40), (int64_t)1 << 60,
                                     -((int64_t)1 << 60) + 100};
    uint64_t r = wl_splitmix64(st);
    return centre[r % 6] + (int64_t)((r >> 8) % 200) - 100;
}

typedef struct row_walk {
    const model *m;
    int64_t last_y;
    int rows, cells, bad;
} row_walk;

static wl_status walk_row(void *ctx, int64_t y, size_t n, const int64_t *x, const uint64_t *w) {
    row_walk *rw = ctx;
    if (rw->rows && y <= rw->last_y) rw->bad = 1; /* rows top to bottom */
    rw->last_y = y;
    rw->rows++;
    for (size_t k = 0; k < n; k++) {
        if (!w[k] || x[k] % 64 || (k && x[k] <= x[k - 1])) rw->bad = 1;
        for (uint64_t v = w[k]; v; v &= v - 1) {
            rw->cells++;
            if (model_find(rw->m, x[k] + __builtin_ctzll(v), y) < 0) rw->bad = 1;
        }
    }
    return WL_OK;
}

/* Random sets, clears, runs and ORs, then every query, the row walk, the tile orders and
 * round trips through every writer, all against the model. */
static void test_pattern_model(unsigned long long seed) {
    static model m;
    for (int round = 0; round < 6; round++) {
        uint64_t st = seed ^ (0xabcdef12345ull * (uint64_t)(round + 1));
        wl_pattern *p = wl_pattern_new();
        m.n = 0;
        for (int op = 0; op < 300 && m.n < MODEL_MAX - 160; op++) { /* room for a step */
            uint64_t r = wl_splitmix64(&st);
            int64_t x = coord(&st), y = coord(&st);
            switch (r % 5) {
            case 0: case 1:
                WL_CHECK_OK(wl_pattern_set(p, x, y, 1));
                model_set(&m, x, y, 1);
                break;
            case 2:
                WL_CHECK_OK(wl_pattern_set(p, x, y, 0));
                model_set(&m, x, y, 0);
                if (m.n) { /* clear a live one too */
                    int i = (int)((r >> 8) % (uint64_t)m.n);
                    WL_CHECK_OK(wl_pattern_set(p, m.x[i], m.y[i], 0));
                    model_set(&m, m.x[i], m.y[i], 0);
                }
                break;
            case 3: {
                uint64_t len = 1 + (r >> 8) % 80;
                WL_CHECK_OK(wl_pattern_set_run(p, x, y, len));
                for (uint64_t k = 0; k < len; k++) model_set(&m, x + (int64_t)k, y, 1);
                break;
            }
            default: {
                uint64_t bits = wl_splitmix64(&st) & wl_splitmix64(&st);
                WL_CHECK_OK(wl_pattern_or(p, x, y, bits));
                for (; bits; bits &= bits - 1) model_set(&m, x + __builtin_ctzll(bits), y, 1);
            }
            }
        }
        WL_CHECK(m.n < MODEL_MAX, "model full");
        WL_CHECK(wl_pattern_population(p) == (uint64_t)m.n, "population %llu, model %d",
                 (unsigned long long)wl_pattern_population(p), m.n);
        for (int i = 0; i < m.n; i++)
            WL_CHECK(wl_pattern_get(p, m.x[i], m.y[i]), "cell %d lost", i);
        /* Bounds. */
        wl_rect b;
        int any = wl_pattern_bounds(p, &b);
        WL_CHECK(any == (m.n > 0), "bounds any");
        for (int i = 0; i < m.n && any; i++)
            WL_CHECK(m.x[i] >= b.x && m.y[i] >= b.y && (uint64_t)(m.x[i] - b.x) < b.w &&
                     (uint64_t)(m.y[i] - b.y) < b.h, "cell %d outside the bounds", i);
        int edges = 0;
        for (int i = 0; i < m.n; i++)
            edges |= (m.x[i] == b.x) | (m.y[i] == b.y) * 2 |
                     (m.x[i] == b.x + (int64_t)b.w - 1) * 4 | (m.y[i] == b.y + (int64_t)b.h - 1) * 8;
        WL_CHECK(!m.n || edges == 15, "bounds not tight");
        /* Rows around live cells, at every alignment. */
        for (int i = 0; i < m.n && i < 200; i++) {
            uint64_t words[3];
            int64_t x0 = m.x[i] - (int64_t)(wl_splitmix64(&st) % 100);
            wl_pattern_get_row(p, x0, m.y[i], 150, words);
            for (int k = 0; k < 150; k++)
                WL_CHECK((int)(words[k / 64] >> (k % 64) & 1) ==
                             (model_find(&m, x0 + k, m.y[i]) >= 0), "row cell %d of %d", k, i);
        }
        /* The row walk: every live cell once, in order. */
        row_walk rw = {&m, 0, 0, 0, 0};
        WL_CHECK_OK(wl_pattern_each_row(p, walk_row, &rw));
        WL_CHECK(!rw.bad && rw.cells == m.n, "row walk: %d cells of %d, bad %d", rw.cells, m.n,
                 rw.bad);
        /* Quadtree order around an origin: each tile's quadrant sequence never goes back. */
        wl_tile_ref *v;
        size_t n;
        int64_t org = -((int64_t)1 << 56);
        WL_CHECK_OK(wl_pattern_tiles(p, WL_TILES_Z, org, org, &v, &n));
        for (size_t i = 1; i < n; i++) {
            uint64_t dx = v[i - 1].zx ^ v[i].zx, dy = v[i - 1].zy ^ v[i].zy;
            int ydec = !(dy < dx && dy < (dx ^ dy)); /* the higher top bit decides */
            int ok = ydec ? v[i - 1].zy < v[i].zy : v[i - 1].zx < v[i].zx;
            WL_CHECK(ok, "tile %zu out of quadtree order", i);
        }
        size_t cut[5];
        uint64_t half = (uint64_t)1 << 56;
        wl_tiles_split(v, 0, n, half, half, cut);
        for (int q = 0; q < 4; q++)
            for (size_t i = cut[q]; i < cut[q + 1]; i++)
                WL_CHECK((int)((v[i].zy >= half) * 2 + (v[i].zx >= half)) == q, "split");
        WL_CHECK(cut[4] == n, "split covers");
        free(v);
        /* A clone, and every writer and reader, give the same cells back. */
        wl_pattern *c = wl_pattern_clone(p);
        WL_CHECK(c && wl_pattern_equal_cells(p, c), "clone");
        wl_pattern_free(c);
        static const wl_format fmts[] = {WL_FORMAT_RLE, WL_FORMAT_LIFE106, WL_FORMAT_MACROCELL};
        for (int f = 0; f < 3; f++) {
            wl_pattern *back = NULL;
            WL_CHECK_OK(wl_test_round_trip(p, fmts[f], &back));
            WL_CHECK(back && wl_pattern_equal_cells(p, back), "round trip through %s",
                     wl_format_name(fmts[f]));
            wl_pattern_free(back);
        }
        wl_pattern_free(p);
    }
}

/* wl_cpu_has (two cpuid leaves and xgetbv) against libgcc's table of features, which
 * checks the same OS support: the kernels must not be chosen differently than before. */
static void test_cpu_features(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    const int f512 = __builtin_cpu_supports("avx512f") != 0;
    WL_CHECK(wl_cpu_has(WL_CPU_AVX2) == (__builtin_cpu_supports("avx2") != 0), "avx2");
    WL_CHECK(wl_cpu_has(WL_CPU_AVX512F) == f512, "avx512f");
    WL_CHECK(wl_cpu_has(WL_CPU_AVX512BW) == (f512 && __builtin_cpu_supports("avx512bw")),
             "avx512bw");
    WL_CHECK(wl_cpu_has(WL_CPU_AVX512VBMI) == (f512 && __builtin_cpu_supports("avx512vbmi")),
             "avx512vbmi");
    WL_CHECK(wl_cpu_has(WL_CPU_AVX512VBMI2) == (f512 && __builtin_cpu_supports("avx512vbmi2")),
             "avx512vbmi2");
    WL_CHECK(wl_cpu_has(WL_CPU_GFNI512) == (f512 && __builtin_cpu_supports("gfni")), "gfni");
    WL_CHECK(wl_cpu_has(WL_CPU_AVX512BW | WL_CPU_AVX512F) ==
                 (wl_cpu_has(WL_CPU_AVX512BW) && wl_cpu_has(WL_CPU_AVX512F)),
             "features together");
    WL_CHECK(!f512 || wl_cpu_has(WL_CPU_AVX2), "AVX-512 without AVX2");
#else
    WL_CHECK(!wl_cpu_has(WL_CPU_AVX2), "no x86 features off x86");
#endif
}

/* The thread pool on fewer of its threads (wl_pool_set_active): each job runs once on
 * each of threads 0 .. n - 1 and on no other, with n what was set last, through every
 * change up and down (a worker parked while the jobs left it out must take part again
 * from the first job that includes it: a lost one would hang the test). */
typedef struct pool_probe {
    int runs[8];
    int n_seen[8];
} pool_probe;

static void pool_probe_task(void *arg, int tid, int n) {
    pool_probe *p = arg;
    __atomic_add_fetch(&p->runs[tid], 1, __ATOMIC_RELAXED);
    p->n_seen[tid] = n;
}

static void test_pool_active(unsigned long long seed) {
    wl_pool *pool = wl_pool_create(5);
    WL_CHECK(pool != NULL, "pool of 5");
    if (!pool) return;
    unsigned long long x = seed | 1;
    int bad = 0;
    for (int job = 0; job < 3000 && !bad; job++) {
        if (job % 7 == 0) { /* (a new count every few jobs, 0 and 9 meaning all) */
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            wl_pool_set_active(pool, (int)(x % 10));
        }
        const int n = wl_pool_active(pool);
        pool_probe p = {{0}, {0}};
        wl_pool_run(pool, pool_probe_task, &p);
        for (int t = 0; t < 8; t++)
            if (p.runs[t] != (t < n) || (t < n && p.n_seen[t] != n)) bad = 1;
        WL_CHECK(n >= 1 && n <= 5, "pool: %d active of 5", n);
    }
    WL_CHECK(!bad, "pool: a job did not run once on each of its threads");
    wl_pool_destroy(pool);
}

/* wl_pool_run_any: jobs whose parts any thread takes from a counter, each part done
 * exactly once, mixed with wl_pool_run's jobs (each once on each thread) and changes of
 * the active count, with workers that are sometimes slow: a worker that wakes after its
 * "any" job closed must not take a seat in the next job, nor miss an ordinary one (a
 * missed one would hang the test, a doubled one count twice). */
typedef struct pool_parts {
    int next, n;
    int done[64];
    unsigned spin; /* busy-wait per part, to let workers fall behind */
} pool_parts;

static void pool_parts_task(void *arg, int tid, int n) {
    (void)tid;
    (void)n;
    pool_parts *p = arg;
    for (;;) {
        int i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);
        if (i >= p->n) break;
        for (volatile unsigned k = 0; k < p->spin; k++) {
        }
        __atomic_add_fetch(&p->done[i], 1, __ATOMIC_RELAXED);
    }
}

static void test_pool_any(unsigned long long seed, int lag) {
    if (lag) setenv("WL_POOL_LAG", "20000", 1); /* (read when the pool is made) */
    wl_pool *pool = wl_pool_create(4);
    if (lag) unsetenv("WL_POOL_LAG");
    WL_CHECK(pool != NULL, "pool of 4");
    if (!pool) return;
    unsigned long long x = seed | 1;
    int bad_any = 0, bad_all = 0;
    for (int job = 0; job < (lag ? 1000 : 4000) && !bad_any && !bad_all; job++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        if (job % 11 == 0) wl_pool_set_active(pool, (int)(x % 6)); /* (0 and 5: all) */
        if (x >> 40 & 1) {
            pool_parts p = {0};
            p.n = 1 + (int)(x >> 20 & 63);
            p.spin = (x >> 30 & 3) == 0 ? 20000 : 0;
            wl_pool_run_any(pool, pool_parts_task, &p);
            for (int i = 0; i < 64; i++)
                if (p.done[i] != (i < p.n)) bad_any = 1;
        } else {
            const int n = wl_pool_active(pool);
            pool_probe p = {{0}, {0}};
            wl_pool_run(pool, pool_probe_task, &p);
            for (int t = 0; t < 8; t++)
                if (p.runs[t] != (t < n) || (t < n && p.n_seen[t] != n)) bad_all = 1;
        }
    }
    WL_CHECK(!bad_any, "pool: a part of an \"any\" job was not done exactly once");
    WL_CHECK(!bad_all, "pool: a job did not run once on each of its threads beside \"any\" jobs");
    wl_pool_destroy(pool);
}

int main(void) {
    unsigned long long seed = wl_test_seed();
    test_cpu_features();
    test_pool_active(seed);
    test_pool_any(seed, 0);
    test_pool_any(seed, 1); /* (workers that pause after seeing each job: they come late) */
    test_bigint();
    test_pattern(seed);
    test_pattern_model(seed);
    test_grid_placement(seed);
    return wl_test_finish("test_core");
}
