/* fuzz_life.c - libFuzzer target for the Life 1.05 and Life 1.06 readers (both run on
 * every input, each with a write/read round-trip check in its own format). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_one(wl_life105_read, WL_FORMAT_LIFE105, data, size);
    fuzz_one(wl_life106_read, WL_FORMAT_LIFE106, data, size);
    return 0;
}
