/*
 * hl_states.c - HashLife for Golly's range-1 multi-state families: Generations (2..256
 * states, Moore, hexagonal or von Neumann neighbourhoods, any table), History (7 states)
 * and Super (26).
 *
 * The tree is the two-state one (hashlife.c): the leaves still hold which of their 64
 * cells are live (state != 0), and the other bits of the states, bit i of (state - 1) for
 * i < nplanes, hang off a leaf as a chain of plane nodes (see hl_internal.h).  Everything
 * above the leaves - hash-consing, the memoised recursion, garbage collection, population
 * and bounds - is unchanged; what changes is the base case (a level-4 node: 16x16 cells
 * advanced 1, 2 or 4 generations), the centre of four leaves, and building leaves.
 *
 * The base case of Generations is bit-sliced, on hl_leaf.c's four-word 16x16 squares: the
 * live cells L and the planes P_i of (state - 1); the on cells (state 1) are O = L & ~(any
 * P_i), the two-state rule's step of O (hl_square_gen: the adder network for totalistic
 * rules, the table otherwise) says which cells are born (not in L) or survive (in O); a
 * state-1 cell that does not survive becomes 2 (P = 1), and every other live cell counts
 * its P up by one, a ripple carry across the planes, except those at the last state,
 * which die.  Some 40 + 10 planes word operations a generation for 64 cells.
 *
 * History and Super are bit logic too, on the same squares: the live cells and planes
 * become the five bits of each cell's state (a ripple carry adds 1), and each generation
 * the on cells (odd states) take the two-state step of wl_marks_rule (the rule, or its dual
 * for B0 with S-max, whose background stays 0; hl_square_gen on h->step_rule), the classes
 * the marks look for among the neighbours (src/core/marks_bits.h) are found and moved onto
 * their neighbours by shifts of the square, as the totalistic step reads its neighbours
 * (the garbage at the edges stays in the outer ring, which is dropped), and
 * wl_marks_next_word makes the next states - the logic the cpu engine runs on its rows, and
 * marks.c's wl_marks_next, cell for cell.  Only the classes the square holds are moved
 * and read, and a square of states 0, 1 and 2 alone (a trail behind Life) takes a short
 * cut.  This replaced a cell-by-cell base case (a 16x16 array of states, wl_marks_next at
 * every cell that might change): Golly's crystal-cathedral (LifeSuper) to 1000 on one
 * thread took 107 ms, 72% of it in the base case, and takes about 37 ms now (Golly's Super
 * algorithm: 48-50 ms; docs/BENCHMARKS.md).
 */
#include "hl_internal.h"
#include "marks_bits.h"

/* The marks' logic on the square's four words as one vector (hl_v4). */
#define WL_MARKS_T hl_v4
#define WL_MARKS_NAME marks_next_v4
#define WL_MARKS_CLASSES marks_classes_v4
#define WL_MARKS_LOAD(ptr) HL_V4(ptr)
#define WL_MARKS_ATTR
#include "marks_next.inc.h"

wl_status hl_states_init(hl_ctx *h) {
    const wl_rule *r = &h->rule;
    h->family = wl_rule_family(r);
    h->states = wl_rule_states(r);
    h->step_rule = *r;
    switch (h->family) {
    case WL_FAMILY_LIFE: break;
    case WL_FAMILY_GENERATIONS:
        if (h->states > 2) h->nplanes = wl_grid_planes_for(r) - 1;
        break;
    case WL_FAMILY_HISTORY:
    case WL_FAMILY_SUPER:
        h->nplanes = wl_grid_planes_for(r) - 1;
        wl_marks_rule(r, &h->step_rule);
        h->marks_nbrs = wl_marks_neighbours(r);
        if (wl_rule_next(&h->step_rule, 0))
            return wl_error(WL_ERR_UNSUPPORTED, "hashlife: this rule's empty background "
                                                "does not stay empty");
        return WL_OK;
    default:
        return wl_error(WL_ERR_UNSUPPORTED,
                        "hashlife: %s rules are not supported (their neighbourhoods reach "
                        "further than one cell); use -e grow, or a grid engine",
                        wl_family_name(h->family));
    }
    if (wl_rule_has_b0(r))
        return wl_error(WL_ERR_UNSUPPORTED,
                        "hashlife: rules with B0 (birth on zero neighbours) are not supported "
                        "on the unbounded plane; use a torus or bounded grid engine");
    return WL_OK;
}

/* ---- leaves with planes ------------------------------------------------------------------ */

void hl_leaf_planes(const hl_ctx *h, uint32_t leaf, uint64_t *planes) {
    uint32_t n = h->nodes[leaf].c[2];
    for (unsigned i = 0; i < h->nplanes; i++) {
        if (n == HL_LEAF_MARK) {
            planes[i] = 0;
            continue;
        }
        planes[i] = hl_leaf_bits(h, n);
        n = h->nodes[n].c[2];
    }
}

