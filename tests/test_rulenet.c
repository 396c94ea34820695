/*
 * test_rulenet.c - the gate networks of src/core/rulenet.c (any 512-entry rule) against the
 * rule tables, exhaustively: for every one of the 512 neighbourhoods the nine cells are
 * set as all-zero / all-one words, the network is evaluated, and the result must be the
 * rule's next state (wl_rule_next).  Rules: named Hensel and MAP rules, random Hensel
 * letter sets, random MAP tables with and without B0, outer-totalistic rules.  Also:
 * determinism, the cost model, that a damaged network fails the check, the emitted text
 * and bad arguments.
 *
 * WL_TEST_QUICK=1 (sanitizer runs) shrinks the number of random rules.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, mkdtemp */
#include "rulenet.h"
#include "wltest.h"

#include "internal.h" /* wl_splitmix64 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Independent of wl_rnet_check: one neighbourhood at a time, cells as whole words. */
static int exhaustive_ok(const wl_rnet *net, const wl_rule *r, unsigned *bad_idx) {
    for (unsigned idx = 0; idx < 512; idx++) {
        uint64_t cells[WL_RNET_CELLS];
        for (int i = 0; i < WL_RNET_CELLS; i++) cells[i] = ((idx >> i) & 1u) ? ~(uint64_t)0 : 0;
        uint64_t v = wl_rnet_eval(net, cells);
        uint64_t want = wl_rule_next(r, idx) ? ~(uint64_t)0 : 0;
        if (v != want) {
            *bad_idx = idx;
            return 0;
        }
    }
    return 1;
}

static void check_rule(const wl_rule *r, const char *what, int effort, long *cost_sum) {
    wl_rnet net, again;
    wl_status s = wl_rnet_synth(r, effort, &net);
    WL_CHECK(s == WL_OK, "%s: synth failed: %s", what, wl_last_error());
    if (s) return;
    unsigned bad = 0;
    WL_CHECK(exhaustive_ok(&net, r, &bad), "%s: wrong at neighbourhood %u", what, bad);
    WL_CHECK(wl_rnet_check(&net, r), "%s: wl_rnet_check rejects the network", what);
    int cost = wl_rnet_cost(&net);
    WL_CHECK(cost >= net.n && cost <= net.n + 6, "%s: cost %d for %d gates", what, cost, net.n);
    if (cost_sum) *cost_sum += cost;
    WL_CHECK_OK(wl_rnet_synth(r, effort, &again));
    WL_CHECK(again.n == net.n && again.out == net.out &&
                 memcmp(again.g, net.g, sizeof net.g[0] * (size_t)net.n) == 0,
             "%s: two searches gave different networks", what);
    /* a damaged network must fail: the output gate's lut complemented */
    if (net.n > 0 && net.out >= WL_RNET_INPUTS) {
        wl_rnet bad_net = net;
        bad_net.g[net.out - WL_RNET_INPUTS].lut ^= 0xFF;
        WL_CHECK(!wl_rnet_check(&bad_net, r), "%s: a complemented output gate passes", what);
    }
}

static void random_hensel(uint64_t *st, char *buf) {
    static const char *const letters[9] = {"",           "ce",         "aceikn",
                                           "aceijknqry", "aceijknqrtwyz", "aceijknqry",
                                           "aceikn",     "ce",         ""};
    char *p = buf;
    for (int part = 0; part < 2; part++) {
        *p++ = part ? 'S' : 'B';
        for (int n = part ? 0 : 1; n <= 8; n++) {
            if (wl_splitmix64(st) & 1) continue;
            *p++ = (char)('0' + n);
            for (const char *l = letters[n]; *l; l++)
                if (wl_splitmix64(st) % 3 == 0) *p++ = *l;
        }
        if (!part) *p++ = '/';
    }
    *p = 0;
}

/* The disk cache of networks: a search leaves one "net-*" entry; once the process cache
 * has forgotten the rule (8 other rules later), a damaged entry is not used (the network
 * still checks) and is written again; WL_CACHE_DIR=off writes nothing. */
static void test_disk_cache(uint64_t *st) {
    char dir[] = "/tmp/wl-test-rnet-XXXXXX";
    if (!mkdtemp(dir)) {
        WL_CHECK(0, "mkdtemp failed");
        return;
    }
    wl_test_env old_cache = wl_test_env_set("WL_CACHE_DIR", dir);
    wl_rule first, other;
    memset(&first, 0, sizeof first);
    memset(&other, 0, sizeof other);
    for (int i = 0; i < 8; i++) first.table[i] = wl_splitmix64(st);
    wl_rnet net;
    WL_CHECK_OK(wl_rnet_synth(&first, 0, &net));
    WL_CHECK(wl_test_dir_entries(dir) == 1, "%d cache entries after one search",
             wl_test_dir_entries(dir));
    char path[sizeof dir + 300] = "";
    wl_test_dir_find(dir, "net-", path, sizeof path);
    for (int k = 0; k < 8; k++) { /* push `first` out of the process cache */
        for (int i = 0; i < 8; i++) other.table[i] = wl_splitmix64(st);
        WL_CHECK_OK(wl_rnet_synth(&other, 0, &net));
    }
    WL_CHECK(wl_test_dir_entries(dir) == 9, "%d cache entries after nine searches",
             wl_test_dir_entries(dir));
    FILE *f = fopen(path, "r+b");
    WL_CHECK(f != NULL, "cannot open the entry %s", path);
    if (f) { /* flip a byte of the payload */
        fseek(f, 100, SEEK_SET);
        int c = fgetc(f);
        fseek(f, 100, SEEK_SET);
        fputc(c ^ 0x5A, f);
        fclose(f);
    }
    WL_CHECK_OK(wl_rnet_synth(&first, 0, &net));
    WL_CHECK(wl_rnet_check(&net, &first), "the network after a damaged entry is wrong");
    setenv("WL_CACHE_DIR", "off", 1);
    for (int i = 0; i < 8; i++) other.table[i] = wl_splitmix64(st);
    WL_CHECK_OK(wl_rnet_synth(&other, 0, &net));
    WL_CHECK(wl_test_dir_entries(dir) == 9, "%d cache entries (WL_CACHE_DIR=off wrote one)",
             wl_test_dir_entries(dir));
    wl_test_dir_remove(dir);
    wl_test_env_restore(&old_cache);
}

