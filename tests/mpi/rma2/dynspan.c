/* A dynamic window whose rank attached one buffer as two adjacent ranges (the upper half
 * first) and a third, separate range: Put, Get, Accumulate, Get_accumulate and a strided
 * Put that each span the boundary of the two halves succeed with the right data, from every
 * rank (the others through active messages, itself directly); an access that runs from the
 * halves into unattached memory is refused (MPI_ERR_RMA_RANGE from Get, at unlock for
 * Put), also once the upper half is detached, and leaves memory untouched. */
#include "t_win.h"

#define HALF 64 /* ints per half */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    char what[160];
    int me = t_rank, n = t_size;
    int *buf = calloc(2 * HALF + 16, sizeof(int)); /* 16 ints after the halves: unattached */
    int *other = calloc(HALF, sizeof(int));
    MPI_Win win;
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Win_attach(win, buf + HALF, HALF * sizeof(int)));
    CHECK_MPI(MPI_Win_attach(win, other, HALF * sizeof(int)));
    CHECK_MPI(MPI_Win_attach(win, buf, HALF * sizeof(int)));
    MPI_Aint mine, *addr = malloc(n * sizeof(MPI_Aint));
    MPI_Get_address(buf, &mine);
    CHECK_MPI(MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD));
    MPI_Datatype strided;
    CHECK_MPI(MPI_Type_vector(8, 1, 4, MPI_INT, &strided));
    CHECK_MPI(MPI_Type_commit(&strided));

    /* Rank me writes ints [HALF - 8, HALF + 8) of its right neighbour, adds into
     * [HALF - 4, HALF + 4) and reads them back: every access crosses the boundary. The
     * neighbour's own strided Put covers [HALF - 16, HALF + 16) every 4th int. */
    int t = (me + 1) % n, v[16], g[16], ga[8], add[8];
    for (int k = 0; k < 16; k++)
        v[k] = 1000 * me + k;
    for (int k = 0; k < 8; k++)
        add[k] = k + 1;
    MPI_Aint at = MPI_Aint_add(addr[t], (HALF - 8) * sizeof(int));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    CHECK_MPI(MPI_Put(v, 16, MPI_INT, t, at, 16, MPI_INT, win));
    CHECK_MPI(MPI_Win_flush(t, win));
    CHECK_MPI(MPI_Accumulate(add, 8, MPI_INT, t, MPI_Aint_add(at, 4 * sizeof(int)), 8, MPI_INT,
                             MPI_SUM, win));
    CHECK_MPI(MPI_Get_accumulate(add, 8, MPI_INT, ga, 8, MPI_INT, t,
                                 MPI_Aint_add(at, 4 * sizeof(int)), 8, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Get(g, 16, MPI_INT, t, at, 16, MPI_INT, win));
    CHECK_MPI(MPI_Win_unlock(t, win));
    for (int k = 0; k < 16; k++) {
        int want = 1000 * me + k + (k >= 4 && k < 12 ? 2 * (k - 3) : 0);
        CHECK_INT(want, g[k], t_fmt(what, sizeof what, "read back across the boundary, int %d", k));
    }
    for (int k = 0; k < 8; k++)
        CHECK_INT(1000 * me + k + 4 + k + 1, ga[k],
                  t_fmt(what, sizeof what, "Get_accumulate across the boundary, int %d", k));
    MPI_Barrier(MPI_COMM_WORLD);
    /* Itself (direct access): a strided put across the boundary. */
    int sv[8];
    for (int k = 0; k < 8; k++)
        sv[k] = -k - 1;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win));
    CHECK_MPI(MPI_Put(sv, 8, MPI_INT, me, MPI_Aint_add(mine, (HALF - 16) * sizeof(int)), 1, strided,
                      win));
    CHECK_MPI(MPI_Win_unlock(me, win));
    for (int k = 0; k < 8; k++)
        CHECK_INT(-k - 1, buf[HALF - 16 + 4 * k],
                  t_fmt(what, sizeof what, "own strided put across the boundary, int %d", k));

    /* Into unattached memory: refused, nothing written. */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Aint tail = MPI_Aint_add(addr[t], (2 * HALF - 4) * sizeof(int));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    CHECK_CLASS(MPI_ERR_RMA_RANGE, MPI_Get(g, 8, MPI_INT, t, tail, 8, MPI_INT, win),
                "Get running past the attached ranges");
    int rc = MPI_Put(v, 8, MPI_INT, t, tail, 8, MPI_INT, win);
    int rc2 = MPI_Win_unlock(t, win);
    if (rc == MPI_SUCCESS)
        rc = rc2;
    CHECK_CLASS(MPI_ERR_RMA_RANGE, rc, "Put running past the attached ranges (at unlock)");
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win));
    CHECK_CLASS(MPI_ERR_RMA_RANGE,
                MPI_Put(v, 8, MPI_INT, me, MPI_Aint_add(mine, (2 * HALF - 4) * sizeof(int)), 8,
                        MPI_INT, win),
                "own Put running past the attached ranges");
    CHECK_MPI(MPI_Win_unlock(me, win));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 2 * HALF; k < 2 * HALF + 16; k++)
        CHECK_INT(0, buf[k], t_fmt(what, sizeof what, "unattached int %d untouched", k));

    /* Upper half detached: the crossing access is refused now. */
    CHECK_MPI(MPI_Win_detach(win, buf + HALF));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    CHECK_CLASS(MPI_ERR_RMA_RANGE, MPI_Get(g, 16, MPI_INT, t, at, 16, MPI_INT, win),
                "Get across into a detached range");
    CHECK_MPI(MPI_Get(g, 8, MPI_INT, t, at, 8, MPI_INT, win));
    /* (int HALF - 8 was overwritten by the target's own strided put) */
    CHECK_INT(1000 * me + 1, g[1], "Get inside the lower half after the detach");
    CHECK_MPI(MPI_Win_unlock(t, win));
    MPI_Barrier(MPI_COMM_WORLD);

    CHECK_MPI(MPI_Win_detach(win, buf));
    CHECK_MPI(MPI_Win_detach(win, other));
    MPI_Type_free(&strided);
    CHECK_MPI(MPI_Win_free(&win));
    free(buf);
    free(other);
    free(addr);
    if (me == 0)
        printf("dynspan: OK\n");
    MPI_Finalize();
    return 0;
}
