/*
 * test_multistate.c - the multi-state families (Generations, Larger than Life, History,
 * Super) and Golly's glued grids on every engine that runs them:
 *   1. every grid engine against `ref` on fresh multi-state soups under random rules of
 *      each family (random B/S and MAP tables, hexagonal and von Neumann, every Larger than
 *      Life neighbourhood, M0 and M1, 2 to 40 states), odd sizes, torus and bounded grid,
 *      stepped in one or two calls;
 *   2. every plane engine (grow on each inner engine, HashLife, auto) against `ref` on a
 *      bounded grid big enough that nothing reaches its edge, and over thousands of
 *      generations HashLife against grow, auto's handover between them, cell edits;
 *   3. the glued grids (shifted tori, Klein bottles, cross-surface, sphere) against a
 *      simulation in this file that builds the ring of glued edge cells explicitly;
 *   4. facts checked with Golly 5.1's bgolly: Brian's Brain's glider, a hexagonal and a von
 *      Neumann still life, a Larger than Life bug's period and displacement, and the
 *      populations of small patterns from Golly's collection and of one soup on twelve
 *      grids, on every engine that runs them.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "internal.h"
#include "wltest.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rng;

static uint64_t rnd(uint64_t n) {
    return n ? wl_test_rand(&rng) % n : 0;
}

/* ---- random rules --------------------------------------------------------------------- */

enum { K_GEN, K_GEN_MAP, K_GEN_NH, K_LTL, K_HISTORY, K_SUPER, K_COUNT };
static const char *const KIND_NAMES[K_COUNT] = {"generations", "generations-map",
                                                "generations-hv", "ltl", "history", "super"};

/* Appends the digits of mask's bits 0..max. */
static int digits(char *t, size_t cap, unsigned mask, unsigned max) {
    int n = 0;
    for (unsigned k = 0; k <= max; k++)
        if (mask >> k & 1) n += snprintf(t + n, cap - (size_t)n, "%u", k);
    return n;
}

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* A random rule of a kind, through its text (so the parser is exercised too). */
static void random_rule(int kind, wl_rule *r, char *text, size_t cap) {
    for (;;) {
        int n = 0;
        switch (kind) {
        case K_GEN: {
            unsigned b = (unsigned)rnd(512) & ~1u, s = (unsigned)rnd(512);
            n += snprintf(text + n, cap - (size_t)n, "B");
            n += digits(text + n, cap - (size_t)n, b, 8);
            n += snprintf(text + n, cap - (size_t)n, "/S");
            n += digits(text + n, cap - (size_t)n, s, 8);
            /* (a third of them of 3 to 5 states: cuda res keeps their decay one-hot) */
            snprintf(text + n, cap - (size_t)n, "/%u", rnd(3) ? 2 + (unsigned)rnd(30) : 3 + (unsigned)rnd(3));
            break;
        }
        case K_GEN_MAP: { /* any table without B0 */
            n += snprintf(text + n, cap - (size_t)n, "MAP");
            for (int k = 0; k < 86; k++) {
                unsigned v = (unsigned)rnd(64);
                if (k == 0) v &= 0x1F; /* index 0 (B0) is the first character's top bit */
                if (k == 85) v &= 0x30;
                text[n++] = B64[v];
            }
            snprintf(text + n, cap - (size_t)n, "/%u", 2 + (unsigned)rnd(12));
            break;
        }
        case K_GEN_NH: {
            int hex = (int)rnd(2);
            unsigned max = hex ? 6 : 4;
            unsigned b = (unsigned)rnd(1u << (max + 1)) & ~1u, s = (unsigned)rnd(1u << (max + 1));
            n += digits(text + n, cap - (size_t)n, s, max);
            n += snprintf(text + n, cap - (size_t)n, "/");
            n += digits(text + n, cap - (size_t)n, b, max);
            snprintf(text + n, cap - (size_t)n, "/%u%c", 2 + (unsigned)rnd(9), hex ? 'H' : 'V');
            break;
        }
        case K_LTL: {
            static const char nh[] = "MNC2BD+X*#HA3L";
            /* a third of them Moore (the kernels of its own: sliding square sums, cuda's
             * bit-sliced counts) */
            char c = rnd(3) ? nh[rnd(sizeof nh - 1)] : 'M';
            /* ranges past 12 take the Moore kernel's prefix sums (simd_ltl.c) */
            unsigned range = 1 + (unsigned)rnd(c == 'M' ? (rnd(3) ? 7 : 20) : c == 'N' ? 7 : 4);
            /* counts within 3r (the smallest neighbourhood, the tripod, has 3r cells), or
             * for Moore anywhere in its (2r + 1)^2 - 1 */
            unsigned span = c == 'M' && rnd(2) ? (2 * range + 1) * (2 * range + 1) - 4 : 2 * range;
            unsigned a = (unsigned)rnd(span), bb = a + 1 + (unsigned)rnd(c == 'M' ? span - a : range);
            unsigned sa = (unsigned)rnd(c == 'M' ? span : range);
            unsigned sb = sa + (unsigned)rnd(c == 'M' ? span - sa : range);
            if (bb > span + 2) bb = span + 2;
            unsigned states = rnd(3) ? 2 + (unsigned)rnd(12) : 2;
            if (a == 0 && states > 2) a = 1;
            if (rnd(2))
                snprintf(text, cap, "R%u,C%u,M%u,S%u..%u,B%u..%u,N%c", range, states,
                         (unsigned)rnd(2), sa + 1, sb + 1, a, bb, c);
            else
                snprintf(text, cap, "R%u,C%u,S%u-%u,%u,B%u-%u,N%c", range, states, sa, sb, sb + 2,
                         a, bb, c);
            break;
        }
        default: { /* History and Super on a random B/S, Moore, hexagonal or von Neumann */
            int nh = (int)rnd(3);
            unsigned max = nh == 0 ? 8 : nh == 1 ? 6 : 4;
            unsigned b = (unsigned)rnd(1u << (max + 1)), s = (unsigned)rnd(1u << (max + 1));
            if (b & 1) s |= 1u << max; /* B0 only with S-max */
            n += snprintf(text + n, cap - (size_t)n, "B");
            n += digits(text + n, cap - (size_t)n, b, max);
            n += snprintf(text + n, cap - (size_t)n, "/S");
            n += digits(text + n, cap - (size_t)n, s, max);
            snprintf(text + n, cap - (size_t)n, "%s%s", nh == 1 ? "H" : nh == 2 ? "V" : "",
                     kind == K_HISTORY ? "History" : "Super");
            break;
        }
        }
        if (wl_rule_parse(text, r) == WL_OK) return;
        WL_CHECK(0, "random rule '%s' refused: %s", text, wl_last_error());
    }
}

/* A soup of random states (a third of the cells live, with any state of the rule). */
static wl_pattern *state_soup(const wl_rule *r, uint64_t w, uint64_t h) {
    wl_pattern *p = wl_pattern_new();
    unsigned states = wl_rule_states(r);
    for (uint64_t y = 0; y < h; y++)
        for (uint64_t x = 0; x < w; x++) {
            if (rnd(3)) continue;
            unsigned s = rnd(2) ? 1 : 1 + (unsigned)rnd(states - 1);
            WL_CHECK_OK(wl_pattern_set_state(p, (int64_t)x - (int64_t)(w / 2),
                                             (int64_t)y - (int64_t)(h / 2), s));
        }
    wl_pattern_set_rule(p, r);
    return p;
}

