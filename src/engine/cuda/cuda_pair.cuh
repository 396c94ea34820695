/*
 * cuda_pair.cuh - the `lop3p` kernel body: lop3v's stacked-warp temporal blocking on the
 * pair layout (WLCU_PAIRS), where a horizontal neighbour costs one funnel shift per 64 cells
 * instead of two per 32.  Compiled twice, like cuda_wave.cuh (whose LOP3 macro and rule step
 * wv_next it uses): by nvcc (cuda_pair.cu: B3/S23 and the run-time mask kernel) and, as
 * embedded text after cuda_win.cuh and cuda_wave.cuh, by NVRTC (cuda_rtc.cu: one kernel per
 * other outer-totalistic rule, its logic the WV_RULE network).
 *
 * The pair layout (wlcuda.h).  A row is np = ceil(W/64) pairs of 32-bit words (E, O): bit k
 * of E is cell 64p + 2k, bit k of O is cell 64p + 2k + 1.  So the cell left of every odd cell
 * is the even cell at the same bit (O's left neighbour word is E itself) and the cell right of
 * every even cell is O at the same bit; only O's right neighbour (E >> 1, with the next
 * pair's bit 0) and E's left neighbour (O << 1, with the previous pair's bit 31) need a
 * funnel shift and a shuffle.  Per 64 cells the horizontal 3-sums (s + 2c = left + centre +
 * right) take 2 SHFL + 2 SHF + 4 LOP3, against 4 SHFL + 4 SHF + 4 LOP3 in the bit layout.
 *
 * B3/S23 two rows at a time (PR_LIFE2).  The vertical adders and the rule cost 7 LOP3 per
 * row in lop3v; rows i and i+1 share the sum of their own two rows' horizontal sums, and an
 * 11-gate network for both rows (3 shared gates, 4 of each row's own) replaces the 14.  So
 * Life costs 7.5 LOP3 + 1 SHF per 32 cells here, against 9 + 2 in lop3v: 8.5 operations on
 * the LOP3/SHF pipe instead of 11, which the kernel is bound by.  Other rules: the per-row
 * vertical adders and their WV_RULE network, 6 LOP3 + 1 SHF + the network's gates.
 *
 * Where it stands (H100, 65536^2, 1024 generations, docs/BENCHMARKS.md "Fourth session"):
 * B3/S23 4.17e13 CUpS on a torus and 4.15e13 bounded (lop3v 3.47e13 / 3.41e13); the other
 * outer-totalistic rules measured 3.38e13-3.94e13.
 *
 * Work split (as lop3v, cuda_lop3v.cu): a block of WB warps owns a tile of 32 pair columns
 * by WB * NR rows; warp w holds NR rows, lane l pair column c = 31 * group + l - 1, in
 * registers e[1..NR], o[1..NR]; e/o[0] and e/o[NR+1] are the rows just above and below the
 * warp's slice, read before every generation from the neighbouring warps' edge rows in shared
 * memory (double-buffered by generation parity: one barrier per generation).  kk rows at the
 * tile's top and bottom are the vertical halo, recomputed rather than exchanged.  Sideways,
 * the garbage entering at lane 0's left and lane 31's right (their shuffles wrap inside the
 * warp) moves one cell per generation, so after kk <= 32 generations it has reached only
 * the outer half of those lanes' 64 cells: lanes 1..30 are exact, lane 0 in its upper half
 * (cells 32..63: the upper 16 bits of E and of O) and lane 31 in its lower half.  So
 * neighbouring tiles overlap by ONE pair column, not two: lane 31 of group g and lane 0 of
 * group g+1 hold the same pair and store its lower and upper 16-bit halves (separate
 * halfwords: no two blocks write the same bytes).  31 pair columns per tile instead of 30:
 * 65536 wide, 34 tiles per row of tiles instead of 35 (1.5% faster on an H100, measured
 * twice against the same kernel with 30).  Rows kk .. WB*NR-kk-1 are stored.
 * kk is a run-time argument: the host runs whole launches of K generations and one shorter
 * launch for the remainder (no other kernel knows the layout).
 *
 * Edges.  Tiles whose rows and pairs all lie inside the grid load with plain 8-byte loads;
 * the others through wl_pwin64 (the 64 cells from virtual column 64c of virtual row r:
 * wrapped on a torus, dead outside a bounded grid; on a torus whose width is not a multiple
 * of 64 a window is two pairs funnel-shifted, plus the row's first pair at the wrap), a bounded tile also clears rows and
 * columns outside the grid after every generation, and every store is masked to the grid's
 * columns (memory past column W-1 stays 0, which the population count relies on).
 */
