/*
 * test_families.c - rule text of the multi-state families (Generations, Larger than Life,
 * History, Super) and Golly's bounded-grid suffixes: good texts and their canonical form
 * (Golly's, checked with Golly 5.1's own parser), bad texts with the position the message
 * must name, equality across notations, round trips of random rules, and the sizes of the
 * Larger than Life neighbourhoods.
 */
#include "wltest.h"

#include <string.h>

static const struct {
    const char *text;
    const char *canonical;
    int family;
    unsigned states;
} GOOD[] = {
    /* Generations (Golly's S/B/n; the B/S/C, B/S/G and gN forms of other programs) */
    {"B3/S23/3", "23/3/3", WL_FAMILY_GENERATIONS, 3},
    {"/2/3", "/2/3", WL_FAMILY_GENERATIONS, 3},
    {"23/3/2", "23/3/2", WL_FAMILY_GENERATIONS, 2},
    {"345/2/4", "345/2/4", WL_FAMILY_GENERATIONS, 4},
    {"2nic/3/3", "2cin/3/3", WL_FAMILY_GENERATIONS, 3},
    {"/2ceikn/8", "/2-a/8", WL_FAMILY_GENERATIONS, 8},
    {"/4-qjrtwz/8", "/4aceikny/8", WL_FAMILY_GENERATIONS, 8},
    {"/2aceikn3/8", "/23/8", WL_FAMILY_GENERATIONS, 8},
    {"/1-ce/3", "//3", WL_FAMILY_GENERATIONS, 3},
    {"B2ce3aejnr4aj5y6a/S1e2-a3-cij4aijkrtz5cnqr/3", "1e2-a3-cij4aijkrtz5cnqr/2ce3aejnr4aj5y6a/3",
     WL_FAMILY_GENERATIONS, 3},
    {"34/2/4v", "34/2/4V", WL_FAMILY_GENERATIONS, 4},
    {"34/2/v4", "34/2/4V", WL_FAMILY_GENERATIONS, 4},
    {"23/3/3h", "23/3/3H", WL_FAMILY_GENERATIONS, 3},
    {"/3/03", "/3/3", WL_FAMILY_GENERATIONS, 3},
    {"12/34/256", "12/34/256", WL_FAMILY_GENERATIONS, 256},
    {"B2/S345/C4", "345/2/4", WL_FAMILY_GENERATIONS, 4},
    {"B3/S23/G3", "23/3/3", WL_FAMILY_GENERATIONS, 3},
    {"g4b2s345", "345/2/4", WL_FAMILY_GENERATIONS, 4},
    {"S23/B3/3", "23/3/3", WL_FAMILY_GENERATIONS, 3},
    {"MAPARYXfhZofugWaH7oaIDogBZofuhogOiAaIDogIAAgAAWaH7oaIDogGiA6ICAAIAAaIDogIAAgACAAIAAAAAAAA/2",
     "MAPARYXfhZofugWaH7oaIDogBZofuhogOiAaIDogIAAgAAWaH7oaIDogGiA6ICAAIAAaIDogIAAgACAAIAAAAAAAA/2",
     WL_FAMILY_GENERATIONS, 2},
    /* History and Super */
    {"LifeHistory", "LifeHistory", WL_FAMILY_HISTORY, 7},
    {"B3/S23History", "LifeHistory", WL_FAMILY_HISTORY, 7},
    {"23/3history", "LifeHistory", WL_FAMILY_HISTORY, 7},
    {"LifeSuper", "LifeSuper", WL_FAMILY_SUPER, 26},
    {"b3/s23SUPER", "LifeSuper", WL_FAMILY_SUPER, 26},
    {"LifeHSuper", "B3/S23HSuper", WL_FAMILY_SUPER, 26},
    {"LifeVHistory", "B3/S23VHistory", WL_FAMILY_HISTORY, 7},
    {"B3/S23-aSuper", "B3/S23-aSuper", WL_FAMILY_SUPER, 26},
    {"B3-kq4j/S2-i34qSuper", "B3-kq4j/S2-i34qSuper", WL_FAMILY_SUPER, 26},
    {"B0/S8History", "B0/S8History", WL_FAMILY_HISTORY, 7},
    {"B36/S23Super", "B36/S23Super", WL_FAMILY_SUPER, 26},
    /* Larger than Life: LtL, Kellie Evans and HROT notations */
    {"R5,C0,M1,S34..58,B34..45,NM", "R5,C0,M1,S34..58,B34..45,NM", WL_FAMILY_LTL, 2},
    {"r5,c0,m1,s34..58,b34..45,nm", "R5,C0,M1,S34..58,B34..45,NM", WL_FAMILY_LTL, 2},
    {"5,34,45,34,58", "R5,C0,M1,S34..58,B34..45,NM", WL_FAMILY_LTL, 2},
    {"1,3,3,3,4", "R1,C0,M1,S3..4,B3..3,NM", WL_FAMILY_LTL, 2},
    {"R5,C2,S33-57,B34-45", "R5,C0,S33-57,B34-45", WL_FAMILY_LTL, 2},
    {"R3,C2,S2,B3,N+", "R3,C0,S2,B3,N+", WL_FAMILY_LTL, 2},
    {"R1,C2,S1,B1,10,11,12,NL", "R1,C0,S1,B1,10-12,NL", WL_FAMILY_LTL, 2},
    {"R1,C0,S3,2,B3,NM", "R1,C0,S2-3,B3", WL_FAMILY_LTL, 2},
    {"R1,C0,S01-03,B003", "R1,C0,S1-3,B3", WL_FAMILY_LTL, 2},
    {"R1,C0,S,B3", "R1,C0,S,B3", WL_FAMILY_LTL, 2},
    {"R10,C255,M1,S2..3,B3..3,NM", "R10,C255,M1,S2..3,B3..3,NM", WL_FAMILY_LTL, 255},
    {"R2,C0,S4-7,9-12,B4,11-12,NB", "R2,C0,S4-7,9-12,B4,11-12,NB", WL_FAMILY_LTL, 2},
    {"R498,C3,S8649,B499", "R498,C3,S8649,B499", WL_FAMILY_LTL, 3},
    {"R10,C0,S114-196,B99-200,NH", "R10,C0,S114-196,B99-200,NH", WL_FAMILY_LTL, 2},
    {"R 5,C 0,M 1,S 34.. 58,B34..45,NM", "R5,C0,M1,S34..58,B34..45,NM", WL_FAMILY_LTL, 2},
};

