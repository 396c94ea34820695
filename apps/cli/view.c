/*
 * view.c - `warplife view [PATTERN]`: watch, steer and edit any engine in a window
 * (apps/viewer, SDL2 + OpenGL), or render off-screen to an image for scripts and tests.
 *
 * This file parses the command line, creates the universe (the same engine options as
 * `run`) and loads the pattern, then either hands both to the window (wl_viewer_run, in the
 * module warplife-viewer.so beside the executable, built only with SDL2 and OpenGL:
 * WL_HAVE_VIEWER; loaded here, so that no other command pays for SDL's libraries) or, with
 * --screenshot and no --window, renders without any window: the universe is stepped
 * `--frames` times by `--step` generations (when --run is given) and the last frame is
 * rendered on the CPU (wl_snapshot_render) and written as PNG or PPM.  The off-screen path needs no SDL at all, so it works on every
 * build and on machines without a display.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include "../viewer/viewer.h" /* the options and entry point; no SDL types */

#ifdef WL_HAVE_VIEWER
#include <dlfcn.h>
#include <unistd.h>
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_WIDTH 1024  /* window size in pixels */
#define DEFAULT_HEIGHT 768
#define PLANE_SOUP_SIDE 1024 /* --soup on the plane fills a square this big */
#define AUTO_MIN_SIDE 1024   /* automatic torus: at least this, ... */
#define AUTO_MARGIN 512      /* ... the pattern plus this margin on each side, ... */
#define AUTO_MAX_SIDE 8192   /* ... at most this */
#define OFFSCREEN_ZOOM_MAX 6 /* like the window: 64 pixels per cell */

static void usage(FILE *out) {
    fprintf(out,
        "usage: warplife view [PATTERN] [options]\n"
        "\n"
        "Opens a window on PATTERN (any format warplife reads) evolving on an engine.\n"
        "\n"
        "engine and universe (as for `run`):\n"
        "  -e, --engine NAME     engine (default auto)       -k, --kernel NAME\n"
        "      --torus WxH       torus                           --bounded WxH  bounded grid\n"
        "      --plane           unbounded plane (HashLife)\n"
        "                        default: the plane if an engine runs it, else a torus of\n"
        "                        the pattern plus %d cells a side (%d..%d cells)\n"
        "  -r, --rule RULE       rule (default: the pattern's, else B3/S23)\n"
        "      --threads N       worker threads (0 = all cores)  --device N  GPU index\n"
        "      --soup D          fill the grid (or a %dx%d square on the plane) with a\n"
        "                        random soup of density D; --seed N picks it\n"
        "\n"
        "view:\n"
        "      --run             start running (default: paused)\n"
        "  -s, --step N          generations per frame while running (default 1)\n"
        "  -z, --zoom Z          2^Z pixels per cell (negative: 2^-Z cells per pixel);\n"
        "                        default: fit the pattern\n"
        "      --center X,Y      the cell at the centre of the window\n"
        "      --size WxH        window (or image) size in pixels (default %dx%d)\n"
        "      --frames N        exit after N frames and print frames per second\n"
        "      --screenshot FILE write the last frame to FILE (.png or .ppm) and exit;\n"
        "                        without --window this renders off-screen, no display\n"
        "                        needed (cells only, no status line)\n"
        "      --window          take --screenshot from the real window\n"
        "      --script TEXT     scripted input, e.g. \"n n n click:10,20 g wait:5 quit\"\n"
        "      --vsync           wait for the display refresh (default off with --frames)\n"
        "  -q, --quiet           no notes on stderr\n"
        "\n"
        "keys: space run/pause, n step, +/- step size, r reset, [ ] zoom, f fit, arrows pan,\n"
        "      click/drag draw, right drag pan, shift+drag select, u soup, del clear,\n"
        "      s save, p screenshot, g plot, h help, esc interrupt, q quit.\n"
        "On exit prints \"generation G population P\".\n"
        "exit status: 0 ok, 1 bad command line, 2 bad input, 3 runtime failure or no display\n",
        AUTO_MARGIN, AUTO_MIN_SIDE, AUTO_MAX_SIDE, PLANE_SOUP_SIDE, PLANE_SOUP_SIDE,
        DEFAULT_WIDTH, DEFAULT_HEIGHT);
}

