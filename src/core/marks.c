/*
 * marks.c - what a cell of Golly's History and Super rules does (families WL_FAMILY_HISTORY
 * and WL_FAMILY_SUPER), one cell at a time, for the engines that run them.
 *
 * Both families run a two-state rule on the parity of the states: odd states are on,
 * even states off, and only on neighbours count.  The extra states mark things without
 * changing that evolution, except state 6, a wall that never turns on and turns off every
 * on cell beside it.  In History (7 states): 0 off, 1 on, 2 off that was once on (the
 * envelope), 3 marked on and 4 marked off (a birth on 4 gives 3, 3 dies to 4), 5 on from
 * the start (dies to 4), 6 the wall.  Super (26 states) keeps those and adds trails,
 * trail-less on states and labels: 7/8 a no-trail boundary, 9/10 and 11/12 on states with
 * their own trails, 13..25 odd on states leaving no trail, 14..24 even label states that
 * vanish, decay or cycle when touched.  Births take a colour from the on states around
 * them (wl_marks_next spells out Golly's five cases).  B0 is allowed with S-max only, and
 * then the rule runs as its dual (every cell of the 3x3 inverted, the result inverted),
 * with no alternation: the background stays 0.  These are the semantics of Golly's Super
 * algorithm (superalgo.cpp), which we checked cell for cell against Golly 5.1 on random
 * soups.
 *
 * "Around them" means the rule's neighbourhood: Moore, or Golly's hexagonal (NW N W E S
 * SE) or von Neumann (N W E S) when the rule was written with 'H' or 'V'; the marks'
 * tests (the wall, birth colours, labels) look at those neighbours only.
 */
#include "internal.h"

#include <string.h>

/* Odd states from 9 (trail #2) and 13 (no-trail) up: masks of state numbers. */
#define ODD_9_UP 0x2AAAA00u  /* 9, 11, 13, ..., 25 */
#define ODD_13_UP 0x2AAA000u /* 13, 15, ..., 25 */
#define S(n) (1u << (n))

/* 1 if exactly one bit of v is set. */
static int single(uint32_t v) {
    return v && !(v & (v - 1));
}

/* The state of a Super birth from Q, the on states among the neighbours. */
static unsigned birth_colour(uint32_t q) {
    uint32_t hi = q & ODD_9_UP, no_trail = q & ODD_13_UP;
    if (!(q & (S(1) | S(3) | S(5) | S(7))) && single(hi)) return (unsigned)__builtin_ctz(hi);
    if ((q & S(3)) && single(no_trail) && !(q & (S(1) | S(5) | S(7) | S(9) | S(11))))
        return (unsigned)__builtin_ctz(no_trail);
    uint32_t t = q & (S(9) | S(11));
    if ((q & S(7)) && single(t) && !(q & (S(1) | S(3) | S(5) | ODD_13_UP)))
        return (unsigned)__builtin_ctz(t);
    if ((q & (S(7) | ODD_13_UP)) && !(q & (S(1) | S(3) | S(5) | S(9) | S(11)))) return 13;
    return 1;
}

unsigned wl_marks_next(int super, unsigned c, int alive, uint32_t present) {
    const uint32_t odd = 0x2AAAAAAu; /* every odd state, 1 .. 25 */
    if (present & S(6)) { /* a wall beside the cell turns on cells off */
        if (c == 1) return 2;
        if (c == 3 || c == 5) return 4;
        if (super) {
            if (c == 9) return 10;
            if (c == 11) return 12;
            if (c == 7 || c == 8 || c >= 13) return 0;
        }
    }
    if (!super) {
        switch (c) {
        case 0: case 2: return alive ? 1 : c;
        case 4: return alive ? 3 : 4;
        case 1: case 3: return alive ? c : c + 1;
        case 5: return alive ? 5 : 4;
        default: return c; /* 6 */
        }
    }
    if (alive) {
        if (c & 1) return c; /* survival */
        if (c == 4) return 3;
        if (c == 6) return 6;
        if (c == 8) return 7;
        return birth_colour(present & odd);
    }
    if (c & 1) { /* a death */
        switch (c) {
        case 1: return 2;
        case 3: case 5: return 4;
        case 7: return 8;
        case 9: return 10;
        case 11: return 12;
        default: return 0; /* 13 .. 25 leave no trail */
        }
    }
    switch (c) { /* labels */
    case 14: return 0;
    case 16: return (present & (odd | S(14))) ? 14 : 16;
    case 18: return (present & S(22)) ? 22 : 18;
    case 20: return (present & S(18)) ? 18 : 20;
    case 22: return (present & S(20)) ? 20 : 22;
    case 24: return (present & (odd | S(14) | S(18))) ? 18 : 24;
    default: return c;
    }
}

void wl_marks_rule(const wl_rule *r, wl_rule *out) {
    int dual = wl_rule_has_b0(r); /* parsing allowed B0 only with S-max */
    memset(out, 0, sizeof *out);
    out->family = WL_FAMILY_LIFE;
    out->states = 2;
    for (unsigned i = 0; i < 512; i++)
        if (dual ? !wl_rule_next(r, 511 - i) : wl_rule_next(r, i))
            out->table[i >> 6] |= (uint64_t)1 << (i & 63);
}

void wl_marks_table(const wl_rule *r, uint8_t table[512]) {
    wl_rule two;
    wl_marks_rule(r, &two);
    for (unsigned i = 0; i < 512; i++) table[i] = (uint8_t)wl_rule_next(&two, i);
}

unsigned wl_marks_neighbours(const wl_rule *r) {
    /* index bits of the neighbours: NW N NE W . E SW S SE = bits 8 7 6 5 . 3 2 1 0 */
    return r->nh == 'H' ? 0x1ABu : r->nh == 'V' ? 0x0AAu : 0x1EFu;
}
