/*
 * lop3net.c - synthesises a small network of 3-input gates (LOP3) that computes the next
 * state of an outer-totalistic rule from the bitsliced partial sums of the GPU kernels.
 *
 * What it computes.  The kernels hold five signals per cell: x0, k (XOR3 and majority of the
 * three rows' horizontal sum bits), y1, y2 (XOR3 and majority of the carry bits) and ctr (the
 * cell).  The 9-cell total is T = x0 + 2*(k + y1) + 4*y2 and the next state is
 * ctr ? survive[T - 1] : birth[T].  So the rule is a Boolean function of 5 inputs, held here
 * as a 32-bit truth table: bit r is the output for the input row
 *     r = ctr<<4 | y2<<3 | y1<<2 | k<<1 | x0,
 * and every signal of a network is likewise a 32-bit table (x0 = 0xAAAAAAAA, k = 0xCCCCCCCC,
 * y1 = 0xF0F0F0F0, y2 = 0xFF00FF00, ctr = 0xFFFF0000).  A gate with lut L of tables a, b, c
 * is bit (4a + 2b + c) of L row by row, computed below as the OR of the lut's minterms.
 * Two rows can never occur (a live centre with T = 0; a dead centre with T = 9), so the
 * target is a partial function: `on1` (rows that must be 1) and `on0` (rows that must be 0).
 *
 * The key test.  Three signals A, B, C can feed a last gate that computes the target iff no
 * minterm of (A, B, C) covers both an on1 row and an on0 row; the lut is then read off (the
 * minterms covering on1 rows).  lut_for() does this in 8 masks, so the last gate of a search
 * is never enumerated over its 256 luts.
 *
 * Exact search up to 3 gates (by gate count, smallest first; the first network found is a
 * minimum):
 *   0 gates: a constant or an input;
 *   1 gate:  lut_for() on the 10 triples of inputs;
 *   chains:  the top gate reads one sub-network G and two signals a, b.  On each quadrant Q of
 *            (a, b) the top lut is one of 0, 1, G, ~G, so either the target is constant on Q
 *            (G is free there) or G equals the target or its complement on Q.  Trying the
 *            2^(q-1) sign choices (the top lut absorbs one global complement) turns "G with
 *            d-1 gates" into a smaller partial-function search; d = 1 is lut_for().
 *            This covers every 2-gate network and every 3-gate chain g3(g2(g1,..),..).
 *   3 gates whose top reads both other gates: g1 is any function of 3 inputs (enumerated
 *            once, deduplicated on the cared rows, up to complement and up to the mirror
 *            image k <-> y1, under which the rule is invariant: 674 tables), and a depth-2
 *            chain over the inputs plus g1 (which must use g1) finds g2, g3.
 *   Every 3-gate network without an unused gate is one of these shapes, so the search is
 *   exact (cross-checked offline against a plain brute force over all 3-gate networks on
 *   450 random rules: no difference).
 *
 * Bounded 4-gate searches, tried in this order when no 3-gate network exists:
 *   m-sets:  the sum m = k + y1 + 2*y2 (0..4, T = x0 + 2m) carries everything the rule needs
 *            from k, y1, y2, so two prebuilt gates e, f among the 30 functions of (y1, k, y2)
 *            symmetric in k and y1 are followed by a depth-2 chain over the inputs plus e, f
 *            (the hand-written B3/S23 network of the cuda engine has this shape).  A few ms.
 *   chains:  a first gate g1 that is its own mirror image, then a depth-3 chain using g1;
 *            by symmetry the top pair need not hold y1 without k.  This finds most 4-gate
 *            networks but is costly when none exists, so it stops after WORK_4 pair tests.
 *
 * Structured fallback (at most 7 gates).  Split on ctr (or on x0, whichever is smaller): each
 * half is a function of 4 inputs, solved by a 0-, 1- or 2-gate search, else as
 * x0 ? L1(y1, k, y2) : L0(y1, k, y2) (3 gates; each quarter with ctr and x0 fixed depends on
 * m alone, so one lut suffices); a last gate selects between the halves.  The second half's
 * search may reuse the first half's gates.
 *
 * Results: B3/S23 needs 3 gates (the don't-care T = 9 with a dead centre helps), B36/S23 and
 * B368/S245 4.  Over 300 random rules (`test_lop3net --bench`): 2 gates 5, 3 gates 68,
 * 4 gates 204, 5 gates 15, 6 gates 8.
 *
 * Why it is fast.  Every test is a handful of 32-bit AND/OR operations on truth tables; the
 * search never enumerates the luts of the gate it is solving for (separates() and lut_for()
 * read them off); a chain's quadrant split shrinks each sub-problem to a partial function.
 * About 15 ms of CPU per rule on average (0.1 ms for 0-2 gates, ~10 ms to rule out 3 gates,
 * up to ~80 ms when the bounded searches fail), once per universe creation.
 */
