/*
 * bitsliced.c - the `bitsliced` kernel: one cell per bit of 64-bit words, 64 cells updated
 * by a few dozen word-wide logic operations, and the rule circuits the SIMD kernels share.
 *
 * Counting.  For a row word w (bit i = column i), its west and east neighbour planes are
 * L = w << 1 | (previous word >> 63) and R = w >> 1 | (next word << 63).  A full adder per
 * row gives the horizontal three-cell sum (centre included) as two bit-planes
 *     s0 = L ^ w ^ R,   s1 = majority(L, w, R),        sum = s0 + 2 s1  (0..3).
 * Three such sums (rows above a, own b, below c) make the 3x3 sum c9 (0..9, centre
 * included).  Two more full adders:
 *     x0 = a0 ^ b0 ^ c0,  k0 = maj(a0, b0, c0),  q = a1 ^ b1 ^ c1,  m = maj(a1, b1, c1)
 * give c9 = x0 + 2 (k0 + q + 2 m) = x0 + 2 T with T in 0..4.  T is never materialised:
 * its one-hot planes are single logic expressions of (k0, q, m), e.g. T == 1 is
 * ~m & (q ^ k0) and T == 2 is (~m & q & k0) | (m & ~q & ~k0).
 *
 * The rule.  A cell's next state is birth[c9] if dead and survive[c9 - 1] if alive, so
 * for each T it is a function G_T(x0, alive), derived at create time from the rule's
 * birth/survive masks (cpu_circuit_build) and evaluated as mask logic:
 *     next = OR over active T of  e_T & (alive ? (x0 & p1) ^ q1 : (x0 & p0) ^ q0)
 * where p/q are all-zero or all-one words (the 2 x 10 entry truth table turned into
 * masks).  B3/S23 uses the reduced form  next = x0 & (T==1) | alive & ~x0 & (T==2).
 * Rules that are not outer-totalistic cannot be written this way; the engine runs them
 * with the vpermb or lut6x3 kernel instead (cpu_engine.c says so in verbose mode).
 *
 * Loop order: a strip of one word column is walked down the rows, so that each row's
 * horizontal sum is computed once and kept in registers for the three output rows that
 * use it.  Horizontal wrap and halo are the tile driver's business (tile.c); this file
 * only reads the words before and after each row.
 */
#include "cpu_internal.h"

/* Rows one word strip walks before the next strip starts (so that the eight strips sharing
 * a cache line find it in L1). */
#define ROW_BLOCK 32

int cpu_circuit_build(const wl_rule *r, cpu_circuit *c) {
    uint16_t birth, survive;
    if (!wl_rule_is_totalistic(r, &birth, &survive)) return 0;
    *c = (cpu_circuit){0};
    c->life = birth == (1u << 3) && survive == ((1u << 2) | (1u << 3));
    int slot = 0;
#define MATCH(name, b, s)                                                                   \
    slot++;                                                                                 \
    if (birth == (b) && survive == (s)) c->popular = slot;
    CPU_POPULAR_RULES(MATCH)
#undef MATCH
    for (int t = 0; t <= 4; t++) {
        int v[2][2]; /* v[alive][x0] */
        for (int x0 = 0; x0 < 2; x0++) {
            int c9 = 2 * t + x0;
            v[0][x0] = c9 <= 8 ? (birth >> c9) & 1 : 0;
            v[1][x0] = (c9 >= 1 && c9 <= 9) ? (survive >> (c9 - 1)) & 1 : 0;
        }
        c->p0[t] = (v[0][0] ^ v[0][1]) ? ~(uint64_t)0 : 0;
        c->q0[t] = v[0][0] ? ~(uint64_t)0 : 0;
        c->p1[t] = (v[1][0] ^ v[1][1]) ? ~(uint64_t)0 : 0;
        c->q1[t] = v[1][0] ? ~(uint64_t)0 : 0;
        c->active[t] = v[0][0] | v[0][1] | v[1][0] | v[1][1];
    }
    return 1;
}

/* life: c->life, passed as a literal by the caller so that the branch folds away. */
static inline uint64_t next_state(const cpu_circuit *c, int life, uint64_t x0, uint64_t k0,
                                  uint64_t q, uint64_t m, uint64_t alive) {
    if (life) {
        uint64_t t1 = ~m & (q ^ k0);
        uint64_t t2 = (~m & q & k0) | (m & ~(q | k0));
        return (x0 & t1) | (alive & ~x0 & t2);
    }
    uint64_t e[5];
    e[0] = ~(m | q | k0);
    e[1] = ~m & (q ^ k0);
    e[2] = (~m & q & k0) | (m & ~(q | k0));
    e[3] = m & (q ^ k0);
    e[4] = m & q & k0;
    uint64_t out = 0;
    for (int t = 0; t <= 4; t++) {
        if (!c->active[t]) continue;
        uint64_t g0 = (x0 & c->p0[t]) ^ c->q0[t], g1 = (x0 & c->p1[t]) ^ c->q1[t];
        out |= e[t] & ((alive & g1) | (~alive & g0));
    }
    return out;
}

/* Horizontal three-cell sum of word i of a row as planes s0, s1. */
static inline void hsum(const uint64_t *row, size_t i, uint64_t *s0, uint64_t *s1) {
    uint64_t w = row[i];
    uint64_t l = (w << 1) | (row[i - 1] >> 63), r = (w >> 1) | (row[i + 1] << 63);
    uint64_t lw = l ^ w;
    *s0 = lw ^ r;
    *s1 = (l & w) | (r & lw);
}

/* The row loop; `life` is a literal at both call sites below, so each inlined copy has its
 * rule evaluation specialised (Life's circuit, or the general table) with no branch inside. */
static inline void gen_rows(const uint64_t *in, uint64_t *out, size_t pitch, size_t bw,
                            size_t lo, size_t hi, const uint64_t *colmask, const cpu_circuit *c,
                            const int life) {
    for (size_t rb = lo; rb < hi; rb += ROW_BLOCK)
    for (size_t i = 0; i < bw; i++) {
        size_t rend = hi - rb < ROW_BLOCK ? hi : rb + ROW_BLOCK;
        uint64_t cm = colmask ? colmask[i] : ~(uint64_t)0;
        uint64_t a0, a1, b0, b1, c0, c1;
        hsum(in + (rb - 1) * pitch, i, &a0, &a1);
        hsum(in + rb * pitch, i, &b0, &b1);
        for (size_t r = rb; r < rend; r++) {
            hsum(in + (r + 1) * pitch, i, &c0, &c1);
            uint64_t x0 = a0 ^ b0 ^ c0, k0 = (a0 & b0) | (c0 & (a0 ^ b0));
            uint64_t q = a1 ^ b1 ^ c1, m = (a1 & b1) | (c1 & (a1 ^ b1));
            out[r * pitch + i] = next_state(c, life, x0, k0, q, m, in[r * pitch + i]) & cm;
            a0 = b0, a1 = b1, b0 = c0, b1 = c1;
        }
    }
}

void cpu_gen_rows_bitsliced(const uint64_t *in, uint64_t *out, size_t pitch, size_t bw,
                            size_t lo, size_t hi, int wrap, const uint64_t *colmask,
                            const cpu_kernel_data *kd) {
    (void)wrap; /* the driver refreshes the pads (cpu_tiler_config.wraps == 0) */
    if (kd->circ.life) gen_rows(in, out, pitch, bw, lo, hi, colmask, &kd->circ, 1);
    else gen_rows(in, out, pitch, bw, lo, hi, colmask, &kd->circ, 0);
}
