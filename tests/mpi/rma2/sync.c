/* sync: RMA synchronisation misuse gives MPI_ERR_RMA_SYNC instead of going through
 * (MPICH's errors/rma/win_sync_op, win_sync_lock_at, win_sync_lock_fence,
 * win_sync_free_pt, win_sync_free_at, which all returned MPI_SUCCESS before the fix). On a
 * Win_create window of one int per rank, under MPI_ERRORS_RETURN:
 *  - a Get, Put, Accumulate and Compare_and_swap with no epoch at all;
 *  - Win_lock and Win_lock_all inside a PSCW access epoch (the epoch then completes and
 *    its Gets deliver the targets' values);
 *  - after fence(0), a lock/unlock epoch ends the (empty) fence epoch: a Get after the
 *    unlock has no epoch; after fence(MPI_MODE_NOSUCCEED) neither;
 *  - Win_free while holding a lock, inside lock_all, and inside a PSCW access and exposure
 *    epoch: refused, the window stays usable, and frees once the epoch ended;
 *  - what stays legal: accesses inside fence, lock, lock_all and PSCW epochs, values
 *    checked.
 */
#include "../t_util.h"

static void expect_sync(int rc, const char *what)
{
    int cls = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_RMA_SYNC)
        t_fail("%s: expected MPI_ERR_RMA_SYNC (%d), got class %d", what, MPI_ERR_RMA_SYNC, cls);
}

static MPI_Win make(int *buf)
{
    MPI_Win win;
    *buf = 1000 + t_rank;
    CHECK_MPI(MPI_Win_create(buf, sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    return win;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    int buf, x = -1, one = 1, res = -1, np = t_size, peer = (t_rank + 1) % t_size;
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Win win = make(&buf);

    /* No epoch. */
    expect_sync(MPI_Get(&x, 1, MPI_INT, peer, 0, 1, MPI_INT, win), "Get with no epoch");
    expect_sync(MPI_Put(&one, 1, MPI_INT, peer, 0, 1, MPI_INT, win), "Put with no epoch");
    expect_sync(MPI_Accumulate(&one, 1, MPI_INT, peer, 0, 1, MPI_INT, MPI_SUM, win),
                "Accumulate with no epoch");
    expect_sync(MPI_Compare_and_swap(&one, &x, &res, MPI_INT, peer, 0, win),
                "Compare_and_swap with no epoch");

    /* Locks inside a PSCW access epoch. */
    int *got = t_malloc(sizeof(int) * (size_t)np);
    CHECK_MPI(MPI_Win_post(world, 0, win));
    CHECK_MPI(MPI_Win_start(world, 0, win));
    for (int r = 0; r < np; r++)
        CHECK_MPI(MPI_Get(&got[r], 1, MPI_INT, r, 0, 1, MPI_INT, win));
    expect_sync(MPI_Win_lock(MPI_LOCK_SHARED, 0, MPI_MODE_NOCHECK, win), "Win_lock in PSCW");
    expect_sync(MPI_Win_lock_all(0, win), "Win_lock_all in PSCW");
    expect_sync(MPI_Win_free(&win), "Win_free in a PSCW access and exposure epoch");
    CHECK_TRUE(win != MPI_WIN_NULL, "a refused Win_free leaves the handle");
    CHECK_MPI(MPI_Win_complete(win));
    CHECK_MPI(MPI_Win_wait(win));
    for (int r = 0; r < np; r++)
        CHECK_INT(1000 + r, got[r], "Get in the PSCW epoch");

    /* A lock after fence(0) ends the fence epoch. */
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Get(&x, 1, MPI_INT, peer, 0, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_INT(1000 + peer, x, "Get in a fence epoch");
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
    CHECK_MPI(MPI_Get(&x, 1, MPI_INT, peer, 0, 1, MPI_INT, win));
    expect_sync(MPI_Win_free(&win), "Win_free while holding a lock");
    CHECK_MPI(MPI_Win_unlock(peer, win));
    expect_sync(MPI_Get(&x, 1, MPI_INT, peer, 0, 1, MPI_INT, win), "Get after lock/unlock");
    CHECK_MPI(MPI_Win_lock_all(0, win));
    CHECK_MPI(MPI_Fetch_and_op(&one, &res, MPI_INT, peer, 0, MPI_SUM, win));
    expect_sync(MPI_Win_free(&win), "Win_free inside lock_all");
    CHECK_MPI(MPI_Win_unlock_all(win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK_INT(1001 + t_rank, buf, "the window after one Fetch_and_op from a neighbour");
    expect_sync(MPI_Get(&x, 1, MPI_INT, peer, 0, 1, MPI_INT, win), "Get after NOSUCCEED");

    CHECK_MPI(MPI_Win_free(&win));
    CHECK_TRUE(win == MPI_WIN_NULL, "Win_free once the epochs ended");
    MPI_Group_free(&world);
    free(got);
    MPI_Finalize();
    return 0;
}
