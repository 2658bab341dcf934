/* Collective access: two-phase I/O.
 *
 * Every collective read or write, blocking, nonblocking (MPI_File_iread_all ...), split
 * (_begin/_end) or ordered, is one operation of this engine:
 *
 *   1. each rank maps its data through the view to file pieces (sorted by offset: a
 *      filetype's displacements never decrease) and the ranks agree on the span [lo, hi) of
 *      all pieces (Iallreduce);
 *   2. the span is cut into one file domain per aggregator (cb_nodes ranks, one per host by
 *      default), aligned to striping_unit when the program gave one, and each domain into
 *      windows of cb_buffer_size bytes; round r handles window r of every domain;
 *   3. in a round, every rank tells each aggregator how many pieces and bytes of its window
 *      it has (Ialltoall), then sends the pieces' offsets and, for a write, their data
 *      (Ialltoallv): IVC's own collectives, so between ranks of one host the data moves
 *      through the shared region;
 *   4. a writing aggregator lays the pieces into its window buffer in rank order (so
 *      overlapping writes end as if ranks wrote one after another, which is also what atomic
 *      mode needs) and writes each covered run with one pwrite, never the holes between
 *      them; a reading aggregator reads the span of the requested pieces with one pread and
 *      sends each rank its pieces back (Ialltoallv).
 *
 * Only aggregators touch the file. The exchanges run on the file's second private
 * communicator, started from a state machine that ivc_mpi_progress() advances, so a
 * nonblocking collective access progresses while the program waits for anything else, and
 * the collectives of the program on the file (set_view, sync ...) never interleave with them
 * (those drain the engine first). A file's operations run one after another, in the order
 * they were started, which is the same at every rank. */
#include "mpi_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef F_OFD_SETLKW
#define IO_SETLKW F_SETLKW
#else
#define IO_SETLKW F_OFD_SETLKW
#endif

enum { S_START, S_RANGE, S_ROUND, S_COUNTS, S_EXCH, S_REPLY, S_DONE };

typedef struct io_coll {
    struct io_coll *next;     /* the file's queue */
    struct io_coll *all_next; /* every operation in flight */
    MPI_File fh;
    int write;
    int state;
    int done; /* finished: status and err are final */
    int err;
    MPI_Request greq; /* the program's request (a generalized request) */
    MPI_Request creq[2];
    int ncreq;
    /* the program's data */
    void *buf;
    int count;
    MPI_Datatype dt;
    char *data; /* the packed stream */
    int owned;
    uint64_t nbytes;
    io_piece_t *pc;
    uint64_t npc;
    /* the geometry, the same at every rank */
    long long mm[2];  /* {-lo, hi} of this rank's pieces */
    long long *allmm; /* every rank's mm */
    int64_t dlo, hi, dsize, cb;
    int64_t nrounds, round;
    int myagg; /* index among the aggregators, -1 if none */
    uint64_t *cur; /* per aggregator: first piece not yet sent to it */
    /* one round */
    long long *scount, *rcount; /* per peer: pieces, bytes */
    int *smc, *smd, *rmc, *rmd; /* meta counts/displacements (long longs, 3 per piece) */
    int *sdc, *sdd, *rdc, *rdd; /* data counts/displacements (bytes) */
    long long *smeta, *rmeta;
    char *sdata, *rdata;
    char *win; /* an aggregator's window */
    MPI_Status st;
} io_coll_t;

int ivc_io_coll_active;
static io_coll_t *all_ops;
static int in_progress;

/* ---- request callbacks ---- */

static int coll_query(void *extra, MPI_Status *status)
{
    io_coll_t *op = extra;
    int keep = status->MPI_ERROR;
    *status = op->st;
    status->MPI_ERROR = keep;
    return op->err;
}

static void op_free(io_coll_t *op)
{
    free(op->pc);
    if (op->owned)
        free(op->data);
    if (op->dt != MPI_DATATYPE_NULL)
        ivc_mpi_dt_release(op->dt);
    free(op->cur);
    free(op->allmm);
    free(op->scount), free(op->rcount);
    free(op->smc), free(op->smd), free(op->rmc), free(op->rmd);
    free(op->sdc), free(op->sdd), free(op->rdc), free(op->rdd);
    free(op->smeta), free(op->rmeta), free(op->sdata), free(op->rdata), free(op->win);
    free(op);
}

/* Runs once the request is complete (the generalized request calls it no earlier). */
static int coll_free(void *extra)
{
    op_free(extra);
    return MPI_SUCCESS;
}

static int coll_cancel(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS; /* a collective access cannot be cancelled: it completes */
}

