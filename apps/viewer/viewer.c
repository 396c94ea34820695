/*
 * viewer.c - the window: SDL2 events in, one OpenGL textured quad out, every frame.
 *
 * Per frame: handle events (pan, zoom, edit, keys, dropped files, scripted input), take
 * the newest snapshot the simulation thread published (sim.c; the window never touches
 * the universe), render the visible cells into an RGBA buffer with the word-at-a-time
 * renderer (wl_snapshot_render), draw the overlays (overlay.c) into the same buffer, and
 * upload it with glTexSubImage2D into one texture drawn as a full-window quad (OpenGL 2.1
 * compatibility profile, fixed function; software Mesa is fine).  Rendering costs the
 * visible pixels, not the universe.  A frame is redrawn only when something changed
 * (or every frame in benchmark mode), so an idle viewer sleeps.
 *
 * Sub-cell panning: zoomed in, the view is rendered one cell larger than the window from
 * the whole cell under the top-left corner, and the window's pixels are copied out at
 * the fractional offset, so that dragging moves the picture pixel by pixel.
 *
 * CUDA-OpenGL interop.  When the engine renders into OpenGL buffers (the CUDA engine's
 * render_gl), the cells go from the engine into a pixel buffer object and from there into
 * the cell texture without passing through host memory, and only the overlays are uploaded
 * and blended over them (interop.c; sim.c says how the simulation thread steps aside for
 * the render).  WL_VIEW_NO_INTEROP=1 asks for the upload path.
 */
#define _POSIX_C_SOURCE 200809L

#include "script.h"
#include "view_state.h"

#include <SDL.h>
#include <SDL_opengl.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PAD 64 /* scratch margin: one cell at ZOOM_MAX */
#define IDLE_WAIT_MS 15
#define EXIT_WAIT_SECONDS 30.0 /* at exit, how long to wait for queued work to finish */

double cam_scale(const camera *c) { return ldexp(1.0, c->zoom); }

