/*
 * cuda_bits.cu - one-generation-per-launch kernels on the bit layout (WLCU_BITS: row-major
 * 32-bit words, bit i of word j = cell 32j + i; padding bits past column W-1 are zero):
 *
 *   lut6x3    a thread owns one word.  For each of the three rows it builds the 34-cell
 *             strip (one cell of halo on each side) in a 64-bit register; each nibble of 4
 *             cells then takes a 6x3 window (18 bits: bit 6r + k = cell x0 - 1 + k of row
 *             y - 1 + r) and one lookup in a 262144-entry table gives the 4 next states.
 *             8 lookups per 32 cells; any rule (the table is made from the rule's table).
 *   bitcount  a thread owns one word and counts the eight neighbours of its 32 cells at
 *             once with bitwise adders: 8 shifted neighbour planes are summed by full and
 *             half adders into a 4-bit count (planes n3..n0), and the birth/survive masks of
 *             an outer-totalistic rule pick the next state (a uniform branch per count).
 *
 * The neighbour words come from wl_win32 (cuda_common.cuh), which wraps on a torus and reads
 * dead cells outside a bounded grid, so edge words need no special kernel.  The output of the
 * last, partial word of each row is masked to keep the padding zero.  Each word is read 9
 * times from the cache but only once from DRAM, so both move ~2 bits per cell update.
 */
#include "cuda_common.cuh"

#include <stdlib.h>

#define LUT6X3_SIZE (1u << 18)

static void build_lut6x3(const wl_rule *r, uint8_t *t) {
    for (unsigned idx = 0; idx < LUT6X3_SIZE; idx++) {
        unsigned out = 0;
        for (unsigned k = 0; k < 4; k++) {
            unsigned nb = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++)
                    nb = (nb << 1) | ((idx >> ((dy + 1) * 6 + (int)k + 1 + dx)) & 1u);
            out |= (unsigned)wl_rule_next(r, nb) << k;
        }
        t[idx] = (uint8_t)out;
    }
}

extern "C" wl_status wlcu_bits_init(wlcu_ctx *c) {
    return c->kernel == WLCU_K_LUT6X3 ? wlcu_lut6x3_table(c) : WL_OK;
}

extern "C" wl_status wlcu_lut6x3_table(wlcu_ctx *c) {
    if (c->table) return WL_OK;
    uint8_t *t = (uint8_t *)wl_malloc(LUT6X3_SIZE);
    if (!t) return WL_ERR_NOMEM;
    build_lut6x3(&c->rule, t);
    cudaError_t e = cudaMalloc(&c->table, LUT6X3_SIZE);
    if (e == cudaSuccess) e = cudaMemcpy(c->table, t, LUT6X3_SIZE, cudaMemcpyHostToDevice);
    free(t);
    WLCU_CHECK(e);
    return WL_OK;
}

/* Loads the three rows' left, centre and right words of word (y, j): directly when all
 * nine lie inside the grid, else through the wrapping loader. */
#define LOAD_3X3(in, nw, w, h, torus, y, j)                                                \
    uint32_t L[3], C[3], R[3];                                                             \
    if (y >= 1 && y + 1 < h && j >= 1 && (j + 2) * 32 <= w) {                              \
        const uint32_t *p_ = in + (uint64_t)(y - 1) * nw + (uint64_t)j;                    \
        _Pragma("unroll") for (int r = 0; r < 3; r++, p_ += nw) {                          \
            L[r] = p_[-1];                                                                 \
            C[r] = p_[0];                                                                  \
            R[r] = p_[1];                                                                  \
        }                                                                                  \
    } else {                                                                               \
        _Pragma("unroll") for (int r = 0; r < 3; r++) {                                    \
            L[r] = wl_win32_call(in, nw, w, h, torus, y - 1 + r, j - 1);                   \
            C[r] = wl_win32_call(in, nw, w, h, torus, y - 1 + r, j);                       \
            R[r] = wl_win32_call(in, nw, w, h, torus, y - 1 + r, j + 1);                   \
        }                                                                                  \
    }

/* Loops over the words of the grid: rows by blockIdx.y, words of a row by x threads (no
 * 64-bit division per word). */
#define FOR_EACH_WORD(nw, h, y, j)                                                         \
    for (int64_t y = blockIdx.y; y < (h); y += gridDim.y)                                  \
        for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < (int64_t)(nw); \
             j += (int64_t)gridDim.x * blockDim.x)

