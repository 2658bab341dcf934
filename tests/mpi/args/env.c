/* args_env: NULL arguments to the environment calls under MPI_ERRORS_RETURN (2 ranks):
 * Initialized/Finalized/Query_thread/Is_thread_main, names and versions, error classes,
 * codes, strings and handlers, info objects, Alloc_mem, sessions (a session with
 * MPI_ERRORS_RETURN) and the MPI tool interface (MPI_T_ERR_INVALID, never a crash; the
 * get_info calls accept NULL for what is not wanted). Checked against MPICH's classes.
 *
 * Then the messages of calls made at the wrong time (stderr captured): MPI_Finalize twice,
 * a call after MPI_Finalize and MPI_Init after MPI_Finalize each say so in plain words, and
 * return MPI_ERR_OTHER. */
#include "a_util.h"

/* Runs call with stderr captured into buf; returns its class. */
#define CAPTURED(buf, call)                                                                        \
    ({                                                                                             \
        FILE *t_tmp_ = tmpfile();                                                                  \
        fflush(stderr);                                                                            \
        int t_saved_ = dup(2);                                                                     \
        dup2(fileno(t_tmp_), 2);                                                                   \
        int t_rc_ = (call);                                                                        \
        fflush(stderr);                                                                            \
        dup2(t_saved_, 2);                                                                         \
        close(t_saved_);                                                                           \
        rewind(t_tmp_);                                                                            \
        size_t t_n_ = fread((buf), 1, sizeof(buf) - 1, t_tmp_);                                    \
        (buf)[t_n_] = '\0';                                                                        \
        fclose(t_tmp_);                                                                            \
        t_rc_;                                                                                     \
    })

static void errh_fn(MPI_Comm *c, int *code, ...)
{
    (void)c;
    (void)code;
}

