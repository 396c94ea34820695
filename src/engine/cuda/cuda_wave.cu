/*
 * cuda_wave.cu - the `wave` kernel's compiled-in instances and host launcher (`best` for
 * outer-totalistic rules on grids of fewer than 2^28 cells).  The kernel itself (wavefront
 * temporal blocking: one warp streams a strip of rows through K register-resident
 * generation levels, no shared memory, no barrier) is in cuda_wave.cuh, whose essay explains
 * the layout, the skewed levels and the halo; this file picks the instance and the chunk
 * height.
 *
 * Instances: B3/S23 (3-LOP3 rule network) for K = 8, 12, 16 (WL_CUDA_WAVE_K picks one for
 * tuning; 16 is the default: 8 and 12 measured within 1% of it on an H100, and 16 has the
 * least halo and spills nothing), and a run-time mask evaluator (K = 8) for every other
 * outer-totalistic rule.  Other rules
 * normally run a kernel compiled at run time by NVRTC with the rule as a fixed LOP3 network
 * (cuda_rtc.cu); the mask kernel is the fallback when NVRTC is missing or fails.  The
 * `circuit` kernel (any rule, wlcu_circuit_prepare) is the same body with rule 3, always
 * compiled by NVRTC, with lut6x3 as its fallback.
 *
 * Chunk height.  Tasks cost about the same, so the launch runs in waves of the GPU's
 * resident warps.  The host tries every number of chunks per strip C (up to a few waves'
 * worth) and keeps the one with the least  (waves(C) + 1/2) x (Hc(C) + 3K): whole waves of
 * tasks, halo and pipeline drain included, plus half a task of tail (edge tasks run slower
 * and SMs finish unevenly: one wave of tall chunks measured 3-4% slower than 7-9 waves of
 * 512-613-row chunks, whose recomputed rows are 8-9%; e.g. 65536^2 with K = 16 and 8
 * resident warps per SM: Hc = 613, 107 chunks, 7383 tasks in 7 waves).  WL_CUDA_WAVE_HC
 * forces a height (tuning).
 */
#include "cuda_common.cuh"
#include "cuda_wave.cuh"

#include <stdio.h>
#include <stdlib.h>

typedef void (*wave_fn)(const uint32_t *, uint32_t *, int64_t, int64_t, uint64_t, int, int64_t,
                        int64_t, int64_t, unsigned, unsigned);

/* MINB = blocks of 4 warps per SM that ptxas must make room for: 65536 registers / (128 x
 * MINB) caps the registers per thread.  ptxas schedules the K independent levels for
 * latency and needs far more than the 6 registers per level that the state takes: without
 * a cap K = 8 / 12 / 16 use 120 / 158 / 215 registers (nvcc 13.0, sm_90); tighter caps
 * (64 / 96 / 128) spilled 400-1200 bytes per thread.  So: K = 8: 4 (16 warps per SM), 12: 3
 * (12 warps), 16: 2 (8 warps), each with K-fold instruction-level parallelism per warp. */
#define WAVE_KERNEL(name, RULE, K, MINB)                                                    \
    __global__ void __launch_bounds__(32 * WV_WARPS, MINB)                                 \
        name(const uint32_t *in, uint32_t *out, int64_t w, int64_t h, uint64_t nw, int torus, \
             int64_t strips, int64_t chunks, int64_t hc, unsigned birth, unsigned survive) {  \
        wave_body(in, out, w, h, nw, torus, strips, chunks, hc, birth, survive, RULE, K);   \
    }

WAVE_KERNEL(k_wave_life8, 1, 8, 4)
WAVE_KERNEL(k_wave_life12, 1, 12, 3)
WAVE_KERNEL(k_wave_life16, 1, 16, 2)
WAVE_KERNEL(k_wave_masks8, 0, 8, 3)

/* The Life K used when WL_CUDA_WAVE_K is not set. */
#define WAVE_LIFE_K 16
/* K of the run-time compiled rule kernels (same register budget as Life's). */
#define WAVE_RTC_K 16

static wave_fn life_fn(int k) {
    return k == 8 ? k_wave_life8 : k == 12 ? k_wave_life12 : k_wave_life16;
}

/* K from WL_CUDA_WAVE_K (8, 12 or 16: the compiled Life instances; tuning only), else def. */
static int env_k(int def) {
    const char *e = getenv("WL_CUDA_WAVE_K");
    int k = e ? atoi(e) : def;
    return k == 8 || k == 12 || k == 16 ? k : def;
}

