/*
 * rtc_cache.h - the on-disk cache of kernels compiled at run time (rtc_cache.c: NVRTC
 * cubins, the cpu engine's circuit objects): a 128-bit key
 * over everything that determines the compiled image, the cache directory, and verified
 * atomic reads and writes of one entry.  Plain C (no CUDA) so that a CPU test can exercise
 * it; C++ (nvcc) readers get extern "C".
 */
#ifndef WL_RTC_CACHE_H
#define WL_RTC_CACHE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Two independent 64-bit hashes (FNV-1a and a multiply-xorshift hash) of the key parts. */
typedef struct wl_rtc_key {
    uint64_t h[2];
} wl_rtc_key;

/* Starts an empty key. */
void wl_rtc_key_init(wl_rtc_key *k);
/* Adds one part (n bytes at data; data may be NULL when n == 0).  The part's length is
 * hashed before its bytes, so ("ab", "c") and ("a", "bc") give different keys. */
void wl_rtc_key_add(wl_rtc_key *k, const void *data, size_t n);
/* Adds a NUL-terminated string (NULL counts as the empty string) as one part. */
void wl_rtc_key_add_str(wl_rtc_key *k, const char *s);

/* The cache directory: $WL_CACHE_DIR if set and not empty, else $XDG_CACHE_HOME/warplife
 * (XDG_CACHE_HOME absolute), else $HOME/.cache/warplife; created (parents too) with mode
 * 0700 when missing.  Writes it to dir (cap bytes) and returns 1; returns 0 when the cache
 * is off (WL_CACHE_DIR=off), no directory can be named (no HOME) or made, or it is not a
 * writable directory of the effective user that group and others cannot write to, with the
 * reason in why (why_cap bytes; why may be NULL). */
int wl_rtc_cache_dir(char *dir, size_t cap, char *why, size_t why_cap);

/* The entry file of key k in dir: "<dir>/rule-<32 hex digits>.cubin".  Returns 1, or 0
 * when it does not fit in cap bytes. */
int wl_rtc_cache_path(const char *dir, const wl_rtc_key *k, char *path, size_t cap);
/* The same with another name: "<dir>/<prefix>-<32 hex digits>.<ext>". */
int wl_rtc_cache_path_kind(const char *dir, const wl_rtc_key *k, const char *prefix,
                           const char *ext, char *path, size_t cap);

/* Reads the entry at path.  Returns the payload (malloc'd, caller frees) and its length in
 * *n, or NULL when the file is missing, unreadable, or fails verification (magic, key,
 * length and payload checksum in its header must all match): a bad file is never
 * returned. */
void *wl_rtc_cache_read(const char *path, const wl_rtc_key *k, size_t *n);

/* Writes an entry (header + n bytes of data) to path atomically: a temporary file in the
 * same directory, then rename over path.  Returns 1 on success, 0 on any failure (the
 * temporary file is removed; path is left as it was). */
int wl_rtc_cache_write(const char *path, const wl_rtc_key *k, const void *data, size_t n);

#ifdef __cplusplus
}
#endif

#endif
