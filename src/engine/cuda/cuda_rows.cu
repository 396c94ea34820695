/*
 * cuda_rows.cu - row strips of the CUDA engine: the store_rows / load_rows engine ops that
 * the mpi engine's halo exchange uses (a few rows at the top and bottom of a band, every k
 * generations), and the small host helpers the mpi engine needs from CUDA (device count,
 * pinned host buffers).
 *
 * What it computes.  store_rows copies rows y0 .. y0+n-1 of the current generation into a
 * host buffer in wl_grid's layout (bit x of 64-bit word x/64 is column x; bits past the
 * width zero; `stride` 64-bit words per row); load_rows replaces those rows with the
 * buffer's (bits past the width ignored).  Nothing else on the device changes.
 *
 * Layouts (wlcuda.h).  WLCU_BITS rows are nw = ceil(W/32) 32-bit words, and on a
 * little-endian host the first 4*nw bytes of a wl_grid row are byte for byte that device
 * row, so a strip is ONE cudaMemcpy2D: width 4*nw bytes, device pitch 4*nw, host pitch
 * 8*stride.  On store the host words past the device row (the upper half of the last
 * 64-bit word when nw is odd, and any extra stride) are cleared on the host; the device's
 * bits past the width are zero already (the kernels keep them so).  On load the caller's
 * bits past the width may be garbage, and every bit kernel relies on zero padding, so a
 * tiny kernel masks the last word of each loaded row (only when W is not a multiple of 32).
 * WLCU_BYTES and WLCU_PATCH strips go through a temporary device bit strip and a
 * conversion kernel: bytes are packed/unpacked 32 cells per thread; patches (4x4 blocks)
 * are read per output word on store, and on load one thread rewrites a whole 16-bit patch
 * (only the nibbles of rows inside the strip), so no two threads write the same word.
 * WLCU_PAIRS strips convert through the universe's other buffer (nxt: scratch between
 * launches, large enough for the whole grid in the bit layout), a pair per thread on load
 * and a bit-layout word per thread on store (cuda_pair.cu).
 *
 * Host memory.  Copies from pageable memory go through the driver's own staging buffer; the
 * mpi engine gives pinned buffers (wlcu_host_alloc) so that the strip moves by DMA at full
 * PCIe speed.  Both copies are synchronous for the host (the buffer is free on return) and
 * ordered with the engine's kernels (same thread, same default stream); each op first makes
 * the universe's device current on the calling thread (wlcu_use).
 *
 * The ops receive the CUDA engine's context (struct cuda_engine of cuda_engine.c), whose
 * first member is its wlcu_ctx: C lets a pointer to a struct be used as a pointer to its
 * first member, which is what these ops do.
 */
#include "cuda_common.cuh"

#include <string.h>

/* Threads per block of the small strip kernels. */
#define ROWS_THREADS 256

/* Clears the bits past the width in the last word of each of n rows (W % 32 != 0). */
__global__ void k_rows_mask(uint32_t *rows, uint64_t n, uint64_t nw, uint32_t mask) {
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        rows[i * nw + nw - 1] &= mask;
}

/* The byte layout's conversions are cuda_device.cu's whole-grid kernels (one thread per
 * 32-bit word, any number of rows): a strip is a smaller grid that starts y0 rows in. */
__global__ void k_bytes_to_bits(const uint8_t *bytes, uint32_t *bits, uint64_t w, uint64_t h,
                                uint64_t nw);
__global__ void k_bits_to_bytes(const uint32_t *bits, uint8_t *bytes, uint64_t w, uint64_t h,
                                uint64_t nw);

/* Patch layout -> n bit rows starting at grid row y0: one thread per output word (also the
 * whole-grid conversion of cuda_device.cu, with y0 = 0 and n = H). */