enum {
    OPT_ENGINE = 1, OPT_KERNEL, OPT_TORUS, OPT_BOUNDED, OPT_PLANE, OPT_RULE, OPT_THREADS,
    OPT_DEVICE, OPT_SOUP, OPT_SEED, OPT_RUN, OPT_STEP, OPT_ZOOM, OPT_CENTER, OPT_SIZE,
    OPT_FRAMES, OPT_SCREENSHOT, OPT_WINDOW, OPT_SCRIPT, OPT_VSYNC, OPT_QUIET, OPT_HELP
};

static const cli_option options[] = {
    {"engine", 'e', 1, OPT_ENGINE},   {"kernel", 'k', 1, OPT_KERNEL},
    {"torus", 0, 1, OPT_TORUS},       {"bounded", 0, 1, OPT_BOUNDED},
    {"plane", 0, 0, OPT_PLANE},       {"rule", 'r', 1, OPT_RULE},
    {"threads", 0, 1, OPT_THREADS},   {"device", 0, 1, OPT_DEVICE},
    {"soup", 0, 1, OPT_SOUP},         {"seed", 0, 1, OPT_SEED},
    {"run", 0, 0, OPT_RUN},           {"step", 's', 1, OPT_STEP},
    {"zoom", 'z', 1, OPT_ZOOM},       {"center", 0, 1, OPT_CENTER},
    {"size", 0, 1, OPT_SIZE},         {"frames", 0, 1, OPT_FRAMES},
    {"screenshot", 0, 1, OPT_SCREENSHOT}, {"window", 0, 0, OPT_WINDOW},
    {"script", 0, 1, OPT_SCRIPT},     {"vsync", 0, 0, OPT_VSYNC},
    {"quiet", 'q', 0, OPT_QUIET},     {"help", 'h', 0, OPT_HELP},
    {NULL, 0, 0, 0},
};

typedef struct view_args {
    wl_viewer_options vo;
    wl_config cfg;
    const char *rule_text;
    int topology_given;
    double soup;
    int window, quiet;
} view_args;

static int parse_center(const char *v, int64_t *x, int64_t *y) {
    char *end;
    long long a = strtoll(v, &end, 10);
    if (*end != ',') return -1;
    long long b = strtoll(end + 1, &end, 10);
    if (*end) return -1;
    *x = a;
    *y = b;
    return 0;
}

static int set_topology(view_args *a, wl_topology t, const char *v, const char *what) {
    if (a->topology_given) {
        cli_error("give one of --torus, --bounded, --plane");
        return -1;
    }
    a->topology_given = 1;
    a->cfg.topology = t;
    if (t == WL_TOPOLOGY_PLANE) return 0;
    return cli_parse_size(v, what, &a->cfg.width, &a->cfg.height);
}

/* Returns -1 to go on, else an exit status. */
static int parse_args(int argc, char **argv, view_args *a) {
    cli_args st;
    const char *v;
    int id;
    uint64_t u;
    cli_args_init(&st, argc, argv);
    while ((id = cli_next_option(&st, options, &v)) != -1) {
        switch (id) {
        case -2: return CLI_EXIT_USAGE;
        case 0:
            if (a->vo.pattern_path) {
                cli_error("view takes one pattern (got '%s' and '%s')", a->vo.pattern_path, v);
                return CLI_EXIT_USAGE;
            }
            a->vo.pattern_path = v;
            break;
        case OPT_HELP: usage(stdout); return CLI_EXIT_OK;
        case OPT_ENGINE: a->cfg.engine = v; break;
        case OPT_KERNEL: a->cfg.kernel = v; break;
        case OPT_TORUS: if (set_topology(a, WL_TOPOLOGY_TORUS, v, "--torus")) return CLI_EXIT_USAGE; break;
        case OPT_BOUNDED: if (set_topology(a, WL_TOPOLOGY_BOUNDED, v, "--bounded")) return CLI_EXIT_USAGE; break;
        case OPT_PLANE: if (set_topology(a, WL_TOPOLOGY_PLANE, v, "--plane")) return CLI_EXIT_USAGE; break;
        case OPT_RULE: a->rule_text = v; break;
        case OPT_THREADS: if (cli_parse_int(v, "--threads", 0, 1 << 16, &a->cfg.threads)) return CLI_EXIT_USAGE; break;
        case OPT_DEVICE: if (cli_parse_int(v, "--device", 0, 1 << 16, &a->cfg.device)) return CLI_EXIT_USAGE; break;
        case OPT_SOUP: if (cli_parse_double(v, "--soup", 0.0, 1.0, &a->soup)) return CLI_EXIT_USAGE; break;
        case OPT_SEED: if (cli_parse_u64(v, "--seed", &a->vo.seed)) return CLI_EXIT_USAGE; break;
        case OPT_RUN: a->vo.run = 1; break;
        case OPT_STEP:
            if (cli_parse_u64(v, "--step", &a->vo.step)) return CLI_EXIT_USAGE;
            if (!a->vo.step) {
                cli_error("--step: must be at least 1");
                return CLI_EXIT_USAGE;
            }
            break;
        case OPT_ZOOM:
            if (cli_parse_int(v, "--zoom", -30, OFFSCREEN_ZOOM_MAX, &a->vo.zoom)) return CLI_EXIT_USAGE;
            a->vo.zoom_given = 1;
            break;
        case OPT_CENTER:
            if (parse_center(v, &a->vo.cx, &a->vo.cy)) {
                cli_error("--center: expected X,Y (cell coordinates), got '%s'", v);
                return CLI_EXIT_USAGE;
            }
            a->vo.center_given = 1;
            break;
        case OPT_SIZE: {
            uint64_t w, h;
            if (cli_parse_size(v, "--size", &w, &h)) return CLI_EXIT_USAGE;
            if (w > 16384 || h > 16384) {
                cli_error("--size: at most 16384x16384 pixels");
                return CLI_EXIT_USAGE;
            }
            a->vo.width = (uint32_t)w;
            a->vo.height = (uint32_t)h;
            break;
        }
        case OPT_FRAMES:
            if (cli_parse_u64(v, "--frames", &u)) return CLI_EXIT_USAGE;
            a->vo.frames = u;
            break;
        case OPT_SCREENSHOT: a->vo.screenshot = v; break;
        case OPT_WINDOW: a->window = 1; break;
        case OPT_SCRIPT: a->vo.script = v; break;
        case OPT_VSYNC: a->vo.vsync = 1; break;
        case OPT_QUIET: a->quiet = 1; break;
        default: return CLI_EXIT_USAGE;
        }
    }
    return -1;
}

