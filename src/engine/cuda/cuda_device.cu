/*
 * cuda_device.cu - the device side of the CUDA engine that is not a stepping kernel: the
 * probe, buffers, upload and download, conversions between the bit layout and the byte,
 * patch and pair layouts, the population count, the soup generator, timing with events and
 * the copy bandwidth measurement behind the benchmark's floor.
 *
 * Upload/download: the host wl_grid holds rows of 64-bit little-endian words, which are
 * byte for byte the 32-bit words of the device bit layout (WLCU_BITS), so one strided
 * cudaMemcpy2D moves a grid; the byte, patch and pair layouts are made from the bit layout
 * by a conversion kernel on the device (one thread per 32 cells / per block / per pair).
 * The pair layout converts through the universe's other buffer (nxt, which holds nothing
 * between launches and is at least as large as the bit layout), so a universe that fills
 * the GPU's memory needs no third buffer to be loaded, counted or saved.
 *
 * Soup: cell i (row-major index) is alive when a 32-bit hash of (seed, i) falls below
 * density * 2^32, so the soup is reproducible for a seed and made entirely on the GPU.
 */
#include "cuda_common.cuh"

#include <stdio.h>
#include <string.h>

extern "C" wl_status wlcu_probe(void) {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        cudaGetLastError(); /* clear the sticky error for the next probe */
        return wl_error(WL_ERR_UNAVAILABLE, "CUDA engine: no usable GPU (%s)",
                        cudaGetErrorString(e));
    }
    if (n <= 0) return wl_error(WL_ERR_UNAVAILABLE, "CUDA engine: no CUDA device found");
    return WL_OK;
}

#define WLCU_KERNEL_ROW(ID, name, layout, totalistic, init, max_gens, launch, whole)        \
    {name, layout, totalistic, init, max_gens, launch, whole},
extern "C" const wlcu_kernel_info wlcu_kernels[WLCU_K_COUNT] = {WLCU_KERNELS(WLCU_KERNEL_ROW)};

static wl_status alloc_buffers(wlcu_ctx *c) {
    uint64_t cells = c->w * c->h;
    c->nw = (c->w + 31) / 32; /* every layout: the row strips and bit views use it */
    c->np = (c->w + 63) / 64;
    if (c->layout == WLCU_BITS) {
        c->buf_bytes = (size_t)(c->nw * c->h * 4);
    } else if (c->layout == WLCU_PAIRS) {
        c->buf_bytes = (size_t)(c->np * c->h * 8);
    } else if (c->layout == WLCU_BYTES) {
        c->buf_bytes = (size_t)cells;
    } else {
        c->bw = (c->w + 3) / 4;
        c->bh = (c->h + 3) / 4;
        c->buf_bytes = (size_t)(c->bw * c->bh * 2);
    }
    size_t free_b = 0, total_b = 0;
    WLCU_CHECK(cudaMemGetInfo(&free_b, &total_b));
    /* two buffers plus a small reserve for tables and the runtime */
    if ((double)c->buf_bytes * 2.0 + (1 << 20) > (double)free_b)
        return wl_error(WL_ERR_TOO_BIG,
                        "CUDA engine: a %llu x %llu universe needs 2 x %zu bytes on the GPU, "
                        "only %zu of %zu are free",
                        (unsigned long long)c->w, (unsigned long long)c->h, c->buf_bytes,
                        free_b, total_b);
    WLCU_CHECK(cudaMalloc(&c->cur, c->buf_bytes));
    WLCU_CHECK(cudaMalloc(&c->nxt, c->buf_bytes));
    WLCU_CHECK(cudaMemset(c->cur, 0, c->buf_bytes));
    WLCU_CHECK(cudaMemset(c->nxt, 0, c->buf_bytes));
    return WL_OK;
}

extern "C" wl_status wlcu_init(wlcu_ctx *c, int device) {
    c->device = device;
    WLCU_CHECK(cudaSetDevice(device));
    wl_status s = alloc_buffers(c);
    if (s) return s;
    cudaEvent_t a, b;
    WLCU_CHECK(cudaEventCreate(&a));
    c->ev_start = a;
    WLCU_CHECK(cudaEventCreate(&b));
    c->ev_stop = b;
    WLCU_CHECK(cudaMalloc(&c->d_count, sizeof(uint64_t)));
    const wlcu_kernel_info *k = &wlcu_kernels[c->kernel];
    return k->init ? k->init(c) : WL_OK;
}

extern "C" wl_status wlcu_use(wlcu_ctx *c) {
    WLCU_CHECK(cudaSetDevice(c->device));
    return WL_OK;
}

