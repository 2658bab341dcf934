/* threads: MPI_THREAD_MULTIPLE, several threads of every rank in MPI at once.
 *
 * Checked (any number of ranks >= 2; optional argument: rounds, default 200):
 *  - MPI_Init_thread(MPI_THREAD_MULTIPLE) provides it, MPI_Query_thread says so, and
 *    MPI_Is_thread_main is true on the main thread only;
 *  - a thread blocked in MPI_Recv does not stop another thread of its rank from sending:
 *    every rank's first thread receives from its left neighbour before its second thread
 *    sends to the right one (so each receive can only complete through another rank's
 *    second thread); the same from the rank itself (a message to self);
 *  - 4 threads per rank exchange messages around the ring at once, each on its own tag, in
 *    sizes on both sides of the eager limit and in rendezvous (8 B .. 200 KB), blocking and
 *    nonblocking, and every byte arrives where it belongs;
 *  - 4 threads per rank run collectives at once, each on its own duplicate of
 *    MPI_COMM_WORLD (Barrier, Bcast, Allreduce, Allgather), with checked results: a thread
 *    waiting in a collective lets the other threads' collectives through; and they
 *    duplicate their communicators at once and use the copies (context ids agreed by
 *    several threads side by side, in different orders on different ranks).
 * Without the lock hand-over in waits the first check deadlocks (the test's timeout fails
 * it). */
#include "t_util.h"

#include <pthread.h>
#include <unistd.h>

#define NTHREADS 4
#define SIZES    5
static const int sizes[SIZES] = {8, 1000, 4096, 20000, 200000};
static int rounds = 200;
static MPI_Comm comms[NTHREADS];

/* ---- a receive blocked in one thread, the send that completes another rank's in a second */

typedef struct {
    int peer, tag;
    int value;
} blocked_t;

static void *recv_blocked(void *arg)
{
    blocked_t *b = arg;
    MPI_Status st;
    b->value = -1;
    MPI_Recv(&b->value, 1, MPI_INT, b->peer, b->tag, MPI_COMM_WORLD, &st);
    return NULL;
}

static void blocked_recv_then_send(int from, int to, int tag)
{
    pthread_t th;
    blocked_t b = {from, tag, 0};
    if (pthread_create(&th, NULL, recv_blocked, &b) != 0)
        t_fail("pthread_create failed");
    usleep(50000); /* the receiver is (most likely) waiting by now */
    int v = 1000 * t_rank + tag;
    MPI_Send(&v, 1, MPI_INT, to, tag, MPI_COMM_WORLD);
    pthread_join(th, NULL);
    CHECK_INT(1000 * from + tag, b.value, "value received while another thread sent");
}

/* ---- point-to-point around the ring, one tag per thread ---- */

static void *ring_worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    size_t max = (size_t)sizes[SIZES - 1];
    unsigned char *out = t_malloc(max), *in = t_malloc(max);
    char what[160];
    for (int i = 0; i < rounds / 10 + 1; i++) {
        for (int k = 0; k < SIZES; k++) {
            int n = sizes[(k + t) % SIZES];
            t_fill(out, (size_t)n, t_seed((uint64_t)t_rank, (uint64_t)(t * 1000 + i), (uint64_t)k));
            memset(in, 0, (size_t)n);
            MPI_Status st;
            if ((i + k) % 2 == 0) {
                MPI_Sendrecv(out, n, MPI_BYTE, right, t, in, n, MPI_BYTE, left, t, MPI_COMM_WORLD,
                             &st);
            } else {
                MPI_Request r[2];
                MPI_Irecv(in, n, MPI_BYTE, left, t, MPI_COMM_WORLD, &r[0]);
                MPI_Isend(out, n, MPI_BYTE, right, t, MPI_COMM_WORLD, &r[1]);
                MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
            }
            snprintf(what, sizeof what, "thread %d round %d: %d bytes from rank %d", t, i, n, left);
            t_check_fill(in, (size_t)n,
                         t_seed((uint64_t)left, (uint64_t)(t * 1000 + i), (uint64_t)k), what);
        }
    }
    free(out);
    free(in);
    return NULL;
}

/* ---- collectives, one communicator per thread ---- */

