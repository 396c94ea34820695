/*
 * multi.c - the cpu engine's rules of more than two states: Generations and Larger than
 * Life (and the two-state Larger than Life rules), on all threads.
 *
 * Layout.  The state-1 ("firing") cells are a bit plane F in the engine's two grids
 * (cur and nxt, as for two-state rules); the other live states are P bit planes E_0 ..
 * E_{P-1} holding (state - 1) of each cell in state 2 or more, zero elsewhere, so that a
 * state-1 cell and a dead cell both have E = 0 and F tells them apart.  This is the
 * pattern's and wl_grid's plane layout with the live plane replaced by F: live = F | any E.
 *
 * A generation, as bit logic on 64 cells a word:
 *   T   = what the rule makes of the firing cells: the two-state table's kernel run on F
 *         (Generations: the tile driver with the rule's row technique, one generation per
 *         pass, into nxt), or Larger than Life's count test (below);
 *   D   = any E: the dying cells, which can neither be born nor survive;
 *   F'  = T & ~D;
 *   E'  = E + 1 on the dying cells, cleared where that reaches the number of states - 1
 *         (the state after n - 1 is 0), plus 1 (state 2) on the cells that were firing and
 *         are not firing any more (n > 2; with two states they simply die).
 * The increment is a ripple carry over the planes and the wrap a comparison with the
 * constant n - 1, about 4 operations a plane a word: a 25-state rule adds some 20
 * operations per 64 cells to the rule's own logic.
 *
 * Larger than Life counts, for each row, the firing cells of each horizontal run of the
 * neighbourhood (src/core/ltl.c) as a difference of two row prefix sums: the prefix sums of
 * the 2r + 1 rows a band of output rows needs are kept in a ring, each computed once, and
 * a run adds a[x + x1 + 1] - a[x + x0] to the count of every cell x of the row - two loads,
 * a subtraction and an addition, vectorised by the compiler, per run per cell.  The Moore
 * neighbourhood (one run per row, all of the same width) instead keeps sliding column
 * sums: a row's counts are differences of one prefix sum of the column sums, O(1) per cell
 * whatever the range.  Rows and columns beyond a torus's edges wrap; beyond a bounded
 * grid's they are dead.  The triangular neighbourhood's runs flip with the parity of
 * column + row.  Counts are tested against the rule's intervals (survival with the cell's
 * own count added for LtL's M1), the results packed into F', and the decay applied as
 * above.  Rows are split into bands, one per thread.
 *
 * History (Golly's LifeHistory and its kin: src/core/marks.c says what the states do).  F
 * holds the on cells (states 1, 3 and 5), and four planes the marks: H, the cells that
 * were ever on (state 2 when off and unmarked), M the marked cells (3 and 4), S the cells
 * on from the start (5), W the walls (6, which never change).  The two-state table runs
 * on F (its dual for a rule with B0, see wl_marks_table), and after it, word by word:
 *   F' = T & ~W & ~(F & A)   (A: the cells with a wall among the rule's neighbours: an on
 *                             cell beside a wall goes off),
 *   M' = M | (S & ~F'),  S' = S & F',  H' = H | F.
 * A is made once from W (walls never change) when cells are loaded or moved.
 */
#include "cpu_internal.h"
#include "decay.h"
#include "marks_bits.h"

#include <stdlib.h>
#include <string.h>

/* Per-thread scratch for the counts: the portable kernel's arrays, or the AVX-512
 * kernel's buffers (one block). */
typedef struct ltl_scratch {
    uint16_t *cells;  /* one extended row's cells */
    uint16_t *col;    /* Moore: the column sums of the extended row */
    uint32_t *sums;   /* ring of (2 Ry + 1) prefix-sum rows (general shapes), or one (Moore) */
    uint32_t *count;  /* the counts of one output row, for each parity */
    int32_t *lo, *hi; /* Moore on a bounded grid: the extents of the band's rows */
    uint32_t *blk;    /* bounded grids: the window's firing cells in each 64 extended
                         columns (cpu_ltl_trim) */
    uint32_t *dia;    /* von Neumann: the diagonal windows' rings, the counts, cell rows */
    void *block;
    cpu_ltl_buffers simd;
    uint64_t work; /* cells its last band counted */
    int64_t busy0, busy1; /* its last band's rows within reach of a firing cell (skip;
                             busy1 < busy0: none) */
} ltl_scratch;

/* Entries of ltl_scratch.blk: a block for every 64 extended columns, and the D + 1 past
 * the last output word that cpu_ltl_trim reads. */
static size_t ltl_blk64(const cpu_ltl_view *v) { return (v->ext + 127) / 64 + 4; }

struct cpu_multi {
    uint64_t w, h;
    size_t S;            /* words per row */
    int torus;
    wl_family family;
    unsigned states;
    unsigned P;          /* planes of E (History: H, M, S, W; Super: the state's bits 1 .. 4) */
    uint64_t offset;     /* Generations and Larger than Life: E holds state - 1 + offset
                            (2^P - (states - 1)), so that the decay's last step overflows
                            to 0 (decay.h); wl_grid's planes hold state - 1 */
    uint64_t *e;         /* np planes of S * h words */
    uint64_t *e2;        /* Generations and History with temporal blocking, and Super: the
                            planes' next generation (cpu_multi_blocked, super_create),
                            then swapped with e */
    unsigned np;         /* planes in e: P, and History's A after its four */
    uint64_t *wrow;      /* History: scratch of neighbours_row (nbr_scratch_words) */
    uint64_t *sup;       /* Super: each thread's rows of classes (super_scratch_words) */
    unsigned marks_nbrs; /* History and Super: the neighbours the marks look at
                            (wl_marks_neighbours) */
    wl_pool *pool;
    /* Larger than Life */
    cpu_ltl_run *runs[2]; /* the neighbourhood's runs for parity 0 and 1 */
    uint8_t *ltl_table;   /* view.table */
    wl_ltl ltl;           /* the rule (the view points at its intervals) */
    cpu_ltl_view view;    /* what a band's kernel reads (f and fn set per step) */
    int simd;             /* the AVX-512 kernel (simd_ltl.c) runs the bands */
    int avx512;           /* the decay runs simd_decay.c's build */
    int avx2;             /* (without avx512) Super's rows run on vectors of 4 words */
    ltl_scratch *scratch; /* one per thread */
    int nscratch;
    uint64_t work;        /* cells counted in the last generation (UINT64_MAX: not known) */
    double ltl_cell;      /* Larger than Life: seconds per counted cell of this thread's
                             generations (0: none yet), see LTL_POOL_MIN */
    int ltl_pool;         /* every generation on the threads (WL_CPU_LTL_POOL=1: tests) */
    int64_t busy0, busy1; /* skip: its rows within reach of a firing cell (busy1 < busy0:
                             none), which hold the next generation's firing cells */
    /* the current step */
    const uint64_t *f;
    uint64_t *fn;
};

void cpu_multi_destroy(cpu_multi *m) {
    if (!m) return;
    for (int t = 0; t < m->nscratch; t++) {
        free(m->scratch[t].cells);
        free(m->scratch[t].col);
        free(m->scratch[t].sums);
        free(m->scratch[t].count);
        free(m->scratch[t].lo);
        free(m->scratch[t].hi);
        free(m->scratch[t].blk);
        free(m->scratch[t].dia);
        wl_aligned_free(m->scratch[t].block);
        free(m->scratch[t].simd.lo);
        free(m->scratch[t].simd.hi);
        free(m->scratch[t].simd.zero);
        free(m->scratch[t].simd.win);
    }
    free(m->scratch);
    wl_aligned_free(m->e);
    wl_aligned_free(m->e2);
    free(m->wrow);
    wl_aligned_free(m->sup);
    free(m->runs[0]);
    free(m->runs[1]);
    free(m->ltl_table);
    free(m);
}

typedef struct run_acc {
    cpu_ltl_run *v;
    size_t n, cap;
    int fail, reach, reach_y;
} run_acc;

static void add_run(void *user, int dy, int x0, int x1) {
    run_acc *a = user;
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 64;
        cpu_ltl_run *nv = realloc(a->v, cap * sizeof *nv);
        if (!nv) {
            a->fail = 1;
            return;
        }
        a->v = nv;
        a->cap = cap;
    }
    a->v[a->n++] = (cpu_ltl_run){dy, x0, x1};
    if (-x0 > a->reach) a->reach = -x0;
    if (x1 > a->reach) a->reach = x1;
    if (dy > a->reach_y) a->reach_y = dy;
}

/* Whether the CPU has the AVX-512 extensions `features` (WL_CPU_...) and the environment
 * does not ask for the portable kernels (WL_CPU_MULTI_PORTABLE=1: the tests run them so). */
static int have(unsigned features) {
#if defined(WL_CPU_X86_SIMD)
    const char *off = getenv("WL_CPU_MULTI_PORTABLE");
    if (off && *off && *off != '0') return 0;
    return wl_cpu_has(features);
#else
    (void)features;
    return 0;
#endif
}

/* 1 where the count lies in one of the intervals. */
static inline uint64_t in_intervals(const uint32_t (*iv)[2], unsigned n, uint32_t c) {
    for (unsigned k = 0; k < n; k++)
        if (c >= iv[k][0] && c <= iv[k][1]) return 1;
    return 0;
}

/* Neighbourhoods of at most this many cells answer test_row from a table. */
#define LTL_TABLE_MAX ((uint64_t)1 << 22)

/* The least count (the cell left out) at which a cell may fire next: a birth interval's
 * lower end, or a survival interval's less the cell itself (M1).  0 below 2: when a
 * single cell may make another fire, cpu_ltl_trim would cut no more than the rows' extents
 * do, and its totals cost Golly's triangular-grid-Sierpinski-generator (B1) 13%. */
static uint32_t ltl_fire_min(const cpu_ltl_view *v) {
    uint32_t least = UINT32_MAX;
    for (unsigned k = 0; k < v->nbirth; k++)
        if (v->birth[k][0] < least) least = v->birth[k][0];
    for (unsigned k = 0; k < v->nsurvive; k++) {
        uint32_t s = v->survive[k][0] > v->middle ? v->survive[k][0] - v->middle : 0;
        if (s < least) least = s;
    }
    return least < 2 ? 0 : least;
}

