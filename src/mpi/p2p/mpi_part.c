/* Partitioned point-to-point: MPI_Psend_init, MPI_Precv_init, MPI_Pready(_range, _list),
 * MPI_Parrived.
 *
 * Design: a partitioned request is a persistent request (mpi_preq.c) whose rounds move the
 * whole buffer as ONE message, sent when the last partition is marked ready. Each MPI_Start
 * of the receive posts a receive of the whole buffer; MPI_Parrived reports every partition
 * arrived once that message has been received (so a partition never shows before the
 * whole). The traffic runs on its own context (comm->ctx + IVC_PART_CTX_OFF) with the
 * user's tag, so partitioned operations match only each other. The standard pairs a
 * Psend_init with the Precv_init of the same (communicator, peer, tag) in the order of the
 * init calls, once for all rounds, whatever the order of the Starts: each side counts its
 * inits per (peer, tag) on the communicator and the count picks the context (bits above
 * IVC_PART_SEQ_SHIFT), so round k of the n-th send init meets only round k of the n-th
 * receive init (the channels keep per-pair order within one context). Sender and receiver
 * may split
 * the buffer into different numbers of partitions; only the total size has to agree
 * (a larger message than the receive buffer gives MPI_ERR_TRUNCATE at completion).
 *
 * On the send side, Start makes the round's inner request unstarted (not complete), so
 * completion calls wait for the last Pready; the send starts from that Pready. */
#include "mpi_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    void *buf;
    int count;       /* elements of the whole buffer (partitions * count) */
    MPI_Datatype dt; /* retained */
    int peer, tag;
    uint32_t ctx_off; /* IVC_PART_CTX_OFF + the init's sequence number */
    int nparts, nready;
    uint8_t *ready; /* send side: partition i marked ready in this round */
} part_t;

static void part_free(void *args)
{
    part_t *p = args;
    ivc_mpi_dt_release(p->dt);
    free(p->ready);
    free(p);
}

/* Starts the send of a round whose partitions are all ready. */
static void part_launch(MPI_Request preq, part_t *p)
{
    /* An error completes the inner request with it; Wait reports it. */
    ivc_mpi_start_send(preq->u.p.inner, p->buf, p->count, p->dt, p->peer, p->tag, preq->comm,
                       p->ctx_off, 0);
}

static int part_send_start(MPI_Request preq, void *args, MPI_Request *inner)
{
    part_t *p = args;
    /* Not started: incomplete until the last Pready starts it. */
    MPI_Request r = ivc_mpi_req_new_local(REQ_SEND, MPI_COMM_NULL, 0);
    if (r == NULL)
        return MPI_ERR_NO_MEM;
    memset(p->ready, 0, (size_t)p->nparts);
    p->nready = 0;
    *inner = r;
    if (p->nparts == 0) {
        preq->u.p.inner = r;
        part_launch(preq, p);
    }
    return MPI_SUCCESS;
}

static int part_recv_start(MPI_Request preq, void *args, MPI_Request *inner)
{
    part_t *p = args;
    MPI_Request r = ivc_mpi_req_alloc(REQ_RECV);
    if (r == NULL)
        return MPI_ERR_NO_MEM;
    int rc =
        ivc_mpi_start_recv(r, p->buf, p->count, p->dt, p->peer, p->tag, preq->comm, p->ctx_off);
    if (rc != MPI_SUCCESS) {
        ivc_mpi_req_free(r);
        return rc;
    }
    *inner = r;
    return MPI_SUCCESS;
}

/* Inits of one direction to or from one (peer, tag) on a communicator so far. */
struct ivc_mpi_part_seq {
    struct ivc_mpi_part_seq *next;
    int peer, tag, send;
    uint32_t n;
};

void ivc_mpi_part_comm_free(MPI_Comm comm)
{
    while (comm->part_seq != NULL) {
        struct ivc_mpi_part_seq *s = comm->part_seq;
        comm->part_seq = s->next;
        free(s);
    }
}

/* The context offset of the next init of this direction with (peer, tag) on comm, or 0
 * without memory. The list is searched at init only, never per round. */
static uint32_t part_ctx_off(MPI_Comm comm, int peer, int tag, int send)
{
    struct ivc_mpi_part_seq *s = comm->part_seq;
    while (s != NULL && !(s->peer == peer && s->tag == tag && s->send == send))
        s = s->next;
    if (s == NULL) {
        s = calloc(1, sizeof(*s));
        if (s == NULL)
            return 0;
        *s = (struct ivc_mpi_part_seq){
            .next = comm->part_seq, .peer = peer, .tag = tag, .send = send};
        comm->part_seq = s;
    }
    uint32_t seq = s->n++ & 0xffffu;
    return IVC_PART_CTX_OFF + (seq << IVC_PART_SEQ_SHIFT);
}

