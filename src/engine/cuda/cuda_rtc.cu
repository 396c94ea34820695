/*
 * cuda_rtc.cu - run-time compiled `wave`, `lop3p`, `circuit` and `res` kernels: one per rule
 * and family, its rule logic a fixed network of LOP3 gates, compiled by NVRTC for the
 * device's architecture, loaded with the driver API and cached per (device, family, rule, K,
 * tile) for the life of the process.
 *
 * Why: the wave kernel's rule step takes the five bit planes (x0, k, y1, y2, ctr) of the
 * vertical adders (9-cell total T = x0 + 2 (k + y1) + 4 y2) to the next state.  With
 * birth/survive masks known only at run time that costs ~25 instructions per 32 cells
 * (wl_rule_planes9); with the masks as constants it is a 5-input Boolean function, which at
 * most 7 LOP3 compute:  f = ctr ? F1 : F0,  F_c = x0 ? G_c1 : G_c0,  G_cx(k, y1, y2) one
 * LOP3 whose table is the rule's column (4 + 2 + 1 gates, fewer when columns coincide or are
 * constant).  The synthesiser of src/core/lop3net.c (wl_lop3_synth) may find fewer gates;
 * its network is used when it verifies on all 32 rows and is smaller.  Compiling that per
 * rule needs a compiler at run time: NVRTC.
 *
 * Linking: the library must load and run on machines with no GPU and no driver (CI), so it
 * links neither libcuda nor libnvrtc.  NVRTC is opened with dlopen ("libnvrtc.so.13", then
 * "libnvrtc.so"); the driver functions come from the CUDA runtime already linked, through
 * cudaGetDriverEntryPointByVersion.  Any failure (no NVRTC, a compile error, no entry point)
 * is returned as an error; the caller falls back to the run-time mask kernel.
 *
 * Source text: cuda_win.cuh and cuda_wave.cuh (and cuda_pair.cuh for lop3p, cuda_res.cuh for
 * res) embedded by CMake (embed_cuh.cmake) as strings, preceded by the WV_RULE macro (the
 * network, one WV_LOP3 per gate) or circuit's WV_CIRCUIT_NET, and followed by one extern "C"
 * kernel.  The build's nvcc compiles exactly the same files for the compiled-in Life
 * kernels, so the two paths share every line but the rule.
 *
 * Where the compile time goes (NVRTC 13.0, sm_90, K = 16, measured on the CPU with
 * --fdevice-time-trace; the H100 machine took 2.9-4.8 s per rule): the C++ front end
 * 0.05 s; NVVM optimisation ~1.7 s and ptxas ~2 s, both over the one kernel the source
 * defines (one K; wave_body's fast and edge variants of wave_rows, each K levels unrolled 3
 * times: a 390 KB cubin; K = 8: 240 KB, ~30% less time).  Nothing is compiled that is not
 * launched, and the options are the arch and the language standard only (no -G, no
 * -lineinfo); --split-compile=0 and --minimal gained nothing measurable.  Cutting the time
 * further would mean changing the kernel's code, so the cure is not compiling twice:
 *
 * Disk cache (rtc_cache.c): the cubin is stored under a 128-bit key of the full source text,
 * every option (the arch sm_XY among them), the NVRTC and driver versions and a format tag,
 * in $WL_CACHE_DIR, $XDG_CACHE_HOME/warplife or $HOME/.cache/warplife (WL_CACHE_DIR=off:
 * none), looked up once per process.  A later process reads and verifies the entry and
 * loads it with cuModuleLoadData (a cubin for the exact arch: no driver JIT); a damaged
 * entry fails verification and is recompiled and overwritten; an entry the driver rejects
 * is deleted and recompiled.  Only an image the driver has just loaded is written.  The
 * per-process table below (device, rule, K, tuning defines) stays in front of both.
 * WL_CUDA_VERBOSE=1 prints per rule "compiled in X s" or "loaded from cache PATH in X s".
 */
#include "cuda_common.cuh"
#include "cuda_rtc_src.h" /* generated: WLCU_{WIN,WAVE,PAIR,RES}_SRC */
#include "cuda_res.cuh"   /* RS_SMEM (and cuda_wave.cuh: WV_WARPS) */
#include "rtc_cache.h"    /* the disk cache of compiled cubins */

#include <cuda.h> /* driver API types only: the functions are reached through the runtime */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h> /* unlink */

/* lop3net.h (wl_lop3_net) comes through wlcuda.h */

/* ---- NVRTC through dlopen (the subset used; signatures of nvrtc.h) ---- */

