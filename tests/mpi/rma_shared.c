/* Win_allocate_shared on the ranks that share a region (Comm_split_type SHARED, checked
 * against the launcher's IVC_REGION), read and written with plain loads and stores through
 * Win_shared_query pointers, across simulated VMs (per simulated host). Checks: segments
 * are contiguous in rank order by default; each rank's pointer to a peer's segment sees
 * what the peer stored (after a barrier + Win_sync); a flag-based hand-off around the ring
 * using only loads/stores and Win_sync; Put/Get through the same window agree with direct
 * loads; MPI_PROC_NULL query gives the first segment; Win_shared_query on a Win_allocate
 * window. */
#include "t_rma.h"

#include <sched.h>

#define N 1000 /* ints per rank (not a multiple of a cache line on purpose) */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    t_lenient = argc > 1 && strcmp(argv[1], "--lenient") == 0;
    t_require_ranks(2);
    char what[160];
    MPI_Comm node;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int nr, ns;
    MPI_Comm_rank(node, &nr);
    MPI_Comm_size(node, &ns);
    /* The ranks the launcher gave this rank's region (IVC_REGION; everyone when unset). */
    const char *reg = getenv("IVC_REGION");
    uint64_t myreg = t_checksum(reg ? reg : "", reg ? strlen(reg) : 0);
    uint64_t *regs = t_malloc((size_t)t_size * sizeof(uint64_t));
    MPI_Allgather(&myreg, 1, MPI_UINT64_T, regs, 1, MPI_UINT64_T, MPI_COMM_WORLD);
    int exp_size = 0, exp_rank = 0;
    for (int i = 0; i < t_size; i++) {
        exp_rank += i < t_rank && regs[i] == myreg;
        exp_size += regs[i] == myreg;
    }
    free(regs);
    CHECK_INT(exp_size, ns, "ranks in the shared communicator");
    CHECK_INT(exp_rank, nr, "rank in the shared communicator");

    int *mine;
    MPI_Win win;
    CHECK_MPI(
        MPI_Win_allocate_shared(N * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &mine, &win));
    int **seg = t_malloc((size_t)ns * sizeof(int *));
    for (int r = 0; r < ns; r++) {
        MPI_Aint sz;
        int du;
        CHECK_MPI(MPI_Win_shared_query(win, r, &sz, &du, &seg[r]));
        CHECK_INT(N * sizeof(int), sz, "shared_query size");
        CHECK_INT(sizeof(int), du, "shared_query disp_unit");
    }
    CHECK_TRUE(seg[nr] == mine, "own segment is the allocated pointer");
    /* Contiguous by default: rank r+1's segment follows rank r's (lines rounded up). */
    for (int r = 0; r + 1 < ns; r++)
        CHECK_TRUE((char *)seg[r + 1] >= (char *)seg[r] + N * sizeof(int) &&
                       (char *)seg[r + 1] - (char *)seg[r] < N * (long)sizeof(int) + 64,
                   "segments are contiguous in rank order");
    int *first;
    MPI_Aint sz;
    int du;
    CHECK_MPI(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &first));
    CHECK_TRUE(first == seg[0], "MPI_PROC_NULL query gives rank 0's segment");

    /* 1. Each rank stores into its own segment; everyone loads every segment. */
    CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    for (int i = 0; i < N; i++)
        mine[i] = nr * 100000 + i;
    CHECK_MPI(MPI_Win_sync(win));
    MPI_Barrier(node);
    CHECK_MPI(MPI_Win_sync(win));
    for (int r = 0; r < ns; r++)
        for (int i = 0; i < N; i++)
            CHECK_INT(r * 100000 + i, seg[r][i],
                      t_fmt(what, sizeof what, "load of rank %d's segment [%d]", r, i));
    MPI_Barrier(node);

    /* 2. Write into the right neighbour's segment directly. */
    int right = (nr + 1) % ns, left = (nr + ns - 1) % ns;
    for (int i = 0; i < N; i++)
        seg[right][i] = -(nr + 1) * 1000 - i;
    CHECK_MPI(MPI_Win_sync(win));
    MPI_Barrier(node);
    CHECK_MPI(MPI_Win_sync(win));
    for (int i = 0; i < N; i++)
        CHECK_INT(-(left + 1) * 1000 - i, mine[i],
                  t_fmt(what, sizeof what, "store by left [%d]", i));
    MPI_Barrier(node);

    /* 3. A token handed around the ring with a flag word (element 0) and a payload word
     * (element 1) of the receiver's segment: stores, Win_sync, nothing else. */
    volatile int *flag_right = &seg[right][0];
    volatile int *mflag = &mine[0];
    for (int i = 0; i < N; i++)
        mine[i] = 0;
    CHECK_MPI(MPI_Win_sync(win));
    MPI_Barrier(node);
    for (int lap = 1; lap <= 20; lap++) {
        for (int step = 0; step < 2; step++) {
            /* Rank 0 sends first and receives last; the others receive, then forward. */
            if ((nr == 0) == (step == 1)) {
                while (*mflag != lap) {
                    MPI_Win_sync(win);
                    sched_yield(); /* more ranks than cores in CI */
                }
                MPI_Win_sync(win);
                CHECK_INT(lap * 10 + left, mine[1], "payload arrives with the flag");
            } else {
                seg[right][1] = lap * 10 + nr;
                MPI_Win_sync(win);
                *flag_right = lap;
                MPI_Win_sync(win);
            }
        }
    }
    CHECK_MPI(MPI_Win_unlock_all(win));
    MPI_Barrier(node);

    /* 4. Put into, and Get from, the shared window agree with loads. */
    CHECK_MPI(MPI_Win_fence(0, win));
    int v[4] = {nr, nr + 1, nr + 2, nr + 3};
    CHECK_MPI(MPI_Put(v, 4, MPI_INT, right, 10, 4, MPI_INT, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < 4; i++)
        CHECK_INT(left + i, mine[10 + i], "Put into a shared window");
    int g[4];
    CHECK_MPI(MPI_Get(g, 4, MPI_INT, left, 10, 4, MPI_INT, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < 4; i++)
        CHECK_INT(seg[left][10 + i], g[i], "Get from a shared window matches a load");
    CHECK_MPI(MPI_Win_free(&win));
    free(seg);

    /* 5. Win_shared_query on a Win_allocate window also works between ranks that share
     * the region (MPI 4.1; MPICH 4.0 allows it on shared windows only). */
    void *b;
    CHECK_MPI(MPI_Win_allocate(64, 1, MPI_INFO_NULL, node, &b, &win));
    memset(b, nr + 1, 64);
    MPI_Barrier(node);
    unsigned char *pr;
    if (!t_lenient) {
        CHECK_MPI(MPI_Win_shared_query(win, right, &sz, &du, &pr));
        CHECK_INT(64, sz, "shared_query of a Win_allocate window");
        CHECK_INT(right + 1, pr[63], "load from a Win_allocate window");
    }
    MPI_Barrier(node);
    CHECK_MPI(MPI_Win_free(&win));
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