#include "lop3net.h"

#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Truth tables of the five inputs over the 32 rows r = ctr<<4|y2<<3|y1<<2|k<<1|x0. */
static const uint32_t input_table[WL_LOP3_INPUTS] = {
    0xAAAAAAAAu, /* x0:  bit 0 of r */
    0xCCCCCCCCu, /* k:   bit 1 */
    0xF0F0F0F0u, /* y1:  bit 2 */
    0xFF00FF00u, /* y2:  bit 3 */
    0xFFFF0000u, /* ctr: bit 4 */
};

#define SIGNALS (WL_LOP3_INPUTS + WL_LOP3_MAX_GATES)
#define NO_SIGNAL (-100) /* "no signal must be used" in chain searches */
#define PREFIX_MAX 48    /* longest temporary prefix wl_lop3_emit accepts */
/* Work bound of the 4-gate chain search, in depth-1 pair tests: about 40-50 ms of one core of
 * the development machine (AMD EPYC) when it fails.  Measured on 150 random rules: of the 102
 * that need more than 3 gates, the m-set search finds 60 and this chain search 83 (26 that
 * the m-sets miss); a bound 3x larger found up to 11 more at 2x the worst-case time. */
#define WORK_4 10000000L

/* ---- truth tables -------------------------------------------------------------------- */

void wl_lop3_table(uint16_t birth, uint16_t survive, uint32_t *table, uint32_t *care) {
    uint32_t t = 0, c = 0;
    for (unsigned r = 0; r < 32; r++) {
        unsigned x0 = r & 1, k = (r >> 1) & 1, y1 = (r >> 2) & 1, y2 = (r >> 3) & 1;
        unsigned ctr = (r >> 4) & 1;
        unsigned total = x0 + 2 * (k + y1) + 4 * y2; /* 0..9, the centre included */
        if ((ctr && total == 0) || (!ctr && total == 9)) continue; /* unreachable */
        c |= 1u << r;
        unsigned n = total - ctr; /* live neighbours, 0..8 */
        if ((((ctr ? survive : birth) >> n) & 1u) != 0) t |= 1u << r;
    }
    *table = t;
    *care = c;
}

/* Row-by-row value of a gate with lut `lut` on tables a, b, c: the OR of its minterms. */
static uint32_t lop3_table(uint32_t a, uint32_t b, uint32_t c, unsigned lut) {
    uint32_t r = 0;
    for (unsigned m = 0; m < 8; m++)
        if ((lut >> m) & 1u)
            r |= ((m & 4) ? a : ~a) & ((m & 2) ? b : ~b) & ((m & 1) ? c : ~c);
    return r;
}

/* The lut of a gate on (a, b, c) that is 1 on every on1 row and 0 on every on0 row, or -1 if
 * none exists (some minterm of (a, b, c) holds rows of both).  Minterms holding no cared row
 * get 0. */
static int lut_for(uint32_t a, uint32_t b, uint32_t c, uint32_t on1, uint32_t on0) {
    uint32_t ab[4] = {~a & ~b, ~a & b, a & ~b, a & b};
    unsigned hit1 = 0, hit0 = 0;
    for (unsigned q = 0; q < 4; q++) {
        uint32_t lo = ab[q] & ~c, hi = ab[q] & c;
        if (lo & on1) hit1 |= 1u << (2 * q);
        if (lo & on0) hit0 |= 1u << (2 * q);
        if (hi & on1) hit1 |= 2u << (2 * q);
        if (hi & on0) hit0 |= 2u << (2 * q);
        if (hit1 & hit0) return -1;
    }
    return (int)hit1;
}