typedef int nvrtc_res; /* nvrtcResult: 0 = success */
typedef struct _nvrtcProgram *nvrtc_prog;
static struct {
    int tried, ok;
    nvrtc_res (*create)(nvrtc_prog *, const char *, const char *, int, const char *const *,
                        const char *const *);
    nvrtc_res (*compile)(nvrtc_prog, int, const char *const *);
    nvrtc_res (*log_size)(nvrtc_prog, size_t *);
    nvrtc_res (*log)(nvrtc_prog, char *);
    nvrtc_res (*cubin_size)(nvrtc_prog, size_t *);
    nvrtc_res (*cubin)(nvrtc_prog, char *);
    nvrtc_res (*destroy)(nvrtc_prog *);
    nvrtc_res (*version)(int *, int *);
    int nv_major, nv_minor; /* NVRTC's version (part of the disk cache key) */
    CUresult (*load)(CUmodule *, const void *);
    CUresult (*get_fn)(CUfunction *, CUmodule, const char *);
    CUresult (*unload)(CUmodule);
    CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                       unsigned, CUstream, void **, void **);
    CUresult (*occupancy)(int *, CUfunction, int, size_t);
    CUresult (*coop_launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                            unsigned, unsigned, CUstream, void **);
    CUresult (*set_attr)(CUfunction, CUfunction_attribute, int);
    char why[160];
} api;

static pthread_mutex_t rtc_lock = PTHREAD_MUTEX_INITIALIZER;

static int driver_fn(const char *name, void **fp) {
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    *fp = NULL;
    cudaError_t e = cudaGetDriverEntryPointByVersion(name, fp, 12000, cudaEnableDefault, &q);
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !*fp) {
        cudaGetLastError();
        snprintf(api.why, sizeof api.why, "driver entry point %s not found", name);
        return 0;
    }
    return 1;
}

/* Opens NVRTC and the driver entry points once; returns 1 when everything is there. */
static int api_open(void) {
    if (api.tried) return api.ok;
    api.tried = 1;
    void *lib = dlopen("libnvrtc.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen("libnvrtc.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(api.why, sizeof api.why, "NVRTC not found (libnvrtc.so.13, libnvrtc.so)");
        return 0;
    }
#define SYM(field, name)                                                                   \
    if (!(*(void **)&api.field = dlsym(lib, name))) {                                      \
        snprintf(api.why, sizeof api.why, "NVRTC lacks %s", name);                         \
        return 0;                                                                          \
    }
    SYM(create, "nvrtcCreateProgram")
    SYM(compile, "nvrtcCompileProgram")
    SYM(log_size, "nvrtcGetProgramLogSize")
    SYM(log, "nvrtcGetProgramLog")
    SYM(cubin_size, "nvrtcGetCUBINSize")
    SYM(cubin, "nvrtcGetCUBIN")
    SYM(destroy, "nvrtcDestroyProgram")
    SYM(version, "nvrtcVersion")
#undef SYM
    if (api.version(&api.nv_major, &api.nv_minor) != 0) api.nv_major = api.nv_minor = -1;
    if (!driver_fn("cuModuleLoadData", (void **)&api.load) ||
        !driver_fn("cuModuleGetFunction", (void **)&api.get_fn) ||
        !driver_fn("cuModuleUnload", (void **)&api.unload) ||
        !driver_fn("cuLaunchKernel", (void **)&api.launch) ||
        !driver_fn("cuOccupancyMaxActiveBlocksPerMultiprocessor", (void **)&api.occupancy) ||
        !driver_fn("cuLaunchCooperativeKernel", (void **)&api.coop_launch) ||
        !driver_fn("cuFuncSetAttribute", (void **)&api.set_attr))
        return 0;
    api.ok = 1;
    return 1;
}

/* ---- the rule network ---- */

/* Truth table of the rule over r = ctr<<4 | y2<<3 | y1<<2 | k<<1 | x0 (lop3net.h's order);
 * *care: the reachable rows (a live centre implies T >= 1, a dead one T <= 8), the same as
 * wl_lop3_table's.  (Until 2026-11-22 this table also cared about T = 9 with a dead centre,
 * so every lop3net network that used that don't-care failed net_ok and the structured
 * network ran instead: B3678/S34678 with 7 gates instead of 3, B36/S23 with 6 instead of 4.) */
static void rule_table(uint16_t birth, uint16_t survive, uint32_t *table, uint32_t *care) {
    *table = *care = 0;
    for (unsigned r = 0; r < 32; r++) {
        unsigned x0 = r & 1, k = (r >> 1) & 1, y1 = (r >> 2) & 1, y2 = (r >> 3) & 1,
                 ctr = r >> 4;
        unsigned t = x0 + 2 * (k + y1) + 4 * y2;
        if ((ctr && t == 0) || (!ctr && t == 9)) continue;
        *care |= 1u << r;
        unsigned alive = ctr ? (survive >> (t - 1)) & 1u : (birth >> t) & 1u;
        *table |= alive << r;
    }
}

