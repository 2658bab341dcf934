/* comm_threads: communicators made by several threads of every rank at once
 * (MPI_THREAD_MULTIPLE), every kind of constructor side by side.
 *
 * Checked (4 ranks or more, even; optional argument: rounds, default 6): 4 threads per rank,
 * each on its own duplicate of MPI_COMM_WORLD, start nonblocking duplicates and, while
 * those are pending, make communicators with Comm_dup, Comm_split, Comm_create,
 * Comm_create_group, Intercomm_create and Intercomm_merge, one after the other; every new
 * communicator carries an Allreduce of its ranks with a checked result (a context id shared
 * by two communicators of a process would cross their messages). The threads of one rank
 * reach their agreements in different orders on different ranks, and the leaders of an
 * Intercomm_create talk while other threads of their processes agree over other
 * communicators: with the whole agreed mask held back during that talk, one thread's
 * agreement starved in the leader's process and the other group's leader never came (a
 * hang in about one run in four of one round; the test's timeout fails it). */
#include "t_util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 4
#define NIDUPS   3

static int rounds = 6;
static MPI_Comm comms[NTHREADS];

/* An Allreduce of the ranks over the intracommunicator c, checked. */
static void check_comm(MPI_Comm c, int t, int round, const char *what)
{
    if (c == MPI_COMM_NULL)
        return;
    int rank, size, got = -1;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    MPI_Allreduce(&rank, &got, 1, MPI_INT, MPI_SUM, c);
    char msg[160];
    snprintf(msg, sizeof msg, "thread %d round %d: Allreduce of the ranks over %s", t, round,
             what);
    CHECK_INT(size * (size - 1) / 2, got, msg);
}

static void check_inter(MPI_Comm ic, int t, int round)
{
    int rsize = -1, lsize = -1, rank = -1, got = -1;
    MPI_Comm_remote_size(ic, &rsize);
    MPI_Comm_size(ic, &lsize);
    MPI_Comm_rank(ic, &rank);
    /* Each side sends its local size to rank 0 of the other and back around. */
    int mine = lsize;
    MPI_Sendrecv(&mine, 1, MPI_INT, rank % rsize, 5, &got, 1, MPI_INT, rank % rsize, 5, ic,
                 MPI_STATUS_IGNORE);
    char msg[160];
    snprintf(msg, sizeof msg, "thread %d round %d: size of the remote group over the "
             "intercommunicator", t, round);
    CHECK_INT(rsize, got, msg);
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    MPI_Comm in = comms[t], out, local, inter, dups[NIDUPS];
    MPI_Request reqs[NIDUPS];
    int rank, size;
    MPI_Comm_rank(in, &rank);
    MPI_Comm_size(in, &size);
    MPI_Group group, sub;
    MPI_Comm_group(in, &group);
    for (int round = 0; round < rounds; round++) {
        for (int i = 0; i < NIDUPS; i++)
            MPI_Comm_idup(in, &dups[i], &reqs[i]);

        MPI_Comm_dup(in, &out);
        check_comm(out, t, round, "Comm_dup");
        MPI_Comm_free(&out);

        MPI_Comm_split(in, rank % 2, size - rank, &out);
        check_comm(out, t, round, "Comm_split");
        MPI_Comm_free(&out);

        int range[1][3] = {{size / 2, size - 1, 1}};
        MPI_Group_range_incl(group, 1, range, &sub);
        MPI_Comm_create(in, sub, &out);
        MPI_Group_free(&sub);
        check_comm(out, t, round, "Comm_create");
        if (out != MPI_COMM_NULL)
            MPI_Comm_free(&out);

        int even[1][3] = {{0, size - 1, 2}};
        MPI_Group_range_incl(group, 1, even, &sub);
        out = MPI_COMM_NULL;
        if (rank % 2 == 0)
            MPI_Comm_create_group(in, sub, round, &out);
        MPI_Group_free(&sub);
        check_comm(out, t, round, "Comm_create_group");
        if (out != MPI_COMM_NULL)
            MPI_Comm_free(&out);

        int left = rank < size / 2;
        MPI_Comm_split(in, left, rank, &local);
        MPI_Intercomm_create(local, 0, in, left ? size / 2 : 0, 99, &inter);
        check_inter(inter, t, round);
        MPI_Intercomm_merge(inter, !left, &out);
        check_comm(out, t, round, "Intercomm_merge");
        int r = -1;
        MPI_Comm_rank(out, &r);
        char msg[160];
        snprintf(msg, sizeof msg, "thread %d round %d: rank in the merged communicator", t,
                 round);
        CHECK_INT(rank, r, msg); /* the left group (high = 0) first, each in its order */
        MPI_Comm_free(&out);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&local);

        MPI_Waitall(NIDUPS, reqs, MPI_STATUSES_IGNORE);
        for (int i = 0; i < NIDUPS; i++) {
            check_comm(dups[i], t, round, "Comm_idup");
            MPI_Comm_free(&dups[i]);
        }
    }
    MPI_Group_free(&group);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    t_init();
    t_require_ranks(4);
    if (argc > 1)
        rounds = atoi(argv[1]);
    CHECK_INT(MPI_THREAD_MULTIPLE, provided, "provided thread level");
    CHECK_INT(0, t_size % 2, "an even number of ranks");
    for (int t = 0; t < NTHREADS; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    pthread_t ths[NTHREADS];
    for (int t = 0; t < NTHREADS; t++)
        pthread_create(&ths[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(ths[t], NULL);
    for (int t = 0; t < NTHREADS; t++)
        MPI_Comm_free(&comms[t]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        printf("comm_threads: %d ranks x %d threads, %d rounds: ok\n", t_size, NTHREADS, rounds);
    MPI_Finalize();
    return 0;
}