#ifndef WL_CUDA_PAIR_CUH
#define WL_CUDA_PAIR_CUH

#ifndef __CUDACC_RTC__
#include "cuda_wave.cuh" /* WV_LOP3, WV_FULL, wv_next */
#endif

#define PR_STRIDE 31    /* pair columns per tile: lanes 1..30 and halves of lanes 0 and 31 */
#define PR_NR_MAX 64    /* the most rows per warp compiled */
#define PR_WB_MAX 24    /* the most warps per block (size of the edge-row buffer) */

/* ---- the pair layout's window loader ---- */

/* The low 16 bits of x to the even bits of the result (bit i -> bit 2i), and back. */
__device__ __forceinline__ uint32_t wl_pair_spread16(uint32_t x) {
    x &= 0xFFFFu;
    x = (x | (x << 8)) & 0x00FF00FFu;
    x = (x | (x << 4)) & 0x0F0F0F0Fu;
    x = (x | (x << 2)) & 0x33333333u;
    return (x | (x << 1)) & 0x55555555u;
}
__device__ __forceinline__ uint32_t wl_pair_even16(uint32_t x) {
    x &= 0x55555555u;
    x = (x | (x >> 1)) & 0x33333333u;
    x = (x | (x >> 2)) & 0x0F0F0F0Fu;
    x = (x | (x >> 4)) & 0x00FF00FFu;
    return (x | (x >> 8)) & 0x0000FFFFu;
}
/* Word j of row `row` in the bit layout (bit i = cell 32j + i), read from the pair layout:
 * the even and odd cells of one half of pair j/2 interleaved. */
__device__ __forceinline__ uint32_t wl_pair_bitword(const uint2 *row, uint64_t j) {
    const uint2 p = row[j >> 1];
    const unsigned sh = (unsigned)(j & 1) * 16;
    return wl_pair_spread16(p.x >> sh) | wl_pair_spread16(p.y >> sh) << 1;
}
/* Bit-layout words lo (cells 0..31) and hi (32..63) -> one pair. */
__device__ __forceinline__ uint2 wl_pair_from_bits(uint32_t lo, uint32_t hi) {
    return make_uint2(wl_pair_even16(lo) | wl_pair_even16(hi) << 16,
                      wl_pair_even16(lo >> 1) | wl_pair_even16(hi >> 1) << 16);
}

/* n (1..32) cells of a row starting at column x, x + n <= W, in bit order (zero above bit
 * n-1); nb = ceil(W/32) words in the bit view.  Relies on the zero padding. */
__device__ __forceinline__ uint32_t wl_pair_bits_at(const uint2 *row, uint64_t nb, uint64_t x,
                                                    unsigned n) {
    const uint64_t j = x >> 5;
    const uint32_t lo = wl_pair_bitword(row, j);
    const uint32_t hi = j + 1 < nb ? wl_pair_bitword(row, j + 1) : 0u;
    const uint32_t v = __funnelshift_r(lo, hi, (unsigned)(x & 31));
    return n >= 32 ? v : (v & ((1u << n) - 1u));
}

/* The 32 cells from column x (0 <= x < W) of a torus row, wrapping past W-1 (wl_win32's
 * loop on the pair layout). */
__device__ __forceinline__ uint32_t wl_pair_wrap32(const uint2 *row, int64_t w, int64_t x) {
    const uint64_t nb = (uint64_t)(w + 31) / 32;
    uint32_t v;
#define WL_PAIR_READ_(x_, n_) wl_pair_bits_at(row, nb, x_, n_)
    WL_WRAP32(v, w, x, WL_PAIR_READ_);
#undef WL_PAIR_READ_
    return v;
}

/* v << s for s in 0..32 (0 for 32). */
__device__ __forceinline__ uint32_t wl_pair_shl(uint32_t v, unsigned s) {
    return s >= 32 ? 0u : v << s;
}

/* The 64 cells from column x (0 <= x < W) of a torus row as a pair, for W >= 64: the two
 * pairs that hold cells x .. x+63 funnel-shifted by half the offset (an odd offset swaps the
 * roles of E and O), and, when the window passes column W-1, the row's first pair shifted in
 * at window position n = W - x (memory past column W-1 is 0, so the pieces just OR). */
