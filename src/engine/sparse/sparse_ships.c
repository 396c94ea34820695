/*
 * sparse_ships.c - ships: objects that fly alone across empty space are taken out of the
 * tiles and moved by arithmetic, at no cost per generation, until something may come near
 * them.
 *
 * Why.  Once a soup or a methuselah has settled, nearly all of what the tiles still compute
 * is gliders (and other spaceships) flying away to infinity: measured on a 2048^2 soup from
 * generation 10000 on, over 95% of the tiles stepped hold a glider and nothing else, and
 * so do 90% of those of the methuselahs of ../shared/patterns.  Each costs one or two
 * bricks every generation, forever.  A glider alone on the plane is itself again four
 * generations later, one cell further diagonally; knowing that, its position at any
 * generation is a multiplication.
 *
 * What a ship is.  A set of live cells (at the current generation and the one before)
 * with no other live cell within 6 cells of it, that, run alone (the tile kernel on a tile
 * with dead neighbours), is the same set moved by (dx, dy) != (0, 0) after p <= 32
 * generations, and whose previous generation agrees with that motion.  Its p phases are
 * kept once per kind of ship (sp_ship_type); a ship in flight is its kind, an anchor and
 * the generation of its phase 0.  Rules do not matter: whatever moves alone in the rule
 * of the universe is found (gliders and the *WSS in Life, the ships of any Hensel rule).
 *
 * When it is exact.  Two objects that stay 3 cells apart (no cell within distance 1 of
 * both) evolve independently, for a rule without B0 (the engine has none).  Every ship
 * has a horizon, a generation up to which nothing can come that near it; it is computed
 * from what could approach it, each as a box moving at a constant speed per axis:
 *   - the light cone of the listed tiles: where the tiles still change, changes spread at
 *     most one cell per generation (the sleeping rule of sparse.c guarantees that a tile
 *     not listed is still or period 2), so a listed tile is a box growing one cell per
 *     generation each way (plus 2 cells to spare);
 *   - the live cells of the tiles, wherever nothing is listed near them: still boxes;
 *   - the other ships, each its hull (the box of all its phases) moving at its speed,
 *     widened by one period's step for the jumps between periods.
 * The earliest generation at which two such boxes come within 3 cells on both axes is a
 * line intersection per axis.  At its horizon a ship is looked at again: it flies on with
 * a new horizon (which grows as it leaves everything behind: about 33 looks for a glider
 * to fly from a soup to 25000 cells away), or, when something is closer than 8
 * generations, it lands: its two last generations are written back into the tiles, which
 * take over, exactly as if it had never left.  A landing changes what other ships may
 * meet, so every ship that could be reached from the landing point before its own
 * horizon is looked at again then.
 *
 * Taking a ship out.  Every SCAN_GENS generations the listed tiles with few live cells are
 * searched: each live cell seeds the set of cells within 6 of each other (the object and
 * the space around it must be clean), which is run alone to see if it is a ship.  If it
 * is, and nothing but its own tiles would make it land at once, its cells are erased from
 * both generations of the tiles (the rest of the tiles stays exact: the ship could not
 * touch it) and it flies with a horizon of two generations: at least 7 cells from
 * everything, nothing can come within 3 of it in two, and by then its old tiles have
 * computed themselves empty and stopped being listed, so the look at that horizon sees the
 * plane as it is.
 *
 * When taking out does not pay.  A ship costs its tiles a few bricks a generation; taking
 * it out, looking at it and landing it cost tens of microseconds, more than the tiles
 * would have spent unless it flies some SHORT_FLIGHT generations.  Around guns whose
 * streams are eaten or reflected, breeders and rakes (Golly's Life folders), most ships
 * taken out landed within a few hundred generations, again and again: ships made such runs
 * up to 4x slower than without them.  So the interval between two searches adapts: it
 * doubles (up to SCAN_GENS_MAX) while at least half the ships taken out lately landed
 * within SHORT_FLIGHT, and halves (down to SCAN_GENS) while fewer than a quarter did (the
 * counts halve at each such decision, so that older take-outs count less).
 *
 * Cost: a look is a pass over the listed tiles, the ships, and the live tiles near the
 * ship's path; a settled soup's gliders fly for free between looks.
 */
#include "sparse_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SCAN_GENS 128       /* generations between two searches for ships, at least */
#define SCAN_GENS_MAX 4096  /* and at most (while the ships taken out land soon) */
#define SHORT_FLIGHT 512    /* a ship that lands sooner than this cost more than it saved */
#define SCAN_MAX_TILES 4096 /* more listed tiles: a churning pattern, no search */
#define SCAN_MAX_POP 64     /* tiles with more live cells (both generations) are skipped */
#define SCAN_BACKOFF 3      /* a tile where searches find nothing is searched every 2^3 */
#define SCAN_SEEDS 4        /* objects tried per tile and search */
#define LINK 3              /* cells this close belong to one object */
#define CLEAN 6             /* a ship taken out has no live cell but other ships' this close */
#define COMP_MAX 128        /* cells of an object tried */
#define MARGIN 3.0          /* objects this far apart on some axis cannot interact */
#define CONE_MARGIN 5.0     /* from a listed tile: MARGIN plus 2 to spare */
#define CONE_TILES 8        /* with many listed tiles, only those this near are looked at */
#define SHIPS_MAX 512       /* no more are taken out while this many fly (a look is a pass
                               over them all: thousands would cost more than their tiles) */
#define SHIP_RADIUS 256.0   /* the smallest first radius, in generations, of a look at ships */
#define K_MIN 8             /* a ship with a shorter horizon lands */
#define K_TAKE 64           /* a ship is taken out only if it can fly this long */
#define K_MAX ((uint64_t)1 << 40)
#define EDGE ((double)SP_COORD_MAX * WL_TILE - 4096.0) /* ships land before this */

static const uint64_t zero_rows[WL_TILE] __attribute__((aligned(64)));

/* ---- ships at a generation ------------------------------------------------------------ */

/* The phase of ship s at generation g (g + 1 >= s->g0) and its anchor then. */
static const sp_phase *ship_at(const sp_ship *s, uint64_t g, int64_t *ax, int64_t *ay) {
    const sp_ship_type *T = s->type;
    uint64_t k = g + T->p - s->g0; /* >= p - 1 */
    __int128 cyc = (__int128)(k / T->p) - 1;
    *ax = (int64_t)(s->ax + cyc * T->dx);
    *ay = (int64_t)(s->ay + cyc * T->dy);
    return &T->ph[k % T->p];
}