/* The value of a signal (input, gate, constant) on row r, gates evaluated in order. */
static unsigned net_eval(const wl_lop3_net *n, unsigned r) {
    unsigned val[WL_LOP3_INPUTS + WL_LOP3_MAX_GATES];
    for (int i = 0; i < WL_LOP3_INPUTS; i++) val[i] = (r >> i) & 1u;
    for (int i = 0; i < n->n; i++) {
        int s[3] = {n->g[i].a, n->g[i].b, n->g[i].c};
        unsigned b[3];
        for (int j = 0; j < 3; j++)
            b[j] = s[j] == WL_LOP3_ZERO ? 0u : s[j] == WL_LOP3_ONES ? 1u : val[s[j]];
        val[WL_LOP3_INPUTS + i] = (n->g[i].lut >> (4 * b[0] + 2 * b[1] + b[2])) & 1u;
    }
    return n->out == WL_LOP3_ZERO ? 0u : n->out == WL_LOP3_ONES ? 1u : val[n->out];
}

/* 1 if n is well formed and equals the table on every cared row. */
static int net_ok(const wl_lop3_net *n, uint32_t table, uint32_t care) {
    if (n->n < 0 || n->n > WL_LOP3_MAX_GATES) return 0;
    int lim = WL_LOP3_INPUTS;
    for (int i = 0; i < n->n; i++, lim++) {
        int s[3] = {n->g[i].a, n->g[i].b, n->g[i].c};
        for (int j = 0; j < 3; j++)
            if (s[j] != WL_LOP3_ZERO && s[j] != WL_LOP3_ONES && (s[j] < 0 || s[j] >= lim))
                return 0;
    }
    if (n->out != WL_LOP3_ZERO && n->out != WL_LOP3_ONES && (n->out < 0 || n->out >= lim))
        return 0;
    for (unsigned r = 0; r < 32; r++)
        if (((care >> r) & 1u) && net_eval(n, r) != ((table >> r) & 1u)) return 0;
    return 1;
}

/* Appends a gate (or reuses an identical one); returns its signal. */
static int add_gate(wl_lop3_net *n, int a, int b, int c, unsigned lut) {
    for (int i = 0; i < n->n; i++)
        if (n->g[i].a == a && n->g[i].b == b && n->g[i].c == c && n->g[i].lut == lut)
            return WL_LOP3_INPUTS + i;
    n->g[n->n].a = (int8_t)a;
    n->g[n->n].b = (int8_t)b;
    n->g[n->n].c = (int8_t)c;
    n->g[n->n].lut = (uint8_t)lut;
    return WL_LOP3_INPUTS + n->n++;
}

/* sel ? hi : lo (lut 0xCA), or a plain signal when both sides agree. */
static int mux(wl_lop3_net *n, int sel, int hi, int lo) {
    return hi == lo ? hi : add_gate(n, sel, hi, lo, 0xCA);
}

/* The structured network of at most 7 gates (the essay). */
static void structured_net(uint32_t table, wl_lop3_net *n) {
    memset(n, 0, sizeof *n);
    int f_c[2];
    for (int ctr = 0; ctr < 2; ctr++) {
        int g_x[2];
        for (int x0 = 0; x0 < 2; x0++) {
            unsigned lut = 0; /* bit 4k + 2y1 + y2 */
            for (unsigned i = 0; i < 8; i++) {
                unsigned k = i >> 2, y1 = (i >> 1) & 1, y2 = i & 1;
                unsigned r = (unsigned)ctr << 4 | y2 << 3 | y1 << 2 | k << 1 | (unsigned)x0;
                lut |= ((table >> r) & 1u) << i;
            }
            g_x[x0] = lut == 0x00   ? WL_LOP3_ZERO
                      : lut == 0xFF ? WL_LOP3_ONES
                      : lut == 0xF0 ? WL_LOP3_K
                      : lut == 0xCC ? WL_LOP3_Y1
                      : lut == 0xAA ? WL_LOP3_Y2
                                    : add_gate(n, WL_LOP3_K, WL_LOP3_Y1, WL_LOP3_Y2, lut);
        }
        f_c[ctr] = mux(n, WL_LOP3_X0, g_x[1], g_x[0]);
    }
    n->out = mux(n, WL_LOP3_CTR, f_c[1], f_c[0]);
}

