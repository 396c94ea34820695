/*
 * cuda_res.cuh - the `res` kernel body: a small grid kept on the chip for many generations
 * (one launch of up to RS_MAX_GENS generations), for the grids where every launch-per-K-
 * generations kernel leaves the GPU idle.  Compiled by nvcc (cuda_res.cu: B3/S23 and the
 * run-time masks) and by NVRTC (cuda_rtc.cu, family WLCU_RTC_RES: every other outer-
 * totalistic rule, its network as WV_RULE), so it includes nothing but cuda_win.cuh and
 * cuda_wave.cuh (the row logic: WV_LOP3, wv_next).
 *
 * Why.  A 4096^2 grid is 2 MiB of bits; per generation the whole GPU needs about 0.4 us for
 * it at the large-grid rate.  wave spends 33 us per launch of 16 generations there: each warp
 * streams about 19 rows and fills and drains a 3K-row pipeline around them, so most of its
 * work is halo and pipeline (docs/BENCHMARKS.md, "Small grids: generations per launch").
 *
 * Layout and work split.  The grid is cut into nb horizontal bands, one per block (nb at most
 * the blocks the GPU holds at once: the launch is cooperative, so all of them run together).
 * A band is the full width: lane l of every warp holds words l*M .. l*M+M-1 of its rows (M =
 * 1, 2, 4 or 8: widths up to 8192 cells), so a row's west and east neighbours inside a lane
 * are registers and across lanes one shuffle each way (a torus whose width is 1024*M cells
 * wraps through the shuffle; a bounded grid reads dead cells past its sides).  The block's
 * RS_WB warps are stacked: warp w holds tile rows w*NR .. w*NR+NR-1 in registers, and the
 * warps swap the horizontal sums of their top and bottom rows through shared memory before
 * every generation (so no row is summed twice), one __syncthreads a generation.  The tile is
 * the band plus kk rows above and below (kk = generations per round): after kk generations
 * from exact rows the band's rows are still exact.
 *
 * Rounds.  After each round of kk generations every block writes the kk top and kk bottom
 * rows of its band to an exchange buffer in global memory, each 32-bit word beside a 32-bit
 * tag (the round's number, counted across launches), in one 64-bit store; the neighbouring
 * blocks poll those words until every tag is the round's, then copy them into their halo
 * rows.  No grid-wide barrier and no fence: a 64-bit store is seen whole, and a block waits
 * only for the two bands next to it.  The buffer has two halves by round parity; a block
 * writes a half again two rounds later, after its neighbours have read it (they read it
 * before they publish the round that the block itself waited for).
 *
 * Generations (P > 0, cuda_multi.cu's rules through wlcu_res_gen_prepare): each lane also
 * holds its words of the P planes of the decay E; the rule acts on the firing plane F, then
 * WL_GEN_DECAY (cuda_win.cuh) on the word, and the exchange carries each edge row's F and E
 * planes (rules of two or more planes of E poll RS_POLL_WIDE planes at once).  Rules of
 * few states keep E one-hot in the lanes instead (RS_GEN_ONEHOT: a plane per decaying state,
 * so that a generation's decay is a shift of planes, not a binary count), converted from and
 * to memory's binary planes at the launch's start and end; with two such planes, a cell's F
 * and E (four states) travel between blocks as two planes (RS_X2), not three.  Binary E of
 * P planes with at most 2^P states (XB) travels as one code of P planes (0 ready, 1 firing,
 * E + 1 decaying), not F and E's P.
 *
 * Per 32 cells per generation: 2 funnel shifts and 9 LOP3 (B3/S23; wv_next), 2/M shuffles,
 * plus the rows of the halo (2 kk of the band's rows every generation).  Where the time
 * goes (H100, 4096^2, 8 warps of 5 rows, kk = 4): a round computes for about 2.6 us and
 * exchanges for about 1.3 us (docs/BENCHMARKS.md, "res").
 */
#ifndef WL_CUDA_RES_CUH
#define WL_CUDA_RES_CUH

#ifndef __CUDACC_RTC__
#include "cuda_wave.cuh"
#endif

#define RS_WB 8          /* warps per block: of 8 to 24, 8 was the fastest or within 2% at
                          * every width measured (docs/BENCHMARKS.md, "res") */
