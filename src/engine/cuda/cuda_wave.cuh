/*
 * cuda_wave.cuh - the `wave` kernel body: wavefront temporal blocking, K generations per
 * launch with no shared memory and no barrier.  Compiled twice: by nvcc (cuda_wave.cu: the
 * hand-placed B3/S23 kernels and the run-time mask kernel) and, as embedded text, by NVRTC
 * (cuda_rtc.cu: one kernel per other outer-totalistic rule, its logic a fixed LOP3 network
 * defined as the macro WV_RULE before this text; and the `circuit` kernel, rule 3, for every
 * other rule: a network over the nine cells defined as WV_CIRCUIT_NET).  So this file includes nothing but
 * cuda_win.cuh, which nvcc reads from disk and NVRTC gets pasted in front.
 *
 * What it computes: K generations of an outer-totalistic rule on the bit layout (WLCU_BITS:
 * row-major 32-bit words, bit i of word j = cell 32j + i), from buffer `in` to buffer `out`.
 *
 * Work split: one warp per task = (strip, chunk).  A strip is 32 word columns, lane l holding
 * column c = 30*strip + l - 1; lanes 1..30 are written, lanes 0 and 31 are the horizontal halo
 * (their outer neighbour comes from the shuffle's wrap, i.e. garbage, which moves one cell
 * per generation: K <= 32 keeps it inside lanes 0 and 31).  A chunk is Hc consecutive rows
 * [y0, y1); the host picks Hc so that the tasks fill the GPU's resident warps in whole waves.
 *
 * The wavefront.  The warp streams rows r = y0-K .. y1+2K-2 top to bottom, one 32-bit word
 * per lane per row (coalesced 128-byte loads), and keeps K "levels" in registers.  Level g
 * turns rows of generation g-1 into rows of generation g: it remembers the horizontal sums
 * (s, c: s + 2c = left + centre + right) of the last two generation-(g-1) rows it received and
 * the raw middle one; when a new row arrives it computes that row's horizontal sum (2 SHFL,
 * 2 funnel shifts, 2 LOP3) and then the middle row's next state (4 LOP3 of vertical adders +
 * the rule).  The levels are skewed: in iteration t level g receives the row level g-1
 * produced in iteration t-1 (and level 1 the row just loaded), so the K levels of one
 * iteration are independent: K-fold instruction-level parallelism, and the per-level
 * registers rotate without moves once the loop is unrolled 3 times (the row triple).  Level
 * g outputs generation-g row r - (2g - 1); level K's output rows y0 .. y1-1 are exact and
 * stored.  Rows at the chunk's top and bottom that are not exact (their inputs reach past
 * the loaded rows, where the levels start from zero registers) are never stored and never
 * reach a stored row: the vertical halo is just the 2K extra rows per chunk ((Hc + 3K) / Hc
 * recomputed including the pipeline drain, 1-3% for the shapes the host picks), against
 * lop3v's 320/288 rows and its __syncthreads per generation.
 *
 * Per 32 cells per generation (B3/S23): 2 SHFL + 2 SHF + 9 LOP3, i.e. 11 instructions on
 * the LOP3/SHF pipe; other rules: 2 SHF + 6 LOP3 + the rule network (2..7 LOP3).
 * Memory: one load and (1/1.03) store per 32 cells per K generations.
 *
 * Where it stands (H100, 65536^2 torus, 1024 generations; docs/BENCHMARKS.md): B3/S23
 * 3.32e13 CUpS, under lop3p's 4.17e13 (the pair layout and a two-row Life network,
 * cuda_pair.cuh); every other outer-totalistic rule 3.1e13-3.55e13 through NVRTC, under
 * lop3p's NVRTC kernels too.  So `best` runs lop3p on grids of 2^28 cells or more and wave
 * on smaller ones, where its chunks fill the GPU and lop3p's tall tiles do not.
 * Nsight Compute (the 05:43 version, one wave of tasks): ALU pipe 77% of elapsed cycles, 1.7
 * of 2 warps active per scheduler, 0.74 eligible: the kernel is bound by the LOP3/SHF pipe
 * while its warps run and loses the rest to the launch's tail and dependency stalls with only
 * 2 warps per scheduler (ptxas needs ~230 registers for K = 16).
 *
 * Edges (a warp-uniform branch picks the loop).  Tasks whose loaded rows and columns all lie
 * inside the grid use plain pointer loads (issued WV_AHEAD = 3 rows ahead) and no
 * masks.  The others use guarded loads: on a torus the row index wraps incrementally and
 * whole words wrap as words when 32 divides the width (lanes of a narrower last word load
 * through wl_win32, the periodic 32-cell window); on a bounded grid rows and words outside
 * read as 0.  A bounded grid must also keep its ghost cells dead after every generation:
 * the levels clear output rows outside [0, h) only in the iterations where some level's
 * output row lies there (the first ~3K iterations of a top chunk, the last of a bottom
 * one), and columns past the grid (the column mask, 1 LOP3 per level) only in the strips
 * that reach past a side.  Since every task of a launch costs about the same and the host
 * sizes chunks so that the launch is one or two waves, the slowest (edge) task sets the
 * time: that is why the edge path stays within a few instructions of the fast one.
 */
