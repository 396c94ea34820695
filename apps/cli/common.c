/*
 * common.c - helpers the subcommands share: messages, exit statuses, exact number and size
 * parsing, a monotonic clock, Ctrl-C handling and a small long-option parser.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void cli_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("warplife: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

wl_status cli_read_pattern(const char *path, uint64_t max_memory, wl_pattern **p,
                           wl_format *fmt) {
    wl_read_opts ro = {.max_memory = max_memory};
    if (!max_memory && strcmp(path, "-") != 0 &&
        wl_format_from_path(path, NULL) == WL_FORMAT_MACROCELL)
        ro.max_memory = WL_MACROCELL_PATTERN_MAX;
    return wl_pattern_read_file_opts(path, &ro, p, fmt);
}

int cli_exit_status(wl_status s) {
    switch (s) {
    case WL_OK: return CLI_EXIT_OK;
    case WL_ERR_INVALID:      /* a bad option value reached the library */
    case WL_ERR_NOT_FOUND:    /* unknown engine or kernel name */
    case WL_ERR_UNSUPPORTED:  /* options ask for what the engine/format cannot do */
        return CLI_EXIT_USAGE;
    case WL_ERR_PARSE: return CLI_EXIT_BAD_INPUT;
    case WL_ERR_IO:
    case WL_ERR_NOMEM:
    case WL_ERR_TOO_BIG:
    case WL_ERR_UNAVAILABLE:
    case WL_ERR_DEVICE:
    case WL_ERR_INTERRUPTED: return CLI_EXIT_RUNTIME;
    }
    return CLI_EXIT_RUNTIME;
}

static void print_failure(wl_status s, const char *context) {
    const char *msg = wl_last_error();
    if (!msg || !*msg) msg = wl_status_str(s);
    if (context && *context)
        cli_error("%s: %s", context, msg);
    else
        cli_error("%s", msg);
}

int cli_fail(wl_status s, const char *context) {
    print_failure(s, context);
    return cli_exit_status(s);
}

int cli_fail_input(wl_status s, const char *context) {
    print_failure(s, context);
    if (s == WL_ERR_IO || s == WL_ERR_NOT_FOUND || s == WL_ERR_PARSE ||
        s == WL_ERR_UNSUPPORTED)
        return CLI_EXIT_BAD_INPUT;
    return cli_exit_status(s);
}

