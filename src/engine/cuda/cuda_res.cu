/*
 * cuda_res.cu - the `res` kernel (cuda_res.cuh): small grids kept on the chip for up to
 * RS_MAX_GENS generations per launch, bands exchanged between blocks through tagged words.
 * This file holds its instances and the host side: which grids it runs (prepare), the band
 * plan, and the cooperative launch.
 *
 * Where it runs: a torus whose width is 1024, 2048, 4096 or 8192 cells (M = width / 1024
 * words per lane: the row wraps through the shuffle), a bounded grid at most 8192 cells wide,
 * and heights whose bands fit the blocks the GPU holds at once (one block of RS_WB warps per
 * band; at most the multiprocessors' count when possible, so that each has one).  Anything
 * else runs `wave` (`circuit` for rules that are not outer-totalistic; prepare switches the
 * context's kernel and says so when verbose).
 *
 * Rules: B3/S23 compiled in; every other rule compiled by NVRTC (cuda_rtc.cu), an outer-
 * totalistic one as its 5-input network on the adders' sums (rule 2), any other (Hensel,
 * MAP) as wl_rnet_synth's network over the nine cell planes (rule 3, the circuit kernel's);
 * without NVRTC, outer-totalistic rules by run-time masks and the others by `circuit`.
 * Generations rules (cuda_multi.cu calls wlcu_res_gen_prepare / _step): NVRTC only, rule 2
 * (Moore outer-totalistic) or 3 (any other table) on the firing cells plus the decay of P
 * planes, which the exchange carries too.
 *
 * Knobs (tuning and tests): WL_CUDA_RES_K generations per round (default: default_k),
 * WL_CUDA_RES_NR rows per warp (one of the compiled shapes), WL_CUDA_RES_TAG the first
 * exchange tag (tests of the wrap-around of the 32-bit tag); for Generations,
 * WL_CUDA_RES_ONEHOT the most decaying states kept one-hot (default RS_ONEHOT_MAX, 0: E
 * binary for every rule), WL_CUDA_RES_XB=0 binary E exchanged as F and E's planes rather
 * than one code, WL_CUDA_RES_WORDS the most words a lane holds (default RS_GEN_WORDS), and
 * WL_CUDA_RES_WB warps a block (default RS_WB; 12 and 16 were measured, docs/BENCHMARKS.md
 * "The decay one-hot in the lanes").
 */
#include "cuda_common.cuh"
#include "cuda_res.cuh"

#include <stdio.h>
#include <stdlib.h>

/* Generations per round by default: fewer rounds cost more halo rows (2 K of a tile's rows
 * are recomputed each generation) and save exchanges.  Measured on an H100 (docs/
 * BENCHMARKS.md, "res"): 8 for grids up to 2048 cells wide, 4 for wider ones. */
static int default_k(int m) { return m <= 2 ? 8 : 4; }

/* Generations: the most words of F and E a lane holds (see wlcu_res_gen_prepare), and the
 * most decaying states kept one-hot in the lanes (RS_GEN_ONEHOT; more are binary). */
#define RS_GEN_WORDS 100
#define RS_ONEHOT_MAX 2

typedef void (*rs_fn)(rs_args);

#define RS_KERNEL(name, M, NR, RULE)                                                        \
    __global__ void __launch_bounds__(32 * RS_WB, 1) name(rs_args a) {                      \
        rs_body(a, M, RS_WB, NR, RULE, 0, 0, 0);                                            \
    }
