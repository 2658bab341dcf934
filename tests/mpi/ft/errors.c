/* What operations return after a failure, under MPI_ERRORS_RETURN (ULFM rules): the last
 * rank dies; the survivors check point-to-point with it, MPI_ANY_SOURCE receives before
 * and after MPIX_Comm_failure_ack (a nonblocking one posted before the failure, or after it,
 * is MPIX_ERR_PROC_FAILED_PENDING and stays active), collectives on communicators that
 * contain it (blocking, nonblocking, large ones in the shared-memory areas), and that
 * everything not involving it goes on: point-to-point between survivors on the same
 * communicator, collectives on a communicator without it, all with checked data. */
#include "ft_util.h"

#define BIG (1 << 20)

static void fill(unsigned char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(i * 31 + (size_t)seed);
}

static void check(const unsigned char *b, size_t n, int seed, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != (unsigned char)(i * 31 + (size_t)seed))
            t_fail("%s: byte %zu: expected %u, got %u", what, i,
                   (unsigned)(unsigned char)(i * 31 + (size_t)seed), (unsigned)b[i]);
}

int main(int argc, char **argv)
{
    ft_init(&argc, &argv, 90);
    if (t_size < 3)
        t_skip("needs at least 3 ranks");
    int victim = t_size - 1, me = t_rank, nsurv = t_size - 1;
    MPI_Comm comm, sub;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_split(MPI_COMM_WORLD, me == victim ? MPI_UNDEFINED : 0, me, &sub);
    unsigned char *big = malloc(BIG), *big2 = malloc(BIG);
    int pending_val = -1, from_victim = -1;
    MPI_Request pend = MPI_REQUEST_NULL, fromv = MPI_REQUEST_NULL;
    if (me != victim) {
        MPI_Comm_set_errhandler(sub, MPI_ERRORS_RETURN);
        MPI_Irecv(&pending_val, 1, MPI_INT, MPI_ANY_SOURCE, 99, comm, &pend);
        MPI_Irecv(&from_victim, 1, MPI_INT, victim, 5, comm, &fromv);
    }
    ft_set_phase("before the failure");
    MPI_Barrier(comm); /* comm's shared-memory state is set up */
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == victim)
        ft_die();

    /* A reader that gives up: rank 0 has not looked (no MPI call) when it publishes a
     * broadcast on comm; the others know of the failure and give the broadcast up without
     * reading it. Rank 0's next shared-memory operation (on sub) must not wait for their
     * acknowledgements of it. */
    ft_set_phase("a broadcast given up by its readers");
    /* Above the eager limit, so that it goes through the areas, not point-to-point. */
    memset(big2, me == 0 ? 5 : 0, 65536);
    if (me == 0) {
        sleep(1);
        int rc0 = ft_class(MPI_Bcast(big2, 65536, MPI_BYTE, 0, comm));
        if (rc0 != MPI_SUCCESS && rc0 != MPIX_ERR_PROC_FAILED)
            t_fail("MPI_Bcast at the root: expected success or MPIX_ERR_PROC_FAILED, got %d", rc0);
    } else {
        ft_wait_failed(comm, 1);
        FT_EXPECT(MPI_Bcast(big2, 65536, MPI_BYTE, 0, comm), MPIX_ERR_PROC_FAILED,
                  "MPI_Bcast after the failure");
    }
    int bsum = 0;
    FT_EXPECT(MPI_Allreduce(&me, &bsum, 1, MPI_INT, MPI_SUM, sub), MPI_SUCCESS,
              "MPI_Allreduce without the victim after the broadcast given up");
    if (bsum != nsurv * (nsurv - 1) / 2)
        t_fail("MPI_Allreduce without the victim: expected %d, got %d", nsurv * (nsurv - 1) / 2,
               bsum);

    ft_set_phase("detection");
    ft_wait_failed(comm, 1);

    ft_set_phase("point-to-point with the victim");
    FT_EXPECT(MPI_Wait(&fromv, MPI_STATUS_IGNORE), MPIX_ERR_PROC_FAILED, "posted Irecv from it");
    int x = 1;
    FT_EXPECT(MPI_Recv(&x, 1, MPI_INT, victim, 1, comm, MPI_STATUS_IGNORE), MPIX_ERR_PROC_FAILED,
              "MPI_Recv from it");
    FT_EXPECT(MPI_Send(&x, 1, MPI_INT, victim, 1, comm), MPIX_ERR_PROC_FAILED, "MPI_Send to it");
    FT_EXPECT(MPI_Send(big, BIG, MPI_BYTE, victim, 1, comm), MPIX_ERR_PROC_FAILED,
              "1 MiB MPI_Send to it");
    MPI_Status st;
    FT_EXPECT(MPI_Probe(victim, 1, comm, &st), MPIX_ERR_PROC_FAILED, "MPI_Probe of it");

    ft_set_phase("MPI_ANY_SOURCE before the acknowledgement");
    FT_EXPECT(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 2, comm, MPI_STATUS_IGNORE),
              MPIX_ERR_PROC_FAILED, "blocking MPI_ANY_SOURCE receive");
    int flag = 1;
    FT_EXPECT(MPI_Test(&pend, &flag, MPI_STATUS_IGNORE), MPIX_ERR_PROC_FAILED_PENDING,
              "MPI_Test of an MPI_ANY_SOURCE receive posted before the failure");
    if (flag || pend == MPI_REQUEST_NULL)
        t_fail("pending MPI_ANY_SOURCE receive: expected it still active, got flag %d", flag);
    FT_EXPECT(MPI_Wait(&pend, MPI_STATUS_IGNORE), MPIX_ERR_PROC_FAILED_PENDING,
              "MPI_Wait of it");
    if (pend == MPI_REQUEST_NULL)
        t_fail("MPI_Wait freed a pending request");
    /* Posted after the failure, before the acknowledgement: it starts (MPI_Irecv succeeds)
     * and stays pending like the one posted before (MPICH's ft/anysource). */
    int late_val = -1;
    MPI_Request late = MPI_REQUEST_NULL;
    FT_EXPECT(MPI_Irecv(&late_val, 1, MPI_INT, MPI_ANY_SOURCE, 98, comm, &late), MPI_SUCCESS,
              "MPI_Irecv(MPI_ANY_SOURCE) after the failure");
    FT_EXPECT(MPI_Wait(&late, MPI_STATUS_IGNORE), MPIX_ERR_PROC_FAILED_PENDING,
              "MPI_Wait of an MPI_ANY_SOURCE receive posted after the failure");
    if (late == MPI_REQUEST_NULL)
        t_fail("MPI_Wait freed a pending request posted after the failure");

    ft_set_phase("collectives with the victim");
    double d = 1, dsum = 0;
    FT_EXPECT(MPI_Barrier(comm), MPIX_ERR_PROC_FAILED, "MPI_Barrier");
    FT_EXPECT(MPI_Barrier(MPI_COMM_WORLD), MPIX_ERR_PROC_FAILED, "MPI_Barrier on COMM_WORLD");
    FT_EXPECT(MPI_Allreduce(&d, &dsum, 1, MPI_DOUBLE, MPI_SUM, comm), MPIX_ERR_PROC_FAILED,
              "MPI_Allreduce");
    FT_EXPECT(MPI_Bcast(big, BIG, MPI_BYTE, 0, comm), MPIX_ERR_PROC_FAILED, "1 MiB MPI_Bcast");
    MPI_Request r;
    int rc = MPI_Ibarrier(comm, &r);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    FT_EXPECT(rc, MPIX_ERR_PROC_FAILED, "MPI_Ibarrier");
    rc = MPI_Iallreduce(&d, &dsum, 1, MPI_DOUBLE, MPI_SUM, comm, &r);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    FT_EXPECT(rc, MPIX_ERR_PROC_FAILED, "MPI_Iallreduce");

    ft_set_phase("what does not involve the victim");
    /* Point-to-point between survivors on the communicator that has the failure: 1 MiB
     * around the ring of survivors. */
    int right = (me + 1) % nsurv, left = (me + nsurv - 1) % nsurv;
    fill(big, BIG, me);
    memset(big2, 0, BIG);
    rc = MPI_Sendrecv(big, BIG, MPI_BYTE, right, 3, big2, BIG, MPI_BYTE, left, 3, comm,
                      MPI_STATUS_IGNORE);
    FT_EXPECT(rc, MPI_SUCCESS, "1 MiB ring between survivors");
    check(big2, BIG, left, "1 MiB ring between survivors");
    /* Collectives on a communicator without the victim. */
    int one = me + 1, sum = 0;
    FT_EXPECT(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, sub), MPI_SUCCESS,
              "MPI_Allreduce without the victim");
    if (sum != nsurv * (nsurv + 1) / 2)
        t_fail("MPI_Allreduce without the victim: expected %d, got %d", nsurv * (nsurv + 1) / 2,
               sum);
    FT_EXPECT(MPI_Barrier(sub), MPI_SUCCESS, "MPI_Barrier without the victim");
    if (me == 1)
        fill(big, BIG, 77);
    FT_EXPECT(MPI_Bcast(big, BIG, MPI_BYTE, 1, sub), MPI_SUCCESS, "1 MiB MPI_Bcast without it");
    check(big, BIG, 77, "1 MiB MPI_Bcast without the victim");
    FT_EXPECT(MPI_Ibarrier(sub, &r), MPI_SUCCESS, "MPI_Ibarrier without the victim");
    FT_EXPECT(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS, "MPI_Ibarrier without the victim");

    ft_set_phase("acknowledgement");
    FT_EXPECT(MPIX_Comm_failure_ack(comm), MPI_SUCCESS, "MPIX_Comm_failure_ack");
    MPI_Group acked, wg;
    MPIX_Comm_failure_get_acked(comm, &acked);
    int n = 0, wr = -1, zero = 0;
    MPI_Group_size(acked, &n);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    if (n == 1)
        MPI_Group_translate_ranks(acked, 1, &zero, wg, &wr);
    if (n != 1 || wr != victim)
        t_fail("acknowledged group: expected {%d}, got %d members (first %d)", victim, n, wr);
    MPI_Group_free(&acked);
    MPI_Group_free(&wg);
    /* MPI_ANY_SOURCE works again: the pending receive gets its message from a survivor. */
    int token = 1000 + me;
    FT_EXPECT(MPI_Send(&token, 1, MPI_INT, right, 99, comm), MPI_SUCCESS, "send after the ack");
    FT_EXPECT(MPI_Wait(&pend, &st), MPI_SUCCESS, "pending MPI_ANY_SOURCE receive after the ack");
    if (pending_val != 1000 + left || st.MPI_SOURCE != left)
        t_fail("pending MPI_ANY_SOURCE receive: expected %d from %d, got %d from %d",
               1000 + left, left, pending_val, st.MPI_SOURCE);
    FT_EXPECT(MPI_Send(&token, 1, MPI_INT, right, 98, comm), MPI_SUCCESS, "send after the ack");
    FT_EXPECT(MPI_Wait(&late, &st), MPI_SUCCESS, "late MPI_ANY_SOURCE receive after the ack");
    if (late_val != 1000 + left || st.MPI_SOURCE != left)
        t_fail("late MPI_ANY_SOURCE receive: expected %d from %d, got %d from %d", 1000 + left,
               left, late_val, st.MPI_SOURCE);
    FT_EXPECT(MPI_Send(&token, 1, MPI_INT, right, 4, comm), MPI_SUCCESS, "send after the ack");
    FT_EXPECT(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 4, comm, &st), MPI_SUCCESS,
              "blocking MPI_ANY_SOURCE receive after the ack");
    if (x != 1000 + left)
        t_fail("MPI_ANY_SOURCE receive after the ack: expected %d, got %d", 1000 + left, x);
    /* Collectives still fail: acknowledging does not repair the communicator. */
    FT_EXPECT(MPI_Barrier(comm), MPIX_ERR_PROC_FAILED, "MPI_Barrier after the ack");

    ft_set_phase("error classes");
    int cls = -1, len = 0;
    char text[MPI_MAX_ERROR_STRING];
    MPI_Error_class(MPIX_ERR_REVOKED, &cls);
    if (cls != MPIX_ERR_REVOKED)
        t_fail("MPI_Error_class(MPIX_ERR_REVOKED): expected itself, got %d", cls);
    MPI_Error_class(MPIX_ERR_PROC_FAILED_PENDING, &cls);
    if (cls != MPIX_ERR_PROC_FAILED_PENDING)
        t_fail("MPI_Error_class(MPIX_ERR_PROC_FAILED_PENDING): expected itself, got %d", cls);
    if (MPI_Error_string(MPIX_ERR_REVOKED, text, &len) != MPI_SUCCESS || len == 0)
        t_fail("MPI_Error_string(MPIX_ERR_REVOKED): expected a text, got %d chars", len);
    int newcls;
    if (MPI_Add_error_class(&newcls) != MPI_SUCCESS || newcls <= MPIX_ERR_REVOKED)
        t_fail("MPI_Add_error_class: expected a class above MPIX_ERR_REVOKED, got %d", newcls);

    ft_set_phase("finalize");
    MPI_Comm_free(&sub);
    MPI_Comm_free(&comm);
    free(big);
    free(big2);
    ft_ok();
    MPI_Finalize();
    return 0;
}
