/* One-sided communication through the MPICH ABI: window handles, MPICH's window attribute
 * keyvals (MPI_WIN_BASE ...), fence epochs with put and get, passive target with
 * accumulate, fetch-and-op and compare-and-swap, and MPI_Win_free setting MPI_WIN_NULL. */
#include "abi_test.h"

int main(int argc, char **argv)
{
    abi_test_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = (rank + 1) % size;

    int buf[8] = {0};
    MPI_Win win;
    OK(MPI_Win_create(buf, sizeof(buf), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    void *base = NULL;
    int flag = 0;
    OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag));
    CHECK(flag && base == buf, "MPI_WIN_BASE %p, buffer %p", base, (void *)buf);
    MPI_Aint *wsize = NULL;
    OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &wsize, &flag));
    CHECK(flag && *wsize == (MPI_Aint)sizeof(buf), "MPI_WIN_SIZE");
    int *flavor = NULL;
    OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_CREATE, "MPI_WIN_CREATE_FLAVOR");

    int vals[2] = {rank * 10 + 1, rank * 10 + 2};
    OK(MPI_Win_fence(0, win));
    OK(MPI_Put(vals, 2, MPI_INT, peer, 3, 2, MPI_INT, win));
    OK(MPI_Win_fence(0, win));
    int left = (rank + size - 1) % size;
    CHECK_INT(buf[3], left * 10 + 1);
    CHECK_INT(buf[4], left * 10 + 2);
    int back[2] = {0, 0};
    OK(MPI_Get(back, 2, MPI_INT, peer, 3, 2, MPI_INT, win));
    OK(MPI_Win_fence(0, win));
    CHECK_INT(back[0], rank * 10 + 1);

    /* Passive target on rank 0's window: everyone adds, fetches, swaps. */
    OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    int one = rank + 1;
    OK(MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win));
    OK(MPI_Win_unlock(0, win));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        CHECK_INT(buf[0], size * (size + 1) / 2);
        OK(MPI_Win_unlock(0, win));
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    int fetched = -1, inc = 1;
    OK(MPI_Win_lock_all(0, win));
    OK(MPI_Fetch_and_op(&inc, &fetched, MPI_INT, 0, 1, MPI_SUM, win));
    OK(MPI_Win_flush(0, win));
    CHECK(fetched >= 0 && fetched < size, "fetched %d", fetched);
    int cmpv = 0, newv = 1000 + rank, old = -1;
    OK(MPI_Compare_and_swap(&newv, &cmpv, &old, MPI_INT, 0, 2, win));
    OK(MPI_Win_unlock_all(win));
    int winners = old == 0, total = 0;
    OK(MPI_Allreduce(&winners, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_INT(total, 1);

    MPI_Group g;
    OK(MPI_Win_get_group(win, &g));
    int gs = 0;
    OK(MPI_Group_size(g, &gs));
    CHECK_INT(gs, size);
    OK(MPI_Group_free(&g));
    OK(MPI_Win_free(&win));
    CHECK_INT(win, MPI_WIN_NULL);

    /* MPI_Win_allocate. */
    int *mem = NULL;
    OK(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    mem[0] = -1;
    OK(MPI_Win_fence(0, win));
    OK(MPI_Put(&rank, 1, MPI_INT, peer, 0, 1, MPI_INT, win));
    OK(MPI_Win_fence(0, win));
    CHECK_INT(mem[0], left);
    OK(MPI_Win_free(&win));
    abi_test_done("rma");
    return 0;
}