static void test_good(void) {
    for (size_t i = 0; i < sizeof GOOD / sizeof GOOD[0]; i++) {
        wl_rule r, again;
        char buf[WL_RULE_TEXT_MAX], buf2[WL_RULE_TEXT_MAX];
        wl_status s = wl_rule_parse(GOOD[i].text, &r);
        WL_CHECK(s == WL_OK, "parse '%s' -> %s (%s)", GOOD[i].text, wl_status_str(s),
                 wl_last_error());
        if (s) continue;
        WL_CHECK((int)wl_rule_family(&r) == GOOD[i].family, "'%s': family %s", GOOD[i].text,
                 wl_family_name(wl_rule_family(&r)));
        WL_CHECK(wl_rule_states(&r) == GOOD[i].states, "'%s': %u states, expected %u",
                 GOOD[i].text, wl_rule_states(&r), GOOD[i].states);
        WL_CHECK_OK(wl_rule_format(&r, buf, sizeof buf));
        WL_CHECK(strcmp(buf, GOOD[i].canonical) == 0, "'%s' prints as '%s', expected '%s'",
                 GOOD[i].text, buf, GOOD[i].canonical);
        /* the canonical text reads back as the same rule and prints the same */
        WL_CHECK_OK(wl_rule_parse(buf, &again));
        WL_CHECK(wl_rule_equal(&r, &again), "'%s' does not read back as itself", buf);
        WL_CHECK_OK(wl_rule_format(&again, buf2, sizeof buf2));
        WL_CHECK(strcmp(buf, buf2) == 0, "'%s' prints again as '%s'", buf, buf2);
    }
}

