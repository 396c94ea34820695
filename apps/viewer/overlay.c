/*
 * overlay.c - what the viewer draws over the cells, straight into the RGBA screen buffer
 * before it is uploaded: cell grid lines when zoomed in far enough, the edge of a finite
 * universe, the selected rectangle, the status line (generation, population, engine and
 * kernel, step, generations per second, CUpS, frames per second), the population plot
 * (G) and the key help (H).  All of it costs a few thousand pixel writes per frame.
 *
 * With OpenGL interop the cells never reach this buffer: it is transparent (v->bg == 0)
 * and blended over the cells' texture, so grid lines are drawn over live cells too, and a
 * panel is a translucent black (COL_PANEL) rather than darkened pixels.  Every function
 * here records the rows it writes (touch), so that the window uploads only those rows.
 */
#include "font.h"
#include "view_state.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define TEXT_SCALE 2      /* font pixels are 2x2 screen pixels */
#define LINE_H (FONT_H * TEXT_SCALE + 6)
#define PLOT_W 320        /* plot panel size in pixels */
#define PLOT_H 120
#define GRID_MIN_ZOOM 3   /* draw cell grid lines from 8 pixels per cell */

/* Adds rows [y0, y1) (clipped to the screen) to the rows written this frame. */
static void touch(viewer *v, int64_t y0, int64_t y1) {
    if (y0 < 0) y0 = 0;
    if (y1 > (int64_t)v->h) y1 = v->h;
    if (y0 >= y1) return;
    if (y0 < v->ov_y0) v->ov_y0 = (int)y0;
    if (y1 > v->ov_y1) v->ov_y1 = (int)y1;
}

static void text(viewer *v, int x, int y, const char *s, int scale) {
    touch(v, y, y + (FONT_H + 1) * scale); /* the shadow is one font pixel lower */
    font_draw(v->screen, v->w, v->h, x, y, s, COL_TEXT, COL_SHADOW, scale);
}

static void hline(viewer *v, int64_t x0, int64_t x1, int64_t y, uint32_t c) {
    if (y < 0 || y >= (int64_t)v->h) return;
    touch(v, y, y + 1);
    if (x0 < 0) x0 = 0;
    if (x1 > (int64_t)v->w) x1 = v->w;
    for (int64_t x = x0; x < x1; x++) v->screen[(size_t)y * v->w + (size_t)x] = c;
}

static void vline(viewer *v, int64_t x, int64_t y0, int64_t y1, uint32_t c) {
    if (x < 0 || x >= (int64_t)v->w) return;
    if (y0 < 0) y0 = 0;
    if (y1 > (int64_t)v->h) y1 = v->h;
    touch(v, y0, y1);
    for (int64_t y = y0; y < y1; y++) v->screen[(size_t)y * v->w + (size_t)x] = c;
}

/* Darkens a rectangle by blending towards black (alpha of c over the pixels). */
static void panel(viewer *v, int64_t x0, int64_t y0, int64_t x1, int64_t y1) {
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 > (int64_t)v->w) x1 = v->w;
    if (y1 > (int64_t)v->h) y1 = v->h;
    touch(v, y0, y1);
    for (int64_t y = y0; y < y1; y++)
        for (int64_t x = x0; x < x1; x++) {
            uint32_t *p = &v->screen[(size_t)y * v->w + (size_t)x];
            /* Quarter brightness per channel, alpha kept opaque; over the transparent
             * interop overlay, a black of alpha 3/4 that does the same when blended. */
            *p = *p == 0 && v->bg == 0 ? COL_PANEL : ((*p >> 2) & 0x003f3f3fu) | 0xff000000u;
        }
}

/* Screen x of the left edge of cell column x (may be far off screen). */
static double sx(const viewer *v, double cellx) { return (cellx - v->cam.x) * cam_scale(&v->cam); }
static double sy(const viewer *v, double celly) { return (celly - v->cam.y) * cam_scale(&v->cam); }

