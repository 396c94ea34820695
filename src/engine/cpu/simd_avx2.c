/*
 * simd_avx2.c - the bit-sliced generation on 256-bit vectors (kernel `avx2`, and the inner
 * loop of `best` on CPUs with AVX2 but not AVX-512).  Compiled with -mavx2; called only
 * after the engine has checked wl_cpu_has(WL_CPU_AVX2).
 *
 * Layout: a vector is 4 consecutive words of one tile row (256 cells).  The word before
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

/* Horizontal 3-sum of the 4 words at row + i.  `edge` (circular rows only, first or last
 * vector of the row): the words before and after are taken with wrap-around. */
static inline void hsum(const uint64_t *row, size_t i, size_t bw, int edge, V *s0, V *s1) {
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
    V l = OR(_mm256_slli_epi64(c, 1), _mm256_srli_epi64(pw, 63));
    V r = OR(_mm256_srli_epi64(c, 1), _mm256_slli_epi64(nw, 63));
    V lc = XOR(l, c);
    *s0 = XOR(lc, r);
    *s1 = OR(AND(l, c), AND(r, lc));
}

void cpu_gen_rows_avx2(const uint64_t *in, uint64_t *out, size_t pitch, size_t bw,
                       size_t lo, size_t hi, int wrap, const uint64_t *colmask,
                       const cpu_kernel_data *kd) {
    const cpu_circuit *cc = &kd->circ;
    V p0[5], q0[5], p1[5], q1[5];
    int act[5], nact = 0;
    for (int t = 0; t <= 4; t++) {
        if (!cc->active[t]) continue;
        p0[nact] = _mm256_set1_epi64x((long long)cc->p0[t]);
        q0[nact] = _mm256_set1_epi64x((long long)cc->q0[t]);
        p1[nact] = _mm256_set1_epi64x((long long)cc->p1[t]);
        q1[nact] = _mm256_set1_epi64x((long long)cc->q1[t]);
        act[nact++] = t;
    }
    for (size_t rb = lo; rb < hi; rb += ROW_BLOCK)
    for (size_t i = 0; i < bw; i += 4) {
        size_t rend = hi - rb < ROW_BLOCK ? hi : rb + ROW_BLOCK;
        int edge = wrap && (i == 0 || i + 4 == bw);
        V cm = colmask ? _mm256_load_si256((const V *)(colmask + i)) : _mm256_set1_epi64x(-1);
        V a0, a1, b0, b1, c0, c1;
        hsum(in + (rb - 1) * pitch, i, bw, edge, &a0, &a1);
        hsum(in + rb * pitch, i, bw, edge, &b0, &b1);
        for (size_t r = rb; r < rend; r++) {
            hsum(in + (r + 1) * pitch, i, bw, edge, &c0, &c1);
            V ab0 = XOR(a0, b0), ab1 = XOR(a1, b1);
            V x0 = XOR(ab0, c0), k0 = OR(AND(a0, b0), AND(c0, ab0));
            V q = XOR(ab1, c1), m = OR(AND(a1, b1), AND(c1, ab1));
            V alive = _mm256_load_si256((const V *)(in + r * pitch + i));
            V qk = XOR(q, k0), qk_and = AND(q, k0), qk_none = OR(q, k0);
            V t1 = ANDN(m, qk);                                   /* T == 1 */
            V t2 = OR(ANDN(m, qk_and), ANDN(qk_none, m));          /* T == 2 */
            V next;
            if (cc->life) {
                next = OR(AND(x0, t1), AND(alive, ANDN(x0, t2)));
            } else {
                next = _mm256_setzero_si256();
                for (int j = 0; j < nact; j++) {
                    V e;
                    switch (act[j]) {
                    case 0: e = ANDN(OR(m, qk_none), _mm256_set1_epi64x(-1)); break;
                    case 1: e = t1; break;
                    case 2: e = t2; break;
                    case 3: e = AND(m, qk); break;
                    default: e = AND(m, qk_and); break;
                    }
                    V g0 = XOR(AND(x0, p0[j]), q0[j]), g1 = XOR(AND(x0, p1[j]), q1[j]);
                    V g = OR(AND(alive, g1), ANDN(alive, g0));
                    next = OR(next, AND(e, g));
                }
            }
            _mm256_store_si256((V *)(out + r * pitch + i), AND(next, cm));
            a0 = b0, a1 = b1, b0 = c0, b1 = c1;
        }
    }
}