extern "C" void wlcu_release(wlcu_ctx *c) {
    if (c->cur) cudaFree(c->cur);
    if (c->nxt) cudaFree(c->nxt);
    if (c->table) cudaFree(c->table);
    if (c->d_count) cudaFree(c->d_count);
    if (c->res_x) cudaFree(c->res_x);
    if (c->ev_start) cudaEventDestroy((cudaEvent_t)c->ev_start);
    if (c->ev_stop) cudaEventDestroy((cudaEvent_t)c->ev_stop);
    c->cur = c->nxt = c->table = NULL;
    c->d_count = NULL;
    c->res_x = NULL;
    c->ev_start = c->ev_stop = NULL;
}

/* ---- layout conversions ---- */

/* bits -> bytes: one thread per 32-bit word. */
__global__ void k_bits_to_bytes(const uint32_t *bits, uint8_t *bytes, uint64_t w, uint64_t h,
                                uint64_t nw) {
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < nw * h;
         i += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t y = i / nw, j = i % nw;
        uint32_t v = bits[i];
        uint8_t *out = bytes + y * w + j * 32;
        unsigned n = (unsigned)((w - j * 32) < 32 ? (w - j * 32) : 32);
        for (unsigned b = 0; b < n; b++) out[b] = (uint8_t)((v >> b) & 1u);
    }
}

__global__ void k_bytes_to_bits(const uint8_t *bytes, uint32_t *bits, uint64_t w, uint64_t h,
                                uint64_t nw) {
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < nw * h;
         i += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t y = i / nw, j = i % nw;
        const uint8_t *in = bytes + y * w + j * 32;
        unsigned n = (unsigned)((w - j * 32) < 32 ? (w - j * 32) : 32);
        uint32_t v = 0;
        for (unsigned b = 0; b < n; b++) v |= (uint32_t)(in[b] & 1u) << b;
        bits[i] = v;
    }
}

/* bits -> patches: one thread per 4x4 block. */
__global__ void k_bits_to_patch(const uint32_t *bits, uint16_t *p, uint64_t w, uint64_t h,
                                uint64_t nw, uint64_t bw, uint64_t bh) {
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < bw * bh;
         i += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t by = i / bw, bx = i % bw;
        unsigned v = 0;
        for (unsigned r = 0; r < 4; r++) {
            uint64_t y = by * 4 + r;
            if (y >= h) break;
            uint64_t x = bx * 4; /* 4 | 32, so a block's row never straddles words */
            unsigned nib = (bits[y * nw + (x >> 5)] >> (x & 31)) & 15u;
            v |= nib << (4 * r);
        }
        p[i] = (uint16_t)v;
    }
}

/* patches -> bits: one thread per 32-bit word; cuda_rows.cu's row strips use it too. */
__global__ void k_rows_patch_to_bits(const uint16_t *p, uint32_t *bits, uint64_t w, uint64_t y0,
                                     uint64_t n, uint64_t nw, uint64_t bw);

extern "C" wl_status wlcu_bits_to_layout(wlcu_ctx *c, const uint32_t *bits, void *dst) {
    uint64_t nw = c->nw;
    if (c->layout == WLCU_BYTES) {
        k_bits_to_bytes<<<wlcu_blocks(nw * c->h, 256), 256>>>(bits, (uint8_t *)dst, c->w, c->h,
                                                              nw);
        WLCU_CHECK_LAUNCH("bits_to_bytes");
    } else if (c->layout == WLCU_PATCH) {
        k_bits_to_patch<<<wlcu_blocks(c->bw * c->bh, 256), 256>>>(
            bits, (uint16_t *)dst, c->w, c->h, nw, c->bw, c->bh);
        WLCU_CHECK_LAUNCH("bits_to_patch");
    } else if (c->layout == WLCU_PAIRS) {
        return wlcu_pairs_from_bits(c, bits, dst, c->h);
    } else if (bits != dst) {
        WLCU_CHECK(cudaMemcpy(dst, bits, c->buf_bytes, cudaMemcpyDeviceToDevice));
    }
    return WL_OK;
}

