/*
 * render.c - turning live cells into pixels, fast: snapshots (bitmaps of live cells, filled
 * from a pattern here or from a universe by src/universe/snapshot.c) and the word-at-a-time
 * renderer behind wl_snapshot_render and the default wl_universe_render.
 *
 * What it computes.  A view (wl_view) names the cell at pixel (0, 0) and a scale: at
 * zoom z >= 0 every cell is a square of 2^z x 2^z pixels; at z < 0 every pixel covers a
 * square of n x n cells, n = 2^-z, and is lit when any of them is alive (so that a glider
 * stays visible however far one zooms out).  The output is width x height RGBA pixels.
 *
 * Memory layout.  A snapshot is one bitmap at an origin: bit (x - x0) % 64 of word
 * bits[(y - y0) * stride + (x - x0) / 64] is cell (x, y); cells outside [x0, x0 + w) x
 * [y0, y0 + h) are dead, and bits past column w - 1 of a row are zero.  Both the pattern
 * bitmap (wl_pattern) and the grid engines' common currency (wl_grid, placed by the rule
 * of wl_universe_load: column c is x = c - floor(W/2)) have exactly this shape, so a grid
 * engine's snapshot is one store_grid into a reused buffer, with no conversion at all.
 *
 * Why it is fast.  Zoomed in (z >= 0) the renderer reads 64 cells at a time with one
 * unaligned two-word fetch, writes each pixel branch-free, and builds only the first pixel
 * row of a cell row: the other 2^z - 1 rows are memcpy'd.  Zoomed out (z < 0) it ORs the n
 * bitmap rows under a pixel row together word by word (only the words the view and the
 * bitmap share), then answers "is any of these n bits set" per pixel with masks over whole
 * words.  Either way the work is proportional to the visible pixels plus the visible
 * bitmap words, never to the universe, and never per cell through a function call.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Zoom limits: beyond 2^20 pixels per cell nothing is visible but one cell; below 2^-40
 * cells per pixel, pixel-to-cell arithmetic on a 4096-pixel-wide view (2^12 * 2^40 =
 * 2^52) would come close to the int64 range. */
#define RENDER_ZOOM_MAX 20
#define RENDER_ZOOM_MIN (-40)

struct wl_snapshot {
    int64_t x0, y0;    /* pattern coordinates of bit 0 of row 0 */
    uint64_t w, h;     /* extent in cells */
    size_t stride;     /* words per row */
    uint64_t *bits;    /* planes * h * stride words (owned), NULL when empty */
    size_t capacity;   /* words allocated */
    wl_bigint generation;
    /* Multi-state cells: plane 0 (the bitmap above) holds the live cells, plane k >= 1 (at
     * bits + k * h * stride) bit k - 1 of (state - 1), as wl_grid's planes. */
    unsigned planes;
    unsigned states;   /* of the rule (2: two-state) */
    wl_family family;
};

/* ---- bit access ----------------------------------------------------------------------- */

/* Returns the 64 cells of `row` (stride words) starting at bitmap column c (which may be
 * negative or past the end: cells there are dead).  Bit i of the result is column c + i. */
static inline uint64_t fetch64(const uint64_t *row, size_t stride, int64_t c) {
    int64_t q = c >> 6; /* arithmetic shift: floor division by 64 */
    unsigned sh = (unsigned)(c & 63);
    uint64_t lo = (q >= 0 && (uint64_t)q < stride) ? row[q] : 0;
    uint64_t hi = (q + 1 >= 0 && (uint64_t)(q + 1) < stride) ? row[q + 1] : 0;
    return sh ? (lo >> sh) | (hi << (64 - sh)) : lo;
}

/* Returns nonzero if any bit in columns [a, b) of the word array acc (nw words) is set;
 * 0 <= a < b <= 64 * nw. */
static int any_bits(const uint64_t *acc, int64_t a, int64_t b) {
    int64_t qa = a >> 6, qb = (b - 1) >> 6;
    uint64_t ma = ~(uint64_t)0 << (a & 63);
    uint64_t mb = ~(uint64_t)0 >> (63 - ((b - 1) & 63));
    if (qa == qb) return (acc[qa] & ma & mb) != 0;
    if (acc[qa] & ma) return 1;
    for (int64_t q = qa + 1; q < qb; q++)
        if (acc[q]) return 1;
    return (acc[qb] & mb) != 0;
}

static void fill(uint32_t *px, size_t n, uint32_t colour) {
    for (size_t i = 0; i < n; i++) px[i] = colour;
}

/* ---- the renderer --------------------------------------------------------------------- */

