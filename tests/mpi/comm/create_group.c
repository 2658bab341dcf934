/* MPI_Comm_create_group by groups that share a parent and a tag, one after another: a rank
 * that is not in the first group runs ahead into the second, where it has the rank in the
 * group that a member of the first group has there. Its messages must not be taken for that
 * member's. Forced: group A = world {0,2,3}, group B = world {0,1,3}; world 2 (A's rank 1)
 * comes late to A, so world 0 is waiting in A for A's rank 1 while world 1 (B's rank 1)
 * already talks to it in B. Then 100 random groups as MPICH's comm_group_rand makes them.
 * Checked every time: the new communicator has the group's members and carries data. */
#include "../t_util.h"

/* Makes the communicator of the world ranks in `in` (when this rank is one) and checks it. */
static void make(const int *in, int n, const char *what)
{
    int me = -1;
    for (int i = 0; i < n; i++)
        if (in[i] == t_rank)
            me = i;
    if (me < 0)
        return;
    MPI_Group world, g;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, n, in, &g);
    MPI_Comm c = MPI_COMM_NULL;
    CHECK_INT(MPI_SUCCESS, MPI_Comm_create_group(MPI_COMM_WORLD, g, 0, &c), what);
    if (c != MPI_COMM_NULL) {
        int rank = -1, size = -1, sum = -1, want = 0;
        MPI_Comm_rank(c, &rank);
        MPI_Comm_size(c, &size);
        CHECK_INT(me, rank, "rank in the new communicator");
        CHECK_INT(n, size, "size of the new communicator");
        for (int i = 0; i < n; i++)
            want += in[i] + 1;
        int mine = t_rank + 1;
        CHECK_INT(MPI_SUCCESS, MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, c), "Allreduce");
        CHECK_INT(want, sum, "sum of the members' world ranks + 1");
        MPI_Comm_free(&c);
    }
    MPI_Group_free(&g);
    MPI_Group_free(&world);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(4);
    int a[] = {0, 2, 3}, b[] = {0, 1, 3};
    for (int k = 0; k < 5; k++) {
        if (t_rank == 2)
            t_sleep_ms(50); /* world 0 waits in A for A's rank 1 */
        make(a, 3, "create_group A");
        make(b, 3, "create_group B");
    }
    int *in = t_malloc((size_t)t_size * sizeof(int));
    for (int j = 0; j < 100; j++) {
        srand((unsigned)j);
        int n = 0;
        for (int i = 0; i < t_size; i++)
            if (rand() % 2)
                in[n++] = i;
        make(in, n, "create_group of a random group");
    }
    free(in);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
