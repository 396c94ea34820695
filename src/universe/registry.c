/*
 * registry.c - the table of engines built into this library.  Optional engines are
 * compiled in when their toolchain was found at configure time (WL_HAVE_*).
 */
#include "internal.h"

#include <string.h>

static const wl_engine_ops *const engines[] = {
    &wl_engine_ref,
#ifdef WL_HAVE_CPU_ENGINE
    &wl_engine_cpu,
#endif
#ifdef WL_HAVE_CUDA
    &wl_engine_cuda,
#endif
#ifdef WL_HAVE_OPENCL
    &wl_engine_opencl,
#endif
#ifdef WL_HAVE_SPARSE_ENGINE
    &wl_engine_sparse,
#endif
#ifdef WL_HAVE_HASHLIFE
    &wl_engine_hashlife,
#endif
#ifdef WL_HAVE_MPI_ENGINE
    &wl_engine_mpi,
#endif
#ifdef WL_HAVE_STREAM_ENGINE
    &wl_engine_stream,
#endif
#ifdef WL_HAVE_GROW_ENGINE
    &wl_engine_grow,
#endif
};

#define N_ENGINES (sizeof engines / sizeof engines[0])

size_t wl_engine_count(void) { return N_ENGINES; }

const char *wl_engine_name(size_t i) { return i < N_ENGINES ? engines[i]->name : NULL; }

const wl_engine_ops *wl_engine_find(const char *name) {
    for (size_t i = 0; i < N_ENGINES; i++)
        if (name && strcmp(engines[i]->name, name) == 0) return engines[i];
    return NULL;
}

const char *wl_engine_description(const char *engine) {
    const wl_engine_ops *e = wl_engine_find(engine);
    return e ? e->description : NULL;
}

static const char *const default_kernels[] = {"default", NULL};

wl_status wl_engine_kernels(const char *engine, const char *const **names, size_t *n) {
    const wl_engine_ops *e = wl_engine_find(engine);
    if (!e) return wl_error(WL_ERR_NOT_FOUND, "unknown engine '%s'", engine ? engine : "");
    const char *const *k = e->kernels ? e->kernels : default_kernels;
    size_t count = 0;
    while (k[count]) count++;
    *names = k;
    *n = count;
    return WL_OK;
}

wl_status wl_engine_probe(const char *engine) {
    const wl_engine_ops *e = wl_engine_find(engine);
    if (!e) {
        static const char *const known_optional[] = {"cpu", "cuda", "opencl", "hashlife", "mpi"};
        for (size_t i = 0; i < sizeof known_optional / sizeof known_optional[0]; i++)
            if (engine && strcmp(engine, known_optional[i]) == 0)
                return wl_error(WL_ERR_UNAVAILABLE,
                                "engine '%s' was not built into this warplife "
                                "(its toolchain was not found at configure time)",
                                engine);
        return wl_error(WL_ERR_NOT_FOUND, "unknown engine '%s'", engine ? engine : "");
    }
    return e->probe ? e->probe() : WL_OK;
}

wl_status wl_engine_devices(const char *engine, FILE *out) {
    const wl_engine_ops *e = wl_engine_find(engine);
    if (!e) return wl_engine_probe(engine); /* not built in, or unknown: says which */
    if (!e->list_devices)
        return wl_error(WL_ERR_UNSUPPORTED, "engine '%s' has no device list", engine);
    return e->list_devices(out);
}