/* zoom >= 0: each cell is s = 2^zoom pixels square. */
static void render_in(const wl_snapshot *b, const wl_view *v, uint32_t *rgba) {
    const uint32_t s = 1u << v->zoom;
    const uint32_t diff = v->alive ^ v->dead;
    const uint32_t W = v->width, H = v->height;
    const uint32_t ncells = (W + s - 1) / s; /* cells across, the last one maybe cut */
    for (uint32_t r = 0; (uint64_t)r * s < H; r++) {
        uint32_t *out = rgba + (size_t)r * s * W;
        uint32_t rows = H - r * s < s ? H - r * s : s;
        int64_t by = v->y + (int64_t)r - b->y0;
        if (!b->bits || by < 0 || (uint64_t)by >= b->h) {
            fill(out, (size_t)rows * W, v->dead);
            continue;
        }
        const uint64_t *row = b->bits + (size_t)by * b->stride;
        int64_t bx = v->x - b->x0;
        uint32_t px = 0;
        for (uint32_t c = 0; c < ncells; c += 64) {
            uint64_t cells = fetch64(row, b->stride, bx + c);
            uint32_t n = ncells - c < 64 ? ncells - c : 64;
            if (s == 1) {
                for (uint32_t i = 0; i < n; i++)
                    out[px++] = v->dead ^ (diff & (0u - (uint32_t)((cells >> i) & 1u)));
            } else {
                for (uint32_t i = 0; i < n; i++) {
                    uint32_t colour = v->dead ^ (diff & (0u - (uint32_t)((cells >> i) & 1u)));
                    uint32_t end = px + s < W ? px + s : W;
                    while (px < end) out[px++] = colour;
                }
            }
        }
        for (uint32_t k = 1; k < rows; k++) memcpy(out + (size_t)k * W, out, W * sizeof *out);
    }
}

/* zoom < 0: each pixel covers n = 2^-zoom cells square; acc is scratch of b->stride + 2
 * words. */
static void render_out(const wl_snapshot *b, const wl_view *v, uint32_t *rgba,
                       uint64_t *acc) {
    const int64_t n = (int64_t)1 << -v->zoom;
    const uint32_t W = v->width;
    /* Bitmap columns the view covers, clipped to the bitmap: [ca, cb). */
    int64_t va = v->x - b->x0, vb = va + (int64_t)W * n;
    int64_t ca = va < 0 ? 0 : va, cb = vb > (int64_t)b->w ? (int64_t)b->w : vb;
    int64_t qa = ca >> 6, qb = cb > ca ? ((cb - 1) >> 6) + 1 : qa; /* words [qa, qb) */
    /* Pixels whose cells meet the bitmap: [pa, pb). */
    uint32_t pa = 0, pb = 0;
    if (cb > ca) {
        pa = (uint32_t)((ca - va) / n);
        pb = (uint32_t)((cb - 1 - va) / n) + 1;
    }
    for (uint32_t py = 0; py < v->height; py++) {
        uint32_t *out = rgba + (size_t)py * W;
        int64_t ya = v->y + (int64_t)py * n - b->y0, yb = ya + n;
        if (ya < 0) ya = 0;
        if (yb > (int64_t)b->h) yb = (int64_t)b->h;
        if (!b->bits || ya >= yb || pa >= pb) {
            fill(out, W, v->dead);
            continue;
        }
        memset(acc, 0, (size_t)(qb - qa) * sizeof *acc);
        uint64_t any = 0;
        for (int64_t y = ya; y < yb; y++) {
            const uint64_t *row = b->bits + (size_t)y * b->stride + qa;
            for (int64_t q = 0; q < qb - qa; q++) acc[q] |= row[q];
        }
        for (int64_t q = 0; q < qb - qa; q++) any |= acc[q];
        if (!any) {
            fill(out, W, v->dead);
            continue;
        }
        fill(out, pa, v->dead);
        for (uint32_t px = pa; px < pb; px++) {
            int64_t a = va + (int64_t)px * n, e = a + n;
            if (a < ca) a = ca;
            if (e > cb) e = cb;
            out[px] = any_bits(acc, a - qa * 64, e - qa * 64) ? v->alive : v->dead;
        }
        fill(out + pb, W - pb, v->dead);
    }
}

/* ---- multi-state cells ------------------------------------------------------------------ */

