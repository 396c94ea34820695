/*
 * circuit_jit.c - the cpu `circuit` kernel compiled per rule: the rule's gate network
 * (wl_rnet_synth, src/core/rulenet.c) written out as C with AVX-512 intrinsics, compiled
 * into a shared object by the system's C compiler at run time, loaded with dlopen, and kept
 * in the disk cache of run-time compiled kernels (src/core/rtc_cache.c) beside the NVRTC
 * cubins.  The CPU counterpart of cuda_rtc.cu: vpternlogq takes its truth table as an
 * immediate, so a network known only at run time runs at full speed only once compiled;
 * the interpreter of simd_circuit.c (one call per gate per batch) is the fallback.
 *
 * The generated source holds two functions.  wl_circuit_rows has the gen_rows signature
 * (cpu_internal.h), for the dense grids; wl_circuit_tile is a tile kernel of the sparse
 * engine (wl_tile_job, internal.h), each asked brick of 8 rows one vector, its rows above
 * and below shifted in from the bricks around it.  wl_circuit_rows walks each
 * vector column (8 words, 512 cells) down blocks of 64 rows, keeping the nine cell planes
 * of the three rows (and the row sums the network reads) in registers, so that each row's
 * planes are made once: per 512 cells, 3 loads, 2 valignq and 2 funnel shifts (4 shifts
 * and 2 ORs without VBMI2) for the new row, the derived sums the network reads, one
 * vpternlogq per gate, and one store.
 *
 * On CPUs with AVX2 but not AVX-512 the same network is written for 256-bit vectors, each
 * gate as a small expression (see "AVX2" below).
 *
 * Compiler: $WL_CC, else "cc", run as  CC -O2 -mavx512f [-mavx512vbmi2] -fPIC -shared
 * -o OBJ SRC  (-mavx2 instead of the AVX-512 flags for the AVX2 source) with its output
 * discarded.  WL_CPU_JIT=off disables compiling (then the interpreter runs with AVX-512,
 * the other kernels without).  The cache key holds the source text, the command line and the
 * compiler's size and modification time (a new compiler compiles again).  A cached object
 * is verified by rtc_cache.c, copied to a private temporary file, loaded and unlinked.
 * Objects stay loaded for the life of the process (a few per rule; a table of
 * JIT_MAX entries, then the interpreter).
 */
#define _POSIX_C_SOURCE 200809L
#include "cpu_internal.h"

#include "rtc_cache.h"
#include "rulenet.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define JIT_MAX 32

static struct {
    wl_rnet net;
    int isa;
    cpu_gen_rows_fn fn;
    wl_tile_step_fn tile;
} jit_table[JIT_MAX];
static int jit_n;
static pthread_mutex_t jit_lock = PTHREAD_MUTEX_INITIALIZER;

/* Appends printf-style text to a growing buffer; 0 when out of memory. */
typedef struct strbuf {
    char *s;
    size_t n, cap;
} strbuf;

static int sb_put(strbuf *b, const char *text) {
    size_t m = strlen(text);
    if (b->n + m + 1 > b->cap) {
        size_t cap = (b->cap ? b->cap * 2 : 4096) + m;
        char *s = realloc(b->s, cap);
        if (!s) return 0;
        b->s = s, b->cap = cap;
    }
    memcpy(b->s + b->n, text, m + 1);
    b->n += m;
    return 1;
}

/* The derived sums of the row sums that a network reads (mask d of wl_rnet_derived), as
 * declarations at the given indent; 0 when out of memory. */
static int put_derived(strbuf *b, unsigned d, const char *indent) {
    static const char *const line[4] = {"const VT d_x0 = T3(d_st, d_sm, d_sb, 0x96);\n",
                                        "const VT d_k = T3(d_st, d_sm, d_sb, 0xE8);\n",
                                        "const VT d_y1 = T3(d_ct, d_cm, d_cb, 0x96);\n",
                                        "const VT d_y2 = T3(d_ct, d_cm, d_cb, 0xE8);\n"};
    for (int j = 0; j < 4; j++)
        if ((d >> (6 + j)) & 1u && !(sb_put(b, indent) && sb_put(b, line[j]))) return 0;
    return 1;
}

