/* MPI_Init and sessions in one process, and thread levels:
 *  - MPI_Init_thread(MULTIPLE) provides MULTIPLE (SERIALIZED with IVC_THREAD_MULTIPLE=no);
 *    Query_thread says so; Is_thread_main is true in the main thread, false in another
 *    thread; MPI_INFO_ENV's thread_level is the level asked for; a session started later
 *    that asks for MULTIPLE gets what MPI_Init_thread got;
 *  - a session started after MPI_Init shares the runtime: a communicator from its
 *    mpi://WORLD and MPI_COMM_WORLD agree (Comm_compare CONGRUENT) and both carry data;
 *  - invalid sessions give MPI_ERR_SESSION (WORLD's handler is ERRORS_RETURN);
 *    Session_init with a communicator handler gives MPI_ERR_ERRHANDLER, with an invalid info
 *    MPI_ERR_INFO;
 *  - MPI_Finalize while the session lives: Initialized and Finalized are 1, and the
 *    session's communicator still works (Allreduce checked) until Session_finalize. */
#include "../t_util.h"

#include <pthread.h>

#define CHECK_CLASS(expected, call)                                                                \
    do {                                                                                           \
        int t_rc_ = (call), t_c_ = t_rc_;                                                          \
        if (t_rc_ != MPI_SUCCESS)                                                                  \
            MPI_Error_class(t_rc_, &t_c_);                                                         \
        if (t_c_ != (expected))                                                                    \
            t_fail("%s: expected class %d, got %d (rc %d)", #call, (expected), t_c_, t_rc_);       \
    } while (0)

static void *thread_main(void *arg)
{
    int *flag = arg;
    MPI_Is_thread_main(flag);
    return NULL;
}

static void comm_handler(MPI_Comm *c, int *code, ...)
{
}

int main(int argc, char **argv)
{
    int provided = -1, q = -1, flag = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    t_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const char *mt = getenv("IVC_THREAD_MULTIPLE");
    int want = mt != NULL && strcmp(mt, "no") == 0 ? MPI_THREAD_SERIALIZED : MPI_THREAD_MULTIPLE;
    CHECK_INT(want, provided, "Init_thread(MULTIPLE) provides");
    CHECK_MPI(MPI_Query_thread(&q));
    CHECK_INT(provided, q, "Query_thread");
    CHECK_MPI(MPI_Is_thread_main(&flag));
    CHECK_INT(1, flag, "Is_thread_main in the main thread");
    pthread_t th;
    int other = -1;
    CHECK_TRUE(pthread_create(&th, NULL, thread_main, &other) == 0, "pthread_create");
    pthread_join(th, NULL);
    CHECK_INT(0, other, "Is_thread_main in another thread");
    char v[64];
    int len = sizeof v;
    CHECK_MPI(MPI_Info_get_string(MPI_INFO_ENV, "thread_level", &len, v, &flag));
    CHECK_TRUE(flag && strcmp(v, "MPI_THREAD_MULTIPLE") == 0, "MPI_INFO_ENV thread_level");

    /* A session beside the world. */
    MPI_Session s;
    MPI_Errhandler ceh;
    MPI_Info bad = (MPI_Info)&flag;
    CHECK_MPI(MPI_Comm_create_errhandler(comm_handler, &ceh));
    CHECK_CLASS(MPI_ERR_ERRHANDLER, MPI_Session_init(MPI_INFO_NULL, ceh, &s));
    CHECK_CLASS(MPI_ERR_INFO, MPI_Session_init(bad, MPI_ERRORS_RETURN, &s));
    CHECK_MPI(MPI_Errhandler_free(&ceh));
    MPI_Info ask;
    CHECK_MPI(MPI_Info_create(&ask));
    CHECK_MPI(MPI_Info_set(ask, "thread_level", "MPI_THREAD_MULTIPLE"));
    CHECK_MPI(MPI_Session_init(ask, MPI_ERRORS_RETURN, &s));
    CHECK_MPI(MPI_Info_free(&ask));
    MPI_Info used;
    len = sizeof(v);
    CHECK_MPI(MPI_Session_get_info(s, &used));
    CHECK_MPI(MPI_Info_get_string(used, "thread_level", &len, v, &flag));
    CHECK_TRUE(flag && strcmp(v, want == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE"
                                                              : "MPI_THREAD_SERIALIZED") == 0,
               "thread_level of a session after MPI_Init_thread");
    CHECK_MPI(MPI_Info_free(&used));
    MPI_Group g;
    MPI_Comm c;
    CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    CHECK_MPI(MPI_Comm_create_from_group(g, "org.ivc.test.mixed", MPI_INFO_NULL,
                                         MPI_ERRORS_RETURN, &c));
    int cmp = -1;
    CHECK_MPI(MPI_Comm_compare(c, MPI_COMM_WORLD, &cmp));
    CHECK_INT(MPI_CONGRUENT, cmp, "session WORLD vs MPI_COMM_WORLD");
    int a = t_rank + 1, sa = 0, sb = 0;
    CHECK_MPI(MPI_Allreduce(&a, &sa, 1, MPI_INT, MPI_SUM, c));
    CHECK_MPI(MPI_Allreduce(&a, &sb, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_INT(t_size * (t_size + 1) / 2, sa, "Allreduce on the session's communicator");
    CHECK_INT(sa, sb, "Allreduce on MPI_COMM_WORLD");
    int npsets;
    CHECK_CLASS(MPI_ERR_SESSION, MPI_Session_get_num_psets(MPI_SESSION_NULL, MPI_INFO_NULL,
                                                           &npsets));
    MPI_Session none = MPI_SESSION_NULL;
    CHECK_CLASS(MPI_ERR_SESSION, MPI_Session_finalize(&none));
    CHECK_CLASS(MPI_ERR_SESSION, MPI_Session_call_errhandler(none, MPI_ERR_OTHER));

    MPI_Finalize();
    MPI_Initialized(&flag);
    int fin = -1;
    MPI_Finalized(&fin);
    if (flag != 1 || fin != 1) {
        fprintf(stderr, "rank %d: after MPI_Finalize: Initialized/Finalized: expected 1/1, got "
                        "%d/%d\n",
                t_rank, flag, fin);
        return 1;
    }
    /* The session still runs. */
    a = 10 * t_rank;
    if (MPI_Allreduce(&a, &sa, 1, MPI_INT, MPI_MAX, c) != MPI_SUCCESS || sa != 10 * (t_size - 1)) {
        fprintf(stderr, "rank %d: Allreduce after MPI_Finalize: expected %d, got %d\n", t_rank,
                10 * (t_size - 1), sa);
        return 1;
    }
    MPI_Comm_free(&c);
    MPI_Group_free(&g);
    if (MPI_Session_finalize(&s) != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: Session_finalize after MPI_Finalize failed\n", t_rank);
        return 1;
    }
    return 0;
}
