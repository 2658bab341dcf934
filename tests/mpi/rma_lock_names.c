/* Window lock words that name a live rank which holds nothing (issue 15: damage that looks
 * valid). Rank F, co-located with rank 0, writes straight into rank 0's window control
 * block, as a co-tenant scribbling on the region could: first an exclusive hold in the name
 * of rank N, then a shared hold in N's name. N is alive and waiting in MPI_Recv; rank 0 then
 * asks for the exclusive lock of its own window. It must get it: the rank named (or, when N
 * is on another host and cannot read the block, the owner itself) clears a name it does not
 * hold. Without that, rank 0 waits forever and the test times out. Then the window works
 * with exact results. Needs 3 ranks; F is the lowest rank other than 0 that shares rank 0's
 * region, N the remaining one. */
#include "t_util.h"

#include "mpi/rma/rma_impl.h"

static void lock_and_put(MPI_Win win, long *base, long v)
{
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win));
    CHECK_MPI(MPI_Win_unlock(0, win));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK_INT(v, base[0], "window word after the exclusive epoch");
    CHECK_MPI(MPI_Win_unlock(0, win));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    if (t_size != 3)
        t_skip("needs exactly 3 ranks");
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int with0 = 0, f = -1;
    /* Who shares rank 0's region: rank 0 tells everyone its node communicator's members. */
    int members[3] = {0, 0, 0}, mine[3] = {0, 0, 0};
    if (t_rank == 0) {
        MPI_Group g, wg;
        int n, in[3] = {0, 1, 2}, out[3];
        MPI_Comm_group(node, &g);
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Group_size(g, &n);
        MPI_Group_translate_ranks(wg, 3, in, g, out);
        for (int r = 0; r < 3; r++)
            mine[r] = out[r] != MPI_UNDEFINED;
        MPI_Group_free(&g);
        MPI_Group_free(&wg);
    }
    MPI_Allreduce(mine, members, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int r = 1; r < 3; r++)
        if (members[r] && f < 0)
            f = r;
    if (f < 0)
        t_skip("no rank shares rank 0's region");
    int named = 3 - f; /* the remaining rank */
    with0 = members[named];
    long *base;
    MPI_Win win;
    CHECK_MPI(
        MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    *base = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int phase = 0; phase < 2; phase++) {
        if (t_rank == f) {
            ivc_win_ctl_t *c = win->peers[0].ctl;
            if (!win->peers[0].direct || c == NULL)
                t_skip("rank 0's window is not reached directly");
            if (phase == 0)
                ivc_store_release(&c->lock, WIN_LOCK_EXCL | WIN_LOCK_OWNER(named));
            else
                atomic_fetch_or(&c->shared[named / 64], 1ull << (named % 64));
            CHECK_MPI(MPI_Send(&phase, 1, MPI_INT, 0, 1, MPI_COMM_WORLD));
        } else if (t_rank == 0) {
            int got;
            CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, f, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            lock_and_put(win, base, 100 + phase); /* waits for the name to be cleared */
            CHECK_MPI(MPI_Send(&got, 1, MPI_INT, named, 2, MPI_COMM_WORLD));
        } else { /* named: waits meanwhile, which is when it looks at the block */
            int got;
            CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_INT(phase, got, "phase");
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    /* Every rank still locks and updates rank 0's window correctly. */
    long one = 1;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, win));
    CHECK_MPI(MPI_Win_unlock(0, win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        CHECK_INT(104, *base, "window word after three accumulates");
    if (t_rank == 0)
        printf("rank %d named, %s rank 0's region: cleared both names\n", named,
               with0 ? "sharing" : "not sharing");
    CHECK_MPI(MPI_Win_free(&win));
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
