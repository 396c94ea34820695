/*
 * simd_avx2.c - the bit-sliced generation on 256-bit vectors (kernel `avx2`, and the inner
 * loop of `best` on CPUs with AVX2 but not AVX-512): the row kernel of the cpu engine's
 * grids and the tile kernel of the sparse engine.  Compiled with -mavx2; called only after
 * the engine has checked wl_cpu_has(WL_CPU_AVX2).
 *
 * Rows: a vector is 4 consecutive words of one tile row (256 cells).  The word before
 * (after) each word comes from an unaligned load one word to the left (right); with the
 * row pads (cpu_internal.h) the first and last vectors need no special case, except on
 * circular rows (band mode on a torus), where they assemble the wrapped words themselves.
 * A strip walks ROW_BLOCK rows before the next strip, as in simd_avx512.c.  The logic is
 * the circuit of bitsliced.c written with AND/OR/XOR/ANDNOT (AVX2 has no 3-input logic):
 * a full adder is 5 operations instead of the 2 ternlogs of AVX-512.
 */
#include "cpu_internal.h"

#include <immintrin.h>

typedef __m256i V;
#define AND(a, b) _mm256_and_si256((a), (b))
#define OR(a, b) _mm256_or_si256((a), (b))
#define XOR(a, b) _mm256_xor_si256((a), (b))
#define ANDN(a, b) _mm256_andnot_si256((a), (b)) /* ~a & b */
#define ROW_BLOCK 64 /* rows a strip walks before the next strip (L1 reuse) */
#define INLINE static inline __attribute__((always_inline))

/* The rule's masks (cpu_circuit, bitsliced.c explains them) as vectors. */
typedef struct rule_v {
    V p0[5], q0[5], p1[5], q1[5];
    int act[5], nact;
} rule_v;

static void rule_setup(const cpu_circuit *cc, rule_v *rv) {
    rv->nact = 0;
    for (int t = 0; t <= 4; t++) {
        if (!cc->active[t]) continue;
        rv->p0[rv->nact] = _mm256_set1_epi64x((long long)cc->p0[t]);
        rv->q0[rv->nact] = _mm256_set1_epi64x((long long)cc->q0[t]);
        rv->p1[rv->nact] = _mm256_set1_epi64x((long long)cc->p1[t]);
        rv->q1[rv->nact] = _mm256_set1_epi64x((long long)cc->q1[t]);
        rv->act[rv->nact++] = t;
    }
}

/* Horizontal sums of the cells c with their west (l) and east (r) neighbours: planes
 * (s0, s1) of the 3-sum, and (e0, e1) of the 2-sum of the neighbours alone, for the middle
 * row of a Life cell's count (8 neighbours), at the cost of the 3-sum alone. */
INLINE void hsum3(V l, V c, V r, V *s0, V *s1, V *e0, V *e1) {
    const V x = XOR(l, r), a = AND(l, r);
    *s0 = XOR(x, c);
    *s1 = OR(a, AND(x, c));
    *e0 = x;
    *e1 = a;
}

/* hsum3 of the words c, given the words before (w) and after (e) each of them. */
INLINE void hsum_words(V c, V w, V e, V *s0, V *s1, V *e0, V *e1) {
    hsum3(OR(_mm256_slli_epi64(c, 1), _mm256_srli_epi64(w, 63)), c,
          OR(_mm256_srli_epi64(c, 1), _mm256_slli_epi64(e, 63)), s0, s1, e0, e1);
}

/* The next state of the cells `alive` from the horizontal sums of the rows above (a0,
 * a1), at (b0, b1; e0, e1 without the cells themselves) and below (c0, c1); life: B3/S23,
 * else the masks of rv. */
INLINE V next_state(int life, const rule_v *rv, V a0, V a1, V b0, V b1, V e0, V e1, V c0,
                    V c1, V alive) {
    if (life) {
        /* the count of the 8 neighbours, x0 + 2 T with T = k0 + q + 2 m: a cell lives
         * next exactly when (count | alive) == 3, i.e. T == 1 and x0 | alive */
        V ae0 = XOR(a0, e0), ae1 = XOR(a1, e1);
        V x0 = XOR(ae0, c0), k0 = OR(AND(a0, e0), AND(c0, ae0));
        V q = XOR(ae1, c1), m = OR(AND(a1, e1), AND(c1, ae1));
        return AND(OR(x0, alive), ANDN(m, XOR(q, k0)));
    }
    V ab0 = XOR(a0, b0), ab1 = XOR(a1, b1);
    V x0 = XOR(ab0, c0), k0 = OR(AND(a0, b0), AND(c0, ab0));
    V q = XOR(ab1, c1), m = OR(AND(a1, b1), AND(c1, ab1));
    /* the 3x3 sum is x0 + 2 T, T = q + k0 + 2 m; where q == k0, T == 2 exactly when
     * m != (q & k0) */
    V qk = XOR(q, k0), qk_and = AND(q, k0), qk_none = OR(q, k0);
    V t1 = ANDN(m, qk);              /* T == 1 */
    V t2 = ANDN(qk, XOR(m, qk_and)); /* T == 2 */
    V next = _mm256_setzero_si256();
    for (int j = 0; j < rv->nact; j++) {
        V e;
        switch (rv->act[j]) {
        case 0: e = ANDN(OR(m, qk_none), _mm256_set1_epi64x(-1)); break;
        case 1: e = t1; break;
        case 2: e = t2; break;
        case 3: e = AND(m, qk); break;
        default: e = AND(m, qk_and); break;
        }
        V g0 = XOR(AND(x0, rv->p0[j]), rv->q0[j]), g1 = XOR(AND(x0, rv->p1[j]), rv->q1[j]);
        V g = OR(AND(alive, g1), ANDN(alive, g0));
        next = OR(next, AND(e, g));
    }
    return next;
}

