/*
 * simd_ltl.c - Larger than Life's counts with AVX-512 (F and BW): 32 cells a vector, in
 * 16-bit lanes for neighbourhoods of fewer than 65535 cells (every range up to 127, and
 * far more for the thin shapes); larger ones ("wide", up to Golly's range 500) are summed
 * from the same 16-bit column and row sums into 32-bit counts.  Used by multi.c when the
 * CPU has AVX-512BW.
 *
 * A row's firing cells are first laid out as an "extended" bit row, the columns from -R
 * to W - 1 + R (R the neighbourhood's reach), wrapped on a torus and dead beyond a bounded
 * grid's edge, so that every later step reads plain aligned bits.
 *
 *   Moore (the square of side 2R + 1): column sums over the 2Ry + 1 rows around the output
 *   row, one 16-bit lane per extended column, slide down a row by a masked add of the
 *   entering row's bits and a masked subtract of the leaving row's (two instructions per
 *   32 columns; each row is extended once as it enters and kept in a ring of 2Ry + 2
 *   until it leaves).  A cell's count is the sum of the 2R + 1 column sums around it: for
 *   R <= DIRECT_MAX the sum of 2R + 1 unaligned loads, beyond that the difference of two
 *   entries of the column sums' prefix sums (one pass of vector scans per row).
 *   Other shapes: each row's prefix sums (vector scans, 32 cells at a time) stay in a
 *   ring of 2Ry + 1 rows; each horizontal run
 *   of the neighbourhood adds hi - lo to the counts of 32 cells per vector.
 *
 * Sums wrap modulo 2^16 on the way, which is harmless: every count that matters, a
 * difference of two of them, is below 2^16.  The test: a cell's own bit is taken off its
 * count (the runs and the square include the centre's column), each birth and survival
 * interval is two unsigned compares into a 32-bit mask, and the masks of firing and
 * other cells are merged and stored as 32 output bits - no unpacking of results at all.
 * Moore rules of one birth and one survival interval (all of Golly's) are tested as they
 * are counted, the bounds in registers (test_row_moore1: 12-25% faster on 4096^2 soups of
 * ranges 5 to 20 than counts stored, read back and tested against bounds from memory).
 */
#include "cpu_internal.h"

#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

#define DIRECT_MAX 5 /* Moore ranges summed from 2R + 1 loads (in four chains of adds: on
                        par with the prefix sums at R = 5, 1.35x them at R = 2, 0.7x at
                        R = 10 on 4096^2 soups); larger: from prefix sums */

/* bits64 where the columns wrap around a torus (out of line). */
static __attribute__((noinline)) uint64_t bits64_wrap(const cpu_ltl_view *v, const uint64_t *row,
                                                      int64_t x);

/* 64 firing bits of a row from column x on (any integer): wrapped on a torus, dead past a
 * bounded grid's edges (a row's bits past W are zero, so only whole words need care). */
static inline uint64_t bits64(const cpu_ltl_view *v, const uint64_t *row, int64_t x) {
    int64_t W = (int64_t)v->w;
    if (!v->torus || (x >= 0 && x + 64 <= W)) {
        int64_t q = x >= 0 ? x / 64 : -((-x + 63) / 64);
        unsigned sh = (unsigned)(x - q * 64);
        uint64_t a = q >= 0 && (size_t)q < v->S ? row[q] : 0;
        uint64_t b = q + 1 >= 0 && (size_t)(q + 1) < v->S ? row[q + 1] : 0;
        return sh ? a >> sh | b << (64 - sh) : a;
    }
    return bits64_wrap(v, row, x);
}

static uint64_t bits64_wrap(const cpu_ltl_view *v, const uint64_t *row, int64_t x) {
    int64_t W = (int64_t)v->w;
    /* a torus: the 64 columns from x, wrapped, as runs that stay inside the row */
    uint64_t out = 0;
    for (int k = 0; k < 64;) {
        int64_t c = wl_mod(x + k, W);
        int n = 64 - k;
        if (n > W - c) n = (int)(W - c);
        size_t q = (size_t)c >> 6;
        unsigned sh = (unsigned)(c & 63);
        uint64_t bits = row[q] >> sh;
        if (sh && q + 1 < v->S) bits |= row[q + 1] << (64 - sh);
        if (n < 64) bits &= ((uint64_t)1 << n) - 1;
        out |= bits << k;
        k += n;
    }
    return out;
}

/* The extended bit row of row y (any integer; NULL rows are dead): ext bits, from column
 * -R on, in whole 64-bit words. */
static void extend(const cpu_ltl_view *v, int64_t y, uint64_t *out) {
    size_t words = (v->ext + 63) / 64;
    if (y < 0 || y >= (int64_t)v->h) {
        if (!v->torus) {
            memset(out, 0, words * 8);
            return;
        }
        y = wl_mod(y, (int64_t)v->h);
    }
    const uint64_t *row = v->f + (size_t)y * v->S;
    for (size_t i = 0; i < words; i++) out[i] = bits64(v, row, (int64_t)i * 64 - v->R);
    if (v->ext % 64) out[words - 1] &= ~(uint64_t)0 >> (64 - v->ext % 64);
}

/* The permutes of scan_epi16: lane i takes lane i - 2^k (five of them). */
static void scan_shifts(__m512i shift[5]) {
    static const uint16_t lanes[32] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
                                       11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
                                       22, 23, 24, 25, 26, 27, 28, 29, 30, 31};
    const __m512i j = _mm512_loadu_si512(lanes);
    for (int k = 0; k < 5; k++) shift[k] = _mm512_sub_epi16(j, _mm512_set1_epi16((short)(1 << k)));
}

