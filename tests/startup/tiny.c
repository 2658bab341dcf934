/* The smallest job that exercises every start-up path: MPI_Init, one MPI_Allreduce, one
 * exchange with every other rank (so every channel MPI_Init bound is used once), and
 * MPI_Finalize. Exits 0 when the sum and every exchanged value are right; otherwise it
 * prints expected against got and exits 1. */
#include <mpi.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "tiny: MPI_Init failed\n");
        return 1;
    }
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    long mine = rank + 1, sum = 0, want = (long)size * (size + 1) / 2;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (sum != want) {
        fprintf(stderr, "tiny %d/%d: Allreduce: expected %ld, got %ld\n", rank, size, want, sum);
        bad = 1;
    }
    /* Pairwise exchange in size-1 rounds: in round k, rank r talks to (r+k) and (r-k). */
    for (int k = 1; k < size; k++) {
        int to = (rank + k) % size, from = (rank - k + size) % size;
        int out = rank * 1000 + to, in = -1;
        MPI_Sendrecv(&out, 1, MPI_INT, to, k, &in, 1, MPI_INT, from, k, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (in != from * 1000 + rank) {
            fprintf(stderr, "tiny %d/%d: from %d: expected %d, got %d\n", rank, size, from,
                    from * 1000 + rank, in);
            bad = 1;
        }
    }
    MPI_Finalize();
    return bad;
}
