/* getstatus: MPI_Request_get_status_any/all/some (MPI 4.1), which report completion
 * without freeing anything. Generalized requests make completion exact; messages to self
 * on COMM_SELF and a persistent request cover the other kinds.
 *
 * Checked:
 *  - Nothing complete: _any flag false / index MPI_UNDEFINED, _all flag false, _some
 *    outcount 0; no query_fn called.
 *  - One complete: _any gives its index and the status query_fn made, _some outcount 1
 *    with that index, _all still false; nothing freed (free_fn not called, handles
 *    unchanged), so asking twice gives the same answer.
 *  - All complete: _all true with every status, in order; Waitall then frees them all.
 *  - All null (and inactive persistent): _any flag true / MPI_UNDEFINED / empty status,
 *    _some MPI_UNDEFINED, _all true with empty statuses.
 *  - Isend/Irecv to self: _all until true, statuses of the receive; the requests then
 *    complete normally with Waitall and the data is there.
 *  - Errors: a negative count (MPI_ERR_ARG), a freed handle (MPI_ERR_REQUEST).
 */
#include "../t_util.h"

static int nquery, nfree;

static int query_fn(void *extra, MPI_Status *st)
{
    nquery++;
    MPI_Status_set_source(st, 0);
    MPI_Status_set_tag(st, 100 + *(int *)extra);
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
    return MPI_SUCCESS;
}

static int free_fn(void *extra)
{
    nfree++;
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    return MPI_SUCCESS;
}

static void check_empty(const MPI_Status *st, const char *what)
{
    char w[160];
    CHECK_INT(MPI_ANY_SOURCE, st->MPI_SOURCE, t_fmt(w, sizeof w, "%s: MPI_SOURCE", what));
    CHECK_INT(MPI_ANY_TAG, st->MPI_TAG, t_fmt(w, sizeof w, "%s: MPI_TAG", what));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int ids[3] = {0, 1, 2}, flag, index, outcount, idx[3];
    MPI_Request r[3];
    MPI_Status st, sts[3];
    for (int i = 0; i < 3; i++)
        CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &ids[i], &r[i]));
    MPI_Request orig[3] = {r[0], r[1], r[2]};

    CHECK_MPI(MPI_Request_get_status_any(3, r, &index, &flag, &st));
    CHECK_INT(0, flag, "_any, nothing complete: flag");
    CHECK_INT(MPI_UNDEFINED, index, "_any, nothing complete: index");
    CHECK_MPI(MPI_Request_get_status_all(3, r, &flag, sts));
    CHECK_INT(0, flag, "_all, nothing complete: flag");
    CHECK_MPI(MPI_Request_get_status_some(3, r, &outcount, idx, sts));
    CHECK_INT(0, outcount, "_some, nothing complete: outcount");
    CHECK_INT(0, nquery, "query_fn calls while nothing is complete");

    CHECK_MPI(MPI_Grequest_complete(r[1]));
    for (int twice = 0; twice < 2; twice++) {
        CHECK_MPI(MPI_Request_get_status_any(3, r, &index, &flag, &st));
        CHECK_INT(1, flag, "_any, one complete: flag");
        CHECK_INT(1, index, "_any, one complete: index");
        CHECK_INT(101, st.MPI_TAG, "_any, one complete: tag");
        CHECK_MPI(MPI_Request_get_status_some(3, r, &outcount, idx, sts));
        CHECK_INT(1, outcount, "_some, one complete: outcount");
        CHECK_INT(1, idx[0], "_some, one complete: index");
        CHECK_INT(101, sts[0].MPI_TAG, "_some, one complete: tag");
        CHECK_MPI(MPI_Request_get_status_all(3, r, &flag, sts));
        CHECK_INT(0, flag, "_all, one complete: flag");
    }
    CHECK_INT(0, nfree, "free_fn calls after the _get_status calls");
    for (int i = 0; i < 3; i++)
        CHECK_TRUE(r[i] == orig[i], "handles unchanged by the _get_status calls");

    CHECK_MPI(MPI_Grequest_complete(r[0]));
    CHECK_MPI(MPI_Grequest_complete(r[2]));
    CHECK_MPI(MPI_Request_get_status_all(3, r, &flag, sts));
    CHECK_INT(1, flag, "_all, all complete: flag");
    for (int i = 0; i < 3; i++)
        CHECK_INT(100 + i, sts[i].MPI_TAG, "_all, all complete: tag");
    CHECK_INT(0, nfree, "free_fn calls before Waitall");
    CHECK_MPI(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
    CHECK_INT(3, nfree, "free_fn calls after Waitall");

    /* Null and inactive entries. */
    int x = 0;
    MPI_Request pers;
    CHECK_MPI(MPI_Recv_init(&x, 1, MPI_INT, 0, 0, MPI_COMM_SELF, &pers));
    MPI_Request nulls[3] = {MPI_REQUEST_NULL, pers, MPI_REQUEST_NULL};
    st.MPI_TAG = 55;
    CHECK_MPI(MPI_Request_get_status_any(3, nulls, &index, &flag, &st));
    CHECK_INT(1, flag, "_any, null/inactive: flag");
    CHECK_INT(MPI_UNDEFINED, index, "_any, null/inactive: index");
    check_empty(&st, "_any, null/inactive");
    CHECK_MPI(MPI_Request_get_status_some(3, nulls, &outcount, idx, sts));
    CHECK_INT(MPI_UNDEFINED, outcount, "_some, null/inactive: outcount");
    CHECK_MPI(MPI_Request_get_status_all(3, nulls, &flag, sts));
    CHECK_INT(1, flag, "_all, null/inactive: flag");
    for (int i = 0; i < 3; i++)
        check_empty(&sts[i], "_all, null/inactive");
    MPI_Request_free(&pers);

    /* Messages to self. */
    int out[100], in[100];
    for (int i = 0; i < 100; i++)
        out[i] = i * i, in[i] = -1;
    MPI_Request m[2];
    CHECK_MPI(MPI_Irecv(in, 100, MPI_INT, 0, 5, MPI_COMM_SELF, &m[0]));
    CHECK_MPI(MPI_Isend(out, 100, MPI_INT, 0, 5, MPI_COMM_SELF, &m[1]));
    do {
        CHECK_MPI(MPI_Request_get_status_all(2, m, &flag, sts));
    } while (!flag);
    CHECK_INT(5, sts[0].MPI_TAG, "self message: tag");
    CHECK_INT(0, sts[0].MPI_SOURCE, "self message: source");
    CHECK_INT(100, t_count(&sts[0], MPI_INT), "self message: count");
    CHECK_TRUE(m[0] != MPI_REQUEST_NULL && m[1] != MPI_REQUEST_NULL,
               "requests kept by _get_status_all");
    CHECK_MPI(MPI_Waitall(2, m, sts));
    CHECK_INT(5, sts[0].MPI_TAG, "self message after Waitall: tag");
    for (int i = 0; i < 100; i++)
        CHECK_INT(i * i, in[i], "self message: payload");

    /* Errors. */
    CHECK_INT(MPI_ERR_ARG, MPI_Request_get_status_all(-1, m, &flag, sts), "count -1");
    MPI_Request stale;
    CHECK_MPI(MPI_Isend(out, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &stale));
    MPI_Request copy = stale;
    CHECK_MPI(MPI_Wait(&stale, MPI_STATUS_IGNORE));
    /* copy now names a freed request; the library must not take it for a live one */
    CHECK_INT(MPI_ERR_REQUEST, MPI_Request_get_status_any(1, &copy, &index, &flag, &st),
              "a freed request");
    MPI_Finalize();
    return 0;
}
