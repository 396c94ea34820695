/*
 * image.c - writing and reading RGBA images: PNG through libpng (when built with
 * WL_HAVE_PNG) and binary PPM (P6, always available), so that screenshots and tests work on
 * every build.
 *
 * Pixel layout: a pixel is a uint32_t whose bytes in memory are R, G, B, A (the value
 * 0xAABBGGRR on a little-endian machine), rows top to bottom, no padding.  The code packs
 * and unpacks bytes explicitly, so it is correct on either byte order.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#ifdef WL_HAVE_PNG
#include <png.h>
#endif

/* Returns 1 if path ends in suffix, ignoring case. */
static int ends_with(const char *path, const char *suffix) {
    size_t n = strlen(path), m = strlen(suffix);
    if (n < m) return 0;
    for (size_t i = 0; i < m; i++) {
        char a = path[n - m + i], b = suffix[i];
        if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
        if (a != b) return 0;
    }
    return 1;
}

static void unpack(uint32_t px, unsigned char out[4]) { memcpy(out, &px, 4); }
static uint32_t pack(const unsigned char in[4]) {
    uint32_t px;
    memcpy(&px, in, 4);
    return px;
}

/* Largest image side accepted (pixels): keeps width * height * 4 far from overflow. */
#define IMAGE_MAX_SIDE (1u << 16)

/* ---- PPM ------------------------------------------------------------------------------ */

wl_status wl_image_write_ppm(const char *path, const uint32_t *rgba, uint32_t width,
                             uint32_t height) {
    if (!path || !rgba || !width || !height)
        return wl_error(WL_ERR_INVALID, "image: NULL argument or empty image");
    char header[64];
    int hl = snprintf(header, sizeof header, "P6\n%u %u\n255\n", width, height);
    size_t len = (size_t)hl + (size_t)width * height * 3;
    unsigned char *buf = wl_malloc(len);
    if (!buf) return WL_ERR_NOMEM;
    memcpy(buf, header, (size_t)hl);
    unsigned char *o = buf + hl;
    for (size_t i = 0; i < (size_t)width * height; i++) {
        unsigned char c[4];
        unpack(rgba[i], c);
        *o++ = c[0];
        *o++ = c[1];
        *o++ = c[2];
    }
    wl_status s = wl_write_file_atomic(path, buf, len);
    free(buf);
    return s;
}

