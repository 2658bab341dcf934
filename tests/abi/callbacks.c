/* User functions IVC calls back, through the MPICH ABI's trampolines: a user reduction
 * operation (it must see MPICH's datatype handle), attribute copy and delete functions with
 * their extra_state (and MPICH's MPI_COMM_DUP_FN), an error handler that receives the
 * communicator's MPICH handle and MPICH's error classes, error classes and codes added by
 * the program, predefined attributes, and a generalized request whose query function fills
 * an MPICH status. */
#include <string.h>

#include "abi_test.h"

static MPI_Datatype pair_type;
static int op_calls, op_saw_pair;

typedef struct {
    int a, b;
} pair_t;

/* Elementwise: a = max, b = sum. */
static void pair_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    op_calls++;
    if (*dt == pair_type)
        op_saw_pair++;
    pair_t *x = in, *y = inout;
    for (int i = 0; i < *len; i++) {
        y[i].a = x[i].a > y[i].a ? x[i].a : y[i].a;
        y[i].b += x[i].b;
    }
}

static int copies, deletes;
static MPI_Comm copy_saw, delete_saw;
static int extra_word = 12345;

static int copy_fn(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag)
{
    copies++;
    copy_saw = old;
    CHECK(extra == &extra_word, "extra_state %p", extra);
    *(long *)out = (long)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int keyval, void *val, void *extra)
{
    deletes++;
    delete_saw = comm;
    CHECK(extra == &extra_word, "extra_state %p", extra);
    return MPI_SUCCESS;
}

static int eh_calls, eh_class;
static MPI_Comm eh_comm;

static void handler(MPI_Comm *comm, int *code, ...)
{
    eh_calls++;
    eh_comm = *comm;
    MPI_Error_class(*code, &eh_class);
}

