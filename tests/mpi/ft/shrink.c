/* ULFM shrink-and-continue, in the style of the ULFM examples: the ranks iterate an
 * allreduce over a working communicator; in iteration KILL_AT the victim (the last rank
 * unless argv[1] says) dies with SIGKILL. The survivors see the failure (MPIX_ERR_PROC_FAILED
 * or, at ranks that learn it from a peer first, MPIX_ERR_REVOKED), revoke the
 * communicator, shrink it, and redo the iteration on the survivors. Every iteration's
 * result is checked against the sum over the current members, and the survivors' final
 * totals against each other. The allreduce is large enough for the shared-memory areas to
 * work in pieces (argv[2] elements, default 40000), so the failure hits them mid-way. */
#include "ft_util.h"

#define ITERS   12
#define KILL_AT 4

static double contribution(int world, int it, int i)
{
    return (double)((world + 1) * (it + 1)) + (double)(i % 7);
}

int main(int argc, char **argv)
{
    ft_init(&argc, &argv, 90);
    if (t_size < 3)
        t_skip("needs at least 3 ranks");
    int victim = argc > 1 ? atoi(argv[1]) : t_size - 1;
    int n = argc > 2 ? atoi(argv[2]) : 40000;
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    double *in = malloc((size_t)n * sizeof(double)), *out = malloc((size_t)n * sizeof(double));
    double total = 0;
    int shrinks = 0;
    for (int it = 0; it < ITERS;) {
        ft_set_phase("allreduce");
        if (it == KILL_AT && t_rank == victim)
            ft_die();
        for (int i = 0; i < n; i++)
            in[i] = contribution(t_rank, it, i);
        int rc = MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, comm);
        /* Also a ring exchange, so that point-to-point meets the failure too. */
        int csize, crank, token = t_rank, got = -1;
        MPI_Comm_size(comm, &csize);
        MPI_Comm_rank(comm, &crank);
        if (rc == MPI_SUCCESS)
            rc = MPI_Sendrecv(&token, 1, MPI_INT, (crank + 1) % csize, 7, &got, 1, MPI_INT,
                              (crank + csize - 1) % csize, 7, comm, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            int cls = ft_class(rc);
            if (cls != MPIX_ERR_PROC_FAILED && cls != MPIX_ERR_REVOKED)
                t_fail("iteration %d: expected MPIX_ERR_PROC_FAILED or MPIX_ERR_REVOKED, got %d",
                       it, cls);
            /* Unblocks the members still inside this iteration's operations. */
            MPIX_Comm_revoke(comm);
        }
        /* Collectives are not uniform under failures (ULFM): a member may finish an
         * iteration another saw fail. Agreeing on the outcome keeps every survivor at the
         * same iteration, as the ULFM examples do. */
        ft_set_phase("agree");
        int ok = rc == MPI_SUCCESS;
        int arc = MPIX_Comm_agree(comm, &ok);
        if (arc != MPI_SUCCESS || !ok) {
            ft_set_phase("revoke+shrink");
            MPIX_Comm_revoke(comm);
            MPI_Comm next;
            rc = MPIX_Comm_shrink(comm, &next);
            if (rc != MPI_SUCCESS)
                t_fail("MPIX_Comm_shrink: expected MPI_SUCCESS, got %d", rc);
            MPI_Comm_free(&comm);
            comm = next;
            shrinks++;
            continue; /* redo this iteration on the survivors */
        }
        /* The expected sum over the members of comm (world ranks through the group). */
        MPI_Group wg, cg;
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Comm_group(comm, &cg);
        int *cr = malloc((size_t)csize * sizeof(int)), *wr = malloc((size_t)csize * sizeof(int));
        for (int i = 0; i < csize; i++)
            cr[i] = i;
        MPI_Group_translate_ranks(cg, csize, cr, wg, wr);
        for (int i = 0; i < n; i += 997) {
            double want = 0;
            for (int k = 0; k < csize; k++)
                want += contribution(wr[k], it, i);
            if (out[i] != want)
                t_fail("iteration %d element %d: expected %.0f, got %.0f", it, i, want, out[i]);
        }
        int left = wr[(crank + csize - 1) % csize];
        if (got != left)
            t_fail("iteration %d ring: expected %d, got %d", it, left, got);
        free(cr);
        free(wr);
        MPI_Group_free(&wg);
        MPI_Group_free(&cg);
        total += out[0];
        it++;
    }
    int csize;
    MPI_Comm_size(comm, &csize);
    if (csize != t_size - 1 || shrinks < 1)
        t_fail("after the failure: expected %d members and a shrink, got %d and %d shrinks",
               t_size - 1, csize, shrinks);
    /* Every survivor has the same total. */
    double mx = 0, mn = 0;
    ft_set_phase("final check");
    if (MPI_Allreduce(&total, &mx, 1, MPI_DOUBLE, MPI_MAX, comm) != MPI_SUCCESS ||
        MPI_Allreduce(&total, &mn, 1, MPI_DOUBLE, MPI_MIN, comm) != MPI_SUCCESS || mx != mn)
        t_fail("totals differ between survivors: %.0f .. %.0f", mn, mx);
    MPI_Comm_free(&comm);
    free(in);
    free(out);
    ft_set_phase("finalize");
    ft_ok();
    MPI_Finalize();
    return 0;
}