int sp_ship_cells(const sp_ctx *c, size_t i, int64_t *x, int64_t *y, const uint64_t **rows) {
    int64_t ax, ay;
    const sp_phase *ph = ship_at(&c->ships.s[i], c->gen, &ax, &ay);
    *x = ax + ph->x0;
    *y = ay + ph->y0;
    *rows = ph->rows;
    return ph->h;
}

/* The box of the cells of ship s at generations g - 2 .. g (its hull where it is at g,
 * widened by two periods' steps: generation g - 2 is two periods back for a ship of
 * period 1). */
static void ship_region(const sp_ship *s, uint64_t g, int64_t *x0, int64_t *y0, int64_t *x1,
                        int64_t *y1) {
    const sp_ship_type *T = s->type;
    int64_t ax, ay;
    ship_at(s, g, &ax, &ay);
    *x0 = ax + T->hx0 - 2 * abs(T->dx);
    *x1 = ax + T->hx1 + 2 * abs(T->dx);
    *y0 = ay + T->hy0 - 2 * abs(T->dy);
    *y1 = ay + T->hy1 + 2 * abs(T->dy);
}

/* fmin and fmax for what is never NaN in its first argument (NaN in the second is
 * ignored, as by those): inlined, where fmin and fmax are calls into the maths library */
static inline double dmin(double a, double b) { return b < a ? b : a; }
static inline double dmax(double a, double b) { return b > a ? b : a; }

/* a - b as a double (coordinates are within +-2^62, so the difference fits 64 bits but
 * for the edge of the plane: there through 128 bits, a library call elsewhere too slow for
 * a look's pass over every ship) */
static inline double diff_d(int64_t a, int64_t b) {
    int64_t d;
    if (!__builtin_sub_overflow(a, b, &d)) return (double)d;
    return (double)((__int128)a - b);
}

/* ---- when boxes may meet ----------------------------------------------------------------
 * A box on one axis: [lo + vlo j, hi + vhi j] at j generations from now (relative to some
 * origin, in cells).  Two boxes may interact at j when on both axes neither lies MARGIN or
 * more beyond the other. */
typedef struct sp_iv {
    double lo, hi, vlo, vhi;
} sp_iv;

/* Narrows [*from, *to] to the j where u0 + us j < m; 0 if nothing is left.  The ends are
 * kept inclusive and widened by a cell's worth (conservative against rounding). */
static int below(double u0, double us, double m, double *from, double *to) {
    if (us == 0) return u0 < m;
    double j = (m - u0) / us;
    if (us > 0) {
        if (j + 1 < *to) *to = j + 1;
    } else if (j - 1 > *from) {
        *from = j - 1;
    }
    return *from <= *to;
}

/* The earliest j >= 0 at which boxes a and b (x, y) may interact, or INFINITY. */
static double meet(const sp_iv a[2], const sp_iv b[2], double m) {
    double from = 0, to = INFINITY;
    for (int k = 0; k < 2; k++)
        if (!below(b[k].lo - a[k].hi, b[k].vlo - a[k].vhi, m, &from, &to) ||
            !below(a[k].lo - b[k].hi, a[k].vlo - b[k].vhi, m, &from, &to))
            return INFINITY;
    return from;
}

static void ship_iv(const sp_ship *s, int64_t ax, int64_t ay, int64_t ox, int64_t oy, sp_iv v[2]);

/* Whether ships a and b might come near each other within K generations from g, judged
 * from where they roughly are (their anchors moved at their mean speed: no division, as
 * a look runs this for every ship in flight); 0 means certainly not.  Closing speed is at
 * most 2 cells a generation; the slack is their reaches (hulls and steps) and a bound on
 * the rounding of the doubles (cells far from the origin are far apart in doubles).  A
 * slack of 256 cells for everything made a swarm of gliders (a breeder's 440) near each
 * other at every look. */
static int ship_near(const sp_ship *a, const sp_ship *b, uint64_t g, double K) {
    const double ta = (double)(int64_t)(g - a->g0), tb = (double)(int64_t)(g - b->g0);
    const double x0 = diff_d(b->ax, a->ax), x1 = b->vx * tb, x2 = a->vx * ta;
    const double y0 = diff_d(b->ay, a->ay), y1 = b->vy * tb, y2 = a->vy * ta;
    const double ex = (fabs(x0) + fabs(x1) + fabs(x2)) * 0x1p-48 + 2;
    const double ey = (fabs(y0) + fabs(y1) + fabs(y2)) * 0x1p-48 + 2;
    const double slack = a->type->reach + b->type->reach + MARGIN;
    return dmax(fabs(x0 + x1 - x2) - ex, fabs(y0 + y1 - y2) - ey) - slack <= 2 * K;
}

/* The earliest j >= 0 at which ships a and b may come within MARGIN cells, from generation
 * g, or INFINITY.  Ships of one velocity keep their distance up to the steps of their
 * periods, so their phases' own boxes are compared over a common period, exactly (a gun's
 * stream flies 4 cells apart); others as moving boxes (meet). */
static double ship_meet(const sp_ship *a, const sp_ship *b, uint64_t g) {
    const sp_ship_type *A = a->type, *B = b->type;
    if ((int64_t)A->dx * B->p == (int64_t)B->dx * A->p && (int64_t)A->dy * B->p == (int64_t)B->dy * A->p) {
        /* (their anchors keep their distance up to one step each way, so a pair farther
         * apart than their hulls, steps and MARGIN on some axis never meets: a stream of
         * gliders is such pairs, and a look passes over every ship in flight) */
        int64_t a0x, a0y, b0x, b0y;
        ship_at(a, g, &a0x, &a0y);
        ship_at(b, g, &b0x, &b0y);
        const __int128 ddx = (__int128)b0x - a0x, ddy = (__int128)b0y - a0y;
        const int sx = 2 * (abs(A->dx) + abs(B->dx)) + (int)MARGIN;
        const int sy = 2 * (abs(A->dy) + abs(B->dy)) + (int)MARGIN;
        if (ddx + B->hx0 - A->hx1 >= sx || ddx + B->hx1 - A->hx0 <= -sx ||
            ddy + B->hy0 - A->hy1 >= sy || ddy + B->hy1 - A->hy0 <= -sy)
            return INFINITY;
        unsigned L = A->p;
        while (L % B->p) L += A->p;
        for (unsigned j = 0; j < L; j++) {
            int64_t ax, ay, bx, by;
            const sp_phase *pa = ship_at(a, g + j, &ax, &ay), *pb = ship_at(b, g + j, &bx, &by);
            __int128 gx1 = (__int128)bx + pb->x0 - (ax + pa->x0 + pa->w - 1);
            __int128 gx2 = (__int128)ax + pa->x0 - (bx + pb->x0 + pb->w - 1);
            __int128 gy1 = (__int128)by + pb->y0 - (ay + pa->y0 + pa->h - 1);
            __int128 gy2 = (__int128)ay + pa->y0 - (by + pb->y0 + pb->h - 1);
            const int m = (int)MARGIN; /* (integers: no conversions) */
            if (gx1 < m && gx2 < m && gy1 < m && gy2 < m) return j;
        }
        return INFINITY;
    }
    int64_t ox, oy, bx, by;
    ship_at(a, g, &ox, &oy);
    ship_at(b, g, &bx, &by);
    sp_iv va[2], vb[2];
    ship_iv(a, ox, oy, ox, oy, va);
    ship_iv(b, bx, by, ox, oy, vb);
    return meet(va, vb, MARGIN);
}