extern "C" wl_status wlcu_layout_to_bits(wlcu_ctx *c, const void *src, uint32_t *bits) {
    uint64_t nw = c->nw;
    if (c->layout == WLCU_BYTES) {
        k_bytes_to_bits<<<wlcu_blocks(nw * c->h, 256), 256>>>((const uint8_t *)src, bits, c->w,
                                                              c->h, nw);
        WLCU_CHECK_LAUNCH("bytes_to_bits");
    } else if (c->layout == WLCU_PATCH) {
        k_rows_patch_to_bits<<<wlcu_blocks(nw * c->h, 256), 256>>>(
            (const uint16_t *)src, bits, c->w, 0, c->h, nw, c->bw);
        WLCU_CHECK_LAUNCH("patch_to_bits");
    } else if (c->layout == WLCU_PAIRS) {
        return wlcu_pairs_to_bits(c, src, bits, c->h);
    } else if (bits != src) {
        WLCU_CHECK(cudaMemcpy(bits, src, c->buf_bytes, cudaMemcpyDeviceToDevice));
    }
    return WL_OK;
}

/* A bit-layout buffer for the whole grid: the current buffer itself for the bit layout, the
 * other buffer for the pair layout, a temporary one for the byte and patch layouts (freed
 * by bits_done). */
static wl_status bits_view(wlcu_ctx *c, uint32_t **bits) {
    if (c->layout == WLCU_BITS || c->layout == WLCU_PAIRS) {
        *bits = (uint32_t *)(c->layout == WLCU_BITS ? c->cur : c->nxt);
        return WL_OK;
    }
    uint64_t nw = c->nw;
    WLCU_CHECK(cudaMalloc((void **)bits, (size_t)(nw * c->h * 4)));
    return WL_OK;
}

static void bits_done(wlcu_ctx *c, uint32_t *bits) {
    if (c->layout == WLCU_BYTES || c->layout == WLCU_PATCH) cudaFree(bits);
}

extern "C" wl_status wlcu_upload(wlcu_ctx *c, const wl_grid *g) {
    uint32_t *bits;
    wl_status s = bits_view(c, &bits);
    if (s) return s;
    uint64_t nw = c->nw;
    cudaError_t e = cudaMemcpy2D(bits, (size_t)nw * 4, g->words, g->stride * 8, (size_t)nw * 4,
                                 (size_t)c->h, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) s = wlcu_bits_to_layout(c, bits, c->cur);
    bits_done(c, bits);
    WLCU_CHECK(e);
    if (s) return s;
    WLCU_CHECK(cudaDeviceSynchronize());
    return WL_OK;
}

extern "C" wl_status wlcu_download(wlcu_ctx *c, wl_grid *g) {
    /* the whole grid is the strip of all its rows (cuda_rows.cu: any layout, tails cleared) */
    return wlcu_store_rows(c, 0, c->h, g->words, g->stride);
}

/* ---- population ---- */

__global__ void k_popcount(const uint32_t *bits, uint64_t n, unsigned long long *count) {
    unsigned long long local = 0;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        local += (unsigned)__popc(bits[i]);
    /* warp reduction, then one atomic per warp */
    for (int o = 16; o; o >>= 1) local += __shfl_down_sync(0xffffffffu, local, o);
    if ((threadIdx.x & 31) == 0 && local) atomicAdd(count, local);
}

extern "C" wl_status wlcu_population(wlcu_ctx *c, uint64_t *pop) {
    uint32_t *bits;
    wl_status s = WL_OK;
    uint64_t words = c->nw * c->h;
    if (c->layout == WLCU_PAIRS) { /* the same cells in other words: count them in place */
        bits = (uint32_t *)c->cur;
        words = 2 * c->np * c->h;
    } else {
        s = bits_view(c, &bits);
        if (s) return s;
        s = wlcu_layout_to_bits(c, c->cur, bits);
    }
    if (!s) {
        cudaError_t e = cudaMemset(c->d_count, 0, sizeof(uint64_t));
        if (e == cudaSuccess) {
            k_popcount<<<wlcu_blocks(words, 256 * 8), 256>>>(bits, words,
                                                            (unsigned long long *)c->d_count);
            e = cudaGetLastError();
        }
        if (e == cudaSuccess)
            e = cudaMemcpy(pop, c->d_count, sizeof(uint64_t), cudaMemcpyDeviceToHost);
        if (e != cudaSuccess)
            s = wl_error(WL_ERR_DEVICE, "CUDA: population count failed: %s",
                         cudaGetErrorString(e));
    }
    bits_done(c, bits);
    return s;
}

/* ---- soup ---- */

__device__ __forceinline__ uint32_t wl_hash32(uint32_t x) { /* lowbias32 */
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

__global__ void k_soup(uint32_t *bits, uint64_t w, uint64_t h, uint64_t nw, uint32_t threshold,
                       int all, uint32_t seed_lo, uint32_t seed_hi) {
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < nw * h;
         i += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t j = i % nw;
        uint32_t base = wl_hash32((uint32_t)i ^ seed_lo) ^ wl_hash32((uint32_t)(i >> 32) + seed_hi);
        uint32_t v = 0;
        for (unsigned b = 0; b < 32; b++)
            if (all || wl_hash32(base + b * 0x9e3779b9u) < threshold) v |= 1u << b;
        uint64_t x0 = j * 32;
        if (w - x0 < 32) v &= (1u << (unsigned)(w - x0)) - 1u;
        bits[i] = v;
    }
}

