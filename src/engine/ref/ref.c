/* PLACEHOLDER (to be replaced by the reference-engine work). */
#include "internal.h"
static wl_status create(const wl_config *cfg, const char *kernel, void **ctx) {
    (void)cfg; (void)kernel; (void)ctx;
    return wl_error(WL_ERR_UNAVAILABLE, "not yet");
}
static void destroy(void *ctx) { (void)ctx; }
static wl_status step(void *ctx, uint64_t n, uint64_t *done) { (void)ctx; (void)n; (void)done; return WL_OK; }
const wl_engine_ops wl_engine_ref = {
    .name = "ref", .description = "byte-per-cell reference", .caps = WL_CAP_TORUS | WL_CAP_BOUNDED | WL_CAP_ANY_RULE,
    .create = create, .destroy = destroy, .step = step,
};
