/*
 * util.c - memory allocation that reports failures as errors, machine facts, modules.
 */
#define _GNU_SOURCE
#include "internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dlfcn.h>
#include <unistd.h>

void *wl_malloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) wl_error(WL_ERR_NOMEM, "out of memory allocating %zu bytes", n);
    return p;
}

void *wl_calloc(size_t count, size_t size) {
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) wl_error(WL_ERR_NOMEM, "out of memory allocating %zu x %zu bytes", count, size);
    return p;
}

void *wl_realloc(void *old, size_t n) {
    void *p = realloc(old, n ? n : 1);
    if (!p) wl_error(WL_ERR_NOMEM, "out of memory allocating %zu bytes", n);
    return p;
}

void *wl_aligned_alloc(size_t n) {
    void *p = NULL;
    if (posix_memalign(&p, 64, n ? n : 64) != 0) {
        wl_error(WL_ERR_NOMEM, "out of memory allocating %zu bytes", n);
        return NULL;
    }
    return p;
}

void wl_aligned_free(void *p) { free(p); }

uint64_t wl_physical_memory(void) {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0) return (uint64_t)4 << 30;
    return (uint64_t)pages * (uint64_t)size;
}

const char *wl_bytes_text(uint64_t bytes, char *buf) {
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) {
        snprintf(buf, 32, "%llu bytes", (unsigned long long)bytes);
        return buf;
    }
    int u = 0;
    double v = (double)bytes / 1024.0;
    while (v >= 1024.0 && u < 5) {
        v /= 1024.0;
        u++;
    }
    /* Whole numbers print without decimals ("64 MiB"), others with one ("1.5 GiB"), or
     * as exact bytes where one decimal would make them look whole ("16777224 bytes", not
     * "16.0 MiB" beside a limit of "16 MiB"). */
    if (v == (double)(uint64_t)v) {
        snprintf(buf, 32, "%llu %s", (unsigned long long)v, units[u]);
    } else {
        snprintf(buf, 32, "%.1f %s", v, units[u]);
        if (strstr(buf, ".0 ")) snprintf(buf, 32, "%llu bytes", (unsigned long long)bytes);
    }
    return buf;
}

int wl_cpu_count(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (int)n;
}

/* (libgcc's __builtin_cpu_supports fills a table of every feature and model at start-up,
 * a dozen cpuid instructions; in a virtual machine each traps to the host, 9-17 us apiece
 * on the dev VM.  Two leaves are all the kernels ask.) */
static unsigned cpu_features(void) {
    unsigned f = 0;
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (__get_cpuid_max(0, NULL) < 7 || !__get_cpuid(1, &a, &b, &c, &d)) return 0;
    if (!(c & (1u << 27)) || !(c & (1u << 28))) return 0; /* OSXSAVE, AVX */
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    (void)hi;
    if ((lo & 0x6) != 0x6) return 0; /* the OS saves the SSE and AVX state */
    __cpuid_count(7, 0, a, b, c, d);
    if (b & (1u << 5)) f |= WL_CPU_AVX2;
    if ((lo & 0xE6) == 0xE6 && (b & (1u << 16))) { /* and opmask and all of the ZMM state */
        f |= WL_CPU_AVX512F;
        if (b & (1u << 30)) f |= WL_CPU_AVX512BW;
        if (b & (1u << 31)) f |= WL_CPU_AVX512VL;
        if (c & (1u << 1)) f |= WL_CPU_AVX512VBMI;
        if (c & (1u << 6)) f |= WL_CPU_AVX512VBMI2;
        if (c & (1u << 8)) f |= WL_CPU_GFNI512;
    }
#endif
    return f;
}

int wl_cpu_has(unsigned features) {
    static unsigned known; /* the features | 1u << 31 once found (a race finds the same) */
    unsigned f = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (!f) {
        f = cpu_features() | 1u << 31;
        __atomic_store_n(&known, f, __ATOMIC_RELAXED);
    }
    return (f & features) == features;
}

double wl_clock(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double wl_process_clock(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void *wl_module_open(const char *file, char *path, size_t cap) {
    /* the executable's folder, from /proc/self/exe */
    ssize_t n = readlink("/proc/self/exe", path, cap > 1 ? cap - 1 : 0);
    if (n <= 0 || (size_t)n >= cap) {
        wl_error(WL_ERR_UNAVAILABLE, "cannot find the executable's folder (/proc/self/exe) "
                                     "to load %s", file);
        return NULL;
    }
    path[n] = 0;
    char *slash = strrchr(path, '/');
    char *at = slash ? slash + 1 : path;
    if ((size_t)(at - path) + strlen(file) + 1 > cap) {
        wl_error(WL_ERR_UNAVAILABLE, "the path of %s is too long", file);
        return NULL;
    }
    strcpy(at, file);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        wl_error(WL_ERR_UNAVAILABLE, "cannot load %s: %s", path, why ? why : "dlopen failed");
    }
    return h;
}
