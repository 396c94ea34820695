/*
 * wltest.h - the tiny test harness every test program uses.
 *
 *   WL_CHECK(cond, fmt, ...)   records a failure with file:line and a message
 *   WL_CHECK_OK(status_expr)   checks a wl_status is WL_OK, printing wl_last_error()
 *   return wl_test_finish("name");  prints "name: N passed, N failed" and the exit code
 *
 * and the engine-test helpers every engine test shares: wl_test_make (a universe of an
 * engine, kernel, topology, size and rule), wl_test_soup (a random soup centred as grids
 * place patterns), wl_test_ref_run (what the reference engine makes of a pattern),
 * wl_test_load_step (load and step, in one or two calls) and wl_test_same (two universes:
 * the same cells, population and bounds).
 *
 * A test program exits 0 only if every check passed; ctest counts the programs.
 */
#ifndef WL_TEST_H
#define WL_TEST_H

#include "warplife.h"

#include <stdio.h>
#include <stdlib.h>

static unsigned long wl_test_passed, wl_test_failed;

#define WL_CHECK(cond, ...)                                                                 \
    do {                                                                                    \
        if (cond) {                                                                         \
            wl_test_passed++;                                                               \
        } else {                                                                            \
            wl_test_failed++;                                                               \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);        \
            fprintf(stderr, __VA_ARGS__);                                                   \
            fputc('\n', stderr);                                                            \
        }                                                                                   \
    } while (0)

#define WL_CHECK_OK(expr)                                                                   \
    do {                                                                                    \
        wl_status wl_check_s_ = (expr);                                                     \
        WL_CHECK(wl_check_s_ == WL_OK, "%s -> %s (%s)", #expr, wl_status_str(wl_check_s_),  \
                 wl_last_error());                                                          \
    } while (0)

#ifdef _POSIX_C_SOURCE
#include <dirent.h>
#include <string.h>
#include <unistd.h>
/* For tests that define _POSIX_C_SOURCE: the number of entries in a directory whose names
 * start with prefix (NULL: every entry but . and ..), or -1 if it cannot be opened
 * (temporary files left behind, cache entries); the path of the last such entry goes to
 * path (cap bytes) when path is not NULL. */
