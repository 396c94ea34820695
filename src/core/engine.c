/*
 * engine.c - opening an engine instance from a configuration, the part of
 * wl_universe_create that does not need the facade: wrapper engines (mpi, stream) open
 * their inner engines with it, so that they stay below the facade (docs/ARCHITECTURE.md,
 * "Layers").
 */
#include "internal.h"

#include <string.h>

unsigned wl_topology_cap(wl_topology t) {
    switch (t) {
    case WL_TOPOLOGY_TORUS: return WL_CAP_TORUS;
    case WL_TOPOLOGY_BOUNDED: return WL_CAP_BOUNDED;
    case WL_TOPOLOGY_PLANE: return WL_CAP_PLANE;
    default: return WL_CAP_GLUED;
    }
}

unsigned wl_family_cap(wl_family f) {
    switch (f) {
    case WL_FAMILY_GENERATIONS: return WL_CAP_GENERATIONS;
    case WL_FAMILY_LTL: return WL_CAP_LTL;
    case WL_FAMILY_HISTORY: return WL_CAP_HISTORY;
    case WL_FAMILY_SUPER: return WL_CAP_SUPER;
    default: return 0;
    }
}

wl_status wl_engine_check(const wl_engine_ops *e, const wl_config *cfg) {
    wl_topology t = cfg->topology;
    int glued = t == WL_TOPOLOGY_TORUS && (cfg->glue.hshift || cfg->glue.vshift);
    unsigned need = glued ? WL_CAP_TORUS | WL_CAP_GLUED : wl_topology_cap(t);
    if ((e->caps & need) != need)
        return wl_error(WL_ERR_UNSUPPORTED, "engine '%s' does not support the %s%s topology",
                        e->name, glued ? "shifted " : "", wl_topology_name(t));
    if (t != WL_TOPOLOGY_PLANE && (!cfg->width || !cfg->height))
        return wl_error(WL_ERR_INVALID, "a %s needs a size of at least 1x1", wl_topology_name(t));
    if (t == WL_TOPOLOGY_SPHERE && cfg->width != cfg->height)
        return wl_error(WL_ERR_INVALID, "a sphere is square (%llux%llu given)",
                        (unsigned long long)cfg->width, (unsigned long long)cfg->height);
    wl_family f = wl_rule_family(&cfg->rule);
    unsigned fc = wl_family_cap(f);
    if (fc && !(e->caps & fc))
        return wl_error(WL_ERR_UNSUPPORTED, "engine '%s' does not run %s rules", e->name,
                        wl_family_name(f));
    if (f == WL_FAMILY_LTL && (need & WL_CAP_GLUED))
        return wl_error(WL_ERR_UNSUPPORTED, "Larger than Life rules run on tori, bounded grids "
                        "and the plane only (as in Golly), not on a %s%s", glued ? "shifted " : "",
                        wl_topology_name(t));
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
