/*
 * ocl_rule.c - generates the OpenCL C rule logic of the bitsliced kernels from an
 * outer-totalistic rule's birth and survive masks.  The text is placed before the kernel
 * source, so each rule gets its own program (cached by ocl_runtime.c) and the compiler folds
 * the rule into the kernels.  Two pieces:
 *
 * wl_rule_eval(s0, s1, s2, s3, c) - for `wide` and `simple`, which compute the 9-cell sum S
 * (centre included, 0..9) as four bit planes.  A dead cell is born iff S is in the birth
 * set; a live cell survives iff S - 1 is in the survive set.  Sums are split into three
 * sets: sums that give a live cell either way (no dependence on c), sums that only give
 * birth (need ~c), and sums that only give survival (need c).  Each sum t is one minterm
 * over the planes; because S <= 9, sums 2..7 never need s3 (8 = 1000 and 9 = 1001 have
 * s2 = s1 = 0) and sums 8 and 9 need neither s2 nor s1.
 *
 * WL_RULE5(n, x0, k, y1, y2, c) - for `lop3v` (wl_opencl_lop3v.cl), a macro statement setting
 * n from the five signals that kernel has (9-cell total T = x0 + 2 (k + y1) + 4 y2).  It is
 * a network of LOP3(d, a, b, c, lut) gates, the macro that wl_opencl_lop3v.cl defines as one
 * PTX lop3 on NVIDIA and as the truth table's boolean expression elsewhere.  The network is
 * the one src/core/lop3net.c synthesises for the rule (the fewest gates it finds); should
 * that fail (or with WL_OPENCL_NO_SYNTH=1 in the environment, for tests), Life gets its
 * hand-placed 4-gate network (the CUDA engine's) and any other rule the minterm form above on
 * the planes of T (s1 = k ^ y1, s2 / s3 the sum and carry of y2 and k & y1).
 */
#include "ocl_internal.h"

#include "lop3net.h"
#include "rulenet.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends printf-formatted text to buf at offset *n and advances *n by the text's full
 * length, as snprintf counts it: after a truncation *n >= len, which the callers check once
 * at the end. */
static void WL_PRINTF(4, 5) append(char *buf, size_t len, int *n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int m = (size_t)*n < len ? vsnprintf(buf + *n, len - (size_t)*n, fmt, ap)
                             : vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (m > 0) *n += m;
}

/* Appends the minterm of sum t (0..9) to buf at *n. */
static void minterm(char *buf, size_t len, int *n, int t) {
    const char *p0 = (t & 1) ? "s0" : "~s0";
    if (t >= 8) {
        append(buf, len, n, "(s3 & %s)", p0);
        return;
    }
    const char *p1 = (t & 2) ? "s1" : "~s1";
    const char *p2 = (t & 4) ? "s2" : "~s2";
    if (t >= 2) append(buf, len, n, "(%s & %s & %s)", p2, p1, p0);
    else append(buf, len, n, "(~s3 & %s & %s & %s)", p2, p1, p0);
}

/* Appends "(m_a | m_b | ...)" for the sums whose bit is set in `set`, or `zero`. */
static void sumset(char *buf, size_t len, int *n, unsigned set, const char *zero) {
    if (!set) {
        append(buf, len, n, "%s", zero);
        return;
    }
    append(buf, len, n, "(");
    int first = 1;
    for (int t = 0; t <= 9; t++) {
        if (!((set >> t) & 1u)) continue;
        if (!first) append(buf, len, n, " | ");
        minterm(buf, len, n, t);
        first = 0;
    }
    append(buf, len, n, ")");
}

/* Appends the expression "both | (~c & only_b) | (c & only_s)" over s0..s3 and c. */
static void rule_expr(uint16_t birth, uint16_t survive, const char *zero, char *buf,
                      size_t len, int *n) {
    unsigned born = birth & 0x1FFu;                    /* dead centre: sum = neighbours */
    unsigned kept = ((unsigned)survive << 1) & 0x3FEu; /* live centre: sum = neighbours + 1 */
    unsigned both = born & kept, only_b = born & ~kept, only_s = kept & ~born;
    sumset(buf, len, n, both, zero);
    append(buf, len, n, " | (~c & ");
    sumset(buf, len, n, only_b, zero);
    append(buf, len, n, ") | (c & ");
    sumset(buf, len, n, only_s, zero);
    append(buf, len, n, ")");
}

/* Appends the body statements of WL_RULE5 (without line continuations; the caller adds
 * them): a network of LOP3 gates from lop3net.c, else a fallback. */
