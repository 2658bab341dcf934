/* A passive-target lock held by a rank that dies is recovered: the victim takes rank 0's
 * window lock exclusively, puts a value, tells rank 1, and dies holding the lock. Rank 1's
 * MPI_Win_lock on rank 0 must succeed once the failure is known (the lock is released in
 * the victim's name) and see the victim's value; epochs with the victim fail with
 * MPIX_ERR_PROC_FAILED. Runs with the window in the region (direct lock words) and with
 * IVC_RMA_ARENA=0 (every lock through the target's active-message handler). */
#include "ft_util.h"

int main(int argc, char **argv)
{
    ft_init(&argc, &argv, 90);
    if (t_size < 3)
        t_skip("needs at least 3 ranks");
    int me = t_rank, victim = t_size - 1;
    int *base = NULL;
    MPI_Win win;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    *base = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    int v = 42, got = 0, go = 0;
    if (me == victim) {
        ft_set_phase("victim");
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        MPI_Send(&go, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        ft_die(); /* holding rank 0's lock */
    }
    if (me == 1) {
        ft_set_phase("lock held by the dead rank");
        MPI_Recv(&go, 1, MPI_INT, victim, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        FT_EXPECT(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win), MPI_SUCCESS,
                  "MPI_Win_lock of a lock the dead rank held");
        FT_EXPECT(MPI_Get(&got, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_SUCCESS, "MPI_Get");
        FT_EXPECT(MPI_Win_flush(0, win), MPI_SUCCESS, "MPI_Win_flush");
        if (got != 42)
            t_fail("value the dead rank put: expected 42, got %d", got);
        v = 43;
        FT_EXPECT(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_SUCCESS, "MPI_Put");
        FT_EXPECT(MPI_Win_unlock(0, win), MPI_SUCCESS, "MPI_Win_unlock");
    }
    ft_set_phase("epochs with the dead rank");
    ft_wait_failed(MPI_COMM_WORLD, 1);
    FT_EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, victim, 0, win), MPIX_ERR_PROC_FAILED,
              "MPI_Win_lock of the dead rank");
    /* Rank 0 (driving progress for the active-message path meanwhile) learns rank 1 is
     * done, then locks its own window. */
    ft_set_phase("after recovery");
    if (me == 1)
        MPI_Send(&go, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    if (me == 0) {
        MPI_Recv(&go, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        FT_EXPECT(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win), MPI_SUCCESS,
                  "MPI_Win_lock of the own window");
        got = *base;
        FT_EXPECT(MPI_Win_unlock(0, win), MPI_SUCCESS, "MPI_Win_unlock");
        if (got != 43)
            t_fail("window value: expected 43, got %d", got);
    }
    for (int r = 1; r < t_size - 1; r++) /* the others wait for rank 0's check */
        if (me == 0)
            MPI_Send(&go, 1, MPI_INT, r, 3, MPI_COMM_WORLD);
        else if (me == r)
            MPI_Recv(&go, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ft_set_phase("finalize");
    /* MPI_Win_free synchronizes with every member: it reports the failure. */
    FT_EXPECT(MPI_Win_free(&win), MPIX_ERR_PROC_FAILED, "MPI_Win_free");
    ft_ok();
    MPI_Finalize();
    return 0;
}