/* The neighbourhood's runs, the view of the rule, and each thread's buffers. */
static wl_status ltl_create(cpu_multi *m, const wl_ltl *l, wl_pool *pool) {
    cpu_ltl_view *v = &m->view;
    uint64_t size = 0;
    for (int parity = 0; parity < 2; parity++) {
        run_acc a = {NULL, 0, 0, 0, 0, 0};
        size = wl_ltl_neighbourhood(l, parity, add_run, &a);
        m->runs[parity] = a.v;
        if (a.fail) return wl_error(WL_ERR_NOMEM, "cpu engine: out of memory");
        v->runs[parity] = a.v;
        v->nruns[parity] = a.n;
        if (a.reach > v->R) v->R = a.reach;
        if (a.reach_y > v->Ry) v->Ry = a.reach_y;
    }
    v->w = m->w;
    v->h = m->h;
    v->S = m->S;
    v->torus = m->torus;
    v->moore = l->nh == 'M';
    v->diamond = l->nh == 'N';
    v->simd_dia = have(WL_CPU_AVX512BW);
    v->middle = l->middle;
    m->ltl = *l; /* cfg is the caller's: keep the intervals here */
    v->birth = m->ltl.birth;
    v->survive = m->ltl.survive;
    v->nbirth = l->nbirth;
    v->nsurvive = l->nsurvive;
    v->ext = (size_t)m->w + 2 * (size_t)v->R + 1;
    v->skip = !m->torus && !(l->nbirth && l->birth[0][0] == 0);
    v->least = v->skip ? ltl_fire_min(v) : 0;
    /* test_row's answers by count (a neighbourhood counts at most `size` cells besides
     * the cell itself); the intervals above LTL_TABLE_MAX */
    if (size <= LTL_TABLE_MAX && (m->ltl_table = malloc((size_t)size + 1)) != NULL) {
        for (uint64_t c = 0; c <= size; c++)
            m->ltl_table[c] = (uint8_t)(in_intervals(v->birth, v->nbirth, (uint32_t)c) |
                                        in_intervals(v->survive, v->nsurvive,
                                                     (uint32_t)c + v->middle) << 1);
        v->table = m->ltl_table;
    }
    /* 16-bit counts hold every count below 2^16 - 1 (the cell itself and M1 included);
     * larger neighbourhoods count in 32-bit lanes (WL_CPU_LTL_WIDE=1 forces that: tests) */
    m->simd = have(WL_CPU_AVX512BW);
    const char *on_pool = getenv("WL_CPU_LTL_POOL");
    m->ltl_pool = on_pool && *on_pool && *on_pool != '0';
    const char *wide = getenv("WL_CPU_LTL_WIDE");
    v->wide = size + 2 >= 65535 || (wide && *wide && *wide != '0');
    size_t ring = v->moore ? 1 : 2 * (size_t)v->Ry + 1;
    /* (rows of ext entries each thread keeps; Moore's extended bit rows count an eighth) */
    const uint64_t rows = v->moore ? (2 * (uint64_t)v->Ry + 2) / 8 + 1 : ring;
    if (rows * v->ext > wl_physical_memory() / 16 / (uint64_t)wl_pool_size(pool))
        return wl_error(WL_ERR_TOO_BIG, "cpu engine: a %llu-cell-wide grid of range %d needs "
                        "too much memory for its row sums", (unsigned long long)m->w, v->R);
    if (v->diamond && (uint64_t)cpu_ltl_diamond_words(v) * sizeof(uint32_t) >
                          wl_physical_memory() / 16 / (uint64_t)wl_pool_size(pool))
        return wl_error(WL_ERR_TOO_BIG, "cpu engine: a %llu-cell-wide grid of range %d needs "
                        "too much memory for its diagonal sums", (unsigned long long)m->w, v->R);
    m->scratch = wl_calloc((size_t)wl_pool_size(pool), sizeof *m->scratch);
    if (!m->scratch) return WL_ERR_NOMEM;
    m->nscratch = wl_pool_size(pool);
    for (int t = 0; t < m->nscratch; t++) {
        ltl_scratch *sc = &m->scratch[t];
        if (v->diamond) { /* the diamond's own kernel, whatever the CPU */
            sc->dia = wl_malloc(cpu_ltl_diamond_words(v) * sizeof *sc->dia);
            if (!sc->dia) return WL_ERR_NOMEM;
            continue;
        }
        if (m->simd) {
            sc->block = wl_aligned_alloc(cpu_ltl_buffer_bytes(v));
            if (!sc->block) return WL_ERR_NOMEM;
            cpu_ltl_buffers_place(v, sc->block, &sc->simd);
            sc->simd.lo = wl_malloc(((size_t)v->h + 2 * (size_t)v->Ry + 2) * sizeof(int32_t));
            sc->simd.hi = wl_malloc(((size_t)v->h + 2 * (size_t)v->Ry + 2) * sizeof(int32_t));
            sc->simd.zero = wl_calloc(2 * (size_t)v->Ry + 1, 1);
            sc->simd.win = wl_malloc(4 * ((size_t)v->h + 2 * (size_t)v->Ry + 2) * sizeof(int32_t));
            if (!sc->simd.lo || !sc->simd.hi || !sc->simd.zero || !sc->simd.win) return WL_ERR_NOMEM;
            continue;
        }
        sc->cells = wl_malloc(v->ext * sizeof *sc->cells);
        sc->col = wl_malloc(v->ext * sizeof *sc->col);
        sc->blk = wl_malloc(ltl_blk64(v) * sizeof *sc->blk);
        sc->sums = wl_malloc(ring * v->ext * sizeof *sc->sums);
        sc->count = wl_malloc(2 * v->ext * sizeof *sc->count);
        sc->lo = wl_malloc(((size_t)v->h + 2 * (size_t)v->Ry + 2) * sizeof(int32_t));
        sc->hi = wl_malloc(((size_t)v->h + 2 * (size_t)v->Ry + 2) * sizeof(int32_t));
        if (!sc->cells || !sc->col || !sc->sums || !sc->count || !sc->lo || !sc->hi || !sc->blk)
            return WL_ERR_NOMEM;
    }
    return WL_OK;
}

/* Words of the scratch of neighbours_row: two rows with a word on either side, and a row
 * of zeros. */
static inline size_t nbr_scratch_words(size_t S) { return 3 * S + 4; }
static inline const uint64_t *nbr_zero_row(size_t S, const uint64_t *tmp) {
    return tmp + 2 * S + 4;
}

static wl_status super_create(cpu_multi *m);

wl_status cpu_multi_create(const wl_config *cfg, wl_pool *pool, cpu_multi **out) {
    *out = NULL;
    cpu_multi *m = wl_calloc(1, sizeof *m);
    if (!m) return WL_ERR_NOMEM;
    m->w = cfg->width;
    m->h = cfg->height;
    m->S = (size_t)((m->w + 63) / 64);
    m->torus = cfg->topology == WL_TOPOLOGY_TORUS;
    m->family = wl_rule_family(&cfg->rule);
    m->states = wl_rule_states(&cfg->rule);
    m->P = wl_grid_planes_for(&cfg->rule) - 1;
    if (m->family == WL_FAMILY_SUPER) m->P = 4; /* state bits 1 .. 4 (bit 0: F) */
    if (m->P && (m->family == WL_FAMILY_GENERATIONS || m->family == WL_FAMILY_LTL))
        m->offset = ((uint64_t)1 << m->P) - (m->states - 1);
    if (m->family == WL_FAMILY_HISTORY) {
        m->P = 4;
        m->marks_nbrs = wl_marks_neighbours(&cfg->rule);
        if (!(m->wrow = calloc(nbr_scratch_words(m->S), 8))) {
            free(m);
            return WL_ERR_NOMEM;
        }
    }
    if (m->family == WL_FAMILY_SUPER) m->marks_nbrs = wl_marks_neighbours(&cfg->rule);
    m->pool = pool;
    m->avx512 = have(WL_CPU_AVX512F);
    m->avx2 = !m->avx512 && have(WL_CPU_AVX2);
    m->work = UINT64_MAX;
    wl_status s = WL_OK;
    m->np = m->P + (m->family == WL_FAMILY_HISTORY);
    if (m->P) {
        size_t words = (size_t)m->np * m->S * (size_t)m->h;
        m->e = wl_aligned_alloc(words * 8);
        if (!m->e) s = WL_ERR_NOMEM;
        else memset(m->e, 0, words * 8);
    }
    if (!s && m->family == WL_FAMILY_LTL) s = ltl_create(m, &cfg->rule.ltl, pool);
    if (!s && m->family == WL_FAMILY_SUPER) s = super_create(m);
    if (s) {
        cpu_multi_destroy(m);
        return s;
    }
    *out = m;
    return WL_OK;
}

/* Plane k of E. */
static inline uint64_t *plane(const cpu_multi *m, unsigned k) {
    return m->e + (size_t)k * m->S * (size_t)m->h;
}

/* History's planes, and A (H_NEAR), the cells with a wall among the rule's neighbours
 * (not a state: after the P = 4 planes of the state) */
enum { H_EVER, H_MARK, H_START, H_WALL, H_NEAR };

/* Row p: the cells that have a cell of X among their neighbours in the marks' neighbourhood
 * (History and Super: marks_nbrs), from X's rows above, at and below (a, b, c; a bounded
 * grid's rows beyond its edge are rows of zeros).  The neighbours to the west (dx = -1)
 * are the row L of those above, at and below that the neighbourhood has there, moved a
 * column east (P(x) |= L(x - 1)), those to the east R moved west, plus those straight
 * above and below; a torus wraps the columns, a bounded grid is dead past its edges (L
 * and R have a zero word on each side).  tmp: nbr_scratch_words(S). */
