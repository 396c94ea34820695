/*
 * cuda_pin.cu - host-side CUDA helpers for engines that drive the CUDA engine from outside
 * (the out-of-core `stream` engine): page-locking ("pinning") host memory so that copies
 * between it and the GPU run by DMA at full PCIe speed and asynchronously with kernels of
 * other host threads (a copy from pageable memory is staged through a driver buffer,
 * slower and synchronous), and selecting the engine's device on a worker thread (the
 * runtime's current device is per host thread).
 */
#include "cuda_common.cuh"

extern "C" wl_status wlcu_host_register(void *p, size_t bytes) {
    if (!p || !bytes) return WL_OK;
    WLCU_CHECK(cudaHostRegister(p, bytes, cudaHostRegisterPortable));
    return WL_OK;
}

extern "C" void wlcu_host_unregister(void *p) {
    if (p) cudaHostUnregister(p);
}

extern "C" wl_status wlcu_thread_device(int device) {
    WLCU_CHECK(cudaSetDevice(device));
    return WL_OK;
}