extern "C" wl_status wlcu_randomize(wlcu_ctx *c, double density, uint64_t seed) {
    uint32_t *bits;
    wl_status s = bits_view(c, &bits);
    if (s) return s;
    uint64_t nw = c->nw;
    if (density < 0) density = 0;
    double t = density * 4294967296.0;
    uint32_t threshold = t >= 4294967295.0 ? 0xffffffffu : (uint32_t)t;
    uint64_t mix = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    k_soup<<<wlcu_blocks(nw * c->h, 256), 256>>>(bits, c->w, c->h, nw, threshold,
                                                 density >= 1.0, (uint32_t)mix,
                                                 (uint32_t)(mix >> 32));
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess && c->layout != WLCU_BITS) s = wlcu_bits_to_layout(c, bits, c->cur);
    bits_done(c, bits);
    if (e != cudaSuccess)
        return wl_error(WL_ERR_DEVICE, "CUDA: soup kernel failed: %s", cudaGetErrorString(e));
    if (s) return s;
    WLCU_CHECK(cudaDeviceSynchronize());
    return WL_OK;
}

/* ---- stepping, timing ---- */

extern "C" wl_status wlcu_advance(wlcu_ctx *c, uint64_t gens) {
    const wlcu_kernel_info *ki = &wlcu_kernels[c->kernel];
    const unsigned kmax = ki->max_gens ? ki->max_gens(c) : 1u;
    while (gens) {
        wl_status s;
        unsigned k = gens < kmax ? (unsigned)gens : kmax;
        if (ki->whole && k < kmax) { /* the remainder, one generation at a time */
            k = 1;
            s = ki->totalistic ? wlcu_bitcount_step(c) : wlcu_lut6x3_step(c);
        } else {
            s = ki->launch(c, k);
        }
        if (s) return s;
        void *t = c->cur;
        c->cur = c->nxt;
        c->nxt = t;
        gens -= k;
    }
    return WL_OK;
}

extern "C" wl_status wlcu_sync(wlcu_ctx *c) {
    (void)c;
    WLCU_CHECK(cudaDeviceSynchronize());
    return WL_OK;
}

extern "C" wl_status wlcu_timed(wlcu_ctx *c, uint64_t gens, double *seconds) {
    cudaEvent_t a = (cudaEvent_t)c->ev_start, b = (cudaEvent_t)c->ev_stop;
    WLCU_CHECK(cudaEventRecord(a));
    wl_status s = wlcu_advance(c, gens);
    if (s) return s;
    WLCU_CHECK(cudaEventRecord(b));
    WLCU_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    WLCU_CHECK(cudaEventElapsedTime(&ms, a, b));
    *seconds = ms / 1000.0;
    return WL_OK;
}

extern "C" wl_status wlcu_copy_bandwidth(wlcu_ctx *c, double *bytes_per_s) {
    /* Copy one of our buffers into the other (at most 1 GiB, at least what we have): the
     * figure every bandwidth-bound kernel is held against. */
    size_t n = c->buf_bytes;
    if (n > ((size_t)1 << 30)) n = (size_t)1 << 30;
    *bytes_per_s = 0;
    if (n < ((size_t)1 << 20)) return WL_OK; /* too small to measure anything but latency */
    cudaEvent_t a = (cudaEvent_t)c->ev_start, b = (cudaEvent_t)c->ev_stop;
    WLCU_CHECK(cudaMemcpy(c->nxt, c->cur, n, cudaMemcpyDeviceToDevice)); /* warm up */
    float best = 0;
    for (int rep = 0; rep < 5; rep++) {
        WLCU_CHECK(cudaEventRecord(a));
        WLCU_CHECK(cudaMemcpyAsync(c->nxt, c->cur, n, cudaMemcpyDeviceToDevice));
        WLCU_CHECK(cudaEventRecord(b));
        WLCU_CHECK(cudaEventSynchronize(b));
        float ms = 0;
        WLCU_CHECK(cudaEventElapsedTime(&ms, a, b));
        if (rep == 0 || ms < best) best = ms;
    }
    if (best > 0) *bytes_per_s = 2.0 * (double)n / (best / 1000.0);
    return WL_OK;
}
