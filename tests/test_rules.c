/*
 * test_rules.c - rule parsing, canonical printing and the rule predicates.
 *
 *   1. good inputs in every notation, each with the canonical text Golly would print;
 *   2. bad inputs, each with the 1-based position and character the message must name;
 *   3. the Hensel letters: for every count the letter classes are single orbits of the
 *      square's symmetries that partition the neighbourhoods of that count, letters that do
 *      not belong to a count are refused, and (8-n)x is the complement of nx;
 *   4. table entries worked out by hand (Life, HighLife, Seeds, B2a, tlife, MAP of Life);
 *   5. round trips format -> parse on random MAP, isotropic and totalistic tables (a fresh
 *      seed each run), and the predicates (totalistic, isotropic, B0) on them.
 *
 * The symmetry code here is written independently of rule.c (bit permutations instead of
 * coordinates) so that the two check each other.
 */
#include "wltest.h"

#include <string.h>

#define C_BIT 0x10u
#define NBR_MASK 0x1EFu
/* Neighbour bits in the MAP order NW<<8 | N<<7 | NE<<6 | W<<5 | C<<4 | E<<3 | SW<<2 | S<<1 | SE. */
enum { NW = 0x100, N = 0x80, NE = 0x40, W = 0x20, E = 0x08, SW = 0x04, S = 0x02, SE = 0x01 };

static unsigned long long rng_state;

