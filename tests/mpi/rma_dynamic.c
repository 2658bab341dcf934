/* Dynamic windows: Win_create_dynamic, Win_attach of malloc memory (two ranges), addresses
 * exchanged with MPI_Get_address + Allgather, Put/Get/Accumulate/Compare_and_swap by
 * absolute address under locks; an access outside every attached range is refused by the
 * target (MPI_ERR_RMA_RANGE at the origin, the target's memory untouched); Win_detach.
 * --lenient skips the refusal checks (for running the test against MPICH). */
#include "t_rma.h"

#define N 300

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    t_lenient = argc > 1 && strcmp(argv[1], "--lenient") == 0;
    t_require_ranks(2);
    char what[160];
    MPI_Win win;
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    int *flavor, flag;
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
    CHECK_INT(MPI_WIN_FLAVOR_DYNAMIC, *flavor, "flavor");
    long *a = t_malloc(N * sizeof(long)), *b = t_malloc(N * sizeof(long));
    for (int i = 0; i < N; i++)
        a[i] = b[i] = 0;
    CHECK_MPI(MPI_Win_attach(win, a, N * sizeof(long)));
    CHECK_MPI(MPI_Win_attach(win, b, N * sizeof(long)));
    MPI_Aint mine[2], *addr = t_malloc(2 * (size_t)t_size * sizeof(MPI_Aint));
    MPI_Get_address(a, &mine[0]);
    MPI_Get_address(b, &mine[1]);
    MPI_Allgather(mine, 2, MPI_AINT, addr, 2, MPI_AINT, MPI_COMM_WORLD);
    int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    MPI_Aint ra = addr[2 * right], rb = addr[2 * right + 1];

    long src[N];
    for (int i = 0; i < N; i++)
        src[i] = t_rank * 10000L + i;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
    CHECK_MPI(MPI_Put(src, N, MPI_LONG, right, ra, N, MPI_LONG, win));
    CHECK_MPI(MPI_Put(src, 10, MPI_LONG, right, rb + 5 * sizeof(long), 10, MPI_LONG, win));
    CHECK_MPI(MPI_Win_unlock(right, win));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        CHECK_INT(left * 10000L + i, a[i], t_fmt(what, sizeof what, "put into range a [%d]", i));
    for (int i = 0; i < 10; i++)
        CHECK_INT(left * 10000L + i, b[5 + i],
                  t_fmt(what, sizeof what, "put into range b [%d]", i));
    CHECK_INT(0, b[4], "before the put into b");
    CHECK_INT(0, b[15], "after the put into b");
    MPI_Barrier(MPI_COMM_WORLD);

    /* Get back, and accumulate from everyone into rank 0's b[0]. */
    long got[N];
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    CHECK_MPI(MPI_Get(got, N, MPI_LONG, right, ra, N, MPI_LONG, win));
    CHECK_MPI(MPI_Win_unlock(right, win));
    for (int i = 0; i < N; i++)
        CHECK_INT(t_rank * 10000L + i, got[i], t_fmt(what, sizeof what, "get [%d]", i));
    CHECK_MPI(MPI_Win_lock_all(0, win));
    for (int i = 0; i < 50; i++) {
        long one = t_rank + 1;
        CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, 0, addr[1], 1, MPI_LONG, MPI_SUM, win));
    }
    CHECK_MPI(MPI_Win_flush_all(win));
    long zero = 0, me = t_rank + 1, prev = -1;
    CHECK_MPI(
        MPI_Compare_and_swap(&me, &zero, &prev, MPI_LONG, 0, addr[1] + 20 * sizeof(long), win));
    CHECK_MPI(MPI_Win_unlock_all(win)); /* the result is defined once the epoch ends */
    CHECK_TRUE(prev >= 0 && prev <= t_size && prev != me, "compare-and-swap result");
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) {
        CHECK_INT(50L * t_size * (t_size + 1) / 2, b[0], "accumulated by address");
        CHECK_TRUE(b[20] >= 1 && b[20] <= t_size, "one rank won the compare-and-swap");
    }
    /* Exactly one rank saw 0 (the winner); the others saw the winner's id. */
    long won = prev == 0, nwon = 0;
    MPI_Allreduce(&won, &nwon, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK_INT(1, nwon, "ranks that won the compare-and-swap");
    MPI_Barrier(MPI_COMM_WORLD);

    /* Outside every attached range: the target refuses it, the origin learns so at the
     * end of the epoch, nothing changes. */
    if (t_rank == 1 && !t_lenient) { /* MPICH 4.0 does not check attached ranges */
        long junk[4] = {-1, -1, -1, -1};
        CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        CHECK_MPI(
            MPI_Put(junk, 4, MPI_LONG, 0, addr[0] + (N - 2) * sizeof(long), 4, MPI_LONG, win));
        CHECK_CLASS(MPI_ERR_RMA_RANGE, MPI_Win_unlock(0, win), "unlock after a refused put");
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        CHECK_CLASS(MPI_ERR_RMA_RANGE,
                    MPI_Get(junk, 1, MPI_LONG, 0, addr[0] - sizeof(long), 1, MPI_LONG, win),
                    "get before an attached range");
        CHECK_MPI(MPI_Win_unlock(0, win));
        CHECK_INT(-1, junk[0], "a refused get leaves the origin buffer alone");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        CHECK_INT((long)(t_size - 1) * 10000L + N - 1, a[N - 1],
                  "a put overlapping the end of an attached range is not applied");
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_detach(win, a));
    CHECK_MPI(MPI_Win_detach(win, b));
    CHECK_MPI(MPI_Win_free(&win));
    free(a);
    free(b);
    free(addr);
    MPI_Finalize();
    return 0;
}
