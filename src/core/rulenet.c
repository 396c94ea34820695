/*
 * rulenet.c - finds a network of 3-input gates (LOP3 / vpternlog) for any 512-entry rule
 * table (rulenet.h says what the inputs are).
 *
 * Tables.  Every signal is a 512-bit truth table over the neighbourhood index r (8 words of
 * 64 bits): cell signal i is bit i of r; the derived signals are the row sums and vertical
 * adders of those.  The target is a partial function: `on1` (rows that must be 1) and
 * `on0` (rows that must be 0); sub-problems care about fewer rows.
 *
 * The key test (as in lop3net.c): a gate reading signals A, B, C can compute the target iff
 * no minterm of (A, B, C) holds both an on1 row and an on0 row; the lut is then read off.
 *
 * The search: top-down decomposition with memoisation.  For a target:
 *   1. a constant, or an existing signal or its complement (the reading gate absorbs the
 *      complement into its lut), costs nothing;
 *   2. its functional support: a greedy basis of signals on which it depends (at each step
 *      the signal that leaves the fewest classes of rows holding both values).  A basis of
 *      at most 3 is one gate;
 *   3. else any three signals already built (gates included: this is where sub-networks
 *      are shared) that compute it in one gate;
 *   4. else a Shannon split on the signal s whose two halves (s = 1 rows, s = 0 rows; each
 *      half's other rows become don't-cares) have the smallest greedy bases (largest
 *      first, then their sum), each half solved recursively and joined by one gate
 *      (s ? hi : lo, or anything the key test finds on (s, hi, lo)).  At effort >= 1 the
 *      splits of the top two levels try the four best-scored signals and keep the one
 *      whose subtree has the fewest gates (12% fewer gates on random rules, 20x the time).
 * Splitting on a derived signal lets an outer-totalistic part of a rule cost what it costs
 * in lop3net.c (a handful of gates on the 9-cell total), while the don't-cares of the
 * halves leave the non-totalistic exceptions (Hensel letters) as small functions of the
 * cells.  Two input sets are tried: cells only, and cells plus derived signals; variants
 * differ in the split score and the order of ties.  The cheapest network by wl_rnet_cost
 * (gates plus the derived signals it makes a kernel compute) wins; unused gates are removed
 * and every result is checked on all 512 rows.
 *
 * Caches: the 8 most recent networks per process, and every network in the disk cache of
 * run-time kernels (rtc_cache.c), so that later processes skip the search.
 *
 * Measured (dev VM, 8 random rules of each kind, mean cost): random Hensel rules 63 at
 * effort 0 (25-36 ms), 56 at effort 1 (0.5-0.8 s); random MAP tables 96 and 88.  Tried and
 * dropped: extra inputs for each row's two outer cells (XOR, AND), a two-gate step
 * top(p, q, G), a step target = v ^ h: none lowered the mean cost.
 */
#include "rulenet.h"

#include "internal.h"
#include "rtc_cache.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 8 /* 64-bit words of a truth table */
#define NSIG (WL_RNET_INPUTS + WL_RNET_MAX_GATES)
#define MEMO_MAX 4096
#define TRIPLE_MAX_SIGNALS 64 /* step 3 only while the network is this small */

typedef struct tt {
    uint64_t w[W];
} tt;

static int tt_none(const tt *a) {
    uint64_t o = 0;
    for (int i = 0; i < W; i++) o |= a->w[i];
    return o == 0;
}
static int tt_meets(const tt *a, const tt *b) { /* a & b != 0 */
    for (int i = 0; i < W; i++)
        if (a->w[i] & b->w[i]) return 1;
    return 0;
}
static void tt_and(tt *d, const tt *a, const tt *b) {
    for (int i = 0; i < W; i++) d->w[i] = a->w[i] & b->w[i];
}
static void tt_andn(tt *d, const tt *a, const tt *b) { /* a & ~b */
    for (int i = 0; i < W; i++) d->w[i] = a->w[i] & ~b->w[i];
}
static int tt_eq(const tt *a, const tt *b) { return memcmp(a, b, sizeof *a) == 0; }

