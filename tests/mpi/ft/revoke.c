/* Revocation reaches every member and fails what is pending and what follows, nobody
 * dying: rank 0 revokes a communicator while the others block in MPI_Recv from it, then
 * another while the others wait in a barrier (shared-memory areas) and in a large
 * broadcast; afterwards every operation on the revoked communicators returns
 * MPIX_ERR_REVOKED at every member, while MPIX_Comm_agree/iagree and MPIX_Comm_shrink still
 * work on them and the shrunk communicator (all members) computes correct results. */
#include "ft_util.h"

#define BIG (1 << 20)

int main(int argc, char **argv)
{
    ft_init(&argc, &argv, 90);
    if (t_size < 2)
        t_skip("needs at least 2 ranks");
    int me = t_rank;
    MPI_Comm a, b;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
    MPI_Comm_set_errhandler(a, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(b, MPI_ERRORS_RETURN);
    char *big = calloc(1, BIG);

    ft_set_phase("revoke while receiving");
    int x = 0;
    if (me == 0) {
        usleep(200000);
        FT_EXPECT(MPIX_Comm_revoke(a), MPI_SUCCESS, "MPIX_Comm_revoke");
    } else {
        FT_EXPECT(MPI_Recv(&x, 1, MPI_INT, 0, 1, a, MPI_STATUS_IGNORE), MPIX_ERR_REVOKED,
                  "MPI_Recv pending at the revocation");
    }
    int flag = 0;
    MPIX_Comm_is_revoked(a, &flag);
    if (!flag)
        t_fail("MPIX_Comm_is_revoked: expected 1, got 0");

    ft_set_phase("revoke while in collectives");
    if (me == 1 % t_size) {
        usleep(200000);
        MPIX_Comm_revoke(b);
    } else {
        FT_EXPECT(MPI_Barrier(b), MPIX_ERR_REVOKED, "MPI_Barrier pending at the revocation");
        FT_EXPECT(MPI_Bcast(big, BIG, MPI_BYTE, 1 % t_size, b), MPIX_ERR_REVOKED,
                  "1 MiB MPI_Bcast after the revocation");
    }

    ft_set_phase("operations on revoked communicators");
    MPI_Comm both[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        MPI_Comm c = both[i];
        int peer = (me + 1) % t_size, y = 0;
        MPI_Request r;
        FT_EXPECT(MPI_Send(&x, 1, MPI_INT, peer, 2, c), MPIX_ERR_REVOKED, "MPI_Send");
        FT_EXPECT(MPI_Send(big, BIG, MPI_BYTE, peer, 2, c), MPIX_ERR_REVOKED, "1 MiB MPI_Send");
        FT_EXPECT(MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 2, c, MPI_STATUS_IGNORE),
                  MPIX_ERR_REVOKED, "MPI_Recv");
        int rc = MPI_Irecv(&y, 1, MPI_INT, peer, 2, c, &r);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
        FT_EXPECT(rc, MPIX_ERR_REVOKED, "MPI_Irecv");
        FT_EXPECT(MPI_Barrier(c), MPIX_ERR_REVOKED, "MPI_Barrier");
        FT_EXPECT(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, c), MPIX_ERR_REVOKED,
                  "MPI_Allreduce");
        rc = MPI_Ibarrier(c, &r);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
        FT_EXPECT(rc, MPIX_ERR_REVOKED, "MPI_Ibarrier");
    }

    ft_set_phase("agreement on a revoked communicator");
    flag = me != t_size - 1; /* AND: 0 */
    FT_EXPECT(MPIX_Comm_agree(a, &flag), MPI_SUCCESS, "MPIX_Comm_agree");
    if (flag != 0)
        t_fail("MPIX_Comm_agree: expected 0, got %d", flag);
    flag = 0x5a | (me == 0 ? 0x100 : 0x300); /* AND: 0x15a */
    FT_EXPECT(MPIX_Comm_agree(b, &flag), MPI_SUCCESS, "MPIX_Comm_agree");
    if (flag != 0x15a)
        t_fail("MPIX_Comm_agree: expected 0x15a, got %#x", flag);

    ft_set_phase("shrink of a revoked communicator");
    MPI_Comm s;
    FT_EXPECT(MPIX_Comm_shrink(a, &s), MPI_SUCCESS, "MPIX_Comm_shrink");
    int ssize = 0, srank = -1;
    MPI_Comm_size(s, &ssize);
    MPI_Comm_rank(s, &srank);
    if (ssize != t_size || srank != me)
        t_fail("shrunk communicator: expected rank %d of %d, got %d of %d", me, t_size, srank,
               ssize);
    int one = me + 1, sum = 0;
    FT_EXPECT(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, s), MPI_SUCCESS,
              "MPI_Allreduce on the shrunk communicator");
    if (sum != t_size * (t_size + 1) / 2)
        t_fail("MPI_Allreduce on the shrunk communicator: expected %d, got %d",
               t_size * (t_size + 1) / 2, sum);
    memset(big, me == 0 ? 7 : 0, BIG);
    FT_EXPECT(MPI_Bcast(big, BIG, MPI_BYTE, 0, s), MPI_SUCCESS, "1 MiB MPI_Bcast on it");
    for (int i = 0; i < BIG; i += 4096)
        if (big[i] != 7)
            t_fail("1 MiB MPI_Bcast on the shrunk communicator: byte %d expected 7, got %d", i,
                   big[i]);
    int revoked = 1;
    MPIX_Comm_is_revoked(s, &revoked);
    if (revoked)
        t_fail("the shrunk communicator: expected not revoked, got revoked");

    ft_set_phase("nonblocking agreement");
    MPI_Request r;
    flag = me == 0 ? 6 : 7;
    FT_EXPECT(MPIX_Comm_iagree(s, &flag, &r), MPI_SUCCESS, "MPIX_Comm_iagree");
    int done = 0;
    while (!done)
        FT_EXPECT(MPI_Test(&r, &done, MPI_STATUS_IGNORE), MPI_SUCCESS, "MPI_Test of iagree");
    if (flag != 6)
        t_fail("MPIX_Comm_iagree: expected 6, got %d", flag);

    ft_set_phase("finalize");
    MPI_Comm_free(&s);
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
    free(big);
    ft_ok();
    MPI_Finalize();
    return 0;
}