#ifndef WL_CUDA_WAVE_CUH
#define WL_CUDA_WAVE_CUH

#ifndef __CUDACC_RTC__
#include "cuda_win.cuh"
#endif

#define WV_FULL 0xffffffffu
#define WV_LANES_OUT 30 /* lanes 1..30 of a strip are written */
#define WV_KMAX 16      /* largest K compiled (registers: 6 per level) */
#define WV_WARPS 4      /* warps per block (independent; 128 threads) */

/* d = 3-input logic function `lut` of a, b, c (bit 4a + 2b + c of lut): one LOP3, exactly. */
#define WV_LOP3(d, a, b, c, lut) \
    asm("lop3.b32 %0, %1, %2, %3, %4;" : "=r"(d) : "r"(a), "r"(b), "r"(c), "n"(lut))

/* Horizontal 3-sum s + 2c of word x (left + centre + right cells, lane-wise); xl, xr get
 * the west and east neighbour planes (bit i: cell i - 1, i + 1). */
#define WV_HSUM3(x, xl, xr, s, c)                                                          \
    do {                                                                                   \
        uint32_t l_ = __shfl_up_sync(WV_FULL, (x), 1);                                     \
        uint32_t r_ = __shfl_down_sync(WV_FULL, (x), 1);                                   \
        xl = __funnelshift_l(l_, (x), 1), xr = __funnelshift_r((x), r_, 1);                \
        WV_LOP3(s, xl, (x), xr, 0x96);                                                     \
        WV_LOP3(c, xl, (x), xr, 0xE8);                                                     \
    } while (0)

/* The next state of 32 cells from the vertical adder outputs: the 9-cell total is
 * T = x0 + 2 (k + y1) + 4 y2, ctr the cell.  rule 1: B3/S23 (3 LOP3), rule 2: the macro
 * WV_RULE(x0, k, y1, y2, ctr, n) (NVRTC), rule 0: run-time masks on the planes of T. */
__device__ __forceinline__ uint32_t wv_next(uint32_t x0, uint32_t k, uint32_t y1, uint32_t y2,
                                            uint32_t ctr, unsigned birth, unsigned survive,
                                            const int rule) {
    uint32_t n;
    if (rule == 1) {
        /* B3/S23 in 3 gates (found by wl_lop3_synth, src/core/lop3net.c; checked on all 512
         * neighbourhoods).  With m = k + y1 + 2 y2 (T = x0 + 2m): t0 = [m == 0 or m == 2],
         * t1 = x0 ? !t0 : t0 & ctr, n = t1 & !(x0 & y2).  x0 = 1: y2 = 0 and m != 0, 2, i.e.
         * m == 1, T == 3; x0 = 0: ctr & (m == 0 or 2), where m == 0 cannot have a live centre
         * (T >= ctr), so T == 4 with a live centre.  One gate fewer than lop3v's hand network. */
        uint32_t t0, t1;
        WV_LOP3(t0, k, y1, y2, 0x43);
        WV_LOP3(t1, t0, x0, ctr, 0x2C);
        WV_LOP3(n, t1, x0, y2, 0x70);
#ifdef WV_RULE
    } else if (rule == 2) {
        WV_RULE(x0, k, y1, y2, ctr, n);
#endif
    } else {
        uint32_t cy = k & y1; /* T's bit planes: t1 = k ^ y1, t2 = y2 ^ cy, t3 = y2 & cy */
        n = wl_rule_planes9(y2 & cy, y2 ^ cy, k ^ y1, x0, ctr, birth, survive);
    }
    return n;
}

