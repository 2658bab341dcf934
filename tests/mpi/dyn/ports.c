/* Ports and names. "within" (2 ranks): rank 0 opens a port and publishes it, rank 1 looks
 * it up; they accept / connect over MPI_COMM_SELF and exchange checked data both ways;
 * after MPI_Unpublish_name a lookup fails with MPI_ERR_NAME, and a second accept after
 * MPI_Close_port is not needed. "server NAME" / "client NAME" (any number of ranks): two
 * separate ivcrun jobs; the server job accepts over its MPI_COMM_WORLD, the client connects
 * over its own, and every rank of each side exchanges data with every rank of the other. */
#include "../t_util.h"

#include <unistd.h>

static void exchange(MPI_Comm inter, int base)
{
    int rs;
    MPI_Comm_remote_size(inter, &rs);
    for (int p = 0; p < rs; p++) {
        int out = base + 10 * t_rank + p, in = -1;
        MPI_Sendrecv(&out, 1, MPI_INT, p, 9, &in, 1, MPI_INT, p, 9, inter, MPI_STATUS_IGNORE);
        int want = (1000 - base) + 10 * p + t_rank;
        if (in != want)
            t_fail("from remote rank %d: expected %d, got %d", p, want, in);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const char *mode = argc > 1 ? argv[1] : "within";
    char port[MPI_MAX_PORT_NAME], name[256];
    MPI_Comm inter;
    if (strcmp(mode, "within") == 0) {
        snprintf(name, sizeof(name), "ivc-test-ports-%d", (int)getppid());
        if (t_rank == 0) {
            MPI_Open_port(MPI_INFO_NULL, port);
            if (MPI_Publish_name(name, MPI_INFO_NULL, port) != MPI_SUCCESS)
                t_fail("MPI_Publish_name failed");
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (t_rank == 1) {
            char found[MPI_MAX_PORT_NAME];
            if (MPI_Lookup_name(name, MPI_INFO_NULL, found) != MPI_SUCCESS)
                t_fail("MPI_Lookup_name of a published name failed");
            MPI_Comm_connect(found, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
            int out = 4242, in = -1;
            MPI_Sendrecv(&out, 1, MPI_INT, 0, 1, &in, 1, MPI_INT, 0, 1, inter, MPI_STATUS_IGNORE);
            if (in != 2424)
                t_fail("connect side: expected 2424, got %d", in);
        } else if (t_rank == 0) {
            MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
            int out = 2424, in = -1;
            MPI_Sendrecv(&out, 1, MPI_INT, 0, 1, &in, 1, MPI_INT, 0, 1, inter, MPI_STATUS_IGNORE);
            if (in != 4242)
                t_fail("accept side: expected 4242, got %d", in);
        }
        if (t_rank < 2)
            MPI_Comm_disconnect(&inter);
        MPI_Barrier(MPI_COMM_WORLD);
        if (t_rank == 0) {
            MPI_Unpublish_name(name, MPI_INFO_NULL, port);
            char found[MPI_MAX_PORT_NAME];
            MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
            int rc = MPI_Lookup_name(name, MPI_INFO_NULL, found), cls = -1;
            MPI_Error_class(rc, &cls);
            if (cls != MPI_ERR_NAME)
                t_fail("lookup after unpublish: expected MPI_ERR_NAME (%d), got %d", MPI_ERR_NAME,
                       cls);
            MPI_Close_port(port);
        }
    } else if (strcmp(mode, "server") == 0 && argc > 2) {
        if (t_rank == 0) {
            MPI_Open_port(MPI_INFO_NULL, port);
            if (MPI_Publish_name(argv[2], MPI_INFO_NULL, port) != MPI_SUCCESS)
                t_fail("MPI_Publish_name failed");
        }
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        exchange(inter, 100);
        MPI_Comm_disconnect(&inter);
        if (t_rank == 0) {
            MPI_Unpublish_name(argv[2], MPI_INFO_NULL, port);
            MPI_Close_port(port);
        }
    } else if (strcmp(mode, "client") == 0 && argc > 2) {
        if (t_rank == 0) {
            /* The server job may not have published yet: ask for up to 60 s. */
            int rc = MPI_ERR_NAME;
            for (int i = 0; i < 600 && rc != MPI_SUCCESS; i++) {
                rc = MPI_Lookup_name(argv[2], MPI_INFO_NULL, port);
                if (rc != MPI_SUCCESS)
                    usleep(100000);
            }
            if (rc != MPI_SUCCESS)
                t_fail("the server's name %s was never published", argv[2]);
        }
        MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        exchange(inter, 900);
        MPI_Comm_disconnect(&inter);
    } else {
        t_fail("usage: ports [within | server NAME | client NAME]");
    }
    MPI_Finalize();
    return 0;
}
