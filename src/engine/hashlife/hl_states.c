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
 * History and Super unpack the four leaves into a 16x16 array of states and apply the
 * cell rule a generation at a time on the square that is still valid (it shrinks by a
 * cell on each side per generation), then pack the centre 8x8: the on bit is an odd
 * state, the 3x3 block of on bits indexes wl_marks_table (the rule, or its dual for B0
 * with S-max, whose background stays 0), and wl_marks_next gives the marks from the
 * states present among the neighbours - what ref does, cell for cell.  Base cases are
 * memoised, so this costs little in long runs.
 */
#include "hl_internal.h"

#include <stdlib.h>
#include <string.h>

wl_status hl_states_init(hl_ctx *h) {
    const wl_rule *r = &h->rule;
    h->family = wl_rule_family(r);
    h->states = wl_rule_states(r);
    switch (h->family) {
    case WL_FAMILY_LIFE: break;
    case WL_FAMILY_GENERATIONS:
        if (h->states > 2) h->nplanes = wl_grid_planes_for(r) - 1;
        break;
    case WL_FAMILY_HISTORY:
    case WL_FAMILY_SUPER:
        h->nplanes = wl_grid_planes_for(r) - 1;
        wl_marks_table(r, h->mtable);
        h->marks_nbrs = wl_marks_neighbours(r);
        if (h->mtable[0])
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
    for (unsigned i = 0; i < 512; i++) h->mtable[i] = (uint8_t)wl_rule_next(r, i);
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

/* Unpacks leaf n into the 8x8 block of a 16-wide state array whose top-left is s. */
static void unpack(const hl_ctx *h, uint32_t n, uint8_t *s) {
    uint64_t live = hl_leaf_bits(h, n), planes[HL_MAX_PLANES];
    hl_leaf_planes(h, n, planes);
    for (int b = 0; b < 64; b++) {
        unsigned v = 0;
        if (live >> b & 1) {
            v = 1;
            for (unsigned i = 0; i < h->nplanes; i++) v += (unsigned)(planes[i] >> b & 1) << i;
        }
        s[(b >> 3) * 16 + (b & 7)] = (uint8_t)v;
    }
}

/* Packs the 8x8 block of a 16-wide state array whose top-left is s into a leaf. */
static uint32_t pack(hl_ctx *h, const uint8_t *s) {
    uint64_t live = 0, planes[HL_MAX_PLANES] = {0};
    for (int b = 0; b < 64; b++) {
        unsigned v = s[(b >> 3) * 16 + (b & 7)];
        if (!v) continue;
        live |= 1ull << b;
        for (unsigned i = 0; i < h->nplanes; i++) planes[i] |= (uint64_t)((v - 1) >> i & 1) << b;
    }
    return hl_leaf_make_planes(h, live, planes);
}

/* One History or Super generation of the cells [lo, 16 - lo)^2 of a 16x16 state array.
 * Without a wall (state 6) in the square, an even state below 14 that the rule does not
 * turn on keeps its state, whatever its neighbours: the common case, done without
 * looking at them. */
static void marks_generation(const hl_ctx *h, const uint8_t *in, uint8_t *out, int lo,
                             int walls) {
    uint8_t on[256];
    for (int i = 0; i < 256; i++) on[i] = in[i] & 1;
    int super = h->family == WL_FAMILY_SUPER;
    for (int y = lo; y < 16 - lo; y++) {
        const uint8_t *u = on + (y - 1) * 16, *m = u + 16, *d = m + 16;
        /* the 3x3 block's index slides along the row (bit 8 NW .. bit 0 SE) */
        unsigned idx = (unsigned)(u[lo - 1] << 7 | m[lo - 1] << 4 | d[lo - 1] << 1 |
                                  u[lo] << 6 | m[lo] << 3 | d[lo]);
        for (int x = lo; x < 16 - lo; x++) {
            idx = ((idx << 1) & 0x1B6u) | (unsigned)(u[x + 1] << 6 | m[x + 1] << 3 | d[x + 1]);
            unsigned c = in[y * 16 + x], alive = h->mtable[idx];
            if (!alive && !(c & 1) && c < 14 && !walls) {
                out[y * 16 + x] = (uint8_t)c;
                continue;
            }
            const uint8_t *n = in + (y - 1) * 16 + x - 1;
            uint32_t present = 0;
            for (int k = 0; k < 9; k++)
                if (h->marks_nbrs >> (8 - k) & 1u) present |= 1u << n[(k / 3) * 16 + k % 3];
            out[y * 16 + x] = (uint8_t)wl_marks_next(super, c, (int)alive, present);
        }
    }
}

/* The Generations base case (see the top). */
static uint32_t generations_step(hl_ctx *h, const uint32_t leaf[4], int gens) {
    unsigned np = h->nplanes, top = h->states - 2; /* the last state's (state - 1) */
    uint64_t L[4], P[HL_MAX_PLANES][4], lp[4][HL_MAX_PLANES];
    for (int q = 0; q < 4; q++) hl_leaf_planes(h, leaf[q], lp[q]);
    hl_square_assemble(hl_leaf_bits(h, leaf[0]), hl_leaf_bits(h, leaf[1]),
                       hl_leaf_bits(h, leaf[2]), hl_leaf_bits(h, leaf[3]), L);
    for (unsigned i = 0; i < np; i++) hl_square_assemble(lp[0][i], lp[1][i], lp[2][i], lp[3][i], P[i]);
    for (int g = 0; g < gens; g++) {
        uint64_t O[4], A[4];
        for (int j = 0; j < 4; j++) {
            uint64_t any = 0;
            for (unsigned i = 0; i < np; i++) any |= P[i][j];
            O[j] = A[j] = L[j] & ~any;
        }
        hl_square_gen(h, A);
        for (int j = 0; j < 4; j++) {
            uint64_t D = L[j] & ~O[j], last = D;
            for (unsigned i = 0; i < np; i++) last &= top >> i & 1 ? P[i][j] : ~P[i][j];
            uint64_t carry = D & ~last; /* count the others up by one */
            for (unsigned i = 0; i < np; i++) {
                uint64_t t = P[i][j] & carry;
                P[i][j] ^= carry;
                carry = t;
            }
            uint64_t on = A[j] & (~L[j] | O[j]), dying = O[j] & ~A[j];
            L[j] = on | (D & ~last) | dying;
            for (unsigned i = 0; i < np; i++) P[i][j] &= L[j] & ~on & ~dying;
            P[0][j] |= dying; /* state 2 */
        }
    }
    uint64_t planes[HL_MAX_PLANES];
    for (unsigned i = 0; i < np; i++) planes[i] = hl_square_centre(P[i]);
    return hl_leaf_make_planes(h, hl_square_centre(L), planes);
}

uint32_t hl_states_step(hl_ctx *h, const uint32_t leaf[4], int gens) {
    if (h->family == WL_FAMILY_GENERATIONS) return generations_step(h, leaf, gens);
    uint8_t a[256], b[256];
    for (int q = 0; q < 4; q++) unpack(h, leaf[q], a + (q >> 1) * 128 + (q & 1) * 8);
    int walls = 0; /* a wall never moves, so one look serves every generation */
    for (int i = 0; i < 256; i++) walls |= a[i] == 6;
    uint8_t *cur = a, *nxt = b;
    for (int g = 1; g <= gens; g++) {
        marks_generation(h, cur, nxt, g, walls);
        uint8_t *t = cur;
        cur = nxt;
        nxt = t;
    }
    return pack(h, cur + 4 * 16 + 4);
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