/* The running sums of 32 16-bit lanes within the vector: five shift-and-add steps. */
static inline __m512i scan_epi16(__m512i v, const __m512i shift[5]) {
    for (int k = 0; k < 5; k++)
        v = _mm512_add_epi16(v, _mm512_maskz_permutexvar_epi16(~0u << (1 << k), shift[k], v));
    return v;
}

/* The last of 32 16-bit lanes, as a scalar. */
static inline uint16_t last_epi16(__m512i v) {
    return (uint16_t)_mm_extract_epi16(_mm512_extracti32x4_epi32(v, 3), 7);
}

/* Prefix sums of 16-bit values: q[0] = 0, q[i + 1] = c[0] + ... + c[i] (mod 2^16), 32 at
 * a time: the vector's running sums, then the running total of the blocks before.  That
 * total is kept in a scalar (the last lane taken out, off the loop's chain): as a vector,
 * broadcast from the last lane by a permute, each block waited for the one before (an
 * add and a permute's latency), and the Moore square's prefix sums took 38-46% of Golly's
 * R45 and R50 patterns on the dev VM; 5-8% less of the whole run since. */
static void prefix16(const uint16_t *restrict c, uint16_t *restrict q, size_t n) {
    __m512i shift[5];
    scan_shifts(shift);
    q[0] = 0;
    uint16_t carry = 0; /* (the blocks' running total in a scalar: the loop carries one add) */
    for (size_t i = 0; i < n; i += 32) {
        __m512i v = scan_epi16(_mm512_loadu_si512(c + i), shift);
        _mm512_storeu_si512(q + i + 1, _mm512_add_epi16(v, _mm512_set1_epi16((short)carry)));
        carry = (uint16_t)(carry + last_epi16(v));
    }
}

/* 32 bits of a bit row from bit x (x a multiple of 32). */
static inline uint32_t bits32(const uint64_t *bits, size_t x) {
    uint32_t b; /* (one load of the little-endian word's half: a shift of the word by a
                   variable count took most of the slides' time) */
    memcpy(&b, (const char *)bits + x / 8, sizeof b);
    return b;
}

/* Prefix sums of an extended bit row: p[i] = firing cells among extended columns < i (for
 * i up to ext rounded up to 32), 32 at a time as prefix16's. */
static void prefix_bits(const cpu_ltl_view *v, const uint64_t *bits, uint16_t *p) {
    const __m512i one = _mm512_set1_epi16(1);
    __m512i shift[5];
    scan_shifts(shift);
    p[0] = 0;
    uint16_t carry = 0; /* (a scalar: the loop carries one add, see prefix16) */
    for (size_t i = 0; i < v->ext; i += 32) {
        const uint32_t b = bits32(bits, i);
        __m512i x = scan_epi16(_mm512_maskz_mov_epi16(b, one), shift);
        _mm512_storeu_si512(p + i + 1, _mm512_add_epi16(x, _mm512_set1_epi16((short)carry)));
        carry = (uint16_t)(carry + __builtin_popcount(b));
    }
}

/* The next firing bits of 32 cells from their 16-bit counts c (the cell itself included)
 * and their own firing bits s. */
static inline __mmask32 alive32_ex(const cpu_ltl_view *v, __m512i c, __mmask32 s);
static inline __mmask32 alive32(const cpu_ltl_view *v, __m512i c, __mmask32 s) {
    return alive32_ex(v, _mm512_mask_sub_epi16(c, s, c, _mm512_set1_epi16(1)), s);
}

/* alive32 of counts c that leave the cell itself out. */
static inline __mmask32 alive32_ex(const cpu_ltl_view *v, __m512i c, __mmask32 s) {
    const __m512i mid = _mm512_set1_epi16((short)v->middle);
    __mmask32 born = 0, stays = 0;
    __m512i cs = _mm512_add_epi16(c, mid);
    for (unsigned k = 0; k < v->nbirth; k++)
        born |= _mm512_cmpge_epu16_mask(c, _mm512_set1_epi16((short)v->birth[k][0])) &
                _mm512_cmple_epu16_mask(c, _mm512_set1_epi16((short)v->birth[k][1]));
    for (unsigned k = 0; k < v->nsurvive; k++)
        stays |= _mm512_cmpge_epu16_mask(cs, _mm512_set1_epi16((short)v->survive[k][0])) &
                 _mm512_cmple_epu16_mask(cs, _mm512_set1_epi16((short)v->survive[k][1]));
    return (s & stays) | (~s & born);
}

/* An output row's 32-bit chunks outside [c0, c1), which no firing cell reaches: dead. */
static inline void clear_outside(const cpu_ltl_view *v, uint32_t *o, size_t c0, size_t c1) {
    for (size_t k = 0; k < c0; k++) o[k] = 0;
    for (size_t k = c1; k < 2 * v->S; k++) o[k] = 0;
}

/* The bits of the chunk of cells from x (a multiple of 32) that lie within the row's w. */
static inline uint32_t in_row(const cpu_ltl_view *v, size_t x) {
    return x + 32 > v->w ? (1u << (v->w % 32)) - 1 : ~0u;
}

/* The sums of L consecutive 16-bit values from each of c[0 .. 31] (L >= 2), in four
 * chains of adds (one chain of L made the loop wait on each add's latency). */
