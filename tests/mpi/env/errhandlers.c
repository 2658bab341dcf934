/* Error handlers of every kind and NULL output arguments:
 *  - MPI_Win_create_errhandler + Win_set/get_errhandler: the window's handler is called with
 *    the window's handle and the class, both for MPI_Win_call_errhandler (also with a code
 *    the program added) and for a real error inside a one-sided call (Win_get_attr with an
 *    unknown key -> MPI_ERR_KEYVAL), and the call returns the class;
 *  - kinds do not mix: a window handler on a communicator and a communicator handler on a
 *    window give MPI_ERR_ERRHANDLER; ERRORS_RETURN on windows still works;
 *  - MPI_Session_create_errhandler makes a handler that MPI_Errhandler_free frees (sessions
 *    use it: tests/mpi/env/sessions.c);
 *  - Errhandler_free of every kind sets MPI_ERRHANDLER_NULL; freeing MPI_ERRHANDLER_NULL
 *    gives MPI_ERR_ERRHANDLER, a NULL pointer MPI_ERR_ARG; freeing a predefined handler
 *    leaves it working;
 *  - NULL output pointers give MPI_ERR_ARG (never a crash): Initialized, Finalized,
 *    Query_thread, Is_thread_main, Get_version, Get_library_version, Get_processor_name,
 *    Error_class, Error_string, Add_error_class, Add_error_code, Comm_get_errhandler,
 *    Comm_create_errhandler, Win_create_errhandler, Info_create, Info_get_nkeys;
 *  - a ring exchange on WORLD afterwards checks data. */
#include "../t_util.h"

static MPI_Win seen_win = MPI_WIN_NULL;
static int seen_code = -1, win_calls;

static void win_handler(MPI_Win *win, int *code, ...)
{
    seen_win = *win;
    seen_code = *code;
    win_calls++;
}

static void comm_handler(MPI_Comm *comm, int *code, ...)
{
    t_fail("communicator handler called (code %d): expected never", *code);
}

static void session_handler(MPI_Session *s, int *code, ...)
{
}

