/*
 * bench.c - `warplife bench`: times engines and kernels on a random soup and prints a table
 * (or one JSON object per result with --json).
 *
 * For every selected engine (default: every grid engine built in) and kernel (default: all
 * of the engine's kernels) the bench creates a universe of the requested size, fills it
 * with a seeded random soup (wl_universe_randomize: made by the engine itself when it can,
 * e.g. on the GPU; otherwise on the host and loaded), warms up and calibrates the
 * generation count for the time budget, then times R runs and reports the median.  Timing
 * is wl_universe_step_timed (device events on GPUs, else the host clock around the step
 * and the wait for queued work).  Only the public API (warplife.h) is used.  Unavailable engines or kernels are
 * skipped with a note.  --verify first compares the kernel with the `ref` engine on the
 * same soup (on the bench size when it has at most 2^22 cells, else on a grid clipped to
 * 2048 x 2048), stepping 37 generations (not a multiple of any blocking depth).
 */
#define _POSIX_C_SOURCE 200809L /* strdup */

#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 64
#define VERIFY_MAX_CELLS ((uint64_t)1 << 22) /* verify on the bench grid up to this size */
#define VERIFY_CLIP 2048                      /* otherwise on at most 2048 x 2048 */
#define VERIFY_GENS 37

typedef struct result {
    const char *engine, *kernel;
    uint64_t gens;
    double median, cups;
    int verified; /* -1 not checked, 0 failed, 1 passed */
    double copy_floor; /* 0 if none */
    const char *via;   /* the engine asked for when --gpu-memory made it stream, else NULL */
} result;

typedef struct options {
    uint64_t w, h, gens, seed;
    uint64_t gpu_memory; /* --gpu-memory: bytes, 0 = no limit */
    double density, time_budget;
    int runs, threads, json, verify;
    wl_topology topo;
    wl_rule rule;
    const char *rule_text;
} options;

static void usage(FILE *out) {
    fprintf(out,
            "usage: warplife bench [options]\n"
            "\n"
            "Times engines and kernels on a random soup; prints engine, kernel, size,\n"
            "generations, median seconds, cell updates per second (CUpS) and the speedup\n"
            "over cpu/byte.  Progress goes to stderr.\n"
            "\n"
            "options:\n"
            "  --size WxH          grid size (default 4096x4096)\n"
            "  --density D         soup density 0..1 (default 0.5)\n"
            "  --seed N            soup seed (default 1)\n"
            "  --rule RULE         rule (default B3/S23)\n"
            "  --engine LIST       comma-separated engines (default: every grid engine)\n"
            "  --kernel LIST       comma-separated kernels (default: all of each engine's)\n"
            "  --generations N     generations per run (default: calibrated to --time)\n"
            "  --time SECONDS      time budget per run when --generations is not given\n"
            "                      (default 1)\n"
            "  --runs R            timed runs per kernel, the median is reported (default 3)\n"
            "  --torus | --bounded topology (default torus)\n"
            "  --threads N         worker threads (default 0 = all cores)\n"
            "  --gpu-memory N      GPU memory the universe may use (bytes; K, M, G suffixes);\n"
            "                      a bigger one streams from host memory (engine 'stream')\n"
            "  --verify            compare each kernel with the ref engine before timing\n"
            "                      (same soup, %d generations; grids above %llu cells are\n"
            "                      verified clipped to %dx%d)\n"
            "  --json              one JSON object per result on stdout instead of a table\n",
            VERIFY_GENS, (unsigned long long)VERIFY_MAX_CELLS, VERIFY_CLIP, VERIFY_CLIP);
}

/* Splits a comma-separated list in place into at most MAX_LIST names. */
static int split_list(char *text, const char **out) {
    int n = 0;
    for (char *tok = strtok(text, ","); tok && n < MAX_LIST; tok = strtok(NULL, ","))
        if (*tok) out[n++] = tok;
    return n;
}

