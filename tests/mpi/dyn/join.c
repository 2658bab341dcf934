/* MPI_Comm_join over a socketpair: this process (rank 0 of a 1-rank ivcrun job) makes a
 * connected socket pair and starts a second copy of itself as a singleton (no launcher
 * environment) holding the other end; both call MPI_Comm_join and exchange checked data
 * both ways, then disconnect. */
#include "../t_util.h"

#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static void talk(int fd, int me)
{
    MPI_Comm inter;
    if (MPI_Comm_join(fd, &inter) != MPI_SUCCESS)
        t_fail("MPI_Comm_join failed");
    int rs, inter_flag;
    MPI_Comm_remote_size(inter, &rs);
    MPI_Comm_test_inter(inter, &inter_flag);
    if (rs != 1 || !inter_flag)
        t_fail("join: expected an intercommunicator with 1 remote process, got %d (%d)", rs,
               inter_flag);
    int out[64], in[64];
    for (int i = 0; i < 64; i++)
        out[i] = me * 1000 + i;
    MPI_Sendrecv(out, 64, MPI_INT, 0, 7, in, 64, MPI_INT, 0, 7, inter, MPI_STATUS_IGNORE);
    for (int i = 0; i < 64; i++)
        if (in[i] != (1 - me) * 1000 + i)
            t_fail("join side %d, element %d: expected %d, got %d", me, i, (1 - me) * 1000 + i,
                   in[i]);
    MPI_Comm_disconnect(&inter);
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "other") == 0) {
        MPI_Init(&argc, &argv);
        t_init();
        talk(atoi(argv[2]), 1);
        MPI_Finalize();
        return 0;
    }
    MPI_Init(&argc, &argv);
    t_init();
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        t_fail("socketpair failed");
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        /* A singleton: none of the launcher's variables. */
        const char *vars[] = {"PMI_RANK",   "PMI_SIZE",          "PMI_FD",
                              "IVC_JOB",    "IVC_REGION",        "IVC_VM",
                              "IVC_DYN_FD", "IVC_SECTION_FD",    "IVC_DOORBELL_FDS",
                              "IVC_APPNUM", "IVC_UNIVERSE_SIZE", NULL};
        for (int i = 0; vars[i]; i++)
            unsetenv(vars[i]);
        char fdn[16];
        snprintf(fdn, sizeof(fdn), "%d", sv[1]);
        execl("/proc/self/exe", argv[0], "other", fdn, (char *)NULL);
        _exit(127);
    }
    close(sv[1]);
    talk(sv[0], 0);
    int ws;
    waitpid(pid, &ws, 0);
    if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
        t_fail("the joined singleton: expected exit 0, got status %d", ws);
    MPI_Finalize();
    return 0;
}
