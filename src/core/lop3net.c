/*
 * lop3net.c - PLACEHOLDER: stubs until the synthesiser lands (the API in lop3net.h is final).
 */
#include "lop3net.h"

#include "internal.h"

void wl_lop3_table(uint16_t birth, uint16_t survive, uint32_t *table, uint32_t *care) {
    (void)birth, (void)survive;
    *table = 0, *care = 0;
}
wl_status wl_lop3_synth(uint16_t birth, uint16_t survive, wl_lop3_net *net) {
    (void)birth, (void)survive, (void)net;
    return wl_error(WL_ERR_UNSUPPORTED, "wl_lop3_synth: not implemented yet");
}
uint64_t wl_lop3_eval(const wl_lop3_net *net, uint64_t x0, uint64_t k, uint64_t y1,
                      uint64_t y2, uint64_t ctr) {
    (void)net, (void)x0, (void)k, (void)y1, (void)y2, (void)ctr;
    return 0;
}
int wl_lop3_check(const wl_lop3_net *net) {
    (void)net;
    return 0;
}
int wl_lop3_emit(const wl_lop3_net *net, const char *macro,
                 const char *const names[WL_LOP3_INPUTS], const char *prefix,
                 const char *out_name, char *buf, size_t cap) {
    (void)net, (void)macro, (void)names, (void)prefix, (void)out_name, (void)buf, (void)cap;
    return -1;
}
