/*
 * cuda_multi.cu - the CUDA engine's rules of more than two states: Generations and Larger
 * than Life (kernel `best`).
 *
 * Layout.  As in the cpu engine (src/engine/cpu/multi.c): the state-1 ("firing") cells are
 * the bit layout's grid (cur / nxt, 32-bit words, nw a row); the other live states are P
 * bit planes of (state - 1), zero for dead and state-1 cells, in two device buffers (ecur /
 * enxt) of P planes of nw x h words.  Host grids (wl_grid's planes: live cells and the bits
 * of state - 1) are converted on the host on the way in and out.
 *
 * Generations: k_gen.  A block of 256 threads takes a tile of GT_H rows (GT_HS on small
 * grids) x GT_W words and a halo of K rows above and below and one word (32 cells) left
 * and right, F and E planes alike, into shared memory (virtual coordinates: wrapped on a
 * torus, dead on a bounded grid, wl_win32), and runs K generations there.  A warp takes
 * whole rows, a lane a word (GT_W + 2 = 32), so that every shared access is conflict-free
 * and the words left and right come by shuffles.  Each generation each word gets:
 *   the eight neighbour planes from its 3 x 3 words (shifts);
 *   T, the rule's answer: for rules outer-totalistic on the Moore, hexagonal or von Neumann
 *     neighbourhood, a bit-sliced count of the neighbours that count (an adder tree, about
 *     12 operations) and the rule as two 9-leaf multiplexer trees on the count's bits (the
 *     leaves all-zero or all-one words from the birth and survival masks, so any rule costs
 *     the same 17 operations); for other tables, a lookup of each cell's 9-bit index;
 *   the decay (multi.c's): D = any E, F' = T & ~D, E' = E + 1 on dying cells wrapping at
 *     n - 1, state 2 for cells that stop firing.
 * Halo rows go stale one row per generation and halo words one cell per generation, so
 * after K (< 32) generations the tile's own cells are exact; they are written to the next
 * buffers.  On a bounded grid every generation clears the cells outside the grid.
 *
 * k_genv<P>, for rules outer-totalistic on the Moore neighbourhood with up to GV_P_MAX
 * planes of E (2 to 2^GV_P_MAX + 1 states: nearly every Generations rule people run), keeps
 * the tile in registers instead, in lop3v's design (cuda_lop3v.cu): a block of GV_WB warps
 * stacked vertically, each warp NR rows of a 32-word column strip, lane l a word column; a
 * thread holds its NR words of F and of each E plane in registers, the rows above and below
 * its slice come from the neighbouring warps' edge rows through shared memory once a
 * generation, and the horizontal neighbours by shuffles.  Per word and generation: the
 * 9-cell count of F as four planes (lop3's paired-row adders), the rule as a multiplexer
 * tree on the count over leaves chosen by the centre (19 LOP3), and the decay in registers.
 * No shared-memory traffic but the edge rows, where k_gen reads and writes every word.
 *
 * Small grids (the widths cuda_res.cu runs, up to 4096 cells, heights whose bands fit the
 * GPU at once) take the res kernel instead, for every rule whose planes fit a lane's
 * registers (up to 17 states at 4096 cells wide, 256 at 2048: wlcu_res_gen_prepare says),
 * compiled by NVRTC (Moore outer-totalistic rules as their 5-input network on the adders'
 * sums, hexagonal, von Neumann and MAP tables as the circuit kernel's network over the
 * nine cells): the whole grid stays on the chip for up to 1024 generations a launch, each
 * lane holding its words of F and of E, the bands' edge rows of every plane exchanged
 * between blocks (cuda_res.cuh; E one-hot in the lanes for up to 2 decaying states).
 * 3.4x-8.5x k_gen at 4096^2 (H100; 23/3/3 5.1x).
 * WL_CUDA_GEN=res forces it where it runs; any other value keeps it off.
 *
 * Larger than Life: per generation, the counts, then the decay of the other states
 * (k_decay, elementwise).  k_ltl_bits, for the Moore neighbourhood up to range 31: counts
 * bit-sliced, 32 cells a word at a time.  A thread takes a word column and walks a strip of
 * rows down it, keeping the square's count S of each of its 32 cells as bit planes: each
 * row's window sum H (the 2R + 1 shifted copies of the row, from the words left and right
 * by funnel shifts, added by carry-save adders) enters at the bottom and leaves at the top
 * (S += H_in - H_out, a ripple add and subtract; up to range 12 the window sums of the
 * square's rows wait in a ring in shared memory, so a row is summed once), and the rule is a
 * pair of comparisons of S with each interval's ends, bit-sliced, a LOP3 a bit.  It is
 * compiled once for each range up to LB_FIXED_R, for rules of one birth and one survival
 * interval (most): the range known, every loop over adders, bits and ends unrolls, and the
 * ends' bits wait in registers as masks (2.3-2.7x the kernel that reads any rule, H100).
 * Edge columns read whole words where the grid's edges are whole words (lb_edge_word): R5
 * at 4096^2 ran 6.6e11 while one lane of each edge warp took wl_win32's general path and
 * 1.09e12 since (H100).
 * k_ltl_tile, for reaches up to LT_MAXR: a block takes a tile of
 * LT_H rows x LT_W cells and the rows and columns of its reach into shared memory as bits;
 * for the Moore neighbourhood, threads slide column sums down the tile's rows, warps scan
 * each row of them into prefix sums (shuffles), and a cell's count is one difference
 * (a few operations a cell whatever the range); for other shapes, each row's prefix sums
 * (16-bit, from popcounts) go to shared memory and a cell's count is the sum, over the
 * neighbourhood's horizontal runs, of two of them.  A thread takes one cell and a warp's
 * ballot of the rule's answers is the output word.  Larger reaches take k_ltl_global:
 * the prefix sums of every row (of the row extended by the reach, wrapped or dead) in
 * device memory, and the runs summed from there; the Moore square there takes
 * k_ltl_square, which slides the square's count down a column from the same prefix sums
 * (two rows a cell whatever the range).  The test of a count against the rule's intervals
 * and the packing of 32 cells into a word are the same for all.
 */
#include "cuda_lop3.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GT_W 30       /* Generations tile: words across (960 cells); with a halo word each
                         side a row is one warp's 32 words */
#define GT_H 64       /* rows */
#define GT_HS 32      /* rows of the tiles of small grids (k_gen<P>s) */
#define GT_K 8        /* generations per launch */
#define GT_THREADS 256
#define LT_W 256      /* Larger than Life tile: cells across (8 words, a thread a column) */
#define LT_H 64       /* rows */
#define LT_TABLE 8192 /* rule answers kept as a table up to this count (else intervals) */
#define LT_MAXR 32    /* the largest reach a tile holds */
#define LT_THREADS 256

/* The rule as the kernels read it. */
typedef struct wlcu_mrule {
    /* Generations */
    unsigned nbmask;      /* index bits of the neighbours that count (outer-totalistic) */
    unsigned birth, survive; /* bit n: n counted neighbours */
    int table_rule;       /* not outer-totalistic: look up each cell's index in table */
    uint32_t table[16];   /* the 512-entry table */
    /* both */
    unsigned states;      /* n: E + 1 == n - 1 wraps to dead */
    unsigned P;           /* planes of E */
    /* Larger than Life */
    int R, Ry, moore;
    unsigned middle;
    unsigned nb, ns;
    uint32_t iv[2][WL_LTL_INTERVALS_MAX][2]; /* birth, survival intervals */
    int nruns[2];
} wlcu_mrule;

/* The device side of ctx->multi. */
typedef struct wlcu_multi {
    wlcu_mrule rule;
    uint32_t *ecur, *enxt;  /* P planes each */
    wlcu_mrule *d_rule;     /* the rule in device memory, as the kernels read it */
    int4 *runs;             /* Larger than Life: the runs (dy, x0, x1), parity 0 then 1 */
    uint32_t *prefix;       /* k_ltl_global: h rows of (w + 2R + 1) prefix sums */
    int2 *extent;           /* k_ltl_square: each row's first and last word with a firing cell */
    unsigned long long *d_box; /* k_box's result (4 words) */
    int global_ltl;
    int square;             /* ... by k_ltl_square (the Moore square) */
    int bits_ltl;           /* k_ltl_bits runs it (Moore, range <= 31) */
    int bits_r;             /* k_ltl_bits: the compiled range it runs (0: the one that reads
                               any rule, as WL_CUDA_LTL=bits0 forces) ... */
    uint4 bits_lim;         /* ... and the rule's intervals as that kernel reads them */
    int bits_edge;          /* ... its edge columns read whole words where they can (lb_row;
                               WL_CUDA_LTL_EDGE=slow: always through wl_win32, to compare) */
    uint64_t size;          /* the neighbourhood's cells (the largest count) */
    int sms;                /* the device's multiprocessors */
    int res;                /* Generations by the res kernel: 1 yes, -1 no, 0 not asked yet */
} wlcu_multi;

/* ---- shared device helpers ------------------------------------------------------------ */

/* 1 where the 16 counts of 32 cells lie in an interval list. */
__device__ __forceinline__ int in_iv(const uint32_t (*iv)[2], unsigned n, unsigned c) {
    for (unsigned k = 0; k < n; k++)
        if (c >= iv[k][0] && c <= iv[k][1]) return 1;
    return 0;
}

/* Bit of cell x of a row of words. */
__device__ __forceinline__ unsigned bit_of(const uint32_t *row, int x) {
    return (row[x >> 5] >> (x & 31)) & 1u;
}

/* ---- Generations ------------------------------------------------------------------------- */

__device__ __forceinline__ uint32_t sel(uint32_t s, uint32_t a, uint32_t b) {
    return (s & a) | (~s & b); /* s ? a : b, one LOP3 */
}

/* The rule's answer for the count bits c3..c0 from 9 leaves (counts 0..8, each all-zero or
 * all-one): a multiplexer tree. */
__device__ __forceinline__ uint32_t pick9(const uint32_t *l, uint32_t c3, uint32_t c2,
                                          uint32_t c1, uint32_t c0) {
    uint32_t a = sel(c0, l[1], l[0]), b = sel(c0, l[3], l[2]), c = sel(c0, l[5], l[4]),
             d = sel(c0, l[7], l[6]);
    return sel(c3, l[8], sel(c2, sel(c1, d, c), sel(c1, b, a)));
}

/* What a thread keeps of the rule in registers. */
typedef struct gen_regs {
    uint32_t lb[9], ls[9]; /* leaves: birth and survival of each count */
    uint32_t nbm[9];       /* all-one for the neighbour directions that count (index bits) */
    int table_rule;
} gen_regs;

__device__ __forceinline__ void gen_regs_load(const wlcu_mrule *ru, gen_regs *g) {
#pragma unroll
    for (int n = 0; n < 9; n++) {
        g->lb[n] = (ru->birth >> n) & 1u ? 0xffffffffu : 0u;
        g->ls[n] = (ru->survive >> n) & 1u ? 0xffffffffu : 0u;
        g->nbm[n] = (ru->nbmask >> n) & 1u ? 0xffffffffu : 0u;
    }
    g->table_rule = ru->table_rule;
}

