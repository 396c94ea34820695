/*
 * hl_leaf.c - HashLife's base case: a 16x16 square (four 8x8 leaves) advanced 1, 2 or 4
 * generations, of which the centre 8x8 is returned.
 *
 * Layout.  The 16x16 square is held in four uint64_t words, w[i] holding rows 4i..4i+3,
 * row r in bits 16*(r % 4) .. 16*(r % 4) + 15, bit 16*(r % 4) + x being column x.  The row
 * above a word's rows is (w[i] << 16) | (w[i-1] >> 48), the row below
 * (w[i] >> 16) | (w[i+1] << 48); the west neighbour of column x is bit x of (row << 1), the
 * east one bit x of (row >> 1).  Those shifts let bits cross from one 16-bit row into the
 * next at columns 0 and 15, and the rows above row 0 and below row 15 read as dead: all of
 * that garbage stays in the outer ring, which is invalid after one generation anyway (each
 * generation the valid square shrinks by one cell on every side, so after 4 generations
 * exactly the centre 8x8 is right).  No halo and no masks are needed.
 *
 * Logic.  Outer-totalistic rules add the eight neighbour planes with a bitsliced adder
 * (three rows of horizontal sums of 3, 2 and 3 cells, then a carry-save tree) into four
 * count planes s0..s3; B3/S23 is then s1 & ~s2 & ~s3 & (s0 | alive), and any other
 * totalistic rule ORs one minterm per count its B and S lists name.  That is about 40 word
 * operations per generation for 64 cells.  Other rules (Hensel, MAP, the hexagonal and
 * von Neumann neighbourhoods) look 2x2 cells at a time up in a 64 KiB table of 4x4 blocks
 * (hl_leaf_table_init): 64 lookups a generation for the 256 cells.  (They used to look
 * each cell's 9-bit neighbourhood up in the rule's 512-entry table, nine bounds-checked
 * reads a cell: 94% of a Hensel Generations run on one thread.)
 */
#include "hl_internal.h"

#include <stdlib.h>

/* Spreads the 4 bytes of x into the low bytes of four 16-bit lanes. */
static inline uint64_t spread_bytes(uint64_t x) {
    x &= 0xFFFFFFFFull;
    x = (x | (x << 16)) & 0x0000FFFF0000FFFFull;
    return (x | (x << 8)) & 0x00FF00FF00FF00FFull;
}

/* Gathers the low bytes of four 16-bit lanes into 4 bytes (the inverse of spread_bytes). */
static inline uint64_t gather_bytes(uint64_t x) {
    x &= 0x00FF00FF00FF00FFull;
    x = (x | (x >> 8)) & 0x0000FFFF0000FFFFull;
    return (x | (x >> 16)) & 0xFFFFFFFFull;
}

/* w[i] = rows 4i..4i+3: the west leaf's byte in the low half of each lane, the east's in
 * the high half. */
void hl_square_assemble(uint64_t nw, uint64_t ne, uint64_t sw, uint64_t se, uint64_t w[4]) {
    w[0] = spread_bytes(nw) | spread_bytes(ne) << 8;
    w[1] = spread_bytes(nw >> 32) | spread_bytes(ne >> 32) << 8;
    w[2] = spread_bytes(sw) | spread_bytes(se) << 8;
    w[3] = spread_bytes(sw >> 32) | spread_bytes(se >> 32) << 8;
}

/* Rows 4..11, columns 4..11 of the square as leaf bits. */
uint64_t hl_square_centre(const uint64_t w[4]) {
    return gather_bytes(w[1] >> 4) | gather_bytes(w[2] >> 4) << 32;
}

/* One generation of an outer-totalistic rule on the 4-word square, the four words as one
 * vector (hl_v4): the rows above a word's are the word shifted a row down with the last
 * row of the word before (a lane shuffle), those below likewise. */