uint32_t hl_leaf_make_planes(hl_ctx *h, uint64_t live, const uint64_t *planes) {
    int top = (int)h->nplanes - 1;
    while (top >= 0 && !(planes[top] & live)) top--;
    /* the chain from its last plane up; each link protected until the next holds it */
    size_t sp0 = h->sp;
    uint32_t next = HL_LEAF_MARK;
    for (int i = top; i >= 0; i--) {
        uint64_t b = planes[i] & live;
        uint32_t n = hl_plane_make(h, (uint32_t)b, (uint32_t)(b >> 32), next);
        h->sp = sp0;
        if (!n) return 0;
        hl_push(h, n);
        next = n;
    }
    uint32_t leaf = hl_leaf_make_chain(h, live, next);
    h->sp = sp0;
    return leaf;
}

/* ---- the base case ------------------------------------------------------------------------ */

/* The Generations base case (see the top). */
static uint32_t generations_step(hl_ctx *h, const uint32_t leaf[4], int gens) {
    unsigned np = h->nplanes, top = h->states - 2; /* the last state's (state - 1) */
    uint64_t L[4], P[HL_MAX_PLANES][4], lp[4][HL_MAX_PLANES];
    for (int q = 0; q < 4; q++) hl_leaf_planes(h, leaf[q], lp[q]);
    hl_square_assemble(hl_leaf_bits(h, leaf[0]), hl_leaf_bits(h, leaf[1]),
                       hl_leaf_bits(h, leaf[2]), hl_leaf_bits(h, leaf[3]), L);
    for (unsigned i = 0; i < np; i++) hl_square_assemble(lp[0][i], lp[1][i], lp[2][i], lp[3][i], P[i]);
    /* (the square's four words as one vector, hl_v4) */
    const hl_v4 zero = {0, 0, 0, 0}, all = ~zero;
    for (int g = 0; g < gens; g++) {
        uint64_t A[4];
        hl_v4 any = zero;
        for (unsigned i = 0; i < np; i++) any |= HL_V4(P[i]);
        const hl_v4 O = HL_V4(L) & ~any;
        HL_V4(A) = O;
        hl_square_gen(h, A);
        const hl_v4 a = HL_V4(A), l = HL_V4(L), D = l & ~O;
        hl_v4 last = D;
        for (unsigned i = 0; i < np; i++) last &= HL_V4(P[i]) ^ (top >> i & 1 ? zero : all);
        hl_v4 carry = D & ~last; /* count the others up by one */
        for (unsigned i = 0; i < np; i++) {
            const hl_v4 t = HL_V4(P[i]) & carry;
            HL_V4(P[i]) ^= carry;
            carry = t;
        }
        const hl_v4 on = a & (~l | O), dying = O & ~a, nl = on | (D & ~last) | dying;
        HL_V4(L) = nl;
        for (unsigned i = 0; i < np; i++) HL_V4(P[i]) &= nl & ~on & ~dying;
        HL_V4(P[0]) |= dying; /* state 2 */
    }
    uint64_t planes[HL_MAX_PLANES];
    for (unsigned i = 0; i < np; i++) planes[i] = hl_square_centre(P[i]);
    return hl_leaf_make_planes(h, hl_square_centre(L), planes);
}

/* History and Super's base case (see the top): the state bits C_0 .. C_4 of the square
 * from the live cells and the planes of (state - 1), a generation at a time the on cells'
 * step T, the classes' presence and marks_bits.h's logic, then the planes again. */
