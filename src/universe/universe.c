/*
 * universe.c - the public wl_universe: an engine (ops + ctx) plus the generation counter,
 * with defaults for every optional engine slot, so that callers never test for NULL.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

struct wl_universe {
    const wl_engine_ops *ops;
    void *ctx;
    wl_config cfg;
    const char *kernel;
    wl_bigint generation;
    wl_handover *ho; /* "auto" on the plane: sparse hands over to HashLife (handover.c) */
};

/* After a handover moved the universe to another engine: its name and kernel. */
static void sync_engine(wl_universe *u) {
    u->kernel = wl_handover_kernel(u->ho, u->ops);
    u->cfg.engine = u->ops->name;
    u->cfg.kernel = u->kernel;
}

void wl_config_init(wl_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    cfg->engine = "auto";
    cfg->topology = WL_TOPOLOGY_TORUS;
    wl_rule_life(&cfg->rule);
}



/* Resolves "auto": the fastest engine that is built, usable here and supports the
 * topology and rule.  Order of preference: cuda, cpu, ref for grids; for the plane sparse
 * (handing over to hashlife, see handover.c), then hashlife; for Generations and Larger
 * than Life on the plane grow (on cuda or cpu, handing Generations over to hashlife too);
 * for History cpu on grids and hashlife on the plane (grow on cpu is faster on a chaotic
 * History soup - about 2x on a 512^2 soup to 2000 since HashLife's base case became bit
 * logic, 50-80x before - but Golly's engineered History patterns - replicators, syntheses
 * - are HashLife's, up to 50x slower on grow: `-e grow` chooses it); Super the same
 * (Golly's Super patterns on the plane are engineered too, and HashLife runs a Super soup
 * faster than grow). */
static const wl_engine_ops *resolve_auto(const wl_config *cfg) {
    static const char *const two[] = {"cuda", "cpu", "sparse", "hashlife", "grow", "ref"};
    static const char *const multi[] = {"cuda", "cpu", "grow", "hashlife", "ref"};
    static const char *const marks[] = {"cpu", "hashlife", "grow", "ref"};
    wl_family f = wl_rule_family(&cfg->rule);
    const char *const *order = f == WL_FAMILY_LIFE ? two
                               : f == WL_FAMILY_HISTORY || f == WL_FAMILY_SUPER ? marks
                                                                                : multi;
    size_t n = order == two ? sizeof two / sizeof two[0]
               : order == marks ? sizeof marks / sizeof marks[0]
                                : sizeof multi / sizeof multi[0];
    for (size_t i = 0; i < n; i++) {
        const wl_engine_ops *e = wl_engine_find(order[i]);
        if (!e || wl_engine_check(e, cfg) != WL_OK) continue;
        if (e->probe && e->probe() != WL_OK) {
            if (cfg->verbose)
                fprintf(stderr, "warplife: engine %s not usable (%s); falling back\n", e->name,
                        wl_last_error());
            continue;
        }
        return e;
    }
    return NULL;
}

/* Out-of-core (src/engine/stream): returns the stream engine when cfg->gpu_memory is set,
 * e keeps its universe in device memory (WL_CAP_DEVICE) and the universe's two bit-packed
 * buffers (2 x ceil(W/8) x H bytes) exceed the limit; NULL otherwise (the engine is then
 * used as it is). */
static const wl_engine_ops *stream_for(const wl_config *cfg, const wl_engine_ops *e) {
    if (!cfg->gpu_memory || cfg->topology == WL_TOPOLOGY_PLANE) return NULL;
    if (!(e->caps & WL_CAP_DEVICE)) return NULL;
    uint64_t row = (cfg->width + 7) / 8, half = cfg->gpu_memory / 2;
    if (cfg->height <= half / row) return NULL; /* 2 x row x H <= limit: fits */
    return wl_engine_find("stream");
}

