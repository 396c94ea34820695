/*
 * marks_bits.h - Golly's History and Super rules (marks.c says what each state does) as
 * bit logic on 64 cells a word, for the engines that run them bitsliced: the cpu engine's
 * rows (src/engine/cpu/multi.c) and HashLife's 16x16 base case (src/engine/hashlife/
 * hl_states.c): marks.c's wl_marks_next, case by case, 64 cells at a time (ref runs
 * wl_marks_next itself, the oracle they are tested against).
 *
 * A cell's state is held as its five bits c0 .. c4 (c0 = the state is odd = the cell is
 * on).  History is Super on the states 0 .. 6 (marks.c: every case of History is Super's
 * for those states, and none of them leads out of 0 .. 6), so this serves both.
 *
 * What a cell needs besides its own state: T, the two-state rule's next generation of the
 * on cells (wl_marks_rule: the rule, or its dual for B0 with S-max), and presence words:
 * for each class of wl_mark_class, the cells that have a cell of that class among their
 * neighbours in the rule's neighbourhood (wl_marks_neighbours).
 */
#ifndef WL_MARKS_BITS_H
#define WL_MARKS_BITS_H

#include <stddef.h>
#include <stdint.h>

/* The classes the marks look for among a cell's neighbours: states 1, 3, ..., 25 (the on
 * states), the wall 6, the labels 14, 18, 20, 22, and any on cell (WL_MC_ODD). */
enum wl_mark_class {
    WL_MC_1, WL_MC_3, WL_MC_5, WL_MC_7, WL_MC_9, WL_MC_11, WL_MC_13, WL_MC_15, WL_MC_17,
    WL_MC_19, WL_MC_21, WL_MC_23, WL_MC_25, WL_MC_6, WL_MC_14, WL_MC_18, WL_MC_20, WL_MC_22,
    WL_MC_ODD, WL_MC_N
};
/* The state of each class (WL_MC_ODD: none, 0). */
static const uint8_t wl_mark_class_state[WL_MC_N] = {1,  3,  5,  7,  9,  11, 13, 15, 17, 19,
                                                     21, 23, 25, 6,  14, 18, 20, 22, 0};

/* The cells of each class among 64 cells of state bits c[0 .. 4]: cls[k] for every class
 * k of wl_mark_class (from the minterms of the bit pairs 1-2 and 3-4: two ANDs a class). */
static inline void wl_mark_classes(const uint64_t c[5], uint64_t cls[WL_MC_N]) {
    const uint64_t par[2] = {~c[0], c[0]};
    const uint64_t lo[4] = {~c[1] & ~c[2], c[1] & ~c[2], ~c[1] & c[2], c[1] & c[2]};
    const uint64_t hi[4] = {~c[3] & ~c[4], c[3] & ~c[4], ~c[3] & c[4], c[3] & c[4]};
    for (int k = 0; k < WL_MC_ODD; k++) {
        const unsigned v = wl_mark_class_state[k];
        cls[k] = par[v & 1] & lo[v >> 1 & 3] & hi[v >> 3 & 3];
    }
    cls[WL_MC_ODD] = c[0];
}

#define WL_MC_BIT(k) ((uint32_t)1 << (k))
/* The on states from 9 up (the birth colours' classes). */
#define WL_MC_FROM_9 (WL_MC_BIT(WL_MC_N) - WL_MC_BIT(WL_MC_9) - WL_MC_BIT(WL_MC_6) - \
                      WL_MC_BIT(WL_MC_14) - WL_MC_BIT(WL_MC_18) - WL_MC_BIT(WL_MC_20) - \
                      WL_MC_BIT(WL_MC_22) - WL_MC_BIT(WL_MC_ODD))

/* The next state bits r[0 .. 4] of 64 cells of state bits c[0 .. 4], from T and their
 * presence words pres[k * stride] (class k of wl_mark_class); `has` (bit k) may leave out
 * classes whose presence words are zero (the on states from 9 up are not looked at when
 * none of them is there). */