unsigned wl_snapshot_get_state(const wl_snapshot *snap, int64_t x, int64_t y) {
    int64_t bx = x - snap->x0, by = y - snap->y0;
    if (bx < 0 || by < 0 || (uint64_t)bx >= snap->w || (uint64_t)by >= snap->h) return 0;
    size_t at = (size_t)by * snap->stride + (size_t)(bx >> 6), plane = (size_t)(snap->h * snap->stride);
    if (!((snap->bits[at] >> (bx & 63)) & 1u)) return 0;
    unsigned st = 1;
    for (unsigned k = 1; k < snap->planes; k++)
        st += (unsigned)((snap->bits[at + k * plane] >> (bx & 63)) & 1u) << (k - 1);
    return st;
}

unsigned wl_snapshot_states(const wl_snapshot *snap) { return snap->states < 2 ? 2 : snap->states; }
wl_family wl_snapshot_family(const wl_snapshot *snap) { return snap->family; }

/* 0xAABBGGRR from red, green, blue. */
static uint32_t rgb(unsigned r, unsigned g, unsigned b) {
    return 0xFF000000u | (uint32_t)b << 16 | (uint32_t)g << 8 | (uint32_t)r;
}

void wl_palette_default(wl_family family, unsigned states, uint32_t alive, uint32_t dead,
                        uint32_t palette[WL_STATES_MAX]) {
    /* History and Super: the colours Golly's documentation names for each state */
    static const unsigned char super[26][3] = {
        {0, 0, 0},       {0, 255, 0},     {0, 0, 160},     {255, 160, 200}, {255, 0, 0},
        {255, 255, 0},   {96, 96, 96},    {255, 0, 160},   {160, 0, 255},   {0, 200, 255},
        {96, 112, 160},  {64, 224, 208},  {0, 128, 128},   {255, 255, 255}, {255, 99, 71},
        {250, 128, 114}, {255, 160, 160}, {255, 165, 0},   {245, 222, 179}, {0, 255, 255},
        {192, 192, 192}, {154, 205, 50},  {255, 182, 193}, {64, 255, 64},   {24, 24, 24},
        {200, 0, 100}};
    palette[0] = dead;
    for (unsigned k = 1; k < WL_STATES_MAX; k++) palette[k] = alive;
    if (family == WL_FAMILY_HISTORY || family == WL_FAMILY_SUPER) {
        for (unsigned k = 1; k < 26; k++) palette[k] = rgb(super[k][0], super[k][1], super[k][2]);
        if (family == WL_FAMILY_HISTORY) palette[3] = rgb(224, 255, 224); /* greenish white */
        return;
    }
    /* the decaying states: from red (state 2) to a dim yellow (state n - 1) */
    for (unsigned k = 2; k < states && k < WL_STATES_MAX; k++) {
        double t = states > 3 ? (double)(k - 2) / (double)(states - 3) : 0.0;
        palette[k] = rgb((unsigned)(255 - 95 * t), (unsigned)(40 + 180 * t), (unsigned)(40 * t));
    }
}

/* zoom >= 0 with a colour for each state: each cell's state from the planes. */
static void render_in_states(const wl_snapshot *b, const wl_view *v, const uint32_t *pal,
                             uint32_t *rgba) {
    const uint32_t s = 1u << v->zoom;
    const uint32_t W = v->width, H = v->height;
    const uint32_t ncells = (W + s - 1) / s;
    const size_t plane = (size_t)(b->h * b->stride);
    for (uint32_t r = 0; (uint64_t)r * s < H; r++) {
        uint32_t *out = rgba + (size_t)r * s * W;
        uint32_t rows = H - r * s < s ? H - r * s : s;
        int64_t by = v->y + (int64_t)r - b->y0;
        if (!b->bits || by < 0 || (uint64_t)by >= b->h) {
            fill(out, (size_t)rows * W, pal[0]);
            continue;
        }
        const uint64_t *row = b->bits + (size_t)by * b->stride;
        int64_t bx = v->x - b->x0;
        uint32_t px = 0;
        for (uint32_t c = 0; c < ncells; c += 64) {
            uint64_t live = fetch64(row, b->stride, bx + c), pl[WL_PATTERN_PLANES] = {0};
            for (unsigned k = 1; k < b->planes && live; k++)
                pl[k - 1] = fetch64(row + k * plane, b->stride, bx + c);
            uint32_t n = ncells - c < 64 ? ncells - c : 64;
            for (uint32_t i = 0; i < n; i++) {
                unsigned st = 0;
                if ((live >> i) & 1u) {
                    st = 1;
                    for (unsigned k = 1; k < b->planes; k++) st += (unsigned)((pl[k - 1] >> i) & 1u) << (k - 1);
                }
                uint32_t colour = pal[st], end = px + s < W ? px + s : W;
                while (px < end) out[px++] = colour;
            }
        }
        for (uint32_t k = 1; k < rows; k++) memcpy(out + (size_t)k * W, out, W * sizeof *out);
    }
}