static uint64_t rng_next(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int popcount9(unsigned v) { return __builtin_popcount(v & NBR_MASK); }

/* Rotation by 90 degrees clockwise and the left-right mirror, as bit permutations. */
static unsigned rot90(unsigned x) {
    unsigned o = x & C_BIT;
    if (x & NW) o |= NE;
    if (x & N) o |= E;
    if (x & NE) o |= SE;
    if (x & E) o |= S;
    if (x & SE) o |= SW;
    if (x & S) o |= W;
    if (x & SW) o |= NW;
    if (x & W) o |= N;
    return o;
}

static unsigned mirror(unsigned x) {
    unsigned o = x & (C_BIT | N | S);
    if (x & NW) o |= NE;
    if (x & NE) o |= NW;
    if (x & W) o |= E;
    if (x & E) o |= W;
    if (x & SW) o |= SE;
    if (x & SE) o |= SW;
    return o;
}

/* The 8 images of x under the symmetries of the square. */
static void images(unsigned x, unsigned out[8]) {
    for (int i = 0; i < 4; i++) {
        out[i] = x;
        out[4 + i] = mirror(x);
        x = rot90(x);
    }
}

static void set_entry(wl_rule *r, unsigned idx, int v) {
    uint64_t m = (uint64_t)1 << (idx & 63);
    if (v) r->table[idx >> 6] |= m;
    else r->table[idx >> 6] &= ~m;
}

static void parse_ok(const char *text, wl_rule *r) {
    wl_status s = wl_rule_parse(text, r);
    WL_CHECK(s == WL_OK, "parse '%s' -> %s (%s)", text, wl_status_str(s), wl_last_error());
}

/* ---- 1. good inputs ----------------------------------------------------------------- */

static const struct {
    const char *text, *canonical;
} GOOD[] = {
    {"B3/S23", "B3/S23"},
    {"b3s23", "B3/S23"},
    {"B3S23", "B3/S23"},
    {"S23/B3", "B3/S23"},
    {"s23b3", "B3/S23"},
    {"B3/23", "B3/S23"},
    {"3/S23", "B3/S23"},
    {"23B3", "B3/S23"},
    {"  B3/S23 \r\n", "B3/S23"},
    {"23/3", "B3/S23"},
    {"B36/S23", "B36/S23"},
    {"B63/S32", "B36/S23"},
    {"S32/B63", "B36/S23"},
    {"B336/S2323", "B36/S23"},
    {"23/36", "B36/S23"},
    {"/2", "B2/S"},
    {"B2/S", "B2/S"},
    {"B/S", "B/S"},
    {"/", "B/S"},
    {"B3", "B3/S"},
    {"S23", "B/S23"},
    {"B0/S8", "B0/S8"},
    {"B012345678/S012345678", "B012345678/S012345678"},
    {"B3678/S34678", "B3678/S34678"},
    /* Hensel */
    {"B2-a/S12", "B2-a/S12"},
    {"b2-A/s12", "B2-a/S12"},
    {"B2ceikn/S", "B2-a/S"},
    {"B2nkiec/S", "B2-a/S"},
    {"B2aceikn/S", "B2/S"},
    {"B2a2/S", "B2/S"},
    {"B2a2a/S", "B2a/S"},
    {"B2a2c/S", "B2ac/S"},
    {"B3-cnqy/S23-a4ityz", "B3-cnqy/S23-a4ityz"},
    {"S23-a4zyti/B3-yqnc", "B3-cnqy/S23-a4ityz"},
    {"B2ei3/S", "B2ei3/S"},
    {"B3/S2-i34q", "B3/S2-i34q"},
    {"B2ace/S", "B2ace/S"},       /* 3 of 6: the list is shorter than "-ikn" */
    {"B2-ace/S", "B2ikn/S"},      /* the same length rule, the other way round */
    {"B2acei/S", "B2-kn/S"},      /* 4 of 6: "-kn" is shorter */
    {"B1c/S", "B1c/S"},
    {"B1-c/S", "B1e/S"},
    {"B1ce/S", "B1/S"},
    {"B3aceij/S", "B3aceij/S"},   /* 5 of 10: 5 letters beat '-' + 5 */
    {"B3aceijk/S", "B3-nqry/S"},  /* 6 of 10 */
    {"B4aceijk/S", "B4aceijk/S"}, /* 7 of 13: a tie with '-' + 6 keeps the list */
    {"B4kjieca/S", "B4aceijk/S"},   /* the same, letters in another order */
    {"B4aceijknq/S", "B4-rtwyz/S"}, /* 8 of 13: '-' + 5 is shorter */
    {"B4-aceijk/S", "B4nqrtwyz/S"}, /* 7 of 13 on: the positive list wins the tie */
    {"B4-aceij/S", "B4-aceij/S"},   /* 8 of 13 on */
    {"B/S7e8", "B/S7e8"},
    {"B5-c/S6k", "B5-c/S6k"},
    {"23-a/3", "B3/S23-a"},
    /* MAP: Life as Golly's documentation writes it, with and without padding */
    {"MAPARYXfhZofugWaH7oaIDogBZofuhogOiAaIDogIAAgAAWaH7oaIDogGiA6ICAAIAAaIDogIAAgACAAIAAAAAAAA",
     "B3/S23"},
    {"mapARYXfhZofugWaH7oaIDogBZofuhogOiAaIDogIAAgAAWaH7oaIDogGiA6ICAAIAAaIDogIAAgACAAIAAAAAAAA==",
     "B3/S23"},
    /* MAP of the empty rule: nothing is ever alive */
    {"MAPAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
     "B/S"},
    /* Golly's hexagonal ('H') and von Neumann ('V') neighbourhoods, and its '_' */
    {"B245/S3H", "B245/S3H"},
    {"b2s34h", "B2/S34H"},
    {"23/3h", "B3/S23H"},
    {"B3/S23H", "B3/S23H"},
    {"B3/S23V", "B3/S23V"},
    {"B2/S013V", "B2/S013V"},
    {"B3_S23", "B3/S23"},
    {"B2cek3i_S12cei", "B2cek3i/S12cei"},
    {"B/SV", "B/S"},                              /* no neighbour matters: plain B/S */
    {"B0123456/S0123456H", "B012345678/S012345678"}, /* every count: the Moore form */
};

static void test_good(void) {
    for (size_t i = 0; i < sizeof GOOD / sizeof GOOD[0]; i++) {
        wl_rule r;
        char buf[WL_RULE_TEXT_MAX];
        wl_status s = wl_rule_parse(GOOD[i].text, &r);
        WL_CHECK(s == WL_OK, "parse '%s' -> %s (%s)", GOOD[i].text, wl_status_str(s),
                 wl_last_error());
        if (s != WL_OK) continue;
        WL_CHECK_OK(wl_rule_format(&r, buf, sizeof buf));
        WL_CHECK(strcmp(buf, GOOD[i].canonical) == 0, "'%s' prints as '%s', expected '%s'",
                 GOOD[i].text, buf, GOOD[i].canonical);
    }
}

/* ---- 2. bad inputs ------------------------------------------------------------------ */

static const struct {
    const char *text;
    int position;     /* 1-based position the message must name */
    const char *what; /* text the message must contain */
} BAD[] = {
    {"23/3/1", 6, "not 1"},                     /* Generations: 2..256 states */
    {"23/3/257", 6, "not 257"},
    {"LtL", 1, "unexpected 'L'"},
    {"R1,C0,M1,S2..3,B3..3,NQ", 23, "neighbourhood letter"},
    {"B3/S23:T100,100", 7, "unexpected ':'"},
    {"B3/S23:P100,100", 7, "unexpected ':'"},
    {"B1z/S", 3, "unexpected 'z'"},
    {"B2y/S", 3, "unexpected 'y'"},
    {"B3t/S", 3, "unexpected 't'"},
    {"B/S7a", 5, "unexpected 'a'"},
    {"B0a/S", 3, "unexpected 'a'"},
    {"B8-a/S", 3, "unexpected '-'"},
    {"B9/S", 2, "unexpected '9'"},
    {"B3/B3", 4, "unexpected 'B'"},
    {"S3S3", 3, "unexpected 'S'"},
    {"B3/S23/", 8, "number of states"},
    {"B7/S3H", 6, "no count 7"},
    {"B5/S3V", 6, "no count 5"},
    {"B2a/S3H", 7, "Hensel letters are for the Moore neighbourhood"},
    {"B2/S34HV", 7, "unexpected 'H'"},
    {"B3__S23", 5, "number of states"},
    {"B 3/S23", 2, "unexpected ' '"},
    {"Ba/S", 2, "unexpected 'a'"},
    {"B2-/S", 4, "unexpected '/'"},
    {"B2a-/S", 4, "unexpected '-'"},
    {"B2a2-e/S", 6, "unexpected 'e'"},
    {"B2-a2e/S", 6, "unexpected 'e'"},
    {"23", 3, "unexpected end"},
    {"W110", 1, "unexpected 'W'"},
    {"MAPABC", 7, "unexpected end"},
    {"MAPARYXfhZofugWaH7oaIDogBZofuhogOiAaIDogIAAgAAWaH7oaIDogGiA6ICAAIAAaIDogIAAgACAAIAAAAAAA!",
     89, "unexpected '!'"},
    {"MAPARYXfhZofugWaH7oaIDogBZofuhogOiAaIDogIAAgAAWaH7oaIDogGiA6ICAAIAAaIDogIAAgACAAIAAAAAAAAA",
     90, "unexpected 'A'"},
    {"MAPARYXfhZofugWaH7oaIDogBZofuhogOiAaIDogIAAgAAWaH7oaIDogGiA6ICAAIAAaIDogIAAgACAAIAAAAAAAA=",
     90, "unexpected '='"},
    {"MAPARYXfhZofugWaH7oaIDogBZofuhogOiAaIDogIAAgAAWaH7oaIDogGiA6ICAAIAAaIDogIAAgACAAIAAAAAAAA:T10,10",
     90, "unexpected ':'"},
    {"MAPAAAA", 8, "unexpected end"}, /* von Neumann MAP: not a Moore table */
};

static void test_bad(void) {
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        wl_rule r;
        wl_rule_life(&r);
        wl_rule before = r;
        wl_status s = wl_rule_parse(BAD[i].text, &r);
        const char *msg = wl_last_error();
        char pos[48];
        snprintf(pos, sizeof pos, "position %d", BAD[i].position);
        WL_CHECK(s == WL_ERR_PARSE, "'%s' -> %s, expected a parse error", BAD[i].text,
                 wl_status_str(s));
        WL_CHECK(strstr(msg, pos) != NULL, "'%s': message '%s' lacks '%s'", BAD[i].text, msg, pos);
        WL_CHECK(strstr(msg, BAD[i].what) != NULL, "'%s': message '%s' lacks '%s'", BAD[i].text,
                 msg, BAD[i].what);
        WL_CHECK(wl_rule_equal(&r, &before), "'%s': a failed parse changed the output",
                 BAD[i].text);
    }
    /* The exact message format of the brief. */
    wl_rule r;
    WL_CHECK(wl_rule_parse("B3/S2x", &r) == WL_ERR_PARSE, "B3/S2x accepted");
    WL_CHECK(strcmp(wl_last_error(), "rule 'B3/S2x': unexpected 'x' at position 6 (expected a "
                                     "digit 0-8 or a Hensel letter)") == 0,
             "message '%s'", wl_last_error());
    WL_CHECK(wl_rule_parse("", &r) == WL_ERR_PARSE, "empty text accepted");
    WL_CHECK(wl_rule_parse("   ", &r) == WL_ERR_PARSE, "blank text accepted");
    WL_CHECK(wl_rule_parse(NULL, &r) == WL_ERR_INVALID, "NULL text accepted");
    char small[7]; /* "B3/S23" and its NUL */
    wl_rule_life(&r);
    WL_CHECK(wl_rule_format(&r, small, sizeof small - 1) == WL_ERR_INVALID,
             "B3/S23 fitted in 6 bytes");
    WL_CHECK(wl_rule_format(&r, small, sizeof small) == WL_OK && strcmp(small, "B3/S23") == 0,
             "B3/S23 did not fit in 7 bytes");
}

