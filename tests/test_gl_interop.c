/*
 * test_gl_interop.c - the CUDA engine's OpenGL interop (wl_universe_render_gl) against the
 * host renderer (wl_universe_render), pixel by pixel, in a headless OpenGL context.
 *
 * It makes an OpenGL context without any display through EGL (the EGL device platform,
 * else the default display) with a tiny pbuffer surface, creates pixel buffer objects,
 * fills CUDA universes (torus and bounded, widths that are and are not multiples of 32,
 * the bit layout and the byte and patch layouts) with a random soup from a fresh seed plus
 * a glider and a blinker, steps them, and renders many views (zoomed in, 1:1, zoomed out
 * 2^k up to the whole grid in one pixel, panned off the edges, odd sizes, random views)
 * into a PBO with wl_universe_render_gl.  The PBO is read back with glGetBufferSubData and
 * must equal wl_universe_render's pixels exactly.  Errors (a buffer too small, a zoom out
 * of range) must be reported, and a PBO re-specified with another size must be
 * re-registered.  Last it times render_gl on a 4096x4096 soup for a 1920x1080 view at
 * several zooms and prints frames per second (a figure for docs/BENCHMARKS.md; nothing is
 * asserted about speed).
 *
 * Without a CUDA device, or without a working EGL/OpenGL, it prints "skipped: <why>" and
 * exits 77 (ctest's SKIP_RETURN_CODE for this test).  Label: gpu.
 */
#define _POSIX_C_SOURCE 200809L
#define GL_GLEXT_PROTOTYPES 1

#include "internal.h"
#include "wltest.h"

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SKIP_CODE 77          /* ctest SKIP_RETURN_CODE */
#define PBO_MAX_PIXELS (2048u * 2048u) /* the largest view the checks render */
#define RANDOM_VIEWS 60       /* random views per universe */
#define BENCH_SIDE 4096       /* benchmark universe: BENCH_SIDE^2 soup */
#define BENCH_W 1920          /* benchmark view */
#define BENCH_H 1080
#define BENCH_FRAMES 300      /* render_gl calls timed per zoom */
#define BENCH_HOST_FRAMES 10  /* wl_universe_render calls timed, for comparison */

static int skip(const char *why) {
    printf("skipped: %s\n", why);
    printf("test_gl_interop: skipped\n");
    return SKIP_CODE;
}

/* ---- a headless OpenGL context ---------------------------------------------------------- */

typedef struct glctx {
    EGLDisplay dpy;
    EGLSurface surf;
    EGLContext ctx;
} glctx;