#define RS_MMAX 8        /* the most words a lane holds per row */
#define RS_KMAX 8        /* the most generations per round (rows of halo) */
#define RS_NRMAX 17      /* the most rows a warp holds */
#define RS_MAX_GENS 1024 /* generations per launch */
#define RS_PMAX 8        /* Generations: the most planes of E (256 states) */
#ifndef RS_POLL_WIDE     /* Generations of 2 or more planes of E: exchange planes polled */
#define RS_POLL_WIDE 3   /* together (the others: one at a time), docs/BENCHMARKS.md */
#endif

/* What every block of a launch needs (one kernel parameter). */
typedef struct rs_args {
    const uint32_t *in;      /* the grid before the launch (bit layout) */
    uint32_t *out;           /* the grid after it */
    unsigned long long *x;   /* exchange rows: [parity][block][top, bottom][RS_KMAX][plane]
                              * [nw], planes F then the P of E */
    const uint32_t *ein;     /* Generations: the P planes of E before the launch ... */
    uint32_t *eout;          /* ... and after it, eplane words apart */
    uint64_t eplane;
    unsigned last;           /* Generations: states - 1 (WL_GEN_DECAY) */
    int64_t w, h;
    uint64_t nw;
    int torus;
    int nb;                  /* blocks (bands) */
    int band, extra;         /* band b has band + (b < extra) rows */
    int kk;                  /* generations per round, rows of halo */
    int gens;                /* generations of this launch */
    unsigned tag0;           /* tag of this launch's first exchange */
    unsigned birth, survive; /* rule 0 (run-time masks) */
    int colmask;             /* bounded and narrower than 32*32*M: clear cells past w */
} rs_args;

/* The west and east neighbour planes (xl: bit i = cell i - 1; xr: cell i + 1) of one row of
 * M words held by each lane, and its horizontal 3-sums s + 2c.  wkeep / ekeep: 0 in the lanes
 * whose outer neighbour lies past a bounded grid's side. */
#define RS_SHIFTS(x, xl, xr, M, lane, wkeep, ekeep)                                        \
    do {                                                                                   \
        const uint32_t wl_ = __shfl_sync(WV_FULL, (x)[(M) - 1], ((lane) + 31) & 31) & (wkeep); \
        const uint32_t er_ = __shfl_sync(WV_FULL, (x)[0], ((lane) + 1) & 31) & (ekeep);     \
        _Pragma("unroll") for (int m_ = 0; m_ < (M); m_++) {                               \
            (xl)[m_] = __funnelshift_l(m_ ? (x)[m_ - 1] : wl_, (x)[m_], 1);                \
            (xr)[m_] = __funnelshift_r((x)[m_], m_ < (M) - 1 ? (x)[m_ + 1] : er_, 1);       \
        }                                                                                  \
    } while (0)
#define RS_HSUM(x, s, c, xl, xr, M, lane, wkeep, ekeep)                                    \
    do {                                                                                   \
        RS_SHIFTS(x, xl, xr, M, lane, wkeep, ekeep);                                       \
        _Pragma("unroll") for (int m_ = 0; m_ < (M); m_++) {                               \
            WV_LOP3((s)[m_], (xl)[m_], (x)[m_], (xr)[m_], 0x96);                            \
            WV_LOP3((c)[m_], (xl)[m_], (x)[m_], (xr)[m_], 0xE8);                            \
        }                                                                                  \
    } while (0)

/* Exchange words: relaxed loads and stores at GPU scope (volatile ones are system-scope and
 * were compiled into a chain, one load waiting for the one before). */
