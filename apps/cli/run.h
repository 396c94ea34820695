/*
 * run.h - what run.c and demo.c (the default job of `warplife run`) share.
 */
#ifndef WL_CLI_RUN_H
#define WL_CLI_RUN_H

#include "cli.h"

/* The options of `run` that choose and tune an engine. */
typedef struct cli_engine_opts {
    const char *engine;  /* name or "auto" */
    const char *kernel;  /* NULL for the engine's default */
    int threads;         /* 0 = all cores */
    int device;          /* GPU index */
    uint64_t max_memory; /* bytes, 0 = engine default */
    uint64_t gpu_memory; /* bytes of GPU memory for the universe, 0 = no limit (beyond it:
                            out-of-core streaming, src/engine/stream) */
    int quiet;           /* no notes on stderr, no summary */
    int progress;        /* 1: progress lines on stderr (TTY or --progress) */
} cli_engine_opts;

/* Fills *cfg from the options (defaults elsewhere), with Ctrl-C polling installed. */
void cli_engine_config(wl_config *cfg, const cli_engine_opts *o);

/* Advances u by n generations.  With o->progress, steps in chunks that each take about a
 * quarter of a second and prints a progress line on stderr about once a second; otherwise
 * one wl_universe_step call.  Returns the library status (WL_ERR_INTERRUPTED on Ctrl-C). */
wl_status cli_advance(wl_universe *u, uint64_t n, const cli_engine_opts *o);

/* Writes "1.23e+09"-style text for a rate into buf. */
const char *cli_format_rate(double v, char *buf, size_t len);

/* The default job: a 2048x2048 soup on a torus for about two seconds, then the R-pentomino
 * to generation 1103 (population must be 116).  Returns an exit status. */
int cli_run_default(const cli_engine_opts *o);

#endif