/* The display of the first EGL device that initialises, else the default display. */
static EGLDisplay open_display(void) {
    PFNEGLQUERYDEVICESEXTPROC query =
        (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_dpy =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    if (query && get_dpy) {
        EGLDeviceEXT devs[16];
        EGLint n = 0;
        if (query(16, devs, &n))
            for (EGLint i = 0; i < n; i++) {
                EGLDisplay d = get_dpy(EGL_PLATFORM_DEVICE_EXT, devs[i], NULL);
                EGLint major, minor;
                if (d != EGL_NO_DISPLAY && eglInitialize(d, &major, &minor)) return d;
            }
    }
    EGLDisplay d = eglGetDisplay(EGL_DEFAULT_DISPLAY);
    EGLint major, minor;
    if (d != EGL_NO_DISPLAY && eglInitialize(d, &major, &minor)) return d;
    return EGL_NO_DISPLAY;
}

/* Makes a desktop OpenGL context current with a 16x16 pbuffer; 0 on success, else writes
 * why into `why`. */
static int gl_open(glctx *g, char *why, size_t len) {
    memset(g, 0, sizeof *g);
    g->dpy = open_display();
    if (g->dpy == EGL_NO_DISPLAY) {
        snprintf(why, len, "no EGL display (eglInitialize failed: 0x%x)", eglGetError());
        return -1;
    }
    if (!eglBindAPI(EGL_OPENGL_API)) {
        snprintf(why, len, "EGL cannot bind the desktop OpenGL API");
        return -1;
    }
    const EGLint cfg_attr[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                               EGL_OPENGL_BIT,   EGL_RED_SIZE,    8,
                               EGL_GREEN_SIZE,   8,               EGL_BLUE_SIZE,
                               8,                EGL_ALPHA_SIZE,  8,
                               EGL_NONE};
    EGLConfig cfg;
    EGLint n = 0;
    if (!eglChooseConfig(g->dpy, cfg_attr, &cfg, 1, &n) || n < 1) {
        snprintf(why, len, "no EGL config with a pbuffer and desktop OpenGL");
        return -1;
    }
    const EGLint pb_attr[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
    g->surf = eglCreatePbufferSurface(g->dpy, cfg, pb_attr);
    g->ctx = eglCreateContext(g->dpy, cfg, EGL_NO_CONTEXT, NULL);
    if (g->surf == EGL_NO_SURFACE || g->ctx == EGL_NO_CONTEXT ||
        !eglMakeCurrent(g->dpy, g->surf, g->surf, g->ctx)) {
        snprintf(why, len, "cannot make an EGL OpenGL context current (0x%x)", eglGetError());
        return -1;
    }
    return 0;
}

static void gl_close(glctx *g) {
    if (g->dpy == EGL_NO_DISPLAY) return;
    eglMakeCurrent(g->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (g->ctx != EGL_NO_CONTEXT) eglDestroyContext(g->dpy, g->ctx);
    if (g->surf != EGL_NO_SURFACE) eglDestroySurface(g->dpy, g->surf);
    eglTerminate(g->dpy);
}

static GLuint make_pbo(size_t bytes) {
    GLuint b = 0;
    glGenBuffers(1, &b);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, b);
    glBufferData(GL_PIXEL_UNPACK_BUFFER, (GLsizeiptr)bytes, NULL, GL_STREAM_DRAW);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    return b;
}

static void read_pbo(GLuint b, uint32_t *dst, size_t pixels) {
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, b);
    glGetBufferSubData(GL_PIXEL_UNPACK_BUFFER, 0, (GLsizeiptr)(pixels * 4), dst);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
}

/* ---- checks ----------------------------------------------------------------------------- */

static uint32_t *g_gpu, *g_host; /* PBO_MAX_PIXELS each */

/* Renders v both ways and compares; `what` names the case in a failure. */
static void check_view(wl_universe *u, GLuint pbo, const wl_view *v, const char *what) {
    size_t n = (size_t)v->width * v->height;
    memset(g_gpu, 0xab, n * 4);
    wl_status s = wl_universe_render_gl(u, v, pbo);
    WL_CHECK(s == WL_OK, "%s: render_gl -> %s (%s)", what, wl_status_str(s), wl_last_error());
    if (s) return;
    read_pbo(pbo, g_gpu, n);
    s = wl_universe_render(u, v, g_host);
    WL_CHECK(s == WL_OK, "%s: render -> %s (%s)", what, wl_status_str(s), wl_last_error());
    if (s) return;
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (g_gpu[i] != g_host[i] && bad++ == 0) first = i;
    WL_CHECK(bad == 0,
             "%s: view x=%lld y=%lld zoom %d %ux%u: %zu of %zu pixels differ, first at "
             "(%zu, %zu): gpu %08x host %08x",
             what, (long long)v->x, (long long)v->y, v->zoom, v->width, v->height, bad, n,
             first % v->width, first / v->width, g_gpu[first], g_host[first]);
}

static wl_view make_view(int64_t x, int64_t y, int zoom, uint32_t w, uint32_t h) {
    wl_view v = {x, y, zoom, w, h, 0xff30e0ffu, 0xff201010u};
    return v;
}

/* A universe of the given engine kernel, topology and size with a soup, a glider and a
 * blinker, stepped `gens` generations. */
static wl_universe *make_universe(const char *kernel, wl_topology topo, uint64_t w, uint64_t h,
                                  uint64_t seed, uint64_t gens) {
    wl_universe *u = NULL;
    wl_status s = wl_test_make("cuda", kernel, topo, w, h, NULL, 0, &u);
    WL_CHECK(s == WL_OK, "create cuda/%s %llux%llu: %s", kernel, (unsigned long long)w,
             (unsigned long long)h, wl_last_error());
    if (s) return NULL;
    wl_pattern *p = wl_pattern_new();
    int64_t x0 = -(int64_t)(w / 2), y0 = -(int64_t)(h / 2);
    /* a soup over the left part of the grid, empty space on the right */
    wl_rect r = {x0, y0, w * 2 / 3, h};
    WL_CHECK_OK(wl_pattern_random(p, &r, 0.3, seed));
    static const int glider[5][2] = {{1, 0}, {2, 1}, {0, 2}, {1, 2}, {2, 2}};
    int64_t gx = x0 + (int64_t)(w * 5 / 6), gy = 0;
    for (int i = 0; i < 5; i++) wl_pattern_set(p, gx + glider[i][0], gy + glider[i][1], 1);
    for (int i = 0; i < 3; i++) wl_pattern_set(p, gx + i, gy + (int64_t)h / 4, 1);
    /* a live cell in the last column and row, where words and pixels end */
    wl_pattern_set(p, x0 + (int64_t)w - 1, y0 + (int64_t)h - 1, 1);
    WL_CHECK_OK(wl_universe_load(u, p, NULL));
    wl_pattern_free(p);
    WL_CHECK_OK(wl_universe_step(u, gens));
    return u;
}

/* The fixed views and RANDOM_VIEWS random ones over a w x h grid. */
static void check_views(wl_universe *u, GLuint pbo, uint64_t w, uint64_t h, uint64_t *rng,
                        const char *name) {
    int64_t x0 = -(int64_t)(w / 2), y0 = -(int64_t)(h / 2);
    char what[160];
    struct {
        int64_t x, y;
        int zoom;
        uint32_t w, h;
        const char *label;
    } fixed[] = {
        {x0, y0, 0, 640, 480, "1:1 at the corner"},
        {x0 - 7, y0 - 3, 0, 333, 171, "1:1 panned off the edge"},
        {x0 + 5, y0 + 9, 2, 301, 203, "zoom 2"},
        {x0 + 30, y0 + 30, 5, 257, 129, "zoom 5"},
        {x0 - 1, y0 - 1, -1, 512, 384, "zoom -1"},
        {x0 + 3, y0 - 5, -2, 301, 203, "zoom -2 odd"},
        {x0 - 17, y0 + 11, -3, 97, 61, "zoom -3"},
        {x0, y0, -5, 40, 33, "zoom -5"},
        {x0 - 3, y0 - 3, -6, 17, 13, "zoom -6 panned"},
        {x0 - 100, y0 - 100, -10, 3, 3, "zoom -10: the grid in one pixel"},
        {x0, y0, -40, 4, 4, "zoom -40"},
        {x0 + (int64_t)w + 10, y0, 0, 64, 64, "outside the grid"},
        {x0 + (int64_t)w - 40, y0 + (int64_t)h - 40, 1, 100, 100, "bottom-right corner"},
        {0, 0, 20, 7, 5, "zoom 20"},
        {x0, y0, 0, 1, 1, "one pixel"},
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        wl_view v = make_view(fixed[i].x, fixed[i].y, fixed[i].zoom, fixed[i].w, fixed[i].h);
        snprintf(what, sizeof what, "%s: %s", name, fixed[i].label);
        check_view(u, pbo, &v, what);
    }
    for (int i = 0; i < RANDOM_VIEWS; i++) {
        int zoom = (int)(wl_splitmix64(rng) % 13) - 7; /* -7 .. 5 */
        uint32_t vw = 1 + (uint32_t)(wl_splitmix64(rng) % 700);
        uint32_t vh = 1 + (uint32_t)(wl_splitmix64(rng) % 500);
        int64_t span = (int64_t)(w > h ? w : h);
        int64_t x = x0 - span / 4 + (int64_t)(wl_splitmix64(rng) % (uint64_t)(span + span / 2));
        int64_t y = y0 - span / 4 + (int64_t)(wl_splitmix64(rng) % (uint64_t)(span + span / 2));
        wl_view v = make_view(x, y, zoom, vw, vh);
        snprintf(what, sizeof what, "%s: random view %d", name, i);
        check_view(u, pbo, &v, what);
    }
}

/* Errors, and a PBO that changes size or name. */
static void check_buffers(wl_universe *u) {
    GLuint small = make_pbo(100 * 100 * 4);
    wl_view v = make_view(0, 0, 0, 101, 100);
    WL_CHECK(wl_universe_render_gl(u, &v, small) == WL_ERR_INVALID,
             "a buffer smaller than the view must be refused");
    v = make_view(0, 0, 21, 10, 10);
    WL_CHECK(wl_universe_render_gl(u, &v, small) == WL_ERR_INVALID, "zoom 21 must be refused");
    v = make_view(0, 0, 0, 0, 10);
    WL_CHECK(wl_universe_render_gl(u, &v, small) == WL_ERR_INVALID, "an empty view");
    v = make_view(-50, -50, 0, 100, 100);
    check_view(u, small, &v, "small PBO");
    /* re-specified bigger: the old registration must not be used */
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, small);
    glBufferData(GL_PIXEL_UNPACK_BUFFER, 300 * 200 * 4, NULL, GL_STREAM_DRAW);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    v = make_view(-150, -100, 0, 300, 200);
    check_view(u, small, &v, "PBO re-specified bigger");
    GLuint other = make_pbo(300 * 200 * 4);
    v = make_view(-150, -100, -1, 300, 200);
    check_view(u, other, &v, "a second PBO");
    check_view(u, small, &v, "back to the first PBO");
    glDeleteBuffers(1, &small);
    glDeleteBuffers(1, &other);
}

