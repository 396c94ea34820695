/*
 * simd_avx512.c - the bit-sliced generation on 512-bit vectors (kernel `avx512`, and the
 * inner loop of `best` on CPUs with AVX-512F).  Compiled with -mavx512f; called only after
 * the engine has checked __builtin_cpu_supports("avx512f").  A second copy of the loop,
 * compiled for AVX-512 VBMI2 through a target attribute, is chosen at run time when the CPU
 * has it (Zen 4, Ice Lake and later).
 *
 * Layout: a vector is 8 consecutive words of one tile row, 512 consecutive cells (bit b of
 * word j = column 64 j + b).  The west/east neighbour planes need a one-bit shift across
 * the whole 512-bit row segment: valignq (_mm512_alignr_epi64) builds the vector of each
 * word's preceding (following) word from this vector and the previous (next) one; then
 * either two 64-bit shifts and an OR, or one VBMI2 funnel shift (vpshldq / vpshrdq), make
 * the neighbour plane.  The previous vector of a row's first segment is the row's pad
 * (zero), or on a circular row (band mode on a torus) the row's last segment, chosen once
 * per strip, so no edge case remains in the inner loop.
 *
 * Logic: every 3-input function is one vpternlogq (_mm512_ternarylogic_epi64; the
 * immediate is the function's truth table, bit a<<2|b<<1|c): xor3 0x96 and majority 0xE8
 * make full adders.  A strip of one vector is walked down ROW_BLOCK rows with the
 * horizontal sums of the three rows kept in registers, so each row's sum is made once (twice
 * at block boundaries), then the next strip walks the same rows while they are in L1.  Per 512 cells
 * B3/S23 costs 3 loads, 2 valignq, 2 funnel shifts and 2 ternlogs (horizontal sum), 4
 * ternlogs (vertical adders), 2 ternlogs for T==1 / T==2, 2 for the rule and one store:
 * 14 logic operations with VBMI2, 18 without.  Other outer-totalistic rules evaluate the
 * masks of cpu_circuit (bitsliced.c explains the circuit) at 5 operations per count class.
 */
#include "cpu_internal.h"

#include <immintrin.h>

#define TERN(a, b, c, imm) _mm512_ternarylogic_epi64((a), (b), (c), (imm))
#define XOR3 0x96
#define MAJ 0xE8
#define MUX 0xCA /* a ? b : c */
/* Rows a strip walks before the next strip starts: the three cache lines per row that a
 * strip shares with its neighbour strip (64 rows x 3 x 64 bytes = 12 KiB) stay in L1. */
#define ROW_BLOCK 64

/* West (l) and east (r) neighbour planes of c, given the previous and next vectors. */
#define NEIGHBOURS_PLAIN(c, p, n, l, r)                                                     \
    do {                                                                                    \
        __m512i pw_ = _mm512_alignr_epi64((c), (p), 7); /* word before each word */         \
        __m512i nw_ = _mm512_alignr_epi64((n), (c), 1); /* word after each word */          \
        (l) = _mm512_or_si512(_mm512_slli_epi64((c), 1), _mm512_srli_epi64(pw_, 63));       \
        (r) = _mm512_or_si512(_mm512_srli_epi64((c), 1), _mm512_slli_epi64(nw_, 63));       \
    } while (0)

#define NEIGHBOURS_VBMI2(c, p, n, l, r)                                                     \
    do {                                                                                    \
        (l) = _mm512_shldi_epi64((c), _mm512_alignr_epi64((c), (p), 7), 1);                 \
        (r) = _mm512_shrdi_epi64((c), _mm512_alignr_epi64((n), (c), 1), 1);                 \
    } while (0)

/* Horizontal 3-sum of the strip's vector in row `row`: planes s0, s1, and the cells c. */
#define HSUM(NB, row, s0, s1, cv)                                                           \
    do {                                                                                    \
        __m512i p_ = _mm512_load_si512((const void *)((row) + ip));                         \
        __m512i n_ = _mm512_load_si512((const void *)((row) + in_));                        \
        (cv) = _mm512_load_si512((const void *)((row) + i));                                \
        __m512i l_, r_;                                                                     \
        NB((cv), p_, n_, l_, r_);                                                           \
        (s0) = TERN(l_, (cv), r_, XOR3);                                                    \
        (s1) = TERN(l_, (cv), r_, MAJ);                                                     \
    } while (0)

