/*
 * run.c - `warplife run [PATTERN]`: evolve a pattern on an engine and report, with
 * bgolly-style options.  Without a pattern (and without options that need one) it runs
 * the default job of demo.c.
 *
 * Topology when none is given: the unbounded plane if the chosen engine supports it (with
 * "auto" that is the sparse engine with its HashLife handover when built), else a torus
 * sized to the pattern plus twice the number of generations (so that nothing can wrap
 * around: light speed is one cell per generation), capped at MAX_AUTO_SIDE cells a side.
 */
#define _POSIX_C_SOURCE 200809L

#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The largest side of an automatically sized torus: 4096^2 = 16M cells, 16 MiB for a
 * byte-per-cell engine. */
#define MAX_AUTO_SIDE 4096u
/* Cells of margin added around a pattern on an automatic torus, beyond light speed. */
#define AUTO_MARGIN 32u
/* Progress chunks aim at this many seconds each; lines come about once a second. */
#define CHUNK_SECONDS 0.25
#define PROGRESS_SECONDS 1.0

static void usage(FILE *out) {
    fprintf(out,
        "usage: warplife run [PATTERN] [options]\n"
        "\n"
        "Evolves PATTERN (RLE, plaintext .cells, Life 1.05/1.06, macrocell .mc; .gz too;\n"
        "\"-\" reads standard input) and prints the generation, population, engine, time\n"
        "and cell updates per second.  Without PATTERN: the default job (a 2048x2048 soup\n"
        "on a torus for ~2 s, then the R-pentomino to generation 1103).\n"
        "\n"
        "options:\n"
        "  -m, --generation N   generations to run (digits up to 18446744073709551615, or 2^k)\n"
        "  -i, --step N         report every N generations\n"
        "      --hyper          double the step after each report (1, 2, 4, ...)\n"
        "  -r, --rule RULE      rule (B3/S23, 23/3, Hensel B2-a/S12, MAP...); default: the file's\n"
        "  -e, --engine NAME    engine (see `warplife info`); default auto\n"
        "  -k, --kernel NAME    kernel of the engine; default the engine's fastest\n"
        "      --torus WxH      run on a WxH torus (wraps around)\n"
        "      --bounded WxH    run on a WxH grid with dead cells outside\n"
        "      --plane          run on the unbounded plane (sparse, handing over to HashLife)\n"
        "                       default: the plane if the engine supports it, else a torus\n"
        "                       large enough that nothing wraps (up to %ux%u)\n"
        "      --threads N      worker threads (0 = all cores)\n"
        "      --device N       GPU index\n"
        "      --maxmemory MB   memory for engine caches (HashLife), and what the pattern\n"
        "                       may grow to while it is read (default a quarter of RAM)\n"
        "      --gpu-memory N   GPU memory the universe may use (bytes; K, M, G suffixes);\n"
        "                       a bigger universe streams through the GPU from host memory\n"
        "  -o, --output FILE    save the final pattern (format from the extension: .rle,\n"
        "                       .cells, .lif, .mc, plus .gz); written atomically\n"
        "      --popcount       print \"generation G population P\" at the end (and every step)\n"
        "  -q, --quiet          print only what --popcount asks for\n"
        "      --progress       progress lines on stderr (default when stderr is a terminal)\n"
        "      --dry-run        check the options, load the pattern, print the plan, stop\n"
        "  -h, --help           this help\n"
        "\n"
        "Ctrl-C stops at a consistent generation; nothing is written then (exit 3).\n"
        "A second Ctrl-C, a second or more later, ends the process at once.\n"
        "exit status: 0 ok, 1 bad command line, 2 bad input (a missing, unreadable or\n"
        "             malformed pattern file, a bad rule),\n"
        "             3 runtime failure (memory, device, i/o, interrupted)\n",
        MAX_AUTO_SIDE, MAX_AUTO_SIDE);
}

enum {
    OPT_GEN = 1, OPT_STEP, OPT_HYPER, OPT_RULE, OPT_ENGINE, OPT_KERNEL, OPT_TORUS,
    OPT_BOUNDED, OPT_PLANE, OPT_THREADS, OPT_DEVICE, OPT_MAXMEM, OPT_OUTPUT, OPT_POPCOUNT,
    OPT_QUIET, OPT_PROGRESS, OPT_DRY, OPT_HELP, OPT_GPUMEM
};

