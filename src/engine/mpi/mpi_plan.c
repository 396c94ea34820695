/*
 * mpi_plan.c - the mpi engine's decomposition and halo exchange (essay: mpi_engine.c).
 *
 * Bands.  The H rows are cut into P bands in rank order, rank r owning base + (r < rem)
 * rows (base = H / P, rem = H % P), so ranks past H own nothing when H < P.
 *
 * Local grids.  Rank r's local grid is its band plus up to k rows above and below:
 *   torus:   band + 2v rows, local row i = global row (r0 - v + i) mod H, where v = k, except
 *            v = 0 on the persistent path when the band is the whole torus (one rank, or
 *            H < P leaving every row to rank 0): the inner torus then is the universe;
 *   bounded: global rows [max(0, r0 - k), min(H, r0 + band + k)), so the local grid stops at
 *            the universe's own top and bottom.
 * The same formulas hold for every rank, so each rank can work out what every other needs.
 *
 * The plan.  A rank "needs" a local row when it must be filled by the exchange: every local
 * row on the full path, only the rows outside its band on the persistent path.  For each
 * rank q and each row q needs, the owner p of that global row sends it; p sends q, in one
 * message, all such rows in q's list order, and q unpacks them in the same order.  With
 * bands of at least k rows that is one message to each neighbour; with thin bands (or
 * k > band) rows come from farther ranks, and a torus rank may need its own rows (wrapped):
 * those it takes from itself without a message.  The plan is built once at creation.
 *
 * Messages: MPI_Irecv posted first (before the sender's rows are even stored), MPI_Isend as
 * soon as the send buffer is packed, one MPI_Waitall.  On the persistent path the rows go
 * straight from the edge buffer to the halo buffer: each message is described by an MPI
 * datatype that picks its rows at their places in the two buffers (an indexed block of
 * row types), so neither side copies rows into or out of a message buffer.
 */
#include "mpi_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

wl_status mpi_fail(int err, const char *what) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(err, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "code %d", err);
    return wl_error(WL_ERR_DEVICE, "mpi engine: %s failed: %s", what, msg);
}

/* ---- decomposition ------------------------------------------------------------------- */

void mpi_band_of(const mpi_ctx *c, int r, uint64_t *r0, uint64_t *rows) {
    uint64_t base = c->H / (uint64_t)c->size, rem = c->H % (uint64_t)c->size, ur = (uint64_t)r;
    *rows = base + (ur < rem);
    *r0 = ur * base + (ur < rem ? ur : rem);
}

int mpi_owner_of(const mpi_ctx *c, uint64_t g) {
    uint64_t base = c->H / (uint64_t)c->size, rem = c->H % (uint64_t)c->size;
    if (g < rem * (base + 1)) return (int)(g / (base + 1));
    return (int)(rem + (g - rem * (base + 1)) / base);
}

/* Vertical halo depth of rank r on a torus (see the header comment). */
static uint64_t torus_halo(const mpi_ctx *c, uint64_t rows) {
    return c->persistent && rows == c->H ? 0 : c->k;
}

uint64_t mpi_local_rows(const mpi_ctx *c, int r) {
    uint64_t r0, rows;
    mpi_band_of(c, r, &r0, &rows);
    if (!rows) return 0;
    if (c->cfg.topology == WL_TOPOLOGY_TORUS) return rows + 2 * torus_halo(c, rows);
    uint64_t top = r0 > c->k ? r0 - c->k : 0, bot = r0 + rows + c->k;
    return (bot < c->H ? bot : c->H) - top;
}

uint64_t mpi_band_offset(const mpi_ctx *c, int r) {
    uint64_t r0, rows;
    mpi_band_of(c, r, &r0, &rows);
    if (c->cfg.topology == WL_TOPOLOGY_TORUS) return torus_halo(c, rows);
    return r0 > c->k ? c->k : r0;
}

