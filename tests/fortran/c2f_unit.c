/* MPI_<Kind>_c2f / MPI_<Kind>_f2c for every handle kind, predefined and user objects, and the
 * MPI_Status conversions (c2f, f2c, c2f08, f082c, f2f08, f082f), from C alone (one rank).
 * Exits 0, 1 with expected/got printed, or 77. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sessions may not be implemented yet: a weak reference tells. */
extern int PMPI_Session_init(MPI_Info, MPI_Errhandler, MPI_Session *) __attribute__((weak));
extern int PMPI_Session_finalize(MPI_Session *) __attribute__((weak));

static int failed;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "c2f_unit: line %d: ", __LINE__);                                     \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            failed = 1;                                                                            \
        }                                                                                          \
    } while (0)

/* The round trip of one handle h of kind K: c2f is stable, f2c gives h back; NULL is 0. */
#define ROUND(K, T, h, name)                                                                       \
    do {                                                                                           \
        MPI_Fint f1 = MPI_##K##_c2f(h), f2 = MPI_##K##_c2f(h);                                     \
        CHECK(f1 == f2, "%s: c2f twice: expected %d, got %d", name, f1, f2);                      \
        CHECK(MPI_##K##_f2c(f1) == (h), "%s: f2c(c2f(h)) is not h (index %d)", name, f1);         \
        CHECK(((h) == (T)0) == (f1 == 0), "%s: null iff index 0, got index %d", name, f1);         \
        CHECK(PMPI_##K##_c2f(h) == f1, "%s: PMPI_ c2f differs: expected %d, got %d", name, f1,     \
              PMPI_##K##_c2f(h));                                                                  \
    } while (0)

/* Two distinct objects get distinct indices; an unknown index gives the null handle. */
#define DISTINCT(K, T, a, b, name)                                                                 \
    do {                                                                                           \
        CHECK(MPI_##K##_c2f(a) != MPI_##K##_c2f(b), "%s: distinct objects share index %d", name,   \
              MPI_##K##_c2f(a));                                                                   \
        CHECK(MPI_##K##_f2c(1 << 30) == (T)0, "%s: unknown index not the null handle", name);      \
        CHECK(MPI_##K##_f2c(-5) == (T)0, "%s: negative index not the null handle", name);          \
    } while (0)

static void noop_op(void *in, void *inout, int *len, MPI_Datatype *dt) {}
static void noop_errh(MPI_Comm *c, int *code, ...) {}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);

    /* predefined handles: fixed indices, stable, and back */
    ROUND(Comm, MPI_Comm, MPI_COMM_NULL, "MPI_COMM_NULL");
    ROUND(Comm, MPI_Comm, MPI_COMM_WORLD, "MPI_COMM_WORLD");
    ROUND(Comm, MPI_Comm, MPI_COMM_SELF, "MPI_COMM_SELF");
    CHECK(MPI_Comm_c2f(MPI_COMM_WORLD) == 1, "MPI_COMM_WORLD index: expected 1, got %d",
          MPI_Comm_c2f(MPI_COMM_WORLD));
    ROUND(Type, MPI_Datatype, MPI_DATATYPE_NULL, "MPI_DATATYPE_NULL");
    ROUND(Type, MPI_Datatype, MPI_INT, "MPI_INT");
    ROUND(Type, MPI_Datatype, MPI_INTEGER, "MPI_INTEGER");
    ROUND(Type, MPI_Datatype, MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION");
    ROUND(Type, MPI_Datatype, MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION");
    ROUND(Type, MPI_Datatype, MPI_COMPLEX16, "MPI_COMPLEX16");
    CHECK(MPI_Type_c2f(MPI_LONG_LONG) == MPI_Type_c2f(MPI_LONG_LONG_INT),
          "MPI_LONG_LONG and MPI_LONG_LONG_INT: expected one index, got %d and %d",
          MPI_Type_c2f(MPI_LONG_LONG), MPI_Type_c2f(MPI_LONG_LONG_INT));
    DISTINCT(Type, MPI_Datatype, MPI_INTEGER, MPI_REAL, "MPI_INTEGER/MPI_REAL");
    ROUND(Group, MPI_Group, MPI_GROUP_NULL, "MPI_GROUP_NULL");
    ROUND(Group, MPI_Group, MPI_GROUP_EMPTY, "MPI_GROUP_EMPTY");
    ROUND(Request, MPI_Request, MPI_REQUEST_NULL, "MPI_REQUEST_NULL");
    ROUND(Op, MPI_Op, MPI_OP_NULL, "MPI_OP_NULL");
    ROUND(Op, MPI_Op, MPI_SUM, "MPI_SUM");
    ROUND(Op, MPI_Op, MPI_MAXLOC, "MPI_MAXLOC");
    ROUND(Errhandler, MPI_Errhandler, MPI_ERRHANDLER_NULL, "MPI_ERRHANDLER_NULL");
    ROUND(Errhandler, MPI_Errhandler, MPI_ERRORS_ARE_FATAL, "MPI_ERRORS_ARE_FATAL");
    ROUND(Errhandler, MPI_Errhandler, MPI_ERRORS_RETURN, "MPI_ERRORS_RETURN");
    ROUND(Info, MPI_Info, MPI_INFO_NULL, "MPI_INFO_NULL");
    ROUND(Win, MPI_Win, MPI_WIN_NULL, "MPI_WIN_NULL");
    ROUND(Message, MPI_Message, MPI_MESSAGE_NULL, "MPI_MESSAGE_NULL");
    ROUND(Message, MPI_Message, MPI_MESSAGE_NO_PROC, "MPI_MESSAGE_NO_PROC");
    ROUND(Session, MPI_Session, MPI_SESSION_NULL, "MPI_SESSION_NULL");

    /* user objects of every kind */
    MPI_Comm c1, c2;
    MPI_Comm_dup(MPI_COMM_WORLD, &c1);
    MPI_Comm_dup(MPI_COMM_SELF, &c2);
    ROUND(Comm, MPI_Comm, c1, "dup of MPI_COMM_WORLD");
    DISTINCT(Comm, MPI_Comm, c1, c2, "two dups");

    MPI_Datatype t1, t2;
    MPI_Type_contiguous(3, MPI_INTEGER, &t1);
    MPI_Type_vector(2, 1, 4, MPI_DOUBLE_PRECISION, &t2);
    ROUND(Type, MPI_Datatype, t1, "contiguous");
    DISTINCT(Type, MPI_Datatype, t1, t2, "contiguous/vector");

    MPI_Group g1;
    MPI_Comm_group(c1, &g1);
    ROUND(Group, MPI_Group, g1, "Comm_group");
    DISTINCT(Group, MPI_Group, g1, MPI_GROUP_EMPTY, "group/empty");

    int x = 0, y = 7;
    MPI_Request r1, r2;
    MPI_Irecv(&x, 1, MPI_INT, 0, 3, MPI_COMM_SELF, &r1);
    MPI_Isend(&y, 1, MPI_INT, 0, 3, MPI_COMM_SELF, &r2);
    ROUND(Request, MPI_Request, r1, "Irecv request");
    DISTINCT(Request, MPI_Request, r1, r2, "Irecv/Isend requests");
    MPI_Request rs[2] = {MPI_Request_f2c(MPI_Request_c2f(r1)), r2};
    MPI_Waitall(2, rs, MPI_STATUSES_IGNORE);
    CHECK(x == 7, "message through converted requests: expected 7, got %d", x);

    MPI_Op o1;
    MPI_Op_create(noop_op, 1, &o1);
    ROUND(Op, MPI_Op, o1, "Op_create");
    DISTINCT(Op, MPI_Op, o1, MPI_SUM, "user op/MPI_SUM");

    MPI_Errhandler e1;
    MPI_Comm_create_errhandler(noop_errh, &e1);
    ROUND(Errhandler, MPI_Errhandler, e1, "Comm_create_errhandler");
    DISTINCT(Errhandler, MPI_Errhandler, e1, MPI_ERRORS_RETURN, "user/ERRORS_RETURN");

    MPI_Info i1, i2;
    MPI_Info_create(&i1);
    MPI_Info_create(&i2);
    ROUND(Info, MPI_Info, i1, "Info_create");
    DISTINCT(Info, MPI_Info, i1, i2, "two infos");

    int wbuf[4];
    MPI_Win w1 = MPI_WIN_NULL;
    if (MPI_Win_create(wbuf, sizeof(wbuf), 4, MPI_INFO_NULL, MPI_COMM_SELF, &w1) == MPI_SUCCESS) {
        ROUND(Win, MPI_Win, w1, "Win_create");
        CHECK(MPI_Win_c2f(w1) != 0, "window index: expected non-zero, got 0");
    }

    int z = 5, flag = 0;
    MPI_Message m1 = MPI_MESSAGE_NULL;
    MPI_Send(&z, 1, MPI_INT, 0, 4, MPI_COMM_SELF);
    MPI_Improbe(0, 4, MPI_COMM_SELF, &flag, &m1, MPI_STATUS_IGNORE);
    CHECK(flag, "Improbe found no message");
    ROUND(Message, MPI_Message, m1, "Improbe message");
    DISTINCT(Message, MPI_Message, m1, MPI_MESSAGE_NO_PROC, "message/NO_PROC");
    MPI_Message m2 = MPI_Message_f2c(MPI_Message_c2f(m1));
    z = 0;
    MPI_Mrecv(&z, 1, MPI_INT, &m2, MPI_STATUS_IGNORE);
    CHECK(z == 5, "Mrecv through a converted message: expected 5, got %d", z);

    MPI_Session s1 = MPI_SESSION_NULL;
    static int fake_session;
    if (PMPI_Session_init != NULL) {
        PMPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s1);
    } else {
        printf("c2f_unit: MPI_Session_init not in libmpi yet: a stand-in address for sessions\n");
        s1 = (MPI_Session)&fake_session;
    }
    ROUND(Session, MPI_Session, s1, "session");
    DISTINCT(Session, MPI_Session, s1, MPI_SESSION_NULL, "session/null");

    /* statuses */
    MPI_Status cs = {.MPI_SOURCE = 3, .MPI_TAG = 44, .MPI_ERROR = MPI_ERR_TRUNCATE}, cs2;
    MPI_Fint fs[MPI_F_STATUS_SIZE], fs2[MPI_F_STATUS_SIZE];
    MPI_F08_status f08, f08b;
    memset(&cs2, 0xff, sizeof(cs2));
    CHECK(MPI_F_STATUS_SIZE * (int)sizeof(MPI_Fint) == (int)sizeof(MPI_Status),
          "MPI_F_STATUS_SIZE: expected %d, got %d", (int)(sizeof(MPI_Status) / sizeof(MPI_Fint)),
          MPI_F_STATUS_SIZE);
    CHECK(MPI_Status_set_elements(&cs, MPI_INT, 5) == MPI_SUCCESS, "Status_set_elements failed");
    CHECK(MPI_Status_c2f(&cs, fs) == MPI_SUCCESS, "Status_c2f failed");
    CHECK(fs[MPI_F_SOURCE] == 3 && fs[MPI_F_TAG] == 44 && fs[MPI_F_ERROR] == MPI_ERR_TRUNCATE,
          "Status_c2f fields: expected 3 44 %d, got %d %d %d", MPI_ERR_TRUNCATE, fs[MPI_F_SOURCE],
          fs[MPI_F_TAG], fs[MPI_F_ERROR]);
    CHECK(MPI_Status_f2c(fs, &cs2) == MPI_SUCCESS, "Status_f2c failed");
    CHECK(memcmp(&cs, &cs2, sizeof(cs)) == 0, "Status_f2c(c2f(s)) differs from s");
    int cnt = -1;
    MPI_Get_count(&cs2, MPI_INT, &cnt);
    CHECK(cnt == 5, "count after a round trip: expected 5, got %d", cnt);
    CHECK(MPI_Status_c2f08(&cs, &f08) == MPI_SUCCESS && f08.MPI_SOURCE == 3 && f08.MPI_TAG == 44,
          "Status_c2f08: expected 3 44, got %d %d", f08.MPI_SOURCE, f08.MPI_TAG);
    CHECK(MPI_Status_f082f(&f08, fs2) == MPI_SUCCESS && memcmp(fs, fs2, sizeof(fs)) == 0,
          "Status_f082f(c2f08(s)) differs from c2f(s)");
    CHECK(MPI_Status_f2f08(fs2, &f08b) == MPI_SUCCESS && memcmp(&f08, &f08b, sizeof(f08)) == 0,
          "Status_f2f08 differs");
    memset(&cs2, 0, sizeof(cs2));
    CHECK(MPI_Status_f082c(&f08b, &cs2) == MPI_SUCCESS && memcmp(&cs, &cs2, sizeof(cs)) == 0,
          "Status_f082c(f2f08(c2f(s))) differs from s");
    CHECK(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &cs2) == MPI_ERR_ARG,
          "Status_f2c(MPI_F_STATUS_IGNORE): expected MPI_ERR_ARG (%d)", MPI_ERR_ARG);
    CHECK(MPI_Status_c2f(MPI_STATUS_IGNORE, fs) == MPI_ERR_ARG,
          "Status_c2f(MPI_STATUS_IGNORE): expected MPI_ERR_ARG (%d)", MPI_ERR_ARG);
    CHECK(MPI_F_STATUSES_IGNORE != MPI_F_STATUS_IGNORE && MPI_F_STATUS_IGNORE != NULL,
          "MPI_F_STATUS(ES)_IGNORE: two distinct non-NULL addresses");
    CHECK((void *)MPI_F08_STATUS_IGNORE == (void *)MPI_F_STATUS_IGNORE,
          "MPI_F08_STATUS_IGNORE is the Fortran MPI_STATUS_IGNORE");

    if (w1 != MPI_WIN_NULL)
        MPI_Win_free(&w1);
    if (PMPI_Session_init != NULL && PMPI_Session_finalize != NULL)
        PMPI_Session_finalize(&s1);
    MPI_Info_free(&i1);
    MPI_Info_free(&i2);
    MPI_Errhandler_free(&e1);
    MPI_Op_free(&o1);
    MPI_Group_free(&g1);
    MPI_Type_free(&t1);
    MPI_Type_free(&t2);
    MPI_Comm_free(&c1);
    MPI_Comm_free(&c2);
    MPI_Finalize();
    if (!failed)
        printf("c2f_unit: ok\n");
    return failed;
}
