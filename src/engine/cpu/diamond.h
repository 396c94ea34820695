/*
 * diamond.h - Larger than Life's von Neumann neighbourhood (NN) on the cpu engine: counts
 * slid down by diagonal windows.  Included twice: by multi.c (portable, DIA_BAND
 * ltl_band_diamond_portable) and by simd_ltl.c (compiled for AVX-512, where the same loops
 * vectorise 16 cells a vector; cpu_ltl_band_diamond_avx512).  The includer defines
 * DIA_BAND, the band function's name, DIA_TEST(v, D, count, frow, out), the test of a
 * row's counts D (the cell itself included; count is scratch) into its next firing bits,
 * and DIA_EXPAND64(word, out), the 64 bits of a word as 64 values 0 or 1.
 *
 * The diamond |dx| + |dy| <= R has no column structure to slide, but its edges are
 * diagonals.  Moving the diamond a row down adds its new bottom edge (a "V" of 2R + 1
 * cells) and takes off its old top edge (a "^"), and each of those is two diagonal
 * segments of R + 1 cells sharing an apex.  So each row keeps, for every column x of the
 * extended row, the sums of the R + 1 cells up the two diagonals from (x, y):
 *   A(x, y) = sum over k = 0..R of cell(x - k, y - k)    (up and to the left)
 *   B(x, y) = sum over k = 0..R of cell(x + k, y - k)    (up and to the right)
 * which slide down too: A(x, y) = A(x - 1, y - 1) + cell(x, y) - cell(x - R - 1, y - R - 1),
 * and the same to the right for B.  With D(x, y) the diamond's count (centre included),
 *   D(x, y + 1) = D(x, y) + A(x, y + R + 1) + B(x, y + R + 1) - cell(x, y + R + 1)
 *                         - B(x - R, y) - A(x + R, y) + cell(x, y - R).
 * A few adds a cell and row whatever the range, where the neighbourhood's runs cost 2R + 1.
 * A and B are kept for the rows y .. y + R + 1 (a ring of R + 2 rows each); a band starts
 * with its first row's counts summed by runs, and its windows filled down from R rows
 * above it.  Counts in 32 bits, any range.
 * Columns past the extended row: dead on a bounded grid, the same column a period on
 * along a torus (A and B are periodic there).  On a bounded grid without B0 (v->skip) a
 * band counts only the rows and columns within reach of a firing cell: elsewhere nothing
 * can be born, and the grow engine's grids are mostly margin.
 */
#include <string.h>

/* The firing bit of column x (any integer) of row y (any integer): wrapped or dead. */
static inline uint32_t dia_cell(const cpu_ltl_view *v, int64_t x, int64_t y) {
    const uint64_t *row = cpu_ltl_row(v, y);
    return row ? cpu_ltl_bit(v, row, x) : 0;
}

/* out[i] = cell(i - R, y) for i in [lo, hi) (within ext - 1): the extended row, whole words
 * bit by bit (a word may be written whole past hi). */
static void dia_unpack(const cpu_ltl_view *v, int64_t y, uint32_t *out, size_t lo, size_t hi) {
    size_t R = (size_t)v->R, W = (size_t)v->w;
    const uint64_t *row = cpu_ltl_row(v, y);
    if (!row) {
        memset(out + lo, 0, (hi - lo) * sizeof *out);
        return;
    }
    for (size_t i = lo; i < hi && i < R; i++) out[i] = cpu_ltl_bit(v, row, (int64_t)i - v->R);
    size_t x0 = lo > R ? lo - R : 0, x1 = hi > R ? hi - R : 0; /* grid columns [x0, x1) */
    if (x1 > W) x1 = W;
    size_t whole = W / 64;
    for (size_t q = x0 / 64; q < whole && q * 64 < x1; q++) DIA_EXPAND64(row[q], out + R + q * 64);
    for (size_t x = whole * 64 > x0 ? whole * 64 : x0; x < x1; x++)
        out[R + x] = (uint32_t)(row[whole] >> (x & 63) & 1u);
    for (size_t i = R + W > lo ? R + W : lo; i < hi; i++) out[i] = cpu_ltl_bit(v, row, (int64_t)i - v->R);
}

/* Row y of A and B from row y - 1's (pa, pb) over the extended columns [a, b); c: row y's
 * cells, o: row y - R - 1's, or NULL while the windows fill (a band's first R + 1 rows:
 * nothing leaves them).  Windows that begin past the extended row are dead on a bounded
 * grid and the same column a period on along a torus; so are those past [a, b) (which is
 * the whole row but on a bounded grid whose columns out of every firing cell's reach are
 * skipped); cell(x - R - 1) and cell(x + R + 1) past the extended row read the grid. */