static inline void wl_marks_next_word(const uint64_t c[5], uint64_t T, const uint64_t *pres,
                                      size_t stride, uint32_t has, uint64_t r[5]) {
#define PR(k) pres[(size_t)(k) * stride]
    const uint64_t c0 = c[0], c1 = c[1], c2 = c[2], c3 = c[3], c4 = c[4];
    const uint64_t n1 = ~c1, n2 = ~c2, n3 = ~c3, n4 = ~c4, odd = c0, even = ~c0;
    /* the states the logic tells apart (value = c4 c3 c2 c1 c0) */
    const uint64_t lo4 = n4 & n3; /* values 0 .. 7 */
    const uint64_t is1 = odd & lo4 & n2 & n1, is3 = odd & lo4 & n2 & c1,
                   is5 = odd & lo4 & c2 & n1, is7 = odd & lo4 & c2 & c1;
    const uint64_t is9 = odd & n4 & c3 & n2 & n1, is11 = odd & n4 & c3 & n2 & c1;
    const uint64_t is4 = even & lo4 & c2 & n1, is6 = even & lo4 & c2 & c1;
    const uint64_t is8 = even & n4 & c3 & n2 & n1;
    const uint64_t ge13 = c4 | (c3 & c2 & (c1 | c0));
    const uint64_t is14 = even & n4 & c3 & c2 & c1, is16 = even & c4 & n3 & n2 & n1,
                   is18 = even & c4 & n3 & n2 & c1, is20 = even & c4 & n3 & c2 & n1,
                   is22 = even & c4 & n3 & c2 & c1, is24 = even & c4 & c3 & n2 & n1;
    /* a wall among the neighbours turns these off (case A) */
    const uint64_t A = PR(WL_MC_6) & (odd | is8 | ge13), nA = ~A;
    const uint64_t live = nA & T, dead = nA & ~T;
    /* births: the colour from the on states around (marks.c's birth_colour) */
    const uint64_t p1 = PR(WL_MC_1), p3 = PR(WL_MC_3), p5 = PR(WL_MC_5), p7 = PR(WL_MC_7),
                   p9 = PR(WL_MC_9), p11 = PR(WL_MC_11);
    uint64_t one = 0, two = 0, nt = 0; /* among 9 .. 25: at least one, two; 13 .. 25: any */
    uint64_t v1 = 0, v2 = 0, v3 = 0, v4 = 0; /* the bits of the one there is */
    for (int k = WL_MC_9; k <= WL_MC_25 && (has & WL_MC_FROM_9); k++) {
        const uint64_t q = PR(k);
        const unsigned v = wl_mark_class_state[k];
        two |= one & q;
        one |= q;
        if (k >= WL_MC_13) nt |= q;
        if (v & 2) v1 |= q;
        if (v & 4) v2 |= q;
        if (v & 8) v3 |= q;
        if (v & 16) v4 |= q;
    }
    const uint64_t single = one & ~two, low = p1 | p3 | p5 | p7;
    const uint64_t k1 = ~low & single;
    const uint64_t k2 = p3 & single & ~(p1 | p5 | p7 | p9 | p11); /* (9, 11 absent: single
                                                                    among 13 .. 25) */
    const uint64_t k3 = p7 & (p9 ^ p11) & ~(p1 | p3 | p5 | nt);
    const uint64_t hi = k1 | k2 | k3; /* the one state among 9 .. 25 */
    const uint64_t k4 = ~hi & (p7 | nt) & ~(p1 | p3 | p5 | p9 | p11); /* 13 */
    const uint64_t born = live & even & ~is4 & ~is6 & ~is8;
    /* the labels (dead, even) */
    const uint64_t podd = PR(WL_MC_ODD), p14 = PR(WL_MC_14), p18 = PR(WL_MC_18),
                   p20 = PR(WL_MC_20), p22 = PR(WL_MC_22);
    const uint64_t l16 = dead & is16 & (podd | p14), l18 = dead & is18 & p22,
                   l20 = dead & is20 & p18, l22 = dead & is22 & p20,
                   l24 = dead & is24 & (podd | p14 | p18);
    /* the next state: kept, a constant, or the birth colour */
    const uint64_t keep = (live & (odd | is6)) |
                          (dead & even & ~is14 & ~l16 & ~l18 & ~l20 & ~l22 & ~l24);
    const uint64_t off = A | dead; /* odd cells that die, and case A */
    const uint64_t to2 = off & is1, to4 = off & (is3 | is5), to10 = off & is9,
                   to12 = off & is11, to8 = dead & is7, to3 = live & is4, to7 = live & is8,
                   to14 = l16, to22 = l18, to18 = l20 | l24, to20 = l22;
    /* (to 0: case A's 7, 8 and states from 13, dead odd states from 13, dead 14; every
     * birth colour is odd: the one state among 9 .. 25 (hi), 13 (k4), else 1) */
    const uint64_t b1 = born & hi & v1, b2 = born & ((hi & v2) | k4), b3 = born & ((hi & v3) | k4),
                   b4 = born & hi & v4;
    r[0] = (keep & c0) | born | to3 | to7;
    r[1] = (keep & c1) | b1 | to2 | to3 | to7 | to10 | to14 | to22 | to18;
    r[2] = (keep & c2) | b2 | to4 | to12 | to7 | to14 | to22 | to20;
    r[3] = (keep & c3) | b3 | to8 | to10 | to12 | to14;
    r[4] = (keep & c4) | b4 | to22 | to18 | to20;
#undef PR
}

#endif