/* Creates a stream universe whose inner engine is `inner` (its kernel cfg->kernel). */
static wl_status create_streamed(const wl_config *cfg, const wl_engine_ops *st,
                                 const wl_engine_ops *inner, wl_universe **out) {
    if (cfg->verbose)
        fprintf(stderr, "warplife: a %llux%llu universe needs more than the GPU memory limit "
                        "of %llu bytes: streaming it through %s from host memory (engine "
                        "stream:%s)\n",
                (unsigned long long)cfg->width, (unsigned long long)cfg->height,
                (unsigned long long)cfg->gpu_memory, inner->name, inner->name);
    wl_universe *u = wl_calloc(1, sizeof *u);
    if (!u) return WL_ERR_NOMEM;
    u->ops = st;
    u->cfg = *cfg;
    u->cfg.engine = st->name;
    u->cfg.kernel = inner->name; /* the stream engine's kernel names its inner engine */
    u->kernel = inner->name;
    wl_status s = st->create(cfg, inner->name, &u->ctx); /* cfg->kernel: the inner's */
    if (s) {
        free(u);
        return s;
    }
    *out = u;
    return WL_OK;
}

/* Adds to the error of a refused engine the engines that would run cfg. */
static wl_status explain_unsupported(const wl_config *cfg) {
    char why[512], who[256] = "";
    snprintf(why, sizeof why, "%s", wl_last_error());
    for (size_t i = 0; i < wl_engine_count(); i++) {
        const wl_engine_ops *o = wl_engine_find(wl_engine_name(i));
        if (!o || wl_engine_check(o, cfg) != WL_OK) continue;
        size_t n = strlen(who);
        snprintf(who + n, sizeof who - n, "%s%s", n ? ", " : "", o->name);
    }
    return wl_error(WL_ERR_UNSUPPORTED, "%s (engines that do: %s)", why, who[0] ? who : "none");
}

wl_status wl_universe_create(const wl_config *cfg, wl_universe **out) {
    *out = NULL;
    /* "engine:kernel" (e.g. "mpi:cpu") names an engine and its kernel in one string. */
    char engine_part[64];
    wl_config split_cfg;
    const char *colon = cfg->engine ? strchr(cfg->engine, ':') : NULL;
    if (colon && (size_t)(colon - cfg->engine) < sizeof engine_part) {
        memcpy(engine_part, cfg->engine, (size_t)(colon - cfg->engine));
        engine_part[colon - cfg->engine] = '\0';
        split_cfg = *cfg;
        split_cfg.engine = engine_part;
        if (!split_cfg.kernel || !*split_cfg.kernel) split_cfg.kernel = colon + 1;
        cfg = &split_cfg;
    }
    const char *name = cfg->engine && *cfg->engine ? cfg->engine : "auto";
    const wl_engine_ops *e;
    int is_auto = strcmp(name, "auto") == 0;
    if (is_auto) {
        e = resolve_auto(cfg);
        if (!e)
            return wl_error(WL_ERR_UNSUPPORTED, "no engine built into warplife runs %s rules "
                            "on the %s", wl_family_name(wl_rule_family(&cfg->rule)),
                            wl_topology_name(cfg->topology));
        wl_clear_error();
    } else {
        e = wl_engine_find(name);
        if (!e) {
            wl_status s = wl_engine_probe(name);
            return s;
        }
        if (e->probe) {
            wl_status s = e->probe();
            if (s) return s;
        }
    }
    wl_status s = wl_engine_check(e, cfg);
    if (s == WL_ERR_UNSUPPORTED) return explain_unsupported(cfg);
    if (s) return s;
    const wl_engine_ops *st = stream_for(cfg, e);
    if (st) return create_streamed(cfg, st, e, out);
    wl_universe *u = wl_calloc(1, sizeof *u);
    if (!u) return WL_ERR_NOMEM;
    u->ops = e;
    u->cfg = *cfg;
    u->cfg.engine = e->name;
    if (is_auto) u->ho = wl_handover_new(&u->cfg, e);
    s = wl_engine_open(e, u->ho ? wl_handover_first_config(u->ho) : cfg, &u->ctx, &u->kernel);
    if (s) {
        wl_handover_free(u->ho);
        free(u);
        return s;
    }
    u->cfg.kernel = u->kernel;
    if (u->ho) wl_handover_set_first_kernel(u->ho, u->kernel);
    *out = u;
    return WL_OK;
}

void wl_universe_free(wl_universe *u) {
    if (!u) return;
    u->ops->destroy(u->ctx);
    wl_handover_free(u->ho);
    free(u);
}

const char *wl_universe_engine(const wl_universe *u) { return u->ops->name; }
const char *wl_universe_kernel(const wl_universe *u) { return u->kernel; }
const wl_config *wl_universe_config(const wl_universe *u) { return &u->cfg; }
const wl_engine_ops *wl_universe_ops(const wl_universe *u) { return u->ops; }

