/* Passive-target epochs under contention, over every kind of window memory:
 *  - every rank Fetch_and_op(SUM, 1) ITERS times on one counter at rank 0: the final value
 *    is exact and every fetched value is distinct (each increment was atomic);
 *  - Accumulate(SUM) of a 16-int vector by every rank, shared locks: exact sums;
 *  - a mutex built from Compare_and_swap guards a read-modify-write done with plain
 *    Get/Put: the guarded counter ends exact (mutual exclusion held);
 *  - exclusive lock epochs: each rank writes its id over a whole block and reads it back
 *    inside the epoch (no other writer interleaves);
 *  - Win_lock_all + Win_flush + Get_accumulate(NO_OP) reads; Win_flush_local_all. */
#include "t_rma.h"

#define ITERS 200
#define VEC   16

enum { OFF_COUNTER = 0, OFF_MUTEX = 1, OFF_GUARDED = 2, OFF_VEC = 8, OFF_BLOCK = 64 };
#define BLOCK 256 /* longs in the exclusive block */
#define WORDS (OFF_BLOCK + BLOCK)

static void run(int kind, int iters)
{
    char what[160];
    t_win w;
    t_win_make(&w, kind, WORDS * sizeof(long), sizeof(long), MPI_COMM_WORLD);
    long *mem = w.base;
    const char *k = t_wk_name[kind];

    /* 1. Fetch_and_op counter. */
    long *seen = t_malloc((size_t)iters * sizeof(long));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w.win));
    for (int i = 0; i < iters; i++) {
        long one = 1;
        CHECK_MPI(MPI_Fetch_and_op(&one, &seen[i], MPI_LONG, 0, OFF_COUNTER, MPI_SUM, w.win));
        CHECK_MPI(MPI_Win_flush(0, w.win));
    }
    CHECK_MPI(MPI_Win_unlock(0, w.win));
    long total = (long)t_size * iters;
    long *all = t_malloc((size_t)total * sizeof(long));
    MPI_Allgather(seen, iters, MPI_LONG, all, iters, MPI_LONG, MPI_COMM_WORLD);
    char *hit = calloc((size_t)total, 1);
    for (long i = 0; i < total; i++) {
        if (all[i] < 0 || all[i] >= total || hit[all[i]])
            t_fail("%s: fetched value %ld is out of range or seen twice (%ld increments)", k,
                   all[i], total);
        hit[all[i]] = 1;
    }
    free(hit);
    free(all);
    free(seen);

    /* 2. Vector accumulate under shared locks. */
    long vec[VEC];
    for (int j = 0; j < VEC; j++)
        vec[j] = (long)(t_rank + 1) * (j + 1);
    for (int i = 0; i < iters / 10; i++) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w.win));
        CHECK_MPI(MPI_Accumulate(vec, VEC, MPI_LONG, 0, OFF_VEC, VEC, MPI_LONG, MPI_SUM, w.win));
        CHECK_MPI(MPI_Win_unlock(0, w.win));
    }

    /* 3. CAS mutex around Get / Put of a plain counter. */
    for (int i = 0; i < iters / 4; i++) {
        long zero = 0, me = t_rank + 1, prev;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w.win));
        do {
            CHECK_MPI(MPI_Compare_and_swap(&me, &zero, &prev, MPI_LONG, 0, OFF_MUTEX, w.win));
            CHECK_MPI(MPI_Win_flush(0, w.win));
        } while (prev != 0);
        long v;
        CHECK_MPI(MPI_Get(&v, 1, MPI_LONG, 0, OFF_GUARDED, 1, MPI_LONG, w.win));
        CHECK_MPI(MPI_Win_flush(0, w.win));
        v++;
        CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, 0, OFF_GUARDED, 1, MPI_LONG, w.win));
        CHECK_MPI(MPI_Win_flush(0, w.win));
        CHECK_MPI(MPI_Compare_and_swap(&zero, &me, &prev, MPI_LONG, 0, OFF_MUTEX, w.win));
        CHECK_MPI(MPI_Win_unlock(0, w.win));
        CHECK_INT(me, prev, t_fmt(what, sizeof what, "%s: the mutex was held by this rank", k));
    }

    /* 4. Exclusive epochs over a block. */
    long *blk = t_malloc(BLOCK * sizeof(long)), *rd = t_malloc(BLOCK * sizeof(long));
    for (int i = 0; i < iters / 10; i++) {
        for (int j = 0; j < BLOCK; j++)
            blk[j] = (long)t_rank * 1000000 + i * 1000 + j;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w.win));
        CHECK_MPI(MPI_Put(blk, BLOCK, MPI_LONG, 0, OFF_BLOCK, BLOCK, MPI_LONG, w.win));
        CHECK_MPI(MPI_Win_flush(0, w.win));
        CHECK_MPI(MPI_Get(rd, BLOCK, MPI_LONG, 0, OFF_BLOCK, BLOCK, MPI_LONG, w.win));
        CHECK_MPI(MPI_Win_unlock(0, w.win));
        for (int j = 0; j < BLOCK; j++)
            CHECK_INT(blk[j], rd[j], t_fmt(what, sizeof what, "%s: exclusive block [%d]", k, j));
    }
    free(blk);
    free(rd);
    MPI_Barrier(MPI_COMM_WORLD);

    /* 5. Everyone reads the results with lock_all + Get_accumulate(NO_OP). */
    CHECK_MPI(MPI_Win_lock_all(0, w.win));
    long got[3 + VEC];
    CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_LONG, got, 1, MPI_LONG, 0, OFF_COUNTER, 1, MPI_LONG,
                                 MPI_NO_OP, w.win));
    CHECK_MPI(MPI_Get(&got[1], 1, MPI_LONG, 0, OFF_GUARDED, 1, MPI_LONG, w.win));
    CHECK_MPI(MPI_Get(&got[3], VEC, MPI_LONG, 0, OFF_VEC, VEC, MPI_LONG, w.win));
    CHECK_MPI(MPI_Win_flush_all(w.win));
    CHECK_MPI(MPI_Win_flush_local_all(w.win));
    CHECK_MPI(MPI_Win_unlock_all(w.win));
    CHECK_INT(total, got[0], t_fmt(what, sizeof what, "%s: Fetch_and_op counter", k));
    CHECK_INT((long)t_size * (iters / 4), got[1],
              t_fmt(what, sizeof what, "%s: counter guarded by the CAS mutex", k));
    long ranksum = (long)t_size * (t_size + 1) / 2;
    for (int j = 0; j < VEC; j++)
        CHECK_INT(ranksum * (j + 1) * (iters / 10), got[3 + j],
                  t_fmt(what, sizeof what, "%s: accumulated vector [%d]", k, j));
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        CHECK_INT(0, mem[OFF_MUTEX], "the mutex is free at the end");
    t_win_free(&w);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    int iters = argc > 1 ? atoi(argv[1]) : ITERS;
    for (int k = 0; k < WK_COUNT; k++)
        run(k, iters);
    MPI_Finalize();
    return 0;
}
