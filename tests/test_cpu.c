/*
 * test_cpu.c - every kernel of the `cpu` engine against a direct cell-by-cell stepper
 * written here (the rule table applied to each cell's 3x3 neighbourhood), on fresh random
 * soups: random sizes plus edge cases (1x1, 64x1, 70x3, 129x2, widths around multiples of
 * 64 and 512), both topologies, Life, random outer-totalistic rules (B0 included) and
 * random non-totalistic tables, generation counts that are not multiples of the blocking
 * depth; a small soup in a large dead grid (dead tiles are skipped until activity reaches
 * them).  Also checks interruption through cfg->poll and the unavailable-kernel error, and
 * every tile kernel of the sparse engine on random tiles (check_tile_kernels).
 * WL_TEST_QUICK=1 shrinks the sizes (sanitizer builds).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */

#include "internal.h"
#include "wltest.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rng;

static void rule_from_masks(wl_rule *r, unsigned birth, unsigned survive) {
    memset(r, 0, sizeof *r);
    for (unsigned i = 0; i < 512; i++) {
        unsigned n = (unsigned)__builtin_popcount(i & 0x1EF);
        unsigned alive = (i >> 4) & 1;
        if (((alive ? survive : birth) >> n) & 1) r->table[i >> 6] |= (uint64_t)1 << (i & 63);
    }
}

/* One generation of g into out (same size, zeroed by the caller). */
static void ref_step(const wl_grid *g, wl_grid *out, const wl_rule *r, int torus) {
    for (uint64_t y = 0; y < g->h; y++)
        for (uint64_t x = 0; x < g->w; x++) {
            unsigned idx = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int64_t yy = (int64_t)y + dy, xx = (int64_t)x + dx;
                    int v;
                    if (torus) {
                        v = wl_grid_get(g, (uint64_t)wl_mod(xx, (int64_t)g->w),
                                        (uint64_t)wl_mod(yy, (int64_t)g->h));
                    } else {
                        v = xx >= 0 && yy >= 0 && (uint64_t)xx < g->w && (uint64_t)yy < g->h
                                ? wl_grid_get(g, (uint64_t)xx, (uint64_t)yy)
                                : 0;
                    }
                    idx = idx << 1 | (unsigned)v;
                }
            if (wl_rule_next(r, idx)) wl_grid_set(out, x, y, 1);
        }
}

static int patch; /* soups fill only a 40x40 patch (the rest dead: tiles that are skipped
                     until the patch's activity reaches them) */

static void random_grid(wl_grid *g, double density) {
    uint64_t x0 = 0, y0 = 0, x1 = g->w, y1 = g->h;
    if (patch && g->w > 40 && g->h > 40) {
        /* (at either edge, or ending or starting at a vector of 512 cells, as often as
         * anywhere else: a bounded band-mode tile computes the vectors of the live words
         * and one word each side, bounds that meet the grid's or a vector's there) */
        uint64_t where = wl_splitmix64(&rng) % 5;
        x0 = where == 0 ? 0 : where == 1 ? g->w - 40 : wl_splitmix64(&rng) % (g->w - 40);
        if (where >= 3 && g->w >= 512 + 40) x0 = where == 3 ? 512 - 40 : 512;
        y0 = wl_splitmix64(&rng) % (g->h - 40);
        x1 = x0 + 40;
        y1 = y0 + 40;
    }
    for (uint64_t y = y0; y < y1; y++)
        for (uint64_t x = x0; x < x1; x++)
            wl_grid_set(g, x, y, (wl_splitmix64(&rng) >> 11) * (1.0 / 9007199254740992.0) < density);
}

static int grids_equal(const wl_grid *a, const wl_grid *b, uint64_t *bx, uint64_t *by) {
    for (uint64_t y = 0; y < a->h; y++)
        for (uint64_t x = 0; x < a->w; x++)
            if (wl_grid_get(a, x, y) != wl_grid_get(b, x, y)) {
                *bx = x;
                *by = y;
                return 0;
            }
    return 1;
}

static int poll_calls;
static int poll_stop(void *u) {
    (void)u;
    return ++poll_calls >= 2;
}