/* Skips whitespace and #-comments, then parses an unsigned decimal number. */
static int ppm_number(const unsigned char **p, const unsigned char *end, uint32_t *out) {
    const unsigned char *q = *p;
    for (;;) {
        while (q < end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')) q++;
        if (q < end && *q == '#') {
            while (q < end && *q != '\n') q++;
            continue;
        }
        break;
    }
    uint64_t v = 0;
    const unsigned char *start = q;
    while (q < end && *q >= '0' && *q <= '9' && v < IMAGE_MAX_SIDE * 2ull) v = v * 10 + (*q++ - '0');
    if (q == start) return -1;
    *out = (uint32_t)v;
    *p = q;
    return 0;
}

static wl_status read_ppm(const char *path, const unsigned char *data, size_t len,
                          uint32_t **rgba, uint32_t *width, uint32_t *height) {
    const unsigned char *p = data + 2, *end = data + len;
    uint32_t w, h, maxval;
    if (ppm_number(&p, end, &w) || ppm_number(&p, end, &h) || ppm_number(&p, end, &maxval) ||
        p >= end || maxval != 255 || !w || !h || w > IMAGE_MAX_SIDE || h > IMAGE_MAX_SIDE)
        return wl_error(WL_ERR_PARSE, "%s: not a binary PPM with maxval 255", path);
    p++; /* the single whitespace byte after maxval */
    if ((size_t)(end - p) < (size_t)w * h * 3)
        return wl_error(WL_ERR_PARSE, "%s: PPM pixel data is truncated", path);
    uint32_t *img = wl_malloc((size_t)w * h * sizeof *img);
    if (!img) return WL_ERR_NOMEM;
    for (size_t i = 0; i < (size_t)w * h; i++, p += 3) {
        unsigned char c[4] = {p[0], p[1], p[2], 255};
        img[i] = pack(c);
    }
    *rgba = img;
    *width = w;
    *height = h;
    return WL_OK;
}

/* ---- PNG ------------------------------------------------------------------------------ */

#ifdef WL_HAVE_PNG
wl_status wl_image_write_png(const char *path, const uint32_t *rgba, uint32_t width,
                             uint32_t height) {
    if (!path || !rgba || !width || !height)
        return wl_error(WL_ERR_INVALID, "image: NULL argument or empty image");
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = width;
    img.height = height;
    img.format = PNG_FORMAT_RGBA;
    /* The simplified API encodes into memory; the file is then written atomically. */
    png_alloc_size_t size = 0;
    if (!png_image_write_to_memory(&img, NULL, &size, 0, rgba, 0, NULL))
        return wl_error(WL_ERR_INVALID, "%s: libpng: %s", path, img.message);
    void *buf = wl_malloc(size);
    if (!buf) return WL_ERR_NOMEM;
    if (!png_image_write_to_memory(&img, buf, &size, 0, rgba, 0, NULL)) {
        free(buf);
        return wl_error(WL_ERR_INVALID, "%s: libpng: %s", path, img.message);
    }
    wl_status s = wl_write_file_atomic(path, buf, size);
    free(buf);
    return s;
}

static wl_status read_png(const char *path, const void *data, size_t len, uint32_t **rgba,
                          uint32_t *width, uint32_t *height) {
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&img, data, len))
        return wl_error(WL_ERR_PARSE, "%s: libpng: %s", path, img.message);
    if (img.width > IMAGE_MAX_SIDE || img.height > IMAGE_MAX_SIDE) {
        png_image_free(&img);
        return wl_error(WL_ERR_TOO_BIG, "%s: image larger than %u pixels a side", path,
                        IMAGE_MAX_SIDE);
    }
    img.format = PNG_FORMAT_RGBA;
    uint32_t *buf = wl_malloc((size_t)img.width * img.height * sizeof *buf);
    if (!buf) {
        png_image_free(&img);
        return WL_ERR_NOMEM;
    }
    if (!png_image_finish_read(&img, NULL, buf, 0, NULL)) {
        free(buf);
        return wl_error(WL_ERR_PARSE, "%s: libpng: %s", path, img.message);
    }
    *rgba = buf;
    *width = img.width;
    *height = img.height;
    return WL_OK;
}
#else
wl_status wl_image_write_png(const char *path, const uint32_t *rgba, uint32_t width,
                             uint32_t height) {
    (void)rgba;
    (void)width;
    (void)height;
    return wl_error(WL_ERR_UNAVAILABLE, "%s: PNG output needs libpng, which is not built in "
                                        "(write a .ppm instead)", path ? path : "image");
}
#endif

/* ---- by file name --------------------------------------------------------------------- */

wl_status wl_image_write(const char *path, const uint32_t *rgba, uint32_t width,
                         uint32_t height) {
    if (!path) return wl_error(WL_ERR_INVALID, "image: NULL path");
    if (ends_with(path, ".ppm")) return wl_image_write_ppm(path, rgba, width, height);
    if (ends_with(path, ".png")) return wl_image_write_png(path, rgba, width, height);
    return wl_error(WL_ERR_INVALID, "%s: image name must end in .png or .ppm", path);
}

wl_status wl_image_read(const char *path, uint32_t **rgba, uint32_t *width,
                        uint32_t *height) {
    *rgba = NULL;
    *width = *height = 0;
    char *data;
    size_t len;
    wl_status s = wl_read_file(path, &data, &len);
    if (s) return s;
    static const unsigned char png_magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (len >= 8 && memcmp(data, png_magic, 8) == 0) {
#ifdef WL_HAVE_PNG
        s = read_png(path, data, len, rgba, width, height);
#else
        s = wl_error(WL_ERR_UNAVAILABLE, "%s: reading PNG needs libpng, not built in", path);
#endif
    } else if (len >= 2 && data[0] == 'P' && data[1] == '6') {
        s = read_ppm(path, (const unsigned char *)data, len, rgba, width, height);
    } else {
        s = wl_error(WL_ERR_PARSE, "%s: neither a PNG nor a binary PPM image", path);
    }
    free(data);
    return s;
}