__device__ __forceinline__ uint2 wl_pair_window(const uint2 *row, uint64_t np, int64_t w,
                                                int64_t x) {
    const uint64_t p = (uint64_t)x >> 6;
    const unsigned o = (unsigned)(x & 63);
    const uint2 a = row[p], b = p + 1 < np ? row[p + 1] : make_uint2(0u, 0u);
    uint32_t ve, vo; /* window cell 2k is bit k of ve, cell 2k + 1 bit k of vo */
    if (o & 1) {     /* window cell 0 is an odd cell of the row */
        ve = __funnelshift_rc(a.y, b.y, o >> 1);
        vo = __funnelshift_rc(a.x, b.x, (o + 1) >> 1);
    } else {
        ve = __funnelshift_rc(a.x, b.x, o >> 1);
        vo = __funnelshift_rc(a.y, b.y, o >> 1);
    }
    const int64_t n = w - x; /* cells before the wrap */
    if (n < 64) {
        const uint2 z = row[0];
        const unsigned m = (unsigned)n;
        if (m & 1) { /* column 0 lands on an odd window cell */
            ve |= wl_pair_shl(z.y, (m + 1) >> 1);
            vo |= wl_pair_shl(z.x, m >> 1);
        } else {
            ve |= wl_pair_shl(z.x, m >> 1);
            vo |= wl_pair_shl(z.y, m >> 1);
        }
    }
    return make_uint2(ve, vo);
}

/* The 64 cells from virtual column 64c of virtual row r as a pair (np pairs per row). */
static __device__ __noinline__ uint2 wl_pwin64(const uint2 *g, uint64_t np, int64_t w,
                                               int64_t h, int torus, int64_t r, int64_t c) {
    if (r < 0 || r >= h) {
        if (!torus) return make_uint2(0u, 0u);
        r = wl_dmod(r, h);
    }
    const uint2 *row = g + (uint64_t)r * np;
    const int64_t x = c * 64;
    if (x >= 0 && x + 64 <= w) return row[c]; /* a whole pair inside */
    if (!torus) return (x < 0 || x >= w) ? make_uint2(0u, 0u) : row[c]; /* padding is 0 */
    if ((w & 63) == 0) return row[wl_dmod(c, (int64_t)np)]; /* whole pairs wrap as pairs */
    if (w >= 64) return wl_pair_window(row, np, w, wl_dmod(x, w));
    /* narrower than a pair: 32 cells at a time through the bit view, as often as they wrap */
    return wl_pair_from_bits(wl_pair_wrap32(row, w, wl_dmod(x, w)),
                             wl_pair_wrap32(row, w, wl_dmod(x + 32, w)));
}

/* Masks of the real cells of pair c (even cells in .x, odd in .y). */
__device__ __forceinline__ uint2 wl_pair_colmask(int64_t w, int64_t c) {
    const int64_t left = w - c * 64; /* cells of the row from this pair's first on */
    if (c < 0 || left <= 0) return make_uint2(0u, 0u);
    if (left >= 64) return make_uint2(WV_FULL, WV_FULL);
    const unsigned ne = (unsigned)(left + 1) / 2, no = (unsigned)left / 2; /* < 32 */
    return make_uint2(ne >= 32 ? WV_FULL : (1u << ne) - 1u, (1u << no) - 1u);
}

/* ---- one generation ---- */

/* Horizontal 3-sums of a row's pair (E, O): sE + 2 cE for the even cells, sO + 2 cO for the
 * odd ones. */
#define PR_HSUM(E, O, sE, cE, sO, cO)                                                      \
    do {                                                                                   \
        const uint32_t l_ = __shfl_up_sync(WV_FULL, (O), 1);   /* cell 64p - 1: bit 31 */  \
        const uint32_t r_ = __shfl_down_sync(WV_FULL, (E), 1); /* cell 64p + 64: bit 0 */  \
        const uint32_t le_ = __funnelshift_l(l_, (O), 1);      /* left of the even cells */ \
        const uint32_t ro_ = __funnelshift_r((E), r_, 1);      /* right of the odd cells */ \
        WV_LOP3(sE, le_, (E), (O), 0x96);                                                  \
        WV_LOP3(cE, le_, (E), (O), 0xE8);                                                  \
        WV_LOP3(sO, (E), (O), ro_, 0x96);                                                  \
        WV_LOP3(cO, (E), (O), ro_, 0xE8);                                                  \
    } while (0)

/* Next state of one word from the horizontal sums of its row (b), the row above (a) and
 * below (n): the vertical full adders (4 LOP3), then the rule (wv_next). */