static inline __attribute__((always_inline)) void
neighbours_row_body(const cpu_multi *m, const uint64_t *a, const uint64_t *b, const uint64_t *c,
                    uint64_t *p, uint64_t *tmp) {
    const size_t S = m->S;
    const unsigned nb = m->marks_nbrs; /* NW N NE W . E SW S SE = bits 8 7 6 5 . 3 2 1 0 */
    const uint64_t mnw = nb >> 8 & 1 ? ~(uint64_t)0 : 0, mn = nb >> 7 & 1 ? ~(uint64_t)0 : 0,
                   mne = nb >> 6 & 1 ? ~(uint64_t)0 : 0, mw = nb >> 5 & 1 ? ~(uint64_t)0 : 0,
                   me = nb >> 3 & 1 ? ~(uint64_t)0 : 0, msw = nb >> 2 & 1 ? ~(uint64_t)0 : 0,
                   ms = nb >> 1 & 1 ? ~(uint64_t)0 : 0, mse = nb & 1 ? ~(uint64_t)0 : 0;
    uint64_t *l = tmp + 1, *r = tmp + S + 3; /* (a zero word before and after each) */
    l[-1] = l[S] = r[-1] = r[S] = 0;
    const uint64_t w1 = m->w - 1, tail = (m->w & 63) ? (((uint64_t)1 << (m->w & 63)) - 1) : ~(uint64_t)0;
    for (size_t i = 0; i < S; i++) {
        l[i] = (a[i] & mnw) | (b[i] & mw) | (c[i] & msw);
        r[i] = (a[i] & mne) | (b[i] & me) | (c[i] & mse);
    }
    for (size_t i = 0; i < S; i++)
        p[i] = (a[i] & mn) | (c[i] & ms) | l[i] << 1 | l[i - 1] >> 63 | r[i] >> 1 | r[i + 1] << 63;
    p[S - 1] &= tail;
    if (m->torus) { /* (x = 0 sees w - 1 to its west, w - 1 sees 0 to its east) */
        p[0] |= l[w1 / 64] >> (w1 % 64) & 1;
        p[w1 / 64] |= (r[0] & 1) << (w1 % 64);
    }
}

/* (The loops of neighbours_row and super_classes are compiled three times: plain, and for
 * AVX-512 and AVX2, where the compiler makes them vector loops; m->avx512 / m->avx2 pick,
 * for rows of a vector of words or more: on Golly's art-on-a-torus, 312 cells wide, the
 * vector loops' set-up made a run to 1000 on one thread 10-20% slower; a 512^2 LifeSuper
 * torus ran at 2.9e9 CUpS with the plain loops, 6.4e9 with these.)  WIDE_ISA(m) is 2 for
 * AVX-512, 1 for AVX2, 0 for the plain loops. */
#define MARKS_WIDE_WORDS 8
#define WIDE_ISA(m)                                                                         \
    ((m)->avx512 && (m)->S >= MARKS_WIDE_WORDS ? 2 : (m)->avx2 && (m)->S >= 4 ? 1 : 0)
static void neighbours_row_plain(const cpu_multi *m, const uint64_t *a, const uint64_t *b,
                                 const uint64_t *c, uint64_t *p, uint64_t *tmp) {
    neighbours_row_body(m, a, b, c, p, tmp);
}

#if defined(WL_CPU_X86_SIMD)
__attribute__((target("avx512f"))) static void
neighbours_row_avx512(const cpu_multi *m, const uint64_t *a, const uint64_t *b, const uint64_t *c,
                      uint64_t *p, uint64_t *tmp) {
    neighbours_row_body(m, a, b, c, p, tmp);
}
__attribute__((target("avx2"))) static void
neighbours_row_avx2(const cpu_multi *m, const uint64_t *a, const uint64_t *b, const uint64_t *c,
                    uint64_t *p, uint64_t *tmp) {
    neighbours_row_body(m, a, b, c, p, tmp);
}
#endif

static void neighbours_row(const cpu_multi *m, const uint64_t *a, const uint64_t *b,
                           const uint64_t *c, uint64_t *p, uint64_t *tmp) {
#if defined(WL_CPU_X86_SIMD)
    switch (WIDE_ISA(m)) {
    case 2: neighbours_row_avx512(m, a, b, c, p, tmp); return;
    case 1: neighbours_row_avx2(m, a, b, c, p, tmp); return;
    default: break;
    }
#endif
    neighbours_row_plain(m, a, b, c, p, tmp);
}

/* Row y of a grid's plane x (any integer: wrapped on a torus, a row of zeros beyond a
 * bounded grid's edge). */
static inline const uint64_t *plane_row(const cpu_multi *m, const uint64_t *x, int64_t y,
                                        const uint64_t *zero) {
    if (y < 0 || y >= (int64_t)m->h) {
        if (!m->torus) return zero;
        y = wl_mod(y, (int64_t)m->h);
    }
    return x + (size_t)y * m->S;
}

/* History: A from W, the cells with a wall among the rule's neighbours, row by row. */
static void history_walls(cpu_multi *m) {
    const uint64_t *w = plane(m, H_WALL);
    uint64_t *near = plane(m, H_NEAR);
    const size_t S = m->S, n = S * (size_t)m->h;
    if (wl_first_word(w, n) == n) { /* no walls (most patterns) */
        memset(near, 0, n * 8);
        return;
    }
    const uint64_t *zero = nbr_zero_row(S, m->wrow);
    for (uint64_t y = 0; y < m->h; y++)
        neighbours_row(m, plane_row(m, w, (int64_t)y - 1, zero), w + (size_t)y * S,
                       plane_row(m, w, (int64_t)y + 1, zero), near + (size_t)y * S, m->wrow);
}

void cpu_multi_changed(cpu_multi *m) {
    if (m->family == WL_FAMILY_HISTORY) history_walls(m);
}

/* History: the states of wl_grid's planes (the live plane, then state - 1 in bits) into F
 * and the marks, and back. */
static void history_load(cpu_multi *m, const wl_grid *g, uint64_t *f) {
    size_t gp = g->h * g->stride;
    uint64_t tail = (m->w & 63) ? (((uint64_t)1 << (m->w & 63)) - 1) : ~(uint64_t)0;
    for (uint64_t y = 0; y < m->h; y++)
        for (size_t i = 0; i < m->S; i++) {
            size_t at = (size_t)y * m->S + i, gat = (size_t)y * g->stride + i;
            uint64_t live = g->words[gat] & (i + 1 == m->S ? tail : ~(uint64_t)0);
            uint64_t b[3];
            for (unsigned k = 0; k < 3; k++) b[k] = k + 1 < g->planes ? g->words[gat + (k + 1) * gp] : 0;
            /* state - 1 = b2 b1 b0: 0 -> 1, 1 -> 2, 2 -> 3, 3 -> 4, 4 -> 5, 5 -> 6 */
            const uint64_t s1 = live & ~b[2] & ~b[1] & ~b[0], s2 = live & ~b[2] & ~b[1] & b[0];
            const uint64_t s3 = live & ~b[2] & b[1] & ~b[0], s4 = live & ~b[2] & b[1] & b[0];
            const uint64_t s5 = live & b[2] & ~b[1] & ~b[0], s6 = live & b[2] & ~b[1] & b[0];
            f[at] = s1 | s3 | s5;
            plane(m, H_EVER)[at] = s2;
            plane(m, H_MARK)[at] = s3 | s4;
            plane(m, H_START)[at] = s5;
            plane(m, H_WALL)[at] = s6;
        }
    history_walls(m);
}

static void history_store(const cpu_multi *m, const uint64_t *f, wl_grid *g) {
    size_t gp = g->h * g->stride;
    unsigned planes = g->planes ? g->planes : 1;
    memset(g->words, 0, gp * planes * 8);
    for (uint64_t y = 0; y < m->h; y++)
        for (size_t i = 0; i < m->S; i++) {
            size_t at = (size_t)y * m->S + i, gat = (size_t)y * g->stride + i;
            const uint64_t on = f[at], wall = plane(m, H_WALL)[at], mark = plane(m, H_MARK)[at];
            const uint64_t s5 = on & plane(m, H_START)[at], s3 = on & mark & ~s5;
            const uint64_t s4 = ~on & mark, s2 = ~on & ~mark & plane(m, H_EVER)[at] & ~wall;
            const uint64_t s6 = wall & ~on;
            /* state - 1: 2 -> 1, 3 -> 2, 4 -> 3, 5 -> 4, 6 -> 5 */
            const uint64_t b0 = s2 | s4 | s6, b1 = s3 | s4, b2 = s5 | s6;
            g->words[gat] = on | s2 | s4 | s6;
            if (planes > 1) g->words[gat + gp] = b0;
            if (planes > 2) g->words[gat + 2 * gp] = b1;
            if (planes > 3) g->words[gat + 3 * gp] = b2;
        }
}

/* History after the table, words [a, b) of planes ep, pl words apart (see the top). */
static void history_span(const uint64_t *f, uint64_t *fn, uint64_t *ep, size_t pl, size_t a,
                         size_t b) {
    uint64_t *ever = ep + H_EVER * pl, *mark = ep + H_MARK * pl, *start = ep + H_START * pl;
    const uint64_t *wall = ep + H_WALL * pl, *wa = ep + H_NEAR * pl;
    for (size_t i = a; i < b; i++) {
        const uint64_t old = f[i], nf = fn[i] & ~wall[i] & ~(old & wa[i]);
        mark[i] |= start[i] & ~nf;
        start[i] &= nf;
        ever[i] |= old;
        fn[i] = nf;
    }
}

/* Adds the constant c to the P-bit numbers of the lanes `lanes` of the bit planes v[0 ..
 * P-1] (mod 2^P). */
static void add_lanes(uint64_t *v, unsigned P, uint64_t lanes, uint64_t c) {
    uint64_t carry = 0;
    for (unsigned k = 0; k < P; k++) {
        const uint64_t b = (c >> k) & 1 ? lanes : 0;
        const uint64_t s = v[k] ^ b ^ carry;
        carry = (v[k] & b) | (carry & (v[k] ^ b));
        v[k] = s;
    }
}

/* Super: wl_grid's state - 1 (five bits) into the state's bit 0 (F) and bits 1 .. 4 (the
 * planes), and back. */
