/*
 * sim.h - the viewer's simulation thread: it owns the universe, steps it, applies edits,
 * and publishes snapshots that the window thread renders, so that the window never waits
 * for an engine.
 */
#ifndef WL_VIEWER_SIM_H
#define WL_VIEWER_SIM_H

#include "warplife.h"

#include <stdint.h>

typedef struct sim sim;

/* One cell edit (pattern coordinates). */
typedef struct sim_edit {
    int64_t x, y;
    int alive;
} sim_edit;

/* Starts the thread; takes ownership of u.  `reload_path` (may be NULL) is the file R
 * falls back to when the generation-0 state could not be kept.  NULL on failure. */
sim *sim_start(wl_universe *u, const char *reload_path, uint64_t step, int running);
/* Stops the thread, frees the universe and everything else. */
void sim_stop(sim *s);

/* Commands (all asynchronous, applied in order between steps). */
void sim_set_running(sim *s, int running);
int sim_running(sim *s);
void sim_set_step(sim *s, uint64_t step);
uint64_t sim_step_size(sim *s);
void sim_step_once(sim *s);                        /* advance one step size */
void sim_reset(sim *s);                            /* back to generation 0 */
void sim_edit_cells(sim *s, const sim_edit *e, size_t n);
void sim_fill(sim *s, const wl_rect *r, double density, uint64_t seed); /* 0: clear */
void sim_load(sim *s, const char *path);
void sim_save(sim *s, const char *path);
/* Interrupts a long step in progress (HashLife polls; grid engines stop between chunks)
 * and pauses. */
void sim_interrupt(sim *s);

/* Returns 1 and swaps *snap with the newest published snapshot if one was published since
 * the last call (the caller then owns the old one it handed in, which may be NULL); 0 if
 * nothing is new.  Population and generation of the snapshot are in the snapshot. */
int sim_take_snapshot(sim *s, wl_snapshot **snap);
/* Render mode, for universes too big to snapshot (HashLife after a long run): the window
 * says which view it shows (sim_request_view, cheap when unchanged), and the simulation
 * thread renders that view with the engine's own wl_universe_render and publishes the
 * image.  sim_take_image swaps *rgba (w*h pixels of the view in *view, or NULL) with the
 * newest image like sim_take_snapshot, and gives its generation and population
 * (saturated to 2^64-1). */
int sim_render_mode(sim *s);
void sim_request_view(sim *s, const wl_view *view);
int sim_take_image(sim *s, uint32_t **rgba, wl_view *view, uint64_t *gen, uint64_t *pop);
/* Render mode, for benchmarks: the number of images rendered so far, the seconds spent in
 * wl_universe_render for them (*seconds) and the longest one (*max). */
unsigned long sim_render_stats(sim *s, double *seconds, double *max);
/* Render mode: the live cells' inclusive bounds (xmin, ymin, xmax, ymax) as of the last
 * image; returns 0 when there are none. */
int sim_image_bounds(sim *s, double b[4]);
/* OpenGL interop mode (CUDA engine): the window draws the cells itself with
 * wl_universe_render_gl into its pixel buffer object, between two steps of this thread.
 * sim_can_render_gl says whether the engine has render_gl (constant).  sim_set_gl_mode
 * turns the mode on or off: while on, a step publishes only its generation and population,
 * not a snapshot (commands and sim_request_snapshot still publish one, for editing and
 * fitting).  sim_render_gl waits (at most GL_WAIT_SECONDS in sim.c) until this thread is
 * between two chunks of work, renders `view` into `pbo` on the calling thread (whose GL
 * context must be current), and lets the thread go on.  It returns 1 and sets *status to
 * render_gl's status when it rendered (*gen and *pop then hold the generation and
 * population shown, saturated to 2^64-1, and *new_gen says whether they are newer than the
 * last call's), or 0 when the thread stayed busy (a load, a long step): the window keeps
 * its last picture. */
int sim_can_render_gl(sim *s);
void sim_set_gl_mode(sim *s, int on);
void sim_request_snapshot(sim *s);
/* 1 while a step has finished in gl_mode that sim_render_gl has not shown yet. */
int sim_gl_fresh(sim *s);
int sim_render_gl(sim *s, const wl_view *view, unsigned pbo, wl_status *status, uint64_t *gen,
                  uint64_t *pop, int *new_gen);
/* 1 while commands are queued or being applied (scripts wait on this). */
int sim_busy(sim *s);
/* Copies the latest status message ("saved x.rle", an error) into buf, "" if none;
 * returns its age in seconds (large if none). */
double sim_message(sim *s, char *buf, size_t len);
/* Engine, kernel, topology and size of the universe (constant). */
const wl_config *sim_config(sim *s);
const char *sim_engine(sim *s);
const char *sim_kernel(sim *s);

/* The wl_poll_fn the universe must be created with: returns nonzero while an interrupt
 * is pending (set by sim_interrupt and by sim_stop). */
int sim_poll(void *user);

#endif