__device__ __forceinline__ unsigned long long rs_ld(const unsigned long long *p) {
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void rs_st(unsigned long long *p, unsigned long long v) {
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

/* The exchange words of row j of side (0: the band's top rows, 1: its bottom rows) of block
 * b in half p, plane q of NP (F, then E's). */
__device__ __forceinline__ unsigned long long *rs_slot(const rs_args a, int p, int b, int side,
                                                       int j, int q, int NP) {
    return a.x + (((((uint64_t)p * (uint64_t)a.nb + (uint64_t)b) * 2u + (uint64_t)side) *
                       RS_KMAX + (uint64_t)j) * (uint64_t)NP + (uint64_t)q) * a.nw;
}

/* Word m of the lane of plane q (0: F, else E's plane q - 1) of row i, read and set (q a
 * constant after unrolling, so that both stay registers). */
#define RS_EV_AT(q) ((q) && (q) <= RS_PMAX ? (q) - 1 : 0)
#define RS_PLANE(q, i, m) ((q) ? ev[(i) - 1][m][RS_EV_AT(q)] : v[i][m])
#define RS_PLANE_SET(q, i, m, x)                                                           \
    do {                                                                                   \
        if (q) ev[(i) - 1][m][RS_EV_AT(q)] = (x);                                          \
        else v[i][m] = (x);                                                                \
    } while (0)

/* The decay of Generations with E one-hot in P planes (plane k: the cells k + 1 generations
 * into their decay, binary E = k + 1): t, the new firing cells, loses those decaying; the
 * cells that stopped firing (m, the old ones, less t) enter plane 0, and every other plane
 * moves on by one (the last plane's cells become ready).  WL_GEN_DECAY's states exactly. */
#define RS_GEN_ONEHOT(t, m, e, P)                                                          \
    do {                                                                                   \
        uint32_t d_ = 0;                                                                   \
        _Pragma("unroll") for (int k_ = 0; k_ < (P); k_++) d_ |= (e)[k_];                  \
        (t) &= ~d_;                                                                        \
        _Pragma("unroll") for (int k_ = (P) - 1; k_ > 0; k_--) (e)[k_] = (e)[k_ - 1];      \
        (e)[0] = (m) & ~(t);                                                               \
    } while (0)

/* The exchange's two planes of a cell of F and two one-hot planes of E (four states: ready,
 * firing, decaying 1 and 2 generations): plane 0 = F | E1, plane 1 = E0 | E1, and back. */
#define RS_X2_PUT(pl, f, e) ((pl) ? (e)[0] | (e)[1] : (f) | (e)[1])
#define RS_X2_GET(f, e, x0, x1)                                                            \
    do {                                                                                   \
        (f) = (x0) & ~(x1);                                                                \
        (e)[0] = (x1) & ~(x0);                                                             \
        (e)[1] = (x0) & (x1);                                                              \
    } while (0)

/* XB: a cell's code c (0 ready, 1 firing, E + 1 decaying) from F and binary E's P planes,
 * and back (c >= 2: decaying, E = c - 1). */
#define RS_XB_PUT(c, f, e, P)                                                              \
    do {                                                                                   \
        uint32_t d_ = 0;                                                                   \
        _Pragma("unroll") for (int k_ = 0; k_ < (P); k_++) d_ |= (e)[k_];                  \
        uint32_t carry_ = (f) | d_;                                                        \
        _Pragma("unroll") for (int k_ = 0; k_ < (P); k_++) {                               \
            (c)[k_] = (e)[k_] ^ carry_;                                                    \
            carry_ &= (e)[k_];                                                             \
        }                                                                                  \
    } while (0)
#define RS_XB_GET(f, e, P) /* (e holds the code on entry) */                               \
    do {                                                                                   \
        uint32_t ge2_ = 0, borrow_ = ~0u;                                                  \
        _Pragma("unroll") for (int k_ = 1; k_ < (P); k_++) ge2_ |= (e)[k_];                \
        (f) = (e)[0] & ~ge2_;                                                              \
        _Pragma("unroll") for (int k_ = 0; k_ < (P); k_++) {                               \
            const uint32_t c_ = (e)[k_];                                                   \
            (e)[k_] = (c_ ^ borrow_) & ge2_;                                               \
            borrow_ &= ~c_;                                                                \
        }                                                                                  \
    } while (0)

/* Shared memory of an instance: per generation parity and warp, the horizontal sums (s, c)
 * of its top and bottom rows, and (rule 3) the rows themselves. */
#define RS_SMEM(M, WB) ((size_t)2 * (WB) * 2 * 3 * (M) * 32 * 4)

/* The body: M words per lane, WB warps of NR rows, rule as in wv_next (1: B3/S23, 0: masks,
 * 2: WV_RULE) or 3: the network WV_CIRCUIT over the nine cell planes (cuda_wave.cuh); P > 0:
 * a Generations rule (the outer-totalistic rule of its firing cells, then WL_GEN_DECAY) with
 * P planes of E, which the lanes hold beside F's words and the exchange carries beside F's
 * rows.  M, WB, NR, rule and P are literals in every instance (the arrays are sized for the
 * largest).  PB > 0: E is one-hot in the lanes (P planes, one per decaying state) and
 * binary in memory (PB planes).  XB: binary E (PB = 0) exchanged as its code (RS_XB_PUT;
 * the rule has at most 2^P states).  Blocks of 32 * WB threads with RS_SMEM(M, WB) bytes of
 * dynamic shared memory. */
__device__ __forceinline__ void rs_body(const rs_args a, const int M, const int WB,
                                        const int NR, const int rule, const int P,
                                        const int PB, const int XB) {
    /* edge row e = ((ph * WB + warp) * 2 + side) * 3 + what (side 0: the warp's top row, 1:
     * its bottom row; what 0: s, 1: c, 2: the row, for rule 3) holds M words a lane: word m
     * of lane l at EDGE(e, m) */
    extern __shared__ uint32_t rs_edge[];
#define EDGE(e, m) rs_edge[((e) * M + (m)) * 32 + lane]
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int b = blockIdx.x, kk = a.kk;
    const int bh = a.band + (b < a.extra ? 1 : 0);
    const int64_t y0 = (int64_t)b * a.band + (b < a.extra ? b : a.extra);
    const int trow0 = warp * NR;                  /* tile row of v[1] */
    const int64_t gy0 = y0 - kk + trow0;          /* its grid row (virtual) */
    const uint64_t nw = a.nw;
    uint32_t v[RS_NRMAX + 2][RS_MMAX]; /* (only [1 .. NR][0 .. M - 1] are used) */
    uint32_t ev[RS_NRMAX][RS_MMAX][RS_PMAX]; /* E of row i at ev[i - 1] (P > 0) */
    const int PM = PB ? PB : P; /* planes of E in memory */
    /* F and two one-hot planes of E are four states of a cell: they travel as two planes
     * (RS_X2) */
    const int X2 = P == 2 && PB;
    const int NP = X2 ? 2 : XB ? P : 1 + P; /* planes exchanged ... */
    const int PG = X2 ? 2 : P >= 2 ? RS_POLL_WIDE : 1; /* ... and polled together */
    uint32_t cm[RS_MMAX]; /* cells of the grid in each word (bounded grids) */
#pragma unroll
    for (int m = 0; m < M; m++) cm[m] = wl_colmask(a.w, (int64_t)lane * M + m);
#pragma unroll
    for (int i = 0; i < NR; i++) {
        const int64_t y = gy0 + i;
        const int in_grid = a.torus || (uint64_t)y < (uint64_t)a.h;
        const uint64_t ro = (uint64_t)(a.torus ? wl_dmod(y, a.h) : y) * nw;
#pragma unroll
        for (int m = 0; m < M; m++) {
            const uint64_t wd = (uint64_t)lane * M + m;
            v[i + 1][m] = in_grid && wd < nw ? a.in[ro + wd] : 0u;
            uint32_t eb[RS_PMAX];
#pragma unroll
            for (int q = 0; q < PM; q++)
                eb[q] = in_grid && wd < nw ? a.ein[q * a.eplane + ro + wd] : 0u;
#pragma unroll
            for (int q = 0; q < P; q++) { /* one-hot: plane q holds the cells of E = q + 1 */
                uint32_t x = PB ? ~0u : eb[RS_EV_AT(q + 1)];
#pragma unroll
                for (int j = 0; j < PB; j++) x &= ((q + 1) >> j) & 1 ? eb[j] : ~eb[j];
                ev[i][m][q] = x;
            }
        }
    }
    const uint32_t wkeep = a.torus || lane > 0 ? WV_FULL : 0u;
    const uint32_t ekeep = a.torus || lane < 31 ? WV_FULL : 0u;
    /* bounded grids: this warp's rows outside [0, h) stay dead (warp-uniform) */
    const int rowedge = !a.torus && (gy0 < 0 || gy0 + NR > a.h);
    const int masks = rowedge || a.colmask;
    const int above = b > 0 ? b - 1 : a.torus ? a.nb - 1 : -1;
    const int below = b < a.nb - 1 ? b + 1 : a.torus ? 0 : -1;
    int ph = 0;
    const int rounds = (a.gens + kk - 1) / kk;
    for (int r = 0; r < rounds; r++) {
        const int gr = a.gens - r * kk < kk ? a.gens - r * kk : kk;
#pragma unroll 1
        for (int g = 0; g < gr; g++) {
            /* the sums of this warp's top and bottom rows go to its neighbours, which send
             * theirs: the rows just above and below the slice are never summed twice (rule 3
             * also needs their cells: the rows go too) */
            uint32_t st[RS_MMAX], ct[RS_MMAX], sbo[RS_MMAX], cbo[RS_MMAX];
            uint32_t tl[RS_MMAX], tr[RS_MMAX], bl[RS_MMAX], br[RS_MMAX]; /* their planes */
            RS_HSUM(v[1], st, ct, tl, tr, M, lane, wkeep, ekeep);
            if (NR > 1) RS_HSUM(v[NR], sbo, cbo, bl, br, M, lane, wkeep, ekeep);
            else {
#pragma unroll
                for (int m = 0; m < M; m++) {
                    sbo[m] = st[m], cbo[m] = ct[m];
                    bl[m] = tl[m], br[m] = tr[m];
                }
            }
            const int e0 = (ph * WB + warp) * 6; /* this warp's six edge rows */
#pragma unroll
            for (int m = 0; m < M; m++) {
                EDGE(e0 + 0, m) = st[m];
                EDGE(e0 + 1, m) = ct[m];
                EDGE(e0 + 3, m) = sbo[m];
                EDGE(e0 + 4, m) = cbo[m];
                if (rule == 3) {
                    EDGE(e0 + 2, m) = v[1][m];
                    EDGE(e0 + 5, m) = v[NR][m];
                }
            }
            __syncthreads();
            uint32_t sa[RS_MMAX], ca[RS_MMAX], sb[RS_MMAX], cb[RS_MMAX];
            uint32_t sl[RS_MMAX], cl[RS_MMAX]; /* the row below the slice */
            /* rule 3: the west, centre and east planes of rows i - 1 (a), i (b) and the row
             * below the slice (d) */
            uint32_t al[RS_MMAX], ax[RS_MMAX], ar[RS_MMAX], bxl[RS_MMAX], bxr[RS_MMAX];
            uint32_t dl[RS_MMAX], dx[RS_MMAX], dr[RS_MMAX];
            const int eu = e0 - 6 + 3, ed = e0 + 6; /* upper warp's bottom, lower warp's top */
#pragma unroll
            for (int m = 0; m < M; m++) {
                sa[m] = warp > 0 ? EDGE(eu, m) : 0u;
                ca[m] = warp > 0 ? EDGE(eu + 1, m) : 0u;
                sl[m] = warp < WB - 1 ? EDGE(ed, m) : 0u;
                cl[m] = warp < WB - 1 ? EDGE(ed + 1, m) : 0u;
                sb[m] = st[m];
                cb[m] = ct[m];
                if (rule == 3) {
                    ax[m] = warp > 0 ? EDGE(eu + 2, m) : 0u;
                    dx[m] = warp < WB - 1 ? EDGE(ed + 2, m) : 0u;
                    bxl[m] = tl[m];
                    bxr[m] = tr[m];
                }
            }
            if (rule == 3) {
                RS_SHIFTS(ax, al, ar, M, lane, wkeep, ekeep);
                RS_SHIFTS(dx, dl, dr, M, lane, wkeep, ekeep);
            }
            ph ^= 1;
            /* one generation of rows 1..NR in place (row i+1's sums are taken before row i
             * is overwritten) */
#pragma unroll
            for (int i = 1; i <= NR; i++) {
                uint32_t sn[RS_MMAX], cn[RS_MMAX], nl[RS_MMAX], nx[RS_MMAX], nxr[RS_MMAX];
                if (i + 1 < NR) {
#pragma unroll
                    for (int m = 0; m < M; m++) nx[m] = v[i + 1][m];
                    RS_HSUM(v[i + 1], sn, cn, nl, nxr, M, lane, wkeep, ekeep);
                } else {
#pragma unroll
                    for (int m = 0; m < M; m++) {
                        sn[m] = i + 1 == NR ? sbo[m] : sl[m];
                        cn[m] = i + 1 == NR ? cbo[m] : cl[m];
                        nl[m] = i + 1 == NR ? bl[m] : dl[m];
                        nx[m] = i + 1 == NR ? v[NR][m] : dx[m];
                        nxr[m] = i + 1 == NR ? br[m] : dr[m];
                    }
                }
#pragma unroll
                for (int m = 0; m < M; m++) {
                    uint32_t x0, k, y1, y2, n;
                    WV_LOP3(x0, sa[m], sb[m], sn[m], 0x96);
                    WV_LOP3(k, sa[m], sb[m], sn[m], 0xE8);
                    WV_LOP3(y1, ca[m], cb[m], cn[m], 0x96);
                    WV_LOP3(y2, ca[m], cb[m], cn[m], 0xE8);
                    if (rule == 3) {
                        WV_CIRCUIT(al[m], ax[m], ar[m], bxl[m], v[i][m], bxr[m], nl[m], nx[m],
                                   nxr[m], sa[m], ca[m], sb[m], cb[m], sn[m], cn[m], x0, k, y1,
                                   y2, n);
                        al[m] = bxl[m];
                        ax[m] = v[i][m];
                        ar[m] = bxr[m];
                        bxl[m] = nl[m];
                        bxr[m] = nxr[m];
                    } else {
                        n = wv_next(x0, k, y1, y2, v[i][m], a.birth, a.survive, rule);
                    }
                    if (P && PB) RS_GEN_ONEHOT(n, v[i][m], ev[i - 1][m], P);
                    else if (P) WL_GEN_DECAY(n, v[i][m], ev[i - 1][m], P, a.last);
                    v[i][m] = n;
                    sa[m] = sb[m];
                    ca[m] = cb[m];
                    sb[m] = sn[m];
                    cb[m] = cn[m];
                }
            }
            if (masks) {
#pragma unroll
                for (int i = 1; i <= NR; i++) {
                    const int64_t y = gy0 + i - 1;
                    const int keep = a.torus || (uint64_t)y < (uint64_t)a.h;
#pragma unroll
                    for (int m = 0; m < M; m++) {
                        v[i][m] &= keep ? cm[m] : 0u;
#pragma unroll
                        for (int q = 0; q < P; q++) ev[i - 1][m][q] &= keep ? cm[m] : 0u;
                    }
                }
            }
        }
        if (r + 1 == rounds) break;
        /* publish the band's first and last kk rows, then take the neighbours' */
        const int p = r & 1;
        const unsigned tag = a.tag0 + (unsigned)r;
        const unsigned long long hi = (unsigned long long)tag << 32;
#pragma unroll
        for (int i = 1; i <= NR; i++) {
            const int t = trow0 + i - 1;
#pragma unroll
            for (int side = 0; side < 2; side++) {
                const int j = side ? t - bh : t - kk; /* row j of the side's kk rows */
                if (j < 0 || j >= kk) continue;
                uint32_t code[RS_MMAX][RS_PMAX]; /* (XB) */
#pragma unroll
                for (int m = 0; m < M; m++)
                    if (XB) RS_XB_PUT(code[m], v[i][m], ev[i - 1][m], P);
#pragma unroll
                for (int pl = 0; pl < NP; pl++) {
                    unsigned long long *q = rs_slot(a, p, b, side, j, pl, NP);
#pragma unroll
                    for (int m = 0; m < M; m++) {
                        const uint64_t wd = (uint64_t)lane * M + m;
                        const uint32_t x = X2   ? RS_X2_PUT(pl, v[i][m], ev[i - 1][m])
                                           : XB ? code[m][RS_EV_AT(pl + 1)]
                                                : RS_PLANE(pl, i, m);
                        if (wd < nw) rs_st(q + wd, hi | x);
                    }
                }
            }
        }
        /* this warp holds halo rows: take them PG planes at a time (planes of a row are
         * consecutive, nw words apart) */
#pragma unroll
        for (int pl0 = 0; pl0 < NP; pl0 += PG) {
            if (trow0 >= kk && trow0 + NR <= kk + bh) break;
            const unsigned long long *q[RS_NRMAX + 1];
#pragma unroll
            for (int i = 1; i <= NR; i++) {
                const int t = trow0 + i - 1;
                q[i] = 0;
                if (t < kk && above >= 0) q[i] = rs_slot(a, p, above, 1, t, pl0, NP);
                else if (t >= kk + bh && t < 2 * kk + bh && below >= 0)
                    q[i] = rs_slot(a, p, below, 0, t - kk - bh, pl0, NP);
            }
            /* every word is loaded before any is tested, so that one poll costs one
             * memory latency, not one per word */
            for (;;) {
                unsigned long long u[RS_POLL_WIDE][RS_NRMAX + 1][RS_MMAX];
#pragma unroll
                for (int gq = 0; gq < PG; gq++) {
#pragma unroll
                    for (int i = 1; i <= NR; i++) {
#pragma unroll
                        for (int m = 0; m < M; m++) {
                            const uint64_t wd = (uint64_t)lane * M + m;
                            u[gq][i][m] = pl0 + gq < NP && q[i] && wd < nw
                                              ? rs_ld(q[i] + (uint64_t)gq * nw + wd) : hi;
                        }
                    }
                }
                int ok = 1;
#pragma unroll
                for (int gq = 0; gq < PG; gq++) {
#pragma unroll
                    for (int i = 1; i <= NR; i++) {
#pragma unroll
                        for (int m = 0; m < M; m++) ok &= (unsigned)(u[gq][i][m] >> 32) == tag;
                    }
                }
                if (__all_sync(WV_FULL, ok)) {
#pragma unroll
                    for (int gq = 0; gq < PG; gq++) {
#pragma unroll
                        for (int i = 1; i <= NR; i++) {
#pragma unroll
                            for (int m = 0; m < M; m++)
                                if (X2 && gq == 0 && q[i])
                                    RS_X2_GET(v[i][m], ev[i - 1][m], (uint32_t)u[0][i][m],
                                              (uint32_t)u[X2][i][m]);
                                else if (!X2 && pl0 + gq < NP && q[i]) /* (XB: the code
                                                                          in E's planes) */
                                    RS_PLANE_SET(pl0 + gq + XB, i, m, (uint32_t)u[gq][i][m]);
                        }
                    }
                    break;
                }
            }
        }
        /* XB: the halo rows' codes, now in E's planes, back to F and E */
        if (XB && !(trow0 >= kk && trow0 + NR <= kk + bh)) {
#pragma unroll
            for (int i = 1; i <= NR; i++) {
                const int t = trow0 + i - 1;
                if ((t < kk && above >= 0) || (t >= kk + bh && t < 2 * kk + bh && below >= 0)) {
#pragma unroll
                    for (int m = 0; m < M; m++) RS_XB_GET(v[i][m], ev[i - 1][m], P);
                }
            }
        }
    }
#undef EDGE
    /* the band's rows are exact: store them */
#pragma unroll
    for (int i = 1; i <= NR; i++) {
        const int t = trow0 + i - 1;
        if (t >= kk && t < kk + bh) {
            const uint64_t ro = (uint64_t)(y0 + t - kk) * nw;
#pragma unroll
            for (int m = 0; m < M; m++) {
                const uint64_t wd = (uint64_t)lane * M + m;
                if (wd >= nw) continue;
                a.out[ro + wd] = v[i][m];
#pragma unroll
                for (int q = 0; q < PM; q++) { /* (one-hot: bit q of E from its planes) */
                    uint32_t x = PB ? 0u : ev[i - 1][m][RS_EV_AT(q + 1)];
#pragma unroll
                    for (int k = 0; k < (PB ? P : 0); k++)
                        x |= ((k + 1) >> q) & 1 ? ev[i - 1][m][RS_EV_AT(k + 1)] : 0u;
                    a.eout[q * a.eplane + ro + wd] = x;
                }
            }
        }
    }
}

#endif
