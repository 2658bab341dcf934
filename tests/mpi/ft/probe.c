/* Probes after a failure and on a revoked communicator (ULFM rules): none may wait forever
 * for a message that cannot come. The last rank dies while the survivors block in
 * MPI_Probe(MPI_ANY_SOURCE) (rank 0), MPI_Mprobe(MPI_ANY_SOURCE) (rank 1) and
 * MPI_Probe of the victim (the others): each returns MPIX_ERR_PROC_FAILED. Then every probe
 * (Probe, Iprobe, Mprobe, Improbe) of the victim, and of MPI_ANY_SOURCE until the failure is
 * acknowledged, returns MPIX_ERR_PROC_FAILED; after MPIX_Comm_failure_ack an MPI_ANY_SOURCE
 * probe finds a survivor's message (data checked). Finally rank 0 revokes a communicator of
 * the survivors while the others block in MPI_Probe on it: they return MPIX_ERR_REVOKED,
 * and so does every probe on it afterwards. */
#include "ft_util.h"

#define TAG_NONE 42 /* nobody sends it */

static void expect_probes(MPI_Comm comm, int source, int want, const char *what)
{
    MPI_Status st;
    MPI_Message m = MPI_MESSAGE_NULL;
    int flag = -1;
    char w[160];
    snprintf(w, sizeof w, "MPI_Probe %s", what);
    FT_EXPECT(MPI_Probe(source, TAG_NONE, comm, &st), want, w);
    snprintf(w, sizeof w, "MPI_Iprobe %s", what);
    FT_EXPECT(MPI_Iprobe(source, TAG_NONE, comm, &flag, &st), want, w);
    snprintf(w, sizeof w, "MPI_Mprobe %s", what);
    FT_EXPECT(MPI_Mprobe(source, TAG_NONE, comm, &m, &st), want, w);
    snprintf(w, sizeof w, "MPI_Improbe %s", what);
    FT_EXPECT(MPI_Improbe(source, TAG_NONE, comm, &flag, &m, &st), want, w);
    if (m != MPI_MESSAGE_NULL)
        t_fail("%s: expected no message handed out, got one", what);
}