/* The public capability bits of engine e. */
static unsigned caps_of(const wl_engine_ops *e) {
    unsigned c = 0;
    if (e->caps & WL_CAP_TORUS) c |= WL_CAN_TORUS;
    if (e->caps & WL_CAP_BOUNDED) c |= WL_CAN_BOUNDED;
    if (e->caps & WL_CAP_PLANE) c |= WL_CAN_PLANE;
    if (e->caps & WL_CAP_ANY_RULE) c |= WL_CAN_ANY_RULE;
    if (e->caps & WL_CAP_DEVICE) c |= WL_CAN_DEVICE;
    if (e->render) c |= WL_CAN_RENDER;
    if (e->render_gl) c |= WL_CAN_RENDER_GL;
    if (e->set_cell && e->get_cell) c |= WL_CAN_CELLS;
    if (e->randomize) c |= WL_CAN_RANDOMIZE;
    if (e->timed_step) c |= WL_CAN_TIME;
    if (e->load_file || e->save_file) c |= WL_CAN_FILES;
    if (e->store_rows && e->load_rows) c |= WL_CAN_ROWS;
    if (e->caps & WL_CAP_GLUED) c |= WL_CAN_GLUED;
    if (e->caps & WL_CAP_GENERATIONS) c |= WL_CAN_GENERATIONS;
    if (e->caps & WL_CAP_LTL) c |= WL_CAN_LTL;
    if (e->caps & WL_CAP_HISTORY) c |= WL_CAN_HISTORY;
    if (e->caps & WL_CAP_SUPER) c |= WL_CAN_SUPER;
    return c;
}

unsigned wl_engine_caps(const char *engine) {
    const wl_engine_ops *e = engine ? wl_engine_find(engine) : NULL;
    return e ? caps_of(e) : 0;
}

unsigned wl_universe_caps(const wl_universe *u) { return caps_of(u->ops); }

void wl_universe_set_generation(wl_universe *u, const wl_bigint *generation) {
    u->generation = *generation;
}
void *wl_universe_ctx(const wl_universe *u) { return u->ctx; }

static void advance_counter(wl_universe *u, uint64_t n) {
    wl_bigint g;
    wl_bigint_from_u64(&g, n);
    wl_bigint_add(&u->generation, &u->generation, &g);
}

static int is_grid(const wl_universe *u) { return u->cfg.topology != WL_TOPOLOGY_PLANE; }

/* A load starts a handover over on its first engine. */
static wl_status restart(wl_universe *u) {
    if (!u->ho) return WL_OK;
    wl_status s = wl_handover_restart(u->ho, &u->ops, &u->ctx);
    sync_engine(u);
    return s;
}

wl_status wl_universe_load(wl_universe *u, const wl_pattern *p, uint64_t *dropped) {
    if (dropped) *dropped = 0;
    wl_status s = restart(u);
    if (s) return s;
    if (is_grid(u) && u->ops->load_grid) {
        wl_grid g;
        s = wl_grid_alloc_planes(&g, u->cfg.width, u->cfg.height, wl_grid_planes_for(&u->cfg.rule));
        if (s) return s;
        s = wl_grid_from_pattern(&g, p, u->cfg.topology, dropped);
        if (!s) s = u->ops->load_grid(u->ctx, &g);
        wl_grid_free(&g);
    } else if (u->ops->load_pattern) {
        s = u->ops->load_pattern(u->ctx, p);
    } else {
        s = wl_error(WL_ERR_UNSUPPORTED, "engine '%s' cannot load patterns", u->ops->name);
    }
    if (!s) wl_bigint_from_u64(&u->generation, 0);
    return s;
}