static void dia_slide(const cpu_ltl_view *v, int64_t y, const uint32_t *pa, const uint32_t *pb,
                      const uint32_t *c, const uint32_t *o, uint32_t *A, uint32_t *B, size_t a,
                      size_t b) {
    const size_t n = v->ext - 1, R = (size_t)v->R, W = (size_t)v->w;
    const int64_t yo = y - (int64_t)R - 1;
    if (a >= b) return;
    /* A: the column to the left a row up */
    A[a] = (a == 0 && v->torus ? pa[W - 1] : 0) + c[a];
    for (size_t i = a + 1; i < b; i++) A[i] = pa[i - 1] + c[i];
    /* B: the column to the right a row up */
    for (size_t i = a; i + 1 < b; i++) B[i] = pb[i + 1] + c[i];
    B[b - 1] = (b == n && v->torus ? pb[2 * R] : 0) + c[b - 1];
    if (!o) return;
    size_t split = R + 1 < b ? R + 1 : b; /* o[i - R - 1] exists from here */
    for (size_t i = a; i < split; i++) A[i] -= dia_cell(v, (int64_t)i - 2 * (int64_t)R - 1, yo);
    for (size_t i = split > a ? split : a; i < b; i++) A[i] -= o[i - R - 1];
    size_t lim = n > R + 1 ? n - R - 1 : 0; /* o[i + R + 1] exists below lim */
    if (lim > b) lim = b;
    for (size_t i = a; i < lim; i++) B[i] -= o[i + R + 1];
    for (size_t i = lim > a ? lim : a; i < b; i++) B[i] -= dia_cell(v, (int64_t)i + 1, yo);
}

/* A bounded grid without B0 (v->skip): the grid columns [*xa, *xb] within reach of a
 * firing cell of rows [ya, yb), and the first and last of those rows with one (*fy, *ly);
 * 0 when there is none (the band is dead). */
static int dia_reach(const cpu_ltl_view *v, int64_t ya, int64_t yb, size_t *xa, size_t *xb,
                     int64_t *fy, int64_t *ly) {
    size_t lo = SIZE_MAX, hi = 0;
    for (int64_t y = ya < 0 ? 0 : ya; y < yb && y < (int64_t)v->h; y++) {
        const uint64_t *row = v->f + (size_t)y * v->S;
        for (size_t i = 0; i < v->S; i++)
            if (row[i]) {
                if (lo == SIZE_MAX) *fy = y;
                *ly = y;
                if (i < lo) lo = i;
                if (i > hi) hi = i;
            }
    }
    if (lo == SIZE_MAX) return 0;
    size_t R = (size_t)v->R;
    *xa = lo * 64 > R ? lo * 64 - R : 0;
    *xb = hi * 64 + 63 + R < v->w ? hi * 64 + 63 + R : (size_t)v->w - 1;
    return 1;
}

/* Words of a band's buffers: two rings of R + 2 extended rows (the windows), a ring of
 * 2R + 2 cell rows (each row unpacked once: read as it enters, R + 1 and 2R + 1 rows
 * later), the counts, a prefix-sum row and an output row's counts, and 16 words past
 * them (DIA_TEST may read 15 counts past the row's end). */
static inline size_t dia_words(const cpu_ltl_view *v) {
    return (2 * ((size_t)v->R + 2) + 2 * (size_t)v->R + 2 + 3) * v->ext + 16;
}

/* Rows [y0, y1) of fn; buf: dia_words(v) words; busy: the first and last row counted (the
 * others are dead; busy[1] < busy[0]: none). */
