/*
 * ocl_runtime.c - the OpenCL runtime side of the opencl engine: enumerating devices over all
 * platforms (one index space, in listing order), one context per device kept for the life of
 * the process, and a cache of built programs keyed by (device, generated prefix, options).
 *
 * Why a cache: an OpenCL implementation compiles OpenCL C at run time (PoCL runs LLVM on
 * this CPU, about a second per program).  A test that creates hundreds of universes with a
 * handful of rules would otherwise spend minutes compiling the same text.  The cache is a
 * small linked list guarded by a mutex; programs and contexts are never released (they live
 * as long as the process, like a driver's own caches).
 *
 * The kernel source is the files wl_opencl.cl and wl_opencl_lop3v.cl, embedded at build time
 * into the generated headers wl_opencl_cl.h and wl_opencl_lop3v_cl.h (unsigned char arrays
 * WLOCL_SOURCE and WLOCL_LOP3V_SOURCE with their lengths).
 */
#include "ocl_internal.h"
#include "wl_opencl_cl.h"
#include "wl_opencl_lop3v_cl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PLATFORMS 16
#define MAX_DEVICES 64

const char *wlocl_strerror(cl_int err) {
    switch (err) {
#define E(x) case x: return #x;
        E(CL_SUCCESS) E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE)
        E(CL_COMPILER_NOT_AVAILABLE) E(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY) E(CL_BUILD_PROGRAM_FAILURE)
        E(CL_INVALID_VALUE) E(CL_INVALID_PLATFORM) E(CL_INVALID_DEVICE) E(CL_INVALID_CONTEXT)
        E(CL_INVALID_COMMAND_QUEUE) E(CL_INVALID_MEM_OBJECT) E(CL_INVALID_BUILD_OPTIONS)
        E(CL_INVALID_PROGRAM) E(CL_INVALID_KERNEL_NAME) E(CL_INVALID_KERNEL)
        E(CL_INVALID_ARG_INDEX) E(CL_INVALID_ARG_VALUE) E(CL_INVALID_ARG_SIZE)
        E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_WORK_DIMENSION)
        E(CL_INVALID_WORK_GROUP_SIZE) E(CL_INVALID_WORK_ITEM_SIZE)
        E(CL_INVALID_GLOBAL_OFFSET) E(CL_INVALID_EVENT) E(CL_INVALID_BUFFER_SIZE)
        E(CL_INVALID_GLOBAL_WORK_SIZE) E(CL_PLATFORM_NOT_FOUND_KHR)
#undef E
    default: {
        static _Thread_local char buf[32];
        snprintf(buf, sizeof buf, "OpenCL error %d", (int)err);
        return buf;
    }
    }
}

/* ---- devices ---------------------------------------------------------------------------- */

/* Collects (platform, device) pairs over all platforms in listing order. */
static wl_status enumerate(cl_platform_id *plat_of, cl_device_id *devs, int *n) {
    cl_platform_id plats[MAX_PLATFORMS];
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(MAX_PLATFORMS, plats, &np);
    *n = 0;
    if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && np == 0))
        return wl_error(WL_ERR_UNAVAILABLE,
                        "no OpenCL platform found (no ICD installed: e.g. pocl-opencl-icd for "
                        "CPUs, the NVIDIA driver's OpenCL for NVIDIA GPUs)");
    if (err != CL_SUCCESS)
        return wl_error(WL_ERR_UNAVAILABLE, "clGetPlatformIDs failed: %s", wlocl_strerror(err));
    if (np > MAX_PLATFORMS) np = MAX_PLATFORMS;
    for (cl_uint p = 0; p < np; p++) {
        cl_device_id d[MAX_DEVICES];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, d, &nd) != CL_SUCCESS)
            continue;
        if (nd > MAX_DEVICES) nd = MAX_DEVICES;
        for (cl_uint i = 0; i < nd && *n < MAX_DEVICES; i++) {
            plat_of[*n] = plats[p];
            devs[*n] = d[i];
            (*n)++;
        }
    }
    if (*n == 0)
        return wl_error(WL_ERR_UNAVAILABLE, "%u OpenCL platform(s) found but no device",
                        (unsigned)np);
    return WL_OK;
}

