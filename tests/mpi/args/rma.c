/* args_rma: NULL arguments to the one-sided calls under MPI_ERRORS_RETURN (2 ranks; window
 * creation is collective and every rank passes the same wrong argument, so every rank
 * returns at once).
 *
 * Checked, each against MPICH's class:
 *  - window creation (Win_create, Win_allocate, Win_allocate_shared, Win_create_dynamic)
 *    with a NULL win or baseptr, Win_get_attr of every predefined key with a NULL value or
 *    flag, Win_set_name(NULL), Win_get_name with NULL outputs, Win_shared_query with NULL
 *    outputs, Win_test with a NULL flag: MPI_ERR_ARG;
 *  - Put, Get, Accumulate, Get_accumulate, Fetch_and_op, Compare_and_swap with a NULL
 *    origin, compare or result buffer: MPI_ERR_BUFFER (also to MPI_PROC_NULL);
 *  - Rput, Rget, Raccumulate, Rget_accumulate with a NULL request: MPI_ERR_ARG, and the
 *    operation does not happen;
 *  - legal: count 0 with NULL, MPI_NO_OP with a NULL origin, MPI_BOTTOM with a type of
 *    absolute addresses; then every operation moves the right values (checked at the
 *    target and at the origin), and the shared window answers queries. */
#include "a_util.h"

