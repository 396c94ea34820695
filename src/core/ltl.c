/*
 * ltl.c - Larger than Life rules (family WL_FAMILY_LTL): Golly's three notations, their
 * canonical text, and the neighbourhoods.
 *
 * A Larger than Life rule counts the state-1 cells among a cell's neighbours out to range
 * r (1..500) and tests the count against intervals: a dead cell is born when its count
 * lies in a birth interval, a live (state-1) cell survives when its count - plus one for
 * itself in LtL notation's M1 - lies in a survival interval.  With C > 2 states a state-1
 * cell that does not survive decays through 2 .. C-1 as in Generations, and only state-1
 * cells count.
 *
 * Notations (all case-insensitive; spaces are allowed before numbers, as Golly allows):
 *   LtL (Mirek Wojtowicz's MCell): "R5,C0,M1,S34..58,B34..45,NM" - one interval each;
 *   Kellie Evans: "5,34,45,34,58" = r, bmin, bmax, smin, smax: Moore, M1, two states;
 *   HROT (LifeViewer's): "R5,C2,S33-57,B34-45[,NM]" - lists of counts and ranges, no M.
 * C0, C1 and C2 mean two states.  Canonical text is Golly's: LtL and Evans input print in
 * LtL notation with the values as given ("R5,C0,M1,S34..58,B34..45,NM"); HROT input prints
 * in HROT with its counts as ascending maximal runs and ",N<x>" unless Moore.  The numbers
 * may not pass the neighbourhood's size (plus one for M1).  B0 is refused with more than
 * two states (as in Golly).
 *
 * Neighbourhoods: Golly's fourteen fixed shapes, by the letter after N.  Offsets (dx, dy),
 * y downwards, |dx|, |dy| <= r, the centre never included:
 *   M Moore (all)              N von Neumann |dx|+|dy| <= r   C circular dx^2+dy^2 <= r^2+r
 *   2 Euclidean dx^2+dy^2<=r^2 B checkerboard dx+dy odd       D aligned checkerboard dx+dy even
 *   + cross dx = 0 or dy = 0   X saltire |dx| = |dy|          * star: + and X
 *   # hash |dx| = 1 or |dy| = 1  H hexagonal |dx - dy| <= r   A asterisk: +, and dx = dy
 *   3 tripod (0,-d) (-d,0) (d,d), 1 <= d <= r
 *   L triangular: rows |dy| <= r, |dx| <= w(dy) with w = 2r+1+dy above (dy < 0) and 2r-dy
 *     below for a cell whose x + y is even, and the vertical mirror for odd x + y.
 * Golly's weighted, Gaussian and custom neighbourhoods (NW, NG, N@) are refused.
 */
#include "rule_text.h"

#include <stdlib.h>
#include <string.h>

static const char NH_LETTERS[] = "MNC2BD+X*#HA3L";

static char upper(char c) {
    return (c >= 'a' && c <= 'z') ? (char)(c - 'a' + 'A') : c;
}

/* 1 if (dx, dy) (not the centre) is in the neighbourhood; parity: (x + y) & 1 (L only). */
static int member(char nh, int r, int parity, int dx, int dy) {
    int ax = abs(dx), ay = abs(dy);
    if (!dx && !dy) return 0;
    if (nh == 'L') {
        if (ay > r) return 0;
        int w = parity == 0 ? (dy < 0 ? 2 * r + 1 + dy : 2 * r - dy)
                            : (dy <= 0 ? 2 * r + dy : 2 * r + 1 - dy);
        return ax <= w;
    }
    if (ax > r || ay > r) return 0;
    switch (nh) {
    case 'M': return 1;
    case 'N': return ax + ay <= r;
    case 'C': return dx * dx + dy * dy <= r * r + r;
    case '2': return dx * dx + dy * dy <= r * r;
    case 'B': return (ax + ay) & 1;
    case 'D': return !((ax + ay) & 1);
    case '+': return !dx || !dy;
    case 'X': return ax == ay;
    case '*': return !dx || !dy || ax == ay;
    case '#': return ax == 1 || ay == 1;
    case 'H': return abs(dx - dy) <= r;
    case 'A': return !dx || !dy || dx == dy;
    case '3': return (!dx && dy < 0) || (!dy && dx < 0) || (dx == dy && dx > 0);
    default: return 0;
    }
}

