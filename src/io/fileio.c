#define _POSIX_C_SOURCE 200809L
/*
 * fileio.c - whole-file reading and atomic writing.
 *
 * wl_write_file_atomic never leaves a half-written file behind: the bytes go to a
 * temporary file made with mkstemp in the destination's directory (so that the final
 * rename stays within one file system and is atomic), and only a complete, closed file is
 * renamed over the destination.  On any failure the temporary file is removed.  The new
 * file gets the mode an ordinary create would give it (0666 minus the umask), or the mode
 * of the file it replaces.  fsync before the rename is done when the environment variable
 * WL_FSYNC is set to a non-empty value other than "0" (durability across power loss costs
 * time, and most callers do not need it).
 */
#include "io_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads everything from fd into a malloc'd, NUL-terminated buffer. */
static wl_status read_fd(int fd, const char *path, size_t size_hint, char **data, size_t *len) {
    size_t cap = size_hint + 1 > 65536 ? size_hint + 1 : 65536, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf) return wl_error(WL_ERR_NOMEM, "%s: out of memory reading the file", path);
    for (;;) {
        if (n == cap) {
            if (cap > SIZE_MAX / 2 - 1) {
                free(buf);
                return wl_error(WL_ERR_TOO_BIG, "%s: file too large", path);
            }
            char *nb = realloc(buf, cap * 2 + 1);
            if (!nb) {
                free(buf);
                return wl_error(WL_ERR_NOMEM, "%s: out of memory reading the file", path);
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0) {
            if (errno == EINTR) continue;
            int err = errno;
            free(buf);
            return wl_error(WL_ERR_IO, "%s: cannot read: %s", path, strerror(err));
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return WL_OK;
}

wl_status wl_read_file(const char *path, char **data, size_t *len) {
    if (!path || !data || !len) return wl_error(WL_ERR_INVALID, "wl_read_file: NULL argument");
    if (strcmp(path, "-") == 0) return read_fd(STDIN_FILENO, "<stdin>", 0, data, len);
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        int err = errno;
        return wl_error(err == ENOENT ? WL_ERR_NOT_FOUND : WL_ERR_IO, "%s: cannot open: %s",
                        path, strerror(err));
    }
    struct stat sb;
    size_t hint = 0;
    if (fstat(fd, &sb) == 0) {
        if (S_ISDIR(sb.st_mode)) {
            close(fd);
            return wl_error(WL_ERR_IO, "%s: is a directory", path);
        }
        if (S_ISREG(sb.st_mode) && sb.st_size > 0) hint = (size_t)sb.st_size;
    }
    wl_status s = read_fd(fd, path, hint, data, len);
    close(fd);
    return s;
}

static wl_status write_all(int fd, const char *what, const void *data, size_t len) {
    const char *p = data;
    while (len) {
        /* Chunks of 1 GiB: some systems refuse larger single writes. */
        size_t chunk = len < ((size_t)1 << 30) ? len : ((size_t)1 << 30);
        ssize_t w = write(fd, p, chunk);
        if (w < 0) {
            if (errno == EINTR) continue;
            return wl_error(WL_ERR_IO, "%s: cannot write: %s", what, strerror(errno));
        }
        p += w;
        len -= (size_t)w;
    }
    return WL_OK;
}

/* The mode a newly created file would get: 0666 minus the process umask. */
static mode_t default_mode(void) {
    mode_t m = umask(022);
    umask(m);
    return (mode_t)(0666 & ~m);
}

wl_status wl_write_file_atomic(const char *path, const void *data, size_t len) {
    if (!path || (!data && len))
        return wl_error(WL_ERR_INVALID, "wl_write_file_atomic: NULL argument");
    if (strcmp(path, "-") == 0) {
        wl_status s = write_all(STDOUT_FILENO, "<stdout>", data, len);
        return s;
    }
    /* Temporary name: "<dir>/.<base>.tmp-XXXXXX" beside the destination. */
    size_t n = strlen(path);
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    char *tmp = malloc(n + 16);
    if (!tmp) return wl_error(WL_ERR_NOMEM, "out of memory");
    memcpy(tmp, path, dirlen);
    tmp[dirlen] = '.';
    memcpy(tmp + dirlen + 1, path + dirlen, n - dirlen);
    memcpy(tmp + n + 1, ".tmp-XXXXXX", 12);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int err = errno;
        free(tmp);
        return wl_error(err == ENOENT ? WL_ERR_NOT_FOUND : WL_ERR_IO,
                        "%s: cannot create a temporary file beside it: %s", path, strerror(err));
    }
    struct stat sb;
    mode_t mode = stat(path, &sb) == 0 ? (sb.st_mode & 07777) : default_mode();
    wl_status s = write_all(fd, path, data, len);
    if (!s && fchmod(fd, mode) != 0)
        s = wl_error(WL_ERR_IO, "%s: cannot set permissions: %s", path, strerror(errno));
    const char *fs = getenv("WL_FSYNC");
    if (!s && fs && *fs && strcmp(fs, "0") != 0 && fsync(fd) != 0)
        s = wl_error(WL_ERR_IO, "%s: cannot sync: %s", path, strerror(errno));
    if (close(fd) != 0 && !s)
        s = wl_error(WL_ERR_IO, "%s: cannot close: %s", path, strerror(errno));
    if (!s && rename(tmp, path) != 0)
        s = wl_error(WL_ERR_IO, "%s: cannot rename the temporary file into place: %s", path,
                     strerror(errno));
    if (s) unlink(tmp);
    free(tmp);
    return s;
}
