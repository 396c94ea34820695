/*
 * test_render.c - the rendering and image helpers behind `warplife view` (src/render):
 * the word-at-a-time renderer against a naive per-pixel one on fresh random patterns and
 * views (every zoom from 2^-6 to 2^4, views straddling and outside the bitmap), snapshots
 * of a grid universe against its stored pattern, the default wl_universe_render, and
 * PNG / PPM files written and read back pixel for pixel.
 * (test_view.c tests the viewer, `warplife view`, end to end.)
 */
#define _POSIX_C_SOURCE 200809L

#include "internal.h"
#include "wltest.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ALIVE 0xff00ff00u
#define DEAD 0xff201000u

/* The definition of a view, pixel by pixel, straight from the pattern. */
static void naive_render(const wl_pattern *p, const wl_view *v, uint32_t *rgba) {
    for (uint32_t py = 0; py < v->height; py++)
        for (uint32_t px = 0; px < v->width; px++) {
            int on = 0;
            if (v->zoom >= 0) {
                on = wl_pattern_get(p, v->x + (int64_t)(px >> v->zoom),
                                    v->y + (int64_t)(py >> v->zoom));
            } else {
                int64_t n = (int64_t)1 << -v->zoom;
                for (int64_t dy = 0; dy < n && !on; dy++)
                    for (int64_t dx = 0; dx < n && !on; dx++)
                        on = wl_pattern_get(p, v->x + (int64_t)px * n + dx,
                                            v->y + (int64_t)py * n + dy);
            }
            rgba[(size_t)py * v->width + px] = on ? v->alive : v->dead;
        }
}

static uint64_t rnd(uint64_t *st, uint64_t n) { return wl_splitmix64(st) % n; }

/* Random sparse-ish patterns at random places, random views: fast == naive. */
static void test_render_random(uint64_t *st, int rounds) {
    uint32_t *a = malloc(300 * 200 * 4), *b = malloc(300 * 200 * 4);
    for (int round = 0; round < rounds; round++) {
        wl_pattern *p = wl_pattern_new();
        wl_rect r = {(int64_t)rnd(st, 200) - 100, (int64_t)rnd(st, 200) - 100,
                     1 + rnd(st, 190), 1 + rnd(st, 150)};
        double density = (double)rnd(st, 100) / 100.0 * 0.3;
        WL_CHECK_OK(wl_pattern_random(p, &r, density, wl_splitmix64(st)));
        if (round % 5 == 0) wl_pattern_clear(p); /* empty patterns too */
        wl_snapshot *snap = NULL;
        WL_CHECK_OK(wl_pattern_snapshot(p, &snap));
        if (!snap) {
            wl_pattern_free(p);
            continue;
        }
        WL_CHECK(wl_snapshot_population(snap) == wl_pattern_population(p), "population");
        wl_rect pb, sb;
        int pe = wl_pattern_bounds(p, &pb), se = wl_snapshot_bounds(snap, &sb);
        WL_CHECK(pe == se && (!pe || (pb.x == sb.x && pb.y == sb.y && pb.w == sb.w &&
                                      pb.h == sb.h)),
                 "bounds differ");
        for (int k = 0; k < 6; k++) {
            wl_view v = {0};
            v.zoom = (int)rnd(st, 11) - 6;
            /* Zoomed out, the naive renderer reads 4^-zoom cells a pixel: smaller views. */
            uint32_t maxw = v.zoom < -2 ? 80 : 300, maxh = v.zoom < -2 ? 60 : 200;
            v.width = 1 + (uint32_t)rnd(st, maxw);
            v.height = 1 + (uint32_t)rnd(st, maxh);
            int64_t span = 400;
            v.x = (int64_t)rnd(st, (uint64_t)span) - span / 2 - (int64_t)(v.zoom < 0 ? 100 : 0);
            v.y = (int64_t)rnd(st, (uint64_t)span) - span / 2 - (int64_t)(v.zoom < 0 ? 100 : 0);
            v.alive = ALIVE;
            v.dead = DEAD;
            naive_render(p, &v, a);
            memset(b, 0x55, (size_t)v.width * v.height * 4);
            WL_CHECK_OK(wl_snapshot_render(snap, &v, b));
            size_t bad = 0, first = 0;
            for (size_t i = 0; i < (size_t)v.width * v.height; i++)
                if (a[i] != b[i] && !bad++) first = i;
            WL_CHECK(bad == 0,
                     "view x=%lld y=%lld zoom=%d %ux%u: %zu pixels differ, first at (%zu,%zu)",
                     (long long)v.x, (long long)v.y, v.zoom, v.width, v.height, bad,
                     first % v.width, first / v.width);
        }
        wl_snapshot_free(snap);
        wl_pattern_free(p);
    }
    free(a);
    free(b);
}

