/*
 * wl_opencl.cl - the OpenCL C kernels of the opencl engine (embedded into the library at
 * build time by CMake; see embed_cl.cmake).
 *
 * What they compute: generations of a 2-state Moore-neighbourhood rule on a W x H grid, on
 * a torus (both edges wrap) or a bounded grid (cells outside are dead forever).
 *
 * Memory layout: the grid is row-major 64-bit words, NW = ceil(W / 64) words per row; bit
 * i of word j of a row is the cell in column 64 j + i (the library's wl_grid layout, so a
 * grid is copied to the device without conversion).  Bits past column W - 1 are zero in
 * every buffer between launches.
 *
 * Edges: every kernel reads through win64(), which returns the 64 cells starting at any
 * column x of any row of the "virtual plane": on a torus the periodic unrolling of the grid
 * (column x mod W, row y mod H), on a bounded grid the grid surrounded by dead cells.  A
 * word in the interior takes the fast path (one aligned load, or two for an unaligned
 * window); only words at an edge take the general loop, which copies the window in at most
 * a few pieces (64 pieces when W = 1).  Because the torus is handled by reading the periodic
 * plane, no kernel needs a padded copy, and any width or height works, even narrower than a
 * word or a work group.
 *
 * Kernels (wl_lop3v, the fastest on GPUs, is in wl_opencl_lop3v.cl, placed after this file):
 *   wl_wide    bitsliced, up to GENS generations per launch (temporal blocking).  A work
 *              group is LX x LY work-items; work-item (lx, ly) holds one word column of NR
 *              rows in private memory (registers on a GPU).  Columns lx = 0 and LX - 1 and
 *              the GENS rows at the top and bottom of each column are the halo: recomputed
 *              by this group instead of exchanged with others.  After g generations the
 *              garbage entering at the outer edge of the halo has moved g bits into the halo
 *              words and g rows in, so with GENS <= 63 and NR > 2 GENS the written cells
 *              (columns 1..LX-2, rows GENS..NR-GENS-1) are exact.  The only exchange is
 *              between neighbouring columns: each work-item publishes its rows in local
 *              memory once per generation and reads bit 63 of its left neighbour's words
 *              and bit 0 of its right neighbour's (whole words: a word load and one shift
 *              cost less than packing and unpacking edge bits).
 *   wl_simple  bitsliced, one generation per launch, one work-item per word (the baseline).
 *   wl_table   any rule: one generation per launch, one work-item per word, each cell's
 *              9-bit neighbourhood index looked up in the rule's 512-bit table.
 *   wl_popcount, wl_randomize   population (partial sums per work group) and seeded soups.
 *
 * One bitsliced generation of a 64-cell word v with its row neighbours u (above) and d
 * (below): xl / xr are the words shifted so that bit i holds the cell at column i - 1 /
 * i + 1; H(row) = xl + v + xr is a 2-bit horizontal sum per bit position; the 9-cell sum
 * S = H(up) + H(v) + H(down) has 4 bit planes s3..s0 (0..9); the rule maps (S, centre) to the
 * next state through wl_rule_eval(), which the host generates from the rule's birth and
 * survive masks and prepends to this source (see ocl_rule.c): a totalistic rule with
 * birth set B and survival set S is alive next iff (dead and S9 in B) or (alive and S9 - 1
 * in S).  About 20 word operations per 64 cell updates; the rule is folded by the compiler.
 *
 * Build-time parameters (-D): WL_LX, WL_LY (work-group shape of wl_wide), WL_NR (rows per
 * work-item), WL_GENS (generations per launch).  The host checks NR > 2 GENS, GENS <= 63,
 * LX >= 3.
 */

#ifndef WL_LX
#define WL_LX 32
#endif
#ifndef WL_LY
#define WL_LY 2
#endif
#ifndef WL_NR
#define WL_NR 64
#endif
#ifndef WL_GENS
#define WL_GENS 8
#endif

/* WL_FULL_UNROLL >= 1 (GPUs): unroll the row loops so that v[] lives in registers (2: the
 * generation loop too, so that each generation computes only the rows still needed).  CPUs
 * (PoCL) leave them rolled: LLVM compiles the program several times faster, and a private
 * array in memory costs little there. */
#ifndef WL_FULL_UNROLL
#define WL_FULL_UNROLL 0 /* 0: rolled loops; 1: row loops unrolled; 2: generations too */
#endif

#define ALL1 0xFFFFFFFFFFFFFFFFUL

/* Mask of the live columns of word column c (0 outside the grid, partial for the last). */
ulong colmask(long c, long w, long nw) {
    if (c < 0 || c >= nw) return 0UL;
    if (c == nw - 1 && (w & 63)) return ALL1 >> (64 - (w & 63));
    return ALL1;
}