/* Horizontal 3-sum of the 4 words at row + i.  `edge` (circular rows only, first or last
 * vector of the row): the words before and after are taken with wrap-around. */
static inline void hsum(const uint64_t *row, size_t i, size_t bw, int edge, V *s0, V *s1,
                        V *e0, V *e1) {
    V c = _mm256_load_si256((const V *)(row + i));
    V pw, nw;
    if (edge) {
        size_t ip = i ? i - 1 : bw - 1, in = i + 4 < bw ? i + 4 : 0;
        pw = _mm256_set_epi64x((long long)row[i + 2], (long long)row[i + 1], (long long)row[i],
                               (long long)row[ip]);
        nw = _mm256_set_epi64x((long long)row[in], (long long)row[i + 3], (long long)row[i + 2],
                               (long long)row[i + 1]);
    } else {
        pw = _mm256_loadu_si256((const V *)(row + i - 1));
        nw = _mm256_loadu_si256((const V *)(row + i + 1));
    }
    hsum_words(c, pw, nw, s0, s1, e0, e1);
}

void cpu_gen_rows_avx2(const uint64_t *in, uint64_t *out, size_t pitch, size_t bw,
                       size_t lo, size_t hi, int wrap, const uint64_t *colmask,
                       const cpu_kernel_data *kd) {
    const int life = kd->circ.life;
    rule_v rv;
    rule_setup(&kd->circ, &rv);
    for (size_t rb = lo; rb < hi; rb += ROW_BLOCK)
    for (size_t i = 0; i < bw; i += 4) {
        size_t rend = hi - rb < ROW_BLOCK ? hi : rb + ROW_BLOCK;
        int edge = wrap && (i == 0 || i + 4 == bw);
        V cm = colmask ? _mm256_load_si256((const V *)(colmask + i)) : _mm256_set1_epi64x(-1);
        V a0, a1, b0, b1, c0, c1, e0, e1, f0, f1, z0, z1;
        hsum(in + (rb - 1) * pitch, i, bw, edge, &a0, &a1, &z0, &z1);
        hsum(in + rb * pitch, i, bw, edge, &b0, &b1, &e0, &e1);
        for (size_t r = rb; r < rend; r++) {
            hsum(in + (r + 1) * pitch, i, bw, edge, &c0, &c1, &f0, &f1);
            V alive = _mm256_load_si256((const V *)(in + r * pitch + i));
            V next = life ? next_state(1, &rv, a0, a1, b0, b1, e0, e1, c0, c1, alive)
                          : next_state(0, &rv, a0, a1, b0, b1, e0, e1, c0, c1, alive);
            _mm256_store_si256((V *)(out + r * pitch + i), AND(next, cm));
            a0 = b0, a1 = b1, b0 = c0, b1 = c1, e0 = f0, e1 = f1;
        }
    }
}

/* ---- 64 x 64 tiles with rows stacked in vectors (the sparse engine's tile step) ----------
 *
 * As in simd_avx512.c's tile kernel, a vector holds consecutive rows of one tile, here 4
 * (a quarter: half a brick), so one instruction updates 256 cells of the same 64
 * columns.  A funnel shift of each row word with the west (east) tile's word of the same
 * row gives the west (east) neighbour plane; the rows above and below come from the
 * horizontal sums of the quarter and the one before (after) it by a lane rotation and a
 * blend (ROT_R, ABOVE), the northern tile's last quarter for the first and the southern
 * tile's first for the last.  Each quarter's sums are made once per run of asked bricks.
 * Per quarter: the new rows are compared with the output's old ones, and the sign bits
 * (vmovmskpd) of the difference give the rows changed in column 63, of the difference
 * shifted left by 63 those in column 0. */

/* Horizontal sums of rows 4k .. 4k+3 of the tile's column, k = -1 .. 16 (-1: the northern
 * tiles' last rows, 16: the southern tiles' first). */
INLINE void tile_hsum(const uint64_t *const *in, int k, V *s0, V *s1, V *e0, V *e1) {
    const uint64_t *c, *w, *e;
    if (k < 0) {
        c = in[WL_NB_N] + 60, w = in[WL_NB_NW] + 60, e = in[WL_NB_NE] + 60;
    } else if (k > 15) {
        c = in[WL_NB_S], w = in[WL_NB_SW], e = in[WL_NB_SE];
    } else {
        c = in[WL_NB_C] + 4 * k, w = in[WL_NB_W] + 4 * k, e = in[WL_NB_E] + 4 * k;
    }
    hsum_words(_mm256_load_si256((const V *)c), _mm256_load_si256((const V *)w),
               _mm256_load_si256((const V *)e), s0, s1, e0, e1);
}

