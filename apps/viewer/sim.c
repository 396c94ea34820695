/*
 * sim.c - the viewer's simulation thread.
 *
 * Design.  The window thread must draw 60 frames a second whatever the engine does, so it
 * never touches the universe: this thread owns it.  The window posts commands (step once,
 * edit cells, fill a rectangle, reset, load, save) into a queue; this thread applies them
 * in order, and while running advances `step` generations per published frame.  After each
 * change it takes a snapshot (one store_grid copy for grid engines, src/render) into a
 * back buffer and publishes it by swapping pointers under the lock: three snapshot buffers
 * (back here, ready in between, front in the window thread) so that neither side ever
 * copies or waits for the other's work.  While running, the thread steps one frame ahead
 * at most: it waits until the window has taken the last published snapshot, so that
 * "generations per frame" means what it says when the engine is fast, and the display
 * simply shows the newest finished state when it is slow.
 *
 * Render mode.  A HashLife universe can grow far beyond any bitmap (2^60 cells a side).
 * When its bounding box exceeds SNAPSHOT_MAX_CELLS, or a snapshot fails, and the engine
 * renders natively, this thread renders the window's current view with
 * wl_universe_render instead and publishes that image, re-rendering whenever the window
 * asks for another view.  Reset and load go back to snapshots.
 *
 * OpenGL interop (CUDA engine).  When the engine can render into an OpenGL buffer
 * (render_gl), the window thread draws the cells itself: render_gl needs the window's GL
 * context, which is current on the window thread only, and a universe that is not being
 * stepped at that moment.  So this thread marks the time it works on the universe
 * (u_busy, set in u_enter and cleared in u_leave around every command, step and publish)
 * and, between two stepping chunks (u_yield), steps aside when the window has asked
 * (gl_request): the window raises gl_request, waits until u_busy is 0 (at most one chunk,
 * CHUNK_SECONDS, and never more than GL_WAIT_SECONDS: during a long load it gives up and
 * keeps its last picture), renders with the universe to itself, reads the exact generation
 * and population, and lowers gl_request; this thread waits in u_enter while gl_request is
 * raised.  In this mode a step publishes no snapshot (that would be the host copy interop
 * avoids), only a flag (gl_fresh) that the window consumes by rendering, so that "one
 * frame ahead" works as with snapshots.  Commands that change cells (edit, fill, reset,
 * load) and sim_request_snapshot still publish a snapshot, which the window uses to fit
 * the view and to know what a click toggles.
 *
 * Long steps.  Grid engines step in chunks sized to take about CHUNK_SECONDS each, with
 * the queue and the interrupt flag checked between chunks; HashLife polls sim_poll inside
 * its own recursion, so Escape stops even one huge step.
 *
 * Edits.  Engines with a native set_cell take edits one by one; for the others all the
 * edits of a frame are applied to one stored pattern that is loaded back (one store and
 * one load per batch instead of per cell), and the generation counter is put back.
 */
#define _POSIX_C_SOURCE 200809L

#include "sim.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Target duration of one stepping chunk: long enough to amortise a call, short enough
 * that commands and Escape are answered within a frame or two. */
#define CHUNK_SECONDS 0.03

/* Largest bounding box (in cells) shown through snapshots when the engine can render
 * natively: 2^26 cells = an 8 MiB bitmap. */
#define SNAPSHOT_MAX_CELLS ((double)(1u << 26))

/* Longest the window waits for this thread to step aside before an interop render (it
 * then keeps its last picture): a few chunks, still far from a frozen window. */
#define GL_WAIT_SECONDS 0.1

typedef enum { CMD_STEP, CMD_EDIT, CMD_FILL, CMD_RESET, CMD_LOAD, CMD_SAVE } cmd_kind;

typedef struct cmd {
    cmd_kind kind;
    sim_edit *edits; /* CMD_EDIT (owned) */
    size_t n;
    wl_rect rect;    /* CMD_FILL */
    double density;
    uint64_t seed;
    char *path;      /* CMD_LOAD, CMD_SAVE (owned) */
} cmd;