/* ---- AVX2: each gate as an expression ------------------------------------------------
 *
 * AVX2 has no vpternlogq, so each gate's truth table becomes an expression of AND, OR, XOR
 * and ANDN: the smallest expression tree of each of the 256 functions of three inputs,
 * found by relaxation over the truth tables (a = 0xF0, b = 0xCC, c = 0xAA, as in the
 * ternlog immediate; the constants cost nothing) and written into the source as one macro
 * per table (T3_0xNN). */

typedef struct lut3_tree {
    unsigned char cost, op, x, y; /* op: 0 leaf, 1 AND, 2 OR, 3 XOR, 4 ANDN (~x & y) */
} lut3_tree;

static void lut3_trees(lut3_tree t[256]) {
    for (int f = 0; f < 256; f++) t[f].cost = 255, t[f].op = 0;
    static const unsigned char leaves[] = {0xF0, 0xCC, 0xAA, 0x00, 0xFF};
    for (int i = 0; i < 5; i++) t[leaves[i]].cost = 0;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int x = 0; x < 256; x++) {
            if (t[x].cost == 255) continue;
            for (int y = 0; y < 256; y++) {
                if (t[y].cost == 255) continue;
                const int c = t[x].cost + t[y].cost + 1;
                const int z[5] = {0, x & y, x | y, x ^ y, ~x & y & 0xFF};
                for (int op = 1; op <= 4; op++)
                    if (c < t[z[op]].cost) {
                        t[z[op]] = (lut3_tree){(unsigned char)c, (unsigned char)op,
                                               (unsigned char)x, (unsigned char)y};
                        changed = 1;
                    }
            }
        }
    }
}

/* Appends the expression of truth table f; 0 when out of memory. */
static int put_lut3(strbuf *b, const lut3_tree *t, int f) {
    if (t[f].op == 0) {
        const char *leaf = f == 0xF0 ? "(a)" : f == 0xCC ? "(b)" : f == 0xAA ? "(c)"
                         : f == 0 ? "_mm256_setzero_si256()" : "_mm256_set1_epi64x(-1)";
        return sb_put(b, leaf);
    }
    static const char *const op[5] = {"", "_mm256_and_si256(", "_mm256_or_si256(",
                                      "_mm256_xor_si256(", "_mm256_andnot_si256("};
    return sb_put(b, op[t[f].op]) && put_lut3(b, t, t[f].x) && sb_put(b, ", ") &&
           put_lut3(b, t, t[f].y) && sb_put(b, ")");
}

/* ---- the source ------------------------------------------------------------------------
 *
 * One text for both instruction sets where they agree: the prelude defines the vector type
 * VT of VW words and its few operations, T3 (a gate of any truth table) and WE (a row's
 * cells with their west and east neighbours).  The rows function walks vectors down the
 * rows.  The tile kernel takes each asked brick of 8 rows as one vector with AVX-512, its
 * rows above and below shifted in from the bricks around it (valignq), and as two quarters
 * of 4 rows with AVX2, those rows by unaligned loads (assembled from the northern and
 * southern tiles' rows at the tile's edges, as in simd_avx2.c); the west and east planes are
 * funnel shifts with the western and eastern tiles' words of the same rows. */

static const char *const prelude_avx512 =
    "#define VT __m512i\n#define VW 8\n"
    "#define VZERO() _mm512_setzero_si512()\n#define VONES() _mm512_set1_epi64(-1)\n"
    "#define VAND(a, b) _mm512_and_si512((a), (b))\n"
    "#define VLD(p) _mm512_load_si512((const void *)(p))\n"
    "#define VLDU(p) _mm512_loadu_si512((const void *)(p))\n"
    "#define VSTU(p, v) _mm512_storeu_si512((void *)(p), (v))\n"
    "#define T3(a, b, c, i) _mm512_ternarylogic_epi64((a), (b), (c), (i))\n"
    "#define WE(row, i, c, l, r) do { VT p_ = VLD((row) + (i) - 8), n_ = VLD((row) + (i) + 8);"
    " c = VLD((row) + (i));"
    " l = WP(c, _mm512_alignr_epi64(c, p_, 7)); r = EP(c, _mm512_alignr_epi64(n_, c, 1)); } while (0)\n";