/* Rule 3: the next state n of 32 cells from the nine cell planes (NW N NE W C E SW S SE)
 * and the derived signals of rulenet.h (ST CT SM CM SB CB X0 K Y1 Y2), a network of
 * wl_rnet_synth (src/core/rulenet.c) that NVRTC builds define as WV_CIRCUIT_NET; signals
 * the network does not read are dropped by the compiler. */
#ifdef WV_CIRCUIT_NET
#define WV_CIRCUIT(nw_, n_, ne_, w_, c_, e_, sw_, s_, se_, st_, ct_, sm_, cm_, sb_, cb_, x0_,  \
                   k_, y1_, y2_, out_)                                                     \
    do {                                                                                   \
        const uint32_t c_se = (se_), c_s = (s_), c_sw = (sw_), c_e = (e_), c_c = (c_),      \
                       c_w = (w_), c_ne = (ne_), c_n = (n_), c_nw = (nw_), d_st = (st_),    \
                       d_ct = (ct_), d_sm = (sm_), d_cm = (cm_), d_sb = (sb_), d_cb = (cb_), \
                       d_x0 = (x0_), d_k = (k_), d_y1 = (y1_), d_y2 = (y2_);               \
        WV_CIRCUIT_NET(out_);                                                              \
    } while (0)
#else
#define WV_CIRCUIT(nw_, n_, ne_, w_, c_, e_, sw_, s_, se_, st_, ct_, sm_, cm_, sb_, cb_, x0_,  \
                   k_, y1_, y2_, out_)                                                     \
    ((void)(nw_), (void)(n_), (void)(ne_), (void)(sw_), (void)(s_), (void)(se_),           \
     (out_) = 0u) /* nvcc's instances: never rule 3 */
#endif

/* Rows are loaded WV_AHEAD iterations before they are used (a ring of 3 registers, which
 * the 3-fold unrolling rotates without moves): a warp's iteration is a few hundred cycles
 * and one wave of warps holds the whole GPU, so a load issued one iteration ahead still
 * stalled (first H100 run: 2.57e13 CUpS with a 1-row lead). */
#define WV_AHEAD 3

/* Advances a loaded row index: rr the virtual row, rm its row in memory (wrapped on a torus;
 * = rr on a bounded grid, whose rows outside [0, h) read as 0). */
#define WV_NEXT_ROW(rr, rm)                                                                \
    do {                                                                                   \
        (rr)++;                                                                            \
        if (++(rm) == h && torus) (rm) = 0;                                                \
    } while (0)

/* The guarded load of one lane's word of virtual row rr (rm: see WV_NEXT_ROW).  lmode: 0 a
 * word outside a bounded grid (0); 1 the word cw of the row; 2 a torus whose width is not a
 * multiple of 32 (>= 32): the 32 cells from column x = 32 j + s, i.e. words j and j + 1
 * funnel-shifted, and the row's first cells above bit n = w - x when the window wraps
 * (memory past column w - 1 is 0); 3 narrower tori: wl_win32. */
__device__ __forceinline__ uint32_t wv_load_edge(const uint32_t *__restrict__ in, uint64_t nw,
                                                 int64_t w, int64_t h, int torus, int64_t rr,
                                                 int64_t rm, int64_t c, int lmode, int64_t cw,
                                                 int64_t j, unsigned s, unsigned n) {
    if (!torus && (uint64_t)rr >= (uint64_t)h) return 0u;
    const uint32_t *row = in + (uint64_t)rm * nw;
    if (lmode == 1) return row[cw];
    if (lmode == 2) {
        uint32_t lo = row[j], hi = (uint64_t)(j + 1) < nw ? row[j + 1] : 0u;
        uint32_t v = __funnelshift_r(lo, hi, s);
        return n < 32 ? v | row[0] << n : v;
    }
    if (lmode == 3) return wl_win32_call(in, nw, w, h, torus, rr, c);
    return 0u;
}

