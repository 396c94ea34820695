/*
 * rule.c - every two-state Moore-neighbourhood rule as a 512-entry table, and the text
 * notations that name such rules.
 *
 * The table.  A cell and its eight neighbours form a 3x3 block; reading it row by row from
 * the top left gives nine bits, the first one most significant:
 *
 *         NW N  NE          bit 8  bit 7  bit 6
 *         W  C  E     ->    bit 5  bit 4  bit 3          index = NW<<8 | N<<7 | ... | SE
 *         SW S  SE          bit 2  bit 1  bit 0
 *
 * This is the order of Golly's MAP strings, so a MAP string is simply the table written
 * out in base64.  The next state for index i is bit (i & 63) of table[i >> 6] (see
 * wl_rule_next in warplife.h).  Bit 4 is the centre; the other eight bits are the
 * neighbours (mask NEIGHBOUR_MASK).
 *
 * Notations.  Four families of text name such tables:
 *   - B/S ("B3/S23", "b3s23", "S23/B3", Golly's "B3_S23"): outer-totalistic, the next state
 *     depends on the centre and the number of live neighbours only; a trailing 'H' or 'V'
 *     counts only Golly's hexagonal (NW N W E S SE) or von Neumann (N W E S) neighbours
 *     ("B245/S3H", "B2/S013V"; counts up to 6 or 4);
 *   - S/B ("23/3", "/2"): the same, survival counts first, the older Life notation;
 *   - Hensel isotropic non-totalistic ("B2-a/S12"): each count 1..7 may carry letters that
 *     pick configurations of the live neighbours up to rotation and reflection, or '-' and
 *     letters that exclude them;
 *   - MAP: "MAP" and 86 base64 characters, the raw 512 bits (Golly's bit order: the first
 *     character's high bit is index 0; the 86th character carries two bits).
 *
 * The Hensel letters.  For n live neighbours the configurations fall into orbits under the
 * eight symmetries of the square (dihedral group D4).  Hensel notation names each orbit by
 * a letter: 1 and 7 neighbours have 2 orbits (c e), 2 and 6 have 6 (a c e i k n), 3 and 5
 * have 10 (a c e i j k n q r y), 4 has 13 (a c e i j k n q r t w y z), 0 and 8 have a single
 * orbit and no letter: 1+2+6+10+13+10+6+2+1 = 51 orbits in all.  HENSEL_PICTURES below draws
 * one member of each orbit for counts 1..4 (the letters' shapes as LifeWiki and Golly
 * define them); the orbit of letter x at count 8-n is the complement (neighbours
 * inverted, centre untouched) of the orbit of x at count n.  hensel_build() expands each
 * picture through the eight symmetries into a 512-entry map from index to orbit, which is
 * how both parsing (letters -> table) and printing (table -> letters) work.  The tests
 * check that the orbits partition every count exactly.
 *
 * Canonical text (wl_rule_format) follows Golly: a rule that is outer-totalistic prints as
 * B/S with ascending digits, birth first ("B36/S23"); else one outer-totalistic on the
 * hexagonal or von Neumann neighbourhood prints with its suffix ("B2/S34H"); else an
 * isotropic rule prints in Hensel notation, where a count with all its orbits prints as the bare digit and one with
 * some prints its letters in alphabetical order, or '-' and the missing letters when that
 * is strictly shorter (so a tie keeps the positive list: 4 with 7 of 13 letters prints the
 * 7); everything else prints as MAP with 86 characters and no "==" padding (Golly's form).
 *
 * Nothing here is speed critical: a rule is parsed once and engines compile the table into
 * their own form.  The code favours obvious correctness: symmetries act on (dx, dy)
 * coordinates rather than by bit tricks.
 */
#include "rule_text.h"

#include <string.h>

#define RULE_STATES 512u     /* 2^9 neighbourhood indices */
#define CENTRE_BIT 0x10u     /* bit 4 of the index is the cell itself */
#define NEIGHBOUR_MASK 0x1EFu /* the eight neighbour bits */
#define MAP_CHARS 86u        /* ceil(512 / 6) base64 characters */
#define MAP_FULL_CHARS 85u   /* characters carrying six bits; the last carries 512 - 510 = 2 */
#define HENSEL_ORBITS 51     /* orbits of the 2^8 neighbour sets under D4, see above */
#define MESSAGE_TEXT_MAX 120 /* longest rule text quoted in an error message */

