/*
 * simd_decay.c - decay.h's bit logic with AVX-512F: 8 words (512 cells) a vector, the
 * planes in registers, the counters' carry rippling through them.  Called by multi.c when
 * the CPU has AVX-512F; the word loop's tail runs decay.h's portable form.
 */
#include "cpu_internal.h"
#include "decay.h"

#include <immintrin.h>

/* One instance per number of planes, so that e[] lives in registers. */
#define DECAY_VEC(P)                                                                        \
    for (; i + 8 <= b; i += 8) {                                                            \
        __m512i e[P], d;                                                                    \
        for (unsigned k = 0; k < (P); k++) e[k] = _mm512_loadu_si512(ep + k * plane + i);  \
        d = e[0];                                                                           \
        for (unsigned k = 1; k + 1 < (P); k += 2) /* (a | b | c, 0xFE) */                   \
            d = _mm512_ternarylogic_epi64(d, e[k], e[k + 1], 0xFE);                         \
        if (!((P) & 1)) d = _mm512_or_si512(d, e[(P) - 1]);                                 \
        __m512i t = _mm512_andnot_si512(d, _mm512_loadu_si512(fn + i));                     \
        __m512i carry = d;                                                                  \
        for (unsigned k = 0; k < (P); k++) {                                                \
            __m512i v = _mm512_xor_si512(e[k], carry);                                      \
            if (k + 1 < (P)) carry = _mm512_and_si512(carry, e[k]);                         \
            e[k] = v;                                                                       \
        }                                                                                   \
        __m512i died = _mm512_andnot_si512(t, _mm512_loadu_si512(f + i));                   \
        for (unsigned k = 0; k < (P); k++) {                                                \
            __m512i v = e[k];                                                               \
            if ((first >> k) & 1u) v = _mm512_or_si512(v, died);                            \
            _mm512_storeu_si512(ep + k * plane + i, v);                                     \
        }                                                                                   \
        _mm512_storeu_si512(fn + i, t);                                                     \
    }

void cpu_decay_avx512(unsigned P, uint64_t first, const uint64_t *f, uint64_t *fn, uint64_t *ep,
                      size_t plane, size_t a, size_t b) {
    size_t i = a;
    switch (P) {
    case 1: DECAY_VEC(1) break;
    case 2: DECAY_VEC(2) break;
    case 3: DECAY_VEC(3) break;
    case 4: DECAY_VEC(4) break;
    case 5: DECAY_VEC(5) break;
    case 6: DECAY_VEC(6) break;
    case 7: DECAY_VEC(7) break;
    default: DECAY_VEC(8) break;
    }
    wl_decay_words(P, first, f, fn, ep, plane, i, b);
}
