/* vm_job: the MPI program the real-VM tests run in QEMU guests (and in simulated VMs
 * beside them). Every message carries a pattern derived from (sender, receiver, size,
 * round) and is checked byte by byte on arrival:
 *   1. ping-pong between rank 0 and every other rank, 0 B .. 1 MiB + 1, the echo
 *      transformed so a stale buffer cannot pass;
 *   2. an all-pairs exchange (every rank to every rank, sizes from 0 to ~200 KB);
 *   3. Allreduce of each rank's sent and received checksums: the job-wide sums must agree;
 *   4. Bcast of 1 MiB from the last rank, then Barrier.
 * Prints "vm_job: rank R ok ..." per rank and, on rank 0, "vm_job: N ranks agree ...".
 * Exits 1 (after MPI_Abort) on the first wrong byte. */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static uint64_t sent_sum, recv_sum, nmsgs;

static uint8_t pat(int src, int dst, size_t n, int round, size_t i)
{
    uint64_t x = (uint64_t)src * 0x9E3779B97F4A7C15ull ^ (uint64_t)dst * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)n * 0x165667B19E3779F9ull ^ (uint64_t)round << 40 ^ i * 0x27D4EB2Full;
    return (uint8_t)(x ^ x >> 29 ^ x >> 47);
}

static uint64_t fill(uint8_t *b, int src, int dst, size_t n, int round)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        b[i] = pat(src, dst, n, round, i);
        sum = sum * 131 + b[i];
    }
    return sum + n;
}

static uint64_t check(const uint8_t *b, int src, int dst, size_t n, int round, const char *what)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t want = pat(src, dst, n, round, i);
        if (b[i] != want) {
            fprintf(stderr,
                    "vm_job: rank %d: %s from %d, %zu bytes, round %d: byte %zu: expected %u, "
                    "got %u\n",
                    rank, what, src, n, round, i, want, b[i]);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        sum = sum * 131 + b[i];
    }
    return sum + n;
}

static void expect_count(const MPI_Status *st, size_t n, const char *what)
{
    int got;
    MPI_Get_count(st, MPI_BYTE, &got);
    if ((size_t)got != n) {
        fprintf(stderr, "vm_job: rank %d: %s: expected %zu bytes, got %d\n", rank, what, n, got);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void pingpong(uint8_t *a, uint8_t *b)
{
    static const size_t sizes[] = {0,    1,     7,      64,      1000,         4096,
                                   4097, 65536, 262143, 1 << 20, (1 << 20) + 1};
    for (int peer = 1; peer < size; peer++) {
        if (rank != 0 && rank != peer)
            continue;
        for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
            size_t n = sizes[k];
            MPI_Status st;
            for (int round = 0; round < 3; round++) {
                if (rank == 0) {
                    sent_sum += fill(a, 0, peer, n, round);
                    MPI_Send(a, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
                    MPI_Recv(b, (int)n, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &st);
                    expect_count(&st, n, "pong");
                    recv_sum += check(b, peer, 0, n, round + 100, "pong");
                } else {
                    MPI_Recv(b, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st);
                    expect_count(&st, n, "ping");
                    recv_sum += check(b, 0, peer, n, round, "ping");
                    /* The echo is a different pattern: a stale buffer cannot pass as it. */
                    sent_sum += fill(a, peer, 0, n, round + 100);
                    MPI_Send(a, (int)n, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
                }
                nmsgs++;
            }
        }
    }
}

static size_t pair_size(int src, int dst)
{
    size_t n = ((size_t)src * 7919 + (size_t)dst * 104729) % 200003;
    return (src + dst) % 3 == 0 ? n % 5000 : n; /* mix eager and rendezvous sizes */
}

static void all_pairs(void)
{
    uint8_t **sb = calloc(size, sizeof(*sb)), **rb = calloc(size, sizeof(*rb));
    MPI_Request *rq = calloc(2 * size, sizeof(*rq));
    MPI_Status *st = calloc(2 * size, sizeof(*st));
    for (int p = 0; p < size; p++) {
        sb[p] = malloc(pair_size(rank, p) + 1);
        rb[p] = malloc(pair_size(p, rank) + 1);
        MPI_Irecv(rb[p], (int)pair_size(p, rank), MPI_BYTE, p, 3, MPI_COMM_WORLD, &rq[p]);
    }
    for (int p = 0; p < size; p++) {
        sent_sum += fill(sb[p], rank, p, pair_size(rank, p), 7);
        MPI_Isend(sb[p], (int)pair_size(rank, p), MPI_BYTE, p, 3, MPI_COMM_WORLD, &rq[size + p]);
    }
    MPI_Waitall(2 * size, rq, st);
    for (int p = 0; p < size; p++) {
        expect_count(&st[p], pair_size(p, rank), "all-pairs");
        recv_sum += check(rb[p], p, rank, pair_size(p, rank), 7, "all-pairs");
        nmsgs++;
        free(sb[p]);
        free(rb[p]);
    }
    free(sb);
    free(rb);
    free(rq);
    free(st);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t big = (1 << 20) + 1;
    uint8_t *a = malloc(big), *b = malloc(big);

    pingpong(a, b);
    all_pairs();

    unsigned long long mine[2] = {sent_sum, recv_sum}, all[2];
    MPI_Allreduce(mine, all, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (all[0] != all[1]) {
        fprintf(stderr, "vm_job: rank %d: job-wide checksums: sent 0x%llx, received 0x%llx\n", rank,
                all[0], all[1]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == size - 1)
        fill(a, size - 1, -1, 1 << 20, 9);
    MPI_Bcast(a, 1 << 20, MPI_BYTE, size - 1, MPI_COMM_WORLD);
    check(a, size - 1, -1, 1 << 20, 9, "bcast");
    MPI_Barrier(MPI_COMM_WORLD);

    printf("vm_job: rank %d ok: %llu messages checked\n", rank, (unsigned long long)nmsgs);
    if (rank == 0)
        printf("vm_job: %d ranks agree: checksum 0x%llx\n", size, all[0]);
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
