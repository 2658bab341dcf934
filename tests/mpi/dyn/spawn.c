/* MPI_Comm_spawn: the parents (this job) spawn N copies of this program (argv[1], default 1)
 * and check, with data, that the intercommunicator reaches every child both ways, that
 * MPI_Intercomm_merge orders the groups as asked, that a collective over the merged
 * communicator sums what every process gives, and that MPI_Comm_disconnect ends it.
 *   ivcrun -n P spawn N        (the children run "spawn N child")
 * With argv[2] == "nest" every child spawns one grandchild of its own (spawn inside spawn):
 * the grandchild sends its parent 1000 + its parent's rank, which the child checks. */
#include "../t_util.h"

#include <unistd.h>

static void self_path(char *buf, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    if (n <= 0)
        t_fail("readlink /proc/self/exe failed");
    buf[n] = '\0';
}

/* Both sides: merged communicator, parents first; the sum over every process of 1 + rank in
 * the merged order must be n(n+1)/2. */
static void check_merge(MPI_Comm inter, int high, int total)
{
    MPI_Comm all;
    MPI_Intercomm_merge(inter, high, &all);
    int r, n;
    MPI_Comm_rank(all, &r);
    MPI_Comm_size(all, &n);
    if (n != total)
        t_fail("merged size: expected %d, got %d", total, n);
    long mine = 1 + r, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, all);
    if (sum != (long)n * (n + 1) / 2)
        t_fail("sum over the merged communicator: expected %ld, got %ld", (long)n * (n + 1) / 2,
               sum);
    MPI_Comm_free(&all);
}

static void grandchild(MPI_Comm parent)
{
    int pr;
    MPI_Status st;
    MPI_Recv(&pr, 1, MPI_INT, 0, 5, parent, &st);
    int v = 1000 + pr;
    MPI_Send(&v, 1, MPI_INT, 0, 6, parent);
    MPI_Comm_disconnect(&parent);
}

static void child(MPI_Comm parent, int nest, char *self)
{
    int rank, size, np, inter;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_test_inter(parent, &inter);
    MPI_Comm_remote_size(parent, &np);
    if (!inter)
        t_fail("the parent communicator is not an intercommunicator");
    int v = -1;
    MPI_Status st;
    MPI_Recv(&v, 1, MPI_INT, 0, 1, parent, &st);
    if (v != 7 * rank + size)
        t_fail("value from the parents' root: expected %d, got %d", 7 * rank + size, v);
    int back = v * 3 + rank;
    for (int p = 0; p < np; p++)
        MPI_Send(&back, 1, MPI_INT, p, 2, parent);
    check_merge(parent, 1, np + size);
    if (nest) {
        MPI_Comm g;
        char *args[] = {"1", "grand", NULL};
        MPI_Comm_spawn(self, args, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &g, MPI_ERRCODES_IGNORE);
        MPI_Send(&rank, 1, MPI_INT, 0, 5, g);
        int got = -1;
        MPI_Recv(&got, 1, MPI_INT, 0, 6, g, &st);
        if (got != 1000 + rank)
            t_fail("value from the grandchild: expected %d, got %d", 1000 + rank, got);
        MPI_Comm_disconnect(&g);
    }
    MPI_Comm_disconnect(&parent);
    MPI_Comm p2;
    MPI_Comm_get_parent(&p2);
    if (p2 != MPI_COMM_NULL)
        t_fail("MPI_Comm_get_parent after MPI_Comm_disconnect: expected MPI_COMM_NULL");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    int n = argc > 1 ? atoi(argv[1]) : 1;
    int nest = argc > 2 && strcmp(argv[2], "nest") == 0;
    char self[4096];
    self_path(self, sizeof(self));
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        if (argc > 2 && strcmp(argv[2], "grand") == 0)
            grandchild(parent);
        else
            child(parent, argc > 3 && strcmp(argv[3], "nest") == 0, self);
        MPI_Finalize();
        return 0;
    }
    char *args[] = {argv[1] ? argv[1] : "1", "child", nest ? "nest" : NULL, NULL};
    MPI_Comm inter;
    int *codes = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        codes[i] = -1;
    MPI_Comm_spawn(self, args, n, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes);
    for (int i = 0; i < n; i++)
        if (codes[i] != MPI_SUCCESS)
            t_fail("errcodes[%d]: expected MPI_SUCCESS, got %d", i, codes[i]);
    int rs, inter_flag;
    MPI_Comm_remote_size(inter, &rs);
    MPI_Comm_test_inter(inter, &inter_flag);
    if (rs != n || !inter_flag)
        t_fail("remote size: expected %d, got %d (inter %d)", n, rs, inter_flag);
    if (t_rank == 0)
        for (int c = 0; c < n; c++) {
            int v = 7 * c + n;
            MPI_Send(&v, 1, MPI_INT, c, 1, inter);
        }
    for (int c = 0; c < n; c++) {
        int got = -1;
        MPI_Status st;
        MPI_Recv(&got, 1, MPI_INT, c, 2, inter, &st);
        if (got != (7 * c + n) * 3 + c)
            t_fail("reply of child %d: expected %d, got %d", c, (7 * c + n) * 3 + c, got);
    }
    check_merge(inter, 0, n + t_size);
    MPI_Comm_disconnect(&inter);
    if (inter != MPI_COMM_NULL)
        t_fail("MPI_Comm_disconnect left the handle set");
    free(codes);
    MPI_Finalize();
    return 0;
}