uint64_t wl_ltl_neighbourhood(const wl_ltl *l, int parity,
                              void (*fn)(void *user, int dy, int x0, int x1), void *user) {
    int r = l->range, xr = l->nh == 'L' ? 2 * r + 1 : r;
    uint64_t n = 0;
    if (l->nh == 'M') { /* the square without its centre, run by run (ranges reach 500) */
        for (int dy = -r; dy <= r; dy++) {
            if (fn && dy) fn(user, dy, -r, r);
            if (fn && !dy) fn(user, 0, -r, -1), fn(user, 0, 1, r);
            n += 2 * (uint64_t)r + !!dy;
        }
        return n;
    }
    for (int dy = -r; dy <= r; dy++) {
        for (int dx = -xr; dx <= xr; dx++) {
            if (!member(l->nh, r, parity & 1, dx, dy)) continue;
            int x0 = dx;
            while (dx + 1 <= xr && member(l->nh, r, parity & 1, dx + 1, dy)) dx++;
            if (fn) fn(user, dy, x0, dx);
            n += (uint64_t)(dx - x0 + 1);
        }
    }
    return n;
}

/* The neighbourhood's size (the largest count). */
static uint32_t nh_size(const wl_ltl *l) {
    return (uint32_t)wl_ltl_neighbourhood(l, 0, NULL, NULL);
}

/* ---- parsing -------------------------------------------------------------------------- */

typedef struct ltl_text {
    rule_parser *p;
    size_t i; /* next character */
} ltl_text;

static char peek(const ltl_text *t) {
    return t->i < t->p->end ? upper(t->p->text[t->i]) : '\0';
}

static wl_status fail_at(ltl_text *t, size_t at, const char *why) {
    t->p->pos = at;
    return wl_rt_fail(t->p, why);
}

/* An integer (spaces and a '+' allowed before it); 0 with an error when there is none. */
static int read_int(ltl_text *t, long *out) {
    while (peek(t) == ' ') t->i++;
    if (peek(t) == '+') t->i++;
    if (peek(t) < '0' || peek(t) > '9') return 0;
    long v = 0;
    while (peek(t) >= '0' && peek(t) <= '9') {
        v = v * 10 + (peek(t) - '0');
        if (v > 100000000) v = 100000000;
        t->i++;
    }
    *out = v;
    return 1;
}

static int take(ltl_text *t, char c) {
    if (peek(t) != c) return 0;
    t->i++;
    return 1;
}

/* Flags of the counts a list names: bit v of flags (0 .. size + 1). */
typedef struct count_set {
    uint32_t lo[WL_LTL_INTERVALS_MAX * 4], hi[WL_LTL_INTERVALS_MAX * 4];
    unsigned n;
} count_set;

/* Sorts and merges the intervals into out (at most WL_LTL_INTERVALS_MAX); 0 if too many. */
static int merge(const count_set *c, uint32_t out[][2], uint8_t *nout) {
    uint32_t lo[WL_LTL_INTERVALS_MAX * 4], hi[WL_LTL_INTERVALS_MAX * 4];
    unsigned n = c->n;
    memcpy(lo, c->lo, n * sizeof *lo);
    memcpy(hi, c->hi, n * sizeof *hi);
    for (unsigned a = 1; a < n; a++) /* insertion sort by lo */
        for (unsigned b = a; b > 0 && lo[b - 1] > lo[b]; b--) {
            uint32_t x = lo[b], y = hi[b];
            lo[b] = lo[b - 1];
            hi[b] = hi[b - 1];
            lo[b - 1] = x;
            hi[b - 1] = y;
        }
    unsigned k = 0;
    for (unsigned a = 0; a < n; a++) {
        if (k && lo[a] <= out[k - 1][1] + 1) {
            if (hi[a] > out[k - 1][1]) out[k - 1][1] = hi[a];
            continue;
        }
        if (k == WL_LTL_INTERVALS_MAX) return 0;
        out[k][0] = lo[a];
        out[k][1] = hi[a];
        k++;
    }
    *nout = (uint8_t)k;
    return 1;
}

