/*
 * wltest.h - the tiny test harness every test program uses.
 *
 *   WL_CHECK(cond, fmt, ...)   records a failure with file:line and a message
 *   WL_CHECK_OK(status_expr)   checks a wl_status is WL_OK, printing wl_last_error()
 *   return wl_test_finish("name");  prints "name: N passed, N failed" and the exit code
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
/* For tests that define _POSIX_C_SOURCE: the number of entries in a directory other than
 * . and .., or -1 if it cannot be opened (temporary files left behind, cache entries). */
static inline int wl_test_dir_entries(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}
#endif

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

#endif