/* 1 if within each quadrant (q1[i] rows wanting 1, q0[i] rows wanting 0) the table c puts
 * no 1-row and 0-row on the same side, i.e. some gate of (quadrant, c) computes the target:
 * lut_for() >= 0, tested without building the lut. */
static int separates(const uint32_t q1[4], const uint32_t q0[4], uint32_t c) {
    for (int q = 0; q < 4; q++) {
        if ((q1[q] & c) && (q0[q] & c)) return 0;
        if ((q1[q] & ~c) && (q0[q] & ~c)) return 0;
    }
    return 1;
}

/* ---- the search state ---------------------------------------------------------------- */

/* The network being built and the truth table of every signal it has so far. */
typedef struct search {
    wl_lop3_net net;
    uint32_t tab[SIGNALS];
    long work;        /* depth-1 pair tests done so far */
    long work_limit;  /* chain() gives up (returns 0) past this; <= 0: no limit */
    int mirror_depth; /* chains of this depth skip top pairs with y1 but not k (0: none) */
} search;

static void search_init(search *s) {
    memset(s, 0, sizeof *s);
    memcpy(s->tab, input_table, sizeof input_table);
    s->net.out = WL_LOP3_ZERO;
}

/* Table of signal i (inputs, gates, constants). */
static uint32_t sig_table(const search *s, int i) {
    return i == WL_LOP3_ZERO ? 0u : i == WL_LOP3_ONES ? 0xFFFFFFFFu : s->tab[i];
}

/* Appends gate (a, b, c, lut) and returns its signal number. */
static int push_gate(search *s, int a, int b, int c, unsigned lut) {
    int i = s->net.n++;
    s->net.g[i] = (wl_lop3_gate){(int8_t)a, (int8_t)b, (int8_t)c, (uint8_t)lut};
    s->tab[WL_LOP3_INPUTS + i] =
        lop3_table(sig_table(s, a), sig_table(s, b), sig_table(s, c), lut);
    return WL_LOP3_INPUTS + i;
}

/* Removes gates until the network has n. */
static void pop_to(search *s, int n) { s->net.n = n; }

/* Sets *sig to a constant or an existing signal < nav equal to the target, if one is. */
static int find_existing(const search *s, uint32_t on1, uint32_t on0, int nav, int *sig) {
    if (on1 == 0) return *sig = WL_LOP3_ZERO, 1;
    if (on0 == 0) return *sig = WL_LOP3_ONES, 1;
    for (int i = 0; i < nav; i++)
        if ((s->tab[i] & on0) == 0 && (~s->tab[i] & on1) == 0) return *sig = i, 1;
    return 0;
}

/* Searches a chain of exactly `depth` gates over the signals 0..nav-1 computing the partial
 * target (on1, on0); the chain must read signal `must` unless it is NO_SIGNAL.  On success
 * appends the gates (top last), sets *sig to the top gate and returns 1; on failure leaves
 * the network as it was and returns 0. */