/* An HROT list: item (',' item)* with item = a or a-b; stops before the next letter. */
static wl_status read_list(ltl_text *t, char what, count_set *c) {
    c->n = 0;
    for (;;) {
        size_t at = t->i;
        long a, b;
        if (!read_int(t, &a)) {
            t->i = at;
            return WL_OK; /* an empty list, or the list ended after a ',' */
        }
        b = a;
        if (take(t, '-') && !read_int(t, &b)) return fail_at(t, t->i, "expected a count after '-'");
        if (a > b) {
            char why[80];
            snprintf(why, sizeof why, "%c range %ld-%ld runs backwards", what, a, b);
            return fail_at(t, at, why);
        }
        if (c->n == sizeof c->lo / sizeof c->lo[0])
            return fail_at(t, at, "too many count ranges");
        c->lo[c->n] = (uint32_t)a;
        c->hi[c->n] = (uint32_t)b;
        c->n++;
        size_t before = t->i;
        if (!take(t, ',')) return WL_OK;
        while (peek(t) == ' ') t->i++;
        if (!(peek(t) >= '0' && peek(t) <= '9') && peek(t) != '+') {
            t->i = before; /* the ',' belongs to what follows */
            return WL_OK;
        }
    }
}

/* Checks every count of the set against [min, max]. */
static wl_status check_counts(ltl_text *t, size_t at, char what, const uint32_t iv[][2],
                              unsigned n, uint32_t min, uint32_t max) {
    for (unsigned k = 0; k < n; k++) {
        if (iv[k][0] < min || iv[k][1] > max) {
            char why[160];
            snprintf(why, sizeof why, "%c counts must lie in %u..%u for this neighbourhood "
                     "(found %u..%u)", what, min, max, iv[k][0], iv[k][1]);
            return fail_at(t, at, why);
        }
    }
    return WL_OK;
}

int wl_ltl_looks_like(const rule_parser *p) {
    return memchr(p->text + p->pos, ',', p->end - p->pos) != NULL;
}