/* Runs kernel k on a w x h soup for `gens` generations and compares with ref_step. */
static void check_one(const char *kernel, uint64_t w, uint64_t h, int torus, const wl_rule *r,
                      const char *rname, unsigned gens, int threads) {
    wl_universe *u = NULL;
    wl_status s = wl_test_make("cpu", kernel, torus ? WL_TOPOLOGY_TORUS : WL_TOPOLOGY_BOUNDED,
                               w, h, r, threads, &u);
    if (s == WL_ERR_UNAVAILABLE) return; /* SIMD kernel on a CPU without it */
    WL_CHECK(s == WL_OK, "create %s %llux%llu: %s", kernel, (unsigned long long)w,
             (unsigned long long)h, wl_last_error());
    if (s) return;
    const wl_engine_ops *ops = wl_universe_ops(u);
    wl_grid a, b;
    wl_grid_alloc(&a, w, h);
    wl_grid_alloc(&b, w, h);
    random_grid(&a, 0.1 + 0.5 * (double)(wl_splitmix64(&rng) % 100) / 100.0);
    WL_CHECK_OK(ops->load_grid(wl_universe_ctx(u), &a));
    /* step in two chunks to exercise partial passes */
    unsigned g1 = gens / 3;
    WL_CHECK_OK(wl_universe_step(u, g1));
    WL_CHECK_OK(wl_universe_step(u, gens - g1));
    for (unsigned i = 0; i < gens; i++) {
        memset(b.words, 0, b.stride * b.h * 8);
        ref_step(&a, &b, r, torus);
        wl_grid t = a;
        a = b;
        b = t;
    }
    memset(b.words, 0, b.stride * b.h * 8);
    WL_CHECK_OK(ops->store_grid(wl_universe_ctx(u), &b));
    uint64_t bx = 0, by = 0;
    int eq = grids_equal(&a, &b, &bx, &by);
    WL_CHECK(eq, "kernel %s %llux%llu %s rule %s gens %u threads %d: first difference at (%llu,%llu)",
             kernel, (unsigned long long)w, (unsigned long long)h, torus ? "torus" : "bounded",
             rname, gens, threads, (unsigned long long)bx, (unsigned long long)by);
    wl_bigint pop;
    WL_CHECK_OK(wl_universe_population(u, &pop));
    uint64_t p64 = 0;
    wl_bigint_to_u64(&pop, &p64);
    WL_CHECK(p64 == wl_grid_population(&a), "population %llu vs %llu", (unsigned long long)p64,
             (unsigned long long)wl_grid_population(&a));
    wl_grid_free(&a);
    wl_grid_free(&b);
    wl_universe_free(u);
}

/* check_one of kernel on a side x side torus under rule `text`, with environment variable
 * var set to val; then the cache directory dir must hold `objects` compiled objects. */
static void check_fresh_rule(const char *var, const char *val, const char *kernel,
                             uint64_t side, const char *text, unsigned gens, int threads,
                             const char *dir, int objects) {
    wl_rule r;
    WL_CHECK_OK(wl_rule_parse(text, &r));
    char label[128];
    snprintf(label, sizeof label, "%s with %s=%s", text, var, val);
    setenv(var, val, 1);
    check_one(kernel, side, side, 1, &r, label, gens, threads);
    unsetenv(var);
    WL_CHECK(wl_test_dir_find(dir, "cpu-", NULL, 0) == objects,
             "%s: %d objects in the cache, not %d", label, wl_test_dir_find(dir, "cpu-", NULL, 0),
             objects);
}

/* The circuit kernel's three ways to run a rule's network (circuit_jit.c, simd_circuit.c):
 * compiled by the system C compiler into a fresh cache directory (one object left there),
 * interpreted with WL_CPU_JIT=off, and interpreted when the compiler (WL_CC) does not exist
 * (nothing cached); and best switching to a network it compiles mid-run; each against
 * ref_step. */
