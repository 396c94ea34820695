/*
 * simd_avx512.c - the bit-sliced generation on 512-bit vectors (kernel `avx512`, and the
 * inner loop of `best` on CPUs with AVX-512F).  Compiled with -mavx512f; called only after
 * the engine has checked wl_cpu_has(WL_CPU_AVX512F).  A second copy of the loop,
 * compiled for AVX-512 VBMI2 through a target attribute, is chosen at run time when the CPU
 * has it (Zen 4, Ice Lake and later).
 *
 * Layout: a vector is 8 consecutive words of one tile row, 512 consecutive cells (bit b of
 * word j = column 64 j + b).  The west/east neighbour planes need a one-bit shift across
 * the whole 512-bit row segment: valignq (_mm512_alignr_epi64) builds the vector of each
 * word's preceding (following) word from this vector and the previous (next) one; then
 * either two 64-bit shifts and an OR, or one VBMI2 funnel shift (vpshldq / vpshrdq), make
 * the neighbour plane.  The previous vector of a row's first segment is the row's pad
 * (zero), or on a circular row (band mode on a torus) the row's last segment, chosen once
 * per strip, so no edge case remains in the inner loop.
 *
 * Logic: every 3-input function is one vpternlogq (_mm512_ternarylogic_epi64; the
 * immediate is the function's truth table, bit a<<2|b<<1|c): xor3 0x96 and majority 0xE8
 * make full adders.  A strip of one vector is walked down ROW_BLOCK rows with the
 * horizontal sums of the three rows kept in registers, so each row's sum is made once (twice
 * at block boundaries), then the next strip walks the same rows while they are in L1.  Per 512 cells
 * B3/S23 costs 3 loads, 2 valignq, 2 funnel shifts and 2 ternlogs (horizontal sum), 4
 * ternlogs (vertical adders), 2 ternlogs for T==1 / T==2, 2 for the rule and one store:
 * 14 logic operations with VBMI2, 18 without.  Other outer-totalistic rules evaluate the
 * masks of cpu_circuit (bitsliced.c explains the circuit) at 5 operations per count class.
 */
#include "cpu_internal.h"

#include <immintrin.h>
#include <stdlib.h>

#define TERN(a, b, c, imm) _mm512_ternarylogic_epi64((a), (b), (c), (imm))
#define XOR3 0x96
#define MAJ 0xE8
#define MUX 0xCA /* a ? b : c */
/* Rows a strip walks before the next strip starts: the three cache lines per row that a
 * strip shares with its neighbour strip (64 rows x 3 x 64 bytes = 12 KiB) stay in L1. */
#define ROW_BLOCK 64

/* West (l) and east (r) neighbour planes of c, given the previous and next vectors. */
#define NEIGHBOURS_PLAIN(c, p, n, l, r)                                                     \
    do {                                                                                    \
        __m512i pw_ = _mm512_alignr_epi64((c), (p), 7); /* word before each word */         \
        __m512i nw_ = _mm512_alignr_epi64((n), (c), 1); /* word after each word */          \
        (l) = _mm512_or_si512(_mm512_slli_epi64((c), 1), _mm512_srli_epi64(pw_, 63));       \
        (r) = _mm512_or_si512(_mm512_srli_epi64((c), 1), _mm512_slli_epi64(nw_, 63));       \
    } while (0)

#define NEIGHBOURS_VBMI2(c, p, n, l, r)                                                     \
    do {                                                                                    \
        (l) = _mm512_shldi_epi64((c), _mm512_alignr_epi64((c), (p), 7), 1);                 \
        (r) = _mm512_shrdi_epi64((c), _mm512_alignr_epi64((n), (c), 1), 1);                 \
    } while (0)

