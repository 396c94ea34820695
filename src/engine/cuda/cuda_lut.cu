/*
 * cuda_lut.cu - lookup-table kernels that update several cells per lookup:
 *
 *   lut4x4     byte per cell (WLCU_BYTES).  A thread owns a 2x2 block of cells; it packs
 *              the 4x4 neighbourhood around it into a 16-bit index (bit 4r + c is the cell
 *              at row r, column c of the 4x4 window) and one lookup in a 65536-entry table
 *              gives the four next states (bit 2*dr + dc for cell (1 + dc, 1 + dr) of the
 *              window).  16 byte reads per 4 cells instead of 36.
 *   lut4x4-64  the same with a 32x32-thread block covering 64x64 cells: the block first
 *              stages its 66x66 cells (tile + one-cell halo) in shared memory.
 *   patch16    the 4x4 block of cells is the storage unit (WLCU_PATCH, one 16-bit word per
 *              block, bit 4r + c = cell (c, r)).  A thread owns one block, reads it and its
 *              8 neighbours (9 words, 18 bytes for 16 cells), assembles the 6x6
 *              neighbourhood in one 64-bit register (bit 6i + j = cell (j - 1, i - 1)), and
 *              makes four 4x4 -> 2x2 lookups.  Storage is 1 bit per cell, so it moves 8x
 *              fewer bytes than the byte kernels.
 *
 * The table is built on the host from the rule's 512-entry table, so every rule runs.  Blocks
 * touching the grid's edge use a wrapping / bounds-checked accessor; all others index
 * directly.
 */
#include "cuda_common.cuh"

#include <stdlib.h>

/* The 65536-entry 4x4 -> 2x2 table for a rule (host side). */
static void build_lut4x4(const wl_rule *r, uint8_t *t) {
    for (unsigned idx = 0; idx < 65536; idx++) {
        unsigned out = 0;
        for (unsigned dr = 0; dr < 2; dr++)
            for (unsigned dc = 0; dc < 2; dc++) {
                unsigned nb = 0;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        unsigned row = 1 + dr + dy, col = 1 + dc + dx;
                        nb = (nb << 1) | ((idx >> (row * 4 + col)) & 1u);
                    }
                out |= (unsigned)wl_rule_next(r, nb) << (dr * 2 + dc);
            }
        t[idx] = (uint8_t)out;
    }
}

extern "C" wl_status wlcu_lut_init(wlcu_ctx *c) {
    uint8_t *t = (uint8_t *)wl_malloc(65536);
    if (!t) return WL_ERR_NOMEM;
    build_lut4x4(&c->rule, t);
    cudaError_t e = cudaMalloc(&c->table, 65536);
    if (e == cudaSuccess) e = cudaMemcpy(c->table, t, 65536, cudaMemcpyHostToDevice);
    free(t);
    WLCU_CHECK(e);
    return WL_OK;
}

/* ---- lut4x4 on bytes ---- */

__device__ __forceinline__ void lut_store2x2(uint8_t *out, int64_t w, int64_t h, int64_t x0,
                                             int64_t y0, unsigned r) {
    for (int dr = 0; dr < 2; dr++)
        for (int dc = 0; dc < 2; dc++)
            if (x0 + dc < w && y0 + dr < h) out[(y0 + dr) * w + x0 + dc] = (r >> (dr * 2 + dc)) & 1u;
}

__global__ void k_lut4x4(const uint8_t *in, uint8_t *out, const uint8_t *__restrict__ lut,
                         int64_t w, int64_t h, int torus, int64_t bw, int64_t nblocks) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < nblocks;
         i += (int64_t)gridDim.x * blockDim.x) {
        int64_t x0 = (i % bw) * 2, y0 = (i / bw) * 2;
        unsigned idx = 0;
        if (x0 >= 1 && x0 + 2 < w && y0 >= 1 && y0 + 2 < h) {
            const uint8_t *p = in + (y0 - 1) * w + (x0 - 1);
#pragma unroll
            for (int r = 0; r < 4; r++, p += w)
                idx |= (unsigned)(p[0] | p[1] << 1 | p[2] << 2 | p[3] << 3) << (4 * r);
        } else {
            for (int r = 0; r < 4; r++)
                for (int cc = 0; cc < 4; cc++)
                    idx |= wl_byte_at(in, w, h, torus, x0 - 1 + cc, y0 - 1 + r) << (4 * r + cc);
        }
        lut_store2x2(out, w, h, x0, y0, lut[idx]);
    }
}

#define L64 64 /* cells per side of a lut4x4-64 tile */

__global__ void k_lut4x4_64(const uint8_t *in, uint8_t *out, const uint8_t *__restrict__ lut,
                            int64_t w, int64_t h, int torus, int64_t tiles_x, int64_t tiles) {
    __shared__ uint8_t t[L64 + 2][L64 + 2 + 2];
    int tid = threadIdx.y * 32 + threadIdx.x;
    for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        int64_t X0 = (tile % tiles_x) * L64, Y0 = (tile / tiles_x) * L64;
        for (int k = tid; k < (L64 + 2) * (L64 + 2); k += 1024) {
            int ty = k / (L64 + 2), tx = k % (L64 + 2);
            t[ty][tx] = (uint8_t)wl_byte_at(in, w, h, torus, X0 + tx - 1, Y0 + ty - 1);
        }
        __syncthreads();
        int lx = threadIdx.x * 2, ly = threadIdx.y * 2; /* window top-left in the tile */
        unsigned idx = 0;
#pragma unroll
        for (int r = 0; r < 4; r++)
            idx |= (unsigned)(t[ly + r][lx] | t[ly + r][lx + 1] << 1 | t[ly + r][lx + 2] << 2 |
                              t[ly + r][lx + 3] << 3)
                   << (4 * r);
        lut_store2x2(out, w, h, X0 + lx, Y0 + ly, lut[idx]);
        __syncthreads();
    }
}

