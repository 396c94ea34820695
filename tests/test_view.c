/*
 * test_view.c - end-to-end tests of `warplife view` (usage: test_view PATH-TO-warplife):
 * off-screen screenshots of a glider at several zooms (before and after stepping) checked
 * pixel by pixel; then, under a display (DISPLAY, or a private Xvfb; skipped with a visible
 * reason otherwise), the real window driven by scripted keys and mouse (step, step size,
 * reset, click, draw, select and fill, clear, run, save, drop a file), checking the
 * generation and population it prints on exit and the pixels it reads back from OpenGL;
 * and the clear "no display" exit status 3.  Expected pictures
 * come from the pattern and the reference engine, never from the viewer itself.
 *
 * The display.  Without DISPLAY the window tests run on a private Xvfb started once with
 * -displayfd: the server itself picks a free display number (taking its lock file
 * atomically) and reports it.  `xvfb-run -a` instead guesses a free number from the lock
 * files and starts a server per command, so two of them starting at once (parallel ctest
 * runs, other builds on the machine) can pick the same number and one fails: the likely
 * cause of a once-seen failure of this test.  xvfb-run stays the fallback when Xvfb cannot
 * be started directly.
 */
#define _XOPEN_SOURCE 700

#include "internal.h" /* WL_PRINTF */
#include "wltest.h"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define ALIVE 0xff30e0ffu /* the viewer's colours (view_state.h, view.c) */
#define DEAD 0xff201010u

static const char glider_rle[] = "x = 3, y = 3, rule = B3/S23\nbo$2bo$3o!\n";
static const char blinker_rle[] = "x = 3, y = 1, rule = B3/S23\n3o!\n";

static char dir[64];
static const char *exe;