static void super_load(cpu_multi *m, const wl_grid *g, uint64_t *f) {
    const size_t gp = g->h * g->stride;
    const uint64_t tail = (m->w & 63) ? (((uint64_t)1 << (m->w & 63)) - 1) : ~(uint64_t)0;
    for (uint64_t y = 0; y < m->h; y++)
        for (size_t i = 0; i < m->S; i++) {
            const size_t at = (size_t)y * m->S + i, gat = (size_t)y * g->stride + i;
            const uint64_t live = g->words[gat] & (i + 1 == m->S ? tail : ~(uint64_t)0);
            uint64_t v[5];
            for (unsigned k = 0; k < 5; k++)
                v[k] = k + 1 < g->planes ? g->words[gat + (k + 1) * gp] & live : 0;
            add_lanes(v, 5, live, 1);
            f[at] = v[0];
            for (unsigned k = 0; k < 4; k++) plane(m, k)[at] = v[k + 1];
        }
}

static void super_store(const cpu_multi *m, const uint64_t *f, wl_grid *g) {
    const size_t gp = g->h * g->stride;
    const unsigned planes = g->planes ? g->planes : 1;
    memset(g->words, 0, gp * planes * 8);
    for (uint64_t y = 0; y < m->h; y++)
        for (size_t i = 0; i < m->S; i++) {
            const size_t at = (size_t)y * m->S + i, gat = (size_t)y * g->stride + i;
            uint64_t v[5] = {f[at]}, live = f[at];
            for (unsigned k = 0; k < 4; k++) live |= v[k + 1] = plane(m, k)[at];
            add_lanes(v, 5, live, 31); /* (minus 1, mod 32) */
            g->words[gat] = live;
            for (unsigned k = 0; k < 5 && k + 1 < planes; k++) g->words[gat + (k + 1) * gp] = v[k];
        }
}

void cpu_multi_load(cpu_multi *m, const wl_grid *g, uint64_t *f) {
    if (m->family == WL_FAMILY_HISTORY) {
        history_load(m, g, f);
        return;
    }
    if (m->family == WL_FAMILY_SUPER) {
        super_load(m, g, f);
        return;
    }
    size_t gp = g->h * g->stride;
    uint64_t tail = (m->w & 63) ? (((uint64_t)1 << (m->w & 63)) - 1) : ~(uint64_t)0;
    for (uint64_t y = 0; y < m->h; y++) {
        for (size_t i = 0; i < m->S; i++) {
            size_t at = (size_t)y * m->S + i, gat = (size_t)y * g->stride + i;
            uint64_t live = g->words[gat] & (i + 1 == m->S ? tail : ~(uint64_t)0), any = 0;
            uint64_t v[WL_PATTERN_PLANES];
            for (unsigned k = 0; k < m->P; k++) {
                v[k] = k + 1 < g->planes ? g->words[gat + (k + 1) * gp] & live : 0;
                any |= v[k];
            }
            add_lanes(v, m->P, any, m->offset);
            for (unsigned k = 0; k < m->P; k++) plane(m, k)[at] = v[k];
            f[at] = live & ~any;
        }
    }
}

void cpu_multi_store(const cpu_multi *m, const uint64_t *f, wl_grid *g) {
    if (m->family == WL_FAMILY_HISTORY) {
        history_store(m, f, g);
        return;
    }
    if (m->family == WL_FAMILY_SUPER) {
        super_store(m, f, g);
        return;
    }
    size_t gp = g->h * g->stride;
    unsigned planes = g->planes ? g->planes : 1;
    memset(g->words, 0, gp * planes * 8);
    for (uint64_t y = 0; y < m->h; y++) {
        for (size_t i = 0; i < m->S; i++) {
            size_t at = (size_t)y * m->S + i, gat = (size_t)y * g->stride + i;
            uint64_t any = 0, v[WL_PATTERN_PLANES];
            for (unsigned k = 0; k < m->P; k++) any |= v[k] = plane(m, k)[at];
            add_lanes(v, m->P, any, m->states - 1); /* (minus the offset, mod 2^P) */
            for (unsigned k = 0; k + 1 < planes && k < m->P; k++) g->words[gat + (k + 1) * gp] = v[k];
            g->words[gat] = f[at] | any;
        }
    }
}

uint64_t *cpu_multi_planes(const cpu_multi *m, unsigned *P) {
    *P = m->P;
    return m->e;
}

uint64_t cpu_multi_population(const cpu_multi *m, const uint64_t *f) {
    uint64_t n = 0;
    size_t words = m->S * (size_t)m->h;
    for (size_t i = 0; i < words; i++) {
        uint64_t any = f[i];
        for (unsigned k = 0; k < m->P; k++) any |= plane(m, k)[i];
        n += wl_popcount64(any);
    }
    return n;
}

/* Generations' decay of words [a, b) (decay.h) of planes ep, `plane` words apart, with
 * AVX-512 where the CPU has it. */
static inline void decay_span(const cpu_multi *m, const uint64_t *f, uint64_t *fn, uint64_t *ep,
                              size_t plane, size_t a, size_t b) {
#if defined(WL_CPU_X86_SIMD)
    if (m->avx512) {
        cpu_decay_avx512(m->P, m->offset + 1, f, fn, ep, plane, a, b);
        return;
    }
#endif
    wl_decay_words(m->P, m->offset + 1, f, fn, ep, plane, a, b);
}

/* The decay of words [a, b) of the grid's planes (History: the marks). */
static void decay_words(const cpu_multi *m, const uint64_t *f, uint64_t *fn, size_t a, size_t b) {
    if (m->family == WL_FAMILY_HISTORY) {
        history_span(f, fn, m->e, m->S * (size_t)m->h, a, b);
        return;
    }
    decay_span(m, f, fn, m->e, m->S * (size_t)m->h, a, b);
}

void cpu_multi_decay_buf(void *arg, const uint64_t *in, uint64_t *out, uint64_t *planes,
                         size_t pstride, size_t pitch, size_t c0, size_t c1, size_t lo,
                         size_t hi) {
    const cpu_multi *m = arg;
    for (size_t j = lo; j < hi; j++) { /* (row by row: the pads between rows stay as they are) */
        if (m->family == WL_FAMILY_HISTORY)
            history_span(in, out, planes, pstride, j * pitch + c0, j * pitch + c1);
        else
            decay_span(m, in, out, planes, pstride, j * pitch + c0, j * pitch + c1);
    }
}

/* The planes' second set (0: no memory for it). */
static int alloc_e2(cpu_multi *m) {
    if (!m->e2) {
        const size_t words = (size_t)m->np * m->S * (size_t)m->h;
        if (words > wl_physical_memory() / 8 / 8 || !(m->e2 = wl_aligned_alloc(words * 8)))
            return 0;
        memset(m->e2, 0, words * 8);
    }
    return 1;
}

unsigned cpu_multi_blocked(cpu_multi *m) {
    if (m->family == WL_FAMILY_LTL || m->family == WL_FAMILY_SUPER || !m->P) return 0;
    /* (without the memory for a second set of planes, a generation a pass) */
    return alloc_e2(m) ? m->np : 0;
}

/* The planes' second set becomes current (it holds the next generation). */
static void swap_planes(cpu_multi *m) {
    uint64_t *t = m->e;
    m->e = m->e2;
    m->e2 = t;
}

void cpu_multi_pass_blocked(cpu_multi *m, cpu_tiler *t, const uint64_t *src, uint64_t *dst,
                            unsigned gens) {
    cpu_tiler_pass_planes(t, src, dst, gens, m->e, m->e2);
    swap_planes(m);
}

void cpu_multi_decay_tile(void *arg, const uint64_t *f, uint64_t *fn, uint64_t y0, size_t rows,
                          size_t w0, size_t words) {
    const cpu_multi *m = arg;
    if (!m->P) return;
    if (w0 == 0 && words == m->S) { /* whole rows: one run of words (a call per row cost
                                     * its set-up per 64 words of a 4096-wide grid) */
        decay_words(m, f, fn, (size_t)y0 * m->S, (size_t)(y0 + rows) * m->S);
        return;
    }
    for (size_t j = 0; j < rows; j++) {
        size_t at = (size_t)(y0 + j) * m->S + w0;
        decay_words(m, f, fn, at, at + words);
    }
}

/* Grids of at most this many cells run a generation's pass on the calling thread. */
#define MULTI_SERIAL_CELLS ((uint64_t)1 << 18)
/* ... and grids up to this many that counted at most that many cells */
#define MULTI_SCAN_CELLS ((uint64_t)1 << 24)

/* Rows [y0, y1) of the thread's share: even parts of the rows within reach of a firing
 * cell when those are known (view.fy0 .. fy1 widened by the reach; the rows outside are
 * dead without counting, and go to the first and the last share), else of all rows. */
static void share(const cpu_multi *m, int tid, int n, uint64_t *y0, uint64_t *y1) {
    uint64_t a = 0, b = m->h;
    if (m->view.skip && m->view.fy0 <= m->view.fy1) {
        const int64_t ry = m->view.Ry, lo = m->view.fy0 - ry, hi = m->view.fy1 + ry + 1;
        a = lo > 0 ? (uint64_t)lo : 0;
        b = hi < (int64_t)m->h ? (uint64_t)hi : m->h;
        if (b < a) b = a;
    }
    *y0 = tid ? a + (b - a) * (uint64_t)tid / (uint64_t)n : 0;
    *y1 = tid + 1 < n ? a + (b - a) * (uint64_t)(tid + 1) / (uint64_t)n : m->h;
}

/* Whether row y has nothing to decay: no cell firing now or next, none decaying. */
static int decay_idle(const cpu_multi *m, uint64_t y) {
    size_t at = (size_t)y * m->S, S = m->S;
    if (wl_first_word(m->f + at, S) < S || wl_first_word(m->fn + at, S) < S) return 0;
    for (unsigned k = 0; k < m->P; k++)
        if (wl_first_word(plane(m, k) + at, S) < S) return 0;
    return 1;
}