/* The rule's next firing bits of a word from its 3 x 3 words (a: above, m: middle, b:
 * below; l, r: the words left and right). */
__device__ __forceinline__ uint32_t gen_rule(const wlcu_mrule *ru, const gen_regs *g, uint32_t al,
                                             uint32_t a, uint32_t ar, uint32_t ml, uint32_t m,
                                             uint32_t mr, uint32_t bl, uint32_t b, uint32_t br) {
    uint32_t nb[9];
    nb[0] = (b >> 1) | (br << 31); /* SE */
    nb[1] = b;                     /* S */
    nb[2] = (b << 1) | (bl >> 31); /* SW */
    nb[3] = (m >> 1) | (mr << 31); /* E */
    nb[4] = m;                     /* centre */
    nb[5] = (m << 1) | (ml >> 31); /* W */
    nb[6] = (a >> 1) | (ar << 31); /* NE */
    nb[7] = a;                     /* N */
    nb[8] = (a << 1) | (al >> 31); /* NW */
    if (g->table_rule) {
        uint32_t out = 0;
        for (int k = 0; k < 32; k++) {
            unsigned idx = 0;
#pragma unroll
            for (int j = 8; j >= 0; j--) idx = idx << 1 | ((nb[j] >> k) & 1u);
            out |= ((ru->table[idx >> 5] >> (idx & 31)) & 1u) << k;
        }
        return out;
    }
    uint32_t x[8];
#pragma unroll
    for (int j = 0, n = 0; j < 9; j++)
        if (j != 4) x[n++] = nb[j] & g->nbm[j];
    /* the sum of eight bit planes as four bit planes */
    uint32_t s0 = x[0] ^ x[1] ^ x[2], k0 = (x[0] & x[1]) | (x[2] & (x[0] ^ x[1]));
    uint32_t s1 = x[3] ^ x[4] ^ x[5], k1 = (x[3] & x[4]) | (x[5] & (x[3] ^ x[4]));
    uint32_t s2 = x[6] ^ x[7], k2 = x[6] & x[7];
    uint32_t c0 = s0 ^ s1 ^ s2, k3 = (s0 & s1) | (s2 & (s0 ^ s1)); /* weight 2: k0 k1 k2 k3 */
    uint32_t u0 = k0 ^ k1 ^ k2, u1 = (k0 & k1) | (k2 & (k0 ^ k1));
    uint32_t c1 = u0 ^ k3, v1 = u0 & k3;                              /* weight 4: u1 v1 */
    uint32_t c2 = u1 ^ v1, c3 = u1 & v1;
    return sel(m, pick9(g->ls, c3, c2, c1, c0), pick9(g->lb, c3, c2, c1, c0));
}

/* One launch: K generations of a tile (see the essay), P planes of E (a constant in each
 * instance, so that the decay's words stay in registers). */
__device__ __forceinline__ void gen_body(const uint32_t *f, const uint32_t *e, uint32_t *fn,
                                         uint32_t *en, uint64_t nw, int64_t w, int64_t h,
                                         int torus, unsigned K, const wlcu_mrule *ru,
                                         const unsigned P, const int TH) {
    extern __shared__ uint32_t sm[];
    const int RH = TH + 2 * (int)K, plane = 32 * RH;
    uint32_t *F0 = sm, *F1 = sm + plane, *E = sm + 2 * plane;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const int64_t y0 = (int64_t)blockIdx.y * TH, xw0 = (int64_t)blockIdx.x * GT_W;
    const int64_t X = xw0 - 1 + lane; /* this lane's virtual word column */
    const uint64_t gplane = nw * (uint64_t)h;
    const unsigned last = ru->states - 1;
    gen_regs g;
    gen_regs_load(ru, &g);
    /* a warp takes whole rows: lane = word, so that every access is conflict-free */
    for (int j = warp; j < RH; j += warps) {
        int64_t Y = y0 - (int64_t)K + j;
        F0[j * 32 + lane] = wl_win32(f, nw, w, h, torus, Y, X);
#pragma unroll
        for (unsigned k = 0; k < P; k++)
            E[k * plane + j * 32 + lane] = wl_win32(e + k * gplane, nw, w, h, torus, Y, X);
    }
    const uint32_t colmask = torus ? 0xffffffffu : wl_colmask(w, X);
    __syncthreads();
    uint32_t *cur = F0, *nxt = F1;
    for (unsigned s = 1; s <= K; s++) {
        for (int j = (int)s + warp; j < RH - (int)s; j += warps) {
            int at = j * 32 + lane;
            uint32_t a = cur[at - 32], m = cur[at], b = cur[at + 32];
            /* the words left and right: the next lanes' (lanes 0 and 31 are halo) */
            uint32_t al = __shfl_up_sync(0xffffffffu, a, 1), ml = __shfl_up_sync(0xffffffffu, m, 1),
                     bl = __shfl_up_sync(0xffffffffu, b, 1);
            uint32_t ar = __shfl_down_sync(0xffffffffu, a, 1), mr = __shfl_down_sync(0xffffffffu, m, 1),
                     br = __shfl_down_sync(0xffffffffu, b, 1);
            uint32_t t = gen_rule(ru, &g, al, a, ar, ml, m, mr, bl, b, br);
            if (!torus) { /* cells outside a bounded grid stay dead */
                int64_t Y = y0 - (int64_t)K + j;
                t &= (Y >= 0 && Y < h) ? colmask : 0u;
            }
            if (P) { /* the decay (see the essay) */
                uint32_t ev[WL_PATTERN_PLANES], d = 0;
#pragma unroll
                for (unsigned k = 0; k < P; k++) d |= ev[k] = E[k * plane + at];
                t &= ~d;
                uint32_t carry = d, eq = d;
#pragma unroll
                for (unsigned k = 0; k < P; k++) {
                    uint32_t v = ev[k] ^ carry;
                    carry &= ev[k];
                    eq &= ~(v ^ (0u - ((last >> k) & 1u)));
                    ev[k] = v;
                }
                uint32_t died = m & ~t;
#pragma unroll
                for (unsigned k = 0; k < P; k++) E[k * plane + at] = (ev[k] & ~eq) | (k ? 0u : died);
            }
            nxt[at] = t;
        }
        __syncthreads();
        uint32_t *tmp = cur;
        cur = nxt;
        nxt = tmp;
    }
    if (lane == 0 || lane == 31 || X >= (int64_t)nw) return;
    const uint32_t mask = wl_colmask(w, X);
    for (int j = (int)K + warp; j < (int)K + TH; j += warps) {
        int64_t Y = y0 + j - (int64_t)K;
        if (Y >= h) break;
        int at = j * 32 + lane;
        uint64_t gi = (uint64_t)Y * nw + (uint64_t)X;
        fn[gi] = cur[at] & mask;
#pragma unroll
        for (unsigned k = 0; k < P; k++) en[k * gplane + gi] = E[k * plane + at] & mask;
    }
}

typedef void (*gen_fn)(const uint32_t *, const uint32_t *, uint32_t *, uint32_t *, uint64_t,
                       int64_t, int64_t, int, unsigned, const wlcu_mrule *);
/* k_gen<P>: tiles of GT_H rows; k_gen<P>s: of GT_HS rows, for small grids (more blocks
 * for the multiprocessors, at the cost of more halo rows a tile) */
#define GEN_KERNEL(P)                                                                        \
    __global__ void __launch_bounds__(GT_THREADS)                                            \
        k_gen##P(const uint32_t *f, const uint32_t *e, uint32_t *fn, uint32_t *en, uint64_t nw, \
                 int64_t w, int64_t h, int torus, unsigned K,                                \
                 const wlcu_mrule *__restrict__ ru) {                                        \
        gen_body(f, e, fn, en, nw, w, h, torus, K, ru, P, GT_H);                             \
    }                                                                                        \
    __global__ void __launch_bounds__(GT_THREADS)                                            \
        k_gen##P##s(const uint32_t *f, const uint32_t *e, uint32_t *fn, uint32_t *en,       \
                    uint64_t nw, int64_t w, int64_t h, int torus, unsigned K,                \
                    const wlcu_mrule *__restrict__ ru) {                                     \
        gen_body(f, e, fn, en, nw, w, h, torus, K, ru, P, GT_HS);                            \
    }
GEN_KERNEL(0)
GEN_KERNEL(1)
GEN_KERNEL(2)
GEN_KERNEL(3)
GEN_KERNEL(4)
GEN_KERNEL(5)
GEN_KERNEL(6)
GEN_KERNEL(7)
GEN_KERNEL(8)
static const gen_fn gen_kernels[2][9] = {
    {k_gen0, k_gen1, k_gen2, k_gen3, k_gen4, k_gen5, k_gen6, k_gen7, k_gen8},
    {k_gen0s, k_gen1s, k_gen2s, k_gen3s, k_gen4s, k_gen5s, k_gen6s, k_gen7s, k_gen8s}};

/* ---- Generations in registers (k_genv) ------------------------------------------------------ */

#define GV_WB 8        /* warps per block, stacked vertically */
#define GV_K 8         /* generations per launch (at most) */
#define GV_P_MAX 4     /* planes of E held in registers */
#define GV_NR_MAX 32   /* rows per warp, at most */
#define GV_LANES_OUT 30

/* The rule's answer from the 9-cell count t3..t0 (centre included) and the centre c: leaf
 * n of lb is "born with n", of ls "survives with n - 1 neighbours" (all-zero or all-one
 * words), chosen per cell by the centre, then a multiplexer tree on the count's bits (counts
 * 8 and 9 have t2 = t1 = 0). */
__device__ __forceinline__ uint32_t genv_rule(const uint32_t *lb, const uint32_t *ls, uint32_t t3,
                                              uint32_t t2, uint32_t t1, uint32_t t0, uint32_t c) {
    uint32_t l[10];
#pragma unroll
    for (int n = 0; n < 10; n++) l[n] = sel(c, ls[n], lb[n]);
    uint32_t a0 = sel(t0, l[1], l[0]), a1 = sel(t0, l[3], l[2]), a2 = sel(t0, l[5], l[4]),
             a3 = sel(t0, l[7], l[6]), a4 = sel(t0, l[9], l[8]);
    return sel(t3, a4, sel(t2, sel(t1, a3, a2), sel(t1, a1, a0)));
}