struct sim {
    wl_universe *u;
    char *reload_path;
    wl_pattern *gen0; /* the state at generation 0, kept when stepping leaves it */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    /* Guarded by lock: */
    cmd *queue;
    size_t nq, capq;
    int running, quit, busy;
    uint64_t step;
    wl_snapshot *ready; /* newest published snapshot, NULL when taken */
    int fresh;          /* ready holds an untaken snapshot */
    char message[256];
    double message_time;
    int render_mode;    /* images instead of snapshots */
    wl_view req_view;   /* the view the window shows (render mode) */
    int view_changed;
    uint32_t *image;    /* newest published image (req_view at the time) */
    size_t image_cap;   /* pixels allocated in image */
    double image_bounds[4]; /* xmin, ymin, xmax, ymax of the live cells (render mode) */
    int image_empty;
    wl_view image_view;
    uint64_t image_gen, image_pop;
    unsigned long images;   /* render mode: images rendered, and seconds spent rendering */
    double image_seconds, image_max;
    int gl_mode;        /* the window renders through render_gl (interop) */
    int want_snapshot;  /* publish a snapshot even in gl_mode */
    int gl_fresh;       /* gl_mode: a step finished that the window has not rendered */
    int u_busy;         /* this thread is working on the universe */
    int gl_request;     /* the window waits to render from the universe */
    pthread_cond_t gl_cond; /* signals changes of u_busy and gl_request */
    /* Owned by the thread: */
    wl_snapshot *back;
    uint32_t *back_image;
    size_t back_cap;
};

static atomic_int g_interrupt;