/* The decay of the thread's rows, run by run of rows with something in them (a grow
 * engine's grid is mostly empty rows; a dense grid is one run, each row's test ending at
 * its first word). */
static void decay_task(void *arg, int tid, int n) {
    cpu_multi *m = arg;
    uint64_t y0, y1;
    share(m, tid, n, &y0, &y1);
    for (uint64_t y = y0; y < y1;) {
        while (y < y1 && decay_idle(m, y)) y++;
        uint64_t a = y;
        while (y < y1 && !decay_idle(m, y)) y++;
        if (a < y) decay_words(m, m->f, m->fn, (size_t)a * m->S, (size_t)y * m->S);
    }
}

void cpu_multi_decay(cpu_multi *m, const uint64_t *f, uint64_t *fn) {
    if (!m->P) { /* two states: F' = T */
        return;
    }
    m->f = f;
    m->fn = fn;
    if (m->w * m->h <= MULTI_SERIAL_CELLS) /* as for cpu_multi_ltl */
        decay_task(m, 0, 1);
    else
        wl_pool_run(m->pool, decay_task, m);
}

/* ---- Super --------------------------------------------------------------------------------
 *
 * Golly's Super rules (26 states; src/core/marks.c says what each does) as bit logic on
 * 64 cells a word (src/core/marks_bits.h, shared with HashLife's base case): the state's
 * bit 0 is F (the odd states are the on cells), its bits 1 to 4 are the four planes.  After
 * the table has made T from F (the tile driver, a generation a pass), each row's next
 * states come from its states, T, and presence rows: for each state that the marks look
 * for among the neighbours (1, 3, 5, 7, 9, ..., 25, the wall 6, the labels 14, 18, 20 and
 * 22) and for "any on cell", the cells that have one among their neighbours in the rule's
 * neighbourhood, an OR of the class rows above, at and below, shifted by a column.  The
 * class rows of three rows are kept in a ring as a thread walks down its share of the
 * rows.  The planes' next generation goes to the second set (a row reads its neighbours'
 * states as they were), which then becomes current.
 */

#define SUPER_SERIAL_CELLS ((uint64_t)1 << 14) /* grids of at most this many cells: one thread */

/* Words of a thread's scratch: a ring of three rows of classes, the presence rows, and
 * neighbours_row's. */
static size_t super_scratch_words(const cpu_multi *m) {
    return 4 * (size_t)WL_MC_N * m->S + nbr_scratch_words(m->S);
}

static wl_status super_create(cpu_multi *m) {
    const size_t n = (size_t)wl_pool_size(m->pool) * super_scratch_words(m);
    if (!(m->sup = wl_aligned_alloc(n * 8))) return WL_ERR_NOMEM;
    return alloc_e2(m) ? WL_OK : wl_error(WL_ERR_NOMEM, "cpu engine: out of memory (Super's planes)");
}

/* The class rows of row y (any integer; wrapped on a torus, dead beyond a bounded grid):
 * row k the cells in state wl_mark_class_state[k] (WL_MC_ODD: the on cells).  Returns the
 * classes that have a cell there (bit k): the others' rows are left as they were, not
 * written. */
static inline __attribute__((always_inline)) uint32_t
super_classes_body(const cpu_multi *m, const uint64_t *f, int64_t y, uint64_t *cls) {
    const size_t S = m->S;
    if (y < 0 || y >= (int64_t)m->h) {
        if (!m->torus) return 0;
        y = wl_mod(y, (int64_t)m->h);
    }
    const size_t at = (size_t)y * S;
    const uint64_t *b0 = f + at, *b1 = plane(m, 0) + at, *b2 = plane(m, 1) + at,
                   *b3 = plane(m, 2) + at, *b4 = plane(m, 3) + at;
    uint64_t marks = 0, on = 0; /* (a row of states 0, 1 and 2 alone: classes 1 and on) */
    for (size_t i = 0; i < S; i++) {
        marks |= b2[i] | b3[i] | b4[i] | (b1[i] & b0[i]);
        on |= b0[i];
    }
    if (!marks) {
        if (!on) return 0;
        memcpy(cls + (size_t)WL_MC_1 * S, b0, S * 8);
        memcpy(cls + (size_t)WL_MC_ODD * S, b0, S * 8);
        return 1u << WL_MC_1 | 1u << WL_MC_ODD;
    }
    uint64_t any[WL_MC_N] = {0};
    for (size_t i = 0; i < S; i++) {
        const uint64_t c[5] = {b0[i], b1[i], b2[i], b3[i], b4[i]};
        uint64_t x[WL_MC_N];
        wl_mark_classes(c, x);
        for (int k = 0; k < WL_MC_N; k++) {
            cls[(size_t)k * S + i] = x[k];
            any[k] |= x[k];
        }
    }
    uint32_t present = 0;
    for (int k = 0; k < WL_MC_N; k++) present |= any[k] ? WL_MC_BIT(k) : 0;
    return present;
}

static uint32_t super_classes_plain(const cpu_multi *m, const uint64_t *f, int64_t y,
                                    uint64_t *cls) {
    return super_classes_body(m, f, y, cls);
}

#if defined(WL_CPU_X86_SIMD)
__attribute__((target("avx512f"))) static uint32_t
super_classes_avx512(const cpu_multi *m, const uint64_t *f, int64_t y, uint64_t *cls) {
    return super_classes_body(m, f, y, cls);
}
__attribute__((target("avx2"))) static uint32_t
super_classes_avx2(const cpu_multi *m, const uint64_t *f, int64_t y, uint64_t *cls) {
    return super_classes_body(m, f, y, cls);
}
#endif

static uint32_t super_classes(const cpu_multi *m, const uint64_t *f, int64_t y, uint64_t *cls) {
#if defined(WL_CPU_X86_SIMD)
    switch (WIDE_ISA(m)) {
    case 2: return super_classes_avx512(m, f, y, cls);
    case 1: return super_classes_avx2(m, f, y, cls);
    default: break;
    }
#endif
    return super_classes_plain(m, f, y, cls);
}

/* The presence rows of row y from the class rows of y - 1, y, y + 1 (rows[0 .. 2]; has[]:
 * their classes with a cell), each through neighbours_row. */
static void super_presence(const cpu_multi *m, uint64_t *const rows[3], const uint32_t has[3],
                           uint64_t *pres, uint64_t *tmp) {
    const size_t S = m->S;
    const uint64_t *zero = nbr_zero_row(S, tmp);
    for (int k = 0; k < WL_MC_N; k++) {
        const size_t o = (size_t)k * S;
        uint64_t *p = pres + o;
        if (!((has[0] | has[1] | has[2]) >> k & 1)) { /* (no such state in the three rows) */
            memset(p, 0, S * 8);
            continue;
        }
        /* (a row without the class reads as a row of zeros) */
        neighbours_row(m, has[0] >> k & 1 ? rows[0] + o : zero, has[1] >> k & 1 ? rows[1] + o : zero,
                       has[2] >> k & 1 ? rows[2] + o : zero, p, tmp);
    }
}

/* Row y's next states: F and the planes at words `at`, T in fn (the on cells next, on
 * exit), the planes' next generation into e2 (wl_marks_next_word), from word i0 on. */
static void super_row(const cpu_multi *m, const uint64_t *f, uint64_t *fn, const uint64_t *pres,
                      size_t at, size_t i0) {
    const size_t S = m->S, pl = S * (size_t)m->h;
    const uint64_t *e = m->e;
    uint64_t *e2 = m->e2;
    for (size_t i = i0; i < S; i++) {
        const uint64_t c[5] = {f[at + i], e[at + i], e[pl + at + i], e[2 * pl + at + i],
                               e[3 * pl + at + i]};
        uint64_t r[5];
        wl_marks_next_word(c, fn + at + i, pres + i, S, ~(uint32_t)0, r);
        fn[at + i] = r[0];
        e2[at + i] = r[1];
        e2[pl + at + i] = r[2];
        e2[2 * pl + at + i] = r[3];
        e2[3 * pl + at + i] = r[4];
    }
}

#if defined(WL_CPU_X86_SIMD)
/* The same logic on vectors of eight words (AVX-512: about 160 word operations a word
 * became ternary logic on 512 cells at once) or, without AVX-512, of four (AVX2), the
 * row's last words by super_row. */
typedef uint64_t wl_v8 __attribute__((vector_size(64), aligned(8), may_alias));
typedef uint64_t wl_v4 __attribute__((vector_size(32), aligned(8), may_alias));
#define WL_MARKS_T wl_v8
#define WL_MARKS_NAME marks_next_v8
#define WL_MARKS_CLASSES marks_classes_v8
#define WL_MARKS_LOAD(ptr) (*(const wl_v8 *)(const void *)(ptr))
#define WL_MARKS_ATTR __attribute__((target("avx512f")))
#include "marks_next.inc.h"
#define WL_MARKS_T wl_v4
#define WL_MARKS_NAME marks_next_v4
#define WL_MARKS_CLASSES marks_classes_v4
#define WL_MARKS_LOAD(ptr) (*(const wl_v4 *)(const void *)(ptr))
#define WL_MARKS_ATTR __attribute__((target("avx2")))
#include "marks_next.inc.h"

/* super_row on vectors VT of W words with NEXT (a marks_next_* above). */
#define SUPER_ROW_VEC(NAME, VT, W, NEXT, ATTR)                                                \
    ATTR static void NAME(const cpu_multi *m, const uint64_t *f, uint64_t *fn,                \
                          const uint64_t *pres, size_t at) {                                  \
        const size_t S = m->S, pl = S * (size_t)m->h;                                         \
        const uint64_t *e = m->e;                                                             \
        uint64_t *e2 = m->e2;                                                                 \
        size_t i = 0;                                                                         \
        for (; i + (W) <= S; i += (W)) {                                                      \
            const VT c[5] = {LD_(VT, f + at + i), LD_(VT, e + at + i),                        \
                             LD_(VT, e + pl + at + i), LD_(VT, e + 2 * pl + at + i),          \
                             LD_(VT, e + 3 * pl + at + i)};                                   \
            VT r[5];                                                                          \
            const VT t = LD_(VT, fn + at + i);                                                \
            NEXT(c, &t, pres + i, S, ~(uint32_t)0, r);                                        \
            ST_(VT, fn + at + i, r[0]);                                                       \
            ST_(VT, e2 + at + i, r[1]);                                                       \
            ST_(VT, e2 + pl + at + i, r[2]);                                                  \
            ST_(VT, e2 + 2 * pl + at + i, r[3]);                                              \
            ST_(VT, e2 + 3 * pl + at + i, r[4]);                                              \
        }                                                                                     \
        super_row(m, f, fn, pres, at, i);                                                     \
    }
