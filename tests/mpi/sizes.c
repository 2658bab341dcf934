/* sizes: every interesting message size.
 *
 * Sizes 0, 1, 2, 3 and 2^k - 1, 2^k, 2^k + 1 for k = 2 .. 26 (up to 64 MiB + 1 byte;
 * an optional argument lowers the maximum, in bytes). Ranks are paired (0,1), (2,3), ...;
 * for each size and pair:
 *   1  blocking Send/Recv, low rank -> high rank, receive buffer exactly the size
 *   2  blocking Send/Recv, high -> low
 *   3  both directions at once with Irecv + Isend + Waitall, receive buffer 64 B larger
 * Every payload is a pattern seeded by (size, phase, sender), checked byte for byte, with
 * Get_count, status fields, and a guard area after the received bytes left untouched.
 */
#include "t_util.h"

#define GUARD  64
#define CANARY 0x3c
#define MAXK   26

static void check_recv(const unsigned char *rbuf, size_t n, const MPI_Status *st, int from, int tag,
                       uint64_t seed, const char *how)
{
    char what[160];
    CHECK_INT(from, st->MPI_SOURCE, t_fmt(what, sizeof what, "%s, %zu bytes: MPI_SOURCE", how, n));
    CHECK_INT(tag, st->MPI_TAG, t_fmt(what, sizeof what, "%s, %zu bytes: MPI_TAG", how, n));
    CHECK_INT(n, t_count(st, MPI_BYTE),
              t_fmt(what, sizeof what, "%s, %zu bytes: Get_count", how, n));
    t_check_fill(rbuf, n, seed, t_fmt(what, sizeof what, "%s, %zu bytes: payload", how, n));
    t_check_bytes(rbuf + n, GUARD, CANARY,
                  t_fmt(what, sizeof what, "%s, %zu bytes: guard after the message", how, n));
}

int main(int argc, char **argv)
{
    size_t maxsize = (size_t)1 << MAXK, sizes[3 * MAXK + 8];
    int nsizes = 0, k, i, partner, low;
    unsigned char *sbuf, *rbuf;
    MPI_Status st;

    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    if (argc > 1)
        maxsize = (size_t)strtoull(argv[1], NULL, 0);

    for (i = 0; i <= 3; i++)
        sizes[nsizes++] = (size_t)i;
    for (k = 2; k <= MAXK; k++) {
        size_t p = (size_t)1 << k;
        if (p - 1 > sizes[nsizes - 1])
            sizes[nsizes++] = p - 1;
        sizes[nsizes++] = p;
        sizes[nsizes++] = p + 1;
    }

    partner = t_rank ^ 1;
    low = (t_rank & 1) == 0;
    sbuf = t_malloc(maxsize + 1 + GUARD);
    rbuf = t_malloc(maxsize + 1 + GUARD);

    if (partner < t_size) {
        for (i = 0; i < nsizes && sizes[i] <= maxsize + 1; i++) {
            size_t n = sizes[i];
            int in = (int)n;
            uint64_t mine, theirs;

            /* Phase 1: low -> high; phase 2: high -> low. */
            for (k = 1; k <= 2; k++) {
                int sender = (k == 1) == low;
                uint64_t seed = t_seed(n, (uint64_t)k, (uint64_t)(sender ? t_rank : partner));
                if (sender) {
                    t_fill(sbuf, n, seed);
                    MPI_Send(sbuf, in, MPI_BYTE, partner, k, MPI_COMM_WORLD);
                } else {
                    memset(rbuf + n, CANARY, GUARD);
                    MPI_Recv(rbuf, in, MPI_BYTE, partner, k, MPI_COMM_WORLD, &st);
                    check_recv(rbuf, n, &st, partner, k, seed,
                               k == 1 ? "blocking low->high" : "blocking high->low");
                }
            }

            /* Phase 3: both directions at once. */
            {
                MPI_Request r[2];
                MPI_Status sts[2];
                mine = t_seed(n, 3, (uint64_t)t_rank);
                theirs = t_seed(n, 3, (uint64_t)partner);
                t_fill(sbuf, n, mine);
                memset(rbuf + n, CANARY, GUARD);
                MPI_Irecv(rbuf, in + GUARD, MPI_BYTE, partner, 3, MPI_COMM_WORLD, &r[0]);
                MPI_Isend(sbuf, in, MPI_BYTE, partner, 3, MPI_COMM_WORLD, &r[1]);
                MPI_Waitall(2, r, sts);
                check_recv(rbuf, n, &sts[0], partner, 3, theirs, "nonblocking exchange");
            }
        }
    }

    free(sbuf);
    free(rbuf);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
