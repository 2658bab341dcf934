/* A spawned rank that dies: the parent spawns 2 children; child 1 exits without
 * MPI_Finalize after the first exchange (once the parent says so). The parent (MPI_ERRORS_RETURN)
 * then waits for a message child 1 never sends: it must get an error, not hang, and prints "ft-ok
 * rank 0". Judged by tests/mpi/ft/run.sh: one survivor line and ivcrun's status non-zero (it
 * reports the spawned job's failure). With argv[1] "badprog" the parent spawns a program that
 * does not exist instead: MPI_ERR_SPAWN at every parent, no hang. With "tmpprog" (one rank in a
 * simulated VM) the parent copies this program into its VM's private /tmp and spawns that:
 * MPI_ERR_SPAWN, and ivcrun must say why (the test's FT_EXPECT_TEXT). */
#include "../t_util.h"

#include <unistd.h>

/* Spawns n copies of prog, which must fail with MPI_ERR_SPAWN (then removes `remove`, if
 * not NULL), and ends this rank as a survivor. */
static int spawn_must_fail(const char *prog, int n, const char *remove, const char *what)
{
    MPI_Comm bad;
    int rc = MPI_Comm_spawn(prog, MPI_ARGV_NULL, n, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &bad,
                            MPI_ERRCODES_IGNORE);
    if (remove != NULL)
        unlink(remove);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_SPAWN)
        t_fail("spawning %s: expected MPI_ERR_SPAWN (%d), got %d", what, MPI_ERR_SPAWN, cls);
    printf("ft-ok rank %d (MPI_ERR_SPAWN)\n", t_rank);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        int v = 10 + t_rank;
        MPI_Send(&v, 1, MPI_INT, 0, 1, parent);
        if (t_rank == 1) {
            /* Dies once the parent has its value (else the failure may overtake it). */
            int go;
            MPI_Recv(&go, 1, MPI_INT, 0, 9, parent, MPI_STATUS_IGNORE);
            fflush(stdout);
            _exit(3); /* dies: no MPI_Finalize */
        }
        /* Child 0 waits for nothing more; its job is stopped by its ivcrun. */
        MPI_Finalize();
        return 0;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    if (argc > 1 && strcmp(argv[1], "badprog") == 0) /* cannot be run: MPI_ERR_SPAWN, no hang */
        return spawn_must_fail("/nonexistent/ivc-test-prog", 2, NULL, "a missing program");
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        t_fail("readlink failed");
    self[n] = '\0';
    if (argc > 1 && strcmp(argv[1], "tmpprog") == 0) {
        /* Written where only this rank's VM sees it. */
        char tmp[64], cmd[4200];
        snprintf(tmp, sizeof(tmp), "/tmp/ivc-dyn-tmpprog-%d", (int)getpid());
        snprintf(cmd, sizeof(cmd), "cp '%s' %s", self, tmp);
        if (system(cmd) != 0)
            t_fail("cannot copy %s to %s", self, tmp);
        return spawn_must_fail(tmp, 1, tmp, "a program in the VM's /tmp");
    }
    char *args[] = {"child", NULL};
    MPI_Comm inter;
    MPI_Comm_spawn(self, args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    for (int c = 0; c < 2; c++) {
        int v = -1;
        MPI_Recv(&v, 1, MPI_INT, c, 1, inter, MPI_STATUS_IGNORE);
        if (v != 10 + c)
            t_fail("child %d: expected %d, got %d", c, 10 + c, v);
    }
    int v = 1;
    MPI_Send(&v, 1, MPI_INT, 1, 9, inter);
    int rc = MPI_Recv(&v, 1, MPI_INT, 1, 2, inter, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS)
        t_fail("a receive from the dead child: expected an error, got MPI_SUCCESS");
    int cls;
    MPI_Error_class(rc, &cls);
    printf("ft-ok rank %d (error class %d)\n", t_rank, cls);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