static void check_circuit_paths(void) {
    wl_universe *probe = NULL;
    wl_rule r;
    WL_CHECK_OK(wl_rule_parse("B3-cnqy/S23-a4ityz", &r));
    if (wl_test_make("cpu", "circuit", WL_TOPOLOGY_TORUS, 64, 64, &r, 1, &probe) ==
        WL_ERR_UNAVAILABLE) {
        printf("circuit paths: skipped (no AVX-512)\n");
        return;
    }
    wl_universe_free(probe);
    char dir[] = "/tmp/wl-test-jit-XXXXXX";
    WL_CHECK(mkdtemp(dir) != NULL, "mkdtemp failed");
    wl_test_env old_cache = wl_test_env_set("WL_CACHE_DIR", dir);
    /* a rule no earlier check compiled in this process: the first universe compiles it */
    wl_rule fresh;
    WL_CHECK_OK(wl_rule_parse("B2ce3-ik4ak/S1e2-a5", &fresh));
    check_one("circuit", 200, 37, 1, &fresh, "B2ce3-ik4ak/S1e2-a5 compiled", 9, 1);
    /* compiled objects are "cpu-*" (rule networks, "net-*", sit beside them) */
    WL_CHECK(wl_test_dir_find(dir, "cpu-", NULL, 0) == 1,
             "%d objects in the cache after one compile", wl_test_dir_find(dir, "cpu-", NULL, 0));
    check_one("best", 131, 70, 0, &fresh, "B2ce3-ik4ak/S1e2-a5 best", 11, 2);
    setenv("WL_CPU_JIT", "off", 1);
    check_one("circuit", 200, 37, 0, &fresh, "B2ce3-ik4ak/S1e2-a5 interpreted", 9, 1);
    unsetenv("WL_CPU_JIT");
    /* without a compiler: nothing more cached */
    check_fresh_rule("WL_CC", "/nonexistent/cc", "circuit", 70, "B3-q4z5y/S234k6c", 7, 1, dir, 1);
    /* best on a big grid of a rule not in the cache: another kernel first, then (compiled
     * after its first pass here, WL_CPU_JIT_AFTER=0) the network, within one run */
    check_fresh_rule("WL_CPU_JIT_AFTER", "0", "best", 2048, "B3-e4r/S2-i34q", 12, 2, dir, 2);
    wl_test_dir_remove(dir);
    wl_test_env_restore(&old_cache);
}

/* The tile kernels (the cpu engine's tile_kernel slot, run by the sparse engine): every
 * kernel on random jobs (a 3x3 block of random 64x64 tiles, some empty or sparse, a random
 * old output and a random set of bricks) against the rule applied to each cell; the rows of
 * bricks not asked for must stay as they were, and the changed-row, column-0, column-63 and
 * live-brick results must be exact. */