/* Creates the universe for the options and the pattern p (may be NULL); -1 on success. */
static int create_universe(view_args *a, const wl_pattern *p, wl_universe **u) {
    wl_status s;
    if (a->topology_given) {
        s = wl_universe_create(&a->cfg, u);
        return s ? cli_fail(s, "cannot create the universe") : -1;
    }
    a->cfg.topology = WL_TOPOLOGY_PLANE;
    int verbose = a->cfg.verbose;
    a->cfg.verbose = 0;
    s = wl_universe_create(&a->cfg, u);
    a->cfg.verbose = verbose;
    if (s == WL_OK) return -1;
    if (s != WL_ERR_UNSUPPORTED && s != WL_ERR_UNAVAILABLE && s != WL_ERR_NOT_FOUND)
        return cli_fail(s, "cannot create the universe");
    wl_clear_error();
    wl_rect r;
    if (!p || !wl_pattern_bounds(p, &r)) r.w = r.h = 1;
    uint64_t side = (r.w > r.h ? r.w : r.h) + 2 * AUTO_MARGIN;
    if (side < AUTO_MIN_SIDE) side = AUTO_MIN_SIDE;
    if (side > AUTO_MAX_SIDE) side = AUTO_MAX_SIDE;
    side = (side + 63) / 64 * 64;
    a->cfg.topology = WL_TOPOLOGY_TORUS;
    a->cfg.width = a->cfg.height = side;
    s = wl_universe_create(&a->cfg, u);
    if (s) return cli_fail(s, "cannot create the universe");
    if (!a->quiet)
        fprintf(stderr, "warplife: viewing on a %llux%llu torus (engine %s; --plane needs "
                        "HashLife, or give --torus/--bounded)\n",
                (unsigned long long)side, (unsigned long long)side, wl_universe_engine(*u));
    return -1;
}

/* Reads the rule from a plain macrocell file's "#R" line (Life if none, or gzipped). */
static int macrocell_rule(const char *path, wl_rule *rule) {
    wl_rule_life(rule);
    FILE *f = fopen(path, "r");
    char line[256];
    for (int i = 0; f && i < 64 && fgets(line, sizeof line, f); i++) {
        if (strncmp(line, "#R ", 3) != 0) continue;
        line[strcspn(line, "\r\n")] = '\0';
        wl_status s = wl_rule_parse(line + 3, rule);
        fclose(f);
        return s ? cli_fail_input(s, path) : -1;
    }
    if (f) fclose(f);
    return -1;
}

/* Macrocell files on the plane go straight to the engine's own reader: they can hold far
 * more than a rectangle of cells (and reading them as one would take minutes).  Returns
 * -1 when done, -2 to fall back to the ordinary path, else an exit status. */