static wl_status make(const char *engine, const char *kernel, const wl_shape *sh,
                      const wl_rule *rule, wl_universe **u) {
    wl_config cfg;
    wl_config_init(&cfg);
    cfg.engine = engine;
    cfg.kernel = kernel;
    cfg.topology = sh->topology;
    cfg.width = sh->width;
    cfg.height = sh->height;
    cfg.glue = sh->glue;
    cfg.rule = *rule;
    cfg.threads = 2;
    *u = NULL;
    return wl_universe_create(&cfg, u);
}

/* Runs p for gens generations (in two calls when split) on engine:kernel; NULL when the
 * engine does not run it (a skip) or on a failed check. */
static wl_pattern *run(const char *engine, const char *kernel, const wl_shape *sh,
                       const wl_rule *rule, const wl_pattern *p, uint64_t gens, int split,
                       wl_bigint *pop) {
    wl_universe *u;
    wl_status s = make(engine, kernel, sh, rule, &u);
    if (s == WL_ERR_UNSUPPORTED || s == WL_ERR_UNAVAILABLE || s == WL_ERR_NOT_FOUND) return NULL;
    WL_CHECK(s == WL_OK, "create %s:%s: %s", engine, kernel ? kernel : "", wl_last_error());
    if (!u) return NULL;
    wl_pattern *out = NULL;
    wl_test_load_step(u, p, gens, split);
    WL_CHECK_OK(wl_universe_store(u, &out));
    if (pop) WL_CHECK_OK(wl_universe_population(u, pop));
    wl_universe_free(u);
    return out;
}

/* The cpu engine against ref on a w x h soup of every state of the rule, torus and
 * bounded grid, gens generations in one or two steps; Larger than Life also with every
 * generation in bands on the two threads (WL_CPU_LTL_POOL: grids this small run on one). */
static void cpu_against_ref(const wl_rule *rule, const char *text, uint64_t w, uint64_t h,
                            uint64_t gens) {
    wl_pattern *soup = state_soup(rule, w, h);
    const int ltl = wl_rule_family(rule) == WL_FAMILY_LTL;
    for (int t = 0; t < 2; t++) {
        wl_shape sh = {t ? WL_TOPOLOGY_BOUNDED : WL_TOPOLOGY_TORUS, w, h, {0, 0, 0, 0}};
        wl_pattern *want = run("ref", NULL, &sh, rule, soup, gens, 0, NULL);
        for (int pool = 0; pool <= ltl; pool++) {
            if (pool) setenv("WL_CPU_LTL_POOL", "1", 1);
            wl_pattern *got = run("cpu", NULL, &sh, rule, soup, gens, (int)rnd(2), NULL);
            unsetenv("WL_CPU_LTL_POOL");
            WL_CHECK(want && got && wl_pattern_equal_cells(got, want),
                     "cpu%s, rule %s, %s %llux%llu, %llu generations: differs from ref",
                     pool ? " (threads)" : "", text, wl_topology_name(sh.topology),
                     (unsigned long long)w, (unsigned long long)h, (unsigned long long)gens);
            wl_pattern_free(got);
        }
        wl_pattern_free(want);
    }
    wl_pattern_free(soup);
}

/* The cpu engine's von Neumann kernel (sliding diagonal windows, diamond.h) against ref:
 * ranges 1 to 13 on tori and bounded grids from 1 cell across to several ranges, so that
 * the windows wrap more than once, and bands of two threads (every other round) start
 * anywhere. */
static void test_diamond(int quick) {
    static const int ranges[] = {1, 2, 3, 5, 8, 13};
    for (int round = 0; round < (quick ? 24 : 72); round++) {
        int R = ranges[rnd(6)];
        unsigned most = (unsigned)(2 * R * (R + 1)); /* the outer count's largest value */
        unsigned b0 = 1 + (unsigned)rnd(most / 2), s0 = 1 + (unsigned)rnd(most / 2);
        unsigned b1 = b0 + (unsigned)rnd(most / 3 + 1), s1 = s0 + (unsigned)rnd(most / 2 + 1);
        char text[96];
        snprintf(text, sizeof text, "R%d,C%d,M%d,S%u..%u,B%u..%u,NN", R, rnd(2) ? 0 : 3,
                 (int)rnd(2), s0, s1 < most ? s1 : most, b0, b1 < most ? b1 : most);
        wl_rule rule;
        WL_CHECK_OK(wl_rule_parse(text, &rule));
        uint64_t w = 1 + rnd(round % 3 ? 70 : (uint64_t)R + 2), h = 1 + rnd(round % 2 ? 60 : 9);
        wl_shape sh = {rnd(2) ? WL_TOPOLOGY_TORUS : WL_TOPOLOGY_BOUNDED, w, h, {0, 0, 0, 0}};
        wl_pattern *soup = state_soup(&rule, w, h);
        uint64_t gens = 1 + rnd(6);
        wl_pattern *want = run("ref", NULL, &sh, &rule, soup, gens, 0, NULL);
        for (int portable = 0; portable < 2; portable++) {
            if (portable) setenv("WL_CPU_MULTI_PORTABLE", "1", 1);
            if (round & 1) setenv("WL_CPU_LTL_POOL", "1", 1); /* bands on two threads */
            wl_pattern *got = run("cpu", NULL, &sh, &rule, soup, gens, 1, NULL);
            unsetenv("WL_CPU_MULTI_PORTABLE");
            unsetenv("WL_CPU_LTL_POOL");
            WL_CHECK(!got || (want && wl_pattern_equal_cells(got, want)),
                     "cpu%s%s, rule %s, %s %llux%llu, %llu generations: differs from ref",
                     portable ? " (portable)" : "", round & 1 ? " (threads)" : "", text,
                     wl_topology_name(sh.topology),
                     (unsigned long long)w, (unsigned long long)h, (unsigned long long)gens);
            wl_pattern_free(got);
        }
        wl_pattern_free(want);
        wl_pattern_free(soup);
    }
}

/* The cpu engine's prefix sums across a row's blocks of 32 columns (simd_ltl.c's prefix16
 * for Moore squares past range 5, prefix_bits for the circle's runs), against ref: rows of
 * several blocks, so that every count that spans a block's end reads the running total
 * carried from the blocks before it. */
static void test_ltl_prefix(int quick) {
    static const int moore[] = {6, 9, 16, 31}, circle[] = {4, 7};
    for (int round = 0; round < (quick ? 4 : 12); round++) {
        const int circ = round % 3 == 2;
        const int R = circ ? circle[rnd(2)] : moore[rnd(4)];
        const unsigned n = circ ? (unsigned)(3 * R * R) : (unsigned)((2 * R + 1) * (2 * R + 1));
        const unsigned b0 = n / 4 + (unsigned)rnd(n / 8 + 1), s0 = n / 4 + (unsigned)rnd(n / 8 + 1);
        char text[96];
        snprintf(text, sizeof text, "R%d,C%d,M1,S%u..%u,B%u..%u,%s", R, rnd(2) ? 0 : 4, s0,
                 s0 + n / 4, b0, b0 + n / 8, circ ? "NC" : "NM");
        wl_rule rule;
        WL_CHECK_OK(wl_rule_parse(text, &rule));
        cpu_against_ref(&rule, text, 96 + rnd(200), 2 * (uint64_t)R + 8 + rnd(30), 1 + rnd(3));
    }
}