wl_status wl_ltl_parse(rule_parser *p, wl_rule *out) {
    ltl_text t = {p, p->pos};
    wl_ltl l;
    memset(&l, 0, sizeof l);
    l.nh = 'M';
    long r = 0, c = 0, m = 0;
    count_set sb[2]; /* survival, birth */
    size_t s_at = 0, b_at = 0;
    int notation; /* 0 LtL, 1 Evans, 2 HROT */

    if (peek(&t) == 'R') {
        t.i++;
        if (!read_int(&t, &r)) return fail_at(&t, t.i, "expected the range after 'R'");
        if (!take(&t, ',') || !take(&t, 'C')) return fail_at(&t, t.i, "expected ',C' and the number of states");
        if (!read_int(&t, &c)) return fail_at(&t, t.i, "expected the number of states after 'C'");
        if (!take(&t, ',')) return fail_at(&t, t.i, "expected ','");
        notation = 2;
        if (peek(&t) == 'M') { /* LtL notation */
            notation = 0;
            t.i++;
            size_t m_at = t.i;
            if (!read_int(&t, &m)) return fail_at(&t, t.i, "expected 0 or 1 after 'M'");
            if (m > 1) return fail_at(&t, m_at, "M is 0 or 1 (is the cell itself counted)");
            if (!take(&t, ',')) return fail_at(&t, t.i, "expected ',S'");
        }
        for (int half = 0; half < 2; half++) {
            char what = half ? 'B' : 'S';
            size_t at = t.i;
            if (!take(&t, what)) {
                char why[48];
                snprintf(why, sizeof why, "expected '%c'", what);
                return fail_at(&t, at, why);
            }
            if (half) b_at = t.i;
            else s_at = t.i;
            count_set *cs = &sb[half];
            if (notation == 0) {
                long a, b;
                if (!read_int(&t, &a) || !take(&t, '.') || !take(&t, '.') || !read_int(&t, &b))
                    return fail_at(&t, t.i, "expected min..max");
                if (a > b) return fail_at(&t, at + 1, "the range runs backwards (min > max)");
                cs->n = 1;
                cs->lo[0] = (uint32_t)a;
                cs->hi[0] = (uint32_t)b;
            } else {
                wl_status s = read_list(&t, what, cs);
                if (s) return s;
            }
            if (half == 0 && !take(&t, ',')) return fail_at(&t, t.i, "expected ',B'");
        }
        if (peek(&t) == ',') {
            t.i++;
            if (!take(&t, 'N')) return fail_at(&t, t.i, "expected ',N' and a neighbourhood letter");
            char n = peek(&t);
            if (n == 'W' || n == 'G' || n == '@')
                return fail_at(&t, t.i, "Golly's weighted, Gaussian and custom neighbourhoods "
                                        "(NW, NG, N@) are not supported");
            if (!n || !strchr(NH_LETTERS, n))
                return fail_at(&t, t.i, "expected a neighbourhood letter: M N C 2 B D + X * # H A 3 L");
            l.nh = n;
            t.i++;
        } else if (notation == 0) {
            return fail_at(&t, t.i, "expected ',N' and a neighbourhood letter");
        }
    } else {
        /* Kellie Evans: r, bmin, bmax, smin, smax */
        long v[5];
        for (int k = 0; k < 5; k++) {
            if (k && !take(&t, ',')) return fail_at(&t, t.i, "expected ',' (r,bmin,bmax,smin,smax)");
            if (k == 3) s_at = t.i;
            if (k == 1) b_at = t.i;
            if (!read_int(&t, &v[k]))
                return fail_at(&t, t.i, "expected a number (Kellie Evans' notation: r,bmin,bmax,smin,smax)");
        }
        notation = 1;
        r = v[0];
        m = 1;
        if (v[1] > v[2]) return fail_at(&t, b_at, "the birth range runs backwards (min > max)");
        if (v[3] > v[4]) return fail_at(&t, s_at, "the survival range runs backwards (min > max)");
        sb[1].n = sb[0].n = 1;
        sb[1].lo[0] = (uint32_t)v[1];
        sb[1].hi[0] = (uint32_t)v[2];
        sb[0].lo[0] = (uint32_t)v[3];
        sb[0].hi[0] = (uint32_t)v[4];
    }
    if (t.i < p->end) return fail_at(&t, t.i, "unexpected text after the rule");
    if (r < 1 || r > WL_LTL_RANGE_MAX || (l.nh == 'L' && r > WL_LTL_RANGE_MAX / 2)) {
        char why[80];
        snprintf(why, sizeof why, "the range must be 1..%d%s", l.nh == 'L' ? WL_LTL_RANGE_MAX / 2
                 : WL_LTL_RANGE_MAX, l.nh == 'L' ? " for the triangular neighbourhood" : "");
        return fail_at(&t, p->pos + (notation == 1 ? 0 : 1), why);
    }
    if (c > WL_STATES_MAX) return fail_at(&t, p->pos, "C (the number of states) must be 0..256");
    l.range = (uint16_t)r;
    l.middle = (uint8_t)m;
    l.hrot = notation == 2;
    if (!merge(&sb[0], l.survive, &l.nsurvive) || !merge(&sb[1], l.birth, &l.nbirth))
        return fail_at(&t, s_at, "too many count ranges");
    if (notation != 2) { /* LtL keeps its range as written (merge did not change one) */
        l.survive[0][0] = sb[0].lo[0];
        l.survive[0][1] = sb[0].hi[0];
        l.birth[0][0] = sb[1].lo[0];
        l.birth[0][1] = sb[1].hi[0];
    }
    uint32_t size = nh_size(&l);
    wl_status s = check_counts(&t, b_at, 'B', l.birth, l.nbirth, 0, size + l.middle);
    if (!s) s = check_counts(&t, s_at, 'S', l.survive, l.nsurvive, l.middle, size + l.middle);
    if (s) return s;
    unsigned states = c <= 2 ? 2u : (unsigned)c;
    if (states > 2 && l.nbirth && l.birth[0][0] == 0)
        return fail_at(&t, b_at, "B0 is not allowed with more than 2 states (as in Golly)");
    memset(out, 0, sizeof *out);
    out->family = WL_FAMILY_LTL;
    out->states = (uint16_t)states;
    out->ltl = l;
    return WL_OK;
}