int sim_poll(void *user) {
    (void)user;
    return atomic_load(&g_interrupt);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Sets the status message (lock held or not: takes it). */
static void say(sim *s, const char *fmt, const char *arg, const char *detail) {
    pthread_mutex_lock(&s->lock);
    snprintf(s->message, sizeof s->message, fmt, arg ? arg : "", detail ? detail : "");
    s->message_time = now();
    pthread_mutex_unlock(&s->lock);
    fprintf(stderr, "warplife view: %s\n", s->message);
}

/* ---- the universe between this thread and interop renders ----------------------------- */

/* Starts work on the universe, after any interop render the window asked for. */
static void u_enter(sim *s) {
    pthread_mutex_lock(&s->lock);
    while (s->gl_request) pthread_cond_wait(&s->gl_cond, &s->lock);
    s->u_busy = 1;
    pthread_mutex_unlock(&s->lock);
}

static void u_leave(sim *s) {
    pthread_mutex_lock(&s->lock);
    s->u_busy = 0;
    pthread_cond_broadcast(&s->gl_cond);
    pthread_mutex_unlock(&s->lock);
}

/* Between two chunks of work: lets a waiting interop render in. */
static void u_yield(sim *s) {
    pthread_mutex_lock(&s->lock);
    int asked = s->gl_request;
    pthread_mutex_unlock(&s->lock);
    if (asked) {
        u_leave(s);
        u_enter(s);
    }
}

/* ---- applying commands (thread side) -------------------------------------------------- */

/* Only this thread writes render_mode (under the lock, since the window reads it). */
static void set_render_mode(sim *s, int on) {
    pthread_mutex_lock(&s->lock);
    s->render_mode = on;
    pthread_mutex_unlock(&s->lock);
}

/* Keeps the generation-0 state before the first step away from it. */
static void keep_gen0(sim *s) {
    wl_bigint g;
    uint64_t g64;
    wl_universe_generation(s->u, &g);
    if (!wl_bigint_to_u64(&g, &g64) || g64 != 0) return;
    wl_pattern_free(s->gen0);
    s->gen0 = NULL;
    if (wl_universe_store(s->u, &s->gen0) != WL_OK) {
        s->gen0 = NULL;
        wl_clear_error();
    }
}

/* Advances n generations in chunks; returns 0 when interrupted or on error. */
static int advance(sim *s, uint64_t n) {
    static uint64_t chunk = 1; /* adapts to the engine's speed (one sim thread a process) */
    keep_gen0(s);
    while (n) {
        if (atomic_load(&g_interrupt)) return 0;
        uint64_t k = chunk < n ? chunk : n;
        double t0 = now();
        wl_status st = wl_universe_step(s->u, k);
        double dt = now() - t0;
        if (st == WL_ERR_INTERRUPTED) return 0;
        if (st) {
            say(s, "step failed: %s%s", wl_last_error(), NULL);
            return 0;
        }
        n -= k;
        if (dt < CHUNK_SECONDS / 2 && chunk < ((uint64_t)1 << 62)) chunk *= 2;
        else if (dt > CHUNK_SECONDS * 2 && chunk > 1) chunk /= 2;
        /* Closing the window stops a long step between chunks too. */
        pthread_mutex_lock(&s->lock);
        int stop = s->quit;
        pthread_mutex_unlock(&s->lock);
        if (stop) return 0;
        u_yield(s);
    }
    return 1;
}

/* Puts the generation counter back to g after a load reset it to 0. */
static void restore_generation(sim *s, const wl_bigint *g) { wl_universe_set_generation(s->u, g); }

/* Clears the cells of rectangle r in p (r already reserved); cell by cell, which is fast
 * enough for rectangles a person selects. */
static void clear_rect(wl_pattern *p, const wl_rect *r) {
    for (uint64_t y = 0; y < r->h; y++)
        for (uint64_t x = 0; x < r->w; x++) wl_pattern_set(p, r->x + (int64_t)x, r->y + (int64_t)y, 0);
}

/* Applies edits or a fill through one store + load. */
static void apply_batch(sim *s, const cmd *c) {
    if (c->kind == CMD_EDIT && (wl_universe_caps(s->u) & WL_CAN_CELLS)) {
        for (size_t i = 0; i < c->n; i++)
            if (wl_universe_set_cell(s->u, c->edits[i].x, c->edits[i].y, c->edits[i].alive)) {
                say(s, "edit failed: %s%s", wl_last_error(), NULL);
                return;
            }
        return;
    }
    wl_bigint g;
    wl_universe_generation(s->u, &g);
    wl_pattern *p = NULL;
    wl_status st = wl_universe_store(s->u, &p);
    if (!st && c->kind == CMD_EDIT) {
        for (size_t i = 0; i < c->n && !st; i++)
            st = wl_pattern_set(p, c->edits[i].x, c->edits[i].y, c->edits[i].alive);
    } else if (!st) {
        st = wl_pattern_reserve(p, &c->rect);
        if (!st) clear_rect(p, &c->rect);
        if (!st && c->density > 0) st = wl_pattern_random(p, &c->rect, c->density, c->seed);
    }
    uint64_t dropped = 0;
    if (!st) st = wl_universe_load(s->u, p, &dropped);
    wl_pattern_free(p);
    if (st) {
        say(s, "edit failed: %s%s", wl_last_error(), NULL);
        return;
    }
    restore_generation(s, &g);
}

static void apply(sim *s, cmd *c) {
    wl_status st;
    if (c->kind != CMD_STEP && c->kind != CMD_SAVE) {
        /* cells changed: the window needs a snapshot to edit and fit, even in gl_mode */
        pthread_mutex_lock(&s->lock);
        s->want_snapshot = 1;
        pthread_mutex_unlock(&s->lock);
    }
    switch (c->kind) {
    case CMD_STEP: advance(s, c->n); break;
    case CMD_EDIT:
    case CMD_FILL: apply_batch(s, c); break;
    case CMD_RESET:
        set_render_mode(s, 0);
        if (s->gen0) st = wl_universe_load(s->u, s->gen0, NULL);
        else if (s->reload_path) st = wl_universe_load_file(s->u, s->reload_path, NULL);
        else st = WL_OK; /* never left generation 0 */
        if (st) say(s, "reset failed: %s%s", wl_last_error(), NULL);
        break;
    case CMD_LOAD:
        set_render_mode(s, 0);
        st = wl_universe_load_file(s->u, c->path, NULL);
        if (st) {
            say(s, "cannot open %s: %s", c->path, wl_last_error());
        } else {
            wl_pattern_free(s->gen0);
            s->gen0 = NULL;
            free(s->reload_path);
            s->reload_path = strdup(c->path);
            say(s, "opened %s%s", c->path, NULL);
        }
        break;
    case CMD_SAVE:
        st = wl_universe_save_file(s->u, c->path, WL_FORMAT_AUTO, 0);
        if (st) say(s, "cannot save %s: %s", c->path, wl_last_error());
        else say(s, "saved %s%s", c->path, NULL);
        break;
    }
    free(c->edits);
    free(c->path);
}

static uint64_t saturate(const wl_bigint *b) {
    uint64_t v;
    return wl_bigint_to_u64(b, &v) ? v : UINT64_MAX;
}

/* Render mode: stores the live cells' bounds as doubles, for fitting the view (exact
 * enough for a camera). */
static void store_bounds(sim *s) {
    wl_bigint b[4];
    int empty = 1;
    double bd[4] = {0, 0, 0, 0};
    if (wl_universe_bounds(s->u, &b[0], &b[1], &b[2], &b[3], &empty) == WL_OK && !empty)
        for (int i = 0; i < 4; i++) {
            int64_t x;
            bd[i] = wl_bigint_to_i64(&b[i], &x) ? (double)x : (b[i].limb[3] >> 63 ? -1e18 : 1e18);
        }
    else
        wl_clear_error();
    pthread_mutex_lock(&s->lock);
    memcpy(s->image_bounds, bd, sizeof bd);
    s->image_empty = empty;
    pthread_mutex_unlock(&s->lock);
}

/* Render mode: renders the requested view into back_image and publishes it. */
static void publish_image(sim *s) {
    store_bounds(s);
    pthread_mutex_lock(&s->lock);
    wl_view v = s->req_view;
    s->view_changed = 0;
    pthread_mutex_unlock(&s->lock);
    if (!v.width || !v.height) return; /* the window has not asked for a view yet */
    size_t need = (size_t)v.width * v.height;
    if (need > s->back_cap) {
        uint32_t *b = realloc(s->back_image, need * sizeof *b);
        if (!b) return;
        s->back_image = b;
        s->back_cap = need;
    }
    wl_bigint g, p;
    double t0 = now();
    wl_status st = wl_universe_render(s->u, &v, s->back_image);
    double dt = now() - t0;
    if (!st) st = wl_universe_population(s->u, &p);
    if (st) {
        say(s, "cannot show the pattern: %s%s", wl_last_error(), NULL);
        return;
    }
    wl_universe_generation(s->u, &g);
    pthread_mutex_lock(&s->lock);
    uint32_t *t = s->image;
    size_t cap = s->image_cap;
    s->image = s->back_image;
    s->image_cap = s->back_cap;
    s->back_image = t;
    s->back_cap = cap;
    s->image_view = v;
    s->image_gen = saturate(&g);
    s->image_pop = saturate(&p);
    s->images++;
    s->image_seconds += dt;
    if (dt > s->image_max) s->image_max = dt;
    s->fresh = 1;
    pthread_mutex_unlock(&s->lock);
}

/* Whether the universe should be shown through images rather than snapshots. */
static int too_big_for_snapshots(sim *s) {
    if (!(wl_universe_caps(s->u) & WL_CAN_RENDER)) return 0;
    if (wl_universe_config(s->u)->topology != WL_TOPOLOGY_PLANE) return 0;
    wl_bigint x0, y0, x1, y1;
    int empty = 1;
    if (wl_universe_bounds(s->u, &x0, &y0, &x1, &y1, &empty)) {
        wl_clear_error();
        return 1;
    }
    int64_t a, b, c, d;
    if (empty) return 0;
    if (!wl_bigint_to_i64(&x0, &a) || !wl_bigint_to_i64(&y0, &b) || !wl_bigint_to_i64(&x1, &c) ||
        !wl_bigint_to_i64(&y1, &d))
        return 1;
    return ((double)c - (double)a + 1) * ((double)d - (double)b + 1) > SNAPSHOT_MAX_CELLS;
}

/* Takes a snapshot into back and publishes it (or an image in render mode); in gl_mode
 * only says that a new generation is there, unless a snapshot was asked for. */
static void publish(sim *s) {
    pthread_mutex_lock(&s->lock);
    int gl = s->gl_mode, snap = s->want_snapshot;
    s->want_snapshot = 0;
    if (gl) s->gl_fresh = 1;
    pthread_mutex_unlock(&s->lock);
    if (gl && !snap) return;
    if (!s->render_mode && too_big_for_snapshots(s)) set_render_mode(s, 1);
    if (s->render_mode) {
        publish_image(s);
        return;
    }
    wl_status st = wl_universe_snapshot(s->u, &s->back);
    if (st && (wl_universe_caps(s->u) & WL_CAN_RENDER)) {
        wl_clear_error();
        set_render_mode(s, 1);
        publish_image(s);
        return;
    }
    if (st) {
        say(s, "cannot show the pattern: %s%s", wl_last_error(), NULL);
        return;
    }
    pthread_mutex_lock(&s->lock);
    wl_snapshot *t = s->ready;
    s->ready = s->back;
    s->back = t;
    s->fresh = 1;
    pthread_mutex_unlock(&s->lock);
}

static void *thread_main(void *arg) {
    sim *s = arg;
    u_enter(s);
    publish(s);
    u_leave(s);
    pthread_mutex_lock(&s->lock);
    for (;;) {
        /* Sleep while there is nothing to do, or while running one frame ahead. */
        while (!s->quit && !s->nq && (!s->running || s->fresh || s->gl_fresh) &&
               !(s->render_mode && s->view_changed) && !s->want_snapshot) {
            s->busy = 0;
            pthread_cond_wait(&s->wake, &s->lock);
        }
        if (s->quit) break;
        s->busy = 1;
        if (s->nq) {
            cmd c = s->queue[0];
            memmove(s->queue, s->queue + 1, (s->nq - 1) * sizeof *s->queue);
            s->nq--;
            pthread_mutex_unlock(&s->lock);
            u_enter(s);
            apply(s, &c);
        } else if (!s->running || s->fresh || s->gl_fresh) {
            pthread_mutex_unlock(&s->lock); /* only the view changed: render it again */
            u_enter(s);
        } else {
            uint64_t n = s->step;
            pthread_mutex_unlock(&s->lock);
            u_enter(s);
            if (!advance(s, n)) {
                pthread_mutex_lock(&s->lock);
                if (atomic_load(&g_interrupt)) s->running = 0;
                pthread_mutex_unlock(&s->lock);
            }
        }
        atomic_store(&g_interrupt, 0);
        publish(s);
        u_leave(s);
        pthread_mutex_lock(&s->lock);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* ---- the window thread's side --------------------------------------------------------- */

static void post(sim *s, const cmd *c) {
    pthread_mutex_lock(&s->lock);
    if (s->nq == s->capq) {
        size_t cap = s->capq ? 2 * s->capq : 16;
        cmd *q = realloc(s->queue, cap * sizeof *q);
        if (!q) {
            pthread_mutex_unlock(&s->lock);
            free(c->edits);
            free(c->path);
            return;
        }
        s->queue = q;
        s->capq = cap;
    }
    s->queue[s->nq++] = *c;
    s->busy = 1;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
}

sim *sim_start(wl_universe *u, const char *reload_path, uint64_t step, int running) {
    sim *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->u = u;
    s->reload_path = reload_path ? strdup(reload_path) : NULL;
    s->step = step ? step : 1;
    s->running = running;
    s->busy = 1;
    s->want_snapshot = 1; /* the first publication is a snapshot, whatever the mode */
    atomic_store(&g_interrupt, 0);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->wake, NULL);
    pthread_cond_init(&s->gl_cond, NULL);
    if (pthread_create(&s->thread, NULL, thread_main, s) != 0) {
        pthread_mutex_destroy(&s->lock);
        pthread_cond_destroy(&s->wake);
        pthread_cond_destroy(&s->gl_cond);
        free(s->reload_path);
        free(s);
        return NULL;
    }
    return s;
}

void sim_stop(sim *s) {
    if (!s) return;
    pthread_mutex_lock(&s->lock);
    s->quit = 1;
    atomic_store(&g_interrupt, 1);
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    for (size_t i = 0; i < s->nq; i++) {
        free(s->queue[i].edits);
        free(s->queue[i].path);
    }
    free(s->queue);
    wl_snapshot_free(s->ready);
    wl_snapshot_free(s->back);
    free(s->image);
    free(s->back_image);
    wl_pattern_free(s->gen0);
    wl_universe_free(s->u);
    free(s->reload_path);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->wake);
    pthread_cond_destroy(&s->gl_cond);
    free(s);
}

void sim_set_running(sim *s, int running) {
    pthread_mutex_lock(&s->lock);
    s->running = running;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
}

int sim_running(sim *s) {
    pthread_mutex_lock(&s->lock);
    int r = s->running;
    pthread_mutex_unlock(&s->lock);
    return r;
}

void sim_set_step(sim *s, uint64_t step) {
    pthread_mutex_lock(&s->lock);
    s->step = step ? step : 1;
    pthread_mutex_unlock(&s->lock);
}

uint64_t sim_step_size(sim *s) {
    pthread_mutex_lock(&s->lock);
    uint64_t n = s->step;
    pthread_mutex_unlock(&s->lock);
    return n;
}

void sim_step_once(sim *s) {
    cmd c = {.kind = CMD_STEP, .n = sim_step_size(s)};
    post(s, &c);
}

void sim_reset(sim *s) {
    sim_set_running(s, 0);
    cmd c = {.kind = CMD_RESET};
    post(s, &c);
}

void sim_edit_cells(sim *s, const sim_edit *e, size_t n) {
    if (!n) return;
    cmd c = {.kind = CMD_EDIT, .n = n, .edits = malloc(n * sizeof *e)};
    if (!c.edits) return;
    memcpy(c.edits, e, n * sizeof *e);
    post(s, &c);
}

void sim_fill(sim *s, const wl_rect *r, double density, uint64_t seed) {
    cmd c = {.kind = CMD_FILL, .rect = *r, .density = density, .seed = seed};
    post(s, &c);
}

void sim_load(sim *s, const char *path) {
    sim_set_running(s, 0);
    cmd c = {.kind = CMD_LOAD, .path = strdup(path)};
    if (c.path) post(s, &c);
}

void sim_save(sim *s, const char *path) {
    cmd c = {.kind = CMD_SAVE, .path = strdup(path)};
    if (c.path) post(s, &c);
}

void sim_interrupt(sim *s) {
    pthread_mutex_lock(&s->lock);
    s->running = 0;
    atomic_store(&g_interrupt, 1);
    pthread_mutex_unlock(&s->lock);
}

int sim_take_snapshot(sim *s, wl_snapshot **snap) {
    pthread_mutex_lock(&s->lock);
    int got = s->fresh && !s->render_mode && s->ready;
    if (got) {
        wl_snapshot *t = s->ready;
        s->ready = *snap;
        *snap = t;
        s->fresh = 0;
        pthread_cond_signal(&s->wake);
    }
    pthread_mutex_unlock(&s->lock);
    return got;
}

int sim_busy(sim *s) {
    pthread_mutex_lock(&s->lock);
    int b = s->busy || s->nq || s->fresh || s->gl_fresh || s->want_snapshot;
    pthread_mutex_unlock(&s->lock);
    return b;
}

double sim_message(sim *s, char *buf, size_t len) {
    pthread_mutex_lock(&s->lock);
    snprintf(buf, len, "%s", s->message);
    double age = s->message[0] ? now() - s->message_time : 1e9;
    pthread_mutex_unlock(&s->lock);
    return age;
}

const wl_config *sim_config(sim *s) { return wl_universe_config(s->u); }
const char *sim_engine(sim *s) { return wl_universe_engine(s->u); }
const char *sim_kernel(sim *s) { return wl_universe_kernel(s->u); }

int sim_render_mode(sim *s) {
    pthread_mutex_lock(&s->lock);
    int r = s->render_mode;
    pthread_mutex_unlock(&s->lock);
    return r;
}

void sim_request_view(sim *s, const wl_view *view) {
    pthread_mutex_lock(&s->lock);
    if (memcmp(&s->req_view, view, sizeof *view) != 0) {
        s->req_view = *view;
        s->view_changed = 1;
        if (s->render_mode) pthread_cond_signal(&s->wake);
    }
    pthread_mutex_unlock(&s->lock);
}

int sim_take_image(sim *s, uint32_t **rgba, wl_view *view, uint64_t *gen, uint64_t *pop) {
    pthread_mutex_lock(&s->lock);
    int got = s->fresh && s->render_mode && s->image;
    if (got) {
        uint32_t *t = s->image;
        s->image = *rgba;
        s->image_cap = 0; /* unknown: the window's old buffer is reallocated when needed */
        *rgba = t;
        *view = s->image_view;
        *gen = s->image_gen;
        *pop = s->image_pop;
        s->fresh = 0;
        pthread_cond_signal(&s->wake);
    }
    pthread_mutex_unlock(&s->lock);
    return got;
}

int sim_image_bounds(sim *s, double b[4]) {
    pthread_mutex_lock(&s->lock);
    memcpy(b, s->image_bounds, sizeof s->image_bounds);
    int any = !s->image_empty;
    pthread_mutex_unlock(&s->lock);
    return any;
}

/* ---- OpenGL interop (window thread) ----------------------------------------------------- */

int sim_can_render_gl(sim *s) { return (wl_universe_caps(s->u) & WL_CAN_RENDER_GL) != 0; }

void sim_set_gl_mode(sim *s, int on) {
    pthread_mutex_lock(&s->lock);
    s->gl_mode = on;
    if (!on) {
        s->gl_fresh = 0;
        s->want_snapshot = 1; /* back to snapshots: publish one now */
        pthread_cond_signal(&s->wake);
    }
    pthread_mutex_unlock(&s->lock);
}

void sim_request_snapshot(sim *s) {
    pthread_mutex_lock(&s->lock);
    s->want_snapshot = 1;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
}

int sim_gl_fresh(sim *s) {
    pthread_mutex_lock(&s->lock);
    int f = s->gl_fresh;
    pthread_mutex_unlock(&s->lock);
    return f;
}

int sim_render_gl(sim *s, const wl_view *view, unsigned pbo, wl_status *status, uint64_t *gen,
                  uint64_t *pop, int *new_gen) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_nsec += (long)(GL_WAIT_SECONDS * 1e9);
    deadline.tv_sec += deadline.tv_nsec / 1000000000L;
    deadline.tv_nsec %= 1000000000L;
    pthread_mutex_lock(&s->lock);
    s->gl_request++;
    int err = 0;
    while (s->u_busy && err != ETIMEDOUT)
        err = pthread_cond_timedwait(&s->gl_cond, &s->lock, &deadline);
    if (s->u_busy) { /* still busy (a load, a long step): keep the last picture */
        s->gl_request--;
        pthread_cond_broadcast(&s->gl_cond);
        pthread_mutex_unlock(&s->lock);
        return 0;
    }
    *new_gen = s->gl_fresh;
    s->gl_fresh = 0;
    pthread_mutex_unlock(&s->lock);
    /* The universe is ours until gl_request drops: render, and read what it shows. */
    wl_bigint g, p;
    *status = wl_universe_render_gl(s->u, view, pbo);
    wl_universe_generation(s->u, &g);
    *gen = saturate(&g);
    *pop = wl_universe_population(s->u, &p) == WL_OK ? saturate(&p) : 0;
    pthread_mutex_lock(&s->lock);
    s->gl_request--;
    pthread_cond_broadcast(&s->gl_cond);
    pthread_cond_signal(&s->wake); /* running: the next step may start */
    pthread_mutex_unlock(&s->lock);
    return 1;
}

unsigned long sim_render_stats(sim *s, double *seconds, double *max) {
    pthread_mutex_lock(&s->lock);
    unsigned long n = s->images;
    *seconds = s->image_seconds;
    *max = s->image_max;
    pthread_mutex_unlock(&s->lock);
    return n;
}