/* Horizontal 3-sum of the strip's vector in row `row`: planes s0, s1, and the cells c. */
#define HSUM(NB, row, s0, s1, cv)                                                           \
    do {                                                                                    \
        __m512i p_ = _mm512_load_si512((const void *)((row) + ip));                         \
        __m512i n_ = _mm512_load_si512((const void *)((row) + in_));                        \
        (cv) = _mm512_load_si512((const void *)((row) + i));                                \
        __m512i l_, r_;                                                                     \
        NB((cv), p_, n_, l_, r_);                                                           \
        (s0) = TERN(l_, (cv), r_, XOR3);                                                    \
        (s1) = TERN(l_, (cv), r_, MAJ);                                                     \
    } while (0)

/* The next state of 512 cells from the horizontal sums of their rows above (A0, A1), at
 * (B0, B1) and below (C0, C1), and the cells themselves (BV), into `next`.  LIFE: 1 =
 * B3/S23, 2 = a popular rule with immediates IMMS, 0 = the generic masks of RULE_SETUP.
 * Shared by the row kernel below and the tile kernel further down. */
#define NEXT_STATE(LIFE, IMMS, A0, A1, B0, B1, C0, C1, BV, next)                            \
    do {                                                                                    \
        __m512i x0 = TERN(A0, B0, C0, XOR3), k0 = TERN(A0, B0, C0, MAJ);                    \
        __m512i q = TERN(A1, B1, C1, XOR3), m = TERN(A1, B1, C1, MAJ);                      \
        if (LIFE == 1) {                                                                    \
            __m512i t1 = TERN(m, q, k0, 0x06); /* ~m & (q ^ k0): T == 1 */                  \
            __m512i t2 = TERN(m, q, k0, 0x18); /* T == 2 */                                 \
            __m512i w = TERN(x0, BV, t2, 0x08); /* ~x0 & alive & (T == 2) */                \
            next = TERN(x0, t1, w, 0xEA);       /* x0 & (T == 1) | w */                     \
        } else if (LIFE == 2) {                                                             \
            /* the rule's four functions of T as constant immediates, then two muxes on x0  \
             * and one on the cell itself */                                                \
            __m512i be = TERN(m, q, k0, IMM_BE IMMS), bo = TERN(m, q, k0, IMM_BO IMMS);     \
            __m512i se = TERN(m, q, k0, IMM_SE IMMS), so = TERN(m, q, k0, IMM_SO IMMS);     \
            __m512i dead = TERN(x0, bo, be, MUX), live = TERN(x0, so, se, MUX);             \
            next = TERN(BV, live, dead, MUX);                                               \
        } else {                                                                            \
            next = _mm512_setzero_si512();                                                  \
            for (int j = 0; j < nact; j++) {                                                \
                __m512i e;                                                                  \
                switch (act[j]) {                                                           \
                case 0: e = TERN(m, q, k0, 0x01); break;                                    \
                case 1: e = TERN(m, q, k0, 0x06); break;                                    \
                case 2: e = TERN(m, q, k0, 0x18); break;                                    \
                case 3: e = TERN(m, q, k0, 0x60); break;                                    \
                default: e = TERN(m, q, k0, 0x80); break;                                   \
                }                                                                           \
                __m512i g0 = TERN(x0, p0[j], q0[j], 0x6A); /* (a & b) ^ c */                \
                __m512i g1 = TERN(x0, p1[j], q1[j], 0x6A);                                  \
                __m512i g = TERN(BV, g1, g0, MUX);                                          \
                next = TERN(next, e, g, 0xF8); /* a | (b & c) */                            \
            }                                                                               \
        }                                                                                   \
    } while (0)

/* The generic rule's masks (cpu_circuit) as vectors, for NEXT_STATE with LIFE == 0. */
#define RULE_SETUP(kd)                                                                      \
    const cpu_circuit *cc = &(kd)->circ;                                                    \
    __m512i p0[5], q0[5], p1[5], q1[5];                                                     \
    int act[5], nact = 0;                                                                   \
    for (int t = 0; t <= 4; t++) {                                                          \
        if (!cc->active[t]) continue;                                                       \
        p0[nact] = _mm512_set1_epi64((long long)cc->p0[t]);                                 \
        q0[nact] = _mm512_set1_epi64((long long)cc->q0[t]);                                 \
        p1[nact] = _mm512_set1_epi64((long long)cc->p1[t]);                                 \
        q1[nact] = _mm512_set1_epi64((long long)cc->q1[t]);                                 \
        act[nact++] = t;                                                                    \
    }                                                                                       \
    (void)act, (void)p0, (void)q0, (void)p1, (void)q1