/* Row-by-row value of a gate: the OR of the lut's minterms. */
static void lop3_tt(tt *d, const tt *a, const tt *b, const tt *c, unsigned lut) {
    for (int i = 0; i < W; i++) {
        uint64_t x = a->w[i], y = b->w[i], z = c->w[i], r = 0;
        for (unsigned m = 0; m < 8; m++)
            if ((lut >> m) & 1u) r |= ((m & 4) ? x : ~x) & ((m & 2) ? y : ~y) & ((m & 1) ? z : ~z);
        d->w[i] = r;
    }
}

/* The lut of a gate on (a, b, c) giving 1 on on1 and 0 on on0, or -1 if none does. */
static int lut_for(const tt *a, const tt *b, const tt *c, const tt *on1, const tt *on0) {
    unsigned hit1 = 0, hit0 = 0;
    for (int i = 0; i < W; i++) {
        uint64_t x = a->w[i], y = b->w[i], z = c->w[i];
        uint64_t p = on1->w[i], q = on0->w[i];
        if (!(p | q)) continue;
        for (unsigned m = 0; m < 8; m++) {
            uint64_t mt = ((m & 4) ? x : ~x) & ((m & 2) ? y : ~y) & ((m & 1) ? z : ~z);
            if (mt & p) hit1 |= 1u << m;
            if (mt & q) hit0 |= 1u << m;
        }
        if (hit1 & hit0) return -1;
    }
    return (int)hit1;
}

/* The cell signals' tables (computed once; the function is idempotent and cheap). */
static void input_tables(tt tab[WL_RNET_INPUTS]) {
    memset(tab, 0, sizeof(tt) * WL_RNET_INPUTS);
    for (unsigned r = 0; r < 512; r++)
        for (int i = 0; i < WL_RNET_CELLS; i++)
            if ((r >> i) & 1u) tab[i].w[r >> 6] |= (uint64_t)1 << (r & 63);
    static const struct {
        int d, a, b, c;
        unsigned lut;
    } der[] = {
        {WL_RNET_ST, WL_RNET_NW, WL_RNET_N, WL_RNET_NE, 0x96},
        {WL_RNET_CT, WL_RNET_NW, WL_RNET_N, WL_RNET_NE, 0xE8},
        {WL_RNET_SM, WL_RNET_W, WL_RNET_C, WL_RNET_E, 0x96},
        {WL_RNET_CM, WL_RNET_W, WL_RNET_C, WL_RNET_E, 0xE8},
        {WL_RNET_SB, WL_RNET_SW, WL_RNET_S, WL_RNET_SE, 0x96},
        {WL_RNET_CB, WL_RNET_SW, WL_RNET_S, WL_RNET_SE, 0xE8},
        {WL_RNET_X0, WL_RNET_ST, WL_RNET_SM, WL_RNET_SB, 0x96},
        {WL_RNET_K, WL_RNET_ST, WL_RNET_SM, WL_RNET_SB, 0xE8},
        {WL_RNET_Y1, WL_RNET_CT, WL_RNET_CM, WL_RNET_CB, 0x96},
        {WL_RNET_Y2, WL_RNET_CT, WL_RNET_CM, WL_RNET_CB, 0xE8},
    };
    for (size_t i = 0; i < sizeof der / sizeof der[0]; i++)
        lop3_tt(&tab[der[i].d], &tab[der[i].a], &tab[der[i].b], &tab[der[i].c], der[i].lut);
}

/* ---- the search state ---------------------------------------------------------------- */

typedef struct ref { /* a solution: signal (or constant) and whether it is complemented */
    int sig, neg;
} ref;

typedef struct memo_e {
    tt on1, on0;
    uint64_t hash;
    ref r;
} memo_e;

typedef struct search {
    wl_rnet net;
    tt tab[NSIG];
    int base[WL_RNET_INPUTS]; /* the input signals this search may read */
    int nbase;
    int variant;  /* split score and tie order */
    int depth, look_depth; /* splits above this depth try several inputs */
    int overflow; /* the network ran out of gates */
    memo_e *memo;
    int nmemo;
} search;

static const tt *sig_tt(const search *s, int sig, tt *tmp) {
    if (sig >= 0) return &s->tab[sig];
    memset(tmp, sig == WL_RNET_ONES ? 0xFF : 0, sizeof *tmp);
    return tmp;
}