/* Larger than Life rules of range 1 and two states on the square or the diamond, which the
 * cpu engine runs as their two-state tables (wl_ltl_two_state): the tables against the
 * B/S rules they are, and the cpu engine against ref's counts on random rules of them (M0
 * and M1, any intervals without B0), on tori and bounded grids. */
static void test_ltl_table(int quick) {
    static const char *const same[][2] = {
        {"R1,C0,M0,S2..3,B3..3,NM", "B3/S23"},  {"R1,C0,M1,S3..4,B3..3,NM", "B3/S23"},
        {"R1,C2,S0,B1,NN", "B1/S0V"},          {"R1,C2,M1,S1..2,B2..4,NN", "B234/S01V"},
        {"R1,C0,M0,S1..8,B5..8,NM", "B5678/S12345678"},
    };
    for (size_t k = 0; k < sizeof same / sizeof same[0]; k++) {
        wl_rule ltl, two, want;
        WL_CHECK_OK(wl_rule_parse(same[k][0], &ltl));
        WL_CHECK_OK(wl_rule_parse(same[k][1], &want));
        WL_CHECK(wl_ltl_two_state(&ltl, &two) && wl_rule_equal(&two, &want),
                 "%s is not taken for %s", same[k][0], same[k][1]);
    }
    static const char *const not_two[] = {"R1,C0,M0,S2..3,B0..3,NM", "R2,C0,M0,S2..3,B3..3,NM",
                                          "R1,C3,M0,S2..3,B3..3,NM", "R1,C0,M0,S2..3,B3..3,NC",
                                          "B3/S23"};
    for (size_t k = 0; k < sizeof not_two / sizeof not_two[0]; k++) {
        wl_rule r, two;
        WL_CHECK_OK(wl_rule_parse(not_two[k], &r));
        WL_CHECK(!wl_ltl_two_state(&r, &two), "%s taken for a two-state table", not_two[k]);
    }
    for (int round = 0; round < (quick ? 24 : 72); round++) {
        const int moore = (int)rnd(2);
        const unsigned n = moore ? 8 : 4, middle = (unsigned)rnd(2); /* neighbours, M */
        unsigned b0 = 1 + (unsigned)rnd(n), b1 = b0 + (unsigned)rnd(n + 1 - b0);
        unsigned s0 = middle + (unsigned)rnd(n + 1), s1 = s0 + (unsigned)rnd(n + middle + 1 - s0);
        char text[96];
        snprintf(text, sizeof text, "R1,C%d,M%u,S%u..%u,B%u..%u,N%c", rnd(2) ? 0 : 2, middle,
                 s0, s1, b0, b1, moore ? 'M' : 'N');
        wl_rule rule;
        WL_CHECK_OK(wl_rule_parse(text, &rule));
        cpu_against_ref(&rule, text, 1 + rnd(90), 1 + rnd(70), 1 + rnd(9));
    }
}

/* The cpu engine's Larger than Life counts in 32-bit lanes (simd_ltl.c's "wide" path, for
 * neighbourhoods of 2^16 cells or more) against ref: Moore ranges from 128 and circles from
 * 144 on small grids (the neighbourhood wraps a torus many times), and every shape at small
 * ranges with the path forced (WL_CPU_LTL_WIDE=1); cuda's kernels of large reaches the same
 * way (WL_CUDA_LTL=global) where a GPU is. */
static void test_wide(int quick) {
    static const char shapes[] = "MNC2BD+X*#HA3L";
    for (int round = 0; round < (quick ? 12 : 36); round++) {
        int big = round % 4 == 0;
        char nh = big ? (rnd(2) ? 'M' : 'C') : shapes[rnd(sizeof shapes - 1)];
        int R = big ? (nh == 'M' ? 128 : 144) + (int)rnd(6) : 1 + (int)rnd(nh == 'M' ? 20 : 6);
        char text[96];
        snprintf(text, sizeof text, "R%d,C0,M0,S1..1,B1..1,N%c", R, nh);
        wl_rule rule; /* first the shape alone, for its size */
        WL_CHECK_OK(wl_rule_parse(text, &rule));
        unsigned most = (unsigned)wl_ltl_neighbourhood(&rule.ltl, 0, NULL, NULL) - 1;
        int states = rnd(2) ? 2 : 3;
        unsigned b0 = states == 2 && rnd(4) == 0 ? 0 : 1 + (unsigned)rnd(most / 2); /* B0 too */
        unsigned s0 = 1 + (unsigned)rnd(most / 2);
        unsigned b1 = b0 + (unsigned)rnd(most / 3 + 1), s1 = s0 + (unsigned)rnd(most / 2 + 1);
        snprintf(text, sizeof text, "R%d,C%d,M%d,S%u..%u,B%u..%u,N%c", R, states,
                 (int)rnd(2), s0, s1 < most ? s1 : most, b0, b1 < most ? b1 : most, nh);
        WL_CHECK_OK(wl_rule_parse(text, &rule));
        /* a soup, in half the small cases alone in a larger grid (what no firing cell
         * reaches is skipped on bounded grids without B0) */
        uint64_t w = 1 + rnd(big ? 50 : 80), h = 1 + rnd(big ? 40 : 60);
        wl_pattern *soup = state_soup(&rule, w, h);
        if (!big && rnd(2)) w += rnd(200), h += rnd(200);
        wl_shape sh = {rnd(2) ? WL_TOPOLOGY_TORUS : WL_TOPOLOGY_BOUNDED, w, h, {0, 0, 0, 0}};
        uint64_t gens = 1 + rnd(big ? 2 : 6);
        wl_pattern *want = run("ref", NULL, &sh, &rule, soup, gens, 0, NULL);
        /* cpu's 32-bit counts; cuda's kernels of large reaches (k_ltl_square,
         * k_ltl_global), where a GPU is */
        static const char *const engines[] = {"cpu", "cuda"}, *const vars[] = {"WL_CPU_LTL_WIDE",
                                                                              "WL_CUDA_LTL"};
        static const char *const values[] = {"1", "global"};
        for (int e = 0; e < 2; e++) {
            if (!big) setenv(vars[e], values[e], 1);
            wl_pattern *got = run(engines[e], NULL, &sh, &rule, soup, gens, 1, NULL);
            unsetenv(vars[e]);
            WL_CHECK(!got || (want && wl_pattern_equal_cells(got, want)),
                     "%s (large reaches), rule %s, %s %llux%llu, %llu generations: differs "
                     "from ref", engines[e], text, wl_topology_name(sh.topology),
                     (unsigned long long)w, (unsigned long long)h, (unsigned long long)gens);
            wl_pattern_free(got);
        }
        wl_pattern_free(want);
        wl_pattern_free(soup);
    }
}

