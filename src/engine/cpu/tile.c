/*
 * tile.c - the tile driver behind every bit-per-cell kernel: temporal blocking with
 * redundant halos, spread over the thread pool.
 *
 * What it computes.  One pass advances the whole universe by g <= depth generations from
 * the source grid (bit per cell, S = ceil(W/64) words per row, as wl_grid) into the
 * destination grid.  The universe is cut into tiles of TH rows by TWW words.  For each
 * tile, a thread copies the tile plus a halo of g rows above and below (and, in the general
 * mode, one word = 64 columns left and right) into a private buffer A, runs g generations
 * there, ping-ponging between A and B with the kernel's gen_rows, and writes the tile's own
 * cells to the destination.  Halo cells go stale one cell per generation from the buffer's
 * edge inwards, so after g generations exactly the tile's own cells are still exact: the
 * halo work is redundant but buys g generations per trip through main memory.  Generation
 * s only computes buffer rows [s, R - s), the rows that are still needed.
 *
 * Two tilings:
 *   band mode   (W a multiple of 64 * vector width): a tile is a band of full rows, no
 *               horizontal halo at all; on a torus the row wraps through the pad words
 *               (refreshed before every generation), on a bounded grid the pads are zero.
 *   general mode (any W): tiles of up to 62 words (a 64-word buffer row with one halo
 *               word each side, rounded up to the vector width).  The gather reads bits at
 *               any offset with wrap (torus) or zeros (bounded), so widths below 64 and not
 *               multiples of 64 need no special code.  On a bounded grid, cells outside the
 *               grid are cleared after every generation with a column mask.
 * On a bounded grid, rows outside the grid are zero in both buffers and never computed,
 * so they stay dead (B0 rules included).  On a torus smaller than the halo the gather
 * simply wraps several times.
 *
 * Dead tiles: for rules without B0 a tile whose buffer (the tile and its halo) is all dead
 * after the gather is dead g generations later; its destination is cleared and nothing is
 * computed.  A small pattern on a large grid (and the slack of the sparse engine's dense
 * passes) costs only its live part.
 *
 * State planes (Generations' and History's, cpu_tiler_pass_planes): each tile gathers them
 * with its halo as it gathers the cells, the config's gen_post advances them in the buffer
 * after each generation (rows [s, R - s), as the cells), and they are scattered to the
 * pass's destination planes, which the caller swaps with the source planes: a tile's halo
 * reads its neighbours' planes as they were.  Dead tiles are those dead in every plane.
 *
 * Why it is fast: a tile's two buffers (size chosen from cache_bytes) stay in L2 while g
 * generations run over them, so a grid far larger than the cache is read and written
 * once per g generations instead of once per generation.
 */
#include "cpu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GENERAL_TILE_WORDS 62 /* data words of a general-mode tile: 64 with the halo */
#define MIN_DEPTH 4           /* shallowest temporal blocking chosen for small tiles */
/* Passes of fewer cell updates than this (the grid's area times the generations) run on
 * the calling thread: handing a few tens of microseconds of work to the pool costs about
 * as much on an idle machine, and far more on a busy one, where the barrier waits out
 * another program's time slice on the other core.  Golly's steeplechase (Generations, a
 * 59 x 256 grid) to generation 1000 on the dev VM's two vCPUs: 2.7 ms on one thread, 40
 * to 70 ms on two while another process kept one vCPU busy. */
#define SERIAL_CELLS ((uint64_t)1 << 17)

struct cpu_tiler {
    cpu_tiler_config c;
    size_t S;        /* words per grid row */
    int band;        /* band mode */
    size_t tww;      /* tile data words */
    size_t hw;       /* halo words each side (0 band, 1 general) */
    size_t bw;       /* buffer data words per row (multiple of vw) */
    size_t pitch;    /* bw + 2 * CPU_PAD */
    size_t th;       /* tile rows */
    size_t ntx, nty; /* tiles across, down */
    int nthreads;
    uint64_t **bufa, **bufb, **mask; /* per thread */
    uint64_t **bufp;  /* per thread: the state planes of a tile (config's planes) */
    uint64_t **bufc;  /* per thread, made by the first tail pass: generation g - 2 */
    uint64_t *zeros;  /* (tail passes) a row of zero words for dead tiles */
    size_t buf_words;
    /* the current pass */
    const uint64_t *src;
    uint64_t *dst;
    const uint64_t *psrc; /* the state planes (cpu_tiler_pass_planes) */
    uint64_t *pdst;
    unsigned gens;
    wl_tail_fn tail_fn; /* (cpu_tiler_pass_tail) */
    void *tail_arg;
    size_t next_tile; /* atomic counter */
    char desc[160];
};