wl_status wl_universe_load_file(wl_universe *u, const char *path, uint64_t *dropped) {
    if (dropped) *dropped = 0;
    wl_status s = restart(u);
    if (s) return s;
    if (u->ops->load_file) {
        s = u->ops->load_file(u->ctx, path);
        if (s != WL_ERR_UNSUPPORTED) {
            if (!s) wl_bigint_from_u64(&u->generation, 0);
            return s;
        }
        wl_clear_error();
    }
    wl_pattern *p;
    wl_read_opts ro = {.max_memory = u->cfg.max_memory};
    if (u->ho && !ro.max_memory && strcmp(path, "-") != 0 &&
        wl_format_from_path(path, NULL) == WL_FORMAT_MACROCELL)
        ro.max_memory = WL_MACROCELL_AUTO_MAX; /* past it, HashLife reads the file */
    wl_format fmt = WL_FORMAT_AUTO;
    s = wl_pattern_read_file_opts(path, &ro, &p, &fmt);
    if (s == WL_ERR_TOO_BIG && u->ho && fmt == WL_FORMAT_MACROCELL && strcmp(path, "-") != 0) {
        /* a macrocell file too big for a pattern: HashLife reads it again, natively */
        char why[512];
        snprintf(why, sizeof why, "%s", wl_last_error());
        wl_status h = wl_handover_load_file(u->ho, &u->ops, &u->ctx, path);
        sync_engine(u);
        if (h == WL_OK) wl_bigint_from_u64(&u->generation, 0);
        if (h != WL_ERR_UNSUPPORTED) return h;
        return wl_error(s, "%s", why);
    }
    if (s) return s;
    s = wl_universe_load(u, p, dropped);
    wl_pattern_free(p);
    return s;
}

wl_status wl_universe_step(wl_universe *u, uint64_t generations) {
    if (!generations) return WL_OK;
    uint64_t done = 0;
    wl_status s;
    if (u->ho) {
        s = wl_handover_step(u->ho, &u->ops, &u->ctx, generations, &done);
        sync_engine(u);
    } else {
        s = u->ops->step(u->ctx, generations, &done);
    }
    if (s == WL_OK) done = generations;
    wl_bigint g;
    wl_bigint_from_u64(&g, done);
    wl_bigint_add(&u->generation, &u->generation, &g);
    return s;
}

void wl_universe_generation(const wl_universe *u, wl_bigint *out) { *out = u->generation; }

wl_status wl_universe_store(wl_universe *u, wl_pattern **out) {
    *out = NULL;
    if (is_grid(u) && u->ops->store_grid) {
        wl_grid g;
        wl_status s = wl_grid_alloc_planes(&g, u->cfg.width, u->cfg.height,
                                           wl_grid_planes_for(&u->cfg.rule));
        if (s) return s;
        s = u->ops->store_grid(u->ctx, &g);
        if (!s) s = wl_grid_to_pattern(&g, &u->cfg.rule, out);
        wl_grid_free(&g);
        /* The grid goes with the cells, as Golly writes it (":Tw,h", ":K30*,20", ...). */
        if (!s) {
            wl_shape sh = {u->cfg.topology, u->cfg.width, u->cfg.height, u->cfg.glue};
            wl_pattern_set_shape(*out, &sh);
        }
        return s;
    }
    if (u->ops->store_pattern) return u->ops->store_pattern(u->ctx, out);
    return wl_error(WL_ERR_UNSUPPORTED, "engine '%s' cannot store patterns", u->ops->name);
}

wl_status wl_universe_population(wl_universe *u, wl_bigint *out) {
    if (u->ops->population) return u->ops->population(u->ctx, out);
    if (is_grid(u) && u->ops->store_grid) {
        wl_grid g;
        wl_status s = wl_grid_alloc(&g, u->cfg.width, u->cfg.height);
        if (s) return s;
        s = u->ops->store_grid(u->ctx, &g);
        if (!s) wl_bigint_from_u64(out, wl_grid_population(&g));
        wl_grid_free(&g);
        return s;
    }
    wl_pattern *p;
    wl_status s = wl_universe_store(u, &p);
    if (s) return s;
    wl_bigint_from_u64(out, wl_pattern_population(p));
    wl_pattern_free(p);
    return WL_OK;
}

wl_status wl_universe_bounds(wl_universe *u, wl_bigint *xmin, wl_bigint *ymin,
                             wl_bigint *xmax, wl_bigint *ymax, int *empty) {
    if (u->ops->bounds) return u->ops->bounds(u->ctx, xmin, ymin, xmax, ymax, empty);
    wl_pattern *p;
    wl_status s = wl_universe_store(u, &p);
    if (s) return s;
    wl_rect r;
    *empty = !wl_pattern_bounds(p, &r);
    wl_pattern_free(p);
    if (*empty) r.w = r.h = 1;
    wl_bigint_from_i64(xmin, r.x);
    wl_bigint_from_i64(ymin, r.y);
    wl_bigint_from_i64(xmax, r.x + (int64_t)r.w - 1);
    wl_bigint_from_i64(ymax, r.y + (int64_t)r.h - 1);
    return WL_OK;
}