/* Appends a gate, or returns an existing signal with the same table. */
static int push_gate(search *s, int a, int b, int c, unsigned lut) {
    tt ta, tb, tc, t;
    lop3_tt(&t, sig_tt(s, a, &ta), sig_tt(s, b, &tb), sig_tt(s, c, &tc), lut);
    for (int i = 0; i < s->nbase; i++)
        if (tt_eq(&s->tab[s->base[i]], &t)) return s->base[i];
    for (int i = 0; i < s->net.n; i++)
        if (tt_eq(&s->tab[WL_RNET_INPUTS + i], &t)) return WL_RNET_INPUTS + i;
    if (s->net.n == WL_RNET_MAX_GATES) {
        s->overflow = 1;
        return WL_RNET_ZERO;
    }
    int i = s->net.n++;
    s->net.g[i] = (wl_rnet_gate){(int16_t)a, (int16_t)b, (int16_t)c, (uint8_t)lut};
    s->tab[WL_RNET_INPUTS + i] = t;
    return WL_RNET_INPUTS + i;
}

/* The signals the search may read, in order: its inputs, then its gates. */
static int nsignals(const search *s) { return s->nbase + s->net.n; }
static int signal_at(const search *s, int i) {
    return i < s->nbase ? s->base[i] : WL_RNET_INPUTS + (i - s->nbase);
}

/* Size of a greedy basis of inputs on which (on1, on0) depends (0: constant), written to
 * basis[] (room for WL_RNET_INPUTS) if not NULL. */
static int greedy_basis(const search *s, const tt *on1, const tt *on0, int *basis) {
    if (tt_none(on1) || tt_none(on0)) return 0;
    /* the classes of rows still holding both values (at most 2^9 after the nine cells) */
    enum { CMAX = 512 };
    tt cls[2][CMAX]; /* (64 KB on the stack: as thread-local storage every program start and
                        every thread paid for zeroing it, rules or not) */
    int nc = 1, cur = 0, k = 0;
    for (int i = 0; i < W; i++) cls[0][0].w[i] = on1->w[i] | on0->w[i];
    int used[WL_RNET_INPUTS] = {0};
    while (nc > 0) {
        int best = -1, best_n = 1 << 30;
        for (int bi = 0; bi < s->nbase; bi++) {
            int j = (bi + s->variant / 2) % s->nbase, sg = s->base[j];
            if (used[sg]) continue;
            const tt *v = &s->tab[sg];
            int n = 0;
            for (int c = 0; c < nc && n < best_n; c++) {
                tt h;
                tt_and(&h, &cls[cur][c], v);
                n += tt_meets(&h, on1) && tt_meets(&h, on0);
                tt_andn(&h, &cls[cur][c], v);
                n += tt_meets(&h, on1) && tt_meets(&h, on0);
            }
            if (n < best_n) best_n = n, best = sg;
        }
        if (best < 0) break; /* cannot happen: the nine cells separate every row */
        used[best] = 1;
        if (basis) basis[k] = best;
        k++;
        int nn = 0;
        for (int c = 0; c < nc; c++)
            for (int half = 0; half < 2; half++) {
                tt h;
                if (half) tt_andn(&h, &cls[cur][c], &s->tab[best]);
                else tt_and(&h, &cls[cur][c], &s->tab[best]);
                if (tt_meets(&h, on1) && tt_meets(&h, on0) && nn < CMAX) cls[!cur][nn++] = h;
            }
        cur = !cur;
        nc = nn;
    }
    return k;
}

static uint64_t hash2(const tt *a, const tt *b) {
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < W; i++) h = (h ^ a->w[i]) * 0xBF58476D1CE4E5B9ull ^ (b->w[i] + (uint64_t)i);
    return h;
}

static ref solve(search *s, const tt *on1, const tt *on0);
static ref split(search *s, const tt *on1, const tt *on0, int v);

/* One gate on (a, b, c) for the target, or -1 (signals may be constants). */
static int try_gate(search *s, int a, int b, int c, const tt *on1, const tt *on0) {
    tt ta, tb, tc;
    int lut = lut_for(sig_tt(s, a, &ta), sig_tt(s, b, &tb), sig_tt(s, c, &tc), on1, on0);
    return lut < 0 ? -1 : push_gate(s, a, b, c, (unsigned)lut);
}

