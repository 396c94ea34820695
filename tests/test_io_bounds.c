#define _POSIX_C_SOURCE 200809L
/*
 * test_io_bounds.c - reading hostile input costs bounded memory and little time: a gzip
 * bomb (1 GiB of zeros in about a megabyte, made here with zlib), endless zeros through a
 * pipe, /dev/zero, and endless valid cells (through a pipe and as a bomb) under a reading
 * limit.  The target: each is rejected in under a second, and the process's peak memory
 * grows by at most the pattern's own size (nothing, or the limit) plus 64 MB.
 *
 * Each read runs in a child process, which measures its own peak resident size with
 * getrusage before and after (a forked child starts with the parent's resident size as
 * its peak, and the parent stays small), its wall time, and sends them back through a
 * pipe.  Endless streams come from a grandchild writing into a pipe that becomes the
 * reader's standard input; it dies of SIGPIPE when the reader closes its end.  alarm()
 * in every child keeps a regression from hanging the suite: a child still reading after
 * 20 s is killed and reported.
 */
#include "warplife.h"
#include "wltest.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef WL_HAVE_ZLIB
#include <zlib.h>
#endif

/* The targets of the issue: memory beyond the pattern's own, and time per rejection. */
#define SLACK_BYTES ((uint64_t)64 << 20)
#define MAX_SECONDS 1.0
/* Sanitizer builds run several times slower (the 16 MiB cases took 1.26 s under ASan on a
 * 2.0 GHz Zen 1); what the time check guards against, reading the whole gigabyte of a
 * bomb, would still take many times longer than this. */
#if defined(__SANITIZE_ADDRESS__)
#define TIME_SCALE 5.0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TIME_SCALE 5.0
#endif
#endif
#ifndef TIME_SCALE
#define TIME_SCALE 1.0
#endif
/* A child reading for longer than this is killed (a hang, not a slow read). */
#define ALARM_SECONDS 20
/* The reading limit of the cases with endless valid cells. */
#define LIMIT ((uint64_t)16 << 20)

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* What a child reports. */
typedef struct outcome {
    int status; /* the wl_status of the read, or -1 when the child died */
    double seconds;
    long rss_before_kb, rss_peak_kb;
    char msg[400];
} outcome;

/* A read to measure: returns its status; the pattern (if any) is freed by the caller. */
typedef wl_status (*read_job)(const void *arg, wl_pattern **p);