/* One iteration of the wavefront: take row r (loaded WV_AHEAD iterations ago) and load row
 * r + WV_AHEAD (LOAD 0: a plain pointer; 2: the same, masked by lane; 1: wv_load_edge),
 * run the K levels (ROWM:
 * clear output rows outside [0, h); COLM: clear columns outside the grid), and store level
 * K's row once it is exact (masked to the grid's columns: a torus's partial last word is
 * computed from wrapped cells, but memory past column w - 1 must stay 0). */
#define WV_ITER(LOAD, ROWM, COLM)                                                          \
    do {                                                                                   \
        uint32_t v;                                                                        \
        v = a0; /* rows arrive WV_AHEAD iterations after their load was issued */          \
        a0 = a1;                                                                           \
        a1 = a2;                                                                           \
        if (LOAD == 0) {                                                                   \
            a2 = *p;                                                                       \
            p += nw;                                                                       \
        } else if (LOAD == 2) {                                                            \
            a2 = *p & lmask;                                                               \
            p += nw;                                                                       \
        } else {                                                                           \
            a2 = wv_load_edge(in, nw, w, h, torus, rl, rml, c, lmode, cw, wj, ws, wn);     \
            WV_NEXT_ROW(rl, rml);                                                          \
        }                                                                                  \
        _Pragma("unroll") for (int g = kk; g >= 1; g--) {                                  \
            const uint32_t x = g == 1 ? v : lat[g - 1];                                    \
            uint32_t xl, xr, sn, cn, x0, k, y1v, y2v, n;                                   \
            WV_HSUM3(x, xl, xr, sn, cn);                                                   \
            WV_LOP3(x0, sa[g], sb[g], sn, 0x96);                                           \
            WV_LOP3(k, sa[g], sb[g], sn, 0xE8);                                            \
            WV_LOP3(y1v, ca[g], cb[g], cn, 0x96);                                          \
            WV_LOP3(y2v, ca[g], cb[g], cn, 0xE8);                                          \
            if (rule == 3) {                                                               \
                WV_CIRCUIT(la[g], xa[g], ra[g], lb[g], mid[g], rb[g], xl, x, xr, sa[g],     \
                           ca[g], sb[g], cb[g], sn, cn, x0, k, y1v, y2v, n);               \
                la[g] = lb[g];                                                             \
                xa[g] = mid[g];                                                            \
                ra[g] = rb[g];                                                             \
                lb[g] = xl;                                                                \
                rb[g] = xr;                                                                \
            } else {                                                                       \
                n = wv_next(x0, k, y1v, y2v, mid[g], birth, survive, rule);                \
            }                                                                              \
            if (ROWM) { /* level g's output is row r - (2g - 1) */                        \
                const int64_t y_ = r - (2 * g - 1);                                        \
                n &= (uint64_t)y_ < (uint64_t)h ? cm : 0u;                                 \
            } else if (COLM) {                                                             \
                n &= cm;                                                                   \
            }                                                                              \
            lat[g] = n;                                                                    \
            sa[g] = sb[g];                                                                 \
            ca[g] = cb[g];                                                                 \
            sb[g] = sn;                                                                    \
            cb[g] = cn;                                                                    \
            mid[g] = x;                                                                    \
        }                                                                                  \
        if (t >= first_store) {                                                            \
            if (lane_out) *q = lat[kk] & cm_st;                                            \
            q += nw;                                                                       \
        }                                                                                  \
        r++;                                                                               \
    } while (0)

/* Iterations [t, t_end) of one variant, unrolled WV_UNROLL times (3: the row triples and
 * the load ring rotate without moves; NVRTC builds may define another for tuning). */