static inline __m512i sum_window(const uint16_t *c, size_t L) {
    __m512i a0 = _mm512_loadu_si512(c), a1 = _mm512_loadu_si512(c + 1);
    __m512i a2 = _mm512_setzero_si512(), a3 = _mm512_setzero_si512();
    size_t d = 2;
    for (; d + 4 <= L; d += 4) {
        a0 = _mm512_add_epi16(a0, _mm512_loadu_si512(c + d));
        a1 = _mm512_add_epi16(a1, _mm512_loadu_si512(c + d + 1));
        a2 = _mm512_add_epi16(a2, _mm512_loadu_si512(c + d + 2));
        a3 = _mm512_add_epi16(a3, _mm512_loadu_si512(c + d + 3));
    }
    for (; d < L; d++) a0 = _mm512_add_epi16(a0, _mm512_loadu_si512(c + d));
    return _mm512_add_epi16(_mm512_add_epi16(a0, a1), _mm512_add_epi16(a2, a3));
}

/* The next firing bits of a row of a Moore rule of one birth and one survival interval
 * (Golly's rules have no others; 16-bit counts), for the 32-cell chunks [c0, c1), counted
 * as they are tested (no counts stored and read again), the intervals in registers: from
 * the 2R + 1 column sums around each cell (q NULL), or as the difference of the column
 * sums' prefix sums q (the count of the cell at chunk c0's first cell + i being
 * q[i + 2R + 1] - q[i]).  The other chunks are dead. */
static void test_row_moore1(const cpu_ltl_view *v, const uint16_t *col, const uint16_t *q,
                            const uint64_t *self, size_t c0, size_t c1, uint64_t *out) {
    uint32_t *o = (uint32_t *)out;
    const size_t x0 = c0 * 32, L = 2 * (size_t)v->R + 1;
    const __m512i one = _mm512_set1_epi16(1), mid = _mm512_set1_epi16((short)v->middle);
    const __m512i b0 = _mm512_set1_epi16((short)v->birth[0][0]);
    const __m512i b1 = _mm512_set1_epi16((short)v->birth[0][1]);
    const __m512i s0 = _mm512_set1_epi16((short)v->survive[0][0]);
    const __m512i s1 = _mm512_set1_epi16((short)v->survive[0][1]);
    clear_outside(v, o, c0, c1);
    for (size_t x = x0; x < c1 * 32; x += 32) {
        __m512i c;
        if (q) {
            c = _mm512_sub_epi16(_mm512_loadu_si512(q + x - x0 + L), _mm512_loadu_si512(q + x - x0));
        } else {
            c = sum_window(col + x, L);
        }
        const __mmask32 sb = bits32(self, x);
        c = _mm512_mask_sub_epi16(c, sb, c, one); /* not the cell itself */
        const __m512i cs = _mm512_add_epi16(c, mid);
        const __mmask32 born = _mm512_cmpge_epu16_mask(c, b0) & _mm512_cmple_epu16_mask(c, b1);
        const __mmask32 stays = _mm512_cmpge_epu16_mask(cs, s0) & _mm512_cmple_epu16_mask(cs, s1);
        uint32_t alive = (sb & stays) | (~sb & born);
        alive &= in_row(v, x);
        o[x >> 5] = alive;
    }
}

/* The sum over runs k < n of the window [lo_k, hi_k) of prefix rows, for 32 cells from
 * x: rp holds lo_0, hi_0, lo_1, hi_1, ... (two chains of adds). */
static inline __m512i sum_runs(const uint16_t *const *rp, size_t n, size_t x) {
    __m512i a = _mm512_setzero_si512(), b = _mm512_setzero_si512();
    size_t k = 0;
    for (; k + 2 <= n; k += 2) {
        a = _mm512_add_epi16(a, _mm512_sub_epi16(_mm512_loadu_si512(rp[2 * k + 1] + x),
                                                 _mm512_loadu_si512(rp[2 * k] + x)));
        b = _mm512_add_epi16(b, _mm512_sub_epi16(_mm512_loadu_si512(rp[2 * k + 3] + x),
                                                 _mm512_loadu_si512(rp[2 * k + 2] + x)));
    }
    if (k < n)
        a = _mm512_add_epi16(a, _mm512_sub_epi16(_mm512_loadu_si512(rp[2 * k + 1] + x),
                                                 _mm512_loadu_si512(rp[2 * k] + x)));
    return _mm512_add_epi16(a, b);
}

/* The next firing bits of a row of a shape given by runs (16-bit counts), for the 32-cell
 * chunks [c0, c1), counted as they are tested: rp the n0 runs of cells of parity 0 (see
 * sum_runs; the runs leave the cell itself out), then, when the shape depends on the
 * parity of x + y (n1 > 0), the n1 of parity 1.  The other chunks are dead.  (Storing
 * each run's sums into the counts and reading them back cost a load and a store more per
 * run and chunk.) */
static void test_row_runs(const cpu_ltl_view *v, const uint16_t *const *rp, size_t n0,
                          size_t n1, int y, const uint64_t *self, size_t c0, size_t c1,
                          uint64_t *out) {
    uint32_t *o = (uint32_t *)out;
    const uint32_t par1 = (y & 1) ? 0x55555555u : 0xAAAAAAAAu; /* cells of parity 1 */
    clear_outside(v, o, c0, c1);
    for (size_t x = c0 * 32; x < c1 * 32; x += 32) {
        const __mmask32 sb = bits32(self, x);
        uint32_t alive = alive32_ex(v, sum_runs(rp, n0, x), sb);
        if (n1)
            alive = (alive & ~par1) | (alive32_ex(v, sum_runs(rp + 2 * n0, n1, x), sb) & par1);
        alive &= in_row(v, x);
        o[x >> 5] = alive;
    }
}

