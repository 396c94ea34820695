/*
 * main.c - the `warplife` command: dispatches `warplife <subcommand> [options]` to one
 * file per subcommand (run.c, convert.c, info.c, soup.c, bench.c, view.c).
 *
 * Exit statuses (the same for every subcommand, see cli.h):
 *   0 success, 1 bad command line, 2 bad input (a missing, unreadable or malformed pattern
 *   file, a bad rule), 3 runtime failure.
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

typedef struct subcommand {
    const char *name;
    int (*entry)(int argc, char **argv);
    const char *summary;
} subcommand;

static const subcommand subcommands[] = {
    {"run", cli_run, "evolve a pattern (or run the default demo job) and report"},
    {"convert", cli_convert, "convert a pattern file to another format"},
    {"info", cli_info, "list built engines and kernels, or describe a pattern file"},
    {"soup", cli_soup, "write a random soup as RLE"},
    {"bench", cli_bench, "benchmark engines and kernels"},
    {"view", cli_view, "open the interactive viewer"},
};
#define N_SUBCOMMANDS (sizeof subcommands / sizeof subcommands[0])

static void usage(FILE *out) {
    fprintf(out,
            "usage: warplife <subcommand> [options]\n"
            "       warplife --help | --version\n"
            "\n"
            "Game of Life and Life-like cellular automata engines.\n"
            "\n"
            "subcommands:\n");
    for (size_t i = 0; i < N_SUBCOMMANDS; i++)
        fprintf(out, "  %-9s %s\n", subcommands[i].name, subcommands[i].summary);
    fprintf(out,
            "\n"
            "`warplife <subcommand> --help` describes each one.\n"
            "\n"
            "exit status: 0 ok, 1 bad command line, 2 bad input (a missing, unreadable or\n"
            "             malformed pattern file, a bad rule),\n"
            "             3 runtime failure (memory, device, i/o, interrupted)\n");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    /* In an MPI job only rank 0 prints: the others' reports would repeat it N times. */
    if (cli_mpi_rank() > 0 && !freopen("/dev/null", "w", stdout)) return CLI_EXIT_RUNTIME;
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("warplife %s\n", WL_VERSION_STRING);
        return CLI_EXIT_OK;
    }
    for (size_t i = 0; i < N_SUBCOMMANDS; i++)
        if (strcmp(cmd, subcommands[i].name) == 0)
            return subcommands[i].entry(argc - 1, argv + 1);
    cli_error("unknown subcommand '%s' (try `warplife --help`)", cmd);
    return CLI_EXIT_USAGE;
}