__device__ __forceinline__ void genv_body(const uint32_t *__restrict__ f,
                                          const uint32_t *__restrict__ e,
                                          uint32_t *__restrict__ fn, uint32_t *__restrict__ en,
                                          uint64_t nw, int64_t w, int64_t h, int torus,
                                          int64_t groups, int64_t total, int kk,
                                          const wlcu_mrule *__restrict__ ru, const unsigned P,
                                          const int nr) {
    __shared__ uint32_t edge[2][GV_WB][2][32]; /* [parity][warp][top, bottom][lane] */
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t out_rows = (int64_t)GV_WB * nr - 2 * kk;
    const uint64_t gplane = nw * (uint64_t)h;
    const unsigned last = ru->states - 1;
    uint32_t lb[10], ls[10];
#pragma unroll
    for (int n = 0; n < 10; n++) {
        lb[n] = n <= 8 && ((ru->birth >> n) & 1u) ? 0xffffffffu : 0u;
        ls[n] = n >= 1 && ((ru->survive >> (n - 1)) & 1u) ? 0xffffffffu : 0u;
    }
    int ph = 0;
    uint32_t v[GV_NR_MAX + 2], ev[GV_NR_MAX][GV_P_MAX];
    for (int64_t tile = blockIdx.x; tile < total; tile += gridDim.x) {
        const int64_t band = tile / groups, grp = tile % groups;
        const int64_t c = grp * GV_LANES_OUT + lane - 1;
        const int64_t r0 = band * out_rows - kk + (int64_t)warp * nr; /* row of v[1] */
        const int64_t col_lo = (grp * GV_LANES_OUT - 1) * 32;
        const int inside = r0 >= 0 && r0 + nr <= h && col_lo >= 0 && col_lo + 32 * 32 <= w;
        if (inside) {
            const uint64_t at = (uint64_t)r0 * nw + (uint64_t)c;
#pragma unroll
            for (int i = 0; i < nr; i++) {
                v[i + 1] = f[at + (uint64_t)i * nw];
#pragma unroll
                for (unsigned k = 0; k < P; k++) ev[i][k] = e[k * gplane + at + (uint64_t)i * nw];
            }
        } else {
#pragma unroll
            for (int i = 0; i < nr; i++) {
                v[i + 1] = wl_win32_call(f, nw, w, h, torus, r0 + i, c);
#pragma unroll
                for (unsigned k = 0; k < P; k++)
                    ev[i][k] = wl_win32_call(e + k * gplane, nw, w, h, torus, r0 + i, c);
            }
        }
        const int needmask = !torus && !inside;
        const uint32_t cm = wl_colmask(w, c);
#pragma unroll 1
        for (int g = 0; g < kk; g++) {
            STACKED_EXCHANGE(edge, ph, warp, lane, v, nr, GV_WB);
            /* rows in pairs sharing the middle sums, as LOP3_GENERATION */
            uint32_t a0, a1, b0, b1;
            HSUM(v[0], a0, a1);
            HSUM(v[1], b0, b1);
#pragma unroll
            for (int i = 1; i < nr + 1; i += 2) {
                uint32_t c0, c1, d0, d1;
                HSUM(v[i + 1], c0, c1);
                HSUM(v[i + 2], d0, d1);
                uint32_t q0 = b0 ^ c0, cy = b0 & c0;
                uint32_t q1 = b1 ^ c1 ^ cy, q2 = (b1 & c1) | (cy & (b1 ^ c1));
                uint32_t t[2];
#pragma unroll
                for (int r = 0; r < 2; r++) { /* 9-cell count = (x1 x0) + (q2 q1 q0) */
                    uint32_t x0 = r ? d0 : a0, x1 = r ? d1 : a1;
                    uint32_t s0 = x0 ^ q0, k0 = x0 & q0;
                    uint32_t s1 = x1 ^ q1 ^ k0, k1 = (x1 & q1) | (k0 & (x1 ^ q1));
                    t[r] = genv_rule(lb, ls, q2 & k1, q2 ^ k1, s1, s0, v[i + r]);
                    WL_GEN_DECAY(t[r], v[i + r], ev[i + r - 1], P, last);
                }
                v[i] = t[0];
                v[i + 1] = t[1];
                a0 = c0;
                a1 = c1;
                b0 = d0;
                b1 = d1;
            }
            if (needmask) {
#pragma unroll
                for (int i = 1; i <= nr; i++) {
                    uint32_t mk = (uint64_t)(r0 + i - 1) < (uint64_t)h ? cm : 0u;
                    v[i] &= mk;
#pragma unroll
                    for (unsigned k = 0; k < P; k++) ev[i - 1][k] &= mk;
                }
            }
        }
        if (lane >= 1 && lane <= GV_LANES_OUT && (uint64_t)c < nw) {
#pragma unroll
            for (int i = 1; i <= nr; i++) {
                const int bl = warp * nr + i - 1; /* row within the tile */
                const int64_t y = r0 + i - 1;
                if (bl >= kk && bl < GV_WB * nr - kk && y < h) {
                    const uint64_t at = (uint64_t)y * nw + (uint64_t)c;
                    fn[at] = v[i] & cm;
#pragma unroll
                    for (unsigned k = 0; k < P; k++) en[k * gplane + at] = ev[i - 1][k] & cm;
                }
            }
        }
    }
}

typedef void (*genv_fn)(const uint32_t *, const uint32_t *, uint32_t *, uint32_t *, uint64_t,
                        int64_t, int64_t, int, int64_t, int64_t, int, const wlcu_mrule *);
#define GENV_KERNEL(P, NR, MINB)                                                                 __global__ void __launch_bounds__(GV_WB * 32, MINB)                                              k_genv##P(const uint32_t *f, const uint32_t *e, uint32_t *fn, uint32_t *en,                            uint64_t nw, int64_t w, int64_t h, int torus, int64_t groups, int64_t total,                   int kk, const wlcu_mrule *__restrict__ ru) {                                       genv_body(f, e, fn, en, nw, w, h, torus, groups, total, kk, ru, P, NR);                  }
GENV_KERNEL(1, 32, 2)
GENV_KERNEL(2, 24, 2)
GENV_KERNEL(3, 16, 2)
GENV_KERNEL(4, 16, 2)
static const genv_fn genv_kernels[GV_P_MAX + 1] = {NULL, k_genv1, k_genv2, k_genv3, k_genv4};
static const int genv_rows[GV_P_MAX + 1] = {0, 32, 24, 16, 16};

/* ---- Larger than Life ------------------------------------------------------------------- */

/* Whether a cell whose firing bit is `self` and whose count (the cell excluded) is c
 * fires next. */
__device__ __forceinline__ int ltl_alive(const wlcu_mrule *ru, unsigned self, unsigned c) {
    return self ? in_iv(ru->iv[1], ru->ns, c + ru->middle) : in_iv(ru->iv[0], ru->nb, c);
}

/* The next firing bits of 32 cells from their counts (outer: the cell excluded). */
__device__ __forceinline__ uint32_t ltl_test(const wlcu_mrule *ru, const unsigned *cnt,
                                             uint32_t self) {
    uint32_t out = 0;
    for (int k = 0; k < 32; k++) out |= (uint32_t)ltl_alive(ru, (self >> k) & 1u, cnt[k]) << k;
    return out;
}

/* ---- k_ltl_bits: Moore counts bit-sliced (see the essay) ---- */

#define LB_THREADS 128
#define LB_ROWS 256 /* rows of a thread's strip at most */
#define LB_HB 6     /* bits of a row's window sum: 2R + 1 <= 63 */
#define LB_SB 12    /* bits of the square's count: (2R + 1)^2 <= 3969 */
#define LB_RING_MAXR 12 /* ranges that keep their rows' window sums in shared memory */

/* The window sums of the 32 cells of word m (cells x - R .. x + R, the words l and r on
 * its left and right) as hb bit planes, by carry-save adders: the k-th shifted copy enters
 * level 0, where every second one meets the previous one in a full adder with the level's
 * running sum bit and sends the carry a level up (a binary counter of arrivals, so which
 * steps add is known at compile time for each k); a last ripple adds the copies still
 * waiting at each level (those whose count of arrivals is odd: the bits of the span). */
__device__ __forceinline__ void lb_hsum(uint32_t l, uint32_t m, uint32_t r, int R, int hb,
                                        uint32_t *hs) {
    const int span = 2 * R + 1;
    uint32_t acc[LB_HB], wait[LB_HB];
#pragma unroll
    for (int i = 0; i < LB_HB; i++) acc[i] = wait[i] = 0;
#pragma unroll
    for (int k = 0; k < 63; k++) {
        if (k < span) {
            const int d = k - R;
            uint32_t x = d < 0 ? __funnelshift_l(l, m, (unsigned)-d)
                               : d > 0 ? __funnelshift_r(m, r, (unsigned)d) : m;
            int j = k;
#pragma unroll
            for (int i = 0; i < LB_HB; i++) {
                if (!(j & 1)) {
                    wait[i] = x;
                    break;
                }
                uint32_t a = acc[i], b = wait[i];
                acc[i] = a ^ b ^ x;
                x = (a & b) | (x & (a ^ b));
                j >>= 1;
            }
        }
    }
    uint32_t carry = 0;
#pragma unroll
    for (int i = 0; i < LB_HB; i++) {
        uint32_t b = (span >> i) & 1 ? wait[i] : 0u, a = acc[i];
        hs[i] = a ^ b ^ carry;
        carry = (a & b) | (carry & (a ^ b));
    }
    (void)hb;
}

/* S += H (sign 1) or S -= H (sign -1), sb bits (two's complement: S + ~H + 1). */
__device__ __forceinline__ void lb_add(uint32_t *S, const uint32_t *H, int hb, int sb, int sub) {
    uint32_t carry = sub ? 0xffffffffu : 0u, inv = sub ? 0xffffffffu : 0u;
#pragma unroll
    for (int i = 0; i < LB_SB; i++)
        if (i < sb) {
            uint32_t a = S[i], b = (i < hb ? H[i] : 0u) ^ inv;
            S[i] = a ^ b ^ carry;
            carry = (a & b) | (carry & (a ^ b));
        }
}

/* The masks of c's bits (0 or all ones), sb of them, for lb_ge_k / lb_le_k. */
__device__ __forceinline__ void lb_masks(uint32_t c, int sb, uint32_t *k) {
#pragma unroll
    for (int i = 0; i < LB_SB; i++)
        if (i < sb) k[i] = 0u - ((c >> i) & 1u);
}

/* 1 where S >= c, c's bits as masks k (a LOP3 a bit, from the low bit up). */
__device__ __forceinline__ uint32_t lb_ge_k(const uint32_t *S, int sb, const uint32_t *k) {
    uint32_t g = 0xffffffffu;
#pragma unroll
    for (int i = 0; i < LB_SB; i++)
        if (i < sb) g = (S[i] & g) | ((S[i] | g) & ~k[i]);
    return g;
}

/* 1 where S >= c (sb-bit counts, c < 2^sb): lb_ge_k with c's masks made bit by bit (for
 * the kernel that reads the range at run time, where lb_masks + lb_ge_k, the same logic,
 * ran 10-17% slower on the H100: its masks array of run-time length). */
__device__ __forceinline__ uint32_t lb_ge(const uint32_t *S, int sb, uint32_t c) {
    uint32_t g = 0xffffffffu;
#pragma unroll
    for (int i = 0; i < LB_SB; i++)
        if (i < sb) {
            uint32_t k = 0u - ((c >> i) & 1u), s = S[i];
            g = (s & g) | ((s | g) & ~k);
        }
    return g;
}