static const struct {
    const char *text;
    int position;
    const char *what;
} BAD[] = {
    {"23/3/1", 6, "not 1"},
    {"23/3/257", 6, "not 257"},
    {"23/3/", 6, "number of states"},
    {"23/3/3x", 7, "after the number of states"},
    {"2/3/4/5", 6, "at most two separators"},
    {"/9/3", 2, "digit 0-8"},
    {"LifeXHistory", 1, "unexpected 'L'"},
    {"History", 1, "before the suffix"},
    {"R0,C0,S2,B3", 2, "range must be 1..500"},
    {"R501,C0,S2,B3", 2, "range must be 1..500"},
    {"R300,C0,S2,B3,NL", 2, "range must be 1..250"},
    {"R1,C0,S9,B3", 8, "0..8"},
    {"R1,C0,M1,S0..3,B3..3,NM", 11, "1..9"},
    {"R1,C257,S2,B3", 1, "0..256"},
    {"R1,C3,S2,B0", 11, "B0 is not allowed"},
    {"R1,C0,S3-2,B3", 8, "backwards"},
    {"R1,C0,M1,S3..2,B3..3,NM", 11, "backwards"},
    {"R1,C0,S2,B3,NQ", 14, "neighbourhood letter"},
    {"R1,C0,S2,B3,NW111111111", 14, "weighted"},
    {"R1,C0,M1,S2..3,B3..3", 21, "',N'"},
    {"R1,C0,M2,S2..3,B3..3,NM", 8, "M is 0 or 1"},
    {"R1,C0,S2,B3,NMx", 15, "unexpected text"},
    {"1,3,3,3", 8, "expected ','"},
    {"1,3,2,3,4", 3, "backwards"},
    {"B3/S23:T10,10", 7, "unexpected ':'"},
};

static void test_bad(void) {
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        wl_rule r;
        wl_rule_life(&r);
        wl_status s = wl_rule_parse(BAD[i].text, &r);
        WL_CHECK(s == WL_ERR_PARSE, "'%s' -> %s, expected a parse error", BAD[i].text,
                 wl_status_str(s));
        const char *msg = wl_last_error();
        char pos[32];
        snprintf(pos, sizeof pos, "position %d", BAD[i].position);
        WL_CHECK(strstr(msg, pos) != NULL, "'%s': message '%s' lacks '%s'", BAD[i].text, msg, pos);
        WL_CHECK(strstr(msg, BAD[i].what) != NULL, "'%s': message '%s' lacks '%s'", BAD[i].text,
                 msg, BAD[i].what);
    }
    /* B0 without S-max, and B0 in Generations: refused as Golly refuses them */
    const char *b0[] = {"/0/3", "0/0/5", "B0/S23History", "B01/S1Super", "B0/S8/3"};
    for (size_t i = 0; i < sizeof b0 / sizeof b0[0]; i++) {
        wl_rule r;
        WL_CHECK(wl_rule_parse(b0[i], &r) == WL_ERR_PARSE, "'%s' was accepted", b0[i]);
        WL_CHECK(strstr(wl_last_error(), "B0") != NULL, "'%s': message '%s' lacks 'B0'", b0[i],
                 wl_last_error());
    }
}

/* ---- grid suffixes ------------------------------------------------------------------- */

