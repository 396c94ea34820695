/*
 * view_state.h - what the viewer's window loop (viewer.c), overlays (overlay.c) and
 * scripted input (script.c) share: the camera, the screen buffer and the history of
 * populations.
 */
#ifndef WL_VIEWER_STATE_H
#define WL_VIEWER_STATE_H

#include "sim.h"
#include "viewer.h"

#include <stdint.h>

#define ZOOM_MAX 6    /* 64 pixels per cell */
#define ZOOM_MIN (-30) /* 2^30 cells per pixel */
#define HISTORY 512   /* population samples kept for the plot */

/* Colours, as wl_view wants them: bytes R, G, B, A in memory (little-endian values). */
#define COL_ALIVE 0xff30e0ffu  /* warm yellow */
#define COL_DEAD 0xff201010u   /* near-black blue */
#define COL_GRID 0xff3a2a2au   /* cell grid lines when zoomed in */
#define COL_BORDER 0xff8080ffu /* the edge of a torus / bounded grid */
#define COL_SELECT 0xffffc040u /* the selected rectangle */
#define COL_TEXT 0xffffffffu
#define COL_SHADOW 0xff000000u
#define COL_PANEL 0xc0000000u
#define COL_PLOT 0xff40ff40u

typedef struct camera {
    double x, y; /* cell coordinates of the window's top-left corner */
    int zoom;    /* 2^zoom pixels per cell (negative: 2^-zoom cells per pixel) */
} camera;

typedef struct viewer {
    const wl_viewer_options *opt;
    sim *sim;
    camera cam;
    uint32_t w, h;          /* window size in pixels */
    uint32_t *screen;       /* w * h: what goes to the texture */
    uint32_t *scratch;      /* (w + 64) * (h + 64): the view before sub-cell shifting */
    wl_snapshot *snap;      /* the snapshot on show (owned) */
    uint32_t *image;        /* render mode: the image on show (owned) and its view */
    wl_view image_view;
    uint64_t generation;    /* of snap (saturated to 2^64-1) */
    uint64_t population;
    int have_selection;
    wl_rect selection;
    int show_plot, show_help;
    uint64_t hist_gen[HISTORY], hist_pop[HISTORY];
    size_t hist_n, hist_head;
    double gens_per_s, fps;
    int quit;
    int dirty;              /* the screen must be redrawn */
    /* The frame path.  Upload: cells and overlays are drawn into screen, which is uploaded
     * into cell_tex.  Interop (gl_mode, CUDA engine): the engine renders the view into the
     * pixel buffer object pbo on the GPU, cell_tex is filled from it, and only the
     * overlays are drawn into screen (transparent elsewhere) and uploaded into overlay_tex,
     * which is blended over the cells. */
    int gl_mode;
    unsigned cell_tex, overlay_tex, pbo; /* OpenGL names */
    size_t pbo_bytes;
    uint32_t bg;            /* screen pixels where no overlay is: COL_DEAD, or 0 in gl_mode */
    int ov_y0, ov_y1;       /* rows [ov_y0, ov_y1) of screen that overlay_draw wrote */
} viewer;

/* Pixels per cell as a double (may be < 1). */
double cam_scale(const camera *c);
/* The cell under pixel (px, py) (pixel centres). */
void cam_cell_at(const camera *c, double px, double py, int64_t *x, int64_t *y);

/* viewer.c: the view to render for the camera (one cell larger than the window when
 * zoomed in; *ox, *oy: the window's offset in it), and adding the generation and
 * population on show to the plot's history. */
void make_view(const viewer *v, wl_view *view, uint32_t *ox, uint32_t *oy);
void record_history(viewer *v);

/* interop.c (CUDA-OpenGL interop, see there).  interop_start turns it on when the engine
 * has render_gl (unless WL_VIEW_NO_INTEROP is set); interop_render_cells fills cell_tex
 * from the engine's rendering (on failure it turns interop off, with a message);
 * interop_overlays draws the overlays (overlay_draw) and, with interop, uploads the rows
 * that changed into overlay_tex; interop_free deletes the GL objects it made;
 * interop_texture_setup binds a texture and sets nearest filtering. */
void interop_start(viewer *v);
void interop_render_cells(viewer *v);
void interop_overlays(viewer *v);
void interop_free(viewer *v);
void interop_texture_setup(unsigned tex);

/* Overlays drawn on v->screen after the cells: grid lines, grid border, selection,
 * status line, plot, help, message.  Grid lines go on pixels equal to v->bg; the rows
 * written are added to [v->ov_y0, v->ov_y1). */
void overlay_draw(viewer *v);

#endif