/* 1 where lo <= S <= hi (sb-bit counts). */
__device__ __forceinline__ uint32_t lb_within(const uint32_t *S, int sb, uint32_t lo, uint32_t hi) {
    uint32_t top = (1u << sb) - 1u;
    if (lo > top || lo > hi) return 0u;
    uint32_t in = lo ? lb_ge(S, sb, lo) : 0xffffffffu;
    if (hi < top) in &= ~lb_ge(S, sb, hi + 1u);
    return in;
}

/* The word of row y (y within R rows of the grid, h >= R), column X (X - 1 and X + 1
 * included), where the edges are whole words: a torus whose width is a multiple of 32
 * (rows and words wrap), or a bounded grid (dead outside; its last word's padding is 0). */
__device__ __forceinline__ uint32_t lb_edge_word(const uint32_t *f, uint64_t nw, int64_t h,
                                                 int torus, int64_t y, int64_t X) {
    if (y < 0 || y >= h) {
        if (!torus) return 0u;
        y = y < 0 ? y + h : y - h;
    }
    if (X < 0 || X >= (int64_t)nw) {
        if (!torus) return 0u;
        X = X < 0 ? X + (int64_t)nw : X - (int64_t)nw;
    }
    return f[(uint64_t)y * nw + (uint64_t)X];
}

/* One row's window sums: its three words loaded directly inside the grid; near its edges
 * through lb_edge_word where the edges are whole words (edge = 1), else through wl_win32.
 * (At 4096^2 every block of LB_THREADS threads spans the grid's width: two of its four
 * warps hold an edge column, and wl_win32's slow path, taken by one lane, held them up
 * for the others.) */
__device__ __forceinline__ void lb_row(const uint32_t *f, uint64_t nw, int64_t w, int64_t h,
                                       int torus, int inside, int edge, int64_t y, int64_t X,
                                       int R, int hb, uint32_t *H) {
    uint32_t l, m, r;
    if (inside) {
        const uint32_t *p = f + (uint64_t)y * nw + (uint64_t)X;
        l = p[-1];
        m = p[0];
        r = p[1];
    } else if (edge) {
        l = lb_edge_word(f, nw, h, torus, y, X - 1);
        m = lb_edge_word(f, nw, h, torus, y, X);
        r = lb_edge_word(f, nw, h, torus, y, X + 1);
    } else {
        l = wl_win32_call(f, nw, w, h, torus, y, X - 1);
        m = wl_win32_call(f, nw, w, h, torus, y, X);
        r = wl_win32_call(f, nw, w, h, torus, y, X + 1);
    }
    lb_hsum(l, m, r, R, hb, H);
}

/* Bits of v's binary form (v < 64), folded at compile time for a constant v. */
__device__ __forceinline__ int lb_bits(int v) {
    return v < 2 ? 1 : v < 4 ? 2 : v < 8 ? 3 : v < 16 ? 4 : v < 32 ? 5 : v < 64 ? 6
         : v < 128 ? 7 : v < 256 ? 8 : v < 512 ? 9 : v < 1024 ? 10 : v < 2048 ? 11 : 12;
}

/* 1 where S <= c, c's bits as masks k. */
__device__ __forceinline__ uint32_t lb_le_k(const uint32_t *S, int sb, const uint32_t *k) {
    uint32_t l = 0xffffffffu;
#pragma unroll
    for (int i = 0; i < LB_SB; i++)
        if (i < sb) l = (~S[i] & l) | ((~S[i] | l) & k[i]);
    return l;
}

/* The body of the k_ltl_bits kernels.  RC: the range when it is known at compile time (the
 * adders and the comparisons unrolled for it), else 0 (read from the rule).  lim: where
 * RC is known, the rule as one birth and one survival interval of the square's count
 * (the cell included), clamped to the count's sb bits (lim.x <= lim.y, lim.z <= lim.w);
 * else the rule's intervals are read.  rows: the strip's height.  For ranges up to
 * LB_RING_MAXR each thread keeps the window sums of its last 2R + 1 rows in shared memory
 * (a ring, conflict-free: a thread a column), so that a row leaving the square is not
 * summed again. */
__device__ __forceinline__ void lb_body(const uint32_t *f, uint32_t *fn, uint64_t nw, int64_t w,
                                        int64_t h, int torus, int rows, const wlcu_mrule &ru,
                                        uint4 lim, int edge_ok, const int RC) {
    extern __shared__ uint32_t ring[]; /* [slot][plane < hb][thread] */
    const int64_t X = (int64_t)blockIdx.x * LB_THREADS + threadIdx.x;
    if (X >= (int64_t)nw) return;
    const int R = RC ? RC : ru.R, span = 2 * R + 1, use_ring = R <= LB_RING_MAXR;
    const int hb = lb_bits(span), sb = lb_bits(span * span);
    const int64_t y0 = (int64_t)blockIdx.y * rows;
    const int64_t y1 = y0 + rows < h ? y0 + rows : h;
    const int64_t ylast = y1 + R - 1 > y0 + R ? y1 + R - 1 : y0 + R; /* the last row read */
    const int inside = y0 - R >= 0 && ylast < h && X >= 1 && (X + 2) * 32 <= w;
    const int edge = !inside && edge_ok && (!torus || w == (int64_t)nw * 32) && h >= R;
    const uint32_t colmask = wl_colmask(w, X);
    uint32_t *mine = ring + threadIdx.x;
    uint32_t S[LB_SB], H[LB_HB], G[LB_HB];
    uint32_t kbl[LB_SB], kbh[LB_SB], ksl[LB_SB], ksh[LB_SB];
    if (RC) {
        lb_masks(lim.x, sb, kbl);
        lb_masks(lim.y, sb, kbh);
        lb_masks(lim.z, sb, ksl);
        lb_masks(lim.w, sb, ksh);
    }
#pragma unroll
    for (int i = 0; i < LB_SB; i++) S[i] = 0;
    for (int k = 0; k < span; k++) { /* the first square: rows y0 - R .. y0 + R */
        lb_row(f, nw, w, h, torus, inside, edge, y0 - R + k, X, R, hb, H);
        lb_add(S, H, hb, sb, 0);
        if (use_ring)
#pragma unroll
            for (int i = 0; i < LB_HB; i++)
                if (i < hb) mine[(k * hb + i) * LB_THREADS] = H[i];
    }
    int slot = 0; /* the ring slot of row y - R, which row y + R + 1 takes over */
    for (int64_t y = y0; y < y1; y++) {
        const uint32_t self = inside ? f[(uint64_t)y * nw + (uint64_t)X]
                              : edge ? lb_edge_word(f, nw, h, torus, y, X)
                                     : wl_win32_call(f, nw, w, h, torus, y, X);
        uint32_t born = 0, kept = 0;
        if (RC) {
            born = lb_ge_k(S, sb, kbl) & lb_le_k(S, sb, kbh);
            kept = lb_ge_k(S, sb, ksl) & lb_le_k(S, sb, ksh);
        } else {
            for (unsigned k = 0; k < ru.nb; k++)
                born |= lb_within(S, sb, ru.iv[0][k][0], ru.iv[0][k][1]);
            /* a firing cell's count leaves itself out and adds M1's middle: S - 1 + middle */
            for (unsigned k = 0; k < ru.ns; k++)
                kept |= lb_within(S, sb, ru.iv[1][k][0] + 1u - ru.middle,
                                  ru.iv[1][k][1] + 1u - ru.middle);
        }
        fn[(uint64_t)y * nw + (uint64_t)X] = ((born & ~self) | (kept & self)) & colmask;
        if (y + 1 == y1) break;
        /* slide down: row y + R + 1 enters, row y - R leaves */
        lb_row(f, nw, w, h, torus, inside, edge, y + R + 1, X, R, hb, H);
        if (use_ring) {
#pragma unroll
            for (int i = 0; i < LB_HB; i++)
                if (i < hb) {
                    G[i] = mine[(slot * hb + i) * LB_THREADS];
                    mine[(slot * hb + i) * LB_THREADS] = H[i];
                }
            slot = slot + 1 == span ? 0 : slot + 1;
        } else {
            lb_row(f, nw, w, h, torus, inside, edge, y - R, X, R, hb, G);
        }
        lb_add(S, H, hb, sb, 0);
        lb_add(S, G, hb, sb, 1);
    }
}

typedef void (*lb_fn)(const uint32_t *, uint32_t *, uint64_t, int64_t, int64_t, int, int,
                      const wlcu_mrule *, uint4, int);
#define LB_KERNEL(RC)                                                                              \
    __global__ void __launch_bounds__(LB_THREADS, 6)                                               \
    k_ltl_bits##RC(const uint32_t *f, uint32_t *fn, uint64_t nw, int64_t w, int64_t h, int torus,  \
                   int rows, const wlcu_mrule *__restrict__ rule, uint4 lim, int edge_ok) {        \
        lb_body(f, fn, nw, w, h, torus, rows, *rule, lim, edge_ok, RC);                            \
    }
/* k_ltl_bits0 reads the range and the intervals from the rule; k_ltl_bitsR is range R with
 * one birth and one survival interval (most rules), compiled for ranges up to LB_FIXED_R. */
#define LB_FIXED_R 12
LB_KERNEL(0)
LB_KERNEL(1)
LB_KERNEL(2)
LB_KERNEL(3)
LB_KERNEL(4)
LB_KERNEL(5)
LB_KERNEL(6)
LB_KERNEL(7)
LB_KERNEL(8)
LB_KERNEL(9)
LB_KERNEL(10)
LB_KERNEL(11)
LB_KERNEL(12)
static const lb_fn lb_kernels[LB_FIXED_R + 1] = {
    k_ltl_bits0, k_ltl_bits1, k_ltl_bits2, k_ltl_bits3, k_ltl_bits4, k_ltl_bits5, k_ltl_bits6,
    k_ltl_bits7, k_ltl_bits8, k_ltl_bits9, k_ltl_bits10, k_ltl_bits11, k_ltl_bits12};

/* k_ltl_tile: one block a tile of LT_H rows x LT_W cells, a thread a column.  Shared
 * memory: the tile's reach as bits (RH rows x RWW words); the prefix sums across of each of
 * those rows' cells (16-bit, RC + 1 entries a row, entry 0 is 0); and the rule's answer for
 * each count (a byte for each count, firing and not, while counts stay below LT_TABLE).  A
 * thread walks its column down the tile's rows: for the Moore neighbourhood it keeps the
 * square's count and slides it down a row with two differences of prefix sums (the row
 * entering, the row leaving), for other shapes it sums the runs; a warp's ballot of the
 * answers of 32 consecutive columns is an output word. */
