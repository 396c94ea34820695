/*
 * mpi_module.c - the `mpi` engine as the library lists it: its name, capabilities and
 * kernels, and operations that forward to the engine itself (mpi_engine.c, ops
 * wl_engine_mpi_impl), which lives in the module warplife-mpi.so beside the executable.
 *
 * Why a module: linking MPI into every program cost every `warplife` command about 0.9 ms
 * of start-up (libmpi, open-rte, open-pal, hwloc, libevent, udev: their loading and
 * constructors), 2.2 ms against 1.1 ms for an empty C program on the development machine,
 * which is a tenth of a whole methuselah's run.  Only `-e mpi` pays it now, on its first
 * universe.  Programs that link the engine's objects themselves (the tests) define
 * wl_engine_mpi_impl, and it is used as it is (a weak reference).
 */
#include "internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

extern const wl_engine_ops wl_engine_mpi_impl __attribute__((weak));

static const wl_engine_ops *impl;
static pthread_once_t impl_once = PTHREAD_ONCE_INIT;
static char impl_why[4096 + 256];

static void impl_load(void) {
    if (&wl_engine_mpi_impl) {
        impl = &wl_engine_mpi_impl;
        return;
    }
    char path[4096];
    void *h = wl_module_open("warplife-mpi.so", path, sizeof path);
    const wl_engine_ops *ops = h ? (const wl_engine_ops *)dlsym(h, "wl_engine_mpi_impl") : NULL;
    if (ops) {
        impl = ops;
        return;
    }
    snprintf(impl_why, sizeof impl_why, "%s", h ? "warplife-mpi.so has no engine in it"
                                                : wl_last_error());
}

/* The engine, loaded on first use; NULL (error set) when the module cannot be loaded. */
static const wl_engine_ops *mpi(void) {
    pthread_once(&impl_once, impl_load);
    if (!impl)
        wl_error(WL_ERR_UNAVAILABLE, "mpi engine: %s (build warplife with MPI found, and keep "
                                     "warplife-mpi.so beside the executable)", impl_why);
    return impl;
}

static wl_status mod_probe(void) {
    const wl_engine_ops *e = mpi();
    return !e ? WL_ERR_UNAVAILABLE : e->probe ? e->probe() : WL_OK;
}

static wl_status mod_create(const wl_config *cfg, const char *kernel, void **ctx) {
    const wl_engine_ops *e = mpi();
    return e ? e->create(cfg, kernel, ctx) : WL_ERR_UNAVAILABLE;
}

/* A universe exists only once create succeeded, so `impl` is set in every other op. */
static void mod_destroy(void *ctx) { impl->destroy(ctx); }
static wl_status mod_load_grid(void *ctx, const wl_grid *g) { return impl->load_grid(ctx, g); }
static wl_status mod_store_grid(void *ctx, wl_grid *g) { return impl->store_grid(ctx, g); }
static wl_status mod_step(void *ctx, uint64_t generations, uint64_t *done) {
    return impl->step(ctx, generations, done);
}
static wl_status mod_population(void *ctx, wl_bigint *out) { return impl->population(ctx, out); }
static wl_status mod_randomize(void *ctx, double density, uint64_t seed) {
    return impl->randomize(ctx, density, seed);
}

#ifdef WL_HAVE_CUDA
static const char *const mpi_kernels[] = {"cpu", "ref", "cuda", NULL};
#define MPI_INNER_LIST "cpu, ref, cuda"
#else
static const char *const mpi_kernels[] = {"cpu", "ref", NULL};
#define MPI_INNER_LIST "cpu, ref"
#endif

/* The module's engine implements exactly these operations (mpi_engine.c). */
const wl_engine_ops wl_engine_mpi = {
    .name = "mpi",
    .description = "a torus or bounded grid split into row bands across MPI ranks, deep "
                   "halos exchanged every 64 generations; kernel = inner engine ("
                   MPI_INNER_LIST ")",
    .caps = WL_CAP_TORUS | WL_CAP_BOUNDED | WL_CAP_ANY_RULE,
    .kernels = mpi_kernels,
    .probe = mod_probe,
    .create = mod_create,
    .destroy = mod_destroy,
    .load_grid = mod_load_grid,
    .store_grid = mod_store_grid,
    .step = mod_step,
    .population = mod_population,
    .randomize = mod_randomize,
};
