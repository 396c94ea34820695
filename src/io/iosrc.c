#define _POSIX_C_SOURCE 200809L
/*
 * iosrc.c - byte sources for the pattern readers: files, standard input and memory,
 * plain or gzip-compressed, delivered a window at a time (the contract is in iosrc.h).
 *
 * Three kinds of source share one buffer discipline.  A memory source without gzip is
 * read in place: buf is the caller's data and wl_src_more only moves `end` forward by a
 * window.  A descriptor source reads into an owned window; a gzip source (descriptor or
 * memory) inflates into it, reading compressed bytes 64 KiB at a time from a descriptor
 * or straight from the caller's memory.  Before new bytes come in, the unconsumed tail
 * buf[pos .. end) moves to the front of the window; the window doubles only when that
 * tail fills it, which happens only while a reader assembles a line longer than the
 * window.  So memory stays at a window (256 KiB by default) plus zlib's own state (about
 * 45 KiB) plus the longest line a reader keeps, whatever the size of the input: a gzip
 * bomb or an endless stream costs what the first window costs before the reader refuses
 * it.
 *
 * gzip: the stream is inflated with zlib (window bits 15 + 32: gzip or zlib headers);
 * concatenated members (`cat a.gz b.gz`) are read one after another; a member cut short is
 * "truncated gzip data", anything zlib refuses is "corrupt gzip data", both WL_ERR_PARSE.
 * zlib's counters are 32 bits wide, so memory input is handed over in pieces of at most
 * 1 GiB.
 */
#include "iosrc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef WL_HAVE_ZLIB
#include <zlib.h>
#endif

enum { SRC_MEM, SRC_FD, SRC_GZ };

/* The default window (see the essay), the smallest window buffer (room for the gzip magic
 * bytes read before the kind is known), the compressed-input buffer of gzip descriptor
 * sources, and the largest piece of memory input handed to zlib at once. */
#define SRC_WINDOW ((size_t)256 << 10)
#define SRC_MIN_CAP ((size_t)64)
#define SRC_ZIN ((size_t)64 << 10)
#define SRC_ZCHUNK ((size_t)1 << 30)

/* The window size: WL_IO_WINDOW bytes when set (1 .. 1 GiB), else SRC_WINDOW. */
static size_t window_size(void) {
    const char *e = getenv("WL_IO_WINDOW");
    if (e && *e) {
        unsigned long long v = strtoull(e, NULL, 0);
        if (v >= 1 && v <= ((unsigned long long)1 << 30)) return (size_t)v;
    }
    return SRC_WINDOW;
}

static void src_init(wl_src *s, const char *name) {
    memset(s, 0, sizeof *s);
    s->buf = "";
    s->fd = -1;
    s->line = 1;
    s->name = name;
    s->window = window_size();
}

/* Allocates the owned window. */
static wl_status alloc_window(wl_src *s) {
    s->cap = s->window > SRC_MIN_CAP ? s->window : SRC_MIN_CAP;
    s->win = malloc(s->cap);
    if (!s->win) return wl_error(WL_ERR_NOMEM, "%s: out of memory for the read window", s->name);
    s->buf = s->win;
    return WL_OK;
}

/* Switches the source to inflating; `pre` holds the first npre compressed bytes already
 * read from a descriptor (memory sources pass none: they are read in place). */
static wl_status start_gzip(wl_src *s, const unsigned char *pre, size_t npre) {
#ifdef WL_HAVE_ZLIB
    z_stream *z = calloc(1, sizeof *z);
    if (!z) return wl_error(WL_ERR_NOMEM, "%s: out of memory starting zlib", s->name);
    if (inflateInit2(z, 15 + 32) != Z_OK) { /* 15 + 32: zlib or gzip header, auto */
        free(z);
        return wl_error(WL_ERR_NOMEM, "%s: cannot start zlib", s->name);
    }
    s->z = z;
    s->kind = SRC_GZ;
    if (s->fd >= 0) {
        s->zin = malloc(SRC_ZIN);
        if (!s->zin) return wl_error(WL_ERR_NOMEM, "%s: out of memory starting zlib", s->name);
        memcpy(s->zin, pre, npre);
        z->next_in = s->zin;
        z->avail_in = (uInt)npre;
    }
    return s->win ? WL_OK : alloc_window(s);
#else
    (void)pre, (void)npre;
    return wl_error(WL_ERR_UNAVAILABLE,
                    "%s: gzip-compressed file, but this build has no zlib (rebuild with "
                    "zlib installed, or gunzip the file first)",
                    s->name);
#endif
}

