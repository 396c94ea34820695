/*
 * demo.c - the default job of `warplife run` (what `make run` runs):
 *
 *   1. a 2048x2048 random soup (fixed seed, density 0.5) on a torus, on the fastest engine
 *      built ("auto"), for about SOUP_SECONDS of wall time: the number of generations
 *      scales with the engine's speed, so the job stays short even on the reference engine;
 *      it prints the generations run, the population and the cell updates per second;
 *   2. the R-pentomino (built in) to generation 1103, on the unbounded plane when an engine
 *      for it is built (HashLife), else on a bounded RPENT_SIDE x RPENT_SIDE grid; its
 *      population there is 116, which the job checks.
 */
#include "run.h"

#include <stdio.h>
#include <string.h>

#define SOUP_SIDE 2048
#define SOUP_SEED 20261122u
#define SOUP_DENSITY 0.5
#define SOUP_SECONDS 2.0
/* At generation 1103 the R-pentomino's gliders are at most 266 cells from its origin
 * (measured), so a 640x640 bounded grid (x, y from -320 to 319) never lets them touch the
 * edge. */
#define RPENT_SIDE 640
#define RPENT_GENERATIONS 1103
#define RPENT_POPULATION 116

static int interrupted_msg(wl_universe *u) {
    wl_bigint g;
    char gs[80];
    wl_universe_generation(u, &g);
    cli_error("interrupted at generation %s", wl_bigint_to_str(&g, gs, sizeof gs));
    return CLI_EXIT_RUNTIME;
}

static int soup_job(const cli_engine_opts *o) {
    wl_config cfg;
    cli_engine_config(&cfg, o);
    cfg.width = cfg.height = SOUP_SIDE;
    wl_universe *u = NULL;
    wl_pattern *p = wl_pattern_new();
    wl_status s = p ? WL_OK : WL_ERR_NOMEM;
    wl_rect r = {-(SOUP_SIDE / 2), -(SOUP_SIDE / 2), SOUP_SIDE, SOUP_SIDE};
    if (!s) s = wl_pattern_random(p, &r, SOUP_DENSITY, SOUP_SEED);
    if (!s) s = wl_universe_create(&cfg, &u);
    if (!s) s = wl_universe_load(u, p, NULL);
    wl_pattern_free(p);
    if (s) {
        wl_universe_free(u);
        return cli_fail(s, "soup");
    }
    if (!o->quiet)
        fprintf(stderr, "warplife: default job 1/2: %dx%d soup (density %.1f, seed %u) on a "
                        "torus, engine %s kernel %s, for about %.0f s\n",
                SOUP_SIDE, SOUP_SIDE, SOUP_DENSITY, SOUP_SEED, wl_universe_engine(u),
                wl_universe_kernel(u), SOUP_SECONDS);
    /* Doubling chunks until the time is up: cheap on slow engines, and fast engines do
     * not pay a call per generation. */
    uint64_t done = 0, chunk = 1;
    double t0 = cli_now(), elapsed = 0;
    while (elapsed < SOUP_SECONDS) {
        s = wl_universe_step(u, chunk);
        if (s == WL_ERR_INTERRUPTED) {
            int rc = interrupted_msg(u);
            wl_universe_free(u);
            return rc;
        }
        if (s) break;
        done += chunk;
        double now = cli_now() - t0;
        if ((now - elapsed) * 4 < SOUP_SECONDS) chunk *= 2;
        elapsed = now;
    }
    wl_bigint pop;
    if (!s) s = wl_universe_population(u, &pop);
    if (s) {
        wl_universe_free(u);
        return cli_fail(s, "soup");
    }
    char ps[80], rate[32];
    double cups = (double)done * SOUP_SIDE * SOUP_SIDE / elapsed;
    printf("soup %dx%d torus: generation %llu population %s, engine %s kernel %s, %.2f s, "
           "%s cell updates/s\n",
           SOUP_SIDE, SOUP_SIDE, (unsigned long long)done, wl_bigint_to_str(&pop, ps, sizeof ps),
           wl_universe_engine(u), wl_universe_kernel(u), elapsed,
           cli_format_rate(cups, rate, sizeof rate));
    fflush(stdout);
    wl_universe_free(u);
    return CLI_EXIT_OK;
}

