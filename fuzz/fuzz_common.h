/*
 * fuzz_common.h - shared by the libFuzzer targets: runs one reader on the input and, when
 * it succeeds on a pattern small enough, checks that writing the pattern and reading it
 * back gives the same cells (an oracle stronger than "did not crash"); and reads the
 * input a second time through a window of a few bytes, which must give the same outcome
 * (the readers stream, and where a window ends must not matter).  A mismatch traps,
 * which libFuzzer reports as a crash with the input saved.
 */
#ifndef WL_FUZZ_COMMON_H
#define WL_FUZZ_COMMON_H

#include "internal.h"
#include "io_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Round trips only for patterns whose storage is at most this many words (8 MiB), so
 * that each input stays fast. */
#define FUZZ_ROUNDTRIP_WORDS ((uint64_t)1 << 20)

/* 1 if q holds p's cells moved so that p's bounding box starts at (0, 0). */
static int fuzz_equal_translated(const wl_pattern *p, const wl_pattern *q) {
    wl_rect a, b;
    int ea = wl_pattern_bounds(p, &a), eb = wl_pattern_bounds(q, &b);
    if (ea != eb) return 0;
    if (!ea) return 1;
    if (b.x || b.y || a.w != b.w || a.h != b.h) return 0;
    size_t n = (size_t)((a.w + 63) / 64);
    uint64_t *ra = malloc(n * 8), *rb = malloc(n * 8);
    int eq = ra && rb;
    for (uint64_t y = 0; eq && y < a.h; y++) {
        wl_pattern_get_row(p, a.x, a.y + (int64_t)y, a.w, ra);
        wl_pattern_get_row(q, 0, (int64_t)y, a.w, rb);
        eq = memcmp(ra, rb, n * 8) == 0;
    }
    free(ra);
    free(rb);
    return eq;
}

/* Writes p in fmt, reads it back, traps if the cells differ. */
static void fuzz_roundtrip(const wl_pattern *p, wl_format fmt) {
    /* Plaintext is a picture of the bounding box; the other writers follow the tiles. */
    wl_rect b;
    if (!wl_pattern_bounds(p, &b)) b.w = b.h = 0;
    if (fmt == WL_FORMAT_PLAINTEXT ? (b.w / 64 + 1) * b.h > FUZZ_ROUNDTRIP_WORDS
                                   : wl_pattern_storage_bytes(p) / 8 > FUZZ_ROUNDTRIP_WORDS)
        return;
    char *buf;
    size_t len;
    wl_status s = wl_pattern_write_mem(p, fmt, 0, &buf, &len);
    if (s == WL_ERR_TOO_BIG || s == WL_ERR_NOMEM) return; /* e.g. macrocell beyond 2^62 */
    if (s != WL_OK) __builtin_trap();
    wl_pattern *q = NULL;
    s = wl_pattern_read_mem(buf, len, "roundtrip", &q);
    free(buf);
    if (s == WL_ERR_NOMEM) return;
    if (s != WL_OK) __builtin_trap();
    int eq =
        fmt == WL_FORMAT_PLAINTEXT ? fuzz_equal_translated(p, q) : wl_pattern_equal_cells(p, q);
    wl_pattern_free(q);
    if (!eq) __builtin_trap();
}

typedef wl_status (*fuzz_reader)(const char *s, size_t len, const char *name, wl_pattern *p);

/* Reads the input again through a small window (1..16 bytes, chosen by the input's last
 * byte) and traps unless the outcome is the one of the default window: the same status,
 * the same message, or the same cells, rule and comments.  `first` is the first read's
 * pattern (NULL on failure) and `msg` its message. */
static void fuzz_same_in_windows(fuzz_reader rd, const uint8_t *data, size_t size,
                                 wl_status first_status, const wl_pattern *first,
                                 const char *msg) {
    char w[8];
    snprintf(w, sizeof w, "%u", 1u + (size ? data[size - 1] % 16u : 0u));
    setenv("WL_IO_WINDOW", w, 1);
    wl_pattern *q = wl_pattern_new();
    wl_status s = q ? rd((const char *)data, size, "fuzz", q) : WL_ERR_NOMEM;
    unsetenv("WL_IO_WINDOW");
    if (q && s != WL_ERR_NOMEM && first_status != WL_ERR_NOMEM) {
        if (s != first_status) __builtin_trap();
        if (s && strcmp(msg, wl_last_error()) != 0) __builtin_trap();
        if (!s && (!wl_pattern_equal_cells(first, q) ||
                   !wl_rule_equal(wl_pattern_rule(first), wl_pattern_rule(q)) ||
                   strcmp(wl_pattern_comments(first), wl_pattern_comments(q)) != 0))
            __builtin_trap();
    }
    wl_pattern_free(q);
}

/* Runs one reader; on success round-trips through `fmt`; then the window check. */
static void fuzz_one(fuzz_reader rd, wl_format fmt, const uint8_t *data, size_t size) {
    static char msg[1024];
    wl_pattern *p = wl_pattern_new();
    if (!p) return;
    wl_status s = rd((const char *)data, size, "fuzz", p);
    snprintf(msg, sizeof msg, "%s", wl_last_error());
    fuzz_same_in_windows(rd, data, size, s, p, msg);
    if (s == WL_OK) fuzz_roundtrip(p, fmt);
    wl_pattern_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
