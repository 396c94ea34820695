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
#include "simd_planes.h"

#include <immintrin.h>
#include <stdlib.h>

int cpu_vpermb_available(void) {
    return wl_cpu_has(WL_CPU_AVX512BW | WL_CPU_AVX512VBMI | WL_CPU_GFNI512);
}

uint8_t *cpu_vpermb_table_build(const wl_rule *r) {
    uint8_t *t = wl_aligned_alloc(512);
    if (!t) return NULL;
    for (unsigned i = 0; i < 512; i++) t[i] = (uint8_t)wl_rule_next(r, i);
    return t;
}

/* The rule table in registers and the constants of the bit transpose. */
typedef struct vp_tables {
    /* table (NW, N) holds the entries NW<<8 | N<<7 | e, e < 128, in two registers */
    __m512i t0l, t0h, t1l, t1h, t2l, t2h, t3l, t3h;
    __m512i perm; /* vpermb pattern: byte 8 q + k of the result = byte q of lane k */
    /* x operand of the transpose: byte j = 1 << j, so that result byte j, bit i = bit j of
     * matrix byte 7 - i */
    __m512i unit;
} vp_tables;

static inline void vp_tables_load(vp_tables *v, const uint8_t *t) {
    v->t0l = _mm512_load_si512((const void *)(t + 0));
    v->t0h = _mm512_load_si512((const void *)(t + 64));
    v->t1l = _mm512_load_si512((const void *)(t + 128));
    v->t1h = _mm512_load_si512((const void *)(t + 192));
    v->t2l = _mm512_load_si512((const void *)(t + 256));
    v->t2h = _mm512_load_si512((const void *)(t + 320));
    v->t3l = _mm512_load_si512((const void *)(t + 384));
    v->t3h = _mm512_load_si512((const void *)(t + 448));
    uint8_t perm_bytes[64] __attribute__((aligned(64)));
    for (int q = 0; q < 8; q++)
        for (int k = 0; k < 8; k++) perm_bytes[8 * q + k] = (uint8_t)(8 * k + q);
    v->perm = _mm512_load_si512((const void *)perm_bytes);
    v->unit = _mm512_set1_epi64((long long)0x8040201008040201ull);
}

/* The lookup of one word's 64 cells from its plane register (lanes N, NE, W, C, E, SW, S,
 * SE) and the N and NW plane words. */
static inline uint64_t lookup64(const vp_tables *v, __m512i planes, uint64_t nword,
                                uint64_t nwword) {
    __m512i grouped = _mm512_permutexvar_epi8(v->perm, planes);
    __m512i idx = _mm512_gf2p8affine_epi64_epi8(v->unit, grouped, 0);
    __m512i r0 = _mm512_permutex2var_epi8(v->t0l, idx, v->t0h);
    __m512i r1 = _mm512_permutex2var_epi8(v->t1l, idx, v->t1h);
    __m512i r2 = _mm512_permutex2var_epi8(v->t2l, idx, v->t2h);
    __m512i r3 = _mm512_permutex2var_epi8(v->t3l, idx, v->t3h);
    __mmask64 kn = _cvtu64_mask64(nword), knw = _cvtu64_mask64(nwword);
    __m512i lo = _mm512_mask_blend_epi8(kn, r0, r1);
    __m512i hi = _mm512_mask_blend_epi8(kn, r2, r3);
    __m512i res = _mm512_mask_blend_epi8(knw, lo, hi);
    return _cvtmask64_u64(_mm512_test_epi8_mask(res, res));
}

/* The next states of 8 words from their nine neighbourhood planes, as vectors of the 8
 * words: west neighbour (l), cell (c) and east neighbour (r) of the row above (a), the
 * row itself (b) and the row below (c).  An 8 x 8 transpose of 64-bit lanes gives each
 * word a register holding its eight planes N .. SE. */
static inline void lookup8(const vp_tables *v, __m512i la, __m512i ca, __m512i ra, __m512i lb,
                           __m512i cb, __m512i rb, __m512i lc, __m512i cc, __m512i rc,
                           uint64_t out[8]) {
    uint64_t nsave[8] __attribute__((aligned(64))), nwsave[8] __attribute__((aligned(64)));
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
    for (int q = 0; q < 8; q++) out[q] = lookup64(v, w[q], nsave[q], nwsave[q]);
}

