/*
 * interop.c - the window's side of CUDA-OpenGL interop: the engine (the CUDA engine's
 * render_gl) draws the cells into a pixel buffer object on the GPU, and the cell texture is
 * filled from that buffer, so that the cells never come to host memory.
 *
 * Per frame (interop_render_cells): the view is one cell larger than the window when
 * zoomed in (sub-cell panning, as in viewer.c); sim_render_gl has the simulation thread
 * step aside and renders it into the PBO, with the exact generation and population; then
 * glTexSubImage2D reads the window's part from GL_PIXEL_UNPACK_BUFFER, the sub-cell offset
 * given as unpack skip pixels/rows and the view's width as the unpack row length (a copy
 * inside the GPU).  When the simulation is busy (a long load) the texture keeps the last
 * picture.  The PBO only grows, and always as a new buffer object, so that the engine's
 * cached registration never refers to storage that glBufferData replaced.
 *
 * Overlays (interop_overlays): drawn by overlay.c into v->screen as in the upload path, but
 * over a transparent background (v->bg = 0); only the rows they touched this frame or the
 * last one are cleared and uploaded into overlay_tex, which present() blends over the
 * cells.  The status line costs a few dozen rows, not the window.
 *
 * Falling back: if the first render fails (no CUDA device behind this GL context, say),
 * interop_stop says why on stderr and the viewer goes back to snapshots and uploads.
 */
#include "view_state.h"

#include <SDL.h>
#include <SDL_opengl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* OpenGL 1.5 buffer entry points, through SDL (the GL 1.1 library exports no more). */
static PFNGLGENBUFFERSPROC p_gen_buffers;
static PFNGLBINDBUFFERPROC p_bind_buffer;
static PFNGLBUFFERDATAPROC p_buffer_data;
static PFNGLDELETEBUFFERSPROC p_delete_buffers;

void interop_texture_setup(unsigned tex) {
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
}

void interop_start(viewer *v) {
    const char *no = getenv("WL_VIEW_NO_INTEROP");
    if (!sim_can_render_gl(v->sim) || (no && *no && strcmp(no, "0") != 0)) return;
    p_gen_buffers = (PFNGLGENBUFFERSPROC)SDL_GL_GetProcAddress("glGenBuffers");
    p_bind_buffer = (PFNGLBINDBUFFERPROC)SDL_GL_GetProcAddress("glBindBuffer");
    p_buffer_data = (PFNGLBUFFERDATAPROC)SDL_GL_GetProcAddress("glBufferData");
    p_delete_buffers = (PFNGLDELETEBUFFERSPROC)SDL_GL_GetProcAddress("glDeleteBuffers");
    if (!p_gen_buffers || !p_bind_buffer || !p_buffer_data || !p_delete_buffers) {
        fprintf(stderr, "warplife view: no OpenGL buffer objects; uploading frames\n");
        return;
    }
    GLuint tex;
    glGenTextures(1, &tex);
    v->overlay_tex = tex;
    interop_texture_setup(tex);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, (GLsizei)v->w, (GLsizei)v->h, 0, GL_RGBA,
                 GL_UNSIGNED_BYTE, NULL);
    v->gl_mode = 1;
    v->bg = 0;
    v->ov_y0 = 0; /* clear and upload the whole overlay once */
    v->ov_y1 = (int)v->h;
    sim_set_gl_mode(v->sim, 1);
}

/* Back to snapshots and uploads (interop failed: `why`). */
static void interop_stop(viewer *v, const char *why) {
    fprintf(stderr, "warplife view: CUDA-OpenGL interop failed (%s); uploading frames instead\n",
            why);
    sim_set_gl_mode(v->sim, 0);
    v->gl_mode = 0;
    v->bg = COL_DEAD;
    if (v->pbo) {
        GLuint b = v->pbo;
        p_delete_buffers(1, &b);
    }
    v->pbo = 0;
    v->pbo_bytes = 0;
    v->dirty = 1;
}

