/*
 * test_rtc_cache.c - the on-disk cache of NVRTC-compiled kernels (src/engine/cuda/rtc_cache.c)
 * without a GPU: the key (same parts, same key; any changed byte or moved part boundary, a
 * different key), the directory rules (WL_CACHE_DIR, "off", XDG_CACHE_HOME, HOME, mode 0700,
 * a group/world-writable directory refused, an impossible directory), and entries: a random payload written and read back byte for
 * byte, then rejected after every kind of damage (each header byte flipped, random payload
 * bytes flipped, truncations, an appended byte, a foreign key), overwritten atomically with
 * no temporary file left behind.  Everything happens under a fresh mkdtemp directory.
 */
#define _POSIX_C_SOURCE 200809L
#include "rtc_cache.h"
#include "wltest.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HDR 48 /* rtc_cache.c's header size (magic, key, length, two checksums) */

static unsigned long long rng;
static unsigned long long next_rand(void) { /* xorshift64* */
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ull;
}

static void key_of(wl_rtc_key *k, const char *src, const char *opt) {
    wl_rtc_key_init(k);
    wl_rtc_key_add_str(k, src);
    wl_rtc_key_add_str(k, opt);
}

static int same_key(const wl_rtc_key *a, const wl_rtc_key *b) {
    return a->h[0] == b->h[0] && a->h[1] == b->h[1];
}

static unsigned char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    unsigned char *b = malloc((size_t)len + 1);
    if (b && fread(b, 1, (size_t)len, f) != (size_t)len) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *n = (size_t)len;
    return b;
}