static void check_tile_kernels(int quick) {
    const wl_engine_ops *cpu = wl_engine_find("cpu");
    WL_CHECK(cpu && cpu->tile_kernel, "the cpu engine has no tile kernels");
    if (!cpu || !cpu->tile_kernel) return;
    static const char *const kernels[] = {"best",      "avx512", "avx2",   "vpermb",
                                          "circuit",   "bitsliced", "lut6x3", "lut4x4"};
    uint64_t *buf = wl_aligned_alloc(11 * WL_TILE * sizeof *buf);
    WL_CHECK(buf != NULL, "out of memory");
    if (!buf) return;
    for (size_t ki = 0; ki < sizeof kernels / sizeof kernels[0]; ki++) {
        for (int round = 0; round < 3; round++) {
            wl_config cfg;
            wl_config_init(&cfg);
            char rname[64];
            if (round == 0) {
                wl_rule_life(&cfg.rule);
                snprintf(rname, sizeof rname, "B3/S23");
            } else if (round == 1) { /* outer-totalistic, no B0 */
                unsigned b = (unsigned)(wl_splitmix64(&rng) & 0x1FE),
                         sv = (unsigned)(wl_splitmix64(&rng) & 0x1FF);
                rule_from_masks(&cfg.rule, b, sv);
                snprintf(rname, sizeof rname, "masks b=%#x s=%#x", b, sv);
            } else { /* a random table without B0 */
                for (int i = 0; i < 8; i++) cfg.rule.table[i] = wl_splitmix64(&rng);
                cfg.rule.table[0] &= ~(uint64_t)1;
                snprintf(rname, sizeof rname, "random table %016llx..",
                         (unsigned long long)cfg.rule.table[0]);
            }
            cfg.kernel = kernels[ki];
            wl_tile_kernel k;
            wl_status st = cpu->tile_kernel(&cfg, &k);
            if (st == WL_ERR_UNAVAILABLE) { /* a kernel this CPU lacks */
                wl_clear_error();
                continue;
            }
            WL_CHECK(st == WL_OK, "tile kernel %s, rule %s: %s", kernels[ki], rname,
                     wl_last_error());
            if (st) continue;
            int bad = 0;
            for (int it = 0; it < (quick ? 60 : 400) && !bad; it++) {
                /* tiles: random, sparse (one word in eight), or empty */
                for (int d = 0; d < 10; d++) {
                    int kind = (int)(wl_splitmix64(&rng) % 4);
                    for (int r = 0; r < WL_TILE; r++) {
                        uint64_t v = wl_splitmix64(&rng);
                        if (kind == 1) v &= wl_splitmix64(&rng) & wl_splitmix64(&rng);
                        if (kind == 2 && (r & 7)) v = 0;
                        if (kind == 3 && d < 9) v = 0;
                        buf[WL_TILE * d + r] = v;
                    }
                }
                wl_tile_job j;
                for (int d = 0; d < 9; d++) j.in[d] = buf + WL_TILE * d;
                j.out = buf + WL_TILE * 9;
                j.bricks = (unsigned)(wl_splitmix64(&rng) & 0xFF);
                if (it % 5 == 0) j.bricks = 0xFF;
                uint64_t old[WL_TILE];
                memcpy(old, j.out, sizeof old);
                k.step(&j, k.data);
                /* cell (x, y) of the 192 x 192 block, tile (0, 0) at its centre */
                uint64_t chg = 0, chg_w = 0, chg_e = 0;
                unsigned live = 0;
                for (int y = 0; y < WL_TILE && !bad; y++) {
                    uint64_t want = old[y];
                    if (j.bricks >> (y / WL_BRICK) & 1) {
                        want = 0;
                        for (int x = 0; x < 64; x++) {
                            unsigned idx = 0;
                            for (int dy = -1; dy <= 1; dy++)
                                for (int dx = -1; dx <= 1; dx++) {
                                    int xx = x + dx, yy = y + dy;
                                    int tx = xx < 0 ? -1 : xx > 63 ? 1 : 0;
                                    int ty = yy < 0 ? -1 : yy > 63 ? 1 : 0;
                                    static const int nb[3][3] = {{WL_NB_NW, WL_NB_N, WL_NB_NE},
                                                                 {WL_NB_W, WL_NB_C, WL_NB_E},
                                                                 {WL_NB_SW, WL_NB_S, WL_NB_SE}};
                                    const uint64_t *t = j.in[nb[ty + 1][tx + 1]];
                                    idx = idx << 1 | (unsigned)(t[(yy + 64) & 63] >> ((xx + 64) & 63) & 1);
                                }
                            if (cfg.rule.table[idx >> 6] >> (idx & 63) & 1) want |= (uint64_t)1 << x;
                        }
                        uint64_t dlt = want ^ old[y];
                        if (dlt) chg |= (uint64_t)1 << y;
                        if (dlt & 1) chg_w |= (uint64_t)1 << y;
                        if (dlt >> 63) chg_e |= (uint64_t)1 << y;
                        if (want) live |= 1u << (y / WL_BRICK);
                    }
                    if (j.out[y] != want) {
                        WL_CHECK(0, "tile kernel %s (%s), rule %s, bricks %#x: row %d is %016llx, "
                                 "want %016llx", kernels[ki], k.name, rname, j.bricks, y,
                                 (unsigned long long)j.out[y], (unsigned long long)want);
                        bad = 1;
                    }
                }
                if (bad) break;
                WL_CHECK(j.chg == chg && j.chg_w == chg_w && j.chg_e == chg_e && j.live == live,
                         "tile kernel %s (%s), rule %s, bricks %#x: changes %016llx/%016llx/%016llx "
                         "live %#x, want %016llx/%016llx/%016llx live %#x", kernels[ki], k.name,
                         rname, j.bricks, (unsigned long long)j.chg, (unsigned long long)j.chg_w,
                         (unsigned long long)j.chg_e, j.live, (unsigned long long)chg,
                         (unsigned long long)chg_w, (unsigned long long)chg_e, live);
                bad = j.chg != chg || j.chg_w != chg_w || j.chg_e != chg_e || j.live != live;
            }
            cpu->tile_kernel_free(&k);
        }
    }
    wl_aligned_free(buf);
}

