/*
 * shape.c - Golly's bounded grids: the rule suffix that names one (":T30,20", ":K30*,20",
 * ":S30", ...), its canonical text, and how each topology glues a grid's edges.
 *
 * The suffix.  After the ':' comes one letter (either case) - T torus, P plane, K Klein
 * bottle, C cross-surface, S sphere - then the width, an optional '*' (Klein: the
 * horizontal edges are twisted), an optional shift "+n" or "-n" (the horizontal edges are
 * shifted), then optionally ',' and the height with its own '*' and shift (the vertical
 * edges).  Missing digits count as 0; a side of 0 has no bounds (tori and planes only:
 * Golly's tubes and strips); a size without a height is a square; sizes stop at
 * 2,000,000,000; a shift is reduced modulo its side keeping its sign; a Klein bottle
 * without '*' twists its vertical edges, and any shift of a twisted side acts as a shift of
 * 1 (dropped on an odd side).  ":", ":T" and ":T0,0" mean the plane.  These are Golly's
 * rules (its lifealgo::setgridsize), and the canonical text is what Golly writes back:
 * upper-case letter, both sizes except for the sphere, a Klein shift as "+1".
 *
 * The glue.  Golly runs a bounded grid by copying, before every generation, the cells on
 * the grid's edges into the ring of cells just outside it, and deleting whatever lies
 * outside after the generation.  wl_shape_ring says, for each ring cell, which grid cell it
 * copies: the whole definition of a topology for range-1 rules.  The formulas follow
 * Golly's code (lifealgo.cpp's JoinEdges, JoinShiftedEdges, JoinTwistedEdges,
 * JoinTwistedAndShiftedEdges, JoinAdjacentEdges), including two cases where its help
 * pictures differ from its code by two cells (a twisted and shifted Klein bottle: the code
 * is what Golly runs).  Corners: a torus's take the opposite corner (shifted along with
 * the shifted edges); a Klein bottle's follow its twist; a cross-surface's and a sphere's
 * take the grid corner beside them, so those corner cells neighbour themselves.
 */
#include "internal.h"

#include <string.h>

#define SHAPE_SIDE_MAX 2000000000ull /* Golly's largest bounded side */

static wl_status shape_fail(const char *text, size_t pos, const char *why) {
    return wl_error(WL_ERR_PARSE, "grid suffix ':%.40s': %s (at position %zu)", text, why,
                    pos + 1);
}

/* Digits from text[*i] on (none: 0), capped at SHAPE_SIDE_MAX. */
static uint64_t read_number(const char *text, size_t *i) {
    uint64_t v = 0;
    while (text[*i] >= '0' && text[*i] <= '9') {
        v = v * 10 + (uint64_t)(text[*i] - '0');
        if (v > SHAPE_SIDE_MAX) v = SHAPE_SIDE_MAX;
        (*i)++;
    }
    return v;
}

/* One side: size, optional '*', optional signed shift. */
typedef struct side {
    uint64_t size;
    int twist;
    int64_t shift;
    size_t shift_at; /* position of the sign, for messages */
} side;

static void read_side(const char *text, size_t *i, side *s) {
    s->size = read_number(text, i);
    s->twist = 0;
    s->shift = 0;
    if (text[*i] == '*') {
        s->twist = 1;
        (*i)++;
    }
    if (text[*i] == '+' || text[*i] == '-') {
        int neg = text[*i] == '-';
        s->shift_at = *i;
        (*i)++;
        uint64_t v = read_number(text, i);
        s->shift = neg ? -(int64_t)v : (int64_t)v;
    }
}

