// mpi.h from C++ through mpicxx (compiled with -Wall -Wextra -pedantic -Werror by the test
// registration): ranks exchange a std::vector around a ring, an Allreduce checks the sum, and
// the Fortran datatypes and handle conversions of mpi.h are usable from C++ as well.
#include <mpi.h>

#include <cstdio>
#include <vector>

static int fail(int rank, const char *what, long expected, long got)
{
    std::fprintf(stderr, "rank %d: %s: expected %ld, got %ld\n", rank, what, expected, got);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n = 1000;
    std::vector<int> out(n), in(n, -1);
    for (int i = 0; i < n; i++)
        out[i] = rank * n + i;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Status st;
    MPI_Sendrecv(out.data(), n, MPI_INT, right, 1, in.data(), n, MPI_INT, left, 1,
                 MPI_COMM_WORLD, &st);
    for (int i = 0; i < n; i++)
        if (in[i] != left * n + i)
            return fail(rank, "ring data", left * n + i, in[i]);
    if (st.MPI_SOURCE != left)
        return fail(rank, "status MPI_SOURCE", left, st.MPI_SOURCE);
    double mine = rank + 0.5, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size * (size - 1) / 2.0 + 0.5 * size)
        return fail(rank, "Allreduce of MPI_DOUBLE_PRECISION (x2)", (long)(2 * (size * (size - 1) / 2.0 + 0.5 * size)), (long)(2 * sum));
    if (MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) != MPI_COMM_WORLD)
        return fail(rank, "MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) is MPI_COMM_WORLD", 1, 0);
    if (rank == 0)
        std::printf("cxx_basic: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