uint64_t mpi_row_of(const mpi_ctx *c, int r, uint64_t i) {
    uint64_t r0, rows;
    mpi_band_of(c, r, &r0, &rows);
    if (c->cfg.topology == WL_TOPOLOGY_TORUS) {
        uint64_t v = torus_halo(c, rows); /* v <= k <= H: no underflow below */
        return (r0 + i + c->H - v) % c->H;
    }
    return (r0 > c->k ? r0 - c->k : 0) + i;
}

/* Does rank q fill its local row i by exchange? */
static int needed(const mpi_ctx *c, int q, uint64_t i) {
    if (!c->persistent) return 1;
    uint64_t r0, rows;
    mpi_band_of(c, q, &r0, &rows);
    uint64_t off = mpi_band_offset(c, q);
    return i < off || i >= off + rows;
}

/* ---- the plan ---------------------------------------------------------------------------- */

void mpi_plan_free(mpi_ctx *c) {
    int fin = 0;
    MPI_Finalized(&fin);
    for (int p = 0; !fin && p < c->size; p++) {
        if (c->stype && c->stype[p] != MPI_DATATYPE_NULL) MPI_Type_free(&c->stype[p]);
        if (c->rtype && c->rtype[p] != MPI_DATATYPE_NULL) MPI_Type_free(&c->rtype[p]);
    }
    if (!fin && c->rowtype != MPI_DATATYPE_NULL) MPI_Type_free(&c->rowtype);
    free(c->stype);
    free(c->rtype);
    free(c->self_src);
    free(c->self_dst);
    free(c->need_li);
    free(c->need_g);
    free(c->need_owner);
    free(c->need_pos);
    free(c->send_g);
    free(c->scount);
    free(c->sdispl);
    free(c->rcount);
    free(c->rdispl);
    free(c->sendbuf);
    free(c->recvbuf);
    free(c->req);
}

wl_status mpi_plan_build(mpi_ctx *c) {
    size_t ib = (size_t)c->size * sizeof(int);
    c->scount = wl_calloc(1, ib);
    c->sdispl = wl_calloc(1, ib);
    c->rcount = wl_calloc(1, ib);
    c->rdispl = wl_calloc(1, ib);
    c->req = wl_malloc(2 * (size_t)c->size * sizeof *c->req);
    if (!c->scount || !c->sdispl || !c->rcount || !c->rdispl || !c->req) return WL_ERR_NOMEM;
    /* What this rank sends: for every other rank q, the rows q needs that it owns. */
    uint64_t nsend = 0;
    for (int pass = 0; pass < 2; pass++) { /* count, then fill */
        nsend = 0;
        for (int q = 0; q < c->size; q++) {
            c->sdispl[q] = (int)nsend;
            uint64_t n = q == c->rank ? 0 : mpi_local_rows(c, q);
            for (uint64_t i = 0; i < n; i++) {
                if (!needed(c, q, i)) continue;
                uint64_t g = mpi_row_of(c, q, i);
                if (mpi_owner_of(c, g) != c->rank) continue;
                if (pass) c->send_g[nsend] = g;
                nsend++;
            }
            c->scount[q] = (int)(nsend - (uint64_t)c->sdispl[q]);
        }
        if (!pass && !(c->send_g = wl_malloc((size_t)(nsend ? nsend : 1) * sizeof(uint64_t))))
            return WL_ERR_NOMEM;
    }
    c->nsend = nsend;
    /* What this rank needs, and from whom. */
    uint64_t nl = mpi_local_rows(c, c->rank), nneed = 0;
    for (uint64_t i = 0; i < nl; i++) nneed += (uint64_t)needed(c, c->rank, i);
    size_t nb = (size_t)(nneed ? nneed : 1);
    c->need_li = wl_malloc(nb * sizeof(uint64_t));
    c->need_g = wl_malloc(nb * sizeof(uint64_t));
    c->need_owner = wl_malloc(nb * sizeof(int));
    c->need_pos = wl_malloc(nb * sizeof(uint64_t));
    if (!c->need_li || !c->need_g || !c->need_owner || !c->need_pos) return WL_ERR_NOMEM;
    c->nneed = 0;
    for (uint64_t i = 0; i < nl; i++) {
        if (!needed(c, c->rank, i)) continue;
        uint64_t g = mpi_row_of(c, c->rank, i);
        c->need_li[c->nneed] = i;
        c->need_g[c->nneed] = g;
        c->need_owner[c->nneed] = mpi_owner_of(c, g);
        c->nneed++;
    }
    /* Receive buffer: the messages in rank order, each in list order. */
    uint64_t nrecv = 0;
    for (int p = 0; p < c->size; p++) {
        c->rdispl[p] = (int)nrecv;
        if (p != c->rank)
            for (uint64_t n = 0; n < c->nneed; n++)
                if (c->need_owner[n] == p) c->need_pos[n] = nrecv++;
        c->rcount[p] = (int)(nrecv - (uint64_t)c->rdispl[p]);
    }
    uint64_t most = nsend > nrecv ? nsend : nrecv;
    if (most * c->gstride > (uint64_t)INT_MAX)
        return wl_error(WL_ERR_TOO_BIG, "mpi engine: a halo message of %llu rows of %llu cells "
                        "exceeds MPI's int count", (unsigned long long)most,
                        (unsigned long long)c->W);
    c->sendbuf = wl_malloc((size_t)(nsend ? nsend : 1) * c->gstride * sizeof(uint64_t));
    c->recvbuf = wl_malloc((size_t)(nrecv ? nrecv : 1) * c->gstride * sizeof(uint64_t));
    if (!c->sendbuf || !c->recvbuf) return WL_ERR_NOMEM;
    return WL_OK;
}