/* ---- table helpers ----------------------------------------------------------------- */

static void table_set(wl_rule *r, unsigned idx) {
    r->table[idx >> 6] |= (uint64_t)1 << (idx & 63);
}

static unsigned neighbour_count(unsigned idx) {
    return (unsigned)__builtin_popcount(idx & NEIGHBOUR_MASK);
}

/* The index bit of the cell at offset (dx, dy) from the centre, dx, dy in -1..1. */
static unsigned cell_bit(int dx, int dy) {
    return 1u << (8 - ((dy + 1) * 3 + (dx + 1)));
}

/* Applies symmetry `sym` (0..7) of the square to an index: bit 0 transposes (swaps x and
 * y), bit 1 mirrors x, bit 2 mirrors y.  Together these are the eight elements of D4. */
static unsigned sym_apply(unsigned idx, unsigned sym) {
    unsigned out = 0;
    for (int dy = -1; dy <= 1; dy++) {
        for (int dx = -1; dx <= 1; dx++) {
            if (!(idx & cell_bit(dx, dy))) continue;
            int x = dx, y = dy;
            if (sym & 1u) {
                int t = x;
                x = y;
                y = t;
            }
            if (sym & 2u) x = -x;
            if (sym & 4u) y = -y;
            out |= cell_bit(x, y);
        }
    }
    return out;
}

/* Golly's neighbourhoods of Life-like rules, as masks of the neighbour bits that count:
 * Moore (all eight), hexagonal (suffix 'H': the Moore neighbourhood without NE and SW, so
 * that a square grid emulates a hexagonal one, Golly's QuickLife documentation; checked
 * against bgolly 5.1 on its B245/S3H example) and von Neumann (suffix 'V': N, W, E, S). */
enum { NH_MOORE, NH_HEX, NH_VN, NH_COUNT };
static const unsigned NH_MASK[NH_COUNT] = {NEIGHBOUR_MASK, 0x1ABu /* NW N W E S SE */,
                                           0x0AAu /* N W E S */};
static const char NH_SUFFIX[NH_COUNT] = {0, 'H', 'V'};
static const unsigned NH_MAX[NH_COUNT] = {8, 6, 4}; /* largest neighbour count */

/* The table of an outer-totalistic rule on neighbourhood nh: bit n of birth (survive) set
 * means a dead (live) cell with n live neighbours in the neighbourhood is alive next. */
static void from_masks_nh(wl_rule *r, uint16_t birth, uint16_t survive, int nh) {
    memset(r, 0, sizeof *r);
    for (unsigned i = 0; i < RULE_STATES; i++) {
        uint16_t mask = (i & CENTRE_BIT) ? survive : birth;
        if ((mask >> __builtin_popcount(i & NH_MASK[nh])) & 1u) table_set(r, i);
    }
}

static void from_masks(wl_rule *r, uint16_t birth, uint16_t survive) {
    from_masks_nh(r, birth, survive, NH_MOORE);
}

void wl_rule_from_counts(wl_rule *r, uint16_t birth, uint16_t survive, char nh) {
    from_masks_nh(r, birth, survive, nh == 'H' ? NH_HEX : nh == 'V' ? NH_VN : NH_MOORE);
    r->nh = nh == 'H' || nh == 'V' ? nh : 0;
}

/* 1 if r is outer-totalistic on neighbourhood nh (its masks in *birth, *survive). */
static int totalistic_nh(const wl_rule *r, int nh, uint16_t *birth, uint16_t *survive) {
    uint16_t b = 0, s = 0;
    for (unsigned i = 0; i < RULE_STATES; i++) {
        if (!wl_rule_next(r, i)) continue;
        unsigned n = (unsigned)__builtin_popcount(i & NH_MASK[nh]);
        if (i & CENTRE_BIT) s |= (uint16_t)(1u << n);
        else b |= (uint16_t)(1u << n);
    }
    wl_rule t;
    from_masks_nh(&t, b, s, nh);
    if (!wl_rule_table_equal(&t, r)) return 0;
    *birth = b;
    *survive = s;
    return 1;
}

void wl_rule_life(wl_rule *r) {
    from_masks(r, 1u << 3, (1u << 2) | (1u << 3));
}