static const cli_option options[] = {
    {"generation", 'm', 1, OPT_GEN},   {"step", 'i', 1, OPT_STEP},
    {"hyper", 0, 0, OPT_HYPER},        {"rule", 'r', 1, OPT_RULE},
    {"engine", 'e', 1, OPT_ENGINE},    {"kernel", 'k', 1, OPT_KERNEL},
    {"torus", 0, 1, OPT_TORUS},        {"bounded", 0, 1, OPT_BOUNDED},
    {"plane", 0, 0, OPT_PLANE},        {"threads", 0, 1, OPT_THREADS},
    {"device", 0, 1, OPT_DEVICE},      {"maxmemory", 0, 1, OPT_MAXMEM},
    {"output", 'o', 1, OPT_OUTPUT},    {"popcount", 0, 0, OPT_POPCOUNT},
    {"quiet", 'q', 0, OPT_QUIET},      {"progress", 0, 0, OPT_PROGRESS},
    {"dry-run", 0, 0, OPT_DRY},        {"help", 'h', 0, OPT_HELP},
    {"gpu-memory", 0, 1, OPT_GPUMEM},
    {NULL, 0, 0, 0},
};

typedef struct run_args {
    cli_engine_opts eng;
    const char *pattern;
    const char *rule_text;
    const char *output;
    uint64_t generations;
    int have_generations;
    uint64_t step;
    int hyper, popcount, dry_run, force_progress;
    int topology_given;
    wl_topology topology;
    uint64_t width, height;
    int needs_pattern; /* an option that only makes sense with a pattern was given */
    /* The grid the pattern file asked for, when it is run there: written back with the
     * result (a side of 0, a tube, is run on a torus wide enough not to wrap). */
    int file_grid;
    wl_shape file_shape;
    wl_glue glue; /* the file's (or --rule's) torus shift or Klein twist */
} run_args;

void cli_engine_config(wl_config *cfg, const cli_engine_opts *o) {
    wl_config_init(cfg);
    cfg->engine = o->engine ? o->engine : "auto";
    cfg->kernel = o->kernel;
    cfg->threads = o->threads;
    cfg->device = o->device;
    cfg->max_memory = o->max_memory;
    cfg->gpu_memory = o->gpu_memory;
    cfg->poll = cli_interrupted;
    cfg->verbose = !o->quiet;
}

const char *cli_format_rate(double v, char *buf, size_t len) {
    snprintf(buf, len, "%.3g", v);
    return buf;
}

static void progress_line(const wl_universe *u, double rate, int tty) {
    wl_bigint g;
    char gs[80], rs[32];
    wl_universe_generation(u, &g);
    wl_bigint_to_str(&g, gs, sizeof gs);
    if (tty)
        fprintf(stderr, "\r  generation %s, %s gens/s   ", gs, cli_format_rate(rate, rs, sizeof rs));
    else
        fprintf(stderr, "warplife: progress: generation %s, %s gens/s\n", gs,
                cli_format_rate(rate, rs, sizeof rs));
    fflush(stderr);
}

wl_status cli_advance(wl_universe *u, uint64_t n, const cli_engine_opts *o) {
    if (!o->progress) return wl_universe_step(u, n);
    int tty = isatty(STDERR_FILENO);
    uint64_t chunk = 1, done = 0;
    double start = cli_now(), last = start;
    wl_status s = WL_OK;
    int printed = 0;
    while (done < n) {
        uint64_t c = n - done < chunk ? n - done : chunk;
        double t0 = cli_now();
        s = wl_universe_step(u, c);
        if (s) break;
        done += c;
        double t1 = cli_now();
        if (t1 - t0 < CHUNK_SECONDS && chunk < ((uint64_t)1 << 62)) chunk *= 2;
        else if (t1 - t0 > 4 * CHUNK_SECONDS && chunk > 1) chunk /= 2;
        if (t1 - last >= PROGRESS_SECONDS) {
            progress_line(u, (double)done / (t1 - start), tty);
            last = t1;
            printed = 1;
        }
    }
    if (printed && tty) fprintf(stderr, "\r%60s\r", "");
    return s;
}