/* Appends the WV_RULE macro for network n to buf. */
static void emit_rule(const wl_lop3_net *n, char *buf, size_t cap) {
    static const char *const names[WL_LOP3_INPUTS] = {"(x0)", "(k)", "(y1)", "(y2)", "(ctr)"};
    size_t len = strlen(buf);
    len += (size_t)snprintf(buf + len, cap - len, "#define WV_RULE(x0, k, y1, y2, ctr, n_) do { ");
    for (int i = 0; i < n->n && len < cap; i++) {
        int s[3] = {n->g[i].a, n->g[i].b, n->g[i].c};
        const char *t[3];
        char tmp[3][16];
        for (int j = 0; j < 3; j++) {
            if (s[j] == WL_LOP3_ZERO) t[j] = "0u";
            else if (s[j] == WL_LOP3_ONES) t[j] = "0xffffffffu";
            else if (s[j] < WL_LOP3_INPUTS) t[j] = names[s[j]];
            else {
                snprintf(tmp[j], sizeof tmp[j], "t%d", s[j] - WL_LOP3_INPUTS);
                t[j] = tmp[j];
            }
        }
        len += (size_t)snprintf(buf + len, cap - len,
                                "uint32_t t%d; WV_LOP3(t%d, %s, %s, %s, 0x%02X); ", i, i, t[0],
                                t[1], t[2], n->g[i].lut);
    }
    if (len >= cap) return;
    if (n->out == WL_LOP3_ZERO) len += (size_t)snprintf(buf + len, cap - len, "n_ = 0u; ");
    else if (n->out == WL_LOP3_ONES)
        len += (size_t)snprintf(buf + len, cap - len, "n_ = 0xffffffffu; ");
    else if (n->out < WL_LOP3_INPUTS)
        len += (size_t)snprintf(buf + len, cap - len, "n_ = %s; ", names[n->out]);
    else len += (size_t)snprintf(buf + len, cap - len, "n_ = t%d; ", n->out - WL_LOP3_INPUTS);
    if (len < cap) snprintf(buf + len, cap - len, "} while (0)\n");
}

/* Appends the WV_CIRCUIT_NET macro of network n (cuda_wave.cuh's rule 3) to buf. */
static void emit_circuit(const wl_rnet *n, char *buf, size_t cap) {
    static const char *const names[WL_RNET_INPUTS + 2] = {
        WL_RNET_KERNEL_NAMES, "0u", "0xffffffffu"};
    size_t len = strlen(buf);
    len += (size_t)snprintf(buf + len, cap - len,
                            "#define WV_LOP3D(d, a, b, c, l) uint32_t d; WV_LOP3(d, a, b, c, l)\n"
                            "#define WV_CIRCUIT_NET(n_) do { ");
    if (len >= cap) return;
    int m = wl_rnet_emit(n, "WV_LOP3D", names, "t", "n_", buf + len, cap - len);
    if (m < 0 || len + (size_t)m >= cap) {
        buf[0] = 0; /* the compile then fails with a clear error */
        return;
    }
    for (size_t i = len; i < len + (size_t)m; i++)
        if (buf[i] == '\n') buf[i] = ' ';
    len += (size_t)m;
    snprintf(buf + len, cap - len, "} while (0)\n");
}

/* ---- compile, load, cache ---- */

/* What a res instance takes from wlcu_ctx beyond its shape: warps a block (c->res_wb), and
 * for Generations the planes of decay in the lanes and how memory and the exchange hold
 * them (c->res_planes, res_pb, res_xb); all 0 outside the families that use them. */
typedef struct rtc_res {
    int warps, planes, pb, xb;
} rtc_res;

#define RTC_CACHE 128 /* kernels kept per process; beyond that, the mask kernel */
static struct rtc_entry {
    int device, family, kk, nr, wb;
    rtc_res res;
    char defs[128]; /* WL_CUDA_WAVE_DEFS at compile time (tuning builds) */
    wl_rule rule; /* the whole table (birth and survive masks follow from it) */
    CUfunction fn;
    int per_sm;
} cache[RTC_CACHE];
static int n_cache;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- the disk cache (rtc_cache.c) ---- */

/* The cache directory, looked up once per process (lock held): 1 when the cache is on. */
static int disk_state; /* 0 not looked up, 1 on, -1 off */
static char disk_dir_s[4096];
static int disk_dir(int verbose) {
    if (!disk_state) {
        char why[4096 + 64];
        disk_state = wl_rtc_cache_dir(disk_dir_s, sizeof disk_dir_s, why, sizeof why) ? 1 : -1;
        if (disk_state < 0 && verbose)
            fprintf(stderr, "warplife: cuda wave: NVRTC disk cache off (%s): compiling every "
                            "rule in every process\n", why);
    }
    return disk_state > 0;
}