static void DIA_BAND(const cpu_ltl_view *v, uint64_t y0, uint64_t y1, uint32_t *buf,
                     int64_t busy[2]) {
    busy[0] = 0;
    busy[1] = -1;
    const size_t ext = v->ext, n = ext - 1, W = (size_t)v->w, R = (size_t)v->R, ring = R + 2,
                 cring = 2 * R + 2;
    uint32_t *Ar = buf, *Br = Ar + ring * ext, *Cr = Br + ring * ext, *D = Cr + cring * ext,
             *pre = D + ext, *count = pre + ext;
    const int64_t iR = (int64_t)R;
    size_t xa = 0, xb = W - 1; /* the columns counted */
    if (v->skip) {
        /* only the rows and columns within reach of a firing cell can live */
        int64_t fy = 0, ly = 0;
        int any = dia_reach(v, (int64_t)y0 - iR, (int64_t)y1 + iR, &xa, &xb, &fy, &ly);
        uint64_t ya = any && fy - iR > (int64_t)y0 ? (uint64_t)(fy - iR) : y0;
        uint64_t yb = any && ly + iR + 1 < (int64_t)y1 ? (uint64_t)(ly + iR + 1) : y1;
        if (!any || ya >= yb) ya = yb = y1;
        memset(v->fn + (size_t)y0 * v->S, 0, (size_t)(ya - y0) * v->S * sizeof *v->fn);
        memset(v->fn + (size_t)yb * v->S, 0, (size_t)(y1 - yb) * v->S * sizeof *v->fn);
        y0 = ya;
        y1 = yb;
        if (y0 >= y1) return;
    }
    busy[0] = (int64_t)y0;
    busy[1] = (int64_t)y1 - 1;
    /* the windows read: extended columns [a, b); the cell rows: [ua, ub) (the windows
     * take off cells R + 1 columns to each side) */
    const size_t a = xa, b = xb + 2 * R + 1 < n ? xb + 2 * R + 1 : n;
    const size_t ua = a > R + 1 ? a - R - 1 : 0, ub = b + R + 1 < n ? b + R + 1 : n;
#define DIA_ROW(base, y) ((base) + (size_t)wl_mod((int64_t)(y), (int64_t)ring) * ext)
#define DIA_CELLS(y) (Cr + (size_t)wl_mod((int64_t)(y), (int64_t)cring) * ext)
    /* the windows of rows y0 .. y0 + R: filled from row y0 - R (windows of one cell) down
     * to y0, then slid; the cell rows y0 - R .. y0 + R stay in their ring */
    dia_unpack(v, (int64_t)y0 - iR, DIA_CELLS((int64_t)y0 - iR), ua, ub);
    memcpy(DIA_ROW(Ar, (int64_t)y0 - iR) + a, DIA_CELLS((int64_t)y0 - iR) + a, (b - a) * sizeof *Ar);
    memcpy(DIA_ROW(Br, (int64_t)y0 - iR) + a, DIA_CELLS((int64_t)y0 - iR) + a, (b - a) * sizeof *Br);
    /* (the windows are read in [a, b) only) */
    for (int64_t y = (int64_t)y0 - iR + 1; y <= (int64_t)y0 + iR; y++) {
        dia_unpack(v, y, DIA_CELLS(y), ua, ub);
        dia_slide(v, y, DIA_ROW(Ar, y - 1), DIA_ROW(Br, y - 1), DIA_CELLS(y),
                  y > (int64_t)y0 ? DIA_CELLS(y - iR - 1) : NULL, DIA_ROW(Ar, y), DIA_ROW(Br, y),
                  a, b);
    }
    /* the first row's counts: the runs of each row of the diamond, by prefix sums */
    memset(D, 0, W * sizeof *D);
    for (int64_t dy = -iR; dy <= iR; dy++) {
        const uint32_t *c = DIA_CELLS((int64_t)y0 + dy);
        uint32_t acc = 0; /* (from column a: only differences within [a, b] are read) */
        pre[a] = 0;
        for (size_t i = a; i < b; i++) pre[i + 1] = acc += c[i];
        size_t half = R - (size_t)(dy < 0 ? -dy : dy); /* columns x - half .. x + half */
        for (size_t x = xa; x <= xb; x++) D[x] += pre[x + R + half + 1] - pre[x + R - half];
    }
    for (int64_t y = (int64_t)y0; y < (int64_t)y1; y++) {
        const uint64_t *frow = v->f + (size_t)y * v->S;
        DIA_TEST(v, D, count, frow, v->fn + (size_t)y * v->S);
        (void)count;
        if (y + 1 == (int64_t)y1) break;
        /* row y + R + 1 of the windows, then the counts a row down */
        int64_t yn = y + iR + 1;
        uint32_t *cin = DIA_CELLS(yn), *An = DIA_ROW(Ar, yn), *Bn = DIA_ROW(Br, yn);
        dia_unpack(v, yn, cin, ua, ub);
        dia_slide(v, yn, DIA_ROW(Ar, yn - 1), DIA_ROW(Br, yn - 1), cin, DIA_CELLS(y), An, Bn, a, b);
        const uint32_t *Ao = DIA_ROW(Ar, y), *Bo = DIA_ROW(Br, y), *ctop = DIA_CELLS(y - iR);
        for (size_t x = xa; x <= xb; x++)
            D[x] += An[x + R] + Bn[x + R] - cin[x + R] - Bo[x] - Ao[x + 2 * R] + ctop[x + R];
    }
#undef DIA_CELLS
#undef DIA_ROW
}