/* Parses the command line into *a; returns -1 to go on, else an exit status. */
static int parse_args(int argc, char **argv, run_args *a) {
    cli_args st;
    const char *v;
    int id;
    memset(a, 0, sizeof *a);
    a->eng.engine = "auto";
    cli_args_init(&st, argc, argv);
    while ((id = cli_next_option(&st, options, &v)) != -1) {
        switch (id) {
        case -2: return CLI_EXIT_USAGE;
        case 0:
            if (a->pattern) {
                cli_error("run takes one pattern (got '%s' and '%s')", a->pattern, v);
                return CLI_EXIT_USAGE;
            }
            a->pattern = v;
            break;
        case OPT_HELP: usage(stdout); return CLI_EXIT_OK;
        case OPT_GEN:
            if (cli_parse_u64(v, "--generation", &a->generations)) return CLI_EXIT_USAGE;
            a->have_generations = a->needs_pattern = 1;
            break;
        case OPT_STEP:
            if (cli_parse_u64(v, "--step", &a->step)) return CLI_EXIT_USAGE;
            if (!a->step) {
                cli_error("--step: must be at least 1");
                return CLI_EXIT_USAGE;
            }
            a->needs_pattern = 1;
            break;
        case OPT_HYPER: a->hyper = a->needs_pattern = 1; break;
        case OPT_RULE: a->rule_text = v; a->needs_pattern = 1; break;
        case OPT_ENGINE: a->eng.engine = v; break;
        case OPT_KERNEL: a->eng.kernel = v; break;
        case OPT_TORUS:
        case OPT_BOUNDED:
            if (a->topology_given) {
                cli_error("give one of --torus, --bounded, --plane");
                return CLI_EXIT_USAGE;
            }
            if (cli_parse_size(v, id == OPT_TORUS ? "--torus" : "--bounded", &a->width,
                               &a->height))
                return CLI_EXIT_USAGE;
            a->topology = id == OPT_TORUS ? WL_TOPOLOGY_TORUS : WL_TOPOLOGY_BOUNDED;
            a->topology_given = a->needs_pattern = 1;
            break;
        case OPT_PLANE:
            if (a->topology_given) {
                cli_error("give one of --torus, --bounded, --plane");
                return CLI_EXIT_USAGE;
            }
            a->topology = WL_TOPOLOGY_PLANE;
            a->topology_given = a->needs_pattern = 1;
            break;
        case OPT_THREADS:
            if (cli_parse_int(v, "--threads", 0, 1 << 16, &a->eng.threads)) return CLI_EXIT_USAGE;
            break;
        case OPT_DEVICE:
            if (cli_parse_int(v, "--device", 0, 1 << 16, &a->eng.device)) return CLI_EXIT_USAGE;
            break;
        case OPT_GPUMEM:
            if (cli_parse_bytes(v, "--gpu-memory", &a->eng.gpu_memory)) return CLI_EXIT_USAGE;
            break;
        case OPT_MAXMEM: {
            uint64_t mb;
            if (cli_parse_u64(v, "--maxmemory", &mb)) return CLI_EXIT_USAGE;
            if (mb == 0 || mb > (UINT64_MAX >> 20)) {
                cli_error("--maxmemory: %s MB is out of range", v);
                return CLI_EXIT_USAGE;
            }
            a->eng.max_memory = mb << 20;
            break;
        }
        case OPT_OUTPUT: a->output = v; a->needs_pattern = 1; break;
        case OPT_POPCOUNT: a->popcount = a->needs_pattern = 1; break;
        case OPT_QUIET: a->eng.quiet = 1; break;
        case OPT_PROGRESS: a->force_progress = 1; break;
        case OPT_DRY: a->dry_run = a->needs_pattern = 1; break;
        default: return CLI_EXIT_USAGE;
        }
    }
    a->eng.progress = a->force_progress || (!a->eng.quiet && isatty(STDERR_FILENO));
    if (!a->pattern && a->needs_pattern) {
        cli_error("run: this option needs a PATTERN (without one, run does its default job)");
        return CLI_EXIT_USAGE;
    }
    if (a->pattern && !a->have_generations) {
        cli_error("run: give the number of generations with -m N (--generation N)");
        return CLI_EXIT_USAGE;
    }
    return -1;
}

/* Exit 3 early (before a long run) if the output's directory does not exist. */
static int check_output_dir(const char *path) {
    if (strcmp(path, "-") == 0) return 0;
    char *dir = malloc(strlen(path) + 2);
    if (!dir) return -1;
    strcpy(dir, path);
    char *slash = strrchr(dir, '/');
    if (!slash) strcpy(dir, ".");
    else if (slash == dir) dir[1] = '\0';
    else *slash = '\0';
    struct stat st;
    int ok = stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
    if (!ok) cli_error("--output: cannot write '%s': directory '%s' does not exist", path, dir);
    free(dir);
    return ok ? 0 : -1;
}