__global__ void k_rows_patch_to_bits(const uint16_t *p, uint32_t *bits, uint64_t w, uint64_t y0,
                                     uint64_t n, uint64_t nw, uint64_t bw) {
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < nw * n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t y = y0 + i / nw, j = i % nw;
        uint32_t v = 0;
        for (unsigned k = 0; k < 8; k++) { /* 8 patches of 4 columns make a 32-bit word */
            uint64_t bx = j * 8 + k;
            if (bx >= bw) break;
            unsigned nib = (p[(y / 4) * bw + bx] >> (4 * (y % 4))) & 15u;
            v |= (uint32_t)nib << (4 * k);
        }
        uint64_t x0 = j * 32;
        if (w - x0 < 32) v &= (1u << (unsigned)(w - x0)) - 1u;
        bits[i] = v;
    }
}

/* n bit rows (grid rows y0..) -> the patches they touch: one thread per patch, rewriting
 * only the nibbles of rows inside the strip; cells past the width stay dead. */
__global__ void k_rows_bits_to_patch(const uint32_t *bits, uint16_t *p, uint64_t w, uint64_t h,
                                     uint64_t y0, uint64_t n, uint64_t nw, uint64_t bw,
                                     uint64_t by0, uint64_t nby) {
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < bw * nby;
         i += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t by = by0 + i / bw, bx = i % bw, x = bx * 4;
        unsigned valid = w - x >= 4 ? 15u : (1u << (unsigned)(w - x)) - 1u;
        unsigned v = p[by * bw + bx];
        for (unsigned r = 0; r < 4; r++) {
            uint64_t y = by * 4 + r;
            if (y < y0 || y >= y0 + n || y >= h) continue;
            /* 4 | 32: a patch's row never straddles two words */
            unsigned nib = (bits[(y - y0) * nw + (x >> 5)] >> (x & 31)) & valid;
            v = (v & ~(15u << (4 * r))) | (nib << (4 * r));
        }
        p[by * bw + bx] = (uint16_t)v;
    }
}

/* Checks a row-strip request and makes the universe's device current on this thread (the
 * callers return at once when n is 0). */
static wl_status begin_rows(wlcu_ctx *c, uint64_t y0, uint64_t n, size_t stride) {
    wl_status s = wl_grid_check_rows("CUDA engine", c->w, c->h, y0, n, stride);
    return s || !n ? s : wlcu_use(c);
}

/* Clears the host words of each row past the 4*nw bytes a device row fills. */
static void clear_host_tails(uint64_t *rows, uint64_t n, size_t stride, uint64_t nw) {
    size_t used = (size_t)nw * 4, row_bytes = stride * 8;
    for (uint64_t i = 0; i < n; i++) memset((char *)(rows + i * stride) + used, 0, row_bytes - used);
}

extern "C" wl_status wlcu_store_rows(void *ctx, uint64_t y0, uint64_t n, uint64_t *rows,
                                     size_t stride) {
    wlcu_ctx *c = (wlcu_ctx *)ctx;
    wl_status s = begin_rows(c, y0, n, stride);
    if (s || !n) return s;
    uint64_t nw = c->nw;
    size_t row_bytes = (size_t)nw * 4;
    if (c->layout == WLCU_BITS || c->layout == WLCU_PAIRS) {
        const uint32_t *src = (const uint32_t *)c->cur + y0 * nw;
        if (c->layout == WLCU_PAIRS) { /* converted into nxt first */
            s = wlcu_pairs_to_bits(c, (const uint2 *)c->cur + y0 * c->np, (uint32_t *)c->nxt, n);
            if (s) return s;
            src = (const uint32_t *)c->nxt;
        }
        WLCU_CHECK(cudaMemcpy2D(rows, stride * 8, src, row_bytes, row_bytes, (size_t)n,
                                cudaMemcpyDeviceToHost));
        clear_host_tails(rows, n, stride, nw);
        return WL_OK;
    }
    uint32_t *tmp = NULL;
    WLCU_CHECK(cudaMalloc((void **)&tmp, row_bytes * (size_t)n));
    if (c->layout == WLCU_BYTES)
        k_bytes_to_bits<<<wlcu_blocks(nw * n, ROWS_THREADS), ROWS_THREADS>>>(
            (const uint8_t *)c->cur + y0 * c->w, tmp, c->w, n, nw);
    else
        k_rows_patch_to_bits<<<wlcu_blocks(nw * n, ROWS_THREADS), ROWS_THREADS>>>(
            (const uint16_t *)c->cur, tmp, c->w, y0, n, nw, c->bw);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaMemcpy2D(rows, stride * 8, tmp, row_bytes, row_bytes, (size_t)n,
                         cudaMemcpyDeviceToHost);
    cudaFree(tmp);
    WLCU_CHECK(e);
    clear_host_tails(rows, n, stride, nw);
    return WL_OK;
}

