/* Accumulates that move no data succeed and change nothing, on every kind of window:
 * Accumulate, Get_accumulate, Fetch_and_op-free forms and their request versions with count
 * 0, with an empty derived type (contiguous of 0, an empty struct) on one or both sides,
 * even with an operation that is undefined on the (absent) elements' type; Put and Get of
 * zero bytes; then a real accumulate still works. Mismatched sizes stay errors
 * (MPI_ERR_COUNT). */
#include "t_win.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    char what[160];
    MPI_Datatype empty, estruct;
    CHECK_MPI(MPI_Type_contiguous(0, MPI_INT, &empty));
    CHECK_MPI(MPI_Type_commit(&empty));
    CHECK_MPI(MPI_Type_create_struct(0, NULL, NULL, NULL, &estruct));
    CHECK_MPI(MPI_Type_commit(&estruct));
    for (int kind = 0; kind < K_COUNT; kind++) {
        twin_t w;
        twin_make(&w, kind, 64, MPI_INFO_NULL);
        CHECK_MPI(MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN));
        int me = w.rank, n = w.size, t = (me + 1) % n;
        MPI_Aint d = twin_disp(&w, t, 0);
        int v[4] = {1, 2, 3, 4}, r[4] = {-1, -1, -1, -1};
        MPI_Request rq;
        const char *kn = k_name[kind];
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w.win));
#define OK(call, name) CHECK_CLASS(MPI_SUCCESS, call, t_fmt(what, sizeof what, "%s: %s", kn, name))
        OK(MPI_Accumulate(v, 0, MPI_INT, t, d, 0, MPI_INT, MPI_SUM, w.win), "count 0");
        OK(MPI_Accumulate(v, 1, empty, t, d, 1, empty, MPI_SUM, w.win), "empty contiguous");
        OK(MPI_Accumulate(v, 3, empty, t, d, 0, MPI_INT, MPI_SUM, w.win), "empty origin, count 0");
        OK(MPI_Accumulate(v, 2, estruct, t, d, 5, empty, MPI_MAX, w.win), "empty struct");
        OK(MPI_Accumulate(v, 0, MPI_C_BOOL, t, d, 0, MPI_C_BOOL, MPI_SUM, w.win),
           "count 0, undefined operation");
        OK(MPI_Accumulate(v, 1, empty, t, d, 1, empty, MPI_REPLACE, w.win), "empty REPLACE");
        OK(MPI_Get_accumulate(v, 1, empty, r, 1, empty, t, d, 1, empty, MPI_SUM, w.win),
           "Get_accumulate of empty types");
        OK(MPI_Get_accumulate(v, 0, MPI_INT, r, 0, MPI_INT, t, d, 0, MPI_INT, MPI_NO_OP, w.win),
           "Get_accumulate NO_OP count 0");
        OK(MPI_Raccumulate(v, 1, empty, t, d, 1, empty, MPI_SUM, w.win, &rq), "Raccumulate");
        OK(MPI_Wait(&rq, MPI_STATUS_IGNORE), "Wait on Raccumulate");
        OK(MPI_Rget_accumulate(v, 0, MPI_INT, r, 0, MPI_INT, t, d, 0, MPI_INT, MPI_SUM, w.win, &rq),
           "Rget_accumulate");
        OK(MPI_Wait(&rq, MPI_STATUS_IGNORE), "Wait on Rget_accumulate");
        OK(MPI_Put(v, 1, empty, t, d, 0, MPI_INT, w.win), "Put of nothing");
        OK(MPI_Get(r, 0, MPI_INT, t, d, 1, empty, w.win), "Get of nothing");
        CHECK_INT(-1, r[0], t_fmt(what, sizeof what, "%s: result buffer untouched", kn));
        CHECK_CLASS(MPI_ERR_COUNT, MPI_Accumulate(v, 1, MPI_INT, t, d, 0, MPI_INT, MPI_SUM, w.win),
                    t_fmt(what, sizeof what, "%s: 1 int into 0", kn));
        CHECK_CLASS(MPI_ERR_COUNT, MPI_Accumulate(v, 0, MPI_INT, t, d, 1, MPI_INT, MPI_SUM, w.win),
                    t_fmt(what, sizeof what, "%s: 0 ints into 1", kn));
        /* Still working: add v to the target's 4 ints. */
        OK(MPI_Accumulate(v, 4, MPI_INT, t, d, 4, MPI_INT, MPI_SUM, w.win), "a real accumulate");
        OK(MPI_Win_unlock(t, w.win), "unlock");
        MPI_Barrier(w.comm);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w.win);
        for (int k = 0; k < 4; k++)
            CHECK_INT(k + 1, ((int *)w.base)[k], t_fmt(what, sizeof what, "%s: int %d", kn, k));
        for (int k = 16; k < 64; k++)
            CHECK_INT(0, w.base[k], t_fmt(what, sizeof what, "%s: byte %d untouched", kn, k));
        MPI_Win_unlock(me, w.win);
        twin_free(&w);
    }
    MPI_Type_free(&empty);
    MPI_Type_free(&estruct);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        printf("zero: OK\n");
    MPI_Finalize();
    return 0;
}