static int chain(search *s, uint32_t on1, uint32_t on0, int depth, int nav, int must,
                 int *sig) {
    if (s->work_limit > 0 && s->work > s->work_limit) return 0;
    if (depth == 1) {
        s->work += nav * (nav - 1) / 2;
        for (int a = 0; a < nav; a++)
            for (int b = a + 1; b < nav; b++) {
                int c0 = b + 1, c1 = nav; /* the range of c; only `must` if a, b are not it */
                if (must != NO_SIGNAL && a != must && b != must) {
                    if (must <= b) continue;
                    c0 = must, c1 = must + 1;
                }
                uint32_t ta = s->tab[a], tb = s->tab[b];
                uint32_t quad[4] = {~ta & ~tb, ~ta & tb, ta & ~tb, ta & tb};
                uint32_t q1[4], q0[4];
                for (int q = 0; q < 4; q++) q1[q] = quad[q] & on1, q0[q] = quad[q] & on0;
                for (int c = c0; c < c1; c++)
                    if (separates(q1, q0, s->tab[c])) {
                        int lut = lut_for(ta, tb, s->tab[c], on1, on0);
                        return *sig = push_gate(s, a, b, c, (unsigned)lut), 1;
                    }
            }
        return 0;
    }
    int n0 = s->net.n;
    for (int a = 0; a < nav; a++)
        for (int b = a + 1; b < nav; b++) {
            if (depth == s->mirror_depth && (a == WL_LOP3_Y1 || b == WL_LOP3_Y1) &&
                a != WL_LOP3_K)
                continue; /* its mirror image, with k for y1, is tried instead */
            if (s->work_limit > 0 && s->work > s->work_limit) return 0;
            uint32_t ta = s->tab[a], tb = s->tab[b];
            uint32_t quad[4] = {~ta & ~tb, ~ta & tb, ta & ~tb, ta & tb};
            uint32_t fixed1 = 0, fixed0 = 0; /* the first non-free quadrant, sign fixed */
            uint32_t var1[4], var0[4];       /* the other non-free quadrants */
            int nvar = 0, first = 1;
            for (int q = 0; q < 4; q++) {
                uint32_t q1 = on1 & quad[q], q0 = on0 & quad[q];
                if (q1 == 0 || q0 == 0) continue; /* constant there: G is free */
                if (first) {
                    fixed1 = q1, fixed0 = q0, first = 0;
                } else {
                    var1[nvar] = q1, var0[nvar] = q0, nvar++;
                }
            }
            if (first) continue; /* the target is a function of (a, b): fewer gates do it */
            int sub_must = (a == must || b == must) ? NO_SIGNAL : must;
            for (unsigned signs = 0; signs < (1u << nvar); signs++) {
                uint32_t t1 = fixed1, t0 = fixed0;
                for (int v = 0; v < nvar; v++) {
                    int flip = (signs >> v) & 1u;
                    t1 |= flip ? var0[v] : var1[v];
                    t0 |= flip ? var1[v] : var0[v];
                }
                int g;
                if (!chain(s, t1, t0, depth - 1, nav, sub_must, &g)) continue;
                int lut = lut_for(s->tab[g], ta, tb, on1, on0);
                if (lut >= 0) return *sig = push_gate(s, g, a, b, (unsigned)lut), 1;
                pop_to(s, n0); /* cannot happen: G matches its target */
            }
        }
    return 0;
}

/* ---- candidate first gates ----------------------------------------------------------- */

/* A gate on inputs, kept in a list of distinct functions on the cared rows. */
typedef struct cand {
    uint32_t key; /* the table on cared rows, complemented so that row 0 is 0 */
    int8_t a, b, c;
    uint8_t lut;
} cand;

static int cand_cmp(const void *x, const void *y) {
    uint32_t a = ((const cand *)x)->key, b = ((const cand *)y)->key;
    return a < b ? -1 : a > b;
}

static uint32_t canon(uint32_t t, uint32_t care) {
    t &= care;
    return (t & 1u) ? t ^ care : t; /* row 0 (all inputs 0) is always cared */
}

/* The table with the inputs k and y1 swapped: rows with (k, y1) = (1, 0) and (0, 1), i.e.
 * r % 8 in {2, 3} and {4, 5}, trade places.  The rule's table and care mask are unchanged by
 * it (the total counts k + y1), so the mirror image of a network computes the rule too. */
static uint32_t mirror(uint32_t t) {
    return (t & 0xC3C3C3C3u) | ((t & 0x0C0C0C0Cu) << 2) | ((t & 0x30303030u) >> 2);
}

/* Fills out[] (room for 10 * 256, or 256 when msets) with the distinct gates over input
 * triples (all of them, or only (y1, k, y2) symmetric in k and y1 when `msets`), leaving out
 * constants and literals, and keeping one of each pair of mirror images (see mirror());
 * returns the count. */
