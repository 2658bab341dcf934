/* With the default handler (MPI_ERRORS_ARE_FATAL) a failure ends the job with a message
 * that names the failed rank and how it was detected: the last rank dies while the others
 * block in MPI_Recv from it and in MPI_Barrier. Reaching the end is the failure here. */
#include "../t_util.h"

#include <signal.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    alarm(60);
    int victim = t_size - 1, x = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == victim)
        raise(SIGKILL);
    if (t_rank == 0)
        MPI_Recv(&x, 1, MPI_INT, victim, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d: MPI returned after the failure under MPI_ERRORS_ARE_FATAL\n", t_rank);
    MPI_Finalize();
    return 0;
}