static size_t round_up(size_t a, size_t m) { return (a + m - 1) / m * m; }

/* The depth k of a tiler with state planes whose tiles have rows_fit rows: at most an
 * eighth of them, and at least 2 (the planes take room the rows would have had). */
static unsigned planes_depth(const cpu_tiler_config *tc, size_t rows_fit, unsigned k) {
    if (!tc->planes || k <= 2 || rows_fit >= 8 * (size_t)k) return k;
    return rows_fit / 8 > 2 ? (unsigned)(rows_fit / 8) : 2;
}

wl_status cpu_tiler_create(const cpu_tiler_config *tc, cpu_tiler **out) {
    *out = NULL;
    cpu_tiler *t = wl_calloc(1, sizeof *t);
    if (!t) return WL_ERR_NOMEM;
    t->c = *tc;
    unsigned k = tc->depth;
    t->S = (size_t)((tc->w + 63) / 64);
    t->nthreads = wl_pool_size(tc->pool);
    size_t vw = tc->vw;
    size_t rows_fit;
    const size_t bufs = 2 + tc->planes; /* buffer rows per tile row: the cells' two, and
                                           one per state plane (advanced in place) */
    /* many planes: twice the budget, so that the tiles stay deep enough (Generations with
     * 16 and 256 states on the dev VM's 2 MiB L2, 4096^2: 6.2e10 -> 7.3e10 and 3.1e10 ->
     * 4.0e10 CUpS, depth 5 -> 11 for 256 states) */
    const size_t budget = tc->planes >= 4 ? 2 * tc->cache_bytes : tc->cache_bytes;
    t->band = tc->w % (64 * vw) == 0;
    if (t->band) {
        t->tww = t->S;
        t->hw = 0;
        t->bw = t->S;
        t->pitch = t->bw + 2 * CPU_PAD;
        rows_fit = budget / (bufs * t->pitch * 8);
        /* (with planes, a shallower depth rather than general mode's halo words) */
        k = planes_depth(tc, rows_fit, k);
        if (rows_fit < 6 * (size_t)k + 6) t->band = 0; /* rows too long for the cache */
    }
    if (!t->band) {
        t->hw = 1;
        t->tww = t->S < GENERAL_TILE_WORDS ? t->S : GENERAL_TILE_WORDS;
        t->bw = round_up(t->tww + 2, vw);
        t->pitch = t->bw + 2 * CPU_PAD;
        rows_fit = budget / (bufs * t->pitch * 8);
        k = planes_depth(tc, rows_fit, k);
    }
    t->c.depth = k;
    t->ntx = (t->S + t->tww - 1) / t->tww;
    size_t th = rows_fit > 4 * (size_t)k ? rows_fit - 2 * (size_t)k : 2 * (size_t)k;
    if (th < 1) th = 1;
    if (th > tc->h) th = (size_t)tc->h;
    /* enough tiles for every thread */
    size_t want_rows_tiles = ((size_t)t->nthreads + t->ntx - 1) / t->ntx;
    if (want_rows_tiles > 1) {
        size_t per = (size_t)((tc->h + want_rows_tiles - 1) / want_rows_tiles);
        if (per < th) th = per ? per : 1;
    }
    /* Small tiles (a small grid split over many threads) would spend most of their work on
     * the halo: use a shallower depth there (at most 1/8 of the tile's rows, at least
     * MIN_DEPTH).  The buffers below are sized for the final depth. */
    if (k > MIN_DEPTH && th < 8 * (size_t)k) {
        unsigned k2 = (unsigned)(th / 8);
        k = k2 < MIN_DEPTH ? MIN_DEPTH : k2;
        if (k > t->c.depth) k = t->c.depth;
        t->c.depth = k;
    }
    t->th = th;
    t->nty = (size_t)((tc->h + th - 1) / th);
    t->buf_words = (th + 2 * (size_t)k) * t->pitch;
    t->bufa = wl_calloc((size_t)t->nthreads, sizeof *t->bufa);
    t->bufb = wl_calloc((size_t)t->nthreads, sizeof *t->bufb);
    t->mask = wl_calloc((size_t)t->nthreads, sizeof *t->mask);
    t->bufp = wl_calloc((size_t)t->nthreads, sizeof *t->bufp);
    if (!t->bufa || !t->bufb || !t->mask || !t->bufp) {
        cpu_tiler_destroy(t);
        return WL_ERR_NOMEM;
    }
    for (int i = 0; i < t->nthreads; i++) {
        t->bufa[i] = wl_aligned_alloc(t->buf_words * 8);
        t->bufb[i] = wl_aligned_alloc(t->buf_words * 8);
        t->mask[i] = wl_aligned_alloc(t->bw * 8);
        if (tc->planes) t->bufp[i] = wl_aligned_alloc(tc->planes * t->buf_words * 8);
        if (!t->bufa[i] || !t->bufb[i] || !t->mask[i] || (tc->planes && !t->bufp[i])) {
            cpu_tiler_destroy(t);
            return WL_ERR_NOMEM;
        }
        /* Only the pad words need to start dead (a bounded grid's rows read them as
         * neighbours and nothing writes them); every other word is written before it is
         * read, so the rest of the buffers is left to be touched by the thread that uses
         * them (16 threads' buffers are 12 MiB). */
        for (size_t j = 0; j <= t->buf_words / t->pitch; j++) {
            size_t at = j * t->pitch; /* the pads between rows j - 1 and j */
            size_t lo = at >= CPU_PAD ? at - CPU_PAD : 0, hi = at + CPU_PAD;
            if (hi > t->buf_words) hi = t->buf_words;
            memset(t->bufa[i] + lo, 0, (hi - lo) * 8);
            memset(t->bufb[i] + lo, 0, (hi - lo) * 8);
        }
    }
    snprintf(t->desc, sizeof t->desc,
             "%s mode, tiles of %zu rows x %zu words (%zu x %zu tiles), depth %u, %d thread%s",
             t->band ? "band" : "general", t->th, t->tww, t->ntx, t->nty, k, t->nthreads,
             t->nthreads == 1 ? "" : "s");
    *out = t;
    return WL_OK;
}