/* The viewer's frame path: render_gl into a PBO holding a view one cell larger than the
 * window, then glTexSubImage2D from GL_PIXEL_UNPACK_BUFFER with the sub-cell offset given
 * as skip pixels/rows; the texture is read back through a framebuffer object and must
 * equal the host render's pixels at that offset. */
static void check_upload(wl_universe *u, GLuint pbo) {
    const uint32_t w = 200, h = 150, ox = 1, oy = 3;
    const int zoom = 2;
    wl_view v = make_view(-30, -20, zoom, w + (1u << zoom), h + (1u << zoom));
    WL_CHECK_OK(wl_universe_render_gl(u, &v, pbo));
    WL_CHECK_OK(wl_universe_render(u, &v, g_host));
    GLuint tex, fbo;
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, (GLsizei)w, (GLsizei)h, 0, GL_RGBA,
                 GL_UNSIGNED_BYTE, NULL);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, (GLint)v.width);
    glPixelStorei(GL_UNPACK_SKIP_PIXELS, (GLint)ox);
    glPixelStorei(GL_UNPACK_SKIP_ROWS, (GLint)oy);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, (GLsizei)w, (GLsizei)h, GL_RGBA, GL_UNSIGNED_BYTE,
                    (const void *)0);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glPixelStorei(GL_UNPACK_SKIP_PIXELS, 0);
    glPixelStorei(GL_UNPACK_SKIP_ROWS, 0);
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
    WL_CHECK(glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE,
             "texture framebuffer incomplete");
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, (GLsizei)w, (GLsizei)h, GL_RGBA, GL_UNSIGNED_BYTE, g_gpu);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDeleteFramebuffers(1, &fbo);
    glDeleteTextures(1, &tex);
    size_t bad = 0;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            bad += g_gpu[(size_t)y * w + x] != g_host[(size_t)(y + oy) * v.width + x + ox];
    WL_CHECK(bad == 0, "PBO -> texture upload with skip pixels/rows: %zu of %u pixels differ",
             bad, w * h);
    WL_CHECK(glGetError() == GL_NO_ERROR, "OpenGL error in the upload path");
}