/* Parses decimal digits only (no sign, no spaces) exactly; -1 on overflow or junk. */
static int parse_decimal(const char *t, uint64_t *out) {
    uint64_t v = 0;
    if (!*t) return -1;
    for (; *t; t++) {
        if (*t < '0' || *t > '9') return -1;
        unsigned d = (unsigned)(*t - '0');
        if (v > (UINT64_MAX - d) / 10) return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

int cli_parse_u64(const char *text, const char *what, uint64_t *out) {
    const char *caret = strchr(text, '^');
    if (caret) {
        uint64_t k;
        if (caret - text != 1 || text[0] != '2' || parse_decimal(caret + 1, &k) || k > 63) {
            cli_error("%s: '%s' is not a count (use digits, or 2^k with k <= 63)", what, text);
            return -1;
        }
        *out = (uint64_t)1 << k;
        return 0;
    }
    if (parse_decimal(text, out)) {
        cli_error("%s: '%s' is not a count from 0 to 18446744073709551615", what, text);
        return -1;
    }
    return 0;
}

int cli_parse_size(const char *text, const char *what, uint64_t *w, uint64_t *h) {
    char buf[64];
    size_t n = strlen(text);
    if (n == 0 || n >= sizeof buf) {
        cli_error("%s: '%s' is not a size (use WxH, e.g. 1024x768, or N for NxN)", what, text);
        return -1;
    }
    memcpy(buf, text, n + 1);
    char *x = strchr(buf, 'x');
    if (!x) x = strchr(buf, 'X');
    const char *ws = buf, *hs = buf;
    if (x) {
        *x = '\0';
        hs = x + 1;
    }
    if (parse_decimal(ws, w) || parse_decimal(hs, h) || *w == 0 || *h == 0) {
        cli_error("%s: '%s' is not a size (use WxH with positive W and H, or N for NxN)", what,
                  text);
        return -1;
    }
    return 0;
}

int cli_parse_double(const char *text, const char *what, double lo, double hi, double *out) {
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (!*text || *end || errno || isnan(v) || v < lo || v > hi) {
        cli_error("%s: '%s' is not a number from %g to %g", what, text, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_parse_int(const char *text, const char *what, int lo, int hi, int *out) {
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (!*text || *end || errno || v < lo || v > hi) {
        cli_error("%s: '%s' is not an integer from %d to %d", what, text, lo, hi);
        return -1;
    }
    *out = (int)v;
    return 0;
}

double cli_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile sig_atomic_t interrupted;
static struct timespec interrupted_at; /* written and read only by the handler */

/* The first Ctrl-C sets the flag (engines notice it through their poll callback and stop at
 * a consistent generation).  A later one kills the process at once, in case an engine does
 * not poll, but only when it comes at least a second after the first: tools like timeout(1)
 * deliver one interruption twice (to the process and to its group) in quick succession.
 * clock_gettime, signal and raise are async-signal-safe. */
static void on_sigint(int sig) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!interrupted) {
        interrupted_at = now;
        interrupted = 1;
        return;
    }
    if (now.tv_sec - interrupted_at.tv_sec >= 2) { /* 1 to 2 seconds later */
        signal(sig, SIG_DFL);
        raise(sig);
    }
}

void cli_install_sigint(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
}

int cli_interrupted(void *unused) {
    (void)unused;
    return interrupted != 0;
}

void cli_args_init(cli_args *a, int argc, char **argv) {
    a->argc = argc;
    a->argv = argv;
    a->index = 1;
    a->options_done = 0;
}

int cli_next_option(cli_args *a, const cli_option *opts, const char **value) {
    *value = NULL;
    if (a->index >= a->argc) return -1;
    char *arg = a->argv[a->index++];
    if (a->options_done || arg[0] != '-' || arg[1] == '\0') { /* "-" is stdin/stdout */
        *value = arg;
        return 0;
    }
    if (strcmp(arg, "--") == 0) {
        a->options_done = 1;
        return cli_next_option(a, opts, value);
    }
    const cli_option *o = NULL;
    const char *inline_value = NULL;
    if (arg[1] == '-') {
        const char *name = arg + 2;
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        for (const cli_option *p = opts; p->id; p++)
            if (p->long_name && strlen(p->long_name) == len &&
                strncmp(p->long_name, name, len) == 0)
                o = p;
        if (!o) {
            cli_error("unknown option '%.*s' (see --help)", (int)(len + 2), arg);
            return -2;
        }
        if (eq) {
            if (!o->has_arg) {
                cli_error("option '--%s' takes no value", o->long_name);
                return -2;
            }
            inline_value = eq + 1;
        }
    } else {
        for (const cli_option *p = opts; p->id; p++)
            if (p->short_name && p->short_name == arg[1]) o = p;
        if (!o) {
            cli_error("unknown option '-%c' (see --help)", arg[1]);
            return -2;
        }
        if (arg[2]) {
            if (!o->has_arg) {
                cli_error("option '-%c' takes no value (write flags separately)", arg[1]);
                return -2;
            }
            inline_value = arg + 2;
        }
    }
    if (o->has_arg) {
        if (!inline_value) {
            if (a->index >= a->argc) {
                cli_error("option '%s' needs a value", arg);
                return -2;
            }
            inline_value = a->argv[a->index++];
        }
        *value = inline_value;
    }
    return o->id;
}

int cli_parse_bytes(const char *text, const char *what, uint64_t *out) {
    char digits[32];
    size_t n = strlen(text);
    unsigned shift = 0;
    if (n && n < sizeof digits) {
        memcpy(digits, text, n + 1);
        switch (digits[n - 1]) { /* binary multiples: K = 2^10, M = 2^20, G = 2^30, T = 2^40 */
        case 'k': case 'K': shift = 10; break;
        case 'm': case 'M': shift = 20; break;
        case 'g': case 'G': shift = 30; break;
        case 't': case 'T': shift = 40; break;
        }
        if (shift) digits[--n] = '\0';
    }
    uint64_t v;
    if (!n || n >= sizeof digits || parse_decimal(digits, &v) || (v << shift) >> shift != v) {
        cli_error("%s: '%s' is not a byte count (digits with an optional K, M, G or T suffix)",
                  what, text);
        return -1;
    }
    *out = v << shift;
    return 0;
}

int cli_mpi_rank(void) {
    static const char *const names[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *v = getenv(names[i]);
        if (v && *v) return atoi(v);
    }
    return 0;
}