void cpu_tiler_destroy(cpu_tiler *t) {
    if (!t) return;
    for (int i = 0; i < t->nthreads; i++) {
        if (t->bufa) wl_aligned_free(t->bufa[i]);
        if (t->bufb) wl_aligned_free(t->bufb[i]);
        if (t->bufc) wl_aligned_free(t->bufc[i]);
        if (t->mask) wl_aligned_free(t->mask[i]);
        if (t->bufp) wl_aligned_free(t->bufp[i]);
    }
    free(t->bufp);
    free(t->bufc);
    free(t->zeros);
    free(t->bufa);
    free(t->bufb);
    free(t->mask);
    free(t);
}

const char *cpu_tiler_describe(const cpu_tiler *t) { return t->desc; }

unsigned cpu_tiler_depth(const cpu_tiler *t) { return t->c.depth; }

/* Bits [pos, pos + n) of a row (0 < n <= 64, pos + n <= W), in the low bits. */
static inline uint64_t extract(const uint64_t *row, uint64_t pos, unsigned n) {
    size_t wi = (size_t)(pos >> 6);
    unsigned sh = (unsigned)(pos & 63);
    uint64_t v = row[wi] >> sh;
    if (sh && sh + n > 64) v |= row[wi + 1] << (64 - sh);
    if (n < 64) v &= ((uint64_t)1 << n) - 1;
    return v;
}

/* 64 cells of a grid row from column x on (x may lie outside [0, W)): wrapped on a
 * torus, zero outside on a bounded grid. */
