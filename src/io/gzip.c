/*
 * gzip.c - gzip compression through zlib for every writer of the library (pattern files,
 * HashLife's native macrocell), and whole-buffer decompression for callers that want the
 * inflated bytes in one piece (HashLife's macrocell loader).  The pattern readers do not
 * use wl_gunzip: they inflate a window at a time through the byte source (iosrc.c), which
 * also does the inflating here, so there is one inflate loop in the library.  zlib's
 * stream counters are 32 bits wide, so data is fed in chunks of at most 1 GiB; wl_gunzip's
 * output is capped at a quarter of physical memory so that a tiny "zip bomb" gets a clear
 * error.  Without zlib both functions return WL_ERR_UNAVAILABLE with a message.
 */
#include "io_internal.h"
#include "iosrc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef WL_HAVE_ZLIB
#include <zlib.h>
#endif

int wl_is_gzip(const void *data, size_t len) {
    const unsigned char *b = data;
    return len >= 2 && b[0] == 0x1f && b[1] == 0x8b;
}

#ifdef WL_HAVE_ZLIB
/* Chunk for zlib calls: avail_in/avail_out are 32-bit. */
#define GZ_CHUNK ((size_t)1 << 30)

/* Hands zlib the next chunk of the input once it has used up the last one. */
static void gz_feed(z_stream *z, const unsigned char **in, size_t *in_left) {
    if (z->avail_in || !*in_left) return;
    z->next_in = (unsigned char *)(uintptr_t)*in;
    z->avail_in = (uInt)(*in_left < GZ_CHUNK ? *in_left : GZ_CHUNK);
    *in += z->avail_in;
    *in_left -= z->avail_in;
}
#endif

/* Inflating is the byte source's (iosrc.c): this collects what it delivers. */
wl_status wl_gunzip(const void *data, size_t len, const char *name, char **out,
                    size_t *out_len) {
    if (!name) name = "<memory>";
    if (!wl_is_gzip(data, len)) return wl_error(WL_ERR_PARSE, "%s: not gzip data", name);
    uint64_t cap_limit = wl_physical_memory() / 4;
    wl_src s;
    wl_status st = wl_src_open_mem(&s, data, len, name);
    wl_iobuf b = {0};
    while (!st && !s.eof) {
        st = wl_src_more(&s);
        size_t n = s.end - s.pos;
        if (st || !n) continue;
        if (b.len + n > cap_limit) {
            st = wl_error(WL_ERR_TOO_BIG, "%s: inflated data larger than %llu bytes", name,
                          (unsigned long long)cap_limit);
            break;
        }
        wl_iobuf_write(&b, s.buf + s.pos, n);
        s.pos = s.end;
    }
    wl_src_close(&s);
    wl_iobuf_putc(&b, '\0');
    if (!st && b.failed) st = wl_error(WL_ERR_NOMEM, "%s: out of memory inflating", name);
    if (st) {
        wl_iobuf_free(&b);
        return st;
    }
    *out = b.p;
    *out_len = b.len - 1;
    return WL_OK;
}

#ifdef WL_HAVE_ZLIB
wl_status wl_gzip(const void *data, size_t len, char **out, size_t *out_len) {
    z_stream z;
    memset(&z, 0, sizeof z);
    /* 15 + 16: a gzip (not zlib) wrapper.  Level 1: on RLE of random soups it is about 9x
     * faster than zlib's default level 6 for files about 25% larger (10 MB of RLE: 0.28 s
     * and 3.5 MB against 2.5 s and 2.8 MB), and speed is what this project is about. */
    if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return wl_error(WL_ERR_NOMEM, "cannot start zlib");
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap);
    const unsigned char *in = data;
    size_t in_left = len;
    int r = Z_OK;
    while (buf && r != Z_STREAM_END && r != Z_STREAM_ERROR) {
        gz_feed(&z, &in, &in_left);
        if (n == cap) {
            char *nb = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t room = cap - n < GZ_CHUNK ? cap - n : GZ_CHUNK;
        z.next_out = (unsigned char *)buf + n;
        z.avail_out = (uInt)room;
        r = deflate(&z, in_left || z.avail_in ? Z_NO_FLUSH : Z_FINISH);
        n += room - z.avail_out;
    }
    deflateEnd(&z);
    if (!buf || r != Z_STREAM_END) {
        free(buf);
        return wl_error(WL_ERR_NOMEM, "out of memory compressing");
    }
    *out = buf;
    *out_len = n;
    return WL_OK;
}
#else

wl_status wl_gzip(const void *data, size_t len, char **out, size_t *out_len) {
    (void)data, (void)len, (void)out, (void)out_len;
    return wl_error(WL_ERR_UNAVAILABLE, "gzip output needs zlib, which this build lacks");
}
#endif
