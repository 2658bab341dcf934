/* Built by the build-system tests (CMake's FindMPI, Meson, pkg-config, the wrappers): rank 0
 * prints "hello c ok <size> <library version>" when an allreduce over every rank adds up. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, sum = 0;
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int mine = rank + 1;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Get_library_version(version, &len);
    if (sum != size * (size + 1) / 2) {
        printf("rank %d: allreduce gave %d, expected %d\n", rank, sum, size * (size + 1) / 2);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0)
        printf("hello c ok %d %s\n", size, version);
    MPI_Finalize();
    return 0;
}
