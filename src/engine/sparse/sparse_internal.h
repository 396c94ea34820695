/*
 * sparse_internal.h - what the files of the sparse engine share: the tile and the hash map
 * of tiles (sparse_map.c).  sparse.c explains the algorithm.
 */
#ifndef WL_SPARSE_INTERNAL_H
#define WL_SPARSE_INTERNAL_H

#include "internal.h"

#include <stdint.h>

/* A 64 x 64 tile of the plane (WL_TILE, layout of wl_tile_job): rows[g & 1] holds the tile
 * at generation g, for the current generation and the one before.  Tiles that do not
 * exist are dead at both. */
typedef struct sp_tile {
    uint64_t rows[2][WL_TILE];
    struct sp_tile *nb[8]; /* neighbours N, NE, E, SE, S, SW, W, NW (the zero tile: none) */
    int64_t tx, ty;
    /* Per round parity k (the round that computes generation g + 1 from g, g & 1 == k):
     * the bricks (WL_BRICK rows) to compute, and whether the tile is in that round's list.
     * Two of each, so that a tile marks the next round while the current one runs. */
    uint8_t wake[2];
    uint8_t listed[2];
    uint8_t edited; /* cells were set from outside since its last computation */
    uint8_t zero;   /* the shared all-dead tile that stands for missing neighbours */
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
/* The tile at (tx, ty), created all dead (every field zero) if missing; NULL on out of
 * memory (error set). */
sp_tile *sp_map_get(sp_map *m, int64_t tx, int64_t ty);
/* Removes the tile from the map and recycles it. */
void sp_map_remove(sp_map *m, sp_tile *t);

#endif