static uint64_t fetch64(const cpu_tiler *t, const uint64_t *row, int64_t x) {
    uint64_t w = t->c.w;
    if ((w & 63) == 0 && (x & 63) == 0) {
        int64_t wi = x / 64;
        if (t->c.torus) return row[wl_mod(wi, (int64_t)t->S)];
        return (wi >= 0 && (uint64_t)wi < t->S) ? row[wi] : 0;
    }
    uint64_t out = 0;
    unsigned filled = 0;
    while (filled < 64) {
        int64_t p = x + filled;
        unsigned avail = 64 - filled;
        if (t->c.torus) {
            uint64_t pos = (uint64_t)wl_mod(p, (int64_t)w);
            if (w - pos < avail) avail = (unsigned)(w - pos);
            out |= extract(row, pos, avail) << filled;
        } else if (p < 0) {
            if ((uint64_t)-p < avail) avail = (unsigned)-p;
        } else if ((uint64_t)p >= w) {
            break;
        } else {
            if (w - (uint64_t)p < avail) avail = (unsigned)(w - (uint64_t)p);
            out |= extract(row, (uint64_t)p, avail) << filled;
        }
        filled += avail;
    }
    return out;
}

/* A buffer row from grid row srow: the whole row (band mode) or the tile's words and its
 * halo words from grid column xcol on (general mode). */
static inline void gather_row(const cpu_tiler *t, const uint64_t *srow, int64_t xcol,
                              uint64_t *row) {
    if (t->band) {
        memcpy(row, srow, t->S * 8);
        return;
    }
    for (size_t i = 0; i < t->bw; i++) {
        int64_t x = xcol + 64 * (int64_t)i;
        row[i] = x >= 0 && (uint64_t)x + 64 <= t->c.w ? extract(srow, (uint64_t)x, 64)
                                                       : fetch64(t, srow, x);
    }
}