static const char *const funnel_vbmi2 =
    "#define WP(x, w) _mm512_shldi_epi64((x), (w), 1)\n"
    "#define EP(x, e) _mm512_shrdi_epi64((x), (e), 1)\n";
static const char *const funnel_avx512 =
    "#define WP(x, w) _mm512_or_si512(_mm512_slli_epi64((x), 1), _mm512_srli_epi64((w), 63))\n"
    "#define EP(x, e) _mm512_or_si512(_mm512_srli_epi64((x), 1), _mm512_slli_epi64((e), 63))\n";
static const char *const prelude_avx2 =
    "#define VT __m256i\n#define VW 4\n"
    "#define VZERO() _mm256_setzero_si256()\n#define VONES() _mm256_set1_epi64x(-1)\n"
    "#define VAND(a, b) _mm256_and_si256((a), (b))\n"
    "#define VLD(p) _mm256_load_si256((const __m256i *)(p))\n"
    "#define VLDU(p) _mm256_loadu_si256((const __m256i *)(p))\n"
    "#define VSTU(p, v) _mm256_storeu_si256((__m256i *)(p), (v))\n"
    "#define T3(a, b, c, i) T3_##i(a, b, c)\n"
    "#define WP(x, w) _mm256_or_si256(_mm256_slli_epi64((x), 1), _mm256_srli_epi64((w), 63))\n"
    "#define EP(x, e) _mm256_or_si256(_mm256_srli_epi64((x), 1), _mm256_slli_epi64((e), 63))\n"
    "#define WE(row, i, c, l, r) do { c = VLDU((row) + (i));"
    " l = WP(c, VLDU((row) + (i) - 1)); r = EP(c, VLDU((row) + (i) + 1)); } while (0)\n";

/* The tile kernel's vector of rows (a brick, or a quarter k) up to the nine planes c_*. */
static const char *const tile_head_avx512 =
    "  for (unsigned bm = job->bricks & 0xFFu; bm; bm &= bm - 1) {\n"
    "   const int b = __builtin_ctz(bm);\n"
    "   {\n"
    "    const VT cc = VLD(in[C_] + 8 * b), cw = VLD(in[W_] + 8 * b), ce = VLD(in[E_] + 8 * b);\n"
    "    const VT pc = VLD(b ? in[C_] + 8 * b - 8 : in[N_] + 56);\n"
    "    const VT pw = VLD(b ? in[W_] + 8 * b - 8 : in[NW_] + 56);\n"
    "    const VT pe = VLD(b ? in[E_] + 8 * b - 8 : in[NE_] + 56);\n"
    "    const VT nc = VLD(b < 7 ? in[C_] + 8 * b + 8 : in[S_]);\n"
    "    const VT nw = VLD(b < 7 ? in[W_] + 8 * b + 8 : in[SW_]);\n"
    "    const VT ne = VLD(b < 7 ? in[E_] + 8 * b + 8 : in[SE_]);\n"
    "    const VT uc = _mm512_alignr_epi64(cc, pc, 7), dc = _mm512_alignr_epi64(nc, cc, 1);\n"
    "    const VT c_n = uc, c_nw = WP(uc, _mm512_alignr_epi64(cw, pw, 7));\n"
    "    const VT c_ne = EP(uc, _mm512_alignr_epi64(ce, pe, 7));\n"
    "    const VT c_c = cc, c_w = WP(cc, cw), c_e = EP(cc, ce);\n"
    "    const VT c_s = dc, c_sw = WP(dc, _mm512_alignr_epi64(nw, cw, 1));\n"
    "    const VT c_se = EP(dc, _mm512_alignr_epi64(ne, ce, 1));\n";