wl_status wl_shape_parse(const char *text, wl_shape *out) {
    memset(out, 0, sizeof *out);
    out->topology = WL_TOPOLOGY_PLANE;
    if (!text) return wl_error(WL_ERR_INVALID, "wl_shape_parse: NULL argument");
    if (!text[0]) return WL_OK; /* ":" alone */
    wl_topology t;
    switch (text[0]) {
    case 'T': case 't': t = WL_TOPOLOGY_TORUS; break;
    case 'P': case 'p': t = WL_TOPOLOGY_BOUNDED; break;
    case 'K': case 'k': t = WL_TOPOLOGY_KLEIN; break;
    case 'C': case 'c': t = WL_TOPOLOGY_CROSS; break;
    case 'S': case 's': t = WL_TOPOLOGY_SPHERE; break;
    default: return shape_fail(text, 0, "unknown grid topology (expected T, P, K, C or S)");
    }
    if (!text[1]) return WL_OK; /* ":T": unbounded */
    size_t i = 1;
    side a, b;
    read_side(text, &i, &a);
    const char *name = t == WL_TOPOLOGY_BOUNDED ? "a plane" : t == WL_TOPOLOGY_SPHERE ? "a sphere"
                       : t == WL_TOPOLOGY_CROSS ? "a cross-surface" : "a torus";
    if (a.twist && t != WL_TOPOLOGY_KLEIN)
        return shape_fail(text, i - 1, "only a Klein bottle has a twist");
    if (a.shift && t != WL_TOPOLOGY_TORUS && t != WL_TOPOLOGY_KLEIN) {
        char why[64];
        snprintf(why, sizeof why, "%s cannot have a shift", name);
        return shape_fail(text, a.shift_at, why);
    }
    if (a.shift && t == WL_TOPOLOGY_KLEIN && !a.twist)
        return shape_fail(text, a.shift_at, "a Klein bottle's shift must be on its twisted edges");
    if (a.shift && a.size == 0) return shape_fail(text, a.shift_at, "cannot shift an unbounded width");
    if (t == WL_TOPOLOGY_SPHERE && text[i] == ',')
        return shape_fail(text, i, "a sphere has one size (its width and height are equal)");
    if (text[i] && text[i] != ',') return shape_fail(text, i, "unexpected text after the grid width");
    if (a.size == 0 && t != WL_TOPOLOGY_TORUS && t != WL_TOPOLOGY_BOUNDED)
        return shape_fail(text, 1, "this topology cannot have an unbounded width");
    b = a;
    b.twist = 0;
    b.shift = 0;
    if (text[i] == ',') {
        i++;
        if (text[i]) {
            read_side(text, &i, &b);
            if (b.twist && t != WL_TOPOLOGY_KLEIN)
                return shape_fail(text, i - 1, "only a Klein bottle has a twist");
            if (b.twist && a.twist)
                return shape_fail(text, i - 1, "a Klein bottle cannot have both twists");
            if (b.shift && t != WL_TOPOLOGY_TORUS && t != WL_TOPOLOGY_KLEIN) {
                char why[64];
                snprintf(why, sizeof why, "%s cannot have a shift", name);
                return shape_fail(text, b.shift_at, why);
            }
            if (b.shift && t == WL_TOPOLOGY_KLEIN && !b.twist)
                return shape_fail(text, b.shift_at,
                                  "a Klein bottle's shift must be on its twisted edges");
            if (b.shift && a.shift)
                return shape_fail(text, b.shift_at, "cannot have both horizontal and vertical shifts");
            if (b.shift && b.size == 0)
                return shape_fail(text, b.shift_at, "cannot shift an unbounded height");
            if (text[i]) return shape_fail(text, i, "unexpected text after the grid height");
            if (b.size == 0 && t != WL_TOPOLOGY_TORUS && t != WL_TOPOLOGY_BOUNDED)
                return shape_fail(text, i, "this topology cannot have an unbounded height");
        }
    }
    if ((a.shift || b.shift) && (a.size == 0 || b.size == 0))
        return shape_fail(text, 1, "shifting is not allowed when a side is unbounded");
    if (a.size == 0 && b.size == 0) return WL_OK; /* ":T0,0": the plane */
    out->topology = t;
    out->width = a.size;
    out->height = b.size;
    if (t == WL_TOPOLOGY_KLEIN) {
        if (!a.twist && !b.twist) b.twist = 1; /* ":K30,20" twists the vertical edges */
        out->glue.htwist = (uint8_t)a.twist;
        out->glue.vtwist = (uint8_t)b.twist;
        /* every shift of a twisted side acts as 1, and only on an even side */
        out->glue.hshift = a.twist && a.shift && a.size % 2 == 0;
        out->glue.vshift = b.twist && b.shift && b.size % 2 == 0;
    } else if (t == WL_TOPOLOGY_TORUS) {
        out->glue.hshift = a.shift % (int64_t)(a.size ? a.size : 1);
        out->glue.vshift = b.shift % (int64_t)(b.size ? b.size : 1);
    }
    return WL_OK;
}

wl_status wl_shape_format(const wl_shape *s, char *buf, size_t len) {
    char t[96];
    unsigned long long w = s->width, h = s->height;
    const wl_glue *g = &s->glue;
    int n;
    switch (s->topology) {
    case WL_TOPOLOGY_PLANE: n = snprintf(t, sizeof t, "%s", ""); break;
    case WL_TOPOLOGY_BOUNDED: n = snprintf(t, sizeof t, ":P%llu,%llu", w, h); break;
    case WL_TOPOLOGY_SPHERE: n = snprintf(t, sizeof t, ":S%llu", w); break;
    case WL_TOPOLOGY_CROSS: n = snprintf(t, sizeof t, ":C%llu,%llu", w, h); break;
    case WL_TOPOLOGY_KLEIN:
        if (g->htwist)
            n = snprintf(t, sizeof t, ":K%llu*%s,%llu", w, g->hshift ? "+1" : "", h);
        else
            n = snprintf(t, sizeof t, ":K%llu,%llu*%s", w, h, g->vshift ? "+1" : "");
        break;
    default:
        if (g->hshift)
            n = snprintf(t, sizeof t, ":T%llu%+lld,%llu", w, (long long)g->hshift, h);
        else if (g->vshift)
            n = snprintf(t, sizeof t, ":T%llu,%llu%+lld", w, h, (long long)g->vshift);
        else
            n = snprintf(t, sizeof t, ":T%llu,%llu", w, h);
        break;
    }
    if (n < 0 || (size_t)n >= len)
        return wl_error(WL_ERR_INVALID, "wl_shape_format: buffer of %zu bytes too small", len);
    memcpy(buf, t, (size_t)n + 1);
    return WL_OK;
}