static uint64_t auto_side(uint64_t extent, uint64_t generations, int *exact) {
    uint64_t g = generations > MAX_AUTO_SIDE ? MAX_AUTO_SIDE : generations;
    uint64_t side = extent + 2 * g + 2 * AUTO_MARGIN;
    if (side > MAX_AUTO_SIDE) side = MAX_AUTO_SIDE;
    if (side < extent) side = extent; /* never smaller than the pattern itself */
    side = (side + 63) / 64 * 64;     /* whole 64-bit words for bit-packed engines */
    /* Nothing wraps around while the gap between the pattern's two sides (side - extent)
     * exceeds twice the distance light travels. */
    if (side < extent + 2 || (side - extent - 2) / 2 < generations) *exact = 0;
    return side;
}

/* Creates the universe: the topology given, or the plane if the engine runs it, or an
 * automatic torus.  Returns -1 on success, else an exit status. */
static int create_universe(run_args *a, const wl_pattern *p, const wl_rule *rule,
                           wl_universe **u) {
    wl_config cfg;
    cli_engine_config(&cfg, &a->eng);
    cfg.rule = *rule;
    wl_status s;
    if (a->topology_given) {
        cfg.topology = a->topology;
        cfg.width = a->width;
        cfg.height = a->height;
        if (a->file_grid) cfg.glue = a->glue;
        s = wl_universe_create(&cfg, u);
        return s ? cli_fail(s, "cannot create the universe") : -1;
    }
    cfg.topology = WL_TOPOLOGY_PLANE;
    cfg.verbose = !a->eng.quiet;
    s = wl_universe_create(&cfg, u);
    if (s == WL_OK) {
        if (!a->eng.quiet)
            fprintf(stderr, "warplife: running on the unbounded plane (engine %s)\n",
                    wl_universe_engine(*u));
        a->topology = WL_TOPOLOGY_PLANE;
        return -1;
    }
    if (s != WL_ERR_UNSUPPORTED && s != WL_ERR_UNAVAILABLE)
        return cli_fail(s, "cannot create the universe");
    wl_clear_error();
    wl_rect r;
    if (!p || !wl_pattern_bounds(p, &r)) r.w = r.h = 1;
    int exact = 1;
    cfg.verbose = !a->eng.quiet;
    cfg.topology = a->topology = WL_TOPOLOGY_TORUS;
    cfg.width = a->width = auto_side(r.w, a->generations, &exact);
    cfg.height = a->height = auto_side(r.h, a->generations, &exact);
    s = wl_universe_create(&cfg, u);
    if (s) return cli_fail(s, "cannot create the universe");
    if (!a->eng.quiet) {
        if (exact)
            fprintf(stderr,
                    "warplife: running on a %llux%llu torus (engine %s), large enough that "
                    "nothing wraps around in %llu generations\n",
                    (unsigned long long)a->width, (unsigned long long)a->height,
                    wl_universe_engine(*u), (unsigned long long)a->generations);
        else
            fprintf(stderr,
                    "warplife: running on a %llux%llu torus (engine %s); the pattern may wrap "
                    "around (use --plane, or --torus/--bounded)\n",
                    (unsigned long long)a->width, (unsigned long long)a->height,
                    wl_universe_engine(*u));
    }
    return -1;
}

/* Prints "generation G[ population P]" on stdout; returns a status. */
static wl_status report(wl_universe *u, int with_population) {
    wl_bigint g, pop;
    char gs[80], ps[80];
    wl_universe_generation(u, &g);
    wl_bigint_to_str(&g, gs, sizeof gs);
    if (!with_population) {
        printf("generation %s\n", gs);
        return WL_OK;
    }
    wl_status s = wl_universe_population(u, &pop);
    if (s) return s;
    printf("generation %s population %s\n", gs, wl_bigint_to_str(&pop, ps, sizeof ps));
    fflush(stdout);
    return WL_OK;
}

