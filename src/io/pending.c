/* TEMPORARY (being replaced within the hour): formats other than RLE are not written yet. */
#include "io_internal.h"

#define PENDING(fn, what)                                                                   \
    wl_status fn(const char *s, size_t len, const char *name, wl_pattern *p) {              \
        (void)s; (void)len; (void)p;                                                        \
        return wl_error(WL_ERR_UNSUPPORTED, "%s: %s files are not implemented yet", name, what); \
    }
PENDING(wl_plaintext_read, "plaintext")
PENDING(wl_life105_read, "Life 1.05")
PENDING(wl_life106_read, "Life 1.06")
PENDING(wl_macrocell_read, "macrocell")
#define PENDING_W(fn, what)                                                                 \
    wl_status fn(const wl_pattern *p, wl_iobuf *out) {                                      \
        (void)p; (void)out;                                                                 \
        return wl_error(WL_ERR_UNSUPPORTED, "writing %s files is not implemented yet", what); \
    }
PENDING_W(wl_plaintext_write, "plaintext")
PENDING_W(wl_life105_write, "Life 1.05")
PENDING_W(wl_life106_write, "Life 1.06")
PENDING_W(wl_macrocell_write, "macrocell")