/* Output row r from the horizontal sums of rows r - 1 (A), r (B) and r + 1 (C, loaded
 * here into C0, C1 with its cells in CV); BV holds the cells of row r. */
#define ROW_STEP(NB, LIFE, MASK, IMMS, A0, A1, B0, B1, C0, C1, BV, CV, r)                   \
    do {                                                                                    \
        HSUM(NB, in + ((r) + 1) * pitch, C0, C1, CV);                                       \
        __m512i next;                                                                       \
        NEXT_STATE(LIFE, IMMS, A0, A1, B0, B1, C0, C1, BV, next);                           \
        if (MASK) next = _mm512_and_si512(next, cm);                                        \
        _mm512_store_si512((void *)(out + (r) * pitch + i), next);                          \
    } while (0)

/* The strips of one row block; the row loop is unrolled three times so that the three
 * rows' sums rotate through the registers without copies. */
#define GEN_ROWS_BODY(NB, LIFE, MASK, IMMS)                                                 \
    RULE_SETUP(kd);                                                                         \
    for (size_t rb = lo; rb < hi; rb += ROW_BLOCK)                                          \
    for (size_t i = 0; i < bw; i += 8) {                                                    \
        size_t rend = hi - rb < ROW_BLOCK ? hi : rb + ROW_BLOCK;                            \
        /* word offsets of the previous and next vectors of this strip */                   \
        ptrdiff_t ip = i ? (ptrdiff_t)i - 8 : wrap ? (ptrdiff_t)bw - 8 : -8;                \
        ptrdiff_t in_ = i + 8 < bw ? (ptrdiff_t)i + 8 : wrap ? 0 : (ptrdiff_t)bw;           \
        __m512i cm = MASK ? _mm512_load_si512((const void *)(colmask + i))                  \
                          : _mm512_setzero_si512();                                         \
        (void)cm;                                                                           \
        __m512i a0, a1, b0, b1, c0, c1, av, bv, cv;                                         \
        HSUM(NB, in + (rb - 1) * pitch, a0, a1, av);                                        \
        HSUM(NB, in + rb * pitch, b0, b1, bv);                                              \
        size_t r = rb;                                                                      \
        for (; r + 3 <= rend; r += 3) {                                                     \
            ROW_STEP(NB, LIFE, MASK, IMMS, a0, a1, b0, b1, c0, c1, bv, cv, r);                    \
            ROW_STEP(NB, LIFE, MASK, IMMS, b0, b1, c0, c1, a0, a1, cv, av, r + 1);                \
            ROW_STEP(NB, LIFE, MASK, IMMS, c0, c1, a0, a1, b0, b1, av, bv, r + 2);                \
        }                                                                                   \
        for (; r < rend; r++) {                                                             \
            ROW_STEP(NB, LIFE, MASK, IMMS, a0, a1, b0, b1, c0, c1, bv, cv, r);                    \
            a0 = b0, a1 = b1, b0 = c0, b1 = c1, bv = cv;                                    \
        }                                                                                   \
    }

/* One function per (shift flavour, circuit, column mask or not), so that each inner loop
 * is branch-free.  LIFE: 1 = B3/S23, 0 = generic masks, 2 = a popular rule whose logic is
 * given by the immediates IMM_BE .. IMM_SO in scope. */
#define DEFINE_GEN_ROWS(name, attr, NB, LIFE, MASK)                                         \
    attr static void name(const uint64_t *in, uint64_t *out, size_t pitch, size_t bw,       \
                          size_t lo, size_t hi, int wrap, const uint64_t *colmask,          \
                          const cpu_kernel_data *kd) {                                      \
        GEN_ROWS_BODY(NB, LIFE, MASK, NO_IMMS)                                              \
    }