/* ---- 3. the Hensel letters ---------------------------------------------------------- */

/* The letters each count takes, from the definition of the notation. */
static const char *const LETTERS[9] = {"", "ce", "aceikn", "aceijknqry", "aceijknqrtwyz",
                                       "aceijknqry", "aceikn", "ce", ""};

/* Sets birth[idx] for the dead-centre indices the rule "B<n><letter>/S" gives birth on. */
static int birth_set(const char *text, unsigned char birth[512]) {
    wl_rule r;
    memset(birth, 0, 512);
    if (wl_rule_parse(text, &r) != WL_OK) return 0;
    for (unsigned i = 0; i < 512; i++) {
        if (wl_rule_next(&r, i | C_BIT)) return 0; /* no survival at all */
        birth[i] = (unsigned char)(!(i & C_BIT) && wl_rule_next(&r, i));
    }
    return 1;
}

static void test_hensel_partition(void) {
    static const int orbit_counts[9] = {1, 2, 6, 10, 13, 10, 6, 2, 1};
    int total_orbits = 0;
    for (int n = 0; n <= 8; n++) {
        unsigned char owner[512];
        memset(owner, 0, sizeof owner);
        size_t nl = strlen(LETTERS[n]);
        WL_CHECK((int)(nl ? nl : 1) == orbit_counts[n], "count %d: %zu letters", n, nl);
        for (size_t l = 0; l < (nl ? nl : 1); l++) {
            char text[16];
            unsigned char birth[512];
            snprintf(text, sizeof text, "B%d%c/S", n, nl ? LETTERS[n][l] : '\0');
            WL_CHECK(birth_set(text, birth), "'%s' did not parse into a birth-only rule", text);
            unsigned first = 512, members = 0;
            for (unsigned i = 0; i < 512; i++) {
                if (!birth[i]) continue;
                members++;
                if (first == 512) first = i;
                WL_CHECK(popcount9(i) == n, "'%s' births on %#x with %d neighbours", text, i,
                         popcount9(i));
                WL_CHECK(owner[i] == 0, "'%s' and letter '%c' share %#x", text, owner[i], i);
                owner[i] = nl ? (unsigned char)LETTERS[n][l] : '0';
            }
            /* A single orbit: exactly the images of its first member. */
            WL_CHECK(first < 512, "'%s' gives birth nowhere", text);
            if (first == 512) continue;
            unsigned img[8], orbit = 0;
            unsigned char in_orbit[512];
            memset(in_orbit, 0, sizeof in_orbit);
            images(first, img);
            for (int k = 0; k < 8; k++) {
                if (!in_orbit[img[k]]) orbit++;
                in_orbit[img[k]] = 1;
            }
            int same = 1;
            for (unsigned i = 0; i < 512; i++) same &= in_orbit[i] == birth[i];
            WL_CHECK(same && orbit == members, "'%s' is not one orbit (%u members, orbit %u)",
                     text, members, orbit);
            total_orbits++;
        }
        /* Together: exactly the dead-centre indices with n neighbours. */
        for (unsigned i = 0; i < 512; i++) {
            int want = !(i & C_BIT) && popcount9(i) == n;
            WL_CHECK((owner[i] != 0) == want, "count %d: index %#x %s", n, i,
                     want ? "has no letter" : "wrongly covered");
        }
        /* Every other letter is refused for this count. */
        for (const char *c = "aceijknqrtwyz"; *c; c++) {
            char text[16];
            wl_rule r;
            snprintf(text, sizeof text, "B%d%c/S", n, *c);
            int valid = strchr(LETTERS[n], *c) != NULL;
            WL_CHECK((wl_rule_parse(text, &r) == WL_OK) == valid, "'%s' %s", text,
                     valid ? "refused" : "accepted");
        }
    }
    WL_CHECK(total_orbits == 51, "%d orbits", total_orbits);

    /* (8-n)x is the complement of nx. */
    for (int n = 1; n <= 3; n++) {
        for (const char *c = LETTERS[n]; *c; c++) {
            char a[16], b[16];
            unsigned char ba[512], bb[512];
            snprintf(a, sizeof a, "B%d%c/S", n, *c);
            snprintf(b, sizeof b, "B%d%c/S", 8 - n, *c);
            WL_CHECK(birth_set(a, ba) && birth_set(b, bb), "%s or %s failed", a, b);
            for (unsigned i = 0; i < 512; i++)
                if (!(i & C_BIT))
                    WL_CHECK(ba[i] == bb[i ^ NBR_MASK], "%s vs %s at %#x", a, b, i);
        }
    }
}