static const char *const tile_head_avx2 =
    "#define UP(t, nt) (k ? VLDU((t) + 4 * k - 1) : _mm256_set_epi64x((long long)(t)[2], "
    "(long long)(t)[1], (long long)(t)[0], (long long)(nt)[63]))\n"
    "#define DOWN(t, st) (k < 15 ? VLDU((t) + 4 * k + 1) : _mm256_set_epi64x((long long)(st)[0], "
    "(long long)(t)[63], (long long)(t)[62], (long long)(t)[61]))\n"
    "  for (unsigned bm = job->bricks & 0xFFu; bm; bm &= bm - 1) {\n"
    "   const int b = __builtin_ctz(bm);\n"
    "   for (int k = 2 * b; k < 2 * b + 2; k++) {\n"
    "    const VT cc = VLD(in[C_] + 4 * k), cw = VLD(in[W_] + 4 * k), ce = VLD(in[E_] + 4 * k);\n"
    "    const VT uc = UP(in[C_], in[N_]), uw = UP(in[W_], in[NW_]), ue = UP(in[E_], in[NE_]);\n"
    "    const VT dc = DOWN(in[C_], in[S_]), dw = DOWN(in[W_], in[SW_]), de = DOWN(in[E_], in[SE_]);\n"
    "    const VT c_n = uc, c_nw = WP(uc, uw), c_ne = EP(uc, ue);\n"
    "    const VT c_c = cc, c_w = WP(cc, cw), c_e = EP(cc, ce);\n"
    "    const VT c_s = dc, c_sw = WP(dc, dw), c_se = EP(dc, de);\n";
/* ... and from the result res_ the output and the records of the change */
static const char *const tile_tail_avx512 =
    "    const VT d_ = _mm512_xor_si512(res_, VLD(job->out + 8 * b));\n"
    "    _mm512_store_si512((void *)(job->out + 8 * b), res_);\n"
    "    chg |= (uint64_t)_mm512_test_epi64_mask(d_, d_) << (8 * b);\n"
    "    chg_w |= (uint64_t)_mm512_test_epi64_mask(d_, _mm512_set1_epi64(1)) << (8 * b);\n"
    "    chg_e |= (uint64_t)_mm512_test_epi64_mask(d_, _mm512_set1_epi64(INT64_MIN)) << (8 * b);\n"
    "    live |= (unsigned)(_mm512_test_epi64_mask(res_, res_) != 0) << b;\n";
static const char *const tile_tail_avx2 =
    "    const VT d_ = _mm256_xor_si256(res_, VLD(job->out + 4 * k));\n"
    "    _mm256_store_si256((__m256i *)(job->out + 4 * k), res_);\n"
    "#define M4(v) ((uint64_t)_mm256_movemask_pd(_mm256_castsi256_pd(v)))\n"
    "    chg |= (~M4(_mm256_cmpeq_epi64(d_, zero_)) & 15u) << (4 * k);\n"
    "    chg_e |= M4(d_) << (4 * k);\n"
    "    chg_w |= M4(_mm256_slli_epi64(d_, 63)) << (4 * k);\n"
    "    live |= (unsigned)!_mm256_testz_si256(res_, res_) << b;\n";

