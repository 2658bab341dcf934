// The C++ twin of hello.c: rank 0 prints "hello cxx ok <size>" when the allreduce adds up.
#include <mpi.h>
#include <cstdio>
#include <vector>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<int> mine(4, rank + 1), sum(4, 0);
    MPI_Allreduce(mine.data(), sum.data(), 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int s : sum)
        if (s != size * (size + 1) / 2) {
            std::printf("rank %d: allreduce gave %d, expected %d\n", rank, s, size * (size + 1) / 2);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    if (rank == 0)
        std::printf("hello cxx ok %d\n", size);
    MPI_Finalize();
    return 0;
}
