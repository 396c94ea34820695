#define _POSIX_C_SOURCE 200809L
/*
 * bench_io.c - pattern-file throughput: a big random soup is written to RLE in memory and
 * to a file, read back from memory and from the file, checked cell for cell, and each step
 * is reported in MB/s of RLE text.  With --all, macrocell and gzip'd RLE are measured too.
 *
 *   bench_io [--size N] [--density D] [--dir DIR] [--all]
 *
 * Defaults: a 12500 x 12500 soup at density 0.3 (about 100 MB of RLE), files in /tmp.
 */
#include "warplife.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int fail(const char *what, wl_status s) {
    fprintf(stderr, "bench_io: %s: %s (%s)\n", what, wl_status_str(s), wl_last_error());
    return 1;
}

/* CPU time of this process (less disturbed than wall time on a shared machine). */
static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_mark; /* cpu_now() when the current step started */

static void report(const char *what, size_t bytes, double secs) {
    double cpu = cpu_now() - cpu_mark;
    printf("%-28s %8.1f MB in %7.3f s = %7.1f MB/s wall, %7.1f MB/s cpu\n", what,
           (double)bytes / 1e6, secs, (double)bytes / 1e6 / secs, (double)bytes / 1e6 / cpu);
}

/* Writes, reads back and checks one format; returns nonzero on failure. */
static int run_format(const wl_pattern *p, wl_format fmt, int gz, const char *path) {
    char label[64];
    const char *name = wl_format_name(fmt);
    char *buf;
    size_t len;
    cpu_mark = cpu_now();
    double t0 = now();
    wl_status s = wl_pattern_write_mem(p, fmt, gz, &buf, &len);
    double t1 = now();
    if (s) return fail("write_mem", s);
    snprintf(label, sizeof label, "%s%s write (memory)", name, gz ? ".gz" : "");
    report(label, len, t1 - t0);

    wl_pattern *q = NULL;
    cpu_mark = cpu_now();
    t0 = now();
    s = wl_pattern_read_mem(buf, len, path, &q);
    t1 = now();
    if (s) return fail("read_mem", s);
    snprintf(label, sizeof label, "%s%s read (memory)", name, gz ? ".gz" : "");
    report(label, len, t1 - t0);
    if (!wl_pattern_equal_cells(p, q)) {
        fprintf(stderr, "bench_io: %s read back differs\n", name);
        return 1;
    }
    wl_pattern_free(q);
    free(buf);

    cpu_mark = cpu_now();
    t0 = now();
    s = wl_pattern_write_file(p, path, fmt, gz);
    t1 = now();
    if (s) return fail("write_file", s);
    snprintf(label, sizeof label, "%s%s write (file)", name, gz ? ".gz" : "");
    report(label, len, t1 - t0);

    cpu_mark = cpu_now();
    t0 = now();
    s = wl_pattern_read_file(path, &q);
    t1 = now();
    if (s) return fail("read_file", s);
    snprintf(label, sizeof label, "%s%s read (file)", name, gz ? ".gz" : "");
    report(label, len, t1 - t0);
    int ok = wl_pattern_equal_cells(p, q);
    wl_pattern_free(q);
    unlink(path);
    if (!ok) {
        fprintf(stderr, "bench_io: %s file read back differs\n", name);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    uint64_t size = 12500;
    double density = 0.3;
    const char *dir = "/tmp";
    int all = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) size = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--density") == 0 && i + 1 < argc) density = atof(argv[++i]);
        else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) dir = argv[++i];
        else if (strcmp(argv[i], "--all") == 0) all = 1;
        else {
            fprintf(stderr, "usage: bench_io [--size N] [--density D] [--dir DIR] [--all]\n");
            return 2;
        }
    }
    wl_pattern *p = wl_pattern_new();
    if (!p) return fail("pattern", WL_ERR_NOMEM);
    /* Negative top-left so that the #CXRLE position path is exercised too. */
    wl_rect r = {-(int64_t)(size / 2), -(int64_t)(size / 2), size, size};
    double t0 = now();
    wl_status s = wl_pattern_random(p, &r, density, 20261122);
    if (s) return fail("random", s);
    printf("soup %llu x %llu at density %.2f: %llu live cells (made in %.2f s)\n",
           (unsigned long long)size, (unsigned long long)size, density,
           (unsigned long long)wl_pattern_population(p), now() - t0);
    char path[512];
    int bad = 0;
    snprintf(path, sizeof path, "%s/bench_io_%d.rle", dir, (int)getpid());
    bad |= run_format(p, WL_FORMAT_RLE, 0, path);
    if (all) {
        snprintf(path, sizeof path, "%s/bench_io_%d.mc", dir, (int)getpid());
        bad |= run_format(p, WL_FORMAT_MACROCELL, 0, path);
        snprintf(path, sizeof path, "%s/bench_io_%d.rle.gz", dir, (int)getpid());
        wl_status g = WL_OK;
        char *tmp;
        size_t tl;
        wl_pattern *one = wl_pattern_new();
        g = wl_pattern_write_mem(one, WL_FORMAT_RLE, 1, &tmp, &tl);
        wl_pattern_free(one);
        if (g == WL_OK) {
            free(tmp);
            bad |= run_format(p, WL_FORMAT_RLE, 1, path);
        } else {
            printf("gzip: skipped (%s)\n", wl_last_error());
        }
    }
    wl_pattern_free(p);
    printf(bad ? "FAILED\n" : "all read-backs equal\n");
    return bad;
}
