/*
 * marks_next.inc.h - the bodies of marks_bits.h's wl_marks_next_word and wl_mark_classes
 * for a type of words: included with WL_MARKS_T (uint64_t, or a GCC vector of them: the
 * logic is AND, OR, XOR and NOT only), their names WL_MARKS_NAME and WL_MARKS_CLASSES,
 * WL_MARKS_LOAD(ptr) (a WL_MARKS_T read from the words at ptr) and WL_MARKS_ATTR (more
 * attributes: the target of a vector instance) defined, which it undefines at its end.
 * No include guard: meant to be included once per type.  Vectors go in and out through
 * pointers only (clang refuses vector arguments wider than the target's registers).
 */
static inline __attribute__((always_inline)) WL_MARKS_ATTR void
WL_MARKS_CLASSES(const WL_MARKS_T c[5], WL_MARKS_T cls[WL_MC_N]) {
    const WL_MARKS_T par[2] = {~c[0], c[0]};
    const WL_MARKS_T lo[4] = {~c[1] & ~c[2], c[1] & ~c[2], ~c[1] & c[2], c[1] & c[2]};
    const WL_MARKS_T hi[4] = {~c[3] & ~c[4], c[3] & ~c[4], ~c[3] & c[4], c[3] & c[4]};
    for (int k = 0; k < WL_MC_ODD; k++) {
        const unsigned v = wl_mark_class_state[k];
        cls[k] = par[v & 1] & lo[v >> 1 & 3] & hi[v >> 3 & 3];
    }
    cls[WL_MC_ODD] = c[0];
}