/* Ship s, its anchor at (ax, ay) now (ship_at), as boxes relative to (ox, oy). */
static void ship_iv(const sp_ship *s, int64_t ax, int64_t ay, int64_t ox, int64_t oy, sp_iv v[2]) {
    const sp_ship_type *T = s->type;
    double rx = diff_d(ax, ox), ry = diff_d(ay, oy);
    double sx = (double)T->dx / T->p, sy = (double)T->dy / T->p;
    int jx = abs(T->dx), jy = abs(T->dy);
    v[0] = (sp_iv){rx + T->hx0 - jx, rx + T->hx1 + jx, sx, sx};
    v[1] = (sp_iv){ry + T->hy0 - jy, ry + T->hy1 + jy, sy, sy};
}

/* A still box of cells [x0, x1] x [y0, y1] relative to (ox, oy), growing by `grow` cells
 * each way per generation. */
static void box_iv(int64_t x0, int64_t y0, int64_t x1, int64_t y1, int64_t ox, int64_t oy,
                   double grow, sp_iv v[2]) {
    v[0] = (sp_iv){diff_d(x0, ox), diff_d(x1, ox), -grow, grow};
    v[1] = (sp_iv){diff_d(y0, oy), diff_d(y1, oy), -grow, grow};
}

/* The earliest j at which ship boxes a (relative to (ox, oy)) may interact with the live
 * cells of tile t (both generations, still), or INFINITY: against the box of the tile's
 * cells, and where that is sooner than `before`, against the boxes of its cells in each
 * 8 x 8 block (a ship flying past a tile of ash is near the tile's box, seldom near a
 * block's). */
static double meet_cells(const sp_iv a[2], const sp_tile *t, int64_t ox, int64_t oy,
                         double before) {
    uint64_t rows[WL_TILE];
    int tb[4];
    for (int r = 0; r < WL_TILE; r++) rows[r] = sp_row(t, 0, r) | sp_row(t, 1, r);
    if (!sp_rows_box(rows, WL_TILE, tb)) return INFINITY;
    const int r0 = tb[1], r1 = tb[3];
    const int64_t X = t->tx * WL_TILE, Y = t->ty * WL_TILE;
    sp_iv b[2];
    box_iv(X + tb[0], Y + r0, X + tb[2], Y + r1, ox, oy, 0, b);
    double j = meet(a, b, MARGIN);
    if (j >= before) return j;
    j = INFINITY;
    for (int by = r0 / 8; by <= r1 / 8; by++)
        for (int bx = 0; bx < 8; bx++) {
            unsigned bor = 0;
            int q0 = -1, q1 = -1;
            for (int r = 8 * by; r < 8 * by + 8; r++) {
                unsigned v = (unsigned)(rows[r] >> (8 * bx)) & 0xFF;
                if (!v) continue;
                bor |= v;
                if (q0 < 0) q0 = r;
                q1 = r;
            }
            if (!bor) continue;
            box_iv(X + 8 * bx + __builtin_ctz(bor), Y + q0, X + 8 * bx + 31 - __builtin_clz(bor),
                   Y + q1, ox, oy, 0, b);
            j = dmin(j, meet(a, b, MARGIN));
        }
    return j;
}

/* The box of the woken bricks w of tile (tx, ty), relative to (ox, oy), as a light cone:
 * growing a cell a generation each way. */
static void cone_box(int64_t tx, int64_t ty, unsigned w, int64_t ox, int64_t oy, sp_iv b[2]) {
    const int64_t y0 = ty * WL_TILE + WL_BRICK * __builtin_ctz(w);
    const int64_t y1 = ty * WL_TILE + WL_BRICK * (32 - __builtin_clz(w)) - 1;
    box_iv(tx * WL_TILE, y0, tx * WL_TILE + 63, y1, ox, oy, 1.0, b);
}

/* A lower bound on meet(a, the cone of bricks w of tile (tx, ty), CONE_MARGIN): the gap
 * between the boxes now closes by at most 1 + vmax cells a generation (the cone grows a
 * cell, the ship moves at most vmax), and meet's ends are widened by a cell (below). */
static double cone_lb(const sp_iv a[2], double vmax, int64_t tx, int64_t ty, unsigned w,
                      int64_t ox, int64_t oy) {
    sp_iv b[2];
    cone_box(tx, ty, w, ox, oy, b);
    const double gx = dmax(b[0].lo - a[0].hi, a[0].lo - b[0].hi);
    const double gy = dmax(b[1].lo - a[1].hi, a[1].lo - b[1].hi);
    return (dmax(gx, gy) - CONE_MARGIN) / (1 + vmax) - 2;
}

static double cone_meet(const sp_iv a[2], const sp_tile *t, unsigned w, int64_t ox, int64_t oy) {
    sp_iv b[2];
    cone_box(t->tx, t->ty, w, ox, oy, b);
    return meet(a, b, CONE_MARGIN);
}

/* ---- horizons --------------------------------------------------------------------------- */

/* How many generations ship `self` (in the list or not) can fly from now without anything
 * coming near it.  `taking`: listed tiles that ships are being taken from are left out (a
 * search, before those tiles have run without their ships). */