/* cuda's k_ltl_bits at the grid's edges (where a GPU is): Moore squares of every range it
 * runs, on tori whose width is a multiple of 32 (whose edge columns read whole words and
 * wrap, lb_edge_word) and on bounded grids of any width (dead outside), heights from the
 * range up, against ref; and the same through wl_win32 (WL_CUDA_LTL_EDGE=slow). */
static void test_ltl_edges(int quick) {
    for (int round = 0; round < (quick ? 12 : 24); round++) {
        const int R = round < 4 ? 1 + round * 10 : 1 + (int)rnd(31), span = 2 * R + 1;
        const unsigned most = (unsigned)(span * span);
        unsigned b0 = 1 + (unsigned)rnd(most / 3), s0 = 1 + (unsigned)rnd(most / 3);
        unsigned b1 = b0 + (unsigned)rnd(most / 4 + 1), s1 = s0 + (unsigned)rnd(most / 3 + 1);
        char text[96];
        snprintf(text, sizeof text, "R%d,C%d,M%d,S%u..%u,B%u..%u,NM", R, rnd(3) ? 2 : 3,
                 (int)rnd(2), s0, s1 < most - 1 ? s1 : most - 1, b0, b1 < most - 1 ? b1 : most - 1);
        wl_rule rule;
        WL_CHECK_OK(wl_rule_parse(text, &rule));
        const int torus = round % 2 == 0;
        uint64_t w = torus ? 32 * (1 + rnd(6)) : 1 + rnd(200);
        uint64_t h = round % 3 == 0 ? (uint64_t)R + rnd(3) : 1 + rnd(150);
        wl_pattern *soup = state_soup(&rule, w, h);
        wl_shape sh = {torus ? WL_TOPOLOGY_TORUS : WL_TOPOLOGY_BOUNDED, w, h, {0, 0, 0, 0}};
        uint64_t gens = 1 + rnd(6);
        wl_pattern *want = run("ref", NULL, &sh, &rule, soup, gens, 0, NULL);
        for (int slow = 0; slow < 2; slow++) {
            setenv("WL_CUDA_LTL", "bits", 1);
            if (slow) setenv("WL_CUDA_LTL_EDGE", "slow", 1);
            wl_pattern *got = run("cuda", NULL, &sh, &rule, soup, gens, (int)rnd(2), NULL);
            unsetenv("WL_CUDA_LTL");
            unsetenv("WL_CUDA_LTL_EDGE");
            WL_CHECK(!got || (want && wl_pattern_equal_cells(got, want)),
                     "cuda k_ltl_bits%s, rule %s, %s %llux%llu, %llu generations: differs from "
                     "ref", slow ? " (edges through wl_win32)" : "", text,
                     wl_topology_name(sh.topology), (unsigned long long)w,
                     (unsigned long long)h, (unsigned long long)gens);
            wl_pattern_free(got);
        }
        wl_pattern_free(want);
        wl_pattern_free(soup);
    }
}

/* ---- 1, 2: every engine against ref ------------------------------------------------------- */

static void test_engines(int quick) {
    int rounds = quick ? 4 : 12;
    for (int kind = 0; kind < K_COUNT; kind++) {
        /* the last round (not in quick runs) on a grid of several GPU tiles each way */
        for (int round = 0; round < rounds + !quick; round++) {
            char text[256];
            wl_rule rule;
            random_rule(kind, &rule, text, sizeof text);
            uint64_t w = 1 + rnd(round % 3 == 0 ? 9 : 90), h = 1 + rnd(round % 3 == 0 ? 9 : 70);
            const int gen = kind == K_GEN || kind == K_GEN_MAP || kind == K_GEN_NH;
            if (round == rounds) { /* (Generations: two in three a width cuda's res runs) */
                unsigned pick = gen ? (unsigned)rnd(3) : 0;
                w = pick ? 1024u << pick : 2000 + rnd(200);
                h = 200 + rnd(60);
            }
            uint64_t gens = 1 + rnd(24);
            int split = (int)rnd(2);
            wl_pattern *soup = state_soup(&rule, w, h);
            for (int t = 0; t < 2; t++) {
                wl_shape sh = {t ? WL_TOPOLOGY_BOUNDED : WL_TOPOLOGY_TORUS, w, h, {0, 0, 0, 0}};
                wl_pattern *want = run("ref", NULL, &sh, &rule, soup, gens, 0, NULL);
                for (size_t e = 0; e < wl_engine_count(); e++) {
                    const char *name = wl_engine_name(e);
                    if (!strcmp(name, "ref")) continue;
                    const char *const *ks;
                    size_t nk;
                    if (wl_engine_kernels(name, &ks, &nk)) continue;
                    /* cuda's kernels of Generations (res, registers, tiles of 64 and of
                     * 32 rows; res0: res with its decay binary for every rule) and of Larger
                     * than Life, each forced, besides its own choice */
                    static const char *const gen_modes[] = {NULL,  "regs", "tile64", "tile32",
                                                            "res", "res0"};
                    static const char *const ltl_modes[] = {NULL, "bits", "tile", "bits0", "global"};
                    int cuda = !strcmp(name, "cuda");
                    const char *var = kind == K_LTL ? "WL_CUDA_LTL" : "WL_CUDA_GEN";
                    int modes = !cuda ? 1 : gen ? 6 : kind == K_LTL ? 5 : 1;
                    for (int md = 0; md < modes; md++) {
                        const char *mode = kind == K_LTL ? ltl_modes[md] : gen_modes[md];
                        const int res0 = mode && !strcmp(mode, "res0");
                        if (mode) setenv(var, res0 ? "res" : mode, 1);
                        if (res0) setenv("WL_CUDA_RES_ONEHOT", "0", 1);
                        wl_bigint pop, wp;
                        wl_pattern *got = run(name, NULL, &sh, &rule, soup, gens, split, &pop);
                        unsetenv(var);
                        unsetenv("WL_CUDA_RES_ONEHOT");
                        if (!got) continue;
                        wl_bigint_from_u64(&wp, want ? wl_pattern_population(want) : 0);
                        WL_CHECK(want && wl_pattern_equal_cells(got, want) && !wl_bigint_cmp(&pop, &wp),
                                 "%s%s%s%s, rule %s (%s), %s %llux%llu, %llu generations: "
                                 "differs from ref", name, mode ? " with " : "", mode ? var : "",
                                 mode ? mode : "", text, KIND_NAMES[kind],
                                 wl_topology_name(sh.topology), (unsigned long long)w,
                                 (unsigned long long)h, (unsigned long long)gens);
                        wl_pattern_free(got);
                    }
                }
                wl_pattern_free(want);
            }
            /* the plane engines against ref on a bounded grid nothing reaches (small soups) */
            if (round == rounds || (wl_rule_has_b0(&rule) && kind != K_HISTORY && kind != K_SUPER)) {
                wl_pattern_free(soup);
                continue;
            }
            uint64_t reach = kind == K_LTL ? 2u * rule.ltl.range + 1 : 1;
            wl_shape big = {WL_TOPOLOGY_BOUNDED, w + 2 * (gens * reach + 4), h + 2 * (gens * reach + 4),
                            {0, 0, 0, 0}};
            /* a grid's column + row has the parity of x + y (the triangular neighbourhood
             * flips with it) when W/2 + H/2 is even */
            if ((big.width / 2 + big.height / 2) & 1) big.width += 2;
            wl_shape plane = {WL_TOPOLOGY_PLANE, 0, 0, {0, 0, 0, 0}};
            wl_pattern *want = run("ref", NULL, &big, &rule, soup, gens, 0, NULL);
            static const char *const inner[] = {"ref", "cpu", "cuda", NULL, NULL};
            static const char *const plane_engine[] = {"grow", "grow", "grow", "hashlife", "auto"};
            for (int k = 0; k < 5; k++) {
                wl_pattern *got = run(plane_engine[k], inner[k], &plane, &rule, soup, gens, split,
                                      NULL);
                if (!got) continue;
                WL_CHECK(want && wl_pattern_equal_cells(got, want),
                         "plane (%s%s%s), rule %s (%s), %llux%llu soup, %llu generations: "
                         "differs from ref", plane_engine[k], inner[k] ? ":" : "",
                         inner[k] ? inner[k] : "", text, KIND_NAMES[kind],
                         (unsigned long long)w, (unsigned long long)h, (unsigned long long)gens);
                wl_pattern_free(got);
            }
            wl_pattern_free(want);
            wl_pattern_free(soup);
        }
    }
}

