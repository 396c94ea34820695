/*
 * rtc_cache.c - a persistent on-disk cache of kernels compiled at run time: NVRTC images
 * (cubins) of the CUDA engine, so that a rule's wave kernel is compiled once per machine
 * instead of once per process (compiling costs 3-5 s: NVVM optimisation and ptxas over one
 * large unrolled kernel, see cuda_rtc.cu), and the cpu engine's circuit objects (shared
 * objects built by the system C compiler, see src/engine/cpu/circuit_jit.c).
 *
 * Key: 128 bits, two independent 64-bit hashes over the length-prefixed parts the caller
 * adds (cuda_rtc.cu adds a format tag, the full generated source text, every compile option,
 * the target arch, the NVRTC version and the driver version).  h[0] is FNV-1a 64; h[1] is a
 * multiply-xorshift hash (xor the byte, multiply by an odd 64-bit constant, fold the high
 * half down), whose state update shares nothing with FNV's.  An accidental collision of both
 * needs ~2^64 distinct entries; nobody forges these files (they sit in the user's own 0700
 * directory), so a non-cryptographic hash is enough.  Each part's length is hashed before
 * its bytes so that parts cannot slide into each other.
 *
 * File: "<dir>/rule-<h0 hex><h1 hex>.cubin" (a wave or lop3p kernel of one rule; the cpu
 * engine's are "<dir>/cpu-<hex>.so", wrapped the same way), a 48-byte
 * header then the payload.  Header, little endian whatever the host: magic "WLRTCv1\0" (8
 * bytes), key h[0], h[1], payload length, and the payload's two hashes (8 bytes each).  A
 * read checks all of them and the file's size; any mismatch (truncation, a flipped byte, a
 * foreign file) makes the read return nothing, and the caller recompiles and overwrites the
 * entry.
 *
 * Writes are atomic: the entry goes to a mkstemp file in the same directory, which is then
 * renamed over the final name, so a reader (another process) sees either no file, the old
 * one, or the complete new one.  No fsync: a file cut short by a crash fails verification.
 *
 * Directory: $WL_CACHE_DIR ("off" disables the cache), else $XDG_CACHE_HOME/warplife, else
 * $HOME/.cache/warplife, made with mode 0700; refused when it belongs to another user or
 * others may write to it (a planted cubin would run on the GPU).  Every failure here is
 * silent (the caller notes it under verbose) and only means compiling again.
 */
#define _POSIX_C_SOURCE 200809L
#include "rtc_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FNV_OFFSET 0xcbf29ce484222325ull /* FNV-1a 64 offset basis */
#define FNV_PRIME 0x100000001b3ull       /* FNV-1a 64 prime */
#define MX_SEED 0x6a09e667f3bcc908ull    /* hash 2's start: frac(sqrt(2)), any odd constant */
#define MX_MUL 0xff51afd7ed558ccdull     /* hash 2's multiplier (MurmurHash3's fmix constant) */

#define HDR_BYTES 48                     /* magic + 2 key words + length + 2 checksums */
#define MAX_PAYLOAD (256ull << 20)       /* a wave cubin is ~0.4 MB; larger = not ours */
static const char MAGIC[8] = {'W', 'L', 'R', 'T', 'C', 'v', '1', 0};

/* ---- hashing ---- */

static void hash_bytes(uint64_t h[2], const unsigned char *p, size_t n) {
    uint64_t a = h[0], b = h[1];
    for (size_t i = 0; i < n; i++) {
        a = (a ^ p[i]) * FNV_PRIME;
        b = (b ^ p[i]) * MX_MUL;
        b ^= b >> 32;
    }
    h[0] = a;
    h[1] = b;
}

static void put_u64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

void wl_rtc_key_init(wl_rtc_key *k) {
    k->h[0] = FNV_OFFSET;
    k->h[1] = MX_SEED;
}

void wl_rtc_key_add(wl_rtc_key *k, const void *data, size_t n) {
    unsigned char len[8];
    put_u64(len, (uint64_t)n);
    hash_bytes(k->h, len, sizeof len);
    if (n) hash_bytes(k->h, (const unsigned char *)data, n);
}

void wl_rtc_key_add_str(wl_rtc_key *k, const char *s) {
    wl_rtc_key_add(k, s ? s : "", s ? strlen(s) : 0);
}

/* The payload's checksum: both hashes over its bytes from the empty-key start. */
static void payload_sum(const void *data, size_t n, uint64_t out[2]) {
    out[0] = FNV_OFFSET;
    out[1] = MX_SEED;
    hash_bytes(out, (const unsigned char *)data, n);
}

/* ---- the directory ---- */

static void say(char *why, size_t cap, const char *fmt, const char *arg) {
    if (why && cap) snprintf(why, cap, fmt, arg);
}

