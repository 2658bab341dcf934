/* MPI_Win_get_info returns the hints given at creation and by MPI_Win_set_info (a later
 * value replaces an earlier one; other keys stay), the standard's window hints nobody set
 * at the values IVC works with (no_locks false, accumulate_ordering rar,raw,war,waw,
 * accumulate_ops same_op_no_op, same_size false, same_disp_unit false;
 * alloc_shared_noncontig only for shared windows), on every kind of window; the returned
 * object is the caller's (freeing it leaves the window's hints); MPI_ERR_INFO for
 * MPI_INFO_NULL in Win_set_info. */
#include "t_win.h"

static void expect(MPI_Info info, const char *key, const char *want, const char *what)
{
    char v[MPI_MAX_INFO_VAL + 1], w[200];
    int flag = 0, len = (int)sizeof(v);
    CHECK_MPI(MPI_Info_get_string(info, key, &len, v, &flag));
    if (want == NULL) {
        CHECK_INT(0, flag, t_fmt(w, sizeof w, "%s: %s absent", what, key));
        return;
    }
    CHECK_INT(1, flag, t_fmt(w, sizeof w, "%s: %s present", what, key));
    if (strcmp(v, want) != 0)
        t_fail("%s: %s: expected \"%s\", got \"%s\"", what, key, want, v);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    char what[160];
    for (int kind = 0; kind < K_COUNT; kind++) {
        MPI_Info hints, got, more;
        CHECK_MPI(MPI_Info_create(&hints));
        CHECK_MPI(MPI_Info_set(hints, "no_locks", "true"));
        CHECK_MPI(MPI_Info_set(hints, "accumulate_ops", "same_op"));
        CHECK_MPI(MPI_Info_set(hints, "ivc_test_key", "42"));
        twin_t w;
        twin_make(&w, kind, 64, hints);
        CHECK_MPI(MPI_Info_free(&hints)); /* the window keeps its own copy */
        const char *kn = k_name[kind];
        CHECK_MPI(MPI_Win_get_info(w.win, &got));
        expect(got, "no_locks", "true", t_fmt(what, sizeof what, "%s at creation", kn));
        expect(got, "accumulate_ops", "same_op", what);
        expect(got, "ivc_test_key", "42", what);
        expect(got, "accumulate_ordering", "rar,raw,war,waw", what);
        expect(got, "same_size", "false", what);
        expect(got, "same_disp_unit", "false", what);
        expect(got, "alloc_shared_noncontig", kind == K_ALLOCATE_SHARED ? "false" : NULL, what);
        CHECK_MPI(MPI_Info_free(&got));

        CHECK_MPI(MPI_Info_create(&more));
        CHECK_MPI(MPI_Info_set(more, "no_locks", "false"));
        CHECK_MPI(MPI_Info_set(more, "accumulate_ordering", "none"));
        CHECK_MPI(MPI_Info_set(more, "same_size", "true"));
        CHECK_MPI(MPI_Win_set_info(w.win, more));
        CHECK_MPI(MPI_Info_free(&more));
        CHECK_MPI(MPI_Win_get_info(w.win, &got));
        expect(got, "no_locks", "false", t_fmt(what, sizeof what, "%s after Win_set_info", kn));
        expect(got, "accumulate_ordering", "none", what);
        expect(got, "same_size", "true", what);
        expect(got, "accumulate_ops", "same_op", what);
        expect(got, "ivc_test_key", "42", what);
        CHECK_MPI(MPI_Info_set(got, "same_size", "changed by the caller"));
        CHECK_MPI(MPI_Info_free(&got));
        CHECK_MPI(MPI_Win_get_info(w.win, &got));
        expect(got, "same_size", "true", t_fmt(what, sizeof what, "%s: a returned object is a copy", kn));
        CHECK_MPI(MPI_Info_free(&got));

        CHECK_MPI(MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN));
        CHECK_CLASS(MPI_ERR_INFO, MPI_Win_set_info(w.win, MPI_INFO_NULL),
                    "Win_set_info(MPI_INFO_NULL)");
        /* The window still works. */
        int one = 1, t = (w.rank + 1) % w.size;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w.win));
        CHECK_MPI(MPI_Accumulate(&one, 1, MPI_INT, t, twin_disp(&w, t, 0), 1, MPI_INT, MPI_SUM,
                                 w.win));
        CHECK_MPI(MPI_Win_unlock(t, w.win));
        MPI_Barrier(w.comm);
        CHECK_INT(1, *(int *)w.base, t_fmt(what, sizeof what, "%s: accumulate after the hints", kn));
        twin_free(&w);
    }
    /* Without hints: only the defaults. */
    MPI_Win win;
    MPI_Info got;
    int x;
    CHECK_MPI(MPI_Win_create(&x, sizeof x, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_get_info(win, &got));
    expect(got, "no_locks", "false", "no hints");
    expect(got, "accumulate_ops", "same_op_no_op", "no hints");
    expect(got, "ivc_test_key", NULL, "no hints");
    CHECK_MPI(MPI_Info_free(&got));
    CHECK_MPI(MPI_Win_free(&win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        printf("info: OK\n");
    MPI_Finalize();
    return 0;
}