/* Runs a shell command in the temporary directory; captures stdout+stderr into out. */
static int run(char *out, size_t len, const char *fmt, ...) WL_PRINTF(3, 4);
static int run(char *out, size_t len, const char *fmt, ...) {
    char cmd[2048], full[2300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    snprintf(full, sizeof full, "cd '%s' && %s 2>&1", dir, cmd);
    FILE *f = popen(full, "r");
    if (!f) return -1;
    size_t n = fread(out, 1, len - 1, f);
    out[n] = 0;
    int st = pclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int parse_result(const char *out, uint64_t *gen, uint64_t *pop) {
    const char *p = strstr(out, "generation ");
    unsigned long long g, q;
    if (!p || sscanf(p, "generation %llu population %llu", &g, &q) != 2) return -1;
    *gen = g;
    *pop = q;
    return 0;
}

/* The glider stepped n generations by the reference engine on a roomy torus. */
static wl_pattern *reference(const char *rle, uint64_t n) {
    wl_pattern *p = NULL, *out = NULL;
    wl_universe *u = NULL;
    wl_config cfg;
    wl_config_init(&cfg);
    cfg.engine = "ref";
    cfg.width = cfg.height = 256;
    if (wl_pattern_read_mem(rle, strlen(rle), "glider", &p) || wl_universe_create(&cfg, &u) ||
        wl_universe_load(u, p, NULL) || wl_universe_step(u, n) || wl_universe_store(u, &out))
        out = NULL;
    wl_universe_free(u);
    wl_pattern_free(p);
    return out;
}

/* Checks an image against the pattern seen through view v, every pixel. */
static void check_image(const char *name, const wl_pattern *p, const wl_view *v) {
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    uint32_t *img = NULL, w = 0, h = 0;
    WL_CHECK_OK(wl_image_read(path, &img, &w, &h));
    if (!img) return;
    WL_CHECK(w == v->width && h == v->height, "%s: size %ux%u", name, w, h);
    size_t bad = 0, lit = 0;
    for (uint32_t py = 0; py < h && w == v->width && h == v->height; py++)
        for (uint32_t px = 0; px < w; px++) {
            int on = 0;
            if (v->zoom >= 0) {
                on = wl_pattern_get(p, v->x + (px >> v->zoom), v->y + (py >> v->zoom));
            } else {
                int64_t n = (int64_t)1 << -v->zoom;
                for (int64_t dy = 0; dy < n; dy++)
                    for (int64_t dx = 0; dx < n; dx++)
                        on |= wl_pattern_get(p, v->x + px * n + dx, v->y + py * n + dy);
            }
            uint32_t got = img[(size_t)py * w + px];
            lit += got == ALIVE;
            if (got != (on ? ALIVE : DEAD)) bad++;
        }
    WL_CHECK(bad == 0, "%s: %zu pixels differ from the pattern", name, bad);
    WL_CHECK(lit > 0, "%s: no live pixel at all (view %lld,%lld zoom %d)", name, (long long)v->x, (long long)v->y, v->zoom);
    free(img);
}

static void test_offscreen(void) {
    static const int zooms[] = {4, 1, 0, -1, -2};
    static const char *const engines[] = {"", "--engine ref --torus 64x64"};
    for (int k = 0; k < 2; k++)
        for (int run_it = 0; run_it < 2; run_it++) {
            uint64_t gens = run_it ? 6 : 0; /* --frames 3 --step 2 */
            wl_pattern *want = reference(glider_rle, gens);
            WL_CHECK(want != NULL, "reference engine failed");
            for (size_t i = 0; want && i < sizeof zooms / sizeof zooms[0]; i++) {
                char out[4096];
                int rc = run(out, sizeof out,
                             "'%s' view glider.rle %s --screenshot off.ppm --zoom %d "
                             "--center %s --size 64x48 -q %s",
                             exe, engines[k], zooms[i], run_it ? "3,2" : "1,1",
                             run_it ? "--run --frames 3 --step 2" : "");
                uint64_t g = 0, pop = 0;
                WL_CHECK(rc == 0 && parse_result(out, &g, &pop) == 0 && g == gens && pop == 5,
                         "off-screen zoom %d rc %d: %s", zooms[i], rc, out);
                wl_view v = {0};
                long long x, y;
                const char *line = strstr(out, "view x ");
                if (line && sscanf(line, "view x %lld y %lld zoom %d size %ux%u", &x, &y, &v.zoom,
                                   &v.width, &v.height) == 5) {
                    v.x = x;
                    v.y = y;
                    WL_CHECK(v.zoom == zooms[i], "zoom %d printed as %d", zooms[i], v.zoom);
                    check_image("off.ppm", want, &v);
                } else {
                    WL_CHECK(0, "no view line in: %s", out);
                }
            }
            wl_pattern_free(want);
        }
    /* PNG too, when built in. */
#ifdef WL_HAVE_PNG
    char out[4096];
    int rc = run(out, sizeof out, "'%s' view glider.rle --screenshot off.png --zoom 2 --center 1,1 "
                 "--size 32x24 -q", exe);
    WL_CHECK(rc == 0, "PNG screenshot: %s", out);
    wl_pattern *want = reference(glider_rle, 0);
    /* zoom 2 with centre (1,1) in 32x24: top-left cell floor(1.5 - 4) = -3, floor(1.5 - 3) = -2. */
    wl_view v = {-3, -2, 2, 32, 24, ALIVE, DEAD};
    if (want && rc == 0) check_image("off.png", want, &v);
    wl_pattern_free(want);
#endif
    char out2[4096];
    WL_CHECK(run(out2, sizeof out2, "'%s' view glider.rle --screenshot off.bmp -q", exe) != 0,
             "a .bmp screenshot must fail");
}

/* The window: 256x192 at zoom 3 centred on cell (0,0): cell (x,y)'s centre is at pixel
 * (128 + 8x, 96 + 8y). */
#define PX(x) (128 + 8 * (x))
#define PY(y) (96 + 8 * (y))

static const char *launcher;

static int window(char *out, size_t len, const char *engine, const char *script,
                  const char *extra) {
    return run(out, len,
               "%s'%s' view glider.rle %s --zoom 3 --center 0,0 --size 256x192 -q "
               "--script '%s' %s",
               launcher, exe, engine, script, extra);
}

static void expect(const char *engine, const char *script, uint64_t gen, uint64_t pop_lo,
                   uint64_t pop_hi) {
    char out[8192];
    int rc = window(out, sizeof out, engine, script, "");
    uint64_t g = 0, p = 0;
    int ok = rc == 0 && parse_result(out, &g, &p) == 0;
    WL_CHECK(ok && g == gen && p >= pop_lo && p <= pop_hi,
             "[%s] script \"%s\": want generation %llu population %llu..%llu; rc %d: %s",
             engine, script, (unsigned long long)gen, (unsigned long long)pop_lo,
             (unsigned long long)pop_hi, rc, out);
}

/* Checks a 256x192 window image whose cell (x, y) has its centre at pixel
 * (128 + s x, 96 + s y) against the pattern, at every cell centre clear of the status
 * line. */
static void check_window(const char *name, const wl_pattern *want, int s) {
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    uint32_t *img = NULL, w = 0, h = 0;
    WL_CHECK_OK(wl_image_read(path, &img, &w, &h));
    if (img && want && w == 256 && h == 192) {
        size_t bad = 0, lit = 0;
        for (int y = -96 / s; 96 + s * y < 150; y++)
            for (int x = -128 / s; 128 + s * x < 256; x++) {
                uint32_t got = img[(size_t)(96 + s * y) * w + (size_t)(128 + s * x)];
                int on = wl_pattern_get(want, x, y);
                lit += on;
                if (got != (on ? ALIVE : DEAD)) bad++;
            }
        WL_CHECK(bad == 0 && lit == 5, "%s: %zu cells wrong, %zu alive", name, bad, lit);
    } else {
        WL_CHECK(0, "%s: window screenshot missing or wrong size (%ux%u)", name, w, h);
    }
    free(img);
}

static void test_window(void) {
    const char *eng = "--engine ref --torus 128x128";
    char out[8192], script[512];
    /* Steps, then pixels read back from OpenGL. */
    int rc = window(out, sizeof out, "", "n n + n", "--window --screenshot win.ppm");
    uint64_t g = 0, p = 0;
    WL_CHECK(rc == 0 && parse_result(out, &g, &p) == 0 && g == 4 && p == 5,
             "window steps: rc %d: %s", rc, out);
    wl_pattern *want = reference(glider_rle, 4);
    check_window("win.ppm", want, 8);
    wl_pattern_free(want);
    /* Zooming in with the wheel at the window's centre, and out with '[', keeps the cell
     * there in place. */
    want = reference(glider_rle, 0);
    rc = window(out, sizeof out, eng, "wheel:128,96,1", "--window --screenshot win.ppm");
    WL_CHECK(rc == 0, "wheel: rc %d: %s", rc, out);
    check_window("win.ppm", want, 16);
    rc = window(out, sizeof out, eng, "[", "--window --screenshot win.ppm");
    WL_CHECK(rc == 0, "zoom out: rc %d: %s", rc, out);
    check_window("win.ppm", want, 4);
    wl_pattern_free(want);
    /* P writes an auto-named PNG of the window. */
    rc = window(out, sizeof out, eng, "p", "");
    const char *shot = strstr(out, "screenshot written to ");
    char file[160] = "";
    WL_CHECK(rc == 0 && shot && sscanf(shot, "screenshot written to %120s", file) == 1,
             "p: rc %d: %s", rc, out);
    if (file[0]) {
        char fpath[256];
        snprintf(fpath, sizeof fpath, "%s/%s", dir, file);
        uint32_t *img = NULL, w = 0, h = 0;
        WL_CHECK_OK(wl_image_read(fpath, &img, &w, &h));
        WL_CHECK(w == 256 && h == 192, "p: %s is %ux%u", file, w, h);
        free(img);
        remove(fpath);
    }

    expect(eng, "n n n n", 4, 5, 5);
    expect(eng, "n n + n r n", 2, 5, 5);           /* reset, then one step of 2 */
    snprintf(script, sizeof script, "click:%d,%d", PX(10), PY(-8));
    expect(eng, script, 0, 6, 6);                   /* a click adds a cell */
    snprintf(script, sizeof script, "click:%d,%d click:%d,%d", PX(10), PY(-8), PX(10), PY(-8));
    expect(eng, script, 0, 5, 5);                   /* a second click removes it */
    snprintf(script, sizeof script, "drag:%d,%d,%d,%d", PX(-10), PY(-8), PX(-4), PY(-8));
    expect(eng, script, 0, 12, 12);                 /* a drag draws 7 cells */
    snprintf(script, sizeof script, "shift+drag:%d,%d,%d,%d u", PX(5), PY(-8), PX(11), PY(-3));
    expect(eng, script, 0, 6, 5 + 42);              /* a 7x6 soup in the selection */
    snprintf(script, sizeof script, "shift+drag:%d,%d,%d,%d u Delete", PX(5), PY(-8), PX(11),
             PY(-3));
    expect(eng, script, 0, 5, 5);                   /* and cleared again */
    {
        /* Running: the generation must pass 10 (the count where it stops is free), and the
         * glider keeps its 5 cells. */
        rc = window(out, sizeof out, eng, "space until:10 space", "");
        WL_CHECK(rc == 0 && parse_result(out, &g, &p) == 0 && g >= 10 && p == 5,
                 "running: rc %d: %s", rc, out);
    }
    /* Escape interrupts a step of 2^40 generations (the window stays responsive; the
     * universe stops at a consistent generation). */
    rc = run(out, sizeof out,
             "%stimeout 120 '%s' view glider.rle --engine ref --torus 1024x1024 --step 2^40 -q "
             "--script 'n !wait:10 !Escape'", launcher, exe);
    WL_CHECK(rc == 0 && parse_result(out, &g, &p) == 0 && g < ((uint64_t)1 << 40) && p == 5,
             "escape: rc %d: %s", rc, out);
    expect("", "drop:blinker.rle", 0, 3, 3);        /* a dropped file replaces the pattern */
    rc = window(out, sizeof out, eng, "n s", "");
    WL_CHECK(rc == 0 && strstr(out, "saved warplife-gen1-"), "save: rc %d: %s", rc, out);
    const char *name = strstr(out, "saved ");
    if (name) {
        char saved_name[128] = "";
        sscanf(name, "saved %100s", saved_name);
        char fpath[256];
        snprintf(fpath, sizeof fpath, "%s/%s", dir, saved_name);
        wl_pattern *saved = NULL;
        WL_CHECK_OK(wl_pattern_read_file(fpath, &saved));
        wl_pattern *want1 = reference(glider_rle, 1);
        WL_CHECK(saved && want1 && wl_pattern_equal_cells(saved, want1), "saved pattern differs");
        wl_pattern_free(saved);
        wl_pattern_free(want1);
        remove(fpath);
    }
    /* Benchmark mode prints frames per second. */
    rc = run(out, sizeof out, "%s'%s' view glider.rle --size 64x64 --frames 5 -q", launcher, exe);
    WL_CHECK(rc == 0 && strstr(out, "frames 5 seconds"), "--frames: rc %d: %s", rc, out);
}

/* Seconds to wait for Xvfb to report its display number. */
#define XVFB_START_SECONDS 20

/* Starts `Xvfb -displayfd` and writes ":N" into disp; returns its pid, or -1. */
static pid_t start_xvfb(char *disp, size_t len) {
    int fds[2];
    if (pipe(fds) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        char fd[16];
        snprintf(fd, sizeof fd, "%d", fds[1]);
        close(fds[0]);
        prctl(PR_SET_PDEATHSIG, SIGTERM); /* the server goes when the test goes */
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, 1);
            dup2(null, 2);
        }
        execlp("Xvfb", "Xvfb", "-displayfd", fd, "-screen", "0", "1280x1024x24", "-nolisten",
               "tcp", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        return -1;
    }
    char buf[32];
    size_t n = 0;
    struct pollfd pf = {fds[0], POLLIN, 0};
    while (n < sizeof buf - 1 && poll(&pf, 1, XVFB_START_SECONDS * 1000) > 0) {
        ssize_t r = read(fds[0], buf + n, sizeof buf - 1 - n);
        if (r <= 0) break;
        n += (size_t)r;
        if (memchr(buf, '\n', n)) break;
    }
    close(fds[0]);
    buf[n] = 0;
    int num;
    if (sscanf(buf, "%d", &num) != 1) {
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
        return -1;
    }
    snprintf(disp, len, ":%d", num);
    return pid;
}

static int test_cli(const char *path) {
    static char abs_path[4096];
    exe = realpath(path, abs_path) ? abs_path : path; /* commands run in another directory */
    snprintf(dir, sizeof dir, "/tmp/wl_test_view_XXXXXX");
    if (!mkdtemp(dir)) {
        WL_CHECK(0, "mkdtemp failed");
        return wl_test_finish("test_view");
    }
    char file[128];
    snprintf(file, sizeof file, "%s/glider.rle", dir);
    WL_CHECK_OK(wl_write_file_atomic(file, glider_rle, strlen(glider_rle)));
    snprintf(file, sizeof file, "%s/blinker.rle", dir);
    WL_CHECK_OK(wl_write_file_atomic(file, blinker_rle, strlen(blinker_rle)));

    test_offscreen();

    /* No display: a clear message and exit 3 (or "viewer not built", also exit 3). */
    char out[4096];
    int rc = run(out, sizeof out,
                 "env -u DISPLAY -u WAYLAND_DISPLAY -u SDL_VIDEODRIVER '%s' view glider.rle", exe);
    int built = strstr(out, "viewer not built") == NULL;
    WL_CHECK(rc == 3 && (strstr(out, "cannot open a window") || !built),
             "no display: rc %d: %s", rc, out);

    /* Under AddressSanitizer the GL driver and SDL leak a few blocks of their own at exit
     * (reports point only into those libraries); leak checks stay on everywhere else. */
#define NO_DRIVER_LEAKS "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\" "
    const char *display = getenv("DISPLAY");
    char xdisplay[32];
    pid_t xvfb;
    if (!built) {
        printf("skipped: window tests (viewer not built: needs SDL2 and OpenGL)\n");
    } else if (display && *display) {
        launcher = NO_DRIVER_LEAKS;
        test_window();
    } else if ((xvfb = start_xvfb(xdisplay, sizeof xdisplay)) > 0) {
        static char env[128];
        snprintf(env, sizeof env, NO_DRIVER_LEAKS "DISPLAY=%s ", xdisplay);
        launcher = env;
        printf("window tests on a private Xvfb, display %s\n", xdisplay);
        test_window();
        kill(xvfb, SIGTERM);
        waitpid(xvfb, NULL, 0);
    } else if (access("/usr/bin/xvfb-run", X_OK) == 0) {
        /* xvfb-run itself needs xauth; without it there is no display to test on. */
        if (run(out, sizeof out, "xvfb-run -a true") != 0) {
            printf("skipped: window tests (xvfb-run does not work here: %s)\n", out);
        } else {
            launcher = NO_DRIVER_LEAKS "xvfb-run -a ";
            test_window();
        }
    } else {
        printf("skipped: window tests (no DISPLAY and no xvfb-run)\n");
    }
    run(out, sizeof out, "rm -f glider.rle blinker.rle off.ppm off.png win.ppm");
    rmdir(dir);
    return wl_test_finish("test_view");
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test_view PATH-TO-warplife\n");
        return 2;
    }
    return test_cli(argv[1]);
}
