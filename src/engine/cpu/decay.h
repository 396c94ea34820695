/*
 * decay.h - the decay of Generations and Larger than Life states as bit logic, included by
 * multi.c (built for any x86-64 or other CPU) and simd_decay.c (built for AVX-512), so
 * that one source gives both; the compiler vectorises the word loop, one instance per
 * number of planes P (the planes' count known at compile time keeps e[] in registers).
 *
 * For words [a, b): fn holds T (what the rule makes of the firing cells f) on entry and
 * the next firing cells on exit; E's P planes (plane k at e + k * plane) advance: the
 * dying cells (any E) count up, wrapping to 0 where E + 1 reaches `last` (the number of
 * states - 1), and the cells that stop firing enter state 2 (E = 1).  See multi.c.
 */
#ifndef WL_CPU_DECAY_H
#define WL_CPU_DECAY_H

#include <stddef.h>
#include <stdint.h>

#define WL_DECAY_BODY(P)                                                                    \
    for (size_t i = a; i < b; i++) {                                                        \
        uint64_t e[P], d = 0;                                                               \
        for (unsigned k = 0; k < (P); k++) d |= e[k] = ep[k * plane + i];                   \
        uint64_t t = fn[i] & ~d, carry = d, eq = d;                                         \
        for (unsigned k = 0; k < (P); k++) {                                                \
            uint64_t v = e[k] ^ carry;                                                      \
            carry &= e[k];                                                                  \
            e[k] = v;                                                                       \
            eq &= ~(v ^ ((uint64_t)0 - ((last >> k) & 1u)));                                \
        }                                                                                   \
        uint64_t died = f[i] & ~t;                                                          \
        for (unsigned k = 0; k < (P); k++) ep[k * plane + i] = (e[k] & ~eq) | (k ? 0 : died); \
        fn[i] = t;                                                                          \
    }

/* The decay of words [a, b) with P planes (1 .. 8). */
static inline void wl_decay_words(unsigned P, uint64_t last, const uint64_t *restrict f,
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