void cam_cell_at(const camera *c, double px, double py, int64_t *x, int64_t *y) {
    double s = cam_scale(c);
    *x = (int64_t)floor(c->x + px / s);
    *y = (int64_t)floor(c->y + py / s);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Zoomed out, puts the window's corner on a whole pixel of the zoom's pixel grid: a
 * multiple of 2^-zoom cells.  Every quadtree node no bigger than a pixel then lies inside
 * one pixel, so an engine that renders from its tree (HashLife) stops at the pixel's level
 * instead of splitting every node that straddles a pixel edge down to single cells (which
 * made a dense HashLife universe take minutes per view); panning moves whole pixels. */
static void snap_to_pixels(camera *c) {
    if (c->zoom >= 0) return;
    double n = ldexp(1.0, -c->zoom);
    c->x = floor(c->x / n) * n;
    c->y = floor(c->y / n) * n;
}

/* Sets the zoom, keeping the cell under pixel (px, py) in place. */
static void zoom_at(viewer *v, int zoom, double px, double py) {
    if (zoom > ZOOM_MAX) zoom = ZOOM_MAX;
    if (zoom < ZOOM_MIN) zoom = ZOOM_MIN;
    double s0 = cam_scale(&v->cam);
    double cx = v->cam.x + px / s0, cy = v->cam.y + py / s0;
    v->cam.zoom = zoom;
    double s1 = cam_scale(&v->cam);
    v->cam.x = cx - px / s1;
    v->cam.y = cy - py / s1;
    snap_to_pixels(&v->cam); /* whole pixels at the corner when zoomed out */
    v->dirty = 1;
}

static void center_on(viewer *v, double cx, double cy) {
    double s = cam_scale(&v->cam);
    v->cam.x = cx - v->w / 2.0 / s;
    v->cam.y = cy - v->h / 2.0 / s;
    snap_to_pixels(&v->cam);
    v->dirty = 1;
}

/* Zooms and centres so that the live cells fit in the window. */
static void fit(viewer *v) {
    double x0 = 0, y0 = 0, w = 1, h = 1; /* bounding box, as doubles */
    wl_rect r;
    double b[4];
    if (sim_render_mode(v->sim)) {
        if (sim_image_bounds(v->sim, b)) {
            x0 = b[0];
            y0 = b[1];
            w = b[2] - b[0] + 1;
            h = b[3] - b[1] + 1;
        }
    } else if (v->snap && wl_snapshot_bounds(v->snap, &r)) {
        x0 = (double)r.x;
        y0 = (double)r.y;
        w = (double)r.w;
        h = (double)r.h;
    }
    int z = ZOOM_MAX;
    while (z > ZOOM_MIN && (ldexp(w, z) > v->w * 0.9 || ldexp(h, z) > (v->h - 40) * 0.9)) z--;
    v->cam.zoom = z;
    center_on(v, x0 + w / 2.0, y0 + h / 2.0);
}

/* ---- drawing -------------------------------------------------------------------------- */

static int resize_buffers(viewer *v, uint32_t w, uint32_t h) {
    uint32_t *s = malloc((size_t)w * h * 4), *t = malloc((size_t)(w + PAD) * (h + PAD) * 4);
    if (!s || !t) {
        free(s);
        free(t);
        return -1;
    }
    free(v->screen);
    free(v->scratch);
    v->screen = s;
    v->scratch = t;
    v->w = w;
    v->h = h;
    glViewport(0, 0, (GLsizei)w, (GLsizei)h);
    glBindTexture(GL_TEXTURE_2D, v->cell_tex);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, (GLsizei)w, (GLsizei)h, 0, GL_RGBA,
                 GL_UNSIGNED_BYTE, NULL);
    if (v->gl_mode) {
        glBindTexture(GL_TEXTURE_2D, v->overlay_tex);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, (GLsizei)w, (GLsizei)h, 0, GL_RGBA,
                     GL_UNSIGNED_BYTE, NULL);
    }
    v->ov_y0 = 0; /* the new screen buffer is cleared and uploaded whole (interop) */
    v->ov_y1 = (int)h;
    v->dirty = 1;
    return 0;
}

/* The view to render for the current camera: the window itself when zoomed out, one
 * cell more each way when zoomed in (for sub-cell panning: *ox, *oy are the pixels to
 * skip at the top-left). */
void make_view(const viewer *v, wl_view *view, uint32_t *ox, uint32_t *oy) {
    memset(view, 0, sizeof *view);
    view->zoom = v->cam.zoom;
    view->alive = COL_ALIVE;
    view->dead = COL_DEAD;
    double fx = floor(v->cam.x), fy = floor(v->cam.y);
    view->x = (int64_t)fx;
    view->y = (int64_t)fy;
    *ox = *oy = 0;
    view->width = v->w;
    view->height = v->h;
    if (v->cam.zoom > 0) {
        int s = 1 << v->cam.zoom;
        *ox = (uint32_t)((v->cam.x - fx) * s);
        *oy = (uint32_t)((v->cam.y - fy) * s);
        view->width += (uint32_t)s;
        view->height += (uint32_t)s;
    }
}

/* Copies the window's part of a rendered view (src, sw x sh) at offset (ox, oy). */
static void blit(viewer *v, const uint32_t *src, uint32_t sw, uint32_t sh, uint32_t ox,
                 uint32_t oy) {
    for (uint32_t y = 0; y < v->h; y++) {
        uint32_t *dst = v->screen + (size_t)y * v->w;
        uint32_t n = 0;
        if (y + oy < sh && ox < sw) {
            n = sw - ox < v->w ? sw - ox : v->w;
            memcpy(dst, src + (size_t)(y + oy) * sw + ox, (size_t)n * 4);
        }
        for (uint32_t x = n; x < v->w; x++) dst[x] = COL_DEAD;
    }
}