static void *coll_worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    MPI_Comm c = comms[t];
    int n = 1000 + 997 * t; /* different sizes per thread: some in pieces, some not */
    long *v = t_malloc((size_t)n * sizeof(long)), *sum = t_malloc((size_t)n * sizeof(long));
    int *all = t_malloc((size_t)t_size * sizeof(int));
    char what[160];
    for (int i = 0; i < rounds; i++) {
        int root = (i + t) % t_size;
        for (int j = 0; j < n; j++)
            v[j] = t_rank == root ? (long)(i * 31 + j + t) : -1;
        if (i % 4 == 0)
            MPI_Barrier(c);
        MPI_Bcast(v, n, MPI_LONG, root, c);
        for (int j = 0; j < n; j += 97) {
            snprintf(what, sizeof what, "thread %d round %d: Bcast element %d", t, i, j);
            CHECK_INT(i * 31 + j + t, (int)v[j], what);
        }
        for (int j = 0; j < n; j++)
            v[j] = (long)(t_rank + 1) * (j + i + t);
        MPI_Allreduce(v, sum, n, MPI_LONG, MPI_SUM, c);
        long ranks = (long)t_size * (t_size + 1) / 2;
        for (int j = 0; j < n; j += 89) {
            snprintf(what, sizeof what, "thread %d round %d: Allreduce element %d", t, i, j);
            CHECK_INT((int)(ranks * (j + i + t)), (int)sum[j], what);
        }
        int mine = t_rank * 100 + t + i;
        if (i % 25 == 0) {
            /* Communicators made by several threads at once (context ids agreed side by
             * side), used at once: a shared id would cross their messages. */
            MPI_Comm d;
            MPI_Comm_dup(c, &d);
            int got = -1, want = 0;
            for (int r = 0; r < t_size; r++)
                want += r * 100 + t + i;
            MPI_Allreduce(&mine, &got, 1, MPI_INT, MPI_SUM, d);
            snprintf(what, sizeof what, "thread %d round %d: Allreduce on a new communicator", t,
                     i);
            CHECK_INT(want, got, what);
            MPI_Comm_free(&d);
        }
        MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, c);
        for (int r = 0; r < t_size; r++) {
            snprintf(what, sizeof what, "thread %d round %d: Allgather from rank %d", t, i, r);
            CHECK_INT(r * 100 + t + i, all[r], what);
        }
    }
    free(v);
    free(sum);
    free(all);
    return NULL;
}

static void *query_thread(void *arg)
{
    int *flag = arg;
    MPI_Is_thread_main(flag);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1, level = -1, flag = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    t_init();
    t_require_ranks(2);
    if (argc > 1)
        rounds = atoi(argv[1]);
    CHECK_INT(MPI_THREAD_MULTIPLE, provided, "provided thread level");
    MPI_Query_thread(&level);
    CHECK_INT(MPI_THREAD_MULTIPLE, level, "MPI_Query_thread");
    MPI_Is_thread_main(&flag);
    CHECK_INT(1, flag, "MPI_Is_thread_main on the main thread");
    pthread_t th;
    flag = -1;
    pthread_create(&th, NULL, query_thread, &flag);
    pthread_join(th, NULL);
    CHECK_INT(0, flag, "MPI_Is_thread_main on another thread");

    /* Receives that only another rank's second thread can complete, around the ring and
     * from self. */
    blocked_recv_then_send((t_rank + t_size - 1) % t_size, (t_rank + 1) % t_size, 11);
    blocked_recv_then_send(t_rank, t_rank, 12);
    MPI_Barrier(MPI_COMM_WORLD);

    pthread_t ths[NTHREADS];
    for (int t = 0; t < NTHREADS; t++)
        pthread_create(&ths[t], NULL, ring_worker, (void *)(intptr_t)t);
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(ths[t], NULL);
    MPI_Barrier(MPI_COMM_WORLD);

    for (int t = 0; t < NTHREADS; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    for (int t = 0; t < NTHREADS; t++)
        pthread_create(&ths[t], NULL, coll_worker, (void *)(intptr_t)t);
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(ths[t], NULL);
    for (int t = 0; t < NTHREADS; t++)
        MPI_Comm_free(&comms[t]);

    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        printf("threads: %d ranks x %d threads, %d rounds: ok\n", t_size, NTHREADS, rounds);
    MPI_Finalize();
    return 0;
}