/* Chunk height for h rows, `strips` strips, r resident warps, K generations (see the essay). */
static int64_t plan_chunk(int64_t h, int64_t strips, int64_t r, int kk) {
    int64_t cmax = 8 * r / strips + 8; /* a few waves: more chunks only add halo */
    if (cmax > h) cmax = h;
    int64_t best_hc = h;
    double best = -1;
    for (int64_t cc = 1; cc <= cmax; cc++) {
        int64_t hc = (h + cc - 1) / cc;
        int64_t chunks = (h + hc - 1) / hc;
        int64_t waves = (strips * chunks + r - 1) / r;
        /* + half a task: the launch's tail (edge tasks are slower, SMs finish unevenly).
         * H100, B3/S23, 65536^2 torus: one wave of 4370-row chunks (the model without the
         * half task) 3.23e13, 9 waves of 512 rows 3.35e13 (05:55 UTC); this model's choice,
         * 7 waves of 613 rows, 3.32e13 against 3.25e13 for 512 rows (05:59 UTC) */
        double cost = ((double)waves + 0.5) * (double)(hc + 3 * kk);
        if (best < 0 || cost < best) {
            best = cost;
            best_hc = hc;
        }
    }
    return best_hc;
}

static wl_status wave_plan(wlcu_ctx *c, int sms, int per_sm);

extern "C" wl_status wlcu_wave_prepare(wlcu_ctx *c) {
    int sms = 0, per_sm = 0;
    WLCU_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, c->device));
    c->wave_fn = NULL;
    /* WL_CUDA_WAVE_RTC_LIFE=1 (tuning): B3/S23 through NVRTC too, with lop3net's network */
    const char *rtc_life = getenv("WL_CUDA_WAVE_RTC_LIFE");
    if (c->birth == 0x8 && c->survive == 0xC && !(rtc_life && *rtc_life == '1')) {
        int k = env_k(WAVE_LIFE_K);
        c->wave_k = k;
        WLCU_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, life_fn(k),
                                                                 32 * WV_WARPS, 0));
    } else {
        const char *off = getenv("WL_CUDA_NO_NVRTC");
        wl_status s = WL_ERR_UNAVAILABLE;
        if (!(off && *off && *off != '0'))
            s = wlcu_rtc_kernel(c, WLCU_RTC_WAVE, env_k(WAVE_RTC_K), 0, 0, &c->wave_fn,
                                &per_sm);
        if (s == WL_OK) {
            c->wave_k = env_k(WAVE_RTC_K);
        } else {
            if (c->verbose)
                fprintf(stderr,
                        "warplife: cuda wave: no run-time compiled kernel for this rule (%s); "
                        "using the run-time mask evaluator\n",
                        s == WL_ERR_UNAVAILABLE && off ? "WL_CUDA_NO_NVRTC" : wl_last_error());
            c->wave_fn = NULL;
            c->wave_k = 8;
            WLCU_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_wave_masks8,
                                                                     32 * WV_WARPS, 0));
        }
    }
    return wave_plan(c, sms, per_sm);
}

/* K of the circuit kernels (WL_CUDA_CIRCUIT_K, 1..16, overrides): networks of 10-100
 * gates give each level plenty of instruction-level parallelism, and fewer levels leave
 * registers for the gates' values.  H100, 65536^2 (docs/BENCHMARKS.md): a 12-gate network
 * 1.74e13 / 1.93e13 / 2.09e13 CUpS at K = 4 / 8 / 16, a 35-gate one 9.95e12 / 1.02e13 /
 * 8.70e12.  So K = 16 up to CIRCUIT_SMALL gates on grids of 2^28 cells or more, 8 above
 * and on smaller grids, where K = 16's taller halo costs more (4096^2 for 4096 generations:
 * the 12-gate network 6.45e12 at K = 8, 4.49e12 at K = 16). */
#define CIRCUIT_K 8
#define CIRCUIT_SMALL 16