static wl_status make_universe(const options *o, const char *engine, const char *kernel,
                               uint64_t w, uint64_t h, wl_universe **u) {
    wl_config cfg;
    wl_config_init(&cfg);
    cfg.engine = engine;
    cfg.kernel = kernel;
    cfg.width = w;
    cfg.height = h;
    cfg.topology = o->topo;
    cfg.rule = o->rule;
    cfg.threads = o->threads;
    cfg.gpu_memory = o->gpu_memory;
    cfg.poll = cli_interrupted;
    return wl_universe_create(&cfg, u);
}

/* Compares engine/kernel with ref on a (possibly clipped) soup; 1 equal, 0 differ, -1 error. */
static int verify(const options *o, const char *engine, const char *kernel) {
    uint64_t w = o->w, h = o->h;
    if (w * h > VERIFY_MAX_CELLS || w > VERIFY_MAX_CELLS || h > VERIFY_MAX_CELLS) {
        if (w > VERIFY_CLIP) w = VERIFY_CLIP;
        if (h > VERIFY_CLIP) h = VERIFY_CLIP;
    }
    wl_universe *a = NULL, *b = NULL;
    wl_pattern *soup = wl_pattern_new(), *pa = NULL, *pb = NULL;
    int verdict = -1;
    wl_rect box = {-(int64_t)(w / 2), -(int64_t)(h / 2), w, h};
    wl_status s = soup ? wl_pattern_random(soup, &box, o->density, o->seed ^ 0x5eedULL)
                       : WL_ERR_NOMEM;
    if (!s) s = make_universe(o, engine, kernel, w, h, &a);
    if (!s) s = make_universe(o, "ref", NULL, w, h, &b);
    if (!s) s = wl_universe_load(a, soup, NULL);
    if (!s) s = wl_universe_load(b, soup, NULL);
    if (!s) s = wl_universe_step(a, VERIFY_GENS);
    if (!s) s = wl_universe_step(b, VERIFY_GENS);
    if (!s) s = wl_universe_store(a, &pa);
    if (!s) s = wl_universe_store(b, &pb);
    if (s) {
        cli_error("verify %s/%s: %s", engine, kernel, wl_last_error());
    } else {
        verdict = wl_pattern_equal_cells(pa, pb);
        fprintf(stderr, "  verify %s/%s on %llux%llu, %d generations: %s\n", engine, kernel,
                (unsigned long long)w, (unsigned long long)h, VERIFY_GENS,
                verdict ? "equal to ref" : "DIFFERENT from ref");
    }
    wl_universe_free(a);
    wl_universe_free(b);
    wl_pattern_free(soup);
    wl_pattern_free(pa);
    wl_pattern_free(pb);
    return verdict;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Benchmarks one kernel; returns 0 on success, 1 if skipped, -1 on error. */
static int bench_one(const options *o, const char *engine, const char *kernel, result *r) {
    memset(r, 0, sizeof *r);
    r->engine = engine;
    r->kernel = kernel;
    r->verified = -1;
    wl_universe *u = NULL;
    wl_status s = make_universe(o, engine, kernel, o->w, o->h, &u);
    if (s == WL_ERR_UNAVAILABLE || s == WL_ERR_UNSUPPORTED) {
        fprintf(stderr, "  skipping %s/%s: %s\n", engine, kernel, wl_last_error());
        return 1;
    }
    if (s) {
        cli_error("%s/%s: %s", engine, kernel, wl_last_error());
        return -1;
    }
    if (o->verify) {
        r->verified = verify(o, engine, kernel);
        if (r->verified < 0) {
            wl_universe_free(u);
            return -1;
        }
    }
    if (strcmp(wl_universe_engine(u), engine) != 0) { /* --gpu-memory: out-of-core */
        r->via = engine;
        r->engine = wl_universe_engine(u);
        fprintf(stderr, "  %s/%s streams out-of-core through %llu bytes of GPU memory "
                "(engine %s:%s)\n", engine, kernel, (unsigned long long)o->gpu_memory,
                r->engine, wl_universe_kernel(u));
    }
    s = wl_universe_randomize(u, o->density, o->seed);
    r->copy_floor = wl_universe_copy_floor(u);
    double secs = 0;
    uint64_t gens = o->gens;
    /* warm-up (and calibration when no generation count was given) */
    /* first touch of buffers, JIT of device code */
    if (!s) s = wl_universe_step_timed(u, 1, &secs);
    if (!s) {
        uint64_t g = 1;
        for (;;) {
            s = wl_universe_step_timed(u, g, &secs);
            if (s || o->gens || secs >= 0.1 * o->time_budget || g >= ((uint64_t)1 << 40)) break;
            g *= secs < 0.01 * o->time_budget ? 8 : 2;
        }
        if (!o->gens) {
            double per = secs / (double)g;
            gens = per > 0 ? (uint64_t)(o->time_budget / per) : g;
            if (gens < 1) gens = 1;
        }
    }
    double times[128];
    int runs = o->runs;
    for (int i = 0; !s && i < runs; i++) {
        fprintf(stderr, "  %s/%s: run %d/%d, %llu generations...\n", engine, kernel, i + 1, runs,
                (unsigned long long)gens);
        s = wl_universe_step_timed(u, gens, &times[i]);
    }
    wl_universe_free(u);
    if (s) {
        cli_error("%s/%s: %s", engine, kernel, wl_last_error());
        return -1;
    }
    qsort(times, (size_t)runs, sizeof times[0], cmp_double);
    r->median = runs % 2 ? times[runs / 2] : 0.5 * (times[runs / 2 - 1] + times[runs / 2]);
    r->gens = gens;
    r->cups = r->median > 0 ? (double)o->w * (double)o->h * (double)gens / r->median : 0;
    return 0;
}

static double cups_of(const result *res, int n, const char *engine, const char *kernel) {
    for (int i = 0; i < n; i++)
        if (strcmp(res[i].engine, engine) == 0 && strcmp(res[i].kernel, kernel) == 0)
            return res[i].cups;
    return 0;
}

static void print_results(const options *o, const result *res, int n) {
    double base = cups_of(res, n, "cpu", "byte");
    if (!o->json) {
        printf("%-8s %-10s %-13s %-7s %12s %10s %10s %9s %s\n", "engine", "kernel", "size",
               "topo", "generations", "median s", "CUpS", "speedup", "notes");
    }
    for (int i = 0; i < n; i++) {
        const result *r = &res[i];
        double naive = strcmp(r->engine, "cuda") == 0 ? cups_of(res, n, "cuda", "naive") : 0;
        if (o->json) {
            printf("{\"engine\":\"%s\",\"kernel\":\"%s\",\"width\":%llu,\"height\":%llu,"
                   "\"topology\":\"%s\",\"rule\":\"%s\",\"density\":%g,\"seed\":%llu,"
                   "\"threads\":%d,\"generations\":%llu,\"runs\":%d,\"median_s\":%.6g,"
                   "\"cups\":%.6g",
                   r->engine, r->kernel, (unsigned long long)o->w, (unsigned long long)o->h,
                   wl_topology_name(o->topo), o->rule_text, o->density,
                   (unsigned long long)o->seed, o->threads, (unsigned long long)r->gens, o->runs,
                   r->median, r->cups);
            if (base > 0) printf(",\"speedup_vs_cpu_byte\":%.4g", r->cups / base);
            if (naive > 0) printf(",\"ratio_to_naive\":%.4g", r->cups / naive);
            if (r->copy_floor > 0) printf(",\"ratio_to_copy_floor\":%.4g", r->cups / r->copy_floor);
            if (r->verified >= 0) printf(",\"verified\":%s", r->verified ? "true" : "false");
            if (r->via) printf(",\"out_of_core_via\":\"%s\",\"gpu_memory\":%llu", r->via,
                               (unsigned long long)o->gpu_memory);
            printf("}\n");
            continue;
        }
        char size[48], speed[24] = "-", notes[128] = "";
        snprintf(size, sizeof size, "%llux%llu", (unsigned long long)o->w, (unsigned long long)o->h);
        if (base > 0) snprintf(speed, sizeof speed, "%.1fx", r->cups / base);
        size_t len = 0;
        if (naive > 0)
            len += (size_t)snprintf(notes + len, sizeof notes - len, "%.2fx naive ", r->cups / naive);
        if (r->copy_floor > 0)
            len += (size_t)snprintf(notes + len, sizeof notes - len, "%.2f of copy floor ",
                                    r->cups / r->copy_floor);
        if (r->via)
            len += (size_t)snprintf(notes + len, sizeof notes - len, "out-of-core (%s) ", r->via);
        if (r->verified >= 0)
            snprintf(notes + len, sizeof notes - len, "%s", r->verified ? "verified" : "WRONG");
        printf("%-8s %-10s %-13s %-7s %12llu %10.4f %10.3e %9s %s\n", r->engine, r->kernel, size,
               wl_topology_name(o->topo), (unsigned long long)r->gens, r->median, r->cups, speed,
               notes);
    }
}

enum { O_SIZE = 1, O_DENSITY, O_SEED, O_RULE, O_ENGINE, O_KERNEL, O_GENS, O_TIME, O_RUNS,
       O_TORUS, O_BOUNDED, O_THREADS, O_VERIFY, O_JSON, O_HELP, O_GPUMEM };

int cli_bench(int argc, char **argv) {
    static const cli_option opts[] = {
        {"size", 0, 1, O_SIZE},        {"density", 0, 1, O_DENSITY}, {"seed", 0, 1, O_SEED},
        {"rule", 0, 1, O_RULE},        {"engine", 'e', 1, O_ENGINE}, {"kernel", 'k', 1, O_KERNEL},
        {"generations", 'g', 1, O_GENS}, {"time", 't', 1, O_TIME},   {"runs", 0, 1, O_RUNS},
        {"torus", 0, 0, O_TORUS},      {"bounded", 0, 0, O_BOUNDED}, {"threads", 0, 1, O_THREADS},
        {"verify", 0, 0, O_VERIFY},    {"json", 0, 0, O_JSON},       {"help", 'h', 0, O_HELP},
        {"gpu-memory", 0, 1, O_GPUMEM},
        {NULL, 0, 0, 0}};
    options o = {.w = 4096, .h = 4096, .seed = 1, .density = 0.5, .time_budget = 1.0, .runs = 3,
                 .topo = WL_TOPOLOGY_TORUS, .rule_text = "B3/S23"};
    wl_rule_life(&o.rule);
    char *engine_arg = NULL, *kernel_arg = NULL;
    cli_args a;
    cli_args_init(&a, argc, argv);
    const char *v;
    int id;
    while ((id = cli_next_option(&a, opts, &v)) != -1) {
        switch (id) {
        case -2: return CLI_EXIT_USAGE;
        case 0: cli_error("bench: unexpected argument '%s'", v); return CLI_EXIT_USAGE;
        case O_SIZE: if (cli_parse_size(v, "--size", &o.w, &o.h)) return CLI_EXIT_USAGE; break;
        case O_DENSITY:
            if (cli_parse_double(v, "--density", 0, 1, &o.density)) return CLI_EXIT_USAGE;
            break;
        case O_SEED: if (cli_parse_u64(v, "--seed", &o.seed)) return CLI_EXIT_USAGE; break;
        case O_RULE: {
            wl_status s = wl_rule_parse(v, &o.rule);
            if (s) {
                cli_error("--rule: %s", wl_last_error());
                return CLI_EXIT_BAD_INPUT;
            }
            o.rule_text = v;
            break;
        }
        case O_ENGINE: engine_arg = (char *)v; break;
        case O_KERNEL: kernel_arg = (char *)v; break;
        case O_GENS:
            if (cli_parse_u64(v, "--generations", &o.gens)) return CLI_EXIT_USAGE;
            if (!o.gens) { cli_error("--generations must be at least 1"); return CLI_EXIT_USAGE; }
            break;
        case O_TIME:
            if (cli_parse_double(v, "--time", 0.001, 3600, &o.time_budget)) return CLI_EXIT_USAGE;
            break;
        case O_RUNS: if (cli_parse_int(v, "--runs", 1, 128, &o.runs)) return CLI_EXIT_USAGE; break;
        case O_TORUS: o.topo = WL_TOPOLOGY_TORUS; break;
        case O_BOUNDED: o.topo = WL_TOPOLOGY_BOUNDED; break;
        case O_THREADS:
            if (cli_parse_int(v, "--threads", 0, 4096, &o.threads)) return CLI_EXIT_USAGE;
            break;
        case O_VERIFY: o.verify = 1; break;
        case O_GPUMEM:
            if (cli_parse_bytes(v, "--gpu-memory", &o.gpu_memory)) return CLI_EXIT_USAGE;
            break;
        case O_JSON: o.json = 1; break;
        case O_HELP: usage(stdout); return CLI_EXIT_OK;
        }
    }
    /* engines: the list given, or every grid engine */
    const char *engines[MAX_LIST];
    int ne = 0;
    char *engine_copy = engine_arg ? strdup(engine_arg) : NULL;
    if (engine_copy) {
        ne = split_list(engine_copy, engines);
    } else {
        for (size_t i = 0; i < wl_engine_count() && ne < MAX_LIST; i++) {
            const char *name = wl_engine_name(i);
            /* `stream` is benchmarked through --gpu-memory (or by name), not by default */
            if ((wl_engine_caps(name) & (WL_CAN_TORUS | WL_CAN_BOUNDED)) &&
                strcmp(name, "stream") != 0)
                engines[ne++] = name;
        }
    }
    const char *kernels_req[MAX_LIST];
    int nkreq = 0;
    char *kernel_copy = kernel_arg ? strdup(kernel_arg) : NULL;
    if (kernel_copy) nkreq = split_list(kernel_copy, kernels_req);

    cli_install_sigint();
    result *res = calloc(MAX_LIST * MAX_LIST, sizeof *res);
    int nres = 0, failed = 0, usage_err = 0;
    for (int ei = 0; ei < ne && res; ei++) {
        const char *const *ks;
        size_t nk;
        if (wl_engine_kernels(engines[ei], &ks, &nk)) {
            cli_error("%s", wl_last_error());
            usage_err = 1;
            continue;
        }
        if (wl_engine_probe(engines[ei]) != WL_OK) {
            fprintf(stderr, "  skipping engine %s: %s\n", engines[ei], wl_last_error());
            continue;
        }
        for (size_t ki = 0; ki < nk; ki++) {
            if (nkreq) {
                int want = 0;
                for (int j = 0; j < nkreq; j++) want |= strcmp(kernels_req[j], ks[ki]) == 0;
                if (!want) continue;
            }
            if (cli_interrupted(NULL)) break;
            fprintf(stderr, "bench %s/%s on %llux%llu %s...\n", engines[ei], ks[ki],
                    (unsigned long long)o.w, (unsigned long long)o.h, wl_topology_name(o.topo));
            int rc = bench_one(&o, engines[ei], ks[ki], &res[nres]);
            if (rc == 0) {
                if (res[nres].verified == 0) failed = 1;
                nres++;
            } else if (rc < 0) {
                failed = 1;
            }
        }
    }
    if (nkreq && nres == 0 && !failed)
        fprintf(stderr, "warplife: bench: no selected kernel could run\n");
    print_results(&o, res, nres);
    free(res);
    free(engine_copy);
    free(kernel_copy);
    if (cli_interrupted(NULL)) return CLI_EXIT_RUNTIME;
    return usage_err ? CLI_EXIT_USAGE : failed ? CLI_EXIT_RUNTIME : CLI_EXIT_OK;
}