/* ---- printing ------------------------------------------------------------------------- */

static void puts_buf(text_buf *b, const char *s) {
    while (*s) wl_rt_put(b, *s++);
}

static void put_list(text_buf *b, const uint32_t iv[][2], unsigned n) {
    char tmp[32];
    for (unsigned k = 0; k < n; k++) {
        if (iv[k][0] == iv[k][1]) snprintf(tmp, sizeof tmp, "%s%u", k ? "," : "", iv[k][0]);
        else snprintf(tmp, sizeof tmp, "%s%u-%u", k ? "," : "", iv[k][0], iv[k][1]);
        puts_buf(b, tmp);
    }
}

void wl_ltl_format(text_buf *b, const wl_ltl *l, unsigned states) {
    char tmp[96];
    unsigned c = states <= 2 ? 0 : states;
    if (!l->hrot) {
        snprintf(tmp, sizeof tmp, "R%u,C%u,M%u,S%u..%u,B%u..%u,N%c", l->range, c, l->middle,
                 l->survive[0][0], l->survive[0][1], l->birth[0][0], l->birth[0][1], l->nh);
        puts_buf(b, tmp);
        return;
    }
    snprintf(tmp, sizeof tmp, "R%u,C%u,S", l->range, c);
    puts_buf(b, tmp);
    put_list(b, l->survive, l->nsurvive);
    puts_buf(b, ",B");
    put_list(b, l->birth, l->nbirth);
    if (l->nh != 'M') {
        snprintf(tmp, sizeof tmp, ",N%c", l->nh);
        puts_buf(b, tmp);
    }
}

/* The outer-count sets of a rule: births as they are, survivals moved down by `middle`. */
static void outer_sets(const wl_ltl *l, uint32_t b[][2], uint8_t *nb, uint32_t s[][2],
                       uint8_t *ns) {
    *nb = l->nbirth;
    memcpy(b, l->birth, sizeof l->birth);
    *ns = 0;
    for (unsigned k = 0; k < l->nsurvive; k++) {
        uint32_t lo = l->survive[k][0], hi = l->survive[k][1];
        if (hi < l->middle) continue;
        s[*ns][0] = lo < l->middle ? 0 : lo - l->middle;
        s[*ns][1] = hi - l->middle;
        (*ns)++;
    }
}

int wl_ltl_two_state(const wl_rule *r, wl_rule *out) {
    const wl_ltl *l = &r->ltl;
    if (r->family != WL_FAMILY_LTL || wl_rule_states(r) != 2 || l->range != 1 ||
        (l->nh != 'M' && l->nh != 'N'))
        return 0;
    const uint32_t n = l->nh == 'M' ? 8 : 4; /* neighbours */
    uint32_t b[WL_LTL_INTERVALS_MAX][2], s[WL_LTL_INTERVALS_MAX][2];
    uint8_t nb, ns;
    outer_sets(l, b, &nb, s, &ns);
    uint16_t birth = 0, survive = 0; /* bit c: c neighbours */
    for (uint32_t c = 0; c <= n; c++) {
        for (unsigned k = 0; k < nb; k++)
            if (c >= b[k][0] && c <= b[k][1]) birth |= (uint16_t)(1u << c);
        for (unsigned k = 0; k < ns; k++)
            if (c >= s[k][0] && c <= s[k][1]) survive |= (uint16_t)(1u << c);
    }
    if (birth & 1u) return 0; /* (B0: the engines' own ways) */
    wl_rule_from_counts(out, birth, survive, l->nh == 'N' ? 'V' : 0);
    return 1;
}