static int make_cands(uint32_t care, int msets, cand *out) {
    static const int triples[10][3] = {{0, 1, 2}, {0, 1, 3}, {0, 1, 4}, {0, 2, 3}, {0, 2, 4},
                                       {0, 3, 4}, {1, 2, 3}, {1, 2, 4}, {1, 3, 4}, {2, 3, 4}};
    static const int mset_triple[1][3] = {{WL_LOP3_Y1, WL_LOP3_K, WL_LOP3_Y2}};
    int ntriples = msets ? 1 : 10, n = 0;
    for (int t = 0; t < ntriples; t++) {
        const int *tr = msets ? mset_triple[t] : triples[t];
        for (unsigned lut = 0; lut < 256; lut++) {
            /* symmetric in (y1, k): minterms 4*y1+2*k+y2 = 2 <-> 4 and 3 <-> 5 agree */
            if (msets && (((lut >> 2) ^ (lut >> 4)) & 1u)) continue;
            if (msets && (((lut >> 3) ^ (lut >> 5)) & 1u)) continue;
            uint32_t key = canon(lop3_table(input_table[tr[0]], input_table[tr[1]],
                                            input_table[tr[2]], lut),
                                 care);
            int trivial = key == 0 || canon(mirror(key), care) < key;
            for (int i = 0; i < WL_LOP3_INPUTS; i++)
                if (key == canon(input_table[i], care)) trivial = 1;
            if (trivial) continue;
            out[n++] = (cand){key, (int8_t)tr[0], (int8_t)tr[1], (int8_t)tr[2], (uint8_t)lut};
        }
    }
    qsort(out, (size_t)n, sizeof *out, cand_cmp);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (m == 0 || out[i].key != out[m - 1].key) out[m++] = out[i];
    return m;
}

/* ---- the exact and bounded searches -------------------------------------------------- */

/* Exact search for a network of at most 3 gates over the inputs; 1 on success. */
static int search_small(search *s, uint32_t on1, uint32_t on0, const cand *d1, int nd1) {
    int sig;
    if (find_existing(s, on1, on0, WL_LOP3_INPUTS, &sig)) return s->net.out = sig, 1;
    for (int depth = 1; depth <= 3; depth++) {
        if (chain(s, on1, on0, depth, WL_LOP3_INPUTS, NO_SIGNAL, &sig))
            return s->net.out = sig, 1;
        if (depth < 3) continue;
        /* 3 gates, the top reading both others: g1 prebuilt, then a chain of 2 using it */
        for (int i = 0; i < nd1; i++) {
            int g1 = push_gate(s, d1[i].a, d1[i].b, d1[i].c, d1[i].lut);
            if (chain(s, on1, on0, 2, g1 + 1, g1, &sig)) return s->net.out = sig, 1;
            pop_to(s, 0);
        }
    }
    return 0;
}

/* Bounded 4-gate search: two m-set gates e, f, then a chain of 2 using f; 1 on success. */
static int search_four(search *s, uint32_t on1, uint32_t on0, const cand *ms, int nms) {
    for (int i = 0; i < nms; i++)
        for (int j = i + 1; j < nms; j++) {
            push_gate(s, ms[i].a, ms[i].b, ms[i].c, ms[i].lut);
            int f = push_gate(s, ms[j].a, ms[j].b, ms[j].c, ms[j].lut);
            int sig;
            if (chain(s, on1, on0, 2, f + 1, f, &sig)) return s->net.out = sig, 1;
            pop_to(s, 0);
        }
    return 0;
}

/* Bounded 4-gate search: g1 a gate on inputs that is its own mirror image (see mirror()),
 * then a chain of 3 using g1; gives up after WORK_4 depth-1 pair tests.  1 on success. */
static int search_four_chain(search *s, uint32_t on1, uint32_t on0, const cand *d1, int nd1) {
    s->work = 0;
    s->work_limit = WORK_4;
    s->mirror_depth = 3; /* g1 and the target are symmetric: so is the set of solutions */
    for (int i = 0; i < nd1 && s->work <= s->work_limit; i++) {
        if (canon(mirror(d1[i].key), on1 | on0) != d1[i].key) continue;
        int g1 = push_gate(s, d1[i].a, d1[i].b, d1[i].c, d1[i].lut);
        int sig;
        if (chain(s, on1, on0, 3, g1 + 1, g1, &sig)) return s->net.out = sig, 1;
        pop_to(s, 0);
    }
    return 0;
}