static void run_tile(cpu_tiler *t, int tid, size_t tile) {
    const cpu_tiler_config *c = &t->c;
    size_t tx = tile % t->ntx, ty = tile / t->ntx;
    unsigned g = t->gens;
    uint64_t y0 = (uint64_t)ty * t->th;
    size_t th = (size_t)(c->h - y0 < t->th ? c->h - y0 : t->th);
    size_t xw0 = tx * t->tww;
    size_t tww = t->S - xw0 < t->tww ? t->S - xw0 : t->tww;
    size_t R = th + 2 * (size_t)g, pitch = t->pitch, bw = t->bw;
    uint64_t *a = t->bufa[tid] + CPU_PAD, *b = t->bufb[tid] + CPU_PAD;
    const unsigned np = t->psrc ? c->planes : 0; /* state planes, in bufp */
    uint64_t *pb = np ? t->bufp[tid] + CPU_PAD : NULL;
    const size_t pw = t->buf_words, gplane = t->S * (size_t)c->h; /* their strides */
    int64_t xcol = ((int64_t)xw0 - (int64_t)t->hw) * 64; /* grid column of buffer bit 0 */
    /* rows of the buffer inside the grid (bounded) */
    size_t jlo = 0, jhi = R;
    if (!c->torus) {
        if (y0 < g) jlo = (size_t)(g - y0);
        if (y0 - g + R > c->h) jhi = (size_t)(c->h + g - y0);
    }
    /* gather */
    for (size_t j = 0; j < R; j++) {
        uint64_t *row = a + j * pitch;
        int64_t Y = (int64_t)y0 - (int64_t)g + (int64_t)j;
        if (j < jlo || j >= jhi) {
            memset(row, 0, bw * 8);
            memset(b + j * pitch, 0, bw * 8);
            for (unsigned k = 0; k < np; k++) memset(pb + k * pw + j * pitch, 0, bw * 8);
            continue;
        }
        const size_t at = (size_t)wl_mod(Y, (int64_t)c->h) * t->S;
        gather_row(t, t->src + at, xcol, row);
        for (unsigned k = 0; k < np; k++)
            gather_row(t, t->psrc + k * gplane + at, xcol, pb + k * pw + j * pitch);
    }
    /* A tile dead with its halo stays dead (no B0): nothing to compute.  On a bounded grid in
     * band mode the live cells bound the work too (a sparse engine's dense pass has wide
     * dead margins): in g <= 64 generations they spread at most g rows and one word, so
     * only those rows and words (whole vectors) are computed; the rest of buffer b is
     * cleared, and then both buffers are dead there throughout, as the kernel reads them
     * (words c0 - 1 and c1 are its west and east neighbours). */
    size_t c0 = 0, c1 = bw;
    if (c->dead_stays_dead) {
        uint64_t any = 0;
        if (!c->torus && t->band) {
            uint64_t *m = t->mask[tid]; /* (unused in band mode) the OR of each word */
            memset(m, 0, bw * 8);
            size_t fl = jhi, ll = jhi; /* first and last live row */
            for (size_t j = jlo; j < jhi; j++) {
                uint64_t r = 0;
                for (unsigned k = 0; k <= np; k++) { /* (the cells, then the planes) */
                    const uint64_t *row = (k ? pb + (k - 1) * pw : a) + j * pitch;
                    for (size_t i = 0; i < bw; i++) {
                        m[i] |= row[i];
                        r |= row[i];
                    }
                }
                if (r) ll = j, fl = fl == jhi ? j : fl;
                any |= r;
            }
            if (any) {
                size_t wl = 0, wh = bw - 1, vw = t->c.vw;
                while (!m[wl]) wl++;
                while (!m[wh]) wh--;
                c0 = (wl ? wl - 1 : 0) / vw * vw;
                c1 = round_up(wh + 2, vw) < bw ? round_up(wh + 2, vw) : bw;
                size_t jl = fl > jlo + g ? fl - g : jlo, jh = ll + 1 + g < jhi ? ll + 1 + g : jhi;
                for (size_t j = jlo; j < jhi; j++) {
                    uint64_t *row = b + j * pitch;
                    if (j < jl || j >= jh) {
                        memset(row, 0, bw * 8);
                    } else {
                        memset(row, 0, c0 * 8);
                        memset(row + c1, 0, (bw - c1) * 8);
                    }
                }
                jlo = jl;
                jhi = jh;
            }
        } else {
            for (unsigned k = 0; k <= np && !any; k++) {
                const uint64_t *p = k ? pb + (k - 1) * pw : a;
                for (size_t j = jlo; j < jhi && !any; j++)
                    for (size_t i = 0; i < bw; i++) any |= p[j * pitch + i];
            }
        }
        if (!any) {
            for (size_t j = 0; j < th; j++) {
                const size_t at = (size_t)(y0 + j) * t->S + xw0;
                memset(t->dst + at, 0, tww * 8);
                for (unsigned k = 0; k < np; k++) memset(t->pdst + k * gplane + at, 0, tww * 8);
            }
            const uint64_t *const z[3] = {t->zeros, t->zeros, t->zeros};
            if (t->tail_fn) t->tail_fn(t->tail_arg, y0, th, xw0, tww, z, 0);
            if (c->post) c->post(c->post_arg, t->src, t->dst, y0, th, xw0, tww);
            return;
        }
    }
    /* column mask for bounded general tiles that reach past the grid's edges */
    const uint64_t *cm = NULL;
    if (!c->torus && !t->band) {
        uint64_t *m = t->mask[tid];
        int partial = 0;
        for (size_t i = 0; i < bw; i++) {
            int64_t x = xcol + 64 * (int64_t)i;
            uint64_t v = 0;
            for (unsigned bit = 0; bit < 64; bit++)
                if (x + bit >= 0 && (uint64_t)(x + bit) < c->w) v |= (uint64_t)1 << bit;
            m[i] = v;
            partial |= v != ~(uint64_t)0;
        }
        if (partial) cm = m;
    }
    int wrap = t->band && c->torus;
    uint64_t *in = a, *out = b;
    for (unsigned s = 1; s <= g; s++) {
        size_t lo = s > jlo ? s : jlo, hi = R - s < jhi ? R - s : jhi;
        if (wrap && !c->wraps) {
            for (size_t j = lo - 1; j <= hi; j++) {
                uint64_t *row = in + j * pitch;
                row[-1] = row[bw - 1];
                row[bw] = row[0];
            }
        }
        if (s == g && g >= 2 && t->tail_fn) /* generation g - 2, about to be overwritten */
            memcpy(t->bufc[tid] + CPU_PAD + g * pitch, out + g * pitch, th * pitch * 8);
        if (lo < hi) c->gen_rows(in + c0, out + c0, pitch, c1 - c0, lo, hi, wrap, cm, c->kd);
        if (np && lo < hi) c->gen_post(c->post_arg, in, out, pb, pw, pitch, c0, c1, lo, hi);
        uint64_t *tmp = in;
        in = out;
        out = tmp;
    }
    /* scatter rows [g, g + th), words [hw, hw + tww) */
    uint64_t tail = (c->w & 63) ? (((uint64_t)1 << (c->w & 63)) - 1) : ~(uint64_t)0;
    int last = xw0 + tww == t->S;
    for (size_t j = 0; j < th; j++) {
        const uint64_t *row = in + (g + j) * pitch + t->hw;
        uint64_t *drow = t->dst + (size_t)(y0 + j) * t->S + xw0;
        memcpy(drow, row, tww * 8);
        if (last) drow[tww - 1] &= tail;
        for (unsigned k = 0; k < np; k++) {
            uint64_t *prow = t->pdst + k * gplane + (size_t)(y0 + j) * t->S + xw0;
            memcpy(prow, pb + k * pw + (g + j) * pitch + t->hw, tww * 8);
            if (last) prow[tww - 1] &= tail;
        }
    }
    if (t->tail_fn) {
        uint64_t *gen[3] = {g >= 2 ? t->bufc[tid] + CPU_PAD : NULL, out, in};
        for (int k = 0; k < 3; k++) {
            if (!gen[k]) continue;
            gen[k] += g * pitch + t->hw;
            if (last && tail != ~(uint64_t)0)
                for (size_t j = 0; j < th; j++) gen[k][j * pitch + tww - 1] &= tail;
        }
        t->tail_fn(t->tail_arg, y0, th, xw0, tww, (const uint64_t *const *)gen, pitch);
    }
    if (c->post) c->post(c->post_arg, t->src, t->dst, y0, th, xw0, tww);
}