extern "C" wl_status wlcu_load_rows(void *ctx, uint64_t y0, uint64_t n, const uint64_t *rows,
                                    size_t stride) {
    wlcu_ctx *c = (wlcu_ctx *)ctx;
    wl_status s = begin_rows(c, y0, n, stride);
    if (s || !n) return s;
    uint64_t nw = c->nw;
    size_t row_bytes = (size_t)nw * 4;
    uint32_t mask = (c->w & 31) ? (1u << (unsigned)(c->w & 31)) - 1u : 0xffffffffu;
    if (c->layout == WLCU_BITS || c->layout == WLCU_PAIRS) {
        /* the pair layout: through nxt, then converted into the strip's rows */
        uint32_t *dst =
            c->layout == WLCU_BITS ? (uint32_t *)c->cur + y0 * nw : (uint32_t *)c->nxt;
        WLCU_CHECK(cudaMemcpy2D(dst, row_bytes, rows, stride * 8, row_bytes, (size_t)n,
                                cudaMemcpyHostToDevice));
        if (mask != 0xffffffffu) {
            k_rows_mask<<<wlcu_blocks(n, ROWS_THREADS), ROWS_THREADS>>>(dst, n, nw, mask);
            WLCU_CHECK_LAUNCH("rows_mask");
        }
        if (c->layout == WLCU_PAIRS)
            return wlcu_pairs_from_bits(c, dst, (uint2 *)c->cur + y0 * c->np, n);
        return WL_OK;
    }
    uint32_t *tmp = NULL;
    WLCU_CHECK(cudaMalloc((void **)&tmp, row_bytes * (size_t)n));
    cudaError_t e = cudaMemcpy2D(tmp, row_bytes, rows, stride * 8, row_bytes, (size_t)n,
                                 cudaMemcpyHostToDevice);
    if (e == cudaSuccess) {
        if (c->layout == WLCU_BYTES) {
            k_bits_to_bytes<<<wlcu_blocks(nw * n, ROWS_THREADS), ROWS_THREADS>>>(
                tmp, (uint8_t *)c->cur + y0 * c->w, c->w, n, nw);
        } else {
            uint64_t by0 = y0 / 4, nby = (y0 + n - 1) / 4 - by0 + 1;
            k_rows_bits_to_patch<<<wlcu_blocks(c->bw * nby, ROWS_THREADS), ROWS_THREADS>>>(
                tmp, (uint16_t *)c->cur, c->w, c->h, y0, n, nw, c->bw, by0, nby);
        }
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaDeviceSynchronize(); /* before tmp is freed */
    cudaFree(tmp);
    WLCU_CHECK(e);
    return WL_OK;
}

extern "C" int wlcu_device_count(void) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError(); /* clear the error: no device is an answer, not a failure */
        return 0;
    }
    return n;
}

extern "C" void *wlcu_host_alloc(size_t bytes) {
    void *p = NULL;
    cudaError_t e = cudaMallocHost(&p, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        cudaGetLastError();
        wl_error(WL_ERR_NOMEM, "CUDA: cudaMallocHost(%zu) failed: %s", bytes,
                 cudaGetErrorString(e));
        return NULL;
    }
    return p;
}

extern "C" void wlcu_host_free(void *p) {
    if (p) cudaFreeHost(p);
}