/* ---- 4. entries by hand ------------------------------------------------------------- */

/* One member of every lettered orbit, written as compass names (Golly's reference
 * configurations for counts 1..4; rule.c draws other members of the same orbits). */
static const struct {
    int count;
    char letter;
    unsigned member;
} MEMBERS[] = {
    {1, 'c', SE}, {1, 'e', S},
    {2, 'c', SW | SE}, {2, 'e', E | S}, {2, 'a', S | SE}, {2, 'i', W | E}, {2, 'k', W | SE},
    {2, 'n', NE | SW},
    {3, 'c', NE | SW | SE}, {3, 'e', W | E | S}, {3, 'a', E | S | SE}, {3, 'i', SW | S | SE},
    {3, 'k', NE | W | S}, {3, 'n', E | SW | SE}, {3, 'j', E | SW | S}, {3, 'q', NE | SW | S},
    {3, 'r', W | E | SE}, {3, 'y', NE | W | SE},
    {4, 'c', NW | NE | SW | SE}, {4, 'e', N | W | E | S}, {4, 'a', E | SW | S | SE},
    {4, 'i', W | E | SW | SE}, {4, 'k', NE | W | S | SE}, {4, 'n', NE | SW | S | SE},
    {4, 'j', NE | W | E | S}, {4, 'q', NE | W | SW | S}, {4, 'r', W | E | S | SE},
    {4, 'y', NE | W | SW | SE}, {4, 't', NE | W | E | SE}, {4, 'w', NE | E | SW | S},
    {4, 'z', NE | W | E | SW},
};