/* The 64 cells of row `row` (already inside 0..h-1) from column x on, in the virtual plane
 * described at the top.  Interior windows take one or two loads. */
ulong win64(__global const ulong *g, long nw, long w, int torus, long row, long x) {
    __global const ulong *r = g + row * nw;
    if (x >= 0 && x + 64 <= w) {
        long j = x >> 6;
        int sh = (int)(x & 63);
        if (sh == 0) return r[j];
        return (r[j] >> sh) | (r[j + 1] << (64 - sh));
    }
    ulong out = 0;
    int pos = 0;
    while (pos < 64) {
        long col = x + pos;
        int n;
        if (torus) {
            col %= w;
            if (col < 0) col += w;
        } else if (col < 0) {
            long z = -col; /* dead cells before column 0 */
            pos += z >= 64 - pos ? 64 - pos : (int)z;
            continue;
        } else if (col >= w) {
            break; /* dead to the end of the window */
        }
        /* Take bits from word col / 64 up to the word's end, the grid's end or the window's. */
        int bit = (int)(col & 63);
        long left_in_row = w - col;
        n = 64 - bit;
        if ((long)n > left_in_row) n = (int)left_in_row;
        if (n > 64 - pos) n = 64 - pos;
        ulong bits = r[col >> 6] >> bit;
        if (n < 64) bits &= (1UL << n) - 1UL;
        out |= bits << pos;
        pos += n;
    }
    return out;
}

/* Row index in the virtual plane: wrapped on a torus, -1 when outside a bounded grid. */
long vrow(long y, long h, int torus) {
    if (torus) {
        y %= h;
        return y < 0 ? y + h : y;
    }
    return (y < 0 || y >= h) ? -1 : y;
}

/* The word of virtual row y (any integer) starting at column x. */
ulong vword(__global const ulong *g, long nw, long w, long h, int torus, long y,
                   long x) {
    long row = vrow(y, h, torus);
    return row < 0 ? 0UL : win64(g, nw, w, torus, row, x);
}

/* 4-bit sum of three 2-bit horizontal sums (a1 a0) + (b1 b0) + (c1 c0) = s3 s2 s1 s0. */
#define SUM3(a0, a1, b0, b1, c0, c1, s0, s1, s2, s3)                                       \
    do {                                                                                   \
        ulong t0_ = (a0) ^ (b0), k0_ = (a0) & (b0);                                        \
        s0 = t0_ ^ (c0);                                                                   \
        ulong k1_ = k0_ | (t0_ & (c0)); /* carry into bit 1 (0 or 1) */                    \
        ulong u1_ = (a1) ^ (b1), m1_ = (a1) & (b1);                                        \
        ulong v1_ = u1_ ^ (c1), n1_ = m1_ | (u1_ & (c1)); /* a1+b1+c1 = 2 n1 + v1 */       \
        s1 = v1_ ^ k1_;                                                                    \
        ulong k2_ = v1_ & k1_;                                                             \
        /* bit 2 and 3: n1 (0/1 in units of 4) + k2 (0/1 in units of 4) */                \
        s2 = n1_ ^ k2_;                                                                    \
        s3 = n1_ & k2_;                                                                    \
    } while (0)

/* 2-bit horizontal sum of the three planes l, v, r. */
#define HSUM(l, v, r, h0, h1)                                                              \
    do {                                                                                   \
        ulong x_ = (l) ^ (v);                                                              \
        h0 = x_ ^ (r);                                                                     \
        h1 = ((l) & (v)) | ((r) & x_);                                                     \
    } while (0)

/* ---- wl_wide: several generations per launch -------------------------------------------- */

/* Grid: global size (groups_x * LX, bands_y * LY), local size (LX, LY).  Group gx covers the
 * word columns gx * (LX - 2) - 1 .. gx * (LX - 2) + LX - 2; work-item row ly of group gy
 * covers virtual rows (gy * LY + ly) * ROUT - GENS .. + NR - 1, ROUT = NR - 2 GENS. */