/* The C source of the rows function and the tile kernel for net, for isa (CPU_JIT_*). */
static char *make_source(const wl_rnet *net, int isa) {
    static const char *const names[WL_RNET_INPUTS + 2] = {
        WL_RNET_KERNEL_NAMES, "zero_", "ones_"};
    const int avx2 = isa == CPU_JIT_AVX2;
    const unsigned d = wl_rnet_derived(net);
    const int need_s = (d & 0x15u) != 0, need_c = (d & 0x2Au) != 0;
    int glen = wl_rnet_emit(net, "G", names, "t", "res_", NULL, 0);
    if (glen < 0) return NULL;
    char *gates = malloc((size_t)glen + 1);
    if (!gates) return NULL;
    wl_rnet_emit(net, "G", names, "t", "res_", gates, (size_t)glen + 1);
    strbuf b = {0};
    int ok = sb_put(&b,
        "/* generated by warplife (src/engine/cpu/circuit_jit.c): one rule's gate network */\n"
        "#include <immintrin.h>\n#include <stddef.h>\n#include <stdint.h>\n");
    if (avx2) {
        lut3_tree t[256];
        lut3_trees(t);
        for (int f = 0; f < 256 && ok; f++) {
            char head[64];
            snprintf(head, sizeof head, "#define T3_0x%02X(a, b, c) ", f);
            ok = sb_put(&b, head) && put_lut3(&b, t, f) && sb_put(&b, "\n");
        }
        ok = ok && sb_put(&b, prelude_avx2);
    } else {
        ok = ok && sb_put(&b, isa == CPU_JIT_VBMI2 ? funnel_vbmi2 : funnel_avx512) &&
             sb_put(&b, prelude_avx512);
    }
    ok = ok && sb_put(&b,
        "#define G(d, a, b, c, l) const VT d = T3(a, b, c, l)\n"
        "void wl_circuit_rows(const uint64_t *in, uint64_t *out, size_t pitch, size_t bw,\n"
        "                     size_t lo, size_t hi, int wrap, const uint64_t *colmask,\n"
        "                     const void *kd) {\n"
        "  (void)wrap, (void)kd;\n"
        "  const VT zero_ = VZERO(), ones_ = VONES();\n"
        "  (void)zero_, (void)ones_;\n"
        "  for (size_t r0 = lo; r0 < hi; r0 += 64) {\n"
        "    const size_t r1 = r0 + 64 < hi ? r0 + 64 : hi;\n"
        "    for (size_t i = 0; i < bw; i += VW) {\n"
        "      VT c_nw, c_n, c_ne, c_w, c_c, c_e, c_sw, c_s, c_se;\n"
        "      WE(in + (r0 - 1) * pitch, i, c_n, c_nw, c_ne);\n"
        "      WE(in + r0 * pitch, i, c_c, c_w, c_e);\n");
    if (need_s) ok = ok && sb_put(&b, "      VT d_st = T3(c_nw, c_n, c_ne, 0x96), d_sm = T3(c_w, c_c, c_e, 0x96);\n");
    if (need_c) ok = ok && sb_put(&b, "      VT d_ct = T3(c_nw, c_n, c_ne, 0xE8), d_cm = T3(c_w, c_c, c_e, 0xE8);\n");
    ok = ok && sb_put(&b,
        "      for (size_t r = r0; r < r1; r++) {\n"
        "        WE(in + (r + 1) * pitch, i, c_s, c_sw, c_se);\n");
    if (need_s) ok = ok && sb_put(&b, "        const VT d_sb = T3(c_sw, c_s, c_se, 0x96);\n");
    if (need_c) ok = ok && sb_put(&b, "        const VT d_cb = T3(c_sw, c_s, c_se, 0xE8);\n");
    ok = ok && put_derived(&b, d, "        ") && sb_put(&b, "        VT res_;\n") &&
         sb_put(&b, gates);
    ok = ok && sb_put(&b,
        "        if (colmask) res_ = VAND(res_, VLDU(colmask + i));\n"
        "        VSTU(out + r * pitch + i, res_);\n"
        "        c_nw = c_w, c_n = c_c, c_ne = c_e, c_w = c_sw, c_c = c_s, c_e = c_se;\n");
    if (need_s) ok = ok && sb_put(&b, "        d_st = d_sm, d_sm = d_sb;\n");
    if (need_c) ok = ok && sb_put(&b, "        d_ct = d_cm, d_cm = d_cb;\n");
    ok = ok && sb_put(&b, "      }\n    }\n  }\n}\n");
    /* the tile kernel of the sparse engine (wl_tile_job, internal.h: the struct below has
     * its layout) */
    ok = ok && sb_put(&b,
        "typedef struct job_ { const uint64_t *in[9]; uint64_t *out; unsigned bricks;\n"
        "  uint64_t chg, chg_w, chg_e; unsigned live; } job_;\n"
        "enum { N_, NE_, E_, SE_, S_, SW_, W_, NW_, C_ };\n"
        "void wl_circuit_tile(job_ *job, const void *kd) {\n"
        "  (void)kd;\n"
        "  const uint64_t *const *in = job->in;\n"
        "  const VT zero_ = VZERO(), ones_ = VONES();\n"
        "  (void)zero_, (void)ones_;\n"
        "  uint64_t chg = 0, chg_w = 0, chg_e = 0;\n"
        "  unsigned live = 0;\n");
    ok = ok && sb_put(&b, avx2 ? tile_head_avx2 : tile_head_avx512) &&
         sb_put(&b, "    (void)c_nw, (void)c_n, (void)c_ne, (void)c_w, (void)c_c, (void)c_e;\n"
                    "    (void)c_sw, (void)c_s, (void)c_se;\n");
    if (need_s)
        ok = ok && sb_put(&b, "    const VT d_st = T3(c_nw, c_n, c_ne, 0x96), d_sm = T3(c_w, c_c, c_e, 0x96), d_sb = T3(c_sw, c_s, c_se, 0x96);\n");
    if (need_c)
        ok = ok && sb_put(&b, "    const VT d_ct = T3(c_nw, c_n, c_ne, 0xE8), d_cm = T3(c_w, c_c, c_e, 0xE8), d_cb = T3(c_sw, c_s, c_se, 0xE8);\n");
    ok = ok && put_derived(&b, d, "    ") && sb_put(&b, "    VT res_;\n") && sb_put(&b, gates);
    ok = ok && sb_put(&b, avx2 ? tile_tail_avx2 : tile_tail_avx512) &&
         sb_put(&b,
        "   }\n"
        "  }\n"
        "  job->chg = chg, job->chg_w = chg_w, job->chg_e = chg_e, job->live = live;\n"
        "}\n");
    free(gates);
    if (!ok) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

/* Writes n bytes to a new temporary file made from tmpl (a mkstemp pattern); 1 on success,
 * the file removed on failure. */
static int write_temp(char *tmpl, const void *data, size_t n) {
    int fd = mkstemp(tmpl);
    if (fd < 0) return 0;
    const char *p = data;
    size_t left = n;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w <= 0) {
            close(fd);
            unlink(tmpl);
            return 0;
        }
        p += w, left -= (size_t)w;
    }
    if (close(fd) != 0) {
        unlink(tmpl);
        return 0;
    }
    return 1;
}

