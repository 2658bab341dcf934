/* coll_op_create_c: user operations with an MPI_Count length (MPI_Op_create_c).
 *
 *  - The function gets len as an MPI_Count holding the element count and the datatype it
 *    was called with; a commutative "sum of squares"-style op and a non-commutative one
 *    (affine maps, rank order) give exact results in Allreduce, Reduce, Iallreduce, Scan,
 *    Reduce_scatter_block, Allreduce_init and Reduce_local, on MPI_INT and on a strided
 *    derived type (gaps untouched).
 *  - MPI_Op_commutative reports the flag given at creation; Op_free nulls the handle.
 *  - MPI_Op_create_c with a NULL function: MPI_ERR_ARG.
 */
#include "../t_util.h"

static int me, np;
static char w[200];
static MPI_Count last_len = -1;
static MPI_Datatype last_dt = MPI_DATATYPE_NULL;

static void add_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    MPI_Aint lb = 0, ext = sizeof(int);
    MPI_Type_get_extent(*dt, &lb, &ext);
    last_len = *len;
    last_dt = *dt;
    for (MPI_Count i = 0; i < *len; i++) {
        int *x = (int *)((char *)in + i * ext), *y = (int *)((char *)inout + i * ext);
        *y += *x;
    }
}

/* pairs (a, b): x o y = (x.a * y.a, x.a * y.b + x.b), non-commutative */
static void aff_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    (void)dt;
    unsigned *x = in, *y = inout;
    for (MPI_Count i = 0; i < *len; i++) {
        unsigned a = x[2 * i] * y[2 * i], b = x[2 * i] * y[2 * i + 1] + x[2 * i + 1];
        y[2 * i] = a;
        y[2 * i + 1] = b;
    }
}

