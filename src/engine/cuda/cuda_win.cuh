/*
 * cuda_win.cuh - the device helpers of the CUDA engine that need no CUDA runtime header, so
 * that both nvcc and NVRTC (the run-time compiled rule kernels of cuda_rtc.cu) compile them:
 * virtual-coordinate cell access for the byte layout, the 32-cell window loader of the bit
 * layout, the column mask of bounded grids, and outer-totalistic rules evaluated on bit
 * planes.  cuda_common.cuh's essay explains the virtual coordinates.
 */
#ifndef WL_CUDA_WIN_CUH
#define WL_CUDA_WIN_CUH

#ifdef __CUDACC_RTC__ /* NVRTC has no C library headers */
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
#else
#include <stdint.h>
#endif

/* Non-negative remainder of a (possibly negative) virtual coordinate. */
__device__ __forceinline__ int64_t wl_dmod(int64_t a, int64_t m) {
    int64_t r = a % m;
    return r < 0 ? r + m : r;
}

/* ---- byte layout ---- */

/* Cell (x, y) of a byte grid in virtual coordinates: wrapped on a torus, 0 outside on a
 * bounded grid. */
__device__ __forceinline__ unsigned wl_byte_at(const uint8_t *g, int64_t w, int64_t h, int torus,
                                               int64_t x, int64_t y) {
    if (x < 0 || x >= w || y < 0 || y >= h) {
        if (!torus) return 0;
        x = wl_dmod(x, w);
        y = wl_dmod(y, h);
    }
    return g[y * w + x];
}

/* ---- bit layout ---- */

/* n (1..32) cells of one row starting at column x, with x + n <= W; zero above bit n-1.
 * Relies on the zero padding after column W-1. */
__device__ __forceinline__ uint32_t wl_bits_at(const uint32_t *row, uint64_t nw, uint64_t x,
                                               unsigned n) {
    uint64_t j = x >> 5;
    uint32_t lo = row[j];
    uint32_t hi = (j + 1 < nw) ? row[j + 1] : 0u;
    uint32_t v = __funnelshift_r(lo, hi, (unsigned)(x & 31));
    return n >= 32 ? v : (v & ((1u << n) - 1u));
}

/* v = the 32 cells from column x0 (0 <= x0 < w) of a torus row, wrapping past column w-1:
 * READ(x, n) gives the n cells from column x (x + n <= w) in the low bits, zero above.  At
 * most two pieces unless the grid is narrower than a word.  (Shared by the bit layout's
 * window below and the pair layout's, cuda_pair.cuh.) */
#define WL_WRAP32(v, w, x0, READ)                                                          \
    do {                                                                                   \
        int64_t x_ = (x0);                                                                 \
        unsigned pos_ = 0;                                                                 \
        (v) = 0;                                                                           \
        while (pos_ < 32) {                                                                \
            uint64_t n_ = (uint64_t)((w) - x_);                                            \
            if (n_ > 32 - pos_) n_ = 32 - pos_;                                            \
            (v) |= READ((uint64_t)x_, (unsigned)n_) << pos_;                               \
            pos_ += (unsigned)n_;                                                          \
            x_ = 0;                                                                        \
        }                                                                                  \
    } while (0)

/* The 32 cells starting at virtual column 32*c of virtual row r (see the header comment). */
static __device__ __noinline__ uint32_t wl_win32_call(const uint32_t *g, uint64_t nw, int64_t w,
                                               int64_t h, int torus, int64_t r, int64_t c);
__device__ __forceinline__ uint32_t wl_win32(const uint32_t *g, uint64_t nw, int64_t w,
                                             int64_t h, int torus, int64_t r, int64_t c) {
    if (r < 0 || r >= h) {
        if (!torus) return 0u;
        r = wl_dmod(r, h);
    }
    const uint32_t *row = g + (uint64_t)r * nw;
    int64_t x = c * 32;
    if (x >= 0 && x + 32 <= w) return row[c]; /* the fast path: a whole word inside */
    if (!torus) return (x < 0 || x >= w) ? 0u : row[c]; /* partial last word: padding is 0 */
    uint32_t v;
#define WL_WIN32_READ_(x_, n_) wl_bits_at(row, nw, x_, n_)
    WL_WRAP32(v, w, wl_dmod(x, w), WL_WIN32_READ_);
#undef WL_WIN32_READ_
    return v;
}

/* The same, out of line: for tile loaders that call it for many rows at a grid's edge, so
 * that the rare slow path is not inlined once per row. */