/* ---- benchmark -------------------------------------------------------------------------- */

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void bench(uint64_t seed) {
    wl_config cfg;
    wl_config_init(&cfg);
    cfg.engine = "cuda";
    cfg.width = cfg.height = BENCH_SIDE;
    wl_universe *u = NULL;
    if (wl_universe_create(&cfg, &u)) {
        printf("bench: cannot create the universe: %s\n", wl_last_error());
        return;
    }
    const wl_engine_ops *ops = wl_universe_ops(u);
    if (ops->randomize) ops->randomize(wl_universe_ctx(u), 0.3, seed);
    wl_universe_step(u, 10);
    /* a full-HD window at four zooms, and the whole 4096x4096 grid at 1:1 and 1:2 */
    const struct {
        uint32_t w, h;
        int zoom;
    } views[] = {{BENCH_W, BENCH_H, 1}, {BENCH_W, BENCH_H, 0}, {BENCH_W, BENCH_H, -1},
                 {BENCH_W, BENCH_H, -2}, {BENCH_SIDE, BENCH_SIDE, 0},
                 {BENCH_SIDE / 2, BENCH_SIDE / 2, -1}};
    size_t max_px = (size_t)BENCH_SIDE * BENCH_SIDE;
    uint32_t *host = malloc(max_px * 4);
    GLuint pbo = make_pbo(max_px * 4);
    for (size_t i = 0; host && i < sizeof views / sizeof views[0]; i++) {
        int z = views[i].zoom;
        uint32_t w = views[i].w, h = views[i].h;
        /* centred on the grid */
        int64_t x = -(int64_t)(z >= 0 ? (w >> z) : ((uint64_t)w << -z)) / 2;
        int64_t y = -(int64_t)(z >= 0 ? (h >> z) : ((uint64_t)h << -z)) / 2;
        wl_view v = make_view(x, y, z, w, h);
        wl_universe_render_gl(u, &v, pbo); /* warm-up: registration */
        glFinish();
        double t0 = now();
        wl_status s = WL_OK;
        for (int f = 0; f < BENCH_FRAMES && !s; f++) s = wl_universe_render_gl(u, &v, pbo);
        glFinish();
        double gl_s = (now() - t0) / BENCH_FRAMES;
        t0 = now();
        for (int f = 0; f < BENCH_HOST_FRAMES && !s; f++) s = wl_universe_render(u, &v, host);
        double host_s = (now() - t0) / BENCH_HOST_FRAMES;
        if (s) {
            printf("bench: %s\n", wl_last_error());
            break;
        }
        printf("bench: %dx%d soup, %ux%u view, zoom %d: render_gl %.3f ms = %.0f fps; "
               "wl_universe_render (download + CPU) %.1f ms = %.1f fps\n",
               BENCH_SIDE, BENCH_SIDE, w, h, z, gl_s * 1e3, 1.0 / gl_s, host_s * 1e3,
               1.0 / host_s);
    }
    glDeleteBuffers(1, &pbo);
    free(host);
    wl_universe_free(u);
}