/* Reads a whole file (malloc'd) or NULL. */
static void *read_all(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t cap = 0, len = 0;
    for (;;) {
        if (len == cap) {
            size_t nc = cap ? cap * 2 : 65536;
            char *nb = realloc(buf, nc);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb, cap = nc;
        }
        size_t r = fread(buf + len, 1, cap - len, f);
        len += r;
        if (r == 0) break;
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(buf);
        return NULL;
    }
    *n = len;
    return buf;
}

/* Runs argv (argv[0] looked up in PATH) with its output discarded; 1 if it exits with 0. */
static int run_quiet(char *const argv[]) {
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0) return 0;
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return 0;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return 0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Loads the object at path and finds its two functions (NULL: none). */
static cpu_gen_rows_fn load_object(const char *path, wl_tile_step_fn *tile) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) return NULL;
    void *sym = dlsym(h, "wl_circuit_rows"), *tsym = dlsym(h, "wl_circuit_tile");
    if (!sym || !tsym) {
        dlclose(h);
        return NULL;
    }
    cpu_gen_rows_fn fn;
    memcpy(&fn, &sym, sizeof fn); /* POSIX: dlsym's object pointer is the function */
    memcpy(tile, &tsym, sizeof *tile);
    return fn;
}

/* The identity of the compiler for the key: its path in PATH, size and modification time. */
static void compiler_identity(const char *cc, char *out, size_t cap) {
    snprintf(out, cap, "%s", cc);
    const char *path = getenv("PATH");
    if (strchr(cc, '/') || !path) {
        struct stat st;
        if (stat(cc, &st) == 0)
            snprintf(out, cap, "%s %lld %lld", cc, (long long)st.st_size, (long long)st.st_mtime);
        return;
    }
    char dir[4096];
    for (const char *p = path; *p;) {
        const char *e = strchr(p, ':');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len && len < sizeof dir - 2 - strlen(cc)) {
            char full[4200];
            memcpy(dir, p, len);
            dir[len] = 0;
            snprintf(full, sizeof full, "%s/%s", dir, cc);
            struct stat st;
            if (stat(full, &st) == 0) {
                snprintf(out, cap, "%s %lld %lld", full, (long long)st.st_size,
                         (long long)st.st_mtime);
                return;
            }
        }
        if (!e) break;
        p = e + 1;
    }
}