static uint64_t horizon(sp_ctx *c, const sp_ship *self, int taking) {
    const uint64_t g = c->gen;
    int64_t ox, oy;
    ship_at(self, g, &ox, &oy);
    sp_iv a[2];
    ship_iv(self, ox, oy, ox, oy, a);
    double K = (double)K_MAX;
    /* the edge of the plane */
    for (int k = 0; k < 2; k++) {
        double base = k ? (double)oy : (double)ox, v = a[k].vlo;
        if (v > 0) K = dmin(K, (EDGE - (base + a[k].hi)) / v);
        if (v < 0) K = dmin(K, (-EDGE - (base + a[k].lo)) / v);
    }
    /* the light cone of the bricks the next round computes: of every listed tile, or when
     * there are many, of those within CONE_TILES tiles of the ship, the others being at
     * least that far (which bounds their meeting from below).  A tile whose distance alone
     * says it cannot be met before K is skipped without a meet (a look used to pass a meet
     * over every listed tile, and to look up all (2 CONE_TILES + 1)^2 tiles around); the
     * nearest tiles go first, so that K is small early. */
    const int64_t side = 2 * CONE_TILES + 1;
    const int near = c->next.n > (size_t)(side * side);
    const int64_t ntx = wl_floordiv(ox, WL_TILE), nty = wl_floordiv(oy, WL_TILE);
    const double vmax = dmax(fabs(a[0].vlo), fabs(a[1].vlo));
    if (near) {
        double far = (CONE_TILES - 1) * WL_TILE - 2 * SP_SHIP_MAXBOX - CONE_MARGIN;
        K = dmin(K, far / (1 + vmax));
        /* rings of tiles around the ship's, outwards: a ring's top and bottom rows whole, its
         * other rows at their two ends (dx steps by 2r there; the ring of 0 is one tile) */
        for (int64_t r = 0; r <= CONE_TILES && K > 0; r++)
            for (int64_t dy = -r; dy <= r && K > 0; dy++)
                for (int64_t dx = -r; dx <= r && K > 0; dx += (dy == -r || dy == r) ? 1 : 2 * r) {
                    const int64_t tx = ntx + dx, ty = nty + dy;
                    if (cone_lb(a, vmax, tx, ty, 0xFF, ox, oy) >= K) continue;
                    const sp_tile *t = sp_map_find(&c->map, tx, ty);
                    if (t && t->wake[c->par] && !(taking && t->ship))
                        K = dmin(K, cone_meet(a, t, t->wake[c->par], ox, oy));
                }
    } else {
        /* (at most side^2 tiles here) the lower bounds first, then the nearest tile's meet,
         * then the meets of the others that could still come sooner */
        double lb[(2 * CONE_TILES + 1) * (2 * CONE_TILES + 1)];
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < c->next.n; i++) {
            const sp_tile *t = c->next.t[i];
            const unsigned w = t->wake[c->par];
            lb[i] = !w || (taking && t->ship) ? INFINITY
                                              : cone_lb(a, vmax, t->tx, t->ty, w, ox, oy);
            if (lb[i] < K && (best == SIZE_MAX || lb[i] < lb[best])) best = i;
        }
        if (best != SIZE_MAX) {
            K = dmin(K, cone_meet(a, c->next.t[best], c->next.t[best]->wake[c->par], ox, oy));
            for (size_t i = 0; i < c->next.n && K > 0; i++)
                if (i != best && lb[i] < K)
                    K = dmin(K, cone_meet(a, c->next.t[i], c->next.t[i]->wake[c->par], ox, oy));
        }
    }
    /* the other ships (those too far to meet within K, at a closing speed of at most 2
     * cells a generation, skipped at once) */
    /* within a radius (twice the ship's last horizon, to begin with) that grows fourfold
     * while no ship meets inside it: the ships farther than that cannot meet before it, so
     * most are skipped at the cost of a subtraction (a look is a pass over every ship in
     * flight) */
    for (double lim = dmin(K, dmax(SHIP_RADIUS, 2.0 * (double)self->last_k));;) {
        double Km = INFINITY;
        for (size_t i = 0; i < c->ships.n && Km > 0; i++) {
            const sp_ship *s = &c->ships.s[i];
            if (s != self && ship_near(self, s, g, lim)) Km = dmin(Km, ship_meet(self, s, g));
        }
        if (Km < lim || lim >= K) {
            K = dmin(K, Km);
            break;
        }
        lim = dmin(K, 4 * lim);
    }
    if (K <= 0) return 0;
    /* the live cells of the tiles near its path over the next K generations: the tiles in
     * the box it sweeps, looked up one by one or, when there are more of those than tiles,
     * all of them */
    double sx0 = a[0].lo + dmin(0, a[0].vlo * K) - MARGIN, sx1 = a[0].hi + dmax(0, a[0].vhi * K) + MARGIN;
    double sy0 = a[1].lo + dmin(0, a[1].vlo * K) - MARGIN, sy1 = a[1].hi + dmax(0, a[1].vhi * K) + MARGIN;
    double tx0 = floor(((double)ox + sx0) / WL_TILE), tx1 = floor(((double)ox + sx1) / WL_TILE);
    double ty0 = floor(((double)oy + sy0) / WL_TILE), ty1 = floor(((double)oy + sy1) / WL_TILE);
    if ((tx1 - tx0 + 1) * (ty1 - ty0 + 1) <= (double)c->map.count) {
        for (int64_t ty = (int64_t)ty0; ty <= (int64_t)ty1 && K > 0; ty++)
            for (int64_t tx = (int64_t)tx0; tx <= (int64_t)tx1 && K > 0; tx++) {
                const sp_tile *t = sp_map_find(&c->map, tx, ty);
                if (t) K = dmin(K, meet_cells(a, t, ox, oy, K));
            }
    } else {
        for (size_t i = 0; i < c->map.cap && K > 0; i++) {
            const sp_tile *t = c->map.slot[i];
            if (t && t->tx >= tx0 && t->tx <= tx1 && t->ty >= ty0 && t->ty <= ty1)
                K = dmin(K, meet_cells(a, t, ox, oy, K));
        }
    }
    K = floor(K) - 1;
    return K <= 0 ? 0 : (uint64_t)K;
}

static void update_next(sp_ships *S) {
    S->next = UINT64_MAX;
    for (size_t i = 0; i < S->n; i++)
        if (S->s[i].horizon < S->next) S->next = S->s[i].horizon;
}

/* ---- landing ------------------------------------------------------------------------------ */

/* Writes ship i's cells at the current generation and the one before back into the tiles,
 * wakes the bricks around them, and removes it from the list.  Fails with nothing changed
 * (beyond empty tiles made) when a tile cannot be made. */
static wl_status land(sp_ctx *c, size_t i) {
    sp_ships *S = &c->ships;
    for (int pass = 0; pass < 2; pass++) /* make every tile first, then write */
        for (int b = 0; b < 2; b++) {
            int64_t ax, ay;
            const sp_phase *ph = ship_at(&S->s[i], c->gen - (uint64_t)b, &ax, &ay);
            const unsigned buf = c->par ^ (unsigned)b;
            const int64_t x = ax + ph->x0, y = ay + ph->y0;
            for (int r = 0; r < ph->h; r++) {
                int64_t yy = y + r, ty = wl_floordiv(yy, WL_TILE), tx;
                uint64_t part[2];
                sp_word_parts(x, ph->rows[r], &tx, part);
                for (int h = 0; h < 2; h++) {
                    if (!part[h]) continue;
                    sp_tile *t = sp_tile_get(c, tx + h, ty);
                    if (!t) return c->fail;
                    if (!pass) {
                        wl_status e = sp_unpack(&c->map, t);
                        if (e) return e;
                    } else {
                        t->rows[buf][wl_mod(yy, WL_TILE)] |= part[h];
                    }
                }
            }
        }
    int64_t x0, y0, x1, y1;
    ship_region(&S->s[i], c->gen, &x0, &y0, &x1, &y1);
    S->s[i] = S->s[--S->n];
    S->st_landed++;
    return sp_wake_box(c, x0, y0, x1, y1);
}