/* ---- one exchange ---------------------------------------------------------------------- */

/* Any fixed tag: one message per ordered pair of ranks per exchange, matched in order. */
#define HALO_TAG 7

wl_status mpi_exchange_post(mpi_ctx *c) {
    size_t gs = c->gstride;
    int err = MPI_SUCCESS;
    c->nreq = 0;
    for (int p = 0; p < c->size && err == MPI_SUCCESS; p++)
        if (c->rcount[p])
            err = MPI_Irecv(c->recvbuf + (size_t)c->rdispl[p] * gs, c->rcount[p] * (int)gs,
                            MPI_UINT64_T, p, HALO_TAG, c->comm, &c->req[c->nreq++]);
    if (err != MPI_SUCCESS) return mpi_fail(err, "MPI_Irecv (halo)");
    return WL_OK;
}

wl_status mpi_exchange_finish(mpi_ctx *c, mpi_row_src src, mpi_row_dst dst) {
    size_t gs = c->gstride;
    int err = MPI_SUCCESS;
    for (int q = 0; q < c->size && err == MPI_SUCCESS; q++) {
        if (!c->scount[q]) continue;
        for (int j = c->sdispl[q]; j < c->sdispl[q] + c->scount[q]; j++)
            memcpy(c->sendbuf + (size_t)j * gs, src(c, c->send_g[j]), gs * sizeof(uint64_t));
        err = MPI_Isend(c->sendbuf + (size_t)c->sdispl[q] * gs, c->scount[q] * (int)gs,
                        MPI_UINT64_T, q, HALO_TAG, c->comm, &c->req[c->nreq++]);
    }
    if (err == MPI_SUCCESS) err = MPI_Waitall(c->nreq, c->req, MPI_STATUSES_IGNORE);
    c->nreq = 0;
    if (err != MPI_SUCCESS) return mpi_fail(err, "halo exchange");
    for (uint64_t n = 0; n < c->nneed; n++) {
        const uint64_t *row = c->need_owner[n] == c->rank
                                  ? src(c, c->need_g[n])
                                  : c->recvbuf + (size_t)c->need_pos[n] * gs;
        dst(c, c->need_li[n], row);
    }
    return WL_OK;
}

/* ---- the persistent path's direct messages --------------------------------------------- */

/* An indexed block of n rows at the given row indices (MPI_DATATYPE_NULL when n == 0). */
static wl_status rows_type(mpi_ctx *c, int n, const int *idx, MPI_Datatype *t) {
    *t = MPI_DATATYPE_NULL;
    if (!n) return WL_OK;
    MPI_TRY(MPI_Type_create_indexed_block(n, 1, idx, c->rowtype, t), "MPI_Type_create_indexed_block");
    MPI_TRY(MPI_Type_commit(t), "MPI_Type_commit");
    return WL_OK;
}

