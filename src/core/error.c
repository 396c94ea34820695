/*
 * error.c - status names and the per-thread last-error message.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#define WL_ERROR_MAX 1024

static _Thread_local char last_error[WL_ERROR_MAX];

const char *wl_status_str(wl_status s) {
    switch (s) {
    case WL_OK: return "ok";
    case WL_ERR_INVALID: return "invalid argument";
    case WL_ERR_PARSE: return "parse error";
    case WL_ERR_IO: return "i/o error";
    case WL_ERR_NOMEM: return "out of memory";
    case WL_ERR_TOO_BIG: return "too big";
    case WL_ERR_UNSUPPORTED: return "unsupported";
    case WL_ERR_UNAVAILABLE: return "unavailable";
    case WL_ERR_DEVICE: return "device error";
    case WL_ERR_INTERRUPTED: return "interrupted";
    case WL_ERR_NOT_FOUND: return "not found";
    }
    return "unknown status";
}

const char *wl_last_error(void) { return last_error; }

void wl_clear_error(void) { last_error[0] = '\0'; }

wl_status wl_verror(wl_status s, const char *fmt, va_list ap) {
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    return s;
}

wl_status wl_error(wl_status s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    wl_verror(s, fmt, ap);
    va_end(ap);
    return s;
}

void wl_error_prefix(const char *fmt, ...) {
    char prefix[WL_ERROR_MAX], old[WL_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, last_error, sizeof old);
    size_t n = strlen(prefix);
    if (n > WL_ERROR_MAX / 2) n = WL_ERROR_MAX / 2;
    memcpy(last_error, prefix, n);
    memcpy(last_error + n, ": ", 2);
    size_t room = WL_ERROR_MAX - n - 3;
    size_t m = strlen(old);
    if (m > room) m = room;
    memcpy(last_error + n + 2, old, m);
    last_error[n + 2 + m] = '\0';
}