static outcome measure(read_job job, const void *arg) {
    outcome o;
    memset(&o, 0, sizeof o);
    o.status = -1;
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(o.msg, sizeof o.msg, "pipe: %s", strerror(errno));
        return o;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        alarm(ALARM_SECONDS);
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        o.rss_before_kb = ru.ru_maxrss;
        wl_pattern *p = NULL;
        double t0 = now();
        o.status = (int)job(arg, &p);
        o.seconds = now() - t0;
        getrusage(RUSAGE_SELF, &ru);
        o.rss_peak_kb = ru.ru_maxrss;
        snprintf(o.msg, sizeof o.msg, "%s", wl_last_error());
        wl_pattern_free(p);
        ssize_t w = write(fds[1], &o, sizeof o);
        _exit(w == (ssize_t)sizeof o ? 0 : 1);
    }
    close(fds[1]);
    size_t got = 0;
    while (pid > 0 && got < sizeof o) {
        ssize_t r = read(fds[0], (char *)&o + got, sizeof o - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(fds[0]);
    int st = 0;
    if (pid > 0) waitpid(pid, &st, 0);
    if (got != sizeof o) {
        memset(&o, 0, sizeof o);
        o.status = -1;
        snprintf(o.msg, sizeof o.msg, "the child died (%s %d)",
                 WIFSIGNALED(st) ? "signal" : "exit status",
                 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
    }
    return o;
}

/* Checks an outcome against the targets; `pattern_bytes` is what the pattern itself may
 * have taken. */
static void check(const char *what, const outcome *o, wl_status want, const char *where,
                  uint64_t pattern_bytes) {
    double grew = (double)(o->rss_peak_kb - o->rss_before_kb) * 1024.0;
    printf("  %-44s %s in %.3f s, peak memory +%.1f MB (%.1f MB in all)\n", what,
           o->status < 0 ? "died" : wl_status_str((wl_status)o->status), o->seconds,
           grew / 1e6, (double)o->rss_peak_kb * 1024.0 / 1e6);
    WL_CHECK(o->status == (int)want, "%s: status %d, want %s (%s)", what, o->status,
             wl_status_str(want), o->msg);
    if (where)
        WL_CHECK(strstr(o->msg, where) != NULL, "%s: message '%s' lacks '%s'", what, o->msg,
                 where);
    WL_CHECK(o->seconds < MAX_SECONDS * TIME_SCALE, "%s: %.3f s", what, o->seconds);
    WL_CHECK(grew <= (double)(pattern_bytes + SLACK_BYTES), "%s: memory grew by %.1f MB", what,
             grew / 1e6);
}

/* ---- endless streams through a pipe ---------------------------------------------------- */

/* An endless input: `head`, then unit[0..unit_len) repeated for ever. */
typedef struct stream {
    const char *head, *unit;
    size_t unit_len;
    uint64_t limit; /* the reading limit (0 = default) */
} stream;

/* Starts a writer of the stream into a pipe; returns its pid and the read end in *rfd. */
static pid_t start_writer(const stream *st, int *rfd) {
    int fds[2];
    if (pipe(fds) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        alarm(ALARM_SECONDS);
        signal(SIGPIPE, SIG_DFL);
        static char block[1 << 16];
        size_t un = st->unit_len, n = 0;
        while (n + un <= sizeof block) {
            memcpy(block + n, st->unit, un);
            n += un;
        }
        if (write(fds[1], st->head, strlen(st->head)) < 0) _exit(0);
        for (;;)
            if (write(fds[1], block, n) < 0) _exit(0); /* EPIPE when SIGPIPE is ignored */
    }
    close(fds[1]);
    *rfd = fds[0];
    return pid;
}

/* Reads the stream as standard input ("-"), then stops the writer. */
static wl_status read_stream(const void *arg, wl_pattern **p) {
    const stream *st = arg;
    int rfd;
    pid_t w = start_writer(st, &rfd);
    if (w < 0) return WL_ERR_IO;
    dup2(rfd, STDIN_FILENO);
    close(rfd);
    wl_read_opts o = {.max_memory = st->limit};
    wl_status s = wl_pattern_read_file_opts("-", &o, p, NULL);
    close(STDIN_FILENO);
    kill(w, SIGKILL);
    waitpid(w, NULL, 0);
    return s;
}

static wl_status read_path(const void *arg, wl_pattern **p) {
    return wl_pattern_read_file(arg, p);
}

/* ---- gzip bombs ---------------------------------------------------------------------- */

typedef struct blob {
    const char *name;
    unsigned char *data;
    size_t len;
    uint64_t limit;
} blob;

static wl_status read_blob(const void *arg, wl_pattern **p) {
    const blob *b = arg;
    wl_read_opts o = {.max_memory = b->limit};
    return wl_pattern_read_mem_opts(b->data, b->len, b->name, &o, p, NULL);
}

#ifdef WL_HAVE_ZLIB
/* A gzip bomb: `members` gzip members, each `mib` MiB of unit[0..un) repeated, deflated once and
 * concatenated (which gzip readers read as one stream). */
static blob make_bomb(const char *name, const char *unit, size_t un, int mib, int members) {
    blob b = {name, NULL, 0, 0};
    static unsigned char in[1 << 20];
    for (size_t i = 0; i < sizeof in; i++) in[i] = (unsigned char)unit[i % un];
    size_t cap = (size_t)mib << 12, n = 0; /* zlib's worst ratio is about 1:1000 */
    unsigned char *one = malloc(cap);
    z_stream z;
    memset(&z, 0, sizeof z);
    if (!one || deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(one);
        return b;
    }
    for (int k = 0; k < mib; k++) {
        z.next_in = in;
        z.avail_in = sizeof in;
        int flush = k + 1 == mib ? Z_FINISH : Z_NO_FLUSH;
        do {
            z.next_out = one + n;
            z.avail_out = (uInt)(cap - n);
            deflate(&z, flush);
            n = cap - z.avail_out;
        } while (z.avail_in || (flush == Z_FINISH && z.avail_out == 0));
    }
    deflateEnd(&z);
    b.data = malloc(n * (size_t)members);
    if (b.data) {
        for (int m = 0; m < members; m++) memcpy(b.data + n * (size_t)m, one, n);
        b.len = n * (size_t)members;
    }
    free(one);
    return b;
}
#endif

int main(void) {
    signal(SIGPIPE, SIG_IGN); /* this process only reads pipes; children reset it */
    printf("reading hostile input (targets: under %.0f s, memory: pattern + %llu MB):\n",
           MAX_SECONDS, (unsigned long long)(SLACK_BYTES >> 20));
    outcome o;
#ifdef WL_HAVE_ZLIB
    blob bomb = make_bomb("bomb.rle.gz", "\0", 1, 16, 64); /* 1 GiB of zeros */
    WL_CHECK(bomb.data != NULL, "making the bomb");
    if (bomb.data) {
        printf("  (gzip bomb: %zu bytes inflating to 1 GiB of zeros)\n", bomb.len);
        o = measure(read_blob, &bomb);
        check("gzip bomb, from memory", &o, WL_ERR_PARSE,
              "bomb.rle.gz:1:1: not a pattern file", 0);
        char path[] = "/tmp/wl_test_io_bounds_XXXXXX";
        int fd = mkstemp(path);
        WL_CHECK(fd >= 0, "mkstemp");
        if (fd >= 0) {
            close(fd);
            WL_CHECK_OK(wl_write_file_atomic(path, bomb.data, bomb.len));
            o = measure(read_path, path);
            check("gzip bomb, from a file", &o, WL_ERR_PARSE, ":1:1: not a pattern file", 0);
            unlink(path);
        }
        free(bomb.data);
    }
    /* Valid cells without end, compressed: the limit stops them. */
    blob cells = make_bomb("cells.rle.gz", "o$\n", 3, 16, 8); /* 128 MiB of one-cell rows */
    cells.limit = LIMIT;
    if (cells.data) {
        o = measure(read_blob, &cells);
        check("gzip bomb of cells, 16 MiB limit", &o, WL_ERR_TOO_BIG,
              "more than the reading limit of 16 MiB", LIMIT);
        free(cells.data);
    }
#else
    printf("  note: no zlib in this build: gzip bombs skipped\n");
#endif
    if (access("/dev/zero", R_OK) == 0) {
        o = measure(read_path, "/dev/zero");
        check("/dev/zero", &o, WL_ERR_PARSE, "/dev/zero:1:1: not a pattern file", 0);
    }
    stream zeros = {"\n\n", "\0", 1, 0};
    o = measure(read_stream, &zeros);
    check("a pipe of endless zeros", &o, WL_ERR_PARSE, "<stdin>:3:1: not a pattern file", 0);
    stream rows = {"x = 1, y = 1\n", "o$", 2, LIMIT};
    o = measure(read_stream, &rows);
    check("a pipe of endless rows, 16 MiB limit", &o, WL_ERR_TOO_BIG,
          "more than the reading limit of 16 MiB", LIMIT);
    stream comments = {"", "#C an endless comment\n", 22, LIMIT};
    o = measure(read_stream, &comments);
    check("a pipe of endless comments, 16 MiB limit", &o, WL_ERR_TOO_BIG,
          "reading limit of 16 MiB", LIMIT);
    stream one_line = {"#C ", "and on and on ", 14, 0};
    o = measure(read_stream, &one_line);
    check("a pipe of one endless comment line", &o, WL_ERR_PARSE, "line longer than 1 MiB", 0);
    stream after_end = {"x = 2, y = 1\n2o!", "never read ", 11, 0};
    o = measure(read_stream, &after_end);
    check("a pipe that goes on after '!'", &o, WL_OK, NULL, 0);
    return wl_test_finish("test_io_bounds");
}
