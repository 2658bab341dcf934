/* Post/start/complete/wait over every kind of window memory: each rank exposes its window
 * to its left neighbour and accesses its right neighbour's, for several rounds; data put
 * in one round is seen by the target after Win_wait. Then a one-to-all pattern (rank 0
 * accesses everyone; the others expose to rank 0 only) completed with Win_test polling, and
 * an empty group. */
#include "t_rma.h"

#define N     512
#define ROUND 20

static void run(int kind)
{
    char what[160];
    int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    t_win w;
    t_win_make(&w, kind, N * sizeof(int), sizeof(int), MPI_COMM_WORLD);
    int *mem = w.base;
    const char *k = t_wk_name[kind];
    MPI_Group world, gl, gr, g0, gall;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &left, &gl);
    MPI_Group_incl(world, 1, &right, &gr);
    int zero = 0;
    MPI_Group_incl(world, 1, &zero, &g0);
    MPI_Group_excl(world, 1, &zero, &gall);

    int src[N];
    for (int r = 0; r < ROUND; r++) {
        for (int i = 0; i < N; i++)
            src[i] = t_rank * 7919 + r * 31 + i;
        CHECK_MPI(MPI_Win_post(gl, 0, w.win));
        CHECK_MPI(MPI_Win_start(gr, 0, w.win));
        CHECK_MPI(MPI_Put(src, N, MPI_INT, right, 0, N, MPI_INT, w.win));
        CHECK_MPI(MPI_Win_complete(w.win));
        CHECK_MPI(MPI_Win_wait(w.win));
        for (int i = 0; i < N; i++)
            CHECK_INT(left * 7919 + r * 31 + i, mem[i],
                      t_fmt(what, sizeof what, "%s: round %d [%d]", k, r, i));
    }

    /* Rank 0 accumulates into everyone; the others wait with Win_test. */
    if (t_rank == 0) {
        CHECK_MPI(MPI_Win_start(gall, 0, w.win));
        for (int t = 1; t < t_size; t++) {
            int v = 1000 + t;
            CHECK_MPI(MPI_Accumulate(&v, 1, MPI_INT, t, 3, 1, MPI_INT, MPI_REPLACE, w.win));
        }
        CHECK_MPI(MPI_Win_complete(w.win));
    } else {
        CHECK_MPI(MPI_Win_post(g0, 0, w.win));
        int flag = 0, polls = 0;
        while (!flag) {
            CHECK_MPI(MPI_Win_test(w.win, &flag));
            polls++;
        }
        CHECK_INT(1000 + t_rank, mem[3], t_fmt(what, sizeof what, "%s: after Win_test", k));
    }
    /* Empty groups: nothing to wait for. */
    CHECK_MPI(MPI_Win_post(MPI_GROUP_EMPTY, 0, w.win));
    CHECK_MPI(MPI_Win_start(MPI_GROUP_EMPTY, 0, w.win));
    CHECK_MPI(MPI_Win_complete(w.win));
    CHECK_MPI(MPI_Win_wait(w.win));
    /* Epoch errors are reported. */
    CHECK_MPI(MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN));
    CHECK_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_complete(w.win), "Win_complete without Win_start");
    CHECK_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_unlock(right, w.win), "Win_unlock without a lock");

    MPI_Group_free(&gl);
    MPI_Group_free(&gr);
    MPI_Group_free(&g0);
    MPI_Group_free(&gall);
    MPI_Group_free(&world);
    t_win_free(&w);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    for (int k = 0; k < WK_COUNT; k++)
        run(k);
    MPI_Finalize();
    return 0;
}