int main(int argc, char **argv)
{
    a_init(&argc, &argv);
    int v = 0, len = 0, flag = 0;
    char s[MPI_MAX_ERROR_STRING + MPI_MAX_PROCESSOR_NAME + MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    MPI_Info info;

    /* ---- state, names, versions ---- */
    A_EXPECT(MPI_ERR_ARG, MPI_Initialized(NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Finalized(NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Query_thread(NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Is_thread_main(NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Get_processor_name(NULL, &len));
    A_EXPECT(MPI_ERR_ARG, MPI_Get_processor_name(s, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Get_version(NULL, &v));
    A_EXPECT(MPI_ERR_ARG, MPI_Get_version(&v, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Get_library_version(NULL, &len));
    A_EXPECT(MPI_ERR_ARG, MPI_Get_library_version(s, NULL));
    A_OK(MPI_Initialized(&flag));
    CHECK_INT(1, flag, "Initialized");

    /* ---- errors ---- */
    A_EXPECT(MPI_ERR_ARG, MPI_Error_string(MPI_ERR_ARG, NULL, &len));
    A_EXPECT(MPI_ERR_ARG, MPI_Error_string(MPI_ERR_ARG, s, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Error_class(MPI_ERR_ARG, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Add_error_class(NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Add_error_code(MPI_ERR_ARG, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Comm_get_errhandler(MPI_COMM_WORLD, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Comm_create_errhandler(NULL, &eh));
    A_EXPECT(MPI_ERR_ARG, MPI_Comm_create_errhandler(errh_fn, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Win_create_errhandler(NULL, &eh));
    A_EXPECT(MPI_ERR_ARG, MPI_Session_create_errhandler(NULL, &eh));
    A_EXPECT(MPI_ERR_ARG, MPI_Errhandler_free(NULL));
    CHECK_TRUE(eh == MPI_ERRHANDLER_NULL, "no handler handed out by a refused call");

    /* ---- info ---- */
    A_EXPECT(MPI_ERR_ARG, MPI_Info_create(NULL));
    A_OK(MPI_Info_create(&info));
    A_EXPECT(MPI_ERR_ARG, MPI_Info_set(info, NULL, "v"));
    A_EXPECT(MPI_ERR_ARG, MPI_Info_set(info, "k", NULL));
    A_EXPECT(MPI_ERR_INFO_KEY, MPI_Info_set(info, "", "v"));
    A_OK(MPI_Info_set(info, "k", "value"));
    A_EXPECT(MPI_ERR_ARG, MPI_Info_get(info, NULL, 8, s, &flag));
    A_EXPECT(MPI_ERR_ARG, MPI_Info_get(info, "k", 8, NULL, &flag));
    A_EXPECT(MPI_ERR_ARG, MPI_Info_get(info, "k", 8, s, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Info_get_valuelen(info, "k", NULL, &flag));
    A_EXPECT(MPI_ERR_ARG, MPI_Info_get_valuelen(info, "k", &len, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Info_get_nkeys(info, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Info_get_nthkey(info, 0, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Info_delete(info, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Info_dup(info, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Info_free(NULL));
    len = 8;
    A_EXPECT(MPI_ERR_ARG, MPI_Info_get_string(info, "k", NULL, s, &flag));
    A_EXPECT(MPI_ERR_ARG, MPI_Info_get_string(info, "k", &len, NULL, &flag));
    A_EXPECT(MPI_ERR_ARG, MPI_Info_get_string(info, NULL, &len, s, &flag));
    A_EXPECT(MPI_ERR_ARG, MPI_Info_create_env(0, NULL, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Get_hw_resource_info(NULL));
    len = 0;
    A_OK(MPI_Info_get_string(info, "k", &len, NULL, &flag)); /* length only */
    CHECK_INT(6, len, "Info_get_string length of \"value\" with its NUL");
    A_OK(MPI_Info_free(&info));

    /* ---- memory ---- */
    A_EXPECT(MPI_ERR_ARG, MPI_Alloc_mem(64, MPI_INFO_NULL, NULL));
    A_OK(MPI_Free_mem(NULL));

    /* ---- sessions ---- */
    {
        MPI_Session ses = MPI_SESSION_NULL;
        MPI_Group g;
        A_EXPECT(MPI_ERR_ARG, MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, NULL));
        A_EXPECT(MPI_ERR_ARG, MPI_Session_finalize(NULL));
        A_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &ses));
        A_EXPECT(MPI_ERR_ARG, MPI_Session_get_info(ses, NULL));
        A_EXPECT(MPI_ERR_ARG, MPI_Session_get_errhandler(ses, NULL));
        A_EXPECT(MPI_ERR_ARG, MPI_Session_get_num_psets(ses, MPI_INFO_NULL, NULL));
        A_EXPECT(MPI_ERR_ARG, MPI_Session_get_nth_pset(ses, MPI_INFO_NULL, 0, NULL, s));
        len = 8;
        A_EXPECT(MPI_ERR_ARG, MPI_Session_get_nth_pset(ses, MPI_INFO_NULL, 0, &len, NULL));
        A_EXPECT(MPI_ERR_ARG, MPI_Session_get_pset_info(ses, NULL, &info));
        A_EXPECT(MPI_ERR_ARG, MPI_Session_get_pset_info(ses, "mpi://WORLD", NULL));
        A_EXPECT(MPI_ERR_ARG, MPI_Group_from_session_pset(ses, NULL, &g));
        A_EXPECT(MPI_ERR_ARG, MPI_Group_from_session_pset(ses, "mpi://WORLD", NULL));
        A_EXPECT(MPI_ERR_ARG, MPI_Session_detach_buffer(ses, NULL, &len));
        A_EXPECT(MPI_ERR_ARG, MPI_Session_iflush_buffer(ses, NULL));
        A_EXPECT(MPI_ERR_BUFFER, MPI_Session_attach_buffer(ses, NULL, 100));
        A_OK(MPI_Group_from_session_pset(ses, "mpi://SELF", &g));
        A_EXPECT(MPI_ERR_ARG, MPI_Comm_create_from_group(g, NULL, MPI_INFO_NULL,
                                                         MPI_ERRORS_RETURN, &(MPI_Comm){0}));
        A_EXPECT(MPI_ERR_ARG, MPI_Comm_create_from_group(g, "org.ivc.args", MPI_INFO_NULL,
                                                         MPI_ERRORS_RETURN, NULL));
        A_OK(MPI_Group_free(&g));
        A_OK(MPI_Session_finalize(&ses));
    }

    /* ---- the tool interface ---- */
    {
        int prov, num = 0, idx;
        MPI_T_cvar_handle ch;
        MPI_T_pvar_session ps;
        A_EXPECT(MPI_T_ERR_INVALID, MPI_T_init_thread(MPI_THREAD_SINGLE, NULL));
        A_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &prov));
        A_EXPECT(MPI_T_ERR_INVALID, MPI_T_cvar_get_num(NULL));
        A_EXPECT(MPI_T_ERR_INVALID, MPI_T_pvar_get_num(NULL));
        A_EXPECT(MPI_T_ERR_INVALID, MPI_T_category_get_num(NULL));
        A_EXPECT(MPI_T_ERR_INVALID, MPI_T_event_get_num(NULL));
        A_EXPECT(MPI_T_ERR_INVALID, MPI_T_source_get_num(NULL));
        A_EXPECT(MPI_T_ERR_INVALID, MPI_T_category_changed(NULL));
        A_EXPECT(MPI_T_ERR_INVALID, MPI_T_cvar_get_index(NULL, &idx));
        A_EXPECT(MPI_T_ERR_INVALID, MPI_T_cvar_get_index("x", NULL));
        A_EXPECT(MPI_T_ERR_INVALID, MPI_T_pvar_get_index(NULL, MPI_T_PVAR_CLASS_COUNTER, &idx));
        A_EXPECT(MPI_T_ERR_INVALID, MPI_T_category_get_index(NULL, &idx));
        A_EXPECT(MPI_T_ERR_INVALID, MPI_T_event_get_index(NULL, &idx));
        A_EXPECT(MPI_T_ERR_INVALID, MPI_T_pvar_session_create(NULL));
        A_EXPECT(MPI_T_ERR_INVALID, MPI_T_pvar_session_free(NULL));
        A_OK(MPI_T_cvar_get_num(&num));
        if (num > 0) {
            /* Everything but the index is optional in the get_info calls. */
            A_OK(MPI_T_cvar_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
            A_EXPECT(MPI_T_ERR_INVALID, MPI_T_cvar_handle_alloc(0, NULL, NULL, &v));
            A_EXPECT(MPI_T_ERR_INVALID, MPI_T_cvar_handle_alloc(0, NULL, &ch, NULL));
            A_OK(MPI_T_cvar_handle_alloc(0, NULL, &ch, &v));
            A_EXPECT(MPI_T_ERR_INVALID, MPI_T_cvar_read(ch, NULL));
            A_EXPECT(MPI_T_ERR_INVALID, MPI_T_cvar_handle_free(NULL));
            A_OK(MPI_T_cvar_handle_free(&ch));
        }
        A_OK(MPI_T_category_get_num(&num));
        if (num > 0) {
            A_OK(MPI_T_category_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
            A_EXPECT(MPI_T_ERR_INVALID, MPI_T_category_get_cvars(0, 2, NULL));
            A_EXPECT(MPI_T_ERR_INVALID, MPI_T_category_get_pvars(0, 2, NULL));
            A_EXPECT(MPI_T_ERR_INVALID, MPI_T_category_get_categories(0, 2, NULL));
            A_EXPECT(MPI_T_ERR_INVALID, MPI_T_category_get_num_events(0, NULL));
            A_EXPECT(MPI_T_ERR_INVALID, MPI_T_category_get_events(0, 2, NULL));
        }
        A_OK(MPI_T_pvar_session_create(&ps));
        A_EXPECT(MPI_T_ERR_INVALID, MPI_T_pvar_handle_free(ps, NULL));
        A_OK(MPI_T_pvar_session_free(&ps));
        A_OK(MPI_T_source_get_num(&num));
        if (num > 0) {
            MPI_Count ts;
            A_OK(MPI_T_source_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
            A_EXPECT(MPI_T_ERR_INVALID, MPI_T_source_get_timestamp(0, NULL));
            A_OK(MPI_T_source_get_timestamp(0, &ts));
        }
        A_OK(MPI_T_finalize());
    }

    int fails = 0, checks = 0;
    MPI_Allreduce(&a_fails, &fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&a_checks, &checks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();

    /* ---- calls at the wrong time: their messages ---- */
    char msg[1024];
    int one = 1;
    a_call = "MPI_Finalize after MPI_Finalize";
    int rc = CAPTURED(msg, MPI_Finalize());
    if (rc != MPI_ERR_OTHER || strstr(msg, "MPI_Finalize called twice") == NULL ||
        strstr(msg, "MPI_Init") != NULL) {
        fprintf(stderr, "rank %d: second MPI_Finalize: expected MPI_ERR_OTHER and \"MPI_Finalize "
                        "called twice\", got %d and \"%s\"\n", t_rank, rc, msg);
        fails++;
    }
    a_call = "MPI_Send after MPI_Finalize";
    rc = CAPTURED(msg, MPI_Send(&one, 1, MPI_INT, 0, 0, MPI_COMM_WORLD));
    if (rc != MPI_ERR_OTHER || strstr(msg, "MPI_Send called after MPI_Finalize") == NULL ||
        strstr(msg, "MPI_Init") != NULL) {
        fprintf(stderr, "rank %d: MPI_Send after MPI_Finalize: expected MPI_ERR_OTHER and "
                        "\"MPI_Send called after MPI_Finalize\", got %d and \"%s\"\n",
                t_rank, rc, msg);
        fails++;
    }
    a_call = "MPI_Init after MPI_Finalize";
    rc = CAPTURED(msg, MPI_Init(NULL, NULL));
    if (rc != MPI_ERR_OTHER || strstr(msg, "MPI_Init called after MPI_Finalize") == NULL) {
        fprintf(stderr, "rank %d: MPI_Init after MPI_Finalize: expected MPI_ERR_OTHER and "
                        "\"MPI_Init called after MPI_Finalize\", got %d and \"%s\"\n",
                t_rank, rc, msg);
        fails++;
    }
    if (t_rank == 0)
        printf("args_env: %d calls checked on %d ranks, %d wrong (before MPI_Finalize)\n", checks,
               t_size, fails);
    return fails != 0;
}