/* ---- one round ---- */

static void round_reset(io_coll_t *op)
{
    free(op->smeta), free(op->rmeta), free(op->sdata), free(op->rdata), free(op->win);
    op->smeta = op->rmeta = NULL;
    op->sdata = op->rdata = op->win = NULL;
}

/* The window of aggregator i in the current round: [*wlo, *whi), possibly empty. */
static void window(const io_coll_t *op, int i, int64_t *wlo, int64_t *whi)
{
    int64_t dstart = op->dlo + (int64_t)i * op->dsize;
    int64_t dend = dstart + op->dsize;
    *wlo = dstart + op->round * op->cb;
    *whi = *wlo + op->cb;
    if (*whi > dend)
        *whi = dend;
    if (*whi > op->hi)
        *whi = op->hi;
    if (*wlo > *whi)
        *wlo = *whi;
}

/* Walks this rank's pieces inside aggregator i's window: fill == 0 counts them (pieces,
 * bytes); fill == 1 writes their (off, len, soff) triples at meta and, for writes, their data
 * at data, and moves the cursor past the pieces that end inside the window. */
static void window_pieces(io_coll_t *op, int i, int fill, long long *np, long long *nb,
                          long long *meta, char *data)
{
    int64_t wlo, whi;
    window(op, i, &wlo, &whi);
    uint64_t c = op->cur[i];
    long long pieces = 0, bytes = 0;
    while (c < op->npc && op->pc[c].off + op->pc[c].len <= wlo)
        c++;
    for (; c < op->npc && op->pc[c].off < whi; c++) {
        const io_piece_t *p = &op->pc[c];
        int64_t a = p->off > wlo ? p->off : wlo;
        int64_t b = p->off + p->len < whi ? p->off + p->len : whi;
        if (b > a) {
            if (fill) {
                meta[3 * pieces] = a;
                meta[3 * pieces + 1] = b - a;
                meta[3 * pieces + 2] = p->soff + (a - p->off);
                if (op->write)
                    memcpy(data + bytes, op->data + p->soff + (a - p->off), (size_t)(b - a));
            }
            pieces++;
            bytes += b - a;
        }
        if (p->off + p->len > whi)
            break; /* continues in the next window */
    }
    if (fill)
        op->cur[i] = c;
    *np = pieces;
    *nb = bytes;
}

static int round_start(io_coll_t *op)
{
    MPI_File fh = op->fh;
    int n = fh->size;
    memset(op->scount, 0, sizeof(long long) * 2 * (size_t)n);
    for (int i = 0; i < fh->cb_nodes; i++)
        window_pieces(op, i, 0, &op->scount[2 * fh->aggr[i]], &op->scount[2 * fh->aggr[i] + 1],
                      NULL, NULL);
    return PMPI_Ialltoall(op->scount, 2, MPI_LONG_LONG, op->rcount, 2, MPI_LONG_LONG, fh->ccomm,
                          &op->creq[op->ncreq++]);
}

static int counts_done(io_coll_t *op)
{
    MPI_File fh = op->fh;
    int n = fh->size;
    long long sm = 0, sd = 0, rm = 0, rd = 0;
    for (int r = 0; r < n; r++) {
        op->smc[r] = (int)(3 * op->scount[2 * r]);
        op->smd[r] = (int)sm;
        sm += op->smc[r];
        op->sdc[r] = (int)op->scount[2 * r + 1];
        op->sdd[r] = (int)sd;
        sd += op->sdc[r];
        op->rmc[r] = (int)(3 * op->rcount[2 * r]);
        op->rmd[r] = (int)rm;
        rm += op->rmc[r];
        op->rdc[r] = (int)op->rcount[2 * r + 1];
        op->rdd[r] = (int)rd;
        rd += op->rdc[r];
    }
    op->smeta = malloc(sizeof(long long) * (size_t)(sm + 1));
    op->rmeta = malloc(sizeof(long long) * (size_t)(rm + 1));
    op->sdata = malloc((size_t)sd + 1);
    op->rdata = malloc((size_t)rd + 1);
    if (op->smeta == NULL || op->rmeta == NULL || op->sdata == NULL || op->rdata == NULL)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < fh->cb_nodes; i++) {
        int a = fh->aggr[i];
        long long np, nb;
        window_pieces(op, i, 1, &np, &nb, op->smeta + op->smd[a], op->sdata + op->sdd[a]);
    }
    int rc = PMPI_Ialltoallv(op->smeta, op->smc, op->smd, MPI_LONG_LONG, op->rmeta, op->rmc,
                             op->rmd, MPI_LONG_LONG, fh->ccomm, &op->creq[op->ncreq++]);
    if (rc == MPI_SUCCESS && op->write)
        rc = PMPI_Ialltoallv(op->sdata, op->sdc, op->sdd, MPI_BYTE, op->rdata, op->rdc, op->rdd,
                             MPI_BYTE, fh->ccomm, &op->creq[op->ncreq++]);
    return rc;
}