/* The same of 16 cells from 32-bit counts. */
static inline __mmask16 alive16(const cpu_ltl_view *v, __m512i c, __mmask16 s) {
    const __m512i mid = _mm512_set1_epi32((int)v->middle), one = _mm512_set1_epi32(1);
    __mmask16 born = 0, stays = 0;
    c = _mm512_mask_sub_epi32(c, s, c, one); /* not the cell itself */
    __m512i cs = _mm512_add_epi32(c, mid);
    for (unsigned k = 0; k < v->nbirth; k++)
        born |= _mm512_cmpge_epu32_mask(c, _mm512_set1_epi32((int)v->birth[k][0])) &
                _mm512_cmple_epu32_mask(c, _mm512_set1_epi32((int)v->birth[k][1]));
    for (unsigned k = 0; k < v->nsurvive; k++)
        stays |= _mm512_cmpge_epu32_mask(cs, _mm512_set1_epi32((int)v->survive[k][0])) &
                 _mm512_cmple_epu32_mask(cs, _mm512_set1_epi32((int)v->survive[k][1]));
    return (__mmask16)((s & stays) | (~s & born));
}

/* The next firing bits of one row from its counts cnt[] (the centre's column included;
 * 16-bit, or 32-bit when the view is wide), for the 32-cell chunks [c0, c1); the others
 * are dead. */
static void test_row(const cpu_ltl_view *v, const void *cnt, const void *cnt1,
                     const uint64_t *self, int y, size_t c0, size_t c1, uint64_t *out) {
    uint32_t *o = (uint32_t *)out;
    /* cells of parity 1 ((x + y) odd) take cnt1 when the shape depends on parity */
    uint32_t par1 = (y & 1) ? 0x55555555u : 0xAAAAAAAAu;
    clear_outside(v, o, c0, c1);
    for (size_t x = c0 * 32; x < c1 * 32; x += 32) {
        uint32_t s = bits32(self, x), alive = 0;
        for (int pass = 0; pass < (cnt1 ? 2 : 1); pass++) {
            const void *c = pass ? cnt1 : cnt;
            uint32_t a;
            if (v->wide) {
                const uint32_t *c32 = (const uint32_t *)c + x;
                a = alive16(v, _mm512_loadu_si512(c32), (__mmask16)s) |
                    (uint32_t)alive16(v, _mm512_loadu_si512(c32 + 16), (__mmask16)(s >> 16)) << 16;
            } else {
                a = alive32(v, _mm512_loadu_si512((const uint16_t *)c + x), s);
            }
            if (cnt1) a &= pass ? par1 : ~par1;
            alive |= a;
        }
        alive &= in_row(v, x);
        o[x >> 5] = alive;
    }
}

/* The next firing bits of a row from its counts (the cell itself included; 32 bits, W of
 * them plus up to 15 readable past the end): the diamond's test. */
static void test_row32(const cpu_ltl_view *v, const uint32_t *count, const uint64_t *self,
                       uint64_t *out) {
    for (size_t i = 0; i < v->S; i++) {
        uint64_t word = 0, fw = self[i];
        for (int q = 0; q < 4; q++) {
            size_t x = i * 64 + (size_t)q * 16;
            if (x >= v->w) break;
            __mmask16 s = (__mmask16)(fw >> (q * 16));
            word |= (uint64_t)alive16(v, _mm512_loadu_si512(count + x), s) << (q * 16);
        }
        if (i + 1 == v->S && v->w % 64) word &= ((uint64_t)1 << (v->w % 64)) - 1;
        out[i] = word;
    }
}

/* The runs of parity `parity` of the neighbourhood of row y's cells, as pointers into the
 * ring of prefix rows: rp[2 k] and rp[2 k + 1] are the window's ends for run k, its count
 * for the cell at extended column x + R being rp[2 k + 1][x] - rp[2 k][x] (runs on rows
 * outside a bounded grid left out).  Returns how many runs. */
static size_t run_ptrs(const cpu_ltl_view *v, const uint16_t *ring, size_t rowlen, int64_t y,
                       int parity, const uint16_t **rp) {
    const size_t nring = 2 * (size_t)v->Ry + 1;
    const size_t top = (size_t)wl_mod(y - v->Ry, (int64_t)nring); /* row y - Ry's slot */
    size_t n = 0;
    for (size_t k = 0; k < v->nruns[parity]; k++) {
        const cpu_ltl_run *r = &v->runs[parity][k];
        int64_t yy = y + r->dy;
        if (!v->torus && (yy < 0 || yy >= (int64_t)v->h)) continue;
        size_t slot = top + (size_t)(r->dy + v->Ry); /* (no division a run) */
        if (slot >= nring) slot -= nring;
        const uint16_t *p = ring + slot * rowlen;
        rp[2 * n] = p + v->R + r->x0;
        rp[2 * n + 1] = p + v->R + r->x1 + 1;
        n++;
    }
    return n;
}

/* The 32-bit counts of one row of a wide shape given by runs (the cell itself included,
 * its firing bit from self), for the 32-cell chunks [c0, c1): a run's sum, hi - lo, stays
 * below 2^16 (a run is at most 2R + 1 cells), so it is taken mod 2^16 and widened.  rp:
 * room for run_ptrs. */
