/* args_op: NULL arguments to the reduction-operation calls under MPI_ERRORS_RETURN (2 ranks,
 * each on its own: none of these calls communicates).
 *
 * Checked, each against MPICH's class:
 *  - Reduce_local with a NULL input or input-output buffer and data: MPI_ERR_BUFFER;
 *  - Op_create with a NULL function or op, Op_commutative with a NULL result, Op_free(NULL):
 *    MPI_ERR_ARG;
 *  - legal: count 0 with NULL buffers; then Reduce_local computes (predefined and user
 *    operations), Op_commutative answers and a user operation is freed. */
#include "a_util.h"

static void add_twice(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] += 2 * a[i];
}

int main(int argc, char **argv)
{
    a_init(&argc, &argv);
    int in[3] = {1, 2, 3}, io[3] = {10, 20, 30}, flag = -1;
    MPI_Op op = MPI_OP_NULL;

    A_EXPECT(MPI_ERR_BUFFER, MPI_Reduce_local(NULL, io, 3, MPI_INT, MPI_SUM));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Reduce_local(in, NULL, 3, MPI_INT, MPI_SUM));
    A_EXPECT(MPI_ERR_ARG, MPI_Op_create(NULL, 1, &op));
    A_EXPECT(MPI_ERR_ARG, MPI_Op_create(add_twice, 1, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Op_commutative(MPI_SUM, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Op_free(NULL));
    CHECK_TRUE(op == MPI_OP_NULL, "no op handed out by a refused Op_create");
    CHECK_TRUE(io[0] == 10 && io[1] == 20 && io[2] == 30, "buffer untouched by refused calls");

    /* ---- legal ---- */
    A_OK(MPI_Reduce_local(NULL, NULL, 0, MPI_INT, MPI_SUM));
    A_OK(MPI_Reduce_local(in, io, 3, MPI_INT, MPI_SUM));
    CHECK_TRUE(io[0] == 11 && io[1] == 22 && io[2] == 33, "Reduce_local with MPI_SUM");
    A_OK(MPI_Op_commutative(MPI_SUM, &flag));
    CHECK_INT(1, flag, "MPI_SUM commutes");
    A_OK(MPI_Op_create(add_twice, 0, &op));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Reduce_local(in, NULL, 3, MPI_INT, op));
    A_OK(MPI_Reduce_local(in, io, 3, MPI_INT, op));
    CHECK_TRUE(io[0] == 13 && io[1] == 26 && io[2] == 39, "Reduce_local with a user operation");
    A_OK(MPI_Op_commutative(op, &flag));
    CHECK_INT(0, flag, "a user operation created non-commutative");
    A_OK(MPI_Op_free(&op));
    CHECK_TRUE(op == MPI_OP_NULL, "Op_free nulls the handle");
    return a_finish("args_op");
}
