/* greq: generalized requests (MPI_Grequest_start/complete) in one process; every
 * callback appends to a log, which is compared with the order the standard prescribes.
 *
 * Checked:
 *  - Test before Grequest_complete: flag false, no callback; after it, Wait calls query_fn
 *    then free_fn, once each, and returns the status query_fn made (source, tag,
 *    Status_set_elements count, not cancelled); the handle becomes MPI_REQUEST_NULL.
 *  - Request_free before completion: no callback until Grequest_complete, which calls
 *    free_fn (query_fn never); Request_free after completion calls free_fn at once.
 *  - Cancel: cancel_fn with complete = 0 before and 1 after Grequest_complete; a query_fn
 *    that sets cancelled makes Test_cancelled true.
 *  - Request_get_status on a complete request calls query_fn only (no free); Wait then
 *    calls both.
 *  - A failing query_fn: Wait returns its code; Waitall returns MPI_ERR_IN_STATUS with the
 *    code in that request's MPI_ERROR and MPI_SUCCESS in the other's. A failing free_fn:
 *    Wait returns its code.
 *  - Waitany/Waitsome over generalized requests complete exactly the completed ones.
 *  - Errors: Grequest_complete of an ordinary request or twice (MPI_ERR_REQUEST),
 *    Grequest_start with a NULL callback (MPI_ERR_ARG).
 */
#include "../t_util.h"

typedef struct {
    int id;
    int query_rc, free_rc;
    int set_cancelled;
} state_t;

static char log_buf[512];

static void logf_(const char *what, int id, int arg)
{
    size_t n = strlen(log_buf);
    if (arg >= 0)
        snprintf(log_buf + n, sizeof log_buf - n, "%s%d(%d) ", what, id, arg);
    else
        snprintf(log_buf + n, sizeof log_buf - n, "%s%d ", what, id);
}

static void expect_log(const char *want, const char *what)
{
    if (strcmp(log_buf, want) != 0)
        t_fail("%s: callback log: expected \"%s\", got \"%s\"", what, want, log_buf);
    log_buf[0] = 0;
}

static int query_fn(void *extra, MPI_Status *st)
{
    state_t *s = extra;
    logf_("q", s->id, -1);
    MPI_Status_set_source(st, 10 + s->id);
    MPI_Status_set_tag(st, 20 + s->id);
    MPI_Status_set_elements(st, MPI_INT, 3 + s->id);
    MPI_Status_set_cancelled(st, s->set_cancelled);
    return s->query_rc;
}

static int free_fn(void *extra)
{
    state_t *s = extra;
    logf_("f", s->id, -1);
    return s->free_rc;
}

static int cancel_fn(void *extra, int complete)
{
    state_t *s = extra;
    logf_("c", s->id, complete);
    return MPI_SUCCESS;
}