/* Makes the PBO hold at least `bytes` (a new buffer object when it must grow, so that the
 * engine registers the new storage). */
static int ensure_pbo(viewer *v, size_t bytes) {
    if (v->pbo && v->pbo_bytes >= bytes) return 0;
    while (glGetError() != GL_NO_ERROR) {
    } /* earlier errors are not this allocation's */
    GLuint b = v->pbo;
    if (b) p_delete_buffers(1, &b);
    p_gen_buffers(1, &b);
    p_bind_buffer(GL_PIXEL_UNPACK_BUFFER, b);
    p_buffer_data(GL_PIXEL_UNPACK_BUFFER, (GLsizeiptr)bytes, NULL, GL_STREAM_DRAW);
    p_bind_buffer(GL_PIXEL_UNPACK_BUFFER, 0);
    v->pbo = b;
    v->pbo_bytes = bytes;
    return glGetError() == GL_NO_ERROR ? 0 : -1;
}

void interop_render_cells(viewer *v) {
    wl_view view;
    uint32_t ox, oy;
    make_view(v, &view, &ox, &oy);
    if (ensure_pbo(v, (size_t)view.width * view.height * 4)) {
        interop_stop(v, "cannot allocate the pixel buffer object");
        return;
    }
    wl_status st;
    uint64_t gen, pop;
    int new_gen;
    if (!sim_render_gl(v->sim, &view, v->pbo, &st, &gen, &pop, &new_gen))
        return; /* the simulation is busy: the texture keeps the last picture */
    if (st) {
        interop_stop(v, wl_last_error());
        return;
    }
    if (new_gen || gen != v->generation || pop != v->population) {
        v->generation = gen;
        v->population = pop;
        record_history(v);
    }
    glBindTexture(GL_TEXTURE_2D, v->cell_tex);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, (GLint)view.width);
    glPixelStorei(GL_UNPACK_SKIP_PIXELS, (GLint)ox);
    glPixelStorei(GL_UNPACK_SKIP_ROWS, (GLint)oy);
    p_bind_buffer(GL_PIXEL_UNPACK_BUFFER, v->pbo);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, (GLsizei)v->w, (GLsizei)v->h, GL_RGBA,
                    GL_UNSIGNED_BYTE, (const void *)0);
    p_bind_buffer(GL_PIXEL_UNPACK_BUFFER, 0);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glPixelStorei(GL_UNPACK_SKIP_PIXELS, 0);
    glPixelStorei(GL_UNPACK_SKIP_ROWS, 0);
}

void interop_overlays(viewer *v) {
    if (!v->gl_mode) {
        overlay_draw(v);
        return;
    }
    int l0 = v->ov_y0, l1 = v->ov_y1; /* rows the last frame drew */
    if (l1 > l0) memset(v->screen + (size_t)l0 * v->w, 0, (size_t)(l1 - l0) * v->w * 4);
    v->ov_y0 = (int)v->h;
    v->ov_y1 = 0;
    overlay_draw(v);
    int y0 = l0 < v->ov_y0 ? l0 : v->ov_y0, y1 = l1 > v->ov_y1 ? l1 : v->ov_y1;
    if (y1 <= y0) return;
    glBindTexture(GL_TEXTURE_2D, v->overlay_tex);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, y0, (GLsizei)v->w, (GLsizei)(y1 - y0), GL_RGBA,
                    GL_UNSIGNED_BYTE, v->screen + (size_t)y0 * v->w);
}

void interop_free(viewer *v) {
    if (v->overlay_tex) {
        GLuint t = v->overlay_tex;
        glDeleteTextures(1, &t);
        v->overlay_tex = 0;
    }
    if (v->pbo && p_delete_buffers) {
        GLuint b = v->pbo;
        p_delete_buffers(1, &b);
    }
    v->pbo = 0;
    v->pbo_bytes = 0;
}