#define LD_(VT, ptr) (*(const VT *)(const void *)(ptr))
#define ST_(VT, ptr, v) (*(VT *)(void *)(ptr) = (v))
SUPER_ROW_VEC(super_row_avx512, wl_v8, 8, marks_next_v8, __attribute__((target("avx512f"))))
SUPER_ROW_VEC(super_row_avx2, wl_v4, 4, marks_next_v4, __attribute__((target("avx2"))))
#undef LD_
#undef ST_
#endif

/* Thread tid's share of the rows (whole rows, in order, as many each). */
static void super_task(void *arg, int tid, int n) {
    cpu_multi *m = arg;
    const size_t S = m->S;
    const uint64_t y0 = m->h * (uint64_t)tid / (uint64_t)n, y1 = m->h * (uint64_t)(tid + 1) / (uint64_t)n;
    if (y0 >= y1) return;
    uint64_t *scr = m->sup + (size_t)tid * super_scratch_words(m);
    uint64_t *ring[3] = {scr, scr + WL_MC_N * S, scr + 2 * WL_MC_N * S};
    uint64_t *pres = scr + 3 * WL_MC_N * S, *tmp = scr + 4 * WL_MC_N * S;
    memset((uint64_t *)nbr_zero_row(S, tmp), 0, S * 8);
    uint32_t has[3];
    has[0] = super_classes(m, m->f, (int64_t)y0 - 1, ring[0]);
    has[1] = super_classes(m, m->f, (int64_t)y0, ring[1]);
    for (uint64_t y = y0; y < y1; y++) {
        has[2] = super_classes(m, m->f, (int64_t)y + 1, ring[2]);
        super_presence(m, ring, has, pres, tmp);
#if defined(WL_CPU_X86_SIMD)
        if (m->avx512)
            super_row_avx512(m, m->f, m->fn, pres, (size_t)y * S);
        else if (m->avx2)
            super_row_avx2(m, m->f, m->fn, pres, (size_t)y * S);
        else
#endif
            super_row(m, m->f, m->fn, pres, (size_t)y * S, 0);
        uint64_t *t = ring[0];
        ring[0] = ring[1];
        ring[1] = ring[2];
        ring[2] = t;
        has[0] = has[1];
        has[1] = has[2];
    }
}

void cpu_multi_super(cpu_multi *m, const uint64_t *f, uint64_t *fn) {
    m->f = f;
    m->fn = fn;
    /* (the marks cost many times the table's work: threads pay on smaller grids than for
     * the decay; Golly's art-on-a-torus, 312 x 156, to generation 1000 on the dev VM,
     * medians of 7 alternating runs in a noisy hour: 94-96 ms on one thread, 64-90 ms on
     * two) */
    if (m->w * m->h <= SUPER_SERIAL_CELLS)
        super_task(m, 0, 1);
    else
        wl_pool_run(m->pool, super_task, m);
    swap_planes(m);
}

/* ---- Larger than Life: the portable kernel ------------------------------------------------ */

/* The cells of an extended row: out[i] = firing bit of column i - R, for i < ext - 1. */
static void unpack_row(const cpu_ltl_view *v, const uint64_t *row, uint16_t *out) {
    size_t n = v->ext - 1;
    if (!row) {
        memset(out, 0, n * sizeof *out);
        return;
    }
    for (size_t i = 0; i < n; i++) out[i] = (uint16_t)cpu_ltl_bit(v, row, (int64_t)i - v->R);
}

/* Prefix sums of an extended row's cells: p[0] = 0, p[i + 1] = p[i] + c[i]. */
static void prefix(const cpu_ltl_view *v, const uint16_t *c, uint32_t *p) {
    uint32_t acc = 0;
    p[0] = 0;
    for (size_t i = 0; i + 1 < v->ext; i++) p[i + 1] = acc += c[i];
}


/* Packs one row's next firing bits from its counts (outer counts: the cell excluded). */
static void test_row(const cpu_ltl_view *v, const uint32_t *count, const uint64_t *frow,
                     uint64_t *out) {
    if (v->table) {
        for (size_t i = 0; i < v->S; i++) {
            uint64_t word = 0, fw = frow[i];
            size_t n = v->w - i * 64 < 64 ? (size_t)(v->w - i * 64) : 64;
            for (size_t b = 0; b < n; b++)
                word |= (uint64_t)(v->table[count[i * 64 + b]] >> (fw >> b & 1) & 1) << b;
            out[i] = word;
        }
        return;
    }
    for (size_t i = 0; i < v->S; i++) {
        uint64_t word = 0, fw = frow[i];
        size_t n = v->w - i * 64 < 64 ? (size_t)(v->w - i * 64) : 64;
        for (size_t b = 0; b < n; b++) {
            uint32_t c = count[i * 64 + b];
            uint64_t alive = fw >> b & 1 ? in_intervals(v->survive, v->nsurvive, c + v->middle)
                                         : in_intervals(v->birth, v->nbirth, c);
            word |= alive << b;
        }
        out[i] = word;
    }
}

/* Skip: cuts the output row's chunks [*c0, *c1) (of n cells each: 32 in simd_ltl.c, 64
 * here) at both ends to those where some cell may fire.  blk[k] holds the window's firing
 * cells in the extended columns [n k, n k + n - 1]; a cell of chunk j counts extended
 * columns n j .. n j + n - 1 + 2R (any shape lies within its square), within the blocks
 * j .. j + D (D = (n - 1 + 2R) / n), so their totals bound the count of each of its
 * cells, and a chunk whose bound is below v->least stays dead.  Only the ends are cut, so that the prefix sums stay one run (cutting
 * inside the row as well, into runs whose sums start over, gained nothing on Golly's
 * 50c-spaceships).  A bug of a high threshold (Golly's r100-alien-bug: B9350, S10349 of
 * 40401) counted mostly cells around it that cannot reach it.  blk must hold *c1 + D + 1
 * entries. */
void cpu_ltl_trim(const cpu_ltl_view *v, const uint32_t *blk, size_t n, size_t *c0,
                  size_t *c1) {
    const size_t D = (n - 1 + 2 * (size_t)v->R) / n;
    const uint32_t least = v->least;
    size_t a = *c0, z = *c1;
    uint32_t s = 0;
    for (size_t k = a; k <= a + D; k++) s += blk[k];
    while (a < z && s < least) {
        s += blk[a + D + 1] - blk[a];
        a++;
    }
    if (a == z) {
        *c0 = *c1 = a;
        return;
    }
    s = 0;
    for (size_t k = z - 1; k <= z - 1 + D; k++) s += blk[k];
    while (z - 1 > a && s < least) {
        z--;
        s += blk[z - 1] - blk[z + D];
    }
    *c0 = a;
    *c1 = z;
}

void cpu_ltl_row_extents(const cpu_ltl_view *v, uint64_t y0, uint64_t y1, int32_t *lo,
                         int32_t *hi) {
    for (int64_t y = (int64_t)y0 - v->Ry; y <= (int64_t)y1 + v->Ry; y++) {
        size_t k = (size_t)(y - ((int64_t)y0 - v->Ry));
        lo[k] = INT32_MAX;
        hi[k] = -1;
        if (y < v->fy0 || y > v->fy1 || y < 0 || y >= (int64_t)v->h) continue;
        const uint64_t *row = v->f + (size_t)y * v->S;
        size_t i = wl_first_word(row, v->S), S = v->S;
        if (i == S) continue;
        size_t j = S - 1;
        while (!row[j]) j--;
        lo[k] = (int32_t)i;
        hi[k] = (int32_t)j;
    }
}

/* (v->skip) The columns [*xa, *xb] within reach of the firing cells of rows y0 - Ry ..
 * y1 + Ry, in whole words (test_row reads the counts of whole words), the rows' extents
 * left in s->lo and s->hi; 0, with the band's output rows cleared, when none of those rows
 * has a firing cell. */
static int band_columns(const cpu_ltl_view *v, uint64_t y0, uint64_t y1, ltl_scratch *s,
                        size_t *xa, size_t *xb) {
    const size_t R = (size_t)v->R, W = (size_t)v->w;
    cpu_ltl_row_extents(v, y0, y1, s->lo, s->hi);
    int32_t lo = INT32_MAX, hi = -1;
    for (size_t k = 0; k < (size_t)(y1 - y0) + 2 * (size_t)v->Ry + 1; k++) {
        if (s->lo[k] < lo) lo = s->lo[k];
        if (s->hi[k] > hi) hi = s->hi[k];
    }
    if (hi < 0) {
        memset(v->fn + (size_t)y0 * v->S, 0, (size_t)(y1 - y0) * v->S * sizeof *v->fn);
        return 0;
    }
    *xa = (size_t)lo * 64 > R ? ((size_t)lo * 64 - R) / 64 * 64 : 0;
    *xb = ((size_t)hi * 64 + 63 + R) / 64 * 64 + 63;
    if (*xb > W - 1) *xb = W - 1;
    return 1;
}

/* The output row from the counts of columns [xa, xb] (band_columns); the words beyond are
 * out of every firing cell's reach and stay dead (no B0). */
static void test_row_within(const cpu_ltl_view *v, const uint32_t *count, const uint64_t *frow,
                            uint64_t *out, size_t xa, size_t xb) {
    memset(out, 0, v->S * sizeof *out);
    cpu_ltl_view part = *v;
    const size_t wa = xa / 64, wb = xb / 64 + 1;
    part.S = wb - wa;
    part.w = wb * 64 < v->w ? (wb - wa) * 64 : v->w - wa * 64;
    test_row(&part, count + wa * 64, frow + wa, out + wa);
}

