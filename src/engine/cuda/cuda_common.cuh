/*
 * cuda_common.cuh - device helpers shared by the CUDA kernel families: error checking that
 * turns a failed CUDA call into WL_ERR_DEVICE, wrap-around cell access for the byte and
 * patch layouts, the 32-cell window loader of the bit layout, and the outer-totalistic rule
 * evaluated on bit planes.
 *
 * Virtual coordinates.  The bit-packed kernels never special-case the torus inside their
 * inner loops.  A thread asks for "the 32 cells starting at virtual column 32c of virtual
 * row r", where c and r may lie outside the grid; wl_win32 maps them back (modulo W and H on
 * a torus, dead cells on a bounded grid).  The register tile a warp holds is therefore a
 * contiguous piece of the unrolled, periodic plane, and the ordinary neighbour arithmetic is
 * right for every width, including widths that are not multiples of 32 and grids narrower
 * than a word.  Only words fully inside the grid take the fast path (one aligned load).
 */
#ifndef WL_CUDA_COMMON_CUH
#define WL_CUDA_COMMON_CUH

#include <cuda_runtime.h>
#include <stdint.h>

extern "C" {
#include "wlcuda.h"
}
#include "cuda_win.cuh" /* device helpers (shared with NVRTC sources) */

/* Checks a CUDA runtime call; on failure sets WL_ERR_DEVICE and returns it. */
#define WLCU_CHECK(call)                                                                   \
    do {                                                                                   \
        cudaError_t wlcu_e_ = (call);                                                      \
        if (wlcu_e_ != cudaSuccess)                                                        \
            return wl_error(WL_ERR_DEVICE, "CUDA: %s failed at %s:%d: %s", #call, __FILE__, \
                            __LINE__, cudaGetErrorString(wlcu_e_));                        \
    } while (0)

/* Checks the launch just queued (configuration errors, and earlier asynchronous faults). */
#define WLCU_CHECK_LAUNCH(what)                                                            \
    do {                                                                                   \
        cudaError_t wlcu_e_ = cudaGetLastError();                                          \
        if (wlcu_e_ != cudaSuccess)                                                        \
            return wl_error(WL_ERR_DEVICE, "CUDA: launch of %s failed at %s:%d: %s", what, \
                            __FILE__, __LINE__, cudaGetErrorString(wlcu_e_));              \
    } while (0)

/* Largest grid.x we use for 1-D grids (kernels loop when there is more work). */
#define WLCU_MAX_BLOCKS 0x7fffffffu
/* Blocks for a grid-stride loop over n items with `per_block` items per block. */
static inline unsigned wlcu_blocks(uint64_t n, unsigned per_block) {
    uint64_t b = (n + per_block - 1) / per_block;
    if (b > 65535u * 64u) b = 65535u * 64u; /* enough to fill any GPU; loops do the rest */
    return b ? (unsigned)b : 1u;
}

#endif