wl_status wl_src_open_mem(wl_src *s, const void *data, size_t len, const char *name) {
    src_init(s, name ? name : "<memory>");
    s->mem = data;
    s->mem_len = data ? len : 0;
    s->raw_size = s->mem_len;
    if (wl_is_gzip(data, s->mem_len)) return start_gzip(s, NULL, 0);
    s->kind = SRC_MEM;
    if (s->mem_len) s->buf = data;
    return WL_OK;
}

/* read() that retries on EINTR; returns the count, 0 at end of input, -1 on error (errno). */
static ssize_t read_some(int fd, void *buf, size_t n) {
    for (;;) {
        ssize_t r = read(fd, buf, n);
        if (r >= 0 || errno != EINTR) return r;
    }
}

static wl_status read_error(const wl_src *s) {
    return wl_error(WL_ERR_IO, "%s: cannot read: %s", s->name, strerror(errno));
}

wl_status wl_src_open_file(wl_src *s, const char *path) {
    int is_stdin = strcmp(path, "-") == 0;
    src_init(s, is_stdin ? "<stdin>" : path);
    if (is_stdin) {
        s->fd = STDIN_FILENO;
    } else {
        s->fd = open(path, O_RDONLY);
        if (s->fd < 0) {
            int err = errno;
            return wl_error(err == ENOENT ? WL_ERR_NOT_FOUND : WL_ERR_IO, "%s: cannot open: %s",
                            path, strerror(err));
        }
        s->close_fd = 1;
    }
    struct stat sb;
    if (fstat(s->fd, &sb) == 0) {
        if (S_ISDIR(sb.st_mode)) return wl_error(WL_ERR_IO, "%s: is a directory", s->name);
        if (S_ISREG(sb.st_mode) && sb.st_size > 0) s->raw_size = (uint64_t)sb.st_size;
    }
    /* The first two bytes decide between plain and gzip. */
    unsigned char magic[2];
    size_t got = 0;
    while (got < 2) {
        ssize_t r = read_some(s->fd, magic + got, 2 - got);
        if (r < 0) return read_error(s);
        if (r == 0) break;
        got += (size_t)r;
    }
    if (got == 2 && wl_is_gzip(magic, 2)) return start_gzip(s, magic, got);
    s->kind = SRC_FD;
    wl_status e = alloc_window(s);
    if (e) return e;
    memcpy(s->win, magic, got);
    s->end = got;
    s->eof = got < 2;
    return WL_OK;
}

void wl_src_close(wl_src *s) {
#ifdef WL_HAVE_ZLIB
    if (s->z) {
        inflateEnd(s->z);
        free(s->z);
    }
#endif
    free(s->zin);
    free(s->win);
    if (s->close_fd && s->fd >= 0) close(s->fd);
    memset(s, 0, sizeof *s);
    s->fd = -1;
    s->buf = "";
}

#ifdef WL_HAVE_ZLIB
/* Gives zlib more compressed input once it has used up what it had; sets raw_eof when
 * there is none left. */
static wl_status feed(wl_src *s) {
    z_stream *z = s->z;
    if (z->avail_in || s->raw_eof) return WL_OK;
    if (s->fd >= 0) {
        ssize_t r = read_some(s->fd, s->zin, SRC_ZIN);
        if (r < 0) return read_error(s);
        z->next_in = s->zin;
        z->avail_in = (uInt)r;
    } else {
        size_t left = s->mem_len - s->mem_off;
        size_t n = left < SRC_ZCHUNK ? left : SRC_ZCHUNK;
        z->next_in = (unsigned char *)(uintptr_t)(s->mem + s->mem_off);
        z->avail_in = (uInt)n;
        s->mem_off += n;
    }
    if (!z->avail_in) s->raw_eof = 1;
    return WL_OK;
}

/* Inflates up to `room` bytes into win[end ..]: at least one byte unless the input ends
 * (then eof is set). */
static wl_status inflate_more(wl_src *s, size_t room) {
    z_stream *z = s->z;
    z->next_out = (unsigned char *)s->win + s->end;
    z->avail_out = (uInt)room;
    wl_status e = WL_OK;
    while (z->avail_out == room) {
        e = feed(s);
        if (e) break;
        if (s->member_done) {
            /* Concatenated gzip members (as `cat a.gz b.gz` makes) continue. */
            if (!z->avail_in && s->raw_eof) {
                s->eof = 1;
                break;
            }
            if (inflateReset(z) != Z_OK) {
                e = wl_error(WL_ERR_PARSE, "%s: corrupt gzip data", s->name);
                break;
            }
            s->member_done = 0;
        }
        int r = inflate(z, Z_NO_FLUSH);
        /* A fault found after some bytes came out waits for the next call (zlib gives it
         * again): the reader sees every byte before it, so which error a reader reports
         * does not depend on the window. */
        if (r == Z_STREAM_END) {
            s->member_done = 1;
        } else if (r == Z_BUF_ERROR && !z->avail_in && s->raw_eof) {
            if (z->avail_out == room)
                e = wl_error(WL_ERR_PARSE, "%s: truncated gzip data", s->name);
            break;
        } else if (r != Z_OK && r != Z_BUF_ERROR) {
            if (z->avail_out == room)
                e = wl_error(WL_ERR_PARSE, "%s: corrupt gzip data (%s)", s->name,
                             z->msg ? z->msg : "inflate failed");
            break;
        }
    }
    s->end += room - z->avail_out;
    return e;
}
#endif

