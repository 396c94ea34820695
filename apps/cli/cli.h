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

#endif
