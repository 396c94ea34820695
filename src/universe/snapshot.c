/*
 * snapshot.c - wl_universe_snapshot: a universe's live cells copied into a snapshot (the
 * bitmap of src/render/render.c) for a viewer to draw while the universe goes on stepping.
 * A grid engine stores its grid straight into the snapshot's reused bitmap (wl_grid's
 * layout is the snapshot's, placed by wl_universe_load's rule: column c is x = c -
 * floor(W/2)); a plane engine goes through a stored pattern.
 */
#include "internal.h"

wl_status wl_universe_snapshot(wl_universe *u, wl_snapshot **snap) {
    if (!u || !snap) return wl_error(WL_ERR_INVALID, "snapshot: NULL argument");
    wl_snapshot *s = *snap ? *snap : wl_snapshot_new();
    if (!s) return WL_ERR_NOMEM;
    const wl_engine_ops *ops = wl_universe_ops(u);
    const wl_config *cfg = wl_universe_config(u);
    wl_status st;
    if (cfg->topology != WL_TOPOLOGY_PLANE && ops->store_grid) {
        uint64_t *bits;
        unsigned planes = wl_grid_planes_for(&cfg->rule);
        st = wl_snapshot_bitmap_planes(s, -(int64_t)(cfg->width / 2), -(int64_t)(cfg->height / 2),
                                       cfg->width, cfg->height, planes, &bits);
        if (!st) {
            wl_grid g = {cfg->width, cfg->height, (size_t)((cfg->width + 63) / 64), bits, planes};
            st = ops->store_grid(wl_universe_ctx(u), &g);
        }
        wl_snapshot_set_rule(s, &cfg->rule);
    } else {
        wl_pattern *p = NULL;
        st = wl_universe_store(u, &p);
        if (!st) st = wl_snapshot_from_pattern(s, p);
        wl_pattern_free(p);
    }
    if (st) {
        if (!*snap) wl_snapshot_free(s);
        return st;
    }
    wl_bigint g;
    wl_universe_generation(u, &g);
    wl_snapshot_set_generation(s, &g);
    *snap = s;
    return WL_OK;
}