static int spit(const char *path, const unsigned char *b, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    int ok = fwrite(b, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* 1 when reading path with key k gives exactly want (n bytes). */
static int reads_back(const char *path, const wl_rtc_key *k, const unsigned char *want,
                      size_t n) {
    size_t got_n = 0;
    unsigned char *got = wl_rtc_cache_read(path, k, &got_n);
    int ok = got && got_n == n && memcmp(got, want, n) == 0;
    free(got);
    return ok;
}

static int rejected(const char *path, const wl_rtc_key *k) {
    size_t n = 1;
    void *p = wl_rtc_cache_read(path, k, &n);
    free(p);
    return p == NULL && n == 0;
}

static void test_key(void) {
    wl_rtc_key a, b;
    char src[256];
    for (size_t i = 0; i < sizeof src - 1; i++) src[i] = (char)('!' + next_rand() % 90);
    src[sizeof src - 1] = 0;
    key_of(&a, src, "--gpu-architecture=sm_90");
    key_of(&b, src, "--gpu-architecture=sm_90");
    WL_CHECK(same_key(&a, &b), "same parts, different keys");
    key_of(&b, src, "--gpu-architecture=sm_89");
    WL_CHECK(!same_key(&a, &b), "the arch option does not change the key");
    int differ = 1;
    for (int t = 0; t < 64; t++) { /* one byte of the source changed */
        char mod[256];
        memcpy(mod, src, sizeof mod);
        size_t at = next_rand() % (sizeof src - 1);
        mod[at] = (char)(mod[at] == 'x' ? 'y' : 'x');
        key_of(&b, mod, "--gpu-architecture=sm_90");
        differ &= a.h[0] != b.h[0] && a.h[1] != b.h[1];
    }
    WL_CHECK(differ, "a changed source byte leaves a hash of the key unchanged");
    wl_rtc_key c, d;
    wl_rtc_key_init(&c);
    wl_rtc_key_add_str(&c, "ab");
    wl_rtc_key_add_str(&c, "c");
    wl_rtc_key_init(&d);
    wl_rtc_key_add_str(&d, "a");
    wl_rtc_key_add_str(&d, "bc");
    WL_CHECK(!same_key(&c, &d), "moving a part boundary does not change the key");
    char path[256];
    WL_CHECK(wl_rtc_cache_path("/x", &a, path, sizeof path), "path does not fit");
    WL_CHECK(strlen(path) == strlen("/x/rule-.cubin") + 32 && strncmp(path, "/x/rule-", 8) == 0,
             "unexpected entry name %s", path);
    WL_CHECK(!wl_rtc_cache_path("/x", &a, path, 20), "a path too long for its buffer fit");
}

static void test_dir(const char *root) {
    char dir[1024], want[1024], why[256];
    struct stat st;
    /* WL_CACHE_DIR: nested, missing, trailing slash */
    snprintf(want, sizeof want, "%s/env/a/b", root);
    char set[1100];
    snprintf(set, sizeof set, "%s/", want);
    setenv("WL_CACHE_DIR", set, 1);
    WL_CHECK(wl_rtc_cache_dir(dir, sizeof dir, why, sizeof why), "WL_CACHE_DIR refused: %s", why);
    WL_CHECK(strcmp(dir, want) == 0, "dir %s, want %s", dir, want);
    WL_CHECK(stat(want, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700,
             "%s not made with mode 0700", want);
    chmod(want, 0777); /* others could plant a cubin: refused */
    WL_CHECK(!wl_rtc_cache_dir(dir, sizeof dir, why, sizeof why), "world-writable dir accepted");
    chmod(want, 0720);
    WL_CHECK(!wl_rtc_cache_dir(dir, sizeof dir, why, sizeof why), "group-writable dir accepted");
    chmod(want, 0755);
    WL_CHECK(wl_rtc_cache_dir(dir, sizeof dir, why, sizeof why), "0755 dir refused: %s", why);
    setenv("WL_CACHE_DIR", "off", 1);
    WL_CHECK(!wl_rtc_cache_dir(dir, sizeof dir, why, sizeof why), "WL_CACHE_DIR=off is on");
    WL_CHECK(strstr(why, "off") != NULL, "reason for off: %s", why);
    WL_CHECK(!wl_rtc_cache_dir(dir, sizeof dir, NULL, 0), "WL_CACHE_DIR=off is on (no why)");
    /* XDG_CACHE_HOME, then HOME */
    unsetenv("WL_CACHE_DIR");
    snprintf(set, sizeof set, "%s/xdg", root);
    setenv("XDG_CACHE_HOME", set, 1);
    snprintf(want, sizeof want, "%s/xdg/warplife", root);
    WL_CHECK(wl_rtc_cache_dir(dir, sizeof dir, why, sizeof why) && strcmp(dir, want) == 0,
             "XDG: dir %s, want %s (%s)", dir, want, why);
    unsetenv("XDG_CACHE_HOME");
    snprintf(set, sizeof set, "%s/home", root);
    mkdir(set, 0700);
    setenv("HOME", set, 1);
    snprintf(want, sizeof want, "%s/home/.cache/warplife", root);
    WL_CHECK(wl_rtc_cache_dir(dir, sizeof dir, why, sizeof why) && strcmp(dir, want) == 0,
             "HOME: dir %s, want %s (%s)", dir, want, why);
    snprintf(want, sizeof want, "%s/home/.cache", root);
    WL_CHECK(stat(want, &st) == 0 && (st.st_mode & 0777) == 0700, "%s not mode 0700", want);
    /* a HOME that is a plain file: no directory can be made below it (even as root) */
    snprintf(set, sizeof set, "%s/plainfile", root);
    WL_CHECK(spit(set, (const unsigned char *)"x", 1), "cannot write %s", set);
    setenv("HOME", set, 1);
    WL_CHECK(!wl_rtc_cache_dir(dir, sizeof dir, why, sizeof why), "a file as HOME gave %s", dir);
    unsetenv("HOME");
    WL_CHECK(!wl_rtc_cache_dir(dir, sizeof dir, why, sizeof why), "no HOME gave %s", dir);
}

static void test_entries(const char *root) {
    char dir[1024], path[1200];
    snprintf(dir, sizeof dir, "%s/entries", root);
    WL_CHECK(mkdir(dir, 0700) == 0, "mkdir %s", dir);
    wl_rtc_key k, other;
    key_of(&k, "source", "opts");
    key_of(&other, "source", "opts2");
    WL_CHECK(wl_rtc_cache_path(dir, &k, path, sizeof path), "path");
    WL_CHECK(rejected(path, &k), "a missing file read as an entry");
    size_t n = 1 + (size_t)(next_rand() % 100000);
    unsigned char *pay = malloc(n);
    for (size_t i = 0; i < n; i++) pay[i] = (unsigned char)next_rand();
    WL_CHECK(wl_rtc_cache_write(path, &k, pay, n), "write failed");
    WL_CHECK(reads_back(path, &k, pay, n), "payload of %zu bytes did not read back", n);
    WL_CHECK(rejected(path, &other), "read with another key");
    WL_CHECK(wl_test_dir_entries(dir) == 1, "%d files after one write (temporary left?)",
             wl_test_dir_entries(dir));
    size_t fn = 0;
    unsigned char *file = slurp(path, &fn);
    WL_CHECK(file && fn == n + HDR, "file of %zu bytes for %zu of payload", fn, n);
    if (!file || fn != n + HDR) {
        free(file);
        free(pay);
        return;
    }
    int all = 1;
    for (size_t i = 0; i < HDR + 64 && i < fn; i++) { /* each header byte, then random ones */
        size_t at = i < HDR ? i : HDR + (size_t)(next_rand() % n);
        unsigned char bit = (unsigned char)(1u << (next_rand() % 8));
        file[at] ^= bit;
        spit(path, file, fn);
        if (!rejected(path, &k)) {
            all = 0;
            fprintf(stderr, "flipping bit %u of byte %zu was not noticed\n", bit, at);
        }
        file[at] ^= bit;
    }
    WL_CHECK(all, "a damaged entry was accepted");
    size_t cuts[4] = {0, HDR - 1, HDR, HDR + (size_t)(next_rand() % n)};
    for (int i = 0; i < 4; i++) {
        spit(path, file, cuts[i]);
        WL_CHECK(rejected(path, &k), "entry truncated to %zu bytes accepted", cuts[i]);
    }
    unsigned char *longer = malloc(fn + 1);
    memcpy(longer, file, fn);
    longer[fn] = 0;
    spit(path, longer, fn + 1);
    WL_CHECK(rejected(path, &k), "entry with an extra byte accepted");
    spit(path, file, fn);
    WL_CHECK(reads_back(path, &k, pay, n), "restored entry rejected");
    /* overwrite with another payload: the new one reads back, no temporary file remains */
    for (size_t i = 0; i < n; i++) pay[i] = (unsigned char)next_rand();
    WL_CHECK(wl_rtc_cache_write(path, &k, pay, n), "overwrite failed");
    WL_CHECK(reads_back(path, &k, pay, n), "overwritten payload did not read back");
    WL_CHECK(wl_test_dir_entries(dir) == 1, "%d files after overwrite",
             wl_test_dir_entries(dir));
    /* writes that cannot happen fail cleanly */
    WL_CHECK(!wl_rtc_cache_write(path, &k, pay, 0), "an empty payload was written");
    char nodir[1300];
    snprintf(nodir, sizeof nodir, "%s/missing/x.cubin", dir);
    WL_CHECK(!wl_rtc_cache_write(nodir, &k, pay, n), "write into a missing directory succeeded");
    WL_CHECK(rejected(nodir, &k), "read from a missing directory");
    free(longer);
    free(file);
    free(pay);
}

/* rm -r of the few files and directories the test made (depth-first). */
static void remove_tree(const char *path) {
    DIR *d = opendir(path);
    if (d) {
        for (struct dirent *e; (e = readdir(d));) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char sub[2048];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            remove_tree(sub);
        }
        closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

/* --garble PATH (a device check, not a test): replaces the payload of the entry at PATH by
 * random bytes under the same key with a valid checksum, i.e. an entry that passes
 * verification and that the driver must reject (cuda_rtc.cu then deletes and recompiles). */
static int garble(const char *path) {
    size_t n = 0;
    unsigned char *file = slurp(path, &n);
    if (!file || n <= HDR) {
        fprintf(stderr, "test_rtc_cache: %s is no cache entry\n", path);
        free(file);
        return 1;
    }
    wl_rtc_key k = {{0, 0}};
    for (int i = 0; i < 8; i++) {
        k.h[0] |= (uint64_t)file[8 + i] << (8 * i);
        k.h[1] |= (uint64_t)file[16 + i] << (8 * i);
    }
    for (size_t i = HDR; i < n; i++) file[i] = (unsigned char)next_rand();
    int ok = wl_rtc_cache_write(path, &k, file + HDR, n - HDR);
    free(file);
    fprintf(stderr, "test_rtc_cache: %s %s\n", path, ok ? "garbled" : "could not be rewritten");
    return !ok;
}

int main(int argc, char **argv) {
    rng = wl_test_seed() | 1;
    if (argc == 3 && strcmp(argv[1], "--garble") == 0) return garble(argv[2]);
    const char *tmp = getenv("TMPDIR");
    char root[256]; /* short: the paths built under it must fit in 1024 bytes */
    snprintf(root, sizeof root, "%s/wl-rtc-cache-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root)) {
        fprintf(stderr, "test_rtc_cache: mkdtemp %s failed\n", root);
        return 1;
    }
    test_key();
    test_dir(root);
    test_entries(root);
    remove_tree(root);
    return wl_test_finish("test_rtc_cache");
}
