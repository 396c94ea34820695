/* fuzz_auto.c - libFuzzer target for wl_pattern_read_mem: format detection, gzip inflation
 * (bombs among the seeds must be refused or stopped by the limit fast) and every reader
 * behind it; a pattern it reads must survive RLE and macrocell round trips, and reading
 * through a small window must give the same outcome. */
#include "fuzz_common.h"

/* wl_pattern_read_mem in the shape of a one-format reader (fills the caller's pattern). */
static wl_status read_auto(const char *s, size_t len, const char *name, wl_pattern *p) {
    wl_pattern *r = NULL;
    wl_status e = wl_pattern_read_mem(s, len, name, &r);
    if (e) return e;
    wl_pattern_clear(p);
    free(p->comments);
    *p = *r; /* take r's storage, rule and comments */
    free(r);
    return WL_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static char msg[1024];
    wl_pattern *p = wl_pattern_new();
    if (!p) return 0;
    wl_status s = read_auto((const char *)data, size, "fuzz", p);
    snprintf(msg, sizeof msg, "%s", wl_last_error());
    fuzz_same_in_windows(read_auto, data, size, s, p, msg);
    if (s == WL_OK) {
        fuzz_roundtrip(p, WL_FORMAT_RLE);
        fuzz_roundtrip(p, WL_FORMAT_MACROCELL);
    }
    wl_pattern_free(p);
    return 0;
}