#define CHECK_CLASS(expected, call)                                                                \
    do {                                                                                           \
        int t_rc_ = (call), t_c_ = t_rc_;                                                          \
        if (t_rc_ != MPI_SUCCESS)                                                                  \
            MPI_Error_class(t_rc_, &t_c_);                                                         \
        if (t_c_ != (expected))                                                                    \
            t_fail("%s: expected class %d, got %d (rc %d)", #call, (expected), t_c_, t_rc_);       \
    } while (0)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* Window handlers. */
    int *mem;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(64, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    MPI_Errhandler weh, ceh, seh, got;
    CHECK_MPI(MPI_Win_create_errhandler(win_handler, &weh));
    CHECK_MPI(MPI_Comm_create_errhandler(comm_handler, &ceh));
    CHECK_MPI(MPI_Session_create_errhandler(session_handler, &seh));
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_CLASS(MPI_ERR_ERRHANDLER, MPI_Win_set_errhandler(win, ceh));
    CHECK_CLASS(MPI_ERR_ERRHANDLER, MPI_Win_set_errhandler(win, seh));
    CHECK_CLASS(MPI_ERR_ERRHANDLER, MPI_Comm_set_errhandler(MPI_COMM_WORLD, weh));
    CHECK_CLASS(MPI_ERR_ERRHANDLER, MPI_Comm_set_errhandler(MPI_COMM_WORLD, seh));
    CHECK_MPI(MPI_Win_set_errhandler(win, weh));
    CHECK_MPI(MPI_Win_get_errhandler(win, &got));
    CHECK_TRUE(got == weh, "Win_get_errhandler returns the handler set");
    CHECK_MPI(MPI_Errhandler_free(&got));

    CHECK_MPI(MPI_Win_call_errhandler(win, MPI_ERR_RMA_SYNC));
    CHECK_INT(1, win_calls, "window handler calls after Win_call_errhandler");
    CHECK_TRUE(seen_win == win, "window handler gets the window");
    CHECK_INT(MPI_ERR_RMA_SYNC, seen_code, "code seen by the window handler");
    int ucls, ucode;
    CHECK_MPI(MPI_Add_error_class(&ucls));
    CHECK_MPI(MPI_Add_error_code(ucls, &ucode));
    CHECK_MPI(MPI_Win_call_errhandler(win, ucode));
    CHECK_INT(2, win_calls, "window handler calls after a user code");
    CHECK_INT(ucode, seen_code, "user code seen by the window handler");

    /* A real error inside a one-sided call goes to the window's handler with the window. */
    seen_win = MPI_WIN_NULL;
    void *val;
    int flag = 1;
    int rc = MPI_Win_get_attr(win, 0x7654321, &val, &flag);
    CHECK_INT(MPI_ERR_KEYVAL, rc, "Win_get_attr with an unknown key");
    CHECK_INT(3, win_calls, "window handler calls after a failing Win_get_attr");
    CHECK_TRUE(seen_win == win, "window handler gets the window on a real error");
    CHECK_INT(MPI_ERR_KEYVAL, seen_code, "class seen by the window handler");

    /* Freeing the user's handle keeps the attached handler alive. */
    CHECK_MPI(MPI_Errhandler_free(&weh));
    CHECK_TRUE(weh == MPI_ERRHANDLER_NULL, "Errhandler_free(window handler)");
    CHECK_MPI(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    CHECK_INT(4, win_calls, "window handler called after Errhandler_free");
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_CLASS(MPI_ERR_KEYVAL, MPI_Win_get_attr(win, 0x7654321, &val, &flag));
    CHECK_INT(4, win_calls, "window handler not called under MPI_ERRORS_RETURN");
    CHECK_MPI(MPI_Win_free(&win));
    CHECK_CLASS(MPI_ERR_WIN, MPI_Win_call_errhandler(MPI_WIN_NULL, MPI_ERR_OTHER));

    /* Freeing every kind. */
    CHECK_MPI(MPI_Errhandler_free(&ceh));
    CHECK_TRUE(ceh == MPI_ERRHANDLER_NULL, "Errhandler_free(communicator handler)");
    CHECK_MPI(MPI_Errhandler_free(&seh));
    CHECK_TRUE(seh == MPI_ERRHANDLER_NULL, "Errhandler_free(session handler)");
    CHECK_CLASS(MPI_ERR_ERRHANDLER, MPI_Errhandler_free(&seh));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Errhandler_free(NULL));
    MPI_Errhandler pre = MPI_ERRORS_RETURN;
    CHECK_MPI(MPI_Errhandler_free(&pre));
    CHECK_TRUE(pre == MPI_ERRHANDLER_NULL, "Errhandler_free(MPI_ERRORS_RETURN) sets NULL");
    CHECK_CLASS(MPI_ERR_RANK, MPI_Send(&flag, 1, MPI_INT, t_size + 3, 0, MPI_COMM_WORLD));

    /* NULL output arguments. */
    int v, sv, len;
    char buf[MPI_MAX_LIBRARY_VERSION_STRING];
    CHECK_CLASS(MPI_ERR_ARG, MPI_Initialized(NULL));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Finalized(NULL));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Query_thread(NULL));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Is_thread_main(NULL));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Get_version(NULL, &sv));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Get_version(&v, NULL));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Get_library_version(NULL, &len));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Get_library_version(buf, NULL));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Get_processor_name(NULL, &len));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Get_processor_name(buf, NULL));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Error_class(MPI_ERR_ARG, NULL));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Error_string(MPI_ERR_ARG, NULL, &len));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Error_string(MPI_ERR_ARG, buf, NULL));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Add_error_class(NULL));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Add_error_code(ucls, NULL));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Comm_get_errhandler(MPI_COMM_WORLD, NULL));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Comm_create_errhandler(comm_handler, NULL));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Comm_create_errhandler(NULL, &got));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Win_create_errhandler(win_handler, NULL));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Session_create_errhandler(NULL, &got));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Info_create(NULL));
    MPI_Info info;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Info_get_nkeys(info, NULL));
    CHECK_MPI(MPI_Info_free(&info));
    /* ... and the same calls with real pointers work. */
    CHECK_MPI(MPI_Initialized(&v));
    CHECK_INT(1, v, "Initialized");
    CHECK_MPI(MPI_Finalized(&v));
    CHECK_INT(0, v, "Finalized");

    int next = (t_rank + 1) % t_size, prev = (t_rank + t_size - 1) % t_size, in = -1,
        out = 77 * t_rank + 5;
    CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, next, 3, &in, 1, MPI_INT, prev, 3, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    CHECK_INT(77 * prev + 5, in, "ring value");
    MPI_Finalize();
    return 0;
}