/* The cache key: everything that decides the cubin.  The format tag changes when what
 * cuda_rtc.cu does with the image changes (the kernel's name, its parameters); the source
 * carries the rule network, K, the launch bounds and the embedded .cuh text; the options
 * carry the arch (sm_XY) and any tuning defines. */
static void rtc_key(wl_rtc_key *k, int family, const char *src, const char *const *opts,
                    int n_opts) {
    char ver[96];
    int drv = 0;
    if (cudaDriverGetVersion(&drv) != cudaSuccess) {
        cudaGetLastError();
        drv = 0;
    }
    wl_rtc_key_init(k);
    wl_rtc_key_add_str(k, family == WLCU_RTC_PAIR
                              ? "warplife pair_rule cubin 1: pr_rule_kernel(in, out, w, h, np, "
                                "torus, groups, total, kk, birth, survive)"
                          : family == WLCU_RTC_CIRCUIT
                              ? "warplife wave_circuit cubin 1: wv_rule_kernel(in, out, w, h, "
                                "nw, torus, strips, chunks, hc, birth, survive), rule 3"
                          : family == WLCU_RTC_RES
                              ? "warplife res_rule cubin 1: rs_rule_kernel(rs_args)"
                          : family == WLCU_RTC_RES_CIRCUIT
                              ? "warplife res_circuit cubin 1: rs_rule_kernel(rs_args), rule 3"
                          : family == WLCU_RTC_RES_GEN
                              ? "warplife res_gen cubin 1: rs_rule_kernel(rs_args), rule 2, P"
                          : family == WLCU_RTC_RES_GEN_CIRCUIT
                              ? "warplife res_gen cubin 1: rs_rule_kernel(rs_args), rule 3, P"
                              : "warplife wave_rule cubin 1: wv_rule_kernel(in, out, w, h, nw, "
                                "torus, strips, chunks, hc, birth, survive)");
    wl_rtc_key_add_str(k, src);
    for (int i = 0; i < n_opts; i++) wl_rtc_key_add_str(k, opts[i]);
    snprintf(ver, sizeof ver, "nvrtc %d.%d driver %d", api.nv_major, api.nv_minor, drv);
    wl_rtc_key_add_str(k, ver);
}

/* The families of the res kernel (cuda_res.cuh: rs_rule_kernel). */
static int res_family(int family) {
    return family == WLCU_RTC_RES || family == WLCU_RTC_RES_CIRCUIT ||
           family == WLCU_RTC_RES_GEN || family == WLCU_RTC_RES_GEN_CIRCUIT;
}
/* The families whose rule is wl_rnet_synth's network over the nine cells (rule 3). */
static int circuit_family(int family) {
    return family == WLCU_RTC_CIRCUIT || family == WLCU_RTC_RES_CIRCUIT ||
           family == WLCU_RTC_RES_GEN_CIRCUIT;
}
/* The families of Generations rules (res with planes of decay). */
static int gen_family(int family) {
    return family == WLCU_RTC_RES_GEN || family == WLCU_RTC_RES_GEN_CIRCUIT;
}

/* A family's rtc_res from c. */
static rtc_res res_of(const wlcu_ctx *c, int family) {
    rtc_res r = {0, 0, 0, 0};
    if (res_family(family)) r.warps = c->res_wb;
    if (gen_family(family) && c->res_planes) {
        r.planes = c->res_planes;
        r.pb = c->res_pb;
        r.xb = c->res_xb;
    }
    return r;
}

/* Loads a cubin and finds the kernel; 1 on success (on failure no module is left loaded). */
static int load_image(int family, const void *img, CUfunction *fn) {
    CUmodule mod = NULL;
    if (api.load(&mod, img) != CUDA_SUCCESS) return 0;
    const int res = res_family(family);
    const char *name = family == WLCU_RTC_PAIR ? "pr_rule_kernel"
                       : res                   ? "rs_rule_kernel"
                                               : "wv_rule_kernel";
    if (api.get_fn(fn, mod, name) != CUDA_SUCCESS) {
        api.unload(mod);
        return 0;
    }
    return 1;
}

