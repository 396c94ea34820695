/*
 * decay.h - the decay of Generations and Larger than Life states as bit logic, included by
 * multi.c (built for any x86-64 or other CPU) and simd_decay.c (built for AVX-512), so
 * that one source gives both; the compiler vectorises the word loop, one instance per
 * number of planes P (the planes' count known at compile time keeps e[] in registers).
 *
 * For words [a, b): fn holds T (what the rule makes of the firing cells f) on entry and
 * the next firing cells on exit; the P planes (plane k at e + k * plane) hold a counter X
 * for each dying cell (0 elsewhere) that counts up by one a generation, from `first` for a
 * cell that has just stopped firing, and whose last step overflows P bits to 0: multi.c
 * offsets the states so (X = state - 1 + 2^P - (states - 1)), so that the end of a decay
 * needs no comparison with the number of states, two operations a plane.  See multi.c.
 */
#ifndef WL_CPU_DECAY_H
#define WL_CPU_DECAY_H

#include <stddef.h>
#include <stdint.h>

#define WL_DECAY_BODY(P)                                                                    \
    for (size_t i = a; i < b; i++) {                                                        \
        uint64_t e[P], d = 0;                                                               \
        for (unsigned k = 0; k < (P); k++) d |= e[k] = ep[k * plane + i];                   \
        uint64_t t = fn[i] & ~d, carry = d;                                                 \
        for (unsigned k = 0; k < (P); k++) {                                                \
            uint64_t v = e[k] ^ carry;                                                      \
            carry &= e[k];                                                                  \
            e[k] = v;                                                                       \
        }                                                                                   \
        uint64_t died = f[i] & ~t;                                                          \
        for (unsigned k = 0; k < (P); k++)                                                  \
            ep[k * plane + i] = e[k] | (died & ((uint64_t)0 - ((first >> k) & 1u)));         \
        fn[i] = t;                                                                          \
    }

/* The decay of words [a, b) with P planes (1 .. 8). */
static inline void wl_decay_words(unsigned P, uint64_t first, const uint64_t *restrict f,
                                  uint64_t *restrict fn, uint64_t *restrict ep, size_t plane,
                                  size_t a, size_t b) {
    switch (P) {
    case 1: WL_DECAY_BODY(1) break;
    case 2: WL_DECAY_BODY(2) break;
    case 3: WL_DECAY_BODY(3) break;
    case 4: WL_DECAY_BODY(4) break;
    case 5: WL_DECAY_BODY(5) break;
    case 6: WL_DECAY_BODY(6) break;
    case 7: WL_DECAY_BODY(7) break;
    default: WL_DECAY_BODY(8) break;
    }
}

#endif