/* ---- patch16 ---- */

/* Cell (x, y) of the patch layout in virtual coordinates. */
__device__ __forceinline__ unsigned patch_cell(const uint16_t *p, int64_t w, int64_t h,
                                               int64_t bw, int torus, int64_t x, int64_t y) {
    if (x < 0 || x >= w || y < 0 || y >= h) {
        if (!torus) return 0;
        x = wl_dmod(x, w);
        y = wl_dmod(y, h);
    }
    return (p[(y >> 2) * bw + (x >> 2)] >> ((y & 3) * 4 + (x & 3))) & 1u;
}

/* Row r (0..3) of the 6-cell strip made of left block L, centre C and right block R. */
__device__ __forceinline__ uint64_t strip6(unsigned L, unsigned C, unsigned R, unsigned r) {
    return (uint64_t)(((L >> (4 * r + 3)) & 1u) | ((C >> (4 * r)) & 15u) << 1 |
                      ((R >> (4 * r)) & 1u) << 5);
}

__global__ void k_patch16(const uint16_t *in, uint16_t *out, const uint8_t *__restrict__ lut,
                          int64_t w, int64_t h, int torus, int64_t bw, int64_t bh) {
    int64_t n = bw * bh;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        int64_t bx = i % bw, by = i / bw;
        uint64_t nb = 0; /* bit 6*row + col of the 6x6 neighbourhood */
        if (bx >= 1 && bx + 1 < bw && by >= 1 && by + 1 < bh) {
            const uint16_t *a = in + (by - 1) * bw + bx, *b = a + bw, *c = b + bw;
            unsigned a0 = a[-1], a1 = a[0], a2 = a[1];
            unsigned b0 = b[-1], b1 = b[0], b2 = b[1];
            unsigned c0 = c[-1], c1 = c[0], c2 = c[1];
            nb = strip6(a0, a1, a2, 3);
#pragma unroll
            for (unsigned r = 0; r < 4; r++) nb |= strip6(b0, b1, b2, r) << (6 * (r + 1));
            nb |= strip6(c0, c1, c2, 0) << 30;
        } else {
            for (int r = 0; r < 6; r++)
                for (int cc = 0; cc < 6; cc++)
                    nb |= (uint64_t)patch_cell(in, w, h, bw, torus, bx * 4 - 1 + cc,
                                               by * 4 - 1 + r)
                          << (6 * r + cc);
        }
        unsigned res = 0;
#pragma unroll
        for (unsigned oy = 0; oy < 4; oy += 2)
#pragma unroll
            for (unsigned ox = 0; ox < 4; ox += 2) {
                unsigned idx = 0;
#pragma unroll
                for (unsigned r = 0; r < 4; r++)
                    idx |= (unsigned)((nb >> (6 * (oy + r) + ox)) & 15u) << (4 * r);
                unsigned q = lut[idx];
                res |= ((q & 3u) << (oy * 4 + ox)) | ((q >> 2) << ((oy + 1) * 4 + ox));
            }
        /* cells past the grid's edge stay 0 */
        int64_t xr = w - bx * 4, yr = h - by * 4;
        if (xr < 4) res &= 0x1111u * ((1u << xr) - 1u);
        if (yr < 4) res &= (1u << (4 * yr)) - 1u;
        out[i] = (uint16_t)res;
    }
}

extern "C" wl_status wlcu_lut_step(wlcu_ctx *c, unsigned gens) {
    (void)gens; /* one generation per launch */
    int64_t w = (int64_t)c->w, h = (int64_t)c->h;
    const uint8_t *lut = (const uint8_t *)c->table;
    if (c->kernel == WLCU_K_LUT4X4) {
        int64_t bw = (w + 1) / 2, bh = (h + 1) / 2;
        k_lut4x4<<<wlcu_blocks((uint64_t)(bw * bh), 256), 256>>>(
            (const uint8_t *)c->cur, (uint8_t *)c->nxt, lut, w, h, c->torus, bw, bw * bh);
        WLCU_CHECK_LAUNCH("lut4x4");
    } else if (c->kernel == WLCU_K_LUT4X4_64) {
        int64_t tx = (w + L64 - 1) / L64, ty = (h + L64 - 1) / L64;
        int64_t tiles = tx * ty;
        unsigned blocks = (unsigned)(tiles > 65535 * 64 ? 65535 * 64 : tiles);
        k_lut4x4_64<<<blocks, dim3(32, 32)>>>((const uint8_t *)c->cur, (uint8_t *)c->nxt, lut,
                                              w, h, c->torus, tx, tiles);
        WLCU_CHECK_LAUNCH("lut4x4-64");
    } else {
        k_patch16<<<wlcu_blocks(c->bw * c->bh, 256), 256>>>(
            (const uint16_t *)c->cur, (uint16_t *)c->nxt, lut, w, h, c->torus,
            (int64_t)c->bw, (int64_t)c->bh);
        WLCU_CHECK_LAUNCH("patch16");
    }
    return WL_OK;
}