int main(int argc, char **argv)
{
    a_init(&argc, &argv);
    t_require_ranks(2);
    MPI_Comm w = MPI_COMM_WORLD;
    const int P = MPI_PROC_NULL;
    int me = t_rank, peer = t_rank == 0 ? 1 : 0, active = t_rank < 2;
    int wbuf[8], x = 7, res = 0, flag = 0, v = 0;
    void *base = NULL, *val = NULL;
    MPI_Win win = MPI_WIN_NULL;
    MPI_Request r = MPI_REQUEST_NULL;
    for (int i = 0; i < 8; i++)
        wbuf[i] = 10 * me + i;
    wbuf[0] = -1;
    wbuf[1] = 0;
    wbuf[5] = -1;

    /* ---- creation (collective: every rank alike) ---- */
    A_EXPECT(MPI_ERR_ARG, MPI_Win_create(wbuf, sizeof wbuf, 4, MPI_INFO_NULL, w, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Win_allocate(64, 4, MPI_INFO_NULL, w, NULL, &win));
    A_EXPECT(MPI_ERR_ARG, MPI_Win_allocate(64, 4, MPI_INFO_NULL, w, &base, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Win_allocate_shared(64, 4, MPI_INFO_NULL, w, NULL, &win));
    A_EXPECT(MPI_ERR_ARG, MPI_Win_allocate_shared(64, 4, MPI_INFO_NULL, w, &base, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Win_create_dynamic(MPI_INFO_NULL, w, NULL));
    CHECK_TRUE(win == MPI_WIN_NULL && base == NULL, "nothing handed out by refused creations");

    A_OK(MPI_Win_create(wbuf, sizeof wbuf, 4, MPI_INFO_NULL, w, &win));
    A_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));

    /* ---- attributes, names, Win_test ---- */
    const int keys[] = {MPI_WIN_BASE, MPI_WIN_SIZE, MPI_WIN_DISP_UNIT, MPI_WIN_CREATE_FLAVOR,
                        MPI_WIN_MODEL};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        A_EXPECT(MPI_ERR_ARG, MPI_Win_get_attr(win, keys[k], NULL, &flag));
        A_EXPECT(MPI_ERR_ARG, MPI_Win_get_attr(win, keys[k], &val, NULL));
    }
    char name[MPI_MAX_OBJECT_NAME];
    A_OK(MPI_Win_set_name(win, "args"));
    A_EXPECT(MPI_ERR_ARG, MPI_Win_set_name(win, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Win_get_name(win, NULL, &v));
    A_EXPECT(MPI_ERR_ARG, MPI_Win_get_name(win, name, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Win_get_name(MPI_WIN_NULL, NULL, &v));
    A_EXPECT(MPI_ERR_ARG, MPI_Win_get_name(MPI_WIN_NULL, name, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Win_test(win, NULL));
    A_OK(MPI_Win_get_name(win, name, &v));
    CHECK_TRUE(strcmp(name, "args") == 0, "name kept by a refused Win_set_name");
    A_OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &val, &flag));
    CHECK_TRUE(flag && val == (void *)wbuf, "MPI_WIN_BASE");
    A_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &val, &flag));
    CHECK_INT(sizeof wbuf, *(MPI_Aint *)val, "MPI_WIN_SIZE");
    A_OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &val, &flag));
    CHECK_INT(4, *(int *)val, "MPI_WIN_DISP_UNIT");

    /* ---- NULL buffers in an epoch ---- */
    A_OK(MPI_Win_fence(0, win));
    int t = active ? peer : P;
    A_EXPECT(MPI_ERR_BUFFER, MPI_Put(NULL, 1, MPI_INT, t, 7, 1, MPI_INT, win));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Put(NULL, 1, MPI_INT, P, 7, 1, MPI_INT, win));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Get(NULL, 1, MPI_INT, t, 7, 1, MPI_INT, win));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Get(NULL, 1, MPI_INT, P, 7, 1, MPI_INT, win));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Accumulate(NULL, 1, MPI_INT, t, 7, 1, MPI_INT, MPI_SUM, win));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Get_accumulate(NULL, 1, MPI_INT, &res, 1, MPI_INT, t, 7, 1,
                                                MPI_INT, MPI_SUM, win));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Get_accumulate(&x, 1, MPI_INT, NULL, 1, MPI_INT, t, 7, 1,
                                                MPI_INT, MPI_SUM, win));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Fetch_and_op(NULL, &res, MPI_INT, t, 7, MPI_SUM, win));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Fetch_and_op(&x, NULL, MPI_INT, t, 7, MPI_SUM, win));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Fetch_and_op(&x, NULL, MPI_INT, P, 7, MPI_NO_OP, win));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Compare_and_swap(NULL, &x, &res, MPI_INT, t, 7, win));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Compare_and_swap(&x, NULL, &res, MPI_INT, t, 7, win));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Compare_and_swap(&x, &x, NULL, MPI_INT, t, 7, win));

    /* ---- legal uses of NULL, and every operation once (distinct words) ---- */
    int pv = 100 + me, one = 1, bv = 200 + me, swap = 55, gres = -9, fres = -9, cres = -9,
        cmp = -1;
    MPI_Datatype abs_t;
    MPI_Aint addr;
    A_OK(MPI_Get_address(&bv, &addr));
    A_OK(MPI_Type_create_struct(1, &one, &addr, (MPI_Datatype[]){MPI_INT}, &abs_t));
    A_OK(MPI_Type_commit(&abs_t));
    A_OK(MPI_Put(NULL, 0, MPI_INT, t, 7, 0, MPI_INT, win));
    A_OK(MPI_Get(NULL, 0, MPI_INT, t, 7, 0, MPI_INT, win));
    A_OK(MPI_Accumulate(NULL, 0, MPI_INT, t, 7, 0, MPI_INT, MPI_SUM, win));
    A_OK(MPI_Put(&pv, 1, MPI_INT, t, 0, 1, MPI_INT, win));
    A_OK(MPI_Accumulate(&one, 1, MPI_INT, t, 1, 1, MPI_INT, MPI_SUM, win));
    A_OK(MPI_Get_accumulate(NULL, 0, MPI_INT, &gres, 1, MPI_INT, t, 2, 1, MPI_INT, MPI_NO_OP,
                            win));
    A_OK(MPI_Fetch_and_op(NULL, &fres, MPI_INT, t, 3, MPI_NO_OP, win));
    A_OK(MPI_Put(MPI_BOTTOM, 1, abs_t, t, 4, 1, MPI_INT, win));
    A_OK(MPI_Compare_and_swap(&swap, &cmp, &cres, MPI_INT, t, 5, win));
    A_OK(MPI_Win_fence(0, win));
    if (active) {
        CHECK_INT(100 + peer, wbuf[0], "Put after the refused calls");
        CHECK_INT(1, wbuf[1], "Accumulate after the refused calls");
        CHECK_INT(10 * peer + 2, gres, "Get_accumulate with MPI_NO_OP and a NULL origin");
        CHECK_INT(10 * peer + 3, fres, "Fetch_and_op with MPI_NO_OP and a NULL origin");
        CHECK_INT(200 + peer, wbuf[4], "Put from MPI_BOTTOM");
        CHECK_INT(-1, cres, "Compare_and_swap's old value");
        CHECK_INT(55, wbuf[5], "Compare_and_swap's new value");
        CHECK_INT(10 * me + 7, wbuf[7], "word 7 untouched by the refused calls");
    }
    A_OK(MPI_Type_free(&abs_t));

    /* ---- request-based operations (passive target) ---- */
    int rv = 300 + me;
    A_OK(MPI_Win_lock_all(0, win));
    A_EXPECT(MPI_ERR_ARG, MPI_Rput(&rv, 1, MPI_INT, t, 6, 1, MPI_INT, win, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Rget(&res, 1, MPI_INT, t, 6, 1, MPI_INT, win, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Raccumulate(&rv, 1, MPI_INT, t, 6, 1, MPI_INT, MPI_SUM, win, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Rget_accumulate(&rv, 1, MPI_INT, &res, 1, MPI_INT, t, 6, 1, MPI_INT,
                                              MPI_SUM, win, NULL));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Rput(NULL, 1, MPI_INT, t, 6, 1, MPI_INT, win, &r));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Rget(NULL, 1, MPI_INT, t, 6, 1, MPI_INT, win, &r));
    CHECK_TRUE(r == MPI_REQUEST_NULL, "no request handed out by a refused Rput/Rget");
    A_OK(MPI_Rget(&res, 1, MPI_INT, t, 6, 1, MPI_INT, win, &r));
    A_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    A_OK(MPI_Win_unlock_all(win));
    if (active)
        CHECK_INT(10 * peer + 6, res, "word 6 untouched by the refused request-based calls");
    A_OK(MPI_Win_free(&win));

    /* ---- a shared window's queries ---- */
    int *mine = NULL;
    int rc = MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, w, &mine, &win);
    if (rc == MPI_SUCCESS) {
        MPI_Aint size = 0;
        int du = 0, *theirs = NULL;
        A_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
        A_EXPECT(MPI_ERR_ARG, MPI_Win_shared_query(win, peer, NULL, &du, &theirs));
        A_EXPECT(MPI_ERR_ARG, MPI_Win_shared_query(win, peer, &size, NULL, &theirs));
        A_EXPECT(MPI_ERR_ARG, MPI_Win_shared_query(win, peer, &size, &du, NULL));
        A_OK(MPI_Win_fence(0, win));
        *mine = 400 + me;
        A_OK(MPI_Win_fence(0, win));
        A_OK(MPI_Win_shared_query(win, peer, &size, &du, &theirs));
        CHECK_TRUE(size == sizeof(int) && du == sizeof(int) && theirs != NULL,
                   "Win_shared_query's answers");
        CHECK_INT(400 + peer, *theirs, "the peer's word through the shared window");
        A_OK(MPI_Win_fence(0, win));
        A_OK(MPI_Win_free(&win));
    } else if (me == 0) {
        printf("note: no shared window here (class %d); its queries were not checked\n",
               a_class_of(rc));
    }
    return a_finish("args_rma");
}