/* Adds (sign 1) or takes (-1) the firing cells of row y (a row of a bounded grid) to the
 * column sums of the extended cells [ia, ib): a firing cell at a time. */
static void slide_range(const cpu_ltl_view *v, int64_t y, uint16_t *col, uint32_t *blk,
                        size_t ia, size_t ib, int sign) {
    const uint64_t *row = cpu_ltl_row(v, y);
    if (!row) return;
    int64_t xa = (int64_t)ia - v->R, xb = (int64_t)ib - v->R; /* columns [xa, xb) */
    if (xa < 0) xa = 0;
    if (xb > (int64_t)v->w) xb = (int64_t)v->w;
    for (int64_t i = xa >> 6; i < (xb + 63) >> 6; i++) {
        uint64_t bits = row[i];
        while (bits) {
            int64_t x = i * 64 + __builtin_ctzll(bits);
            bits &= bits - 1;
            if (x >= xa && x < xb) {
                col[x + v->R] = (uint16_t)(col[x + v->R] + sign);
                if (v->least) blk[(size_t)(x + v->R) / 64] += (uint32_t)sign;
            }
        }
    }
}

/* The Moore neighbourhood on a bounded grid without B0 (v->skip): only rows within reach of
 * a firing cell are counted, and only over the columns within reach of the band's firing
 * cells, so that the empty margins of a grid (the grow engine's room to grow, a large
 * range's reach) cost a scan of their words and nothing more. */
static void ltl_band_moore_skip(const cpu_ltl_view *v, uint64_t y0, uint64_t y1, ltl_scratch *s) {
    const int Ry = v->Ry;
    const size_t R = (size_t)v->R, W = (size_t)v->w;
    /* columns counted xa..xb; they read extended cells xa .. xb + 2R */
    size_t xa, xb;
    if (!band_columns(v, y0, y1, s, &xa, &xb)) return;
    size_t ia = xa, ib = xb + 2 * R + 1;
    memset(s->col + ia, 0, (ib - ia) * sizeof *s->col);
    if (v->least) memset(s->blk, 0, ltl_blk64(v) * sizeof *s->blk);
    memset(s->count, 0, W * sizeof *s->count);
    size_t live = 0; /* rows with firing cells among rows y - Ry .. y + Ry */
    for (int dy = -Ry; dy <= Ry; dy++) {
        size_t k = (size_t)(dy + Ry);
        if (s->hi[k] < 0) continue;
        live++;
        slide_range(v, (int64_t)y0 + dy, s->col, s->blk, ia, ib, 1);
    }
    for (uint64_t y = y0; y < y1; y++) {
        const uint64_t *frow = v->f + (size_t)y * v->S;
        uint64_t *out = v->fn + (size_t)y * v->S;
        size_t k = (size_t)(y - y0); /* extents index of row y - Ry */
        size_t w0 = xa / 64, w1 = xb / 64 + 1; /* the row's words [w0, w1) */
        if (live && v->least) cpu_ltl_trim(v, s->blk, 64, &w0, &w1); /* (where one may fire) */
        if (!live || w0 == w1) {
            memset(out, 0, v->S * sizeof *out);
        } else {
            const size_t xa2 = w0 * 64, xb2 = w1 * 64 - 1 < xb ? w1 * 64 - 1 : xb;
            uint32_t *p = s->sums, acc = 0;
            p[0] = 0;
            for (size_t i = xa2; i < xb2 + 2 * R + 1; i++) p[i - xa2 + 1] = acc += s->col[i];
            for (size_t x = xa2; x <= xb2; x++) /* the square minus the cell itself */
                s->count[x] = p[x - xa2 + 2 * R + 1] - p[x - xa2] - (uint32_t)(frow[x >> 6] >> (x & 63) & 1u);
            test_row_within(v, s->count, frow, out, xa2, xb2);
        }
        /* slide: row y - Ry leaves, row y + Ry + 1 comes */
        if (s->hi[k] >= 0) {
            live--;
            slide_range(v, (int64_t)y - Ry, s->col, s->blk, ia, ib, -1);
        }
        if (s->hi[k + 2 * (size_t)Ry + 1] >= 0) {
            live++;
            slide_range(v, (int64_t)y + Ry + 1, s->col, s->blk, ia, ib, 1);
        }
    }
}

/* The von Neumann diamond (diamond.h), portable build. */
#define DIA_BAND ltl_band_diamond_portable
#define DIA_TEST(v, D, count, frow, out)                                                  \
    do {                                                                                    \
        for (size_t x_ = 0; x_ < (size_t)(v)->w; x_++) /* the cell itself left out */       \
            (count)[x_] = (D)[x_] - (uint32_t)((frow)[x_ >> 6] >> (x_ & 63) & 1u);          \
        test_row((v), (count), (frow), (out));                                              \
    } while (0)
/* A byte's 8 bits as 8 values. */
#define DB1(b) {(b) & 1, (b) >> 1 & 1, (b) >> 2 & 1, (b) >> 3 & 1, (b) >> 4 & 1, (b) >> 5 & 1, \
                (b) >> 6 & 1, (b) >> 7 & 1}
#define DB4(b) DB1(b), DB1((b) + 1), DB1((b) + 2), DB1((b) + 3)
#define DB16(b) DB4(b), DB4((b) + 4), DB4((b) + 8), DB4((b) + 12)
#define DB64(b) DB16(b), DB16((b) + 16), DB16((b) + 32), DB16((b) + 48)
static const uint32_t dia_bytes[256][8] = {DB64(0), DB64(64), DB64(128), DB64(192)};
#undef DB1
#undef DB4
#undef DB16
#undef DB64
#define DIA_EXPAND64(word, out)                                                               \
    do {                                                                                      \
        for (int b_ = 0; b_ < 8; b_++)                                                        \
            memcpy((out) + 8 * b_, dia_bytes[(word) >> (8 * b_) & 0xff], sizeof dia_bytes[0]); \
    } while (0)
#include "diamond.h"

size_t cpu_ltl_diamond_words(const cpu_ltl_view *v) { return dia_words(v); }

/* Prefix sums of the extended cells [ia, ib) of a row (NULL: dead): p[ia] = 0,
 * p[i + 1] = p[i] + cell i. */
static void prefix_range(const cpu_ltl_view *v, const uint64_t *row, uint32_t *p, size_t ia,
                         size_t ib) {
    uint32_t acc = 0;
    p[ia] = 0;
    for (size_t i = ia; i < ib; i++) {
        if (row) acc += cpu_ltl_bit(v, row, (int64_t)i - v->R);
        p[i + 1] = acc;
    }
}

/* Adds (sign 1) or takes off (-1) the totals of a prefix row p (defined on [ia, ib]) over
 * blocks of 64 extended columns, within [ia, ib), to blk (cpu_ltl_trim). */
static void prefix_totals64(const uint32_t *p, size_t ia, size_t ib, uint32_t *blk, int sign) {
    for (size_t k = ia / 64; k * 64 < ib; k++) {
        const size_t a = k * 64 < ia ? ia : k * 64, b = k * 64 + 64 < ib ? k * 64 + 64 : ib;
        const uint32_t t = p[b] - p[a];
        blk[k] += sign > 0 ? t : -t;
    }
}

/* Shapes other than Moore's square and the von Neumann diamond (circular, hexagonal, ...:
 * runs of cells a row): the prefix sums of rows y - Ry .. y + Ry in a ring, each run of the
 * shape the difference of two.  On a bounded grid without B0 (v->skip) only what is within
 * reach of firing cells is counted, as in ltl_band_moore_skip: the columns of the band's
 * extents widened by the range, and rows with a firing row within reach (a row without
 * firing cells has sums of zeros); the rest stays dead. */