__global__ void __launch_bounds__(LT_THREADS)
k_ltl_tile(const uint32_t *f, uint32_t *fn, uint64_t nw, int64_t w, int64_t h, int torus,
           const int4 *runs, const wlcu_mrule *__restrict__ rule, int tn) {
    extern __shared__ uint32_t sm[];
    const wlcu_mrule &ru = *rule;
    const int R = ru.R, Ry = ru.Ry;
    const int RP = (R + 31) / 32 * 32;  /* columns of reach, rounded to words */
    const int RWW = (LT_W + 2 * RP) / 32; /* words a row */
    const int RC = LT_W + 2 * RP;         /* cells a row */
    const int RH = LT_H + 2 * Ry;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    uint32_t *bits = sm;
    uint16_t *sums = (uint16_t *)(sm + RH * RWW);
    uint8_t *tab = (uint8_t *)(sums + RH * (RC + 1) + 2); /* tab[self * tn + count] */
    const int64_t y0 = (int64_t)blockIdx.y * LT_H, x0 = (int64_t)blockIdx.x * LT_W;
    const int64_t xw = x0 / 32 - RP / 32; /* virtual word column of bits' word 0 */
    for (int j = warp; j < RH; j += warps)
        for (int i = lane; i < RWW; i += 32)
            bits[j * RWW + i] = wl_win32(f, nw, w, h, torus, y0 - Ry + j, xw + i);
    for (int k = threadIdx.x; k < 2 * tn; k += blockDim.x)
        tab[k] = (uint8_t)ltl_alive(&ru, k >= tn, (unsigned)(k >= tn ? k - tn : k));
    __syncthreads();
    /* prefix sums across of each row, a warp a row, a lane a cell of each word */
    const unsigned upto = lane == 31 ? 0xffffffffu : (2u << lane) - 1u;
    for (int j = warp; j < RH; j += warps) {
        uint16_t *row = sums + j * (RC + 1);
        unsigned carry = 0;
        for (int q = 0; q < RWW; q++) {
            uint32_t v = bits[j * RWW + q];
            row[q * 32 + lane + 1] = (uint16_t)(carry + __popc(v & upto));
            carry += __popc(v);
        }
        if (lane == 0) row[0] = 0;
    }
    __syncthreads();
    const int c = RP + threadIdx.x;       /* this thread's column in bits and sums */
    const int64_t X = x0 / 32 + warp;     /* the output word of this warp */
    const int live_word = X < (int64_t)nw;
    const uint32_t colmask = wl_colmask(w, X);
    unsigned cnt = 0;
    if (ru.moore) /* the square around the first row: rows 0 .. 2 Ry */
        for (int dy = 0; dy <= 2 * Ry; dy++) {
            const uint16_t *p = sums + dy * (RC + 1);
            cnt += (uint16_t)(p[c + R + 1] - p[c - R]);
        }
    const int jmax = h - y0 < LT_H ? (int)(h - y0) : LT_H; /* (block-uniform) */
#pragma unroll 4
    for (int j = 0; j < jmax; j++) {
        int64_t Y = y0 + j;
        unsigned self = (bits[(j + Ry) * RWW + c / 32] >> (c & 31)) & 1u, count;
        if (ru.moore) {
            count = cnt - self;
            if (j + 1 < LT_H) { /* slide down: row j + 2 Ry + 1 enters, row j leaves */
                const uint16_t *in = sums + (j + 2 * Ry + 1) * (RC + 1), *out = sums + j * (RC + 1);
                cnt += (uint16_t)(in[c + R + 1] - in[c - R]);
                cnt -= (uint16_t)(out[c + R + 1] - out[c - R]);
                cnt &= 0xffffu;
            }
        } else {
            int par = ru.nruns[1] ? (int)((x0 + threadIdx.x + Y) & 1) : 0;
            const int4 *rr = runs + (par ? ru.nruns[0] : 0);
            int nr = ru.nruns[par];
            unsigned s = 0;
            for (int t = 0; t < nr; t++) {
                int4 r = __ldg(rr + t);
                const uint16_t *p = sums + (j + Ry + r.x) * (RC + 1);
                s += (uint16_t)(p[c + r.z + 1] - p[c + r.y]);
            }
            count = s & 0xffffu;
        }
        int alive = (int)count < tn ? tab[self * tn + count] : ltl_alive(&ru, self, count);
        uint32_t word = __ballot_sync(0xffffffffu, alive);
        if (lane == 0 && live_word) fn[(uint64_t)Y * nw + (uint64_t)X] = word & colmask;
    }
}

/* k_ltl_global, first pass: the prefix sums of each row extended by R columns on each side
 * (wrapped on a torus, dead on a bounded grid): p[i] = firing cells among columns
 * -R .. i - R - 1.  One block a row (of at most 1024 threads). */
__global__ void k_row_prefix(const uint32_t *f, uint32_t *prefix, uint64_t nw, int64_t w,
                             int64_t h, int torus, int R, int2 *extent) {
    __shared__ unsigned part[32];
    __shared__ int lo, hi;
    int64_t y = blockIdx.x;
    if (extent) { /* the row's first and last word with a firing cell (hi < 0: none) */
        if (threadIdx.x == 0) lo = INT_MAX, hi = -1;
        __syncthreads();
        const uint32_t *r = f + (uint64_t)y * nw;
        for (uint64_t X = threadIdx.x; X < nw; X += blockDim.x)
            if (r[X]) {
                atomicMin(&lo, (int)X);
                atomicMax(&hi, (int)X);
            }
        __syncthreads();
        if (threadIdx.x == 0) extent[y] = make_int2(lo, hi);
    }
    /* the extended row a block-width of cells at a time, each thread one cell (the stores
     * coalesced): a scan within each warp by shuffles, then of the warps' totals, then the
     * running total of the chunks before */
    int64_t n = w + 2 * R; /* cells of the extended row */
    const uint32_t *row = f + (uint64_t)y * nw;
    uint32_t *p = prefix + (uint64_t)y * (uint64_t)(n + 1);
    const unsigned lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    if (threadIdx.x == 0) p[0] = 0;
    unsigned carry = 0;
    for (int64_t base = 0; base < n; base += blockDim.x) {
        int64_t i = base + threadIdx.x, x = i - R;
        unsigned v = 0;
        if (i < n && x >= 0 && x < w) v = bit_of(row, (int)x);
        else if (i < n && torus) v = bit_of(row, (int)wl_dmod(x, w));
        for (int o = 1; o < 32; o <<= 1) {
            unsigned t = __shfl_up_sync(0xffffffffu, v, o);
            if (lane >= (unsigned)o) v += t;
        }
        if (lane == 31) part[wid] = v;
        __syncthreads();
        if (wid == 0) {
            unsigned t = lane < nwarps ? part[lane] : 0;
            for (int o = 1; o < 32; o <<= 1) {
                unsigned u = __shfl_up_sync(0xffffffffu, t, o);
                if (lane >= (unsigned)o) t += u;
            }
            part[lane] = t; /* the warps' running totals */
        }
        __syncthreads();
        if (i < n) p[i + 1] = carry + (wid ? part[wid - 1] : 0) + v;
        carry += part[nwarps - 1];
        __syncthreads(); /* (part is written again by the next chunk) */
    }
}

/* k_ltl_global, second pass: one thread a word, the runs summed from the row prefix sums. */
__global__ void k_ltl_global(const uint32_t *f, const uint32_t *prefix, uint32_t *fn, uint64_t nw,
                             int64_t w, int64_t h, int torus, const int4 *runs,
                             const wlcu_mrule *__restrict__ rule) {
    const wlcu_mrule &ru = *rule;
    uint64_t n = nw * (uint64_t)h;
    uint64_t rowlen = (uint64_t)(w + 2 * ru.R + 1);
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        int64_t Y = (int64_t)(i / nw), X = (int64_t)(i % nw);
        uint32_t self = f[i];
        unsigned cnt[32];
        for (int k = 0; k < 32; k++) {
            int64_t x = X * 32 + k;
            int par = ru.nruns[1] ? (int)((x + Y) & 1) : 0;
            const int4 *rr = runs + (par ? ru.nruns[0] : 0);
            unsigned s = 0;
            if (x < w)
                for (int t = 0; t < ru.nruns[par]; t++) {
                    int4 r = rr[t];
                    int64_t yy = Y + r.x;
                    if (yy < 0 || yy >= h) {
                        if (!torus) continue;
                        yy = wl_dmod(yy, h);
                    }
                    const uint32_t *p = prefix + (uint64_t)yy * rowlen;
                    s += p[x + r.z + 1 + ru.R] - p[x + r.y + ru.R];
                }
            cnt[k] = s;
        }
        fn[i] = ltl_test(&ru, cnt, self) & wl_colmask(w, X);
    }
}

/* k_ltl_square: the Moore square past the tile's reach (Golly's ranges reach 500, where
 * k_ltl_global would sum 2R + 1 runs a cell).  A thread takes a column of a strip of
 * rows (LS_ROWS or more): a row's window sum around the column is one difference of the
 * row's prefix sums (k_row_prefix), the square's count (the cell included) starts as the
 * sum of the 2R + 1 rows around the strip's first and slides down by one entering and one
 * leaving row a row; a warp's ballot of its 32 columns is the output word.  On a bounded grid without
 * B0, words farther than R from every firing cell of the rows within the strip's reach are
 * written dead without counting (k_row_prefix notes each row's first and last live word). */
#define LS_ROWS 128         /* rows of a strip at least ... */
#define LS_THREADS_AIM (1 << 17) /* ... and more while the grid still gives this many threads */
#define LS_THREADS 128

/* Row yy's window sum (columns x - R .. x + R; wrapped or dead rows). */
__device__ __forceinline__ unsigned ls_row(const uint32_t *prefix, uint64_t rowlen, int64_t yy,
                                           int64_t h, int torus, int64_t x, int R) {
    if (yy < 0 || yy >= h) {
        if (!torus) return 0;
        yy = wl_dmod(yy, h);
    }
    const uint32_t *p = prefix + (uint64_t)yy * rowlen;
    return p[x + 2 * R + 1] - p[x];
}