/* Output row r from the horizontal sums of rows r - 1 (A), r (B) and r + 1 (C, loaded
 * here into C0, C1 with its cells in CV); BV holds the cells of row r. */
#define ROW_STEP(NB, LIFE, MASK, A0, A1, B0, B1, C0, C1, BV, CV, r)                           \
    do {                                                                                    \
        HSUM(NB, in + ((r) + 1) * pitch, C0, C1, CV);                                       \
        __m512i x0 = TERN(A0, B0, C0, XOR3), k0 = TERN(A0, B0, C0, MAJ);                    \
        __m512i q = TERN(A1, B1, C1, XOR3), m = TERN(A1, B1, C1, MAJ);                      \
        __m512i next;                                                                       \
        if (LIFE) {                                                                         \
            __m512i t1 = TERN(m, q, k0, 0x06); /* ~m & (q ^ k0): T == 1 */                  \
            __m512i t2 = TERN(m, q, k0, 0x18); /* T == 2 */                                 \
            __m512i w = TERN(x0, BV, t2, 0x08); /* ~x0 & alive & (T == 2) */                \
            next = TERN(x0, t1, w, 0xEA);       /* x0 & (T == 1) | w */                     \
        } else {                                                                            \
            next = _mm512_setzero_si512();                                                  \
            for (int j = 0; j < nact; j++) {                                                \
                __m512i e;                                                                  \
                switch (act[j]) {                                                           \
                case 0: e = TERN(m, q, k0, 0x01); break;                                    \
                case 1: e = TERN(m, q, k0, 0x06); break;                                    \
                case 2: e = TERN(m, q, k0, 0x18); break;                                    \
                case 3: e = TERN(m, q, k0, 0x60); break;                                    \
                default: e = TERN(m, q, k0, 0x80); break;                                   \
                }                                                                           \
                __m512i g0 = TERN(x0, p0[j], q0[j], 0x6A); /* (a & b) ^ c */                \
                __m512i g1 = TERN(x0, p1[j], q1[j], 0x6A);                                  \
                __m512i g = TERN(BV, g1, g0, MUX);                                          \
                next = TERN(next, e, g, 0xF8); /* a | (b & c) */                            \
            }                                                                               \
        }                                                                                   \
        if (MASK) next = _mm512_and_si512(next, cm);                                        \
        _mm512_store_si512((void *)(out + (r) * pitch + i), next);                          \
    } while (0)

/* The strips of one row block; the row loop is unrolled three times so that the three
 * rows' sums rotate through the registers without copies. */
#define GEN_ROWS_BODY(NB, LIFE, MASK)                                                       \
    const cpu_circuit *cc = &kd->circ;                                                      \
    __m512i p0[5], q0[5], p1[5], q1[5];                                                     \
    int act[5], nact = 0;                                                                   \
    for (int t = 0; t <= 4; t++) {                                                          \
        if (!cc->active[t]) continue;                                                       \
        p0[nact] = _mm512_set1_epi64((long long)cc->p0[t]);                                 \
        q0[nact] = _mm512_set1_epi64((long long)cc->q0[t]);                                 \
        p1[nact] = _mm512_set1_epi64((long long)cc->p1[t]);                                 \
        q1[nact] = _mm512_set1_epi64((long long)cc->q1[t]);                                 \
        act[nact++] = t;                                                                    \
    }                                                                                       \
    (void)act, (void)p0, (void)q0, (void)p1, (void)q1;                                      \
    for (size_t rb = lo; rb < hi; rb += ROW_BLOCK)                                          \
    for (size_t i = 0; i < bw; i += 8) {                                                    \
        size_t rend = hi - rb < ROW_BLOCK ? hi : rb + ROW_BLOCK;                            \
        /* word offsets of the previous and next vectors of this strip */                   \
        ptrdiff_t ip = i ? (ptrdiff_t)i - 8 : wrap ? (ptrdiff_t)bw - 8 : -8;                \
        ptrdiff_t in_ = i + 8 < bw ? (ptrdiff_t)i + 8 : wrap ? 0 : (ptrdiff_t)bw;           \
        __m512i cm = MASK ? _mm512_load_si512((const void *)(colmask + i))                  \
                          : _mm512_setzero_si512();                                         \
        (void)cm;                                                                           \
        __m512i a0, a1, b0, b1, c0, c1, av, bv, cv;                                         \
        HSUM(NB, in + (rb - 1) * pitch, a0, a1, av);                                        \
        HSUM(NB, in + rb * pitch, b0, b1, bv);                                              \
        size_t r = rb;                                                                      \
        for (; r + 3 <= rend; r += 3) {                                                     \
            ROW_STEP(NB, LIFE, MASK, a0, a1, b0, b1, c0, c1, bv, cv, r);                    \
            ROW_STEP(NB, LIFE, MASK, b0, b1, c0, c1, a0, a1, cv, av, r + 1);                \
            ROW_STEP(NB, LIFE, MASK, c0, c1, a0, a1, b0, b1, av, bv, r + 2);                \
        }                                                                                   \
        for (; r < rend; r++) {                                                             \
            ROW_STEP(NB, LIFE, MASK, a0, a1, b0, b1, c0, c1, bv, cv, r);                    \
            a0 = b0, a1 = b1, b0 = c0, b1 = c1, bv = cv;                                    \
        }                                                                                   \
    }