/* The target as v ? (its v = 1 half) : (its v = 0 half), each half solved. */
static ref split(search *s, const tt *on1, const tt *on0, int v) {
    const tt *tv = &s->tab[v];
    tt h1, h0, l1, l0;
    tt_and(&h1, on1, tv), tt_and(&h0, on0, tv);
    tt_andn(&l1, on1, tv), tt_andn(&l0, on0, tv);
    ref hi = solve(s, &h1, &h0);
    if (s->overflow) return hi;
    ref lo = solve(s, &l1, &l0);
    if (s->overflow) return lo;
    if (hi.sig == lo.sig && hi.neg == lo.neg) return hi; /* both halves agree everywhere */
    int g = try_gate(s, v, hi.sig, lo.sig, on1, on0);
    return (ref){g == -1 ? WL_RNET_ZERO : g, 0}; /* -1 cannot happen: a mux always works */
}

static ref solve_new(search *s, const tt *on1, const tt *on0) {
    if (tt_none(on1)) return (ref){WL_RNET_ZERO, 0};
    if (tt_none(on0)) return (ref){WL_RNET_ZERO, 1};
    int ns = nsignals(s);
    for (int i = 0; i < ns; i++) { /* 1: an existing signal */
        const tt *t = &s->tab[signal_at(s, i)];
        int pos = !tt_meets(t, on0), neg = !tt_meets(t, on1);
        tt nt;
        for (int j = 0; j < W; j++) nt.w[j] = ~t->w[j];
        if (pos && !tt_meets(&nt, on1)) return (ref){signal_at(s, i), 0};
        if (neg && !tt_meets(&nt, on0)) return (ref){signal_at(s, i), 1};
    }
    int basis[WL_RNET_INPUTS];
    int k = greedy_basis(s, on1, on0, basis);
    if (k <= 3) { /* 2: one gate on the basis */
        int a = basis[0], b = k > 1 ? basis[1] : WL_RNET_ZERO, c = k > 2 ? basis[2] : WL_RNET_ZERO;
        int g = try_gate(s, a, b, c, on1, on0);
        if (g != -1) return (ref){g, 0};
    }
    if (ns <= TRIPLE_MAX_SIGNALS) /* 3: one gate on three existing signals */
        for (int l = 2; l < ns; l++)
            for (int j = 1; j < l; j++)
                for (int i = 0; i < j; i++) {
                    int g = try_gate(s, signal_at(s, i), signal_at(s, j), signal_at(s, l), on1, on0);
                    if (g != -1) return (ref){g, 0};
                }
    /* 4: Shannon split on the input with the simplest halves (near the top of the tree,
     * the best few by that score are each solved and the cheapest is kept) */
    enum { LOOK = 4 };
    int cand[LOOK], ncand = 0;
    long cand_score[LOOK];
    for (int bi = 0; bi < s->nbase; bi++) {
        int j = (bi + s->variant / 2) % s->nbase, v = s->base[j];
        const tt *tv = &s->tab[v];
        tt h1, h0, l1, l0;
        tt_and(&h1, on1, tv), tt_and(&h0, on0, tv);
        tt_andn(&l1, on1, tv), tt_andn(&l0, on0, tv);
        if ((tt_none(&h1) && tt_none(&h0)) || (tt_none(&l1) && tt_none(&l0))) continue;
        long eh = greedy_basis(s, &h1, &h0, NULL), el = greedy_basis(s, &l1, &l0, NULL);
        long mx = eh > el ? eh : el, sum = eh + el;
        long score = (s->variant & 1) ? sum * 64 + mx : mx * 64 + sum;
        int at = ncand < LOOK ? ncand++ : LOOK; /* insertion into the sorted short list */
        while (at > 0 && cand_score[at - 1] > score) {
            if (at < LOOK) cand[at] = cand[at - 1], cand_score[at] = cand_score[at - 1];
            at--;
        }
        if (at < LOOK) cand[at] = v, cand_score[at] = score;
    }
    if (ncand == 0) return (ref){WL_RNET_ZERO, 0}; /* unreachable: a cell splits any target */
    int tries = s->depth < s->look_depth ? ncand : 1, best = cand[0];
    if (tries > 1) {
        int best_n = 1 << 30, n0 = s->net.n, m0 = s->nmemo;
        for (int t = 0; t < tries; t++) {
            s->depth++;
            ref r = split(s, on1, on0, cand[t]);
            s->depth--;
            if (!s->overflow && s->net.n < best_n) best_n = s->net.n, best = cand[t];
            (void)r;
            s->net.n = n0, s->nmemo = m0, s->overflow = 0;
        }
    }
    s->depth++;
    ref r = split(s, on1, on0, best);
    s->depth--;
    return r;
}

