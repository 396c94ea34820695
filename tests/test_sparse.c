/*
 * test_sparse.c - the sparse engine on the plane: against HashLife on larger soups and
 * longer runs than test_engines uses (tiles crossed in every direction, growth past many
 * tiles, generation counts that end mid-pass), under random rules of every kind; sleeping
 * and waking (a glider hitting a settled field far away, a field of blinkers stepped 10^15
 * generations at once); and the errors (B0 rules, the edge of the plane).
 *
 * test_engines already compares every kernel with `ref` on small soups, and test_classic
 * checks the R-pentomino, acorn and the Gosper gun on every engine.
 *
 * Usage: test_sparse [--quick]   (WL_TEST_QUICK=1 = --quick: fewer and smaller cases)
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "wltest.h"
#include "../src/engine/sparse/sparse_internal.h" /* the ships' counters */

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int quick;

static uint64_t mix(uint64_t a, uint64_t b) {
    uint64_t z = a ^ (b + 0x9E3779B97F4A7C15ull + (a << 6) + (a >> 2));
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A universe of the engine on the plane. */
static wl_status make(const char *engine, const char *kernel, const wl_rule *rule,
                      wl_universe **u) {
    return wl_test_make(engine, kernel, WL_TOPOLOGY_PLANE, 0, 0, rule, 0, u);
}

/* The engine and HashLife on the plane under `rule`, both loaded with p; 0 (a failed check
 * says why) when either could not be made. */
static int pair(const char *engine, const wl_rule *rule, const wl_pattern *p, wl_universe **a,
                wl_universe **hl) {
    *a = *hl = NULL;
    WL_CHECK_OK(make(engine, NULL, rule, a));
    WL_CHECK_OK(make("hashlife", NULL, rule, hl));
    if (!*a || !*hl) return 0;
    WL_CHECK_OK(wl_universe_load(*a, p, NULL));
    WL_CHECK_OK(wl_universe_load(*hl, p, NULL));
    return 1;
}

/* A random rule without B0: kind 0 outer-totalistic, 1 isotropic (a random table made
 * symmetric under the 8 rotations and reflections), 2 any table (MAP). */
static void random_rule(uint64_t seed, int kind, wl_rule *r) {
    memset(r, 0, sizeof *r);
    if (kind == 0) {
        uint64_t bits = mix(seed, 1);
        for (unsigned idx = 0; idx < 512; idx++) {
            unsigned n = (unsigned)__builtin_popcount(idx & ~16u), alive = (idx >> 4) & 1;
            if ((bits >> (alive * 9 + n)) & 1) r->table[idx >> 6] |= (uint64_t)1 << (idx & 63);
        }
    } else {
        for (unsigned idx = 0; idx < 512; idx++) {
            unsigned rep = idx;
            if (kind == 1) { /* the smallest index of the neighbourhood's symmetry class */
                static const int rot[9] = {6, 3, 0, 7, 4, 1, 8, 5, 2}; /* 90 degrees */
                static const int ref[9] = {2, 1, 0, 5, 4, 3, 8, 7, 6}; /* mirror */
                unsigned v = idx;
                for (int m = 0; m < 2; m++) {
                    for (int k = 0; k < 4; k++) {
                        unsigned w = 0;
                        for (int b = 0; b < 9; b++)
                            if ((v >> (8 - rot[b])) & 1) w |= 1u << (8 - b);
                        v = w;
                        if (v < rep) rep = v;
                    }
                    unsigned w = 0;
                    for (int b = 0; b < 9; b++)
                        if ((v >> (8 - ref[b])) & 1) w |= 1u << (8 - b);
                    v = w;
                }
            }
            if (mix(seed, rep + 7) & 1) r->table[idx >> 6] |= (uint64_t)1 << (idx & 63);
        }
    }
    r->table[0] &= ~(uint64_t)1; /* no B0 */
}


/* Adds an RLE-like picture ('o' alive) at (x, y). */
static void draw(wl_pattern *p, int64_t x, int64_t y, const char *const *rows, int n) {
    for (int j = 0; j < n; j++)
        for (int i = 0; rows[j][i]; i++)
            if (rows[j][i] == 'o') wl_pattern_set(p, x + i, y + j, 1);
}

/* The Gosper glider gun: 36 + 5n cells at generation 30n. */
static const char *const gosper_gun[] = {
    "........................o...........", "......................o.o...........",
    "............oo......oo............oo", "...........o...o....oo............oo",
    "oo........o.....o...oo..............", "oo........o...o.oo....o.o...........",
    "..........o.....o.......o...........", "...........o...o....................",
    "............oo......................"};

/* Random soups under random rules, stepped in uneven chunks, against HashLife. */
static void test_soups(uint64_t seed) {
    /* (every kernel meets every kind of rule: best and circuit compile the network of a
     * rule that is not outer-totalistic into a tile kernel) */
    static const char *const kernels[] = {"best", "vpermb", "circuit", "bitsliced", "lut6x3"};
    int cases = quick ? 6 : 24;
    for (int i = 0; i < cases; i++) {
        uint64_t cs = mix(seed, (uint64_t)i);
        wl_rule rule;
        int kind = i % 4 == 3 ? 0 : i % 3;
        if (i % 4 == 3) wl_rule_life(&rule);
        else random_rule(cs, kind, &rule);
        uint64_t w = 40 + mix(cs, 2) % (quick ? 80 : 160), h = 40 + mix(cs, 3) % (quick ? 80 : 160);
        int64_t x0 = (int64_t)(mix(cs, 4) % 1000) - 500, y0 = (int64_t)(mix(cs, 5) % 1000) - 500;
        if (i % 5 == 4) x0 += (int64_t)1 << 40, y0 -= (int64_t)1 << 41; /* far from the origin */
        double density = 0.1 + 0.5 * (double)(mix(cs, 6) % 1000) / 1000.0;
        const char *kernel = kernels[(i + i / 3) % 5];
        wl_pattern *soup = wl_pattern_new();
        wl_rect r = {x0, y0, w, h};
        WL_CHECK_OK(wl_pattern_random(soup, &r, density, cs));
        wl_universe *sp = NULL, *hl = NULL;
        wl_status s = make("sparse", kernel, &rule, &sp);
        if (s == WL_ERR_UNAVAILABLE) { /* e.g. a kernel this CPU lacks */
            printf("skipped: sparse/%s: %s\n", kernel, wl_last_error());
            wl_pattern_free(soup);
            continue;
        }
        WL_CHECK_OK(s);
        WL_CHECK_OK(make("hashlife", NULL, &rule, &hl));
        if (!sp || !hl) {
            wl_universe_free(sp);
            wl_universe_free(hl);
            wl_pattern_free(soup);
            continue;
        }
        WL_CHECK_OK(wl_universe_load(sp, soup, NULL));
        WL_CHECK_OK(wl_universe_load(hl, soup, NULL));
        /* chunks that end mid-pass: odd, even, one, and long ones */
        uint64_t steps[5] = {1 + mix(cs, 7) % 37, 1, 2 + mix(cs, 8) % 64, 16, 50 + mix(cs, 9) % 100};
        int nsteps = quick ? 3 : 5;
        for (int k = 0; k < nsteps; k++) {
            WL_CHECK_OK(wl_universe_step(sp, steps[k]));
            WL_CHECK_OK(wl_universe_step(hl, steps[k]));
            char what[WL_RULE_TEXT_MAX + 200], rt[WL_RULE_TEXT_MAX];
            wl_rule_format(&rule, rt, sizeof rt);
            snprintf(what, sizeof what, "case %d (%s, kernel %s, %llux%llu at %lld,%lld, step %d)",
                     i, rt, kernel, (unsigned long long)w, (unsigned long long)h,
                     (long long)x0, (long long)y0, k);
            wl_test_same(sp, hl, what);
        }
        wl_universe_free(sp);
        wl_universe_free(hl);
        wl_pattern_free(soup);
    }
}

/* Rounds spread over threads (every round, through WL_SPARSE_PARALLEL=1, with more threads
 * than cores) against the cpu engine on a bounded grid wide enough that nothing reaches its
 * edge: a soup of some hundred tiles, so that threads race on neighbouring tiles' wake
 * marks and defer the making of new tiles.  Each thread computes its own band alone (the
 * tiles inside a band woken without atomics), then, with WL_SPARSE_HELP=1, threads help
 * with each other's bands (every wake atomic), then with a worker that did not start
 * (WL_POOL_START=2: the calling thread computes its band after its own) and no dense
 * passes. */
static void test_threads(uint64_t seed) {
    wl_rule rules[2];
    wl_rule_life(&rules[0]);
    random_rule(mix(seed, 77), 1, &rules[1]);
    uint64_t side = quick ? 300 : 640, gens = quick ? 60 : 150;
    setenv("WL_SPARSE_PARALLEL", "1", 1);
    for (int k = 0; k < 6; k++) {
        if (k == 2) setenv("WL_SPARSE_HELP", "1", 1);
        /* and with one worker of two not started: the calling thread runs its share */
        if (k == 4) {
            unsetenv("WL_SPARSE_HELP");
            setenv("WL_POOL_START", "2", 1);
            setenv("WL_SPARSE_DENSE", "off", 1); /* (every generation a round) */
        }
        wl_pattern *soup = wl_pattern_new();
        wl_rect r = {-(int64_t)side / 2 + 5, -(int64_t)side / 2 - 7, side, side};
        WL_CHECK_OK(wl_pattern_random(soup, &r, 0.45, mix(seed, 78 + (uint64_t)k)));
        const int odd = k & 1;
        wl_config cfg;
        wl_config_init(&cfg);
        cfg.engine = "sparse";
        cfg.topology = WL_TOPOLOGY_PLANE;
        cfg.rule = rules[odd];
        cfg.threads = 3;
        wl_universe *sp = NULL, *cpu = NULL;
        WL_CHECK_OK(wl_universe_create(&cfg, &sp));
        cfg.engine = "cpu";
        cfg.threads = 1;
        cfg.topology = WL_TOPOLOGY_BOUNDED;
        cfg.width = cfg.height = side + 2 * gens + 64;
        WL_CHECK_OK(wl_universe_create(&cfg, &cpu));
        if (sp && cpu) {
            WL_CHECK_OK(wl_universe_load(sp, soup, NULL));
            WL_CHECK_OK(wl_universe_load(cpu, soup, NULL));
            WL_CHECK_OK(wl_universe_step(sp, gens));
            WL_CHECK_OK(wl_universe_step(cpu, gens));
            wl_test_same(sp, cpu,
                         k == 0   ? "threaded rounds, Life"
                         : k == 1 ? "threaded rounds, isotropic rule"
                         : k == 2 ? "threaded rounds with help, Life"
                         : k == 3 ? "threaded rounds with help, isotropic rule"
                         : k == 4 ? "threaded rounds, a worker missing, Life"
                                  : "threaded rounds, a worker missing, isotropic rule");
        }
        wl_universe_free(sp);
        wl_universe_free(cpu);
        wl_pattern_free(soup);
    }
    unsetenv("WL_POOL_START");
    unsetenv("WL_SPARSE_DENSE");
    unsetenv("WL_SPARSE_PARALLEL");
}

/* The sparse engine on the plane and the cpu engine on a bounded grid of side x side cells
 * around the origin, under Life, both loaded with p; 0 (a failed check says why) when
 * either could not be made. */
static int sparse_and_cpu(const wl_pattern *p, uint64_t side, wl_universe **sp,
                          wl_universe **cpu) {
    wl_config cfg;
    wl_config_init(&cfg);
    cfg.engine = "sparse";
    cfg.topology = WL_TOPOLOGY_PLANE;
    *sp = *cpu = NULL;
    WL_CHECK_OK(wl_universe_create(&cfg, sp));
    cfg.engine = "cpu";
    cfg.topology = WL_TOPOLOGY_BOUNDED;
    cfg.width = cfg.height = side;
    WL_CHECK_OK(wl_universe_create(&cfg, cpu));
    if (!*sp || !*cpu) return 0;
    WL_CHECK_OK(wl_universe_load(*sp, p, NULL));
    WL_CHECK_OK(wl_universe_load(*cpu, p, NULL));
    return 1;
}

/* Dense passes next to activity elsewhere: a soup large enough for dense passes (the
 * default thresholds) with gliders and blinkers around it at distances that put them in
 * the core's box (near it), and in rounds beside the pass (far from it), against the cpu
 * engine on a bounded grid wide enough that nothing reaches its edge. */
static void test_dense_far(uint64_t seed) {
    static const char *const glider[] = {".o.", "..o", "ooo"}; /* moves +x +y */
    static const char *const blinker[] = {"ooo"};
    uint64_t side = quick ? 560 : 640, gens = quick ? 200 : 300;
    wl_pattern *p = wl_pattern_new();
    wl_rect r = {0, 0, side, side};
    WL_CHECK_OK(wl_pattern_random(p, &r, 0.5, mix(seed, 31)));
    /* near (within four tiles of the soup: they join the dense core) and far */
    static const int64_t at[][2] = {{-150, 100}, {700, -200}, {-1100, -900}, {1500, 300},
                                    {200, 1400}, {-700, 1200}};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        draw(p, at[i][0], at[i][1], glider, 3);
        draw(p, at[i][0] + 40, at[i][1] - 30, blinker, 1);
    }
    wl_universe *sp = NULL, *cpu = NULL;
    if (sparse_and_cpu(p, 2 * (1500 + side + gens + 64), &sp, &cpu)) {
        for (int k = 0; k < 3; k++) {
            WL_CHECK_OK(wl_universe_step(sp, gens / 3 + (uint64_t)k));
            WL_CHECK_OK(wl_universe_step(cpu, gens / 3 + (uint64_t)k));
            wl_test_same(sp, cpu, "dense passes with tiles near and far");
        }
    }
    wl_universe_free(sp);
    wl_universe_free(cpu);
    wl_pattern_free(p);
}