/* A torus universe of an odd size: snapshot, default render and store agree. */
static void test_universe_snapshot(uint64_t *st) {
    wl_universe *u = NULL;
    WL_CHECK_OK(wl_test_make("ref", NULL, WL_TOPOLOGY_TORUS, 131, 77, NULL, 0, &u));
    if (!u) return;
    wl_pattern *p = wl_pattern_new();
    wl_rect r = {-65, -38, 131, 77};
    WL_CHECK_OK(wl_pattern_random(p, &r, 0.4, wl_splitmix64(st)));
    WL_CHECK_OK(wl_universe_load(u, p, NULL));
    WL_CHECK_OK(wl_universe_step(u, 3));
    wl_pattern *stored = NULL;
    WL_CHECK_OK(wl_universe_store(u, &stored));
    wl_snapshot *snap = NULL;
    WL_CHECK_OK(wl_universe_snapshot(u, &snap));
    WL_CHECK_OK(wl_universe_snapshot(u, &snap)); /* reuse of the buffer */
    if (snap && stored) {
        wl_bigint g;
        uint64_t g64 = 0;
        wl_snapshot_generation(snap, &g);
        WL_CHECK(wl_bigint_to_u64(&g, &g64) && g64 == 3, "snapshot generation");
        WL_CHECK(wl_snapshot_population(snap) == wl_pattern_population(stored), "population");
        int same = 1;
        for (int64_t y = -40; y < 40; y++)
            for (int64_t x = -70; x < 70; x++)
                if (wl_snapshot_get(snap, x, y) != wl_pattern_get(stored, x, y)) same = 0;
        WL_CHECK(same, "snapshot cells differ from the stored pattern");
        for (int zoom = -3; zoom <= 2; zoom++) {
            wl_view v = {-80, -50, zoom, 97, 61, ALIVE, DEAD};
            uint32_t *a = malloc(97 * 61 * 4), *b = malloc(97 * 61 * 4);
            naive_render(stored, &v, a);
            WL_CHECK_OK(wl_universe_render(u, &v, b));
            WL_CHECK(memcmp(a, b, 97 * 61 * 4) == 0, "universe render zoom %d differs", zoom);
            free(a);
            free(b);
        }
    }
    wl_view bad = {0, 0, 30, 10, 10, ALIVE, DEAD};
    uint32_t px[100];
    WL_CHECK(snap && wl_snapshot_render(snap, &bad, px) == WL_ERR_INVALID, "zoom 30 rejected");
    wl_snapshot_free(snap);
    wl_pattern_free(stored);
    wl_pattern_free(p);
    wl_universe_free(u);
}

/* Images written and read back equal (PPM always; PNG when built in). */
static void test_images(uint64_t *st) {
    uint32_t w = 37, h = 23;
    uint32_t *img = malloc((size_t)w * h * 4);
    for (size_t i = 0; i < (size_t)w * h; i++) img[i] = (uint32_t)wl_splitmix64(st) | 0xff000000u;
    char dir[] = "/tmp/wl_test_render_XXXXXX";
    if (!mkdtemp(dir)) {
        WL_CHECK(0, "mkdtemp failed");
        free(img);
        return;
    }
    const char *names[] = {"a.ppm", "a.png"};
    for (int k = 0; k < 2; k++) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        wl_status s = wl_image_write(path, img, w, h);
#ifndef WL_HAVE_PNG
        if (k == 1) {
            WL_CHECK(s == WL_ERR_UNAVAILABLE, "PNG without libpng must be unavailable");
            printf("skipped: PNG round trip (libpng not built in)\n");
            continue;
        }
#endif
        WL_CHECK_OK(s);
        uint32_t *back = NULL, bw = 0, bh = 0;
        WL_CHECK_OK(wl_image_read(path, &back, &bw, &bh));
        WL_CHECK(back && bw == w && bh == h && memcmp(back, img, (size_t)w * h * 4) == 0,
                 "%s read back differs", names[k]);
        free(back);
        remove(path);
    }
    char path[128];
    snprintf(path, sizeof path, "%s/a.bmp", dir);
    WL_CHECK(wl_image_write(path, img, w, h) == WL_ERR_INVALID, "unknown extension rejected");
    rmdir(dir);
    free(img);
}