/* A quarter's planes rotated by a lane: [h3, h0, h1, h2] and [h1, h2, h3, h0].  The rows
 * above a quarter h are the first with lane 0 from the quarter before's (a blend), the rows
 * below the second with lane 3 from the quarter after's.  (vpermq and vpblendd: on Zen 1,
 * vperm2i128 is 8 micro-ops.) */
#define ROT_R(h) _mm256_permute4x64_epi64((h), _MM_SHUFFLE(2, 1, 0, 3))
#define ROT_L(h) _mm256_permute4x64_epi64((h), _MM_SHUFFLE(0, 3, 2, 1))
#define ABOVE(hr, pr) _mm256_blend_epi32((hr), (pr), 0x03)
#define BELOW(hl, nl) _mm256_blend_epi32((hl), (nl), 0xC0)

/* One quarter k of a run: its next rows from the sums of the quarters before (u), at (h,
 * g) and after (n, computed here), with their rotations; stored over the output's old
 * rows, whose difference goes to d; then the sums move on by a quarter. */
#define QUARTER(k, next, d)                                                                 \
    do {                                                                                    \
        tile_hsum(job->in, (k) + 1, &n0, &n1, &m0, &m1);                                    \
        V nl0 = ROT_L(n0), nl1 = ROT_L(n1);                                                 \
        V alive = _mm256_load_si256((const V *)(mid + 4 * (k)));                            \
        next = next_state(life, &rv, ABOVE(hr0, ur0), ABOVE(hr1, ur1), h0, h1, g0, g1,      \
                          BELOW(hl0, nl0), BELOW(hl1, nl1), alive);                         \
        V *o_ = (V *)(job->out + 4 * (k));                                                  \
        d = XOR(next, _mm256_load_si256(o_));                                               \
        _mm256_store_si256(o_, next);                                                       \
        ur0 = hr0, ur1 = hr1, hr0 = ROT_R(n0), hr1 = ROT_R(n1);                             \
        h0 = n0, h1 = n1, g0 = m0, g1 = m1, hl0 = nl0, hl1 = nl1;                           \
    } while (0)
#define MASK4(v) ((unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(v))) /* lanes' bit 63 */

INLINE void tile_body(int life, wl_tile_job *job, const cpu_kernel_data *kd) {
    rule_v rv;
    if (!life) rule_setup(&kd->circ, &rv);
    uint64_t chg = 0, chg_w = 0, chg_e = 0;
    unsigned live = 0;
    const uint64_t *mid = job->in[WL_NB_C];
    const V zero = _mm256_setzero_si256();
    unsigned bm = job->bricks & 0xFF;
    while (bm) {
        int b = __builtin_ctz(bm), end = b + __builtin_ctz(~(bm >> b)); /* run [b, end) */
        bm &= ~0u << end;
        V u0, u1, h0, h1, n0, n1, g0, g1, m0, m1, z0, z1;
        tile_hsum(job->in, 2 * b - 1, &u0, &u1, &z0, &z1);
        tile_hsum(job->in, 2 * b, &h0, &h1, &g0, &g1);
        /* the quarters before (u), at (h) and after (n), rotated right (r) and left (l) */
        V ur0 = ROT_R(u0), ur1 = ROT_R(u1);
        V hr0 = ROT_R(h0), hr1 = ROT_R(h1), hl0 = ROT_L(h0), hl1 = ROT_L(h1);
        for (; b < end; b++) { /* a brick: two quarters */
            V na, nb, da, db;
            QUARTER(2 * b, na, da);
            QUARTER(2 * b + 1, nb, db);
            const unsigned sh = 8 * (unsigned)b;
            const unsigned same = MASK4(_mm256_cmpeq_epi64(da, zero)) |
                                  MASK4(_mm256_cmpeq_epi64(db, zero)) << 4;
            chg |= (uint64_t)(~same & 0xFFu) << sh;
            chg_e |= (uint64_t)(MASK4(da) | MASK4(db) << 4) << sh;
            chg_w |= (uint64_t)(MASK4(_mm256_slli_epi64(da, 63)) |
                                MASK4(_mm256_slli_epi64(db, 63)) << 4) << sh;
            const V any = OR(na, nb);
            live |= (unsigned)!_mm256_testz_si256(any, any) << b;
        }
    }
    job->chg = chg;
    job->chg_w = chg_w;
    job->chg_e = chg_e;
    job->live = live;
}

static void tile_life(wl_tile_job *job, const cpu_kernel_data *kd) { tile_body(1, job, kd); }
static void tile_any(wl_tile_job *job, const cpu_kernel_data *kd) { tile_body(0, job, kd); }

void cpu_tile_avx2(wl_tile_job *job, const cpu_kernel_data *kd) {
    if (kd->circ.life)
        tile_life(job, kd);
    else
        tile_any(job, kd);
}