static inline __attribute__((always_inline)) WL_MARKS_ATTR void
WL_MARKS_NAME(const WL_MARKS_T c[5], const WL_MARKS_T *tp, const uint64_t *p, size_t stride,
              uint32_t has, WL_MARKS_T r[5]) {
#define PR(k) WL_MARKS_LOAD(p + (size_t)(k) * stride)
    const WL_MARKS_T T = *tp;
    const WL_MARKS_T c0 = c[0], c1 = c[1], c2 = c[2], c3 = c[3], c4 = c[4];
    const WL_MARKS_T n1 = ~c1, n2 = ~c2, n3 = ~c3, n4 = ~c4, odd = c0, even = ~c0;
    /* the states the logic tells apart (value = c4 c3 c2 c1 c0) */
    const WL_MARKS_T lo4 = n4 & n3; /* values 0 .. 7 */
    const WL_MARKS_T is1 = odd & lo4 & n2 & n1, is3 = odd & lo4 & n2 & c1,
                     is5 = odd & lo4 & c2 & n1, is7 = odd & lo4 & c2 & c1;
    const WL_MARKS_T is9 = odd & n4 & c3 & n2 & n1, is11 = odd & n4 & c3 & n2 & c1;
    const WL_MARKS_T is4 = even & lo4 & c2 & n1, is6 = even & lo4 & c2 & c1;
    const WL_MARKS_T is8 = even & n4 & c3 & n2 & n1;
    const WL_MARKS_T ge13 = c4 | (c3 & c2 & (c1 | c0));
    const WL_MARKS_T is14 = even & n4 & c3 & c2 & c1, is16 = even & c4 & n3 & n2 & n1,
                     is18 = even & c4 & n3 & n2 & c1, is20 = even & c4 & n3 & c2 & n1,
                     is22 = even & c4 & n3 & c2 & c1, is24 = even & c4 & c3 & n2 & n1;
    /* a wall among the neighbours turns these off (case A) */
    const WL_MARKS_T A = PR(WL_MC_6) & (odd | is8 | ge13), nA = ~A;
    const WL_MARKS_T live = nA & T, dead = nA & ~T;
    /* births: the colour from the on states around (marks.c's birth_colour) */
    const WL_MARKS_T p1 = PR(WL_MC_1), p3 = PR(WL_MC_3), p5 = PR(WL_MC_5), p7 = PR(WL_MC_7),
                     p9 = PR(WL_MC_9), p11 = PR(WL_MC_11);
    /* among 9 .. 25: at least one, two; 13 .. 25: any */
    WL_MARKS_T one = {0}, two = {0}, nt = {0};
    WL_MARKS_T v1 = {0}, v2 = {0}, v3 = {0}, v4 = {0}; /* the bits of the one there is */
    for (int k = WL_MC_9; k <= WL_MC_25 && (has & WL_MC_FROM_9); k++) {
        const WL_MARKS_T q = PR(k);
        const unsigned v = wl_mark_class_state[k];
        two |= one & q;
        one |= q;
        if (k >= WL_MC_13) nt |= q;
        if (v & 2) v1 |= q;
        if (v & 4) v2 |= q;
        if (v & 8) v3 |= q;
        if (v & 16) v4 |= q;
    }
    const WL_MARKS_T single = one & ~two, low = p1 | p3 | p5 | p7;
    const WL_MARKS_T k1 = ~low & single;
    const WL_MARKS_T k2 = p3 & single & ~(p1 | p5 | p7 | p9 | p11); /* (9, 11 absent: single
                                                                    among 13 .. 25) */
    const WL_MARKS_T k3 = p7 & (p9 ^ p11) & ~(p1 | p3 | p5 | nt);
    const WL_MARKS_T hi = k1 | k2 | k3; /* the one state among 9 .. 25 */
    const WL_MARKS_T k4 = ~hi & (p7 | nt) & ~(p1 | p3 | p5 | p9 | p11); /* 13 */
    const WL_MARKS_T born = live & even & ~is4 & ~is6 & ~is8;
    /* the labels (dead, even) */
    const WL_MARKS_T podd = PR(WL_MC_ODD), p14 = PR(WL_MC_14), p18 = PR(WL_MC_18),
                     p20 = PR(WL_MC_20), p22 = PR(WL_MC_22);
    const WL_MARKS_T l16 = dead & is16 & (podd | p14), l18 = dead & is18 & p22,
                     l20 = dead & is20 & p18, l22 = dead & is22 & p20,
                     l24 = dead & is24 & (podd | p14 | p18);
    /* the next state: kept, a constant, or the birth colour */
    const WL_MARKS_T keep = (live & (odd | is6)) |
                          (dead & even & ~is14 & ~l16 & ~l18 & ~l20 & ~l22 & ~l24);
    const WL_MARKS_T off = A | dead; /* odd cells that die, and case A */
    const WL_MARKS_T to2 = off & is1, to4 = off & (is3 | is5), to10 = off & is9,
                     to12 = off & is11, to8 = dead & is7, to3 = live & is4, to7 = live & is8,
                     to14 = l16, to22 = l18, to18 = l20 | l24, to20 = l22;
    /* (to 0: case A's 7, 8 and states from 13, dead odd states from 13, dead 14; every
     * birth colour is odd: the one state among 9 .. 25 (hi), 13 (k4), else 1) */
    const WL_MARKS_T b1 = born & hi & v1, b2 = born & ((hi & v2) | k4),
                     b3 = born & ((hi & v3) | k4), b4 = born & hi & v4;
    r[0] = (keep & c0) | born | to3 | to7;
    r[1] = (keep & c1) | b1 | to2 | to3 | to7 | to10 | to14 | to22 | to18;
    r[2] = (keep & c2) | b2 | to4 | to12 | to7 | to14 | to22 | to20;
    r[3] = (keep & c3) | b3 | to8 | to10 | to12 | to14;
    r[4] = (keep & c4) | b4 | to22 | to18 | to20;
#undef PR
}

#undef WL_MARKS_T
#undef WL_MARKS_NAME
#undef WL_MARKS_CLASSES
#undef WL_MARKS_LOAD
#undef WL_MARKS_ATTR