/* Render mode: shows the newest image the simulation thread made (of the view asked for
 * then; while the camera moves it lags by a frame or so). */
static void render_image(viewer *v) {
    wl_view want;
    uint32_t ox, oy;
    make_view(v, &want, &ox, &oy);
    sim_request_view(v->sim, &want);
    if (!v->image) {
        blit(v, NULL, 0, 0, 0, 0);
        return;
    }
    blit(v, v->image, v->image_view.width, v->image_view.height, ox, oy);
}

/* Renders the cells of the current snapshot into v->screen. */
static void render_cells(viewer *v) {
    if (v->gl_mode) {
        interop_render_cells(v);
        if (v->gl_mode) return; /* else interop failed just now: snapshots from here on */
    }
    if (sim_render_mode(v->sim)) {
        render_image(v);
        return;
    }
    if (!v->snap) {
        for (size_t i = 0; i < (size_t)v->w * v->h; i++) v->screen[i] = COL_DEAD;
        return;
    }
    wl_view view;
    uint32_t ox, oy;
    make_view(v, &view, &ox, &oy);
    uint32_t *dst = (ox | oy || view.width != v->w) ? v->scratch : v->screen;
    /* multi-state rules: a colour for each state (Golly's defaults) */
    static uint32_t palette[WL_STATES_MAX];
    static unsigned pal_states;
    static wl_family pal_family;
    unsigned states = wl_snapshot_states(v->snap);
    wl_status st;
    if (states > 2) {
        if (states != pal_states || wl_snapshot_family(v->snap) != pal_family) {
            pal_states = states;
            pal_family = wl_snapshot_family(v->snap);
            wl_palette_default(pal_family, states, COL_ALIVE, COL_DEAD, palette);
        }
        st = wl_snapshot_render_palette(v->snap, &view, palette, dst);
    } else {
        st = wl_snapshot_render(v->snap, &view, dst);
    }
    if (st) {
        fprintf(stderr, "warplife view: %s\n", wl_last_error());
        return;
    }
    if (dst == v->scratch) blit(v, v->scratch, view.width, view.height, ox, oy);
}

/* One full-window textured quad with the bound texture. */
static void quad(void) {
    glBegin(GL_QUADS); /* texture row 0 is the top of the window */
    glTexCoord2f(0, 1);
    glVertex2f(-1, -1);
    glTexCoord2f(1, 1);
    glVertex2f(1, -1);
    glTexCoord2f(1, 0);
    glVertex2f(1, 1);
    glTexCoord2f(0, 0);
    glVertex2f(-1, 1);
    glEnd();
}

static void present(viewer *v) {
    glClear(GL_COLOR_BUFFER_BIT);
    glBindTexture(GL_TEXTURE_2D, v->cell_tex);
    if (!v->gl_mode) {
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, (GLsizei)v->w, (GLsizei)v->h, GL_RGBA,
                        GL_UNSIGNED_BYTE, v->screen);
        quad();
        return;
    }
    quad(); /* the cells, filled from the PBO in interop_render_cells */
    glBindTexture(GL_TEXTURE_2D, v->overlay_tex);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    quad();
    glDisable(GL_BLEND);
}

/* Reads the window back (what OpenGL drew) and writes it as an image. */
static int screenshot(viewer *v, const char *path) {
    uint32_t *px = malloc((size_t)v->w * v->h * 4), *flip = malloc((size_t)v->w * v->h * 4);
    int rc = -1;
    if (px && flip) {
        glPixelStorei(GL_PACK_ALIGNMENT, 1);
        glReadBuffer(GL_BACK);
        glReadPixels(0, 0, (GLsizei)v->w, (GLsizei)v->h, GL_RGBA, GL_UNSIGNED_BYTE, px);
        for (uint32_t y = 0; y < v->h; y++) /* OpenGL rows go bottom-up */
            memcpy(flip + (size_t)y * v->w, px + (size_t)(v->h - 1 - y) * v->w, (size_t)v->w * 4);
        for (size_t i = 0; i < (size_t)v->w * v->h; i++) flip[i] |= 0xff000000u;
        wl_status s = wl_image_write(path, flip, v->w, v->h);
        if (s) fprintf(stderr, "warplife view: screenshot %s: %s\n", path, wl_last_error());
        else {
            fprintf(stderr, "warplife view: screenshot written to %s\n", path);
            rc = 0;
        }
    }
    free(px);
    free(flip);
    return rc;
}

