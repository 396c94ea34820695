/*
 * convert.c - `warplife convert IN OUT`: reads a pattern file in any supported format and
 * writes it in the format OUT's extension (or --format) names, keeping the rule (or
 * replacing it with --rule) and the comments.  Patterns too big for a rectangle of cells
 * (huge macrocell files) go through a plane engine (HashLife) instead.
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *out) {
    fprintf(out,
        "usage: warplife convert IN OUT [options]\n"
        "\n"
        "Converts a pattern file.  IN's format is detected from its content (gzip too);\n"
        "OUT's comes from its extension (.rle, .cells, .lif/.life, .mc, each optionally\n"
        "followed by .gz) or --format.  \"-\" is standard input / output (RLE by default).\n"
        "The file is written atomically (a temporary file, then a rename).\n"
        "\n"
        "options:\n"
        "  -f, --format F     rle, cells (plaintext), life105, life106 (lif), mc (macrocell)\n"
        "  -r, --rule RULE    replace the file's rule\n"
        "  -h, --help         this help\n"
        "\n"
        "exit status: 0 ok, 1 bad command line, 2 bad input (a missing, unreadable or\n"
        "             malformed pattern file, a bad rule),\n"
        "             3 runtime failure (memory, i/o)\n");
}

enum { OPT_FORMAT = 1, OPT_RULE, OPT_HELP };
static const cli_option options[] = {
    {"format", 'f', 1, OPT_FORMAT},
    {"rule", 'r', 1, OPT_RULE},
    {"help", 'h', 0, OPT_HELP},
    {NULL, 0, 0, 0},
};

/* Converts through a plane universe (for patterns that do not fit a rectangle). */
static int convert_huge(const char *in, const char *out, wl_format fmt, const wl_rule *rule) {
    wl_config cfg;
    wl_config_init(&cfg);
    cfg.topology = WL_TOPOLOGY_PLANE;
    if (rule) cfg.rule = *rule;
    wl_universe *u = NULL;
    wl_status s = wl_universe_create(&cfg, &u);
    if (s) {
        cli_error("%s is too big for a rectangle of cells, and no plane engine (HashLife) "
                  "is usable: %s", in, wl_last_error());
        return CLI_EXIT_RUNTIME;
    }
    s = wl_universe_load_file(u, in, NULL);
    if (s) {
        wl_universe_free(u);
        return cli_fail_input(s, "");
    }
    s = wl_universe_save_file(u, out, fmt, -1);
    wl_universe_free(u);
    return s ? cli_fail(s, out) : CLI_EXIT_OK;
}

int cli_convert(int argc, char **argv) {
    cli_args st;
    const char *v, *in = NULL, *out = NULL, *rule_text = NULL;
    wl_format fmt = WL_FORMAT_AUTO;
    int id;
    cli_args_init(&st, argc, argv);
    while ((id = cli_next_option(&st, options, &v)) != -1) {
        switch (id) {
        case 0:
            if (!in) in = v;
            else if (!out) out = v;
            else {
                cli_error("convert takes two files, IN and OUT (extra: '%s')", v);
                return CLI_EXIT_USAGE;
            }
            break;
        case OPT_FORMAT:
            if (wl_format_parse(v, &fmt)) {
                cli_error("--format: unknown format '%s' (rle, cells, life105, life106, mc)", v);
                return CLI_EXIT_USAGE;
            }
            break;
        case OPT_RULE: rule_text = v; break;
        case OPT_HELP: usage(stdout); return CLI_EXIT_OK;
        default: return CLI_EXIT_USAGE;
        }
    }
    if (!in || !out) {
        cli_error("convert needs IN and OUT (see `warplife convert --help`)");
        return CLI_EXIT_USAGE;
    }
    wl_rule rule;
    wl_status s;
    if (rule_text && (s = wl_rule_parse(rule_text, &rule)) != WL_OK) return cli_fail(s, "--rule");
    wl_pattern *p = NULL;
    s = cli_read_pattern(in, 0, &p, NULL);
    if (s == WL_ERR_TOO_BIG) return convert_huge(in, out, fmt, rule_text ? &rule : NULL);
    if (s) return cli_fail_input(s, "");
    if (rule_text) wl_pattern_set_rule(p, &rule);
    s = wl_pattern_write_file(p, out, fmt, -1);
    wl_pattern_free(p);
    return s ? cli_fail(s, out) : CLI_EXIT_OK;
}
