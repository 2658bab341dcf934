/* args_p2p: NULL arguments to every point-to-point call under MPI_ERRORS_RETURN (2 ranks;
 * errors are found before any communication, so each rank checks on its own).
 *
 * Checked, each against MPICH's class:
 *  - a NULL buffer with count > 0 of a type with data: MPI_ERR_BUFFER (send, receive, in
 *    every mode, blocking, nonblocking, persistent, partitioned, buffered, matched);
 *  - NULL is also MPI_BOTTOM: count 0, a type of size 0, or a struct type of absolute
 *    addresses are accepted (to MPI_PROC_NULL, so nothing moves);
 *  - a NULL status (MPI_STATUS_IGNORE is the way to ignore one), a NULL request, flag,
 *    message, count or other output pointer: MPI_ERR_ARG;
 *  - the status accessors refuse NULL and MPI_STATUS_IGNORE;
 *  - the large-count (_c) forms behave the same;
 *  - afterwards the pair still exchanges a message intact. */
#include "a_util.h"

static int g_query(void *extra, MPI_Status *st)
{
    (void)extra;
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
    return MPI_SUCCESS;
}
static int g_free(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}
static int g_cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    a_init(&argc, &argv);
    t_require_ranks(2);
    MPI_Comm w = MPI_COMM_WORLD;
    int peer = t_rank == 0 ? 1 : 0, x[4] = {1, 2, 3, 4}, flag = 0, n = 0;
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Status st;
    MPI_Message m = MPI_MESSAGE_NULL;
    MPI_Count c = 0;
    const int P = MPI_PROC_NULL;

    /* ---- blocking and nonblocking sends and receives ---- */
    A_EXPECT(MPI_ERR_BUFFER, MPI_Send(NULL, 10, MPI_INT, peer, 0, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Send(NULL, 1, MPI_INT, P, 0, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Ssend(NULL, 10, MPI_INT, peer, 0, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Rsend(NULL, 10, MPI_INT, peer, 0, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Bsend(NULL, 10, MPI_INT, peer, 0, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Recv(NULL, 10, MPI_INT, peer, 0, w, &st));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Recv(NULL, 10, MPI_INT, P, 0, w, &st));
    A_EXPECT(MPI_ERR_ARG, MPI_Recv(x, 1, MPI_INT, P, 0, w, NULL));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Isend(NULL, 10, MPI_INT, peer, 0, w, &r));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Issend(NULL, 10, MPI_INT, peer, 0, w, &r));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Irsend(NULL, 10, MPI_INT, peer, 0, w, &r));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Ibsend(NULL, 10, MPI_INT, peer, 0, w, &r));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Irecv(NULL, 10, MPI_INT, peer, 0, w, &r));
    A_EXPECT(MPI_ERR_ARG, MPI_Isend(x, 1, MPI_INT, P, 0, w, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Issend(x, 1, MPI_INT, P, 0, w, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Irsend(x, 1, MPI_INT, P, 0, w, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Ibsend(x, 1, MPI_INT, P, 0, w, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Irecv(x, 1, MPI_INT, P, 0, w, NULL));
    /* The large-count forms end in the same checks. */
    A_EXPECT(MPI_ERR_BUFFER, MPI_Send_c(NULL, 10, MPI_INT, peer, 0, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Irecv_c(NULL, 10, MPI_INT, peer, 0, w, &r));
    A_EXPECT(MPI_ERR_ARG, MPI_Recv_c(x, 1, MPI_INT, P, 0, w, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Isend_c(x, 1, MPI_INT, P, 0, w, NULL));

    /* ---- combined ---- */
    A_EXPECT(MPI_ERR_BUFFER, MPI_Sendrecv(NULL, 2, MPI_INT, peer, 0, x, 1, MPI_INT, peer, 0, w,
                                          &st));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Sendrecv(x, 1, MPI_INT, peer, 0, NULL, 2, MPI_INT, peer, 0, w,
                                          &st));
    A_EXPECT(MPI_ERR_ARG, MPI_Sendrecv(x, 1, MPI_INT, P, 0, x, 1, MPI_INT, P, 0, w, NULL));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Sendrecv_replace(NULL, 2, MPI_INT, peer, 0, peer, 0, w, &st));
    A_EXPECT(MPI_ERR_ARG, MPI_Sendrecv_replace(x, 1, MPI_INT, P, 0, P, 0, w, NULL));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Isendrecv(NULL, 2, MPI_INT, peer, 0, x, 1, MPI_INT, peer, 0,
                                           w, &r));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Isendrecv(x, 1, MPI_INT, peer, 0, NULL, 2, MPI_INT, peer, 0,
                                           w, &r));
    A_EXPECT(MPI_ERR_ARG, MPI_Isendrecv(x, 1, MPI_INT, P, 0, x, 1, MPI_INT, P, 0, w, NULL));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Isendrecv_replace(NULL, 2, MPI_INT, peer, 0, peer, 0, w, &r));
    A_EXPECT(MPI_ERR_ARG, MPI_Isendrecv_replace(x, 1, MPI_INT, P, 0, P, 0, w, NULL));

    /* ---- probes ---- */
    A_EXPECT(MPI_ERR_ARG, MPI_Probe(P, 0, w, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Iprobe(P, 0, w, &flag, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Iprobe(P, 0, w, NULL, &st));
    A_EXPECT(MPI_ERR_ARG, MPI_Iprobe(peer, 0, w, NULL, MPI_STATUS_IGNORE));
    A_EXPECT(MPI_ERR_ARG, MPI_Improbe(P, 0, w, NULL, &m, &st));
    A_EXPECT(MPI_ERR_ARG, MPI_Improbe(P, 0, w, &flag, NULL, &st));
    A_EXPECT(MPI_ERR_ARG, MPI_Improbe(P, 0, w, &flag, &m, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Mprobe(P, 0, w, NULL, &st));
    A_EXPECT(MPI_ERR_ARG, MPI_Mprobe(P, 0, w, &m, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Mrecv(x, 1, MPI_INT, NULL, &st));
    A_EXPECT(MPI_ERR_ARG, MPI_Imrecv(x, 1, MPI_INT, NULL, &r));
    /* A NULL buffer, status or request leaves the message to a correct call. */
    A_OK(MPI_Mprobe(P, 0, w, &m, &st));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Mrecv(NULL, 1, MPI_INT, &m, &st));
    A_EXPECT(MPI_ERR_ARG, MPI_Mrecv(x, 1, MPI_INT, &m, NULL));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Imrecv(NULL, 1, MPI_INT, &m, &r));
    A_EXPECT(MPI_ERR_ARG, MPI_Imrecv(x, 1, MPI_INT, &m, NULL));
    CHECK_TRUE(m == MPI_MESSAGE_NO_PROC, "message kept after refused receives");
    A_OK(MPI_Mrecv(x, 1, MPI_INT, &m, &st));
    CHECK_TRUE(m == MPI_MESSAGE_NULL, "message consumed by Mrecv");

    /* ---- persistent and partitioned ---- */
    A_EXPECT(MPI_ERR_BUFFER, MPI_Send_init(NULL, 10, MPI_INT, peer, 0, w, &r));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Ssend_init(NULL, 10, MPI_INT, peer, 0, w, &r));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Rsend_init(NULL, 10, MPI_INT, peer, 0, w, &r));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Bsend_init(NULL, 10, MPI_INT, peer, 0, w, &r));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Recv_init(NULL, 10, MPI_INT, peer, 0, w, &r));
    A_EXPECT(MPI_ERR_ARG, MPI_Send_init(x, 1, MPI_INT, P, 0, w, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Ssend_init(x, 1, MPI_INT, P, 0, w, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Rsend_init(x, 1, MPI_INT, P, 0, w, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Bsend_init(x, 1, MPI_INT, P, 0, w, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Recv_init(x, 1, MPI_INT, P, 0, w, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Start(NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Startall(2, NULL));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Psend_init(NULL, 2, 3, MPI_INT, peer, 0, w, MPI_INFO_NULL, &r));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Precv_init(NULL, 2, 3, MPI_INT, peer, 0, w, MPI_INFO_NULL, &r));
    A_EXPECT(MPI_ERR_ARG, MPI_Psend_init(x, 2, 2, MPI_INT, P, 0, w, MPI_INFO_NULL, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Precv_init(x, 2, 2, MPI_INT, P, 0, w, MPI_INFO_NULL, NULL));
    A_OK(MPI_Precv_init(x, 2, 2, MPI_INT, P, 0, w, MPI_INFO_NULL, &r));
    A_OK(MPI_Start(&r));
    A_EXPECT(MPI_ERR_ARG, MPI_Parrived(r, 0, NULL));
    A_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    A_OK(MPI_Request_free(&r));
    A_OK(MPI_Psend_init(x, 2, 2, MPI_INT, P, 0, w, MPI_INFO_NULL, &r));
    A_OK(MPI_Start(&r));
    A_EXPECT(MPI_ERR_ARG, MPI_Pready_list(2, NULL, r));
    A_OK(MPI_Pready_range(0, 1, r));
    A_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    A_OK(MPI_Request_free(&r));

    /* ---- buffered-send buffers ---- */
    A_EXPECT(MPI_ERR_BUFFER, MPI_Buffer_attach(NULL, 1000));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Comm_attach_buffer(w, NULL, 1000));
    A_EXPECT(MPI_ERR_ARG, MPI_Buffer_iflush(NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Comm_iflush_buffer(w, NULL));
    {
        static char bbuf[4096];
        void *addr = NULL;
        A_OK(MPI_Buffer_attach(bbuf, (int)sizeof bbuf));
        A_EXPECT(MPI_ERR_ARG, MPI_Buffer_detach(NULL, &n));
        A_EXPECT(MPI_ERR_ARG, MPI_Buffer_detach(&addr, NULL));
        A_OK(MPI_Buffer_detach(&addr, &n));
        CHECK_TRUE(addr == bbuf && n == (int)sizeof bbuf, "Buffer_detach returns the buffer");
        A_OK(MPI_Comm_attach_buffer(w, bbuf, (int)sizeof bbuf));
        A_EXPECT(MPI_ERR_ARG, MPI_Comm_detach_buffer(w, NULL, &n));
        A_EXPECT(MPI_ERR_ARG, MPI_Comm_detach_buffer(w, &addr, NULL));
        A_OK(MPI_Comm_detach_buffer(w, &addr, &n));
    }

    /* ---- counts and statuses ---- */
    A_OK(MPI_Recv(x, 1, MPI_INT, P, 0, w, &st));
    A_EXPECT(MPI_ERR_ARG, MPI_Get_count(NULL, MPI_INT, &n));
    A_EXPECT(MPI_ERR_ARG, MPI_Get_count(MPI_STATUS_IGNORE, MPI_INT, &n));
    A_EXPECT(MPI_ERR_ARG, MPI_Get_count(&st, MPI_INT, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Get_elements(NULL, MPI_INT, &n));
    A_EXPECT(MPI_ERR_ARG, MPI_Get_elements(MPI_STATUS_IGNORE, MPI_INT, &n));
    A_EXPECT(MPI_ERR_ARG, MPI_Get_elements(&st, MPI_INT, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Get_elements_x(NULL, MPI_INT, &c));
    A_EXPECT(MPI_ERR_ARG, MPI_Get_elements_x(&st, MPI_INT, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Get_count_c(NULL, MPI_INT, &c));
    A_EXPECT(MPI_ERR_ARG, MPI_Get_count_c(&st, MPI_INT, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Status_set_elements(NULL, MPI_INT, 1));
    A_EXPECT(MPI_ERR_ARG, MPI_Status_set_elements_x(MPI_STATUS_IGNORE, MPI_INT, 1));
    A_EXPECT(MPI_ERR_ARG, MPI_Status_set_cancelled(NULL, 1));
    A_EXPECT(MPI_ERR_ARG, MPI_Status_set_source(NULL, 1));
    A_EXPECT(MPI_ERR_ARG, MPI_Status_set_tag(NULL, 1));
    A_EXPECT(MPI_ERR_ARG, MPI_Status_set_error(NULL, 1));
    A_EXPECT(MPI_ERR_ARG, MPI_Status_get_source(NULL, &n));
    A_EXPECT(MPI_ERR_ARG, MPI_Status_get_source(&st, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Status_get_tag(NULL, &n));
    A_EXPECT(MPI_ERR_ARG, MPI_Status_get_tag(&st, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Status_get_error(MPI_STATUS_IGNORE, &n));
    A_EXPECT(MPI_ERR_ARG, MPI_Status_get_error(&st, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Grequest_start(g_query, g_free, g_cancel, NULL, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Grequest_start(NULL, g_free, g_cancel, NULL, &r));

    /* ---- legal uses of NULL (MPI_BOTTOM) ---- */
    {
        MPI_Datatype empty, abs_t;
        A_OK(MPI_Type_contiguous(0, MPI_INT, &empty));
        A_OK(MPI_Type_commit(&empty));
        MPI_Aint addr;
        int one = 1;
        A_OK(MPI_Get_address(x, &addr));
        A_OK(MPI_Type_create_struct(1, &one, &addr, (MPI_Datatype[]){MPI_INT}, &abs_t));
        A_OK(MPI_Type_commit(&abs_t));
        A_OK(MPI_Send(NULL, 0, MPI_INT, P, 0, w));
        A_OK(MPI_Recv(NULL, 0, MPI_INT, P, 0, w, MPI_STATUS_IGNORE));
        A_OK(MPI_Send(NULL, 5, empty, P, 0, w));
        A_OK(MPI_Send(MPI_BOTTOM, 1, abs_t, P, 0, w));
        A_OK(MPI_Recv(MPI_BOTTOM, 1, abs_t, P, 0, w, MPI_STATUS_IGNORE));
        A_OK(MPI_Isend(MPI_BOTTOM, 1, abs_t, P, 0, w, &r));
        A_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        /* And a real exchange through MPI_BOTTOM: rank 0 sends x[0] by address. */
        if (t_rank < 2) {
            int got = -1;
            x[0] = 4242;
            if (t_rank == 0)
                A_OK(MPI_Send(MPI_BOTTOM, 1, abs_t, 1, 7, w));
            else
                A_OK(MPI_Recv(&got, 1, MPI_INT, 0, 7, w, MPI_STATUS_IGNORE));
            if (t_rank == 1)
                CHECK_INT(4242, got, "value sent from MPI_BOTTOM");
        }
        A_OK(MPI_Type_free(&empty));
        A_OK(MPI_Type_free(&abs_t));
    }

    /* ---- the pair still works ---- */
    if (t_rank < 2) {
        int out[3] = {t_rank, 100 + t_rank, 200 + t_rank}, in[3] = {-1, -1, -1};
        A_OK(MPI_Sendrecv(out, 3, MPI_INT, peer, 9, in, 3, MPI_INT, peer, 9, w, &st));
        CHECK_INT(peer, in[0], "word 0 after the errors");
        CHECK_INT(100 + peer, in[1], "word 1 after the errors");
        CHECK_INT(200 + peer, in[2], "word 2 after the errors");
    }
    return a_finish("args_p2p");
}