static int cmp_run(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

static int lock_span(int fd, int type, int64_t off, int64_t len)
{
    struct flock fl;
    memset(&fl, 0, sizeof(fl));
    fl.l_type = (short)type;
    fl.l_whence = SEEK_SET;
    fl.l_start = off;
    fl.l_len = len;
    while (fcntl(fd, IO_SETLKW, &fl) != 0)
        if (errno != EINTR)
            return -errno;
    return 0;
}

/* An aggregator's file work for the round: the pieces every rank sent, in rank order. */
static int aggregate(io_coll_t *op)
{
    MPI_File fh = op->fh;
    int n = fh->size;
    long long total = 0;
    for (int r = 0; r < n; r++)
        total += op->rcount[2 * r];
    if (total == 0)
        return MPI_SUCCESS;
    int64_t lo = INT64_MAX, hi = 0;
    for (long long k = 0; k < total; k++) {
        int64_t off = op->rmeta[3 * k], len = op->rmeta[3 * k + 1];
        if (off < lo)
            lo = off;
        if (off + len > hi)
            hi = off + len;
    }
    op->win = malloc((size_t)(hi - lo));
    if (op->win == NULL)
        return MPI_ERR_NO_MEM;
    int err = 0;
    if (fh->atomic && (err = lock_span(fh->fd, op->write ? F_WRLCK : F_RDLCK, lo, hi - lo)) != 0)
        return ivc_io_errno_class(-err);
    if (op->write) {
        /* Lay the pieces in, rank by rank; then write the runs they cover. */
        int64_t *runs = malloc(sizeof(int64_t) * 2 * (size_t)total);
        if (runs == NULL) {
            err = -ENOMEM;
            goto out;
        }
        long long k = 0;
        for (int r = 0; r < n; r++) {
            const char *src = op->rdata + op->rdd[r];
            for (long long j = 0; j < op->rcount[2 * r]; j++, k++) {
                int64_t off = op->rmeta[3 * k], len = op->rmeta[3 * k + 1];
                memcpy(op->win + (off - lo), src, (size_t)len);
                src += len;
                runs[2 * k] = off;
                runs[2 * k + 1] = off + len;
            }
        }
        qsort(runs, (size_t)total, 2 * sizeof(int64_t), cmp_run);
        for (long long i = 0; i < total && err == 0;) {
            int64_t a = runs[2 * i], b = runs[2 * i + 1];
            long long j = i + 1;
            while (j < total && runs[2 * j] <= b) {
                if (runs[2 * j + 1] > b)
                    b = runs[2 * j + 1];
                j++;
            }
            const char *p = op->win + (a - lo);
            for (int64_t off = a; off < b && err == 0;) {
                ssize_t w = pwrite(fh->fd, p, (size_t)(b - off), off);
                if (w < 0 && errno != EINTR)
                    err = -errno;
                else if (w > 0)
                    p += w, off += w;
            }
            i = j;
        }
        free(runs);
    } else {
        /* One read of the span (short at the end of the file: the rest reads as zeros, and
         * each rank counts only the bytes before the end). */
        int64_t got = 0;
        while (got < hi - lo) {
            ssize_t r = pread(fh->fd, op->win + got, (size_t)(hi - lo - got), lo + got);
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0) {
                err = -errno;
                break;
            }
            if (r == 0)
                break;
            got += r;
        }
        if (got < hi - lo)
            memset(op->win + got, 0, (size_t)(hi - lo - got));
        /* The reply, in the order each rank asked: rdata has room for it. */
        long long k = 0;
        char *dst = op->rdata;
        for (int r = 0; r < n; r++)
            for (long long j = 0; j < op->rcount[2 * r]; j++, k++) {
                int64_t off = op->rmeta[3 * k], len = op->rmeta[3 * k + 1];
                memcpy(dst, op->win + (off - lo), (size_t)len);
                dst += len;
            }
    }
out:
    if (fh->atomic)
        lock_span(fh->fd, F_UNLCK, lo, hi - lo);
    return err == 0 ? MPI_SUCCESS : ivc_io_errno_class(-err);
}