void cpu_gen_rows_vpermb(const uint64_t *in, uint64_t *out, size_t pitch, size_t bw,
                         size_t lo, size_t hi, int wrap, const uint64_t *colmask,
                         const cpu_kernel_data *kd) {
    (void)wrap; /* the driver refreshes the pads (cpu_tiler_config.wraps == 0) */
    vp_tables v;
    vp_tables_load(&v, kd->table512);
    for (size_t r = lo; r < hi; r++) {
        const uint64_t *a = in + (r - 1) * pitch, *b = in + r * pitch, *c = in + (r + 1) * pitch;
        uint64_t *o = out + r * pitch;
        /* 8 words at a time (bw is a multiple of 8): the nine planes as vectors */
        for (size_t i = 0; i < bw; i += 8) {
            __m512i ca, la, ra, cb, lb, rb, cc, lc, rc;
            wl_simd_west_east(a, i, &ca, &la, &ra);
            wl_simd_west_east(b, i, &cb, &lb, &rb);
            wl_simd_west_east(c, i, &cc, &lc, &rc);
            uint64_t v8[8];
            lookup8(&v, la, ca, ra, lb, cb, rb, lc, cc, rc, v8);
            for (int q = 0; q < 8; q++) o[i + q] = colmask ? v8[q] & colmask[i + q] : v8[q];
        }
    }
}

/* The tile kernel (see simd_avx512.c's tile essay for the layout): the nine planes of a
 * brick from the brick, the bricks above and below it (lane shifts) and the west and east
 * tiles' same rows (shifts by one bit), then the lookups of lookup8. */
static inline __m512i brick(const uint64_t *const *in, int col, int k) {
    static const int up[3] = {WL_NB_NW, WL_NB_N, WL_NB_NE}, down[3] = {WL_NB_SW, WL_NB_S, WL_NB_SE},
                     same[3] = {WL_NB_W, WL_NB_C, WL_NB_E};
    const uint64_t *p = k < 0 ? in[up[col]] + 56 : k > 7 ? in[down[col]] : in[same[col]] + 8 * k;
    return _mm512_load_si512((const void *)p);
}

void cpu_tile_vpermb(wl_tile_job *job, const cpu_kernel_data *kd) {
    vp_tables v;
    vp_tables_load(&v, kd->table512);
    uint64_t chg = 0, chg_w = 0, chg_e = 0;
    unsigned live = 0;
    const __m512i col0 = _mm512_set1_epi64(1), col63 = _mm512_set1_epi64(INT64_MIN);
    for (unsigned bm = job->bricks & 0xFF; bm; bm &= bm - 1) {
        int b = __builtin_ctz(bm);
        __m512i row[3][3]; /* [above, at, below][west tile, tile, east tile] */
        for (int col = 0; col < 3; col++) {
            __m512i p = brick(job->in, col, b - 1), x = brick(job->in, col, b);
            __m512i n = brick(job->in, col, b + 1);
            row[0][col] = _mm512_alignr_epi64(x, p, 7);
            row[1][col] = x;
            row[2][col] = _mm512_alignr_epi64(n, x, 1);
        }
        __m512i l[3], r[3];
        for (int i = 0; i < 3; i++) {
            l[i] = _mm512_or_si512(_mm512_slli_epi64(row[i][1], 1), _mm512_srli_epi64(row[i][0], 63));
            r[i] = _mm512_or_si512(_mm512_srli_epi64(row[i][1], 1), _mm512_slli_epi64(row[i][2], 63));
        }
        uint64_t w8[8] __attribute__((aligned(64)));
        lookup8(&v, l[0], row[0][1], r[0], l[1], row[1][1], r[1], l[2], row[2][1], r[2], w8);
        __m512i next = _mm512_load_si512((const void *)w8);
        __m512i d = _mm512_xor_si512(next, _mm512_load_si512((const void *)(job->out + 8 * b)));
        _mm512_store_si512((void *)(job->out + 8 * b), next);
        chg |= (uint64_t)_mm512_test_epi64_mask(d, d) << (8 * b);
        chg_w |= (uint64_t)_mm512_test_epi64_mask(d, col0) << (8 * b);
        chg_e |= (uint64_t)_mm512_test_epi64_mask(d, col63) << (8 * b);
        live |= (unsigned)(_mm512_test_epi64_mask(next, next) != 0) << b;
    }
    job->chg = chg;
    job->chg_w = chg_w;
    job->chg_e = chg_e;
    job->live = live;
}
