/* Dynamic processes through the ABI layers: the parent job spawns 3 copies of this program
 * (argument "child"); a child's MPI_Comm_get_parent must be the intercommunicator (in the
 * layers' own handle values: a child that saw MPI_COMM_NULL would spawn again), a parent's
 * MPI_COMM_NULL. Checked: remote sizes, error codes, a broadcast from the parent's root
 * and a reduction back to it across the intercommunicator, Intercomm_merge with the
 * children ranked high, and MPI_Comm_disconnect on both sides. */
#include <string.h>

#include "abi_test.h"

#define NCHILD 3

int main(int argc, char **argv)
{
    abi_test_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm parent, inter, merged;
    OK(MPI_Comm_get_parent(&parent));
    int child = argc > 1 && strcmp(argv[1], "child") == 0;
    if (!child) {
        CHECK(parent == MPI_COMM_NULL, "the parent job has a parent");
        int errs[NCHILD] = {-1, -1, -1};
        char *args[] = {"child", NULL};
        OK(MPI_Comm_spawn(argv[0], args, NCHILD, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                          errs));
        for (int i = 0; i < NCHILD; i++)
            CHECK_INT(errs[i], MPI_SUCCESS);
    } else {
        CHECK(parent != MPI_COMM_NULL, "a spawned process has no parent");
        inter = parent;
        CHECK_INT(size, NCHILD);
    }
    int rsize = -1, flag = 0;
    OK(MPI_Comm_remote_size(inter, &rsize));
    CHECK_INT(rsize, child ? 2 : NCHILD);
    OK(MPI_Comm_test_inter(inter, &flag));
    CHECK_INT(flag, 1);
    int word = child ? 0 : 4242, sum = 0, mine = rank + 1;
    if (!child)
        OK(MPI_Bcast(&word, 1, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter));
    else
        OK(MPI_Bcast(&word, 1, MPI_INT, 0, inter));
    CHECK_INT(word, 4242);
    if (!child)
        OK(MPI_Reduce(NULL, &sum, 1, MPI_INT, MPI_SUM, rank == 0 ? MPI_ROOT : MPI_PROC_NULL,
                      inter));
    else
        OK(MPI_Reduce(&mine, NULL, 1, MPI_INT, MPI_SUM, 0, inter));
    if (!child && rank == 0)
        CHECK_INT(sum, NCHILD * (NCHILD + 1) / 2);
    int mrank = -1, msize = -1;
    OK(MPI_Intercomm_merge(inter, child, &merged));
    OK(MPI_Comm_rank(merged, &mrank));
    OK(MPI_Comm_size(merged, &msize));
    CHECK_INT(msize, 2 + NCHILD);
    CHECK_INT(mrank, child ? 2 + rank : rank);
    int all = 0;
    OK(MPI_Allreduce(&mrank, &all, 1, MPI_INT, MPI_SUM, merged));
    CHECK_INT(all, (2 + NCHILD) * (1 + NCHILD) / 2);
    OK(MPI_Comm_free(&merged));
    OK(MPI_Comm_disconnect(&inter));
    CHECK(inter == MPI_COMM_NULL, "MPI_Comm_disconnect left the handle set");
    if (!child && rank == 0)
        printf("dyn ok\n");
    MPI_Finalize();
    return 0;
}
