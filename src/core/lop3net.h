/*
 * lop3net.h - small networks of 3-input logic gates (NVIDIA LOP3, OpenCL bitselect-style
 * expressions) that compute the next state of an outer-totalistic rule from the bitsliced
 * partial sums the GPU kernels already have.
 *
 * The kernels hold, per word of cells, five signals (one bit per cell):
 *   x0, k   = XOR3 and majority of the three rows' horizontal "sum" bits s_j,
 *   y1, y2  = XOR3 and majority of the three rows' horizontal "carry" bits c_j,
 *   ctr     = the cell itself,
 * so that the 9-cell total is T = x0 + 2*(k + y1) + 4*y2 and the neighbour count is T - ctr.
 * A network here maps (x0, k, y1, y2, ctr) to the next state with as few gates as it finds.
 * The algorithm is described at the top of lop3net.c.
 */
#ifndef WL_LOP3NET_H
#define WL_LOP3NET_H

#include "warplife.h" /* wl_status */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Signal numbers of the five inputs; gate i of a network is signal WL_LOP3_INPUTS + i. */
enum { WL_LOP3_X0, WL_LOP3_K, WL_LOP3_Y1, WL_LOP3_Y2, WL_LOP3_CTR, WL_LOP3_INPUTS };

/* Constant signals (usable as a gate input or as a network's output). */
#define WL_LOP3_ZERO (-1)
#define WL_LOP3_ONES (-2)

/* Most gates a network holds (the structured fallback needs at most 7). */
#define WL_LOP3_MAX_GATES 8

/* One gate: the result is bit (4*a + 2*b + c) of lut, bitwise over the words, where a, b, c
 * are signal numbers (inputs 0..4, earlier gates, or the constants) - exactly PTX
 * lop3.b32 d, a, b, c, lut. */
typedef struct wl_lop3_gate {
    int8_t a, b, c;
    uint8_t lut;
} wl_lop3_gate;

/* A network of n gates, gate i being signal WL_LOP3_INPUTS + i and reading only earlier
 * signals; `out` is the signal (an input, a gate, or a constant) that is the next state. */
typedef struct wl_lop3_net {
    int n;
    wl_lop3_gate g[WL_LOP3_MAX_GATES];
    int out;
} wl_lop3_net;

/* Computes the 32-entry truth table of the outer-totalistic rule with 9-bit masks birth and
 * survive (bit n set: a dead / live cell with n live neighbours is alive next; bits above 8
 * are ignored).  Entry r = ctr<<4 | y2<<3 | y1<<2 | k<<1 | x0 is bit r of *table; bit r of
 * *care is 1 for every r a real neighbourhood can produce.  Two rows are unreachable and so
 * don't-cares: ctr = 1 with T = 0 (a live centre in an empty block) and ctr = 0 with T = 9
 * (x0 = k = y1 = y2 = 1: all nine cells alive but a dead centre).  This holds when x0..y2
 * come from the horizontal sums of the same three rows that hold ctr, as in the kernels.
 * Bits of *table outside *care are 0.  Both pointers must be valid. */
void wl_lop3_table(uint16_t birth, uint16_t survive, uint32_t *table, uint32_t *care);

/* Stores in *net a network that computes the rule (equal to wl_lop3_table on every cared
 * row) with the fewest gates it finds: the exact minimum when one of at most 3 gates exists
 * (exhaustive search), otherwise a structured network of at most 7 gates (4 gates are tried
 * first with a bounded search).  Deterministic: the same rule always gives the same net.
 * Returns WL_OK, or WL_ERR_INVALID (with a message) if net is NULL.  Takes about 15 ms of
 * CPU on average (0.1 ms to 80 ms); thread-safe; allocates nothing (about 24 KB of stack). */
wl_status wl_lop3_synth(uint16_t birth, uint16_t survive, wl_lop3_net *net);

/* Evaluates the network bitwise on 64-bit words: bit i of the result is the network's
 * output for bit i of each input.  Returns 0 if net is NULL or malformed (a gate reading a
 * later signal or one out of range); wl_lop3_check says whether it is well formed. */
uint64_t wl_lop3_eval(const wl_lop3_net *net, uint64_t x0, uint64_t k, uint64_t y1,
                      uint64_t y2, uint64_t ctr);

/* Returns 1 if net is well formed (0 <= n <= WL_LOP3_MAX_GATES, every gate reads constants
 * or earlier signals, out is a constant or a signal < WL_LOP3_INPUTS + n), else 0. */
int wl_lop3_check(const wl_lop3_net *net);

/* Writes the network as C-like source text usable from CUDA C and OpenCL C:
 *   - one statement per gate:  `MACRO(PREFIXi, A, B, C, 0xLL);` on its own line, where
 *     MACRO is `macro`, PREFIXi the temporary of gate i (`prefix` followed by the decimal
 *     gate number), A, B, C the inputs named by names[0..4] (x0, k, y1, y2, ctr), earlier
 *     temporaries, or the constants `0u` / `0xffffffffu`, and LL the lut in two hex digits;
 *   - then a last line `out_name = SIGNAL;` naming the output signal.
 * The temporaries are NOT declared: the caller declares them (e.g. emit
 * "uint32_t t0, t1, ..., t7;" before, one per gate, or define MACRO to declare its first
 * argument: `#define LOP3(d, a, b, c, l) uint32_t d = lop3(a, b, c, l)`).  For example with
 * macro "LOP3", prefix "t" and out_name "n" Life gives lines like
 *   LOP3(t0, y1, k, y2, 0x14);
 *   ...
 *   n = t3;
 * The prefix may be at most 48 characters.
 * Returns the length of the full text (like snprintf: the text was truncated, still
 * NUL-terminated when cap > 0, if the return is >= cap), or -1 if an argument is NULL
 * (buf may be NULL only with cap == 0) or the network is malformed. */
int wl_lop3_emit(const wl_lop3_net *net, const char *macro,
                 const char *const names[WL_LOP3_INPUTS], const char *prefix,
                 const char *out_name, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* WL_LOP3NET_H */
