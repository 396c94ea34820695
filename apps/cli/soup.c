/*
 * soup.c - `warplife soup WxH`: writes a random soup (wl_pattern_random, the same soup for
 * the same seed on every machine) as RLE to standard output or to a file.
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *out) {
    fprintf(out,
        "usage: warplife soup WxH [options]\n"
        "\n"
        "Writes a WxH random soup (top-left cell at 0,0) as RLE on standard output.\n"
        "The same seed gives the same soup on every machine.\n"
        "\n"
        "options:\n"
        "  -d, --density D    probability that a cell is alive, 0..1 (default 0.5)\n"
        "  -s, --seed S       generator seed, 0..18446744073709551615 (default: random,\n"
        "                     printed on stderr)\n"
        "  -r, --rule RULE    rule written in the file's header (default B3/S23)\n"
        "  -o, --output FILE  write FILE instead (format from its extension, .gz allowed)\n"
        "  -q, --quiet        do not print the seed\n"
        "  -h, --help         this help\n"
        "\n"
        "exit status: 0 ok, 1 bad command line, 2 bad rule, 3 runtime failure (memory, i/o)\n");
}

enum { OPT_DENSITY = 1, OPT_SEED, OPT_RULE, OPT_OUTPUT, OPT_QUIET, OPT_HELP };
static const cli_option options[] = {
    {"density", 'd', 1, OPT_DENSITY}, {"seed", 's', 1, OPT_SEED},
    {"rule", 'r', 1, OPT_RULE},       {"output", 'o', 1, OPT_OUTPUT},
    {"quiet", 'q', 0, OPT_QUIET},     {"help", 'h', 0, OPT_HELP},
    {NULL, 0, 0, 0},
};

/* A seed from the clock when none is given (the soup is still reproducible: the seed is
 * printed). */
static uint64_t fresh_seed(void) {
    double t = cli_now();
    uint64_t x = (uint64_t)(t * 1e9);
    x ^= x >> 33; /* splitmix64-style finaliser so that close times give unrelated seeds */
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

int cli_soup(int argc, char **argv) {
    cli_args st;
    const char *v, *size = NULL, *rule_text = NULL, *output = "-";
    double density = 0.5;
    uint64_t seed = 0, w, h;
    int have_seed = 0, quiet = 0, id;
    cli_args_init(&st, argc, argv);
    while ((id = cli_next_option(&st, options, &v)) != -1) {
        switch (id) {
        case 0:
            if (size) {
                cli_error("soup takes one size (extra: '%s')", v);
                return CLI_EXIT_USAGE;
            }
            size = v;
            break;
        case OPT_DENSITY:
            if (cli_parse_double(v, "--density", 0.0, 1.0, &density)) return CLI_EXIT_USAGE;
            break;
        case OPT_SEED:
            if (cli_parse_u64(v, "--seed", &seed)) return CLI_EXIT_USAGE;
            have_seed = 1;
            break;
        case OPT_RULE: rule_text = v; break;
        case OPT_OUTPUT: output = v; break;
        case OPT_QUIET: quiet = 1; break;
        case OPT_HELP: usage(stdout); return CLI_EXIT_OK;
        default: return CLI_EXIT_USAGE;
        }
    }
    if (!size) {
        cli_error("soup needs a size WxH (see `warplife soup --help`)");
        return CLI_EXIT_USAGE;
    }
    if (cli_parse_size(size, "size", &w, &h)) return CLI_EXIT_USAGE;
    if (w > INT64_MAX || h > INT64_MAX) {
        cli_error("size: '%s' is too big", size);
        return CLI_EXIT_USAGE;
    }
    wl_rule rule;
    wl_status s;
    if (rule_text && (s = wl_rule_parse(rule_text, &rule)) != WL_OK) return cli_fail(s, "--rule");
    if (!have_seed) {
        seed = fresh_seed();
        if (!quiet) fprintf(stderr, "warplife: soup seed %llu\n", (unsigned long long)seed);
    }
    wl_pattern *p = wl_pattern_new();
    if (!p) return cli_fail(WL_ERR_NOMEM, "soup");
    wl_rect r = {0, 0, w, h};
    char comment[160];
    snprintf(comment, sizeof comment, "warplife soup %llux%llu density %g seed %llu",
             (unsigned long long)w, (unsigned long long)h, density, (unsigned long long)seed);
    s = wl_pattern_random(p, &r, density, seed);
    if (!s) s = wl_pattern_set_comments(p, comment);
    if (!s && rule_text) wl_pattern_set_rule(p, &rule);
    if (!s) s = wl_pattern_write_file(p, output, strcmp(output, "-") ? WL_FORMAT_AUTO
                                                                     : WL_FORMAT_RLE, -1);
    wl_pattern_free(p);
    return s ? cli_fail(s, output) : CLI_EXIT_OK;
}
