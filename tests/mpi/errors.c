/* errors: error handlers, classes and strings.
 *
 *  - Comm_get_errhandler: MPI_ERRORS_ARE_FATAL on WORLD at start; a dup inherits its
 *    parent's handler; after Comm_set_errhandler it returns what was set; setting it on a
 *    dup leaves WORLD alone; Comm_split and Comm_dup inherit MPI_ERRORS_RETURN.
 *  - With MPI_ERRORS_RETURN, erroneous calls return (and send nothing) with class:
 *      MPI_ERR_RANK   dest/source = size or a negative non-special value (Send, Recv,
 *                     Isend, Irecv, Sendrecv)
 *      MPI_ERR_TAG    negative tag other than MPI_ANY_TAG (Send, Recv, Isend)
 *      MPI_ERR_COUNT  count -1 (Send, Recv, Irecv)
 *      MPI_ERR_TYPE   MPI_DATATYPE_NULL with count 1 (Send, Recv)
 *      MPI_ERR_COMM   MPI_COMM_NULL (Send, Recv, Comm_rank, Comm_size)
 *  - Error_class maps every returned code to its class and every class to itself;
 *    classes lie in (MPI_SUCCESS, MPI_ERR_LASTCODE] and are distinct; Error_string
 *    returns non-empty text of length resultlen < MPI_MAX_ERROR_STRING for each class and
 *    each returned code.
 *  - Communication still works afterwards, and an empty message may name MPI_DATATYPE_NULL.
 */
#include "t_util.h"

static const struct {
    int cls;
    const char *name;
} classes[] = {
    {MPI_ERR_BUFFER, "MPI_ERR_BUFFER"},
    {MPI_ERR_COUNT, "MPI_ERR_COUNT"},
    {MPI_ERR_TYPE, "MPI_ERR_TYPE"},
    {MPI_ERR_TAG, "MPI_ERR_TAG"},
    {MPI_ERR_COMM, "MPI_ERR_COMM"},
    {MPI_ERR_RANK, "MPI_ERR_RANK"},
    {MPI_ERR_REQUEST, "MPI_ERR_REQUEST"},
    {MPI_ERR_ROOT, "MPI_ERR_ROOT"},
    {MPI_ERR_OP, "MPI_ERR_OP"},
    {MPI_ERR_ARG, "MPI_ERR_ARG"},
    {MPI_ERR_UNKNOWN, "MPI_ERR_UNKNOWN"},
    {MPI_ERR_TRUNCATE, "MPI_ERR_TRUNCATE"},
    {MPI_ERR_OTHER, "MPI_ERR_OTHER"},
    {MPI_ERR_INTERN, "MPI_ERR_INTERN"},
    {MPI_ERR_IN_STATUS, "MPI_ERR_IN_STATUS"},
    {MPI_ERR_PENDING, "MPI_ERR_PENDING"},
};
#define NCLASSES ((int)(sizeof classes / sizeof classes[0]))

static void check_string(int code, const char *what)
{
    char s[MPI_MAX_ERROR_STRING + 64];
    int len = -1;
    char w[200];
    memset(s, 0x7f, sizeof s);
    CHECK_MPI(MPI_Error_string(code, s, &len));
    if (len <= 0 || len >= MPI_MAX_ERROR_STRING)
        t_fail("Error_string(%s): resultlen: expected 1..%d, got %d", what,
               MPI_MAX_ERROR_STRING - 1, len);
    CHECK_INT(len, strnlen(s, sizeof s),
              t_fmt(w, sizeof w, "Error_string(%s): strlen vs resultlen", what));
}

/* rc must be an error of class want. */
static void expect_error(int rc, int want, const char *wantname, const char *what)
{
    int cls = -1;
    char w[200];
    if (rc == MPI_SUCCESS)
        t_fail("%s: expected an error of class %s, got MPI_SUCCESS", what, wantname);
    CHECK_MPI(MPI_Error_class(rc, &cls));
    CHECK_INT(want, cls, t_fmt(w, sizeof w, "%s: error class (want %s)", what, wantname));
    check_string(rc, what);
}

#define EXPECT(call, cls) expect_error((call), cls, #cls, #call)

