/* PLACEHOLDER (to be replaced by the rules work): B/S parsing only. */
#include "internal.h"

#include <string.h>

static unsigned neighbours(unsigned idx) {
    return (unsigned)__builtin_popcount(idx & 0x1EF);
}

static void from_masks(wl_rule *r, uint16_t birth, uint16_t survive) {
    memset(r, 0, sizeof *r);
    for (unsigned i = 0; i < 512; i++) {
        unsigned n = neighbours(i);
        int alive = (i >> 4) & 1;
        if ((alive ? survive : birth) >> n & 1) r->table[i >> 6] |= (uint64_t)1 << (i & 63);
    }
}

void wl_rule_life(wl_rule *r) { from_masks(r, 1u << 3, (1u << 2) | (1u << 3)); }

wl_status wl_rule_parse(const char *text, wl_rule *out) {
    uint16_t b = 0, s = 0, *cur = NULL;
    for (const char *p = text; *p; p++) {
        if (*p == 'B' || *p == 'b') cur = &b;
        else if (*p == 'S' || *p == 's') cur = &s;
        else if (*p == '/') continue;
        else if (*p >= '0' && *p <= '8' && cur) *cur |= (uint16_t)(1u << (*p - '0'));
        else return wl_error(WL_ERR_PARSE, "rule '%s': bad character '%c' at position %d", text, *p, (int)(p - text) + 1);
    }
    from_masks(out, b, s);
    return WL_OK;
}

int wl_rule_is_totalistic(const wl_rule *r, uint16_t *birth, uint16_t *survive) {
    uint16_t b = 0, s = 0;
    for (unsigned i = 0; i < 512; i++)
        if (wl_rule_next(r, i)) *(((i >> 4) & 1) ? &s : &b) |= (uint16_t)(1u << neighbours(i));
    wl_rule t;
    from_masks(&t, b, s);
    if (!wl_rule_equal(&t, r)) return 0;
    if (birth) *birth = b;
    if (survive) *survive = s;
    return 1;
}

int wl_rule_is_isotropic(const wl_rule *r) { return wl_rule_is_totalistic(r, NULL, NULL); }
int wl_rule_has_b0(const wl_rule *r) { return wl_rule_next(r, 0); }
int wl_rule_equal(const wl_rule *a, const wl_rule *b) { return memcmp(a, b, sizeof *a) == 0; }

wl_status wl_rule_format(const wl_rule *r, char *buf, size_t len) {
    uint16_t b, s;
    if (!wl_rule_is_totalistic(r, &b, &s)) return wl_error(WL_ERR_UNSUPPORTED, "not yet");
    char t[32];
    size_t n = 0;
    t[n++] = 'B';
    for (int i = 0; i <= 8; i++) if (b >> i & 1) t[n++] = (char)('0' + i);
    t[n++] = '/';
    t[n++] = 'S';
    for (int i = 0; i <= 8; i++) if (s >> i & 1) t[n++] = (char)('0' + i);
    t[n] = 0;
    if (len <= n) return wl_error(WL_ERR_INVALID, "buffer too small");
    memcpy(buf, t, n + 1);
    return WL_OK;
}