/* Compiles src into an object in dir (temporary names) and returns its bytes. */
static void *compile(const char *cc, const char *dir, const char *src, int isa, size_t *n) {
    char c_path[4096 + 32], o_path[4096 + 32];
    snprintf(c_path, sizeof c_path, "%s/wlcc-XXXXXX", dir);
    snprintf(o_path, sizeof o_path, "%s/wlcc-XXXXXX", dir);
    if (!write_temp(c_path, src, strlen(src))) return NULL;
    int fd = mkstemp(o_path);
    if (fd < 0) {
        unlink(c_path);
        return NULL;
    }
    close(fd);
    char *argv[14];
    int a = 0;
    argv[a++] = (char *)cc;
    argv[a++] = "-O2";
    argv[a++] = isa == CPU_JIT_AVX2 ? "-mavx2" : "-mavx512f";
    if (isa == CPU_JIT_VBMI2) argv[a++] = "-mavx512vbmi2";
    argv[a++] = "-fPIC";
    argv[a++] = "-shared";
    argv[a++] = "-o";
    argv[a++] = o_path;
    argv[a++] = "-x"; /* the source file has no .c suffix */
    argv[a++] = "c";
    argv[a++] = c_path;
    argv[a] = NULL;
    void *obj = NULL;
    if (run_quiet(argv)) obj = read_all(o_path, n);
    unlink(c_path);
    unlink(o_path);
    return obj;
}

/* Loads object bytes through a private temporary file in dir. */
static cpu_gen_rows_fn load_bytes(const char *dir, const void *obj, size_t n,
                                  wl_tile_step_fn *tile) {
    char path[4096 + 32];
    snprintf(path, sizeof path, "%s/wlso-XXXXXX", dir);
    if (!write_temp(path, obj, n)) return NULL;
    cpu_gen_rows_fn fn = load_object(path, tile);
    unlink(path);
    return fn;
}