/* The tiles of c that sleep (nothing to compute, not edited) with no live cell at either
 * generation. */
static size_t dead_sleepers(const sp_ctx *c) {
    size_t n = 0;
    for (size_t i = 0; i < c->map.cap; i++) {
        const sp_tile *t = c->map.slot[i];
        if (!t || t->wake[0] || t->wake[1] || t->edited) continue;
        uint64_t any = 0;
        for (int r = 0; r < WL_TILE; r++) any |= sp_row(t, 0, r) | sp_row(t, 1, r);
        n += any == 0;
    }
    return n;
}

/* Chains of dense passes (sparse.c, "Chains"): a soup large enough for them under the
 * default thresholds, with gliders that leave it (a change that strays from the core ends
 * a chain) and gliders that fly at it from far (a listed tile near the box ends one), run
 * in steps that nothing looks at in between (a chain goes on from one step to the next),
 * then looked at (the tiles settle), edited and run on; against the cpu engine on a
 * bounded grid wide enough that nothing reaches its edge.  Then the same under
 * WL_SPARSE_DENSE=always, where every step of 16 generations or more is a chain. */
static void test_chains(uint64_t seed) {
    static const char *const out_se[] = {".o.", "..o", "ooo"}; /* moves +x +y */
    static const char *const out_nw[] = {"ooo", "o..", ".o."}; /* moves -x -y */
    const uint64_t side = quick ? 520 : 600, gens = 150 + 77 + 300 + 200;
    for (int mode = 0; mode < 2; mode++) {
        if (mode) setenv("WL_SPARSE_DENSE", "always", 1);
        wl_pattern *p = wl_pattern_new();
        wl_rect r = {0, 0, side, side};
        WL_CHECK_OK(wl_pattern_random(p, &r, 0.5, mix(seed, 40 + (uint64_t)mode)));
        draw(p, (int64_t)side + 20, (int64_t)side + 20, out_se, 3);
        draw(p, -30, -30, out_nw, 3);
        draw(p, -700, -700, out_se, 3);
        draw(p, (int64_t)side + 650, (int64_t)side + 650, out_nw, 3);
        wl_universe *sp = NULL, *cpu = NULL;
        if (sparse_and_cpu(p, 2 * (700 + side + gens + 64), &sp, &cpu)) {
            static const uint64_t unseen[] = {150, 77, 300};
            for (int k = 0; k < 3; k++) WL_CHECK_OK(wl_universe_step(sp, unseen[k]));
            WL_CHECK_OK(wl_universe_step(cpu, 150 + 77 + 300));
            wl_test_same(sp, cpu, mode ? "chains (always) over unseen steps"
                                       : "chains over unseen steps");
            WL_CHECK_OK(wl_universe_step(sp, 40));
            WL_CHECK_OK(wl_universe_step(cpu, 40));
            for (int e = 0; e < 30; e++) { /* (edits in the soup, mid-chain) */
                const uint64_t m = mix(seed, 500 + (uint64_t)e);
                const int64_t x = (int64_t)(m % side), y = (int64_t)((m >> 20) % side);
                WL_CHECK_OK(wl_universe_set_cell(sp, x, y, (int)((m >> 40) & 1)));
                WL_CHECK_OK(wl_universe_set_cell(cpu, x, y, (int)((m >> 40) & 1)));
            }
            WL_CHECK_OK(wl_universe_step(sp, 160));
            WL_CHECK_OK(wl_universe_step(cpu, 160));
            wl_test_same(sp, cpu, mode ? "chains (always) after edits" : "chains after edits");
            const sp_ctx *c = wl_universe_ctx(sp);
            WL_CHECK(c->st_chained > 0, "chains: no pass went on from a chain (%llu passes)",
                     (unsigned long long)c->st_dense);
            /* (looked at, the chain is over: the tiles that sleep hold live cells, the
             * empty ones the passes made are gone) */
            WL_CHECK(dead_sleepers(c) == 0, "chains: %zu sleeping tiles without live cells",
                     dead_sleepers(c));
        }
        wl_universe_free(sp);
        wl_universe_free(cpu);
        wl_pattern_free(p);
    }
    unsetenv("WL_SPARSE_DENSE");
}

