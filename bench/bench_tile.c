/*
 * bench_tile.c - the sparse engine's tile step on its own: every tile kernel of the cpu
 * engine (its tile_kernel slot) on a 64x64 tile of random cells with random neighbours,
 * computing all eight bricks (a dense tile) or one brick (a glider's cost), for B3/S23 and
 * a non-totalistic rule.  Prints nanoseconds per call and per brick, and the cell updates
 * per second of a dense tile; the best of REPEAT timings of CALLS calls each, since the
 * machine is shared.
 *
 * usage: bench_tile [CALLS]   (default 400000)
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>

#define REPEAT 7

int main(int argc, char **argv) {
    long calls = argc > 1 ? atol(argv[1]) : 400000;
    if (calls < 1) calls = 1;
    const wl_engine_ops *cpu = wl_engine_find("cpu");
    if (!cpu || !cpu->tile_kernel) {
        fprintf(stderr, "bench_tile: no cpu engine with tile kernels in this build\n");
        return 1;
    }
    static const char *const rules[] = {"B3/S23", "B35/S236", "B2-a/S12"};
    static const char *const kernels[] = {"best", "avx512", "avx2", "vpermb", "circuit", "bitsliced", "lut6x3"};
    /* 9 input tiles, the output tile, and a second version of the centre tile */
    uint64_t *buf = wl_aligned_alloc(11 * WL_TILE * sizeof *buf);
    if (!buf) return 1;
    uint64_t st = 1;
    for (int i = 0; i < 11 * WL_TILE; i++) buf[i] = wl_splitmix64(&st);
    /* random brick sets, about half the bricks each (a settling soup's rounds compute
     * 3.8 bricks a tile step): branches on the runs mispredict as they do in rounds */
    enum { NRMASK = 4096 };
    static unsigned rmask[NRMASK];
    long rb = 0;
    for (int i = 0; i < NRMASK; i++) {
        uint64_t a = wl_splitmix64(&st);
        rmask[i] = (unsigned)(a & (a >> 8)) & 0xFF; /* each brick with probability 1/4 */
        rmask[i] |= (unsigned)(a >> 16) & (unsigned)(a >> 24) & 0xFF; /* ... or again */
        if (!rmask[i]) rmask[i] = 1;
        rb += __builtin_popcount(rmask[i]);
    }
    const double rbricks = (double)rb / NRMASK;
    printf("%-10s %-10s %-10s %7s %12s %10s\n", "rule", "kernel", "technique", "bricks",
           "ns per call", "ns/brick");
    for (size_t ri = 0; ri < sizeof rules / sizeof rules[0]; ri++) {
        for (size_t ki = 0; ki < sizeof kernels / sizeof kernels[0]; ki++) {
            wl_config cfg;
            wl_config_init(&cfg);
            if (wl_rule_parse(rules[ri], &cfg.rule)) return 1;
            cfg.kernel = kernels[ki];
            wl_tile_kernel k;
            if (cpu->tile_kernel(&cfg, &k)) {
                printf("%-10s %-10s skipped: %s\n", rules[ri], kernels[ki], wl_last_error());
                continue;
            }
            static const unsigned masks[] = {0xFF, 0x10, 0};
            for (int mi = 0; mi < 3; mi++) {
                wl_tile_job j;
                for (int d = 0; d < 9; d++) j.in[d] = buf + WL_TILE * d;
                j.out = buf + WL_TILE * 9;
                j.bricks = masks[mi];
                double best = 1e30;
                for (int rep = 0; rep < REPEAT; rep++) {
                    double t0 = wl_clock();
                    for (long i = 0; i < calls; i++) {
                        if (mi == 2) j.bricks = rmask[i & (NRMASK - 1)];
                        k.step(&j, k.data);
                        /* alternate the centre tile so that nothing settles */
                        j.in[WL_NB_C] = (i & 1) ? buf + WL_TILE * 8 : buf + WL_TILE * 10;
                    }
                    double dt = wl_clock() - t0;
                    if (dt < best) best = dt;
                }
                double ns = best / (double)calls * 1e9;
                double nb = mi == 2 ? rbricks : __builtin_popcount(masks[mi]);
                printf("%-10s %-10s %-10s %7.2f %12.1f %10.2f", rules[ri], kernels[ki], k.name, nb,
                       ns, ns / nb);
                if (mi == 0) printf("   %.3g CUpS", WL_TILE * WL_TILE / (ns * 1e-9));
                printf("\n");
            }
            cpu->tile_kernel_free(&k);
        }
    }
    wl_aligned_free(buf);
    return 0;
}
