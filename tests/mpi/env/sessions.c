/* The sessions model alone (no MPI_Init):
 *  - MPI_Initialized stays 0 while sessions run; two sessions at once, finalized in any order;
 *  - Session_get_info: thread_level is what IVC grants (MULTIPLE asked by the session that
 *    starts the runtime -> MULTIPLE);
 *  - process sets: get_num_psets/get_nth_pset (length query, truncation) list mpi://WORLD and
 *    mpi://SELF; get_pset_info's mpi_size matches the group's size and PMI_SIZE;
 *    Group_from_session_pset gives WORLD (ranks in order) and SELF, names in any case;
 *  - Comm_create_from_group over WORLD, then over the even and the odd ranks (disjoint groups,
 *    made concurrently with different tags, and again with the same tag in a second
 *    session): ranks, sizes, a ring exchange and an Allreduce against local references;
 *    MPI_ERR_GROUP (caller not a member, null group) and MPI_ERR_ARG (no tag) through the
 *    handler it is given;
 *  - Intercomm_create_from_groups between the even and the odd ranks: remote size, a message
 *    from each even rank to the odd rank of the same index;
 *  - session error handlers: a user handler set on the session gets the session and the code
 *    (Session_call_errhandler, a code the program added, and a real error: an unknown
 *    process set -> MPI_ERR_ARG); get_errhandler returns it; a communicator handler is
 *    refused with MPI_ERR_ERRHANDLER; MPI_ERR_ARG for a bad pset index;
 *  - the session's buffer: attach/detach round trip, detach twice -> MPI_ERR_BUFFER, flush
 *    and iflush with and without a buffer;
 *  - after the last Session_finalize, MPI cannot start again: Session_init -> MPI_ERR_OTHER. */
#include "../t_util.h"

static MPI_Session seen_session = MPI_SESSION_NULL;
static int seen_code = -1, calls;

static void session_handler(MPI_Session *s, int *code, ...)
{
    seen_session = *s;
    seen_code = *code;
    calls++;
}

static void comm_handler(MPI_Comm *c, int *code, ...)
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

/* Ring exchange and Allreduce on comm, whose rank i is world rank world[i]. */
static void check_comm(MPI_Comm comm, const int *world, int n, const char *what)
{
    int rank, size, wr = t_rank;
    char w[128];
    CHECK_MPI(MPI_Comm_size(comm, &size));
    CHECK_MPI(MPI_Comm_rank(comm, &rank));
    CHECK_INT(n, size, t_fmt(w, sizeof w, "%s: size", what));
    CHECK_INT(wr, world[rank], t_fmt(w, sizeof w, "%s: rank %d is world rank", what, rank));
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, got = -1, mine = 1000 + wr;
    CHECK_MPI(MPI_Sendrecv(&mine, 1, MPI_INT, next, 5, &got, 1, MPI_INT, prev, 5, comm,
                           MPI_STATUS_IGNORE));
    CHECK_INT(1000 + world[prev], got, t_fmt(w, sizeof w, "%s: ring value", what));
    long sum = 0, expect = 0;
    long v = wr * 3 + 1;
    CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, comm));
    for (int i = 0; i < n; i++)
        expect += world[i] * 3 + 1;
    CHECK_INT(expect, sum, t_fmt(w, sizeof w, "%s: allreduce", what));
}

