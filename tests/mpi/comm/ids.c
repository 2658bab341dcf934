/* Context ids used up unevenly: rank 0 makes 1100 duplicates of MPI_COMM_SELF (more than the
 * lower half of the 2048 ids, which blocking agreements offer first, and the first 64 of
 * the upper half), the others none. Checked: a duplicate of MPI_COMM_WORLD still gets a
 * common id (the agreement offers every id once the lower halves have none in common) and
 * carries data; so does a nonblocking one (whose slice of the upper half is used up at rank
 * 0: it offers the whole upper half next); freeing them all and duplicating again works. */
#include "../t_util.h"

#define NSELF 1100

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    MPI_Comm *selfs = t_malloc(NSELF * sizeof(MPI_Comm));
    int n = t_rank == 0 ? NSELF : 0;
    for (int i = 0; i < n; i++)
        CHECK_INT(MPI_SUCCESS, MPI_Comm_dup(MPI_COMM_SELF, &selfs[i]), "Comm_dup(SELF)");
    for (int k = 0; k < 2; k++) {
        MPI_Comm d;
        CHECK_INT(MPI_SUCCESS, MPI_Comm_dup(MPI_COMM_WORLD, &d),
                  "Comm_dup(WORLD) with rank 0's "
                  "lower ids used up");
        int one = 1, sum = 0;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, d);
        CHECK_INT(t_size, sum, "Allreduce on the duplicate");
        MPI_Comm_free(&d);
    }
    /* A nonblocking duplicate of WORLD: its slice of the upper half (WORLD's id modulo 16,
     * the first 64 ids past the lower half) is used up at rank 0 too. */
    MPI_Comm nb;
    MPI_Request req;
    CHECK_INT(MPI_SUCCESS, MPI_Comm_idup(MPI_COMM_WORLD, &nb, &req), "Comm_idup(WORLD)");
    CHECK_INT(MPI_SUCCESS, MPI_Wait(&req, MPI_STATUS_IGNORE), "the idup's wait");
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, nb);
    CHECK_INT(t_size, sum, "Allreduce on the nonblocking duplicate");
    MPI_Comm_free(&nb);
    for (int i = 0; i < n; i++)
        MPI_Comm_free(&selfs[i]);
    MPI_Comm d;
    CHECK_INT(MPI_SUCCESS, MPI_Comm_dup(MPI_COMM_WORLD, &d), "Comm_dup(WORLD) after the frees");
    MPI_Comm_free(&d);
    free(selfs);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