/* Compiles src with NVRTC; *cubin (malloc'd, caller frees) and its size *n on success. */
static wl_status nvrtc_compile(const char *src, const char *const *opts, int n_opts,
                               char **cubin, size_t *n) {
    *cubin = NULL;
    *n = 0;
    nvrtc_prog prog = NULL;
    wl_status st = WL_OK;
    if (api.create(&prog, src, "wave_rule.cu", 0, NULL, NULL) != 0)
        return wl_error(WL_ERR_DEVICE, "CUDA NVRTC: nvrtcCreateProgram failed");
    int rc = api.compile(prog, n_opts, opts);
    if (rc != 0) {
        size_t n_log = 0;
        api.log_size(prog, &n_log);
        char *log = (char *)malloc(n_log + 1);
        if (log) {
            log[0] = 0;
            api.log(prog, log);
            log[n_log] = 0;
        }
        st = wl_error(WL_ERR_DEVICE, "CUDA NVRTC: compile error %d: %.400s", rc,
                      log ? log : "(no log)");
        free(log);
    }
    if (!st && (api.cubin_size(prog, n) != 0 || !(*cubin = (char *)malloc(*n)) ||
                api.cubin(prog, *cubin) != 0)) {
        free(*cubin);
        *cubin = NULL;
        st = wl_error(WL_ERR_DEVICE, "CUDA NVRTC: no CUBIN");
    }
    api.destroy(&prog);
    return st;
}

/* The kernel definition that follows the embedded sources. */
static void kernel_text(int family, int kk, int nr, int wb, const rtc_res *rs, char *buf,
                        size_t cap) {
    if (res_family(family)) {
        /* wb: words a lane (cuda_res.cu's RS_KERNEL with rule 2 or 3) */
        snprintf(buf, cap,
                 "extern \"C\" __global__ void __launch_bounds__(32 * %d, 1)\n"
                 "rs_rule_kernel(rs_args a) { rs_body(a, %d, %d, %d, %d, %d, %d, %d); }\n",
                 rs->warps, wb, rs->warps, nr, circuit_family(family) ? 3 : 2, rs->planes, rs->pb,
                 rs->xb);
        return;
    }
    if (family == WLCU_RTC_PAIR) {
        /* the compiled-in Life kernels' register budget (cuda_pair.cu: MINB 1) */
        snprintf(buf, cap,
                 "extern \"C\" __global__ void __launch_bounds__(32 * %d, 1)\n"
                 "pr_rule_kernel(const uint2 *in, uint2 *out, int64_t w, int64_t h,\n"
                 "    uint64_t np, int torus, int64_t groups, int64_t total, int kk,\n"
                 "    unsigned birth, unsigned survive) {\n"
                 "  pair_body(in, out, w, h, np, torus, groups, total, kk, birth, survive, 2, "
                 "%d, %d);\n"
                 "}\n",
                 wb, nr, wb);
        return;
    }
    /* the register budgets of the compiled Life kernels of the same K (cuda_wave.cu) */
    snprintf(buf, cap,
             "extern \"C\" __global__ void __launch_bounds__(32 * WV_WARPS, %d)\n"
             "wv_rule_kernel(const uint32_t *in, uint32_t *out, int64_t w, int64_t h,\n"
             "    uint64_t nw, int torus, int64_t strips, int64_t chunks, int64_t hc,\n"
             "    unsigned birth, unsigned survive) {\n"
             "  wave_body(in, out, w, h, nw, torus, strips, chunks, hc, birth, survive, %d, %d);\n"
             "}\n",
             getenv("WL_CUDA_WAVE_MINB") ? atoi(getenv("WL_CUDA_WAVE_MINB"))
             : family == WLCU_RTC_CIRCUIT ? 2 /* up to ~100 gates per level: registers */
             : kk > 12                  ? 2
             : kk > 8                   ? 3
                                        : 4,
             family == WLCU_RTC_CIRCUIT ? 3 : 2, kk);
}

/* Compiles and loads the kernel of `family` for (c->birth, c->survive, kk, nr, wb); lock
 * held. */