/* v mod n in 0 .. n-1 (n > 0). */
static uint64_t umod(int64_t v, uint64_t n) {
    return (uint64_t)wl_mod(v, (int64_t)n);
}

int wl_shape_ring(const wl_shape *s, int64_t i, int64_t j, uint64_t *si, uint64_t *sj) {
    uint64_t w = s->width, h = s->height;
    int64_t W = (int64_t)w, H = (int64_t)h;
    int left = i < 0, right = i >= W, top = j < 0, bottom = j >= H;
    int corner = (left || right) && (top || bottom);
    const wl_glue *g = &s->glue;
    int64_t x = i, y = j; /* the source, before reduction */
    switch (s->topology) {
    case WL_TOPOLOGY_TORUS:
        if (g->hshift) { /* the top and bottom edges are shifted */
            int64_t sh = g->hshift;
            if (top) x = i - sh;
            else if (bottom) x = i + sh;
        }
        if (g->vshift) {
            int64_t sh = g->vshift;
            if (left) y = j - sh;
            else if (right) y = j + sh;
        }
        *si = umod(x, w);
        *sj = umod(y, h);
        return 1;
    case WL_TOPOLOGY_KLEIN:
        if (g->htwist) {
            /* top and bottom reversed (moved one cell left when shifted) */
            if (top || bottom) {
                if (corner) {
                    uint64_t cx = g->hshift ? (left ? w - 1 : w - 2) : (left ? 0 : w - 1);
                    *si = cx % w;
                    *sj = top ? h - 1 : 0;
                    return 1;
                }
                x = g->hshift ? W - 2 - i : W - 1 - i;
                *si = umod(x, w);
                *sj = top ? h - 1 : 0;
                return 1;
            }
            *si = left ? w - 1 : 0;
            *sj = (uint64_t)j;
            return 1;
        }
        if (left || right) {
            if (corner) {
                uint64_t cy = g->vshift ? (top ? h - 1 : h - 2) : (top ? 0 : h - 1);
                *si = left ? w - 1 : 0;
                *sj = cy % h;
                return 1;
            }
            y = g->vshift ? H - 2 - j : H - 1 - j;
            *si = left ? w - 1 : 0;
            *sj = umod(y, h);
            return 1;
        }
        *si = (uint64_t)i;
        *sj = top ? h - 1 : 0;
        return 1;
    case WL_TOPOLOGY_CROSS:
        if (corner) { /* the grid corner beside it */
            *si = left ? 0 : w - 1;
            *sj = top ? 0 : h - 1;
            return 1;
        }
        if (top || bottom) {
            *si = (uint64_t)(W - 1 - i);
            *sj = top ? h - 1 : 0;
        } else {
            *si = left ? w - 1 : 0;
            *sj = (uint64_t)(H - 1 - j);
        }
        return 1;
    case WL_TOPOLOGY_SPHERE:
        if (corner) {
            *si = left ? 0 : w - 1;
            *sj = top ? 0 : h - 1;
            return 1;
        }
        if (left) { /* the left ring copies the top row */
            *si = (uint64_t)j;
            *sj = 0;
        } else if (top) { /* the top ring copies the left column */
            *si = 0;
            *sj = (uint64_t)i;
        } else if (right) { /* the right ring copies the bottom row */
            *si = (uint64_t)j;
            *sj = h - 1;
        } else { /* the bottom ring copies the right column */
            *si = w - 1;
            *sj = (uint64_t)i;
        }
        return 1;
    default:
        return 0; /* a bounded plane: the ring is dead */
    }
}

const char *wl_topology_name(wl_topology t) {
    switch (t) {
    case WL_TOPOLOGY_TORUS: return "torus";
    case WL_TOPOLOGY_BOUNDED: return "bounded";
    case WL_TOPOLOGY_PLANE: return "plane";
    case WL_TOPOLOGY_KLEIN: return "klein";
    case WL_TOPOLOGY_CROSS: return "cross-surface";
    case WL_TOPOLOGY_SPHERE: return "sphere";
    }
    return "?";
}