#ifndef WV_UNROLL
#define WV_UNROLL 3
#endif
#define WV_PRAGMA_(x) _Pragma(#x)
#define WV_UNROLL_PRAGMA(n) WV_PRAGMA_(unroll n)
#define WV_SEG(t_end, LOAD, ROWM, COLM)                                                    \
    do {                                                                                   \
        const int64_t te_ = (t_end);                                                       \
        WV_UNROLL_PRAGMA(WV_UNROLL) for (; t < te_; t++) WV_ITER(LOAD, ROWM, COLM);       \
    } while (0)

/* One task's rows: y0 .. y1-1 of generation K.  fast: every loaded row and column lies
 * inside the grid.  Plain pointer loads for those and for every task of a torus whose width
 * is a multiple of 32; guarded loads for the sides of other tori; on a bounded grid guarded
 * loads everywhere, row masks in the first and last iterations (where a loaded row or some
 * level's output row lies outside [0, h)), and the column mask in strips that reach past
 * the grid's sides. */
__device__ __forceinline__ void wave_rows(const uint32_t *__restrict__ in,
                                          uint32_t *__restrict__ out, int64_t w, int64_t h,
                                          uint64_t nw, int torus, int64_t c, int64_t y0,
                                          int64_t y1, int lane_out, int col_edge,
                                          unsigned birth, unsigned survive, const int rule,
                                          const int kk, const int fast) {
    /* per level g (1..K): horizontal sums of the two previous input rows (a: older), the
     * middle input row, and the level's latest output (the next level's next input) */
    uint32_t sa[WV_KMAX + 1], ca[WV_KMAX + 1], sb[WV_KMAX + 1], cb[WV_KMAX + 1];
    uint32_t mid[WV_KMAX + 1], lat[WV_KMAX + 1];
    /* rule 3 (a circuit over the nine cells): the west, centre and east planes of the older
     * row (la, xa, ra) and the west and east planes of the middle one (lb, rb) */
    uint32_t la[WV_KMAX + 1], xa[WV_KMAX + 1], ra[WV_KMAX + 1], lb[WV_KMAX + 1], rb[WV_KMAX + 1];
#pragma unroll
    for (int g = 0; g <= WV_KMAX; g++) {
        sa[g] = ca[g] = sb[g] = cb[g] = mid[g] = lat[g] = 0u;
        la[g] = xa[g] = ra[g] = lb[g] = rb[g] = 0u;
    }
    const int64_t iters = (y1 - y0) + 3 * kk - 1;
    const int64_t first_store = 3 * kk - 1; /* iteration of row y0's output */
    int64_t r = y0 - kk;                    /* the row loaded in this iteration */
    int64_t t = 0;
    uint32_t *q = out + (uint64_t)y0 * nw + (uint64_t)c; /* level K's next stored row */
    uint32_t a0, a1, a2; /* rows r, r + 1, r + 2 (WV_AHEAD = 3) */
    int64_t rl = r, rml = torus ? wl_dmod(r, h) : r; /* the next row to load */
    int lmode = 0;
    int64_t cw = c, wj = 0;
    unsigned ws = 0, wn = 32;
    const uint32_t cm_st = wl_colmask(w, c);
    uint32_t cm = WV_FULL;
    if (torus) {
        if ((w & 31) == 0) { /* whole words wrap as words */
            lmode = 1;
            cw = wl_dmod(c, (int64_t)nw);
        } else if (c >= 0 && (c + 1) * 32 <= w) {
            lmode = 1;
        } else if (w >= 32) {
            const int64_t x = wl_dmod(c * 32, w);
            lmode = 2;
            wj = x >> 5;
            ws = (unsigned)(x & 31);
            wn = (unsigned)(w - x < 32 ? w - x : 32);
        } else {
            lmode = 3;
        }
    } else { /* bits past w are 0 in memory; words outside read as 0 */
        lmode = c >= 0 && (uint64_t)c < nw ? 1 : 0;
        cm = cm_st;
    }
    a0 = wv_load_edge(in, nw, w, h, torus, rl, rml, c, lmode, cw, wj, ws, wn);
    WV_NEXT_ROW(rl, rml);
    a1 = wv_load_edge(in, nw, w, h, torus, rl, rml, c, lmode, cw, wj, ws, wn);
    WV_NEXT_ROW(rl, rml);
    a2 = wv_load_edge(in, nw, w, h, torus, rl, rml, c, lmode, cw, wj, ws, wn);
    WV_NEXT_ROW(rl, rml);
    if (fast || (torus && (w & 31) == 0)) {
        /* plain pointer loads: every lane's word is a whole word of the grid and no mask is
         * needed; on a torus the pointer goes back to row 0 when the loads pass row h - 1
         * (the edge tasks of a torus whose width is a multiple of 32 run this loop too, so
         * they cost what the inner ones do) */
        const uint32_t *p = in + (uint64_t)rml * nw + (uint64_t)cw;
        const uint32_t lmask = WV_FULL;
        while (t < iters) {
            int64_t t_end = t + (h - rml); /* the iteration whose load would be row h */
            if (t_end > iters) t_end = iters;
            rml += t_end - t;
            WV_SEG(t_end, 0, 0, 0);
            if (rml == h) {
                rml = 0;
                p = in + (uint64_t)cw;
            }
        }
        (void)lmask;
        return;
    }
    const uint32_t *p = in;
    uint32_t lmask = 0u;
    if (torus) { /* width not a multiple of 32: window loads for the lanes at the sides */
        WV_SEG(iters, 1, 0, 0);
        return;
    }
    /* bounded: guarded loads and row masks while some level's output row is < 0 (r < 2K - 1)
     * or >= h (r > h) or the loaded row lies outside [0, h); plain loads in between */
    int64_t t_top = 3 * kk - 1 - y0, t_bot = h + 1 - y0 + kk;
    const int64_t t_lo = -rl, t_hi = h - rl; /* loads of rows 0 and h, counted from t = 0 */
    if (t_top < t_lo) t_top = t_lo;
    if (t_bot > t_hi) t_bot = t_hi;
    t_top = t_top < 0 ? 0 : t_top > iters ? iters : t_top;
    t_bot = t_bot < t_top ? t_top : t_bot > iters ? iters : t_bot;
    /* (plain loads masked by lane in the middle segment, LOAD 2, measured slower on an H100:
     * 2.09e13 against 2.68e13 CUpS for B3/S23 at 65536^2; not understood, so guarded loads) */
    (void)p, (void)lmask;
    WV_SEG(t_top, 1, 1, 1);
    if (col_edge) WV_SEG(t_bot, 1, 0, 1);
    else WV_SEG(t_bot, 1, 0, 0);
    WV_SEG(iters, 1, 1, 1);
}