/* Each shape: B3/S23 compiled in (rule 1) and any outer-totalistic rule by run-time masks. */
#define RS_SHAPE(M, NR)                                                                     \
    RS_KERNEL(k_res_life_##M##x##NR, M, NR, 1)                                              \
    RS_KERNEL(k_res_masks_##M##x##NR, M, NR, 0)
#define RS_ROW(M, NR) {M, NR, k_res_life_##M##x##NR, k_res_masks_##M##x##NR},

/* (M words a lane, NR rows a warp): a tile of RS_WB * NR rows, (NR + 2) * M words of it in
 * each lane; for each M in order of tile height (prepare takes the first that fits). */
#define RS_SHAPES(X)                                                                        \
    X(1, 3) X(1, 4) X(1, 5) X(1, 6) X(1, 9) X(1, 17)                                        \
    X(2, 3) X(2, 4) X(2, 5) X(2, 6) X(2, 9) X(2, 17)                                        \
    X(4, 3) X(4, 4) X(4, 5) X(4, 6) X(4, 9) X(4, 17)                                        \
    X(8, 3) X(8, 4) X(8, 5) X(8, 6) X(8, 9)
RS_SHAPES(RS_SHAPE)

static const struct {
    int m, nr;
    rs_fn life, masks;
} shapes[] = {RS_SHAPES(RS_ROW)};
#define N_SHAPES ((int)(sizeof shapes / sizeof shapes[0]))

static int env_int(const char *name, int dflt) {
    const char *s = getenv(name);
    return s && *s ? atoi(s) : dflt;
}

/* B3/S23, the rule compiled in. */
static int is_life(const wlcu_ctx *c) {
    return c->totalistic && c->birth == 0x8 && c->survive == 0xC;
}

/* The compiled-in instance of shape i for c's rule (for other rules than outer-totalistic
 * ones, the masks instance stands in for planning only: NVRTC compiles theirs). */
static rs_fn shape_fn(const wlcu_ctx *c, int i) {
    return is_life(c) ? shapes[i].life : shapes[i].masks;
}

/* The bands shape i (in blocks of c->res_wb warps) needs for c's height with kk rows of halo
 * each way: their number, or 0 when that is more than `capacity` blocks. */
static int plan_blocks(const wlcu_ctx *c, int i, int kk, int64_t capacity) {
    int64_t rows = (int64_t)c->res_wb * shapes[i].nr - 2 * kk; /* band rows a tile holds */
    if (rows < 1) return 0;
    int64_t nb = ((int64_t)c->h + rows - 1) / rows;
    return nb <= capacity ? (int)nb : 0;
}

/* The plan of c's grid in blocks of c->res_wb warps: the words a lane *m (0: the width is not
 * run), generations a round *kk (WL_CUDA_RES_K, else kk_want, else default_k), the shape
 * *pick (-1: none; *why says what is missing) and its bands *nb, the multiprocessors *sms.
 * (Blocks of other than RS_WB warps, NVRTC's only, are planned one a multiprocessor.) */
static wl_status plan(wlcu_ctx *c, int kk_want, int *m_out, int *kk_out, int *pick_out,
                      int *nb_out, int *sms_out, const char **why_out) {
    int m = 0;
    for (int mm = 1; mm <= RS_MMAX && !m; mm *= 2)
        if (c->torus ? c->w == (uint64_t)1024 * mm : c->nw <= (uint64_t)32 * mm) m = mm;
    int kk = env_int("WL_CUDA_RES_K", kk_want ? kk_want : default_k(m));
    if (kk < 1) kk = 1;
    if (kk > RS_KMAX) kk = RS_KMAX;
    int sms = 0, coop = 0;
    WLCU_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, c->device));
    WLCU_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, c->device));
    const int want_nr = env_int("WL_CUDA_RES_NR", 0);
    int pick = -1, nb = 0;
    const char *why = "its width";
    if (m && coop) {
        why = "its height";
        /* the smallest tile whose bands give each multiprocessor at most one block; else the
         * largest whose bands fit the blocks the GPU holds at once */
        for (int i = 0; i < N_SHAPES; i++) {
            if (shapes[i].m != m || (want_nr && shapes[i].nr != want_nr)) continue;
            const size_t smem = RS_SMEM(m, RS_WB);
            int per_sm = 1;
            if (c->res_wb == RS_WB) {
                WLCU_CHECK(cudaFuncSetAttribute(shape_fn(c, i),
                                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                (int)smem));
                WLCU_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                    &per_sm, shape_fn(c, i), 32 * RS_WB, smem));
            }
            const int n1 = plan_blocks(c, i, kk, sms);
            const int nall = plan_blocks(c, i, kk, (int64_t)sms * per_sm);
            if (n1) {
                pick = i, nb = n1;
                break;
            }
            if (nall) pick = i, nb = nall;
        }
    } else if (m) {
        why = "the device (no cooperative launch)";
    }
    *m_out = m, *kk_out = kk, *pick_out = pick, *nb_out = nb, *sms_out = sms, *why_out = why;
    return WL_OK;
}