/* ---- input ---------------------------------------------------------------------------- */

typedef struct input {
    int drawing, selecting, panning;
    int draw_value;
    int64_t last_x, last_y;   /* last cell drawn */
    int64_t sel_x, sel_y;     /* selection anchor */
    int mouse_x, mouse_y;
    sim_edit *edits;          /* this frame's edits */
    size_t nedits, capedits;
    int screenshot_request;
} input;

static void add_edit(viewer *v, input *in, int64_t x, int64_t y) {
    if (in->nedits == in->capedits) {
        size_t cap = in->capedits ? 2 * in->capedits : 64;
        sim_edit *e = realloc(in->edits, cap * sizeof *e);
        if (!e) return;
        in->edits = e;
        in->capedits = cap;
    }
    in->edits[in->nedits++] = (sim_edit){x, y, in->draw_value};
    v->dirty = 1;
}

/* Draws the cells on the line from the last drawn cell to (x, y). */
static void draw_line(viewer *v, input *in, int64_t x, int64_t y) {
    int64_t dx = llabs(x - in->last_x), dy = -llabs(y - in->last_y);
    int64_t sx = in->last_x < x ? 1 : -1, sy = in->last_y < y ? 1 : -1, err = dx + dy;
    int64_t cx = in->last_x, cy = in->last_y;
    for (int guard = 0; guard < 100000; guard++) {
        if (cx != in->last_x || cy != in->last_y) add_edit(v, in, cx, cy);
        if (cx == x && cy == y) break;
        int64_t e2 = 2 * err;
        if (e2 >= dy) { err += dy; cx += sx; }
        if (e2 <= dx) { err += dx; cy += sy; }
    }
    in->last_x = x;
    in->last_y = y;
}

static void update_selection(viewer *v, input *in, int64_t x, int64_t y) {
    int64_t x0 = in->sel_x < x ? in->sel_x : x, x1 = in->sel_x < x ? x : in->sel_x;
    int64_t y0 = in->sel_y < y ? in->sel_y : y, y1 = in->sel_y < y ? y : in->sel_y;
    v->selection = (wl_rect){x0, y0, (uint64_t)(x1 - x0 + 1), (uint64_t)(y1 - y0 + 1)};
    v->have_selection = 1;
    v->dirty = 1;
}

static void auto_name(char *buf, size_t len, const char *prefix, const char *ext,
                      uint64_t gen) {
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    snprintf(buf, len, "%s-gen%llu-%04d%02d%02d-%02d%02d%02d.%s", prefix,
             (unsigned long long)gen, tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
             tm.tm_hour, tm.tm_min, tm.tm_sec, ext);
}