wl_status mpi_plan_direct(mpi_ctx *c, mpi_row_index src_index, mpi_row_index dst_index) {
    c->stype = wl_malloc((size_t)c->size * sizeof(MPI_Datatype));
    c->rtype = wl_malloc((size_t)c->size * sizeof(MPI_Datatype));
    size_t most = (size_t)(c->nsend > c->nneed ? c->nsend : c->nneed) + 1;
    int *idx = wl_malloc(most * sizeof(int));
    c->self_src = wl_malloc((size_t)(c->nneed + 1) * sizeof(uint64_t));
    c->self_dst = wl_malloc((size_t)(c->nneed + 1) * sizeof(uint64_t));
    if (!c->stype || !c->rtype || !idx || !c->self_src || !c->self_dst) {
        free(idx);
        return WL_ERR_NOMEM;
    }
    for (int p = 0; p < c->size; p++) c->stype[p] = c->rtype[p] = MPI_DATATYPE_NULL;
    int err = MPI_Type_contiguous((int)c->gstride, MPI_UINT64_T, &c->rowtype);
    if (err == MPI_SUCCESS) err = MPI_Type_commit(&c->rowtype);
    wl_status s = err == MPI_SUCCESS ? WL_OK : mpi_fail(err, "MPI_Type_contiguous");
    for (int q = 0; !s && q < c->size; q++) { /* sends: q's rows, in q's list order */
        for (int j = 0; j < c->scount[q]; j++)
            idx[j] = (int)src_index(c, c->send_g[c->sdispl[q] + j]);
        s = rows_type(c, c->scount[q], idx, &c->stype[q]);
    }
    for (int p = 0; !s && p < c->size; p++) { /* receives: p's rows, in this rank's order */
        int n = 0;
        if (p != c->rank)
            for (uint64_t i = 0; i < c->nneed; i++)
                if (c->need_owner[i] == p) idx[n++] = (int)dst_index(c, c->need_li[i]);
        s = rows_type(c, n, idx, &c->rtype[p]);
    }
    c->nself = 0;
    for (uint64_t i = 0; !s && i < c->nneed; i++)
        if (c->need_owner[i] == c->rank) {
            c->self_src[c->nself] = src_index(c, c->need_g[i]);
            c->self_dst[c->nself++] = dst_index(c, c->need_li[i]);
        }
    free(idx);
    return s;
}

wl_status mpi_exchange_post_direct(mpi_ctx *c, uint64_t *dst) {
    int err = MPI_SUCCESS;
    c->nreq = 0;
    for (int p = 0; p < c->size && err == MPI_SUCCESS; p++)
        if (c->rtype[p] != MPI_DATATYPE_NULL)
            err = MPI_Irecv(dst, 1, c->rtype[p], p, HALO_TAG, c->comm, &c->req[c->nreq++]);
    if (err != MPI_SUCCESS) return mpi_fail(err, "MPI_Irecv (halo)");
    return WL_OK;
}

wl_status mpi_exchange_finish_direct(mpi_ctx *c, const uint64_t *src, uint64_t *dst) {
    int err = MPI_SUCCESS;
    for (int q = 0; q < c->size && err == MPI_SUCCESS; q++)
        if (c->stype[q] != MPI_DATATYPE_NULL)
            err = MPI_Isend(src, 1, c->stype[q], q, HALO_TAG, c->comm, &c->req[c->nreq++]);
    if (err == MPI_SUCCESS) err = MPI_Waitall(c->nreq, c->req, MPI_STATUSES_IGNORE);
    c->nreq = 0;
    if (err != MPI_SUCCESS) return mpi_fail(err, "halo exchange");
    size_t gs = c->gstride;
    for (uint64_t i = 0; i < c->nself; i++)
        memcpy(dst + c->self_dst[i] * gs, src + c->self_src[i] * gs, gs * sizeof(uint64_t));
    return WL_OK;
}