static int prepare_native(view_args *a, wl_universe **u) {
    int gz = 0;
    if (!a->vo.pattern_path || a->soup > 0 ||
        wl_format_from_path(a->vo.pattern_path, &gz) != WL_FORMAT_MACROCELL ||
        (a->topology_given && a->cfg.topology != WL_TOPOLOGY_PLANE))
        return -2;
    if (a->rule_text) {
        wl_status s = wl_rule_parse(a->rule_text, &a->cfg.rule);
        if (s) return cli_fail_input(s, "--rule");
    } else if (!gz) {
        int rc = macrocell_rule(a->vo.pattern_path, &a->cfg.rule);
        if (rc != -1) return rc;
    }
    wl_config cfg = a->cfg;
    cfg.topology = WL_TOPOLOGY_PLANE;
    if (wl_universe_create(&cfg, u) != WL_OK) {
        wl_clear_error();
        return -2;
    }
    wl_status s = wl_universe_load_file(*u, a->vo.pattern_path, NULL);
    if (s) {
        wl_universe_free(*u);
        *u = NULL;
        return cli_fail_input(s, a->vo.pattern_path);
    }
    return -1;
}

/* Reads the pattern (if any), adds the soup, creates and loads the universe; -1 on
 * success, else an exit status. */
static int prepare(view_args *a, wl_universe **u) {
    wl_pattern *p = NULL;
    wl_status s;
    int native = prepare_native(a, u);
    if (native != -2) return native;
    if (a->vo.pattern_path) {
        s = wl_pattern_read_file(a->vo.pattern_path, &p);
        if (s) return cli_fail_input(s, a->vo.pattern_path);
        a->cfg.rule = *wl_pattern_rule(p);
    }
    if (a->rule_text) {
        s = wl_rule_parse(a->rule_text, &a->cfg.rule);
        if (s) {
            wl_pattern_free(p);
            return cli_fail_input(s, "--rule");
        }
    }
    int rc = create_universe(a, p, u);
    if (rc != -1) {
        wl_pattern_free(p);
        return rc;
    }
    if (a->soup > 0) {
        if (!p) p = wl_pattern_new();
        const wl_config *c = wl_universe_config(*u);
        wl_rect r;
        if (c->topology == WL_TOPOLOGY_PLANE)
            r = (wl_rect){-PLANE_SOUP_SIDE / 2, -PLANE_SOUP_SIDE / 2, PLANE_SOUP_SIDE, PLANE_SOUP_SIDE};
        else
            r = (wl_rect){-(int64_t)(c->width / 2), -(int64_t)(c->height / 2), c->width, c->height};
        s = p ? wl_pattern_random(p, &r, a->soup, a->vo.seed) : WL_ERR_NOMEM;
        if (s) {
            wl_pattern_free(p);
            wl_universe_free(*u);
            *u = NULL;
            return cli_fail(s, "--soup");
        }
    }
    uint64_t dropped = 0;
    s = p ? wl_universe_load(*u, p, &dropped) : WL_OK;
    wl_pattern_free(p);
    if (s) {
        wl_universe_free(*u);
        *u = NULL;
        return cli_fail(s, "cannot load the pattern");
    }
    if (dropped && !a->quiet)
        fprintf(stderr, "warplife: %llu cells fell outside the bounded grid\n",
                (unsigned long long)dropped);
    return -1;
}