/* A reader puts the pieces the aggregators sent back into its stream. */
static void scatter_reply(io_coll_t *op)
{
    MPI_File fh = op->fh;
    for (int i = 0; i < fh->cb_nodes; i++) {
        int a = fh->aggr[i];
        const long long *m = op->smeta + op->smd[a];
        const char *src = op->sdata + op->sdd[a];
        for (long long j = 0; j < op->scount[2 * a]; j++) {
            memcpy(op->data + m[3 * j + 2], src, (size_t)m[3 * j + 1]);
            src += m[3 * j + 1];
        }
    }
}

/* 1 if the spans [lo, hi) of the ranks with data overlap or interleave (one starts before
 * another ends). */
static int interleaved(const io_coll_t *op)
{
    int n = op->fh->size;
    for (int a = 0; a < n; a++) {
        if (op->allmm[2 * a + 1] == 0)
            continue;
        for (int b = a + 1; b < n; b++) {
            if (op->allmm[2 * b + 1] == 0)
                continue;
            long long alo = -op->allmm[2 * a], ahi = op->allmm[2 * a + 1];
            long long blo = -op->allmm[2 * b], bhi = op->allmm[2 * b + 1];
            if (alo < bhi && blo < ahi)
                return 1;
        }
    }
    return 0;
}

/* ---- the state machine ---- */

static void finish(io_coll_t *op)
{
    MPI_File fh = op->fh;
    uint64_t moved = op->nbytes;
    if (op->err == MPI_SUCCESS && !op->write && op->nbytes > 0) {
        /* Bytes before the end of the file count as read (pieces are in file order). */
        struct stat st;
        if (fstat(fh->fd, &st) == 0) {
            moved = 0;
            for (uint64_t k = 0; k < op->npc; k++) {
                int64_t avail = st.st_size - op->pc[k].off;
                if (avail <= 0)
                    break;
                moved += (uint64_t)(avail < op->pc[k].len ? avail : op->pc[k].len);
                if (avail < op->pc[k].len)
                    break;
            }
        }
        int rc = ivc_io_unpack(fh, op->data, moved, op->buf, op->count, op->dt);
        if (rc != MPI_SUCCESS)
            op->err = rc;
    }
    if (op->err != MPI_SUCCESS)
        moved = 0;
    memset(&op->st, 0, sizeof(op->st));
    ivc_io_status(&op->st, moved);
    op->state = S_DONE;
    op->done = 1;
    /* Out of the file's queue (it is the head) and the global list. */
    fh->head = op->next;
    if (fh->head == NULL)
        fh->tail = NULL;
    for (io_coll_t **p = &all_ops; *p != NULL; p = &(*p)->all_next) {
        if (*p == op) {
            *p = op->all_next;
            break;
        }
    }
    ivc_io_coll_active = all_ops != NULL;
    /* If the program freed the request already, this runs coll_free, which frees op. */
    PMPI_Grequest_complete(op->greq);
}