/* Multi-state cells: each pixel of a palette render is the palette's colour of the state
 * under it, for snapshots of patterns and of universes (grid and plane engines), zoomed
 * in; zoomed out, palette[1] where any cell under a pixel is live. */
static void check_palette(const wl_snapshot *snap, const wl_pattern *want, const char *what) {
    uint32_t pal[WL_STATES_MAX];
    for (unsigned k = 0; k < WL_STATES_MAX; k++) pal[k] = 0xFF000000u | k * 0x010203u;
    for (int zoom = -1; zoom <= 2; zoom++) {
        wl_view v = {-25, -19, zoom, 53, 41, 0, 0};
        uint32_t img[53 * 41];
        WL_CHECK_OK(wl_snapshot_render_palette(snap, &v, pal, img));
        int bad = 0;
        for (uint32_t py = 0; py < v.height && !bad; py++)
            for (uint32_t px = 0; px < v.width && !bad; px++) {
                uint32_t want_colour;
                if (zoom >= 0) {
                    int64_t x = v.x + (int64_t)(px >> zoom), y = v.y + (int64_t)(py >> zoom);
                    want_colour = pal[wl_pattern_get_state(want, x, y)];
                    bad |= wl_snapshot_get_state(snap, x, y) != wl_pattern_get_state(want, x, y);
                } else {
                    int any = 0;
                    for (int dy = 0; dy < 2; dy++)
                        for (int dx = 0; dx < 2; dx++)
                            any |= wl_pattern_get(want, v.x + 2 * px + dx, v.y + 2 * py + dy);
                    want_colour = pal[any];
                }
                bad |= img[py * v.width + px] != want_colour;
            }
        WL_CHECK(!bad, "%s: palette render at zoom %d", what, zoom);
    }
}

static void test_palette(uint64_t *st) {
    static const char *const rules[] = {"/2/3", "345/2/40", "LifeSuper", "R2,C12,S2-5,B3-4"};
    for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++) {
        wl_rule rule;
        WL_CHECK_OK(wl_rule_parse(rules[r], &rule));
        wl_pattern *p = wl_pattern_new();
        wl_pattern_set_rule(p, &rule);
        for (int k = 0; k < 400; k++)
            WL_CHECK_OK(wl_pattern_set_state(p, (int64_t)(wl_splitmix64(st) % 40) - 20,
                                             (int64_t)(wl_splitmix64(st) % 30) - 15,
                                             1 + (unsigned)(wl_splitmix64(st) % (wl_rule_states(&rule) - 1))));
        wl_snapshot *snap = NULL;
        WL_CHECK_OK(wl_pattern_snapshot(p, &snap));
        WL_CHECK(wl_snapshot_states(snap) == wl_rule_states(&rule), "%s: states", rules[r]);
        check_palette(snap, p, rules[r]);
        /* a universe's snapshot after some generations, on a grid and on the plane */
        for (int plane = 0; plane < 2; plane++) {
            wl_universe *u = NULL;
            WL_CHECK_OK(wl_test_make(plane ? "grow" : "ref", plane ? "ref" : NULL,
                                     plane ? WL_TOPOLOGY_PLANE : WL_TOPOLOGY_TORUS, 61, 47, &rule, 1, &u));
            if (!u) continue;
            WL_CHECK_OK(wl_universe_load(u, p, NULL));
            WL_CHECK_OK(wl_universe_step(u, 3));
            wl_pattern *now = NULL;
            WL_CHECK_OK(wl_universe_store(u, &now));
            WL_CHECK_OK(wl_universe_snapshot(u, &snap));
            if (now) check_palette(snap, now, plane ? "plane universe" : "grid universe");
            wl_pattern_free(now);
            wl_universe_free(u);
        }
        wl_snapshot_free(snap);
        wl_pattern_free(p);
    }
}

int main(void) {
    uint64_t st = wl_test_seed();
    const char *quick = getenv("WL_TEST_QUICK");
    test_render_random(&st, quick && *quick == '1' ? 20 : 100);
    test_universe_snapshot(&st);
    test_images(&st);
    test_palette(&st);
    return wl_test_finish("test_render");
}