static void aff_ref(int upto, int i, unsigned *ra, unsigned *rb)
{
    unsigned a = 1, b = 0; /* identity, then compose ranks 0..upto-1 left to right */
    for (int r = 0; r < upto; r++) {
        unsigned xa = (unsigned)(2 * r + 3 + i), xb = (unsigned)(r + i);
        /* (a, b) o (xa, xb) with (a, b) the left operand */
        unsigned na = a * xa, nb = a * xb + b;
        a = na;
        b = nb;
    }
    *ra = a;
    *rb = b;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    me = t_rank;
    np = t_size;
    MPI_Op add, aff;
    CHECK_MPI(MPI_Op_create_c(add_c, 1, &add));
    CHECK_MPI(MPI_Op_create_c(aff_c, 0, &aff));
    int commute = -1;
    CHECK_MPI(MPI_Op_commutative(add, &commute));
    CHECK_INT(1, commute, "Op_commutative of a commutative MPI_Op_create_c op");
    CHECK_MPI(MPI_Op_commutative(aff, &commute));
    CHECK_INT(0, commute, "Op_commutative of a non-commutative MPI_Op_create_c op");

    enum { N = 1000 };
    int *x = t_malloc(sizeof(int) * N * (size_t)np), *y = t_malloc(sizeof(int) * N * (size_t)np);
    for (int i = 0; i < N * np; i++)
        x[i] = me * 7 + i;
    for (int form = 0; form < 4; form++) {
        for (int i = 0; i < N; i++)
            y[i] = -1;
        MPI_Request r;
        if (form == 0)
            CHECK_MPI(MPI_Allreduce(x, y, N, MPI_INT, add, MPI_COMM_WORLD));
        else if (form == 1) {
            CHECK_MPI(MPI_Iallreduce(x, y, N, MPI_INT, add, MPI_COMM_WORLD, &r));
            CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        } else if (form == 2) {
            CHECK_MPI(MPI_Allreduce_init(x, y, N, MPI_INT, add, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
            CHECK_MPI(MPI_Start(&r));
            CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Request_free(&r));
        } else {
            CHECK_MPI(MPI_Reduce(x, y, N, MPI_INT, add, np - 1, MPI_COMM_WORLD));
        }
        for (int i = 0; i < N && (form < 3 || me == np - 1); i++) {
            long long s = 0;
            for (int q = 0; q < np; q++)
                s += q * 7 + i;
            CHECK_INT(s, y[i], t_fmt(w, sizeof w, "user op (MPI_Count len) form %d [%d]", form, i));
        }
    }
    /* Reduce_scatter_block and Scan */
    for (int i = 0; i < N; i++)
        y[i] = -1;
    CHECK_MPI(MPI_Reduce_scatter_block(x, y, N, MPI_INT, add, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++) {
        long long s = 0;
        for (int q = 0; q < np; q++)
            s += q * 7 + me * N + i;
        CHECK_INT(s, y[i], t_fmt(w, sizeof w, "Reduce_scatter_block user op [%d]", i));
    }
    CHECK_MPI(MPI_Scan(x, y, N, MPI_INT, add, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++) {
        long long s = 0;
        for (int q = 0; q <= me; q++)
            s += q * 7 + i;
        CHECK_INT(s, y[i], t_fmt(w, sizeof w, "Scan user op [%d]", i));
    }
    /* Reduce_local: len and datatype seen by the function */
    int a[5] = {1, 2, 3, 4, 5}, b[5] = {10, 20, 30, 40, 50};
    last_len = -1;
    CHECK_MPI(MPI_Reduce_local(a, b, 5, MPI_INT, add));
    CHECK_INT(5, last_len, "len passed to an MPI_User_function_c");
    CHECK_TRUE(last_dt == MPI_INT, "datatype passed to an MPI_User_function_c");
    for (int i = 0; i < 5; i++)
        CHECK_INT(11 * (i + 1), b[i], "Reduce_local with an MPI_Op_create_c op");
    /* strided derived type: every other int */
    MPI_Datatype strided;
    CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &strided));
    CHECK_MPI(MPI_Type_commit(&strided));
    int sx[2 * 64], sy[2 * 64];
    for (int i = 0; i < 64; i++) {
        sx[2 * i] = me + i;
        sx[2 * i + 1] = sy[2 * i + 1] = -9;
        sy[2 * i] = -1;
    }
    CHECK_MPI(MPI_Allreduce(sx, sy, 64, strided, add, MPI_COMM_WORLD));
    for (int i = 0; i < 64; i++) {
        CHECK_INT(np * (np - 1) / 2 + np * i, sy[2 * i], t_fmt(w, sizeof w, "strided user op [%d]", i));
        CHECK_INT(-9, sy[2 * i + 1], "gap of a strided type untouched");
    }
    CHECK_MPI(MPI_Type_free(&strided));
    /* non-commutative: rank order kept */
    MPI_Datatype pair;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_UNSIGNED, &pair));
    CHECK_MPI(MPI_Type_commit(&pair));
    unsigned in[2 * 16], out[2 * 16];
    for (int i = 0; i < 16; i++) {
        in[2 * i] = (unsigned)(2 * me + 3 + i);
        in[2 * i + 1] = (unsigned)(me + i);
    }
    CHECK_MPI(MPI_Allreduce(in, out, 16, pair, aff, MPI_COMM_WORLD));
    for (int i = 0; i < 16; i++) {
        unsigned ra, rb;
        aff_ref(np, i, &ra, &rb);
        CHECK_INT(ra, out[2 * i], t_fmt(w, sizeof w, "non-commutative MPI_Op_create_c op a[%d]", i));
        CHECK_INT(rb, out[2 * i + 1], t_fmt(w, sizeof w, "non-commutative MPI_Op_create_c op b[%d]", i));
    }
    CHECK_MPI(MPI_Scan(in, out, 16, pair, aff, MPI_COMM_WORLD));
    for (int i = 0; i < 16; i++) {
        unsigned ra, rb;
        aff_ref(me + 1, i, &ra, &rb);
        CHECK_INT(rb, out[2 * i + 1], t_fmt(w, sizeof w, "Scan non-commutative b[%d]", i));
    }
    CHECK_MPI(MPI_Type_free(&pair));
    CHECK_MPI(MPI_Op_free(&add));
    CHECK_MPI(MPI_Op_free(&aff));
    CHECK_TRUE(add == MPI_OP_NULL, "Op_free nulls the handle");
    /* errors */
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Op bad;
    int cls = 0;
    MPI_Error_class(MPI_Op_create_c(NULL, 1, &bad), &cls);
    CHECK_INT(MPI_ERR_ARG, cls, "MPI_Op_create_c with a NULL function");
    free(x);
    free(y);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