/* ---- 64 x 64 tiles with rows stacked in vectors (the sparse engine's tile step) ----------
 *
 * The sparse engine keeps the plane as 64 x 64 tiles, a tile being 64 words, one per row.
 * Here a vector holds 8 consecutive rows of one tile (a "brick"), so one tile is 8 vectors
 * and one instruction updates 512 cells of the same 64 columns.  The west and east
 * neighbour planes of a brick need the neighbouring tiles' bricks of the same rows: a
 * funnel shift of each row word with the west (east) tile's word gives bit 63 (bit 0)
 * of the neighbour's row in the vacated bit.  The rows above and below a brick are lane
 * shifts (valignq) of the horizontal sums of the brick and the brick above or below it,
 * the northern tile's last brick for the first, the southern tile's first for the last.
 * So each brick needs the sums of three bricks, each computed once per tile step; the
 * rule is NEXT_STATE, the same logic as the row kernel's.  Only the bricks the caller
 * asks for are computed (a glider costs one or two bricks, not a tile), and each new
 * brick is compared with what the output held before, giving the rows that changed,
 * and where column 0 and column 63 changed, from which the sparse engine decides what to
 * wake.  About 26 operations per brick (512 cells) for Life with VBMI2. */

/* West (l) and east (r) neighbour planes of the bricks x, given the same rows of the west
 * (w) and east (e) tiles. */
#define TILE_NB_PLAIN(x, w, e, l, r)                                                        \
    do {                                                                                    \
        (l) = _mm512_or_si512(_mm512_slli_epi64((x), 1), _mm512_srli_epi64((w), 63));       \
        (r) = _mm512_or_si512(_mm512_srli_epi64((x), 1), _mm512_slli_epi64((e), 63));       \
    } while (0)
#define TILE_NB_VBMI2(x, w, e, l, r)                                                        \
    do {                                                                                    \
        (l) = _mm512_shldi_epi64((x), (w), 1);                                              \
        (r) = _mm512_shrdi_epi64((x), (e), 1);                                              \
    } while (0)

/* Horizontal 3-sums of brick k (-1 .. 8) of the tile's column: k = -1 is the northern
 * tiles' last brick, k = 8 the southern tiles' first. */
#define TILE_HSUM(NB, in, k, s0, s1)                                                        \
    do {                                                                                    \
        const uint64_t *c_ = (k) < 0 ? (in)[WL_NB_N] + 56 : (k) > 7 ? (in)[WL_NB_S]         \
                                                                     : (in)[WL_NB_C] + 8 * (k); \
        const uint64_t *w_ = (k) < 0 ? (in)[WL_NB_NW] + 56 : (k) > 7 ? (in)[WL_NB_SW]       \
                                                                      : (in)[WL_NB_W] + 8 * (k); \
        const uint64_t *e_ = (k) < 0 ? (in)[WL_NB_NE] + 56 : (k) > 7 ? (in)[WL_NB_SE]       \
                                                                      : (in)[WL_NB_E] + 8 * (k); \
        __m512i x_ = _mm512_load_si512((const void *)c_), l_, r_;                           \
        NB(x_, _mm512_load_si512((const void *)w_), _mm512_load_si512((const void *)e_), l_, r_); \
        (s0) = TERN(l_, x_, r_, XOR3);                                                      \
        (s1) = TERN(l_, x_, r_, MAJ);                                                       \
    } while (0)

/* Horizontal 3-sums of the 8 rows r .. r + 7 of the tile, 0 < r <= 56 (unaligned). */
#define TILE_HSUM_AT(NB, in, r, s0, s1)                                                     \
    do {                                                                                    \
        __m512i x_ = _mm512_loadu_si512((const void *)((in)[WL_NB_C] + (r))), l_, r_;       \
        NB(x_, _mm512_loadu_si512((const void *)((in)[WL_NB_W] + (r))),                     \
           _mm512_loadu_si512((const void *)((in)[WL_NB_E] + (r))), l_, r_);                \
        (s0) = TERN(l_, x_, r_, XOR3);                                                      \
        (s1) = TERN(l_, x_, r_, MAJ);                                                       \
    } while (0)

