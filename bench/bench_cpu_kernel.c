/*
 * bench_cpu_kernel.c - the inner loop of a CPU-engine kernel alone, on one tile that stays
 * in L1/L2: how fast the logic runs when memory is not in the way.  It calls the kernel's
 * gen_rows (src/engine/cpu) on a random tile of `words` x `rows` (a torus row, band mode)
 * `reps` times, ping-ponging two buffers, and prints the best of 8 repetitions as
 * nanoseconds per 512 cells and cell updates per second.  No halo copies, no threads.
 *
 * usage: bench_cpu_kernel [avx512|avx2|bitsliced|vpermb] [words] [rows] [reps] [rule B/S]
 *        defaults: avx512 16 130 2000 B3/S23 (a 1024 x 128 tile, 32 KiB per buffer)
 */
#define _POSIX_C_SOURCE 200809L

#include "../src/engine/cpu/cpu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    const char *kernel = argc > 1 ? argv[1] : "avx512";
    size_t words = argc > 2 ? (size_t)atol(argv[2]) : 16, rows = argc > 3 ? (size_t)atol(argv[3]) : 130;
    long reps = argc > 4 ? atol(argv[4]) : 2000;
    const char *rule_text = argc > 5 ? argv[5] : "B3/S23";
    cpu_gen_rows_fn fn = NULL;
    size_t vw = 1;
    int wraps = 0;
    cpu_kernel_data kd;
    memset(&kd, 0, sizeof kd);
    wl_rule rule;
    if (wl_rule_parse(rule_text, &rule) != WL_OK) {
        fprintf(stderr, "bad rule: %s\n", wl_last_error());
        return 1;
    }
    int totalistic = cpu_circuit_build(&rule, &kd.circ);
#if defined(__x86_64__)
    if (strcmp(kernel, "avx512") == 0 && wl_cpu_has(WL_CPU_AVX512F) && totalistic) {
        fn = cpu_gen_rows_avx512, vw = 8, wraps = 1;
        kd.vbmi2 = cpu_avx512_uses_vbmi2();
    } else if (strcmp(kernel, "avx2") == 0 && wl_cpu_has(WL_CPU_AVX2) && totalistic) {
        fn = cpu_gen_rows_avx2, vw = 4, wraps = 1;
    } else if (strcmp(kernel, "vpermb") == 0 && cpu_vpermb_available()) {
        fn = cpu_gen_rows_vpermb, vw = 8;
        kd.table512 = cpu_vpermb_table_build(&rule);
    }
#endif
    if (strcmp(kernel, "bitsliced") == 0 && totalistic) fn = cpu_gen_rows_bitsliced;
    if (!fn || words == 0 || words % vw || rows < 3 || reps < 1) {
        fprintf(stderr, "kernel %s unavailable here (or not for this rule), or words not a "
                        "multiple of %zu, or rows < 3\n", kernel, vw);
        return 1;
    }
    size_t pitch = words + 2 * CPU_PAD;
    uint64_t *a = wl_aligned_alloc(pitch * rows * 8), *b = wl_aligned_alloc(pitch * rows * 8);
    if (!a || !b) return 1;
    memset(a, 0, pitch * rows * 8);
    memset(b, 0, pitch * rows * 8);
    uint64_t seed = 1;
    for (size_t r = 0; r < rows; r++)
        for (size_t i = 0; i < words; i++) a[r * pitch + CPU_PAD + i] = wl_splitmix64(&seed);
    double best = 1e30;
    for (int k = 0; k < 8; k++) {
        double t0 = now();
        for (long i = 0; i < reps; i++) {
            if (!wraps) /* the driver's pad refresh for kernels that do not wrap themselves */
                for (size_t r = 0; r < rows; r++) {
                    uint64_t *row = a + r * pitch + CPU_PAD;
                    row[-1] = row[words - 1];
                    row[words] = row[0];
                }
            fn(a + CPU_PAD, b + CPU_PAD, pitch, words, 1, rows - 1, 1, NULL, &kd);
            uint64_t *t = a;
            a = b;
            b = t;
        }
        double t = now() - t0;
        if (t < best) best = t;
    }
    double cells = (double)reps * (double)(rows - 2) * (double)words * 64.0;
    printf("%s %s: %zu words x %zu rows: %.3f ns per 512 cells, %.3g CUpS (best of 8)\n",
           kernel, rule_text, words, rows, best / cells * 512 * 1e9, cells / best);
    wl_aligned_free(a);
    wl_aligned_free(b);
    wl_aligned_free((void *)kd.table512);
    return 0;
}