__global__ void k_ltl_square(const uint32_t *f, const uint32_t *prefix, uint32_t *fn, uint64_t nw,
                             int64_t w, int64_t h, int torus, const wlcu_mrule *__restrict__ rule,
                             const int2 *extent, int64_t rows) {
    const wlcu_mrule &ru = *rule;
    const int R = ru.R;
    const int64_t x = blockIdx.x * (int64_t)blockDim.x + threadIdx.x, X = x >> 5;
    const uint64_t rowlen = (uint64_t)(w + 2 * R + 1);
    const int64_t y0 = blockIdx.y * rows, y1 = y0 + rows < h ? y0 + rows : h;
    if (extent) { /* a bounded grid without B0: words out of every firing cell's reach are
                     dead (the grow engine's margins): the extents of the rows within reach
                     of the strip */
        __shared__ int lo, hi;
        if (threadIdx.x == 0) lo = INT_MAX, hi = -1;
        __syncthreads();
        int l = INT_MAX, r = -1;
        int64_t a = y0 - R < 0 ? 0 : y0 - R, b = y1 + R < h ? y1 + R : h;
        for (int64_t yy = a + threadIdx.x; yy < b; yy += blockDim.x) {
            int2 e = extent[yy];
            l = e.x < l ? e.x : l;
            r = e.y > r ? e.y : r;
        }
        if (r >= 0) {
            atomicMin(&lo, l);
            atomicMax(&hi, r);
        }
        __syncthreads();
        /* the word's columns X * 32 .. + 31 against the live columns, widened by R */
        if ((uint64_t)X < nw && (hi < 0 || X * 32 + 31 + R < (int64_t)lo * 32 ||
                                 X * 32 - R > (int64_t)hi * 32 + 31)) {
            if ((threadIdx.x & 31) == 0)
                for (int64_t y = y0; y < y1; y++) fn[(uint64_t)y * nw + (uint64_t)X] = 0;
            return;
        }
    }
    if ((uint64_t)X >= nw) return; /* (a whole warp: its 32 columns share the word) */
    const int inside = x < w;
    unsigned s = 0;
    if (inside)
        for (int64_t yy = y0 - R; yy <= y0 + R; yy++) s += ls_row(prefix, rowlen, yy, h, torus, x, R);
    for (int64_t y = y0; y < y1; y++) {
        unsigned me = inside ? (f[(uint64_t)y * nw + (uint64_t)X] >> (x & 31)) & 1u : 0u;
        int alive = inside && ltl_alive(&ru, me, s - me);
        uint32_t word = __ballot_sync(0xffffffffu, alive);
        if ((threadIdx.x & 31) == 0) fn[(uint64_t)y * nw + (uint64_t)X] = word;
        if (inside)
            s += ls_row(prefix, rowlen, y + R + 1, h, torus, x, R) -
                 ls_row(prefix, rowlen, y - R, h, torus, x, R);
    }
}

/* The decay of the other states, word by word: fn holds T on entry (see the essay). */
__global__ void k_decay(const uint32_t *f, uint32_t *fn, uint32_t *e, uint64_t n, unsigned P,
                        unsigned states) {
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t ev[WL_PATTERN_PLANES], d = 0;
        for (unsigned k = 0; k < P; k++) d |= ev[k] = e[k * n + i];
        uint32_t t = fn[i] & ~d, carry = d, eq = d;
        for (unsigned k = 0; k < P; k++) {
            uint32_t v = ev[k] ^ carry;
            carry &= ev[k];
            eq &= ((states - 1) >> k) & 1u ? v : ~v;
            ev[k] = v;
        }
        uint32_t died = f[i] & ~t;
        for (unsigned k = 0; k < P; k++) e[k * n + i] = (ev[k] & ~eq) | (k ? 0u : died);
        fn[i] = t;
    }
}

/* population: firing or any plane of E */
__global__ void k_multi_pop(const uint32_t *f, const uint32_t *e, uint64_t n, unsigned P,
                            unsigned long long *count) {
    unsigned long long local = 0;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t v = f[i];
        for (unsigned k = 0; k < P; k++) v |= e[k * n + i];
        local += (unsigned)__popc(v);
    }
    for (int o = 16; o; o >>= 1) local += __shfl_down_sync(0xffffffffu, local, o);
    if ((threadIdx.x & 31) == 0 && local) atomicAdd(count, local);
}

/* ---- host side --------------------------------------------------------------------------- */

/* 1 if table t is outer-totalistic on the neighbours of mask (index bits), with its masks. */
static int totalistic_on(const wl_rule *t, unsigned mask, unsigned *birth, unsigned *survive) {
    unsigned b = 0, s = 0, seen_b = 0, seen_s = 0;
    for (unsigned i = 0; i < 512; i++) {
        unsigned n = (unsigned)__builtin_popcount(i & mask), v = (unsigned)wl_rule_next(t, i);
        unsigned *m = (i & 16u) ? &s : &b, *seen = (i & 16u) ? &seen_s : &seen_b;
        if ((*seen >> n) & 1u) {
            if (((*m >> n) & 1u) != v) return 0;
        } else {
            *seen |= 1u << n;
            *m |= v << n;
        }
    }
    *birth = b;
    *survive = s;
    return 1;
}

typedef struct run_list {
    int4 *v;
    int n, cap, reach, reach_y, fail;
} run_list;

static void add_run(void *user, int dy, int x0, int x1) {
    run_list *l = (run_list *)user;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 256;
        int4 *nv = (int4 *)realloc(l->v, (size_t)cap * sizeof *nv);
        if (!nv) {
            l->fail = 1;
            return;
        }
        l->v = nv;
        l->cap = cap;
    }
    l->v[l->n++] = make_int4(dy, x0, x1, 0);
    if (-x0 > l->reach) l->reach = -x0;
    if (x1 > l->reach) l->reach = x1;
    if (dy > l->reach_y) l->reach_y = dy;
}

/* Whether a compiled-range k_ltl_bits kernel runs the rule (range up to LB_FIXED_R, one
 * birth and one survival interval, neither empty), and its intervals of the square's count
 * (the cell included) as that kernel reads them. */
static int lb_fixed(const wlcu_mrule *ru, uint4 *lim) {
    if (ru->R < 1 || ru->R > LB_FIXED_R || ru->nb != 1 || ru->ns != 1) return 0;
    const int span = 2 * ru->R + 1;
    int sb = 0;
    while ((span * span) >> sb) sb++;
    const uint32_t top = (1u << sb) - 1u;
    uint32_t bl = ru->iv[0][0][0], bh = ru->iv[0][0][1];
    uint32_t sl = ru->iv[1][0][0] + 1u - ru->middle, sh = ru->iv[1][0][1] + 1u - ru->middle;
    bh = bh > top ? top : bh;
    sh = sh > top ? top : sh;
    if (bl > bh || sl > sh) return 0;
    *lim = make_uint4(bl, bh, sl, sh);
    return 1;
}

/* Whether k_ltl_bits beats k_ltl_tile on a w x h grid at range R, as measured on the H100
 * (docs/BENCHMARKS.md): past range 12 it sums every row twice.  Compiled for the range
 * (lb_fixed), since its edge columns read whole words, it led at every size measured from
 * 512^2 on (1.4-3x there, 2-8x at 4096^2 and up, ranges 2 to 12; bounded 1024^2 1.1-2.5x);
 * smaller grids were not measured.  The kernel for any rule keeps the thresholds measured
 * before the edges changed. */
static int ltl_bits_pays(const wlcu_mrule *ru, uint64_t w, uint64_t h) {
    uint4 lim;
    double cells = (double)w * (double)h;
    if (ru->R > LB_RING_MAXR) return cells >= 268435456.0; /* 16384^2: equal there */
    if (lb_fixed(ru, &lim)) return cells >= 262144.0;
    return cells >= (ru->R <= 5 ? 16777216.0 : 67108864.0);
}

static wl_status rule_to_device(wlcu_multi *m) {
    WLCU_CHECK(cudaMalloc((void **)&m->d_rule, sizeof m->rule));
    WLCU_CHECK(cudaMemcpy(m->d_rule, &m->rule, sizeof m->rule, cudaMemcpyHostToDevice));
    return WL_OK;
}

extern "C" wl_status wlcu_multi_init(wlcu_ctx *c) {
    wlcu_multi *m = (wlcu_multi *)calloc(1, sizeof *m);
    if (!m) return wl_error(WL_ERR_NOMEM, "CUDA: out of memory");
    c->multi = m;
    wlcu_mrule *ru = &m->rule;
    const wl_rule *r = &c->rule;
    ru->states = wl_rule_states(r);
    ru->P = wl_grid_planes_for(r) - 1;
    WLCU_CHECK(cudaDeviceGetAttribute(&m->sms, cudaDevAttrMultiProcessorCount, c->device));
    uint64_t words = c->nw * c->h;
    if (ru->P) {
        WLCU_CHECK(cudaMalloc((void **)&m->ecur, (size_t)(ru->P * words * 4)));
        WLCU_CHECK(cudaMalloc((void **)&m->enxt, (size_t)(ru->P * words * 4)));
        WLCU_CHECK(cudaMemset(m->ecur, 0, (size_t)(ru->P * words * 4)));
        WLCU_CHECK(cudaMemset(m->enxt, 0, (size_t)(ru->P * words * 4)));
    }
    if (wl_rule_family(r) == WL_FAMILY_GENERATIONS) {
        static const unsigned masks[3] = {0x1EFu, 0x1ABu, 0x0AAu}; /* Moore, hex, vN */
        ru->table_rule = 1;
        for (int k = 0; k < 3 && ru->table_rule; k++)
            if (totalistic_on(r, masks[k], &ru->birth, &ru->survive)) {
                ru->nbmask = masks[k];
                ru->table_rule = 0;
            }
        for (unsigned i = 0; i < 512; i++)
            if (wl_rule_next(r, i)) ru->table[i >> 5] |= 1u << (i & 31);
        return rule_to_device(m);
    }
    /* Larger than Life */
    const wl_ltl *l = &r->ltl;
    run_list rl[2];
    memset(rl, 0, sizeof rl);
    for (int p = 0; p < 2; p++) wl_ltl_neighbourhood(l, p, add_run, &rl[p]);
    if (rl[0].fail || rl[1].fail) {
        free(rl[0].v);
        free(rl[1].v);
        return wl_error(WL_ERR_NOMEM, "CUDA: out of memory");
    }
    int same = rl[0].n == rl[1].n && !memcmp(rl[0].v, rl[1].v, (size_t)rl[0].n * sizeof(int4));
    ru->nruns[0] = rl[0].n;
    ru->nruns[1] = same ? 0 : rl[1].n;
    ru->R = rl[0].reach > rl[1].reach ? rl[0].reach : rl[1].reach;
    ru->Ry = rl[0].reach_y > rl[1].reach_y ? rl[0].reach_y : rl[1].reach_y;
    ru->moore = l->nh == 'M';
    ru->middle = l->middle;
    ru->nb = l->nbirth;
    ru->ns = l->nsurvive;
    memcpy(ru->iv[0], l->birth, sizeof l->birth);
    memcpy(ru->iv[1], l->survive, sizeof l->survive);
    size_t nr = (size_t)(ru->nruns[0] + ru->nruns[1]);
    cudaError_t e = cudaMalloc((void **)&m->runs, (nr ? nr : 1) * sizeof(int4));
    if (e == cudaSuccess)
        e = cudaMemcpy(m->runs, rl[0].v, (size_t)rl[0].n * sizeof(int4), cudaMemcpyHostToDevice);
    if (e == cudaSuccess && !same)
        e = cudaMemcpy(m->runs + rl[0].n, rl[1].v, (size_t)rl[1].n * sizeof(int4),
                       cudaMemcpyHostToDevice);
    free(rl[0].v);
    free(rl[1].v);
    WLCU_CHECK(e);
    /* counts in 16 bits (the tile's sums) need fewer than 2^16 - 1 cells around a cell */
    uint64_t size = wl_ltl_neighbourhood(l, 0, NULL, NULL);
    m->size = size;
    m->global_ltl = ru->R > LT_MAXR || ru->Ry > LT_MAXR || size + 2 >= 65535;
    /* k_ltl_bits for Moore squares up to range 31 (WL_CUDA_LTL=bits or tile forces one,
     * bits0 the bits kernel that reads any rule) */
    const char *force = getenv("WL_CUDA_LTL");
    int bits_ok = ru->moore && ru->R == ru->Ry && ru->R >= 1 && ru->R <= 31;
    int bits_force = force && (!strcmp(force, "bits") || !strcmp(force, "bits0"));
    m->bits_r = !(force && !strcmp(force, "bits0")) && lb_fixed(ru, &m->bits_lim) ? ru->R : 0;
    m->bits_ltl = bits_ok && (force && !strcmp(force, "tile") ? 0 : bits_force ? 1
                              : ltl_bits_pays(ru, c->w, c->h));
    const char *edge = getenv("WL_CUDA_LTL_EDGE");
    m->bits_edge = !(edge && !strcmp(edge, "slow"));
    /* (global: tests, k_ltl_square or k_ltl_global at any reach; runs: k_ltl_global for the
     * square too, to compare) */
    if (force && (!strcmp(force, "global") || !strcmp(force, "runs"))) {
        m->global_ltl = 1;
        m->bits_ltl = 0;
    }
    m->square = ru->moore && ru->R == ru->Ry && !(force && !strcmp(force, "runs"));
    if (m->global_ltl) {
        size_t bytes = (size_t)((c->w + 2 * (uint64_t)ru->R + 1) * c->h * 4);
        WLCU_CHECK(cudaMalloc((void **)&m->prefix, bytes));
        WLCU_CHECK(cudaMalloc((void **)&m->extent, (size_t)c->h * sizeof(int2)));
    }
    return rule_to_device(m);
}