/* " (Golly's :T30+5,20)" for a glued grid from a file, else "". */
static const char *glue_text(const run_args *a) {
    static char t[128];
    char sfx[96];
    t[0] = '\0';
    if (a->file_grid && (a->glue.hshift || a->glue.vshift || a->glue.htwist || a->glue.vtwist) &&
        wl_shape_format(&a->file_shape, sfx, sizeof sfx) == WL_OK)
        snprintf(t, sizeof t, " (Golly's %s)", sfx);
    return t;
}

static void print_plan(const run_args *a, wl_universe *u, const wl_pattern *p,
                       const wl_rule *rule) {
    char rt[WL_RULE_TEXT_MAX];
    if (wl_rule_format(rule, rt, sizeof rt)) strcpy(rt, "?");
    printf("pattern %s\n", a->pattern);
    if (p) printf("population %llu\n", (unsigned long long)wl_pattern_population(p));
    printf("rule %s\n", rt);
    printf("engine %s kernel %s\n", wl_universe_engine(u), wl_universe_kernel(u));
    if (a->topology == WL_TOPOLOGY_PLANE) printf("topology plane\n");
    else
        printf("topology %s %llux%llu%s\n", wl_topology_name(a->topology),
               (unsigned long long)a->width, (unsigned long long)a->height, glue_text(a));
    printf("generations %llu\n", (unsigned long long)a->generations);
    if (a->step) printf("step %llu%s\n", (unsigned long long)a->step, a->hyper ? " (hyper)" : "");
    if (a->output) printf("output %s\n", a->output);
}

/* Runs the generations with the reports --step/--hyper ask for. */
static wl_status evolve(run_args *a, wl_universe *u, int *reported_last) {
    uint64_t inc = a->step ? a->step : (a->hyper ? 1 : a->generations), done = 0;
    int report_each = a->step || a->hyper;
    int print = !a->eng.quiet || a->popcount;
    *reported_last = 0;
    while (done < a->generations) {
        uint64_t n = a->generations - done < inc ? a->generations - done : inc;
        wl_status s = cli_advance(u, n, &a->eng);
        if (s) return s;
        done += n;
        if (report_each && print) {
            s = report(u, a->popcount);
            if (s) return s;
            *reported_last = a->popcount;
        }
        if (a->hyper && inc <= (UINT64_MAX >> 1)) inc *= 2;
    }
    return WL_OK;
}

static void summary(const run_args *a, wl_universe *u, double seconds) {
    char rate[32], cups[32];
    printf("engine %s kernel %s, ", wl_universe_engine(u), wl_universe_kernel(u));
    if (a->topology == WL_TOPOLOGY_PLANE) printf("plane");
    else
        printf("%s %llux%llu%s", wl_topology_name(a->topology), (unsigned long long)a->width,
               (unsigned long long)a->height, glue_text(a));
    printf(", %llu generations in %.3f s", (unsigned long long)a->generations, seconds);
    if (seconds > 0) {
        double gps = (double)a->generations / seconds;
        printf(", %s gens/s", cli_format_rate(gps, rate, sizeof rate));
        if (a->topology != WL_TOPOLOGY_PLANE)
            printf(", %s cell updates/s",
                   cli_format_rate(gps * (double)a->width * (double)a->height, cups, sizeof cups));
    }
    printf("\n");
}

static int finish(run_args *a, wl_universe *u);

/* A macrocell file read by the engine's own reader on the plane: one for an engine that
 * reads the format (HashLife), or one too big to hold as a pattern; the rule comes from
 * --rule or the file's "#R" line. */
