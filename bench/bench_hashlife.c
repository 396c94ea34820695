/*
 * bench_hashlife.c - times the HashLife engine on one pattern: load, one leap of N
 * generations (or N split into --steps equal parts), exact population, peak memory.
 *
 * Usage: bench_hashlife [--maxmemory MB] [--steps K] [--hyper] PATTERN GENERATIONS
 *        bench_hashlife [--maxmemory MB] --soup SIDE[:DENSITY[:SEED]] GENERATIONS
 *   PATTERN      any file the library reads (macrocell natively, .gz included; RLE etc.)
 *   GENERATIONS  decimal or 2^k (up to 2^64 - 1 per leap; larger counts are done in
 *                several leaps)
 *   --steps K    advance in K equal leaps (GENERATIONS must be a multiple of K)
 *   --hyper      advance 1, 2, 4, 8, ... generations per call until GENERATIONS is reached
 *                (the way the CLI's --hyper drives the engine)
 *   --rule R     the rule (default: the file's; Life for macrocell files, which are loaded
 *                natively without a dense pattern)
 *   --soup       a SIDE x SIDE random soup (density 0.5 unless given) centred on the origin
 *
 * Prints one line per measurement: load time, step time (wall clock, CLOCK_MONOTONIC, and
 * the process's CPU time, which a busy shared machine inflates less),
 * peak resident memory (getrusage ru_maxrss, which includes the loaded file), the exact
 * population and the final bounding box.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double peak_rss_mb(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0; /* Linux reports KiB */
}

static int usage(void) {
    fprintf(stderr, "usage: bench_hashlife [--maxmemory MB] [--steps K] [--hyper] [--rule R] PATTERN GENS\n"
                    "       bench_hashlife [--maxmemory MB] --soup SIDE[:DENSITY[:SEED]] GENS\n");
    return 2;
}

int main(int argc, char **argv) {
    uint64_t maxmem_mb = 0, steps = 1;
    int hyper = 0;
    const char *soup = NULL, *path = NULL, *gens_text = NULL, *rule_text = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--maxmemory") == 0 && i + 1 < argc)
            maxmem_mb = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
            steps = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--rule") == 0 && i + 1 < argc)
            rule_text = argv[++i];
        else if (strcmp(argv[i], "--hyper") == 0)
            hyper = 1;
        else if (strcmp(argv[i], "--soup") == 0 && i + 1 < argc)
            soup = argv[++i];
        else if (argv[i][0] == '-' && argv[i][1])
            return usage();
        else if (!path && !soup)
            path = argv[i];
        else
            gens_text = argv[i];
    }
    if ((!path && !soup) || !gens_text || !steps) return usage();
    wl_bigint gens;
    if (wl_bigint_parse(gens_text, &gens)) {
        fprintf(stderr, "bench_hashlife: %s\n", wl_last_error());
        return 2;
    }

    wl_config cfg;
    wl_config_init(&cfg);
    cfg.engine = "hashlife";
    cfg.topology = WL_TOPOLOGY_PLANE;
    cfg.max_memory = maxmem_mb << 20;
    wl_universe *u = NULL;
    wl_pattern *p = NULL;
    double t0 = now();
    wl_status s;
    if (soup) {
        uint64_t side = strtoull(soup, NULL, 10), seed = 1;
        double density = 0.5;
        const char *c = strchr(soup, ':');
        if (c) {
            density = atof(c + 1);
            c = strchr(c + 1, ':');
            if (c) seed = strtoull(c + 1, NULL, 10);
        }
        p = wl_pattern_new();
        wl_rect r = {-(int64_t)(side / 2), -(int64_t)(side / 2), side, side};
        s = p ? wl_pattern_random(p, &r, density, seed) : WL_ERR_NOMEM;
        if (!s) s = wl_universe_create(&cfg, &u);
        if (!s) s = wl_universe_load(u, p, NULL);
    } else {
        /* the file's rule: macrocell files (loaded natively, possibly far too large for a
         * dense pattern) run under --rule (Life by default); other files name their own */
        s = WL_OK;
        if (rule_text) {
            s = wl_rule_parse(rule_text, &cfg.rule);
        } else if (!strstr(path, ".mc")) {
            s = wl_pattern_read_file(path, &p);
            if (!s) cfg.rule = *wl_pattern_rule(p);
        }
        if (!s) s = wl_universe_create(&cfg, &u);
        if (!s) s = wl_universe_load_file(u, path, NULL);
    }
    wl_pattern_free(p);
    if (s) {
        fprintf(stderr, "bench_hashlife: %s\n", wl_last_error());
        return 1;
    }
    double t_load = now() - t0;

    t0 = now();
    double c0 = cpu_seconds();
    wl_bigint left = gens, zero, chunk;
    wl_bigint_from_u64(&zero, 0);
    uint64_t per = 0, hyper_step = 1;
    if (steps > 1) {
        uint64_t g;
        if (!wl_bigint_to_u64(&gens, &g) || g % steps) {
            fprintf(stderr, "bench_hashlife: --steps needs a 64-bit multiple of K\n");
            return 2;
        }
        per = g / steps;
    }
    while (s == WL_OK && wl_bigint_cmp(&left, &zero) > 0) {
        uint64_t n;
        if (!wl_bigint_to_u64(&left, &n)) n = 1ull << 63;
        if (per) n = per;
        if (hyper) {
            if (n > hyper_step) n = hyper_step;
            if (hyper_step < (1ull << 63)) hyper_step *= 2;
        }
        s = wl_universe_step(u, n);
        wl_bigint_from_u64(&chunk, n);
        wl_bigint_sub(&left, &left, &chunk);
    }
    double t_step = now() - t0, c_step = cpu_seconds() - c0;
    if (s) {
        fprintf(stderr, "bench_hashlife: step: %s\n", wl_last_error());
        wl_universe_free(u);
        return 1;
    }
    wl_bigint pop, g, b[4];
    int empty = 0;
    char ps[80], gs[80], bs[4][80];
    t0 = now();
    s = wl_universe_population(u, &pop);
    double t_pop = now() - t0;
    if (!s) s = wl_universe_bounds(u, &b[0], &b[1], &b[2], &b[3], &empty);
    if (s) {
        fprintf(stderr, "bench_hashlife: %s\n", wl_last_error());
        wl_universe_free(u);
        return 1;
    }
    wl_universe_generation(u, &g);
    for (int i = 0; i < 4; i++) wl_bigint_to_str(&b[i], bs[i], sizeof bs[i]);
    printf("pattern: %s\ngeneration: %s\nload: %.3f s\nstep: %.3f s (CPU %.3f s)\npopulation: %s "
           "(counted in %.3f s)\nbounds: x %s..%s, y %s..%s%s\npeak RSS: %.1f MB\n",
           soup ? soup : path, wl_bigint_to_str(&g, gs, sizeof gs), t_load, t_step, c_step,
           wl_bigint_to_str(&pop, ps, sizeof ps), t_pop, bs[0], bs[2], bs[1], bs[3],
           empty ? " (empty)" : "", peak_rss_mb());
    wl_universe_free(u);
    return 0;
}