/* Takes the plan (shape pick, nb bands of kk-generation rounds) into c, and the exchange
 * buffer of its 1 + c->res_planes planes, cleared (the tags start again). */
static wl_status adopt(wlcu_ctx *c, int pick, int nb, int kk) {
    const int np = 1 + c->res_planes;
    c->res_shape = pick;
    c->res_nb = nb;
    c->res_band = (int)(c->h / (uint64_t)nb);
    c->res_extra = (int)(c->h % (uint64_t)nb);
    c->res_kk = kk < c->res_band ? kk : c->res_band; /* a band gives kk rows each way */
    size_t bytes = (size_t)2 * (size_t)nb * 2 * RS_KMAX * (size_t)np * (size_t)c->nw * 8;
    if (c->res_x && c->res_x_bytes < bytes) {
        cudaFree(c->res_x);
        c->res_x = NULL;
    }
    if (!c->res_x) {
        WLCU_CHECK(cudaMalloc(&c->res_x, bytes));
        c->res_x_bytes = bytes;
    }
    WLCU_CHECK(cudaMemset(c->res_x, 0, c->res_x_bytes));
    const char *tag = getenv("WL_CUDA_RES_TAG");
    c->res_tag = tag && *tag ? (unsigned)strtoul(tag, NULL, 0) : 1u;
    if (c->res_tag == 0) c->res_tag = 1; /* the buffer starts zeroed: tag 0 never matches */
    if (c->verbose)
        fprintf(stderr, "warplife: cuda res: %d bands of %d-%d rows, %d words a lane, %d rows a "
                "warp, %d warps, %d generations a round%s\n", nb, c->res_band,
                c->res_band + (c->res_extra > 0), shapes[pick].m, shapes[pick].nr, c->res_wb,
                c->res_kk,
                np == 1       ? ""
                : c->res_pb ? ", Generations (E one-hot)"
                : c->res_xb ? ", Generations (exchanged as codes)"
                            : ", Generations");
    return WL_OK;
}

/* NVRTC disabled by WL_CUDA_NO_NVRTC. */
static int no_rtc(void) {
    const char *off = getenv("WL_CUDA_NO_NVRTC");
    return off && *off && *off != '0';
}

