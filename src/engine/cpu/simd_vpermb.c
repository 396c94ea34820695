/*
 * simd_vpermb.c - the `vpermb` kernel: any rule (the full 512-entry table, so MAP and
 * non-totalistic isotropic rules too) by byte-wise table lookups in AVX-512 registers, 64
 * cells per lookup.  Also the inner loop of `best` and `avx512` for rules that are not
 * outer-totalistic.  Needs AVX-512BW, AVX-512 VBMI and GFNI (checked at run time).
 *
 * For 8 words of a row at a time (512 cells), the nine neighbourhood planes NW, N, NE, W,
 * C, E, SW, S, SE are made as vectors with the shifts of the avx512 kernel, and an 8 x 8
 * transpose of 64-bit lanes (unpack + shuffle_i64x2, 24 instructions) gives each word a
 * register holding its eight planes N .. SE.  The index of a cell,
 * NW<<8 | N<<7 | NE<<6 | W<<5 | C<<4 | E<<3 | SW<<2 | S<<1 | SE, is built for all 64 cells
 * at once by a bit transpose: the eight planes N..SE go into the eight 64-bit lanes of a
 * zmm register, vpermb regroups them so that lane q holds byte q of every plane, and
 * gf2p8affineqb with a constant operand transposes each lane's 8x8 bit matrix, which
 * leaves in byte j of lane q the eight plane bits of cell 8 q + j: the low 8 index bits.
 * The rule table is held in eight zmm registers as four 128-byte tables (one per value of
 * NW, N); vpermi2b looks up the low 7 bits in each, two byte blends on N and one on NW
 * (mask registers straight from the plane words) pick the right one, and vptestmb turns
 * the 64 result bytes back into 64 bits.  About 40 instructions per 64 cells, against 16
 * dependent table loads and their index arithmetic for lut4x4.
 */
#include "cpu_internal.h"

#include <immintrin.h>
#include <stdlib.h>

int cpu_vpermb_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi") &&
           __builtin_cpu_supports("gfni");
}

uint8_t *cpu_vpermb_table_build(const wl_rule *r) {
    uint8_t *t = wl_aligned_alloc(512);
    if (!t) return NULL;
    for (unsigned i = 0; i < 512; i++) t[i] = (uint8_t)wl_rule_next(r, i);
    return t;
}

/* The lookup of one word's 64 cells from its plane register (lanes N, NE, W, C, E, SW, S,
 * SE) and the N and NW plane words. */
#define LOOKUP64(planes, nword, nwword, dst)                                                \
    do {                                                                                    \
        __m512i grouped_ = _mm512_permutexvar_epi8(perm, (planes));                         \
        __m512i idx_ = _mm512_gf2p8affine_epi64_epi8(unit, grouped_, 0);                    \
        __m512i r0_ = _mm512_permutex2var_epi8(t0l, idx_, t0h);                             \
        __m512i r1_ = _mm512_permutex2var_epi8(t1l, idx_, t1h);                             \
        __m512i r2_ = _mm512_permutex2var_epi8(t2l, idx_, t2h);                             \
        __m512i r3_ = _mm512_permutex2var_epi8(t3l, idx_, t3h);                             \
        __mmask64 kn_ = _cvtu64_mask64(nword), knw_ = _cvtu64_mask64(nwword);               \
        __m512i lo_ = _mm512_mask_blend_epi8(kn_, r0_, r1_);                                \
        __m512i hi_ = _mm512_mask_blend_epi8(kn_, r2_, r3_);                                \
        __m512i res_ = _mm512_mask_blend_epi8(knw_, lo_, hi_);                              \
        (dst) = _cvtmask64_u64(_mm512_test_epi8_mask(res_, res_));                          \
    } while (0)

/* West / east neighbour planes of the 8 words at row + i (pads give the edge words). */
static inline void west_east(const uint64_t *row, size_t i, __m512i *c, __m512i *l, __m512i *r) {
    __m512i p = _mm512_load_si512((const void *)(row + i - 8));
    __m512i n = _mm512_load_si512((const void *)(row + i + 8));
    *c = _mm512_load_si512((const void *)(row + i));
    __m512i pw = _mm512_alignr_epi64(*c, p, 7), nw = _mm512_alignr_epi64(n, *c, 1);
    *l = _mm512_or_si512(_mm512_slli_epi64(*c, 1), _mm512_srli_epi64(pw, 63));
    *r = _mm512_or_si512(_mm512_srli_epi64(*c, 1), _mm512_slli_epi64(nw, 63));
}