static void test_letter_members(void) {
    for (size_t k = 0; k < sizeof MEMBERS / sizeof MEMBERS[0]; k++) {
        for (int flip = 0; flip < 2; flip++) { /* count n, then 8 - n with the complement */
            int n = flip ? 8 - MEMBERS[k].count : MEMBERS[k].count;
            unsigned member = flip ? MEMBERS[k].member ^ NBR_MASK : MEMBERS[k].member;
            if (flip && n == 4) continue;
            char text[16];
            wl_rule r;
            snprintf(text, sizeof text, "B%d%c/S%d%c", n, MEMBERS[k].letter, n, MEMBERS[k].letter);
            parse_ok(text, &r);
            unsigned img[8];
            images(member, img);
            for (int j = 0; j < 8; j++) {
                WL_CHECK(wl_rule_next(&r, img[j]) == 1, "'%s' no birth on %#x", text, img[j]);
                WL_CHECK(wl_rule_next(&r, img[j] | C_BIT) == 1, "'%s' no survival on %#x", text,
                         img[j]);
            }
        }
    }
}

static void test_by_hand(void) {
    wl_rule r, t;
    wl_rule_life(&r);
    parse_ok("B3/S23", &t);
    WL_CHECK(wl_rule_equal(&r, &t), "wl_rule_life differs from B3/S23");
    WL_CHECK(wl_rule_next(&r, C_BIT | N | S) == 1, "Life: live cell with 2 dies");
    WL_CHECK(wl_rule_next(&r, C_BIT | NW | SE | E) == 1, "Life: live cell with 3 dies");
    WL_CHECK(wl_rule_next(&r, N | S) == 0, "Life: dead cell with 2 born");
    WL_CHECK(wl_rule_next(&r, N | NE | E) == 1, "Life: dead cell with 3 not born");
    WL_CHECK(wl_rule_next(&r, C_BIT | N | NE | E | SW) == 0, "Life: live cell with 4 lives");
    WL_CHECK(wl_rule_next(&r, C_BIT) == 0, "Life: lone cell lives");
    WL_CHECK(!wl_rule_has_b0(&r), "Life has B0");
    uint16_t b = 0, s = 0;
    WL_CHECK(wl_rule_is_totalistic(&r, &b, &s) && b == 0x8 && s == 0xC, "Life masks %x %x", b, s);
    WL_CHECK(wl_rule_is_isotropic(&r), "Life not isotropic");

    parse_ok("B36/S23", &r); /* HighLife */
    WL_CHECK(wl_rule_next(&r, NW | N | NE | SW | S | SE) == 1, "HighLife: no B6");
    WL_CHECK(wl_rule_next(&r, C_BIT | NW | N | NE | SW | S | SE) == 0, "HighLife: S6");

    parse_ok("B2/S", &r); /* Seeds */
    parse_ok("/2", &t);
    WL_CHECK(wl_rule_equal(&r, &t), "B2/S differs from /2");
    for (unsigned i = 0; i < 512; i++) {
        int want = !(i & C_BIT) && popcount9(i) == 2;
        WL_CHECK(wl_rule_next(&r, i) == want, "Seeds at %#x", i);
    }

    parse_ok("B2a/S", &r); /* 2a: two adjacent neighbours, an edge and a corner */
    WL_CHECK(wl_rule_next(&r, N | NE) == 1, "B2a: N+NE not born");
    WL_CHECK(wl_rule_next(&r, W | SW) == 1, "B2a: W+SW not born");
    WL_CHECK(wl_rule_next(&r, N | S) == 0, "B2a: N+S born");
    WL_CHECK(wl_rule_next(&r, N | W) == 0, "B2a: N+W born (that is 2e)");
    WL_CHECK(wl_rule_next(&r, NW | NE) == 0, "B2a: NW+NE born (that is 2c)");
    WL_CHECK(wl_rule_next(&r, C_BIT | N | NE) == 0, "B2a/S: survival");
    parse_ok("B2i/S", &r);
    WL_CHECK(wl_rule_next(&r, N | S) == 1 && wl_rule_next(&r, W | E) == 1, "B2i: opposite edges");
    parse_ok("B3i/S", &r); /* 3i: a full side */
    WL_CHECK(wl_rule_next(&r, SW | S | SE) == 1 && wl_rule_next(&r, NW | W | SW) == 1, "B3i");
    WL_CHECK(wl_rule_next(&r, NW | N | W) == 0, "B3i born on a corner and its edges (3a)");
    parse_ok("B4c/S", &r);
    WL_CHECK(wl_rule_next(&r, NW | NE | SW | SE) == 1, "B4c: four corners");
    parse_ok("B4e/S", &r);
    WL_CHECK(wl_rule_next(&r, N | W | E | S) == 1, "B4e: four edges");

    /* tlife, B3/S2-i34q: a blinker's centre dies; the beacon's inner cells in the dense
     * phase (a corner, its two edges, and the opposite corner) survive. */
    parse_ok("B3/S2-i34q", &r);
    WL_CHECK(wl_rule_next(&r, C_BIT | W | E) == 0, "tlife: blinker centre survives");
    WL_CHECK(wl_rule_next(&r, C_BIT | N | S) == 0, "tlife: blinker centre survives");
    WL_CHECK(wl_rule_next(&r, C_BIT | N | E) == 1, "tlife: 2e dies");
    WL_CHECK(wl_rule_next(&r, C_BIT | NW | N | W | SE) == 1, "tlife: beacon cell dies");
    WL_CHECK(wl_rule_next(&r, C_BIT | SE | S | E | NW) == 1, "tlife: beacon cell dies");
    WL_CHECK(wl_rule_next(&r, C_BIT | NW | NE | SW | SE) == 0, "tlife: 4c survives");
    WL_CHECK(!wl_rule_is_totalistic(&r, NULL, NULL), "tlife totalistic");
    WL_CHECK(wl_rule_is_isotropic(&r), "tlife not isotropic");

    parse_ok("B0/S8", &r);
    WL_CHECK(wl_rule_has_b0(&r) && wl_rule_next(&r, 0x1FF) == 1, "B0/S8");
    WL_CHECK(wl_rule_next(&r, NW) == 0, "B0/S8 born with 1");

    /* A rule that births only when exactly N is alive: index N = 0x80 = 128 sits in base64
     * character 128 / 6 = 21, bit 128 % 6 = 2 from the top, so that character is 8 ('I'). */
    char map[3 + 86 + 1];
    memcpy(map, "MAP", 3);
    memset(map + 3, 'A', 86);
    map[3 + 86] = '\0';
    map[3 + 21] = 'I';
    parse_ok(map, &r);
    for (unsigned i = 0; i < 512; i++)
        WL_CHECK(wl_rule_next(&r, i) == (i == N), "one-entry MAP at %#x", i);
    WL_CHECK(!wl_rule_is_isotropic(&r) && !wl_rule_is_totalistic(&r, NULL, NULL),
             "one-entry MAP counted isotropic or totalistic");
    char buf[WL_RULE_TEXT_MAX];
    WL_CHECK_OK(wl_rule_format(&r, buf, sizeof buf));
    WL_CHECK(strcmp(buf, map) == 0, "one-entry MAP printed as %s", buf);
    /* Index 511 is the high bit of the 86th character's two; the low four bits are unused. */
    map[3 + 21] = 'A';
    map[3 + 85] = 'g'; /* 32 = 0b100000: index 510 */
    parse_ok(map, &r);
    WL_CHECK(wl_rule_next(&r, 510) == 1 && wl_rule_next(&r, 511) == 0, "MAP last character");
    map[3 + 85] = 'j'; /* 35 = 0b100011: the same, plus unused bits */
    parse_ok(map, &t);
    WL_CHECK(wl_rule_equal(&r, &t), "unused MAP bits changed the table");
    WL_CHECK_OK(wl_rule_format(&t, buf, sizeof buf));
    WL_CHECK(buf[3 + 85] == 'g' && strlen(buf) == 89, "last MAP character printed as %c",
             buf[3 + 85]);
}