static inline __attribute__((always_inline)) void gen_totalistic(const hl_ctx *h,
                                                                  uint64_t w[4]) {
    const hl_v4 zero = {0, 0, 0, 0}, mid = HL_V4(w);
    const hl_v4 before = __builtin_shufflevector(mid, zero, 4, 0, 1, 2); /* w[i - 1] */
    const hl_v4 after = __builtin_shufflevector(mid, zero, 1, 2, 3, 4);  /* w[i + 1] */
    const hl_v4 up = (mid << 16) | (before >> 48), dn = (mid >> 16) | (after << 48);
    /* horizontal sums: up and down rows count 3 cells, the middle row 2 */
    const hl_v4 ul = up << 1, ur = up >> 1;
    const hl_v4 u0 = ul ^ up ^ ur, u1 = (ul & up) | (ur & (ul ^ up));
    const hl_v4 dl = dn << 1, dr = dn >> 1;
    const hl_v4 d0 = dl ^ dn ^ dr, d1 = (dl & dn) | (dr & (dl ^ dn));
    const hl_v4 ml = mid << 1, mr = mid >> 1;
    const hl_v4 m0 = ml ^ mr, m1 = ml & mr;
    /* weight 1 */
    const hl_v4 s0 = u0 ^ d0 ^ m0, c1 = (u0 & d0) | (m0 & (u0 ^ d0));
    /* weight 2: u1 + d1 + m1 + c1 */
    const hl_v4 t0 = u1 ^ d1 ^ m1, t1 = (u1 & d1) | (m1 & (u1 ^ d1));
    const hl_v4 s1 = t0 ^ c1, k = t0 & c1;
    const hl_v4 s2 = t1 ^ k, s3 = t1 & k;
    hl_v4 next;
    if (h->life) {
        next = s1 & ~s2 & ~s3 & (s0 | mid);
    } else {
        next = zero;
        for (int n = 0; n <= 8; n++) {
            int b = h->birth >> n & 1, s = h->survive >> n & 1;
            if (!b && !s) continue;
            /* (x ^ all: x inverted; the vector types allow no ?: between them) */
            const hl_v4 all = ~zero;
            const hl_v4 eq = (s0 ^ (n & 1 ? zero : all)) & (s1 ^ (n & 2 ? zero : all)) &
                             (s2 ^ (n & 4 ? zero : all)) & (s3 ^ (n & 8 ? zero : all));
            next |= eq & (b && s ? all : b ? ~mid : mid);
        }
    }
    HL_V4(w) = next;
}

/* The leaf table of a rule that is not outer-totalistic (Hensel, MAP, and the hexagonal
 * and von Neumann neighbourhoods, which are Moore tables): entry q, a 4x4 block of cells
 * (bit 4 r + c of q: row r, column c), gives the next generation of its centre 2x2 (bit
 * 2 r + c: row r + 1, column c + 1). */
wl_status hl_leaf_table_init(hl_ctx *h) {
    uint8_t *t = malloc(65536);
    if (!t) return wl_error(WL_ERR_NOMEM, "hashlife: out of memory (leaf table)");
    /* first a 4x3 block (three rows of four cells, bit 4 r + c) -> the next generation of
     * its middle row's columns 1 and 2; a 4x4 block is two of them.  The 3x3 block around
     * a cell as rule.c's index NW<<8 | N<<7 | NE<<6 | W<<5 | C<<4 | E<<3 | SW<<2 | S<<1 |
     * SE: each row's three cells west first, so a row's bits (west = bit 0) reversed. */
    static const uint8_t rev3[8] = {0, 4, 2, 6, 1, 5, 3, 7};
    uint8_t pair[4096];
    for (unsigned q = 0; q < 4096; q++) {
        unsigned v = 0;
        for (unsigned c = 0; c < 2; c++) {
            const unsigned idx = (unsigned)rev3[q >> c & 7u] << 6 |
                                 (unsigned)rev3[q >> (4 + c) & 7u] << 3 | rev3[q >> (8 + c) & 7u];
            v |= (unsigned)wl_rule_next(&h->step_rule, idx) << c;
        }
        pair[q] = (uint8_t)v;
    }
    for (unsigned q = 0; q < 65536; q++) t[q] = (uint8_t)(pair[q & 0xFFFu] | pair[q >> 4] << 2);
    h->leaf_table = t;
    return WL_OK;
}

/* One generation of any rule by the leaf table, 2x2 cells a lookup.  Row r of the square,
 * shifted up one column (so that column -1 is bit 0 and reads dead, as does column 16),
 * gives a block's four columns x - 1 .. x + 2 as (row >> x) & 15; rows -1 and 16 read
 * dead.  Every cell of the square is computed (the outer ring wrongly, as in the
 * totalistic step: it is dropped). */
static void gen_table(const hl_ctx *h, uint64_t w[4]) {
    const uint8_t *t = h->leaf_table;
    uint32_t row[18]; /* row[r + 1] = row r << 1 */
    row[0] = row[17] = 0;
    for (int r = 0; r < 16; r++) row[r + 1] = (uint32_t)(w[r >> 2] >> (16 * (r & 3)) & 0xFFFFu) << 1;
    uint64_t out[4] = {0, 0, 0, 0};
    for (int y = 0; y < 16; y += 2) {
        const uint32_t a = row[y], b = row[y + 1], c = row[y + 2], d = row[y + 3];
        uint64_t o0 = 0, o1 = 0;
        for (int x = 0; x < 16; x += 2) {
            unsigned q = (a >> x & 15u) | (b >> x & 15u) << 4 | (c >> x & 15u) << 8 |
                         (d >> x & 15u) << 12;
            unsigned v = t[q];
            o0 |= (uint64_t)(v & 3u) << x;
            o1 |= (uint64_t)(v >> 2) << x;
        }
        out[y >> 2] |= o0 << (16 * (y & 3)) | o1 << (16 * ((y & 3) + 1));
    }
    for (int i = 0; i < 4; i++) w[i] = out[i];
}

