/* oversub: many rounds of tightly coupled traffic, meant for more ranks than cores
 * (registered with 8 ranks; works with any number >= 2). Waiting ranks must give the CPU
 * to the ranks they wait for, or this test crawls.
 *
 * Each of ROUNDS rounds (default 300; argument 1 changes it):
 *   ring       Sendrecv to the right neighbour, from the left one, size cycling
 *              64 B .. 64 KiB
 *   ping-pong  with partner rank ^ (1 << (round % log2(size))) (when it exists): three
 *              bounces of 8 B .. 4 KiB, each reply depending on the message received
 *   all-to-all every 10th round: Irecv from and Isend to every other rank, 16 KiB each
 *   allreduce  every 25th round: the sum of the round's ring checksums agrees
 * Every payload is a seeded pattern checked byte for byte.
 */
#include "t_util.h"

#define TAG_RING 1
#define TAG_PING 2
#define TAG_A2A  3
#define A2A_SIZE 16384

static const int ring_sizes[] = {64, 1000, 4096, 20000, 65536, 1, 300, 8192};
#define NRING ((int)(sizeof ring_sizes / sizeof ring_sizes[0]))
static const int ping_sizes[] = {8, 100, 1024, 4096};

int main(int argc, char **argv)
{
    int rounds = 300, r, left, right, bits = 0, i;
    unsigned char *sbuf, *rbuf, *a2a_s, *a2a_r;
    MPI_Request *reqs;
    MPI_Status st;
    char what[160];

    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    if (argc > 1)
        rounds = atoi(argv[1]);
    while ((1 << (bits + 1)) <= t_size)
        bits++;
    left = (t_rank + t_size - 1) % t_size;
    right = (t_rank + 1) % t_size;
    sbuf = t_malloc(65536);
    rbuf = t_malloc(65536);
    a2a_s = t_malloc((size_t)A2A_SIZE * (size_t)t_size);
    a2a_r = t_malloc((size_t)A2A_SIZE * (size_t)t_size);
    reqs = t_malloc(sizeof(MPI_Request) * 2 * (size_t)t_size);

    for (r = 0; r < rounds; r++) {
        /* Ring. */
        int n = ring_sizes[r % NRING];
        long long ringsum, ringtot;
        t_fill(sbuf, (size_t)n, t_seed(1, (uint64_t)r, (uint64_t)t_rank));
        MPI_Sendrecv(sbuf, n, MPI_BYTE, right, TAG_RING, rbuf, 65536, MPI_BYTE, left, TAG_RING,
                     MPI_COMM_WORLD, &st);
        CHECK_INT(n, t_count(&st, MPI_BYTE),
                  t_fmt(what, sizeof what, "round %d ring: Get_count", r));
        CHECK_INT(left, st.MPI_SOURCE, t_fmt(what, sizeof what, "round %d ring: MPI_SOURCE", r));
        t_check_fill(rbuf, (size_t)n, t_seed(1, (uint64_t)r, (uint64_t)left),
                     t_fmt(what, sizeof what, "round %d ring: payload from %d", r, left));
        ringsum = (long long)(t_checksum(rbuf, (size_t)n) & 0xffffffffULL);

        /* Ping-pong. */
        {
            int partner = t_rank ^ (1 << (bits ? r % bits : 0)), b;
            if (partner < t_size) {
                int first = t_rank < partner;
                for (b = 0; b < 3; b++) {
                    int m = ping_sizes[(r + b) % 4];
                    uint64_t seed =
                        t_seed(2, (uint64_t)(r * 4 + b), (uint64_t)(first ? t_rank : partner));
                    if (first) {
                        t_fill(sbuf, (size_t)m, seed);
                        MPI_Send(sbuf, m, MPI_BYTE, partner, TAG_PING, MPI_COMM_WORLD);
                        MPI_Recv(rbuf, 65536, MPI_BYTE, partner, TAG_PING, MPI_COMM_WORLD, &st);
                        CHECK_INT(m, t_count(&st, MPI_BYTE),
                                  t_fmt(what, sizeof what, "round %d pong %d: Get_count", r, b));
                        /* The reply is the ping with every byte incremented. */
                        for (i = 0; i < m; i++)
                            if (rbuf[i] != (unsigned char)(t_pattern_byte(seed, (size_t)i) + 1))
                                t_fail("round %d pong %d from %d: byte %d: expected 0x%02x, got "
                                       "0x%02x",
                                       r, b, partner, i,
                                       (unsigned char)(t_pattern_byte(seed, (size_t)i) + 1),
                                       rbuf[i]);
                    } else {
                        MPI_Recv(rbuf, 65536, MPI_BYTE, partner, TAG_PING, MPI_COMM_WORLD, &st);
                        CHECK_INT(m, t_count(&st, MPI_BYTE),
                                  t_fmt(what, sizeof what, "round %d ping %d: Get_count", r, b));
                        t_check_fill(
                            rbuf, (size_t)m, seed,
                            t_fmt(what, sizeof what, "round %d ping %d from %d", r, b, partner));
                        for (i = 0; i < m; i++)
                            rbuf[i]++;
                        MPI_Send(rbuf, m, MPI_BYTE, partner, TAG_PING, MPI_COMM_WORLD);
                    }
                }
            }
        }

        /* All-to-all. */
        if (r % 10 == 0) {
            int p, k = 0;
            for (p = 0; p < t_size; p++) {
                if (p == t_rank)
                    continue;
                MPI_Irecv(a2a_r + (size_t)p * A2A_SIZE, A2A_SIZE, MPI_BYTE, p, TAG_A2A,
                          MPI_COMM_WORLD, &reqs[k++]);
            }
            for (p = 0; p < t_size; p++) {
                if (p == t_rank)
                    continue;
                t_fill(a2a_s + (size_t)p * A2A_SIZE, A2A_SIZE,
                       t_seed(3, (uint64_t)r, (uint64_t)(t_rank * 1000 + p)));
                MPI_Isend(a2a_s + (size_t)p * A2A_SIZE, A2A_SIZE, MPI_BYTE, p, TAG_A2A,
                          MPI_COMM_WORLD, &reqs[k++]);
            }
            MPI_Waitall(k, reqs, MPI_STATUSES_IGNORE);
            for (p = 0; p < t_size; p++) {
                if (p == t_rank)
                    continue;
                t_check_fill(
                    a2a_r + (size_t)p * A2A_SIZE, A2A_SIZE,
                    t_seed(3, (uint64_t)r, (uint64_t)(p * 1000 + t_rank)),
                    t_fmt(what, sizeof what, "round %d all-to-all: payload from %d", r, p));
            }
        }

        /* Everyone agrees on the ring checksums. */
        if (r % 25 == 0) {
            long long expect = 0;
            int p;
            for (p = 0; p < t_size; p++) {
                int nn = ring_sizes[r % NRING];
                unsigned char *tmp = t_malloc((size_t)nn);
                t_fill(tmp, (size_t)nn, t_seed(1, (uint64_t)r, (uint64_t)p));
                expect += (long long)(t_checksum(tmp, (size_t)nn) & 0xffffffffULL);
                free(tmp);
            }
            MPI_Allreduce(&ringsum, &ringtot, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
            CHECK_INT(expect, ringtot,
                      t_fmt(what, sizeof what, "round %d: Allreduce of ring checksums", r));
        }
    }

    free(sbuf);
    free(rbuf);
    free(a2a_s);
    free(a2a_r);
    free(reqs);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
