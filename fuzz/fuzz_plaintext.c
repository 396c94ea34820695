/* fuzz_plaintext.c - libFuzzer target for the plaintext reader (+ round-trip check). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_one(wl_plaintext_read, WL_FORMAT_PLAINTEXT, data, size);
    return 0;
}