static inline int wl_test_dir_find(const char *dir, const char *prefix, char *path,
                                   size_t cap) {
    DIR *d = opendir(dir);
    int n = 0;
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (prefix && strncmp(e->d_name, prefix, strlen(prefix)) != 0) continue;
        if (path) snprintf(path, cap, "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    return n;
}

static inline int wl_test_dir_entries(const char *dir) {
    return wl_test_dir_find(dir, NULL, NULL, 0);
}

/* Removes a directory and the files in it. */
static inline void wl_test_dir_remove(const char *dir) {
    char path[4096];
    while (wl_test_dir_find(dir, NULL, path, sizeof path) > 0)
        if (unlink(path) != 0) break;
    rmdir(dir);
}

/* An environment variable's value kept across a test that changes it. */
typedef struct wl_test_env {
    const char *name;
    int had;
    char value[4096];
} wl_test_env;

/* Sets name to value (NULL: unsets it) and returns what it was. */
static inline wl_test_env wl_test_env_set(const char *name, const char *value) {
    wl_test_env old = {name, 0, ""};
    const char *v = getenv(name);
    if (v) old.had = 1, snprintf(old.value, sizeof old.value, "%s", v);
    if (value) setenv(name, value, 1);
    else unsetenv(name);
    return old;
}

static inline void wl_test_env_restore(const wl_test_env *old) {
    if (old->had) setenv(old->name, old->value, 1);
    else unsetenv(old->name);
}
#endif

/* Writes p in fmt to memory and reads it back into *back (NULL on failure). */
static inline wl_status wl_test_round_trip(const wl_pattern *p, wl_format fmt,
                                           wl_pattern **back) {
    char *text = NULL;
    size_t len = 0;
    *back = NULL;
    wl_status s = wl_pattern_write_mem(p, fmt, 0, &text, &len);
    if (!s) s = wl_pattern_read_mem(text, len, "round trip", back);
    free(text);
    return s;
}

/* Makes a universe of `engine` ("auto" when NULL) with `kernel` (NULL: the default) on
 * topology topo of w x h cells (ignored on the plane) under `rule` (NULL: B3/S23), with
 * `threads` worker threads (0: all cores); the status of wl_universe_create, whose
 * failure tests check or turn into a skip themselves (*u is NULL then). */
static inline wl_status wl_test_make(const char *engine, const char *kernel, wl_topology topo,
                                     uint64_t w, uint64_t h, const wl_rule *rule, int threads,
                                     wl_universe **u) {
    wl_config cfg;
    wl_config_init(&cfg);
    if (engine) cfg.engine = engine;
    cfg.kernel = kernel;
    cfg.topology = topo;
    cfg.width = w;
    cfg.height = h;
    if (rule) cfg.rule = *rule;
    cfg.threads = threads;
    *u = NULL;
    return wl_universe_create(&cfg, u);
}

/* A random soup of density `density` filling the w x h rectangle that a w x h grid covers
 * (x from -floor(w/2), y from -floor(h/2)); NULL (with a failed check) on error. */
static inline wl_pattern *wl_test_soup(uint64_t w, uint64_t h, double density, uint64_t seed) {
    wl_pattern *p = wl_pattern_new();
    wl_rect r = {-(int64_t)(w / 2), -(int64_t)(h / 2), w, h};
    wl_status s = p ? wl_pattern_random(p, &r, density, seed) : WL_ERR_NOMEM;
    WL_CHECK(s == WL_OK, "soup %llux%llu: %s", (unsigned long long)w,
             (unsigned long long)h, wl_last_error());
    if (s) {
        wl_pattern_free(p);
        return NULL;
    }
    return p;
}

/* The reference engine's result of `gens` generations of pattern p on topology topo of
 * w x h cells under `rule`; NULL (with a failed check) on error. */
static inline wl_pattern *wl_test_ref_run(wl_topology topo, uint64_t w, uint64_t h,
                                          const wl_rule *rule, const wl_pattern *p,
                                          uint64_t gens) {
    wl_universe *u = NULL;
    wl_pattern *out = NULL;
    WL_CHECK_OK(wl_test_make("ref", NULL, topo, w, h, rule, 1, &u));
    if (u && wl_universe_load(u, p, NULL) == WL_OK && wl_universe_step(u, gens) == WL_OK)
        WL_CHECK_OK(wl_universe_store(u, &out));
    WL_CHECK(out != NULL, "ref run %llux%llu: %s", (unsigned long long)w, (unsigned long long)h,
             wl_last_error());
    wl_universe_free(u);
    return out;
}

/* Checks that two universes hold the same cells, population and bounds; `what` names the
 * case in failure messages.  Returns 1 when all three agree. */
static inline int wl_test_same(wl_universe *a, wl_universe *b, const char *what) {
    wl_pattern *pa = NULL, *pb = NULL;
    int same = 1;
    WL_CHECK_OK(wl_universe_store(a, &pa));
    WL_CHECK_OK(wl_universe_store(b, &pb));
    if (pa && pb) {
        int eq = wl_pattern_equal_cells(pa, pb);
        WL_CHECK(eq, "%s: cells differ (populations %llu, %llu)", what,
                 (unsigned long long)wl_pattern_population(pa),
                 (unsigned long long)wl_pattern_population(pb));
        same &= eq;
    } else {
        same = 0;
    }
    wl_bigint na, nb;
    WL_CHECK_OK(wl_universe_population(a, &na));
    WL_CHECK_OK(wl_universe_population(b, &nb));
    int pop = wl_bigint_cmp(&na, &nb) == 0;
    WL_CHECK(pop, "%s: populations differ", what);
    same &= pop;
    wl_bigint ba[4], bb[4];
    int ea = 0, eb = 0;
    WL_CHECK_OK(wl_universe_bounds(a, &ba[0], &ba[1], &ba[2], &ba[3], &ea));
    WL_CHECK_OK(wl_universe_bounds(b, &bb[0], &bb[1], &bb[2], &bb[3], &eb));
    WL_CHECK(ea == eb, "%s: one is empty, the other not", what);
    same &= ea == eb;
    if (!ea && !eb)
        for (int i = 0; i < 4; i++) {
            int eqb = wl_bigint_cmp(&ba[i], &bb[i]) == 0;
            WL_CHECK(eqb, "%s: bound %d differs", what, i);
            same &= eqb;
        }
    wl_pattern_free(pa);
    wl_pattern_free(pb);
    return same;
}

/* Loads `soup` into u and runs gens generations, in two calls (a third, then the rest) when
 * split, so that engines are also checked across a boundary between steps. */
static inline void wl_test_load_step(wl_universe *u, const wl_pattern *soup, uint64_t gens,
                                     int split) {
    WL_CHECK_OK(wl_universe_load(u, soup, NULL));
    if (split && gens > 1) {
        WL_CHECK_OK(wl_universe_step(u, gens / 3));
        WL_CHECK_OK(wl_universe_step(u, gens - gens / 3));
    } else {
        WL_CHECK_OK(wl_universe_step(u, gens));
    }
}

static inline int wl_test_finish(const char *name) {
    printf("%s: %lu passed, %lu failed\n", name, wl_test_passed, wl_test_failed);
    return wl_test_failed ? 1 : 0;
}

/* A fresh seed per run (so that every run tests new random inputs), printed so that a
 * failure can be replayed with WL_TEST_SEED=<seed>. */
static inline unsigned long long wl_test_seed(void) {
    const char *env = getenv("WL_TEST_SEED");
    unsigned long long seed;
    if (env && *env) {
        seed = strtoull(env, NULL, 0);
    } else {
        FILE *f = fopen("/dev/urandom", "rb");
        seed = 0x1234567u;
        if (f) {
            if (fread(&seed, sizeof seed, 1, f) != 1) seed = 0x1234567u;
            fclose(f);
        }
    }
    printf("seed: WL_TEST_SEED=%llu\n", seed);
    return seed;
}

/* The next number of a test's own random sequence (splitmix64). */
static inline uint64_t wl_test_rand(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#endif