/* Builds the function on the rows of `half` (a function of the other 4 inputs) with gates
 * appended to s and returns its signal: 0 to 2 gates if found, else `inner` ? L1 : L0. */
static int build_half(search *s, uint32_t on1, uint32_t on0, uint32_t half, int inner) {
    uint32_t h1 = on1 & half, h0 = on0 & half;
    int nav = WL_LOP3_INPUTS + s->net.n, sig;
    if (find_existing(s, h1, h0, nav, &sig)) return sig;
    for (int depth = 1; depth <= 2; depth++)
        if (chain(s, h1, h0, depth, nav, NO_SIGNAL, &sig)) return sig;
    int half_sig[2];
    for (int v = 0; v < 2; v++) {
        uint32_t q = half & (v ? input_table[inner] : ~input_table[inner]);
        uint32_t q1 = on1 & q, q0 = on0 & q;
        if (find_existing(s, q1, q0, WL_LOP3_INPUTS + s->net.n, &half_sig[v])) continue;
        int lut = lut_for(input_table[WL_LOP3_Y1], input_table[WL_LOP3_K],
                          input_table[WL_LOP3_Y2], q1, q0);
        if (lut < 0) return NO_SIGNAL; /* impossible: the quarter depends on m alone */
        half_sig[v] = push_gate(s, WL_LOP3_Y1, WL_LOP3_K, WL_LOP3_Y2, (unsigned)lut);
    }
    return push_gate(s, inner, half_sig[1], half_sig[0], 0xCA); /* 0xCA: a ? b : c */
}

/* Structured network split on `outer` (halves solved with `inner` as the last split). */
static int build_split(search *s, uint32_t on1, uint32_t on0, int outer, int inner) {
    uint32_t care = on1 | on0;
    int hi = build_half(s, on1, on0, care & input_table[outer], inner);
    int lo = build_half(s, on1, on0, care & ~input_table[outer], inner);
    if (hi == NO_SIGNAL || lo == NO_SIGNAL) return 0;
    s->net.out = hi == lo ? hi : push_gate(s, outer, hi, lo, 0xCA);
    return 1;
}

wl_status wl_lop3_synth(uint16_t birth, uint16_t survive, wl_lop3_net *net) {
    if (!net) return wl_error(WL_ERR_INVALID, "wl_lop3_synth: net is NULL");
    uint32_t table, care;
    wl_lop3_table(birth, survive, &table, &care);
    uint32_t on1 = table & care, on0 = ~table & care;

    search cur;
    search_init(&cur);
    cand d1[10 * 256];
    int nd1 = make_cands(care, 0, d1);
    if (search_small(&cur, on1, on0, d1, nd1)) return *net = cur.net, WL_OK;
    cand ms[256];
    int nms = make_cands(care, 1, ms);
    search_init(&cur);
    if (search_four(&cur, on1, on0, ms, nms)) return *net = cur.net, WL_OK; /* cheap first */
    search_init(&cur);
    if (search_four_chain(&cur, on1, on0, d1, nd1)) return *net = cur.net, WL_OK;

    search best, alt;
    search_init(&best);
    search_init(&alt);
    int ok1 = build_split(&best, on1, on0, WL_LOP3_CTR, WL_LOP3_X0);
    int ok2 = build_split(&alt, on1, on0, WL_LOP3_X0, WL_LOP3_CTR);
    if (ok2 && (!ok1 || alt.net.n < best.net.n)) best = alt;
    if (!ok1 && !ok2)
        return wl_error(WL_ERR_UNSUPPORTED, "wl_lop3_synth: internal error for B%x/S%x", birth,
                        survive);
    *net = best.net;
    return WL_OK;
}

/* ---- using networks ------------------------------------------------------------------ */

static int signal_ok(int sig, int limit) {
    return sig == WL_LOP3_ZERO || sig == WL_LOP3_ONES || (sig >= 0 && sig < limit);
}