int wl_rule_table_equal(const wl_rule *a, const wl_rule *b) {
    return memcmp(a->table, b->table, sizeof a->table) == 0;
}

int wl_rule_has_b0(const wl_rule *r) {
    if (r->family == WL_FAMILY_LTL) return r->ltl.nbirth && r->ltl.birth[0][0] == 0;
    return wl_rule_next(r, 0);
}

int wl_rule_is_totalistic(const wl_rule *r, uint16_t *birth, uint16_t *survive) {
    uint16_t b, s;
    if (!totalistic_nh(r, NH_MOORE, &b, &s)) return 0;
    if (birth) *birth = b;
    if (survive) *survive = s;
    return 1;
}

int wl_rule_is_isotropic(const wl_rule *r) {
    /* A transposition and one mirror generate D4, so invariance under those two suffices. */
    for (unsigned i = 0; i < RULE_STATES; i++) {
        int v = wl_rule_next(r, i);
        if (wl_rule_next(r, sym_apply(i, 1)) != v || wl_rule_next(r, sym_apply(i, 2)) != v)
            return 0;
    }
    return 1;
}

/* ---- Hensel orbits ----------------------------------------------------------------- */

/* Letters of each count 0..4 in canonical (alphabetical) order; count n > 4 uses 8 - n. */
static const char *const HENSEL_LETTERS[5] = {"", "ce", "aceikn", "aceijknqry",
                                              "aceijknqrtwyz"};
/* Every letter any count uses (for telling "a letter in the wrong place" from junk). */
static const char HENSEL_ALL_LETTERS[] = "aceijknqrtwyz";

/* One member of each orbit for counts 1..4, drawn as three rows (top first) of the 3x3
 * block: '#' a live neighbour, '.' a dead one, 'x' the centre (ignored).  Order follows
 * HENSEL_LETTERS. */
static const char *const HENSEL_PICTURES[5][13] = {
    {NULL},
    {"..#/.x./...", /* 1c: one corner */
     ".#./.x./..."}, /* 1e: one edge */
    {"##./.x./...", /* 2a: edge and adjacent corner */
     "#.#/.x./...", /* 2c: the two corners of one side */
     ".#./#x./...", /* 2e: two edges at a right angle */
     ".#./.x./.#.", /* 2i: two opposite edges */
     ".#./.x./#..", /* 2k: a knight's move apart */
     "#../.x./..#"}, /* 2n: two opposite corners */
    {"##./#x./...", /* 3a: a corner and both its edges */
     "#.#/.x./..#", /* 3c: three corners */
     ".#./#x#/...", /* 3e: three edges */
     "###/.x./...", /* 3i: a full side */
     "..#/.x#/.#.", /* 3j */
     ".#./#x./..#", /* 3k */
     ".../.x#/#.#", /* 3n */
     "..#/.x./##.", /* 3q */
     "..#/#x#/...", /* 3r */
     "..#/#x./..#"}, /* 3y */
    {"###/.x#/...", /* 4a */
     "#.#/.x./#.#", /* 4c: all four corners */
     ".#./#x#/.#.", /* 4e: all four edges */
     "#.#/#x#/...", /* 4i */
     "..#/#x#/.#.", /* 4j */
     "..#/#x./.##", /* 4k */
     "###/.x./..#", /* 4n */
     "..#/#x./##.", /* 4q */
     ".##/#x#/...", /* 4r */
     "###/.x./.#.", /* 4t */
     "#../#x./.##", /* 4w */
     "#.#/.x./.##", /* 4y */
     "##./.x./.##"}, /* 4z */
};

/* The orbits, numbered by count then letter: orbit o has `count[o]` live neighbours and
 * letter `letter[o]` ('\0' for counts 0 and 8); the orbits of count n are first[n] ..
 * first[n + 1] - 1; orbit_of[idx] is the orbit of the neighbours of idx (the centre bit is
 * ignored); rep[o] is one member (centre dead). */
typedef struct hensel_map {
    uint8_t orbit_of[RULE_STATES];
    uint8_t count[HENSEL_ORBITS];
    char letter[HENSEL_ORBITS];
    uint16_t rep[HENSEL_ORBITS];
    uint8_t first[10];
} hensel_map;