#define PR_VERT(sa, ca, sb, cb, sn, cn, ctr, nx)                                           \
    do {                                                                                   \
        uint32_t x0_, k_, y1_, y2_;                                                        \
        WV_LOP3(x0_, sa, sb, sn, 0x96);                                                    \
        WV_LOP3(k_, sa, sb, sn, 0xE8);                                                     \
        WV_LOP3(y1_, ca, cb, cn, 0x96);                                                    \
        WV_LOP3(y2_, ca, cb, cn, 0xE8);                                                    \
        nx = wv_next(x0_, k_, y1_, y2_, (ctr), birth, survive, rule);                      \
    } while (0)

/* B3/S23 for two rows at once, i and i+1, from the horizontal sums (s + 2c) of rows i-1 (a),
 * i (b), i+1 (n) and i+2 (d) and the two centres xi, xj: 11 LOP3 instead of 2 x 7.  The
 * rows share V = H(i) + H(i+1), whose parts three gates compute once (g1..g3); each row then
 * needs 4 gates of its own.  Found by a SAT-based exact synthesis (2026-11-22, CaDiCaL on a
 * CNF of the 2-output, 10-input problem), checked on all 784 reachable combinations (a live
 * centre's row sum is at least 1) by tests/test_lop3net.c; the GPU tests compare the kernel
 * with the reference engine like every kernel. */
#define PR_LIFE2(sa, ca, sb, cb, sn, cn, sd, cd, xi, xj, ni, nj)                           \
    do {                                                                                   \
        uint32_t g1_, g2_, g3_, g4_, g5_, g6_, g8_, g9_, g10_;                             \
        WV_LOP3(g1_, cb, sn, cn, 0xE8);   /* shared */                                     \
        WV_LOP3(g2_, cb, sn, cn, 0xB2);                                                    \
        WV_LOP3(g3_, sb, sn, g2_, 0xE8);                                                   \
        WV_LOP3(g4_, sa, sb, sn, 0x96);   /* row i */                                      \
        WV_LOP3(g5_, sa, g2_, g3_, 0xE8);                                                  \
        WV_LOP3(g6_, ca, g1_, g5_, 0xE9);                                                  \
        WV_LOP3(ni, xi, g4_, g6_, 0x54);                                                   \
        WV_LOP3(g8_, sd, sb, sn, 0x96);   /* row i+1 */                                    \
        WV_LOP3(g9_, sd, g2_, g3_, 0xE8);                                                  \
        WV_LOP3(g10_, cd, g1_, g9_, 0xE9);                                                 \
        WV_LOP3(nj, xj, g8_, g10_, 0x54);                                                  \
    } while (0)

/* The window of horizontal sums moves down: (s1, c1) becomes the row above the next row to
 * update (a), (s2, c2) that row itself (b); E and O words. */
#define PR_SLIDE(s1E, c1E, s1O, c1O, s2E, c2E, s2O, c2O)                                   \
    do {                                                                                   \
        saE = (s1E);                                                                       \
        caE = (c1E);                                                                       \
        saO = (s1O);                                                                       \
        caO = (c1O);                                                                       \
        sbE = (s2E);                                                                       \
        cbE = (c2E);                                                                       \
        sbO = (s2O);                                                                       \
        cbO = (c2O);                                                                       \
    } while (0)