static int run_huge(run_args *a, const wl_rule *given) {
    wl_rule rule;
    wl_rule_life(&rule);
    if (given) {
        rule = *given;
    } else {
        /* The rule and comments only: the reader stops at the first node. */
        wl_read_opts ro = {.max_memory = a->eng.max_memory, .header_only = 1};
        wl_pattern *head = NULL;
        wl_status s = wl_pattern_read_file_opts(a->pattern, &ro, &head, NULL);
        if (s) return cli_fail_input(s, "");
        rule = *wl_pattern_rule(head);
        wl_pattern_free(head);
    }
    wl_clear_error();
    a->topology_given = 1;
    a->topology = WL_TOPOLOGY_PLANE;
    wl_universe *u = NULL;
    int rc = create_universe(a, NULL, &rule, &u);
    if (rc != -1) {
        cli_error("%s is too big for a grid; it needs an engine for the plane (sparse or HashLife)",
                  a->pattern);
        return rc;
    }
    if (a->output && check_output_dir(a->output)) {
        wl_universe_free(u);
        return CLI_EXIT_RUNTIME;
    }
    wl_status s = wl_universe_load_file(u, a->pattern, NULL);
    if (s) {
        wl_universe_free(u);
        return cli_fail_input(s, "");
    }
    if (!a->eng.quiet && strcmp(a->eng.engine, "auto") == 0)
        fprintf(stderr, "warplife: running on the unbounded plane (engine %s, which reads the "
                        "macrocell file itself: as cells %s would take more than %llu MiB or "
                        "reach too far)\n",
                wl_universe_engine(u), a->pattern,
                (unsigned long long)((a->eng.max_memory ? a->eng.max_memory
                                                        : WL_MACROCELL_AUTO_MAX) >> 20));
    if (a->dry_run) {
        print_plan(a, u, NULL, &rule);
        wl_universe_free(u);
        return CLI_EXIT_OK;
    }
    rc = finish(a, u);
    wl_universe_free(u);
    return rc;
}

static int run_pattern(run_args *a) {
    wl_pattern *p = NULL;
    wl_universe *u = NULL;
    wl_rule rule;
    int rc = -1;
    wl_status s;
    wl_shape rule_shape = {WL_TOPOLOGY_PLANE, 0, 0, {0, 0, 0, 0}};
    if (a->rule_text) {
        s = wl_rule_parse_grid(a->rule_text, &rule, &rule_shape); /* "B3/S23:T100,100" too */
        if (s) return cli_fail(s, "--rule");
    }
    /* a macrocell file (not standard input: it may be read again) on the plane */
    const int plane_mc = strcmp(a->pattern, "-") != 0 &&
                         wl_format_from_path(a->pattern, NULL) == WL_FORMAT_MACROCELL &&
                         (!a->topology_given || a->topology == WL_TOPOLOGY_PLANE);
    const int is_auto = strcmp(a->eng.engine, "auto") == 0;
    /* A macrocell file for an engine that reads the format itself (HashLife) on the
     * plane goes straight to the engine's reader: its tree is the file's. */
    if (plane_mc && !is_auto &&
        (wl_engine_caps(a->eng.engine) & (WL_CAN_FILES | WL_CAN_PLANE)) ==
            (WL_CAN_FILES | WL_CAN_PLANE))
        return run_huge(a, a->rule_text ? &rule : NULL);
    wl_format fmt = WL_FORMAT_AUTO;
    /* (the default engine on the plane holds a big macrocell file's pattern in HashLife's
     * tree, not in the sparse engine's tiles: see WL_MACROCELL_AUTO_MAX) */
    const uint64_t limit =
        !a->eng.max_memory && is_auto && plane_mc ? WL_MACROCELL_AUTO_MAX : a->eng.max_memory;
    s = cli_read_pattern(a->pattern, limit, &p, &fmt);
    /* A macrocell file too big for a rectangle may still fit an engine's own quadtree
     * (which reads the file again: not possible for standard input). */
    if (s == WL_ERR_TOO_BIG && fmt == WL_FORMAT_MACROCELL && strcmp(a->pattern, "-") != 0 &&
        (!a->topology_given || a->topology == WL_TOPOLOGY_PLANE))
        return run_huge(a, a->rule_text ? &rule : NULL);
    if (s) {
        int limited = s == WL_ERR_TOO_BIG && strstr(wl_last_error(), "reading limit");
        rc = cli_fail_input(s, "");
        if (limited)
            cli_error("(--maxmemory MB sets the reading limit; the default is a quarter of "
                      "physical memory)");
        return rc;
    }
    if (!a->rule_text) rule = *wl_pattern_rule(p);
    /* The grid the file (or --rule) asks for (Golly's ":Tw,h", ":K30*,20", ...), unless the
     * command line chose one. */
    wl_shape fsh;
    wl_pattern_shape(p, &fsh);
    if (a->rule_text) fsh = rule_shape;
    uint64_t gw = fsh.width, gh = fsh.height;
    wl_topology gt = fsh.topology;
    if (!a->topology_given && gt != WL_TOPOLOGY_PLANE) {
        /* A side without bounds (a tube or strip) gets one light cannot cross in the run,
         * as the automatic torus does. */
        wl_rect r;
        if (!wl_pattern_bounds(p, &r)) r.w = r.h = 1;
        int exact = 1;
        a->topology_given = a->file_grid = 1;
        a->topology = gt;
        a->file_shape = fsh;
        a->glue = fsh.glue;
        a->width = gw ? gw : auto_side(r.w, a->generations, &exact);
        a->height = gh ? gh : auto_side(r.h, a->generations, &exact);
        if (!a->eng.quiet) {
            char sw[24] = "unbounded", sh[24] = "unbounded";
            if (gw) snprintf(sw, sizeof sw, "%llu", (unsigned long long)gw);
            if (gh) snprintf(sh, sizeof sh, "%llu", (unsigned long long)gh);
            fprintf(stderr, "warplife: the file asks for the %s %s x %s; running on %llux%llu\n",
                    wl_topology_name(gt), sw, sh, (unsigned long long)a->width,
                    (unsigned long long)a->height);
        }
        if (!exact)
            fprintf(stderr, "warplife: warning: the unbounded side is emulated by %llu cells, "
                            "too few for %llu generations: cells may wrap around\n",
                    (unsigned long long)(gw ? a->height : a->width),
                    (unsigned long long)a->generations);
    }
    if (a->output && check_output_dir(a->output)) {
        rc = CLI_EXIT_RUNTIME;
        goto done;
    }
    rc = create_universe(a, p, &rule, &u);
    if (rc != -1) goto done;
    uint64_t dropped = 0;
    s = wl_universe_load(u, p, &dropped);
    if (s) {
        rc = cli_fail(s, "cannot load the pattern");
        goto done;
    }
    if (dropped)
        fprintf(stderr, "warplife: warning: %llu live cells fell outside the %llux%llu bounded "
                        "grid and were dropped\n",
                (unsigned long long)dropped, (unsigned long long)a->width,
                (unsigned long long)a->height);
    if (a->dry_run) {
        print_plan(a, u, p, &rule);
        rc = CLI_EXIT_OK;
        goto done;
    }
    wl_pattern_free(p);
    p = NULL;
    rc = finish(a, u);
done:
    wl_universe_free(u);
    wl_pattern_free(p);
    return rc;
}