static void run_counts32(const cpu_ltl_view *v, const uint16_t *ring, size_t rowlen, int64_t y,
                         int parity, size_t c0, size_t c1, const uint64_t *self, uint32_t *c32,
                         const uint16_t **rp) {
    const size_t n = run_ptrs(v, ring, rowlen, y, parity, rp);
    memset(c32 + c0 * 32, 0, (c1 - c0) * 32 * sizeof *c32);
    for (size_t k = 0; k < n; k++) {
        const uint16_t *lo = rp[2 * k], *hi = rp[2 * k + 1];
        for (size_t x = c0 * 32; x < c1 * 32; x += 32) {
            __m512i d = _mm512_sub_epi16(_mm512_loadu_si512(hi + x), _mm512_loadu_si512(lo + x));
            __m512i a = _mm512_cvtepu16_epi32(_mm512_castsi512_si256(d));
            __m512i z = _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(d, 1));
            _mm512_storeu_si512(c32 + x, _mm512_add_epi32(_mm512_loadu_si512(c32 + x), a));
            _mm512_storeu_si512(c32 + x + 16, _mm512_add_epi32(_mm512_loadu_si512(c32 + x + 16), z));
        }
    }
    /* the runs leave out the centre: put it in (test_row takes it off again) */
    for (size_t x = c0 * 32; x < c1 * 32; x += 32) {
        uint32_t s = bits32(self, x);
        for (int h = 0; h < 2; h++) {
            __m512i c = _mm512_loadu_si512(c32 + x + 16 * h);
            c = _mm512_mask_add_epi32(c, (__mmask16)(s >> (16 * h)), c, _mm512_set1_epi32(1));
            _mm512_storeu_si512(c32 + x + 16 * h, c);
        }
    }
}


/* Prefix sums of the Moore column sums into 32-bit ones, q[0] = 0, q[i + 1] = c[0] + ...
 * + c[i], 32 at a time: prefix16's five steps within each block of 32 (a column sum is at
 * most 2 * 500 + 1, so a block's sums stay below 2^16), then widened and added to the
 * running total of the blocks before. */
static void prefix16to32(const uint16_t *restrict c, uint32_t *restrict q, size_t n) {
    _Static_assert(32 * (2 * WL_LTL_RANGE_MAX + 1) < 65536, "a block's sums fit 16 bits");
    __m512i shift[5];
    scan_shifts(shift);
    q[0] = 0;
    uint32_t carry = 0; /* (a scalar: the loop carries one add, see prefix16) */
    for (size_t i = 0; i < n; i += 32) {
        __m512i v = scan_epi16(_mm512_loadu_si512(c + i), shift);
        const __m512i cv = _mm512_set1_epi32((int)carry);
        __m512i a = _mm512_add_epi32(_mm512_cvtepu16_epi32(_mm512_castsi512_si256(v)), cv);
        __m512i z = _mm512_add_epi32(_mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(v, 1)), cv);
        _mm512_storeu_si512(q + i + 1, a);
        _mm512_storeu_si512(q + i + 17, z);
        carry += last_epi16(v);
    }
}

/* Adds an extended bit row's cells to the column sums (a band's first rows, on tori). */
static void slide_in(const cpu_ltl_view *v, const uint64_t *bits, uint16_t *col) {
    const __m512i one = _mm512_set1_epi16(1);
    for (size_t i = 0; i < v->ext; i += 32) {
        uint32_t b = bits32(bits, i);
        if (!b) continue;
        __m512i c = _mm512_loadu_si512(col + i);
        _mm512_storeu_si512(col + i, _mm512_mask_add_epi16(c, b, c, one));
    }
}

/* The column sums slid down a row in one pass: the cells of the extended bit row `in`
 * added, those of `out` taken off. */
static void slide2(const cpu_ltl_view *v, const uint64_t *in, const uint64_t *out, uint16_t *col) {
    const __m512i one = _mm512_set1_epi16(1);
    for (size_t i = 0; i < v->ext; i += 32) {
        const uint32_t a = bits32(in, i), d = bits32(out, i);
        if (!(a | d)) continue;
        __m512i c = _mm512_loadu_si512(col + i);
        c = _mm512_mask_add_epi16(c, a, c, one);
        _mm512_storeu_si512(col + i, _mm512_mask_sub_epi16(c, d, c, one));
    }
}

/* Entries of blk: a block of 32 for every 32 extended columns, and the D + 1 blocks past
 * the last output chunk that cpu_ltl_trim reads. */
static size_t blk_entries(const cpu_ltl_view *v) { return (v->ext + 63) / 64 * 2 + 4; }

/* Adds (sign 1) or takes off (-1) row y's cells to the Moore column sums; on a bounded
 * grid (skip) only the extended words within its firing cells' extent k (an index of
 * b->lo and b->hi) are made and added, nothing when it has none.  `fresh`: the row's
 * extended bits are made into bits; else bits holds them already (made when the row
 * entered the column sums, 2 Ry + 1 rows before it leaves them, with the same extent).
 * On tori only a band's first rows come here (fresh, added): slide2 moves the sums down.
 * On a bounded grid the blocks' totals (blk) follow the column sums. */