static MPI_Request start(state_t *s)
{
    MPI_Request r;
    CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, s, &r));
    CHECK_TRUE(r != MPI_REQUEST_NULL, "Grequest_start gives a request");
    return r;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Status st;
    int flag;

    /* Plain life cycle. */
    state_t s1 = {1, MPI_SUCCESS, MPI_SUCCESS, 0};
    MPI_Request r = start(&s1);
    CHECK_MPI(MPI_Test(&r, &flag, &st));
    CHECK_INT(0, flag, "Test before Grequest_complete");
    expect_log("", "Test before completion");
    CHECK_MPI(MPI_Grequest_complete(r));
    expect_log("", "Grequest_complete");
    CHECK_MPI(MPI_Wait(&r, &st));
    expect_log("q1 f1 ", "Wait");
    CHECK_TRUE(r == MPI_REQUEST_NULL, "Wait frees the generalized request");
    CHECK_INT(11, st.MPI_SOURCE, "status source from query_fn");
    CHECK_INT(21, st.MPI_TAG, "status tag from query_fn");
    CHECK_INT(4, t_count(&st, MPI_INT), "status count from Status_set_elements");
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK_INT(0, flag, "not cancelled");

    /* Freed before completion: free_fn at Grequest_complete, no query. */
    state_t s2 = {2, MPI_SUCCESS, MPI_SUCCESS, 0};
    r = start(&s2);
    MPI_Request keep = r;
    CHECK_MPI(MPI_Request_free(&r));
    CHECK_TRUE(r == MPI_REQUEST_NULL, "Request_free nulls the handle");
    expect_log("", "Request_free before completion");
    CHECK_MPI(MPI_Grequest_complete(keep));
    expect_log("f2 ", "Grequest_complete of a freed request");

    /* Freed after completion: free_fn at once. */
    state_t s3 = {3, MPI_SUCCESS, MPI_SUCCESS, 0};
    r = start(&s3);
    CHECK_MPI(MPI_Grequest_complete(r));
    CHECK_MPI(MPI_Request_free(&r));
    expect_log("f3 ", "Request_free after completion");

    /* Cancel before and after completion. */
    state_t s4 = {4, MPI_SUCCESS, MPI_SUCCESS, 1};
    r = start(&s4);
    CHECK_MPI(MPI_Cancel(&r));
    expect_log("c4(0) ", "Cancel before completion");
    CHECK_MPI(MPI_Grequest_complete(r));
    CHECK_MPI(MPI_Cancel(&r));
    expect_log("c4(1) ", "Cancel after completion");
    CHECK_MPI(MPI_Wait(&r, &st));
    expect_log("q4 f4 ", "Wait of a cancelled request");
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK_INT(1, flag, "Test_cancelled after query_fn set it");

    /* Request_get_status: query only. */
    state_t s5 = {5, MPI_SUCCESS, MPI_SUCCESS, 0};
    r = start(&s5);
    CHECK_MPI(MPI_Request_get_status(r, &flag, &st));
    CHECK_INT(0, flag, "Request_get_status before completion");
    expect_log("", "Request_get_status before completion");
    CHECK_MPI(MPI_Grequest_complete(r));
    CHECK_MPI(MPI_Request_get_status(r, &flag, &st));
    CHECK_INT(1, flag, "Request_get_status after completion");
    CHECK_INT(25, st.MPI_TAG, "Request_get_status: tag");
    expect_log("q5 ", "Request_get_status after completion");
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    expect_log("q5 f5 ", "Wait after Request_get_status");

    /* Failing callbacks. */
    state_t s6 = {6, MPI_ERR_OTHER, MPI_SUCCESS, 0};
    r = start(&s6);
    CHECK_MPI(MPI_Grequest_complete(r));
    CHECK_INT(MPI_ERR_OTHER, MPI_Wait(&r, &st), "Wait with a failing query_fn");
    expect_log("q6 f6 ", "Wait with a failing query_fn");
    state_t s7 = {7, MPI_SUCCESS, MPI_ERR_OTHER, 0};
    r = start(&s7);
    CHECK_MPI(MPI_Grequest_complete(r));
    CHECK_INT(MPI_ERR_OTHER, MPI_Wait(&r, &st), "Wait with a failing free_fn");
    expect_log("q7 f7 ", "Wait with a failing free_fn");
    state_t s8 = {8, MPI_ERR_ARG, MPI_SUCCESS, 0}, s9 = {9, MPI_SUCCESS, MPI_SUCCESS, 0};
    MPI_Request two[2] = {start(&s8), start(&s9)};
    MPI_Status sts[2];
    CHECK_MPI(MPI_Grequest_complete(two[0]));
    CHECK_MPI(MPI_Grequest_complete(two[1]));
    CHECK_INT(MPI_ERR_IN_STATUS, MPI_Waitall(2, two, sts), "Waitall with a failing query_fn");
    CHECK_INT(MPI_ERR_ARG, sts[0].MPI_ERROR, "Waitall: MPI_ERROR of the failing request");
    CHECK_INT(MPI_SUCCESS, sts[1].MPI_ERROR, "Waitall: MPI_ERROR of the other request");
    CHECK_INT(29, sts[1].MPI_TAG, "Waitall: tag of the other request");
    expect_log("q8 f8 q9 f9 ", "Waitall");

    /* Waitany / Waitsome complete exactly the completed ones. */
    state_t sa = {10, 0, 0, 0}, sb = {11, 0, 0, 0}, sc = {12, 0, 0, 0};
    MPI_Request three[3] = {start(&sa), start(&sb), start(&sc)};
    int index = -1, outcount = -1, idx[3];
    CHECK_MPI(MPI_Grequest_complete(three[1]));
    CHECK_MPI(MPI_Waitany(3, three, &index, &st));
    CHECK_INT(1, index, "Waitany: index");
    CHECK_INT(31, st.MPI_TAG, "Waitany: tag");
    expect_log("q11 f11 ", "Waitany");
    CHECK_MPI(MPI_Grequest_complete(three[2]));
    CHECK_MPI(MPI_Waitsome(3, three, &outcount, idx, sts));
    CHECK_INT(1, outcount, "Waitsome: outcount");
    CHECK_INT(2, idx[0], "Waitsome: index");
    CHECK_TRUE(three[0] != MPI_REQUEST_NULL, "Waitsome leaves the incomplete request");
    expect_log("q12 f12 ", "Waitsome");
    CHECK_MPI(MPI_Grequest_complete(three[0]));
    CHECK_MPI(MPI_Wait(&three[0], MPI_STATUS_IGNORE));
    expect_log("q10 f10 ", "last Wait");

    /* Errors. */
    MPI_Request plain;
    int x = 0;
    CHECK_MPI(MPI_Isend(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &plain));
    CHECK_INT(MPI_ERR_REQUEST, MPI_Grequest_complete(plain), "Grequest_complete of an Isend");
    CHECK_MPI(MPI_Wait(&plain, MPI_STATUS_IGNORE));
    state_t sd = {13, 0, 0, 0};
    r = start(&sd);
    CHECK_MPI(MPI_Grequest_complete(r));
    CHECK_INT(MPI_ERR_REQUEST, MPI_Grequest_complete(r), "second Grequest_complete");
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    expect_log("q13 f13 ", "Wait after a second Grequest_complete");
    CHECK_INT(MPI_ERR_ARG, MPI_Grequest_start(NULL, free_fn, cancel_fn, &sd, &r),
              "Grequest_start with a NULL query_fn");
    MPI_Finalize();
    return 0;
}