wl_status cpu_circuit_jit(const wl_rnet *net, int isa, int want_compile, cpu_gen_rows_fn *fn,
                          wl_tile_step_fn *tile_out, int verbose) {
    *fn = NULL;
    wl_tile_step_fn tile = NULL;
    if (tile_out) *tile_out = NULL;
    const char *off = getenv("WL_CPU_JIT");
    if (off && strcmp(off, "off") == 0)
        return wl_error(WL_ERR_UNAVAILABLE, "cpu circuit: compiling turned off (WL_CPU_JIT=off)");
    pthread_mutex_lock(&jit_lock);
    for (int i = 0; i < jit_n; i++)
        if (jit_table[i].isa == isa && jit_table[i].net.n == net->n &&
            jit_table[i].net.out == net->out &&
            memcmp(jit_table[i].net.g, net->g, sizeof net->g[0] * (size_t)net->n) == 0) {
            *fn = jit_table[i].fn;
            if (tile_out) *tile_out = jit_table[i].tile;
            pthread_mutex_unlock(&jit_lock);
            return WL_OK;
        }
    wl_status st = WL_OK;
    char *src = NULL;
    void *obj = NULL;
    size_t n_obj = 0;
    if (jit_n == JIT_MAX) {
        st = wl_error(WL_ERR_UNAVAILABLE, "cpu circuit: %d rules compiled already", JIT_MAX);
        goto done;
    }
    src = make_source(net, isa);
    if (!src) {
        st = wl_error(WL_ERR_NOMEM, "cpu circuit: out of memory for the source");
        goto done;
    }
    const char *cc = getenv("WL_CC") && *getenv("WL_CC") ? getenv("WL_CC") : "cc";
    char ident[4400];
    compiler_identity(cc, ident, sizeof ident);
    wl_rtc_key key;
    wl_rtc_key_init(&key);
    wl_rtc_key_add_str(&key, "warplife cpu circuit object 2: wl_circuit_rows(gen_rows), "
                             "wl_circuit_tile(wl_tile_job)");
    wl_rtc_key_add_str(&key, src);
    wl_rtc_key_add_str(&key, ident);
    static const char *const flags[3] = {"-O2 -mavx512f -fPIC -shared",
                                         "-O2 -mavx512f -mavx512vbmi2 -fPIC -shared",
                                         "-O2 -mavx2 -fPIC -shared"};
    wl_rtc_key_add_str(&key, flags[isa]);
    char dir[4096], path[4096 + 64], tmpdir[4096];
    int disk = wl_rtc_cache_dir(dir, sizeof dir, NULL, 0) &&
               wl_rtc_cache_path_kind(dir, &key, "cpu", "so", path, sizeof path);
    const char *work = dir;
    if (!disk) { /* no cache: compile in a private temporary directory */
        const char *t = getenv("TMPDIR");
        snprintf(tmpdir, sizeof tmpdir, "%s/warplife-jit-XXXXXX",
                 t && *t && strlen(t) < 4000 ? t : "/tmp");
        if (!mkdtemp(tmpdir)) {
            st = wl_error(WL_ERR_UNAVAILABLE, "cpu circuit: no directory to compile in");
            goto done;
        }
        work = tmpdir;
    }
    const char *how = "compiled";
    if (disk && (obj = wl_rtc_cache_read(path, &key, &n_obj)) != NULL) {
        *fn = load_bytes(work, obj, n_obj, &tile);
        how = "loaded from the cache";
        if (!*fn) { /* a verified object that does not load: compile afresh */
            unlink(path);
            free(obj);
            obj = NULL;
        }
    }
    if (!*fn && !want_compile) {
        if (!disk) rmdir(tmpdir);
        st = wl_error(WL_ERR_UNAVAILABLE, "cpu circuit: not compiled yet");
        goto done;
    }
    if (!*fn) {
        how = "compiled";
        obj = compile(cc, work, src, isa, &n_obj);
        if (obj) *fn = load_bytes(work, obj, n_obj, &tile);
        if (*fn && disk) wl_rtc_cache_write(path, &key, obj, n_obj);
    }
    if (!disk) rmdir(tmpdir);
    if (!*fn) {
        st = wl_error(WL_ERR_UNAVAILABLE, "cpu circuit: compiling with '%s' failed (set WL_CC "
                                          "to a C compiler with %s support)", cc,
                     isa == CPU_JIT_AVX2 ? "AVX2" : "AVX-512");
        goto done;
    }
    if (verbose)
        fprintf(stderr, "warplife: cpu circuit: %d-gate network %s%s%s\n", net->n, how,
                disk ? " " : "", disk ? path : "");
    jit_table[jit_n].net = *net;
    jit_table[jit_n].isa = isa;
    jit_table[jit_n].fn = *fn;
    jit_table[jit_n].tile = tile;
    jit_n++;
    if (tile_out) *tile_out = tile;
done:
    pthread_mutex_unlock(&jit_lock);
    free(src);
    free(obj);
    return st;
}