int main(int argc, char **argv)
{
    const char *ps = getenv("PMI_SIZE");
    int nworld = ps != NULL ? atoi(ps) : 1, flag = -1;
    MPI_Info info;
    MPI_Session s1, s2;
    MPI_Info_create(&info);
    MPI_Info_set(info, "thread_level", "MPI_THREAD_MULTIPLE");
    if (MPI_Session_init(info, MPI_ERRORS_RETURN, &s1) != MPI_SUCCESS) {
        fprintf(stderr, "MPI_Session_init failed\n");
        return 1;
    }
    MPI_Info_free(&info);
    MPI_Initialized(&flag);
    CHECK_INT(0, flag, "MPI_Initialized with only a session");

    /* Info. */
    MPI_Info used;
    char v[64];
    int len = sizeof v;
    CHECK_MPI(MPI_Session_get_info(s1, &used));
    CHECK_MPI(MPI_Info_get_string(used, "thread_level", &len, v, &flag));
    CHECK_TRUE(flag && strcmp(v, "MPI_THREAD_MULTIPLE") == 0, "session thread_level");
    CHECK_MPI(MPI_Info_free(&used));

    /* Process sets. */
    int npsets = 0, have_world = 0, have_self = 0;
    CHECK_MPI(MPI_Session_get_num_psets(s1, MPI_INFO_NULL, &npsets));
    CHECK_TRUE(npsets >= 2, "at least mpi://WORLD and mpi://SELF");
    for (int i = 0; i < npsets; i++) {
        char name[MPI_MAX_PSET_NAME_LEN];
        int need = 0;
        CHECK_MPI(MPI_Session_get_nth_pset(s1, MPI_INFO_NULL, i, &need, NULL));
        len = sizeof name;
        CHECK_MPI(MPI_Session_get_nth_pset(s1, MPI_INFO_NULL, i, &len, name));
        CHECK_INT((int)strlen(name) + 1, need, "pset name length");
        have_world += strcmp(name, "mpi://WORLD") == 0;
        have_self += strcmp(name, "mpi://SELF") == 0;
        if (i == 0) { /* truncation */
            char small[5];
            len = sizeof small;
            CHECK_MPI(MPI_Session_get_nth_pset(s1, MPI_INFO_NULL, i, &len, small));
            CHECK_TRUE(strncmp(small, name, 4) == 0 && small[4] == '\0', "truncated pset name");
        }
    }
    CHECK_INT(1, have_world, "mpi://WORLD listed");
    CHECK_INT(1, have_self, "mpi://SELF listed");
    MPI_Group gw, gs;
    CHECK_MPI(MPI_Group_from_session_pset(s1, "mpi://WORLD", &gw));
    CHECK_MPI(MPI_Group_from_session_pset(s1, "mpi://SELF", &gs));
    int gsize, grank;
    MPI_Group_size(gw, &gsize);
    MPI_Group_rank(gw, &grank);
    CHECK_INT(nworld, gsize, "size of mpi://WORLD");
    t_rank = grank;
    t_size = gsize;
    MPI_Group_size(gs, &gsize);
    CHECK_INT(1, gsize, "size of mpi://SELF");
    /* Spelled as MPICH's and Open MPI's users do: names compare without regard to case. */
    MPI_Group gl;
    CHECK_MPI(MPI_Group_from_session_pset(s1, "mpi://self", &gl));
    MPI_Group_size(gl, &gsize);
    CHECK_INT(1, gsize, "size of mpi://self");
    CHECK_MPI(MPI_Group_free(&gl));
    CHECK_MPI(MPI_Group_from_session_pset(s1, "MPI://World", &gl));
    MPI_Group_size(gl, &gsize);
    CHECK_INT(nworld, gsize, "size of MPI://World");
    CHECK_MPI(MPI_Group_free(&gl));
    CHECK_MPI(MPI_Session_get_pset_info(s1, "mpi://WORLD", &used));
    len = sizeof v;
    CHECK_MPI(MPI_Info_get_string(used, "mpi_size", &len, v, &flag));
    CHECK_TRUE(flag && atoi(v) == nworld, "mpi_size of mpi://WORLD");
    CHECK_MPI(MPI_Info_free(&used));

    /* Communicators from groups. */
    int *all = t_malloc((size_t)nworld * sizeof(int));
    for (int i = 0; i < nworld; i++)
        all[i] = i;
    MPI_Comm cw;
    CHECK_MPI(MPI_Comm_create_from_group(gw, "org.ivc.test.world", MPI_INFO_NULL,
                                         MPI_ERRORS_RETURN, &cw));
    check_comm(cw, all, nworld, "from mpi://WORLD");
    MPI_Errhandler eh;
    CHECK_MPI(MPI_Comm_get_errhandler(cw, &eh));
    CHECK_TRUE(eh == MPI_ERRORS_RETURN, "the handler given to Comm_create_from_group");
    {
        MPI_Comm cs;
        CHECK_MPI(MPI_Comm_create_from_group(gs, "org.ivc.test.self", MPI_INFO_NULL,
                                             MPI_ERRORS_RETURN, &cs));
        check_comm(cs, &t_rank, 1, "from mpi://SELF");
        CHECK_MPI(MPI_Comm_free(&cs));
    }
    /* Errors go to the handler given (ERRORS_RETURN here): not a member, no tag. */
    MPI_Group gx;
    MPI_Comm cx = MPI_COMM_NULL;
    CHECK_MPI(MPI_Group_excl(gw, 1, &t_rank, &gx));
    CHECK_CLASS(MPI_ERR_GROUP, MPI_Comm_create_from_group(gx, "org.ivc.test.x", MPI_INFO_NULL,
                                                          MPI_ERRORS_RETURN, &cx));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Comm_create_from_group(gw, NULL, MPI_INFO_NULL,
                                                        MPI_ERRORS_RETURN, &cx));
    CHECK_CLASS(MPI_ERR_GROUP, MPI_Comm_create_from_group(MPI_GROUP_NULL, "x", MPI_INFO_NULL,
                                                          MPI_ERRORS_RETURN, &cx));
    CHECK_TRUE(cx == MPI_COMM_NULL, "no communicator made on errors");
    MPI_Group_free(&gx);

    /* Evens and odds, concurrently with different tags. */
    int ne = (nworld + 1) / 2, no = nworld / 2, *ev = t_malloc(ne * sizeof(int)),
        *od = t_malloc((no ? no : 1) * sizeof(int));
    for (int i = 0; i < ne; i++)
        ev[i] = 2 * i;
    for (int i = 0; i < no; i++)
        od[i] = 2 * i + 1;
    MPI_Group ge, go;
    CHECK_MPI(MPI_Group_incl(gw, ne, ev, &ge));
    CHECK_MPI(MPI_Group_incl(gw, no, od, &go));
    MPI_Comm half;
    int even = t_rank % 2 == 0;
    CHECK_MPI(MPI_Comm_create_from_group(even ? ge : go, even ? "evens" : "odds", MPI_INFO_NULL,
                                         MPI_ERRORS_RETURN, &half));
    check_comm(half, even ? ev : od, even ? ne : no, even ? "evens" : "odds");

    /* An intercommunicator between them. */
    if (no > 0) {
        MPI_Comm inter;
        CHECK_MPI(MPI_Intercomm_create_from_groups(even ? ge : go, 0, even ? go : ge, 0,
                                                   "org.ivc.test.inter", MPI_INFO_NULL,
                                                   MPI_ERRORS_RETURN, &inter));
        int is_inter = 0, rsize = -1, r;
        CHECK_MPI(MPI_Comm_test_inter(inter, &is_inter));
        CHECK_INT(1, is_inter, "Comm_test_inter");
        CHECK_MPI(MPI_Comm_remote_size(inter, &rsize));
        CHECK_INT(even ? no : ne, rsize, "remote size");
        MPI_Comm_rank(inter, &r);
        CHECK_INT(t_rank / 2, r, "rank in the intercommunicator");
        if (even && r < no) {
            int val = 500 + t_rank;
            CHECK_MPI(MPI_Send(&val, 1, MPI_INT, r, 9, inter));
        } else if (!even) {
            int val = -1;
            CHECK_MPI(MPI_Recv(&val, 1, MPI_INT, r, 9, inter, MPI_STATUS_IGNORE));
            CHECK_INT(500 + 2 * r, val, "message across the intercommunicator");
        }
        CHECK_MPI(MPI_Comm_free(&inter));
    }

    /* A second session, the same tag again. */
    CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2));
    MPI_Group gw2;
    MPI_Comm cw2;
    CHECK_MPI(MPI_Group_from_session_pset(s2, "mpi://WORLD", &gw2));
    CHECK_MPI(MPI_Comm_create_from_group(gw2, "org.ivc.test.world", MPI_INFO_NULL,
                                         MPI_ERRORS_RETURN, &cw2));
    check_comm(cw2, all, nworld, "second session's world");
    check_comm(cw, all, nworld, "first session's world, again");

    /* Session error handlers. */
    MPI_Errhandler seh, ceh, got;
    CHECK_MPI(MPI_Session_create_errhandler(session_handler, &seh));
    CHECK_MPI(MPI_Comm_create_errhandler(comm_handler, &ceh));
    CHECK_CLASS(MPI_ERR_ERRHANDLER, MPI_Session_set_errhandler(s2, ceh));
    CHECK_MPI(MPI_Session_set_errhandler(s2, seh));
    CHECK_MPI(MPI_Session_get_errhandler(s2, &got));
    CHECK_TRUE(got == seh, "Session_get_errhandler");
    CHECK_MPI(MPI_Errhandler_free(&got));
    CHECK_MPI(MPI_Errhandler_free(&seh)); /* the session keeps its reference */
    CHECK_MPI(MPI_Session_call_errhandler(s2, MPI_ERR_OTHER));
    CHECK_INT(1, calls, "session handler calls");
    CHECK_TRUE(seen_session == s2, "session handler gets the session");
    CHECK_INT(MPI_ERR_OTHER, seen_code, "code seen by the session handler");
    int ucls;
    CHECK_MPI(MPI_Add_error_class(&ucls));
    CHECK_MPI(MPI_Session_call_errhandler(s2, ucls));
    CHECK_INT(ucls, seen_code, "user class seen by the session handler");
    CHECK_CLASS(MPI_ERR_ARG, MPI_Session_get_pset_info(s2, "mpi://NOWHERE", &used));
    CHECK_INT(3, calls, "session handler called on a real error");
    CHECK_INT(MPI_ERR_ARG, seen_code, "class of the real error");
    CHECK_CLASS(MPI_ERR_ARG, MPI_Group_from_session_pset(s1, "nope", &gs));
    len = 8;
    CHECK_CLASS(MPI_ERR_ARG, MPI_Session_get_nth_pset(s1, MPI_INFO_NULL, npsets, &len, v));
    CHECK_MPI(MPI_Errhandler_free(&ceh));

    /* The session's buffer. */
    char *buf = t_malloc(4096), *back = NULL;
    int bsize = -1;
    MPI_Request req;
    CHECK_MPI(MPI_Session_flush_buffer(s1));
    CHECK_MPI(MPI_Session_iflush_buffer(s1, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Session_attach_buffer(s1, buf, 4096));
    CHECK_MPI(MPI_Session_flush_buffer(s1));
    CHECK_MPI(MPI_Session_iflush_buffer(s1, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Session_detach_buffer(s1, &back, &bsize));
    CHECK_TRUE(back == buf, "detached buffer address");
    CHECK_INT(4096, bsize, "detached buffer size");
    CHECK_CLASS(MPI_ERR_BUFFER, MPI_Session_detach_buffer(s1, &back, &bsize));
    free(buf);

    /* Finalize in the other order than init: the runtime stays up for the second. */
    CHECK_MPI(MPI_Comm_free(&cw));
    CHECK_MPI(MPI_Comm_free(&half));
    MPI_Group_free(&gw);
    MPI_Group_free(&gs);
    MPI_Group_free(&ge);
    MPI_Group_free(&go);
    CHECK_MPI(MPI_Session_finalize(&s1));
    CHECK_TRUE(s1 == MPI_SESSION_NULL, "Session_finalize sets MPI_SESSION_NULL");
    check_comm(cw2, all, nworld, "second session after the first is finalized");
    CHECK_MPI(MPI_Comm_free(&cw2));
    MPI_Group_free(&gw2);
    CHECK_MPI(MPI_Session_finalize(&s2));

    /* Torn down: no restart. */
    MPI_Session s3 = MPI_SESSION_NULL;
    int rc = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s3);
    if (rc != MPI_ERR_OTHER || s3 != MPI_SESSION_NULL) {
        fprintf(stderr, "rank %d: Session_init after the last finalize: expected %d, got %d\n",
                t_rank, MPI_ERR_OTHER, rc);
        return 1;
    }
    MPI_Initialized(&flag);
    int fin = -1;
    MPI_Finalized(&fin);
    if (flag != 0 || fin != 0) {
        fprintf(stderr, "rank %d: Initialized/Finalized without MPI_Init: expected 0/0, "
                        "got %d/%d\n",
                t_rank, flag, fin);
        return 1;
    }
    free(all);
    free(ev);
    free(od);
    return 0;
}