extern "C" wl_status wlcu_res_prepare(wlcu_ctx *c) {
    c->res_fn = NULL;
    c->res_wb = RS_WB;
    int m, kk, pick, nb, sms;
    const char *why;
    wl_status ps = plan(c, 0, &m, &kk, &pick, &nb, &sms, &why);
    if (ps) return ps;
    if (pick < 0) {
        const char *other = c->totalistic ? "wave" : "circuit";
        if (c->verbose)
            fprintf(stderr, "warplife: cuda res does not run a %llu x %llu %s grid (%s); using "
                    "%s\n", (unsigned long long)c->w, (unsigned long long)c->h,
                    c->torus ? "torus" : "bounded", why, other);
        c->kernel = c->totalistic ? WLCU_K_WAVE : WLCU_K_CIRCUIT;
        return c->totalistic ? wlcu_wave_prepare(c) : wlcu_circuit_prepare(c);
    }
    /* rules other than B3/S23: the shape compiled by NVRTC with the rule's network (the
     * outer-totalistic rules' 5-input one, or any rule's over the nine cells), else the
     * run-time masks (at 4096^2, B36/S23: 5.4e12 CUpS, wave's masks 1.6e12), or for rules
     * that are not outer-totalistic the circuit kernel's own fallback */
    c->res_rtc = NULL;
    if (!is_life(c)) {
        int per_sm = 0;
        wl_status s = WL_ERR_UNAVAILABLE;
        if (!no_rtc() && (c->totalistic || c->rnet_synth))
            s = wlcu_rtc_kernel(c, c->totalistic ? WLCU_RTC_RES : WLCU_RTC_RES_CIRCUIT, 0,
                                shapes[pick].nr, m, &c->res_rtc, &per_sm);
        if (s == WL_OK && (int64_t)nb > (int64_t)sms * per_sm) {
            s = wl_error(WL_ERR_UNAVAILABLE, "its %d blocks do not fit", nb);
            c->res_rtc = NULL;
        }
        if (s != WL_OK) {
            if (c->verbose)
                fprintf(stderr, "warplife: cuda res: no run-time compiled kernel for this rule "
                        "(%s); using %s\n",
                        s == WL_ERR_UNAVAILABLE && no_rtc() ? "WL_CUDA_NO_NVRTC" : wl_last_error(),
                        c->totalistic ? "the run-time masks" : "circuit");
            wl_clear_error();
            if (!c->totalistic) {
                c->kernel = WLCU_K_CIRCUIT;
                return wlcu_circuit_prepare(c);
            }
        }
    }
    c->res_fn = (void *)shape_fn(c, pick);
    c->res_planes = c->res_pb = c->res_xb = 0;
    return adopt(c, pick, nb, kk);
}

/* Generations: the words of F and of Q planes of E that a lane holds in shape i. */
static int lane_words(int i, unsigned Q) { return shapes[i].m * shapes[i].nr * (1 + (int)Q); }

extern "C" wl_status wlcu_res_gen_prepare(wlcu_ctx *c, unsigned P, unsigned states,
                                          int circuit) {
    c->res_fn = c->res_rtc = NULL;
    int m, kk, pick, nb, sms;
    const char *why;
    /* E in the lanes: one-hot, a plane per decaying state, for up to RS_ONEHOT_MAX of them
     * (WL_CUDA_RES_ONEHOT: another limit, 0 none), else binary as in memory */
    const unsigned L = states - 2;
    const int onehot = L >= 1 && (int)L <= env_int("WL_CUDA_RES_ONEHOT", RS_ONEHOT_MAX);
    const unsigned Q = onehot ? L : P;
    c->res_wb = env_int("WL_CUDA_RES_WB", RS_WB); /* (tuning: NVRTC compiles any) */
    if (c->res_wb < 2 || c->res_wb > 32) c->res_wb = RS_WB;
    const int words = env_int("WL_CUDA_RES_WORDS", RS_GEN_WORDS); /* (tuning) */
    /* 8 generations a round where the lane's words fit (up to three planes of E at 4096
     * cells wide: 23/3/3 1.33e13 CUpS against 1.22e13 with 4, 345/2/4 8.8e12 against
     * 8.5e12, H100) */
    wl_status s = plan(c, RS_KMAX, &m, &kk, &pick, &nb, &sms, &why);
    if (!s && (pick < 0 || lane_words(pick, Q) > words))
        s = plan(c, 0, &m, &kk, &pick, &nb, &sms, &why);
    if (s) return s;
    if (pick < 0)
        return wl_error(WL_ERR_UNAVAILABLE, "cuda res does not run a %llu x %llu %s grid (%s)",
                        (unsigned long long)c->w, (unsigned long long)c->h,
                        c->torus ? "torus" : "bounded", why);
    if (Q > RS_PMAX)
        return wl_error(WL_ERR_UNAVAILABLE, "cuda res holds at most %d planes of decay, not %u",
                        RS_PMAX, Q);
    /* the lane's words of F and E: past 100 (or at 8 words a lane) ptxas spills registers
     * (sm_90: 4 x 5 rows x 5 planes none, 4 x 9 x 3 and 8 x 6 x 2 a few, 8 x 9 x 2 kilobytes) */
    if (lane_words(pick, Q) > words || m > 4)
        return wl_error(WL_ERR_UNAVAILABLE, "cuda res: a lane would hold %d words of %u planes",
                        m * shapes[pick].nr, 1 + Q);
    if (no_rtc()) return wl_error(WL_ERR_UNAVAILABLE, "cuda res: WL_CUDA_NO_NVRTC");
    if (circuit && !c->rnet_synth)
        return wl_error(WL_ERR_UNAVAILABLE, "cuda res: no network synthesiser");
    c->res_planes = (int)Q;
    c->res_pb = onehot ? (int)P : 0;
    /* binary E of at most 2^P states: exchanged as one code of P planes (RS_XB_PUT), up to
     * four planes (H100, 4096^2: 8 states 1.17x, 16 states 1.05x; 256 states at 2048^2 0.96x) */
    c->res_xb = !onehot && P >= 2 && P <= 4 && states <= (1u << P) &&
                env_int("WL_CUDA_RES_XB", 1);
    c->res_last = states - 1;
    int per_sm = 0;
    s = wlcu_rtc_kernel(c, circuit ? WLCU_RTC_RES_GEN_CIRCUIT : WLCU_RTC_RES_GEN, 0,
                        shapes[pick].nr, m, &c->res_rtc, &per_sm);
    if (s) return s;
    if ((int64_t)nb > (int64_t)sms * per_sm) {
        c->res_rtc = NULL;
        return wl_error(WL_ERR_UNAVAILABLE, "cuda res: its %d blocks do not fit", nb);
    }
    return adopt(c, pick, nb, kk);
}

