/*
 * rule_family.c - rule text for every family (wl_family): which notation a text is in,
 * Golly's Generations, History and Super notations on top of the two-state ones of rule.c
 * (and Larger than Life in ltl.c), the canonical text of each, and rule equality.
 *
 * Generations ("345/2/4").  Golly writes survival counts, birth counts and the number of
 * states n (2..256), in that order, separated by '/' (or '_'); B and S letters may mark
 * the halves as in two-state rules ("B2/S345/4"), Hensel letters and '-' work as in
 * two-state rules, and 'H' or 'V' anywhere after the second separator picks Golly's
 * hexagonal or von Neumann neighbourhood ("34/2/4V").  A MAP rule takes "/n" after its 86
 * characters.  Beyond Golly, the forms other programs use are read too: a 'C' or 'G'
 * before n ("B2/S345/C4", LifeWiki and Catagolue) and a leading "g<n>" ("g4b2s345").
 * Golly's canonical text is always "S/B/n[H|V]" with sorted digits and no B or S, or
 * "MAP.../n".  Generations has no B0 (Golly refuses it: its engines assume that empty space
 * stays empty).  The table of a Generations rule is the two-state rule that state-1 cells
 * obey (rule.c); the decay of states 2..n-1 follows from n.
 *
 * History and Super ("LifeHistory", "B36/S23Super").  A suffix "History" or "Super" (any
 * case) after a two-state rule in B/S, S/B, Hensel or MAP notation, or after "Life",
 * "LifeH" or "LifeV" (B3/S23 on the Moore, hexagonal or von Neumann neighbourhood).  The
 * canonical text is "Life<suffix>" for B3/S23 on the Moore neighbourhood, else the
 * two-state canonical text followed by the suffix.  B0 is allowed only with S-max (the
 * rule then runs as its dual, as in Golly); the table keeps the rule as written.
 *
 * Golly's bounded-grid suffix (":T30,20") is not part of a rule: wl_rule_parse_grid splits
 * it off and shape.c reads it (Larger than Life reads its own, ltl.c).
 */
#include "rule_text.h"

#include <string.h>

