/*
 * iosrc.h - the input side of pattern files: a source of bytes that the readers consume a
 * window at a time, so that reading takes memory for the pattern being built and not for
 * the file.
 *
 * A source is a file descriptor (a file, or standard input for "-"), or a block of the
 * caller's memory; either may be gzip-compressed (recognised by its magic bytes 1f 8b at
 * the start), and is then inflated into the window as the reader asks for more.  The
 * readers see one buffer, buf[pos .. end): the bytes not yet consumed.  wl_src_more()
 * keeps those bytes (moving them to the front of the window) and appends up to a window's
 * worth of new ones, so a reader that leaves pos at the start of a line it has not
 * finished finds the whole line there after the call.  The window is a fixed size
 * (256 KiB; the environment variable WL_IO_WINDOW sets another, down to 1 byte, which the
 * tests use to put chunk boundaries everywhere); it grows only while one line is longer
 * than it, and the line readers refuse lines longer than WL_IO_LINE_MAX.
 *
 * Positions: `base` is the stream offset of buf[0], so base + i is the offset of buf[i]
 * in the (inflated) input whatever moved in between.  `line` and `line_start` say which
 * line buf[pos] is on and where that line began; the readers keep them up to date as they
 * consume newlines (wl_src_newline, or wl_src_next_line for whole lines), and the column
 * of buf[i] is wl_src_col(s, i).  Memory sources without gzip are read in place: buf
 * points into the caller's bytes, and a window is only a count of bytes made visible.
 */
#ifndef WL_IOSRC_H
#define WL_IOSRC_H

#include "internal.h"

/* The longest line a reader takes whole (comments, headers, node lines, coordinates):
 * longer ones are WL_ERR_PARSE ("line longer than ...").  Rows of cells and RLE bodies are
 * parsed as they stream by and have no such limit. */
#define WL_IO_LINE_MAX ((size_t)1 << 20)

typedef struct wl_src {
    /* For the readers: the unconsumed bytes are buf[pos .. end).  Readers advance pos; the
     * other fields change only through the functions below. */
    const char *buf;
    size_t pos, end;
    int eof;             /* 1 once no byte will follow buf[end - 1] */
    uint64_t base;       /* stream offset of buf[0] */
    size_t line;         /* 1-based number of the line holding buf[pos] */
    uint64_t line_start; /* stream offset of that line's first byte */
    const char *name;    /* the file name for messages ("<stdin>", "<memory>", ...) */
    uint64_t raw_size;   /* bytes of input (compressed ones for gzip) when known, else 0 */
    /* Private to iosrc.c. */
    int kind;            /* SRC_MEM, SRC_FD or SRC_GZ */
    size_t window;       /* bytes added per wl_src_more at most */
    char *win;           /* the owned window (fd and gzip sources) */
    size_t cap;          /* its size */
    size_t nl;           /* where wl_src_peek_line found the end of its line */
    int fd, close_fd;
    const unsigned char *mem; /* memory sources: the caller's bytes */
    size_t mem_len, mem_off;
    void *z;             /* gzip: the zlib stream */
    unsigned char *zin;  /* gzip from a descriptor: compressed bytes read so far */
    int raw_eof;         /* gzip: the compressed input is used up */
    int member_done;     /* gzip: a member ended; another may follow */
    wl_status fault;     /* a fault of the input met once is met again on every later call */
    char fault_msg[256];
} wl_src;

/* Opens a source over len bytes at data (not copied: they must outlive the source); `name`
 * (NULL: "<memory>") names it in messages.  gzip data is inflated as it is read.
 * WL_ERR_UNAVAILABLE for gzip data in a build without zlib, WL_ERR_NOMEM. */
wl_status wl_src_open_mem(wl_src *s, const void *data, size_t len, const char *name);
/* Opens a file ("-": standard input, named "<stdin>"), inflating it when it starts with
 * gzip's magic bytes.  WL_ERR_NOT_FOUND for a missing file, WL_ERR_IO when it cannot be
 * opened or read or is a directory (messages name the path).  The path must outlive the
 * source (it is the name in messages). */
wl_status wl_src_open_file(wl_src *s, const char *path);
/* Releases what the source holds (closing the file it opened); safe on a zeroed struct
 * and after a failed open. */
void wl_src_close(wl_src *s);

/* Appends up to a window of new bytes after buf[end - 1], keeping buf[pos .. end) (which
 * may move: buf, pos and end are updated, base too).  At the end of the input it sets eof
 * and adds nothing.  Errors: WL_ERR_IO (read failed), WL_ERR_PARSE (corrupt or truncated
 * gzip data), WL_ERR_NOMEM. */
wl_status wl_src_more(wl_src *s);
/* For a reader that scans buf[pos, end) in locals: hands its position back, fetches the
 * next window and reloads the locals (*pos == *end afterwards: the input has ended). */
static inline wl_status wl_src_refill(wl_src *s, const char **b, size_t *pos, size_t *end) {
    s->pos = *pos;
    wl_status e = wl_src_more(s);
    *b = s->buf;
    *pos = s->pos;
    *end = s->end;
    return e;
}

/* Calls wl_src_more until at least n bytes are unconsumed or the input ends. */
wl_status wl_src_need(wl_src *s, size_t n);
/* Skips a UTF-8 byte order mark at the start of the input (columns then count from the
 * byte after it). */
wl_status wl_src_skip_bom(wl_src *s);

/* Finds the line starting at buf[pos] without consuming it: *c points at its first byte,
 * *n is its length without the '\n' and without a '\r' just before the '\n' (or before
 * the end of the input).  *c is NULL when no byte is left.  The pointer is valid until the
 * next call on the source.  A line longer than `max` bytes is WL_ERR_PARSE
 * "name:line:1: line longer than ...". */
wl_status wl_src_peek_line(wl_src *s, size_t max, const char **c, size_t *n);
/* Consumes the line wl_src_peek_line just returned, with its newline. */
void wl_src_next_line(wl_src *s);

/* 1-based column of buf[i] on the current line. */
static inline size_t wl_src_col(const wl_src *s, size_t i) {
    return (size_t)(s->base + i - s->line_start) + 1;
}
/* Records that buf[i] is a '\n' the reader has consumed: the next line starts after it. */
static inline void wl_src_newline(wl_src *s, size_t i) {
    s->line++;
    s->line_start = s->base + i + 1;
}

#endif /* WL_IOSRC_H */