/* Writes brick b of the output and records where it changed. */
#define TILE_STORE(b, next)                                                                 \
    do {                                                                                    \
        __m512i d_ = _mm512_xor_si512((next), _mm512_load_si512((const void *)(job->out + 8 * (b)))); \
        _mm512_store_si512((void *)(job->out + 8 * (b)), (next));                           \
        chg |= (uint64_t)_mm512_test_epi64_mask(d_, d_) << (8 * (b));                       \
        chg_w |= (uint64_t)_mm512_test_epi64_mask(d_, col0) << (8 * (b));                   \
        chg_e |= (uint64_t)_mm512_test_epi64_mask(d_, col63) << (8 * (b));                  \
        live_b |= (unsigned)(_mm512_test_epi64_mask((next), (next)) != 0) << (b);           \
    } while (0)

/* The bricks asked for, run by run (a run of consecutive bricks walks down with the sums
 * of the brick above, at and below in registers, so each brick's sums are made once). */
#define TILE_BODY(NB, LIFE, IMMS)                                                           \
    RULE_SETUP(kd);                                                                         \
    uint64_t chg = 0, chg_w = 0, chg_e = 0;                                                 \
    unsigned live_b = 0; /* bricks of the output with a live cell */                       \
    const __m512i col0 = _mm512_set1_epi64(1), col63 = _mm512_set1_epi64(INT64_MIN);        \
    const uint64_t *mid = job->in[WL_NB_C];                                                 \
    unsigned bm = job->bricks & 0xFF;                                                       \
    while (bm) {                                                                            \
        int b = __builtin_ctz(bm), end = b + __builtin_ctz(~(bm >> b)); /* run [b, end) */  \
        bm &= ~0u << end;                                                                   \
        if (end == b + 1 && b > 0 && b < 7) { /* a lone inner brick: rows above and below \
                                                 by unaligned loads, no lane shifts */      \
            __m512i a0, a1, h0, h1, c0, c1, next;                                           \
            TILE_HSUM_AT(NB, job->in, 8 * b - 1, a0, a1);                                   \
            TILE_HSUM_AT(NB, job->in, 8 * b, h0, h1);                                       \
            TILE_HSUM_AT(NB, job->in, 8 * b + 1, c0, c1);                                   \
            __m512i bv = _mm512_load_si512((const void *)(mid + 8 * b));                    \
            NEXT_STATE(LIFE, IMMS, a0, a1, h0, h1, c0, c1, bv, next);                       \
            TILE_STORE(b, next);                                                            \
            continue;                                                                       \
        }                                                                                   \
        __m512i u0, u1, h0, h1, n0, n1;                                                     \
        TILE_HSUM(NB, job->in, b - 1, u0, u1);                                              \
        TILE_HSUM(NB, job->in, b, h0, h1);                                                  \
        for (; b < end; b++) {                                                              \
            TILE_HSUM(NB, job->in, b + 1, n0, n1);                                          \
            __m512i a0 = _mm512_alignr_epi64(h0, u0, 7), a1 = _mm512_alignr_epi64(h1, u1, 7); \
            __m512i c0 = _mm512_alignr_epi64(n0, h0, 1), c1 = _mm512_alignr_epi64(n1, h1, 1); \
            __m512i bv = _mm512_load_si512((const void *)(mid + 8 * b)), next;              \
            NEXT_STATE(LIFE, IMMS, a0, a1, h0, h1, c0, c1, bv, next);                       \
            TILE_STORE(b, next);                                                            \
            u0 = h0, u1 = h1, h0 = n0, h1 = n1;                                             \
        }                                                                                   \
    }                                                                                       \
    job->chg = chg;                                                                         \
    job->chg_w = chg_w;                                                                     \
    job->chg_e = chg_e;                                                                     \
    job->live = live_b;