int main(int argc, char **argv)
{
    MPI_Errhandler eh;
    MPI_Comm d1, d2, sp;
    MPI_Request req;
    MPI_Status st;
    int buf[16] = {0}, i, j, bad_neg, bad_tag, cls, rc, v, got;
    char w[200];

    MPI_Init(&argc, &argv);
    t_init();

    /* ---- handlers ------------------------------------------------------------------- */
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    CHECK_TRUE(eh == MPI_ERRORS_ARE_FATAL,
               "Comm_get_errhandler(WORLD) at start is MPI_ERRORS_ARE_FATAL");
    MPI_Comm_dup(MPI_COMM_WORLD, &d1);
    MPI_Comm_get_errhandler(d1, &eh);
    CHECK_TRUE(eh == MPI_ERRORS_ARE_FATAL, "dup of WORLD inherits MPI_ERRORS_ARE_FATAL");
    MPI_Comm_set_errhandler(d1, MPI_ERRORS_RETURN);
    MPI_Comm_get_errhandler(d1, &eh);
    CHECK_TRUE(eh == MPI_ERRORS_RETURN,
               "Comm_get_errhandler returns the MPI_ERRORS_RETURN just set");
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    CHECK_TRUE(eh == MPI_ERRORS_ARE_FATAL, "setting a dup's handler leaves WORLD's alone");
    /* An error on d1 returns although WORLD is still fatal. */
    EXPECT(MPI_Send(buf, 1, MPI_INT, t_size, 0, d1), MPI_ERR_RANK);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* Errors that belong to no communicator (e.g. a null one) may be raised on WORLD or,
     * since MPI 4.0, on SELF. */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    CHECK_TRUE(eh == MPI_ERRORS_RETURN,
               "Comm_get_errhandler(WORLD) after setting MPI_ERRORS_RETURN");
    MPI_Comm_dup(MPI_COMM_WORLD, &d2);
    MPI_Comm_get_errhandler(d2, &eh);
    CHECK_TRUE(eh == MPI_ERRORS_RETURN, "dup inherits MPI_ERRORS_RETURN");
    MPI_Comm_split(MPI_COMM_WORLD, 0, t_rank, &sp);
    MPI_Comm_get_errhandler(sp, &eh);
    CHECK_TRUE(eh == MPI_ERRORS_RETURN, "split inherits MPI_ERRORS_RETURN");

    /* ---- erroneous calls ------------------------------------------------------------ */
    bad_neg = -1000;
    while (bad_neg == MPI_PROC_NULL || bad_neg == MPI_ANY_SOURCE)
        bad_neg--;
    bad_tag = -2;
    while (bad_tag == MPI_ANY_TAG)
        bad_tag--;

    EXPECT(MPI_Send(buf, 1, MPI_INT, t_size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EXPECT(MPI_Send(buf, 1, MPI_INT, bad_neg, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EXPECT(MPI_Recv(buf, 1, MPI_INT, t_size, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
    EXPECT(MPI_Recv(buf, 1, MPI_INT, bad_neg, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
    EXPECT(MPI_Isend(buf, 1, MPI_INT, t_size + 5, 0, MPI_COMM_WORLD, &req), MPI_ERR_RANK);
    EXPECT(MPI_Irecv(buf, 1, MPI_INT, t_size + 5, 0, MPI_COMM_WORLD, &req), MPI_ERR_RANK);
    EXPECT(MPI_Sendrecv(buf, 1, MPI_INT, t_size, 0, buf + 1, 1, MPI_INT, t_rank, 0, MPI_COMM_WORLD,
                        &st),
           MPI_ERR_RANK);
    EXPECT(MPI_Recv(buf, 1, MPI_INT, t_size, 0, sp, &st), MPI_ERR_RANK);

    EXPECT(MPI_Send(buf, 1, MPI_INT, t_rank, bad_tag, MPI_COMM_WORLD), MPI_ERR_TAG);
    EXPECT(MPI_Recv(buf, 1, MPI_INT, t_rank, bad_tag, MPI_COMM_WORLD, &st), MPI_ERR_TAG);
    EXPECT(MPI_Isend(buf, 1, MPI_INT, t_rank, bad_tag, MPI_COMM_WORLD, &req), MPI_ERR_TAG);

    EXPECT(MPI_Send(buf, -1, MPI_INT, t_rank, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT(MPI_Recv(buf, -1, MPI_INT, t_rank, 0, MPI_COMM_WORLD, &st), MPI_ERR_COUNT);
    EXPECT(MPI_Irecv(buf, -1, MPI_INT, t_rank, 0, MPI_COMM_WORLD, &req), MPI_ERR_COUNT);

    EXPECT(MPI_Send(buf, 1, MPI_DATATYPE_NULL, t_rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT(MPI_Recv(buf, 1, MPI_DATATYPE_NULL, t_rank, 0, MPI_COMM_WORLD, &st), MPI_ERR_TYPE);

    EXPECT(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT(MPI_Recv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &st), MPI_ERR_COMM);
    EXPECT(MPI_Comm_rank(MPI_COMM_NULL, &v), MPI_ERR_COMM);
    EXPECT(MPI_Comm_size(MPI_COMM_NULL, &v), MPI_ERR_COMM);

    /* Nothing of the erroneous sends (most of them to self) was delivered. */
    MPI_Barrier(MPI_COMM_WORLD);
    {
        int flag = 1;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        CHECK_INT(0, flag, "Iprobe after erroneous sends: a message was delivered");
    }
    MPI_Barrier(MPI_COMM_WORLD); /* nobody sends the ring message below before all probed */

    /* ---- classes and strings -------------------------------------------------------- */
    CHECK_INT(0, MPI_SUCCESS, "MPI_SUCCESS");
    MPI_Error_class(MPI_SUCCESS, &cls);
    CHECK_INT(MPI_SUCCESS, cls, "Error_class(MPI_SUCCESS)");
    check_string(MPI_SUCCESS, "MPI_SUCCESS");
    for (i = 0; i < NCLASSES; i++) {
        if (classes[i].cls <= MPI_SUCCESS || classes[i].cls > MPI_ERR_LASTCODE)
            t_fail("%s: expected a value in (MPI_SUCCESS, MPI_ERR_LASTCODE=%d], got %d",
                   classes[i].name, MPI_ERR_LASTCODE, classes[i].cls);
        for (j = 0; j < i; j++)
            if (classes[i].cls == classes[j].cls)
                t_fail("%s: expected a value distinct from %s, got the same (%d)", classes[i].name,
                       classes[j].name, classes[i].cls);
        cls = -1;
        rc = MPI_Error_class(classes[i].cls, &cls);
        CHECK_INT(MPI_SUCCESS, rc,
                  t_fmt(w, sizeof w, "Error_class(%s) return code", classes[i].name));
        CHECK_INT(classes[i].cls, cls, t_fmt(w, sizeof w, "Error_class(%s)", classes[i].name));
        check_string(classes[i].cls, classes[i].name);
    }

    /* ---- still working --------------------------------------------------------------- */
    v = 500 + t_rank;
    CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, (t_rank + 1) % t_size, 1, &got, 1, MPI_INT,
                           (t_rank + t_size - 1) % t_size, 1, MPI_COMM_WORLD, &st));
    CHECK_INT(500 + (t_rank + t_size - 1) % t_size, got, "ring exchange after the errors");
    CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, (t_rank + 1) % t_size, 1, &got, 1, MPI_INT,
                           (t_rank + t_size - 1) % t_size, 1, d1, &st));
    CHECK_INT(500 + (t_rank + t_size - 1) % t_size, got,
              "ring exchange on the dup after the errors");
    /* An empty message may name MPI_DATATYPE_NULL (count 0: nothing is typed); it is
     * delivered, with a count of 0. */
    {
        int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size, n = -1;
        MPI_Request rq;
        CHECK_MPI(MPI_Irecv(NULL, 0, MPI_DATATYPE_NULL, left, 7, MPI_COMM_WORLD, &rq));
        CHECK_MPI(MPI_Send(NULL, 0, MPI_DATATYPE_NULL, right, 7, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Wait(&rq, &st));
        CHECK_INT(left, st.MPI_SOURCE, "empty MPI_DATATYPE_NULL message: source");
        MPI_Get_count(&st, MPI_BYTE, &n);
        CHECK_INT(0, n, "empty MPI_DATATYPE_NULL message: count");
        CHECK_MPI(MPI_Sendrecv(NULL, 0, MPI_DATATYPE_NULL, right, 8, NULL, 0, MPI_DATATYPE_NULL,
                               left, 8, MPI_COMM_WORLD, &st));
        CHECK_INT(left, st.MPI_SOURCE, "empty MPI_DATATYPE_NULL Sendrecv: source");
    }

    MPI_Comm_free(&d1);
    MPI_Comm_free(&d2);
    MPI_Comm_free(&sp);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
