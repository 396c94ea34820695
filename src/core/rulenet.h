/*
 * rulenet.h - a network of 3-input logic gates (NVIDIA LOP3, AVX-512 vpternlog) for ANY
 * two-state Moore rule: the full 512-entry table (Hensel isotropic, MAP), not only the
 * outer-totalistic rules lop3net.h serves.
 *
 * Inputs.  A network reads the nine cells of the 3x3 block, as words of 32 or 64 cells
 * (bit i of every word is one cell's block): signal i (0..8) is bit i of the rule's
 * neighbourhood index (rule.c: NW<<8 | N<<7 | NE<<6 | W<<5 | C<<4 | E<<3 | SW<<2 | S<<1 |
 * SE), so WL_RNET_SE = 0 .. WL_RNET_NW = 8.  It may also read ten derived signals that the
 * bitsliced kernels compute anyway for outer-totalistic rules:
 *   ST, CT, SM, CM, SB, CB  the XOR3 and majority of each row's three cells (top = NW N NE,
 *                           middle = W C E, bottom = SW S SE): the row's sum is S + 2C;
 *   X0, K                   XOR3 and majority of ST, SM, SB;
 *   Y1, Y2                  XOR3 and majority of CT, CM, CB;
 * so that the 9-cell total is X0 + 2 (K + Y1) + 4 Y2.  Each derived signal costs one gate
 * where a kernel computes it (wl_rnet_cost counts the ones a network reads, with what
 * they read).  Gate i of a network is signal WL_RNET_INPUTS + i.
 *
 * How it is found: rulenet.c (its head comment).  Every network wl_rnet_synth returns has
 * been checked on all 512 neighbourhoods against the rule's table.
 */
#ifndef WL_RULENET_H
#define WL_RULENET_H

#include "warplife.h" /* wl_rule, wl_status */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    WL_RNET_SE, WL_RNET_S, WL_RNET_SW, WL_RNET_E, WL_RNET_C, WL_RNET_W, WL_RNET_NE,
    WL_RNET_N, WL_RNET_NW, /* the nine cells: signal i = index bit i */
    WL_RNET_ST, WL_RNET_CT, WL_RNET_SM, WL_RNET_CM, WL_RNET_SB, WL_RNET_CB,
    WL_RNET_X0, WL_RNET_K, WL_RNET_Y1, WL_RNET_Y2, /* derived */
    WL_RNET_INPUTS
};
#define WL_RNET_CELLS 9

/* Constant signals (a gate input or the output). */
#define WL_RNET_ZERO (-1)
#define WL_RNET_ONES (-2)

/* Most gates a network holds (a random MAP table takes about 70-110). */
#define WL_RNET_MAX_GATES 192

/* One gate: bit (4a + 2b + c) of lut, bitwise (PTX lop3.b32 d, a, b, c, lut; x86
 * vpternlog with imm8 = lut). */
typedef struct wl_rnet_gate {
    int16_t a, b, c;
    uint8_t lut;
} wl_rnet_gate;

typedef struct wl_rnet {
    int n;   /* gates */
    int out; /* the next state: a signal or a constant */
    wl_rnet_gate g[WL_RNET_MAX_GATES];
} wl_rnet;

/* Finds a network for the rule and stores it in *net; checks it on all 512 neighbourhoods.
 * effort 0 tries one strategy per input set; higher values try more orderings (each
 * about as costly as effort 0, typically a few ms to 100 ms for MAP tables) and keep the
 * cheapest by wl_rnet_cost.  Deterministic; the 8 most recent results are kept per
 * process (thread-safe), so universes of one rule search once, and every result is kept
 * in the disk cache of run-time kernels (src/core/rtc_cache.c; WL_CACHE_DIR=off: none), so
 * later processes do not search (an entry is used only after it checks).  Returns WL_OK; WL_ERR_INVALID for NULL
 * arguments; WL_ERR_UNAVAILABLE (with a message) if no network fits in WL_RNET_MAX_GATES
 * (not seen on any table). */
wl_status wl_rnet_synth(const wl_rule *rule, int effort, wl_rnet *net);
/* The same without a search: the network from the process's or the disk cache, else
 * WL_ERR_NOT_FOUND (a caller that would only look for a compiled kernel of it). */
wl_status wl_rnet_synth_cached(const wl_rule *rule, int effort, wl_rnet *net);

/* Returns 1 if net is well formed (gates read constants or earlier signals) and gives the
 * rule's next state on all 512 neighbourhoods, else 0. */
int wl_rnet_check(const wl_rnet *net, const wl_rule *rule);

/* The operations a kernel spends per word: gates plus the derived signals read (directly
 * or through other derived signals).  -1 if net is malformed. */
int wl_rnet_cost(const wl_rnet *net);

/* Bit mask of the derived signals a network needs (bit j: signal WL_RNET_ST + j), the ones
 * its derived signals read included. */
unsigned wl_rnet_derived(const wl_rnet *net);

/* Evaluates the network bitwise on 64-bit words of the nine cells (cells[i] = signal i). */
uint64_t wl_rnet_eval(const wl_rnet *net, const uint64_t cells[WL_RNET_CELLS]);

/* The input names the kernels' emitted networks use (cuda_wave.cuh's WV_CIRCUIT,
 * wl_opencl_lop3v.cl's WL_RULE9, circuit_jit.c's source): c_<cell> and d_<derived signal>
 * in signal order; a caller appends its spellings of the two constants. */
#define WL_RNET_KERNEL_NAMES                                                                \
    "c_se", "c_s", "c_sw", "c_e", "c_c", "c_w", "c_ne", "c_n", "c_nw", "d_st", "d_ct", "d_sm", \
        "d_cm", "d_sb", "d_cb", "d_x0", "d_k", "d_y1", "d_y2"

/* Writes the network as source text for CUDA C, OpenCL C or C with vector types: per gate
 * a line `MACRO(PREFIXi, A, B, C, 0xLL);`, then `OUT = SIGNAL;`, where inputs are named
 * names[0 .. WL_RNET_INPUTS-1] (the kernel defines the derived ones it is asked for, see
 * wl_rnet_derived; a compiler drops the others), the constants names[WL_RNET_INPUTS]
 * (zero) and names[WL_RNET_INPUTS + 1] (all ones), temporaries PREFIXi.  Temporaries are
 * not declared (define MACRO to declare its first argument).  Returns the text's length
 * (like snprintf: truncated if >= cap), or -1 on a NULL argument or a malformed network. */
int wl_rnet_emit(const wl_rnet *net, const char *macro,
                 const char *const names[WL_RNET_INPUTS + 2], const char *prefix,
                 const char *out_name, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* WL_RULENET_H */