wl_status wl_snapshot_render_palette(const wl_snapshot *snap, const wl_view *v,
                                     const uint32_t *palette, uint32_t *rgba) {
    if (!snap || !v || !palette || !rgba || !v->width || !v->height)
        return wl_error(WL_ERR_INVALID, "render: NULL argument or empty view");
    if (v->zoom < 0 || snap->planes <= 1) { /* zoomed out: live or not, in palette[1] */
        wl_view two = *v;
        two.alive = palette[1];
        two.dead = palette[0];
        return wl_snapshot_render(snap, &two, rgba);
    }
    if (v->zoom > RENDER_ZOOM_MAX)
        return wl_error(WL_ERR_INVALID, "render: zoom %d outside [%d, %d]", v->zoom,
                        RENDER_ZOOM_MIN, RENDER_ZOOM_MAX);
    render_in_states(snap, v, palette, rgba);
    return WL_OK;
}

wl_status wl_snapshot_render(const wl_snapshot *snap, const wl_view *v, uint32_t *rgba) {
    if (!snap || !v || !rgba || !v->width || !v->height)
        return wl_error(WL_ERR_INVALID, "render: NULL argument or empty view");
    if (v->zoom > RENDER_ZOOM_MAX || v->zoom < RENDER_ZOOM_MIN)
        return wl_error(WL_ERR_INVALID, "render: zoom %d outside [%d, %d]", v->zoom,
                        RENDER_ZOOM_MIN, RENDER_ZOOM_MAX);
    if (v->zoom >= 0) {
        render_in(snap, v, rgba);
        return WL_OK;
    }
    uint64_t *acc = wl_malloc((snap->stride + 2) * sizeof *acc);
    if (!acc) return WL_ERR_NOMEM;
    render_out(snap, v, rgba, acc);
    free(acc);
    return WL_OK;
}

/* ---- snapshots ------------------------------------------------------------------------ */

/* Makes sure s can hold `words` words (keeping nothing). */
static wl_status reserve(wl_snapshot *s, size_t words) {
    if (words <= s->capacity) return WL_OK;
    uint64_t *bits = wl_aligned_alloc(words * sizeof *bits);
    if (!bits) return WL_ERR_NOMEM;
    wl_aligned_free(s->bits);
    s->bits = bits;
    s->capacity = words;
    return WL_OK;
}

/* A bitmap of the pattern's bounding box (widened to whole 64-cell words) in s. */
static wl_status from_pattern(wl_snapshot *s, const wl_pattern *p) {
    wl_rect r;
    s->states = wl_rule_states(wl_pattern_rule(p));
    s->family = wl_rule_family(wl_pattern_rule(p));
    if (!wl_pattern_bounds(p, &r)) {
        s->planes = 1;
        s->w = s->h = 0;
        s->stride = 0;
        s->x0 = s->y0 = 0;
        return WL_OK;
    }
    int64_t tx0 = wl_floordiv(r.x, 64), tx1 = wl_floordiv(r.x + (int64_t)r.w - 1, 64);
    unsigned planes = 1;
    while (planes <= WL_PATTERN_PLANES && wl_pattern_plane(p, planes - 1)) planes++;
    uint64_t *bits;
    wl_status st = wl_snapshot_bitmap_planes(s, tx0 * 64, r.y, (uint64_t)(tx1 - tx0 + 1) * 64,
                                             r.h, planes, &bits);
    if (st) return st;
    for (unsigned k = 0; k < planes; k++) {
        const wl_pattern *src = k ? wl_pattern_plane(p, k - 1) : p;
        uint64_t *base = bits + (size_t)k * r.h * s->stride;
        wl_tile_ref *v;
        size_t n;
        st = wl_pattern_tiles(src, WL_TILES_ANY, 0, 0, &v, &n);
        if (st) return st;
        for (size_t i = 0; i < n; i++) {
            uint64_t rows[64];
            wl_ptile_rows(v[i].t, rows);
            for (int j = 0; j < 64; j++) {
                int64_t y = v[i].ty * 64 + j;
                if (rows[j] && y >= r.y && (uint64_t)(y - r.y) < r.h && v[i].tx >= tx0 && v[i].tx <= tx1)
                    base[(size_t)(y - r.y) * s->stride + (size_t)(v[i].tx - tx0)] = rows[j];
            }
        }
        free(v);
    }
    return WL_OK;
}

