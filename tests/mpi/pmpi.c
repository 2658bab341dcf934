/* pmpi: the profiling interface.
 *
 * This program defines its own MPI_Send and MPI_Isend, which count calls (and bytes) and
 * forward to PMPI_Send / PMPI_Isend. Checked:
 *  - rank 0's 10 MPI_Send and 7 MPI_Isend calls to rank 1 (0 B .. 300 KB) are counted
 *    exactly, with the right byte totals, and the data arrives intact;
 *  - calls made directly to PMPI_Send / PMPI_Isend are not counted and still deliver;
 *  - PMPI_ names of other functions (PMPI_Comm_rank, PMPI_Recv, PMPI_Wait) work;
 *  - the library does not route its own work through the user's MPI_Send / MPI_Isend:
 *    Sendrecv, Ssend, Issend, Rsend, Barrier, Bcast, Reduce, Allreduce, Gather and
 *    Allgather leave the counters unchanged (otherwise a profiler double-counts).
 */
#include "t_util.h"

static long send_calls, isend_calls, send_bytes, isend_bytes;

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    int sz = 0;
    PMPI_Type_size(datatype, &sz);
    send_calls++;
    send_bytes += (long)count * sz;
    return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    int sz = 0;
    PMPI_Type_size(datatype, &sz);
    isend_calls++;
    isend_bytes += (long)count * sz;
    return PMPI_Isend(buf, count, datatype, dest, tag, comm, request);
}

static const int sizes[] = {0, 1, 100, 256, 257, 4096, 65536, 300000, 17, 1000};

int main(int argc, char **argv)
{
    unsigned char *buf;
    int i, rank = -1, got;
    long exp_send_bytes = 0, exp_isend_bytes = 0;
    MPI_Request reqs[10];
    MPI_Status st;
    char what[120];

    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK_INT(t_rank, rank, "PMPI_Comm_rank");
    buf = t_malloc(10 * 300000);
    MPI_Barrier(MPI_COMM_WORLD);
    send_calls = isend_calls = send_bytes = isend_bytes = 0;

    /* Counted calls. */
    if (t_rank == 0) {
        for (i = 0; i < 10; i++) {
            t_fill(buf, (size_t)sizes[i], t_seed(1, (uint64_t)i, 0));
            MPI_Send(buf, sizes[i], MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            exp_send_bytes += sizes[i];
        }
        for (i = 0; i < 7; i++) {
            t_fill(buf + (size_t)i * 300000, (size_t)sizes[i + 1], t_seed(2, (uint64_t)i, 0));
            MPI_Isend(buf + (size_t)i * 300000, sizes[i + 1], MPI_BYTE, 1, 2, MPI_COMM_WORLD,
                      &reqs[i]);
            exp_isend_bytes += sizes[i + 1];
        }
        MPI_Waitall(7, reqs, MPI_STATUSES_IGNORE);
        CHECK_INT(10, send_calls, "MPI_Send calls seen by the wrapper");
        CHECK_INT(7, isend_calls, "MPI_Isend calls seen by the wrapper");
        CHECK_INT(exp_send_bytes, send_bytes, "MPI_Send bytes seen by the wrapper");
        CHECK_INT(exp_isend_bytes, isend_bytes, "MPI_Isend bytes seen by the wrapper");

        /* Direct PMPI calls bypass the wrappers. */
        t_fill(buf, 5000, t_seed(3, 0, 0));
        PMPI_Send(buf, 5000, MPI_BYTE, 1, 3, MPI_COMM_WORLD);
        PMPI_Isend(buf, 5000, MPI_BYTE, 1, 3, MPI_COMM_WORLD, &reqs[0]);
        PMPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
        CHECK_INT(10, send_calls, "MPI_Send count after direct PMPI_Send");
        CHECK_INT(7, isend_calls, "MPI_Isend count after direct PMPI_Isend");
    } else if (t_rank == 1) {
        for (i = 0; i < 10; i++) {
            MPI_Recv(buf, 300000, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st);
            CHECK_INT(sizes[i], t_count(&st, MPI_BYTE),
                      t_fmt(what, sizeof what, "MPI_Send message %d: Get_count", i));
            t_check_fill(buf, (size_t)sizes[i], t_seed(1, (uint64_t)i, 0),
                         t_fmt(what, sizeof what, "MPI_Send message %d", i));
        }
        for (i = 0; i < 7; i++) {
            PMPI_Recv(buf, 300000, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &st);
            CHECK_INT(sizes[i + 1], t_count(&st, MPI_BYTE),
                      t_fmt(what, sizeof what, "MPI_Isend message %d: Get_count", i));
            t_check_fill(buf, (size_t)sizes[i + 1], t_seed(2, (uint64_t)i, 0),
                         t_fmt(what, sizeof what, "MPI_Isend message %d", i));
        }
        for (i = 0; i < 2; i++) {
            MPI_Recv(buf, 300000, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &st);
            CHECK_INT(5000, t_count(&st, MPI_BYTE), "PMPI message: Get_count");
            t_check_fill(buf, 5000, t_seed(3, 0, 0), "PMPI message");
        }
        CHECK_INT(0, send_calls + isend_calls, "wrapper calls on the receiving rank");
    }

    /* The library's own traffic does not go through the user's wrappers. */
    {
        long s0 = send_calls, i0 = isend_calls;
        int v = t_rank, sum = 0, *all = t_malloc(sizeof(int) * (size_t)t_size);
        int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
        MPI_Request r;
        MPI_Sendrecv(&v, 1, MPI_INT, right, 4, &got, 1, MPI_INT, left, 4, MPI_COMM_WORLD, &st);
        CHECK_INT(left, got, "Sendrecv value");
        if (t_rank == 0) {
            MPI_Ssend(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
            MPI_Issend(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else if (t_rank == 1) {
            MPI_Recv(&got, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(&got, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Irecv(&got, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, &r);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (t_rank == 0)
            MPI_Rsend(&v, 1, MPI_INT, 1, 6, MPI_COMM_WORLD);
        else if (t_rank == 1)
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Bcast(buf, 300000, MPI_BYTE, 0, MPI_COMM_WORLD);
        MPI_Reduce(&v, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK_INT(t_size * (t_size - 1) / 2, sum, "Allreduce value");
        MPI_Gather(&v, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Allgather(&v, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
        CHECK_INT(t_size - 1, all[t_size - 1], "Allgather value");
        CHECK_INT(s0, send_calls,
                  "MPI_Send wrapper calls made by the library itself (Sendrecv, Ssend, "
                  "collectives, ...)");
        CHECK_INT(i0, isend_calls,
                  "MPI_Isend wrapper calls made by the library itself (Sendrecv, Issend, "
                  "collectives, ...)");
        free(all);
    }

    free(buf);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