/* Generations with many states on the cpu engine against ref, long enough for whole
 * decays: the planes count from an offset so that the last step of a decay overflows to 0
 * (every boundary of the number of planes), and go through the tile driver's passes with
 * the cells, in band mode (widths of whole 512-cell vectors) and general mode, on tori and
 * bounded grids, several passes a step. */
static void test_many_states(int quick) {
    static const unsigned states[] = {3, 4, 5, 6, 9, 10, 17, 33, 65, 129, 130, 200, 256};
    for (size_t i = 0; i < sizeof states / sizeof states[0]; i++) {
        if (quick && i % 3) continue;
        char text[64];
        wl_rule rule;
        snprintf(text, sizeof text, "%s/%s/%u", rnd(2) ? "12" : "2", rnd(2) ? "34" : "3",
                 states[i]);
        WL_CHECK_OK(wl_rule_parse(text, &rule));
        const uint64_t w = rnd(2) ? 512 : 100 + rnd(200), h = 16 + rnd(24);
        const uint64_t gens = states[i] + 2 + rnd(40);
        cpu_against_ref(&rule, text, w, h, gens);
    }
}

/* Super on the cpu engine (bit logic of every state's marks, multi.c) against ref for
 * longer runs than test_engines': random Super rules of every neighbourhood (B0 with S8
 * included), soups of all 26 states, band and general widths, tori and bounded grids, in
 * one or two steps. */
static void test_super_long(int quick) {
    for (int round = 0; round < (quick ? 3 : 10); round++) {
        char text[256];
        wl_rule rule;
        random_rule(K_SUPER, &rule, text, sizeof text);
        const uint64_t w = rnd(3) ? 512 : 60 + rnd(300), h = 8 + rnd(40);
        const uint64_t gens = 20 + rnd(80);
        cpu_against_ref(&rule, text, w, h, gens);
    }
}

/* HashLife's leaps against grow over thousands of generations of small soups under
 * Generations rules that stay in bounds, auto's handover between the two both ways
 * (WL_HANDOVER forces the trial's outcome), and a cell edit of a multi-state HashLife
 * universe.  Grow (checked against ref above) is the reference here: ref itself would take
 * minutes over areas this large. */
