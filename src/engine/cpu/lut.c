/*
 * lut.c - the table kernels `lut6x3` and `lut4x4`: bit per cell, the next state of a
 * small block read from a table indexed by the block's neighbourhood.  Any rule (the
 * tables are built from the rule's 512-entry table at create time), which is why the
 * bit-sliced kernels fall back to lut6x3 (the faster of the two) for rules that are not
 * outer-totalistic when the CPU lacks the vpermb kernel's instructions.
 *
 * Window.  For word i of a row (bit b = column 64 i + b) the kernels build the
 * west-extended word ext = cur << 1 | prev >> 63, whose bit k is the cell in column
 * 64 i - 1 + k, so the window of columns 64 i + c - 1 on is simply ext >> c; the last
 * window of each word, which reaches into the next word, is assembled separately.
 *
 * lut6x3: an 18-bit index holds six columns (x - 1 .. x + 4) of the rows above, at and
 * below the cell (bits 0-5, 6-11, 12-17; bit j of each six = column x - 1 + j); its table
 * entry (2^18 bytes, low nibble) is the next state of the four middle cells x .. x + 3.
 * Two lookups make a byte of the output row.
 *
 * lut4x4: a 16-bit index holds a 4 x 4 block (rows r - 1 .. r + 2 in bits 0-3 .. 12-15,
 * bit j of a row = column x - 1 + j); its entry (65536 bytes) is the next state of the
 * middle 2 x 2 block (bit 0 = (x, r), 1 = (x + 1, r), 2 = (x, r + 1), 3 = (x + 1, r + 1)).
 * Each lookup gives four cells, two output rows at once.  An odd last row uses the top
 * half of the block only (which does not depend on the block's bottom row).
 *
 * Both tables fit in L2 (256 KiB) or L1/L2 (64 KiB); the kernels are memory-latency bound
 * on table lookups, which is the point of comparing them with the bit-sliced kernels.
 */
#include "cpu_internal.h"

#include <stdlib.h>

/* The 3x3 neighbourhood index of the cell at column c of three rows given as bit masks
 * (bit j = column j); column c - 1 .. c + 1 must be present. */
static unsigned nb_index(unsigned top, unsigned mid, unsigned bot, unsigned c) {
    unsigned t = (top >> (c - 1)) & 7, m = (mid >> (c - 1)) & 7, b = (bot >> (c - 1)) & 7;
    /* bit 0 of each triple is the west cell: NW<<8 | N<<7 | NE<<6 ... */
    unsigned idx = 0;
    idx |= (t & 1) << 8 | ((t >> 1) & 1) << 7 | ((t >> 2) & 1) << 6;
    idx |= (m & 1) << 5 | ((m >> 1) & 1) << 4 | ((m >> 2) & 1) << 3;
    idx |= (b & 1) << 2 | ((b >> 1) & 1) << 1 | ((b >> 2) & 1);
    return idx;
}

uint8_t *cpu_lut6x3_build(const wl_rule *r) {
    uint8_t *t = wl_malloc((size_t)1 << 18);
    if (!t) return NULL;
    for (unsigned i = 0; i < (1u << 18); i++) {
        unsigned top = i & 63, mid = (i >> 6) & 63, bot = (i >> 12) & 63, v = 0;
        for (unsigned j = 0; j < 4; j++)
            v |= (unsigned)wl_rule_next(r, nb_index(top, mid, bot, j + 1)) << j;
        t[i] = (uint8_t)v;
    }
    return t;
}

uint8_t *cpu_lut4x4_build(const wl_rule *r) {
    uint8_t *t = wl_malloc((size_t)1 << 16);
    if (!t) return NULL;
    for (unsigned i = 0; i < (1u << 16); i++) {
        unsigned r0 = i & 15, r1 = (i >> 4) & 15, r2 = (i >> 8) & 15, r3 = (i >> 12) & 15;
        unsigned v = (unsigned)wl_rule_next(r, nb_index(r0, r1, r2, 1));
        v |= (unsigned)wl_rule_next(r, nb_index(r0, r1, r2, 2)) << 1;
        v |= (unsigned)wl_rule_next(r, nb_index(r1, r2, r3, 1)) << 2;
        v |= (unsigned)wl_rule_next(r, nb_index(r1, r2, r3, 2)) << 3;
        t[i] = (uint8_t)v;
    }
    return t;
}