static const struct {
    const char *text;
    const char *canonical; /* "" for the plane */
    wl_topology t;
} GRIDS[] = {
    {"B3/S23:T30,20", ":T30,20", WL_TOPOLOGY_TORUS},
    {"B3/S23:t10", ":T10,10", WL_TOPOLOGY_TORUS},
    {"B3/S23:p30", ":P30,30", WL_TOPOLOGY_BOUNDED},
    {"B3/S23:P30,0", ":P30,0", WL_TOPOLOGY_BOUNDED},
    {"B3/S23:T0,20", ":T0,20", WL_TOPOLOGY_TORUS},
    {"B3/S23:T30+5,20", ":T30+5,20", WL_TOPOLOGY_TORUS},
    {"B3/S23:T30,20-2", ":T30,20-2", WL_TOPOLOGY_TORUS},
    {"B3/S23:T30+35,20", ":T30+5,20", WL_TOPOLOGY_TORUS},
    {"B3/S23:T30-35,20", ":T30-5,20", WL_TOPOLOGY_TORUS},
    {"B3/S23:T30+30,20", ":T30,20", WL_TOPOLOGY_TORUS},
    {"B3/S23:T30,", ":T30,30", WL_TOPOLOGY_TORUS},
    {"B3/S23:K30*,20", ":K30*,20", WL_TOPOLOGY_KLEIN},
    {"B3/S23:K30,20*", ":K30,20*", WL_TOPOLOGY_KLEIN},
    {"B3/S23:K30", ":K30,30*", WL_TOPOLOGY_KLEIN},
    {"B3/S23:K30*-7,20", ":K30*+1,20", WL_TOPOLOGY_KLEIN},
    {"B3/S23:K31*+1,20", ":K31*,20", WL_TOPOLOGY_KLEIN},
    {"B3/S23:c30", ":C30,30", WL_TOPOLOGY_CROSS},
    {"B3/S23:S30", ":S30", WL_TOPOLOGY_SPHERE},
    {"B3/S23:T99999999999,3", ":T2000000000,3", WL_TOPOLOGY_TORUS},
    {"B3/S23:", "", WL_TOPOLOGY_PLANE},
    {"B3/S23:T", "", WL_TOPOLOGY_PLANE},
    {"B3/S23:T0,0", "", WL_TOPOLOGY_PLANE},
    {"LifeHistory:T30+7,20", ":T30+7,20", WL_TOPOLOGY_TORUS},
    {"345/2/4:K10,20", ":K10,20*", WL_TOPOLOGY_KLEIN},
    /* Larger than Life: tori and planes only, sides raised to twice the range */
    {"R3,C0,S2-3,B3:T3,3", ":T6,6", WL_TOPOLOGY_TORUS},
    {"R3,C0,S2-3,B3,NL:T3,3", ":T12,12", WL_TOPOLOGY_TORUS},
    {"1,3,3,3,4:t0,0", ":T2,2", WL_TOPOLOGY_TORUS},
    {"R4,C2,S40-80,B41-80,NM:T180,180", ":T180,180", WL_TOPOLOGY_TORUS},
    {"R1,C0,S2,B3:P7", ":P7,7", WL_TOPOLOGY_BOUNDED},
    {"R1,C0,S2,B3:T", "", WL_TOPOLOGY_PLANE},
};

static const struct {
    const char *text;
    const char *what;
} BAD_GRIDS[] = {
    {"B3/S23:X30", "unknown grid topology"},
    {"B3/S23:T30*,20", "only a Klein bottle has a twist"},
    {"B3/S23:K30*,20*", "both twists"},
    {"B3/S23:P30+1,20", "a plane cannot have a shift"},
    {"B3/S23:S30+1", "a sphere cannot have a shift"},
    {"B3/S23:C30+1,20", "a cross-surface cannot have a shift"},
    {"B3/S23:K30+1,20", "twisted edges"},
    {"B3/S23:T0+1,20", "unbounded width"},
    {"B3/S23:T30+1,20+1", "both horizontal and vertical shifts"},
    {"B3/S23:T30x", "after the grid width"},
    {"B3/S23:T30,20x", "after the grid height"},
    {"B3/S23:S30,30", "one size"},
    {"B3/S23:K0,20", "unbounded width"},
    {"B3/S23:C30,0", "unbounded height"},
    {"B3/S23:T30+1,0", "unbounded"},
    {"R1,C0,S2,B3:K10,10", "torus (T) or a bounded plane (P)"},
    {"R1,C0,S2,B3:T10+1,10", "unexpected character"},
    {"R1,C0,S2,B3:T100000,100000", "too big"},
};