wl_status wlocl_count(int *n) {
    cl_platform_id p[MAX_DEVICES];
    cl_device_id d[MAX_DEVICES];
    return enumerate(p, d, n);
}

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

/* One context per device, made on first use. */
static struct {
    cl_device_id device;
    cl_context context;
} contexts[MAX_DEVICES];
static int n_contexts;

static cl_context context_for(cl_platform_id plat, cl_device_id dev, cl_int *err) {
    cl_context ctx = NULL;
    pthread_mutex_lock(&cache_lock);
    for (int i = 0; i < n_contexts; i++)
        if (contexts[i].device == dev) ctx = contexts[i].context;
    if (!ctx && n_contexts < MAX_DEVICES) {
        cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)plat, 0};
        ctx = clCreateContext(props, 1, &dev, NULL, NULL, err);
        if (ctx) {
            contexts[n_contexts].device = dev;
            contexts[n_contexts].context = ctx;
            n_contexts++;
        }
    }
    pthread_mutex_unlock(&cache_lock);
    return ctx;
}

wl_status wlocl_device_get(int index, wlocl_device *d) {
    cl_platform_id plats[MAX_DEVICES];
    cl_device_id devs[MAX_DEVICES];
    int n = 0;
    memset(d, 0, sizeof *d);
    wl_status s = enumerate(plats, devs, &n);
    if (s) return s;
    if (index < 0 || index >= n)
        return wl_error(WL_ERR_UNAVAILABLE,
                        "OpenCL device %d does not exist (%d device(s): see warplife info "
                        "--devices)", index, n);
    d->platform = plats[index];
    d->device = devs[index];
    cl_device_type type = 0;
    clGetDeviceInfo(d->device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    d->is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
    char vendor[256] = "";
    clGetPlatformInfo(d->platform, CL_PLATFORM_VENDOR, sizeof vendor, vendor, NULL);
    d->is_nv = (type & CL_DEVICE_TYPE_GPU) && strstr(vendor, "NVIDIA") != NULL;
    clGetDeviceInfo(d->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof d->max_wg, &d->max_wg,
                    NULL);
    clGetDeviceInfo(d->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof d->local_mem, &d->local_mem,
                    NULL);
    clGetDeviceInfo(d->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof d->max_alloc,
                    &d->max_alloc, NULL);
    if (clGetDeviceInfo(d->device, CL_DEVICE_NAME, sizeof d->name, d->name, NULL) != CL_SUCCESS)
        snprintf(d->name, sizeof d->name, "?");
    cl_int err = CL_SUCCESS;
    d->context = context_for(d->platform, d->device, &err);
    if (!d->context)
        return wl_error(WL_ERR_DEVICE, "OpenCL device %d (%s): clCreateContext failed: %s",
                        index, d->name, wlocl_strerror(err));
    return WL_OK;
}

wl_status wlocl_list_devices(FILE *out) {
    cl_platform_id plats[MAX_DEVICES];
    cl_device_id devs[MAX_DEVICES];
    int n = 0;
    wl_status s = enumerate(plats, devs, &n);
    if (s) return s;
    for (int i = 0; i < n; i++) {
        char pname[256] = "?", dname[256] = "?", ver[128] = "?";
        cl_device_type type = 0;
        cl_uint cus = 0;
        cl_ulong mem = 0;
        clGetPlatformInfo(plats[i], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
        clGetDeviceInfo(devs[i], CL_DEVICE_NAME, sizeof dname, dname, NULL);
        clGetDeviceInfo(devs[i], CL_DEVICE_VERSION, sizeof ver, ver, NULL);
        clGetDeviceInfo(devs[i], CL_DEVICE_TYPE, sizeof type, &type, NULL);
        clGetDeviceInfo(devs[i], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
        clGetDeviceInfo(devs[i], CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, NULL);
        const char *t = (type & CL_DEVICE_TYPE_GPU)           ? "GPU"
                        : (type & CL_DEVICE_TYPE_CPU)         ? "CPU"
                        : (type & CL_DEVICE_TYPE_ACCELERATOR) ? "accelerator"
                                                              : "other";
        fprintf(out, "  opencl device %d: %s [%s] %s, %u compute units, %.1f GiB, %s\n", i,
                dname, pname, t, (unsigned)cus, (double)mem / (1024.0 * 1024.0 * 1024.0), ver);
    }
    return WL_OK;
}

/* ---- programs --------------------------------------------------------------------------- */

typedef struct prog_entry {
    cl_device_id device;
    char *key; /* prefix + "\n//" + options */
    cl_program program;
    struct prog_entry *next;
} prog_entry;

static prog_entry *programs;

static wl_status build(const wlocl_device *d, const char *prefix, const char *options,
                       cl_program *out) {
    /* The rule prefix, then wl_opencl.cl, then wl_opencl_lop3v.cl (which uses both). */
    const char *srcs[3] = {prefix, (const char *)WLOCL_SOURCE, (const char *)WLOCL_LOP3V_SOURCE};
    size_t lens[3] = {strlen(prefix), (size_t)WLOCL_SOURCE_LEN, (size_t)WLOCL_LOP3V_SOURCE_LEN};
    const char *dump = getenv("WL_OPENCL_DUMP"); /* debugging: the program's whole source */
    if (dump && *dump) {
        FILE *f = fopen(dump, "w");
        if (f) {
            for (int i = 0; i < 3; i++) fwrite(srcs[i], 1, lens[i], f);
            fclose(f);
        }
    }
    cl_int err = CL_SUCCESS;
    cl_program p = clCreateProgramWithSource(d->context, 3, srcs, lens, &err);
    if (!p)
        return wl_error(WL_ERR_DEVICE, "OpenCL: clCreateProgramWithSource failed: %s",
                        wlocl_strerror(err));
    err = clBuildProgram(p, 1, &d->device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        size_t n = 0;
        char *log = NULL;
        if (clGetProgramBuildInfo(p, d->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) ==
                CL_SUCCESS &&
            n > 0 && (log = malloc(n + 1)) != NULL) {
            if (clGetProgramBuildInfo(p, d->device, CL_PROGRAM_BUILD_LOG, n, log, NULL) !=
                CL_SUCCESS)
                log[0] = 0;
            log[n] = 0;
        }
        size_t ll = log ? strlen(log) : 0;
        wl_status s = wl_error(WL_ERR_DEVICE,
                               "OpenCL kernel build failed on %s (%s, options \"%s\"); build "
                               "log%s:\n%.*s%s",
                               d->name, wlocl_strerror(err), options,
                               ll > WLOCL_LOG_MAX ? " (first part)" : "",
                               (int)(ll > WLOCL_LOG_MAX ? WLOCL_LOG_MAX : ll), log ? log : "",
                               ll > WLOCL_LOG_MAX ? "\n[... build log truncated]" : "");
        free(log);
        clReleaseProgram(p);
        return s;
    }
    *out = p;
    return WL_OK;
}

wl_status wlocl_program(const wlocl_device *d, const char *prefix, const char *options,
                        cl_program *prog) {
    size_t kl = strlen(prefix) + strlen(options) + 4;
    char *key = malloc(kl);
    if (!key) return wl_error(WL_ERR_NOMEM, "out of memory");
    snprintf(key, kl, "%s\n//%s", prefix, options);
    pthread_mutex_lock(&cache_lock);
    for (prog_entry *e = programs; e; e = e->next)
        if (e->device == d->device && strcmp(e->key, key) == 0) {
            *prog = e->program;
            pthread_mutex_unlock(&cache_lock);
            free(key);
            return WL_OK;
        }
    /* Built under the lock: two threads asking for the same program build it once. */
    cl_program p = NULL;
    wl_status s = build(d, prefix, options, &p);
    prog_entry *e = NULL;
    if (!s) {
        e = malloc(sizeof *e);
        if (!e) {
            clReleaseProgram(p);
            s = wl_error(WL_ERR_NOMEM, "out of memory");
        }
    }
    if (!s) {
        e->device = d->device;
        e->key = key;
        e->program = p;
        e->next = programs;
        programs = e;
        *prog = p;
        key = NULL;
    }
    pthread_mutex_unlock(&cache_lock);
    free(key);
    return s;
}
