/*
 * simd_vpermb.c - the `vpermb` kernel: any rule (the full 512-entry table, so MAP and
 * non-totalistic isotropic rules too) by byte-wise table lookups in AVX-512 registers, 64
 * cells per lookup.  Also the inner loop of `best` and `avx512` for rules that are not
 * outer-totalistic.  Needs AVX-512BW, AVX-512 VBMI and GFNI (checked at run time).
 *
 * For each 64-bit word of a row (64 cells), the nine neighbourhood planes NW, N, NE, W, C,
 * E, SW, S, SE are made with scalar shifts (the west/east planes of a row are w << 1 and
 * w >> 1 with the neighbouring words' edge bits shifted in).  The index of a cell,
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
    for (size_t r = lo; r < hi; r++) {
        const uint64_t *a = in + (r - 1) * pitch, *b = in + r * pitch, *c = in + (r + 1) * pitch;
        uint64_t *o = out + r * pitch;
        for (size_t i = 0; i < bw; i++) {
            uint64_t ca = a[i], cb = b[i], cc = c[i];
            uint64_t la = (ca << 1) | (a[i - 1] >> 63), ra = (ca >> 1) | (a[i + 1] << 63);
            uint64_t lb = (cb << 1) | (b[i - 1] >> 63), rb = (cb >> 1) | (b[i + 1] << 63);
            uint64_t lc = (cc << 1) | (c[i - 1] >> 63), rc = (cc >> 1) | (c[i + 1] << 63);
            /* lane k holds the plane of index bit 7 - k: N, NE, W, C, E, SW, S, SE (built in
             * registers: eight scalar stores and a 64-byte load would stall store forwarding) */
            __m512i planes = _mm512_set_epi64((long long)rc, (long long)cc, (long long)lc,
                                              (long long)rb, (long long)cb, (long long)lb,
                                              (long long)ra, (long long)ca);
            __m512i grouped = _mm512_permutexvar_epi8(perm, planes);
            __m512i idx = _mm512_gf2p8affine_epi64_epi8(unit, grouped, 0);
            __m512i r0 = _mm512_permutex2var_epi8(t0l, idx, t0h);
            __m512i r1 = _mm512_permutex2var_epi8(t1l, idx, t1h);
            __m512i r2 = _mm512_permutex2var_epi8(t2l, idx, t2h);
            __m512i r3 = _mm512_permutex2var_epi8(t3l, idx, t3h);
            __mmask64 kn = _cvtu64_mask64(ca), knw = _cvtu64_mask64(la);
            __m512i lo_nw = _mm512_mask_blend_epi8(kn, r0, r1);
            __m512i hi_nw = _mm512_mask_blend_epi8(kn, r2, r3);
            __m512i res = _mm512_mask_blend_epi8(knw, lo_nw, hi_nw);
            uint64_t v = _cvtmask64_u64(_mm512_test_epi8_mask(res, res));
            o[i] = colmask ? v & colmask[i] : v;
        }
    }
}
