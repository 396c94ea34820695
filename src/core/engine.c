/*
 * engine.c - opening an engine instance from a configuration, the part of
 * wl_universe_create that does not need the facade: wrapper engines (mpi, stream) open
 * their inner engines with it, so that they stay below the facade (docs/ARCHITECTURE.md,
 * "Layers").
 */
#include "internal.h"

#include <string.h>

const char *wl_topology_name(wl_topology t) {
    switch (t) {
    case WL_TOPOLOGY_TORUS: return "torus";
    case WL_TOPOLOGY_BOUNDED: return "bounded";
    case WL_TOPOLOGY_PLANE: return "plane";
    }
    return "unknown";
}

unsigned wl_topology_cap(wl_topology t) {
    return t == WL_TOPOLOGY_TORUS ? WL_CAP_TORUS : t == WL_TOPOLOGY_BOUNDED ? WL_CAP_BOUNDED
                                                                            : WL_CAP_PLANE;
}

wl_status wl_engine_check(const wl_engine_ops *e, const wl_config *cfg) {
    if (!(e->caps & wl_topology_cap(cfg->topology)))
        return wl_error(WL_ERR_UNSUPPORTED, "engine '%s' does not support the %s topology",
                        e->name, wl_topology_name(cfg->topology));
    if (cfg->topology != WL_TOPOLOGY_PLANE && (!cfg->width || !cfg->height))
        return wl_error(WL_ERR_INVALID, "a %s needs a size of at least 1x1",
                        wl_topology_name(cfg->topology));
    return WL_OK;
}

wl_status wl_engine_open(const wl_engine_ops *e, const wl_config *cfg, void **ctx,
                         const char **kernel) {
    *ctx = NULL;
    if (e->probe) {
        wl_status s = e->probe();
        if (s) return s;
    }
    wl_status s = wl_engine_check(e, cfg);
    if (s) return s;
    const char *const *ks = e->kernels;
    const char *k = ks ? ks[0] : "default";
    if (cfg->kernel && *cfg->kernel) {
        k = NULL;
        for (size_t i = 0; ks && ks[i]; i++)
            if (strcmp(ks[i], cfg->kernel) == 0) k = ks[i];
        if (!ks && strcmp(cfg->kernel, "default") == 0) k = "default";
        if (!k) {
            char list[512] = "";
            for (size_t i = 0; ks && ks[i]; i++) {
                strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
                strncat(list, ks[i], sizeof list - strlen(list) - 1);
            }
            return wl_error(WL_ERR_NOT_FOUND, "engine '%s' has no kernel '%s' (kernels: %s)",
                            e->name, cfg->kernel, ks ? list : "default");
        }
    }
    wl_config c = *cfg;
    c.engine = e->name;
    c.kernel = k;
    s = e->create(&c, k, ctx);
    if (s) *ctx = NULL;
    else if (kernel) *kernel = k;
    return s;
}