void cpu_gen_rows_vpermb(const uint64_t *in, uint64_t *out, size_t pitch, size_t bw,
                         size_t lo, size_t hi, int wrap, const uint64_t *colmask,
                         const cpu_kernel_data *kd) {
    (void)wrap; /* the driver refreshes the pads (cpu_tiler_config.wraps == 0) */
    const uint8_t *t = kd->table512;
    /* table (NW, N) holds the entries NW<<8 | N<<7 | e, e < 128, in two registers */
    __m512i t0l = _mm512_load_si512((const void *)(t + 0)), t0h = _mm512_load_si512((const void *)(t + 64));
    __m512i t1l = _mm512_load_si512((const void *)(t + 128)), t1h = _mm512_load_si512((const void *)(t + 192));
    __m512i t2l = _mm512_load_si512((const void *)(t + 256)), t2h = _mm512_load_si512((const void *)(t + 320));
    __m512i t3l = _mm512_load_si512((const void *)(t + 384)), t3h = _mm512_load_si512((const void *)(t + 448));
    /* vpermb pattern: byte 8 q + k of the result = byte q of lane k */
    uint8_t perm_bytes[64] __attribute__((aligned(64)));
    for (int q = 0; q < 8; q++)
        for (int k = 0; k < 8; k++) perm_bytes[8 * q + k] = (uint8_t)(8 * k + q);
    const __m512i perm = _mm512_load_si512((const void *)perm_bytes);
    /* x operand of the transpose: byte j = 1 << j, so that result byte j, bit i = bit j of
     * matrix byte 7 - i */
    const __m512i unit = _mm512_set1_epi64((long long)0x8040201008040201ull);
    uint64_t nsave[8] __attribute__((aligned(64))), nwsave[8] __attribute__((aligned(64)));
    for (size_t r = lo; r < hi; r++) {
        const uint64_t *a = in + (r - 1) * pitch, *b = in + r * pitch, *c = in + (r + 1) * pitch;
        uint64_t *o = out + r * pitch;
        /* 8 words at a time (bw is a multiple of 8): the nine planes as vectors, then an
         * 8 x 8 transpose of 64-bit lanes gives each word its own plane register */
        for (size_t i = 0; i < bw; i += 8) {
            __m512i ca, la, ra, cb, lb, rb, cc, lc, rc;
            west_east(a, i, &ca, &la, &ra);
            west_east(b, i, &cb, &lb, &rb);
            west_east(c, i, &cc, &lc, &rc);
            _mm512_store_si512((void *)nsave, ca);
            _mm512_store_si512((void *)nwsave, la);
            /* rows of the transpose: N, NE, W, C, E, SW, S, SE */
            __m512i u0 = _mm512_unpacklo_epi64(ca, ra), u1 = _mm512_unpackhi_epi64(ca, ra);
            __m512i u2 = _mm512_unpacklo_epi64(lb, cb), u3 = _mm512_unpackhi_epi64(lb, cb);
            __m512i u4 = _mm512_unpacklo_epi64(rb, lc), u5 = _mm512_unpackhi_epi64(rb, lc);
            __m512i u6 = _mm512_unpacklo_epi64(cc, rc), u7 = _mm512_unpackhi_epi64(cc, rc);
            __m512i v0 = _mm512_shuffle_i64x2(u0, u2, 0x88), v1 = _mm512_shuffle_i64x2(u0, u2, 0xDD);
            __m512i v2 = _mm512_shuffle_i64x2(u1, u3, 0x88), v3 = _mm512_shuffle_i64x2(u1, u3, 0xDD);
            __m512i v4 = _mm512_shuffle_i64x2(u4, u6, 0x88), v5 = _mm512_shuffle_i64x2(u4, u6, 0xDD);
            __m512i v6 = _mm512_shuffle_i64x2(u5, u7, 0x88), v7 = _mm512_shuffle_i64x2(u5, u7, 0xDD);
            /* w_q holds word q's eight planes; the shuffles leave the words in this order */
            __m512i w[8];
            w[0] = _mm512_shuffle_i64x2(v0, v4, 0x88);
            w[4] = _mm512_shuffle_i64x2(v0, v4, 0xDD);
            w[2] = _mm512_shuffle_i64x2(v1, v5, 0x88);
            w[6] = _mm512_shuffle_i64x2(v1, v5, 0xDD);
            w[1] = _mm512_shuffle_i64x2(v2, v6, 0x88);
            w[5] = _mm512_shuffle_i64x2(v2, v6, 0xDD);
            w[3] = _mm512_shuffle_i64x2(v3, v7, 0x88);
            w[7] = _mm512_shuffle_i64x2(v3, v7, 0xDD);
            for (int q = 0; q < 8; q++) {
                uint64_t v;
                LOOKUP64(w[q], nsave[q], nwsave[q], v);
                o[i + q] = colmask ? v & colmask[i + q] : v;
            }
        }
    }
}
