/*
 * cuda_gl.cu - CUDA-OpenGL interop: the CUDA engine draws a view of its universe straight
 * into an OpenGL pixel buffer object, so that a viewer's frame goes from the cells on the
 * GPU to the texture on the same GPU without crossing PCIe twice.
 *
 * What it computes.  Exactly the pixels of wl_universe_render for the same wl_view (the
 * default path: one store_grid into a snapshot, then src/render/render.c).  The grid's
 * cell at column c, row r has pattern coordinates (c - floor(W/2), r - floor(H/2)); cells
 * outside the grid are dead (the picture does not wrap on a torus).  At zoom z >= 0 pixel
 * (px, py) shows cell (view.x + px / 2^z, view.y + py / 2^z).  At zoom z < 0 a pixel
 * covers n x n cells, n = 2^-z, from (view.x + px*n, view.y + py*n), and is `alive` when
 * any of them is alive, else `dead`.  There are no grid lines or other decorations here:
 * those are the viewer's overlays.
 *
 * Memory layout.  The source is the engine's current buffer in the bit layout (WLCU_BITS):
 * row-major 32-bit words, nw = ceil(W/32) per row, bit i of word j of row r is the cell in
 * column 32j + i, zero bits past column W-1.  Kernels of the byte and patch layouts are
 * converted into a scratch bit buffer first (wlcu_layout_to_bits, on the device).  The
 * destination is the mapped PBO: view.width x view.height 32-bit pixels, row-major, top
 * row first, each pixel the colour word of wl_view (bytes R, G, B, A in memory), ready for
 * glTexSubImage2D(GL_RGBA, GL_UNSIGNED_BYTE) from GL_PIXEL_UNPACK_BUFFER.
 *
 * Zoomed in (z >= 0): one thread per pixel.  Neighbouring threads of a warp read the same
 * or neighbouring words (served by L1) and write 32 consecutive pixels (one 128-byte
 * store), so the kernel runs at the speed of writing the image.
 *
 * Zoomed out (z < 0): a pixel is an OR over up to n x n cells, and when the whole grid
 * shrinks into a handful of pixels a thread per pixel would scan millions of words alone.
 * So the work is turned around: a fill kernel paints every pixel `dead`, then one thread
 * per visible grid word (the words the view and the grid share, clipped to the view's
 * columns) masks its word to the view, and for each pixel column its 32 cells meet writes
 * `alive` to that pixel if any of the cells there is set.  Several threads may write the
 * same pixel, always the same value, so no atomics are needed.  The cost is the visible
 * words once plus the image once, however far out the zoom is, with full parallelism.
 *
 * The PBO.  cudaGraphicsGLRegisterBuffer is slow (it talks to the GL driver), so the
 * registration is kept in the context and reused while the buffer's name and size (read
 * with glGetBufferParameteriv) stay the same; a different name or size unregisters and
 * registers again, and the engine's destroy unregisters (wlcu_gl_release).  The GL entry
 * points are looked up at run time with dlsym in the process's already loaded OpenGL
 * library, so libwarplife never links libGL (programs without a window need no GL
 * libraries); when they cannot be found the mapped size alone is checked.  Each frame maps
 * the buffer (cudaGraphicsMapResources orders the CUDA work after the GL work queued on
 * the buffer), runs the kernels and unmaps (which orders later GL commands, the texture
 * upload, after the kernels), so nothing waits on the host.
 *
 * Streams.  The engine's files are compiled with per-thread default streams, and the
 * caller (a viewer's window thread) is not the thread that steps the universe.  All of the
 * work here goes to the legacy default stream (cudaStreamLegacy), which is ordered after
 * the work already queued on every thread's default stream and before the work queued on
 * them later: the render reads a finished generation, and the next step cannot overwrite
 * the buffer while the render still reads it, without any host synchronisation.
 */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

#include <GL/gl.h>
#include <cuda_gl_interop.h>

#include "cuda_common.cuh"

extern "C" {
#include "cuda_gl.h"
}

/* The same zoom range as src/render/render.c (wl_snapshot_render). */
#define GL_ZOOM_MAX 20
#define GL_ZOOM_MIN (-40)
/* Block shapes: 32 pixels across (one warp writes one 128-byte line) x 8 rows; and 256
 * threads for the 1-D and word kernels. */