int wl_lop3_check(const wl_lop3_net *net) {
    if (!net || net->n < 0 || net->n > WL_LOP3_MAX_GATES) return 0;
    for (int i = 0; i < net->n; i++) {
        const wl_lop3_gate *g = &net->g[i];
        int limit = WL_LOP3_INPUTS + i;
        if (!signal_ok(g->a, limit) || !signal_ok(g->b, limit) || !signal_ok(g->c, limit))
            return 0;
    }
    return signal_ok(net->out, WL_LOP3_INPUTS + net->n);
}

uint64_t wl_lop3_eval(const wl_lop3_net *net, uint64_t x0, uint64_t k, uint64_t y1,
                      uint64_t y2, uint64_t ctr) {
    if (!wl_lop3_check(net)) return 0;
    uint64_t v[SIGNALS] = {x0, k, y1, y2, ctr};
#define SIG(i) ((i) == WL_LOP3_ZERO ? 0u : (i) == WL_LOP3_ONES ? ~(uint64_t)0 : v[(i)])
    for (int i = 0; i < net->n; i++) {
        const wl_lop3_gate *g = &net->g[i];
        uint64_t a = SIG(g->a), b = SIG(g->b), c = SIG(g->c), r = 0;
        for (unsigned m = 0; m < 8; m++)
            if ((g->lut >> m) & 1u)
                r |= ((m & 4) ? a : ~a) & ((m & 2) ? b : ~b) & ((m & 1) ? c : ~c);
        v[WL_LOP3_INPUTS + i] = r;
    }
    return SIG(net->out);
#undef SIG
}

/* Appends printf-formatted text at *len, writing only what fits in cap (NUL-terminated). */
static void put(char *buf, size_t cap, size_t *len, const char *fmt, ...) WL_PRINTF(4, 5);
static void put(char *buf, size_t cap, size_t *len, const char *fmt, ...) {
    char tmp[1];
    char *dst = *len < cap ? buf + *len : tmp;
    size_t room = *len < cap ? cap - *len : 0;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(dst, room, fmt, ap);
    va_end(ap);
    if (n > 0) *len += (size_t)n;
}

/* The source name of signal sig into tmp (gates: prefix + number). */
static const char *sig_name(int sig, const char *const names[], const char *prefix,
                            char *tmp, size_t cap) {
    if (sig == WL_LOP3_ZERO) return "0u";
    if (sig == WL_LOP3_ONES) return "0xffffffffu";
    if (sig < WL_LOP3_INPUTS) return names[sig];
    snprintf(tmp, cap, "%s%d", prefix, sig - WL_LOP3_INPUTS);
    return tmp;
}

int wl_lop3_emit(const wl_lop3_net *net, const char *macro,
                 const char *const names[WL_LOP3_INPUTS], const char *prefix,
                 const char *out_name, char *buf, size_t cap) {
    if (!macro || !names || !prefix || !out_name || (!buf && cap > 0) || !wl_lop3_check(net))
        return -1;
    if (strlen(prefix) > PREFIX_MAX) return -1;
    for (int i = 0; i < WL_LOP3_INPUTS; i++)
        if (!names[i]) return -1;
    size_t len = 0;
    if (cap > 0) buf[0] = '\0';
    char d[PREFIX_MAX + 8], a[PREFIX_MAX + 8], b[PREFIX_MAX + 8], c[PREFIX_MAX + 8];
    for (int i = 0; i < net->n; i++) {
        const wl_lop3_gate *g = &net->g[i];
        put(buf, cap, &len, "%s(%s, %s, %s, %s, 0x%02X);\n", macro,
            sig_name(WL_LOP3_INPUTS + i, names, prefix, d, sizeof d),
            sig_name(g->a, names, prefix, a, sizeof a),
            sig_name(g->b, names, prefix, b, sizeof b),
            sig_name(g->c, names, prefix, c, sizeof c), g->lut);
    }
    put(buf, cap, &len, "%s = %s;\n", out_name, sig_name(net->out, names, prefix, d, sizeof d));
    return len > (size_t)0x7FFFFFFF ? -1 : (int)len;
}