wl_snapshot *wl_snapshot_new(void) { return wl_calloc(1, sizeof(wl_snapshot)); }

wl_status wl_snapshot_bitmap(wl_snapshot *s, int64_t x0, int64_t y0, uint64_t w, uint64_t h,
                             uint64_t **bits) {
    return wl_snapshot_bitmap_planes(s, x0, y0, w, h, 1, bits);
}

wl_status wl_snapshot_bitmap_planes(wl_snapshot *s, int64_t x0, int64_t y0, uint64_t w,
                                    uint64_t h, unsigned planes, uint64_t **bits) {
    uint64_t stride = (w + 63) / 64;
    *bits = NULL;
    if (!w || !h || !planes || stride > wl_pattern_max_bytes() / 8 / h / planes)
        return wl_error(WL_ERR_TOO_BIG, "snapshot: %llu x %llu cells do not fit in memory as "
                                        "a bitmap", (unsigned long long)w, (unsigned long long)h);
    wl_status st = reserve(s, (size_t)(stride * h * planes));
    if (st) return st;
    memset(s->bits, 0, (size_t)(stride * h * planes) * sizeof *s->bits);
    s->planes = planes;
    s->x0 = x0;
    s->y0 = y0;
    s->w = w;
    s->h = h;
    s->stride = (size_t)stride;
    *bits = s->bits;
    return WL_OK;
}

wl_status wl_snapshot_from_pattern(wl_snapshot *s, const wl_pattern *p) {
    return from_pattern(s, p);
}

void wl_snapshot_set_generation(wl_snapshot *s, const wl_bigint *g) { s->generation = *g; }

void wl_snapshot_set_rule(wl_snapshot *s, const wl_rule *r) {
    s->states = wl_rule_states(r);
    s->family = wl_rule_family(r);
}

wl_status wl_pattern_snapshot(const wl_pattern *p, wl_snapshot **snap) {
    if (!p || !snap) return wl_error(WL_ERR_INVALID, "snapshot: NULL argument");
    wl_snapshot *s = *snap ? *snap : wl_snapshot_new();
    if (!s) return WL_ERR_NOMEM;
    wl_status st = from_pattern(s, p);
    if (st) {
        if (!*snap) wl_snapshot_free(s);
        return st;
    }
    wl_bigint_from_u64(&s->generation, 0);
    *snap = s;
    return WL_OK;
}

void wl_snapshot_free(wl_snapshot *snap) {
    if (!snap) return;
    wl_aligned_free(snap->bits);
    free(snap);
}

uint64_t wl_snapshot_population(const wl_snapshot *snap) {
    uint64_t n = 0;
    size_t words = (size_t)(snap->h * snap->stride);
    for (size_t i = 0; i < words; i++) n += (uint64_t)__builtin_popcountll(snap->bits[i]);
    return n;
}

void wl_snapshot_generation(const wl_snapshot *snap, wl_bigint *out) {
    *out = snap->generation;
}

int wl_snapshot_bounds(const wl_snapshot *snap, wl_rect *out) {
    memset(out, 0, sizeof *out);
    int64_t xmin = INT64_MAX, xmax = INT64_MIN, ymin = -1, ymax = -1;
    for (uint64_t y = 0; y < snap->h; y++) {
        const uint64_t *row = snap->bits + (size_t)y * snap->stride;
        for (size_t q = 0; q < snap->stride; q++) {
            if (!row[q]) continue;
            int64_t lo = (int64_t)(q * 64) + __builtin_ctzll(row[q]);
            int64_t hi = (int64_t)(q * 64) + 63 - __builtin_clzll(row[q]);
            if (lo < xmin) xmin = lo;
            if (hi > xmax) xmax = hi;
            if (ymin < 0) ymin = (int64_t)y;
            ymax = (int64_t)y;
        }
    }
    if (ymin < 0) return 0;
    out->x = snap->x0 + xmin;
    out->y = snap->y0 + ymin;
    out->w = (uint64_t)(xmax - xmin + 1);
    out->h = (uint64_t)(ymax - ymin + 1);
    return 1;
}

int wl_snapshot_get(const wl_snapshot *snap, int64_t x, int64_t y) {
    int64_t bx = x - snap->x0, by = y - snap->y0;
    if (bx < 0 || by < 0 || (uint64_t)bx >= snap->w || (uint64_t)by >= snap->h) return 0;
    return (int)((snap->bits[(size_t)by * snap->stride + (size_t)(bx >> 6)] >> (bx & 63)) & 1u);
}
