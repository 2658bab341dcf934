/* coll_cost: one collective of one size on MPI_COMM_WORLD, its result checked, for the
 * cost-model test (cost.sh reads what each rank's shared-memory collectives counted:
 * IVC_REPORT_COLL). Sizes are per rank: the broadcast message, the reduced vector (doubles,
 * MPI_SUM), each rank's block of a reduce-scatter, allgather or all-to-all.
 *
 *   coll_cost bcast|reduce|allreduce|reduce_scatter|allgather|alltoall BYTES [ROOT]
 *   coll_cost first BYTES   an allreduce of BYTES on MPI_COMM_WORLD and on a duplicate, a
 *                           split and a created communicator of it, each its first
 *                           collective: none may need a set-up of its own (cost.sh) */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, np;

static void fail(const char *what, size_t i, double got, double want)
{
    fprintf(stderr, "coll_cost: rank %d: %s: element %zu is %g, expected %g\n", me, what, i, got,
            want);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc < 3) {
        if (me == 0)
            fprintf(stderr, "usage: coll_cost KIND BYTES [ROOT]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *kind = argv[1];
    size_t bytes = strtoull(argv[2], NULL, 0), n = bytes / sizeof(double);
    int root = argc > 3 ? atoi(argv[3]) % np : 0;
    size_t total = !strcmp(kind, "reduce_scatter") || !strcmp(kind, "allgather") ||
                           !strcmp(kind, "alltoall")
                       ? n * (size_t)np
                       : n;
    double *in = malloc(total * sizeof(double)), *out = malloc(total * sizeof(double));
    if (in == NULL || out == NULL)
        MPI_Abort(MPI_COMM_WORLD, 3);
    /* Element i of rank r's input: r * 1000 + i (exact in a double at these sizes). */
    for (size_t i = 0; i < total; i++) {
        in[i] = (double)me * 1000 + (double)i;
        out[i] = -1;
    }
    double rsum = (double)np * (np - 1) / 2 * 1000; /* sum over ranks of r * 1000 */
    if (!strcmp(kind, "bcast")) {
        double *b = me == root ? in : out;
        MPI_Bcast(b, (int)n, MPI_DOUBLE, root, MPI_COMM_WORLD);
        for (size_t i = 0; i < n; i++)
            if (b[i] != (double)root * 1000 + (double)i)
                fail("bcast", i, b[i], (double)root * 1000 + (double)i);
    } else if (!strcmp(kind, "reduce") || !strcmp(kind, "allreduce")) {
        int all = kind[0] == 'a';
        if (all)
            MPI_Allreduce(in, out, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        else
            MPI_Reduce(in, me == root ? out : NULL, (int)n, MPI_DOUBLE, MPI_SUM, root,
                       MPI_COMM_WORLD);
        for (size_t i = 0; (all || me == root) && i < n; i++)
            if (out[i] != rsum + (double)np * (double)i)
                fail(kind, i, out[i], rsum + (double)np * (double)i);
    } else if (!strcmp(kind, "reduce_scatter")) {
        MPI_Reduce_scatter_block(in, out, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (size_t i = 0; i < n; i++) {
            double want = rsum + (double)np * (double)((size_t)me * n + i);
            if (out[i] != want)
                fail("reduce_scatter", i, out[i], want);
        }
    } else if (!strcmp(kind, "allgather")) {
        MPI_Allgather(in, (int)n, MPI_DOUBLE, out, (int)n, MPI_DOUBLE, MPI_COMM_WORLD);
        for (size_t r = 0; r < (size_t)np; r++)
            for (size_t i = 0; i < n; i++)
                if (out[r * n + i] != (double)r * 1000 + (double)i)
                    fail("allgather", r * n + i, out[r * n + i], (double)r * 1000 + (double)i);
    } else if (!strcmp(kind, "alltoall")) {
        MPI_Alltoall(in, (int)n, MPI_DOUBLE, out, (int)n, MPI_DOUBLE, MPI_COMM_WORLD);
        for (size_t r = 0; r < (size_t)np; r++)
            for (size_t i = 0; i < n; i++) {
                double want = (double)r * 1000 + (double)((size_t)me * n + i);
                if (out[r * n + i] != want)
                    fail("alltoall", r * n + i, out[r * n + i], want);
            }
    } else if (!strcmp(kind, "first")) {
        MPI_Comm comms[4] = {MPI_COMM_WORLD, MPI_COMM_NULL, MPI_COMM_NULL, MPI_COMM_NULL};
        MPI_Group g;
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
        MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &comms[2]);
        MPI_Comm_group(MPI_COMM_WORLD, &g);
        MPI_Comm_create(MPI_COMM_WORLD, g, &comms[3]);
        MPI_Group_free(&g);
        for (int c = 0; c < 4; c++) {
            int cn;
            MPI_Comm_size(comms[c], &cn);
            MPI_Allreduce(in, out, (int)n, MPI_DOUBLE, MPI_SUM, comms[c]);
            double base = 0; /* sum of r * 1000 over the members' world ranks */
            for (int r = c == 2 ? me % 2 : 0; r < np; r += c == 2 ? 2 : 1)
                base += (double)r * 1000;
            for (size_t i = 0; i < n; i++)
                if (out[i] != base + (double)cn * (double)i)
                    fail("first allreduce", i, out[i], base + (double)cn * (double)i);
            if (c > 0)
                MPI_Comm_free(&comms[c]);
        }
    } else {
        if (me == 0)
            fprintf(stderr, "coll_cost: unknown collective %s\n", kind);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