static void rule5_body(uint16_t birth, uint16_t survive, char *buf, size_t len, int *n) {
    static const char *const names[WL_LOP3_INPUTS] = {"(x0_)", "(k_)", "(y1_)", "(y2_)",
                                                     "(c_)"};
    wl_lop3_net net;
    const char *nosynth = getenv("WL_OPENCL_NO_SYNTH"); /* testing: the fallbacks below */
    int use_synth = !(nosynth && *nosynth && strcmp(nosynth, "0") != 0);
    if (use_synth && wl_lop3_synth(birth, survive, &net) == WL_OK && wl_lop3_check(&net)) {
        append(buf, len, n, "/* lop3net.c: %d gates */\n", net.n);
        if (net.n > 0) {
            append(buf, len, n, "uint ");
            for (int i = 0; i < net.n; i++) append(buf, len, n, "%st%d", i ? ", " : "", i);
            append(buf, len, n, ";\n");
        }
        int m = wl_lop3_emit(&net, "LOP3", names, "t", "n_", (size_t)*n < len ? buf + *n : NULL,
                             (size_t)*n < len ? len - (size_t)*n : 0);
        if (m >= 0) {
            *n += m;
            return;
        }
        append(buf, len, n, "/* wl_lop3_emit failed: fallback */\n");
    } else {
        wl_clear_error();
    }
    if ((birth & 0x1FF) == 0x008 && (survive & 0x1FF) == 0x00C) {
        /* Life: with m = y1 + k + 2 y2 (T = x0 + 2 m), alive = x0 ? [m == 1] : c & [m == 2]. */
        append(buf, len, n,
               "/* B3/S23 by hand: e = [m == 1], f = [m == 2], m = y1 + k + 2 y2 */\n"
               "uint e, f, g;\n"
               "LOP3(e, (y1_), (k_), (y2_), 0x14);\n"
               "LOP3(f, (y1_), (k_), (y2_), 0x42);\n"
               "LOP3(g, f, (c_), (x0_), 0x40);\n"
               "LOP3(n_, (x0_), e, g, 0xEA);\n");
        return;
    }
    append(buf, len, n,
           "/* minterms of T's planes */\n"
           "uint c = (c_), s0 = (x0_), s1 = (k_) ^ (y1_), cr = (k_) & (y1_);\n"
           "uint s2 = cr ^ (y2_), s3 = cr & (y2_);\n"
           "n_ = ");
    rule_expr(birth, survive, "0u", buf, len, n);
    append(buf, len, n, ";\n");
}

wl_status wlocl_rule_code(uint16_t birth, uint16_t survive, char *buf, size_t len) {
    int n = 0;
    append(buf, len, &n,
           "/* generated by ocl_rule.c: birth mask 0x%03x, survive mask 0x%03x */\n"
           "ulong wl_rule_eval(ulong s0, ulong s1, ulong s2, ulong s3, ulong c) {\n"
           "    return ",
           (unsigned)birth, (unsigned)survive);
    rule_expr(birth, survive, "0UL", buf, len, &n);
    append(buf, len, &n, ";\n}\n");
    /* WL_RULE5 as a macro (LOP3 is defined later, in wl_opencl_lop3v.cl): the body's lines
     * get a backslash continuation each. */
    char body[4096];
    int bn = 0;
    rule5_body(birth, survive, body, sizeof body, &bn);
    if (bn < 0 || (size_t)bn >= sizeof body)
        return wl_error(WL_ERR_INVALID, "OpenCL rule network does not fit in %zu bytes",
                        sizeof body);
    append(buf, len, &n, "#define WL_RULE5(n_, x0_, k_, y1_, y2_, c_) do { \\\n");
    for (const char *p = body; *p; p++) {
        if (*p == '\n') append(buf, len, &n, " \\\n");
        else append(buf, len, &n, "%c", *p);
    }
    append(buf, len, &n, "} while (0)\n");
    if (n < 0 || (size_t)n >= len)
        return wl_error(WL_ERR_INVALID, "OpenCL rule code does not fit in %zu bytes", len);
    return WL_OK;
}

wl_status wlocl_circuit_code(const wl_rule *rule, char *buf, size_t len) {
    wl_rnet net;
    wl_status st = wl_rnet_synth(rule, 1, &net); /* cached per process */
    if (st) return st;
    static const char *const names[WL_RNET_INPUTS + 2] = {
        WL_RNET_KERNEL_NAMES, "0u", "0xffffffffu"};
    int n = 0;
    append(buf, len, &n,
           "/* generated by ocl_rule.c: a rule that is not outer-totalistic, as a %d-gate "
           "network of rulenet.c (lop3v's WL_RULE9; wide and simple do not run it) */\n"
           "ulong wl_rule_eval(ulong s0, ulong s1, ulong s2, ulong s3, ulong c) "
           "{ return 0UL; }\n"
           "#define WL_RULE5(n_, x0_, k_, y1_, y2_, c_) n_ = 0u\n"
           "#define LOP3D(d, a, b, c, l) uint d; LOP3(d, a, b, c, l)\n"
           "#define WL_RULE9(n_) do { ",
           net.n);
    int m = wl_rnet_emit(&net, "LOP3D", names, "t", "n_", (size_t)n < len ? buf + n : NULL,
                         (size_t)n < len ? len - (size_t)n : 0);
    if (m < 0) return wl_error(WL_ERR_INVALID, "OpenCL: the rule network cannot be written");
    for (int i = n; i < n + m && (size_t)i < len; i++)
        if (buf[i] == '\n') buf[i] = ' ';
    n += m;
    append(buf, len, &n, "} while (0)\n");
    if (n < 0 || (size_t)n >= len)
        return wl_error(WL_ERR_INVALID, "OpenCL rule code does not fit in %zu bytes", len);
    return WL_OK;
}
