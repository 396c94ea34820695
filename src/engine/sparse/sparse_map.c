/*
 * sparse_map.c - the sparse engine's hash map of tiles: open addressing with linear
 * probing keyed by the tile's coordinates, growing at half load, deleting by backward
 * shift (no tombstones, so lookups never slow down as tiles come and go).  Freed tiles go
 * to a free list and are reused before new memory is asked for.
 */
#include "sparse_internal.h"

#include <stdlib.h>
#include <string.h>

#define MIN_CAP 1024

static size_t hash(int64_t tx, int64_t ty) {
    uint64_t h = (uint64_t)tx * 0x9E3779B97F4A7C15ull ^ (uint64_t)ty * 0xC2B2AE3D27D4EB4Full;
    return (size_t)(h ^ (h >> 29) ^ (h >> 47));
}

wl_status sp_map_init(sp_map *m) {
    memset(m, 0, sizeof *m);
    m->slot = wl_calloc(MIN_CAP, sizeof *m->slot);
    if (!m->slot) return WL_ERR_NOMEM;
    m->cap = MIN_CAP;
    return WL_OK;
}

void sp_map_clear(sp_map *m) {
    for (size_t i = 0; i < m->cap; i++) {
        if (m->slot[i]) wl_aligned_free(m->slot[i]);
        m->slot[i] = NULL;
    }
    m->count = 0;
    for (size_t i = 0; i < m->nfree; i++) wl_aligned_free(m->free_tiles[i]);
    m->nfree = 0;
}

void sp_map_free(sp_map *m) {
    if (!m->slot) return;
    sp_map_clear(m);
    free(m->slot);
    free(m->free_tiles);
    memset(m, 0, sizeof *m);
}

sp_tile *sp_map_find(const sp_map *m, int64_t tx, int64_t ty) {
    size_t mask = m->cap - 1;
    for (size_t i = hash(tx, ty) & mask;; i = (i + 1) & mask) {
        sp_tile *t = m->slot[i];
        if (!t) return NULL;
        if (t->tx == tx && t->ty == ty) return t;
    }
}

static void insert_slot(sp_tile **slot, size_t cap, sp_tile *t) {
    size_t mask = cap - 1, i = hash(t->tx, t->ty) & mask;
    while (slot[i]) i = (i + 1) & mask;
    slot[i] = t;
}

static wl_status grow(sp_map *m) {
    size_t cap = m->cap * 2;
    sp_tile **slot = wl_calloc(cap, sizeof *slot);
    if (!slot) return WL_ERR_NOMEM;
    for (size_t i = 0; i < m->cap; i++)
        if (m->slot[i]) insert_slot(slot, cap, m->slot[i]);
    free(m->slot);
    m->slot = slot;
    m->cap = cap;
    return WL_OK;
}

sp_tile *sp_map_get(sp_map *m, int64_t tx, int64_t ty) {
    sp_tile *t = sp_map_find(m, tx, ty);
    if (t) return t;
    if (2 * (m->count + 1) > m->cap && grow(m)) return NULL;
    if (m->nfree) {
        t = m->free_tiles[--m->nfree];
    } else {
        t = wl_aligned_alloc(sizeof *t);
        if (!t) return NULL;
    }
    memset(t, 0, sizeof *t);
    t->tx = tx;
    t->ty = ty;
    insert_slot(m->slot, m->cap, t);
    m->count++;
    return t;
}

void sp_map_remove(sp_map *m, sp_tile *t) {
    size_t mask = m->cap - 1, i = hash(t->tx, t->ty) & mask;
    while (m->slot[i] != t) i = (i + 1) & mask;
    /* backward shift: move later entries of the probe run into the hole when their home
     * slot does not lie cyclically in (hole, their slot] */
    size_t hole = i;
    for (size_t j = (i + 1) & mask; m->slot[j]; j = (j + 1) & mask) {
        size_t home = hash(m->slot[j]->tx, m->slot[j]->ty) & mask;
        int stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (stays) continue;
        m->slot[hole] = m->slot[j];
        hole = j;
    }
    m->slot[hole] = NULL;
    m->count--;
    if (m->nfree == m->free_cap) {
        size_t cap = m->free_cap ? 2 * m->free_cap : 256;
        sp_tile **f = realloc(m->free_tiles, cap * sizeof *f);
        if (!f) {
            wl_aligned_free(t);
            return;
        }
        m->free_tiles = f;
        m->free_cap = cap;
    }
    m->free_tiles[m->nfree++] = t;
}