static void slide_row(const cpu_ltl_view *v, int64_t y, size_t k, uint64_t *bits, uint16_t *col,
                      int sign, int fresh, const cpu_ltl_buffers *b) {
    if (!v->skip) {
        extend(v, y, bits);
        slide_in(v, bits, col);
        return;
    }
    if (b->hi[k] < 0) return;
    /* the row's cells lie in columns [64 lo, 64 hi + 63]: extended columns + R */
    size_t e0 = ((size_t)b->lo[k] * 64 + (size_t)v->R) & ~(size_t)63;
    size_t e1 = (size_t)b->hi[k] * 64 + 63 + (size_t)v->R + 1, words = (v->ext + 63) / 64;
    if (e1 > words * 64) e1 = words * 64;
    if (fresh) {
        const uint64_t *row = v->f + (size_t)y * v->S;
        for (size_t i = e0 / 64; i < (e1 + 63) / 64; i++) bits[i] = bits64(v, row, (int64_t)i * 64 - v->R);
        if (v->ext % 64 && (e1 + 63) / 64 == words) bits[words - 1] &= ~(uint64_t)0 >> (64 - v->ext % 64);
    }
    const __m512i one = _mm512_set1_epi16(1);
    uint32_t *blk = b->blk;
    for (size_t i = e0; i < e1; i += 32) {
        uint32_t m = bits32(bits, i);
        if (!m) continue;
        __m512i c = _mm512_loadu_si512(col + i);
        c = sign > 0 ? _mm512_mask_add_epi16(c, m, c, one) : _mm512_mask_sub_epi16(c, m, c, one);
        _mm512_storeu_si512(col + i, c);
        if (v->least)
            blk[i / 32] += sign > 0 ? (uint32_t)__builtin_popcount(m) : -(uint32_t)__builtin_popcount(m);
    }
}

/* out[i] = the least (most, when `most`) of a[i .. i + W - 1] for i < n - W + 1, in O(n)
 * whatever W (van Herk and Gil-Werman: per block of W, the extremes from its start and to
 * its end; a window spans at most two blocks).  pre and suf: room for n entries each. */
static void window_extremes(const int32_t *a, size_t n, size_t W, int most, int32_t *pre,
                            int32_t *suf, int32_t *out) {
#define WX_PICK(x, y) (most ? ((x) > (y) ? (x) : (y)) : ((x) < (y) ? (x) : (y)))
    for (size_t b = 0; b < n; b += W) { /* block by block: no division per entry */
        size_t e = b + W < n ? b + W : n;
        pre[b] = a[b];
        for (size_t i = b + 1; i < e; i++) pre[i] = WX_PICK(pre[i - 1], a[i]);
        suf[e - 1] = a[e - 1];
        for (size_t i = e - 1; i-- > b;) suf[i] = WX_PICK(suf[i + 1], a[i]);
    }
    for (size_t i = 0; i + W <= n; i++) out[i] = WX_PICK(suf[i], pre[i + W - 1]);
#undef WX_PICK
}

/* Row y's prefix sums into its ring slot.  On a bounded grid without B0 (skip) a row
 * without firing cells has all-zero sums: written once, then the slot is known to hold
 * them (so that the empty margins of a grid cost next to nothing). */
static void ring_row(const cpu_ltl_view *v, int64_t y, int64_t y0, uint64_t *bits, uint16_t *ring,
                     size_t rowlen, const cpu_ltl_buffers *b) {
    size_t nring = 2 * (size_t)v->Ry + 1, slot = (size_t)wl_mod(y, (int64_t)nring);
    uint16_t *row = ring + slot * rowlen;
    if (v->skip && b->hi[(size_t)(y - (y0 - v->Ry))] < 0) {
        if (!b->zero[slot]) memset(row, 0, rowlen * sizeof *row);
        b->zero[slot] = 1;
        return;
    }
    extend(v, y, bits);
    prefix_bits(v, bits, row);
    b->zero[slot] = 0;
}

/* Adds (sign 1) or takes off (-1) the block totals (blk) of row y's prefix sums in the
 * ring: the window's totals for cpu_ltl_trim, for the shapes other than the square (whose
 * totals slide_row keeps).  A slot known to hold an empty row adds nothing. */
static void ring_blocks(const cpu_ltl_view *v, const uint16_t *ring, size_t rowlen,
                        cpu_ltl_buffers *b, int64_t y, int sign) {
    const size_t slot = (size_t)wl_mod(y, 2 * (int64_t)v->Ry + 1);
    if (b->zero[slot]) return;
    const uint16_t *p = ring + slot * rowlen;
    for (size_t k = 0; k < (v->ext + 31) / 32; k++) {
        const uint32_t t = (uint16_t)(p[32 * k + 32] - p[32 * k]);
        b->blk[k] += sign > 0 ? t : -t;
    }
}

