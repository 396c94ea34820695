/* fuzz_rle.c - libFuzzer target for the RLE reader (+ round-trip check). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_one(wl_rle_read, WL_FORMAT_RLE, data, size);
    return 0;
}