static ref solve(search *s, const tt *on1, const tt *on0) {
    uint64_t h = hash2(on1, on0);
    for (int i = 0; i < s->nmemo; i++)
        if (s->memo[i].hash == h && tt_eq(&s->memo[i].on1, on1) && tt_eq(&s->memo[i].on0, on0))
            return s->memo[i].r;
    ref r = solve_new(s, on1, on0);
    if (s->nmemo < MEMO_MAX && !s->overflow) {
        memo_e *e = &s->memo[s->nmemo++];
        e->on1 = *on1, e->on0 = *on0, e->hash = h, e->r = r;
    }
    return r;
}

/* ---- network utilities ------------------------------------------------------------------ */

static int well_formed(const wl_rnet *net) {
    if (!net || net->n < 0 || net->n > WL_RNET_MAX_GATES) return 0;
    for (int i = 0; i < net->n; i++) {
        int in[3] = {net->g[i].a, net->g[i].b, net->g[i].c};
        for (int j = 0; j < 3; j++)
            if (in[j] != WL_RNET_ZERO && in[j] != WL_RNET_ONES &&
                (in[j] < 0 || in[j] >= WL_RNET_INPUTS + i))
                return 0;
    }
    return net->out == WL_RNET_ZERO || net->out == WL_RNET_ONES ||
           (net->out >= 0 && net->out < WL_RNET_INPUTS + net->n);
}

/* Removes gates the output does not read, keeping the order. */
static void prune(wl_rnet *net) {
    unsigned char live[NSIG] = {0};
    int map[NSIG];
    if (net->out >= 0) live[net->out] = 1;
    for (int i = net->n - 1; i >= 0; i--) {
        if (!live[WL_RNET_INPUTS + i]) continue;
        int in[3] = {net->g[i].a, net->g[i].b, net->g[i].c};
        for (int j = 0; j < 3; j++)
            if (in[j] >= 0) live[in[j]] = 1;
    }
    for (int i = 0; i < WL_RNET_INPUTS; i++) map[i] = i;
    int n = 0;
    for (int i = 0; i < net->n; i++) {
        if (!live[WL_RNET_INPUTS + i]) continue;
        wl_rnet_gate g = net->g[i];
        if (g.a >= 0) g.a = (int16_t)map[g.a];
        if (g.b >= 0) g.b = (int16_t)map[g.b];
        if (g.c >= 0) g.c = (int16_t)map[g.c];
        map[WL_RNET_INPUTS + i] = WL_RNET_INPUTS + n;
        net->g[n++] = g;
    }
    if (net->out >= 0) net->out = map[net->out];
    net->n = n;
}

unsigned wl_rnet_derived(const wl_rnet *net) {
    if (!well_formed(net)) return 0;
    unsigned d = 0;
    for (int i = 0; i < net->n; i++) {
        int in[3] = {net->g[i].a, net->g[i].b, net->g[i].c};
        for (int j = 0; j < 3; j++)
            if (in[j] >= WL_RNET_ST && in[j] < WL_RNET_INPUTS) d |= 1u << (in[j] - WL_RNET_ST);
    }
    if (net->out >= WL_RNET_ST && net->out < WL_RNET_INPUTS) d |= 1u << (net->out - WL_RNET_ST);
    const unsigned s_all = 1u << 0 | 1u << 2 | 1u << 4, c_all = 1u << 1 | 1u << 3 | 1u << 5;
    if (d & (1u << (WL_RNET_X0 - WL_RNET_ST) | 1u << (WL_RNET_K - WL_RNET_ST))) d |= s_all;
    if (d & (1u << (WL_RNET_Y1 - WL_RNET_ST) | 1u << (WL_RNET_Y2 - WL_RNET_ST))) d |= c_all;
    return d;
}