wl_status wl_universe_save_file(wl_universe *u, const char *path, wl_format fmt, int gz) {
    if (u->ops->save_file) {
        wl_status s = u->ops->save_file(u->ctx, path, fmt, gz);
        if (s != WL_ERR_UNSUPPORTED) return s;
        wl_clear_error();
    }
    wl_pattern *p;
    wl_status s = wl_universe_store(u, &p);
    if (s) return s;
    s = wl_pattern_write_file(p, path, fmt, gz);
    wl_pattern_free(p);
    return s;
}

wl_status wl_universe_set_cell(wl_universe *u, int64_t x, int64_t y, int alive) {
    if (u->ops->set_cell) return u->ops->set_cell(u->ctx, x, y, alive);
    wl_pattern *p;
    wl_status s = wl_universe_store(u, &p);
    if (s) return s;
    s = wl_pattern_set(p, x, y, alive);
    wl_bigint gen = u->generation;
    if (!s) s = wl_universe_load(u, p, NULL);
    u->generation = gen;
    wl_pattern_free(p);
    return s;
}

wl_status wl_universe_get_cell(wl_universe *u, int64_t x, int64_t y, int *alive) {
    if (u->ops->get_cell) return u->ops->get_cell(u->ctx, x, y, alive);
    wl_pattern *p;
    wl_status s = wl_universe_store(u, &p);
    if (s) return s;
    *alive = wl_pattern_get(p, x, y);
    wl_pattern_free(p);
    return WL_OK;
}

wl_status wl_universe_randomize(wl_universe *u, double density, uint64_t seed) {
    if (!is_grid(u))
        return wl_error(WL_ERR_UNSUPPORTED, "randomize: the plane has no grid to fill");
    wl_status s;
    if (u->ops->randomize) {
        s = u->ops->randomize(u->ctx, density, seed);
    } else {
        wl_pattern *p = wl_pattern_new();
        if (!p) return WL_ERR_NOMEM;
        wl_rect r = {-(int64_t)(u->cfg.width / 2), -(int64_t)(u->cfg.height / 2), u->cfg.width,
                     u->cfg.height};
        s = wl_pattern_random(p, &r, density, seed);
        if (!s) s = wl_universe_load(u, p, NULL);
        wl_pattern_free(p);
    }
    if (!s) wl_bigint_from_u64(&u->generation, 0);
    return s;
}

wl_status wl_universe_step_timed(wl_universe *u, uint64_t generations, double *seconds) {
    *seconds = 0;
    if (u->ops->timed_step && !u->ho) {
        wl_status s = u->ops->timed_step(u->ctx, generations, seconds);
        if (!s) advance_counter(u, generations);
        return s;
    }
    double t0 = wl_clock();
    wl_status s = wl_universe_step(u, generations);
    if (!s && u->ops->synchronize) s = u->ops->synchronize(u->ctx);
    *seconds = wl_clock() - t0;
    return s;
}

double wl_universe_copy_floor(wl_universe *u) {
    return u->ops->copy_floor_cups ? u->ops->copy_floor_cups(u->ctx) : 0;
}

wl_status wl_universe_render(wl_universe *u, const wl_view *v, uint32_t *rgba) {
    if (u->ops->render) return u->ops->render(u->ctx, v, rgba);
    /* Default: one snapshot (a single store), then the word-at-a-time renderer. */
    wl_snapshot *snap = NULL;
    wl_status s = wl_universe_snapshot(u, &snap);
    if (s) return s;
    s = wl_snapshot_render(snap, v, rgba);
    wl_snapshot_free(snap);
    return s;
}

wl_status wl_universe_render_gl(wl_universe *u, const wl_view *v, unsigned gl_buffer) {
    if (!u || !v) return wl_error(WL_ERR_INVALID, "wl_universe_render_gl: NULL argument");
    if (!u->ops->render_gl)
        return wl_error(WL_ERR_UNSUPPORTED, "engine '%s' has no OpenGL interop rendering",
                        u->ops->name);
    return u->ops->render_gl(u->ctx, v, gl_buffer);
}