static void test_grids(void) {
    for (size_t i = 0; i < sizeof GRIDS / sizeof GRIDS[0]; i++) {
        wl_rule r;
        wl_shape sh;
        char buf[64];
        wl_status s = wl_rule_parse_grid(GRIDS[i].text, &r, &sh);
        WL_CHECK(s == WL_OK, "'%s' -> %s (%s)", GRIDS[i].text, wl_status_str(s), wl_last_error());
        if (s) continue;
        WL_CHECK(sh.topology == GRIDS[i].t, "'%s': topology %s", GRIDS[i].text,
                 wl_topology_name(sh.topology));
        WL_CHECK_OK(wl_shape_format(&sh, buf, sizeof buf));
        WL_CHECK(strcmp(buf, GRIDS[i].canonical) == 0, "'%s': suffix '%s', expected '%s'",
                 GRIDS[i].text, buf, GRIDS[i].canonical);
        if (sh.topology == WL_TOPOLOGY_PLANE) continue;
        /* the canonical suffix reads back as the same shape */
        wl_shape again;
        WL_CHECK_OK(wl_shape_parse(buf + 1, &again));
        if (r.family != WL_FAMILY_LTL)
            WL_CHECK(memcmp(&again, &sh, sizeof sh) == 0, "'%s' does not read back", buf);
    }
    for (size_t i = 0; i < sizeof BAD_GRIDS / sizeof BAD_GRIDS[0]; i++) {
        wl_rule r;
        wl_shape sh;
        wl_status s = wl_rule_parse_grid(BAD_GRIDS[i].text, &r, &sh);
        WL_CHECK(s == WL_ERR_PARSE, "'%s' -> %s, expected a parse error", BAD_GRIDS[i].text,
                 wl_status_str(s));
        WL_CHECK(strstr(wl_last_error(), BAD_GRIDS[i].what) != NULL,
                 "'%s': message '%s' lacks '%s'", BAD_GRIDS[i].text, wl_last_error(),
                 BAD_GRIDS[i].what);
    }
}

/* ---- equality across notations -------------------------------------------------------- */

static void same(const char *a, const char *b, int expect) {
    wl_rule ra, rb;
    WL_CHECK_OK(wl_rule_parse(a, &ra));
    WL_CHECK_OK(wl_rule_parse(b, &rb));
    WL_CHECK(wl_rule_equal(&ra, &rb) == expect, "'%s' and '%s' %s", a, b,
             expect ? "differ" : "are equal");
}

static void test_equal(void) {
    /* M1 counts the cell itself: its survival counts are one more than HROT's */
    same("R5,C0,M1,S34..58,B34..45,NM", "R5,C0,S33-57,B34-45", 1);
    same("R5,C0,M1,S34..58,B34..45,NM", "5,34,45,34,58", 1);
    same("R5,C0,M0,S34..58,B34..45,NM", "R5,C2,S34-58,B34-45", 1);
    same("R5,C0,M1,S34..58,B34..45,NM", "R5,C0,S34-58,B34-45", 0);
    same("R1,C0,S2-3,B3", "R1,C0,S2-3,B3,NN", 0);
    same("R1,C0,S2-3,B3", "R1,C3,S2-3,B3", 0);
    same("23/3/3", "B3/S23/C3", 1);
    same("23/3/3", "23/3/4", 0);
    same("LifeHistory", "LifeSuper", 0);
    same("LifeHistory", "B3/S23History", 1);
    same("B3/S23", "23/3/2", 0); /* the same dynamics, another family: Golly keeps them apart */
}

/* ---- random rules: text round trips ---------------------------------------------------- */