#define IN_BX 32
#define IN_BY 8
#define OUT_BX 32
#define OUT_BY 8
#define FILL_THREADS 256
/* Largest grid.y we launch (the hardware limit is 65535); kernels loop over the rest. */
#define MAX_GRID_Y 65535u

#ifndef GL_PIXEL_UNPACK_BUFFER
#define GL_PIXEL_UNPACK_BUFFER 0x88EC
#endif
#ifndef GL_PIXEL_UNPACK_BUFFER_BINDING
#define GL_PIXEL_UNPACK_BUFFER_BINDING 0x88EF
#endif
#ifndef GL_BUFFER_SIZE
#define GL_BUFFER_SIZE 0x8764
#endif

typedef struct gl_state {
    cudaGraphicsResource *res; /* registration of buffer `name`, NULL if none */
    unsigned name;
    int64_t size;              /* GL_BUFFER_SIZE at registration, -1 if unknown */
    uint32_t *scratch;         /* bit-layout copy for the byte and patch layouts */
    size_t scratch_bytes;
} gl_state;

/* ---- kernels ---------------------------------------------------------------------------- */

/* z >= 0: pixel (px, py) is grid cell (c0 + px >> z, r0 + py >> z). */
__global__ void k_gl_in(const uint32_t *bits, uint64_t nw, int64_t gw, int64_t gh, int64_t c0,
                        int64_t r0, int zoom, uint32_t W, uint32_t H, uint32_t alive,
                        uint32_t dead, uint32_t *out) {
    uint32_t px = blockIdx.x * blockDim.x + threadIdx.x;
    if (px >= W) return;
    int64_t c = c0 + (int64_t)(px >> zoom);
    for (uint32_t py = blockIdx.y * blockDim.y + threadIdx.y; py < H;
         py += gridDim.y * blockDim.y) {
        int64_t r = r0 + (int64_t)(py >> zoom);
        unsigned live = 0;
        if (c >= 0 && c < gw && r >= 0 && r < gh)
            live = (bits[(uint64_t)r * nw + ((uint64_t)c >> 5)] >> (c & 31)) & 1u;
        out[(size_t)py * W + px] = live ? alive : dead;
    }
}

/* Paints n pixels one colour. */
__global__ void k_gl_fill(uint32_t *out, size_t n, uint32_t colour) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = colour;
}

/* z < 0, n = 2^-z cells per pixel side (shift = -z).  The view's first cell is grid column
 * va, row ya; the visible part of the grid is columns [ca, cb), rows [ra, rb), its words
 * [qa, qa + nq).  One thread per (row, word) of that part; see the header comment. */
__global__ void k_gl_out(const uint32_t *bits, uint64_t nw, int64_t va, int64_t ya, int64_t ca,
                         int64_t cb, int64_t ra, int64_t rb, int64_t qa, int64_t nq, int shift,
                         uint32_t W, uint32_t alive, uint32_t *out) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nq) return;
    int64_t q = qa + i;
    int64_t wa = q * 32;                           /* column of bit 0 of the word */
    int64_t lo = ca > wa ? ca - wa : 0;            /* bits [lo, hi) are in view */
    int64_t hi = cb < wa + 32 ? cb - wa : 32;
    uint32_t mask = (hi >= 32 ? ~0u : ((1u << hi) - 1u)) & (~0u << lo);
    for (int64_t r = ra + (int64_t)(blockIdx.y * blockDim.y + threadIdx.y); r < rb;
         r += (int64_t)gridDim.y * blockDim.y) {
        uint32_t word = bits[(uint64_t)r * nw + (uint64_t)q] & mask;
        if (!word) continue;
        uint32_t *row = out + (size_t)((r - ya) >> shift) * W;
        int64_t pa = (wa + lo - va) >> shift, pb = (wa + hi - 1 - va) >> shift;
        for (int64_t p = pa; p <= pb; p++) {
            /* the pixel's cells, as bit positions in this word, clipped to [0, 32) */
            int64_t a = va + (p << shift) - wa, e = a + ((int64_t)1 << shift);
            if (a < 0) a = 0;
            if (e > 32) e = 32;
            uint32_t m = (e >= 32 ? ~0u : ((1u << e) - 1u)) & (~0u << a);
            if (word & m) row[p] = alive;
        }
    }
}

/* ---- host side -------------------------------------------------------------------------- */