extern "C" unsigned wlcu_res_max_gens(const wlcu_ctx *c) {
    (void)c;
    return RS_MAX_GENS;
}

/* One launch of gens generations from (cur, ein) to (nxt, eout). */
static wl_status launch(wlcu_ctx *c, unsigned gens, const uint32_t *ein, uint32_t *eout) {
    rs_args a;
    a.ein = ein;
    a.eout = eout;
    a.eplane = c->nw * c->h;
    a.last = c->res_last;
    a.in = (const uint32_t *)c->cur;
    a.out = (uint32_t *)c->nxt;
    a.x = (unsigned long long *)c->res_x;
    a.w = (int64_t)c->w;
    a.h = (int64_t)c->h;
    a.nw = c->nw;
    a.torus = c->torus;
    a.nb = c->res_nb;
    a.band = c->res_band;
    a.extra = c->res_extra;
    a.kk = c->res_kk;
    a.gens = (int)gens;
    a.birth = c->birth;
    a.survive = c->survive;
    a.colmask = !c->torus && c->w != (uint64_t)1024 * shapes[c->res_shape].m;
    const unsigned rounds = (gens + (unsigned)a.kk - 1) / (unsigned)a.kk;
    if (c->res_tag > 0xffffffffu - rounds) { /* the tags would wrap: start again from 1 */
        WLCU_CHECK(cudaMemsetAsync(c->res_x, 0, c->res_x_bytes, 0));
        c->res_tag = 1;
    }
    a.tag0 = c->res_tag;
    c->res_tag += rounds;
    void *args[] = {&a};
    const size_t smem = RS_SMEM(shapes[c->res_shape].m, c->res_wb);
    if (c->res_rtc)
        return wlcu_rtc_coop_launch(c->res_rtc, (unsigned)c->res_nb, 32 * (unsigned)c->res_wb,
                                    (unsigned)smem, args);
    WLCU_CHECK(cudaLaunchCooperativeKernel((const void *)c->res_fn, (unsigned)c->res_nb,
                                           32 * RS_WB, args, smem, 0));
    return WL_OK;
}

extern "C" wl_status wlcu_res_step(wlcu_ctx *c, unsigned gens) {
    return launch(c, gens, NULL, NULL);
}

extern "C" wl_status wlcu_res_gen_step(wlcu_ctx *c, unsigned gens, const uint32_t *ein,
                                       uint32_t *eout) {
    return launch(c, gens, ein, eout);
}