/* Evolves, reports and saves; returns an exit status. */
static int finish(run_args *a, wl_universe *u) {
    int reported_last = 0;
    double t0 = cli_now();
    /* Ctrl-C while loading (the handler is installed from the start) stops here. */
    wl_status s = cli_interrupted(NULL) ? WL_ERR_INTERRUPTED : evolve(a, u, &reported_last);
    double seconds = cli_now() - t0;
    if (s == WL_ERR_INTERRUPTED) {
        wl_bigint g;
        char gs[80];
        wl_universe_generation(u, &g);
        cli_error("interrupted at generation %s; nothing written",
                  wl_bigint_to_str(&g, gs, sizeof gs));
        return CLI_EXIT_RUNTIME;
    }
    if (s) return cli_fail(s, "run failed");
    if ((!a->eng.quiet || a->popcount) && !reported_last) {
        s = report(u, 1);
        if (s) return cli_fail(s, "population");
    }
    if (!a->eng.quiet) summary(a, u, seconds);
    fflush(stdout);
    if (a->output && cli_mpi_rank() > 0) {
        /* mpi engine: the store is collective, so every rank takes part; rank 0 writes */
        wl_pattern *p = NULL;
        s = wl_universe_store(u, &p);
        wl_pattern_free(p);
        if (s) return cli_fail(s, a->output);
    } else if (a->output && a->file_grid) {
        /* The file's grid goes back as it was asked for (a tube stays a tube). */
        wl_pattern *p = NULL;
        s = wl_universe_store(u, &p);
        if (!s) wl_pattern_set_shape(p, &a->file_shape);
        if (!s) s = wl_pattern_write_file(p, a->output, WL_FORMAT_AUTO, -1);
        wl_pattern_free(p);
        if (s) return cli_fail(s, a->output);
    } else if (a->output) {
        s = wl_universe_save_file(u, a->output, WL_FORMAT_AUTO, -1);
        if (s) return cli_fail(s, a->output);
    }
    return CLI_EXIT_OK;
}

int cli_run(int argc, char **argv) {
    run_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != -1) return rc;
    cli_install_sigint(); /* before loading: device set-up and big files take time too */
    if (!a.pattern) return cli_run_default(&a.eng);
    return run_pattern(&a);
}