static char lower(char c) {
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static int is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

const char *wl_family_name(wl_family f) {
    switch (f) {
    case WL_FAMILY_LIFE: return "life-like";
    case WL_FAMILY_GENERATIONS: return "generations";
    case WL_FAMILY_LTL: return "larger than life";
    case WL_FAMILY_HISTORY: return "history";
    case WL_FAMILY_SUPER: return "super";
    default: return "?";
    }
}

int wl_rule_equal(const wl_rule *a, const wl_rule *b) {
    if (a->family != b->family) return 0;
    if (a->family == WL_FAMILY_LIFE) return wl_rule_table_equal(a, b);
    if (wl_rule_states(a) != wl_rule_states(b)) return 0;
    if (a->family == WL_FAMILY_LTL) return wl_ltl_equal(&a->ltl, &b->ltl);
    return wl_rule_table_equal(a, b);
}

/* 1 if text[pos, end) ends with `suffix` in any case. */
static int ends_with(const rule_parser *p, const char *suffix) {
    size_t n = strlen(suffix);
    if (p->end - p->pos < n) return 0;
    for (size_t i = 0; i < n; i++)
        if (lower(p->text[p->end - n + i]) != suffix[i]) return 0;
    return 1;
}

/* The decimal number at text[*i] (digits only), or -1 when there are none; values past
 * 100000 stay there (they are refused anyway). */
static long read_count(const char *text, size_t *i, size_t end) {
    long v = -1;
    while (*i < end && text[*i] >= '0' && text[*i] <= '9') {
        v = (v < 0 ? 0 : v) * 10 + (text[*i] - '0');
        if (v > 100000) v = 100000;
        (*i)++;
    }
    return v;
}

static wl_status states_fail(rule_parser *p, size_t at, long n) {
    char why[96];
    p->pos = at;
    snprintf(why, sizeof why, "a Generations rule has 2 to %d states, not %ld", WL_STATES_MAX, n);
    return wl_rt_fail(p, why);
}

/* The part after a Generations rule's second separator: [C|G] n, with an 'H' or 'V'
 * before or after the number (Golly allows it anywhere there). */
static wl_status parse_state_part(rule_parser *p, size_t from, unsigned *states) {
    const char *t = p->text;
    size_t i = from;
    long n = -1;
    size_t n_at = from;
    while (i < p->end) {
        char c = lower(t[i]);
        if (c == ' ') {
            i++;
        } else if ((c == 'h' || c == 'v') && !p->nh) {
            p->nh = c;
            p->nh_at = i++;
        } else if ((c == 'c' || c == 'g') && i == from) {
            i++;
        } else if (c >= '0' && c <= '9' && n < 0) {
            n_at = i;
            n = read_count(t, &i, p->end);
        } else {
            p->pos = i;
            return wl_rt_fail(p, n < 0 ? "expected the number of states" :
                                         "unexpected text after the number of states");
        }
    }
    if (n < 0) {
        p->pos = p->end;
        return wl_rt_fail(p, "expected the number of states after the second '/'");
    }
    if (n < 2 || n > WL_STATES_MAX) return states_fail(p, n_at, n);
    *states = (unsigned)n;
    return WL_OK;
}

/* A MAP rule's "/n" suffix: a MAP text longer than its 86 characters (and "=="). */
static int map_with_states(const rule_parser *p) {
    size_t len = p->end - p->pos;
    if (len < 3 || lower(p->text[p->pos]) != 'm' || lower(p->text[p->pos + 1]) != 'a' ||
        lower(p->text[p->pos + 2]) != 'p')
        return 0;
    return len > 3 + 88 || (len > 3 + 86 && p->text[p->end - 1] != '=');
}

/* Generations refuses B0 (Golly too): the message points at the birth part's '0' (B/S
 * letters, or the S/B order of digits alone), or at the rule's start for a MAP table. */
static wl_status b0_fail(const rule_parser *p, size_t from, size_t to) {
    const char *t = p->text;
    size_t at = from, i = from;
    while (i < to && lower(t[i]) != 'b') i++;
    if (i == to) { /* no 'B': survival, '/', birth */
        i = from;
        while (i < to && t[i] != '/') i++;
    }
    for (i++; i < to && t[i] != '/' && lower(t[i]) != 's'; i++)
        if (t[i] == '0') {
            at = i;
            break;
        }
    return wl_error(WL_ERR_PARSE, "rule '%.120s': B0 at position %zu: Generations rules cannot "
                    "have B0 (a dead cell with no live neighbour cannot be born; Golly refuses "
                    "it too)", t, at + 1);
}

/* Generations: the table from the two halves, the states from the third part. */
static wl_status parse_generations(rule_parser *p, wl_rule *out, size_t second_sep) {
    unsigned states = 0;
    wl_status s = parse_state_part(p, second_sep + 1, &states);
    if (s) return s;
    rule_parser q = *p;
    q.end = second_sep;
    wl_rule r;
    s = wl_rt_parse_two_state(&q, &r);
    if (s) return s;
    if (wl_rule_has_b0(&r)) return b0_fail(p, p->pos, second_sep);
    r.family = WL_FAMILY_GENERATIONS;
    r.states = (uint16_t)states;
    *out = r;
    return WL_OK;
}

/* "g<n>" followed by a two-state rule (Catagolue's "g4b2s345"). */
static wl_status parse_g_prefix(rule_parser *p, wl_rule *out) {
    size_t i = p->pos + 1, at = i;
    long n = read_count(p->text, &i, p->end);
    if (n < 2 || n > WL_STATES_MAX) return states_fail(p, at, n);
    rule_parser q = *p;
    q.pos = i;
    wl_rule r;
    wl_status s = wl_rt_parse_two_state(&q, &r);
    if (s) return s;
    if (wl_rule_has_b0(&r)) return b0_fail(p, i, p->end);
    r.family = WL_FAMILY_GENERATIONS;
    r.states = (uint16_t)n;
    *out = r;
    return WL_OK;
}

/* History or Super: the suffix (already taken off p->end) names the family. */
static wl_status parse_marks(rule_parser *p, wl_family family, wl_rule *out) {
    const char *t = p->text;
    size_t len = p->end - p->pos;
    wl_rule r;
    if (len >= 4 && lower(t[p->pos]) == 'l' && lower(t[p->pos + 1]) == 'i' &&
        lower(t[p->pos + 2]) == 'f' && lower(t[p->pos + 3]) == 'e' &&
        (len == 4 || (len == 5 && strchr("hHvV", t[p->pos + 4])))) {
        /* "Life", "LifeH", "LifeV": B3/S23 on that neighbourhood */
        const char *text = len == 4 ? "B3/S23" : lower(t[p->pos + 4]) == 'h' ? "B3/S23H" : "B3/S23V";
        rule_parser q = {text, 0, strlen(text), 0, 0};
        wl_status s = wl_rt_parse_two_state(&q, &r);
        if (s) return s;
    } else {
        wl_status s = wl_rt_parse_two_state(p, &r);
        if (s) return s;
    }
    if (wl_rule_has_b0(&r) && !wl_rule_next(&r, 511))
        return wl_error(WL_ERR_PARSE, "rule '%.120s': %s rules can have B0 only with S8 (S6 "
                        "hexagonal, S4 von Neumann), as in Golly", p->text,
                        family == WL_FAMILY_HISTORY ? "History" : "Super");
    r.family = (uint8_t)family;
    r.states = family == WL_FAMILY_HISTORY ? 7 : 26;
    *out = r;
    return WL_OK;
}

wl_status wl_rule_parse(const char *text, wl_rule *out) {
    if (!text || !out) return wl_error(WL_ERR_INVALID, "wl_rule_parse: NULL argument");
    rule_parser p = {text, 0, strlen(text), 0, 0};
    while (p.pos < p.end && is_space(text[p.pos])) p.pos++;
    while (p.end > p.pos && is_space(text[p.end - 1])) p.end--;
    if (p.pos == p.end)
        return wl_error(WL_ERR_PARSE,
                        "rule '%.120s': empty rule text (expected B/S, S/B, Hensel, MAP, "
                        "Generations or Larger than Life notation at position 1)", text);
    const char *colon = memchr(text + p.pos, ':', p.end - p.pos);
    if (colon) { /* a bounded-grid suffix: wl_rule_parse_grid takes those */
        p.pos = (size_t)(colon - text);
        return wl_rt_fail(&p, "topology suffixes such as ':T100,100' are not part of a rule");
    }
    wl_rule r;
    memset(&r, 0, sizeof r);
    wl_status s;
    if (ends_with(&p, "history") || ends_with(&p, "super")) {
        wl_family f = ends_with(&p, "super") ? WL_FAMILY_SUPER : WL_FAMILY_HISTORY;
        p.end -= f == WL_FAMILY_SUPER ? 5 : 7;
        if (p.end == p.pos) return wl_rt_fail(&p, "expected a rule before the suffix");
        s = parse_marks(&p, f, &r);
    } else if (wl_ltl_looks_like(&p)) {
        s = wl_ltl_parse(&p, &r);
    } else if (p.end - p.pos >= 3 && lower(text[p.pos]) == 'm' &&
               lower(text[p.pos + 1]) == 'a' && lower(text[p.pos + 2]) == 'p') {
        /* MAP: base64 has '/' among its characters, so only the length tells "/n" */
        size_t slash = p.end;
        while (slash > p.pos && p.text[slash - 1] != '/') slash--;
        if (map_with_states(&p) && slash > p.pos) {
            s = parse_generations(&p, &r, slash - 1);
        } else {
            s = wl_rt_parse_two_state(&p, &r);
        }
    } else if (lower(text[p.pos]) == 'g' && p.pos + 1 < p.end && text[p.pos + 1] >= '0' &&
               text[p.pos + 1] <= '9') {
        s = parse_g_prefix(&p, &r);
    } else {
        /* two separators make a Generations rule */
        size_t seps[3], n = 0;
        for (size_t i = p.pos; i < p.end && n < 3; i++)
            if (text[i] == '/' || text[i] == '_') seps[n++] = i;
        if (n >= 3) {
            p.pos = seps[2];
            s = wl_rt_fail(&p, "a rule has at most two separators ('/' or '_')");
        } else if (n == 2) {
            s = parse_generations(&p, &r, seps[1]);
        } else {
            s = wl_rt_parse_two_state(&p, &r);
        }
    }
    if (s == WL_OK) *out = r;
    return s;
}

wl_status wl_rule_parse_grid(const char *text, wl_rule *rule, wl_shape *shape) {
    if (!text || !rule || !shape) return wl_error(WL_ERR_INVALID, "wl_rule_parse_grid: NULL argument");
    memset(shape, 0, sizeof *shape);
    shape->topology = WL_TOPOLOGY_PLANE;
    const char *colon = strchr(text, ':');
    if (!colon) return wl_rule_parse(text, rule);
    size_t n = (size_t)(colon - text);
    char buf[WL_RULE_TEXT_MAX * 4];
    if (n >= sizeof buf) return wl_error(WL_ERR_PARSE, "rule text too long (%zu characters)", n);
    memcpy(buf, text, n);
    buf[n] = '\0';
    wl_rule r;
    wl_status s = wl_rule_parse(buf, &r);
    if (s) return s;
    /* the suffix, without trailing blanks */
    char sfx[128];
    size_t m = strlen(colon + 1);
    while (m && is_space(colon[m])) m--;
    if (m >= sizeof sfx) return wl_error(WL_ERR_PARSE, "grid suffix '%.40s...' too long", colon);
    memcpy(sfx, colon + 1, m);
    sfx[m] = '\0';
    s = r.family == WL_FAMILY_LTL ? wl_ltl_shape(&r.ltl, sfx, shape) : wl_shape_parse(sfx, shape);
    if (s) return s;
    *rule = r;
    return WL_OK;
}

wl_status wl_rule_format(const wl_rule *r, char *buf, size_t len) {
    if (!r || !buf) return wl_error(WL_ERR_INVALID, "wl_rule_format: NULL argument");
    text_buf b;
    b.n = 0;
    char nh = 0;
    int kind = 1;
    switch (wl_rule_family(r)) {
    case WL_FAMILY_LTL:
        wl_ltl_format(&b, &r->ltl, wl_rule_states(r));
        break;
    case WL_FAMILY_GENERATIONS: {
        kind = wl_rt_format_two_state(&b, r, 1, &nh);
        char n[16];
        snprintf(n, sizeof n, "/%u", wl_rule_states(r));
        for (const char *c = n; *c; c++) wl_rt_put(&b, *c);
        if (nh) wl_rt_put(&b, nh);
        break;
    }
    case WL_FAMILY_HISTORY:
    case WL_FAMILY_SUPER: {
        wl_rule life;
        wl_rule_life(&life);
        if (!r->map && wl_rule_table_equal(r, &life)) {
            for (const char *c = "Life"; *c; c++) wl_rt_put(&b, *c);
        } else {
            kind = wl_rt_format_two_state(&b, r, 0, &nh);
            if (nh) wl_rt_put(&b, nh);
        }
        const char *sfx = r->family == WL_FAMILY_SUPER ? "Super" : "History";
        for (const char *c = sfx; *c; c++) wl_rt_put(&b, *c);
        break;
    }
    default:
        kind = wl_rt_format_two_state(&b, r, 0, &nh);
        if (nh) wl_rt_put(&b, nh);
        break;
    }
    if (!kind) return wl_error(WL_ERR_INVALID, "internal: Hensel table broken");
    b.t[b.n] = '\0';
    if (len <= b.n)
        return wl_error(WL_ERR_INVALID, "wl_rule_format: buffer of %zu bytes, %zu needed", len,
                        b.n + 1);
    memcpy(buf, b.t, b.n + 1);
    return WL_OK;
}