static wl_status build(wlcu_ctx *c, int family, int kk, int nr, int wb, const rtc_res *rs,
                       CUfunction *fn, int *per_sm) {
    const int res = res_family(family);
    const int circuit = circuit_family(family);
    const char *fam = family == WLCU_RTC_PAIR ? "lop3p"
                      : family == WLCU_RTC_RES_GEN ? "res generations"
                      : family == WLCU_RTC_RES_GEN_CIRCUIT ? "res generations circuit"
                      : res                   ? (circuit ? "res circuit" : "res")
                      : circuit               ? "circuit"
                                              : "wave";
    wl_lop3_net net;
    wl_rnet rnet;
    const char *from = "structured";
    size_t extra = 4096; /* rule macro + kernel definition */
    if (circuit) {
        /* effort 1: a few hundred ms of search, ~12% fewer gates than effort 0 */
        if (!c->rnet_synth) return wl_error(WL_ERR_UNAVAILABLE, "CUDA circuit: no synthesiser");
        wl_status st = c->rnet_synth(&c->rule, 1, &rnet);
        if (st) return st;
        extra += 80 * (size_t)rnet.n;
        from = "rulenet";
        net.n = rnet.n;
    } else {
        uint32_t table, care;
        rule_table(c->birth, c->survive, &table, &care);
        wl_lop3_net mine;
        structured_net(table, &mine);
        if (!net_ok(&mine, table, care))
            return wl_error(WL_ERR_DEVICE, "CUDA %s: internal error: rule network check failed",
                            fam);
        if (c->lop3_synth && c->lop3_synth(c->birth, c->survive, &net) == WL_OK &&
            net_ok(&net, table, care) && net.n < mine.n)
            from = "lop3net";
        else {
            wl_clear_error();
            net = mine;
        }
    }
    int major = 0, minor = 0;
    WLCU_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, c->device));
    WLCU_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, c->device));
    size_t cap = sizeof WLCU_WIN_SRC + sizeof WLCU_WAVE_SRC + sizeof WLCU_PAIR_SRC +
                 sizeof WLCU_RES_SRC + extra;
    char *src = (char *)malloc(cap);
    if (!src)
        return wl_error(WL_ERR_NOMEM, "CUDA %s: out of memory for the kernel source", fam);
    src[0] = 0;
    if (circuit) emit_circuit(&rnet, src, extra - 1024);
    else emit_rule(&net, src, extra / 2);
    size_t len = strlen(src);
    len += (size_t)snprintf(src + len, cap - len, "%s\n%s\n%s\n", (const char *)WLCU_WIN_SRC,
                            (const char *)WLCU_WAVE_SRC,
                            family == WLCU_RTC_PAIR ? (const char *)WLCU_PAIR_SRC
                            : res                   ? (const char *)WLCU_RES_SRC
                                                    : "");
    kernel_text(family, kk, nr, wb, rs, src + len, cap - len);
    char arch[32];
    snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", major, minor);
    /* tuning: WL_CUDA_WAVE_DEFS="-DWV_UNROLL=2 ..." adds options (at most 6, space-separated) */
    const char *opts[8] = {arch, "--std=c++11"};
    int n_opts = 2;
    char defs[128] = "";
    if (getenv("WL_CUDA_WAVE_DEFS")) snprintf(defs, sizeof defs, "%s", getenv("WL_CUDA_WAVE_DEFS"));
    for (char *tok = strtok(defs, " "); tok && n_opts < 8; tok = strtok(NULL, " "))
        opts[n_opts++] = tok;
    double t0 = now_s();
    wl_rtc_key key;
    rtc_key(&key, family, src, opts, n_opts);
    char path[4096 + 64];
    int disk = disk_dir(c->verbose) && wl_rtc_cache_path(disk_dir_s, &key, path, sizeof path);
    int cached = 0;
    if (disk) {
        size_t n_img = 0;
        void *img = wl_rtc_cache_read(path, &key, &n_img);
        if (img) {
            cached = load_image(family, img, fn);
            if (!cached) { /* a verified file the driver rejects: drop it, compile afresh */
                unlink(path);
                if (c->verbose)
                    fprintf(stderr, "warplife: cuda %s: the driver rejected cached %s; "
                                    "recompiling\n", fam, path);
            }
            free(img);
        }
    }
    if (!cached) {
        char *cubin = NULL;
        size_t n_cubin = 0;
        wl_status st = nvrtc_compile(src, opts, n_opts, &cubin, &n_cubin);
        if (!st && !load_image(family, cubin, fn))
            st = wl_error(WL_ERR_DEVICE, "CUDA %s: loading the NVRTC module failed", fam);
        /* only an image this driver has just loaded is written to the disk cache */
        if (!st && disk && !wl_rtc_cache_write(path, &key, cubin, n_cubin)) {
            disk = 0;
            if (c->verbose)
                fprintf(stderr, "warplife: cuda %s: could not write the NVRTC cache entry "
                                "%s\n", fam, path);
        }
        free(cubin);
        if (st) {
            free(src);
            return st;
        }
    }
    free(src);
    const int threads = family == WLCU_RTC_PAIR ? 32 * wb : res ? 32 * rs->warps : 32 * WV_WARPS;
    size_t smem = 0;
    if (res) { /* dynamic shared memory beyond the default 48 KB */
        smem = RS_SMEM(wb, rs->warps);
        if (api.set_attr(*fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)smem) !=
            CUDA_SUCCESS)
            return wl_error(WL_ERR_DEVICE, "CUDA res: %zu bytes of shared memory refused", smem);
    }
    if (api.occupancy(per_sm, *fn, threads, smem) != CUDA_SUCCESS) *per_sm = 1;
    if (c->verbose) {
        double dt = now_s() - t0;
        if (cached)
            fprintf(stderr, "warplife: cuda %s: B/S masks 0x%x/0x%x K %d: %d-gate %s network, "
                            "loaded from cache %s in %.3f s, %d blocks per SM\n",
                    fam, c->birth, c->survive, kk, net.n, from, path, dt, *per_sm);
        else
            fprintf(stderr, "warplife: cuda %s: B/S masks 0x%x/0x%x K %d: %d-gate %s network, "
                            "compiled in %.3f s (NVRTC + load; %s%s), %d blocks per SM\n",
                    fam, c->birth, c->survive, kk, net.n, from, dt,
                    disk ? "cached as " : "not cached", disk ? path : "", *per_sm);
    }
    return WL_OK;
}