/* Advances op as far as it goes without waiting; returns 1 if it moved. */
static int step(io_coll_t *op)
{
    MPI_File fh = op->fh;
    int moved = 0;
    for (;;) {
        if (op->ncreq > 0) {
            int flag = 0;
            MPI_Status sts[2];
            int rc = PMPI_Testall(op->ncreq, op->creq, &flag, sts);
            if (rc == MPI_ERR_IN_STATUS) /* the exchange's own error (MPI_ERR_PROC_FAILED) */
                for (int i = op->ncreq - 1; i >= 0; i--)
                    if (sts[i].MPI_ERROR != MPI_SUCCESS && sts[i].MPI_ERROR != MPI_ERR_PENDING)
                        rc = sts[i].MPI_ERROR;
            if (rc != MPI_SUCCESS) {
                op->err = rc;
                finish(op);
                return 1;
            }
            if (!flag)
                return moved;
            op->ncreq = 0;
        }
        moved = 1;
        int rc = MPI_SUCCESS;
        switch (op->state) {
        case S_START:
            op->state = S_RANGE;
            rc = PMPI_Iallgather(op->mm, 2, MPI_LONG_LONG, op->allmm, 2, MPI_LONG_LONG,
                                 fh->ccomm, &op->creq[op->ncreq++]);
            break;
        case S_RANGE: {
            int64_t lo = INT64_MAX;
            op->hi = 0;
            for (int r = 0; r < fh->size; r++) {
                if (op->allmm[2 * r + 1] == 0)
                    continue; /* no data */
                if (-op->allmm[2 * r] < lo)
                    lo = -op->allmm[2 * r];
                if (op->allmm[2 * r + 1] > op->hi)
                    op->hi = op->allmm[2 * r + 1];
            }
            if (op->hi <= lo) {
                finish(op); /* nobody has data */
                return 1;
            }
            if ((op->write ? fh->cb_write : fh->cb_read) == IO_CB_AUTO && !interleaved(op)) {
                /* ROMIO's rule for "automatic": ranks whose spans do not interleave gain
                 * nothing from aggregation; each accesses its own pieces. */
                uint64_t done = 0;
                op->err = ivc_io_rw_pieces(fh, op->write, op->pc, op->npc, op->data, &done);
                finish(op);
                return 1;
            }
            int naggr = fh->cb_nodes;
            int64_t su = fh->striping_unit;
            op->dlo = su > 0 ? lo - lo % su : lo;
            op->dsize = (op->hi - op->dlo + naggr - 1) / naggr;
            if (su > 0)
                op->dsize = (op->dsize + su - 1) / su * su;
            /* A round's exchange must fit the int counts of Alltoallv at every aggregator. */
            op->cb = fh->cb_buffer_size;
            int64_t cap = ((int64_t)1 << 28) / fh->size;
            if (op->cb > cap)
                op->cb = cap < 4096 ? 4096 : cap;
            op->nrounds = (op->dsize + op->cb - 1) / op->cb;
            op->round = 0;
            op->state = S_ROUND;
            break;
        }
        case S_ROUND:
            if (op->round == op->nrounds) {
                finish(op);
                return 1;
            }
            round_reset(op);
            op->state = S_COUNTS;
            rc = round_start(op);
            break;
        case S_COUNTS:
            op->state = S_EXCH;
            rc = counts_done(op);
            break;
        case S_EXCH:
            if (op->myagg >= 0) {
                int e = aggregate(op);
                if (e != MPI_SUCCESS && op->err == MPI_SUCCESS)
                    op->err = e; /* the round still completes everywhere */
            }
            if (op->write) {
                op->round++;
                op->state = S_ROUND;
            } else {
                op->state = S_REPLY;
                rc = PMPI_Ialltoallv(op->rdata, op->rdc, op->rdd, MPI_BYTE, op->sdata, op->sdc,
                                     op->sdd, MPI_BYTE, fh->ccomm, &op->creq[op->ncreq++]);
            }
            break;
        case S_REPLY:
            scatter_reply(op);
            op->round++;
            op->state = S_ROUND;
            break;
        default:
            return moved;
        }
        if (rc != MPI_SUCCESS) {
            op->err = rc;
            finish(op);
            return 1;
        }
    }
}

int ivc_io_coll_progress(void)
{
    if (in_progress)
        return 0;
    in_progress = 1;
    int n = 0;
    for (io_coll_t *op = all_ops, *next; op != NULL; op = next) {
        next = op->all_next;
        if (op->fh->head == op)
            n += step(op);
    }
    in_progress = 0;
    return n;
}

void ivc_io_coll_drain(MPI_File fh)
{
    /* Only the queue is looked at: an operation whose request the program freed is freed
     * when it finishes. */
    ivc_backoff_t b;
    ivc_backoff_init_idle(&b, NULL, NULL);
    while (fh->head != NULL)
        ivc_mpi_poll(&b);
}

/* ---- starting ---- */

