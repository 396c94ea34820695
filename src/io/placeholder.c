/* PLACEHOLDER (to be replaced by the pattern-file work). */
#include "internal.h"

wl_status wl_pattern_read_mem(const void *data, size_t len, const char *name, wl_pattern **out) {
    (void)data; (void)len; (void)out;
    return wl_error(WL_ERR_UNSUPPORTED, "%s: pattern files are not implemented yet", name);
}
wl_status wl_pattern_read_file(const char *path, wl_pattern **out) { return wl_pattern_read_mem("", 0, path, out); }
wl_status wl_pattern_write_file(const wl_pattern *p, const char *path, wl_format fmt, int gz) {
    (void)p; (void)fmt; (void)gz;
    return wl_error(WL_ERR_UNSUPPORTED, "%s: pattern files are not implemented yet", path);
}