extern "C" void wlcu_multi_release(wlcu_ctx *c) {
    wlcu_multi *m = (wlcu_multi *)c->multi;
    if (!m) return;
    cudaFree(m->ecur);
    cudaFree(m->enxt);
    cudaFree(m->runs);
    cudaFree(m->prefix);
    cudaFree(m->extent);
    cudaFree(m->d_box);
    cudaFree(m->d_rule);
    free(m);
    c->multi = NULL;
}

/* The host grid's planes (live cells, bits of state - 1) <-> F (cur) and E (ecur). */
extern "C" wl_status wlcu_multi_upload(wlcu_ctx *c, const wl_grid *g) {
    wlcu_multi *m = (wlcu_multi *)c->multi;
    unsigned P = m->rule.P;
    size_t gp = (size_t)(g->h * g->stride);
    unsigned planes = g->planes ? g->planes : 1;
    uint64_t *host = (uint64_t *)malloc((P + 1) * gp * 8);
    if (!host) return wl_error(WL_ERR_NOMEM, "CUDA: out of memory");
    for (size_t i = 0; i < gp; i++) { /* F = live & ~any E; E under live cells only */
        uint64_t live = g->words[i], any = 0;
        for (unsigned k = 0; k < P; k++) {
            uint64_t v = k + 1 < planes ? g->words[i + (k + 1) * gp] & live : 0;
            host[(k + 1) * gp + i] = v;
            any |= v;
        }
        host[i] = live & ~any;
    }
    wl_grid f = *g;
    f.words = host;
    f.planes = 1;
    wl_status s = wlcu_upload(c, &f);
    uint64_t words = c->nw * c->h;
    for (unsigned k = 0; k < P && !s; k++) {
        cudaError_t e = cudaMemcpy2D(m->ecur + k * words, (size_t)c->nw * 4, host + (k + 1) * gp,
                                     g->stride * 8, (size_t)c->nw * 4, (size_t)c->h,
                                     cudaMemcpyHostToDevice);
        if (e != cudaSuccess)
            s = wl_error(WL_ERR_DEVICE, "CUDA: upload of a state plane: %s", cudaGetErrorString(e));
    }
    free(host);
    return s;
}

extern "C" wl_status wlcu_multi_download(wlcu_ctx *c, wl_grid *g) {
    wlcu_multi *m = (wlcu_multi *)c->multi;
    unsigned P = m->rule.P;
    size_t gp = (size_t)(g->h * g->stride);
    unsigned planes = g->planes ? g->planes : 1;
    wl_grid f = *g;
    f.planes = 1;
    wl_status s = wlcu_download(c, &f); /* F into plane 0 (tails cleared) */
    if (s) return s;
    uint64_t *ep = (uint64_t *)calloc(P ? P * gp : 1, 8);
    if (!ep) return wl_error(WL_ERR_NOMEM, "CUDA: out of memory");
    uint64_t words = c->nw * c->h;
    for (unsigned k = 0; k < P && !s; k++) {
        cudaError_t e = cudaMemcpy2D(ep + k * gp, g->stride * 8, m->ecur + k * words,
                                     (size_t)c->nw * 4, (size_t)c->nw * 4, (size_t)c->h,
                                     cudaMemcpyDeviceToHost);
        if (e != cudaSuccess)
            s = wl_error(WL_ERR_DEVICE, "CUDA: download of a state plane: %s", cudaGetErrorString(e));
    }
    if (!s) { /* (the copies fill each row's first nw 32-bit words; the rest stays 0) */
        for (size_t i = 0; i < gp; i++) {
            uint64_t any = 0;
            for (unsigned k = 0; k < P; k++) {
                uint64_t v = ep[k * gp + i];
                any |= v;
                if (k + 1 < planes) g->words[i + (k + 1) * gp] = v;
            }
            g->words[i] |= any;
        }
    }
    free(ep);
    return s;
}

extern "C" wl_status wlcu_multi_population(wlcu_ctx *c, uint64_t *pop) {
    wlcu_multi *m = (wlcu_multi *)c->multi;
    uint64_t n = c->nw * c->h;
    WLCU_CHECK(cudaMemset(c->d_count, 0, sizeof(uint64_t)));
    k_multi_pop<<<wlcu_blocks(n, 256), 256>>>((const uint32_t *)c->cur, m->ecur, n, m->rule.P,
                                              (unsigned long long *)c->d_count);
    WLCU_CHECK_LAUNCH("multi_pop");
    WLCU_CHECK(cudaMemcpy(pop, c->d_count, sizeof(uint64_t), cudaMemcpyDeviceToHost));
    return WL_OK;
}

/* Whether k_ltl_square may skip what no firing cell reaches: a bounded grid, no B0. */
static int ltl_skip(const wlcu_ctx *c, const wlcu_multi *m) {
    return m->square && !c->torus && !(m->rule.nb && m->rule.iv[0][0][0] == 0);
}

/* ---- the grow engine's moves and measures, on the device ---- */

static void swap(void **a, void **b);

/* out (x, y) = in (x + dx, y + dy) for one plane of nw x h words, dead from outside. */
__global__ void k_shift(const uint32_t *in, uint32_t *out, uint64_t nw, int64_t w, int64_t h,
                        int64_t dx, int64_t dy) {
    uint64_t n = nw * (uint64_t)h;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        int64_t Y = (int64_t)(i / nw), X = (int64_t)(i % nw), sy = Y + dy;
        uint32_t v = 0;
        if (sy >= 0 && sy < h) {
            const uint32_t *row = in + (uint64_t)sy * nw;
            int64_t sx = X * 32 + dx, q = sx >= 0 ? sx / 32 : -((-sx + 31) / 32);
            unsigned sh = (unsigned)(sx - q * 32);
            uint32_t a = q >= 0 && q < (int64_t)nw ? row[q] : 0u;
            uint32_t b = sh && q + 1 >= 0 && q + 1 < (int64_t)nw ? row[q + 1] : 0u;
            v = (sh ? a >> sh | b << (32 - sh) : a) & wl_colmask(w, X);
        }
        out[i] = v;
    }
}

/* The box of the words with a live cell (firing or any plane of E): box[0..3] = first
 * column, first row, last column, last row (box[0] stays ~0 when there is none); a warp's
 * extremes first, then one atomic each. */
__global__ void k_box(const uint32_t *f, const uint32_t *e, uint64_t nw, uint64_t h, unsigned P,
                      unsigned long long *box) {
    uint64_t n = nw * h;
    unsigned long long x0 = ~0ull, y0 = ~0ull, x1 = 0, y1 = 0;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t v = f[i];
        for (unsigned k = 0; k < P; k++) v |= e[k * n + i];
        if (!v) continue;
        unsigned long long X = i % nw, Y = i / nw;
        unsigned long long a = X * 32 + (unsigned)(__ffs(v) - 1), b = X * 32 + 31 - (unsigned)__clz(v);
        x0 = a < x0 ? a : x0;
        x1 = b > x1 ? b : x1;
        y0 = Y < y0 ? Y : y0;
        y1 = Y > y1 ? Y : y1;
    }
    for (int o = 16; o; o >>= 1) {
        unsigned long long p0 = __shfl_xor_sync(0xffffffffu, x0, o), p1 = __shfl_xor_sync(0xffffffffu, y0, o);
        unsigned long long p2 = __shfl_xor_sync(0xffffffffu, x1, o), p3 = __shfl_xor_sync(0xffffffffu, y1, o);
        x0 = p0 < x0 ? p0 : x0;
        y0 = p1 < y0 ? p1 : y0;
        x1 = p2 > x1 ? p2 : x1;
        y1 = p3 > y1 ? p3 : y1;
    }
    if ((threadIdx.x & 31) == 0 && x0 != ~0ull) {
        atomicMin(&box[0], x0);
        atomicMin(&box[1], y0);
        atomicMax(&box[2], x1);
        atomicMax(&box[3], y1);
    }
}

extern "C" wl_status wlcu_multi_translate(wlcu_ctx *c, int64_t dx, int64_t dy) {
    wlcu_multi *m = (wlcu_multi *)c->multi;
    uint64_t n = c->nw * c->h;
    k_shift<<<wlcu_blocks(n, 256), 256>>>((const uint32_t *)c->cur, (uint32_t *)c->nxt, c->nw,
                                          (int64_t)c->w, (int64_t)c->h, dx, dy);
    WLCU_CHECK_LAUNCH("shift");
    swap(&c->cur, &c->nxt);
    for (unsigned k = 0; k < m->rule.P; k++) {
        k_shift<<<wlcu_blocks(n, 256), 256>>>(m->ecur + k * n, m->enxt + k * n, c->nw,
                                              (int64_t)c->w, (int64_t)c->h, dx, dy);
        WLCU_CHECK_LAUNCH("shift");
    }
    if (m->rule.P) swap((void **)&m->ecur, (void **)&m->enxt);
    return WL_OK;
}

extern "C" wl_status wlcu_multi_box(wlcu_ctx *c, uint64_t box[4], int *empty) {
    wlcu_multi *m = (wlcu_multi *)c->multi;
    uint64_t n = c->nw * c->h;
    unsigned long long init[4] = {~0ull, ~0ull, 0, 0};
    if (!m->d_box) WLCU_CHECK(cudaMalloc((void **)&m->d_box, sizeof init));
    WLCU_CHECK(cudaMemcpy(m->d_box, init, sizeof init, cudaMemcpyHostToDevice));
    k_box<<<wlcu_blocks(n, 256), 256>>>((const uint32_t *)c->cur, m->ecur, c->nw, c->h, m->rule.P,
                                        m->d_box);
    WLCU_CHECK_LAUNCH("box");
    WLCU_CHECK(cudaMemcpy(init, m->d_box, sizeof init, cudaMemcpyDeviceToHost));
    *empty = init[0] == ~0ull;
    for (int k = 0; k < 4; k++) box[k] = init[k];
    return WL_OK;
}

