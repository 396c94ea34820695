/*
 * stream.h - what the two files of the `stream` engine share: the band plan (stream_plan.c,
 * pure arithmetic) used by the engine itself (stream_engine.c).  See stream_engine.c's
 * essay for the algorithm.
 */
#ifndef WL_STREAM_H
#define WL_STREAM_H

#include "internal.h"

/* Band slots: inner universes alive at once, each driven by its own host thread, so that
 * one slot's copies overlap another's compute.  Two are enough to hide the copies when a
 * band's compute takes longer than its copies (docs/BENCHMARKS.md, out-of-core). */
#define WL_STREAM_SLOTS 2
/* Largest halo depth (generations per pass) the engine plans or accepts from the
 * environment: past ~1024 the halo rows cost more than the passes they save. */
#define WL_STREAM_HALO_MAX 4096

/* How a W x H universe is cut for streaming. */
typedef struct stream_plan {
    uint64_t W, H;
    int torus;          /* 1 torus, 0 bounded */
    uint64_t k;         /* halo depth: at most k generations per pass */
    uint64_t band;      /* B: rows per band; the last band may be shorter */
    uint64_t nbands;    /* ceil(H / B) */
    uint64_t win;       /* rows of every slot's inner universe: B + 2k on a torus,
                           min(H, B + 2k) on a bounded grid */
    uint64_t row_bytes; /* bytes one inner buffer holds per row (the plan's unit) */
} stream_plan;

/* Plans the bands of a W x H universe (torus != 0: torus) whose inner universes hold two
 * buffers of `row_bytes` bytes per row each, WL_STREAM_SLOTS of them at once, within
 * `limit` bytes in all (0: no limit; then two bands).  halo > 0 forces the halo depth k
 * (tests, tuning); band > 0 forces at most that many rows per band.  Returns WL_OK and fills
 * *p, or WL_ERR_TOO_BIG when the limit cannot hold the slots' windows even for one-row
 * bands (the message says what it can hold), WL_ERR_INVALID for a zero size. */
wl_status stream_plan_make(uint64_t W, uint64_t H, int torus, uint64_t limit,
                           uint64_t row_bytes, uint64_t halo, uint64_t band, stream_plan *p);

/* Band b (0 <= b < p->nbands): its rows [*y0, *y0 + *rows) of the universe; the global row
 * *top (0 <= *top < H) that is row 0 of its window (window row i is global row
 * (*top + i) mod H); and *off, the window row of the band's first row. */
void stream_plan_band(const stream_plan *p, uint64_t b, uint64_t *y0, uint64_t *rows,
                      uint64_t *top, uint64_t *off);


#endif
