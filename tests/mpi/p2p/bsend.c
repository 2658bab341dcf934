/* bsend: buffered mode between ranks 0 (sender) and 1 (receiver).
 *
 * Checked:
 *  - Bsend is local: three messages (4 KB, 400 KB, 0 B) are buffered before the receiver
 *    posts anything (the barrier after them would deadlock otherwise) and arrive intact
 *    and in order; a vector datatype is packed at Bsend time (the source is overwritten
 *    right after) and unpacked by a contiguous receive.
 *  - Buffer_detach waits for delivery: after it returns the sender scribbles over the
 *    buffer, the 400 KB (rendezvous) message still arrives intact; detach gives back the
 *    attached address and size. Buffer_flush and Buffer_iflush+Wait likewise.
 *  - Ibsend completes at once (first Test true); Bsend_init rounds through Start/Wait.
 *  - Comm_attach_buffer: a dup communicator's own buffer serves Bsend on it while WORLD
 *    (no process buffer) refuses with MPI_ERR_BUFFER; Comm_detach_buffer returns it.
 *  - MPI_BUFFER_AUTOMATIC: large messages without any sizing; detach gives back
 *    MPI_BUFFER_AUTOMATIC.
 *  - Errors (MPI_ERRORS_RETURN): Bsend without a buffer, Bsend larger than the buffer,
 *    second attach, detach with nothing attached: MPI_ERR_BUFFER; Bsend to PROC_NULL
 *    needs no buffer.
 */
#include "../t_util.h"

#define N_SMALL 1000   /* ints: 4 KB, eager */
#define N_LARGE 100000 /* ints: 400 KB, rendezvous */

static int pack_size(int n, MPI_Datatype dt)
{
    int s = 0;
    MPI_Pack_size(n, dt, MPI_COMM_WORLD, &s);
    return s;
}

static void fill_ints(int *a, int n, int base)
{
    for (int i = 0; i < n; i++)
        a[i] = base + i * 7;
}

static void check_ints(const int *a, int n, int base, const char *what)
{
    char w[160];
    for (int i = 0; i < n; i++)
        if (a[i] != base + i * 7)
            CHECK_INT(base + i * 7, a[i], t_fmt(w, sizeof w, "%s: element %d", what, i));
}

static void recv_ints(int n, int tag, int base, MPI_Comm comm, const char *what)
{
    int *a = t_malloc((size_t)n * sizeof(int));
    MPI_Status st;
    char w[160];
    CHECK_MPI(MPI_Recv(a, n, MPI_INT, 0, tag, comm, &st));
    CHECK_INT(n, t_count(&st, MPI_INT), t_fmt(w, sizeof w, "%s: count", what));
    CHECK_INT(tag, st.MPI_TAG, t_fmt(w, sizeof w, "%s: tag", what));
    check_ints(a, n, base, what);
    free(a);
}

