/* One-sided communication across jobs: the parents (2) spawn 2 children, merge the
 * intercommunicator and allocate a window over all 4; every process puts 100 * rank + t into
 * slot `rank` of every target t between two fences, and checks its own slots. The window's
 * peers of the other job are reached through messages (not through a region). */
#include "../t_util.h"

#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    MPI_Comm parent, inter, all;
    MPI_Comm_get_parent(&parent);
    if (parent == MPI_COMM_NULL) {
        char self[4096];
        ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
        if (n <= 0)
            t_fail("readlink failed");
        self[n] = '\0';
        MPI_Comm_spawn(self, MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                       MPI_ERRCODES_IGNORE);
        MPI_Intercomm_merge(inter, 0, &all);
    } else {
        inter = parent;
        MPI_Intercomm_merge(inter, 1, &all);
    }
    int r, sz;
    MPI_Comm_rank(all, &r);
    MPI_Comm_size(all, &sz);
    int *buf;
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint)sizeof(int) * sz, sizeof(int), MPI_INFO_NULL, all, &buf, &win);
    for (int i = 0; i < sz; i++)
        buf[i] = -1;
    MPI_Win_fence(0, win);
    for (int t = 0; t < sz; t++) {
        int v = 100 * r + t;
        MPI_Put(&v, 1, MPI_INT, t, r, 1, MPI_INT, win);
    }
    MPI_Win_fence(0, win);
    for (int i = 0; i < sz; i++)
        if (buf[i] != 100 * i + r)
            t_fail("merged rank %d, slot %d: expected %d, got %d", r, i, 100 * i + r, buf[i]);
    MPI_Win_free(&win);
    MPI_Comm_free(&all);
    MPI_Comm_disconnect(&inter);
    MPI_Finalize();
    return 0;
}