/* Ship i is about to land: every other ship that its cells, changing from now on, could
 * reach before that ship's horizon is looked at again by then. */
static void warn_others(sp_ctx *c, size_t i) {
    sp_ships *S = &c->ships;
    int64_t ox, oy;
    ship_at(&S->s[i], c->gen, &ox, &oy);
    const sp_ship_type *T = S->s[i].type;
    sp_iv cone[2], b[2];
    box_iv(ox + T->hx0, oy + T->hy0, ox + T->hx1, oy + T->hy1, ox, oy, 1.0, cone);
    for (size_t k = 0; k < S->n; k++) {
        if (k == i || S->s[k].horizon <= c->gen ||
            !ship_near(&S->s[i], &S->s[k], c->gen, (double)(S->s[k].horizon - c->gen)))
            continue;
        int64_t kx, ky;
        ship_at(&S->s[k], c->gen, &kx, &ky);
        ship_iv(&S->s[k], kx, ky, ox, oy, b);
        double j = meet(b, cone, CONE_MARGIN);
        if (j == INFINITY) continue;
        uint64_t when = c->gen + (j < 1 ? 0 : (uint64_t)j - 1);
        if (when < S->s[k].horizon) S->s[k].horizon = when;
    }
}

wl_status sp_ships_due(sp_ctx *c) {
    sp_ships *S = &c->ships;
    wl_status s = WL_OK;
    for (int again = 1; again && !s;) {
        again = 0;
        for (size_t i = 0; i < S->n && !s;) {
            sp_ship *sh = &S->s[i];
            if (sh->horizon > c->gen) {
                i++;
                continue;
            }
            S->st_checks++;
            uint64_t k = horizon(c, sh, 0);
            sh->last_k = k;
            if (k >= K_MIN) {
                sh->horizon = c->gen + k;
                i++;
                continue;
            }
            warn_others(c, i);
            if (c->gen - sh->born < SHORT_FLIGHT) S->wasted++; /* (edits land ships too:
                                                                    those do not count) */
            s = land(c, i); /* (ship i is now another one, or none) */
            again = 1;
        }
    }
    update_next(S);
    return s;
}

wl_status sp_ships_land_all(sp_ctx *c) {
    wl_status s = WL_OK;
    while (c->ships.n && !s) s = land(c, c->ships.n - 1);
    update_next(&c->ships);
    return s;
}

void sp_ships_clear(sp_ctx *c) {
    c->ships.n = 0;
    c->ships.next = UINT64_MAX;
    c->ships.scan_next = c->gen;
    c->ships.scan_gens = SCAN_GENS;
    c->ships.took = c->ships.wasted = 0;
}

/* ---- finding ships -------------------------------------------------------------------------
 * The window: tile t and its eight neighbours as 192 x 192 cells, both generations OR-ed,
 * cell (x, y) relative to t's corner (-64 <= x, y < 128) at bit (x + 64) of row (y + 64),
 * three words a row. */
#define WIN 192
typedef struct sp_window {
    uint64_t w[WIN][3];
} sp_window;

/* Tile t and its eight neighbours, g[1][1] = t. */
static void tile_grid(const sp_tile *t, const sp_tile *g[3][3]) {
    static const int dx[8] = {0, 1, 1, 1, 0, -1, -1, -1}, dy[8] = {-1, -1, 0, 1, 1, 1, 0, -1};
    g[1][1] = t;
    for (int d = 0; d < 8; d++) g[1 + dy[d]][1 + dx[d]] = t->nb[d];
}

static void window_fill(const sp_tile *t, sp_window *win) {
    const sp_tile *g[3][3];
    tile_grid(t, g);
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++)
            for (int r = 0; r < WL_TILE; r++)
                win->w[j * WL_TILE + r][i] = sp_row(g[j][i], 0, r) | sp_row(g[j][i], 1, r);
}

static inline int win_get(const sp_window *win, int x, int y) {
    return (int)((win->w[y + 64][(x + 64) >> 6] >> ((x + 64) & 63)) & 1);
}

static inline void win_clear(sp_window *win, int x, int y) {
    win->w[y + 64][(x + 64) >> 6] &= ~((uint64_t)1 << ((x + 64) & 63));
}

/* The object of the live cell (x, y): every live cell linked to it through steps of at
 * most LINK cells, taken out of the window.  0 when it has more than COMP_MAX cells or is
 * wider or taller than SP_SHIP_MAXBOX. */
static int component(sp_window *win, int x, int y, int16_t (*cell)[2], int *ncell, int box[4]) {
    int n = 0, head = 0, ok = 1;
    win_clear(win, x, y);
    cell[n][0] = (int16_t)x;
    cell[n][1] = (int16_t)y;
    n++;
    box[0] = box[2] = x;
    box[1] = box[3] = y;
    while (head < n && ok) {
        int cx = cell[head][0], cy = cell[head][1];
        head++;
        for (int yy = cy - LINK; yy <= cy + LINK && ok; yy++) {
            if (yy < -64 || yy >= 128) continue;
            for (int xx = cx - LINK; xx <= cx + LINK && ok; xx++) {
                if (xx < -64 || xx >= 128 || !win_get(win, xx, yy)) continue;
                win_clear(win, xx, yy);
                if (n == COMP_MAX) {
                    ok = 0;
                    break;
                }
                cell[n][0] = (int16_t)xx;
                cell[n][1] = (int16_t)yy;
                n++;
                if (xx < box[0]) box[0] = xx;
                if (xx > box[2]) box[2] = xx;
                if (yy < box[1]) box[1] = yy;
                if (yy > box[3]) box[3] = yy;
                if (box[2] - box[0] >= SP_SHIP_MAXBOX || box[3] - box[1] >= SP_SHIP_MAXBOX) ok = 0;
            }
        }
    }
    *ncell = n;
    return ok;
}

/* The box of a 64 x 64 frame's cells and their number; 0 if none. */
static int frame_box(const uint64_t *f, int box[4], unsigned *pop) {
    if (!sp_rows_box(f, WL_TILE, box)) return 0;
    unsigned n = 0;
    for (int r = box[1]; r <= box[3]; r++) n += wl_popcount64(f[r]);
    *pop = n;
    return 1;
}

