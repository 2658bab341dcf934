/* typesig: a message that ends inside a basic element of the receive's derived datatype
 * cannot have a matching type signature; the receive completes with MPI_ERR_TYPE instead
 * of succeeding (MPICH's errors/pt2pt/truncmsg2: 3 chars received as ints gave
 * MPI_SUCCESS before the fix). Rank 1 sends, rank 0 receives under MPI_ERRORS_RETURN:
 *  - 3 bytes of a struct of chars into an indexed type of 4 ints (eager): MPI_ERR_TYPE;
 *  - 400001 bytes into a contiguous type of 200000 ints (rendezvous sizes): MPI_ERR_TYPE;
 *  - 8 bytes (two whole ints) into the indexed type, and 400000 bytes into the contiguous
 *    type: MPI_SUCCESS, exact data, Get_count in ints;
 *  - after each refused receive the pair still works (the next message arrives intact).
 */
#include "../t_util.h"

#define BIG 200000

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    MPI_Datatype chars, ints, big;
    int bl[3] = {1, 2, 1}, idx[3] = {4, 8, 16}, cbl[3] = {1, 1, 1};
    MPI_Aint cd[3] = {0, 2, 4};
    MPI_Datatype ct[3] = {MPI_CHAR, MPI_CHAR, MPI_CHAR};
    CHECK_MPI(MPI_Type_create_struct(3, cbl, cd, ct, &chars));
    CHECK_MPI(MPI_Type_indexed(3, bl, idx, MPI_INT, &ints));
    CHECK_MPI(MPI_Type_contiguous(BIG, MPI_INT, &big));
    MPI_Type_commit(&chars);
    MPI_Type_commit(&ints);
    MPI_Type_commit(&big);
    char *src = t_malloc(4 * BIG + 8);
    int *dst = t_malloc(sizeof(int) * (BIG + 32));
    for (int i = 0; i < 4 * BIG + 8; i++)
        src[i] = (char)(i * 7 + 1);
    if (t_rank == 1) {
        CHECK_MPI(MPI_Send(src, 1, chars, 0, 1, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Send(src, 8, MPI_BYTE, 0, 2, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Send(src, 4 * BIG + 1 - 4, MPI_BYTE, 0, 3, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Send(src, 4 * BIG - 4, MPI_BYTE, 0, 4, MPI_COMM_WORLD));
    } else if (t_rank == 0) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Status st;
        int cls, rc, n;
        rc = MPI_Recv(dst, 1, ints, 1, 1, MPI_COMM_WORLD, &st);
        MPI_Error_class(rc, &cls);
        CHECK_INT(MPI_ERR_TYPE, cls, "3 chars received as ints (eager)");
        memset(dst, 0, sizeof(int) * 32);
        CHECK_MPI(MPI_Recv(dst, 1, ints, 1, 2, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
        CHECK_INT(2, n, "two whole ints into the indexed type: count");
        CHECK_TRUE(memcmp(&dst[4], src, 4) == 0 && memcmp(&dst[8], src + 4, 4) == 0,
                   "two whole ints land at the first two blocks");
        rc = MPI_Recv(dst, 1, big, 1, 3, MPI_COMM_WORLD, &st);
        MPI_Error_class(rc, &cls);
        CHECK_INT(MPI_ERR_TYPE, cls, "a byte past whole ints (rendezvous size)");
        CHECK_MPI(MPI_Recv(dst, 1, big, 1, 4, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
        CHECK_INT(BIG - 1, n, "whole ints, one short of the buffer: count");
        CHECK_TRUE(memcmp(dst, src, 4 * BIG - 4) == 0, "whole ints: data");
    }
    MPI_Type_free(&chars);
    MPI_Type_free(&ints);
    MPI_Type_free(&big);
    free(src);
    free(dst);
    MPI_Finalize();
    return 0;
}