/* One function per (shift flavour, Life or generic circuit, column mask or not), so that
 * each inner loop is branch-free. */
#define DEFINE_GEN_ROWS(name, attr, NB, LIFE, MASK)                                         \
    attr static void name(const uint64_t *in, uint64_t *out, size_t pitch, size_t bw,       \
                          size_t lo, size_t hi, int wrap, const uint64_t *colmask,          \
                          const cpu_kernel_data *kd) {                                      \
        GEN_ROWS_BODY(NB, LIFE, MASK)                                                       \
    }

#define VBMI2_ATTR __attribute__((target("avx512f,avx512vbmi2")))
DEFINE_GEN_ROWS(plain_life, , NEIGHBOURS_PLAIN, 1, 0)
DEFINE_GEN_ROWS(plain_life_mask, , NEIGHBOURS_PLAIN, 1, 1)
DEFINE_GEN_ROWS(plain_any, , NEIGHBOURS_PLAIN, 0, 0)
DEFINE_GEN_ROWS(plain_any_mask, , NEIGHBOURS_PLAIN, 0, 1)
DEFINE_GEN_ROWS(vbmi2_life, VBMI2_ATTR, NEIGHBOURS_VBMI2, 1, 0)
DEFINE_GEN_ROWS(vbmi2_life_mask, VBMI2_ATTR, NEIGHBOURS_VBMI2, 1, 1)
DEFINE_GEN_ROWS(vbmi2_any, VBMI2_ATTR, NEIGHBOURS_VBMI2, 0, 0)
DEFINE_GEN_ROWS(vbmi2_any_mask, VBMI2_ATTR, NEIGHBOURS_VBMI2, 0, 1)

int cpu_avx512_uses_vbmi2(void) {
    static int cached = -1;
    if (cached < 0) {
        __builtin_cpu_init();
        cached = __builtin_cpu_supports("avx512vbmi2") ? 1 : 0;
    }
    return cached;
}

void cpu_gen_rows_avx512(const uint64_t *in, uint64_t *out, size_t pitch, size_t bw,
                         size_t lo, size_t hi, int wrap, const uint64_t *colmask,
                         const cpu_kernel_data *kd) {
    static void (*const table[8])(const uint64_t *, uint64_t *, size_t, size_t, size_t, size_t,
                                  int, const uint64_t *, const cpu_kernel_data *) = {
        plain_any, plain_any_mask, plain_life, plain_life_mask,
        vbmi2_any, vbmi2_any_mask, vbmi2_life, vbmi2_life_mask};
    int idx = cpu_avx512_uses_vbmi2() * 4 + (kd->circ.life ? 2 : 0) + (colmask ? 1 : 0);
    table[idx](in, out, pitch, bw, lo, hi, wrap, colmask, kd);
}