uint64_t cpu_ltl_band_avx512(const cpu_ltl_view *v, uint64_t y0, uint64_t y1, cpu_ltl_buffers *b) {
    size_t ext = v->ext, words = (ext + 63) / 64 + 1;
    size_t rowlen = ext + 64; /* uint16 entries of a prefix row, with room for vector reads */
    int Ry = v->Ry;
    size_t nring = 2 * (size_t)Ry + 1, chunks = (v->w + 31) / 32;
    uint64_t *bits = b->bits, *self = b->bits + words;
    /* Moore: the extended bit rows in the column sums, in a ring of nx slots: row
     * y - Ry in slot xs while row y is made (kept as the rows go, with no division) */
    const size_t nx = 2 * (size_t)Ry + 2;
    size_t xs = v->moore ? (size_t)wl_mod((int64_t)y0 - Ry, (int64_t)nx) : 0;
#define XROW(slot) (b->xring + (slot) * words)
    uint16_t *col = b->col, *cnt = b->cnt, *ring = b->ring;
    int parity_shape = v->nruns[1] != v->nruns[0] ||
                       memcmp(v->runs[0], v->runs[1], v->nruns[0] * sizeof *v->runs[0]) != 0;
    /* Moore rules of one birth and one survival interval in 16-bit counts: test_row_moore1 */
    const int one_interval = v->moore && !v->wide && v->nbirth == 1 && v->nsurvive == 1;
    uint64_t work = 0; /* cells counted */
    b->busy0 = 0;
    b->busy1 = -1;
    /* skip: each row's extent, and each output row's window's (wlo, whi) */
    size_t nrows = (size_t)(y1 - y0) + 2 * (size_t)Ry + 1;
    int32_t *wlo = b->win, *whi = b->win + nrows;
    if (v->skip) {
        cpu_ltl_row_extents(v, y0, y1, b->lo, b->hi);
        int32_t *pre = b->win + 2 * nrows, *suf = b->win + 3 * nrows;
        window_extremes(b->lo, nrows, nring, 0, pre, suf, wlo);
        window_extremes(b->hi, nrows, nring, 1, pre, suf, whi);
    }
    /* skip: the window's totals over blocks of 32 extended columns, by which cpu_ltl_trim
     * cuts each row */
    const uint32_t least = v->least;
    if (least) memset(b->blk, 0, blk_entries(v) * sizeof *b->blk);
    if (v->moore) {
        memset(col, 0, rowlen * sizeof *col);
        for (int dy = -Ry; dy <= Ry; dy++) {
            size_t slot = xs + (size_t)(dy + Ry);
            slide_row(v, (int64_t)y0 + dy, (size_t)(dy + Ry), XROW(slot < nx ? slot : slot - nx),
                      col, 1, 1, b);
        }
    } else {
        memset(b->zero, 0, nring); /* (another band's, or another generation's) */
        for (int dy = -Ry; dy < Ry; dy++) {
            ring_row(v, (int64_t)y0 + dy, (int64_t)y0, bits, ring, rowlen, b);
            if (least) ring_blocks(v, ring, rowlen, b, (int64_t)y0 + dy, 1);
        }
    }
    for (uint64_t y = y0; y < y1; y++) {
        const uint64_t *frow = v->f + (size_t)y * v->S;
        uint64_t *out = v->fn + (size_t)y * v->S;
        /* the chunks within reach of a firing cell */
        size_t c0 = 0, c1 = chunks;
        if (v->skip) {
            int32_t lo = wlo[y - y0], hi = whi[y - y0];
            if (hi < 0) {
                c0 = c1 = 0;
            } else {
                int64_t a = ((int64_t)lo * 64 - v->R) / 32, z = ((int64_t)hi * 64 + 64 + v->R + 31) / 32;
                c0 = a < 0 ? 0 : (size_t)a;
                c1 = (size_t)z < chunks ? (size_t)z : chunks;
                /* (other shapes: once row y + Ry is in the ring, below) */
                if (v->moore && least && c0 < c1) cpu_ltl_trim(v, b->blk, 32, &c0, &c1);
            }
        }
        int idle = c0 >= c1; /* no firing cell within reach: a dead row */
        work += idle ? 0 : (c1 - c0) * 32;
        if (!idle) {
            if (b->busy1 < b->busy0) b->busy0 = (int64_t)y;
            b->busy1 = (int64_t)y;
            memcpy(self, frow, v->S * 8);
            self[v->S] = 0;
        }
        if (v->moore) {
            size_t L = 2 * (size_t)v->R + 1;
            if (idle) {
                memset(out, 0, v->S * 8);
            } else if (one_interval) { /* counted as tested */
                uint16_t *q = NULL;
                if (v->R > DIRECT_MAX) { /* the column sums' prefix sums, from chunk c0 on */
                    q = ring;
                    prefix16(col + c0 * 32, q, (c1 - c0) * 32 + L);
                }
                test_row_moore1(v, col, q, self, c0, c1, out);
            } else {
                if (v->R <= DIRECT_MAX && !v->wide) {
                    for (size_t x = c0 * 32; x < c1 * 32; x += 32)
                        _mm512_storeu_si512(cnt + x, sum_window(col + x, L));
                } else if (v->wide) {
                    uint32_t *q = b->q32; /* the column sums' prefix sums, from chunk c0 on */
                    size_t x0 = c0 * 32;
                    prefix16to32(col + x0, q, (c1 - c0) * 32 + L);
                    for (size_t x = x0; x < c1 * 32; x += 16)
                        _mm512_storeu_si512(b->cnt32 + x, _mm512_sub_epi32(_mm512_loadu_si512(q + x - x0 + L),
                                                                            _mm512_loadu_si512(q + x - x0)));
                } else {
                    uint16_t *q = ring; /* the column sums' prefix sums, from chunk c0 on */
                    size_t x0 = c0 * 32;
                    prefix16(col + x0, q, (c1 - c0) * 32 + L);
                    for (size_t x = x0; x < c1 * 32; x += 32)
                        _mm512_storeu_si512(cnt + x, _mm512_sub_epi16(_mm512_loadu_si512(q + x - x0 + L),
                                                                       _mm512_loadu_si512(q + x - x0)));
                }
                test_row(v, v->wide ? (void *)b->cnt32 : (void *)cnt, NULL, self, (int)(y & 1), c0,
                         c1, out);
            }
            /* slide the column sums down a row */
            const size_t in = xs ? xs - 1 : nx - 1; /* row y + Ry + 1's slot */
            if (v->skip) { /* (each row over its own extent) */
                slide_row(v, (int64_t)y - Ry, (size_t)(y - y0), XROW(xs), col, -1, 0, b);
                slide_row(v, (int64_t)y + Ry + 1, (size_t)(y - y0) + 2 * (size_t)Ry + 1, XROW(in),
                          col, 1, 1, b);
            } else {
                extend(v, (int64_t)y + Ry + 1, XROW(in));
                slide2(v, XROW(in), XROW(xs), col);
            }
            xs = xs + 1 < nx ? xs + 1 : 0;
        } else {
            /* (row y + Ry takes the slot of row y - Ry - 1, which left the window; at y0 that
             * slot held no row of this band) */
            if (least && y > y0) ring_blocks(v, ring, rowlen, b, (int64_t)y - Ry - 1, -1);
            ring_row(v, (int64_t)y + Ry, (int64_t)y0, bits, ring, rowlen, b);
            if (least) ring_blocks(v, ring, rowlen, b, (int64_t)y + Ry, 1);
            if (least && !idle) {
                const size_t n = c1 - c0;
                cpu_ltl_trim(v, b->blk, 32, &c0, &c1);
                work -= (n - (c1 - c0)) * 32;
                idle = c0 >= c1;
            }
            if (idle) {
                memset(out, 0, v->S * 8);
                continue;
            }
            if (!v->wide) { /* counted as tested */
                size_t n0 = run_ptrs(v, ring, rowlen, (int64_t)y, 0, b->rp);
                size_t n1 = parity_shape ? run_ptrs(v, ring, rowlen, (int64_t)y, 1, b->rp + 2 * n0) : 0;
                test_row_runs(v, b->rp, n0, n1, (int)(y & 1), self, c0, c1, out);
                continue;
            }
            uint32_t *k0 = b->cnt32, *k1 = b->cnt32 + v->w + 64;
            run_counts32(v, ring, rowlen, (int64_t)y, 0, c0, c1, self, k0, b->rp);
            if (parity_shape) run_counts32(v, ring, rowlen, (int64_t)y, 1, c0, c1, self, k1, b->rp);
            test_row(v, k0, parity_shape ? k1 : NULL, self, (int)(y & 1), c0, c1, out);
        }
    }
    return work;
#undef XROW
}