static uint32_t marks_step(hl_ctx *h, const uint32_t leaf[4], int gens) {
    const unsigned np = h->nplanes, nb = h->marks_nbrs;
    /* the neighbours the marks look at: NW N NE W . E SW S SE = bits 8 7 6 5 . 3 2 1 0 */
    const hl_v4 zero = {0, 0, 0, 0}, all = ~zero;
    const hl_v4 mnw = nb >> 8 & 1 ? all : zero, mn = nb >> 7 & 1 ? all : zero,
                mne = nb >> 6 & 1 ? all : zero, mw = nb >> 5 & 1 ? all : zero,
                me = nb >> 3 & 1 ? all : zero, msw = nb >> 2 & 1 ? all : zero,
                ms = nb >> 1 & 1 ? all : zero, mse = nb & 1 ? all : zero;
    uint64_t lp[4][HL_MAX_PLANES], P[HL_MAX_PLANES][4], L[4];
    for (int q = 0; q < 4; q++) hl_leaf_planes(h, leaf[q], lp[q]);
    for (unsigned i = 0; i < np; i++) hl_square_assemble(lp[0][i], lp[1][i], lp[2][i], lp[3][i], P[i]);
    hl_square_assemble(hl_leaf_bits(h, leaf[0]), hl_leaf_bits(h, leaf[1]),
                       hl_leaf_bits(h, leaf[2]), hl_leaf_bits(h, leaf[3]), L);
    /* the state bits (the square's four words as one vector, hl_v4): state = (state - 1)
     * + 1 where live */
    hl_v4 C[5], carry = HL_V4(L);
    for (unsigned b = 0; b < 5; b++) {
        const hl_v4 x = b < np ? HL_V4(P[b]) : zero;
        C[b] = x ^ carry;
        carry &= x;
    }
    for (int g = 0; g < gens; g++) {
        uint64_t T[4];
        HL_V4(T) = C[0];
        hl_square_gen(h, T);
        const hl_v4 t = HL_V4(T), high = C[2] | C[3] | C[4] | (C[0] & C[1]);
        if (!(high[0] | high[1] | high[2] | high[3])) {
            /* states 0, 1 and 2 alone (a trail behind Life): born or surviving cells are 1
             * (no other on state around to colour a birth), dying ones 2, the others keep
             * their state (marks.c, wl_marks_next) */
            C[1] = ~t & (C[0] | C[1]);
            C[0] = t;
            continue;
        }
        /* each class's cells, the classes the square holds, and their presence: the rows
         * above and below (the word before's last row, the word after's first, by lane
         * shuffles), and the columns west (<< 1) and east (>> 1), as hl_leaf.c's totalistic
         * step reads them (garbage stays in the outer ring) */
        hl_v4 X[WL_MC_N];
        uint64_t pres[WL_MC_N][4];
        uint32_t has = 0;
        marks_classes_v4(C, X);
        for (int k = 0; k < WL_MC_N; k++) {
            const hl_v4 mid = X[k];
            if (!(mid[0] | mid[1] | mid[2] | mid[3])) {
                HL_V4(pres[k]) = zero;
                continue;
            }
            has |= WL_MC_BIT(k);
            const hl_v4 up = (mid << 16) | (__builtin_shufflevector(mid, zero, 4, 0, 1, 2) >> 48);
            const hl_v4 dn = (mid >> 16) | (__builtin_shufflevector(mid, zero, 1, 2, 3, 4) << 48);
            HL_V4(pres[k]) = ((up << 1) & mnw) | (up & mn) | ((up >> 1) & mne) |
                             ((mid << 1) & mw) | ((mid >> 1) & me) | ((dn << 1) & msw) |
                             (dn & ms) | ((dn >> 1) & mse);
        }
        hl_v4 r[5];
        marks_next_v4(C, &t, &pres[0][0], 4, has, r);
        for (int b = 0; b < 5; b++) C[b] = r[b];
    }
    /* the centre: live = state != 0, the planes (state - 1) */
    uint64_t live[4], planes[HL_MAX_PLANES];
    HL_V4(live) = C[0] | C[1] | C[2] | C[3] | C[4];
    hl_v4 borrow = HL_V4(live);
    for (unsigned b = 0; b < 5; b++) {
        if (b < np) HL_V4(P[b]) = C[b] ^ borrow;
        borrow &= ~C[b];
    }
    for (unsigned i = 0; i < np; i++) planes[i] = hl_square_centre(P[i]);
    return hl_leaf_make_planes(h, hl_square_centre(live), planes);
}

uint32_t hl_states_step(hl_ctx *h, const uint32_t leaf[4], int gens) {
    if (h->family == WL_FAMILY_GENERATIONS) return generations_step(h, leaf, gens);
    return marks_step(h, leaf, gens);
}

uint32_t hl_states_centre(hl_ctx *h, const uint32_t leaf[4]) {
    uint64_t live[4], planes[4][HL_MAX_PLANES], out[HL_MAX_PLANES];
    for (int q = 0; q < 4; q++) {
        live[q] = hl_leaf_bits(h, leaf[q]);
        hl_leaf_planes(h, leaf[q], planes[q]);
    }
    for (unsigned i = 0; i < h->nplanes; i++)
        out[i] = hl_leaf_centre(planes[0][i], planes[1][i], planes[2][i], planes[3][i]);
    return hl_leaf_make_planes(h, hl_leaf_centre(live[0], live[1], live[2], live[3]), out);
}

/* ---- rendering ---------------------------------------------------------------------------- */

wl_status hl_states_render(hl_ctx *h, const wl_view *v, uint32_t *rgba) {
    wl_pattern *p = NULL;
    wl_status s = hl_store_pattern(h, &p);
    wl_snapshot *snap = s ? NULL : wl_snapshot_new();
    if (!s && !snap) s = WL_ERR_NOMEM;
    if (!s) s = wl_snapshot_from_pattern(snap, p);
    if (!s) s = wl_snapshot_render(snap, v, rgba);
    wl_snapshot_free(snap);
    wl_pattern_free(p);
    return s;
}
