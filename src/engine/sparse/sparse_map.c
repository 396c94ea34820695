/*
 * sparse_map.c - the sparse engine's hash map of tiles: open addressing with linear
 * probing keyed by the tile's coordinates, growing at half load, deleting by backward
 * shift (no tombstones, so lookups never slow down as tiles come and go).  Freed tiles and
 * their blocks of cells go to free lists and are reused before new memory is asked for
 * (a few hundred blocks at most are kept: the memory packing saves goes back).
 *
 * Packing.  A tile that sleeps beside sleeping neighbours is neither computed nor read by
 * a round, so its two generations can be kept packed: parity 0 whole and parity 1 as the
 * rows where it differs (sp_packed), until a round needs it again (sp_unpack).  A settled
 * soup's tiles hold still lifes and blinkers, a few differing rows each: about 560 bytes
 * instead of 1024.
 */
#include "sparse_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MIN_CAP 1024
#define BLOCK_BYTES (2 * WL_TILE * sizeof(uint64_t))
#define FREE_BLOCKS_KEPT 256
#define PACK_MAX_DIFF 48 /* rows that differ; more and packing saves too little */

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

/* Keeps p (memory from wl_aligned_alloc) on a free list for reuse, or frees it when the
 * list already holds `keep` or cannot grow. */
static void keep_free(void ***list, size_t *n, size_t *cap, size_t keep, void *p) {
    if (*n == *cap && *n < keep) {
        size_t c = *cap ? 2 * *cap : 64;
        void **f = realloc(*list, c * sizeof *f);
        if (f) {
            *list = f;
            *cap = c;
        }
    }
    if (*n < *cap && *n < keep) (*list)[(*n)++] = p;
    else wl_aligned_free(p);
}

/* A tile's block of cells: its memory back to the free list or the system. */
static void block_release(sp_map *m, void *b) {
    keep_free(&m->free_blocks, &m->nblocks_free, &m->blocks_free_cap, FREE_BLOCKS_KEPT, b);
}

static void *block_get(sp_map *m) {
    return m->nblocks_free ? m->free_blocks[--m->nblocks_free] : wl_aligned_alloc(BLOCK_BYTES);
}

/* The bytes of a packed tile whose differing rows are diff_rows. */
static size_t packed_size(uint64_t diff_rows) {
    return sizeof(sp_packed) + (size_t)wl_popcount64(diff_rows) * sizeof(uint64_t);
}

/* Frees what tile t holds its cells in. */
static void cells_release(sp_map *m, sp_tile *t) {
    if (t->rows) block_release(m, t->rows);
    if (t->packed) {
        m->npacked--;
        m->packed_bytes -= packed_size(t->packed->diff_rows);
        free(t->packed);
    }
    t->rows = NULL;
    t->packed = NULL;
}

void sp_map_clear(sp_map *m) {
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->slot[i]) continue;
        cells_release(m, m->slot[i]);
        wl_aligned_free(m->slot[i]);
        m->slot[i] = NULL;
    }
    m->count = 0;
    for (size_t i = 0; i < m->nfree; i++) wl_aligned_free(m->free_tiles[i]);
    m->nfree = 0;
    for (size_t i = 0; i < m->nblocks_free; i++) wl_aligned_free(m->free_blocks[i]);
    m->nblocks_free = 0;
}

void sp_map_free(sp_map *m) {
    if (!m->slot) return;
    sp_map_clear(m);
    free(m->slot);
    free(m->free_tiles);
    free(m->free_blocks);
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
    void *b = block_get(m);
    if (!b) return NULL;
    if (m->nfree) {
        t = m->free_tiles[--m->nfree];
    } else {
        t = wl_aligned_alloc(sizeof *t);
        if (!t) {
            block_release(m, b);
            return NULL;
        }
    }
    memset(t, 0, sizeof *t);
    memset(b, 0, BLOCK_BYTES);
    t->rows = b;
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
    cells_release(m, t);
    keep_free(&m->free_tiles, &m->nfree, &m->free_cap, SIZE_MAX, t);
}

int sp_pack(sp_map *m, sp_tile *t) {
    if (!t->rows || t->zero) return 0;
    uint64_t diff_rows = 0;
    for (int r = 0; r < WL_TILE; r++)
        if (t->rows[0][r] != t->rows[1][r]) diff_rows |= (uint64_t)1 << r;
    if (wl_popcount64(diff_rows) > PACK_MAX_DIFF) return 0;
    size_t bytes = packed_size(diff_rows);
    sp_packed *p = malloc(bytes);
    if (!p) return 0;
    p->diff_rows = diff_rows;
    memcpy(p->base, t->rows[0], sizeof p->base);
    unsigned k = 0;
    for (uint64_t d = diff_rows; d; d &= d - 1) {
        int r = __builtin_ctzll(d);
        p->diff[k++] = t->rows[0][r] ^ t->rows[1][r];
    }
    block_release(m, t->rows);
    t->rows = NULL;
    t->packed = p;
    for (int d = 0; d < 8; d++)
        if (!t->nb[d]->zero) t->nb[d]->nb_rows[d ^ 4] = NULL;
    m->npacked++;
    m->packed_bytes += bytes;
    return 1;
}

wl_status sp_unpack(sp_map *m, sp_tile *t) {
    if (!t->packed) return WL_OK;
    uint64_t (*b)[WL_TILE] = block_get(m);
    if (!b) return wl_error(WL_ERR_NOMEM, "sparse engine: out of memory (%zu tiles)", m->count);
    for (int r = 0; r < WL_TILE; r++) {
        b[0][r] = sp_row(t, 0, r);
        b[1][r] = sp_row(t, 1, r);
    }
    m->npacked--;
    m->packed_bytes -= packed_size(t->packed->diff_rows);
    free(t->packed);
    t->packed = NULL;
    t->rows = b;
    for (int d = 0; d < 8; d++)
        if (!t->nb[d]->zero) t->nb[d]->nb_rows[d ^ 4] = b;
    return WL_OK;
}
