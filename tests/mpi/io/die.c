/* A rank that dies during collective file access (run under ivcrun --disable-auto-cleanup,
 * ULFM rules): the last rank kills itself with SIGKILL instead of joining a write_at_all of
 * 4 MiB per rank in 64 KiB rounds; every survivor's write_at_all (blocking, then an
 * iwrite_at_all completed by MPI_Wait) must return an error (MPI_ERR_PROC_FAILED, or
 * MPIX_ERR_REVOKED after another survivor revoked) instead of hanging, and the survivors then
 * agree, shrink and run a checked Allreduce. Prints "ft-ok rank R" (tests/mpi/ft/run.sh). */
#include "mpi/io/t_io.h"

#include <mpi-ext.h>
#include <signal.h>

#define N (4 << 20)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char name[256];
    t_io_name(name, sizeof(name), "die");
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "65536");
    /* contiguous blocks per rank: aggregated only when asked (automatic would not) */
    MPI_Info_set(info, "romio_cb_read", "enable");
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_File fh;
    T_OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);
    char *buf = malloc(N);
    memset(buf, 'a' + t_rank, N);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == t_size - 1)
        raise(SIGKILL);
    MPI_Status st;
    int rc = MPI_File_write_at_all(fh, (MPI_Offset)t_rank * N, buf, N, MPI_BYTE, &st);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_PROC_FAILED && cls != MPIX_ERR_REVOKED)
        t_fail("write_at_all with a dead rank: expected MPI_ERR_PROC_FAILED or "
               "MPIX_ERR_REVOKED, got class %d",
               rc == MPI_SUCCESS ? 0 : cls);
    MPI_Request rq;
    rc = MPI_File_iwrite_at_all(fh, (MPI_Offset)t_rank * N, buf, N, MPI_BYTE, &rq);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&rq, &st);
    if (rc == MPI_SUCCESS)
        t_fail("iwrite_at_all with a dead rank succeeded");
    /* The survivors go on without it. */
    MPIX_Comm_revoke(MPI_COMM_WORLD);
    MPI_Comm shrunk;
    T_OK(MPIX_Comm_shrink(MPI_COMM_WORLD, &shrunk));
    int n = 0, one = 1;
    T_OK(MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, shrunk));
    CHECK_INT(t_size - 1, n, "survivors counted on the shrunk communicator");
    /* Close still releases the file (its barrier fails: the dead rank); rank 0 removes the
     * shared-pointer sidecar then, so the directory is left clean. */
    MPI_File_close(&fh);
    if (fh != MPI_FILE_NULL)
        t_fail("MPI_File_close after a failure left the handle");
    MPI_Barrier(shrunk);
    if (t_rank == 0)
        unlink(name);
    printf("ft-ok rank %d\n", t_rank);
    fflush(stdout);
    MPI_Comm_free(&shrunk);
    free(buf);
    MPI_Finalize();
    return 0;
}