/* The R-pentomino:  .OO
 *                   OO.
 *                   .O.   */
static wl_pattern *rpentomino(void) {
    static const int cells[5][2] = {{1, 0}, {2, 0}, {0, 1}, {1, 1}, {1, 2}};
    wl_pattern *p = wl_pattern_new();
    for (int i = 0; p && i < 5; i++)
        if (wl_pattern_set(p, cells[i][0], cells[i][1], 1)) {
            wl_pattern_free(p);
            return NULL;
        }
    return p;
}

static int rpentomino_job(const cli_engine_opts *o) {
    wl_config cfg;
    cli_engine_config(&cfg, o);
    wl_universe *u = NULL;
    cfg.topology = WL_TOPOLOGY_PLANE;
    cfg.verbose = 0;
    wl_status s = wl_universe_create(&cfg, &u);
    if (s == WL_ERR_UNSUPPORTED || s == WL_ERR_UNAVAILABLE) {
        wl_clear_error();
        cli_engine_config(&cfg, o);
        cfg.topology = WL_TOPOLOGY_BOUNDED;
        cfg.width = cfg.height = RPENT_SIDE;
        s = wl_universe_create(&cfg, &u);
    }
    if (s) return cli_fail(s, "R-pentomino");
    wl_pattern *p = rpentomino();
    s = p ? wl_universe_load(u, p, NULL) : WL_ERR_NOMEM;
    wl_pattern_free(p);
    if (s) {
        wl_universe_free(u);
        return cli_fail(s, "R-pentomino");
    }
    char where[64];
    if (cfg.topology == WL_TOPOLOGY_PLANE) snprintf(where, sizeof where, "unbounded plane");
    else snprintf(where, sizeof where, "bounded %dx%d grid", RPENT_SIDE, RPENT_SIDE);
    if (!o->quiet)
        fprintf(stderr, "warplife: default job 2/2: R-pentomino to generation %d on the %s, "
                        "engine %s\n", RPENT_GENERATIONS, where, wl_universe_engine(u));
    double t0 = cli_now();
    s = cli_advance(u, RPENT_GENERATIONS, o);
    double elapsed = cli_now() - t0;
    if (s == WL_ERR_INTERRUPTED) {
        int rc = interrupted_msg(u);
        wl_universe_free(u);
        return rc;
    }
    wl_bigint pop, want;
    if (!s) s = wl_universe_population(u, &pop);
    if (s) {
        wl_universe_free(u);
        return cli_fail(s, "R-pentomino");
    }
    char ps[80], rate[32] = "";
    if (cfg.topology != WL_TOPOLOGY_PLANE && elapsed > 0) {
        cli_format_rate((double)RPENT_GENERATIONS * RPENT_SIDE * RPENT_SIDE / elapsed, rate,
                        sizeof rate);
        strcat(rate, " cell updates/s");
    } else {
        snprintf(rate, sizeof rate, "%.3g gens/s", RPENT_GENERATIONS / (elapsed > 0 ? elapsed : 1e-9));
    }
    printf("R-pentomino %s: generation %d population %s, engine %s kernel %s, %.2f s, %s\n",
           where, RPENT_GENERATIONS, wl_bigint_to_str(&pop, ps, sizeof ps),
           wl_universe_engine(u), wl_universe_kernel(u), elapsed, rate);
    wl_universe_free(u);
    wl_bigint_from_u64(&want, RPENT_POPULATION);
    if (wl_bigint_cmp(&pop, &want) != 0) {
        cli_error("wrong result: the R-pentomino has population %d at generation %d",
                  RPENT_POPULATION, RPENT_GENERATIONS);
        return CLI_EXIT_RUNTIME;
    }
    return CLI_EXIT_OK;
}

int cli_run_default(const cli_engine_opts *o) {
    int rc = soup_job(o);
    if (rc) return rc;
    return rpentomino_job(o);
}