static unsigned picture_mask(const char *pic) {
    unsigned mask = 0;
    for (int row = 0; row < 3; row++)
        for (int col = 0; col < 3; col++)
            if (pic[row * 4 + col] == '#') mask |= cell_bit(col - 1, row - 1);
    return mask;
}

/* Fills *m; returns 0 if the pictures fail to partition the 256 neighbour sets (never with
 * the table above; the check keeps a typo from going unnoticed). */
static int hensel_build(hensel_map *m) {
    unsigned o = 0, assigned = 0;
    memset(m->orbit_of, 0xFF, sizeof m->orbit_of);
    for (unsigned n = 0; n <= 8; n++) {
        unsigned base = n <= 4 ? n : 8 - n;
        size_t letters = strlen(HENSEL_LETTERS[base]);
        m->first[n] = (uint8_t)o;
        for (size_t l = 0; l < (letters ? letters : 1); l++, o++) {
            unsigned rep = letters ? picture_mask(HENSEL_PICTURES[base][l]) : 0;
            if (n > 4) rep ^= NEIGHBOUR_MASK;
            if (neighbour_count(rep) != n) return 0;
            m->count[o] = (uint8_t)n;
            m->letter[o] = letters ? HENSEL_LETTERS[base][l] : '\0';
            m->rep[o] = (uint16_t)rep;
            for (unsigned sym = 0; sym < 8; sym++) {
                unsigned v = sym_apply(rep, sym);
                if (m->orbit_of[v] == 0xFF) assigned++;
                else if (m->orbit_of[v] != o) return 0; /* two letters share an orbit */
                m->orbit_of[v] = (uint8_t)o;
                m->orbit_of[v | CENTRE_BIT] = (uint8_t)o;
            }
        }
    }
    m->first[9] = (uint8_t)o;
    return o == HENSEL_ORBITS && assigned == 256;
}

/* Index of letter c (lower case) among count n's letters, or -1. */
static int hensel_letter_index(unsigned n, char c) {
    const char *set = HENSEL_LETTERS[n <= 4 ? n : 8 - n];
    const char *hit = c ? strchr(set, c) : NULL;
    return hit ? (int)(hit - set) : -1;
}

/* ---- parsing ----------------------------------------------------------------------- */

