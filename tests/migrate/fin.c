/* A migration during MPI_Finalize: 4 ranks in 4 VMs on 2 hosts (ranks 0 and 1 on host 0,
 * ranks 2 and 3 on host 1); ivcrun --migrate 1:1@1 orders rank 1 to host 1 one second in.
 * The move is held up on purpose until the other ranks are in MPI_Finalize:
 *  - rank 1 has a synchronous send to rank 0 (its co-located peer) in flight when the order
 *    comes, and a leaving rank lets go of its old region only once nothing with its old
 *    neighbours is in flight; rank 0 matches it only DELAY seconds in, then finalizes;
 *  - ranks 2 and 3 (the ranks of the host rank 1 moves to) send rank 1 numbered messages
 *    and enter MPI_Finalize at once, so they are finalizing when rank 1 joins their region
 *    and says HELLO;
 *  - rank 1 completes its send, receives the messages of ranks 2 and 3 (sent over the
 *    network before it moved) and finalizes, the move possibly still under way.
 * Every message is checked (sequence, size, bytes); the job must end with status 0.
 * Run by tests/migrate/migrate.sh finalize. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DELAY 4.0 /* s: rank 0 holds the move up this long */
#define NMSG  8   /* messages from each of ranks 2 and 3 to rank 1 */

/* Small enough to leave eagerly: the senders must not wait for rank 1 to match them. */
static const int sizes[NMSG] = {0, 1, 8, 100, 1000, 500, 64, 16};

static void fill(unsigned char *b, int n, int src, int seq)
{
    for (int i = 0; i < n; i++)
        b[i] = (unsigned char)(src * 37 + seq * 11 + i);
}

/* Receives message `seq` from `src` and checks it; returns the errors found. */
static long check_recv(int src, int seq, unsigned char *r, unsigned char *want)
{
    MPI_Status st;
    int count;
    MPI_Recv(r, 1 << 16, MPI_BYTE, src, 7, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_BYTE, &count);
    int n = sizes[seq];
    fill(want, n, src, seq);
    if (count != n || memcmp(want, r, (size_t)n) != 0) {
        fprintf(stderr, "rank 1: message %d from rank %d: expected %d bytes, got %d%s\n", seq, src,
                n, count, count == n ? " with wrong bytes" : "");
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0)
            fprintf(stderr, "fin: needs 4 ranks\n");
        MPI_Finalize();
        return 1;
    }
    unsigned char *s = malloc(1 << 16), *r = malloc(1 << 16), *want = malloc(1 << 16);
    long errors = 0;
    double t0 = MPI_Wtime();
    /* Every pair talks once before the move (and meets: nobody finalizes before this). */
    int x = rank, sum = 0;
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != 6 && errors++ == 0)
        fprintf(stderr, "rank %d: Allreduce gave %d, expected 6\n", rank, sum);
    if (rank == 1) {
        MPI_Request req;
        fill(s, 4000, 1, 0);
        MPI_Issend(s, 4000, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &req);
        /* In MPI calls, so that the order is read, until well after it came. */
        int done = 0;
        while (MPI_Wtime() - t0 < DELAY - 1 && !done)
            MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done && errors++ == 0)
            fprintf(stderr, "rank 1: the synchronous send completed before rank 0 received it\n");
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        for (int src = 2; src < 4; src++)
            for (int k = 0; k < NMSG; k++)
                errors += check_recv(src, k, r, want);
    } else if (rank == 0) {
        while (MPI_Wtime() - t0 < DELAY)
            usleep(10000); /* outside MPI: rank 1's FLUSH waits for rank 0's next call */
        MPI_Status st;
        int count;
        MPI_Recv(r, 1 << 16, MPI_BYTE, 1, 5, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_BYTE, &count);
        fill(want, 4000, 1, 0);
        if ((count != 4000 || memcmp(want, r, 4000) != 0) && errors++ == 0)
            fprintf(stderr, "rank 0: rank 1's synchronous send: %d bytes, or wrong bytes\n", count);
    } else {
        for (int k = 0; k < NMSG; k++) {
            fill(s, sizes[k], rank, k);
            MPI_Send(s, sizes[k], MPI_BYTE, 1, 7, MPI_COMM_WORLD);
        }
    }
    double t_fin = MPI_Wtime() - t0;
    free(s);
    free(r);
    free(want);
    MPI_Finalize();
    /* After MPI_Finalize nothing of MPI's may be called: each rank reports its own. */
    printf("fin: rank %d entered MPI_Finalize at %.2f s: %ld errors\n", rank, t_fin, errors);
    return errors != 0;
}
