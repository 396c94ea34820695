/*
 * simd_planes.h - the cell planes of 512-bit row segments, shared by the AVX-512 kernels
 * that read all nine cells of a neighbourhood (simd_vpermb.c, simd_circuit.c).  Include
 * only from files compiled with -mavx512f.
 */
#ifndef WL_SIMD_PLANES_H
#define WL_SIMD_PLANES_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

/* The 8 words at row + i (*c) and their west / east neighbour planes (*l, *r: bit b is the
 * cell at b - 1, b + 1); the row's pads give the edge words. */
static inline void wl_simd_west_east(const uint64_t *row, size_t i, __m512i *c, __m512i *l,
                                     __m512i *r) {
    __m512i p = _mm512_load_si512((const void *)(row + i - 8));
    __m512i n = _mm512_load_si512((const void *)(row + i + 8));
    *c = _mm512_load_si512((const void *)(row + i));
    __m512i pw = _mm512_alignr_epi64(*c, p, 7), nw = _mm512_alignr_epi64(n, *c, 1);
    *l = _mm512_or_si512(_mm512_slli_epi64(*c, 1), _mm512_srli_epi64(pw, 63));
    *r = _mm512_or_si512(_mm512_srli_epi64(*c, 1), _mm512_slli_epi64(nw, 63));
}

#endif /* WL_SIMD_PLANES_H */