static char lower(char c) {
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* What one half (birth or survival) of a B/S or Hensel rule asks for, per count:
 * `plain` a bare digit (all orbits), `pos` letters named, `neg` letters excluded. */
typedef struct half_rule {
    uint8_t plain[9];
    uint16_t pos[9];
    uint16_t neg[9];
} half_rule;

/* Reports the character at p->pos (or the end of the text) as unexpected. */
wl_status wl_rt_fail(const rule_parser *p, const char *why) {
    int shown = (int)(strlen(p->text) > MESSAGE_TEXT_MAX ? MESSAGE_TEXT_MAX : strlen(p->text));
    const char *dots = shown < (int)strlen(p->text) ? "..." : "";
    if (p->pos >= p->end)
        return wl_error(WL_ERR_PARSE, "rule '%.*s%s': unexpected end at position %zu (%s)",
                        shown, p->text, dots, p->pos + 1, why);
    unsigned char c = (unsigned char)p->text[p->pos];
    if (c == ':') why = "topology suffixes such as ':T100,100' are not part of a rule";
    if (c >= 0x20 && c < 0x7F)
        return wl_error(WL_ERR_PARSE, "rule '%.*s%s': unexpected '%c' at position %zu (%s)",
                        shown, p->text, dots, (char)c, p->pos + 1, why);
    return wl_error(WL_ERR_PARSE, "rule '%.*s%s': unexpected byte 0x%02x at position %zu (%s)",
                    shown, p->text, dots, c, p->pos + 1, why);
}

static int at_digit(const rule_parser *p) {
    return p->pos < p->end && p->text[p->pos] >= '0' && p->text[p->pos] <= '8';
}

/* 1 at the slash between the halves ('/', or Golly's '_'). */
static int at_slash(const rule_parser *p) {
    return p->pos < p->end && (p->text[p->pos] == '/' || p->text[p->pos] == '_');
}

static int at_hensel_letter(const rule_parser *p) {
    char c = p->pos < p->end ? lower(p->text[p->pos]) : '\0';
    return c && strchr(HENSEL_ALL_LETTERS, c) != NULL;
}

/* Reads counts with optional letters ("2-a3ce4") into *h until something else comes.
 * *letters_open is set when the last token could be continued by a letter (so the caller
 * can say what it expected).  Errors: a letter that does not belong to its count, a count
 * mixing named and excluded letters, a '-' with no letters after it. */
static wl_status parse_counts(rule_parser *p, half_rule *h, int *letters_open) {
    char buf[80];
    *letters_open = 0;
    while (at_digit(p)) {
        unsigned n = (unsigned)(p->text[p->pos++] - '0');
        int negated = 0, letters = 0;
        if (p->pos < p->end && p->text[p->pos] == '-') {
            if (n == 0 || n == 8) {
                snprintf(buf, sizeof buf, "%u neighbours have no Hensel letters", n);
                return wl_rt_fail(p, buf);
            }
            negated = 1;
            p->pos++;
        }
        while (at_hensel_letter(p)) {
            char c = lower(p->text[p->pos]);
            int li = hensel_letter_index(n, c);
            if (li < 0) {
                if (n == 0 || n == 8)
                    snprintf(buf, sizeof buf, "%u neighbours have no Hensel letters", n);
                else
                    snprintf(buf, sizeof buf, "the Hensel letters for %u are '%s'", n,
                             HENSEL_LETTERS[n <= 4 ? n : 8 - n]);
                return wl_rt_fail(p, buf);
            }
            if ((negated ? h->pos[n] : h->neg[n]) != 0) {
                snprintf(buf, sizeof buf,
                         "count %u cannot both name letters and exclude them with '-'", n);
                return wl_rt_fail(p, buf);
            }
            if (negated) h->neg[n] |= (uint16_t)(1u << li);
            else h->pos[n] |= (uint16_t)(1u << li);
            letters = 1;
            p->pos++;
        }
        if (negated && !letters) return wl_rt_fail(p, "expected a Hensel letter after '-'");
        if (!letters) h->plain[n] = 1;
        *letters_open = n != 0 && n != 8;
    }
    return WL_OK;
}

/* Builds the table from the two halves. */
static void table_from_halves(const hensel_map *m, const half_rule *birth,
                              const half_rule *survive, wl_rule *out) {
    memset(out, 0, sizeof *out);
    for (unsigned i = 0; i < RULE_STATES; i++) {
        const half_rule *h = (i & CENTRE_BIT) ? survive : birth;
        unsigned o = m->orbit_of[i];
        unsigned n = m->count[o];
        unsigned li = o - m->first[n];
        int on = h->plain[n] || ((h->pos[n] >> li) & 1u) ||
                 (h->neg[n] != 0 && !((h->neg[n] >> li) & 1u));
        if (on) table_set(out, i);
    }
}

/* Builds the "expected ..." text for an unexpected character after a half. */
static const char *expected_after(int letters_open, int marker_ok, int slash_ok) {
    if (slash_ok)
        return letters_open ? "expected a digit 0-8, a Hensel letter, '/', 'B' or 'S'"
                            : "expected a digit 0-8, '/', 'B' or 'S'";
    if (marker_ok)
        return letters_open ? "expected a digit 0-8, a Hensel letter, 'B' or 'S'"
                            : "expected a digit 0-8, 'B' or 'S'";
    return letters_open ? "expected a digit 0-8 or a Hensel letter" : "expected a digit 0-8";
}

/* B/S, S/B and Hensel: [marker] counts ['/'] [marker] counts, where a marker is 'B' or 'S'.
 * With no marker at all, a slash is required and the survival counts come first. */
static wl_status parse_bs(rule_parser *p, const hensel_map *m, wl_rule *out) {
    half_rule halves[2]; /* in text order */
    char marker[2] = {0, 0};
    int slash = 0, open = 0;
    memset(halves, 0, sizeof halves);
    /* a trailing 'H' or 'V' names Golly's hexagonal or von Neumann neighbourhood */
    int nh = NH_MOORE;
    size_t nh_at = p->end;
    if (p->nh) { /* named elsewhere (after a Generations rule's state count) */
        nh = p->nh == 'h' ? NH_HEX : NH_VN;
        nh_at = p->nh_at;
    } else if (p->end > p->pos + 1) {
        char last = lower(p->text[p->end - 1]);
        if (last == 'h' || last == 'v') {
            nh = last == 'h' ? NH_HEX : NH_VN;
            nh_at = --p->end;
        }
    }

    if (p->pos < p->end && strchr("bBsS", p->text[p->pos])) marker[0] = lower(p->text[p->pos++]);
    wl_status s = parse_counts(p, &halves[0], &open);
    if (s != WL_OK) return s;
    if (at_slash(p)) {
        slash = 1;
        p->pos++;
    }
    if (p->pos < p->end && strchr("bBsS", p->text[p->pos])) {
        char c = lower(p->text[p->pos]);
        if (c == marker[0])
            return wl_rt_fail(p, c == 'b' ? "birth was already given" : "survival was already given");
        marker[1] = c;
        p->pos++;
    }
    if (slash || marker[1]) {
        s = parse_counts(p, &halves[1], &open);
        if (s != WL_OK) return s;
        if (p->pos < p->end) return wl_rt_fail(p, expected_after(open, 0, 0));
    } else if (p->pos < p->end) {
        return wl_rt_fail(p, expected_after(open, 1, 1));
    }
    if (!slash && !marker[0] && !marker[1])
        return wl_rt_fail(p, "expected '/', 'B' or 'S' to tell birth from survival");

    /* Which half is birth: the one marked 'b', or the one not marked 's', or with no
     * markers (S/B notation) the second. */
    int birth_first;
    if (marker[0]) birth_first = marker[0] == 'b';
    else if (marker[1]) birth_first = marker[1] == 's';
    else birth_first = 0;
    const half_rule *birth = &halves[birth_first ? 0 : 1];
    const half_rule *survive = &halves[birth_first ? 1 : 0];
    if (nh == NH_MOORE) {
        table_from_halves(m, birth, survive, out);
        return WL_OK;
    }
    /* hexagonal or von Neumann: plain counts up to the neighbourhood's size */
    uint16_t masks[2] = {0, 0};
    for (int half = 0; half < 2; half++) {
        const half_rule *h = half ? survive : birth;
        for (unsigned n = 0; n <= 8; n++) {
            if (h->pos[n] || h->neg[n]) {
                p->pos = nh_at;
                p->end = nh_at + 1;
                return wl_rt_fail(p, "Hensel letters are for the Moore neighbourhood only "
                                     "(Golly's hexagonal letters are not supported)");
            }
            if (!h->plain[n]) continue;
            if (n > NH_MAX[nh]) {
                char buf[80];
                p->pos = nh_at;
                p->end = nh_at + 1;
                snprintf(buf, sizeof buf, "the %s neighbourhood has %u neighbours: no count %u",
                         nh == NH_HEX ? "hexagonal" : "von Neumann", NH_MAX[nh], n);
                return wl_rt_fail(p, buf);
            }
            masks[half] |= (uint16_t)(1u << n);
        }
    }
    wl_rule_from_counts(out, masks[0], masks[1], NH_SUFFIX[nh]);
    return WL_OK;
}

static const char BASE64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* "MAP" + 86 base64 characters (+ optional "=="); p->pos is just past "MAP".  As Golly
 * does, the unused low four bits of the last character are ignored. */
static wl_status parse_map(rule_parser *p, wl_rule *out) {
    char buf[80];
    size_t start = p->pos, len = p->end - start;
    if (len == MAP_CHARS + 2 && p->text[p->end - 1] == '=' && p->text[p->end - 2] == '=')
        len -= 2;
    for (size_t k = 0; k < len; k++) {
        p->pos = start + k;
        if (!strchr(BASE64, p->text[p->pos]) || p->text[p->pos] == '\0')
            return wl_rt_fail(p, "expected a base64 character");
    }
    if (len != MAP_CHARS) {
        p->pos = start + (len < MAP_CHARS ? len : MAP_CHARS);
        snprintf(buf, sizeof buf, "a MAP rule has %u base64 characters, this one %zu",
                 MAP_CHARS, len);
        return wl_rt_fail(p, buf);
    }
    memset(out, 0, sizeof *out);
    for (unsigned k = 0; k < MAP_CHARS; k++) {
        unsigned v = (unsigned)(strchr(BASE64, p->text[start + k]) - BASE64);
        for (unsigned b = 0; b < 6; b++) {
            unsigned idx = k * 6 + b; /* the character's high bit comes first */
            if (idx < RULE_STATES && ((v >> (5 - b)) & 1u)) table_set(out, idx);
        }
    }
    p->pos = p->end;
    return WL_OK;
}

wl_status wl_rt_parse_two_state(rule_parser *p, wl_rule *out) {
    wl_rule r;
    wl_status s;
    const char *text = p->text;
    if (p->end - p->pos >= 3 && lower(text[p->pos]) == 'm' && lower(text[p->pos + 1]) == 'a' &&
        lower(text[p->pos + 2]) == 'p') {
        p->pos += 3;
        s = parse_map(p, &r);
        r.map = 1;
    } else {
        hensel_map m;
        if (!hensel_build(&m)) return wl_error(WL_ERR_INVALID, "internal: Hensel table broken");
        s = parse_bs(p, &m, &r);
    }
    if (s == WL_OK) *out = r;
    return s;
}

/* ---- printing ---------------------------------------------------------------------- */

void wl_rt_put(text_buf *b, char c) {
    if (b->n + 1 < sizeof b->t) b->t[b->n++] = c;
}

#define put wl_rt_put

/* "B3/S23", or in Generations order "23/3" (survival first, no letters). */
static void format_totalistic(text_buf *b, uint16_t birth, uint16_t survive, int gen) {
    for (int half = 0; half < 2; half++) {
        int is_birth = gen ? half == 1 : half == 0;
        uint16_t mask = is_birth ? birth : survive;
        if (half) put(b, '/');
        if (!gen) put(b, is_birth ? 'B' : 'S');
        for (int i = 0; i <= 8; i++)
            if ((mask >> i) & 1u) put(b, (char)('0' + i));
    }
}

/* One half of an isotropic rule; centre is 0 (birth) or CENTRE_BIT (survival). */
static void format_hensel_half(text_buf *b, const hensel_map *m, const wl_rule *r,
                               unsigned centre) {
    for (unsigned n = 0; n <= 8; n++) {
        unsigned total = (unsigned)(m->first[n + 1] - m->first[n]), on = 0;
        for (unsigned o = m->first[n]; o < m->first[n + 1]; o++)
            on += (unsigned)wl_rule_next(r, m->rep[o] | centre);
        if (on == 0) continue;
        put(b, (char)('0' + n));
        if (on == total) continue;
        /* Negation costs a '-'; use it only when strictly shorter (Golly's tie rule). */
        int negate = 1 + (total - on) < on;
        if (negate) put(b, '-');
        for (unsigned o = m->first[n]; o < m->first[n + 1]; o++)
            if (wl_rule_next(r, m->rep[o] | centre) != negate) put(b, m->letter[o]);
    }
}

static void format_map(text_buf *b, const wl_rule *r) {
    put(b, 'M');
    put(b, 'A');
    put(b, 'P');
    for (unsigned k = 0; k < MAP_CHARS; k++) {
        unsigned v = 0;
        for (unsigned bit = 0; bit < 6; bit++) {
            unsigned idx = k * 6 + bit;
            v = (v << 1) | (idx < RULE_STATES ? (unsigned)wl_rule_next(r, idx) : 0u);
        }
        put(b, BASE64[v]);
    }
}

int wl_rt_format_two_state(text_buf *b, const wl_rule *r, int gen, char *nh) {
    uint16_t birth, survive;
    *nh = 0;
    if (r->map && r->family != WL_FAMILY_LIFE) {
        format_map(b, r);
        return 2;
    }
    if (wl_rule_is_totalistic(r, &birth, &survive)) {
        format_totalistic(b, birth, survive, gen);
    } else if (totalistic_nh(r, NH_HEX, &birth, &survive) ||
               totalistic_nh(r, NH_VN, &birth, &survive)) {
        format_totalistic(b, birth, survive, gen);
        *nh = NH_SUFFIX[totalistic_nh(r, NH_HEX, &birth, &survive) ? NH_HEX : NH_VN];
    } else if (wl_rule_is_isotropic(r)) {
        hensel_map m;
        if (!hensel_build(&m)) return 0;
        for (int half = 0; half < 2; half++) {
            int is_birth = gen ? half == 1 : half == 0;
            if (half) put(b, '/');
            if (!gen) put(b, is_birth ? 'B' : 'S');
            format_hensel_half(b, &m, r, is_birth ? 0 : CENTRE_BIT);
        }
    } else {
        format_map(b, r);
        return 2;
    }
    return 1;
}
