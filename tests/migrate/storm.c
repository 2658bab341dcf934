/* Messages while VMs migrate: every rank sends each peer a stream of numbered messages of
 * mixed sizes (eager to rendezvous), tags and kinds (standard and synchronous) and receives
 * with MPI_ANY_SOURCE / MPI_ANY_TAG; every message must arrive once, in its sender's order,
 * with its bytes intact. Rounds go on until `seconds` passed (rank 0 decides, through an
 * Allreduce, which runs over point-to-point and so crosses the switches too). Run under
 * ivcrun --hosts 2 --migrate ... (tests/migrate/storm.sh).
 *   storm SECONDS [BIG|RMA]   BIG: also a 64 MiB message per pair and round; RMA: also a
 *                             passive-target epoch per round on a window of every rank
 *                             (lock, accumulate, put, get, unlock), counters checked */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PER_ROUND 24

static const int sizes[] = {0, 8, 100, 1000, 4000, 20000, 70000, 300000, 1 << 20};
#define NSIZES (int)(sizeof(sizes) / sizeof(sizes[0]))

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static int size_of(int src, int dst, uint64_t seq)
{
    return sizes[mix(((uint64_t)src << 40) ^ ((uint64_t)dst << 20) ^ seq) % NSIZES];
}

static void fill(unsigned char *b, int n, int src, uint64_t seq)
{
    uint64_t x = mix(seq * 131 + (uint64_t)src);
    for (int i = 0; i < n; i++) {
        if ((i & 7) == 0)
            x = mix(x + (uint64_t)i);
        b[i] = (unsigned char)(x >> ((i & 7) * 8));
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double seconds = argc > 1 ? atof(argv[1]) : 5;
    int big = argc > 2 && strcmp(argv[2], "BIG") == 0;
    int rma = argc > 2 && strcmp(argv[2], "RMA") == 0;
    /* RMA: win[0..size-1] counts each origin's accumulates; win[size + o] is the round
     * number origin o last put. */
    long *win = NULL;
    MPI_Win w = MPI_WIN_NULL;
    if (rma) {
        MPI_Win_allocate((MPI_Aint)(2 * size * sizeof(long)), sizeof(long), MPI_INFO_NULL,
                         MPI_COMM_WORLD, &win, &w);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w);
        for (int i = 0; i < 2 * size; i++)
            win[i] = 0;
        MPI_Win_unlock(rank, w);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    const int bigsize = 64 << 20;
    uint64_t *sent = calloc((size_t)size, sizeof(uint64_t));
    uint64_t *got = calloc((size_t)size, sizeof(uint64_t));
    int maxmsg = 1 << 20;
    int nreq = PER_ROUND * size * 2 + 4 * size;
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)nreq);
    unsigned char **sbuf = malloc(sizeof(void *) * (size_t)nreq);
    for (int i = 0; i < nreq; i++)
        sbuf[i] = malloc((size_t)maxmsg + 16);
    unsigned char *rbuf = malloc((size_t)maxmsg + 16), *want = malloc((size_t)maxmsg + 16);
    unsigned char *bigs = big ? malloc((size_t)bigsize) : NULL,
                  *bigr = big ? malloc((size_t)bigsize) : NULL;
    double t0 = MPI_Wtime();
    long rounds = 0, msgs = 0, errors = 0;
    int go = 1;
    while (go) {
        int nr = 0;
        for (int k = 0; k < PER_ROUND; k++) {
            for (int d = 1; d < size; d++) {
                int dst = (rank + d) % size;
                uint64_t seq = sent[dst]++;
                int n = size_of(rank, dst, seq);
                unsigned char *b = sbuf[nr];
                memcpy(b, &seq, 8);
                fill(b + 8, n, rank, seq);
                int tag = (int)(seq % 7);
                if (seq % 5 == 3)
                    MPI_Issend(b, n + 8, MPI_BYTE, dst, tag, MPI_COMM_WORLD, &req[nr++]);
                else
                    MPI_Isend(b, n + 8, MPI_BYTE, dst, tag, MPI_COMM_WORLD, &req[nr++]);
            }
        }
        for (int k = 0; k < PER_ROUND * (size - 1); k++) {
            MPI_Status st;
            MPI_Recv(rbuf, maxmsg + 16, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            int src = st.MPI_SOURCE, count;
            MPI_Get_count(&st, MPI_BYTE, &count);
            uint64_t seq;
            memcpy(&seq, rbuf, 8);
            int n = size_of(src, rank, got[src]);
            if (seq != got[src] || count != n + 8 || st.MPI_TAG != (int)(seq % 7)) {
                if (errors++ < 5)
                    fprintf(stderr,
                            "rank %d: from %d expected message %llu (%d bytes, tag %d), got %llu "
                            "(%d bytes, tag %d)\n",
                            rank, src, (unsigned long long)got[src], n + 8, (int)(got[src] % 7),
                            (unsigned long long)seq, count, st.MPI_TAG);
                got[src] = seq + 1;
                continue;
            }
            fill(want, n, src, seq);
            if (memcmp(want, rbuf + 8, (size_t)n) != 0 && errors++ < 5)
                fprintf(stderr, "rank %d: message %llu from %d has wrong bytes\n", rank,
                        (unsigned long long)seq, src);
            got[src]++;
            msgs++;
        }
        if (big) {
            /* One 64 MiB rendezvous per ring neighbour, in flight while others move. */
            int to = (rank + 1) % size, from = (rank + size - 1) % size;
            fill(bigs, bigsize, rank, (uint64_t)rounds + 1000000);
            MPI_Irecv(bigr, bigsize, MPI_BYTE, from, 99, MPI_COMM_WORLD, &req[nr++]);
            MPI_Isend(bigs, bigsize, MPI_BYTE, to, 99, MPI_COMM_WORLD, &req[nr++]);
            MPI_Waitall(2, req + nr - 2, MPI_STATUSES_IGNORE);
            nr -= 2;
            fill(bigs, bigsize, from, (uint64_t)rounds + 1000000);
            if (memcmp(bigs, bigr, (size_t)bigsize) != 0 && errors++ < 5)
                fprintf(stderr, "rank %d: the 64 MiB message of round %ld is wrong\n", rank,
                        rounds);
        }
        MPI_Waitall(nr, req, MPI_STATUSES_IGNORE);
        if (rma) {
            /* An epoch on every other rank's window, while VMs move. */
            for (int d = 1; d < size; d++) {
                int t = (rank + d) % size;
                long one = 1, mark = rounds + 1, back = -1;
                MPI_Win_lock(d % 2 ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, t, 0, w);
                MPI_Accumulate(&one, 1, MPI_LONG, t, rank, 1, MPI_LONG, MPI_SUM, w);
                MPI_Put(&mark, 1, MPI_LONG, t, size + rank, 1, MPI_LONG, w);
                MPI_Win_flush(t, w);
                MPI_Get(&back, 1, MPI_LONG, t, size + rank, 1, MPI_LONG, w);
                MPI_Win_unlock(t, w);
                if (back != mark && errors++ < 5)
                    fprintf(stderr, "rank %d: read back %ld from rank %d's window, put %ld\n", rank,
                            back, t, mark);
            }
        }
        rounds++;
        go = MPI_Wtime() - t0 < seconds;
        MPI_Allreduce(MPI_IN_PLACE, &go, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    }
    if (rma) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w);
        for (int o = 0; o < size; o++)
            if (o != rank && (win[o] != rounds || win[size + o] != rounds) && errors++ < 5)
                fprintf(stderr, "rank %d: origin %d accumulated %ld and put %ld, not %ld\n", rank,
                        o, win[o], win[size + o], rounds);
        MPI_Win_unlock(rank, w);
        MPI_Win_free(&w);
    }
    for (int i = 0; i < nreq; i++)
        free(sbuf[i]);
    free(sbuf);
    free(req);
    free(rbuf);
    free(want);
    free(bigs);
    free(bigr);
    free(sent);
    free(got);
    long tot[2] = {msgs, errors};
    MPI_Allreduce(MPI_IN_PLACE, tot, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("storm: %ld rounds, %ld messages checked, %ld errors\n", rounds, tot[0], tot[1]);
    MPI_Finalize();
    return tot[1] != 0;
}