static void test_plane_long(int quick) {
    static const char *const rules[] = {"/2/3", "345/2/4", "3458/37/4", "2/234/5"};
    wl_shape plane = {WL_TOPOLOGY_PLANE, 0, 0, {0, 0, 0, 0}};
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        wl_rule rule;
        WL_CHECK_OK(wl_rule_parse(rules[i], &rule));
        wl_pattern *soup = state_soup(&rule, 12, 12);
        uint64_t gens = quick ? 2100 : 2100 + rnd(1000);
        wl_pattern *want = run("grow", NULL, &plane, &rule, soup, gens, 0, NULL);
        wl_pattern *got = run("hashlife", NULL, &plane, &rule, soup, gens, 1, NULL);
        WL_CHECK(want && got && wl_pattern_equal_cells(got, want),
                 "hashlife, rule %s, 12x12 soup, %llu generations: differs from grow", rules[i],
                 (unsigned long long)gens);
        wl_pattern_free(got);
        for (int m = 0; m < 2; m++) { /* one step: a trial needs 2048 generations to go */
            setenv("WL_HANDOVER", m ? "back" : "hashlife", 1);
            wl_universe *u;
            WL_CHECK_OK(make("auto", NULL, &plane, &rule, &u));
            got = NULL;
            if (u) {
                WL_CHECK_OK(wl_universe_load(u, soup, NULL));
                WL_CHECK(!strcmp(wl_universe_engine(u), "grow"), "auto starts on %s",
                         wl_universe_engine(u));
                WL_CHECK_OK(wl_universe_step(u, gens));
                WL_CHECK(!strcmp(wl_universe_engine(u), m ? "grow" : "hashlife"),
                         "auto (%s) ends on %s", m ? "back" : "hashlife", wl_universe_engine(u));
                WL_CHECK_OK(wl_universe_store(u, &got));
                wl_universe_free(u);
            }
            unsetenv("WL_HANDOVER");
            WL_CHECK(want && got && wl_pattern_equal_cells(got, want),
                     "auto handing %s, rule %s, 12x12 soup, %llu generations: differs from grow",
                     m ? "back" : "over", rules[i], (unsigned long long)gens);
            wl_pattern_free(got);
        }
        wl_pattern_free(want);
        /* a short run: fewer than 2048 generations, one short trial after the first chunk
         * (forced both ways, and left to the clock) */
        gens = 200 + rnd(800);
        want = run("grow", NULL, &plane, &rule, soup, gens, 0, NULL);
        for (int m = 0; m < 3; m++) {
            if (m < 2) setenv("WL_HANDOVER", m ? "back" : "hashlife", 1);
            wl_universe *u;
            WL_CHECK_OK(make("auto", NULL, &plane, &rule, &u));
            got = NULL;
            if (u) {
                WL_CHECK_OK(wl_universe_load(u, soup, NULL));
                WL_CHECK_OK(wl_universe_step(u, gens));
                if (m < 2)
                    WL_CHECK(!strcmp(wl_universe_engine(u), m ? "grow" : "hashlife"),
                             "auto (%s, %llu generations) ends on %s", m ? "back" : "hashlife",
                             (unsigned long long)gens, wl_universe_engine(u));
                WL_CHECK_OK(wl_universe_store(u, &got));
                wl_universe_free(u);
            }
            unsetenv("WL_HANDOVER");
            WL_CHECK(want && got && wl_pattern_equal_cells(got, want),
                     "auto (mode %d), rule %s, 12x12 soup, %llu generations: differs from grow",
                     m, rules[i], (unsigned long long)gens);
            wl_pattern_free(got);
        }
        wl_pattern_free(want);
        wl_pattern_free(soup);
    }
    /* a short run that HashLife wins by far (a cell under 1/1/5 draws a Sierpinski front:
     * HashLife 5-8 times faster than grow to 1000): auto with the short trial on one core,
     * and with the race beside grow on two, where HashLife reaching the target cuts grow's
     * step short (handover.c, ho_first_poll), against grow */
    {
        wl_rule rule;
        WL_CHECK_OK(wl_rule_parse("1/1/5", &rule));
        wl_pattern *seed = wl_pattern_new();
        WL_CHECK_OK(wl_pattern_set_state(seed, 0, 0, 1));
        wl_pattern_set_rule(seed, &rule);
        const uint64_t gens = 900 + rnd(200);
        wl_pattern *want = run("grow", NULL, &plane, &rule, seed, gens, 0, NULL);
        for (int conc = 0; conc < 2; conc++) {
            setenv("WL_HANDOVER_CONCURRENT", conc ? "1" : "0", 1);
            wl_universe *u;
            wl_pattern *got = NULL;
            uint64_t at = 0;
            WL_CHECK_OK(make("auto", NULL, &plane, &rule, &u));
            if (u) {
                WL_CHECK_OK(wl_universe_load(u, seed, NULL));
                WL_CHECK_OK(wl_universe_step(u, gens));
                wl_bigint g;
                wl_universe_generation(u, &g);
                wl_bigint_to_u64(&g, &at);
                WL_CHECK_OK(wl_universe_store(u, &got));
                wl_universe_free(u);
            }
            WL_CHECK(at == gens && want && got && wl_pattern_equal_cells(got, want),
                     "auto (%s), 1/1/5 from a cell, %llu generations: generation %llu, cells "
                     "%s grow's", conc ? "a race" : "a trial", (unsigned long long)gens,
                     (unsigned long long)at,
                     got && want && wl_pattern_equal_cells(got, want) ? "equal to" : "not");
            wl_pattern_free(got);
        }
        unsetenv("WL_HANDOVER_CONCURRENT");
        wl_pattern_free(want);
        wl_pattern_free(seed);
    }
    /* History and Super: HashLife's base case (bit logic, marks_bits.h) over thousands of
     * generations against grow on the cpu engine (soups of every state of the rule) */
    static const char *const marks_rules[] = {"LifeHistory", "LifeSuper", "B36/S23Super",
                                              "B2/S34HHistory", "B2-a/S12Super", "B3/S23VSuper"};
    for (size_t i = 0; i < sizeof marks_rules / sizeof marks_rules[0]; i++) {
        if (quick && i % 2) continue;
        wl_rule rule;
        WL_CHECK_OK(wl_rule_parse(marks_rules[i], &rule));
        wl_pattern *soup = state_soup(&rule, 12, 12);
        const uint64_t gens = quick ? 2100 : 2100 + rnd(1000);
        wl_pattern *want = run("grow", "cpu", &plane, &rule, soup, gens, 0, NULL);
        wl_pattern *got = run("hashlife", NULL, &plane, &rule, soup, gens, 1, NULL);
        WL_CHECK(want && got && wl_pattern_equal_cells(got, want),
                 "hashlife, rule %s, 12x12 soup, %llu generations: differs from grow",
                 marks_rules[i], (unsigned long long)gens);
        wl_pattern_free(got);
        wl_pattern_free(want);
        wl_pattern_free(soup);
    }
    /* an edit: a cell of state 3 made live (state 1), one made dead, one born far away */
    wl_rule rule;
    WL_CHECK_OK(wl_rule_parse("345/2/5", &rule));
    wl_universe *u;
    WL_CHECK_OK(make("hashlife", NULL, &plane, &rule, &u));
    if (!u) return;
    wl_pattern *p = wl_pattern_new(), *out = NULL;
    WL_CHECK_OK(wl_pattern_set_state(p, 0, 0, 3));
    WL_CHECK_OK(wl_pattern_set_state(p, 1, 0, 4));
    WL_CHECK_OK(wl_pattern_set_state(p, 2, 0, 2));
    wl_pattern_set_rule(p, &rule);
    WL_CHECK_OK(wl_universe_load(u, p, NULL));
    WL_CHECK_OK(wl_universe_set_cell(u, 0, 0, 1));
    WL_CHECK_OK(wl_universe_set_cell(u, 1, 0, 0));
    WL_CHECK_OK(wl_universe_set_cell(u, 1000, -1000, 1));
    WL_CHECK_OK(wl_universe_store(u, &out));
    WL_CHECK(out && wl_pattern_get_state(out, 0, 0) == 1 && wl_pattern_get_state(out, 1, 0) == 0 &&
             wl_pattern_get_state(out, 2, 0) == 2 && wl_pattern_get_state(out, 1000, -1000) == 1 &&
             wl_pattern_population(out) == 3,
             "hashlife: cell edits of a multi-state universe went wrong");
    wl_pattern_free(out);
    wl_pattern_free(p);
    wl_universe_free(u);
}

/* ---- 3: glued grids against explicit edge copies ---------------------------------------- */

/* The grid cell that ring cell (i, j) of a w x h glued grid copies, written out edge by
 * edge from Golly's descriptions of its topologies: the rows just above and below the grid
 * repeat the bottom and top rows (shifted for a shifted torus, reversed where a Klein
 * bottle or a cross-surface twists them); the columns left and right repeat the right and
 * left columns likewise; a sphere joins the top row to the left column and the bottom row
 * to the right column.  Returns 0 when the ring cell stays dead. */
static int glue_source(const wl_shape *sh, int64_t i, int64_t j, int64_t *si, int64_t *sj) {
    int64_t w = (int64_t)sh->width, h = (int64_t)sh->height;
    int above = j < 0, below = j >= h, left = i < 0, right = i >= w;
    const wl_glue *g = &sh->glue;
    switch (sh->topology) {
    case WL_TOPOLOGY_TORUS: {
        /* unroll: a step off the top lands on the bottom row, moved by the shift */
        int64_t x = i, y = j;
        if (above) x -= g->hshift;
        if (below) x += g->hshift;
        if (left) y -= g->vshift;
        if (right) y += g->vshift;
        *si = ((x % w) + w) % w;
        *sj = ((y % h) + h) % h;
        return 1;
    }
    case WL_TOPOLOGY_KLEIN:
        if (g->htwist) {
            if (above || below) {
                /* the row beyond reads the far row backwards (one cell left when shifted);
                 * the corners follow the column they sit above */
                int64_t col = left ? (g->hshift ? w - 1 : 0) : right ? (g->hshift ? w - 2 : w - 1)
                                   : ((w - 1 - (g->hshift ? 1 : 0) - i) % w + w) % w;
                *si = col;
                *sj = above ? h - 1 : 0;
                return 1;
            }
            *si = left ? w - 1 : 0;
            *sj = j;
            return 1;
        }
        if (left || right) {
            int64_t row = above ? (g->vshift ? h - 1 : 0) : below ? (g->vshift ? h - 2 : h - 1)
                                : ((h - 1 - (g->vshift ? 1 : 0) - j) % h + h) % h;
            *si = left ? w - 1 : 0;
            *sj = row;
            return 1;
        }
        *si = i;
        *sj = above ? h - 1 : 0;
        return 1;
    case WL_TOPOLOGY_CROSS:
    case WL_TOPOLOGY_SPHERE:
        if ((above || below) && (left || right)) { /* the corner of the grid beside it */
            *si = left ? 0 : w - 1;
            *sj = above ? 0 : h - 1;
            return 1;
        }
        if (sh->topology == WL_TOPOLOGY_CROSS) {
            *si = above || below ? w - 1 - i : left ? w - 1 : 0;
            *sj = above ? h - 1 : below ? 0 : h - 1 - j;
        } else {
            *si = left ? j : right ? j : above ? 0 : w - 1;
            *sj = left ? 0 : right ? h - 1 : i;
        }
        return 1;
    default:
        return 0;
    }
}