/* ---- 5. round trips on random rules ------------------------------------------------- */

static void check_round_trip(const wl_rule *r, const char *kind) {
    char buf[WL_RULE_TEXT_MAX], again[WL_RULE_TEXT_MAX];
    wl_rule back;
    wl_status s = wl_rule_format(r, buf, sizeof buf);
    WL_CHECK(s == WL_OK, "%s: format failed (%s)", kind, wl_last_error());
    if (s != WL_OK) return;
    s = wl_rule_parse(buf, &back);
    WL_CHECK(s == WL_OK, "%s: '%s' does not parse (%s)", kind, buf, wl_last_error());
    if (s != WL_OK) return;
    WL_CHECK(wl_rule_equal(r, &back), "%s: '%s' parses to another table", kind, buf);
    WL_CHECK(wl_rule_format(&back, again, sizeof again) == WL_OK && strcmp(buf, again) == 0,
             "%s: '%s' reprints as '%s'", kind, buf, again);
}

/* Random isotropic table: one random bit per (centre, orbit), orbits found by images(). */
static void random_isotropic(wl_rule *r) {
    signed char done[512];
    memset(done, -1, sizeof done);
    memset(r, 0, sizeof *r);
    for (unsigned i = 0; i < 512; i++) {
        if (done[i] >= 0) continue;
        int v = (int)(rng_next() & 1u);
        unsigned img[8];
        images(i, img);
        for (int k = 0; k < 8; k++) {
            done[img[k]] = (signed char)v;
            set_entry(r, img[k], v);
        }
    }
}