/* Whether frames a and b hold the same cells, b's moved by (dx, dy) from a's. */
static int same_moved(const uint64_t *a, const int ba[4], const uint64_t *b, const int bb[4]) {
    if (ba[2] - ba[0] != bb[2] - bb[0] || ba[3] - ba[1] != bb[3] - bb[1]) return 0;
    for (int r = 0; r <= ba[3] - ba[1]; r++)
        if (a[ba[1] + r] >> ba[0] != b[bb[1] + r] >> bb[0]) return 0;
    return 1;
}

/* Runs frame f (64 rows, 64-byte aligned) alone for one generation into out. */
static void frame_step(const sp_ctx *c, const uint64_t *f, uint64_t *out) {
    wl_tile_job j;
    for (int d = 0; d < 8; d++) j.in[d] = zero_rows;
    j.in[WL_NB_C] = f;
    j.out = out;
    j.bricks = 0xFF;
    c->tk.step(&j, c->tk.data);
}

/* The kind of ship whose phase 0 is frame f0, if it is one: runs it alone up to
 * SP_SHIP_MAXP generations (frames[1..]); fm1 is the object one generation earlier, which
 * must agree.  The kind is found among the known ones or added; *bx, *by: where its anchor
 * lies in the frame.  NULL if it is not a ship (or out of memory). */
static const sp_ship_type *identify(sp_ctx *c, const uint64_t *fm1, int *bx, int *by) {
    sp_ships *S = &c->ships;
    uint64_t *F = S->frames; /* frame k at F + 64 k */
    int b0[4], bk[4];
    unsigned pop0, popk;
    if (!frame_box(F, b0, &pop0)) return NULL;
    unsigned p = 0;
    int dx = 0, dy = 0;
    for (unsigned k = 1; k <= SP_SHIP_MAXP && !p; k++) {
        frame_step(c, F + (k - 1) * WL_TILE, F + k * WL_TILE);
        if (!frame_box(F + k * WL_TILE, bk, &popk)) return NULL;
        if (bk[0] < CLEAN || bk[1] < CLEAN || bk[2] > 63 - CLEAN || bk[3] > 63 - CLEAN ||
            bk[2] - bk[0] >= SP_SHIP_MAXBOX || bk[3] - bk[1] >= SP_SHIP_MAXBOX)
            return NULL;
        if (popk != pop0 || !same_moved(F, b0, F + k * WL_TILE, bk)) continue;
        dx = bk[0] - b0[0];
        dy = bk[1] - b0[1];
        if (!dx && !dy) return NULL; /* an oscillator (or a still life) */
        p = k;
    }
    if (!p) return NULL;
    /* the generation before: phase p - 1 moved back */
    int bm[4];
    unsigned popm;
    const uint64_t *last = F + (p - 1) * WL_TILE;
    int bl[4];
    unsigned popl;
    if (!frame_box(fm1, bm, &popm) || !frame_box(last, bl, &popl) || popm != popl ||
        !same_moved(last, bl, fm1, bm) || bm[0] - bl[0] != -dx || bm[1] - bl[1] != -dy)
        return NULL;
    /* the kind, anchored at phase 0's corner */
    sp_ship_type T;
    memset(&T, 0, sizeof T);
    T.p = p;
    T.dx = dx;
    T.dy = dy;
    T.hx0 = T.hy0 = INT32_MAX;
    T.hx1 = T.hy1 = INT32_MIN;
    for (unsigned k = 0; k < p; k++) {
        const uint64_t *f = F + k * WL_TILE;
        sp_phase *ph = &T.ph[k];
        int b[4] = {0, 0, 0, 0};
        frame_box(f, b, &ph->pop); /* (every phase has cells: checked as it ran) */
        ph->x0 = b[0] - b0[0];
        ph->y0 = b[1] - b0[1];
        ph->w = b[2] - b[0] + 1;
        ph->h = b[3] - b[1] + 1;
        for (int r = 0; r < ph->h; r++) ph->rows[r] = f[b[1] + r] >> b[0];
        if (ph->x0 < T.hx0) T.hx0 = ph->x0;
        if (ph->y0 < T.hy0) T.hy0 = ph->y0;
        if (ph->x0 + ph->w - 1 > T.hx1) T.hx1 = ph->x0 + ph->w - 1;
        if (ph->y0 + ph->h - 1 > T.hy1) T.hy1 = ph->y0 + ph->h - 1;
    }
    const int rx = (T.hx0 < -T.hx1 ? -T.hx0 : T.hx1) + abs(dx);
    const int ry = (T.hy0 < -T.hy1 ? -T.hy0 : T.hy1) + abs(dy);
    T.reach = rx > ry ? rx : ry;
    *bx = b0[0];
    *by = b0[1];
    for (size_t i = 0; i < S->ntypes; i++) {
        const sp_ship_type *u = S->types[i];
        if (u->p == p && u->dx == dx && u->dy == dy && u->ph[0].w == T.ph[0].w &&
            u->ph[0].h == T.ph[0].h &&
            !memcmp(u->ph[0].rows, T.ph[0].rows, (size_t)T.ph[0].h * sizeof T.ph[0].rows[0]))
            return u;
    }
    if (S->ntypes == S->types_cap) {
        size_t cap = S->types_cap ? 2 * S->types_cap : 16;
        sp_ship_type **n = realloc(S->types, cap * sizeof *n);
        if (!n) return NULL;
        S->types = n;
        S->types_cap = cap;
    }
    sp_ship_type *u = malloc(sizeof *u);
    if (!u) return NULL;
    *u = T;
    S->types[S->ntypes++] = u;
    return u;
}

/* Sets (on = 1) or clears the object's cells in the tiles around t, both generations as
 * they were (m0: the cells at the current generation, m1: at the one before, frames in
 * window coordinates offset by (fx, fy)). */
static void put_cells(const sp_ctx *c, sp_tile *t, const uint64_t *m0, const uint64_t *m1,
                      int fx, int fy, int on) {
    const sp_tile *g[3][3];
    tile_grid(t, g);
    for (int b = 0; b < 2; b++) {
        const uint64_t *m = b ? m1 : m0;
        const unsigned buf = c->par ^ (unsigned)b;
        for (int r = 0; r < WL_TILE; r++)
            for (uint64_t w = m[r]; w; w &= w - 1) {
                int x = fx + __builtin_ctzll(w), y = fy + r;
                sp_tile *u = (sp_tile *)g[(y + 64) >> 6][(x + 64) >> 6];
                uint64_t bit = (uint64_t)1 << ((x + 64) & 63);
                uint64_t *row = &u->rows[buf][(y + 64) & 63];
                *row = on ? *row | bit : *row & ~bit;
            }
    }
}

