/*
 * viewer.h - the interactive SDL2 + OpenGL viewer behind `warplife view`.
 *
 * apps/cli/view.c parses the command line, creates and loads the universe, and hands both
 * to wl_viewer_run (built only when SDL2 and OpenGL are found: WL_HAVE_VIEWER).  This
 * header has no SDL types so that view.c compiles without SDL2.
 */
#ifndef WL_VIEWER_H
#define WL_VIEWER_H

#include "warplife.h"

#include <stdint.h>

typedef struct wl_viewer_options {
    const char *pattern_path; /* the file the universe was loaded from (NULL: none) */
    uint64_t step;            /* generations per frame while running (>= 1) */
    int run;                  /* nonzero: start running (else paused) */
    int zoom;                 /* initial zoom (see wl_view) when zoom_given */
    int zoom_given;
    int64_t cx, cy;           /* the cell at the window's centre when center_given */
    int center_given;
    uint32_t width, height;   /* window size in pixels */
    uint64_t frames;          /* 0: interactive; N: exit after N frames, print fps */
    const char *screenshot;   /* written from the window (glReadPixels) on exit, or NULL */
    const char *script;       /* scripted input (see viewer.c), or NULL */
    int vsync;                /* nonzero: wait for the display's refresh */
    uint64_t seed;            /* for random fills */
} wl_viewer_options;

/* Opens the window and runs until the user closes it (or the frames / script end).  The
 * viewer takes ownership of u (frees it).  On exit prints "generation G population P" to
 * stdout, and with o->frames also "frames N seconds S fps F".  Returns a CLI exit status:
 * 0, or 3 when no display can be opened (with a message on stderr). */
int wl_viewer_run(const wl_viewer_options *o, wl_universe *u);

#endif