/* The engine's own rendering (what the viewer uses when a pattern is too wide for a
 * snapshot) against the snapshot renderer of src/render on the stored pattern: random
 * views, zoomed in and out, at origins on no pixel grid, near the origin and 2^44 away. */
/* u's own rendering against the snapshot renderer of src/render on its stored pattern, in
 * `views` random views around the pattern, zoomed in and out, at origins on no pixel grid. */
static void check_render(wl_universe *u, uint64_t cs, int views) {
    uint32_t *img = malloc(96 * 96 * sizeof *img), *want = malloc(96 * 96 * sizeof *want);
    wl_pattern *st = NULL;
    wl_snapshot *snap = NULL;
    wl_rect b;
    WL_CHECK_OK(wl_universe_store(u, &st));
    if (img && want && st && wl_pattern_bounds(st, &b)) WL_CHECK_OK(wl_pattern_snapshot(st, &snap));
    for (int vi = 0; vi < views && snap; vi++) {
        uint64_t vs = mix(cs, 100 + (uint64_t)vi);
        wl_view v;
        v.zoom = 3 - (int)(vs % 12); /* 3 .. -8 */
        v.width = 1 + (uint32_t)(mix(vs, 1) % 96);
        v.height = 1 + (uint32_t)(mix(vs, 2) % 96);
        v.alive = 0xFFFFFFFFu;
        v.dead = 0xFF000000u;
        int64_t span = v.zoom < 0 ? (int64_t)v.width << -v.zoom : (int64_t)(v.width >> v.zoom) + 1;
        int64_t spanh = v.zoom < 0 ? (int64_t)v.height << -v.zoom : (int64_t)(v.height >> v.zoom) + 1;
        v.x = b.x - span + (int64_t)(mix(vs, 3) % (b.w + (uint64_t)span));
        v.y = b.y - spanh + (int64_t)(mix(vs, 4) % (b.h + (uint64_t)spanh));
        WL_CHECK_OK(wl_universe_render(u, &v, img));
        WL_CHECK_OK(wl_snapshot_render(snap, &v, want));
        size_t np = (size_t)v.width * v.height, bad = 0;
        for (size_t i = 0; i < np; i++) bad += img[i] != want[i];
        WL_CHECK(bad == 0, "render: %zu of %zu pixels differ (zoom %d, %ux%u at %lld,%lld)", bad,
                 np, v.zoom, v.width, v.height, (long long)v.x, (long long)v.y);
    }
    wl_snapshot_free(snap);
    wl_pattern_free(st);
    free(img);
    free(want);
}