int main(void) {
    rng = wl_test_seed();
    check_circuit_paths();
    check_tile_kernels(getenv("WL_TEST_QUICK") && atoi(getenv("WL_TEST_QUICK")));
    int quick = getenv("WL_TEST_QUICK") && atoi(getenv("WL_TEST_QUICK"));
    const char *const *kernels;
    size_t nk;
    WL_CHECK_OK(wl_engine_kernels("cpu", &kernels, &nk));
    WL_CHECK(nk == 11, "cpu engine lists %zu kernels", nk);

    static const uint64_t sizes[][2] = {
        {1, 1}, {64, 1}, {70, 3}, {129, 2}, {1, 64}, {2, 129}, {3, 5}, {63, 17}, {65, 9},
        {512, 40}, {1024, 21}, {128, 70}, {200, 37}, {4100, 6}, {511, 12}, {513, 12}};
    size_t nsizes = sizeof sizes / sizeof sizes[0];

    for (size_t ki = 0; ki < nk; ki++) {
        const char *k = kernels[ki];
        for (int round = 0; round < (quick ? 2 : 5); round++) {
            /* a rule: Life, a random outer-totalistic one (B0 sometimes), or a random table */
            wl_rule r;
            char rname[64];
            int kind = round % 3;
            if (kind == 0) {
                wl_rule_life(&r);
                snprintf(rname, sizeof rname, "B3/S23");
            } else if (kind == 1) {
                unsigned b = (unsigned)(wl_splitmix64(&rng) & 0x1FF),
                         s = (unsigned)(wl_splitmix64(&rng) & 0x1FF);
                if (round == 1) b &= ~1u;
                rule_from_masks(&r, b, s);
                snprintf(rname, sizeof rname, "masks b=%#x s=%#x", b, s);
            } else {
                memset(&r, 0, sizeof r); /* (a two-state rule: family 0) */
                for (int i = 0; i < 8; i++) r.table[i] = wl_splitmix64(&rng);
                snprintf(rname, sizeof rname, "random table %016llx..",
                         (unsigned long long)r.table[0]);
            }
            for (size_t si = 0; si < nsizes; si++) {
                uint64_t w = sizes[si][0], h = sizes[si][1];
                if (quick && w * h > 5000) continue;
                unsigned gens = 1 + (unsigned)(wl_splitmix64(&rng) % 37);
                int threads = 1 + (int)(wl_splitmix64(&rng) % 3);
                check_one(k, w, h, (int)(si + (size_t)round) & 1, &r, rname, gens, threads);
            }
            /* a very wide, very flat grid (the widest rows a 65536^2 universe has) */
            if (round == 0 && !quick)
                check_one(k, 65536, 2, 1, &r, rname, 1 + (unsigned)(wl_splitmix64(&rng) % 5), 2);
            /* one random size per round */
            uint64_t w = 1 + wl_splitmix64(&rng) % (quick ? 90 : 700);
            uint64_t h = 1 + wl_splitmix64(&rng) % (quick ? 40 : 90);
            check_one(k, w, h, round & 1, &r, rname, 1 + (unsigned)(wl_splitmix64(&rng) % 40),
                      2);
        }
    }

    /* a small soup in a large dead grid, run long enough to reach tiles that were dead
     * (and skipped) at first: band mode and general mode, torus and bounded */
    patch = 1;
    {
        wl_rule life;
        wl_rule_life(&life);
        static const uint64_t big[][2] = {{1024, 300}, {700, 260}, {1536, 200}};
        for (int i = 0; i < (quick ? 6 : 15); i++) {
            /* (small tile buffers: small tiles, many of them dead; widths of 512-cell
             * vectors run in band mode when the buffers hold enough of their rows) */
            setenv("WL_CPU_TILE_KB", i % 3 == 1 ? "16" : "64", 1);
            check_one("best", big[i % 3][0], big[i % 3][1], i >= 12, &life, "B3/S23 patch",
                      quick ? 40 : 90 + (unsigned)(wl_splitmix64(&rng) % 40), 2);
        }
    }
    patch = 0;
    unsetenv("WL_CPU_TILE_KB");

    /* the rules the AVX-512 kernel compiles specially (CPU_POPULAR_RULES in cpu_internal.h)
     * on a band-mode torus and a masked bounded grid, for the kernels that use them */
    {
        static const unsigned popular[][2] = {
            {0x048, 0x00c}, {0x1c8, 0x1d8}, {0x004, 0x000}, {0x0aa, 0x0aa}, {0x148, 0x034},
            {0x008, 0x03e}, {0x008, 0x01e}, {0x048, 0x026}, {0x008, 0x1ff}, {0x1e8, 0x1e0},
            {0x1d0, 0x1e8}, {0x188, 0x1ec}, {0x108, 0x00c}, {0x088, 0x00c}, {0x038, 0x020},
            {0x0a8, 0x12a}, {0x038, 0x0f0}, {0x008, 0x1f0}, {0x002, 0x002}, {0x01c, 0x000},
            {0x1c8, 0x1ec}, {0x1f0, 0x03c}, {0x1e0, 0x1f0}, {0x018, 0x018}, {0x004, 0x001},
            {0x008, 0x00d}, {0x1e4, 0x1e0}, {0x0e8, 0x1e2}, {0x1e8, 0x1d0}, {0x0a8, 0x10c},
            {0x008, 0x00a}, {0x188, 0x1ff}, {0x008, 0x016}};
        static const char *const ks[] = {"best", "avx512"};
        for (size_t i = 0; i < sizeof popular / sizeof popular[0]; i++) {
            wl_rule r;
            char rname[64];
            rule_from_masks(&r, popular[i][0], popular[i][1]);
            snprintf(rname, sizeof rname, "masks b=%#x s=%#x", popular[i][0], popular[i][1]);
            for (int j = 0; j < 2; j++) {
                /* every other rule with the AVX-512F-only loops (no VBMI2 funnel shifts) */
                if (i & 1) setenv("WL_CPU_NO_VBMI2", "1", 1);
                else unsetenv("WL_CPU_NO_VBMI2");
                check_one(ks[j], 1024, quick ? 5 : 19, 1, &r, rname,
                          1 + (unsigned)(wl_splitmix64(&rng) % 37), 2);
                check_one(ks[j], quick ? 70 : 200, quick ? 9 : 37, 0, &r, rname,
                          1 + (unsigned)(wl_splitmix64(&rng) % 37), 2);
            }
        }
        /* Life and generic rules without VBMI2 as well */
        setenv("WL_CPU_NO_VBMI2", "1", 1);
        wl_rule life, any;
        wl_rule_life(&life);
        rule_from_masks(&any, 0x1A5, 0x0F3);
        check_one("avx512", 1024, 13, 1, &life, "B3/S23 (no VBMI2)", 21, 1);
        check_one("best", 333, 41, 0, &life, "B3/S23 (no VBMI2)", 35, 2);
        check_one("best", 512, 30, 1, &any, "b=0x1a5 s=0xf3 (no VBMI2)", 33, 2);
        check_one("avx512", 130, 17, 0, &any, "b=0x1a5 s=0xf3 (no VBMI2)", 19, 1);
        unsetenv("WL_CPU_NO_VBMI2");
    }

    /* a pool whose workers could not all start: the calling thread runs their shares
     * (WL_POOL_START=n starts n - 1 of them) */
    {
        wl_rule life;
        wl_rule_life(&life);
        static const char *const starts[] = {"1", "2", "3"};
        for (int i = 0; i < 3; i++) {
            setenv("WL_POOL_START", starts[i], 1);
            check_one("best", 1024, 300, i & 1, &life, "B3/S23 (workers missing)", 37, 4);
            check_one("best", 200, 90, 0, &life, "B3/S23 (workers missing)", 21, 3);
        }
        unsetenv("WL_POOL_START");
    }

    /* interruption: poll stops after the second check; `done` is consistent */
    {
        wl_config cfg;
        wl_config_init(&cfg);
        cfg.engine = "cpu";
        cfg.width = 256;
        cfg.height = 64;
        cfg.poll = poll_stop;
        wl_universe *u = NULL;
        WL_CHECK_OK(wl_universe_create(&cfg, &u));
        if (u) {
            poll_calls = 0;
            wl_status s = wl_universe_step(u, 1000);
            WL_CHECK(s == WL_ERR_INTERRUPTED, "step returned %s", wl_status_str(s));
            wl_bigint gen;
            wl_universe_generation(u, &gen);
            uint64_t g = 0;
            wl_bigint_to_u64(&gen, &g);
            WL_CHECK(g > 0 && g < 1000, "interrupted at generation %llu", (unsigned long long)g);
            wl_universe_free(u);
        }
    }
    /* SIMD kernels: either run (checked above) or refuse with WL_ERR_UNAVAILABLE */
    {
        wl_config cfg;
        wl_config_init(&cfg);
        cfg.engine = "cpu";
        cfg.kernel = "avx512";
        cfg.width = cfg.height = 8;
        wl_universe *u = NULL;
        wl_status s = wl_universe_create(&cfg, &u);
        WL_CHECK(s == WL_OK || s == WL_ERR_UNAVAILABLE, "avx512 create: %s", wl_status_str(s));
        if (s == WL_OK) wl_universe_free(u);
        else printf("note: %s\n", wl_last_error());
    }
    return wl_test_finish("test_cpu");
}