/* mkdir -p with mode 0700 for the directories it creates; 1 when path is a directory. */
static int make_dirs(char *path) {
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        int bad = mkdir(path, 0700) != 0 && errno != EEXIST;
        *p = '/';
        if (bad) return 0;
    }
    if (mkdir(path, 0700) != 0 && errno != EEXIST) return 0;
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int wl_rtc_cache_dir(char *dir, size_t cap, char *why, size_t why_cap) {
    const char *env = getenv("WL_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (env && *env) {
        if (strcmp(env, "off") == 0) {
            say(why, why_cap, "%s", "WL_CACHE_DIR=off");
            return 0;
        }
        n = snprintf(dir, cap, "%s", env);
    } else if (xdg && xdg[0] == '/') {
        n = snprintf(dir, cap, "%s/warplife", xdg);
    } else if (home && home[0] == '/') {
        n = snprintf(dir, cap, "%s/.cache/warplife", home);
    } else {
        say(why, why_cap, "%s", "no WL_CACHE_DIR, XDG_CACHE_HOME or HOME");
        return 0;
    }
    if (n < 0 || (size_t)n >= cap) {
        say(why, why_cap, "%s", "cache directory name too long");
        return 0;
    }
    while (n > 1 && dir[n - 1] == '/') dir[--n] = 0; /* "a/b/" -> "a/b" */
    if (!make_dirs(dir)) {
        say(why, why_cap, "cannot create directory %s", dir);
        return 0;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        say(why, why_cap, "directory %s is not writable", dir);
        return 0;
    }
    /* a cached cubin runs on the GPU as is: a directory someone else can write to could be
     * planted with one (the checksum only catches damage), so such a directory is refused */
    struct stat st;
    if (stat(dir, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
        say(why, why_cap, "directory %s is not private (another owner, or group/other "
                          "writable)", dir);
        return 0;
    }
    return 1;
}

int wl_rtc_cache_path(const char *dir, const wl_rtc_key *k, char *path, size_t cap) {
    return wl_rtc_cache_path_kind(dir, k, "rule", "cubin", path, cap);
}

int wl_rtc_cache_path_kind(const char *dir, const wl_rtc_key *k, const char *prefix,
                           const char *ext, char *path, size_t cap) {
    int n = snprintf(path, cap, "%s/%s-%016llx%016llx.%s", dir, prefix,
                     (unsigned long long)k->h[0], (unsigned long long)k->h[1], ext);
    return n >= 0 && (size_t)n < cap;
}

/* ---- entries ---- */

void *wl_rtc_cache_read(const char *path, const wl_rtc_key *k, size_t *n) {
    *n = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char hdr[HDR_BYTES];
    unsigned char *data = NULL;
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < HDR_BYTES ||
        fread(hdr, 1, HDR_BYTES, f) != HDR_BYTES)
        goto bad;
    uint64_t len = get_u64(hdr + 24);
    if (memcmp(hdr, MAGIC, sizeof MAGIC) != 0 || get_u64(hdr + 8) != k->h[0] ||
        get_u64(hdr + 16) != k->h[1] || len == 0 || len > MAX_PAYLOAD ||
        (uint64_t)st.st_size != HDR_BYTES + len)
        goto bad;
    data = (unsigned char *)malloc((size_t)len);
    if (!data || fread(data, 1, (size_t)len, f) != (size_t)len) goto bad;
    uint64_t sum[2];
    payload_sum(data, (size_t)len, sum);
    if (sum[0] != get_u64(hdr + 32) || sum[1] != get_u64(hdr + 40)) goto bad;
    fclose(f);
    *n = (size_t)len;
    return data;
bad:
    free(data);
    fclose(f);
    return NULL;
}

/* Writes all n bytes to fd; 1 on success. */
static int write_all(int fd, const void *data, size_t n) {
    const unsigned char *p = (const unsigned char *)data;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return 0;
        p += w;
        n -= (size_t)w;
    }
    return 1;
}

int wl_rtc_cache_write(const char *path, const wl_rtc_key *k, const void *data, size_t n) {
    if (n == 0 || (uint64_t)n > MAX_PAYLOAD) return 0;
    size_t plen = strlen(path);
    char *tmp = (char *)malloc(plen + 16);
    if (!tmp) return 0;
    snprintf(tmp, plen + 16, "%s.tmp-XXXXXX", path);
    int fd = mkstemp(tmp); /* mode 0600, in path's directory */
    if (fd < 0) {
        free(tmp);
        return 0;
    }
    unsigned char hdr[HDR_BYTES];
    uint64_t sum[2];
    payload_sum(data, n, sum);
    memcpy(hdr, MAGIC, sizeof MAGIC);
    put_u64(hdr + 8, k->h[0]);
    put_u64(hdr + 16, k->h[1]);
    put_u64(hdr + 24, (uint64_t)n);
    put_u64(hdr + 32, sum[0]);
    put_u64(hdr + 40, sum[1]);
    int ok = write_all(fd, hdr, sizeof hdr) && write_all(fd, data, n);
    ok = close(fd) == 0 && ok;
    ok = ok && rename(tmp, path) == 0;
    if (!ok) unlink(tmp);
    free(tmp);
    return ok;
}