typedef void (*gl_get_integerv_fn)(GLenum, GLint *);
typedef void (*gl_bind_buffer_fn)(GLenum, GLuint);
typedef void (*gl_get_buffer_parameteriv_fn)(GLenum, GLenum, GLint *);

/* GL_BUFFER_SIZE of buffer `name` through the process's OpenGL library (bound for a
 * moment to GL_PIXEL_UNPACK_BUFFER, the previous binding restored); -1 if the entry points
 * are not loaded. */
static int64_t gl_buffer_size(unsigned name) {
    gl_get_integerv_fn get_int = (gl_get_integerv_fn)dlsym(RTLD_DEFAULT, "glGetIntegerv");
    gl_bind_buffer_fn bind = (gl_bind_buffer_fn)dlsym(RTLD_DEFAULT, "glBindBuffer");
    gl_get_buffer_parameteriv_fn get_param =
        (gl_get_buffer_parameteriv_fn)dlsym(RTLD_DEFAULT, "glGetBufferParameteriv");
    if (!get_int || !bind || !get_param) return -1;
    GLint old = 0, size = -1;
    get_int(GL_PIXEL_UNPACK_BUFFER_BINDING, &old);
    bind(GL_PIXEL_UNPACK_BUFFER, name);
    get_param(GL_PIXEL_UNPACK_BUFFER, GL_BUFFER_SIZE, &size);
    bind(GL_PIXEL_UNPACK_BUFFER, (GLuint)old);
    return size;
}

/* Makes st->res the registration of buffer `name` (of GL size `size`). */
static wl_status gl_register(gl_state *st, unsigned name, int64_t size) {
    if (st->res && (st->name != name || st->size != size)) {
        cudaGraphicsUnregisterResource(st->res);
        st->res = NULL;
    }
    if (!st->res) {
        WLCU_CHECK(cudaGraphicsGLRegisterBuffer(&st->res, name,
                                                cudaGraphicsRegisterFlagsWriteDiscard));
        st->name = name;
        st->size = size;
    }
    return WL_OK;
}

/* The universe in the bit layout: the current buffer, or a scratch conversion. */
static wl_status source_bits(wlcu_ctx *c, gl_state *st, const uint32_t **bits) {
    if (c->layout == WLCU_BITS) {
        *bits = (const uint32_t *)c->cur;
        return WL_OK;
    }
    size_t need = (size_t)(c->nw * c->h * 4);
    if (st->scratch_bytes < need) {
        cudaFree(st->scratch);
        st->scratch = NULL;
        st->scratch_bytes = 0;
        WLCU_CHECK(cudaMalloc((void **)&st->scratch, need));
        st->scratch_bytes = need;
    }
    wl_status s = wlcu_layout_to_bits(c, c->cur, st->scratch);
    if (s) return s;
    *bits = st->scratch;
    return WL_OK;
}

/* Blocks for a 2-D launch over h rows (kernels loop past MAX_GRID_Y * by rows). */
static unsigned rows_grid(uint64_t h, unsigned by) {
    uint64_t g = (h + by - 1) / by;
    return g > MAX_GRID_Y ? MAX_GRID_Y : (g ? (unsigned)g : 1u);
}