/* Off-screen: step, render the last frame on the CPU, write the image. */
static int offscreen(view_args *a, wl_universe *u) {
    const wl_viewer_options *o = &a->vo;
    uint64_t frames = o->frames ? o->frames : 1;
    double t0 = cli_now();
    wl_status s = WL_OK;
    wl_snapshot *snap = NULL;
    for (uint64_t f = 0; f < frames && !s; f++) {
        if (o->run) s = wl_universe_step(u, o->step);
        if (!s) s = wl_universe_snapshot(u, &snap);
    }
    uint32_t *img = NULL;
    if (!s) {
        img = malloc((size_t)o->width * o->height * 4);
        if (!img) s = WL_ERR_NOMEM;
    }
    wl_view v = {0};
    if (!s) {
        wl_rect r;
        int any = wl_snapshot_bounds(snap, &r);
        if (!any) r = (wl_rect){0, 0, 1, 1};
        int zoom = OFFSCREEN_ZOOM_MAX;
        if (o->zoom_given) zoom = o->zoom;
        else
            while (zoom > -30 && (ldexp((double)r.w, zoom) > o->width * 0.9 ||
                                  ldexp((double)r.h, zoom) > o->height * 0.9))
                zoom--;
        double cx = o->center_given ? (double)o->cx + 0.5 : (double)r.x + (double)r.w / 2.0;
        double cy = o->center_given ? (double)o->cy + 0.5 : (double)r.y + (double)r.h / 2.0;
        /* Same camera as the window: the centre cell's middle at the image centre, whole
         * cells at the corner. */
        v.zoom = zoom;
        v.width = o->width;
        v.height = o->height;
        v.x = (int64_t)floor(cx - ldexp(o->width / 2.0, -zoom));
        v.y = (int64_t)floor(cy - ldexp(o->height / 2.0, -zoom));
        v.alive = 0xff30e0ffu;
        v.dead = 0xff201010u;
        if (wl_snapshot_states(snap) > 2) { /* a colour for each state, as the window */
            uint32_t palette[WL_STATES_MAX];
            wl_palette_default(wl_snapshot_family(snap), wl_snapshot_states(snap), v.alive,
                               v.dead, palette);
            s = wl_snapshot_render_palette(snap, &v, palette, img);
        } else {
            s = wl_snapshot_render(snap, &v, img);
        }
    }
    double elapsed = cli_now() - t0;
    if (!s) s = wl_image_write(o->screenshot, img, o->width, o->height);
    int rc = CLI_EXIT_OK;
    if (s) rc = cli_fail(s, o->screenshot);
    else {
        wl_bigint g;
        char gs[80];
        wl_universe_generation(u, &g);
        printf("generation %s population %llu\n", wl_bigint_to_str(&g, gs, sizeof gs),
               (unsigned long long)wl_snapshot_population(snap));
        printf("view x %lld y %lld zoom %d size %ux%u\n", (long long)v.x, (long long)v.y,
               v.zoom, v.width, v.height);
        if (o->frames)
            printf("frames %llu seconds %.3f fps %.1f\n", (unsigned long long)frames, elapsed,
                   frames / elapsed);
    }
    free(img);
    wl_snapshot_free(snap);
    wl_universe_free(u);
    return rc;
}

/* The window's entry points, from the viewer module. */
typedef struct viewer_fns {
    int (*run)(const wl_viewer_options *o, wl_universe *u);
    int (*poll)(void *user); /* the universe's interruption callback (sim_poll) */
} viewer_fns;

/* Loads warplife-viewer.so from the executable's folder; 0 (error printed) when the viewer
 * was not built or cannot be loaded. */
static int viewer_load(viewer_fns *f) {
#ifdef WL_HAVE_VIEWER
    char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 32);
    if (n <= 0) {
        cli_error("viewer: cannot find the executable's folder (/proc/self/exe)");
        return 0;
    }
    path[n] = 0;
    char *slash = strrchr(path, '/');
    strcpy(slash ? slash + 1 : path, "warplife-viewer.so");
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h) {
        *(void **)&f->run = dlsym(h, "wl_viewer_run");
        *(void **)&f->poll = dlsym(h, "sim_poll");
    }
    if (!h || !f->run || !f->poll) {
        const char *why = dlerror();
        cli_error("viewer: cannot load %s: %s", path, why ? why : "entry points missing");
        return 0;
    }
    return 1;
#else
    (void)f;
    cli_error("viewer not built (needs SDL2 and OpenGL); off-screen rendering works: "
              "warplife view PATTERN --screenshot out.png");
    return 0;
#endif
}

int cli_view(int argc, char **argv) {
    view_args a;
    memset(&a, 0, sizeof a);
    wl_config_init(&a.cfg);
    a.vo.step = 1;
    a.vo.width = DEFAULT_WIDTH;
    a.vo.height = DEFAULT_HEIGHT;
    a.vo.seed = 1;
    int rc = parse_args(argc, argv, &a);
    if (rc != -1) return rc;
    a.cfg.verbose = !a.quiet;
    int use_window = !a.vo.screenshot || a.window;
    viewer_fns vf = {0};
    if (use_window) {
        if (!viewer_load(&vf)) return CLI_EXIT_RUNTIME;
        a.cfg.poll = vf.poll;
        if (!a.vo.frames && !a.vo.script) a.vo.vsync = 1; /* interactive: spare the CPU */
    }
    if (!use_window) a.cfg.poll = cli_interrupted;
    if (!use_window) cli_install_sigint();
    wl_universe *u = NULL;
    rc = prepare(&a, &u);
    if (rc != -1) return rc;
    if (!use_window) return offscreen(&a, u);
    return vf.run(&a.vo, u);
}