static int part_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype dt, int peer,
                     int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request, int send,
                     const char *fn)
{
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!ivc_mpi_comm_valid(comm))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COMM, fn, "invalid communicator");
    if (partitions < 0)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "negative number of partitions %d",
                             partitions);
    if (count < 0 || (partitions > 0 && count > INT_MAX / partitions))
        return ivc_mpi_raise(comm, MPI_ERR_COUNT, fn,
                             "count %lld per partition: negative, or more than INT_MAX in all",
                             (long long)count);
    int total = partitions * (int)count;
    /* Partitioned receives take no wildcards. */
    if (!send && peer == MPI_ANY_SOURCE)
        return ivc_mpi_raise(comm, MPI_ERR_RANK, fn, "MPI_ANY_SOURCE is not allowed");
    if (!send && tag == MPI_ANY_TAG)
        return ivc_mpi_raise(comm, MPI_ERR_TAG, fn, "MPI_ANY_TAG is not allowed");
    rc = ivc_mpi_check_p2p(buf, comm, total, &dt, peer, tag, send ? PEER_SEND : PEER_RECV, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (info != MPI_INFO_NULL && info->magic != INFO_MAGIC)
        return ivc_mpi_raise(comm, MPI_ERR_INFO, fn, "invalid info");
    if (request == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL request pointer");
    part_t *p = calloc(1, sizeof(*p));
    uint8_t *ready = malloc(partitions ? (size_t)partitions : 1);
    if (p == NULL || ready == NULL) {
        free(p);
        free(ready);
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    uint32_t ctx_off = part_ctx_off(comm, peer, tag, send);
    if (ctx_off == 0) {
        free(p);
        free(ready);
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    *p = (part_t){.buf = (void *)buf,
                  .count = total,
                  .dt = dt,
                  .peer = peer,
                  .tag = tag,
                  .ctx_off = ctx_off,
                  .nparts = partitions,
                  .ready = ready};
    ivc_mpi_dt_retain(dt);
    rc = ivc_mpi_preq_new(comm, send ? part_send_start : part_recv_start, p, part_free, request);
    if (rc != MPI_SUCCESS) {
        part_free(p);
        return ivc_mpi_raise(comm, rc, fn, "out of memory");
    }
    return MPI_SUCCESS;
}

int PMPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return part_init(buf, partitions, count, datatype, dest, tag, comm, info, request, 1,
                     "MPI_Psend_init");
}
IVC_MPI_WEAK(Psend_init)

int PMPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int source, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return part_init(buf, partitions, count, datatype, source, tag, comm, info, request, 0,
                     "MPI_Precv_init");
}
IVC_MPI_WEAK(Precv_init)

/* The state of an active partitioned request of the given side, or NULL after raising. */
static part_t *part_of(MPI_Request request, int send, int *rc, const char *fn)
{
    ivc_mpi_preq_start_fn want = send ? part_send_start : part_recv_start;
    *rc = ivc_mpi_check_init(fn);
    if (*rc != MPI_SUCCESS)
        return NULL;
    if (request == MPI_REQUEST_NULL || request->magic != REQ_MAGIC ||
        request->kind != REQ_PERSIST || request->u.p.start != want) {
        *rc = ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn,
                            "not a partitioned %s request", send ? "send" : "receive");
        return NULL;
    }
    return request->u.p.args;
}

/* Marks partition i ready; the round's send starts with the last one. */
static int ready_one(MPI_Request request, part_t *p, int i, const char *fn)
{
    if (request->u.p.inner == NULL)
        return ivc_mpi_raise(request->comm, MPI_ERR_REQUEST, fn, "the request is not active");
    if (i < 0 || i >= p->nparts)
        return ivc_mpi_raise(request->comm, MPI_ERR_ARG, fn,
                             "partition %d is out of range (%d partitions)", i, p->nparts);
    if (p->ready[i])
        return ivc_mpi_raise(request->comm, MPI_ERR_ARG, fn,
                             "partition %d is already marked ready", i);
    p->ready[i] = 1;
    if (++p->nready == p->nparts)
        part_launch(request, p);
    return MPI_SUCCESS;
}

int PMPI_Pready(int partition, MPI_Request request)
{
    int rc;
    part_t *p = part_of(request, 1, &rc, "MPI_Pready");
    return p == NULL ? rc : ready_one(request, p, partition, "MPI_Pready");
}
IVC_MPI_WEAK(Pready)

int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request)
{
    const char *fn = "MPI_Pready_range";
    int rc;
    part_t *p = part_of(request, 1, &rc, fn);
    if (p == NULL)
        return rc;
    if (partition_low > partition_high || partition_low < 0 || partition_high >= p->nparts)
        return ivc_mpi_raise(request->comm, MPI_ERR_ARG, fn,
                             "range %d..%d is not within the %d partitions", partition_low,
                             partition_high, p->nparts);
    for (int i = partition_low; i <= partition_high; i++) {
        rc = ready_one(request, p, i, fn);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Pready_range)

int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request)
{
    const char *fn = "MPI_Pready_list";
    int rc;
    part_t *p = part_of(request, 1, &rc, fn);
    if (p == NULL)
        return rc;
    if (length < 0 || (length > 0 && array_of_partitions == NULL))
        return ivc_mpi_raise(request->comm, MPI_ERR_ARG, fn, "invalid partition list");
    for (int i = 0; i < length; i++) {
        rc = ready_one(request, p, array_of_partitions[i], fn);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Pready_list)

int PMPI_Parrived(MPI_Request request, int partition, int *flag)
{
    const char *fn = "MPI_Parrived";
    int rc;
    part_t *p = part_of(request, 0, &rc, fn);
    if (p == NULL)
        return rc;
    if (flag == NULL)
        return ivc_mpi_raise(request->comm, MPI_ERR_ARG, fn, "NULL flag");
    if (partition < 0 || partition >= p->nparts)
        return ivc_mpi_raise(request->comm, MPI_ERR_ARG, fn,
                             "partition %d is out of range (%d partitions)", partition,
                             p->nparts);
    MPI_Request inner = request->u.p.inner;
    if (inner == NULL) { /* inactive: nothing is outstanding */
        *flag = 1;
        return MPI_SUCCESS;
    }
    if (!inner->done)
        ivc_mpi_progress();
    *flag = inner->done;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Parrived)