/* Queues the kernels that draw view v of bits into out. */
static wl_status launch(const wlcu_ctx *c, const uint32_t *bits, const wl_view *v,
                        uint32_t *out, cudaStream_t stream) {
    uint64_t nw = c->nw;
    int64_t gw = (int64_t)c->w, gh = (int64_t)c->h;
    /* grid column / row of the view's first cell (placement of wl_universe_load) */
    int64_t va = v->x + (int64_t)(c->w / 2), ya = v->y + (int64_t)(c->h / 2);
    if (v->zoom >= 0) {
        dim3 block(IN_BX, IN_BY);
        dim3 grid((v->width + IN_BX - 1) / IN_BX, rows_grid(v->height, IN_BY));
        k_gl_in<<<grid, block, 0, stream>>>(bits, nw, gw, gh, va, ya, v->zoom, v->width,
                                            v->height, v->alive, v->dead, out);
        WLCU_CHECK_LAUNCH("k_gl_in");
        return WL_OK;
    }
    int shift = -v->zoom;
    size_t npx = (size_t)v->width * v->height;
    k_gl_fill<<<wlcu_blocks(npx, FILL_THREADS), FILL_THREADS, 0, stream>>>(out, npx, v->dead);
    WLCU_CHECK_LAUNCH("k_gl_fill");
    /* The cells the view covers, [va, va + W*n) x [ya, ya + H*n), clipped to the grid; the
     * products stay below 2^72, so they are formed in 128 bits and clamped. */
    const __int128 lim = (__int128)1 << 62;
    __int128 vb = (__int128)va + ((__int128)v->width << shift);
    __int128 yb = (__int128)ya + ((__int128)v->height << shift);
    int64_t ca = va < 0 ? 0 : va, ra = ya < 0 ? 0 : ya;
    int64_t cb = vb > gw ? gw : (int64_t)(vb < -lim ? -lim : vb);
    int64_t rb = yb > gh ? gh : (int64_t)(yb < -lim ? -lim : yb);
    if (ca >= cb || ra >= rb) return WL_OK;
    int64_t qa = ca >> 5, nq = ((cb - 1) >> 5) + 1 - qa;
    dim3 block(OUT_BX, OUT_BY);
    dim3 grid((unsigned)((nq + OUT_BX - 1) / OUT_BX), rows_grid((uint64_t)(rb - ra), OUT_BY));
    k_gl_out<<<grid, block, 0, stream>>>(bits, nw, va, ya, ca, cb, ra, rb, qa, nq, shift,
                                         v->width, v->alive, out);
    WLCU_CHECK_LAUNCH("k_gl_out");
    return WL_OK;
}

extern "C" wl_status wlcu_gl_render(wlcu_ctx *c, const wl_view *v, unsigned gl_buffer) {
    if (!c || !v || !v->width || !v->height)
        return wl_error(WL_ERR_INVALID, "render_gl: NULL argument or empty view");
    if (v->zoom > GL_ZOOM_MAX || v->zoom < GL_ZOOM_MIN)
        return wl_error(WL_ERR_INVALID, "render_gl: zoom %d outside [%d, %d]", v->zoom,
                        GL_ZOOM_MIN, GL_ZOOM_MAX);
    size_t need = (size_t)v->width * v->height * 4;
    WLCU_CHECK(cudaSetDevice(c->device));
    int64_t size = gl_buffer_size(gl_buffer);
    if (size >= 0 && (uint64_t)size < need)
        return wl_error(WL_ERR_INVALID, "render_gl: buffer %u holds %lld bytes, the view needs %zu",
                        gl_buffer, (long long)size, need);
    gl_state *st = (gl_state *)c->gl;
    if (!st) {
        st = (gl_state *)wl_calloc(1, sizeof *st);
        if (!st) return WL_ERR_NOMEM;
        c->gl = st;
    }
    const uint32_t *bits = NULL;
    wl_status s = source_bits(c, st, &bits);
    if (!s) s = gl_register(st, gl_buffer, size);
    if (s) return s;
    cudaStream_t stream = cudaStreamLegacy; /* see "Streams" above */
    WLCU_CHECK(cudaGraphicsMapResources(1, &st->res, stream));
    void *ptr = NULL;
    size_t mapped = 0;
    cudaError_t e = cudaGraphicsResourceGetMappedPointer(&ptr, &mapped, st->res);
    if (e != cudaSuccess)
        s = wl_error(WL_ERR_DEVICE, "CUDA: cudaGraphicsResourceGetMappedPointer: %s",
                     cudaGetErrorString(e));
    else if (mapped < need)
        s = wl_error(WL_ERR_INVALID, "render_gl: buffer %u holds %zu bytes, the view needs %zu",
                     gl_buffer, mapped, need);
    else
        s = launch(c, bits, v, (uint32_t *)ptr, stream);
    e = cudaGraphicsUnmapResources(1, &st->res, stream);
    if (!s && e != cudaSuccess)
        s = wl_error(WL_ERR_DEVICE, "CUDA: cudaGraphicsUnmapResources: %s",
                     cudaGetErrorString(e));
    return s;
}

extern "C" void wlcu_gl_release(wlcu_ctx *c) {
    if (!c || !c->gl) return;
    gl_state *st = (gl_state *)c->gl;
    cudaSetDevice(c->device);
    if (st->res) cudaGraphicsUnregisterResource(st->res); /* fails harmlessly without GL */
    cudaFree(st->scratch);
    free(st);
    c->gl = NULL;
}
