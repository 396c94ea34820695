/*
 * simd_avx512.c - the bit-sliced generation on 512-bit vectors (kernel `avx512`, and the
 * inner loop of `best` on CPUs with AVX-512F).  Compiled with -mavx512f; called only after
 * the engine has checked __builtin_cpu_supports("avx512f").
 *
 * Layout: a vector is 8 consecutive words of one tile row, 512 consecutive cells (bit b of
 * word j = column 64 j + b).  The west/east neighbour planes need a one-bit shift across
 * the whole 512-bit row segment: valignq (_mm512_alignr_epi64) builds the vector of each
 * word's preceding (following) word from this vector and the previous (next) one, and
 * two 64-bit shifts and an OR complete the shift.  The previous vector of the first
 * segment is the row's pad (see cpu_internal.h), so no edge case remains.
 *
 * Logic: every 3-input function is one vpternlogq (_mm512_ternarylogic_epi64; the
 * immediate is the function's truth table, bit a<<2|b<<1|c): xor3 0x96 and majority 0xE8
 * make full adders.  Per 512 cells, B3/S23 costs 3 loads, 2 valignq, 4 shifts, 2 ORs and
 * 2 ternlogs for the row's horizontal sum (computed once, reused by three output rows,
 * since a strip of one vector is walked down the rows with the sums kept in registers),
 * then 4 ternlogs for the vertical adders, 2 for T==1 / T==2, one AND and one ternlog
 * multiplexer: 18 logic operations.  Other outer-totalistic rules evaluate the masks of
 * cpu_circuit (bitsliced.c explains the circuit) at 5 operations per count class used.
 */
#include "cpu_internal.h"

#include <immintrin.h>

#define TERN(a, b, c, imm) _mm512_ternarylogic_epi64((a), (b), (c), (imm))
#define XOR3 0x96
#define MAJ 0xE8
#define MUX 0xCA /* a ? b : c */

static inline void hsum(const uint64_t *row, size_t i, __m512i *s0, __m512i *s1) {
    __m512i c = _mm512_load_si512((const void *)(row + i));
    __m512i p = _mm512_load_si512((const void *)(row + i - 8));
    __m512i n = _mm512_load_si512((const void *)(row + i + 8));
    __m512i pw = _mm512_alignr_epi64(c, p, 7); /* word before each word */
    __m512i nw = _mm512_alignr_epi64(n, c, 1); /* word after each word */
    __m512i l = _mm512_or_si512(_mm512_slli_epi64(c, 1), _mm512_srli_epi64(pw, 63));
    __m512i r = _mm512_or_si512(_mm512_srli_epi64(c, 1), _mm512_slli_epi64(nw, 63));
    *s0 = TERN(l, c, r, XOR3);
    *s1 = TERN(l, c, r, MAJ);
}

void cpu_gen_rows_avx512(const uint64_t *in, uint64_t *out, size_t pitch, size_t bw,
                         size_t lo, size_t hi, const uint64_t *colmask,
                         const cpu_kernel_data *kd) {
    const cpu_circuit *cc = &kd->circ;
    __m512i p0[5], q0[5], p1[5], q1[5];
    int act[5], nact = 0;
    for (int t = 0; t <= 4; t++) {
        if (!cc->active[t]) continue;
        p0[nact] = _mm512_set1_epi64((long long)cc->p0[t]);
        q0[nact] = _mm512_set1_epi64((long long)cc->q0[t]);
        p1[nact] = _mm512_set1_epi64((long long)cc->p1[t]);
        q1[nact] = _mm512_set1_epi64((long long)cc->q1[t]);
        act[nact++] = t;
    }
    for (size_t i = 0; i < bw; i += 8) {
        __m512i cm = colmask ? _mm512_load_si512((const void *)(colmask + i))
                             : _mm512_set1_epi64(-1);
        __m512i a0, a1, b0, b1, c0, c1;
        hsum(in + (lo - 1) * pitch, i, &a0, &a1);
        hsum(in + lo * pitch, i, &b0, &b1);
        for (size_t r = lo; r < hi; r++) {
            hsum(in + (r + 1) * pitch, i, &c0, &c1);
            __m512i x0 = TERN(a0, b0, c0, XOR3), k0 = TERN(a0, b0, c0, MAJ);
            __m512i q = TERN(a1, b1, c1, XOR3), m = TERN(a1, b1, c1, MAJ);
            __m512i alive = _mm512_load_si512((const void *)(in + r * pitch + i));
            __m512i next;
            if (cc->life) {
                __m512i t1 = TERN(m, q, k0, 0x06); /* ~m & (q ^ k0): T == 1 */
                __m512i t2 = TERN(m, q, k0, 0x18); /* T == 2 */
                next = TERN(x0, t1, _mm512_and_si512(alive, t2), MUX);
            } else {
                next = _mm512_setzero_si512();
                for (int j = 0; j < nact; j++) {
                    __m512i e;
                    switch (act[j]) {
                    case 0: e = TERN(m, q, k0, 0x01); break;
                    case 1: e = TERN(m, q, k0, 0x06); break;
                    case 2: e = TERN(m, q, k0, 0x18); break;
                    case 3: e = TERN(m, q, k0, 0x60); break;
                    default: e = TERN(m, q, k0, 0x80); break;
                    }
                    __m512i g0 = TERN(x0, p0[j], q0[j], 0x6A); /* (a & b) ^ c */
                    __m512i g1 = TERN(x0, p1[j], q1[j], 0x6A);
                    __m512i g = TERN(alive, g1, g0, MUX);
                    next = TERN(next, e, g, 0xF8); /* a | (b & c) */
                }
            }
            _mm512_store_si512((void *)(out + r * pitch + i), _mm512_and_si512(next, cm));
            a0 = b0, a1 = b1, b0 = c0, b1 = c1;
        }
    }
}