/* A ship found by a search, before it is taken out: its tile, its cells at the current
 * generation and the one before in a frame at (fx, fy) of the tile's window, its kind and
 * its anchor. */
typedef struct sp_found {
    sp_tile *t;
    int fx, fy;
    uint64_t f0[WL_TILE], fm1[WL_TILE];
    sp_ship ship;
} sp_found;

/* Adds the ships among the objects of tile t (listed, few live cells) to the list f. */
static wl_status find_in_tile(sp_ctx *c, sp_tile *t, sp_window *win, sp_found **f, size_t *n,
                              size_t *cap) {
    sp_ships *S = &c->ships;
    window_fill(t, win);
    const sp_tile *g[3][3];
    tile_grid(t, g);
    int16_t cell[COMP_MAX][2];
    for (int seeds = 0; seeds < SCAN_SEEDS; seeds++) {
        /* the next live cell of t itself */
        int sx = -1, sy = -1;
        for (int r = 0; r < WL_TILE && sy < 0; r++)
            if (win->w[64 + r][1]) {
                sy = r;
                sx = __builtin_ctzll(win->w[64 + r][1]);
            }
        if (sy < 0) break;
        int nc, box[4];
        if (!component(win, sx, sy, cell, &nc, box)) continue;
        /* an object is tried from the tile of its first cell only (its other tiles would
         * find it again) */
        int fx0 = cell[0][0], fy0 = cell[0][1];
        for (int k = 1; k < nc; k++)
            if (cell[k][1] < fy0 || (cell[k][1] == fy0 && cell[k][0] < fx0)) {
                fx0 = cell[k][0];
                fy0 = cell[k][1];
            }
        if (fx0 < 0 || fx0 >= WL_TILE || fy0 < 0 || fy0 >= WL_TILE) continue;
        S->st_tried++;
        if (*n == *cap) {
            size_t nn = *cap ? 2 * *cap : 64;
            sp_found *m = realloc(*f, nn * sizeof *m);
            if (!m) return wl_error(WL_ERR_NOMEM, "sparse engine: out of memory (ships)");
            *f = m;
            *cap = nn;
        }
        sp_found *e = &(*f)[*n];
        /* the object in a frame, centred, at both generations */
        e->t = t;
        e->fx = box[0] - (WL_TILE - (box[2] - box[0] + 1)) / 2;
        e->fy = box[1] - (WL_TILE - (box[3] - box[1] + 1)) / 2;
        memset(e->f0, 0, sizeof e->f0);
        memset(e->fm1, 0, sizeof e->fm1);
        for (int k = 0; k < nc; k++) {
            int x = cell[k][0], y = cell[k][1];
            const sp_tile *u = g[(y + 64) >> 6][(x + 64) >> 6];
            int bx = (x + 64) & 63, by = (y + 64) & 63;
            uint64_t bit = (uint64_t)1 << (x - e->fx);
            if ((sp_row(u, c->par, by) >> bx) & 1) e->f0[y - e->fy] |= bit;
            if ((sp_row(u, c->par ^ 1, by) >> bx) & 1) e->fm1[y - e->fy] |= bit;
        }
        memcpy(S->frames, e->f0, sizeof e->f0);
        int ax, ay;
        const sp_ship_type *T = identify(c, e->fm1, &ax, &ay);
        if (!T) continue;
        e->ship = (sp_ship){T, t->tx * WL_TILE + e->fx + ax, t->ty * WL_TILE + e->fy + ay,
                            c->gen, 0, (double)T->dx / T->p, (double)T->dy / T->p, 0, c->gen};
        /* the tiles its cells (and their next generation) lie in */
        for (int d = 0; d < 4; d++) {
            int x = box[d & 1 ? 2 : 0] + (d & 1 ? 2 : -2), y = box[d & 2 ? 3 : 1] + (d & 2 ? 2 : -2);
            ((sp_tile *)g[(y + 64) >> 6][(x + 64) >> 6])->ship = 1;
        }
        (*n)++;
    }
    return WL_OK;
}

/* Whether the tiles hold a live cell (either generation) in the box of found ship e's
 * cells widened by CLEAN. */
static int crowded(const sp_ctx *c, const sp_found *e) {
    uint64_t both[WL_TILE];
    int box[4];
    for (int r = 0; r < WL_TILE; r++) both[r] = e->f0[r] | e->fm1[r];
    if (!sp_rows_box(both, WL_TILE, box)) return 0;
    const int64_t X = e->t->tx * WL_TILE + e->fx, Y = e->t->ty * WL_TILE + e->fy;
    const int64_t x0 = X + box[0] - CLEAN, x1 = X + box[2] + CLEAN;
    const int64_t y0 = Y + box[1] - CLEAN, y1 = Y + box[3] + CLEAN;
    for (int64_t ty = wl_floordiv(y0, WL_TILE); ty <= wl_floordiv(y1, WL_TILE); ty++)
        for (int64_t tx = wl_floordiv(x0, WL_TILE); tx <= wl_floordiv(x1, WL_TILE); tx++) {
            const sp_tile *t = sp_map_find(&c->map, tx, ty);
            if (!t) continue;
            int64_t c0 = x0 - tx * WL_TILE, c1 = x1 - tx * WL_TILE;
            int64_t r0 = y0 - ty * WL_TILE, r1 = y1 - ty * WL_TILE;
            uint64_t cols = (c0 <= 0 ? ~(uint64_t)0 : ~(uint64_t)0 << c0) &
                            (c1 >= 63 ? ~(uint64_t)0 : ~(~(uint64_t)0 << (c1 + 1)));
            for (int64_t r = r0 < 0 ? 0 : r0; r <= (r1 > 63 ? 63 : r1); r++)
                if ((sp_row(t, 0, (int)r) | sp_row(t, 1, (int)r)) & cols) return 1;
        }
    return 0;
}

/* Whether found ship e may fly (see the essay): no other live cell within CLEAN of it (the
 * other found ships are out of the tiles), and nothing but the tiles ships are being taken
 * from, or the other found ships still in, makes it land soon. */
static int may_fly(sp_ctx *c, const sp_found *f, size_t n, size_t i) {
    if (crowded(c, &f[i]) || horizon(c, &f[i].ship, 1) < K_TAKE) return 0;
    for (size_t k = 0; k < n; k++)
        if (k != i && f[k].t && ship_near(&f[i].ship, &f[k].ship, c->gen, K_TAKE) &&
            ship_meet(&f[i].ship, &f[k].ship, c->gen) < K_TAKE)
            return 0;
    return 1;
}

/* Sets the interval between two searches from what the ships taken out did (see "When
 * taking out does not pay"). */