static void test_render(uint64_t seed) {
    wl_rule life;
    wl_rule_life(&life);
    for (int pi = 0; pi < (quick ? 3 : 8); pi++) {
        uint64_t cs = mix(seed, 500 + (uint64_t)pi);
        int64_t ox = pi & 1 ? (int64_t)(mix(cs, 1) % (1ull << 45)) - (1ll << 44) : 0;
        int64_t oy = pi & 1 ? (int64_t)(mix(cs, 2) % (1ull << 45)) - (1ll << 44) : 0;
        wl_pattern *soup = wl_pattern_new();
        wl_rect r = {ox - (int64_t)(mix(cs, 3) % 64), oy - (int64_t)(mix(cs, 4) % 64),
                     30 + mix(cs, 5) % 200, 30 + mix(cs, 6) % 200};
        WL_CHECK_OK(wl_pattern_random(soup, &r, 0.3, cs));
        wl_universe *u = NULL;
        WL_CHECK_OK(make("sparse", NULL, &life, &u));
        if (u) {
            WL_CHECK_OK(wl_universe_load(u, soup, NULL));
            WL_CHECK_OK(wl_universe_step(u, mix(cs, 7) % 100));
            check_render(u, cs, quick ? 20 : 60);
        }
        wl_pattern_free(soup);
        wl_universe_free(u);
    }
}

/* "auto" on the plane starts on the sparse engine and hands the universe to HashLife when
 * HashLife wins a timed race (src/universe/handover.c).  WL_HANDOVER=hashlife makes HashLife
 * win at its first leap, WL_HANDOVER=back brings its cells back after its first leap (at a
 * later generation), and WL_HANDOVER=bounce makes it win, sends the universe back from its
 * first watched leap, then lets it win again, so every path runs whatever the machine's
 * timings: each must give HashLife's own answer, and say which engine holds the universe. */
static void test_handover(uint64_t seed) {
    static const char *const modes[] = {"hashlife", "back", "bounce"};
    wl_rule life;
    wl_rule_life(&life);
    for (int m = 0; m < 6; m++) { /* (each mode with the race in turns, then on two cores) */
        setenv("WL_HANDOVER", modes[m % 3], 1);
        setenv("WL_HANDOVER_CONCURRENT", m < 3 ? "0" : "1", 1);
        wl_pattern *soup = wl_pattern_new();
        wl_rect r = {-90, 30, 180, 150};
        WL_CHECK_OK(wl_pattern_random(soup, &r, 0.35, mix(seed, 900 + (uint64_t)m)));
        wl_universe *au, *hl;
        if (pair("auto", &life, soup, &au, &hl)) {
            WL_CHECK(strcmp(wl_universe_engine(au), "sparse") == 0, "auto starts on %s",
                     wl_universe_engine(au));
            static const uint64_t steps[] = {100, 3001, 4096, 2500};
            for (int k = 0; k < 4; k++) {
                WL_CHECK_OK(wl_universe_step(au, steps[k]));
                WL_CHECK_OK(wl_universe_step(hl, steps[k]));
                char what[96];
                snprintf(what, sizeof what, "auto (%s%s) after step %d", modes[m % 3], m < 3 ? "" : ", two cores", k);
                wl_test_same(au, hl, what);
                wl_bigint g;
                wl_universe_generation(au, &g);
                uint64_t gv = 0, want = 0;
                for (int i = 0; i <= k; i++) want += steps[i];
                wl_bigint_to_u64(&g, &gv);
                WL_CHECK(gv == want, "auto (%s): generation %llu, expected %llu", modes[m % 3],
                         (unsigned long long)gv, (unsigned long long)want);
            }
            const char *expect = m % 3 == 1 ? "sparse" : "hashlife";
            WL_CHECK(strcmp(wl_universe_engine(au), expect) == 0, "auto (%s) ends on %s",
                     modes[m % 3], wl_universe_engine(au));
            /* a new pattern starts over on the sparse engine */
            WL_CHECK_OK(wl_universe_load(au, soup, NULL));
            WL_CHECK(strcmp(wl_universe_engine(au), "sparse") == 0, "auto (%s): a load goes "
                     "back to %s", modes[m % 3], wl_universe_engine(au));
            WL_CHECK_OK(wl_universe_set_cell(au, 5, 5, 1));
            int alive = 0;
            WL_CHECK_OK(wl_universe_get_cell(au, 5, 5, &alive));
            WL_CHECK(alive == 1, "auto (%s): set cell after a reload", modes[m % 3]);
        }
        wl_universe_free(au);
        wl_universe_free(hl);
        wl_pattern_free(soup);
    }
    unsetenv("WL_HANDOVER");
    unsetenv("WL_HANDOVER_CONCURRENT");
}

