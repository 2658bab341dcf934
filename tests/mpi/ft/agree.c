/* MPIX_Comm_agree stays uniform when members die during it. Each member contributes all
 * ones but its own bit, so the AND names exactly whose contributions were counted. Two
 * victims: the last rank starts an MPIX_Comm_iagree (its first messages go out) and dies
 * at once; later the second-to-last starts one, advances it a few times, then dies in the
 * middle of the rounds. The survivors' MPIX_Comm_agree must return, with
 * MPIX_ERR_PROC_FAILED (failures not acknowledged), the same flag at every survivor
 * (checked through an allgather over the shrunk communicator), counting every survivor;
 * after MPIX_Comm_failure_ack it returns MPI_SUCCESS. */
#include "ft_util.h"

#define ROUNDS 5

static int mine(int rank)
{
    return ~(1 << rank) & 0x7fffffff;
}

int main(int argc, char **argv)
{
    ft_init(&argc, &argv, 90);
    if (t_size < 4 || t_size > 30)
        t_skip("needs 4 to 30 ranks");
    int me = t_rank, v1 = t_size - 1, v2 = t_size - 2, nsurv = t_size - 2;
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int got[ROUNDS], rcs[ROUNDS];
    for (int k = 0; k < ROUNDS; k++) {
        ft_set_phase("agreement");
        int flag = mine(me);
        if ((k == 1 && me == v1) || (k == 3 && me == v2)) {
            MPI_Request r;
            MPIX_Comm_iagree(comm, &flag, &r);
            for (int i = 0; k == 3 && i < 3; i++) { /* the second victim gets further */
                int done;
                MPI_Test(&r, &done, MPI_STATUS_IGNORE);
                usleep(2000);
            }
            ft_die();
        }
        rcs[k] = ft_class(MPIX_Comm_agree(comm, &flag));
        got[k] = flag;
        if (k == 2) /* acknowledge the first failure: the next one fails again */
            MPIX_Comm_failure_ack(comm);
    }
    /* Expected: round 0 counts everybody; round 2 (after the first death, acknowledged at
     * the end of it) every member but the first victim; round 4 only the survivors. Rounds
     * 1 and 3 count every survivor and maybe the victim. */
    int all = 0x7fffffff, surv = 0x7fffffff;
    for (int r = 0; r < t_size; r++) {
        all &= mine(r);
        if (r != v1 && r != v2)
            surv &= mine(r);
    }
    if (got[0] != all || rcs[0] != MPI_SUCCESS)
        t_fail("agreement 0: expected %#x (MPI_SUCCESS), got %#x (%s)", all, got[0],
               ft_name(rcs[0]));
    for (int k = 1; k < ROUNDS; k++) {
        int lo = k == 1 ? surv & mine(v2) : surv, hi = k == 1 ? all : k == 3 ? surv & mine(v2) : lo;
        if (k == 2)
            lo = hi = surv & mine(v2);
        int ok = got[k] == lo || got[k] == hi;
        if (!ok)
            t_fail("agreement %d: expected %#x or %#x, got %#x", k, lo, hi, got[k]);
        int want = k == 1 || k == 2 || k == 3 || k == 4 ? MPIX_ERR_PROC_FAILED : MPI_SUCCESS;
        if (k == 3 && rcs[k] == MPI_SUCCESS)
            want = MPI_SUCCESS; /* the second death may not be known yet when it returns */
        if (rcs[k] != want)
            t_fail("agreement %d: expected %s, got %s", k, ft_name(want), ft_name(rcs[k]));
    }
    ft_set_phase("comparison");
    MPIX_Comm_failure_ack(comm);
    int flag = 1;
    FT_EXPECT(MPIX_Comm_agree(comm, &flag), MPI_SUCCESS, "agreement after both acks");
    MPI_Comm s;
    FT_EXPECT(MPIX_Comm_shrink(comm, &s), MPI_SUCCESS, "MPIX_Comm_shrink");
    int ssize;
    MPI_Comm_size(s, &ssize);
    if (ssize != nsurv)
        t_fail("shrunk communicator: expected %d members, got %d", nsurv, ssize);
    int *all_got = malloc((size_t)nsurv * ROUNDS * sizeof(int));
    FT_EXPECT(MPI_Allgather(got, ROUNDS, MPI_INT, all_got, ROUNDS, MPI_INT, s), MPI_SUCCESS,
              "MPI_Allgather");
    for (int i = 0; i < nsurv; i++)
        for (int k = 0; k < ROUNDS; k++)
            if (all_got[i * ROUNDS + k] != got[k])
                t_fail("agreement %d not uniform: here %#x, at survivor %d %#x", k, got[k], i,
                       all_got[i * ROUNDS + k]);
    free(all_got);
    MPI_Comm_free(&s);
    MPI_Comm_free(&comm);
    ft_set_phase("finalize");
    ft_ok();
    MPI_Finalize();
    return 0;
}
