/*
 * simd_circuit.c - the `circuit` kernel: any rule (Hensel, MAP) as the network of 3-input
 * gates that wl_rnet_synth finds (src/core/rulenet.c), evaluated on 512-bit vectors with
 * one vpternlogq per gate.  Compiled with -mavx512f; called only on CPUs that have it.
 *
 * The network is known only at run time and vpternlogq takes its truth table as an
 * immediate, so the kernel is an interpreter that pays its dispatch once per gate per batch:
 * a row is cut into batches of NB vectors (NB x 512 cells); the nine cell planes of a batch
 * (the neighbour shifts of simd_avx512.c) and the derived sums the network reads fill the
 * first signal slots, then each gate is one call through a table of 256 functions (one per
 * immediate) that runs its vpternlogq over the batch's NB vectors.  A batch's signals take
 * 512 bytes a slot (21 + gates slots: 28 KiB for 35 gates, within L1; large MAP networks
 * spill to L2).  This is the fallback of circuit_jit.c, which compiles the network: measured
 * on the dev VM (4096^2) the interpreter matches vpermb only for small networks (B2-a/S12,
 * 12 gates: 2.97e10 against 2.80e10 CUpS) and loses on large ones (35 gates: 1.57e10), so
 * `best` keeps vpermb when nothing compiles.  NB = 8 measured better than 4 and 16.
 */
#include "cpu_internal.h"
#include "simd_planes.h"

#include "rulenet.h"

#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

#define NB 8 /* vectors per batch */
#define SLOTS (WL_RNET_INPUTS + WL_RNET_MAX_GATES + 2)

typedef void (*gate_fn)(__m512i *d, const __m512i *a, const __m512i *b, const __m512i *c);

#define GATE(imm)                                                                          \
    static void gate_##imm(__m512i *d, const __m512i *a, const __m512i *b, const __m512i *c) { \
        for (int v = 0; v < NB; v++) d[v] = _mm512_ternarylogic_epi64(a[v], b[v], c[v], imm); \
    }