static void test_random(void) {
    int quick = getenv("WL_TEST_QUICK") != NULL;
    int rounds = quick ? 300 : 3000;
    int isotropic_seen = 0, hensel_printed = 0;
    for (int k = 0; k < rounds; k++) {
        wl_rule r;
        /* Any table: almost never isotropic, so it prints as MAP. */
        for (int w = 0; w < 8; w++) r.table[w] = rng_next();
        check_round_trip(&r, "random MAP");
        int iso = 1;
        for (unsigned i = 0; i < 512 && iso; i++) {
            unsigned img[8];
            images(i, img);
            for (int j = 0; j < 8; j++) iso &= wl_rule_next(&r, img[j]) == wl_rule_next(&r, i);
        }
        WL_CHECK(wl_rule_is_isotropic(&r) == iso, "is_isotropic wrong on a random table");
        WL_CHECK(wl_rule_has_b0(&r) == (int)(r.table[0] & 1u), "has_b0 wrong");

        random_isotropic(&r);
        WL_CHECK(wl_rule_is_isotropic(&r), "random isotropic table not isotropic");
        check_round_trip(&r, "random isotropic");
        char buf[WL_RULE_TEXT_MAX];
        if (wl_rule_format(&r, buf, sizeof buf) == WL_OK) {
            WL_CHECK(buf[0] == 'B', "isotropic rule printed as '%s'", buf);
            if (strpbrk(buf, "aceijknqrtwyz")) hensel_printed++;
        }
        isotropic_seen++;
        /* Break the symmetry in one entry: no longer isotropic, prints as MAP. */
        unsigned flip = (unsigned)(rng_next() % 512);
        unsigned img[8];
        images(flip, img);
        int orbit_size = 0;
        for (int j = 0; j < 8; j++) orbit_size += img[j] != flip;
        if (orbit_size) {
            set_entry(&r, flip, !wl_rule_next(&r, flip));
            WL_CHECK(!wl_rule_is_isotropic(&r), "one flipped entry still isotropic");
            check_round_trip(&r, "nearly isotropic");
            WL_CHECK(wl_rule_format(&r, buf, sizeof buf) == WL_OK && strncmp(buf, "MAP", 3) == 0,
                     "anisotropic rule printed as '%s'", buf);
        }

        /* Random totalistic: build the table here from the masks. */
        uint16_t bm = (uint16_t)(rng_next() & 0x1FF), sm = (uint16_t)(rng_next() & 0x1FF);
        memset(&r, 0, sizeof r);
        for (unsigned i = 0; i < 512; i++) {
            uint16_t m = (i & C_BIT) ? sm : bm;
            set_entry(&r, i, (m >> popcount9(i)) & 1u);
        }
        uint16_t b2 = 0, s2 = 0;
        WL_CHECK(wl_rule_is_totalistic(&r, &b2, &s2) && b2 == bm && s2 == sm,
                 "totalistic masks %x/%x read back as %x/%x", bm, sm, b2, s2);
        check_round_trip(&r, "random totalistic");
        WL_CHECK(wl_rule_format(&r, buf, sizeof buf) == WL_OK &&
                     strpbrk(buf, "aceijknqrtwyzM") == NULL,
                 "totalistic rule printed as '%s'", buf);
    }
    WL_CHECK(isotropic_seen > 0 && hensel_printed > rounds / 2,
             "only %d of %d random isotropic rules printed letters", hensel_printed, rounds);
}