static void key_down(viewer *v, input *in, const SDL_Keysym *k) {
    double pan = 0.125; /* arrow keys move an eighth of the window */
    double s = cam_scale(&v->cam);
    v->dirty = 1;
    switch (k->sym) {
    case SDLK_SPACE: sim_set_running(v->sim, !sim_running(v->sim)); break;
    case SDLK_n: sim_set_running(v->sim, 0); sim_step_once(v->sim); break;
    case SDLK_PLUS: case SDLK_EQUALS: case SDLK_KP_PLUS: {
        uint64_t st = sim_step_size(v->sim);
        if (st < ((uint64_t)1 << 62)) sim_set_step(v->sim, st * 2);
        break;
    }
    case SDLK_MINUS: case SDLK_KP_MINUS: sim_set_step(v->sim, sim_step_size(v->sim) / 2); break;
    case SDLK_r: sim_reset(v->sim); break;
    case SDLK_f:
        if (v->gl_mode) { /* fit to a fresh snapshot, which interop does not keep */
            sim_request_snapshot(v->sim);
            v->dirty = 2;
        } else {
            fit(v);
        }
        break;
    case SDLK_LEFTBRACKET: zoom_at(v, v->cam.zoom - 1, v->w / 2.0, v->h / 2.0); break;
    case SDLK_RIGHTBRACKET: zoom_at(v, v->cam.zoom + 1, v->w / 2.0, v->h / 2.0); break;
    case SDLK_LEFT: v->cam.x -= floor(v->w * pan) / s; break;
    case SDLK_RIGHT: v->cam.x += floor(v->w * pan) / s; break;
    case SDLK_UP: v->cam.y -= floor(v->h * pan) / s; break;
    case SDLK_DOWN: v->cam.y += floor(v->h * pan) / s; break;
    case SDLK_g: v->show_plot = !v->show_plot; break;
    case SDLK_h: v->show_help = !v->show_help; break;
    case SDLK_p: in->screenshot_request = 1; break;
    case SDLK_s: {
        char name[128];
        int mc = strcmp(sim_engine(v->sim), "hashlife") == 0;
        auto_name(name, sizeof name, "warplife", mc ? "mc" : "rle", v->generation);
        sim_save(v->sim, name);
        break;
    }
    case SDLK_u:
        if (v->have_selection) sim_fill(v->sim, &v->selection, 0.5, v->opt->seed + v->generation);
        break;
    case SDLK_DELETE: case SDLK_BACKSPACE:
        if (v->have_selection) sim_fill(v->sim, &v->selection, 0.0, 0);
        break;
    case SDLK_ESCAPE:
        sim_interrupt(v->sim);
        v->have_selection = 0;
        break;
    case SDLK_q: v->quit = 1; break;
    default: break;
    }
    snap_to_pixels(&v->cam);
}

static void handle_event(viewer *v, input *in, const SDL_Event *e) {
    int64_t cx, cy;
    switch (e->type) {
    case SDL_QUIT: v->quit = 1; sim_interrupt(v->sim); break;
    case SDL_WINDOWEVENT:
        if (e->window.event == SDL_WINDOWEVENT_SIZE_CHANGED && e->window.data1 > 0 && e->window.data2 > 0)
            resize_buffers(v, (uint32_t)e->window.data1, (uint32_t)e->window.data2);
        v->dirty = 1;
        break;
    case SDL_KEYDOWN: key_down(v, in, &e->key.keysym); break;
    case SDL_DROPFILE:
        sim_load(v->sim, e->drop.file);
        SDL_free(e->drop.file);
        v->dirty = 2; /* fit once the new pattern arrives */
        break;
    case SDL_MOUSEWHEEL:
        zoom_at(v, v->cam.zoom + (e->wheel.y > 0 ? 1 : e->wheel.y < 0 ? -1 : 0), in->mouse_x, in->mouse_y);
        break;
    case SDL_MOUSEBUTTONDOWN:
        in->mouse_x = e->button.x;
        in->mouse_y = e->button.y;
        cam_cell_at(&v->cam, e->button.x + 0.5, e->button.y + 0.5, &cx, &cy);
        if (e->button.button == SDL_BUTTON_LEFT && (SDL_GetModState() & KMOD_SHIFT)) {
            in->selecting = 1;
            in->sel_x = cx;
            in->sel_y = cy;
            update_selection(v, in, cx, cy);
        } else if (e->button.button == SDL_BUTTON_LEFT && !(SDL_GetModState() & KMOD_CTRL)) {
            in->drawing = 1;
            in->draw_value = v->snap ? !wl_snapshot_get(v->snap, cx, cy) : 1;
            in->last_x = cx;
            in->last_y = cy;
            add_edit(v, in, cx, cy);
        } else {
            in->panning = 1;
        }
        break;
    case SDL_MOUSEMOTION:
        in->mouse_x = e->motion.x;
        in->mouse_y = e->motion.y;
        cam_cell_at(&v->cam, e->motion.x + 0.5, e->motion.y + 0.5, &cx, &cy);
        if (in->panning) {
            double s = cam_scale(&v->cam);
            v->cam.x -= e->motion.xrel / s;
            v->cam.y -= e->motion.yrel / s;
            v->dirty = 1;
        } else if (in->drawing) {
            draw_line(v, in, cx, cy);
        } else if (in->selecting) {
            update_selection(v, in, cx, cy);
        }
        break;
    case SDL_MOUSEBUTTONUP: in->drawing = in->selecting = in->panning = 0; break;
    default: break;
    }
}

