/* The MPICH ABI's handle tables under MPI_THREAD_MULTIPLE: 4 threads per rank at once
 * create and free request handles (Isend/Irecv/Waitall on a tag of their own, checked
 * data) and datatype handles (hash insert and delete under the table's lock while other
 * threads look handles up without it), so that slots are reused while lookups run; every
 * tenth iteration a thread keeps 1200 requests alive, so that when the threads' big
 * iterations overlap the request table grows past its first chunk of 4096 slots while
 * other threads read it. */
#include <pthread.h>
#include <string.h>

#include "abi_test.h"

#define NTHREADS 4
#define ITERS    300
#define INFLIGHT 600

static int rank, peer;

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    static __thread int sbuf[INFLIGHT], rbuf[INFLIGHT];
    MPI_Request req[2 * INFLIGHT];
    for (int it = 0; it < ITERS; it++) {
        int n = it % 10 == 0 ? INFLIGHT : 8;
        for (int k = 0; k < n; k++) {
            sbuf[k] = (rank * NTHREADS + t) * 1000003 + it * 1000 + k;
            rbuf[k] = -1;
            OK(MPI_Irecv(&rbuf[k], 1, MPI_INT, peer, t * INFLIGHT + k, MPI_COMM_WORLD, &req[k]));
        }
        for (int k = 0; k < n; k++)
            OK(MPI_Isend(&sbuf[k], 1, MPI_INT, peer, t * INFLIGHT + k, MPI_COMM_WORLD,
                         &req[n + k]));
        /* Datatype handles come and go meanwhile: hash insert and delete. */
        MPI_Datatype dt;
        OK(MPI_Type_vector(2, 1, 2 + t, MPI_INT, &dt));
        OK(MPI_Type_commit(&dt));
        int size = 0;
        OK(MPI_Type_size(dt, &size));
        CHECK_INT(size, 2 * sizeof(int));
        OK(MPI_Waitall(2 * n, req, MPI_STATUSES_IGNORE));
        OK(MPI_Type_free(&dt));
        CHECK_INT(dt, MPI_DATATYPE_NULL);
        for (int k = 0; k < n; k++) {
            CHECK_INT(req[k], MPI_REQUEST_NULL);
            CHECK_INT(rbuf[k], (peer * NTHREADS + t) * 1000003 + it * 1000 + k);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    abi_rank_ = rank;
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            printf("SKIP: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        MPI_Finalize();
        return 77;
    }
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "needs 2 ranks, has %d", size);
    peer = 1 - rank;
    pthread_t th[NTHREADS];
    for (long t = 0; t < NTHREADS; t++)
        CHECK_INT(pthread_create(&th[t], NULL, worker, (void *)t), 0);
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    abi_test_done("threads");
    return 0;
}