__global__ void k_lut6x3(const uint32_t *in, uint32_t *out, const uint8_t *__restrict__ lut,
                         int64_t w, int64_t h, uint64_t nw, int torus) {
    FOR_EACH_WORD(nw, h, y, j) {
        uint64_t i = (uint64_t)y * nw + (uint64_t)j;
        LOAD_3X3(in, nw, w, h, torus, y, j)
        uint64_t e[3];
#pragma unroll
        for (int r = 0; r < 3; r++)
            e[r] = (uint64_t)(L[r] >> 31) | (uint64_t)C[r] << 1 | (uint64_t)(R[r] & 1u) << 33;
        uint32_t v = 0;
#pragma unroll
        for (unsigned k = 0; k < 8; k++) {
            unsigned idx = (unsigned)((e[0] >> (4 * k)) & 63u) |
                           (unsigned)((e[1] >> (4 * k)) & 63u) << 6 |
                           (unsigned)((e[2] >> (4 * k)) & 63u) << 12;
            v |= (uint32_t)lut[idx] << (4 * k);
        }
        out[i] = v & wl_colmask(w, j);
    }
}

/* a + b + c = 2*carry + sum, bit-parallel. */
#define FULL_ADD(a, b, c, s, cy)                                                           \
    do {                                                                                   \
        uint32_t t_ = (a) ^ (b);                                                           \
        s = t_ ^ (c);                                                                      \
        cy = ((a) & (b)) | (t_ & (c));                                                     \
    } while (0)

__global__ void k_bitcount(const uint32_t *in, uint32_t *out, int64_t w, int64_t h, uint64_t nw,
                           int torus, unsigned birth, unsigned survive) {
    FOR_EACH_WORD(nw, h, y, j) {
        uint64_t i = (uint64_t)y * nw + (uint64_t)j;
        LOAD_3X3(in, nw, w, h, torus, y, j)
        /* neighbour planes: bit i of xl is cell x - 1, of xr cell x + 1 */
        uint32_t ul = __funnelshift_l(L[0], C[0], 1), ur = __funnelshift_r(C[0], R[0], 1);
        uint32_t ml = __funnelshift_l(L[1], C[1], 1), mr = __funnelshift_r(C[1], R[1], 1);
        uint32_t dl = __funnelshift_l(L[2], C[2], 1), dr = __funnelshift_r(C[2], R[2], 1);
        uint32_t s1, c1, s2, c2, s3, c3, n0, c4, t, c5, n1, c6;
        FULL_ADD(ul, C[0], ur, s1, c1);
        FULL_ADD(ml, mr, dl, s2, c2);
        s3 = C[2] ^ dr;
        c3 = C[2] & dr;
        FULL_ADD(s1, s2, s3, n0, c4);
        FULL_ADD(c1, c2, c3, t, c5);
        n1 = t ^ c4;
        c6 = t & c4;
        uint32_t n2 = c5 ^ c6, n3 = c5 & c6;
        out[i] = wl_rule_planes8(n3, n2, n1, n0, C[1], birth, survive) & wl_colmask(w, j);
    }
}

static wl_status bits_step(wlcu_ctx *c, int kernel) {
    const uint32_t *in = (const uint32_t *)c->cur;
    uint32_t *out = (uint32_t *)c->nxt;
    int64_t w = (int64_t)c->w, h = (int64_t)c->h;
    dim3 blocks((unsigned)((c->nw + 255) / 256 < 65535 ? (c->nw + 255) / 256 : 65535),
                (unsigned)(c->h < 65535 ? c->h : 65535));
    if (kernel == WLCU_K_LUT6X3) {
        k_lut6x3<<<blocks, 256>>>(in, out, (const uint8_t *)c->table, w, h, c->nw, c->torus);
        WLCU_CHECK_LAUNCH("lut6x3");
    } else {
        k_bitcount<<<blocks, 256>>>(in, out, w, h, c->nw, c->torus, c->birth, c->survive);
        WLCU_CHECK_LAUNCH("bitcount");
    }
    return WL_OK;
}

extern "C" wl_status wlcu_bits_step(wlcu_ctx *c, unsigned gens) {
    (void)gens; /* one generation per launch */
    return bits_step(c, c->kernel);
}

extern "C" wl_status wlcu_bitcount_step(wlcu_ctx *c) { return bits_step(c, WLCU_K_BITCOUNT); }
extern "C" wl_status wlcu_lut6x3_step(wlcu_ctx *c) { return bits_step(c, WLCU_K_LUT6X3); }