#define GATES16(h)                                                                         \
    GATE(0x##h##0) GATE(0x##h##1) GATE(0x##h##2) GATE(0x##h##3) GATE(0x##h##4)              \
    GATE(0x##h##5) GATE(0x##h##6) GATE(0x##h##7) GATE(0x##h##8) GATE(0x##h##9)              \
    GATE(0x##h##A) GATE(0x##h##B) GATE(0x##h##C) GATE(0x##h##D) GATE(0x##h##E)              \
    GATE(0x##h##F)
GATES16(0) GATES16(1) GATES16(2) GATES16(3) GATES16(4) GATES16(5) GATES16(6) GATES16(7)
GATES16(8) GATES16(9) GATES16(A) GATES16(B) GATES16(C) GATES16(D) GATES16(E) GATES16(F)
#define REF16(h)                                                                           \
    gate_0x##h##0, gate_0x##h##1, gate_0x##h##2, gate_0x##h##3, gate_0x##h##4,              \
    gate_0x##h##5, gate_0x##h##6, gate_0x##h##7, gate_0x##h##8, gate_0x##h##9,              \
    gate_0x##h##A, gate_0x##h##B, gate_0x##h##C, gate_0x##h##D, gate_0x##h##E, gate_0x##h##F,
static const gate_fn gate_table[256] = {REF16(0) REF16(1) REF16(2) REF16(3) REF16(4) REF16(5)
                                            REF16(6) REF16(7) REF16(8) REF16(9) REF16(A)
                                                REF16(B) REF16(C) REF16(D) REF16(E) REF16(F)};

/* The network as slot operations: slots 0..18 the inputs, then the gates, then 0 and ~0. */
struct cpu_rnet_prog {
    int n;
    unsigned derived; /* wl_rnet_derived */
    int out;          /* slot of the next state */
    struct {
        gate_fn f;
        uint16_t a, b, c;
    } op[WL_RNET_MAX_GATES];
};

wl_status cpu_rnet_prog_build(const wl_rnet *netp, cpu_rnet_prog **out) {
    const wl_rnet net = *netp;
    *out = NULL;
    cpu_rnet_prog *p = calloc(1, sizeof *p);
    if (!p) return wl_error(WL_ERR_NOMEM, "cpu circuit: out of memory");
    const int zero = WL_RNET_INPUTS + net.n, ones = zero + 1;
    p->n = net.n;
    p->derived = wl_rnet_derived(&net);
    for (int i = 0; i < net.n; i++) {
        int in[3] = {net.g[i].a, net.g[i].b, net.g[i].c};
        for (int j = 0; j < 3; j++) in[j] = in[j] == WL_RNET_ZERO ? zero : in[j] == WL_RNET_ONES ? ones : in[j];
        p->op[i].f = gate_table[net.g[i].lut];
        p->op[i].a = (uint16_t)in[0], p->op[i].b = (uint16_t)in[1], p->op[i].c = (uint16_t)in[2];
    }
    p->out = net.out == WL_RNET_ZERO ? zero : net.out == WL_RNET_ONES ? ones : net.out;
    *out = p;
    return WL_OK;
}

void cpu_rnet_prog_free(cpu_rnet_prog *p) { free(p); }

int cpu_rnet_prog_gates(const cpu_rnet_prog *p) { return p ? p->n : 0; }

#define T3(a, b, c, imm) _mm512_ternarylogic_epi64((a), (b), (c), (imm))

void cpu_gen_rows_circuit(const uint64_t *in, uint64_t *out, size_t pitch, size_t bw,
                          size_t lo, size_t hi, int wrap, const uint64_t *colmask,
                          const cpu_kernel_data *kd) {
    (void)wrap; /* the driver refreshes the pads (cpu_tiler_config.wraps == 0) */
    const cpu_rnet_prog *p = kd->rnet;
    /* (on the stack: a thread-local array of this size, 106 KB, was zeroed by the loader
     * at every start of the program and of each of its threads, 27 page faults each) */
    __m512i sig[SLOTS][NB];
    const int zero = WL_RNET_INPUTS + p->n;
    for (int v = 0; v < NB; v++) {
        sig[zero][v] = _mm512_setzero_si512();
        sig[zero + 1][v] = _mm512_set1_epi64(-1);
    }
    const unsigned d = p->derived;
    for (size_t r = lo; r < hi; r++) {
        const uint64_t *a = in + (r - 1) * pitch, *b = in + r * pitch, *c = in + (r + 1) * pitch;
        uint64_t *o = out + r * pitch;
        for (size_t i = 0; i < bw; i += 8 * NB) {
            int nv = (int)((bw - i) / 8 < NB ? (bw - i) / 8 : NB);
            for (int v = 0; v < NB; v++) {
                if (v >= nv) {
                    for (int s = 0; s < WL_RNET_INPUTS; s++) sig[s][v] = _mm512_setzero_si512();
                    continue;
                }
                size_t j = i + 8 * (size_t)v;
                wl_simd_west_east(a, j, &sig[WL_RNET_N][v], &sig[WL_RNET_NW][v], &sig[WL_RNET_NE][v]);
                wl_simd_west_east(b, j, &sig[WL_RNET_C][v], &sig[WL_RNET_W][v], &sig[WL_RNET_E][v]);
                wl_simd_west_east(c, j, &sig[WL_RNET_S][v], &sig[WL_RNET_SW][v], &sig[WL_RNET_SE][v]);
                if (!d) continue;
                /* derived sums (rulenet.h), only those the network reads */
                if (d & 0x15u) {
                    sig[WL_RNET_ST][v] = T3(sig[WL_RNET_NW][v], sig[WL_RNET_N][v], sig[WL_RNET_NE][v], 0x96);
                    sig[WL_RNET_SM][v] = T3(sig[WL_RNET_W][v], sig[WL_RNET_C][v], sig[WL_RNET_E][v], 0x96);
                    sig[WL_RNET_SB][v] = T3(sig[WL_RNET_SW][v], sig[WL_RNET_S][v], sig[WL_RNET_SE][v], 0x96);
                }
                if (d & 0x2Au) {
                    sig[WL_RNET_CT][v] = T3(sig[WL_RNET_NW][v], sig[WL_RNET_N][v], sig[WL_RNET_NE][v], 0xE8);
                    sig[WL_RNET_CM][v] = T3(sig[WL_RNET_W][v], sig[WL_RNET_C][v], sig[WL_RNET_E][v], 0xE8);
                    sig[WL_RNET_CB][v] = T3(sig[WL_RNET_SW][v], sig[WL_RNET_S][v], sig[WL_RNET_SE][v], 0xE8);
                }
                if (d & 0x40u) sig[WL_RNET_X0][v] = T3(sig[WL_RNET_ST][v], sig[WL_RNET_SM][v], sig[WL_RNET_SB][v], 0x96);
                if (d & 0x80u) sig[WL_RNET_K][v] = T3(sig[WL_RNET_ST][v], sig[WL_RNET_SM][v], sig[WL_RNET_SB][v], 0xE8);
                if (d & 0x100u) sig[WL_RNET_Y1][v] = T3(sig[WL_RNET_CT][v], sig[WL_RNET_CM][v], sig[WL_RNET_CB][v], 0x96);
                if (d & 0x200u) sig[WL_RNET_Y2][v] = T3(sig[WL_RNET_CT][v], sig[WL_RNET_CM][v], sig[WL_RNET_CB][v], 0xE8);
            }
            for (int g = 0; g < p->n; g++)
                p->op[g].f(sig[WL_RNET_INPUTS + g], sig[p->op[g].a], sig[p->op[g].b], sig[p->op[g].c]);
            for (int v = 0; v < nv; v++) {
                size_t j = i + 8 * (size_t)v;
                __m512i res = sig[p->out][v];
                if (colmask) res = _mm512_and_si512(res, _mm512_loadu_si512((const void *)(colmask + j)));
                _mm512_storeu_si512((void *)(o + j), res);
            }
        }
    }
}