/* The kernel body: one block tile after another (one per block unless the grid is capped). */
__device__ __forceinline__ void pair_body(const uint2 *__restrict__ in, uint2 *__restrict__ out,
                                          int64_t w, int64_t h, uint64_t np, int torus,
                                          int64_t groups, int64_t total, int kk,
                                          unsigned birth, unsigned survive, const int rule,
                                          const int nr, const int wb) {
    /* edge rows: [parity][warp][0 = top row, 1 = bottom row][lane] */
    __shared__ uint2 edge[2][PR_WB_MAX][2][32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t out_rows = (int64_t)wb * nr - 2 * kk; /* rows written per tile */
    int ph = 0;
    uint32_t e[PR_NR_MAX + 2], o[PR_NR_MAX + 2];
    for (int64_t tile = blockIdx.x; tile < total; tile += gridDim.x) {
        const int64_t band = tile / groups, grp = tile % groups;
        const int64_t c = grp * PR_STRIDE + lane - 1;
        const int64_t r0 = band * out_rows - kk + (int64_t)warp * nr; /* row of e/o[1] */
        const int64_t col_lo = (grp * PR_STRIDE - 1) * 64;
        const int inside = r0 >= 0 && r0 + nr <= h && col_lo >= 0 && col_lo + 32 * 64 <= w;
        if (inside) {
            const uint2 *p = in + (uint64_t)r0 * np + (uint64_t)c;
#pragma unroll
            for (int i = 0; i < nr; i++) {
                const uint2 v = p[(uint64_t)i * np];
                e[i + 1] = v.x;
                o[i + 1] = v.y;
            }
        } else {
#pragma unroll
            for (int i = 0; i < nr; i++) {
                const uint2 v = wl_pwin64(in, np, w, h, torus, r0 + i, c);
                e[i + 1] = v.x;
                o[i + 1] = v.y;
            }
        }
        const int needmask = !torus && !inside;
        const uint2 cm = wl_pair_colmask(w, c);
#pragma unroll 1
        for (int g = 0; g < kk; g++) {
            edge[ph][warp][0][lane] = make_uint2(e[1], o[1]);
            edge[ph][warp][1][lane] = make_uint2(e[nr], o[nr]);
            __syncthreads();
            const uint2 above = warp > 0 ? edge[ph][warp - 1][1][lane] : make_uint2(0u, 0u);
            const uint2 below = warp < wb - 1 ? edge[ph][warp + 1][0][lane] : make_uint2(0u, 0u);
            e[0] = above.x;
            o[0] = above.y;
            e[nr + 1] = below.x;
            o[nr + 1] = below.y;
            ph ^= 1;
            uint32_t saE, caE, saO, caO, sbE, cbE, sbO, cbO;
            PR_HSUM(e[0], o[0], saE, caE, saO, caO);
            PR_HSUM(e[1], o[1], sbE, cbE, sbO, cbO);
            if (rule == 1 && nr % 2 == 0) { /* B3/S23: rows in pairs (PR_LIFE2) */
#pragma unroll
                for (int i = 1; i < nr; i += 2) {
                    uint32_t snE, cnE, snO, cnO, sdE, cdE, sdO, cdO, n0, n1, m0, m1;
                    PR_HSUM(e[i + 1], o[i + 1], snE, cnE, snO, cnO); /* old rows i+1, i+2 */
                    PR_HSUM(e[i + 2], o[i + 2], sdE, cdE, sdO, cdO);
                    PR_LIFE2(saE, caE, sbE, cbE, snE, cnE, sdE, cdE, e[i], e[i + 1], n0, n1);
                    PR_LIFE2(saO, caO, sbO, cbO, snO, cnO, sdO, cdO, o[i], o[i + 1], m0, m1);
                    e[i] = n0;
                    e[i + 1] = n1;
                    o[i] = m0;
                    o[i + 1] = m1;
                    PR_SLIDE(snE, cnE, snO, cnO, sdE, cdE, sdO, cdO);
                }
            } else {
#pragma unroll
                for (int i = 1; i <= nr; i++) {
                    uint32_t snE, cnE, snO, cnO, nE, nO;
                    PR_HSUM(e[i + 1], o[i + 1], snE, cnE, snO, cnO); /* row i+1, old value */
                    PR_VERT(saE, caE, sbE, cbE, snE, cnE, e[i], nE);
                    PR_VERT(saO, caO, sbO, cbO, snO, cnO, o[i], nO);
                    e[i] = nE;
                    o[i] = nO;
                    PR_SLIDE(sbE, cbE, sbO, cbO, snE, cnE, snO, cnO);
                }
            }
            if (needmask) { /* a bounded grid's ghost cells stay dead */
#pragma unroll
                for (int i = 1; i <= nr; i++) {
                    const int in_rows = (uint64_t)(r0 + i - 1) < (uint64_t)h;
                    e[i] &= in_rows ? cm.x : 0u;
                    o[i] &= in_rows ? cm.y : 0u;
                }
            }
        }
        if ((uint64_t)c < np) {
#pragma unroll
            for (int i = 1; i <= nr; i++) {
                const int bl = warp * nr + i - 1; /* row within the tile */
                const int64_t y = r0 + i - 1;
                if (bl >= kk && bl < wb * nr - kk && y < h) {
                    uint2 *q = out + (uint64_t)y * np + (uint64_t)c;
                    const uint32_t ve = e[i] & cm.x, vo = o[i] & cm.y;
                    if (lane >= 1 && lane <= 30) {
                        *q = make_uint2(ve, vo);
                    } else { /* halfwords 0 and 2 (lane 31) or 1 and 3 (lane 0) of the pair */
                        uint16_t *q16 = (uint16_t *)q + (lane == 0);
                        const unsigned sh = lane == 0 ? 16u : 0u;
                        q16[0] = (uint16_t)(ve >> sh);
                        q16[2] = (uint16_t)(vo >> sh);
                    }
                }
            }
        }
    }
}

#endif
