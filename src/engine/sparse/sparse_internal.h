/*
 * sparse_internal.h - what the files of the sparse engine share: the tile, its activity
 * record, and the hash map of tiles (sparse_map.c).  sparse.c explains the algorithm.
 */
#ifndef WL_SPARSE_INTERNAL_H
#define WL_SPARSE_INTERNAL_H

#include "internal.h"

#include <stdint.h>

#define SP_TILE 64 /* tile side in cells: one 64-bit word per row */

/* Where a tile changed between two generations: rows [lo, hi) and the OR of the changed
 * words (bit b = column b), a bounding box that may be larger than the change itself.
 * Empty when lo >= hi. */
typedef struct sp_box {
    uint8_t lo, hi;
    uint64_t cols;
} sp_box;

/* A 64 x 64 tile of the plane: cells (64 tx + b, 64 ty + r) are bit b of rows[r].  Tiles
 * that do not exist are all dead. */
typedef struct sp_tile {
    uint64_t rows[SP_TILE];
    int64_t tx, ty;
    struct sp_tile *nb[8]; /* neighbours N, NE, E, SE, S, SW, W, NW (NULL: none) */
    sp_box d1;  /* state now against one generation ago */
    sp_box d2;  /* state now against two generations ago */
    /* the current pass */
    uint8_t nlo, nhi;  /* rows it must compute */
    uint8_t queued;    /* in the pass's list */
    uint8_t listed;    /* in the engine's list of changing tiles */
    uint32_t slot;     /* its index in the pass's list */
} sp_tile;

/* An open-addressing hash map from tile coordinates to tiles (linear probing, deletion by
 * backward shift), plus the allocator of the tiles themselves. */
typedef struct sp_map {
    sp_tile **slot;
    size_t cap, count; /* cap is a power of two, count < cap / 2 */
    sp_tile **free_tiles;
    size_t nfree, free_cap;
} sp_map;

wl_status sp_map_init(sp_map *m);
void sp_map_free(sp_map *m);
/* Removes and frees every tile. */
void sp_map_clear(sp_map *m);
/* The tile at (tx, ty), or NULL. */
sp_tile *sp_map_find(const sp_map *m, int64_t tx, int64_t ty);
/* The tile at (tx, ty), created all dead (boxes empty) if missing; NULL on out of memory
 * (error set). */
sp_tile *sp_map_get(sp_map *m, int64_t tx, int64_t ty);
/* Removes the tile from the map and recycles it. */
void sp_map_remove(sp_map *m, sp_tile *t);

#endif
