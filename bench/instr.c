/*
 * instr.c - instructions per message on the small-message path, for callgrind.
 *
 * What latency cannot show on a loaded 2-vCPU machine, an instruction count can: how much
 * work one MPI_Send and one MPI_Recv do, without the waits. Rank 0 sends a burst of
 * `burst` messages of `size` bytes to rank 1 (blocking MPI_Send, few enough to fit every
 * MPI's eager queue), a barrier follows, and only then does rank 1 receive them (blocking
 * MPI_Recv: each finds its message already there, so no receive spins). Callgrind's
 * collection is on only inside the two loops (CALLGRIND_TOGGLE_COLLECT), after `warm`
 * untimed rounds; run it under `valgrind --tool=callgrind --collect-atstart=no` and divide
 * each rank's total by rounds x burst (bench/instr.sh does, for IVC, MPICH and Open MPI).
 * Without valgrind it runs as a plain program (the toggles are no-ops) and checks the data.
 *
 *   instr [-s size] [-b burst] [-r rounds] [-w warm]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

int main(int argc, char **argv)
{
    int size = 8, burst = 16, rounds = 20, warm = 5, opt;
    MPI_Init(&argc, &argv);
    while ((opt = getopt(argc, argv, "s:b:r:w:")) != -1) {
        switch (opt) {
        case 's': size = atoi(optarg); break;
        case 'b': burst = atoi(optarg); break;
        case 'r': rounds = atoi(optarg); break;
        case 'w': warm = atoi(optarg); break;
        default:
            fprintf(stderr, "usage: instr [-s size] [-b burst] [-r rounds] [-w warm]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nranks != 2 || size < 0 || burst < 1 || rounds < 1 || warm < 0) {
        if (rank == 0)
            fprintf(stderr, "instr: needs 2 ranks, size >= 0, burst and rounds >= 1\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *buf = malloc((size_t)size + 1);
    int bad = 0;
    for (int r = 0; r < warm + rounds; r++) {
        int counted = r >= warm;
        if (rank == 0) {
            for (int i = 0; i < size; i++)
                buf[i] = (char)(r + i);
            if (counted)
                CALLGRIND_TOGGLE_COLLECT;
            for (int m = 0; m < burst; m++)
                MPI_Send(buf, size, MPI_CHAR, 1, m, MPI_COMM_WORLD);
            if (counted)
                CALLGRIND_TOGGLE_COLLECT;
            MPI_Barrier(MPI_COMM_WORLD);
        } else {
            MPI_Barrier(MPI_COMM_WORLD);
            if (counted)
                CALLGRIND_TOGGLE_COLLECT;
            for (int m = 0; m < burst; m++)
                MPI_Recv(buf, size, MPI_CHAR, 0, m, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (counted)
                CALLGRIND_TOGGLE_COLLECT;
            for (int i = 0; i < size; i++)
                bad |= buf[i] != (char)(r + i);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (bad)
        fprintf(stderr, "instr: rank %d received wrong data\n", rank);
    if (rank == 0)
        printf("instr: %d rounds of %d messages of %d B counted (after %d warm-up rounds)\n",
               rounds, burst, size, warm);
    free(buf);
    MPI_Finalize();
    return bad;
}