static void adapt_scan(sp_ships *S) {
    if (S->took < 4) return; /* (too little evidence: the counts go on) */
    if (2 * S->wasted >= S->took) {
        if (S->scan_gens < SCAN_GENS_MAX) S->scan_gens *= 2;
    } else if (4 * S->wasted < S->took) {
        if (S->scan_gens > SCAN_GENS) S->scan_gens /= 2;
    }
    /* older take-outs count half (a landing may come some searches after its take-out) */
    S->took /= 2;
    S->wasted /= 2;
}

wl_status sp_ships_scan(sp_ctx *c) {
    sp_ships *S = &c->ships;
    adapt_scan(S);
    S->scan_next = c->gen + S->scan_gens;
    if (!S->enabled || c->next.n == 0 || c->next.n > SCAN_MAX_TILES || S->n >= SHIPS_MAX)
        return WL_OK;
    sp_window *win = wl_aligned_alloc(sizeof *win);
    if (!win) return WL_OK; /* (no search this time) */
    sp_found *f = NULL;
    size_t n = 0, cap = 0;
    wl_status s = WL_OK;
    /* every ship first, so that ships flying side by side do not hold each other back */
    for (size_t i = 0; i < c->next.n && !s && S->n + n < SHIPS_MAX; i++) {
        sp_tile *t = c->next.t[i];
        unsigned pop = 0;
        for (int r = 0; r < WL_TILE && pop <= SCAN_MAX_POP; r++)
            pop += wl_popcount64(sp_row(t, 0, r) | sp_row(t, 1, r));
        if (!pop || pop > SCAN_MAX_POP) continue;
        if (t->scan_skip) {
            t->scan_skip--;
            continue;
        }
        size_t before = n;
        s = find_in_tile(c, t, win, &f, &n, &cap);
        if (n > before) {
            t->scan_miss = 0;
        } else { /* nothing: skip 1, 2, 4, 8 searches before looking here again */
            t->scan_skip = (uint8_t)(1u << t->scan_miss);
            if (t->scan_miss < SCAN_BACKOFF) t->scan_miss++;
        }
    }
    wl_aligned_free(win);
    /* out of the tiles, all of them; then those that may not fly go back, until the others
     * are still clean (a ship that went back may crowd another) */
    sp_tile **home = malloc((n ? n : 1) * sizeof *home); /* (f[i].t = NULL: gone back) */
    if (!home) s = wl_error(WL_ERR_NOMEM, "sparse engine: out of memory (ships)");
    for (size_t i = 0; i < n && home; i++) home[i] = f[i].t;
    for (size_t i = 0; i < n && !s; i++) { /* (the cells of tiles asleep are packed) */
        const sp_tile *g[3][3];
        tile_grid(f[i].t, g);
        for (int k = 0; k < 9 && !s; k++) s = sp_unpack(&c->map, (sp_tile *)g[k / 3][k % 3]);
    }
    for (size_t i = 0; i < n && !s; i++) put_cells(c, f[i].t, f[i].f0, f[i].fm1, f[i].fx, f[i].fy, 0);
    for (int changed = 1; changed && !s;) {
        changed = 0;
        for (size_t i = 0; i < n; i++) {
            if (!f[i].t || may_fly(c, f, n, i)) continue;
            put_cells(c, f[i].t, f[i].f0, f[i].fm1, f[i].fx, f[i].fy, 1);
            f[i].t = NULL;
            changed = 1;
        }
    }
    for (size_t i = 0; i < n && !s; i++) {
        if (!f[i].t) continue;
        if (S->n >= SHIPS_MAX) { /* the rest stay in the tiles */
            put_cells(c, f[i].t, f[i].f0, f[i].fm1, f[i].fx, f[i].fy, 1);
            continue;
        }
        if (S->n == S->cap) {
            size_t ncap = S->cap ? 2 * S->cap : 64;
            sp_ship *ns = realloc(S->s, ncap * sizeof *ns);
            if (!ns) { /* the ships not added yet go back */
                for (size_t k = i; k < n; k++)
                    if (f[k].t) put_cells(c, f[k].t, f[k].f0, f[k].fm1, f[k].fx, f[k].fy, 1);
                s = wl_error(WL_ERR_NOMEM, "sparse engine: out of memory (ships)");
                break;
            }
            S->s = ns;
            S->cap = ncap;
        }
        /* the ships in flight it may meet look again by then */
        for (size_t k = 0; k < S->n; k++) {
            if (S->s[k].horizon <= c->gen ||
                !ship_near(&f[i].ship, &S->s[k], c->gen, (double)(S->s[k].horizon - c->gen)))
                continue;
            double j = ship_meet(&f[i].ship, &S->s[k], c->gen);
            if (j == INFINITY) continue;
            uint64_t when = c->gen + (j < 1 ? 0 : (uint64_t)j - 1);
            if (when < S->s[k].horizon) S->s[k].horizon = when;
        }
        /* it flies two generations, then is looked at with its old tiles quiet; the tiles
         * where it was compute themselves without it */
        f[i].ship.horizon = c->gen + 2;
        f[i].ship.born = c->gen;
        S->s[S->n++] = f[i].ship;
        S->st_found++;
        S->took++;
        int64_t x0, y0, x1, y1;
        ship_region(&f[i].ship, c->gen, &x0, &y0, &x1, &y1);
        s = sp_wake_box(c, x0, y0, x1, y1);
    }
    for (size_t i = 0; i < n && home; i++) {
        const sp_tile *g[3][3];
        tile_grid(home[i], g);
        for (int k = 0; k < 9; k++) ((sp_tile *)g[k / 3][k % 3])->ship = 0;
    }
    free(home);
    free(f);
    update_next(S);
    return s;
}

/* ---- lifetime ---------------------------------------------------------------------------- */

wl_status sp_ships_init(sp_ctx *c) {
    sp_ships *S = &c->ships;
    memset(S, 0, sizeof *S);
    const char *e = getenv("WL_SPARSE_SHIPS"); /* off: tests and comparisons */
    S->enabled = !(e && strcmp(e, "off") == 0);
    S->next = UINT64_MAX;
    S->scan_gens = SCAN_GENS;
    const size_t bytes = (SP_SHIP_MAXP + 1) * WL_TILE * sizeof *S->frames;
    S->frames = wl_aligned_alloc(bytes);
    /* (zeroed: a tile kernel compares the frame it writes with its old contents) */
    if (S->frames) memset(S->frames, 0, bytes);
    return S->frames ? WL_OK : WL_ERR_NOMEM;
}

void sp_ships_free(sp_ctx *c) {
    sp_ships *S = &c->ships;
    for (size_t i = 0; i < S->ntypes; i++) free(S->types[i]);
    free(S->types);
    free(S->s);
    wl_aligned_free(S->frames);
    memset(S, 0, sizeof *S);
}