/* The way back from HashLife after a race is for patterns the sparse engine still holds:
 * once the population has grown more than WATCH_GROWTH times since HashLife took it (a
 * breeder run far has 10^14 cells), HashLife keeps it.  A Gosper gun under
 * WL_HANDOVER=bounce, 2190 generations: HashLife wins a few hundred generations in (after
 * the first chunk and its first leap), its first watched leap counts as too slow, and the
 * gun's stream has grown meanwhile; with the growth allowed set to 1 it stays on HashLife,
 * with the default (16) it goes back to the sparse engine, which keeps it (fewer than the
 * 2048 generations a race needs are left), and both give HashLife's own answer. */
static void test_handover_growth(void) {
    wl_rule life;
    wl_rule_life(&life);
    wl_pattern *p = wl_pattern_new();
    draw(p, 0, 0, gosper_gun, 9);
    setenv("WL_HANDOVER", "bounce", 1);
    for (int g = 0; g < 4; g++) { /* (g >= 2: the race on two cores) */
        setenv("WL_HANDOVER_CONCURRENT", g < 2 ? "0" : "1", 1);
        if (g % 2 == 0) setenv("WL_HANDOVER_GROWTH", "1", 1);
        else unsetenv("WL_HANDOVER_GROWTH");
        wl_universe *au, *hl;
        if (pair("auto", &life, p, &au, &hl)) {
            WL_CHECK_OK(wl_universe_step(au, 2190));
            WL_CHECK_OK(wl_universe_step(hl, 2190));
            wl_test_same(au, hl, g % 2 ? "auto (bounce), a gun" : "auto (bounce, growth 1), a gun");
            const char *expect = g % 2 ? "sparse" : "hashlife";
            WL_CHECK(strcmp(wl_universe_engine(au), expect) == 0,
                     "auto (bounce, growth %s): ends on %s, expected %s", g % 2 ? "16" : "1",
                     wl_universe_engine(au), expect);
            wl_bigint pop;
            uint64_t pv = 0;
            WL_CHECK_OK(wl_universe_population(au, &pop));
            wl_bigint_to_u64(&pop, &pv);
            WL_CHECK(pv == 36 + 5 * 73, "auto: the gun has %llu cells at generation 2190",
                     (unsigned long long)pv);
        }
        wl_universe_free(au);
        wl_universe_free(hl);
    }
    unsetenv("WL_HANDOVER_GROWTH");
    unsetenv("WL_HANDOVER");
    unsetenv("WL_HANDOVER_CONCURRENT");
    wl_pattern_free(p);
}

/* Gliders leaving in all four diagonal directions: each moves one cell diagonally every
 * four generations, so the bounds after 4n generations are known exactly. */
static void test_growth(void) {
    static const char *const se[] = {".o.", "..o", "ooo"}; /* moves +x +y */
    static const char *const sw[] = {".o.", "o..", "ooo"};
    static const char *const ne[] = {"ooo", "..o", ".o."};
    static const char *const nw[] = {"ooo", "o..", ".o."};
    wl_pattern *p = wl_pattern_new();
    draw(p, 10, 10, se, 3);
    draw(p, -13, 10, sw, 3);
    draw(p, 10, -13, ne, 3);
    draw(p, -13, -13, nw, 3);
    wl_rule life;
    wl_rule_life(&life);
    wl_universe *u = NULL;
    WL_CHECK_OK(make("sparse", NULL, &life, &u));
    if (!u) return;
    WL_CHECK_OK(wl_universe_load(u, p, NULL));
    uint64_t n = 2500; /* 625 cells, about ten tiles, in each direction */
    WL_CHECK_OK(wl_universe_step(u, 4 * n));
    wl_bigint b[4], pop;
    int empty;
    WL_CHECK_OK(wl_universe_bounds(u, &b[0], &b[1], &b[2], &b[3], &empty));
    int64_t v[4] = {0};
    for (int i = 0; i < 4; i++) wl_bigint_to_i64(&b[i], &v[i]);
    WL_CHECK(!empty && v[0] == -13 - (int64_t)n && v[1] == -13 - (int64_t)n &&
                 v[2] == 12 + (int64_t)n && v[3] == 12 + (int64_t)n,
             "gliders: bounds %lld,%lld .. %lld,%lld", (long long)v[0], (long long)v[1],
             (long long)v[2], (long long)v[3]);
    WL_CHECK_OK(wl_universe_population(u, &pop));
    uint64_t pv = 0;
    wl_bigint_to_u64(&pop, &pv);
    WL_CHECK(pv == 20, "gliders: population %llu, expected 20", (unsigned long long)pv);
    wl_universe_free(u);
    wl_pattern_free(p);
}

/* Sleeping and waking.  A field of blocks and blinkers settles at once and sleeps; a
 * glider launched from 400 cells away must wake it and wreck part of it, exactly as
 * HashLife computes.  Then a field of blinkers alone is stepped 10^15 + 1 generations: a
 * sparse engine that did not sleep would take days. */
static void test_sleep_wake(void) {
    static const char *const block[] = {"oo", "oo"};
    static const char *const blinker[] = {"ooo"};
    static const char *const glider[] = {".o.", "..o", "ooo"};
    wl_pattern *p = wl_pattern_new();
    for (int j = 0; j < 8; j++)
        for (int i = 0; i < 8; i++) draw(p, 400 + 9 * i, 400 + 9 * j, (i + j) & 1 ? block : blinker, (i + j) & 1 ? 2 : 1);
    draw(p, 0, 2, glider, 3);
    wl_rule life;
    wl_rule_life(&life);
    wl_universe *sp, *hl;
    if (pair("sparse", &life, p, &sp, &hl)) {
        for (int k = 0; k < 6; k++) { /* 6 x 333 generations: the glider arrives near 1600 */
            WL_CHECK_OK(wl_universe_step(sp, 333));
            WL_CHECK_OK(wl_universe_step(hl, 333));
            wl_test_same(sp, hl, "glider into a sleeping field");
        }
        wl_bigint pop;
        WL_CHECK_OK(wl_universe_population(sp, &pop));
        uint64_t pv = 0;
        wl_bigint_to_u64(&pop, &pv);
        WL_CHECK(pv != 32 * 4 + 32 * 3 + 5, "the glider did not change the field (population %llu)",
                 (unsigned long long)pv);
    }
    wl_universe_free(sp);
    wl_universe_free(hl);
    wl_pattern_free(p);

    p = wl_pattern_new();
    for (int j = 0; j < 20; j++)
        for (int i = 0; i < 20; i++) draw(p, 6 * i - 50, 6 * j - 70, blinker, 1);
    wl_universe *u = NULL;
    WL_CHECK_OK(make("sparse", NULL, &life, &u));
    if (u) {
        WL_CHECK_OK(wl_universe_load(u, p, NULL));
        WL_CHECK_OK(wl_universe_step(u, 1000000000000001ull));
        int alive = 0;
        /* an odd number of generations later, every blinker is vertical */
        WL_CHECK_OK(wl_universe_get_cell(u, -49, -71, &alive));
        WL_CHECK(alive == 1, "blinker field: cell above the first blinker's centre is dead");
        WL_CHECK_OK(wl_universe_get_cell(u, -50, -70, &alive));
        WL_CHECK(alive == 0, "blinker field: the first blinker's west cell is alive");
        wl_bigint pop, g;
        WL_CHECK_OK(wl_universe_population(u, &pop));
        uint64_t pv = 0, gv = 0;
        wl_bigint_to_u64(&pop, &pv);
        wl_universe_generation(u, &g);
        wl_bigint_to_u64(&g, &gv);
        WL_CHECK(pv == 1200 && gv == 1000000000000001ull, "blinker field: population %llu at "
                 "generation %llu", (unsigned long long)pv, (unsigned long long)gv);
        /* asleep, its tiles are packed (sparse_map.c), and still read right (above) */
        const sp_ctx *c = wl_universe_ctx(u);
        WL_CHECK(c->map.npacked > 0 && c->map.npacked == c->map.count,
                 "blinker field: %zu of %zu tiles packed", c->map.npacked, c->map.count);
    }
    wl_universe_free(u);
    wl_pattern_free(p);
}