int wl_rnet_cost(const wl_rnet *net) {
    if (!well_formed(net)) return -1;
    unsigned d = wl_rnet_derived(net);
    /* a row's S and C are computed once per row and read by three output rows: one gate
     * each per output word; X0, K, Y1, Y2 one gate each */
    int cost = net->n + ((d & 0x15u) != 0) + ((d & 0x2Au) != 0);
    for (int j = 6; j < 10; j++) cost += (int)((d >> j) & 1u);
    return cost;
}

uint64_t wl_rnet_eval(const wl_rnet *net, const uint64_t cells[WL_RNET_CELLS]) {
    if (!well_formed(net)) return 0;
    uint64_t v[NSIG];
    for (int i = 0; i < WL_RNET_CELLS; i++) v[i] = cells[i];
#define MAJ(a, b, c) (((a) & (b)) | ((a) & (c)) | ((b) & (c)))
    v[WL_RNET_ST] = v[WL_RNET_NW] ^ v[WL_RNET_N] ^ v[WL_RNET_NE];
    v[WL_RNET_CT] = MAJ(v[WL_RNET_NW], v[WL_RNET_N], v[WL_RNET_NE]);
    v[WL_RNET_SM] = v[WL_RNET_W] ^ v[WL_RNET_C] ^ v[WL_RNET_E];
    v[WL_RNET_CM] = MAJ(v[WL_RNET_W], v[WL_RNET_C], v[WL_RNET_E]);
    v[WL_RNET_SB] = v[WL_RNET_SW] ^ v[WL_RNET_S] ^ v[WL_RNET_SE];
    v[WL_RNET_CB] = MAJ(v[WL_RNET_SW], v[WL_RNET_S], v[WL_RNET_SE]);
    v[WL_RNET_X0] = v[WL_RNET_ST] ^ v[WL_RNET_SM] ^ v[WL_RNET_SB];
    v[WL_RNET_K] = MAJ(v[WL_RNET_ST], v[WL_RNET_SM], v[WL_RNET_SB]);
    v[WL_RNET_Y1] = v[WL_RNET_CT] ^ v[WL_RNET_CM] ^ v[WL_RNET_CB];
    v[WL_RNET_Y2] = MAJ(v[WL_RNET_CT], v[WL_RNET_CM], v[WL_RNET_CB]);
#undef MAJ
    for (int i = 0; i < net->n; i++) {
        int in[3] = {net->g[i].a, net->g[i].b, net->g[i].c};
        uint64_t x[3], r = 0;
        for (int j = 0; j < 3; j++)
            x[j] = in[j] == WL_RNET_ZERO ? 0 : in[j] == WL_RNET_ONES ? ~(uint64_t)0 : v[in[j]];
        for (unsigned m = 0; m < 8; m++)
            if ((net->g[i].lut >> m) & 1u)
                r |= ((m & 4) ? x[0] : ~x[0]) & ((m & 2) ? x[1] : ~x[1]) & ((m & 1) ? x[2] : ~x[2]);
        v[WL_RNET_INPUTS + i] = r;
    }
    return net->out == WL_RNET_ZERO ? 0 : net->out == WL_RNET_ONES ? ~(uint64_t)0 : v[net->out];
}

int wl_rnet_check(const wl_rnet *net, const wl_rule *rule) {
    if (!rule || !well_formed(net)) return 0;
    /* 64 neighbourhoods at a time: cells[i] bit b = bit i of index 64 q + b */
    for (unsigned q = 0; q < 8; q++) {
        uint64_t cells[WL_RNET_CELLS];
        for (int i = 0; i < WL_RNET_CELLS; i++) {
            uint64_t w = 0;
            for (unsigned b = 0; b < 64; b++) w |= (uint64_t)(((64 * q + b) >> i) & 1u) << b;
            cells[i] = w;
        }
        if (wl_rnet_eval(net, cells) != rule->table[q]) return 0;
    }
    return 1;
}