/* The west-extended word of a row: bit k = column 64 i - 1 + k (k = 0..63). */
static inline uint64_t west_ext(const uint64_t *row, size_t i) {
    return (row[i] << 1) | (row[i - 1] >> 63);
}
/* Columns 64 i + 59 .. 64 i + 64 in bits 0..5 (the last window of a word). */
static inline unsigned tail6(const uint64_t *row, size_t i) {
    return (unsigned)(((row[i] >> 59) | (row[i + 1] << 5)) & 63);
}

void cpu_gen_rows_lut6x3(const uint64_t *in, uint64_t *out, size_t pitch, size_t bw,
                         size_t lo, size_t hi, int wrap, const uint64_t *colmask,
                         const cpu_kernel_data *kd) {
    (void)wrap; /* the driver refreshes the pads (cpu_tiler_config.wraps == 0) */
    const uint8_t *t = kd->lut6x3;
    for (size_t r = lo; r < hi; r++) {
        const uint64_t *a = in + (r - 1) * pitch, *b = in + r * pitch, *c = in + (r + 1) * pitch;
        uint64_t *o = out + r * pitch;
        for (size_t i = 0; i < bw; i++) {
            uint64_t wa = west_ext(a, i), wb = west_ext(b, i), wc = west_ext(c, i);
            uint64_t v = 0;
            /* cells 64 i + j .. + 3 need columns j - 1 .. j + 4: bits j .. j + 5 */
            for (unsigned j = 0; j <= 56; j += 4) {
                unsigned idx = (unsigned)((wa >> j) & 63) | (unsigned)((wb >> j) & 63) << 6 |
                               (unsigned)((wc >> j) & 63) << 12;
                v |= (uint64_t)t[idx] << j;
            }
            unsigned idx = tail6(a, i) | tail6(b, i) << 6 | tail6(c, i) << 12;
            v |= (uint64_t)t[idx] << 60;
            o[i] = colmask ? v & colmask[i] : v;
        }
    }
}

/* Columns 64 i + 61 .. 64 i + 64 in bits 0..3. */
static inline unsigned tail4(const uint64_t *row, size_t i) {
    return (unsigned)(((row[i] >> 61) | (row[i + 1] << 3)) & 15);
}

void cpu_gen_rows_lut4x4(const uint64_t *in, uint64_t *out, size_t pitch, size_t bw,
                         size_t lo, size_t hi, int wrap, const uint64_t *colmask,
                         const cpu_kernel_data *kd) {
    (void)wrap; /* the driver refreshes the pads (cpu_tiler_config.wraps == 0) */
    const uint8_t *t = kd->lut4x4;
    for (size_t r = lo; r < hi; r += 2) {
        int pair = r + 1 < hi;
        const uint64_t *r0 = in + (r - 1) * pitch, *r1 = in + r * pitch, *r2 = in + (r + 1) * pitch;
        const uint64_t *r3 = pair ? in + (r + 2) * pitch : r2;
        uint64_t *o0 = out + r * pitch, *o1 = out + (r + 1) * pitch;
        for (size_t i = 0; i < bw; i++) {
            uint64_t w0 = west_ext(r0, i), w1 = west_ext(r1, i), w2 = west_ext(r2, i),
                     w3 = west_ext(r3, i);
            uint64_t v0 = 0, v1 = 0;
            /* cells 64 i + j, + 1 need columns j - 1 .. j + 2: bits j .. j + 3 */
            for (unsigned j = 0; j <= 60; j += 2) {
                unsigned idx = (unsigned)((w0 >> j) & 15) | (unsigned)((w1 >> j) & 15) << 4 |
                               (unsigned)((w2 >> j) & 15) << 8 | (unsigned)((w3 >> j) & 15) << 12;
                unsigned e = t[idx];
                v0 |= (uint64_t)(e & 3) << j;
                v1 |= (uint64_t)(e >> 2) << j;
            }
            unsigned idx = tail4(r0, i) | tail4(r1, i) << 4 | tail4(r2, i) << 8 | tail4(r3, i) << 12;
            unsigned e = t[idx];
            v0 |= (uint64_t)(e & 3) << 62;
            v1 |= (uint64_t)(e >> 2) << 62;
            uint64_t m = colmask ? colmask[i] : ~(uint64_t)0;
            o0[i] = v0 & m;
            if (pair) o1[i] = v1 & m;
        }
    }
}