void hl_square_gen(const hl_ctx *h, uint64_t w[4]) {
    if (h->totalistic)
        gen_totalistic(h, w);
    else
        gen_table(h, w);
}

/* The base case of an outer-totalistic rule, compiled for the machine's vectors (the four
 * words are one 256-bit vector; with SSE2 alone two halves, twice the operations, and
 * AVX-512VL merges each two-operation boolean into one ternary-logic instruction).  On the
 * dev VM (Zen 5) gen_totalistic was 7% of breeder.lif to 2^40 on one thread, SSE2 only. */
#define HL_TOTALISTIC_STEP(name, attr)                                                      \
    attr static uint64_t name(const hl_ctx *h, uint64_t nw, uint64_t ne, uint64_t sw,       \
                              uint64_t se, int gens) {                                      \
        uint64_t w[4];                                                                      \
        hl_square_assemble(nw, ne, sw, se, w);                                              \
        for (int g = 0; g < gens; g++) gen_totalistic(h, w);                                \
        return hl_square_centre(w);                                                         \
    }
HL_TOTALISTIC_STEP(step_totalistic, )
#if defined(__x86_64__) && defined(__GNUC__)
#define HL_LEAF_X86 1
HL_TOTALISTIC_STEP(step_totalistic_avx2, __attribute__((target("avx2"))))
HL_TOTALISTIC_STEP(step_totalistic_avx512, __attribute__((target("avx512f,avx512vl"))))
#endif

/* Whether the machine runs compiled form `isa` (0 portable, 1 AVX2, 2 AVX-512VL). */
static int isa_runs(int isa) {
    switch (isa) {
    case 0: return 1;
#ifdef HL_LEAF_X86
    case 1: return wl_cpu_has(WL_CPU_AVX2);
    case 2: return wl_cpu_has(WL_CPU_AVX512F | WL_CPU_AVX512VL);
#endif
    default: return 0;
    }
}

/* hl_leaf_step of an outer-totalistic rule by form `isa`, which the machine runs. */
static uint64_t step_isa(const hl_ctx *h, int isa, uint64_t nw, uint64_t ne, uint64_t sw,
                         uint64_t se, int gens) {
#ifdef HL_LEAF_X86
    if (isa == 2) return step_totalistic_avx512(h, nw, ne, sw, se, gens);
    if (isa == 1) return step_totalistic_avx2(h, nw, ne, sw, se, gens);
#endif
    (void)isa;
    return step_totalistic(h, nw, ne, sw, se, gens);
}

int hl_leaf_step_isa(const hl_ctx *h, int isa, uint64_t nw, uint64_t ne, uint64_t sw,
                     uint64_t se, int gens, uint64_t *out) {
    if (!isa_runs(isa)) return 0;
    *out = step_isa(h, isa, nw, ne, sw, se, gens);
    return 1;
}

int hl_leaf_best_isa(void) {
    int isa = 2;
    while (!isa_runs(isa)) isa--;
    return isa;
}

uint64_t hl_leaf_step(const hl_ctx *h, uint64_t nw, uint64_t ne, uint64_t sw, uint64_t se,
                      int gens) {
    if (h->totalistic) /* (the form the context chose once: hl_leaf_best_isa) */
        return step_isa(h, h->leaf_isa, nw, ne, sw, se, gens);
    uint64_t w[4];
    hl_square_assemble(nw, ne, sw, se, w);
    for (int g = 0; g < gens; g++) gen_table(h, w);
    return hl_square_centre(w);
}

uint64_t hl_leaf_centre(uint64_t nw, uint64_t ne, uint64_t sw, uint64_t se) {
    /* rows 4..7 of the top leaves become rows 0..3, rows 0..3 of the bottom ones rows
     * 4..7; in each row, columns 4..7 of the west leaf then columns 0..3 of the east one */
    uint64_t top = ((nw >> 36) & 0x0F0F0F0Full) | (((ne >> 32) << 4) & 0xF0F0F0F0ull);
    uint64_t bot = (((sw << 32) >> 4) & 0x0F0F0F0F00000000ull) |
                   ((se << 36) & 0xF0F0F0F000000000ull);
    return top | bot;
}
