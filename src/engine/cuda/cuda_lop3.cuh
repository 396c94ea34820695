/*
 * cuda_lop3.cuh - the bitsliced one-generation row logic shared by the multi-generation
 * kernels `lop3` (cuda_lop3.cu) and `lop3v` (cuda_lop3v.cu): horizontal 3-cell sums with warp
 * shuffles and funnel shifts, rows in pairs sharing the sum of their two middle rows, and the
 * rule evaluated on the planes of the 9-cell sum.  cuda_lop3.cu's essay explains the counts.
 *
 * LOP3_GENERATION expects, in the calling scope: uint32_t v[] (the rows of this lane's word
 * column), unsigned birth, survive and int life (1: B3/S23 shortcut).
 */
#ifndef WL_CUDA_LOP3_CUH
#define WL_CUDA_LOP3_CUH

#include "cuda_common.cuh"

#define FULL_MASK 0xffffffffu

/* Horizontal 3-cell sum of word v (lane-wise): h0 + 2*h1 = left + centre + right. */
#define HSUM(v, h0, h1)                                                                    \
    do {                                                                                   \
        uint32_t l_ = __shfl_up_sync(FULL_MASK, (v), 1);                                   \
        uint32_t r_ = __shfl_down_sync(FULL_MASK, (v), 1);                                 \
        uint32_t xl_ = __funnelshift_l(l_, (v), 1), xr_ = __funnelshift_r((v), r_, 1);     \
        h0 = xl_ ^ (v) ^ xr_;                                                              \
        h1 = (xl_ & (v)) | (xr_ & (xl_ ^ (v)));                                            \
    } while (0)

/* Next state of a row from its 9-cell sum = (a1 a0) + (p2 p1 p0) and its centre plane. */
__device__ __forceinline__ uint32_t lop3_next(uint32_t a0, uint32_t a1, uint32_t p0, uint32_t p1,
                                              uint32_t p2, uint32_t ctr, unsigned birth,
                                              unsigned survive, int life) {
    uint32_t s0 = a0 ^ p0, k0 = a0 & p0;
    uint32_t s1 = a1 ^ p1 ^ k0, k1 = (a1 & p1) | (k0 & (a1 ^ p1));
    uint32_t s2 = p2 ^ k1;
    if (life) return (~s2 & s1 & s0) | (s2 & ~s1 & ~s0 & ctr);
    uint32_t s3 = p2 & k1;
    return wl_rule_planes9(s3, s2, s1, s0, ctr, birth, survive);
}

/* One generation of rows lo..hi-1 (hi - lo even) in place in v[], rows in pairs sharing
 * P = H(i) + H(i+1).  Rows lo-1 and hi are read, not written. */
#define LOP3_GENERATION(lo, hi)                                                            \
    do {                                                                                   \
        uint32_t a0, a1, b0, b1; /* H of rows i-1 and i */                                 \
        HSUM(v[(lo) - 1], a0, a1);                                                         \
        HSUM(v[(lo)], b0, b1);                                                             \
        _Pragma("unroll") for (int i = (lo); i < (hi); i += 2) {                           \
            uint32_t c0, c1, d0, d1; /* H of rows i+1 and i+2 (old values) */              \
            HSUM(v[i + 1], c0, c1);                                                        \
            HSUM(v[i + 2], d0, d1);                                                        \
            uint32_t q0 = b0 ^ c0, cy = b0 & c0; /* P = H(i) + H(i+1) */                   \
            uint32_t q1 = b1 ^ c1 ^ cy, q2 = (b1 & c1) | (cy & (b1 ^ c1));                 \
            uint32_t n0 = lop3_next(a0, a1, q0, q1, q2, v[i], birth, survive, life);       \
            uint32_t n1 = lop3_next(d0, d1, q0, q1, q2, v[i + 1], birth, survive, life);   \
            v[i] = n0;                                                                     \
            v[i + 1] = n1;                                                                 \
            a0 = c0;                                                                       \
            a1 = c1;                                                                       \
            b0 = d0;                                                                       \
            b1 = d1;                                                                       \
        }                                                                                  \
    } while (0)

/* The stacked-warp tiles' exchange of edge rows (lop3v, and Generations' k_genv): each warp
 * publishes its slice's top and bottom rows v[1] and v[nr], then takes the rows just above
 * and below its slice into v[0] and v[nr + 1] from its neighbours (zero at the tile's top
 * and bottom).  edge is [2][WB][2][32], double-buffered by the parity ph so that one
 * barrier a generation suffices (a warp writes parity p again only after every warp has
 * passed the next barrier, i.e. after all reads of parity p). */
#define STACKED_EXCHANGE(edge, ph, warp, lane, v, nr, wb)                                  \
    do {                                                                                   \
        (edge)[ph][warp][0][lane] = (v)[1];                                                \
        (edge)[ph][warp][1][lane] = (v)[nr];                                               \
        __syncthreads();                                                                   \
        (v)[0] = (warp) > 0 ? (edge)[ph][(warp) - 1][1][lane] : 0u;                        \
        (v)[(nr) + 1] = (warp) < (wb) - 1 ? (edge)[ph][(warp) + 1][0][lane] : 0u;          \
        (ph) ^= 1;                                                                         \
    } while (0)

#endif