/* ---- main ------------------------------------------------------------------------------- */

int main(int argc, char **argv) {
    int quick = (argc > 1 && strcmp(argv[1], "--quick") == 0) || getenv("WL_TEST_QUICK");
    uint64_t seed = wl_test_seed();
    if (wl_engine_probe("cuda") != WL_OK) {
        char why[512];
        snprintf(why, sizeof why, "no CUDA engine here: %s", wl_last_error());
        return skip(why);
    }
    glctx g;
    char why[256];
    if (gl_open(&g, why, sizeof why)) {
        gl_close(&g);
        return skip(why);
    }
    printf("OpenGL: %s / %s / %s\n", (const char *)glGetString(GL_VENDOR),
           (const char *)glGetString(GL_RENDERER), (const char *)glGetString(GL_VERSION));
    g_gpu = malloc(PBO_MAX_PIXELS * 4);
    g_host = malloc(PBO_MAX_PIXELS * 4);
    if (!g_gpu || !g_host) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    GLuint pbo = make_pbo((size_t)PBO_MAX_PIXELS * 4);
    uint64_t rng = seed;
    struct {
        const char *kernel;
        wl_topology topo;
        uint64_t w, h;
    } cases[] = {
        {"best", WL_TOPOLOGY_TORUS, 1000, 700},   {"best", WL_TOPOLOGY_BOUNDED, 333, 257},
        {"lut6x3", WL_TOPOLOGY_TORUS, 64, 64},    {"shared", WL_TOPOLOGY_BOUNDED, 301, 199},
        {"patch16", WL_TOPOLOGY_TORUS, 250, 130}, {"best", WL_TOPOLOGY_BOUNDED, 31, 7},
    };
    size_t ncases = quick ? 2 : sizeof cases / sizeof cases[0];
    for (size_t i = 0; i < ncases; i++) {
        wl_universe *u = make_universe(cases[i].kernel, cases[i].topo, cases[i].w, cases[i].h,
                                       wl_splitmix64(&rng), 1 + wl_splitmix64(&rng) % 40);
        if (!u) continue;
        char name[96];
        snprintf(name, sizeof name, "cuda/%s %s %llux%llu", cases[i].kernel,
                 wl_topology_name(cases[i].topo), (unsigned long long)cases[i].w,
                 (unsigned long long)cases[i].h);
        check_views(u, pbo, cases[i].w, cases[i].h, &rng, name);
        if (i == 0) {
            check_buffers(u);
            check_upload(u, pbo);
        }
        wl_universe_free(u);
    }
    if (!quick) bench(seed);
    glDeleteBuffers(1, &pbo);
    free(g_gpu);
    free(g_host);
    gl_close(&g);
    return wl_test_finish("test_gl_interop");
}
