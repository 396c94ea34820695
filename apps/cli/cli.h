/*
 * cli.h - what the subcommands of the `warplife` command share.
 *
 * Each subcommand is one file (run.c, convert.c, info.c, soup.c, bench.c, view.c) with an
 * entry point `int cli_NAME(int argc, char **argv)` where argv[0] is the subcommand name;
 * it returns one of the exit statuses below.  Data goes to stdout, diagnostics to stderr.
 */
#ifndef WL_CLI_H
#define WL_CLI_H

#include "warplife.h"

#include <stdint.h>

enum {
    CLI_EXIT_OK = 0,        /* success */
    CLI_EXIT_USAGE = 1,     /* bad command line */
    CLI_EXIT_BAD_INPUT = 2, /* bad input file or rule */
    CLI_EXIT_RUNTIME = 3    /* runtime failure (memory, device, i/o, interrupted) */
};

int cli_run(int argc, char **argv);
int cli_convert(int argc, char **argv);
int cli_info(int argc, char **argv);
int cli_soup(int argc, char **argv);
int cli_bench(int argc, char **argv);
int cli_view(int argc, char **argv);

/* Prints "warplife: <message>\n" to stderr. */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Reads a pattern file for a command (*fmt may be NULL), with the reading limit
 * max_memory (0: the library's default).  A macrocell file's pattern is held to
 * WL_MACROCELL_PATTERN_MAX unless max_memory is given: past that the commands hand the
 * file to HashLife (WL_ERR_TOO_BIG tells them to). */
wl_status cli_read_pattern(const char *path, uint64_t max_memory, wl_pattern **p,
                           wl_format *fmt);
/* Maps a library status to an exit status (parse errors -> 2, invalid -> 1, ...). */
int cli_exit_status(wl_status s);
/* Parses an unsigned count exactly up to 2^64-1: decimal digits or "2^k" (k <= 63).
 * Returns 0 on success, -1 (with a message printed naming `what`) on error. */
int cli_parse_u64(const char *text, const char *what, uint64_t *out);
/* Parses "WxH" (or "N" for NxN) into positive sizes; 0 on success, -1 with a message. */
int cli_parse_size(const char *text, const char *what, uint64_t *w, uint64_t *h);
/* Monotonic wall-clock seconds. */
double cli_now(void);
/* Installs a SIGINT handler; cli_interrupted() then returns 1 after Ctrl-C.  Suitable as
 * a wl_poll_fn (the argument is ignored). */
void cli_install_sigint(void);
int cli_interrupted(void *unused);
/* This process's rank in an MPI job, read from the launcher's environment (Open MPI's
 * OMPI_COMM_WORLD_RANK, PMIx's PMIX_RANK, MPICH's PMI_RANK); 0 outside mpirun.  Ranks
 * other than 0 print no report and write no file (main.c, run.c), so that
 * `mpirun -np N warplife run --engine mpi:...` reports once. */
int cli_mpi_rank(void);

/* ---- additions shared by the subcommands (additive; see common.c) ---- */

/* Prints the library's last error (or the status name when there is no message) as
 * "warplife: <context>: <message>" and returns cli_exit_status(s). */
int cli_fail(wl_status s, const char *context);
/* Like cli_fail for errors while reading an input file: a missing or unreadable file is
 * bad input (exit 2), like a parse error. */
int cli_fail_input(wl_status s, const char *context);
/* Parses a double in [lo, hi]; 0 on success, -1 with a message naming `what`. */
int cli_parse_double(const char *text, const char *what, double lo, double hi, double *out);
/* Parses an int in [lo, hi]; 0 on success, -1 with a message naming `what`. */
int cli_parse_int(const char *text, const char *what, int lo, int hi, int *out);
/* Parses a byte count: digits with an optional K, M, G or T suffix (powers of 1024), e.g.
 * "512M"; 0 on success, -1 with a message naming `what` (also on overflow). */
int cli_parse_bytes(const char *text, const char *what, uint64_t *out);

/* A small long-option parser (no global state, no argv permutation).  Options are
 * "--name VALUE", "--name=VALUE", "-x VALUE", "-xVALUE" and flags "--name" / "-x"; "--"
 * ends the options.  Positional arguments may appear anywhere. */
typedef struct cli_option {
    const char *long_name; /* without the leading "--" */
    char short_name;       /* 0 if none */
    int has_arg;           /* 1 if the option takes a value */
    int id;                /* returned by cli_next_option; must be > 0 */
} cli_option;

typedef struct cli_args {
    int argc;
    char **argv;
    int index;      /* next argv element to look at (starts at 1: argv[0] is the name) */
    int options_done;
} cli_args;

void cli_args_init(cli_args *a, int argc, char **argv);
/* Returns the id of the next option (with *value set to its argument or NULL), 0 for a
 * positional argument (*value set to it), -1 at the end, or -2 after printing a message
 * about an unknown option or a missing value.  `opts` ends with an entry whose id is 0. */
int cli_next_option(cli_args *a, const cli_option *opts, const char **value);

#endif