/* One search: inputs = cells (derived 0) or cells and derived signals. */
static int run_search(search *s, const tt *on1, const tt *on0, int derived, int variant,
                      int look, wl_rnet *res) {
    memset(&s->net, 0, sizeof s->net);
    input_tables(s->tab);
    s->nbase = 0;
    /* derived signals first: ties go to them (they carry counts) */
    if (derived)
        for (int i = WL_RNET_ST; i < WL_RNET_INPUTS; i++) s->base[s->nbase++] = i;
    for (int i = 0; i < WL_RNET_CELLS; i++) s->base[s->nbase++] = i;
    s->variant = variant;
    s->depth = 0;
    s->look_depth = look;
    s->overflow = 0;
    s->nmemo = 0;
    ref r = solve(s, on1, on0);
    if (s->overflow) return 0;
    int out = r.sig;
    if (r.neg) {
        if (out == WL_RNET_ZERO) out = WL_RNET_ONES;
        else out = push_gate(s, out, out, out, 0x0F); /* NOT */
        if (s->overflow) return 0;
    }
    s->net.out = out;
    *res = s->net;
    prune(res);
    return 1;
}

/* The networks found most recently, so that universes of the same rule search once. */
#define SYNTH_CACHE 8
static struct {
    wl_rule rule;
    int effort;
    wl_rnet net;
} synth_cache[SYNTH_CACHE];
static int synth_cache_n, synth_cache_next;
static pthread_mutex_t synth_lock = PTHREAD_MUTEX_INITIALIZER;

static wl_status synth_uncached(const wl_rule *rule, int effort, wl_rnet *net);

static wl_status synth(const wl_rule *rule, int effort, int may_search, wl_rnet *net);

wl_status wl_rnet_synth(const wl_rule *rule, int effort, wl_rnet *net) {
    return synth(rule, effort, 1, net);
}

wl_status wl_rnet_synth_cached(const wl_rule *rule, int effort, wl_rnet *net) {
    return synth(rule, effort, 0, net);
}

/* wl_rnet_synth; without may_search, WL_ERR_NOT_FOUND where neither cache has the network. */
static wl_status synth(const wl_rule *rule, int effort, int may_search, wl_rnet *net) {
    if (!rule || !net) return wl_error(WL_ERR_INVALID, "wl_rnet_synth: NULL argument");
    pthread_mutex_lock(&synth_lock);
    for (int i = 0; i < synth_cache_n; i++)
        if (synth_cache[i].effort == effort &&
            memcmp(&synth_cache[i].rule, rule, sizeof *rule) == 0) {
            *net = synth_cache[i].net;
            pthread_mutex_unlock(&synth_lock);
            return WL_OK;
        }
    pthread_mutex_unlock(&synth_lock);
    /* the disk cache (rtc_cache.c) beside the compiled kernels: a search costs 0.3-0.8 s at
     * effort 1, every process that runs the rule; an entry is used only if it is well
     * formed and checks on all 512 neighbourhoods */
    wl_rtc_key key;
    wl_rtc_key_init(&key);
    wl_rtc_key_add_str(&key, "warplife rulenet 1: wl_rnet structure");
    wl_rtc_key_add(&key, rule->table, sizeof rule->table);
    wl_rtc_key_add(&key, &effort, sizeof effort);
    size_t size_net = sizeof *net;
    wl_rtc_key_add(&key, &size_net, sizeof size_net);
    char dir[4096], path[4096 + 64];
    int disk = wl_rtc_cache_dir(dir, sizeof dir, NULL, 0) &&
               wl_rtc_cache_path_kind(dir, &key, "net", "bin", path, sizeof path);
    int found = 0;
    if (disk) {
        size_t n = 0;
        void *data = wl_rtc_cache_read(path, &key, &n);
        if (data && n == sizeof *net) {
            memcpy(net, data, sizeof *net);
            found = wl_rnet_check(net, rule);
        }
        free(data);
    }
    if (!found) {
        if (!may_search)
            return wl_error(WL_ERR_NOT_FOUND, "rule network: not in the caches (not searched)");
        wl_status st = synth_uncached(rule, effort, net);
        if (st) return st;
        if (disk) wl_rtc_cache_write(path, &key, net, sizeof *net);
    }
    pthread_mutex_lock(&synth_lock);
    synth_cache[synth_cache_next].rule = *rule;
    synth_cache[synth_cache_next].effort = effort;
    synth_cache[synth_cache_next].net = *net;
    synth_cache_next = (synth_cache_next + 1) % SYNTH_CACHE;
    if (synth_cache_n < SYNTH_CACHE) synth_cache_n++;
    pthread_mutex_unlock(&synth_lock);
    return WL_OK;
}