/* ---- the loop ------------------------------------------------------------------------- */

void record_history(viewer *v) {
    if (!v->hist_n || v->hist_gen[(v->hist_head + HISTORY - 1) % HISTORY] != v->generation) {
        if (v->hist_n && v->generation < v->hist_gen[(v->hist_head + HISTORY - 1) % HISTORY])
            v->hist_n = 0; /* reset: start the plot again */
        v->hist_gen[v->hist_head] = v->generation;
        v->hist_pop[v->hist_head] = v->population;
        v->hist_head = (v->hist_head + 1) % HISTORY;
        if (v->hist_n < HISTORY) v->hist_n++;
    }
}

static void take_snapshot(viewer *v) {
    if (sim_take_image(v->sim, &v->image, &v->image_view, &v->generation, &v->population)) {
        /* render mode: generation and population came with the image */
    } else if (sim_take_snapshot(v->sim, &v->snap) && v->snap) {
        wl_bigint g;
        wl_snapshot_generation(v->snap, &g);
        if (!wl_bigint_to_u64(&g, &v->generation)) v->generation = UINT64_MAX;
        v->population = wl_snapshot_population(v->snap);
    } else {
        if (v->gl_mode && sim_gl_fresh(v->sim)) v->dirty = v->dirty ? v->dirty : 1;
        return;
    }
    record_history(v);
    if (v->dirty == 2) {
        fit(v);
        v->dirty = 1;
    }
    v->dirty = v->dirty ? v->dirty : 1;
}

static void print_result(viewer *v) {
    printf("generation %llu population %llu\n", (unsigned long long)v->generation,
           (unsigned long long)v->population);
}

