/*
 * wl_opencl_lop3v.cl - the opencl engine's fastest GPU kernel, wl_lop3v (`lop3v`, and `best`
 * on GPUs): the CUDA engine's `lop3v` design (src/engine/cuda/cuda_lop3v.cu) in OpenCL C.
 * Placed after wl_opencl.cl (whose win64 / vrow / vword helpers it uses) and after the
 * generated rule prefix (ocl_rule.c), which defines the macro WL_RULE5.
 *
 * What it computes: up to GENS generations of an outer-totalistic rule per launch (the host
 * passes k <= GENS), on a torus or a bounded grid.
 *
 * Layout: the device buffers hold the wl_grid layout (rows of NW 64-bit words); on a
 * little-endian device that is also rows of 2 NW 32-bit words with bit i of word j = column
 * 32 j + i, and this kernel reads and writes it as such.  A work group is LANES x WB items:
 * item (lane, ly) holds word column c = (LANES - 2) * group + lane - 1 of NR consecutive
 * rows in v[1..NR] (registers on a GPU); the WB items of one lane are stacked vertically, so
 * a group owns a tile of LANES words by WB * NR rows.  v[0] and v[NR + 1] hold the rows just
 * above and below the item's slice, taken from the vertical neighbours before every
 * generation (zero at the tile's top and bottom).
 *
 * Halo: lanes 0 and LANES - 1 and the GENS rows at the top and bottom of the tile are
 * recomputed, not exchanged between groups.  Wrong cells enter at the tile's edges and move
 * one cell per generation, so after k <= GENS <= 32 generations lanes 1..LANES-2 of tile rows
 * GENS .. WB*NR-GENS-1 are exact and are the words written.
 *
 * One generation of a row i (bit-parallel over 32 cells): the horizontal 3-sum of a row x is
 * s + 2c with xl / xr = x with its left / right neighbour cell at each bit (funnel shifts of
 * x with the neighbouring lanes' words), s = xl ^ x ^ xr and c = majority(xl, x, xr).  The
 * vertical sums of three rows' s and c are full adders too: S = x0 + 2k, C = y1 + 2 y2, and
 * the 9-cell total is T = S + 2C.  The rule maps (x0, k, y1, y2, centre) to the next state
 * through WL_RULE5, generated per rule by the host (a LOP3 network; Life's has 4 LOP3).
 * Rules that are not outer-totalistic get WL_RULE9 instead: a network of rulenet.c over the
 * nine cell planes and the sums (the host defines it; the kernel then keeps the west and
 * east planes of the two rows above as well).
 * With row i's sums carried to row i + 1, a row costs 2 neighbour exchanges, 2 funnel shifts,
 * 2 + 4 LOP3 for the sums and the rule's network.
 *
 * Two builds of the same algorithm:
 *   WL_NV = 1 (NVIDIA's OpenCL driver, warp = the 32 lanes of one ly): lanes exchange words
 *   with warp shuffles, LOP3 and funnel shifts are inline PTX, and vertical neighbours swap
 *   only their edge rows through local memory once per generation, double-buffered by the
 *   generation's parity so one barrier suffices (a row of parity p is written again only
 *   after every item has passed the next barrier, i.e. after all reads of parity p);
 *   WL_NV = 0 (any other device, PoCL in CI): every item publishes its rows in local memory
 *   (one array of WB * NR + 2 rows per tile, rows 0 and WB*NR+1 zero, so the rows above and
 *   below an item's slice are simply the next rows of the array), one barrier, then reads
 *   neighbouring lanes' words there; a second barrier before the next generation's writes.
 *   LOP3 becomes the boolean expression of its truth table, folded by the compiler.
 *
 * Why it is fast (H100 through NVIDIA's OpenCL: 3.24e13 cell updates/s at 65536^2 for Life,
 * against 1.38e13 for the 64-bit `wide` kernel; docs/BENCHMARKS.md): a tall tile (8 x 40
 * rows) recomputes few halo rows (320 computed for 288 written at GENS 16), 32 words per
 * warp keep loads and stores coalesced, a row costs 2 shuffles, 2 funnel shifts and 9 LOP3
 * per 32 cells for Life (lop3net's 3-gate network; the hand-placed 4-gate one measured 9%
 * slower), and the register cap (-cl-nv-maxrregcount, set by the host) keeps enough warps
 * resident.  The portable build on the same GPU runs at a third of that (1.05e13): local
 * memory traffic for every neighbour word and two barriers per generation.
 *
 * Edges: interior items load with one coalesced read per row; items whose slice touches the
 * grid's border read through vword (the periodic plane on a torus, dead cells outside a
 * bounded grid).  On a bounded grid those items also clear cells outside the grid after
 * every generation (B0 rules would otherwise give birth there).
 *
 * Build-time parameters (-D): WL_BLANES (LANES, 32 with WL_NV), WL_BWB (WB), WL_BNR (NR),
 * WL_BGENS (GENS), WL_BUNROLL (unroll the row loops: GPUs), WL_NV.  The host checks
 * 3 <= LANES, GENS <= 32, WB * NR > 2 GENS.
 */