static void rect_outline(viewer *v, double cx0, double cy0, double cx1, double cy1, uint32_t c) {
    double a = floor(sx(v, cx0)), b = floor(sx(v, cx1)), t = floor(sy(v, cy0)),
           d = floor(sy(v, cy1));
    /* Clamp to a little beyond the screen so the int64 conversions stay sane. */
    double lim = 1e9;
    a = fmax(-lim, fmin(lim, a));
    b = fmax(-lim, fmin(lim, b));
    t = fmax(-lim, fmin(lim, t));
    d = fmax(-lim, fmin(lim, d));
    hline(v, (int64_t)a, (int64_t)b + 1, (int64_t)t, c);
    hline(v, (int64_t)a, (int64_t)b + 1, (int64_t)d, c);
    vline(v, (int64_t)a, (int64_t)t, (int64_t)d + 1, c);
    vline(v, (int64_t)b, (int64_t)t, (int64_t)d + 1, c);
}

static void grid_lines(viewer *v) {
    if (v->cam.zoom < GRID_MIN_ZOOM) return;
    int s = 1 << v->cam.zoom;
    int offx = (int)((v->cam.x - floor(v->cam.x)) * s), offy = (int)((v->cam.y - floor(v->cam.y)) * s);
    touch(v, 0, v->h);
    for (uint32_t y = 0; y < v->h; y++) {
        uint32_t *row = v->screen + (size_t)y * v->w;
        if ((y + (uint32_t)offy) % (uint32_t)s == 0) {
            for (uint32_t x = 0; x < v->w; x++)
                if (row[x] == v->bg) row[x] = COL_GRID;
        } else {
            for (uint32_t x = (uint32_t)((s - offx) % s); x < v->w; x += (uint32_t)s)
                if (row[x] == v->bg) row[x] = COL_GRID;
        }
    }
}

static void border(viewer *v) {
    const wl_config *cfg = sim_config(v->sim);
    if (cfg->topology == WL_TOPOLOGY_PLANE) return;
    double x0 = -(double)(cfg->width / 2), y0 = -(double)(cfg->height / 2);
    rect_outline(v, x0, y0, x0 + (double)cfg->width, y0 + (double)cfg->height, COL_BORDER);
}

static const char *si(double x, char *buf, size_t len) {
    if (x >= 1e12) snprintf(buf, len, "%.2fT", x / 1e12);
    else if (x >= 1e9) snprintf(buf, len, "%.2fG", x / 1e9);
    else if (x >= 1e6) snprintf(buf, len, "%.2fM", x / 1e6);
    else if (x >= 1e4) snprintf(buf, len, "%.1fk", x / 1e3);
    else snprintf(buf, len, "%.0f", x);
    return buf;
}

static void status_line(viewer *v) {
    const wl_config *cfg = sim_config(v->sim);
    char line[400], rate[32], cups[32], zoom[32], size[64];
    if (v->cam.zoom >= 0) snprintf(zoom, sizeof zoom, "%d:1", 1 << v->cam.zoom);
    else snprintf(zoom, sizeof zoom, "1:2^%d", -v->cam.zoom);
    if (cfg->topology == WL_TOPOLOGY_PLANE) snprintf(size, sizeof size, "plane");
    else
        snprintf(size, sizeof size, "%s %llux%llu", wl_topology_name(cfg->topology),
                 (unsigned long long)cfg->width, (unsigned long long)cfg->height);
    double cells = cfg->topology == WL_TOPOLOGY_PLANE ? 0 : (double)cfg->width * (double)cfg->height;
    si(v->gens_per_s, rate, sizeof rate);
    si(v->gens_per_s * cells, cups, sizeof cups);
    uint64_t step = sim_step_size(v->sim);
    snprintf(line, sizeof line,
             "gen %llu  pop %llu  %s/%s  %s  step 2^%d  %s gen/s%s%s  zoom %s  %.0f fps  %s",
             (unsigned long long)v->generation, (unsigned long long)v->population,
             sim_engine(v->sim), sim_kernel(v->sim), size, 63 - __builtin_clzll(step), rate,
             cells > 0 ? "  CUpS " : "", cells > 0 ? cups : "", zoom, v->fps,
             sim_running(v->sim) ? "running" : "paused (space: run, h: help)");
    /* Small windows get the small font rather than a cut line. */
    int scale = font_text_width(line, TEXT_SCALE) + 12 <= (int)v->w ? TEXT_SCALE : 1;
    int y = (int)v->h - LINE_H;
    panel(v, 0, y, v->w, v->h);
    text(v, 6, y + (LINE_H - FONT_H * scale) / 2, line, scale);
    char msg[256];
    if (sim_message(v->sim, msg, sizeof msg) < 4.0 && msg[0]) {
        panel(v, 0, y - LINE_H, font_text_width(msg, TEXT_SCALE) + 12, y);
        text(v, 6, y - LINE_H + 3, msg, TEXT_SCALE);
    }
}