int ivc_io_coll_start(MPI_File fh, int write, MPI_Offset pos, void *buf, int count,
                      MPI_Datatype dt, MPI_Request *req)
{
    io_coll_t *op = calloc(1, sizeof(*op));
    if (op == NULL)
        return MPI_ERR_NO_MEM;
    int n = fh->size;
    op->fh = fh;
    op->write = write;
    op->buf = buf;
    op->count = count;
    op->dt = dt;
    ivc_mpi_dt_retain(dt);
    op->myagg = -1;
    for (int i = 0; i < fh->cb_nodes; i++)
        if (fh->aggr[i] == fh->rank)
            op->myagg = i;
    int rc = MPI_SUCCESS;
    if (write) {
        rc = ivc_io_pack(fh, buf, count, dt, (void **)&op->data, &op->owned, &op->nbytes);
    } else {
        op->nbytes = (uint64_t)count * dt->map.size;
        if (ivc_io_direct(fh, count, dt) || op->nbytes == 0) {
            op->data = buf;
        } else {
            op->data = malloc(op->nbytes);
            op->owned = 1;
            if (op->data == NULL)
                rc = MPI_ERR_NO_MEM;
        }
    }
    if (rc == MPI_SUCCESS)
        rc = ivc_io_view_pieces(fh, pos, op->nbytes, &op->pc, &op->npc);
    op->cur = calloc((size_t)fh->cb_nodes, sizeof(uint64_t));
    op->allmm = malloc(sizeof(long long) * 2 * (size_t)n);
    op->scount = malloc(sizeof(long long) * 2 * (size_t)n);
    op->rcount = malloc(sizeof(long long) * 2 * (size_t)n);
    op->smc = malloc(sizeof(int) * (size_t)n), op->smd = malloc(sizeof(int) * (size_t)n);
    op->rmc = malloc(sizeof(int) * (size_t)n), op->rmd = malloc(sizeof(int) * (size_t)n);
    op->sdc = malloc(sizeof(int) * (size_t)n), op->sdd = malloc(sizeof(int) * (size_t)n);
    op->rdc = malloc(sizeof(int) * (size_t)n), op->rdd = malloc(sizeof(int) * (size_t)n);
    if (rc == MPI_SUCCESS &&
        (op->cur == NULL || op->allmm == NULL || op->scount == NULL || op->rcount == NULL || op->smc == NULL ||
         op->smd == NULL || op->rmc == NULL || op->rmd == NULL || op->sdc == NULL ||
         op->sdd == NULL || op->rdc == NULL || op->rdd == NULL))
        rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        op_free(op);
        return rc;
    }
    /* An empty access still takes part: {-INT64_MAX, 0} leaves the others' span alone. */
    op->mm[0] = op->npc ? -op->pc[0].off : -LLONG_MAX;
    op->mm[1] = op->npc ? op->pc[op->npc - 1].off + op->pc[op->npc - 1].len : 0;
    rc = PMPI_Grequest_start(coll_query, coll_free, coll_cancel, op, &op->greq);
    if (rc != MPI_SUCCESS) {
        op_free(op);
        return rc;
    }
    op->state = S_START;
    if (fh->tail != NULL)
        fh->tail->next = op;
    else
        fh->head = op;
    fh->tail = op;
    op->all_next = all_ops;
    all_ops = op;
    ivc_io_coll_active = 1;
    *req = op->greq;
    if (fh->head == op && !in_progress) {
        /* step() tests requests, which runs progress: not into this op again */
        in_progress = 1;
        step(op);
        in_progress = 0;
    }
    return MPI_SUCCESS;
}

/* ---- the MPI functions ---- */

enum { AT_EXPLICIT, AT_INDIVIDUAL, AT_ORDERED };