/* The buffers' sizes in bytes, each rounded up to 64: bits, col, cnt, ring, cnt32, q32,
 * xring, rp, blk. */
static void buffer_sizes(const cpu_ltl_view *v, size_t sz[9]) {
    size_t rowlen = v->ext + 64, words = (v->ext + 63) / 64 + 1;
    size_t nring = v->moore ? 1 : 2 * (size_t)v->Ry + 1;
    sz[0] = 2 * words * 8;
    sz[1] = rowlen * 2;
    sz[2] = 2 * (v->w + 64) * 2;
    sz[3] = nring * rowlen * 2;
    sz[4] = v->wide ? 2 * (v->w + 64) * 4 : 0;
    sz[5] = v->wide && v->moore ? (rowlen + 64) * 4 : 0;
    sz[6] = v->moore ? (2 * (size_t)v->Ry + 2) * words * 8 : 0;
    sz[7] = v->moore ? 0 : 2 * (v->nruns[0] + v->nruns[1]) * sizeof(const uint16_t *);
    sz[8] = blk_entries(v) * sizeof(uint32_t);
    for (int k = 0; k < 9; k++) sz[k] = (sz[k] + 63) & ~(size_t)63;
}

size_t cpu_ltl_buffer_bytes(const cpu_ltl_view *v) {
    size_t sz[9], n = 4096;
    buffer_sizes(v, sz);
    for (int k = 0; k < 9; k++) n += sz[k];
    return n;
}

void cpu_ltl_buffers_place(const cpu_ltl_view *v, void *block, cpu_ltl_buffers *b) {
    size_t sz[9];
    buffer_sizes(v, sz);
    char *p = block;
    b->bits = (uint64_t *)(void *)p;
    b->col = (uint16_t *)(void *)(p += sz[0]);
    b->cnt = (uint16_t *)(void *)(p += sz[1]);
    b->ring = (uint16_t *)(void *)(p += sz[2]);
    p += sz[3];
    b->cnt32 = sz[4] ? (uint32_t *)(void *)p : NULL;
    p += sz[4];
    b->q32 = sz[5] ? (uint32_t *)(void *)p : NULL;
    p += sz[5];
    b->xring = sz[6] ? (uint64_t *)(void *)p : NULL;
    p += sz[6];
    b->rp = sz[7] ? (const uint16_t **)(void *)p : NULL;
    p += sz[7];
    b->blk = sz[8] ? (uint32_t *)(void *)p : NULL;
}

/* The von Neumann diamond (diamond.h), built for AVX-512. */
#define DIA_BAND dia_band_avx512
#define DIA_TEST(v, D, count, frow, out) test_row32((v), (D), (frow), (out))
#define DIA_EXPAND64(word, out)                                                               \
    do {                                                                                      \
        for (int q_ = 0; q_ < 4; q_++)                                                        \
            _mm512_storeu_si512((out) + 16 * q_,                                              \
                                _mm512_maskz_mov_epi32((__mmask16)((word) >> (16 * q_)),     \
                                                       _mm512_set1_epi32(1)));                \
    } while (0)
#include "diamond.h"

void cpu_ltl_band_diamond_avx512(const cpu_ltl_view *v, uint64_t y0, uint64_t y1, uint32_t *buf,
                                 int64_t busy[2]) {
    dia_band_avx512(v, y0, y1, buf, busy);
}