#define DEFINE_TILE(name, attr, NB, LIFE, IMMS)                                             \
    attr static void name(wl_tile_job *job, const cpu_kernel_data *kd) {                    \
        TILE_BODY(NB, LIFE, IMMS)                                                           \
    }

/* Immediates of a popular rule.  With T = q + k0 + 2 m, the 3x3 sum c9 = x0 + 2 T decides:
 * a dead cell is born if birth[c9], a live one survives if survive[c9 - 1].  For each parity
 * of c9 that is a function of T alone, i.e. of (m, q, k0): one ternlog, whose truth table
 * (bit m<<2 | q<<1 | k0) the macros below compute at compile time from the masks. */
#define BIT_OF(mask, n) ((n) < 0 || (n) > 8 ? 0 : ((mask) >> ((n) < 0 ? 0 : (n))) & 1)
#define TERM(mask, off, m, q, k) (BIT_OF(mask, 2 * ((q) + (k) + 2 * (m)) + (off)) << ((m) * 4 + (q) * 2 + (k)))
#define IMM_T(mask, off)                                                                    \
    (TERM(mask, off, 0, 0, 0) | TERM(mask, off, 0, 0, 1) | TERM(mask, off, 0, 1, 0) |       \
     TERM(mask, off, 0, 1, 1) | TERM(mask, off, 1, 0, 0) | TERM(mask, off, 1, 0, 1) |       \
     TERM(mask, off, 1, 1, 0) | TERM(mask, off, 1, 1, 1))

/* IMM_BE (name) -> name_be ...; the Life and generic loops pass (none) and never use it */
#define IMM_BE(name) name##_be
#define IMM_BO(name) name##_bo
#define IMM_SE(name) name##_se
#define IMM_SO(name) name##_so
#define NO_IMMS (none)
enum { none_be = 0, none_bo = 0, none_se = 0, none_so = 0 };