int main(void) {
    unsigned long long seed = wl_test_seed();
    const char *quick = getenv("WL_TEST_QUICK");
    int is_quick = quick && *quick && strcmp(quick, "0");
    int nrandom = is_quick ? 6 : 24;
    uint64_t st = seed ^ 0x52554C454E4554ull;

    static const char *const named[] = {
        "B3/S23", "B36/S23", "B2/S", "B3678/S34678", "B0/S8", "B/S", "B012345678/S012345678",
        "B2-a/S12", "B3-cnqy/S23-a4ityz", "B2ce3ai4ak/S1c2k3-a", "B3/S23-a4ityz",
        "B0123478/S01234678", "B2e3-ik/S1e2e"};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        wl_rule r;
        wl_status s = wl_rule_parse(named[i], &r);
        WL_CHECK(s == WL_OK, "parse %s: %s", named[i], wl_last_error());
        if (!s) check_rule(&r, named[i], 0, NULL);
    }
    /* outer-totalistic rules cost about what lop3net's networks cost after the adders */
    {
        wl_rule life;
        wl_rule_life(&life);
        wl_rnet net;
        WL_CHECK_OK(wl_rnet_synth(&life, 0, &net));
        WL_CHECK(wl_rnet_cost(&net) <= 12, "B3/S23 costs %d (expected at most 12)",
                 wl_rnet_cost(&net));
    }
    long hensel_cost = 0, map_cost = 0;
    for (int t = 0; t < nrandom; t++) {
        char text[256];
        random_hensel(&st, text);
        wl_rule r;
        wl_status s = wl_rule_parse(text, &r);
        WL_CHECK(s == WL_OK, "parse %s: %s", text, wl_last_error());
        if (!s) check_rule(&r, text, t < 3 ? 1 : 0, &hensel_cost);
        for (int i = 0; i < 8; i++) r.table[i] = wl_splitmix64(&st);
        if (t & 1) r.table[0] |= 1u; /* B0 */
        else r.table[0] &= ~(uint64_t)1;
        check_rule(&r, t & 1 ? "random MAP with B0" : "random MAP", 0, &map_cost);
    }
    printf("random Hensel rules: mean cost %.1f; random MAP tables: %.1f (%d each)\n",
           (double)hensel_cost / nrandom, (double)map_cost / nrandom, nrandom);

    /* emitted text: one line per gate and the output line */
    {
        wl_rule r;
        WL_CHECK_OK(wl_rule_parse("B2-a/S12", &r));
        wl_rnet net;
        WL_CHECK_OK(wl_rnet_synth(&r, 0, &net));
        const char *names[WL_RNET_INPUTS + 2] = {"se", "s",  "sw", "e",  "c",  "w",  "ne",
                                                 "n",  "nw", "st", "ct", "sm", "cm", "sb",
                                                 "cb", "x0", "k",  "y1", "y2", "zero", "ones"};
        char buf[8192];
        int len = wl_rnet_emit(&net, "G", names, "t", "out", buf, sizeof buf);
        WL_CHECK(len > 0 && (size_t)len < sizeof buf, "emit returned %d", len);
        int lines = 0;
        for (int i = 0; i < len; i++) lines += buf[i] == '\n';
        WL_CHECK(lines == net.n + 1, "%d lines for %d gates", lines, net.n);
        WL_CHECK(strstr(buf, "out = ") != NULL, "no output line in %s", buf);
        char small[8];
        WL_CHECK(wl_rnet_emit(&net, "G", names, "t", "out", small, sizeof small) == len,
                 "a short buffer changes the length");
        WL_CHECK(wl_rnet_emit(&net, NULL, names, "t", "out", buf, sizeof buf) == -1,
                 "NULL macro accepted");
        wl_rnet broken = net;
        broken.out = WL_RNET_INPUTS + net.n + 5;
        WL_CHECK(wl_rnet_emit(&broken, "G", names, "t", "out", buf, sizeof buf) == -1,
                 "malformed network emitted");
        WL_CHECK(!wl_rnet_check(&broken, &r), "malformed network passes the check");
        WL_CHECK(wl_rnet_cost(&broken) == -1, "malformed network has a cost");
    }
    WL_CHECK(wl_rnet_synth(NULL, 0, NULL) == WL_ERR_INVALID, "NULL arguments accepted");
    test_disk_cache(&st);
    return wl_test_finish("test_rulenet");
}