__kernel __attribute__((reqd_work_group_size(WL_LX, WL_LY, 1))) void
wl_wide(__global const ulong *in, __global ulong *out, long w, long h, long nw, int torus,
        int k) {
    __local ulong xch[WL_LY][WL_NR][WL_LX]; /* each work-item's rows, for its neighbours */
    const int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
    const long rout = WL_NR - 2 * WL_GENS;
    const long c = (long)get_group_id(0) * (WL_LX - 2) + lx - 1;
    const long band = (long)get_group_id(1) * WL_LY + ly;
    const long r0 = band * rout - WL_GENS;
    const ulong cm = colmask(c, w, nw);
    const int inside = r0 >= 0 && r0 + WL_NR <= h && c >= 0 && 64 * (c + 1) <= w;
    ulong v[WL_NR];
    if (inside) {
        __global const ulong *p = in + r0 * nw + c;
#if WL_FULL_UNROLL
#pragma unroll
#endif
        for (int i = 0; i < WL_NR; i++) v[i] = p[i * nw];
    } else {
#if WL_FULL_UNROLL
#pragma unroll
#endif
        for (int i = 0; i < WL_NR; i++) v[i] = vword(in, nw, w, h, torus, r0 + i, 64 * c);
    }
    /* Bounded grids: cells outside are cleared after every generation (B0 rules would
     * otherwise give birth there).  Torus: the periodic plane evolves exactly as it is. */
    const int needmask = !torus && !inside;
    /* Generation g (0-based) needs rows g .. NR-1-g of the previous one and makes rows
     * lo = g+1 .. hi = NR-2-g (the rest can no longer reach the written rows).  With
     * WL_FULL_UNROLL == 1 every generation computes rows 1 .. NR-2 instead, so that the row
     * loop has constant bounds and unrolls with g left rolled; with 2 both loops unroll
     * and the bounds shrink at no cost. */
#if WL_FULL_UNROLL >= 2
#pragma unroll
#endif
    for (int g = 0; g < WL_GENS; g++) {
        if (g >= k) continue; /* k is uniform: all work-items skip together (a constant
                                 trip count keeps the loop unrollable) */
#if WL_FULL_UNROLL == 1
        const int lo = 1, hi = WL_NR - 2;
#else
        const int lo = g + 1, hi = WL_NR - 2 - g;
#endif
#if WL_FULL_UNROLL
#pragma unroll
#endif
        for (int i = 0; i < WL_NR; i++)
            if (i >= lo - 1 && i <= hi + 1) xch[ly][i][lx] = v[i];
        barrier(CLK_LOCAL_MEM_FENCE);
        const int ll = lx > 0 ? lx - 1 : lx, rr = lx < WL_LX - 1 ? lx + 1 : lx;
        ulong p0, p1, q0, q1; /* H of rows i - 1 and i */
        {
            ulong l = (v[lo - 1] << 1) | (xch[ly][lo - 1][ll] >> 63);
            ulong r = (v[lo - 1] >> 1) | (xch[ly][lo - 1][rr] << 63);
            HSUM(l, v[lo - 1], r, p0, p1);
            l = (v[lo] << 1) | (xch[ly][lo][ll] >> 63);
            r = (v[lo] >> 1) | (xch[ly][lo][rr] << 63);
            HSUM(l, v[lo], r, q0, q1);
        }
#if WL_FULL_UNROLL
#pragma unroll
#endif
        for (int i = lo; i <= hi; i++) {
            ulong l = (v[i + 1] << 1) | (xch[ly][i + 1][ll] >> 63);
            ulong r = (v[i + 1] >> 1) | (xch[ly][i + 1][rr] << 63);
            ulong n0, n1, s0, s1, s2, s3;
            HSUM(l, v[i + 1], r, n0, n1);
            SUM3(p0, p1, q0, q1, n0, n1, s0, s1, s2, s3);
            ulong nv = wl_rule_eval(s0, s1, s2, s3, v[i]);
            if (needmask) nv &= (vrow(r0 + i, h, 0) >= 0) ? cm : 0UL;
            v[i] = nv;
            p0 = q0;
            p1 = q1;
            q0 = n0;
            q1 = n1;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lx >= 1 && lx <= WL_LX - 2 && c < nw) {
#if WL_FULL_UNROLL
#pragma unroll
#endif
        for (int i = WL_GENS; i < WL_NR - WL_GENS; i++) {
            long y = r0 + i;
            if (y < h) out[y * nw + c] = v[i] & cm;
        }
    }
}

/* ---- one generation per launch --------------------------------------------------------- */

/* The three planes (cell x-1, x, x+1 at bit i) of virtual row y for word column c. */
void row3(__global const ulong *g, long nw, long w, long h, int torus, long y, long c,
                 ulong *l, ulong *m, ulong *r) {
    long row = vrow(y, h, torus);
    if (row < 0) {
        *l = *m = *r = 0UL;
        return;
    }
    long x = 64 * c;
    if (x >= 64 && x + 128 <= w) { /* neighbours on both sides are whole words */
        __global const ulong *p = g + row * nw + c;
        ulong a = p[-1], b = p[0], d = p[1];
        *m = b;
        *l = (b << 1) | (a >> 63);
        *r = (b >> 1) | (d << 63);
        return;
    }
    *m = win64(g, nw, w, torus, row, x);
    *l = win64(g, nw, w, torus, row, x - 1);
    *r = win64(g, nw, w, torus, row, x + 1);
}

/* Global size (roundup(nw), h): one work-item per word. */
__kernel void wl_simple(__global const ulong *in, __global ulong *out, long w, long h,
                        long nw, int torus) {
    long c = (long)get_global_id(0), y = (long)get_global_id(1);
    if (c >= nw || y >= h) return;
    ulong l, m, r, a0, a1, b0, b1, d0, d1, s0, s1, s2, s3, centre;
    row3(in, nw, w, h, torus, y - 1, c, &l, &m, &r);
    HSUM(l, m, r, a0, a1);
    row3(in, nw, w, h, torus, y, c, &l, &m, &r);
    HSUM(l, m, r, b0, b1);
    centre = m;
    row3(in, nw, w, h, torus, y + 1, c, &l, &m, &r);
    HSUM(l, m, r, d0, d1);
    SUM3(a0, a1, b0, b1, d0, d1, s0, s1, s2, s3);
    out[y * nw + c] = wl_rule_eval(s0, s1, s2, s3, centre) & colmask(c, w, nw);
}

/* Global size (nw, h).  table: the rule's 512 next states as bytes, indexed in the order
 * the host prepared for this kernel: bit 0 = NW, 1 = N, 2 = NE, 3 = W, 4 = centre, 5 = E,
 * 6 = SW, 7 = S, 8 = SE.  In that order the index of cell i is three 3-bit fields taken
 * straight from the rows: (u >> i) & 7 | ((m >> i) & 7) << 3 | ((d >> i) & 7) << 6, where u, m,
 * d hold the cells from column x + i - 1 on.  The planes "cell x - 1" (l) cover i = 0..61;
 * the planes "cell x + 1" (r) give the fields at i - 2 for i = 2..63. */
__kernel void wl_table(__global const ulong *in, __global ulong *out, long w, long h,
                       long nw, int torus, __constant uchar *table) {
    long c = (long)get_global_id(0), y = (long)get_global_id(1);
    if (c >= nw || y >= h) return;
    ulong ul, um, ur, ml, mm, mr, dl, dm, dr;
    row3(in, nw, w, h, torus, y - 1, c, &ul, &um, &ur);
    row3(in, nw, w, h, torus, y, c, &ml, &mm, &mr);
    row3(in, nw, w, h, torus, y + 1, c, &dl, &dm, &dr);
    ulong cm = colmask(c, w, nw), res = 0;
    for (int i = 0; i < 2; i++) {
        uint idx = (uint)((ul >> i) & 7UL) | (uint)((ml >> i) & 7UL) << 3 |
                   (uint)((dl >> i) & 7UL) << 6;
        res |= (ulong)table[idx] << i;
    }
    for (int i = 2; i < 64; i++) {
        uint idx = (uint)((ur >> (i - 2)) & 7UL) | (uint)((mr >> (i - 2)) & 7UL) << 3 |
                   (uint)((dr >> (i - 2)) & 7UL) << 6;
        res |= (ulong)table[idx] << i;
    }
    out[y * nw + c] = res & cm;
}

/* ---- population and soups -------------------------------------------------------------- */

/* Each work-item sums popcounts over a grid-stride loop; each group writes its total to
 * partial[group] (the host adds the groups).  Local size must be WL_POP_LOCAL. */
#define WL_POP_LOCAL 256
__kernel __attribute__((reqd_work_group_size(WL_POP_LOCAL, 1, 1))) void
wl_popcount(__global const ulong *g, ulong n, __global ulong *partial) {
    __local ulong acc[WL_POP_LOCAL];
    ulong s = 0;
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) s += popcount(g[i]);
    int lid = (int)get_local_id(0);
    acc[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int span = WL_POP_LOCAL / 2; span > 0; span >>= 1) {
        if (lid < span) acc[lid] += acc[lid + span];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) partial[get_group_id(0)] = acc[0];
}

/* splitmix64 of a counter: a stateless generator, one value per (seed, index). */
ulong mix64(ulong z) {
    z += 0x9E3779B97F4A7C15UL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
    return z ^ (z >> 31);
}

/* Global size (roundup(nw), h).  Each bit is alive with probability p16 / 65536: starting
 * from an empty word, for each bit of p16 from the lowest, OR (bit set) or AND (bit clear)
 * a fresh random word; after 16 steps each bit is set with exactly that probability. */
__kernel void wl_randomize(__global ulong *g, long w, long h, long nw, uint p16, ulong seed) {
    long c = (long)get_global_id(0), y = (long)get_global_id(1);
    if (c >= nw || y >= h) return;
    ulong idx = (ulong)(y * nw + c), x = 0;
    if (p16 >= 65536u) {
        x = ALL1;
    } else {
        for (int b = 0; b < 16; b++) {
            ulong r = mix64(seed ^ mix64(idx * 16UL + (ulong)b));
            x = ((p16 >> b) & 1u) ? (x | r) : (x & r);
        }
    }
    g[idx] = x & colmask(c, w, nw);
}