static void pass_task(void *arg, int tid, int n) {
    (void)n;
    cpu_tiler *t = arg;
    size_t ntiles = t->ntx * t->nty;
    for (;;) {
        size_t tile = __atomic_fetch_add(&t->next_tile, 1, __ATOMIC_RELAXED);
        if (tile >= ntiles) break;
        run_tile(t, tid, tile);
    }
}

void cpu_tiler_pass(cpu_tiler *t, const uint64_t *src, uint64_t *dst, unsigned gens) {
    t->src = src;
    t->dst = dst;
    t->gens = gens;
    t->next_tile = 0;
    /* a short pass runs on the calling thread alone (see SERIAL_CELLS) */
    if ((uint64_t)t->c.w * t->c.h * gens < SERIAL_CELLS) pass_task(t, 0, 1);
    else wl_pool_run_any(t->c.pool, pass_task, t);
}

void cpu_tiler_pass_planes(cpu_tiler *t, const uint64_t *src, uint64_t *dst, unsigned gens,
                           const uint64_t *psrc, uint64_t *pdst) {
    t->psrc = psrc;
    t->pdst = pdst;
    cpu_tiler_pass(t, src, dst, gens);
    t->psrc = NULL;
    t->pdst = NULL;
}

wl_status cpu_tiler_tail_init(cpu_tiler *t) {
    if (t->bufc) return WL_OK; /* (made once: most tilers never run a tail pass) */
    t->zeros = wl_calloc(t->bw, 8);
    t->bufc = wl_calloc((size_t)t->nthreads, sizeof *t->bufc);
    for (int i = 0; t->bufc && i < t->nthreads; i++)
        if (!(t->bufc[i] = wl_aligned_alloc(t->buf_words * 8))) break;
    if (t->zeros && t->bufc && t->bufc[t->nthreads - 1]) return WL_OK;
    for (int i = 0; t->bufc && i < t->nthreads; i++) wl_aligned_free(t->bufc[i]);
    free(t->bufc);
    free(t->zeros);
    t->bufc = NULL;
    t->zeros = NULL;
    return wl_error(WL_ERR_NOMEM, "cpu engine: out of memory (tail buffers)");
}

void cpu_tiler_pass_tail(cpu_tiler *t, const uint64_t *src, uint64_t *dst, unsigned gens,
                         wl_tail_fn fn, void *arg) {
    t->tail_fn = fn;
    t->tail_arg = arg;
    cpu_tiler_pass(t, src, dst, gens);
    t->tail_fn = NULL;
}