static wl_status more(wl_src *s);

wl_status wl_src_more(wl_src *s) {
    if (s->fault) return wl_error(s->fault, "%s", s->fault_msg);
    wl_status e = more(s);
    if (e && e != WL_ERR_NOMEM) {
        s->fault = e;
        snprintf(s->fault_msg, sizeof s->fault_msg, "%s", wl_last_error());
    }
    return e;
}

static wl_status more(wl_src *s) {
    if (s->eof) return WL_OK;
    if (s->kind == SRC_MEM) {
        size_t left = s->mem_len - s->end;
        if (!left) s->eof = 1;
        s->end += left < s->window ? left : s->window;
        return WL_OK;
    }
    if (s->pos) { /* keep the unconsumed tail, at the front */
        memmove(s->win, s->win + s->pos, s->end - s->pos);
        s->base += s->pos;
        s->end -= s->pos;
        s->pos = 0;
    }
    if (s->end == s->cap) { /* one line fills the window: double it */
        size_t ncap = s->cap * 2 > s->end + s->window ? s->cap * 2 : s->end + s->window;
        char *nw = realloc(s->win, ncap);
        if (!nw) return wl_error(WL_ERR_NOMEM, "%s: out of memory for a long line", s->name);
        s->win = nw;
        s->buf = nw;
        s->cap = ncap;
    }
    size_t room = s->cap - s->end < s->window ? s->cap - s->end : s->window;
#ifdef WL_HAVE_ZLIB
    if (s->kind == SRC_GZ) return inflate_more(s, room);
#endif
    ssize_t r = read_some(s->fd, s->win + s->end, room);
    if (r < 0) return read_error(s);
    if (r == 0) s->eof = 1;
    s->end += (size_t)r;
    return WL_OK;
}

wl_status wl_src_need(wl_src *s, size_t n) {
    while (s->end - s->pos < n && !s->eof) {
        wl_status e = wl_src_more(s);
        if (e) return e;
    }
    return WL_OK;
}

wl_status wl_src_skip_bom(wl_src *s) {
    wl_status e = wl_src_need(s, 3);
    if (e) return e;
    if (s->end - s->pos >= 3 && memcmp(s->buf + s->pos, "\xEF\xBB\xBF", 3) == 0) {
        s->pos += 3;
        s->line_start = s->base + s->pos;
    }
    return WL_OK;
}

static wl_status too_long(const wl_src *s, size_t max) {
    char lim[32];
    return wl_error(WL_ERR_PARSE, "%s:%zu:1: line longer than %s", s->name, s->line,
                    wl_bytes_text(max, lim));
}

wl_status wl_src_peek_line(wl_src *s, size_t max, const char **c, size_t *n) {
    size_t searched = 0; /* bytes after pos known to hold no '\n' */
    for (;;) {
        size_t avail = s->end - s->pos;
        const char *nl = avail > searched
                             ? memchr(s->buf + s->pos + searched, '\n', avail - searched)
                             : NULL;
        if (nl) {
            s->nl = (size_t)(nl - s->buf);
            break;
        }
        searched = avail;
        if (avail > max) return too_long(s, max);
        if (s->eof) {
            s->nl = s->end;
            break;
        }
        wl_status e = wl_src_more(s);
        if (e) return e;
    }
    size_t len = s->nl - s->pos;
    if (len > max) return too_long(s, max);
    if (!len && s->nl == s->end) { /* nothing left */
        *c = NULL;
        *n = 0;
        return WL_OK;
    }
    if (len && s->buf[s->pos + len - 1] == '\r') len--;
    *c = s->buf + s->pos;
    *n = len;
    return WL_OK;
}

void wl_src_next_line(wl_src *s) {
    if (s->nl < s->end) {
        s->pos = s->nl + 1;
        wl_src_newline(s, s->nl);
    } else {
        s->pos = s->end;
    }
}