/* Starts a collective access of any positioning; *op_out: the operation, *req its request. */
static int coll_begin(MPI_File fh, int kind, int write, MPI_Offset offset, void *buf, int count,
                      MPI_Datatype dt, MPI_Request *req, const char *fn)
{
    int rc = ivc_io_check_access(fh, write, count, dt, buf, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (kind != AT_ORDERED && (fh->amode & MPI_MODE_SEQUENTIAL))
        return ivc_io_raise(fh, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                            "only the shared file pointer may be used on a file opened with "
                            "MPI_MODE_SEQUENTIAL");
    if (kind == AT_EXPLICIT && offset < 0)
        return ivc_io_raise(fh, MPI_ERR_ARG, fn, "negative offset");
    MPI_Offset etypes = (MPI_Offset)((uint64_t)count * dt->map.size / fh->esize);
    MPI_Offset pos = offset;
    if (kind == AT_INDIVIDUAL) {
        pos = fh->fp;
        fh->fp += etypes; /* at start, as for every nonblocking access */
    } else if (kind == AT_ORDERED) {
        /* Rank order: each rank's position is the pointer plus the ranks before it. */
        ivc_io_coll_drain(fh);
        long long mine = etypes, *all = malloc(sizeof(long long) * (size_t)fh->size);
        if (all == NULL)
            return ivc_io_raise(fh, MPI_ERR_NO_MEM, fn, "out of memory");
        PMPI_Allgather(&mine, 1, MPI_LONG_LONG, all, 1, MPI_LONG_LONG, fh->comm);
        long long before = 0, total = 0;
        for (int r = 0; r < fh->size; r++) {
            if (r < fh->rank)
                before += all[r];
            total += all[r];
        }
        free(all);
        MPI_Offset base = 0;
        int err = fh->rank == 0 ? ivc_io_shared_fetch_add(fh, total, &base) : MPI_SUCCESS;
        long long pair[2] = {err, base};
        PMPI_Bcast(pair, 2, MPI_LONG_LONG, 0, fh->comm);
        if (pair[0] != MPI_SUCCESS)
            return ivc_io_raise(fh, (int)pair[0], fn, "cannot move the shared file pointer");
        pos = pair[1] + before;
    }
    if (write ? fh->cb_write == IO_CB_DISABLE : fh->cb_read == IO_CB_DISABLE) {
        /* Collective buffering off: every rank accesses the file itself, at once. */
        MPI_Status st;
        memset(&st, 0, sizeof(st));
        rc = write ? PMPI_File_write_at(fh, pos, buf, count, dt, &st)
                   : PMPI_File_read_at(fh, pos, buf, count, dt, &st);
        if (rc != MPI_SUCCESS)
            return rc;
        rc = ivc_io_req_done(&st, MPI_SUCCESS, req);
    } else {
        rc = ivc_io_coll_start(fh, write, pos, buf, count, dt, req);
    }
    if (rc != MPI_SUCCESS)
        return ivc_io_raise(fh, rc, fn, "cannot start the collective access");
    return MPI_SUCCESS;
}

/* Waits for a collective access started by coll_begin; raises its error on the file. */
static int coll_end(MPI_File fh, MPI_Request *req, MPI_Status *status, const char *fn)
{
    MPI_Status st;
    memset(&st, 0, sizeof(st));
    int rc = PMPI_Wait(req, &st);
    if (rc != MPI_SUCCESS)
        return ivc_io_raise(fh, rc, fn, "the collective access failed");
    if (status != MPI_STATUS_IGNORE) {
        int keep = status->MPI_ERROR;
        *status = st;
        status->MPI_ERROR = keep;
    }
    return MPI_SUCCESS;
}

static int coll_blocking(MPI_File fh, int kind, int write, MPI_Offset offset, void *buf,
                         int count, MPI_Datatype dt, MPI_Status *status, const char *fn)
{
    IO_CHECK(fh, fn);
    MPI_Request req;
    MPI_Offset start = fh->fp;
    int rc = coll_begin(fh, kind, write, offset, buf, count, dt, &req, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Status st;
    rc = coll_end(fh, &req, &st, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (kind == AT_INDIVIDUAL) {
        MPI_Count bytes = 0;
        PMPI_Get_elements_x(&st, MPI_BYTE, &bytes);
        fh->fp = start + (MPI_Offset)((uint64_t)bytes / fh->esize); /* what was read */
    }
    if (status != MPI_STATUS_IGNORE) {
        int keep = status->MPI_ERROR;
        *status = st;
        status->MPI_ERROR = keep;
    }
    return MPI_SUCCESS;
}

static int coll_nonblocking(MPI_File fh, int kind, int write, MPI_Offset offset, void *buf,
                            int count, MPI_Datatype dt, MPI_Request *req, const char *fn)
{
    IO_CHECK(fh, fn);
    if (req == NULL)
        return ivc_io_raise(fh, MPI_ERR_ARG, fn, "NULL request");
    return coll_begin(fh, kind, write, offset, buf, count, dt, req, fn);
}

static int split_begin(MPI_File fh, int kind, int write, MPI_Offset offset, void *buf, int count,
                       MPI_Datatype dt, const char *fn)
{
    IO_CHECK(fh, fn);
    if (fh->split != MPI_REQUEST_NULL)
        return ivc_io_raise(fh, MPI_ERR_OTHER, fn,
                            "a split collective is already in progress on this file");
    int rc = coll_begin(fh, kind, write, offset, buf, count, dt, &fh->split, fn);
    if (rc == MPI_SUCCESS)
        fh->split_kind = kind * 2 + write;
    return rc;
}

static int split_end(MPI_File fh, int kind, int write, MPI_Status *status, const char *fn)
{
    IO_CHECK(fh, fn);
    if (fh->split == MPI_REQUEST_NULL || fh->split_kind != kind * 2 + write)
        return ivc_io_raise(fh, MPI_ERR_OTHER, fn, "no matching split collective began");
    return coll_end(fh, &fh->split, status, fn);
}

/* clang-format off */
#define IO_NOCONST
#define COLL_AT(Name, write, Const)                                                                \
    int PMPI_File_##Name(MPI_File fh, MPI_Offset offset, Const void *buf, int count,             \
                         MPI_Datatype datatype, MPI_Status *status)                                \
    {                                                                                              \
        return coll_blocking(fh, AT_EXPLICIT, write, offset, (void *)buf, count, datatype,        \
                             status, "MPI_File_" #Name);                                           \
    }
#define COLL(Name, kind, write, Const)                                                             \
    int PMPI_File_##Name(MPI_File fh, Const void *buf, int count, MPI_Datatype datatype,         \
                         MPI_Status *status)                                                       \
    {                                                                                              \
        return coll_blocking(fh, kind, write, 0, (void *)buf, count, datatype, status,            \
                             "MPI_File_" #Name);                                                   \
    }
#define ICOLL_AT(Name, write, Const)                                                               \
    int PMPI_File_##Name(MPI_File fh, MPI_Offset offset, Const void *buf, int count,             \
                         MPI_Datatype datatype, MPI_Request *request)                              \
    {                                                                                              \
        return coll_nonblocking(fh, AT_EXPLICIT, write, offset, (void *)buf, count, datatype,     \
                                request, "MPI_File_" #Name);                                       \
    }
#define ICOLL(Name, kind, write, Const)                                                            \
    int PMPI_File_##Name(MPI_File fh, Const void *buf, int count, MPI_Datatype datatype,         \
                         MPI_Request *request)                                                     \
    {                                                                                              \
        return coll_nonblocking(fh, kind, write, 0, (void *)buf, count, datatype, request,        \
                                "MPI_File_" #Name);                                                \
    }
#define SPLIT_AT(Name, write, Const)                                                               \
    int PMPI_File_##Name##_begin(MPI_File fh, MPI_Offset offset, Const void *buf, int count,     \
                                 MPI_Datatype datatype)                                            \
    {                                                                                              \
        return split_begin(fh, AT_EXPLICIT, write, offset, (void *)buf, count, datatype,          \
                           "MPI_File_" #Name "_begin");                                            \
    }                                                                                              \
    int PMPI_File_##Name##_end(MPI_File fh, Const void *buf, MPI_Status *status)                  \
    {                                                                                              \
        (void)buf;                                                                                 \
        return split_end(fh, AT_EXPLICIT, write, status, "MPI_File_" #Name "_end");               \
    }
#define SPLIT(Name, kind, write, Const)                                                            \
    int PMPI_File_##Name##_begin(MPI_File fh, Const void *buf, int count, MPI_Datatype datatype) \
    {                                                                                              \
        return split_begin(fh, kind, write, 0, (void *)buf, count, datatype,                      \
                           "MPI_File_" #Name "_begin");                                            \
    }                                                                                              \
    int PMPI_File_##Name##_end(MPI_File fh, Const void *buf, MPI_Status *status)                  \
    {                                                                                              \
        (void)buf;                                                                                 \
        return split_end(fh, kind, write, status, "MPI_File_" #Name "_end");                      \
    }
/* clang-format on */

COLL_AT(read_at_all, 0, IO_NOCONST)
IVC_MPI_WEAK(File_read_at_all)
COLL_AT(write_at_all, 1, const)
IVC_MPI_WEAK(File_write_at_all)
COLL(read_all, AT_INDIVIDUAL, 0, IO_NOCONST)
IVC_MPI_WEAK(File_read_all)
COLL(write_all, AT_INDIVIDUAL, 1, const)
IVC_MPI_WEAK(File_write_all)
COLL(read_ordered, AT_ORDERED, 0, IO_NOCONST)
IVC_MPI_WEAK(File_read_ordered)
COLL(write_ordered, AT_ORDERED, 1, const)
IVC_MPI_WEAK(File_write_ordered)
ICOLL_AT(iread_at_all, 0, IO_NOCONST)
IVC_MPI_WEAK(File_iread_at_all)
ICOLL_AT(iwrite_at_all, 1, const)
IVC_MPI_WEAK(File_iwrite_at_all)
ICOLL(iread_all, AT_INDIVIDUAL, 0, IO_NOCONST)
IVC_MPI_WEAK(File_iread_all)
ICOLL(iwrite_all, AT_INDIVIDUAL, 1, const)
IVC_MPI_WEAK(File_iwrite_all)
SPLIT_AT(read_at_all, 0, IO_NOCONST)
IVC_MPI_WEAK(File_read_at_all_begin)
IVC_MPI_WEAK(File_read_at_all_end)
SPLIT_AT(write_at_all, 1, const)
IVC_MPI_WEAK(File_write_at_all_begin)
IVC_MPI_WEAK(File_write_at_all_end)
SPLIT(read_all, AT_INDIVIDUAL, 0, IO_NOCONST)
IVC_MPI_WEAK(File_read_all_begin)
IVC_MPI_WEAK(File_read_all_end)
SPLIT(write_all, AT_INDIVIDUAL, 1, const)
IVC_MPI_WEAK(File_write_all_begin)
IVC_MPI_WEAK(File_write_all_end)
SPLIT(read_ordered, AT_ORDERED, 0, IO_NOCONST)
IVC_MPI_WEAK(File_read_ordered_begin)
IVC_MPI_WEAK(File_read_ordered_end)
SPLIT(write_ordered, AT_ORDERED, 1, const)
IVC_MPI_WEAK(File_write_ordered_begin)
IVC_MPI_WEAK(File_write_ordered_end)