int wl_viewer_run(const wl_viewer_options *o, wl_universe *u) {
    /* Without a display SDL falls back to its "offscreen" or "dummy" drivers, where a
     * window would silently show nothing: refuse unless SDL_VIDEODRIVER asked for one. */
    const char *asked = getenv("SDL_VIDEODRIVER");
    int ok = SDL_Init(SDL_INIT_VIDEO) == 0;
    const char *drv = ok ? SDL_GetCurrentVideoDriver() : NULL;
    char why[256];
    snprintf(why, sizeof why, "%s", ok ? "" : SDL_GetError());
    if (ok && drv && (strcmp(drv, "offscreen") == 0 || strcmp(drv, "dummy") == 0) &&
        !(asked && strcmp(asked, drv) == 0)) {
        snprintf(why, sizeof why, "no display found (SDL fell back to its '%s' driver)", drv);
        SDL_Quit();
        ok = 0;
    }
    if (!ok) {
        fprintf(stderr,
                "warplife: cannot open a window: %s; set DISPLAY, run under xvfb-run, or use "
                "--screenshot FILE for off-screen rendering\n",
                why);
        wl_universe_free(u);
        return 3;
    }
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 2);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 1);
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
    SDL_EventState(SDL_DROPFILE, SDL_ENABLE);
    SDL_Window *win = SDL_CreateWindow("warplife", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED,
                                       (int)o->width, (int)o->height,
                                       SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE);
    SDL_GLContext gl = win ? SDL_GL_CreateContext(win) : NULL;
    if (!gl) {
        fprintf(stderr, "warplife: cannot open an OpenGL window: %s\n", SDL_GetError());
        if (win) SDL_DestroyWindow(win);
        SDL_Quit();
        wl_universe_free(u);
        return 3;
    }
    SDL_GL_SetSwapInterval(o->vsync ? 1 : 0);

    viewer v;
    memset(&v, 0, sizeof v);
    v.opt = o;
    v.sim = sim_start(u, o->pattern_path, o->step, 0);
    input in;
    memset(&in, 0, sizeof in);
    script sc;
    script_init(&sc, o->script);
    int rc = 0;
    GLuint tex;
    glEnable(GL_TEXTURE_2D);
    glGenTextures(1, &tex);
    v.cell_tex = tex;
    v.bg = COL_DEAD;
    interop_texture_setup(tex);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    int ww, wh;
    SDL_GL_GetDrawableSize(win, &ww, &wh);
    if (!v.sim || resize_buffers(&v, (uint32_t)ww, (uint32_t)wh)) {
        fprintf(stderr, "warplife: out of memory starting the viewer\n");
        if (v.sim) sim_stop(v.sim);
        else wl_universe_free(u);
        rc = 3;
        goto done;
    }
    /* The first snapshot decides the initial camera. */
    while (!v.snap && !v.image && sim_busy(v.sim)) {
        take_snapshot(&v);
        SDL_Delay(1);
    }
    fit(&v);
    if (o->zoom_given) v.cam.zoom = o->zoom < ZOOM_MIN ? ZOOM_MIN : o->zoom > ZOOM_MAX ? ZOOM_MAX : o->zoom;
    if (o->center_given || o->zoom_given) {
        wl_rect r = {0, 0, 1, 1};
        if (!o->center_given && v.snap) wl_snapshot_bounds(v.snap, &r);
        center_on(&v, o->center_given ? (double)o->cx + 0.5 : (double)r.x + (double)r.w / 2.0,
                  o->center_given ? (double)o->cy + 0.5 : (double)r.y + (double)r.h / 2.0);
    }
    interop_start(&v);
    if (o->run) sim_set_running(v.sim, 1);

    double t_start = now(), t_rate = t_start;
    uint64_t frames = 0, frames_rate = 0, gen_rate = v.generation;
    int bench = o->frames > 0;
    double prof[4] = {0, 0, 0, 0}; /* seconds in: cells, overlays, upload+draw, swap */
    while (!v.quit) {
        SDL_Event e;
        int had_event = 0;
        while (SDL_PollEvent(&e)) {
            handle_event(&v, &in, &e);
            had_event = 1;
        }
        if (in.nedits) {
            /* Show the edits at once; the engine applies them in order. */
            sim_edit_cells(v.sim, in.edits, in.nedits);
            in.nedits = 0;
        }
        if (sc.active && script_feed(&sc, &v)) {
            if (!sc.active && !bench) v.quit = 1; /* the script is over */
        }
        take_snapshot(&v);
        if (in.screenshot_request) v.dirty = 1;
        if (!v.dirty && !bench && !had_event && !sc.active) {
            SDL_WaitEventTimeout(NULL, IDLE_WAIT_MS);
            continue;
        }
        double t0 = now();
        render_cells(&v);
        double t1 = now();
        interop_overlays(&v);
        double t2 = now();
        present(&v);
        double t3 = now();
        prof[0] += t1 - t0;
        prof[1] += t2 - t1;
        prof[2] += t3 - t2;
        if (in.screenshot_request) {
            char name[128];
#ifdef WL_HAVE_PNG
            auto_name(name, sizeof name, "warplife", "png", v.generation);
#else
            auto_name(name, sizeof name, "warplife", "ppm", v.generation);
#endif
            screenshot(&v, name);
            in.screenshot_request = 0;
        }
        double t4 = now();
        SDL_GL_SwapWindow(win);
        prof[3] += now() - t4;
        v.dirty = 0;
        frames++;
        frames_rate++;
        double t = now();
        if (t - t_rate >= 0.5) {
            v.fps = frames_rate / (t - t_rate);
            v.gens_per_s = (double)(v.generation - gen_rate) / (t - t_rate);
            if (v.generation < gen_rate) v.gens_per_s = 0;
            gen_rate = v.generation;
            frames_rate = 0;
            t_rate = t;
        }
        if (sim_running(v.sim)) v.dirty = 1;
        if (bench && frames >= o->frames) v.quit = 1;
    }
    double elapsed = now() - t_start;
    uint64_t gen_before_exit = v.generation;

    /* Finish queued work so that the printed state is exact, then show it once more. */
    sim_set_running(v.sim, 0);
    double t_wait = now();
    while (sim_busy(v.sim) && now() - t_wait < EXIT_WAIT_SECONDS) {
        take_snapshot(&v);
        if (v.gl_mode && sim_gl_fresh(v.sim)) render_cells(&v); /* takes the generation */
        SDL_Delay(1);
    }
    take_snapshot(&v);
    if (o->screenshot) {
        render_cells(&v);
        interop_overlays(&v);
        present(&v);
        if (screenshot(&v, o->screenshot)) rc = 3;
    }
    print_result(&v);
    if (bench) {
        const wl_config *cfg = sim_config(v.sim);
        double cells = cfg->topology == WL_TOPOLOGY_PLANE ? 0 : (double)cfg->width * (double)cfg->height;
        printf("frames %llu seconds %.3f fps %.1f generations/s %.1f CUpS %.3g\n",
               (unsigned long long)frames, elapsed, frames / elapsed,
               (double)gen_before_exit / elapsed, (double)gen_before_exit * cells / elapsed);
        const char *renderer = (const char *)glGetString(GL_RENDERER);
        printf("window %ux%u zoom %d renderer %s frames %s\n", v.w, v.h, v.cam.zoom,
               renderer ? renderer : "unknown",
               v.gl_mode ? "CUDA-OpenGL interop (PBO)" : "uploaded from host memory");
        double f = frames ? 1e3 / (double)frames : 0;
        printf("ms per frame: cells %.2f overlays %.2f upload+draw %.2f swap %.2f\n",
               prof[0] * f, prof[1] * f, prof[2] * f, prof[3] * f);
        double img_s, img_max;
        unsigned long imgs = sim_render_stats(v.sim, &img_s, &img_max);
        if (imgs)
            printf("render mode: %lu views rendered by the engine, %.2f ms each on average, "
                   "%.2f ms at most\n",
                   imgs, img_s * 1e3 / (double)imgs, img_max * 1e3);
        if (sc.fed && sc.t_last > sc.t_first)
            printf("script: %lu tokens in %.3f s, %.1f tokens per second (each shown before "
                   "the next)\n",
                   sc.fed, sc.t_last - sc.t_first, (double)sc.fed / (sc.t_last - sc.t_first));
        else if (sc.fed)
            printf("script: %lu tokens, not finished within the frames\n", sc.fed);
    }
    sim_stop(v.sim);
done:
    wl_snapshot_free(v.snap);
    free(v.image);
    free(v.screen);
    free(v.scratch);
    free(in.edits);
    script_free(&sc);
    glDeleteTextures(1, &tex);
    interop_free(&v);
    SDL_GL_DeleteContext(gl);
    SDL_DestroyWindow(win);
    SDL_Quit();
    return rc;
}