static void test_random(uint64_t seed) {
    uint64_t st = seed;
    static const char letters[] = "MNC2BD+X*#HA3L";
    for (int i = 0; i < 300; i++) {
        char text[256], buf[WL_RULE_TEXT_MAX];
        uint64_t v = wl_test_rand(&st);
        int kind = (int)(v % 3);
        if (kind == 0) { /* Generations from a B/S pair */
            unsigned b = (unsigned)(wl_test_rand(&st) & 0x1fe), s = (unsigned)(wl_test_rand(&st) & 0x1ff);
            int n = 0;
            n += snprintf(text + n, sizeof text - (size_t)n, "B");
            for (int k = 0; k <= 8; k++) if (b >> k & 1) n += snprintf(text + n, sizeof text - (size_t)n, "%d", k);
            n += snprintf(text + n, sizeof text - (size_t)n, "/S");
            for (int k = 0; k <= 8; k++) if (s >> k & 1) n += snprintf(text + n, sizeof text - (size_t)n, "%d", k);
            snprintf(text + n, sizeof text - (size_t)n, "/%u", 2 + (unsigned)(wl_test_rand(&st) % 255));
        } else if (kind == 1) { /* HROT */
            unsigned r = 1 + (unsigned)(wl_test_rand(&st) % 12);
            char nh = letters[wl_test_rand(&st) % (sizeof letters - 1)];
            /* counts within 3r, the smallest neighbourhood's size (the tripod's) */
            unsigned a = 1 + (unsigned)(wl_test_rand(&st) % r), c = a + (unsigned)(wl_test_rand(&st) % r);
            snprintf(text, sizeof text, "R%u,C%u,S%u-%u,%u,B%u-%u,N%c", r,
                     (unsigned)(wl_test_rand(&st) % 30), a, c, c + 2, a, c, nh);
        } else { /* LtL */
            unsigned r = 1 + (unsigned)(wl_test_rand(&st) % 9);
            unsigned a = 1 + (unsigned)(wl_test_rand(&st) % (2 * r)), c = a + (unsigned)(wl_test_rand(&st) % (2 * r));
            snprintf(text, sizeof text, "R%u,C%u,M%u,S%u..%u,B%u..%u,NC", r,
                     (unsigned)(wl_test_rand(&st) % 3), (unsigned)(wl_test_rand(&st) % 2), a, c, a, c);
        }
        wl_rule r, again;
        wl_status s = wl_rule_parse(text, &r);
        WL_CHECK(s == WL_OK, "random rule '%s' -> %s (%s)", text, wl_status_str(s), wl_last_error());
        if (s) continue;
        WL_CHECK_OK(wl_rule_format(&r, buf, sizeof buf));
        WL_CHECK_OK(wl_rule_parse(buf, &again));
        WL_CHECK(wl_rule_equal(&r, &again), "'%s' -> '%s' reads back as another rule", text, buf);
    }
}

/* ---- neighbourhood sizes (Golly's maximum counts) ---------------------------------------- */

static void test_sizes(void) {
    static const struct {
        char nh;
        unsigned r;
        uint64_t size;
    } SIZES[] = {
        {'M', 1, 8}, {'M', 5, 120}, {'M', 500, 1002000}, {'N', 1, 4}, {'N', 3, 24},
        {'N', 100, 20200}, {'C', 1, 8}, {'C', 3, 36}, {'2', 1, 4}, {'2', 3, 28},
        {'B', 1, 4}, {'B', 2, 12}, {'D', 1, 4}, {'D', 2, 12}, {'+', 3, 12}, {'X', 3, 12},
        {'*', 3, 24}, {'#', 3, 24}, {'H', 1, 6}, {'H', 10, 330}, {'A', 2, 12}, {'3', 4, 12},
        {'L', 1, 12}, {'L', 10, 660},
    };
    for (size_t i = 0; i < sizeof SIZES / sizeof SIZES[0]; i++) {
        wl_ltl l;
        memset(&l, 0, sizeof l);
        l.nh = SIZES[i].nh;
        l.range = (uint16_t)SIZES[i].r;
        for (int parity = 0; parity < 2; parity++) {
            uint64_t n = wl_ltl_neighbourhood(&l, parity, NULL, NULL);
            WL_CHECK(n == SIZES[i].size, "N%c range %u parity %d: %llu cells, expected %llu",
                     SIZES[i].nh, SIZES[i].r, parity, (unsigned long long)n,
                     (unsigned long long)SIZES[i].size);
        }
    }
}

int main(void) {
    uint64_t seed = wl_test_seed();
    test_good();
    test_bad();
    test_grids();
    test_equal();
    test_random(seed);
    test_sizes();
    return wl_test_finish("test_families");
}