/* Cells set and cleared between steps wake their tiles. */
static void test_edits(uint64_t seed) {
    wl_rule life;
    wl_rule_life(&life);
    wl_pattern *soup = wl_pattern_new();
    wl_rect r = {-60, -60, 120, 120};
    WL_CHECK_OK(wl_pattern_random(soup, &r, 0.4, seed));
    wl_universe *sp, *hl;
    if (pair("sparse", &life, soup, &sp, &hl)) {
        for (int k = 0; k < 8; k++) {
            WL_CHECK_OK(wl_universe_step(sp, 150));
            WL_CHECK_OK(wl_universe_step(hl, 150));
            for (int e = 0; e < 20; e++) {
                uint64_t m = mix(seed, (uint64_t)(k * 100 + e));
                int64_t x = (int64_t)(m % 300) - 150, y = (int64_t)((m >> 20) % 300) - 150;
                int alive = (int)((m >> 40) & 1);
                WL_CHECK_OK(wl_universe_set_cell(sp, x, y, alive));
                WL_CHECK_OK(wl_universe_set_cell(hl, x, y, alive));
            }
            wl_test_same(sp, hl, "edits between steps");
        }
    }
    wl_universe_free(sp);
    wl_universe_free(hl);
    wl_pattern_free(soup);
}

/* B0 rules are refused with a message; a pattern that reaches the edge of the plane
 * (2^62 cells out) stops with WL_ERR_TOO_BIG at a consistent generation. */
static void test_errors(void) {
    wl_rule b0;
    WL_CHECK_OK(wl_rule_parse("B03/S23", &b0));
    wl_universe *u = NULL;
    wl_status s = make("sparse", NULL, &b0, &u);
    WL_CHECK(s == WL_ERR_UNSUPPORTED && strstr(wl_last_error(), "B0"), "B0: %s (%s)",
             wl_status_str(s), wl_last_error());
    wl_universe_free(u);
    u = NULL;
    wl_rule life;
    wl_rule_life(&life);
    WL_CHECK_OK(make("sparse", NULL, &life, &u));
    if (!u) return;
    static const char *const glider[] = {".o.", "..o", "ooo"};
    wl_pattern *p = wl_pattern_new();
    int64_t edge = INT64_MAX / 2 - 300;
    draw(p, edge, 0, glider, 3);
    WL_CHECK_OK(wl_universe_load(u, p, NULL));
    s = wl_universe_step(u, 4000);
    WL_CHECK(s == WL_ERR_TOO_BIG, "edge of the plane: %s (%s)", wl_status_str(s), wl_last_error());
    wl_bigint g, pop;
    wl_universe_generation(u, &g);
    uint64_t gv = 0, pv = 0;
    wl_bigint_to_u64(&g, &gv);
    WL_CHECK_OK(wl_universe_population(u, &pop));
    wl_bigint_to_u64(&pop, &pv);
    WL_CHECK(gv > 0 && gv < 4000 && pv == 5, "edge of the plane: stopped at generation %llu "
             "with population %llu", (unsigned long long)gv, (unsigned long long)pv);
    wl_universe_free(u);
    wl_pattern_free(p);
}

/* How many ships the sparse engine of u has taken out of its tiles so far. */
static uint64_t ships_found(wl_universe *u) {
    if (strcmp(wl_universe_engine(u), "sparse") != 0) return 0;
    return ((const sp_ctx *)wl_universe_ctx(u))->ships.st_found;
}

static wl_status or_tile(void *arg, int64_t tx, int64_t ty, const uint64_t *rows) {
    wl_status s = WL_OK;
    for (int r = 0; r < WL_TILE && !s; r++) s = wl_pattern_or(arg, tx * WL_TILE, ty * WL_TILE + r, rows[r]);
    return s;
}

/* Everything a user sees of u against HashLife's hl: cells, population, bounds, single
 * cells at and beside every live cell, and the engine's tiles as each_tile gives them
 * (ships included). */
static void same_seen(wl_universe *u, wl_universe *hl, const char *what) {
    wl_test_same(u, hl, what);
    wl_pattern *ph = NULL, *pt = wl_pattern_new();
    WL_CHECK_OK(wl_universe_store(hl, &ph));
    const wl_engine_ops *ops = wl_universe_ops(u);
    WL_CHECK_OK(ops->each_tile(wl_universe_ctx(u), or_tile, pt));
    WL_CHECK(ph && wl_pattern_equal_cells(ph, pt), "%s: each_tile differs", what);
    wl_rect b;
    if (ph && wl_pattern_bounds(ph, &b)) {
        size_t bad = 0, n = 0;
        for (uint64_t j = 0; j < b.h && n < 4000; j++)
            for (uint64_t i = 0; i < b.w && n < 4000; i++) {
                int64_t x = b.x + (int64_t)i, y = b.y + (int64_t)j;
                if (!wl_pattern_get(ph, x, y)) continue;
                for (int d = 0; d < 2; d++) {
                    int alive = -1;
                    WL_CHECK_OK(wl_universe_get_cell(u, x + d, y, &alive));
                    bad += alive != wl_pattern_get(ph, x + d, y);
                    n++;
                }
            }
        WL_CHECK(bad == 0, "%s: %zu of %zu cells read one by one differ", what, bad, n);
    }
    wl_pattern_free(ph);
    wl_pattern_free(pt);
}