#ifndef WL_NV
#define WL_NV 0
#endif
#ifndef WL_BLANES
#define WL_BLANES 32
#endif
#ifndef WL_BWB
#define WL_BWB 8
#endif
#ifndef WL_BNR
#define WL_BNR 40
#endif
#ifndef WL_BGENS
#define WL_BGENS 16
#endif
#ifndef WL_BUNROLL
#define WL_BUNROLL 0
#endif

#if WL_NV
/* d = the 3-input function with truth table lut of a, b, c (bit 4a + 2b + c of lut is the
 * result: 0x96 = a ^ b ^ c, 0xE8 = majority), one LOP3 instruction. */
#define LOP3(d, a, b, c, lut) \
    asm("lop3.b32 %0, %1, %2, %3, " #lut ";" : "=r"(d) : "r"(a), "r"(b), "r"(c))
/* xl: bit i = cell i - 1 (bit 0 from bit 31 of the left word l); xr: bit i = cell i + 1. */
#define SHL1(d, l, x) asm("shf.l.wrap.b32 %0, %1, %2, 1;" : "=r"(d) : "r"(l), "r"(x))
#define SHR1(d, x, r) asm("shf.r.wrap.b32 %0, %1, %2, 1;" : "=r"(d) : "r"(x), "r"(r))
/* The word of the lane to the left / right (the lane's own at the warp's ends: halo). */
#define NEIGH(i, x, l, r)                                                                  \
    do {                                                                                   \
        asm volatile("shfl.sync.up.b32 %0, %1, 1, 0, 0xffffffff;" : "=r"(l) : "r"(x));     \
        asm volatile("shfl.sync.down.b32 %0, %1, 1, 0x1f, 0xffffffff;" : "=r"(r) : "r"(x)); \
    } while (0)
#else
#define LOP3_TERM(a, b, c, lut, bit, ta, tb, tc) (((lut) >> (bit) & 1) ? ((ta) & (tb) & (tc)) : 0u)
#define LOP3(d, a, b, c, lut)                                                              \
    d = LOP3_TERM(a, b, c, lut, 7, (a), (b), (c)) | LOP3_TERM(a, b, c, lut, 6, (a), (b), ~(c)) | \
        LOP3_TERM(a, b, c, lut, 5, (a), ~(b), (c)) | LOP3_TERM(a, b, c, lut, 4, (a), ~(b), ~(c)) | \
        LOP3_TERM(a, b, c, lut, 3, ~(a), (b), (c)) | LOP3_TERM(a, b, c, lut, 2, ~(a), (b), ~(c)) | \
        LOP3_TERM(a, b, c, lut, 1, ~(a), ~(b), (c)) | LOP3_TERM(a, b, c, lut, 0, ~(a), ~(b), ~(c))
#define SHL1(d, l, x) d = ((x) << 1) | ((l) >> 31)
#define SHR1(d, x, r) d = ((x) >> 1) | ((r) << 31)
/* Row i of this item is row base + i of the local array; neighbouring lanes at ll, rr. */
#define NEIGH(i, x, l, r)                                                                  \
    do {                                                                                   \
        l = xch[base + (i)][ll];                                                           \
        r = xch[base + (i)][rr];                                                           \
    } while (0)
#endif

/* Horizontal 3-sum s + 2c of row i (word x); xl, xr its west and east neighbour planes. */
#define HSUM3X(i, x, xl, xr, s, c)                                                         \
    do {                                                                                   \
        uint l_, r_;                                                                       \
        NEIGH(i, x, l_, r_);                                                               \
        SHL1(xl, l_, (x));                                                                 \
        SHR1(xr, (x), r_);                                                                 \
        LOP3(s, xl, (x), xr, 0x96);                                                        \
        LOP3(c, xl, (x), xr, 0xE8);                                                        \
    } while (0)
#define HSUM3(i, x, s, c)                                                                  \
    do {                                                                                   \
        uint xl_, xr_;                                                                     \
        HSUM3X(i, x, xl_, xr_, s, c);                                                      \
    } while (0)

/* Mask of the cells of 32-bit word column c that lie inside a grid of width w. */
uint colmask32(long c, long w) {
    if (c < 0 || 32 * c >= w) return 0u;
    long rem = w - 32 * c;
    return rem >= 32 ? 0xFFFFFFFFu : (1u << (uint)rem) - 1u;
}

/* Global size (groups * LANES, bands * WB), local size (LANES, WB): group (gx, gy) is the
 * tile of word columns gx * (LANES - 2) - 1 ... and rows gy * ROUT - GENS ..., ROUT =
 * WB * NR - 2 GENS rows written per tile.  in/out: the wl_grid buffers (nw 64-bit words per
 * row), k: generations this launch (1..GENS). */
__kernel __attribute__((reqd_work_group_size(WL_BLANES, WL_BWB, 1))) void
wl_lop3v(__global const ulong *in, __global ulong *out64, long w, long h, long nw, int torus,
        int k) {
#if WL_NV
    __local uint edge[2][WL_BWB][2][WL_BLANES]; /* [parity][ly][0 top, 1 bottom row][lane] */
    int ph = 0;
#else
    __local uint xch[WL_BWB * WL_BNR + 2][WL_BLANES]; /* every row of the tile, zero ends */
#endif
    const int lane = (int)get_local_id(0), ly = (int)get_local_id(1);
    const long nw32 = 2 * nw; /* 32-bit words per row */
    const long rout = (long)WL_BWB * WL_BNR - 2 * WL_BGENS;
    const long gx = (long)get_group_id(0), gy = (long)get_group_id(1);
    const long c = gx * (WL_BLANES - 2) + lane - 1;
    const long r0 = gy * rout - WL_BGENS + (long)ly * WL_BNR; /* grid row of v[1] */
    const long col_lo = 32 * (gx * (WL_BLANES - 2) - 1);
    const int inside =
        r0 >= 0 && r0 + WL_BNR <= h && col_lo >= 0 && col_lo + 32 * WL_BLANES <= w;
    const uint cm = colmask32(c, w);
    uint v[WL_BNR + 2];
    if (inside) {
        __global const uint *p = (__global const uint *)in + r0 * nw32 + c;
#if WL_BUNROLL
#pragma unroll
#endif
        for (int i = 0; i < WL_BNR; i++) v[i + 1] = p[i * nw32];
    } else {
#if WL_BUNROLL
#pragma unroll
#endif
        for (int i = 0; i < WL_BNR; i++)
            v[i + 1] = (uint)vword(in, nw, w, h, torus, r0 + i, 32 * c);
    }
    const int needmask = !torus && !inside;
#if !WL_NV
    const int base = ly * WL_BNR; /* local row of v[0] */
    const int ll = lane > 0 ? lane - 1 : lane, rr = lane < WL_BLANES - 1 ? lane + 1 : lane;
    if (ly == 0) xch[0][lane] = 0u;
    if (ly == WL_BWB - 1) xch[WL_BWB * WL_BNR + 1][lane] = 0u;
#endif
    for (int g = 0; g < k; g++) {
#if WL_NV
        edge[ph][ly][0][lane] = v[1];
        edge[ph][ly][1][lane] = v[WL_BNR];
        barrier(CLK_LOCAL_MEM_FENCE);
        v[0] = ly > 0 ? edge[ph][ly - 1][1][lane] : 0u;
        v[WL_BNR + 1] = ly < WL_BWB - 1 ? edge[ph][ly + 1][0][lane] : 0u;
        ph ^= 1;
#else
#if WL_BUNROLL
#pragma unroll
#endif
        for (int i = 1; i <= WL_BNR; i++) xch[base + i][lane] = v[i];
        barrier(CLK_LOCAL_MEM_FENCE);
        v[0] = xch[base][lane];
        v[WL_BNR + 1] = xch[base + WL_BNR + 1][lane];
#endif
        uint sa, ca, sb, cb; /* horizontal sums of rows i - 1 and i */
#ifdef WL_RULE9
        /* any rule (ocl_rule.c's circuit prefix): the network reads the nine cell planes
         * (west / centre / east of rows i - 1, i, i + 1) and the sums */
        uint la, xa, ra, lb, rb;
        HSUM3X(0, v[0], la, ra, sa, ca);
        xa = v[0];
        HSUM3X(1, v[1], lb, rb, sb, cb);
#else
        HSUM3(0, v[0], sa, ca);
        HSUM3(1, v[1], sb, cb);
#endif
#if WL_BUNROLL
#pragma unroll
#endif
        for (int i = 1; i <= WL_BNR; i++) {
            uint sn, cn, x0, kk, y1, y2, n;
#ifdef WL_RULE9
            uint ln, rn;
            HSUM3X(i + 1, v[i + 1], ln, rn, sn, cn); /* row i + 1, old value */
#else
            HSUM3(i + 1, v[i + 1], sn, cn); /* row i + 1, old value */
#endif
            LOP3(x0, sa, sb, sn, 0x96);
            LOP3(kk, sa, sb, sn, 0xE8);
            LOP3(y1, ca, cb, cn, 0x96);
            LOP3(y2, ca, cb, cn, 0xE8);
#ifdef WL_RULE9
            {
                const uint c_nw = la, c_n = xa, c_ne = ra, c_w = lb, c_c = v[i], c_e = rb,
                           c_sw = ln, c_s = v[i + 1], c_se = rn, d_st = sa, d_ct = ca,
                           d_sm = sb, d_cm = cb, d_sb = sn, d_cb = cn, d_x0 = x0, d_k = kk,
                           d_y1 = y1, d_y2 = y2;
                WL_RULE9(n);
            }
            la = lb;
            ra = rb;
            xa = v[i];
            lb = ln;
            rb = rn;
#else
            WL_RULE5(n, x0, kk, y1, y2, v[i]);
#endif
            v[i] = n;
            sa = sb;
            ca = cb;
            sb = sn;
            cb = cn;
        }
        if (needmask) {
#if WL_BUNROLL
#pragma unroll
#endif
            for (int i = 1; i <= WL_BNR; i++) v[i] &= (ulong)(r0 + i - 1) < (ulong)h ? cm : 0u;
        }
#if !WL_NV
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
    }
    if (lane >= 1 && lane <= WL_BLANES - 2 && c < nw32) {
        __global uint *o = (__global uint *)out64;
#if WL_BUNROLL
#pragma unroll
#endif
        for (int i = 1; i <= WL_BNR; i++) {
            const int bl = ly * WL_BNR + i - 1; /* row within the tile */
            const long y = r0 + i - 1;
            if (bl >= WL_BGENS && bl < WL_BWB * WL_BNR - WL_BGENS && y < h)
                o[y * nw32 + c] = v[i] & cm;
        }
    }
}