int main(int argc, char **argv)
{
    ft_init(&argc, &argv, 60);
    if (t_size < 3)
        t_skip("needs at least 3 ranks");
    int victim = t_size - 1, me = t_rank, nsurv = t_size - 1;
    MPI_Comm comm, sub, rcomm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_split(MPI_COMM_WORLD, me == victim ? MPI_UNDEFINED : 0, me, &sub);
    if (me != victim) {
        MPI_Comm_set_errhandler(sub, MPI_ERRORS_RETURN);
        MPI_Comm_dup(sub, &rcomm);
        MPI_Comm_set_errhandler(rcomm, MPI_ERRORS_RETURN);
    }
    ft_set_phase("before the failure");
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == victim) {
        usleep(300000); /* the survivors are in their probes by now */
        ft_die();
    }

    ft_set_phase("probes blocked at the failure");
    MPI_Status st;
    MPI_Message m = MPI_MESSAGE_NULL;
    if (me == 0)
        FT_EXPECT(MPI_Probe(MPI_ANY_SOURCE, TAG_NONE, comm, &st), MPIX_ERR_PROC_FAILED,
                  "MPI_Probe(MPI_ANY_SOURCE) blocked at the failure");
    else if (me == 1)
        FT_EXPECT(MPI_Mprobe(MPI_ANY_SOURCE, TAG_NONE, comm, &m, &st), MPIX_ERR_PROC_FAILED,
                  "MPI_Mprobe(MPI_ANY_SOURCE) blocked at the failure");
    else
        FT_EXPECT(MPI_Probe(victim, TAG_NONE, comm, &st), MPIX_ERR_PROC_FAILED,
                  "MPI_Probe of the victim blocked at the failure");
    ft_wait_failed(comm, 1);

    ft_set_phase("probes after the failure");
    expect_probes(comm, victim, MPIX_ERR_PROC_FAILED, "of the victim");
    expect_probes(comm, MPI_ANY_SOURCE, MPIX_ERR_PROC_FAILED,
                  "of MPI_ANY_SOURCE before the acknowledgement");
    /* A survivor's message is still found when probed by its source. */
    int right = (me + 1) % nsurv, left = (me + nsurv - 1) % nsurv, token = 500 + me, x = -1;
    FT_EXPECT(MPI_Send(&token, 1, MPI_INT, right, 7, comm), MPI_SUCCESS, "send to a survivor");
    FT_EXPECT(MPI_Probe(left, 7, comm, &st), MPI_SUCCESS, "MPI_Probe of a survivor");
    if (st.MPI_SOURCE != left || st.MPI_TAG != 7)
        t_fail("MPI_Probe of a survivor: expected source %d tag 7, got %d tag %d", left,
               st.MPI_SOURCE, st.MPI_TAG);
    FT_EXPECT(MPI_Recv(&x, 1, MPI_INT, left, 7, comm, MPI_STATUS_IGNORE), MPI_SUCCESS,
              "receive from a survivor");
    if (x != 500 + left)
        t_fail("message from a survivor: expected %d, got %d", 500 + left, x);

    ft_set_phase("MPI_ANY_SOURCE probes after the acknowledgement");
    FT_EXPECT(MPIX_Comm_failure_ack(comm), MPI_SUCCESS, "MPIX_Comm_failure_ack");
    int flag = -1;
    FT_EXPECT(MPI_Iprobe(MPI_ANY_SOURCE, TAG_NONE, comm, &flag, &st), MPI_SUCCESS,
              "MPI_Iprobe(MPI_ANY_SOURCE) after the acknowledgement");
    if (flag != 0)
        t_fail("MPI_Iprobe(MPI_ANY_SOURCE) of a tag nobody sends: expected flag 0, got %d", flag);
    token = 600 + me;
    FT_EXPECT(MPI_Send(&token, 1, MPI_INT, right, 8, comm), MPI_SUCCESS, "send after the ack");
    FT_EXPECT(MPI_Mprobe(MPI_ANY_SOURCE, 8, comm, &m, &st), MPI_SUCCESS,
              "MPI_Mprobe(MPI_ANY_SOURCE) after the acknowledgement");
    FT_EXPECT(MPI_Mrecv(&x, 1, MPI_INT, &m, &st), MPI_SUCCESS, "MPI_Mrecv after the ack");
    if (x != 600 + left || st.MPI_SOURCE != left)
        t_fail("MPI_ANY_SOURCE message after the ack: expected %d from %d, got %d from %d",
               600 + left, left, x, st.MPI_SOURCE);
    /* The victim stays failed. */
    FT_EXPECT(MPI_Iprobe(victim, TAG_NONE, comm, &flag, &st), MPIX_ERR_PROC_FAILED,
              "MPI_Iprobe of the victim after the acknowledgement");

    ft_set_phase("probes blocked at a revocation");
    MPI_Barrier(sub);
    if (me == 0) {
        usleep(200000);
        FT_EXPECT(MPIX_Comm_revoke(rcomm), MPI_SUCCESS, "MPIX_Comm_revoke");
    } else if (me == 1) {
        FT_EXPECT(MPI_Mprobe(0, TAG_NONE, rcomm, &m, &st), MPIX_ERR_REVOKED,
                  "MPI_Mprobe blocked at the revocation");
    } else {
        FT_EXPECT(MPI_Probe(MPI_ANY_SOURCE, TAG_NONE, rcomm, &st), MPIX_ERR_REVOKED,
                  "MPI_Probe(MPI_ANY_SOURCE) blocked at the revocation");
    }
    ft_set_phase("probes on a revoked communicator");
    expect_probes(rcomm, 0, MPIX_ERR_REVOKED, "on a revoked communicator");
    expect_probes(rcomm, MPI_ANY_SOURCE, MPIX_ERR_REVOKED,
                  "of MPI_ANY_SOURCE on a revoked communicator");
    /* The survivors' own communicator is untouched. */
    int one = 1, sum = 0;
    FT_EXPECT(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, sub), MPI_SUCCESS,
              "MPI_Allreduce without the victim");
    if (sum != nsurv)
        t_fail("MPI_Allreduce without the victim: expected %d, got %d", nsurv, sum);

    ft_set_phase("finalize");
    MPI_Comm_free(&rcomm);
    MPI_Comm_free(&sub);
    MPI_Comm_free(&comm);
    ft_ok();
    MPI_Finalize();
    return 0;
}