/* gens generations of a two-state rule on a glued grid, by copying the edges into the
 * ring before each generation; cells as bytes, the grid's cell (x, y) at pattern
 * (x - w/2, y - h/2). */
static wl_pattern *glued_run(const wl_shape *sh, const wl_rule *rule, const wl_pattern *p,
                             uint64_t gens) {
    int64_t w = (int64_t)sh->width, h = (int64_t)sh->height, pw = w + 2;
    uint8_t *a = calloc((size_t)(pw * (h + 2)), 1), *b = calloc((size_t)(pw * (h + 2)), 1);
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++)
            a[(y + 1) * pw + x + 1] = (uint8_t)wl_pattern_get(p, x - w / 2, y - h / 2);
    for (uint64_t g = 0; g < gens; g++) {
        for (int64_t j = -1; j <= h; j++)
            for (int64_t i = -1; i <= w; i++) {
                if (i >= 0 && i < w && j >= 0 && j < h) continue;
                int64_t si, sj;
                a[(j + 1) * pw + i + 1] =
                    glue_source(sh, i, j, &si, &sj) ? a[(sj + 1) * pw + si + 1] : 0;
            }
        for (int64_t y = 1; y <= h; y++)
            for (int64_t x = 1; x <= w; x++) {
                unsigned idx = 0;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) idx = idx << 1 | a[(y + dy) * pw + x + dx];
                b[y * pw + x] = (uint8_t)wl_rule_next(rule, idx);
            }
        uint8_t *t = a;
        a = b;
        b = t;
    }
    wl_pattern *out = wl_pattern_new();
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++)
            if (a[(y + 1) * pw + x + 1]) WL_CHECK_OK(wl_pattern_set(out, x - w / 2, y - h / 2, 1));
    free(a);
    free(b);
    return out;
}

static void test_glued(int quick) {
    static const char *const suffixes[] = {"T17+3,11", "T17-5,11", "T17,11+4", "T17,11-2",
                                           "K16*,11",  "K16*+1,11", "K17,12*", "K17,12*+1",
                                           "K15*,9",   "C17,11",    "C5,3",    "S13",
                                           "S1",       "T1+0,1",    "K2*+1,2", "C1,1"};
    static const char *const rules[] = {"B3/S23", "B36/S23", "B2-a/S12", "B3/S23H",
                                        "B0123478/S01234678"};
    int n = quick ? 6 : 16;
    for (int k = 0; k < n; k++) {
        wl_shape sh;
        WL_CHECK_OK(wl_shape_parse(suffixes[k], &sh));
        for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++) {
            wl_rule rule;
            WL_CHECK_OK(wl_rule_parse(rules[r], &rule));
            wl_pattern *soup = wl_test_soup(sh.width, sh.height, 0.4, wl_test_rand(&rng));
            uint64_t gens = 1 + rnd(60);
            wl_pattern *want = glued_run(&sh, &rule, soup, gens);
            int ran = 0;
            for (size_t e = 0; e < wl_engine_count(); e++) {
                wl_pattern *got = run(wl_engine_name(e), NULL, &sh, &rule, soup, gens, 1, NULL);
                if (!got) continue;
                ran++;
                WL_CHECK(wl_pattern_equal_cells(got, want), "%s on :%s, rule %s, %llu "
                         "generations: differs from the explicit glue", wl_engine_name(e),
                         suffixes[k], rules[r], (unsigned long long)gens);
                wl_pattern_free(got);
            }
            WL_CHECK(ran > 0, "no engine runs :%s", suffixes[k]);
            wl_pattern_free(want);
            wl_pattern_free(soup);
        }
    }
}

/* ---- 4: facts --------------------------------------------------------------------------- */

/* Loads RLE text; NULL with a failed check on error. */
static wl_pattern *read_rle(const char *text) {
    wl_pattern *p = NULL;
    WL_CHECK_OK(wl_pattern_read_mem(text, strlen(text), "fact.rle", &p));
    return p;
}

/* The population after gens generations of a pattern file's text on its own grid (or the
 * plane), on every engine that runs it; each must be `want`. */
static void population_fact(const char *name, const char *text, uint64_t gens, uint64_t want) {
    wl_pattern *p = read_rle(text);
    if (!p) return;
    wl_shape sh;
    wl_pattern_shape(p, &sh);
    int ran = 0;
    for (size_t e = 0; e <= wl_engine_count(); e++) {
        /* every engine, and "grow" with each inner engine */
        const char *engine = e < wl_engine_count() ? wl_engine_name(e) : "auto";
        static const char *const inner[] = {"ref", "cpu", "cuda"};
        int nk = !strcmp(engine, "grow") ? 3 : 1;
        for (int k = 0; k < nk; k++) {
            wl_bigint pop;
            uint64_t got = 0;
            wl_pattern *out = run(engine, nk > 1 ? inner[k] : NULL, &sh, wl_pattern_rule(p), p,
                                  gens, 0, &pop);
            if (!out) continue;
            ran++;
            WL_CHECK(wl_bigint_to_u64(&pop, &got) && got == want && wl_pattern_population(out) == want,
                     "%s at generation %llu on %s%s%s: population %llu, Golly's %llu", name,
                     (unsigned long long)gens, engine, nk > 1 ? ":" : "", nk > 1 ? inner[k] : "",
                     (unsigned long long)got, (unsigned long long)want);
            wl_pattern_free(out);
        }
    }
    WL_CHECK(ran > 0, "%s: no engine ran it", name);
    wl_pattern_free(p);
}

/* A spaceship's period and displacement: after `period` generations the pattern is itself
 * moved by (dx, dy). */
static void ship_fact(const char *name, const char *text, uint64_t period, int64_t dx, int64_t dy) {
    wl_pattern *p = read_rle(text);
    if (!p) return;
    wl_shape plane = {WL_TOPOLOGY_PLANE, 0, 0, {0, 0, 0, 0}};
    wl_pattern *moved = wl_pattern_new();
    wl_rect r;
    wl_pattern_bounds(p, &r);
    for (uint64_t y = 0; y < r.h; y++)
        for (uint64_t x = 0; x < r.w; x++) {
            unsigned s = wl_pattern_get_state(p, r.x + (int64_t)x, r.y + (int64_t)y);
            if (s) WL_CHECK_OK(wl_pattern_set_state(moved, r.x + (int64_t)x + dx, r.y + (int64_t)y + dy, s));
        }
    static const char *const inner[] = {"ref", "cpu", "cuda"};
    for (int k = 0; k < 3; k++) {
        wl_pattern *out = run("grow", inner[k], &plane, wl_pattern_rule(p), p, period, 1, NULL);
        if (!out) continue;
        WL_CHECK(wl_pattern_equal_cells(out, moved), "%s on grow:%s: not itself moved by (%lld, "
                 "%lld) after %llu generations", name, inner[k], (long long)dx, (long long)dy,
                 (unsigned long long)period);
        wl_pattern_free(out);
    }
    wl_pattern_free(moved);
    wl_pattern_free(p);
}