/* The kernel body: task = global warp index; strip = task % strips (neighbouring warps share
 * halo columns in L2), chunk = task / strips. */
__device__ __forceinline__ void wave_body(const uint32_t *__restrict__ in,
                                          uint32_t *__restrict__ out, int64_t w, int64_t h,
                                          uint64_t nw, int torus, int64_t strips,
                                          int64_t chunks, int64_t hc, unsigned birth,
                                          unsigned survive, const int rule, const int kk) {
    const int lane = threadIdx.x & 31;
    const int64_t task = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (task >= strips * chunks) return; /* whole warps leave: no barrier anywhere */
    const int64_t strip = task % strips, chunk = task / strips;
    const int64_t c = strip * WV_LANES_OUT + lane - 1;
    const int64_t y0 = chunk * hc, y1 = y0 + hc < h ? y0 + hc : h;
    const int64_t col_lo = (strip * WV_LANES_OUT - 1) * 32; /* lane 0's first cell */
    const int col_edge = !(col_lo >= 0 && col_lo + 32 * 32 <= w);
    /* the fast path reads rows y0-K .. y1+2K-2+WV_AHEAD (loads run ahead of the last row) */
    const int fast = !col_edge && y0 - kk >= 0 && y1 + 2 * kk - 2 + WV_AHEAD < h;
    const int lane_out = lane >= 1 && lane <= WV_LANES_OUT && (uint64_t)c < nw;
    if (fast)
        wave_rows(in, out, w, h, nw, torus, c, y0, y1, lane_out, 0, birth, survive, rule, kk, 1);
    else
        wave_rows(in, out, w, h, nw, torus, c, y0, y1, lane_out, col_edge, birth, survive, rule,
                  kk, 0);
}

#endif