static void plot(viewer *v) {
    if (!v->show_plot || v->hist_n < 2) return;
    /* Bottom right, above the status line and its message. */
    int x0 = (int)v->w - PLOT_W - 8, y0 = (int)v->h - 2 * LINE_H - PLOT_H - 8;
    panel(v, x0, y0, x0 + PLOT_W, y0 + PLOT_H);
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < v->hist_n; i++) {
        uint64_t p = v->hist_pop[i];
        if (p < lo) lo = p;
        if (p > hi) hi = p;
    }
    if (hi == lo) hi = lo + 1;
    size_t first = (v->hist_head + HISTORY - v->hist_n) % HISTORY;
    /* A step plot: each sample holds until the next one, joined by vertical lines. */
    int prev_x = -1, prev_y = -1;
    for (size_t i = 0; i < v->hist_n; i++) {
        uint64_t p = v->hist_pop[(first + i) % HISTORY];
        int x = x0 + 4 + (int)((double)i * (PLOT_W - 8) / (double)(v->hist_n - 1));
        int y = y0 + PLOT_H - 16 - (int)((double)(p - lo) * (PLOT_H - 32) / (double)(hi - lo));
        if (prev_y >= 0) {
            hline(v, prev_x, x, prev_y, COL_PLOT);
            vline(v, x, prev_y < y ? prev_y : y, (prev_y < y ? y : prev_y) + 1, COL_PLOT);
        }
        prev_x = x;
        prev_y = y;
    }
    char label[96];
    snprintf(label, sizeof label, "pop %llu..%llu", (unsigned long long)lo, (unsigned long long)hi);
    text(v, x0 + 4, y0 + PLOT_H - 12, label, 1);
}

static void help(viewer *v) {
    static const char *const lines[] = {
        "space  run / pause          n  one step",
        "+ -    step size x2 / /2    r  back to generation 0",
        "[ ]    zoom out / in        f  fit the pattern",
        "wheel  zoom at the mouse    arrows, right drag  pan",
        "click  toggle a cell        drag  draw",
        "shift+drag  select          u  fill selection with soup",
        "del    clear selection      esc  stop a long step",
        "s      save pattern         p  screenshot (PNG)",
        "g      population plot      h  this help    q  quit",
        "drop a pattern file on the window to open it",
    };
    size_t n = sizeof lines / sizeof lines[0];
    int x0 = 16, y0 = 16, wmax = 0;
    for (size_t i = 0; i < n; i++)
        if (font_text_width(lines[i], TEXT_SCALE) > wmax) wmax = font_text_width(lines[i], TEXT_SCALE);
    panel(v, x0 - 8, y0 - 8, x0 + wmax + 8, y0 + (int)n * LINE_H + 8);
    for (size_t i = 0; i < n; i++)
        text(v, x0, y0 + (int)i * LINE_H, lines[i], TEXT_SCALE);
}

void overlay_draw(viewer *v) {
    grid_lines(v);
    border(v);
    if (v->have_selection) {
        const wl_rect *r = &v->selection;
        rect_outline(v, (double)r->x, (double)r->y, (double)r->x + (double)r->w,
                     (double)r->y + (double)r->h, COL_SELECT);
    }
    plot(v);
    if (v->show_help) help(v);
    status_line(v);
}