/* A soup of B3/S23 on twelve of Golly's grids: populations from bgolly 5.1 (QuickLife). */
static void test_golly_grids(void) {
    static const char soup[] = "2ob2ob3obob2o$3o4bobo3bo$o2b2o2bobob3o$b2obo3b2o3bo$b2obob2obo2b2"
                               "o$b2ob5ob2obo$bo3b2o2b4o$obobo2bo2bo2bo$2b2obobo$3bob2obo2bo$o3bo"
                               "bo2b4o$3b5ob2o!";
    static const struct {
        const char *grid;
        uint64_t pop[3]; /* generations 10, 100, 500 */
    } cases[] = {
        {"T25+3,19", {38, 27, 27}},   {"T25,19-4", {38, 23, 23}},  {"K24*,19", {38, 50, 19}},
        {"K24*+1,19", {38, 65, 3}},   {"K25,18*", {38, 23, 23}},   {"K25,18*+1", {38, 42, 19}},
        {"C25,19", {38, 6, 6}},       {"S21", {38, 0, 0}},         {"P25,19", {37, 12, 12}},
        {"T25,19", {38, 27, 27}},     {"T10,8", {11, 7, 7}},       {"P9,7", {17, 3, 3}},
    };
    static const uint64_t gens[3] = {10, 100, 500};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "x = 14, y = 12, rule = B3/S23:%s\n%s\n", cases[i].grid, soup);
        for (int g = 0; g < 3; g++) population_fact(cases[i].grid, text, gens[g], cases[i].pop[g]);
    }
}

static void test_facts(int quick) {
    /* Brian's Brain: two firing cells before two dying ones fly north at c */
    ship_fact("Brian's Brain glider", "x = 2, y = 2, rule = /2/3\n2A$2B!", 4, 0, -4);
    /* Dean Hickerson's jitterbug (Golly's Larger-than-Life folder): 4 cells east in 40 */
    ship_fact("jitterbug", "x = 7, y = 8, rule = R4,C2,S23-37,B22-31\n"
              "b4o$o4bo$o4b2o$2o2b3o$7o$b4o$b4o$b4o!", 40, 4, 0);
    /* still lifes: a block on Golly's hexagonal grid, a domino under von Neumann's */
    ship_fact("hexagonal block", "x = 2, y = 2, rule = B3/S23H\n2o$2o!", 10, 0, 0);
    ship_fact("von Neumann domino", "x = 2, y = 1, rule = B2/S013V\n2o!", 10, 0, 0);
    /* small patterns of Golly's collection: populations from bgolly 5.1 */
    population_fact("what-a-mess (Brian's Brain)", "x = 13, y = 20, rule = /2/3\n"
                    "2.AB7.BA$.B.A4.BA.BA$2.2AB2.2A.BA$3.B.A.AB$2.2B.B2.BA$2B6.2A$3A.2B2.BA$3.2B"
                    "2.AB$4.A5.BA$A2BA7.BA$A2BA7.BA$4.A5.BA$3.2B2.AB$3A.2B2.BA$2B6.2A$2.2B.B2.BA"
                    "$3.B.A.AB$2.2AB2.2A.BA$.B.A4.BA.BA$2.AB7.BA!", 100, 990);
    population_fact("sawfish", "x = 8, y = 10, rule = 3458/37/4\n4.CA$4.B3A$.B3.C2A$C7A$.2ACA$"
                    "4.A$3.C4A$3.B.C2A$4.B3A$4.CA!", 100, 170);
    population_fact("perfect spiral", "x = 4, y = 4, rule = 2/234/5\n.D$.2AD$.3A$D2AD!", 100, 7954);
    population_fact("gnarl", "x = 2, y = 2, rule = R1,C2,S0,B1,NN\nbo$o!", 100, 5088);
    population_fact("slow backrake", "x = 6, y = 8, rule = R3,C2,S13-25,B8-9\n"
                    "2bo2$2b4o$obob2o$obob2o$2b4o2$2bo!", 100, 50);
    population_fact("triangular Sierpinski generator", "x = 58, y = 10, rule = R1,C2,S1,B1,10,11,12,NL\n"
                    "$2b5o$bo2bo2bo33b5o7b5o$2o3b3o33bobobo7bobobo$o5bo$bob2obob5o30bo11bo$5b2obobo2b"
                    "o28b3o9b3o$6b2o5bo$6b3o$7b2ob2o!", 100, 498);
    /* Golly's bounded-grid examples (LifeHistory: trails and marks count) */
    static const struct {
        const char *name, *text;
        uint64_t pop[2]; /* generations 100, 1000 */
    } grids[] = {
        {"torus", "#CXRLE Pos=-2,-2\nx = 3, y = 3, rule = LifeHistory:T31,20\n.A$2.A$3A!", {107, 592}},
        {"torus with shift", "#CXRLE Pos=-2,-2\nx = 4, y = 5, rule = LifeHistory:T30+7,20\n"
                             "A.A$3.A$3.A$A2.A$.3A!", {267, 600}},
        {"Klein bottle", "#CXRLE Pos=-10,-3\nx = 20, y = 6, rule = LifeHistory:K40*,20\n"
                         "16.3A$16.A2.A$16.A$3A13.A$A16.A.A$.A!", {276, 316}},
        {"cross-surface", "#CXRLE Pos=-13,-4\nx = 26, y = 12, rule = LifeHistory:C40,20\n15.A$2A12."
                          "A9.2A$A.A11.3A6.A.A$A24.A4$9.A.A$8.A$8.A$8.A2.A$8.3A!", {347, 472}},
        {"sphere", "#CXRLE Pos=-10,-10\nx = 20, y = 20, rule = LifeHistory:S30\n2A16.2A$A.A14.A.A$"
                   "A18.A13$12.3A$12.A2.A$12.A$12.A$13.A.A!", {308, 341}},
    };
    for (size_t i = 0; i < sizeof grids / sizeof grids[0]; i++)
        for (int g = 0; g < (quick ? 1 : 2); g++)
            population_fact(grids[i].name, grids[i].text, g ? 1000 : 100, grids[i].pop[g]);
    test_golly_grids();
}

int main(void) {
    rng = wl_test_seed();
    const char *q = getenv("WL_TEST_QUICK");
    int quick = q && *q && strcmp(q, "0") != 0;
    test_engines(quick);
    test_many_states(quick);
    test_super_long(quick);
    test_diamond(quick);
    test_ltl_table(quick);
    test_ltl_prefix(quick);
    test_wide(quick);
    test_ltl_edges(quick);
    test_plane_long(quick);
    test_glued(quick);
    test_facts(quick);
    return wl_test_finish("test_multistate");
}