extern "C" wl_status wlcu_rtc_kernel(wlcu_ctx *c, int family, int kk, int nr, int wb,
                                     void **fn, int *per_sm) {
    *fn = NULL;
    const rtc_res rs = res_of(c, family);
    pthread_mutex_lock(&rtc_lock);
    wl_status s = WL_OK;
    char defs_now[128] = "";
    if (getenv("WL_CUDA_WAVE_DEFS"))
        snprintf(defs_now, sizeof defs_now, "%s", getenv("WL_CUDA_WAVE_DEFS"));
    if (getenv("WL_CUDA_WAVE_MINB")) /* part of the key too */
        snprintf(defs_now + strlen(defs_now), sizeof defs_now - strlen(defs_now), " minb%s",
                 getenv("WL_CUDA_WAVE_MINB"));
    if (!api_open()) {
        s = wl_error(WL_ERR_UNAVAILABLE, "CUDA NVRTC: %s", api.why);
        goto done;
    }
    for (int i = 0; i < n_cache; i++)
        if (cache[i].device == c->device && cache[i].family == family && cache[i].kk == kk &&
            cache[i].nr == nr && cache[i].wb == wb && !memcmp(&cache[i].res, &rs, sizeof rs) &&
            memcmp(&cache[i].rule, &c->rule, sizeof c->rule) == 0 &&
            strcmp(cache[i].defs, defs_now) == 0) {
            *fn = (void *)cache[i].fn;
            *per_sm = cache[i].per_sm;
            goto done;
        }
    if (n_cache == RTC_CACHE) {
        s = wl_error(WL_ERR_UNAVAILABLE, "CUDA NVRTC: %d kernels compiled already", RTC_CACHE);
        goto done;
    }
    {
        CUfunction f = NULL;
        int ps = 1;
        s = build(c, family, kk, nr, wb, &rs, &f, &ps);
        if (!s) {
            cache[n_cache].device = c->device;
            cache[n_cache].family = family;
            cache[n_cache].kk = kk;
            cache[n_cache].nr = nr;
            cache[n_cache].wb = wb;
            cache[n_cache].res = rs;
            snprintf(cache[n_cache].defs, sizeof cache[n_cache].defs, "%s", defs_now);
            cache[n_cache].rule = c->rule;
            cache[n_cache].fn = f;
            cache[n_cache].per_sm = ps;
            n_cache++;
            *fn = (void *)f;
            *per_sm = ps;
        }
    }
done:
    pthread_mutex_unlock(&rtc_lock);
    return s;
}

/* The stream NVRTC kernels run on: the runtime's default one of this build. */
static CUstream launch_stream(void) {
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
    return CU_STREAM_PER_THREAD;
#else
    return NULL;
#endif
}

extern "C" wl_status wlcu_rtc_coop_launch(void *fn, unsigned blocks, unsigned threads,
                                          unsigned smem, void **args) {
    CUresult r = api.coop_launch((CUfunction)fn, blocks, 1, 1, threads, 1, 1, smem,
                                 launch_stream(), args);
    if (r != CUDA_SUCCESS)
        return wl_error(WL_ERR_DEVICE,
                        "CUDA: cuLaunchCooperativeKernel of an NVRTC rule kernel failed (%d)",
                        (int)r);
    return WL_OK;
}

extern "C" wl_status wlcu_rtc_launch(void *fn, unsigned blocks, unsigned threads, void **args) {
    CUresult r = api.launch((CUfunction)fn, blocks, 1, 1, threads, 1, 1, 0, launch_stream(), args,
                            NULL);
    if (r != CUDA_SUCCESS)
        return wl_error(WL_ERR_DEVICE, "CUDA: cuLaunchKernel of an NVRTC rule kernel failed (%d)",
                        (int)r);
    return WL_OK;
}
