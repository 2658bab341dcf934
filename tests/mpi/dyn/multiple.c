/* MPI_Comm_spawn_multiple: two commands (this program with different arguments), 1 and 2
 * processes, the second as plain processes (info ivc_vm=plain) with info wdir. Checks with
 * data: every child's MPI_APPNUM is its command's index, its argv is its command's, the
 * second command's working directory is the wdir asked for, the children share one
 * MPI_COMM_WORLD of 3 in command order, and the parents' job has no parent
 * (MPI_Comm_get_parent gives MPI_COMM_NULL) and MPI_UNIVERSE_SIZE is set. */
#include "../t_util.h"

#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (argc > 1) { /* a child: "a" (command 0) or "b WDIR" (command 1) */
        if (parent == MPI_COMM_NULL)
            t_fail("a spawned process has no parent");
        int *app, flag = 0, size;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &app, &flag);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        int want = strcmp(argv[1], "a") == 0 ? 0 : 1;
        if (!flag || *app != want)
            t_fail("MPI_APPNUM: expected %d, got %d (flag %d)", want, flag ? *app : -1, flag);
        if (size != 3)
            t_fail("children's world size: expected 3, got %d", size);
        if (want != (t_rank == 0 ? 0 : 1))
            t_fail("command of world rank %d: expected %d, got %d", t_rank, t_rank == 0 ? 0 : 1,
                   want);
        if (want == 1) {
            char cwd[4096];
            if (getcwd(cwd, sizeof(cwd)) == NULL || argc < 3 || strcmp(cwd, argv[2]) != 0)
                t_fail("working directory: expected %s, got %s", argc > 2 ? argv[2] : "?", cwd);
        }
        int v = 100 * want + t_rank;
        MPI_Send(&v, 1, MPI_INT, 0, 3, parent);
        MPI_Comm_disconnect(&parent);
        MPI_Finalize();
        return 0;
    }
    if (parent != MPI_COMM_NULL)
        t_fail("MPI_Comm_get_parent in the original job: expected MPI_COMM_NULL");
    int *univ, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &univ, &flag);
    if (!flag || *univ < t_size)
        t_fail("MPI_UNIVERSE_SIZE: expected >= %d, got %d (flag %d)", t_size, flag ? *univ : -1,
               flag);
    char self[4096], wdir[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0 || getcwd(wdir, sizeof(wdir)) == NULL)
        t_fail("readlink/getcwd failed");
    self[n] = '\0';
    /* A directory other than ours that every simulated VM sees: the program's. */
    char *slash = strrchr(self, '/');
    snprintf(wdir, sizeof(wdir), "%.*s", (int)(slash - self), self);
    char *cmds[2] = {self, self};
    char *a0[] = {"a", NULL}, *a1[] = {"b", wdir, NULL};
    char **argvs[2] = {a0, a1};
    int maxp[2] = {1, 2};
    MPI_Info infos[2];
    MPI_Info_create(&infos[0]);
    MPI_Info_create(&infos[1]);
    MPI_Info_set(infos[1], "wdir", wdir);
    MPI_Info_set(infos[1], "ivc_vm", "plain");
    MPI_Comm inter;
    int codes[3] = {-1, -1, -1};
    MPI_Comm_spawn_multiple(2, cmds, argvs, maxp, infos, 0, MPI_COMM_WORLD, &inter, codes);
    for (int i = 0; i < 3; i++)
        if (codes[i] != MPI_SUCCESS)
            t_fail("errcodes[%d]: expected MPI_SUCCESS, got %d", i, codes[i]);
    if (t_rank == 0) {
        for (int c = 0; c < 3; c++) {
            int v = -1;
            MPI_Recv(&v, 1, MPI_INT, c, 3, inter, MPI_STATUS_IGNORE);
            int want = 100 * (c == 0 ? 0 : 1) + c;
            if (v != want)
                t_fail("child %d: expected %d, got %d", c, want, v);
        }
    }
    MPI_Comm_disconnect(&inter);
    MPI_Info_free(&infos[0]);
    MPI_Info_free(&infos[1]);
    MPI_Finalize();
    return 0;
}
