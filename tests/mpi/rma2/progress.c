/* A rank that waits for a flag in its own window by calling only Win_flush (of itself),
 * Win_flush_local, Win_flush_all, Win_flush_local_all or Win_sync between loads (as
 * mpi4py.util.sync's Mutex, Condition and Semaphore do), or only lock, Get and unlock its
 * own window (exclusive, shared, or with MPI_MODE_NOCHECK, as MPICH's
 * rma/linked_list_bench_lock_* do), still lets other ranks reach its
 * window: rank 0 takes Win_lock_all and stores a flag into every other rank's window with
 * Accumulate(REPLACE); each waiting rank sees its flag within 20 s. On windows reached by
 * active messages (Win_create over malloc memory, dynamic windows, other hosts) the lock
 * and the accumulate need the waiting rank's progress: before the fix these calls returned
 * without any when this rank had nothing pending, and the job hung; a lock of its own
 * window that was free made none either. Every kind of window, each of the eight loops. */
#include "t_win.h"

enum {
    V_FLUSH,
    V_FLUSH_LOCAL,
    V_FLUSH_ALL,
    V_FLUSH_LOCAL_ALL,
    V_SYNC,
    V_LOCK_EXCL, /* from here: Win_lock(self), Get, Win_unlock, no lock_all */
    V_LOCK_SHARED,
    V_LOCK_NOCHECK,
    V_COUNT
};
static const char *const v_name[V_COUNT] = {"Win_flush(self)",
                                            "Win_flush_local(self)",
                                            "Win_flush_all",
                                            "Win_flush_local_all",
                                            "Win_sync",
                                            "Win_lock(EXCLUSIVE, self)+Get",
                                            "Win_lock(SHARED, self)+Get",
                                            "Win_lock(SHARED, self, NOCHECK)+Get"};

/* One look at this rank's flag through a lock epoch on its own window (v >= V_LOCK_EXCL). */
static int look_locked(twin_t *w, int v)
{
    int got = -1;
    CHECK_MPI(MPI_Win_lock(v == V_LOCK_EXCL ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, w->rank,
                           v == V_LOCK_NOCHECK ? MPI_MODE_NOCHECK : 0, w->win));
    CHECK_MPI(MPI_Get(&got, 1, MPI_INT, w->rank, twin_disp(w, w->rank, 0), 1, MPI_INT, w->win));
    CHECK_MPI(MPI_Win_unlock(w->rank, w->win));
    return got;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    if (t_size < 2)
        t_skip("needs at least 2 ranks");
    char what[200];
    for (int kind = 0; kind < K_COUNT; kind++) {
        twin_t w;
        twin_make(&w, kind, 64, MPI_INFO_NULL);
        for (int v = 0; v < V_COUNT; v++) {
            int flag = 100 * (kind + 1) + v;
            if (w.rank == 0) {
                CHECK_MPI(MPI_Win_lock_all(0, w.win));
                for (int t = 1; t < w.size; t++)
                    CHECK_MPI(MPI_Accumulate(&flag, 1, MPI_INT, t, twin_disp(&w, t, 0), 1, MPI_INT,
                                             MPI_REPLACE, w.win));
                CHECK_MPI(MPI_Win_unlock_all(w.win));
            } else {
                volatile int *mine = (volatile int *)w.base;
                double t0 = MPI_Wtime();
                if (v >= V_LOCK_EXCL) {
                    int got;
                    while ((got = look_locked(&w, v)) != flag)
                        if (MPI_Wtime() - t0 > 20.0)
                            CHECK_INT(flag, got,
                                      t_fmt(what, sizeof what, "%s: flag seen with only %s",
                                            k_name[kind], v_name[v]));
                    MPI_Barrier(w.comm);
                    continue;
                }
                CHECK_MPI(MPI_Win_lock_all(0, w.win));
                while (*mine != flag) {
                    switch (v) {
                    case V_FLUSH: CHECK_MPI(MPI_Win_flush(w.rank, w.win)); break;
                    case V_FLUSH_LOCAL: CHECK_MPI(MPI_Win_flush_local(w.rank, w.win)); break;
                    case V_FLUSH_ALL: CHECK_MPI(MPI_Win_flush_all(w.win)); break;
                    case V_FLUSH_LOCAL_ALL: CHECK_MPI(MPI_Win_flush_local_all(w.win)); break;
                    default: CHECK_MPI(MPI_Win_sync(w.win)); break;
                    }
                    if (MPI_Wtime() - t0 > 20.0)
                        CHECK_INT(flag, *mine,
                                  t_fmt(what, sizeof what, "%s: flag seen with only %s",
                                        k_name[kind], v_name[v]));
                }
                CHECK_MPI(MPI_Win_unlock_all(w.win));
            }
            MPI_Barrier(w.comm);
        }
        twin_free(&w);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        printf("progress: OK\n");
    MPI_Finalize();
    return 0;
}