static int gr_freed;
static int gr_query(void *extra, MPI_Status *st)
{
    MPI_Status_set_elements(st, MPI_INT, *(int *)extra);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = 77;
    return MPI_SUCCESS;
}
static int gr_free(void *extra)
{
    gr_freed++;
    return MPI_SUCCESS;
}
static int gr_cancel(void *extra, int complete)
{
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    abi_test_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* ---- user op on a derived datatype ---- */
    OK(MPI_Type_contiguous(2, MPI_INT, &pair_type));
    OK(MPI_Type_commit(&pair_type));
    MPI_Op op;
    OK(MPI_Op_create(pair_op, 1, &op));
    int commute = 0;
    OK(MPI_Op_commutative(op, &commute));
    CHECK_INT(commute, 1);
    pair_t mine[3], res[3];
    for (int i = 0; i < 3; i++)
        mine[i] = (pair_t){rank * 10 + i, rank + i};
    OK(MPI_Allreduce(mine, res, 3, pair_type, op, MPI_COMM_WORLD));
    for (int i = 0; i < 3; i++) {
        CHECK_INT(res[i].a, (size - 1) * 10 + i);
        CHECK_INT(res[i].b, size * (size - 1) / 2 + size * i);
    }
    int total = 0;
    OK(MPI_Allreduce(&op_calls, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(total >= 1, "the user op ran %d times", total);
    CHECK_INT(op_saw_pair, op_calls);
    OK(MPI_Op_free(&op));
    CHECK_INT(op, MPI_OP_NULL);
    /* Ops created and freed many times reuse trampolines. */
    for (int i = 0; i < 300; i++) {
        OK(MPI_Op_create(pair_op, i % 2, &op));
        OK(MPI_Op_free(&op));
    }

    /* ---- attributes ---- */
    int key = MPI_KEYVAL_INVALID;
    OK(MPI_Comm_create_keyval(copy_fn, delete_fn, &key, &extra_word));
    CHECK(key != MPI_KEYVAL_INVALID, "keyval");
    MPI_Comm dup;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    OK(MPI_Comm_set_attr(dup, key, (void *)41L));
    MPI_Comm dup2;
    OK(MPI_Comm_dup(dup, &dup2));
    CHECK_INT(copies, 1);
    CHECK_INT(copy_saw, dup);
    void *val = NULL;
    int flag = 0;
    OK(MPI_Comm_get_attr(dup2, key, &val, &flag));
    CHECK_INT(flag, 1);
    CHECK_INT((long)val, 42);
    OK(MPI_Comm_free(&dup2));
    CHECK_INT(dup2, MPI_COMM_NULL);
    CHECK_INT(deletes, 1);
    OK(MPI_Comm_delete_attr(dup, key));
    CHECK_INT(deletes, 2);
    CHECK_INT(delete_saw, dup);
    OK(MPI_Comm_free_keyval(&key));
    CHECK_INT(key, MPI_KEYVAL_INVALID);
    /* MPICH's MPI_COMM_DUP_FN (MPIR_Dup_fn in the library) and MPI_COMM_NULL_DELETE_FN. */
    int key2;
    OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &key2, NULL));
    OK(MPI_Comm_set_attr(dup, key2, &extra_word));
    OK(MPI_Comm_dup(dup, &dup2));
    OK(MPI_Comm_get_attr(dup2, key2, &val, &flag));
    CHECK(flag && val == &extra_word, "MPI_COMM_DUP_FN copied %p", val);
    OK(MPI_Comm_free(&dup2));
    OK(MPI_Comm_free_keyval(&key2));
    /* Predefined attributes (MPICH's keyval values). */
    int *tag_ub = NULL;
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
    CHECK(flag && *tag_ub >= 32767, "MPI_TAG_UB");
    int *wtg = NULL;
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &wtg, &flag));
    CHECK(!flag || *wtg == 0 || *wtg == 1, "MPI_WTIME_IS_GLOBAL");

    /* ---- error handlers and classes ---- */
    MPI_Errhandler eh, got_eh;
    OK(MPI_Comm_create_errhandler(handler, &eh));
    OK(MPI_Comm_set_errhandler(dup, eh));
    OK(MPI_Comm_get_errhandler(dup, &got_eh));
    CHECK_INT(got_eh, eh);
    OK(MPI_Errhandler_free(&got_eh));
    int x = 0;
    int rc = MPI_Send(&x, 1, MPI_INT, size + 5, 0, dup); /* invalid rank */
    CHECK_INT(eh_calls, 1);
    CHECK_INT(eh_comm, dup);
    CHECK_INT(eh_class, MPI_ERR_RANK);
    int cls = -1;
    OK(MPI_Error_class(rc, &cls));
    CHECK_INT(cls, MPI_ERR_RANK);
    OK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    OK(MPI_Comm_get_errhandler(dup, &got_eh));
    CHECK_INT(got_eh, MPI_ERRORS_RETURN);
    rc = MPI_Send(&x, 1, MPI_DATATYPE_NULL, 0, 0, dup);
    OK(MPI_Error_class(rc, &cls));
    CHECK_INT(cls, MPI_ERR_TYPE);
    rc = MPI_Send(&x, -1, MPI_INT, 0, 0, dup);
    OK(MPI_Error_class(rc, &cls));
    CHECK_INT(cls, MPI_ERR_COUNT);
    char msg[MPI_MAX_ERROR_STRING];
    int mlen = 0;
    OK(MPI_Error_string(MPI_ERR_TRUNCATE, msg, &mlen));
    CHECK(mlen > 0, "MPI_Error_string");
    /* A truncated receive: MPI_ERR_TRUNCATE is MPICH's 14, the standard ABI's 15. */
    if (rank == 0)
        OK(MPI_Send((int[2]){1, 2}, 2, MPI_INT, 1, 8, dup));
    else if (rank == 1) {
        int one;
        rc = MPI_Recv(&one, 1, MPI_INT, 0, 8, dup, MPI_STATUS_IGNORE);
        OK(MPI_Error_class(rc, &cls));
        CHECK_INT(cls, ABI_TEST_ERR_TRUNCATE);
    }
    /* Classes and codes the program adds, raised through a user handler. */
    int myclass, mycode;
    OK(MPI_Add_error_class(&myclass));
    OK(MPI_Add_error_code(myclass, &mycode));
    OK(MPI_Add_error_string(mycode, "abi test code"));
    OK(MPI_Comm_set_errhandler(dup, eh));
    eh_calls = 0;
    OK(MPI_Comm_call_errhandler(dup, mycode));
    CHECK_INT(eh_calls, 1);
    CHECK_INT(eh_class, myclass);
    OK(MPI_Error_string(mycode, msg, &mlen));
    CHECK(!strcmp(msg, "abi test code"), "string %s", msg);
    int *last = NULL;
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag && *last >= mycode, "MPI_LASTUSEDCODE %d < %d", last ? *last : -1, mycode);
    OK(MPI_Errhandler_free(&eh));
    CHECK_INT(eh, MPI_ERRHANDLER_NULL);

    /* ---- generalized request ---- */
    MPI_Request greq;
    int elems = 7;
    OK(MPI_Grequest_start(gr_query, gr_free, gr_cancel, &elems, &greq));
    OK(MPI_Grequest_complete(greq));
    MPI_Status st;
    OK(MPI_Wait(&greq, &st));
    CHECK_INT(greq, MPI_REQUEST_NULL);
    CHECK_INT(gr_freed, 1);
    int count = 0;
    OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK_INT(count, 7);
    CHECK_INT(st.MPI_TAG, 77);

    OK(MPI_Comm_free(&dup));
    OK(MPI_Type_free(&pair_type));
    abi_test_done("callbacks");
    return 0;
}