extern "C" wl_status wlcu_multi_clear(wlcu_ctx *c) {
    wlcu_multi *m = (wlcu_multi *)c->multi;
    if (m->rule.P) WLCU_CHECK(cudaMemset(m->ecur, 0, (size_t)(m->rule.P * c->nw * c->h * 4)));
    return WL_OK;
}

/* Whether the res kernel (cuda_res.cu) runs c's Generations rule (any whose planes fit: Moore
 * outer-totalistic ones as their 5-input network, hexagonal, von Neumann and MAP tables as
 * a network over the nine cells), on the grids res runs, compiled by NVRTC; unless
 * WL_CUDA_GEN forces another kernel. */
static int gen_res(wlcu_ctx *c, const wlcu_multi *m, const char *force) {
    const wlcu_mrule *ru = &m->rule;
    if (force && strcmp(force, "res")) return 0;
    const int moore = !ru->table_rule && ru->nbmask == 0x1EFu;
    c->birth = (uint16_t)ru->birth; /* the masks NVRTC builds a Moore rule's network from */
    c->survive = (uint16_t)ru->survive;
    if (wlcu_res_gen_prepare(c, ru->P, ru->states, !moore) == WL_OK) return 1;
    if (c->verbose)
        fprintf(stderr, "warplife: cuda generations: not by res (%s)\n", wl_last_error());
    wl_clear_error();
    return 0;
}

static void swap(void **a, void **b) {
    void *t = *a;
    *a = *b;
    *b = t;
}

extern "C" wl_status wlcu_multi_advance(wlcu_ctx *c, uint64_t gens) {
    wlcu_multi *m = (wlcu_multi *)c->multi;
    const wlcu_mrule *ru = &m->rule;
    uint64_t n = c->nw * c->h;
    if (wl_rule_family(&c->rule) == WL_FAMILY_GENERATIONS) {
        const char *force = getenv("WL_CUDA_GEN");
        if (!m->res) m->res = gen_res(c, m, force) ? 1 : -1;
        while (gens && m->res > 0) {
            const unsigned most = wlcu_res_max_gens(c);
            unsigned g = gens < most ? (unsigned)gens : most;
            wl_status s = wlcu_res_gen_step(c, g, m->ecur, m->enxt);
            if (s) return s;
            WLCU_CHECK_LAUNCH("generations (res)");
            swap(&c->cur, &c->nxt);
            swap((void **)&m->ecur, (void **)&m->enxt);
            gens -= g;
        }
        /* k_genv for Moore outer-totalistic rules of up to GV_P_MAX planes on grids of at
         * least two of its tiles per multiprocessor (on smaller ones its few large tiles
         * leave the GPU idle; H200, 23/3/3: 4096^2 (90 tiles) 1.8e12 against k_gen's 2.4e12,
         * 8192^2 (315 tiles) 4.5e12 against 3.8e12); WL_CUDA_GEN=tile or =regs picks one */
        int nr = ru->P <= GV_P_MAX ? genv_rows[ru->P] : 1;
        int64_t groups = (int64_t)((c->nw + GV_LANES_OUT - 1) / GV_LANES_OUT);
        int64_t tiles = groups * (int64_t)((c->h + GV_WB * nr - 1) / (GV_WB * nr));
        int regs = !ru->table_rule && ru->nbmask == 0x1EFu && ru->P >= 1 && ru->P <= GV_P_MAX &&
                   (force ? !strcmp(force, "regs") : tiles >= 2 * (int64_t)m->sms);
        /* k_gen's tile height: GT_HS where GT_H rows would give fewer than four blocks a
         * multiprocessor (H100, 4096^2: 23/3/3 2.59e12 against 2.28e12, 12/34/256 1.11e12
         * against 8.7e11; 16384^2: 3.93e12 against 4.31e12); WL_CUDA_GEN=tile32 or tile64
         * forces one */
        uint64_t cols = (c->nw + GT_W - 1) / GT_W;
        int th = force && !strcmp(force, "tile32")   ? GT_HS
                 : force && !strcmp(force, "tile64") ? GT_H
                 : cols * ((c->h + GT_H - 1) / GT_H) < 4 * (uint64_t)m->sms ? GT_HS
                                                                             : GT_H;
        while (gens && regs) {
            int kk = gens < GV_K ? (int)gens : GV_K;
            int64_t out_rows = (int64_t)GV_WB * nr - 2 * kk;
            int64_t total = groups * (int64_t)((c->h + out_rows - 1) / out_rows);
            int64_t blocks = total < 65535 * 256 ? total : 65535 * 256;
            genv_kernels[ru->P]<<<(unsigned)blocks, GV_WB * 32>>>(
                (const uint32_t *)c->cur, m->ecur, (uint32_t *)c->nxt, m->enxt, c->nw,
                (int64_t)c->w, (int64_t)c->h, c->torus, groups, total, kk, m->d_rule);
            WLCU_CHECK_LAUNCH("generations (registers)");
            swap(&c->cur, &c->nxt);
            swap((void **)&m->ecur, (void **)&m->enxt);
            gens -= (uint64_t)kk;
        }
        while (gens) {
            unsigned K = gens < GT_K ? (unsigned)gens : GT_K;
            size_t smem = (size_t)(2 + ru->P) * 32 * (th + 2 * K) * 4;
            gen_fn kern = gen_kernels[th == GT_HS][ru->P];
            WLCU_CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            (int)((2 + 8) * 32 * (GT_H + 2 * GT_K) * 4)));
            dim3 grid((unsigned)cols, (unsigned)((c->h + (uint64_t)th - 1) / (uint64_t)th));
            kern<<<grid, GT_THREADS, smem>>>((const uint32_t *)c->cur, m->ecur,
                                             (uint32_t *)c->nxt, m->enxt, c->nw, (int64_t)c->w,
                                             (int64_t)c->h, c->torus, K, m->d_rule);
            WLCU_CHECK_LAUNCH("generations");
            swap(&c->cur, &c->nxt);
            swap((void **)&m->ecur, (void **)&m->enxt);
            gens -= K;
        }
        return WL_OK;
    }
    for (; gens; gens--) {
        if (m->bits_ltl) {
            /* strips of LB_ROWS rows, shorter on small grids so that every multiprocessor
             * gets four blocks (each strip sums 2R + 1 rows before its first) */
            uint64_t cols = (c->nw + LB_THREADS - 1) / LB_THREADS;
            uint64_t rows = c->h * cols / (4 * (uint64_t)m->sms);
            rows = rows > LB_ROWS ? LB_ROWS : rows < 8 ? 8 : rows;
            int span = 2 * ru->R + 1, hb = 0;
            while (span >> hb) hb++;
            size_t smem = ru->R <= LB_RING_MAXR ? (size_t)span * (size_t)hb * LB_THREADS * 4 : 0;
            lb_fn kern = lb_kernels[m->bits_r];
            WLCU_CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            (2 * LB_RING_MAXR + 1) * LB_HB * LB_THREADS * 4));
            dim3 grid((unsigned)cols, (unsigned)((c->h + rows - 1) / rows));
            kern<<<grid, LB_THREADS, smem>>>((const uint32_t *)c->cur, (uint32_t *)c->nxt, c->nw,
                                             (int64_t)c->w, (int64_t)c->h, c->torus, (int)rows,
                                             m->d_rule, m->bits_lim, m->bits_edge);
            WLCU_CHECK_LAUNCH("ltl bits");
        } else if (m->global_ltl) {
            k_row_prefix<<<(unsigned)c->h, 256>>>((const uint32_t *)c->cur, m->prefix, c->nw,
                                                   (int64_t)c->w, (int64_t)c->h, c->torus, ru->R,
                                                   ltl_skip(c, m) ? m->extent : NULL);
            WLCU_CHECK_LAUNCH("ltl row prefix");
            if (m->square) {
                /* a strip's first row sums 2R + 1 rows: taller strips share that among more
                 * rows, as long as the grid keeps the GPU's threads busy */
                int64_t rows = (int64_t)(c->nw * 32 * c->h / LS_THREADS_AIM), most = 2 * (2 * ru->R + 1);
                rows = rows > most ? most : rows < LS_ROWS ? LS_ROWS : rows;
                dim3 grid((unsigned)((c->nw * 32 + LS_THREADS - 1) / LS_THREADS),
                          (unsigned)((c->h + (uint64_t)rows - 1) / (uint64_t)rows));
                k_ltl_square<<<grid, LS_THREADS>>>((const uint32_t *)c->cur, m->prefix,
                                                   (uint32_t *)c->nxt, c->nw, (int64_t)c->w,
                                                   (int64_t)c->h, c->torus, m->d_rule,
                                                   ltl_skip(c, m) ? m->extent : NULL, rows);
                WLCU_CHECK_LAUNCH("ltl square");
            } else {
                k_ltl_global<<<wlcu_blocks(n, 128), 128>>>((const uint32_t *)c->cur, m->prefix,
                                                            (uint32_t *)c->nxt, c->nw, (int64_t)c->w,
                                                            (int64_t)c->h, c->torus, m->runs, m->d_rule);
                WLCU_CHECK_LAUNCH("ltl global");
            }
        } else {
            int RP = (ru->R + 31) / 32 * 32, RWW = (LT_W + 2 * RP) / 32, RC = LT_W + 2 * RP;
            int RH = LT_H + 2 * ru->Ry;
            int tn = (int)(m->size + 2 < LT_TABLE ? m->size + 2 : LT_TABLE);
            size_t smem = (size_t)RH * RWW * 4 + ((size_t)RH * (RC + 1) + 2) * 2 + 2 * (size_t)tn + 16;
            WLCU_CHECK(cudaFuncSetAttribute(k_ltl_tile, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            200 * 1024));
            dim3 grid((unsigned)((c->w + LT_W - 1) / LT_W), (unsigned)((c->h + LT_H - 1) / LT_H));
            k_ltl_tile<<<grid, LT_THREADS, smem>>>((const uint32_t *)c->cur, (uint32_t *)c->nxt,
                                                   c->nw, (int64_t)c->w, (int64_t)c->h, c->torus,
                                                   m->runs, m->d_rule, tn);
            WLCU_CHECK_LAUNCH("ltl tile");
        }
        if (ru->P) {
            k_decay<<<wlcu_blocks(n, 256), 256>>>((const uint32_t *)c->cur, (uint32_t *)c->nxt,
                                                  m->ecur, n, ru->P, ru->states);
            WLCU_CHECK_LAUNCH("decay");
        }
        swap(&c->cur, &c->nxt);
    }
    return WL_OK;
}