/* Random short texts over the rule alphabet (and a few strangers): every parse either
 * succeeds, and then its canonical text round-trips, or fails with a positioned message. */
static void test_random_text(void) {
    static const char alphabet[] = "BbSs//--0123456789aceijknqrtwyzAEKxM: \x7f\xc3";
    int rounds = getenv("WL_TEST_QUICK") ? 2000 : 20000, accepted = 0;
    for (int k = 0; k < rounds; k++) {
        char text[24];
        size_t len = (size_t)(rng_next() % (sizeof text - 1));
        for (size_t i = 0; i < len; i++)
            text[i] = alphabet[rng_next() % (sizeof alphabet - 1)];
        text[len] = '\0';
        wl_rule r;
        wl_status s = wl_rule_parse(text, &r);
        WL_CHECK(s == WL_OK || s == WL_ERR_PARSE, "'%s' -> %s", text, wl_status_str(s));
        if (s == WL_OK) {
            accepted++;
            check_round_trip(&r, text);
        } else if (len > 0) {
            WL_CHECK(strstr(wl_last_error(), "position") != NULL, "'%s': message '%s'", text,
                     wl_last_error());
        }
    }
    WL_CHECK(accepted > 0, "no random text parsed");
}

/* The neighbourhoods' cells: hexagonal counts NW N W E S SE (not NE, SW), von Neumann
 * N W E S; index bits NW 8, N 7, NE 6, W 5, C 4, E 3, SW 2, S 1, SE 0. */
static void test_neighbourhoods(void) {
    wl_rule hex, vn;
    WL_CHECK_OK(wl_rule_parse("B2/SH", &hex));
    WL_CHECK_OK(wl_rule_parse("B2/SV", &vn));
    for (unsigned idx = 0; idx < 512; idx++) {
        unsigned c = (idx >> 4) & 1u;
        int nh = __builtin_popcount(idx & 0x1ABu), nv = __builtin_popcount(idx & 0x0AAu);
        WL_CHECK(wl_rule_next(&hex, idx) == (int)(!c && nh == 2), "B2/SH at index %u", idx);
        WL_CHECK(wl_rule_next(&vn, idx) == (int)(!c && nv == 2), "B2/SV at index %u", idx);
    }
}

int main(void) {
    rng_state = wl_test_seed();
    test_neighbourhoods();
    test_good();
    test_bad();
    test_hensel_partition();
    test_letter_members();
    test_by_hand();
    test_random();
    test_random_text();
    return wl_test_finish("test_rules");
}