#define DEFINE_POPULAR(name, b, s)                                                          \
    enum { name##_be = IMM_T(b, 0), name##_bo = IMM_T(b, 1), name##_se = IMM_T(s, -1),      \
           name##_so = IMM_T(s, 0) };                                                       \
    DEFINE_POPULAR_VARIANT(name, plain, , NEIGHBOURS_PLAIN)                                 \
    DEFINE_POPULAR_VARIANT(name, vbmi2, VBMI2_ATTR, NEIGHBOURS_VBMI2)                       \
    DEFINE_TILE(tile_plain_##name, , TILE_NB_PLAIN, 2, (name))                              \
    DEFINE_TILE(tile_vbmi2_##name, VBMI2_ATTR, TILE_NB_VBMI2, 2, (name))

#define DEFINE_POPULAR_VARIANT(name, flavour, attr, NB)                                     \
    attr static void flavour##_##name(const uint64_t *in, uint64_t *out, size_t pitch,      \
                                      size_t bw, size_t lo, size_t hi, int wrap,            \
                                      const uint64_t *colmask, const cpu_kernel_data *kd) { \
        if (colmask) {                                                                      \
            GEN_ROWS_BODY(NB, 2, 1, (name))                                                 \
        } else {                                                                            \
            GEN_ROWS_BODY(NB, 2, 0, (name))                                                 \
        }                                                                                   \
    }

#define VBMI2_ATTR __attribute__((target("avx512f,avx512vbmi2")))
DEFINE_GEN_ROWS(plain_life, , NEIGHBOURS_PLAIN, 1, 0)
DEFINE_GEN_ROWS(plain_life_mask, , NEIGHBOURS_PLAIN, 1, 1)
DEFINE_GEN_ROWS(plain_any, , NEIGHBOURS_PLAIN, 0, 0)
DEFINE_GEN_ROWS(plain_any_mask, , NEIGHBOURS_PLAIN, 0, 1)
DEFINE_GEN_ROWS(vbmi2_life, VBMI2_ATTR, NEIGHBOURS_VBMI2, 1, 0)
DEFINE_GEN_ROWS(vbmi2_life_mask, VBMI2_ATTR, NEIGHBOURS_VBMI2, 1, 1)
DEFINE_GEN_ROWS(vbmi2_any, VBMI2_ATTR, NEIGHBOURS_VBMI2, 0, 0)
DEFINE_GEN_ROWS(vbmi2_any_mask, VBMI2_ATTR, NEIGHBOURS_VBMI2, 0, 1)
DEFINE_TILE(tile_plain_life, , TILE_NB_PLAIN, 1, NO_IMMS)
DEFINE_TILE(tile_plain_any, , TILE_NB_PLAIN, 0, NO_IMMS)
DEFINE_TILE(tile_vbmi2_life, VBMI2_ATTR, TILE_NB_VBMI2, 1, NO_IMMS)
DEFINE_TILE(tile_vbmi2_any, VBMI2_ATTR, TILE_NB_VBMI2, 0, NO_IMMS)
CPU_POPULAR_RULES(DEFINE_POPULAR)

typedef void (*gen_rows_fn)(const uint64_t *, uint64_t *, size_t, size_t, size_t, size_t, int,
                            const uint64_t *, const cpu_kernel_data *);
#define POPULAR_PLAIN(name, b, s) plain_##name,
#define POPULAR_VBMI2(name, b, s) vbmi2_##name,
static const gen_rows_fn popular_plain[] = {CPU_POPULAR_RULES(POPULAR_PLAIN)};
static const gen_rows_fn popular_vbmi2[] = {CPU_POPULAR_RULES(POPULAR_VBMI2)};
typedef void (*tile_fn)(wl_tile_job *, const cpu_kernel_data *);
#define TILE_POPULAR_PLAIN(name, b, s) tile_plain_##name,
#define TILE_POPULAR_VBMI2(name, b, s) tile_vbmi2_##name,
static const tile_fn tile_popular_plain[] = {CPU_POPULAR_RULES(TILE_POPULAR_PLAIN)};
static const tile_fn tile_popular_vbmi2[] = {CPU_POPULAR_RULES(TILE_POPULAR_VBMI2)};

int cpu_avx512_uses_vbmi2(void) {
    const char *off = getenv("WL_CPU_NO_VBMI2"); /* tests run the plain loops this way */
    if (off && *off && *off != '0') return 0;
    return wl_cpu_has(WL_CPU_AVX512VBMI2);
}

void cpu_gen_rows_avx512(const uint64_t *in, uint64_t *out, size_t pitch, size_t bw,
                         size_t lo, size_t hi, int wrap, const uint64_t *colmask,
                         const cpu_kernel_data *kd) {
    static const gen_rows_fn table[8] = {
        plain_any, plain_any_mask, plain_life, plain_life_mask,
        vbmi2_any, vbmi2_any_mask, vbmi2_life, vbmi2_life_mask};
    if (kd->circ.popular) {
        const gen_rows_fn *t = kd->vbmi2 ? popular_vbmi2 : popular_plain;
        t[kd->circ.popular - 1](in, out, pitch, bw, lo, hi, wrap, colmask, kd);
        return;
    }
    int idx = kd->vbmi2 * 4 + (kd->circ.life ? 2 : 0) + (colmask ? 1 : 0);
    table[idx](in, out, pitch, bw, lo, hi, wrap, colmask, kd);
}

void cpu_tile_avx512(wl_tile_job *job, const cpu_kernel_data *kd) {
    if (kd->circ.popular) {
        const tile_fn *t = kd->vbmi2 ? tile_popular_vbmi2 : tile_popular_plain;
        t[kd->circ.popular - 1](job, kd);
        return;
    }
    static const tile_fn table[4] = {tile_plain_any, tile_plain_life, tile_vbmi2_any,
                                     tile_vbmi2_life};
    table[kd->vbmi2 * 2 + (kd->circ.life ? 1 : 0)](job, kd);
}
