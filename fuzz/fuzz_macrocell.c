/* fuzz_macrocell.c - libFuzzer target for the macrocell reader (+ round-trip check). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_one(wl_macrocell_read, WL_FORMAT_MACROCELL, data, size);
    return 0;
}