static wl_status synth_uncached(const wl_rule *rule, int effort, wl_rnet *net) {
    search *s = malloc(sizeof *s);
    memo_e *memo = malloc(sizeof *memo * MEMO_MAX);
    if (!s || !memo) {
        free(s);
        free(memo);
        return wl_error(WL_ERR_NOMEM, "wl_rnet_synth: out of memory");
    }
    s->memo = memo;
    tt on1, on0;
    for (int i = 0; i < W; i++) on1.w[i] = rule->table[i], on0.w[i] = ~rule->table[i];
    int variants = 2 + 2 * (effort > 1 ? effort - 1 : 0), look = effort > 0 ? 2 : 0;
    int best_cost = -1;
    wl_rnet cand;
    for (int derived = 1; derived >= 0; derived--)
        for (int v = 0; v < variants; v++) {
            if (!run_search(s, &on1, &on0, derived, v, look, &cand)) continue;
            int c = wl_rnet_cost(&cand);
            if (c >= 0 && (best_cost < 0 || c < best_cost) && wl_rnet_check(&cand, rule)) {
                best_cost = c;
                *net = cand;
            }
        }
    free(memo);
    free(s);
    if (best_cost < 0)
        return wl_error(WL_ERR_UNAVAILABLE, "rule network: no network of at most %d gates found",
                        WL_RNET_MAX_GATES);
    return WL_OK;
}

int wl_rnet_emit(const wl_rnet *net, const char *macro,
                 const char *const names[WL_RNET_INPUTS + 2], const char *prefix,
                 const char *out_name, char *buf, size_t cap) {
    if (!macro || !names || !prefix || !out_name || (!buf && cap) || !well_formed(net))
        return -1;
    for (int i = 0; i < WL_RNET_INPUTS + 2; i++)
        if (!names[i]) return -1;
    const char *zero = names[WL_RNET_INPUTS], *ones = names[WL_RNET_INPUTS + 1];
    size_t len = 0;
#define PUT(...)                                                                           \
    do {                                                                                   \
        int n_ = snprintf(len < cap ? buf + len : NULL, len < cap ? cap - len : 0, __VA_ARGS__); \
        if (n_ < 0) return -1;                                                             \
        len += (size_t)n_;                                                                 \
    } while (0)
    for (int i = 0; i < net->n; i++) {
        int in[3] = {net->g[i].a, net->g[i].b, net->g[i].c};
        char nm[3][64];
        for (int j = 0; j < 3; j++) {
            if (in[j] == WL_RNET_ZERO) snprintf(nm[j], sizeof nm[j], "%.60s", zero);
            else if (in[j] == WL_RNET_ONES) snprintf(nm[j], sizeof nm[j], "%.60s", ones);
            else if (in[j] < WL_RNET_INPUTS) snprintf(nm[j], sizeof nm[j], "%.60s", names[in[j]]);
            else snprintf(nm[j], sizeof nm[j], "%.48s%d", prefix, in[j] - WL_RNET_INPUTS);
        }
        PUT("%s(%s%d, %s, %s, %s, 0x%02X);\n", macro, prefix, i, nm[0], nm[1], nm[2],
            net->g[i].lut);
    }
    if (net->out == WL_RNET_ZERO) PUT("%s = %s;\n", out_name, zero);
    else if (net->out == WL_RNET_ONES) PUT("%s = %s;\n", out_name, ones);
    else if (net->out < WL_RNET_INPUTS) PUT("%s = %s;\n", out_name, names[net->out]);
    else PUT("%s = %s%d;\n", out_name, prefix, net->out - WL_RNET_INPUTS);
#undef PUT
    return (int)len;
}
