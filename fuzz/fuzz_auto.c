/* fuzz_auto.c - libFuzzer target for wl_pattern_read_mem: format detection, gzip inflation
 * and every reader behind it; a pattern it reads must survive RLE and macrocell round
 * trips. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    wl_pattern *p = NULL;
    if (wl_pattern_read_mem(data, size, "fuzz", &p) != WL_OK) return 0;
    fuzz_roundtrip(p, WL_FORMAT_RLE);
    fuzz_roundtrip(p, WL_FORMAT_MACROCELL);
    wl_pattern_free(p);
    return 0;
}