extern "C" wl_status wlcu_circuit_prepare(wlcu_ctx *c) {
    int sms = 0, per_sm = 0;
    WLCU_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, c->device));
    wl_status s = wlcu_lut6x3_table(c); /* the remainder of a step, or everything */
    if (s) return s;
    wl_rnet net; /* wl_rnet_synth keeps it: build() finds it again without a search */
    int gates = c->rnet_synth && c->rnet_synth(&c->rule, 1, &net) == WL_OK ? net.n : 1 << 20;
    wl_clear_error();
    const char *ek = getenv("WL_CUDA_CIRCUIT_K");
    int k = ek && atoi(ek) >= 1 && atoi(ek) <= WV_KMAX ? atoi(ek)
            : gates <= CIRCUIT_SMALL && c->w * c->h >= ((uint64_t)1 << 28) ? 16
                                                                             : CIRCUIT_K;
    const char *off = getenv("WL_CUDA_NO_NVRTC");
    s = WL_ERR_UNAVAILABLE;
    c->wave_fn = NULL;
    if (!(off && *off && *off != '0') && c->rnet_synth)
        s = wlcu_rtc_kernel(c, WLCU_RTC_CIRCUIT, k, 0, 0, &c->wave_fn, &per_sm);
    if (s) {
        if (c->verbose)
            fprintf(stderr, "warplife: cuda circuit: no run-time compiled kernel for this rule "
                            "(%s); using lut6x3\n",
                    off && *off && *off != '0' ? "WL_CUDA_NO_NVRTC" : wl_last_error());
        wl_clear_error();
        c->wave_fn = NULL;
        c->wave_k = 1; /* every generation by lut6x3 */
        return WL_OK;
    }
    c->wave_k = k;
    return wave_plan(c, sms, per_sm);
}

/* Resident warps and the chunk height for the chosen kernel (per_sm blocks per SM). */
static wl_status wave_plan(wlcu_ctx *c, int sms, int per_sm) {
    if (per_sm < 1) per_sm = 1;
    c->wave_resident = (int64_t)sms * per_sm * WV_WARPS;
    /* the chunk height depends only on the grid, the kernel and K: planned once here */
    int64_t h = (int64_t)c->h, strips = (int64_t)((c->nw + WV_LANES_OUT - 1) / WV_LANES_OUT);
    c->wave_hc = plan_chunk(h, strips, c->wave_resident, c->wave_k);
    const char *force = getenv("WL_CUDA_WAVE_HC"); /* tuning: a fixed chunk height */
    if (force && atoll(force) > 0) c->wave_hc = atoll(force) < h ? atoll(force) : h;
    return WL_OK;
}

extern "C" unsigned wlcu_wave_max_gens(const wlcu_ctx *c) {
    return c->wave_k > 0 ? (unsigned)c->wave_k : 8u;
}

extern "C" wl_status wlcu_wave_step(wlcu_ctx *c, unsigned gens) {
    (void)gens; /* always wlcu_wave_max_gens(c) (the kernel table's `whole`) */
    if (c->kernel == WLCU_K_CIRCUIT && !c->wave_fn) return wlcu_lut6x3_step(c); /* no NVRTC */
    const int kk = (int)wlcu_wave_max_gens(c);
    int64_t h = (int64_t)c->h, w = (int64_t)c->w;
    int64_t strips = (int64_t)((c->nw + WV_LANES_OUT - 1) / WV_LANES_OUT);
    int64_t hc = c->wave_hc;
    int64_t chunks = (h + hc - 1) / hc;
    int64_t warps = strips * chunks;
    int64_t blocks = (warps + WV_WARPS - 1) / WV_WARPS;
    if (blocks > 0x7fffffff)
        return wl_error(WL_ERR_TOO_BIG, "CUDA wave: %lld tasks are too many for one launch",
                        (long long)warps);
    const uint32_t *in = (const uint32_t *)c->cur;
    uint32_t *out = (uint32_t *)c->nxt;
    uint64_t nw = c->nw;
    int torus = c->torus;
    unsigned birth = c->birth, survive = c->survive;
    if (c->wave_fn) {
        void *args[] = {&in, &out, &w, &h, &nw, &torus, &strips, &chunks, &hc, &birth, &survive};
        return wlcu_rtc_launch(c->wave_fn, (unsigned)blocks, 32 * WV_WARPS, args);
    }
    wave_fn fn = (c->birth == 0x8 && c->survive == 0xC) ? life_fn(kk) : k_wave_masks8;
    fn<<<(unsigned)blocks, 32 * WV_WARPS>>>(in, out, w, h, nw, torus, strips, chunks, hc, birth,
                                            survive);
    WLCU_CHECK_LAUNCH("wave");
    return WL_OK;
}