const wl_config *wl_ltl_as_table(const wl_config *cfg, wl_config *tmp) {
    wl_rule two;
    if (!wl_ltl_two_state(&cfg->rule, &two)) return cfg;
    *tmp = *cfg;
    tmp->rule = two;
    return tmp;
}

int wl_ltl_equal(const wl_ltl *a, const wl_ltl *b) {
    if (a->range != b->range || a->nh != b->nh) return 0;
    uint32_t ab[WL_LTL_INTERVALS_MAX][2], as[WL_LTL_INTERVALS_MAX][2];
    uint32_t bb[WL_LTL_INTERVALS_MAX][2], bs[WL_LTL_INTERVALS_MAX][2];
    uint8_t nab, nas, nbb, nbs;
    outer_sets(a, ab, &nab, as, &nas);
    outer_sets(b, bb, &nbb, bs, &nbs);
    return nab == nbb && nas == nbs && !memcmp(ab, bb, nab * sizeof ab[0]) &&
           !memcmp(as, bs, nas * sizeof as[0]);
}

/* ---- the grid suffix ---------------------------------------------------------------- */

wl_status wl_ltl_shape(const wl_ltl *l, const char *text, wl_shape *out) {
    memset(out, 0, sizeof *out);
    out->topology = WL_TOPOLOGY_PLANE;
    if (!text[0]) return WL_OK;
    char t = upper(text[0]);
    if (t != 'T' && t != 'P')
        return wl_error(WL_ERR_PARSE, "grid suffix ':%.40s': Larger than Life runs on a torus "
                        "(T) or a bounded plane (P) only (at position 1)", text);
    if (!text[1]) return WL_OK; /* ":T": unbounded */
    long v[2] = {0, 0};
    size_t i = 1;
    for (int k = 0; k < 2; k++) {
        int neg = text[i] == '-';
        if (neg || text[i] == '+') i++;
        if (text[i] < '0' || text[i] > '9') {
            if (k == 1 && !text[i]) { v[1] = v[0]; break; } /* "W," */
            return wl_error(WL_ERR_PARSE, "grid suffix ':%.40s': expected a size at position %zu",
                            text, i + 1);
        }
        while (text[i] >= '0' && text[i] <= '9') {
            v[k] = v[k] * 10 + (text[i++] - '0');
            if (v[k] > 2000000000) v[k] = 2000000000;
        }
        if (neg) v[k] = -v[k];
        if (k == 0 && !text[i]) { v[1] = v[0]; break; }
        if (k == 0 && text[i] != ',')
            return wl_error(WL_ERR_PARSE, "grid suffix ':%.40s': unexpected character at "
                            "position %zu", text, i + 1);
        if (k == 0) i++;
    }
    if (text[i])
        return wl_error(WL_ERR_PARSE, "grid suffix ':%.40s': unexpected character at position %zu",
                        text, i + 1);
    if ((double)v[0] * (double)v[1] > 1e9)
        return wl_error(WL_ERR_PARSE, "grid suffix ':%.40s': the grid is too big (Golly's limit "
                        "for Larger than Life is 1e9 cells)", text);
    long min = 2L * l->range * (l->nh == 'L' ? 2 : 1);
    out->topology = t == 'T' ? WL_TOPOLOGY_TORUS : WL_TOPOLOGY_BOUNDED;
    out->width = (uint64_t)(v[0] < min ? min : v[0]);
    out->height = (uint64_t)(v[1] < min ? min : v[1]);
    return WL_OK;
}
