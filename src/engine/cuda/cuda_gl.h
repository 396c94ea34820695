/*
 * cuda_gl.h - the CUDA engine's OpenGL interop (cuda_gl.cu): rendering a view of the
 * universe straight into an OpenGL pixel buffer object on the device.  Built only when the
 * OpenGL headers are found (WL_HAVE_CUDA_GL); without them render_gl stays NULL and the
 * release hook is a no-op, so cuda_engine.c needs no other #ifdef.
 */
#ifndef WL_CUDA_GL_H
#define WL_CUDA_GL_H

#include "wlcuda.h"

#ifdef WL_HAVE_CUDA_GL
/* Renders `view` of the universe in c into the OpenGL buffer object named `gl_buffer`
 * (RGBA, view->width * view->height pixels, row-major, exactly the pixels
 * wl_universe_render gives), without passing through host memory.  The caller's OpenGL
 * context must be current on this thread, on the GPU that runs c.  The buffer's CUDA
 * registration is kept in c->gl and reused while the buffer's name and size stay the same.
 * Errors: WL_ERR_INVALID (NULL view, empty view, zoom outside [-40, 20], buffer smaller
 * than the view), WL_ERR_DEVICE (a failed CUDA or interop call, with its message),
 * WL_ERR_NOMEM. */
wl_status wlcu_gl_render(wlcu_ctx *c, const wl_view *view, unsigned gl_buffer);
/* Frees what wlcu_gl_render keeps in c->gl (unregisters the buffer; the GL context should
 * still exist) and sets c->gl to NULL.  Safe when c->gl is NULL. */
void wlcu_gl_release(wlcu_ctx *c);
#else
static inline void wlcu_gl_release(wlcu_ctx *c) { (void)c; }
#endif

#endif
