/*
 * bigint.c - exact signed 256-bit integers for generation counts, populations and
 * coordinates (HashLife's universes outgrow 64 bits).  Two's complement, four 64-bit
 * limbs, least significant first; arithmetic wraps at 2^256, which callers stay far below.
 */
#include "internal.h"

#include <string.h>

void wl_bigint_from_u64(wl_bigint *b, uint64_t v) {
    memset(b, 0, sizeof *b);
    b->limb[0] = v;
}

void wl_bigint_from_i64(wl_bigint *b, int64_t v) {
    uint64_t fill = v < 0 ? ~(uint64_t)0 : 0;
    b->limb[0] = (uint64_t)v;
    b->limb[1] = b->limb[2] = b->limb[3] = fill;
}

void wl_bigint_add(wl_bigint *r, const wl_bigint *a, const wl_bigint *b) {
    wl_bigint t;
    unsigned carry = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t s = a->limb[i] + b->limb[i];
        unsigned c1 = s < a->limb[i];
        uint64_t s2 = s + carry;
        unsigned c2 = s2 < s;
        t.limb[i] = s2;
        carry = c1 | c2;
    }
    *r = t;
}

static void negate(wl_bigint *r, const wl_bigint *a) {
    wl_bigint one, inv;
    for (int i = 0; i < 4; i++) inv.limb[i] = ~a->limb[i];
    wl_bigint_from_u64(&one, 1);
    wl_bigint_add(r, &inv, &one);
}

void wl_bigint_sub(wl_bigint *r, const wl_bigint *a, const wl_bigint *b) {
    wl_bigint nb;
    negate(&nb, b);
    wl_bigint_add(r, a, &nb);
}

void wl_bigint_mul(wl_bigint *r, const wl_bigint *a, const wl_bigint *b) {
    /* Schoolbook on 32-bit halves keeps every partial product in 64 bits. */
    uint32_t x[8], y[8];
    for (int i = 0; i < 4; i++) {
        x[2 * i] = (uint32_t)a->limb[i];
        x[2 * i + 1] = (uint32_t)(a->limb[i] >> 32);
        y[2 * i] = (uint32_t)b->limb[i];
        y[2 * i + 1] = (uint32_t)(b->limb[i] >> 32);
    }
    uint32_t out[8] = {0};
    for (int i = 0; i < 8; i++) {
        uint64_t carry = 0;
        for (int j = 0; i + j < 8; j++) {
            uint64_t cur = (uint64_t)x[i] * y[j] + out[i + j] + carry;
            out[i + j] = (uint32_t)cur;
            carry = cur >> 32;
        }
    }
    for (int i = 0; i < 4; i++) r->limb[i] = (uint64_t)out[2 * i] | ((uint64_t)out[2 * i + 1] << 32);
}

static int is_negative(const wl_bigint *a) { return (int)(a->limb[3] >> 63); }

int wl_bigint_cmp(const wl_bigint *a, const wl_bigint *b) {
    int na = is_negative(a), nb = is_negative(b);
    if (na != nb) return na ? -1 : 1;
    for (int i = 3; i >= 0; i--) {
        if (a->limb[i] != b->limb[i]) return a->limb[i] < b->limb[i] ? -1 : 1;
    }
    return 0;
}

int wl_bigint_to_u64(const wl_bigint *b, uint64_t *out) {
    if (b->limb[1] || b->limb[2] || b->limb[3]) return 0;
    *out = b->limb[0];
    return 1;
}

int wl_bigint_to_i64(const wl_bigint *b, int64_t *out) {
    uint64_t fill = (b->limb[0] >> 63) ? ~(uint64_t)0 : 0;
    if (b->limb[1] != fill || b->limb[2] != fill || b->limb[3] != fill) return 0;
    *out = (int64_t)b->limb[0];
    return 1;
}

/* Divides the non-negative value in place by d, returning the remainder. */
static uint32_t divmod_small(wl_bigint *a, uint32_t d) {
    uint64_t rem = 0;
    for (int i = 3; i >= 0; i--) {
        uint64_t hi = (rem << 32) | (a->limb[i] >> 32);
        uint64_t qhi = hi / d;
        rem = hi % d;
        uint64_t lo = (rem << 32) | (a->limb[i] & 0xffffffffu);
        uint64_t qlo = lo / d;
        rem = lo % d;
        a->limb[i] = (qhi << 32) | qlo;
    }
    return (uint32_t)rem;
}

static int is_zero(const wl_bigint *a) {
    return !(a->limb[0] | a->limb[1] | a->limb[2] | a->limb[3]);
}

char *wl_bigint_to_str(const wl_bigint *b, char *buf, size_t len) {
    char tmp[96];
    size_t n = 0;
    wl_bigint v = *b;
    int neg = is_negative(&v);
    if (neg) negate(&v, &v);
    do {
        tmp[n++] = (char)('0' + divmod_small(&v, 10));
    } while (!is_zero(&v) && n < sizeof tmp - 1);
    if (neg) tmp[n++] = '-';
    if (len == 0) return buf;
    size_t k = 0;
    while (n > 0 && k + 1 < len) buf[k++] = tmp[--n];
    buf[k] = '\0';
    return buf;
}

wl_status wl_bigint_parse(const char *text, wl_bigint *out) {
    const char *s = text;
    int neg = 0;
    if (!s || !*s) return wl_error(WL_ERR_PARSE, "empty number");
    if (*s == '-') {
        neg = 1;
        s++;
    }
    if (s[0] == '2' && s[1] == '^') {
        const char *e = s + 2;
        unsigned k = 0;
        if (!*e) return wl_error(WL_ERR_PARSE, "'%s': expected an exponent after 2^", text);
        for (; *e; e++) {
            if (*e < '0' || *e > '9')
                return wl_error(WL_ERR_PARSE, "'%s': bad character '%c' at position %d", text,
                                *e, (int)(e - text) + 1);
            k = k * 10 + (unsigned)(*e - '0');
            if (k > 254) return wl_error(WL_ERR_PARSE, "'%s': exponent too large", text);
        }
        memset(out, 0, sizeof *out);
        out->limb[k / 64] = (uint64_t)1 << (k % 64);
    } else {
        wl_bigint v, ten;
        wl_bigint_from_u64(&v, 0);
        wl_bigint_from_u64(&ten, 10);
        if (!*s) return wl_error(WL_ERR_PARSE, "'%s': expected digits", text);
        for (const char *p = s; *p; p++) {
            if (*p < '0' || *p > '9')
                return wl_error(WL_ERR_PARSE, "'%s': bad character '%c' at position %d", text,
                                *p, (int)(p - text) + 1);
            if (p - s > 75) return wl_error(WL_ERR_PARSE, "'%s': number too large", text);
            wl_bigint d;
            wl_bigint_from_u64(&d, (uint64_t)(*p - '0'));
            wl_bigint_mul(&v, &v, &ten);
            wl_bigint_add(&v, &v, &d);
        }
        *out = v;
    }
    if (neg) negate(out, out);
    return WL_OK;
}
