/*
 * cuda_byte.cu - the byte-per-cell kernels of the early GPU Life papers, kept as baselines:
 *
 *   naive   one thread per cell, 2-D grid of 32x8 blocks; each thread reads its 9 cells
 *           from global memory (wrapping or bounds-checking at the edges) and looks the
 *           next state up in the 512-entry rule table.
 *   stride  a 1-D grid-stride loop over all cells; the neighbourhood index is built with
 *           shifts and ORs and the rule applied by one table lookup, with no data-dependent
 *           branch (the torus/bounded test is only taken on the grid's edge cells).
 *   shared  a 32x32 block of threads loads its 32x32 tile plus a one-cell halo (34x34
 *           bytes) into shared memory once, then every cell reads its neighbours there: 1.13
 *           global reads per cell instead of 9.
 *
 * Layout: WLCU_BYTES, one byte (0 or 1) per cell, row-major, W bytes per row.  Any rule:
 * the rule is the 512-bit table of wl_rule, bit idx of the table with idx =
 * NW<<8|N<<7|NE<<6|W<<5|C<<4|E<<3|SW<<2|S<<1|SE.  Moving 8 bits per cell each way, these
 * kernels are bandwidth-bound far below the bit-packed ones; they exist to be compared with.
 */
#include "cuda_common.cuh"

__constant__ uint64_t c_rule512[8];

__device__ __forceinline__ unsigned rule_next(unsigned idx) {
    return (unsigned)(c_rule512[idx >> 6] >> (idx & 63)) & 1u;
}

/* The 9-bit neighbourhood index of (x, y) read with the wrapping accessor. */
__device__ __forceinline__ unsigned nbhd_edge(const uint8_t *g, int64_t w, int64_t h, int torus,
                                              int64_t x, int64_t y) {
    unsigned idx = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) idx = (idx << 1) | wl_byte_at(g, w, h, torus, x + dx, y + dy);
    return idx;
}

__device__ __forceinline__ unsigned nbhd_inner(const uint8_t *g, int64_t w, int64_t x,
                                               int64_t y) {
    const uint8_t *a = g + (y - 1) * w + x, *b = a + w, *c = b + w;
    return (unsigned)a[-1] << 8 | (unsigned)a[0] << 7 | (unsigned)a[1] << 6 |
           (unsigned)b[-1] << 5 | (unsigned)b[0] << 4 | (unsigned)b[1] << 3 |
           (unsigned)c[-1] << 2 | (unsigned)c[0] << 1 | (unsigned)c[1];
}

__global__ void k_naive(const uint8_t *in, uint8_t *out, int64_t w, int64_t h, int torus) {
    int64_t x = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (x >= w) return;
    for (int64_t y = blockIdx.y * (int64_t)blockDim.y + threadIdx.y; y < h;
         y += (int64_t)gridDim.y * blockDim.y)
        out[y * w + x] = (uint8_t)rule_next(nbhd_edge(in, w, h, torus, x, y));
}

__global__ void k_stride(const uint8_t *in, uint8_t *out, int64_t w, int64_t h, int torus) {
    uint64_t n = (uint64_t)w * (uint64_t)h;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        int64_t y = (int64_t)(i / (uint64_t)w), x = (int64_t)(i % (uint64_t)w);
        int inner = x > 0 && x < w - 1 && y > 0 && y < h - 1;
        unsigned idx = inner ? nbhd_inner(in, w, x, y) : nbhd_edge(in, w, h, torus, x, y);
        out[i] = (uint8_t)rule_next(idx);
    }
}

#define SH_T 32 /* tile side: one thread per cell of a 32x32 tile */

__global__ void k_shared(const uint8_t *in, uint8_t *out, int64_t w, int64_t h, int torus,
                         int64_t tiles_x, int64_t tiles) {
    __shared__ uint8_t t[SH_T + 2][SH_T + 2 + 2]; /* +2 columns of padding */
    for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        int64_t x0 = (tile % tiles_x) * SH_T, y0 = (tile / tiles_x) * SH_T;
        /* load (SH_T+2)^2 cells with SH_T^2 threads */
        for (int k = threadIdx.y * SH_T + threadIdx.x; k < (SH_T + 2) * (SH_T + 2);
             k += SH_T * SH_T) {
            int ty = k / (SH_T + 2), tx = k % (SH_T + 2);
            t[ty][tx] = (uint8_t)wl_byte_at(in, w, h, torus, x0 + tx - 1, y0 + ty - 1);
        }
        __syncthreads();
        int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
        int64_t x = x0 + threadIdx.x, y = y0 + threadIdx.y;
        if (x < w && y < h) {
            unsigned idx = (unsigned)t[ty - 1][tx - 1] << 8 | (unsigned)t[ty - 1][tx] << 7 |
                           (unsigned)t[ty - 1][tx + 1] << 6 | (unsigned)t[ty][tx - 1] << 5 |
                           (unsigned)t[ty][tx] << 4 | (unsigned)t[ty][tx + 1] << 3 |
                           (unsigned)t[ty + 1][tx - 1] << 2 | (unsigned)t[ty + 1][tx] << 1 |
                           (unsigned)t[ty + 1][tx + 1];
            out[y * w + x] = (uint8_t)rule_next(idx);
        }
        __syncthreads();
    }
}

extern "C" wl_status wlcu_byte_step(wlcu_ctx *c, unsigned gens) {
    (void)gens; /* one generation per launch */
    WLCU_CHECK(cudaMemcpyToSymbolAsync(c_rule512, c->rule.table, sizeof c->rule.table));
    const uint8_t *in = (const uint8_t *)c->cur;
    uint8_t *out = (uint8_t *)c->nxt;
    int64_t w = (int64_t)c->w, h = (int64_t)c->h;
    if (c->kernel == WLCU_K_NAIVE) {
        dim3 b(32, 8);
        uint64_t gy = (c->h + 7) / 8;
        dim3 g((unsigned)((c->w + 31) / 32), (unsigned)(gy > 65535 ? 65535 : gy));
        k_naive<<<g, b>>>(in, out, w, h, c->torus);
        WLCU_CHECK_LAUNCH("naive");
    } else if (c->kernel == WLCU_K_STRIDE) {
        k_stride<<<wlcu_blocks(c->w * c->h, 256), 256>>>(in, out, w, h, c->torus);
        WLCU_CHECK_LAUNCH("stride");
    } else {
        int64_t tx = (w + SH_T - 1) / SH_T, ty = (h + SH_T - 1) / SH_T;
        int64_t tiles = tx * ty;
        unsigned blocks = (unsigned)(tiles > 65535 * 64 ? 65535 * 64 : tiles);
        k_shared<<<blocks, dim3(SH_T, SH_T)>>>(in, out, w, h, c->torus, tx, tiles);
        WLCU_CHECK_LAUNCH("shared");
    }
    return WL_OK;
}