static void ltl_band_runs(const cpu_ltl_view *v, uint64_t y0, uint64_t y1, ltl_scratch *s) {
    const size_t ext = v->ext, W = (size_t)v->w, R = (size_t)v->R;
    const int Ry = v->Ry, skip = v->skip;
    const size_t ring = 2 * (size_t)Ry + 1;
    const int parity_shape = v->nruns[1] != v->nruns[0] ||
                             memcmp(v->runs[0], v->runs[1], v->nruns[0] * sizeof *v->runs[0]) != 0;
    size_t xa = 0, xb = W - 1; /* the columns counted */
    if (skip && !band_columns(v, y0, y1, s, &xa, &xb)) return;
    const size_t ia = xa, ib = xb + 2 * R + 1; /* the extended cells those read */
    size_t live = 0; /* (skip) rows with firing cells among rows y - Ry .. y + Ry */
    /* skip: each row's words cut to those where a cell may fire (cpu_ltl_trim), from the
     * window's totals over blocks of 64 extended columns */
    const uint32_t least = v->least;
    if (least) memset(s->blk, 0, ltl_blk64(v) * sizeof *s->blk);
    /* row yy's prefix sums into the ring (k: its extents index, yy - (y0 - Ry)) */
#define RING_ROW(yy, k)                                                                     \
    do {                                                                                    \
        uint32_t *p_ = s->sums + (size_t)wl_mod((yy), (int64_t)ring) * ext;                 \
        if (skip && s->hi[k] < 0) {                                                         \
            memset(p_ + ia, 0, (ib - ia + 1) * sizeof *p_);                                 \
        } else {                                                                            \
            live += (size_t)skip;                                                           \
            prefix_range(v, cpu_ltl_row(v, (yy)), p_, ia, ib);                              \
            if (least) prefix_totals64(p_, ia, ib, s->blk, 1);                              \
        }                                                                                   \
    } while (0)
    for (int dy = -Ry; dy < Ry; dy++) RING_ROW((int64_t)y0 + dy, (size_t)(dy + Ry));
    for (uint64_t y = y0; y < y1; y++) {
        const uint64_t *frow = v->f + (size_t)y * v->S;
        uint64_t *out = v->fn + (size_t)y * v->S;
        const size_t ke = (size_t)(y - y0); /* extents index of row y - Ry */
        /* (row y + Ry takes the slot of row y - Ry - 1, extents index ke - 1: its totals
         * go first; at y0 that slot held no row of this band) */
        if (least && y > y0 && s->hi[ke - 1] >= 0)
            prefix_totals64(s->sums + (size_t)wl_mod((int64_t)y - Ry - 1, (int64_t)ring) * ext, ia,
                            ib, s->blk, -1);
        RING_ROW((int64_t)y + Ry, ke + 2 * (size_t)Ry);
        size_t w0 = xa / 64, w1 = xb / 64 + 1; /* the row's words [w0, w1) */
        if (least && live) cpu_ltl_trim(v, s->blk, 64, &w0, &w1);
        const int dead = skip && (!live || w0 == w1);
        if (skip && s->hi[ke] >= 0) live--; /* (row y - Ry leaves after this row) */
        if (dead) {
            memset(out, 0, v->S * sizeof *out);
            continue;
        }
        const size_t xa2 = w0 * 64, xb2 = w1 * 64 - 1 < xb ? w1 * 64 - 1 : xb; /* counted */
        for (int par = 0; par < (parity_shape ? 2 : 1); par++) {
            const cpu_ltl_run *r = v->runs[par];
            uint32_t *cnt = s->count + (par ? ext : 0);
            memset(cnt + xa2, 0, (xb2 - xa2 + 1) * sizeof *cnt);
            for (size_t k = 0; k < v->nruns[par]; k++) {
                int64_t yy = (int64_t)y + r[k].dy;
                if (!v->torus && (yy < 0 || yy >= (int64_t)v->h)) continue;
                const uint32_t *p = s->sums + (size_t)wl_mod(yy, (int64_t)ring) * ext;
                const uint32_t *hi = p + (int64_t)R + r[k].x1 + 1, *lo = p + (int64_t)R + r[k].x0;
                for (size_t x = xa2; x <= xb2; x++) cnt[x] += hi[x] - lo[x];
            }
        }
        /* cells whose x + y is odd take the second counts */
        if (parity_shape)
            for (size_t x = xa2 + ((xa2 + y + 1) & 1); x <= xb2; x += 2) s->count[x] = s->count[ext + x];
        if (skip)
            test_row_within(v, s->count, frow, out, xa2, xb2);
        else
            test_row(v, s->count, frow, out);
    }
#undef RING_ROW
}

static void ltl_band(const cpu_ltl_view *v, uint64_t y0, uint64_t y1, ltl_scratch *s) {
    if (v->moore && v->skip) {
        ltl_band_moore_skip(v, y0, y1, s);
        return;
    }
    if (!v->moore) {
        ltl_band_runs(v, y0, y1, s);
        return;
    }
    const size_t ext = v->ext, W = (size_t)v->w, R = (size_t)v->R;
    const int Ry = v->Ry;
    /* column sums over rows y - Ry .. y + Ry of the extended row */
    memset(s->col, 0, (ext - 1) * sizeof *s->col);
    for (int dy = -Ry; dy <= Ry; dy++) {
        unpack_row(v, cpu_ltl_row(v, (int64_t)y0 + dy), s->cells);
        for (size_t i = 0; i + 1 < ext; i++) s->col[i] += s->cells[i];
    }
    for (uint64_t y = y0; y < y1; y++) {
        const uint64_t *frow = v->f + (size_t)y * v->S;
        prefix(v, s->col, s->sums);
        const uint32_t *p = s->sums;
        for (size_t x = 0; x < W; x++) /* the square minus the cell itself */
            s->count[x] = p[x + 2 * R + 1] - p[x] - (uint32_t)(frow[x >> 6] >> (x & 63) & 1u);
        /* slide: row y - Ry leaves, row y + Ry + 1 comes */
        unpack_row(v, cpu_ltl_row(v, (int64_t)y - Ry), s->cells);
        for (size_t i = 0; i + 1 < ext; i++) s->col[i] -= s->cells[i];
        unpack_row(v, cpu_ltl_row(v, (int64_t)y + Ry + 1), s->cells);
        for (size_t i = 0; i + 1 < ext; i++) s->col[i] += s->cells[i];
        test_row(v, s->count, frow, v->fn + (size_t)y * v->S);
    }
}

static void ltl_task(void *arg, int tid, int n) {
    cpu_multi *m = arg;
    uint64_t y0, y1;
    share(m, tid, n, &y0, &y1);
    ltl_scratch *sc = &m->scratch[tid];
    /* the rows out of reach of every firing cell (skip) are dead in the output: cleared
     * at once, not walked a row at a time through the kernel (a grow engine's grid around
     * a small pattern is mostly such rows: Golly's bosco took 2.7 us a generation) */
    if (m->view.skip && m->view.fy0 <= m->view.fy1) {
        const int64_t lo = m->view.fy0 - m->view.Ry, hi = m->view.fy1 + m->view.Ry + 1;
        const uint64_t a = lo > (int64_t)y0 ? (uint64_t)lo : y0;
        const uint64_t b = hi < (int64_t)y1 ? (uint64_t)hi : y1;
        uint64_t *fn = m->view.fn;
        if (a >= b) { /* (its work and busy rows stay none, as cpu_multi_ltl set them) */
            memset(fn + (size_t)y0 * m->S, 0, (size_t)(y1 - y0) * m->S * 8);
            return;
        }
        memset(fn + (size_t)y0 * m->S, 0, (size_t)(a - y0) * m->S * 8);
        memset(fn + (size_t)b * m->S, 0, (size_t)(y1 - b) * m->S * 8);
        y0 = a;
        y1 = b;
    }
    sc->busy0 = (int64_t)y0; /* (kernels other than simd_ltl.c's: all) */
    sc->busy1 = (int64_t)y1 - 1;
    if (y0 >= y1) return;
    sc->work = (y1 - y0) * m->w;
    if (m->view.diamond) {
        int64_t busy[2];
#if defined(WL_CPU_X86_SIMD)
        if (m->view.simd_dia)
            cpu_ltl_band_diamond_avx512(&m->view, y0, y1, sc->dia, busy);
        else
#endif
            ltl_band_diamond_portable(&m->view, y0, y1, sc->dia, busy);
        if (m->view.skip) {
            sc->busy0 = busy[0];
            sc->busy1 = busy[1];
        }
        return;
    }
#if defined(WL_CPU_X86_SIMD)
    if (m->simd) {
        sc->work = cpu_ltl_band_avx512(&m->view, y0, y1, &sc->simd);
        if (m->view.skip) {
            sc->busy0 = sc->simd.busy0;
            sc->busy1 = sc->simd.busy1;
        }
        return;
    }
#endif
    ltl_band(&m->view, y0, y1, &m->scratch[tid]);
}

/* A Larger than Life generation big enough for the threads runs on them when it would take
 * LTL_POOL_MIN seconds or more on one thread, at the cost per counted cell that this
 * thread's generations have shown (it varies tenfold with the range and the neighbourhood;
 * the first such generation runs here to measure it).  Handing a generation of tens of
 * microseconds to the threads, and waiting for the slowest, costs more than it saves:
 * Golly's 50c-spaceships (R50 on about 700 x 300 cells, 24-35 us a generation) took 44 ms
 * to generation 1000 on two threads, 37 on one (dev VM).  Timing both ways and keeping the
 * cheaper was tried: on this VM the first generations on the threads after a pause took
 * 3-4 times their usual time, so short trials misjudged them.  (WL_CPU_LTL_POOL=1 puts
 * every generation on the threads: the tests' grids are all small.) */
#define LTL_POOL_MIN 100e-6

void cpu_multi_ltl(cpu_multi *m, const uint64_t *f, uint64_t *fn, int follows) {
    m->view.f = f;
    m->view.fn = fn;
    /* the rows that may hold firing cells: after a generation of this engine's, those
     * within reach of its firing cells (the rule's births and survivals, and the decay,
     * stay there); else all */
    m->view.fy0 = follows ? m->busy0 : 0;
    m->view.fy1 = follows ? m->busy1 : (int64_t)m->h - 1;
    /* a small grid's generation takes microseconds: handing it to the threads and
     * waiting for them costs more than it saves (Golly's small Larger than Life patterns
     * on the grow engine ran 5 to 10 times slower on two threads than on one) */
    for (int t = 0; t < m->nscratch; t++) {
        m->scratch[t].work = 0;
        m->scratch[t].busy0 = 0; /* (none: a band not run) */
        m->scratch[t].busy1 = -1;
    }
    /* ... and so does a grid that counted few cells in its last generation (a grow
     * engine's grid around a small pattern: its empty rows cost a scan), unless scanning
     * it is itself a load for the threads */
    uint64_t area = m->w * m->h;
    const int threads = wl_pool_active(m->pool) > 1;
    const int big = threads && !(area <= MULTI_SERIAL_CELLS ||
                                 (m->work <= MULTI_SERIAL_CELLS && area <= MULTI_SCAN_CELLS));
    const int pool = (threads && m->ltl_pool) ||
                     (big && m->ltl_cell && m->work != UINT64_MAX &&
                      (double)m->work * m->ltl_cell >= LTL_POOL_MIN);
    const double t0 = big && !pool ? wl_clock() : 0;
    if (pool)
        wl_pool_run(m->pool, ltl_task, m);
    else
        ltl_task(m, 0, 1);
    const double wall = big && !pool ? wl_clock() - t0 : 0;
    m->work = 0;
    m->busy0 = (int64_t)m->h;
    m->busy1 = -1;
    for (int t = 0; t < m->nscratch; t++) {
        const ltl_scratch *sc = &m->scratch[t];
        m->work += sc->work;
        if (sc->busy1 < sc->busy0) continue;
        if (sc->busy0 < m->busy0) m->busy0 = sc->busy0;
        if (sc->busy1 > m->busy1) m->busy1 = sc->busy1;
    }
    if (big && !pool && m->work) {
        const double cell = wall / (double)m->work;
        m->ltl_cell = m->ltl_cell ? 0.75 * m->ltl_cell + 0.25 * cell : cell;
    }
}
