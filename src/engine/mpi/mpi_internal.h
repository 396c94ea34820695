/*
 * mpi_internal.h - what the files of the mpi engine share: the context of one universe, the
 * decomposition into row bands and local grids (mpi_plan.c), the halo exchange plan and its
 * generic exchange (mpi_plan.c), and the full-copy path for inner engines without row ops
 * (mpi_full.c).  The essay is at the top of mpi_engine.c.
 */
#ifndef WL_MPI_INTERNAL_H
#define WL_MPI_INTERNAL_H

#include "internal.h"

#include <mpi.h>

/* Largest halo depth WL_MPI_HALO may ask for. */
#define WL_MPI_HALO_MAX 1024

typedef struct mpi_ctx mpi_ctx;

/* Where the exchange takes this rank's own row g (a global row of its band) from, and where
 * it puts local row li once its content (W bits at gstride words) has arrived. */
typedef const uint64_t *(*mpi_row_src)(mpi_ctx *c, uint64_t g);
typedef void (*mpi_row_dst)(mpi_ctx *c, uint64_t li, const uint64_t *row);

struct mpi_ctx {
    wl_config cfg;          /* the universe's configuration (engine "mpi") */
    const char *inner_name; /* "cpu", "ref" or "cuda" */
    const wl_engine_ops *inner_ops; /* its engine (device slots for pinned strips) */
    MPI_Comm comm;
    int rank, size;
    int persistent;         /* 1: the inner universe keeps the state (row ops); 0: full path */
    uint64_t W, H;
    uint64_t k;             /* halo depth, 1..WL_MPI_HALO_MAX, <= H, rank 0's */
    uint64_t r0, rows;      /* this rank's band: global rows [r0, r0 + rows) */
    size_t gstride;         /* words per global row: (W + 63) / 64 */
    uint64_t nloc, off;     /* local grid rows, index of the first band row in it */
    void *inner;            /* the inner engine's context (inner_ops; NULL when rows == 0) */
    /* exchange plan (mpi_plan.c): the local rows this rank fills by exchange ... */
    uint64_t nneed;
    uint64_t *need_li;      /* local row index */
    uint64_t *need_g;       /* its global row */
    int *need_owner;        /* the rank owning it */
    uint64_t *need_pos;     /* its row in recvbuf (owner != rank) */
    /* ... and the rows it sends, grouped by destination rank */
    uint64_t nsend;
    uint64_t *send_g;
    int *scount, *sdispl, *rcount, *rdispl; /* per rank, in rows */
    uint64_t *sendbuf, *recvbuf;
    MPI_Request *req;       /* 2 P requests; nreq of them posted */
    int nreq;
    /* persistent path: messages straight from the edge buffer into the halo buffer through
     * MPI datatypes (no packing copies); MPI_DATATYPE_NULL where no message */
    MPI_Datatype rowtype, *stype, *rtype;
    uint64_t nself;         /* needed rows this rank owns: (edge index, halo index) pairs */
    uint64_t *self_src, *self_dst;
    /* persistent path */
    uint64_t et;            /* edge rows stored from each end of the band (all if 2et >= rows) */
    int need_edges;         /* some rank (maybe this one) needs rows of this band */
    uint64_t *edge;         /* 2 et rows (or `rows` rows) of the band, at gstride */
    uint64_t *halo;         /* nloc - rows halo rows in local order, at gstride */
    int pinned;             /* edge and halo are pinned host memory (cuda inner engine) */
    int fresh;              /* the halos hold the current generation (just loaded) */
    /* full path (mpi_full.c) */
    uint64_t kx;            /* horizontal halo: k on a torus, 0 on a bounded grid */
    wl_grid band;           /* rows x W: the authoritative state */
    wl_grid local;          /* (W + 2kx, padded) x nloc */
    /* statistics (verbose notes) */
    uint64_t nexchange;
    double t_exchange, t_step;
    double t_store, t_load; /* persistent path: the strips' share of t_exchange */
};

/* ---- MPI errors (mpi_plan.c) ---- */
/* Sets WL_ERR_DEVICE with MPI's message for error code err of `what`; returns it. */
wl_status mpi_fail(int err, const char *what);
#define MPI_TRY(call, what)                                                                 \
    do {                                                                                    \
        int mpi_err_ = (call);                                                              \
        if (mpi_err_ != MPI_SUCCESS) return mpi_fail(mpi_err_, what);                       \
    } while (0)

/* ---- decomposition (mpi_plan.c) ---- */
/* Rank r's band: global rows [*r0, *r0 + *rows). */
void mpi_band_of(const mpi_ctx *c, int r, uint64_t *r0, uint64_t *rows);
/* The rank owning global row g. */
int mpi_owner_of(const mpi_ctx *c, uint64_t g);
/* Rank r's local grid: mpi_local_rows rows, the band from local row mpi_band_offset on,
 * local row i being global row mpi_row_of(c, r, i).  Needs c->persistent, k, H, topology. */
uint64_t mpi_local_rows(const mpi_ctx *c, int r);
uint64_t mpi_band_offset(const mpi_ctx *c, int r);
uint64_t mpi_row_of(const mpi_ctx *c, int r, uint64_t i);

/* ---- the exchange (mpi_plan.c) ---- */
/* Builds the plan for this rank: which local rows it receives (all local rows on the full
 * path, only halo rows on the persistent path) and which rows it sends to whom; allocates
 * the message buffers.  WL_ERR_TOO_BIG if a message exceeds MPI's int count. */
wl_status mpi_plan_build(mpi_ctx *c);
void mpi_plan_free(mpi_ctx *c);
/* Posts the receives of one exchange (call first, then mpi_exchange_finish). */
wl_status mpi_exchange_post(mpi_ctx *c);
/* Packs the rows to send through src, sends them, waits for everything, and places every
 * needed local row through dst (own rows through src, others from the messages). */
wl_status mpi_exchange_finish(mpi_ctx *c, mpi_row_src src, mpi_row_dst dst);

/* Maps a row (global row for the source, local row for the destination) to its row index
 * in the persistent path's edge / halo buffer. */
typedef uint64_t (*mpi_row_index)(const mpi_ctx *c, uint64_t row);
/* After mpi_plan_build: one MPI datatype per message, selecting the rows at their indices
 * in the source and destination buffers, so that messages need no packing. */
wl_status mpi_plan_direct(mpi_ctx *c, mpi_row_index src_index, mpi_row_index dst_index);
/* The exchange with those datatypes: receives posted into dst, then sends from src, wait,
 * and this rank's own needed rows copied from src to dst. */
wl_status mpi_exchange_post_direct(mpi_ctx *c, uint64_t *dst);
wl_status mpi_exchange_finish_direct(mpi_ctx *c, const uint64_t *src, uint64_t *dst);

/* ---- the full-copy path (mpi_full.c) ---- */
/* Allocates the band and the local grid; returns the local width for the inner universe. */
wl_status mpi_full_alloc(mpi_ctx *c, uint64_t *local_width);
/* One chunk: exchange into the local grid, load it into the inner universe, step s
 * generations, copy the band back. */
wl_status mpi_full_chunk(mpi_ctx *c, uint64_t s);

#endif