static __device__ __noinline__ uint32_t wl_win32_call(const uint32_t *g, uint64_t nw, int64_t w,
                                               int64_t h, int torus, int64_t r, int64_t c) {
    return wl_win32(g, nw, w, h, torus, r, c);
}

/* Mask of the bits of word c that are real cells (bounded grids mask ghosts with it). */
__device__ __forceinline__ uint32_t wl_colmask(int64_t w, int64_t c) {
    int64_t x = c * 32;
    if (x < 0 || x >= w) return 0u;
    if (x + 32 <= w) return 0xffffffffu;
    return (1u << (unsigned)(w - x)) - 1u;
}

/* ---- outer-totalistic rules on bit planes ---- */

/* Next state of 32 cells from the 4-bit count of the NINE cells (centre included), given as
 * planes t3..t0, and the centre plane c.  A dead cell is born when bit n of `birth` is set
 * for its n live neighbours (n = t); a live one survives when bit n of `survive` is set
 * (n = t - 1).  With compile-time masks the unrolled tests fold away into a few LOP3s. */
__device__ __forceinline__ uint32_t wl_rule_planes9(uint32_t t3, uint32_t t2, uint32_t t1,
                                                    uint32_t t0, uint32_t c, unsigned birth,
                                                    unsigned survive) {
    uint32_t r = 0;
#pragma unroll
    for (unsigned n = 0; n <= 9; n++) {
        unsigned b = n <= 8 ? (birth >> n) & 1u : 0u;
        unsigned s = n >= 1 ? (survive >> (n - 1)) & 1u : 0u;
        if (!b && !s) continue;
        uint32_t eq = ((n & 8) ? t3 : ~t3) & ((n & 4) ? t2 : ~t2) & ((n & 2) ? t1 : ~t1) &
                      ((n & 1) ? t0 : ~t0);
        if (b && s) r |= eq;
        else if (b) r |= eq & ~c;
        else r |= eq & c;
    }
    return r;
}

/* Next state from the 4-bit count of the EIGHT neighbours (planes n3..n0). */
__device__ __forceinline__ uint32_t wl_rule_planes8(uint32_t n3, uint32_t n2, uint32_t n1,
                                                    uint32_t n0, uint32_t c, unsigned birth,
                                                    unsigned survive) {
    uint32_t r = 0;
#pragma unroll
    for (unsigned n = 0; n <= 8; n++) {
        unsigned b = (birth >> n) & 1u, s = (survive >> n) & 1u;
        if (!b && !s) continue;
        uint32_t eq = ((n & 8) ? n3 : ~n3) & ((n & 4) ? n2 : ~n2) & ((n & 2) ? n1 : ~n1) &
                      ((n & 1) ? n0 : ~n0);
        if (b && s) r |= eq;
        else if (b) r |= eq & ~c;
        else r |= eq & c;
    }
    return r;
}

/* ---- Generations ---- */

/* The decay of one word of a Generations rule (cuda_multi.cu's essay: F the firing cells, E
 * the P bit planes of state - 1 of the others): t is the rule's answer for the word whose
 * firing cells are m, e[] its P planes of E (registers).  Refractory cells (any E) do not
 * fire, their E counts up and wraps to dead at `last` (states - 1), cells that stop firing
 * get E = 1.  t becomes the next F; e[] is updated in place. */
#define WL_GEN_DECAY(t, m, e, P, last)                                                     \
    do {                                                                                   \
        uint32_t d_ = 0;                                                                   \
        _Pragma("unroll") for (unsigned k_ = 0; k_ < (P); k_++) d_ |= (e)[k_];             \
        (t) &= ~d_;                                                                        \
        uint32_t carry_ = d_, eq_ = d_, died_ = (m) & ~(t);                                \
        _Pragma("unroll") for (unsigned k_ = 0; k_ < (P); k_++) {                          \
            uint32_t v_ = (e)[k_] ^ carry_;                                                \
            carry_ &= (e)[k_];                                                             \
            eq_ &= ~(v_ ^ (0u - (((last) >> k_) & 1u)));                                   \
            (e)[k_] = v_;                                                                  \
        }                                                                                  \
        _Pragma("unroll") for (unsigned k_ = 0; k_ < (P); k_++)                            \
            (e)[k_] = ((e)[k_] & ~eq_) | (k_ ? 0u : died_);                                \
    } while (0)

#endif