static void sender(void)
{
    int *small = t_malloc(N_SMALL * sizeof(int)), *large = t_malloc(N_LARGE * sizeof(int));
    int bsize = pack_size(N_SMALL, MPI_INT) + pack_size(N_LARGE, MPI_INT) + 10 * 4 +
                3 * MPI_BSEND_OVERHEAD;
    char *buf = t_malloc((size_t)bsize);
    int x = 1;
    memset(small, 0, N_SMALL * sizeof(int));

    /* No buffer yet. */
    CHECK_INT(MPI_ERR_BUFFER, MPI_Bsend(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD),
              "Bsend without a buffer");
    CHECK_MPI(MPI_Bsend(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    void *addr = NULL;
    int size = -1;
    CHECK_INT(MPI_ERR_BUFFER, MPI_Buffer_detach(&addr, &size), "detach with nothing attached");

    /* A buffer of half the message's size. */
    int need = pack_size(N_SMALL, MPI_INT) / 2;
    CHECK_MPI(MPI_Buffer_attach(buf, need));
    CHECK_INT(MPI_ERR_BUFFER, MPI_Bsend(small, N_SMALL, MPI_INT, 1, 1, MPI_COMM_WORLD),
              "Bsend larger than the buffer");
    CHECK_MPI(MPI_Buffer_detach(&addr, &size));
    CHECK_INT(need, size, "Buffer_detach: size of the small buffer");

    CHECK_MPI(MPI_Buffer_attach(buf, bsize));
    CHECK_INT(MPI_ERR_BUFFER, MPI_Buffer_attach(buf, bsize), "second Buffer_attach");

    /* Phase 1: buffered before the receiver posts anything. */
    fill_ints(small, N_SMALL, 100);
    fill_ints(large, N_LARGE, 200);
    CHECK_MPI(MPI_Bsend(small, N_SMALL, MPI_INT, 1, 10, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Bsend(large, N_LARGE, MPI_INT, 1, 11, MPI_COMM_WORLD));
    /* A column of a 10x3 matrix: packed now, source overwritten right after. */
    int mat[10][3];
    MPI_Datatype col;
    MPI_Type_vector(10, 1, 3, MPI_INT, &col);
    MPI_Type_commit(&col);
    for (int i = 0; i < 10; i++)
        mat[i][0] = mat[i][2] = -1, mat[i][1] = 300 + i * 7;
    CHECK_MPI(MPI_Bsend(&mat[0][1], 1, col, 1, 12, MPI_COMM_WORLD));
    memset(mat, 0xee, sizeof mat);
    memset(small, 0xee, N_SMALL * sizeof(int));
    memset(large, 0xee, N_LARGE * sizeof(int));
    MPI_Type_free(&col);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Phase 2: detach waits for delivery of a rendezvous-sized message. Phase 1's large
     * message may still fill the buffer: flush first. */
    CHECK_MPI(MPI_Buffer_flush());
    fill_ints(large, N_LARGE, 400);
    CHECK_MPI(MPI_Bsend(large, N_LARGE, MPI_INT, 1, 20, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Buffer_detach(&addr, &size));
    CHECK_TRUE(addr == (void *)buf, "Buffer_detach: address");
    CHECK_INT(bsize, size, "Buffer_detach: size");
    memset(buf, 0xab, (size_t)bsize);

    /* Phase 3: flush and iflush. */
    CHECK_MPI(MPI_Buffer_attach(buf, bsize));
    fill_ints(large, N_LARGE, 500);
    CHECK_MPI(MPI_Bsend(large, N_LARGE, MPI_INT, 1, 30, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Buffer_flush());
    memset(buf, 0xab, (size_t)bsize);
    fill_ints(large, N_LARGE, 600);
    CHECK_MPI(MPI_Bsend(large, N_LARGE, MPI_INT, 1, 31, MPI_COMM_WORLD));
    MPI_Request fr;
    CHECK_MPI(MPI_Buffer_iflush(&fr));
    CHECK_MPI(MPI_Wait(&fr, MPI_STATUS_IGNORE));
    memset(buf, 0xab, (size_t)bsize);

    /* Phase 4: Ibsend completes at once; Bsend_init rounds. */
    MPI_Request r;
    int flag = 0;
    fill_ints(small, N_SMALL, 700);
    CHECK_MPI(MPI_Ibsend(small, N_SMALL, MPI_INT, 1, 40, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    CHECK_INT(1, flag, "Ibsend: first Test");
    CHECK_MPI(MPI_Bsend_init(small, N_SMALL, MPI_INT, 1, 41, MPI_COMM_WORLD, &r));
    for (int round = 0; round < 3; round++) {
        fill_ints(small, N_SMALL, 800 + round);
        CHECK_MPI(MPI_Start(&r));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Buffer_flush()); /* the buffer has room for one of these at a time */
    }
    MPI_Request_free(&r);
    CHECK_MPI(MPI_Buffer_detach(&addr, &size));

    /* Phase 5: a communicator's own buffer. */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    CHECK_MPI(MPI_Comm_attach_buffer(dup, buf, bsize));
    fill_ints(small, N_SMALL, 900);
    CHECK_MPI(MPI_Bsend(small, N_SMALL, MPI_INT, 1, 50, dup));
    CHECK_INT(MPI_ERR_BUFFER, MPI_Bsend(small, N_SMALL, MPI_INT, 1, 50, MPI_COMM_WORLD),
              "Bsend on WORLD with only a dup's buffer attached");
    CHECK_MPI(MPI_Comm_flush_buffer(dup));
    CHECK_MPI(MPI_Comm_iflush_buffer(dup, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Comm_detach_buffer(dup, &addr, &size));
    CHECK_TRUE(addr == (void *)buf, "Comm_detach_buffer: address");
    CHECK_INT(bsize, size, "Comm_detach_buffer: size");
    CHECK_INT(MPI_ERR_BUFFER, MPI_Comm_detach_buffer(dup, &addr, &size),
              "Comm_detach_buffer with nothing attached");
    MPI_Comm_free(&dup);

    /* Phase 6: automatic buffering. */
    CHECK_MPI(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
    for (int k = 0; k < 4; k++) {
        fill_ints(large, N_LARGE, 1000 + k);
        CHECK_MPI(MPI_Bsend(large, N_LARGE, MPI_INT, 1, 60 + k, MPI_COMM_WORLD));
    }
    memset(large, 0xee, N_LARGE * sizeof(int));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Buffer_detach(&addr, &size));
    CHECK_TRUE(addr == MPI_BUFFER_AUTOMATIC, "detach of automatic buffering: address");
    CHECK_INT(0, size, "detach of automatic buffering: size");
    free(buf);
    free(small);
    free(large);
}

static void receiver(void)
{
    MPI_Barrier(MPI_COMM_WORLD); /* everything of phase 1 is buffered by now */
    recv_ints(N_SMALL, 10, 100, MPI_COMM_WORLD, "phase 1 small");
    recv_ints(N_LARGE, 11, 200, MPI_COMM_WORLD, "phase 1 large");
    recv_ints(10, 12, 300, MPI_COMM_WORLD, "phase 1 vector column");
    t_sleep_ms(50); /* the sender sits in Buffer_detach meanwhile */
    recv_ints(N_LARGE, 20, 400, MPI_COMM_WORLD, "after detach");
    recv_ints(N_LARGE, 30, 500, MPI_COMM_WORLD, "after flush");
    recv_ints(N_LARGE, 31, 600, MPI_COMM_WORLD, "after iflush");
    recv_ints(N_SMALL, 40, 700, MPI_COMM_WORLD, "Ibsend");
    for (int round = 0; round < 3; round++)
        recv_ints(N_SMALL, 41, 800 + round, MPI_COMM_WORLD, "Bsend_init");
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    recv_ints(N_SMALL, 50, 900, dup, "dup's buffer");
    MPI_Comm_free(&dup);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < 4; k++)
        recv_ints(N_LARGE, 60 + k, 1000 + k, MPI_COMM_WORLD, "automatic");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (t_rank == 0) {
        sender();
    } else if (t_rank == 1) {
        receiver();
    } else {
        MPI_Comm dup;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Comm_free(&dup);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
