/* Without ivcrun (a singleton here; Hydra, Slurm and hand-started regions alike) spawn,
 * ports and names fail with their error classes and a message, and MPI_Comm_get_parent is
 * MPI_COMM_NULL; nothing hangs. Run directly, not under ivcrun. */
#include "../t_util.h"

static void expect(int rc, int cls, const char *what)
{
    int got = -1;
    MPI_Error_class(rc, &got);
    if (got != cls)
        t_fail("%s: expected error class %d, got %d", what, cls, got);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm parent, inter;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL)
        t_fail("MPI_Comm_get_parent: expected MPI_COMM_NULL");
    char *args[] = {"x", NULL};
    expect(MPI_Comm_spawn("/bin/true", args, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter,
                          MPI_ERRCODES_IGNORE),
           MPI_ERR_SPAWN, "MPI_Comm_spawn");
    char port[MPI_MAX_PORT_NAME];
    expect(MPI_Open_port(MPI_INFO_NULL, port), MPI_ERR_PORT, "MPI_Open_port");
    expect(MPI_Lookup_name("nothing", MPI_INFO_NULL, port), MPI_ERR_NAME, "MPI_Lookup_name");
    MPI_Finalize();
    return 0;
}