/* Steps u and HashLife's hl by n and compares everything seen (same_seen), the case named
 * by the printf-style what. */
static void step_seen(wl_universe *u, wl_universe *hl, uint64_t n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void step_seen(wl_universe *u, wl_universe *hl, uint64_t n, const char *fmt, ...) {
    WL_CHECK_OK(wl_universe_step(u, n));
    WL_CHECK_OK(wl_universe_step(hl, n));
    char what[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    same_seen(u, hl, what);
}

/* Ships that land soon after they are taken out, again and again (gliders flying into
 * blocks a few hundred generations away, in waves, beside gliders that fly free): the
 * engine searches for ships less often then (sparse_ships.c), and stays exact. */
static void test_short_flights(uint64_t seed) {
    static const char *const glider[] = {".o.", "..o", "ooo"}, *const block[] = {"oo", "oo"};
    wl_rule life;
    wl_rule_life(&life);
    wl_pattern *p = wl_pattern_new();
    for (int k = 0; k < 48; k++) {
        uint64_t m = mix(seed, 900 + (uint64_t)k);
        int64_t x = (int64_t)(k % 8) * 600, y = (int64_t)(k / 8) * 600;
        int64_t d = 20 + (int64_t)(m % 100); /* flights of 80 to 480 generations */
        draw(p, x, y, glider, 3);
        if (k % 6) draw(p, x + d + 1, y + d + 1, block, 2); /* (one in six flies free) */
    }
    wl_universe *sp, *hl;
    if (pair("sparse", &life, p, &sp, &hl)) {
        static const uint64_t steps[] = {100, 333, 1024, 77, 3000};
        for (int k = 0; k < (int)(sizeof steps / sizeof steps[0]); k++)
            step_seen(sp, hl, steps[k], "short flights after step %d", k);
        wl_universe_free(sp);
        wl_universe_free(hl);
    }
    wl_pattern_free(p);
}

/* Ships (sparse_ships.c).  A fleet of gliders and light, middle and heavy spaceships in
 * every direction, with blocks and beehives strewn among them, spread over a few thousand
 * cells: ships leave the tiles, fly, meet each other and the still lifes (they must land in
 * time), and new ones come out of the wrecks.  Against HashLife at generation counts that
 * end mid-period, with cells edited while ships fly, and the same for a Gosper gun's
 * stream and for soups under rules whose ships are not Life's. */
static void test_ships(uint64_t seed) {
    static const char *const shapes[][5] = {
        {".o.", "..o", "ooo"},                                  /* glider */
        {".o..o", "o....", "o...o", "oooo."},                   /* LWSS */
        {"...o..", ".o...o", "o.....", "o....o", "ooooo."},     /* MWSS */
        {"...oo..", ".o....o", "o......", "o.....o", "oooooo."}, /* HWSS */
        {"oo", "oo"},                                           /* block */
        {".oo.", "o..o", ".oo."}};                              /* beehive */
    static const int heights[] = {3, 4, 5, 5, 2, 3};
    wl_rule life;
    wl_rule_life(&life);
    for (int fl = 0; fl < (quick ? 1 : 3); fl++) {
        uint64_t cs = mix(seed, 700 + (uint64_t)fl);
        wl_pattern *p = wl_pattern_new();
        int span = 1200 + fl * 800;
        for (int k = 0; k < 60; k++) {
            uint64_t m = mix(cs, (uint64_t)k);
            int kind = k < 40 ? (int)(m % 4) : 4 + (int)(m % 2), orient = (int)((m >> 8) % 8);
            int64_t x0 = (int64_t)((m >> 16) % (uint64_t)span) - span / 2;
            int64_t y0 = (int64_t)((m >> 32) % (uint64_t)span) - span / 2;
            for (int j = 0; j < heights[kind]; j++)
                for (int i = 0; shapes[kind][j][i]; i++) {
                    if (shapes[kind][j][i] != 'o') continue;
                    int a = orient & 1 ? -i : i, b = orient & 2 ? -j : j;
                    if (orient & 4) { int t = a; a = b; b = t; }
                    wl_pattern_set(p, x0 + a, y0 + b, 1);
                }
        }
        /* and a head-on meeting from far: two gliders 1500 cells apart on one diagonal */
        static const char *const se[] = {".o.", "..o", "ooo"}, *const nw[] = {"ooo", "o..", ".o."};
        draw(p, -3000, 2000, se, 3);
        draw(p, -1500, 3500, nw, 3);
        wl_universe *sp, *hl;
        if (pair("sparse", &life, p, &sp, &hl)) {
            static const uint64_t steps[] = {1, 130, 1001, 2999, 7, 4000, 2045};
            for (int k = 0; k < (int)(sizeof steps / sizeof steps[0]); k++) {
                step_seen(sp, hl, steps[k], "ships: fleet %d after step %d", fl, k);
                check_render(sp, mix(cs, 900 + (uint64_t)k), quick ? 10 : 30);
                if (k == 3) /* edits while ships fly, some on their paths */
                    for (int e = 0; e < 30; e++) {
                        uint64_t m = mix(cs, 5000 + (uint64_t)e);
                        int64_t x = (int64_t)(m % 4000) - 2000, y = (int64_t)((m >> 20) % 4000) - 2000;
                        WL_CHECK_OK(wl_universe_set_cell(sp, x, y, 1));
                        WL_CHECK_OK(wl_universe_set_cell(hl, x, y, 1));
                    }
            }
            WL_CHECK(ships_found(sp) > 20, "ships: fleet %d: only %llu ships taken out", fl,
                     (unsigned long long)ships_found(sp));
        }
        wl_universe_free(sp);
        wl_universe_free(hl);
        wl_pattern_free(p);
    }
    /* more gliders than may fly at once (SHIPS_MAX): the rest stay in the tiles */
    if (!quick) {
        static const char *const gl[4][3] = {{".o.", "..o", "ooo"}, {".o.", "o..", "ooo"},
                                             {"ooo", "..o", ".o."}, {"ooo", "o..", ".o."}};
        wl_pattern *p = wl_pattern_new();
        for (int k = 0; k < 700; k++) {
            uint64_t m = mix(seed, 9000 + (uint64_t)k);
            draw(p, (int64_t)(m % 8000) - 4000, (int64_t)((m >> 20) % 8000) - 4000, gl[(m >> 40) & 3], 3);
        }
        wl_universe *sp, *hl;
        if (pair("sparse", &life, p, &sp, &hl)) {
            for (int k = 0; k < 2; k++) {
                WL_CHECK_OK(wl_universe_step(sp, 1500 + (uint64_t)k));
                WL_CHECK_OK(wl_universe_step(hl, 1500 + (uint64_t)k));
                wl_test_same(sp, hl, "ships: 700 gliders");
            }
            const sp_ctx *c = wl_universe_ctx(sp);
            WL_CHECK(c->ships.n >= 400 && c->ships.n <= 512, "ships: 700 gliders: %zu flying",
                     c->ships.n);
        }
        wl_universe_free(sp);
        wl_universe_free(hl);
        wl_pattern_free(p);
    }
    /* a gun's stream (its gliders fly 4 cells apart: they stay in the tiles, see
     * sparse_ships.c) */
    /* and soups under rules with ships of their own (HighLife, Day & Night, Morley, 3-4) */
    static const char *const rules[] = {"B3/S23", "B36/S23", "B3678/S34678", "B368/S245", "B34/S34"};
    for (int k = 0; k < (quick ? 2 : 5); k++) {
        wl_rule rule;
        WL_CHECK_OK(wl_rule_parse(rules[k], &rule));
        wl_pattern *p = wl_pattern_new();
        if (k == 0) {
            draw(p, 0, 0, gosper_gun, 9);
        } else {
            wl_rect r = {-100, -100, 200, 200};
            WL_CHECK_OK(wl_pattern_random(p, &r, 0.35, mix(seed, 800 + (uint64_t)k)));
        }
        wl_universe *sp, *hl;
        if (pair("sparse", &rule, p, &sp, &hl)) {
            for (int j = 0; j < 3; j++)
                step_seen(sp, hl, 1000 + 333 * (uint64_t)j + (uint64_t)k, "ships: %s after step %d",
                          rules[k], j);
        }
        wl_universe_free(sp);
        wl_universe_free(hl);
        wl_pattern_free(p);
    }
}

/* Ships flying in formation, far from the origin: gliders of one velocity side by side at
 * spacings around the distance at which a look stops comparing their phases (they keep
 * their distance, sparse_ships.c), a few of them out of step with the others, a glider
 * flying head-on into the formation and blocks on its path; at 2^50 from the origin, where
 * a double's ulp is a fraction of a cell (ship_near's rounding bound). */
static void test_formation(uint64_t seed) {
    static const char *const se[4][3] = {{".o.", "..o", "ooo"}, {"o.o", ".oo", ".o."},
                                         {"..o", "o.o", ".oo"}, {"o..", ".oo", "oo."}};
    static const char *const nw[] = {"ooo", "o..", ".o."}, *const block[] = {"oo", "oo"};
    wl_rule life;
    wl_rule_life(&life);
    for (int f = 0; f < (quick ? 1 : 3); f++) {
        uint64_t cs = mix(seed, 1300 + (uint64_t)f);
        const int64_t X = ((int64_t)1 << 50) + (int64_t)(cs % 1000), Y = -((int64_t)1 << 49) - (int64_t)((cs >> 10) % 1000);
        wl_pattern *p = wl_pattern_new();
        int64_t x = X, y = Y;
        for (int k = 0; k < 14; k++) { /* a row across the diagonal, spacings of 7 to 22 */
            uint64_t m = mix(cs, (uint64_t)k);
            x += 7 + (int64_t)(m % 16);
            y -= 7 + (int64_t)((m >> 8) % 16);
            draw(p, x, y, se[(m >> 16) % 4 == 0 ? (m >> 20) % 4 : 0], 3);
        }
        draw(p, X + 900, Y - 40 + 900, nw, 3);           /* head-on, into the row */
        draw(p, X + 1500 + (int64_t)(cs >> 40) % 60, Y - 120 + 1500, block, 2); /* ahead */
        draw(p, X + 2200, Y + 2200, block, 2);
        wl_universe *sp, *hl;
        if (pair("sparse", &life, p, &sp, &hl)) {
            static const uint64_t steps[] = {1, 300, 257, 700, 1500, 999};
            for (int k = 0; k < (int)(sizeof steps / sizeof steps[0]); k++)
                step_seen(sp, hl, steps[k], "ships: formation %d after step %d", f, k);
            WL_CHECK(ships_found(sp) >= 10, "ships: formation %d: only %llu ships taken out", f,
                     (unsigned long long)ships_found(sp));
        }
        wl_universe_free(sp);
        wl_universe_free(hl);
        wl_pattern_free(p);
    }
}

int main(int argc, char **argv) {
    quick = (argc > 1 && strcmp(argv[1], "--quick") == 0) ||
            (getenv("WL_TEST_QUICK") && strcmp(getenv("WL_TEST_QUICK"), "0") != 0);
    if (wl_engine_probe("sparse") != WL_OK || wl_engine_probe("hashlife") != WL_OK) {
        printf("skipped: %s\n", wl_last_error());
        return wl_test_finish("test_sparse");
    }
    uint64_t seed = wl_test_seed();
    test_soups(seed);
    /* the same with a dense pass (the cpu engine on a grid around the active tiles)
     * wherever the step is long enough, however few the tiles */
    setenv("WL_SPARSE_DENSE", "always", 1);
    test_soups(mix(seed, 1000));
    test_edits(mix(seed, 1001));
    unsetenv("WL_SPARSE_DENSE");
    /* and with `best` moving from the vpermb lookups to the compiled network mid-run */
    setenv("WL_SPARSE_UPGRADE", "1", 1);
    test_soups(mix(seed, 1002));
    unsetenv("WL_SPARSE_UPGRADE");
    test_threads(seed);
    test_dense_far(seed);
    test_chains(seed);
    test_render(seed);
    test_handover(seed);
    test_handover_growth();
    test_growth();
    test_sleep_wake();
    test_edits(seed);
    test_ships(seed);
    test_short_flights(seed);
    test_formation(seed);
    test_errors();
    return wl_test_finish("test_sparse");
}
