/* vm_move: rank 0 streams checked messages to the other ranks for SECONDS (argv[1], default
 * 30) while their guest is live-migrated to another QEMU (vm_test.sh move): bursts of
 * nonblocking sends of mixed sizes (eager and rendezvous) and tags, each carrying a
 * sequence number and a payload derived from it; the receivers take them with
 * MPI_ANY_SOURCE/MPI_ANY_TAG and check that every one arrives once, in order, intact, then
 * answer each burst with a checksum rank 0 checks. The pairs switch shm -> network when
 * the ranks leave the old ivshmem device and network -> shm when they join the new one;
 * a message lost, duplicated, reordered or corrupted across either switch fails the run.
 * Prints "vm_move: rank R ok, N messages checked". */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BURST 6
static const int sizes[BURST] = {16, 2048, 100, 70000, 9, 300000}; /* each >= 9: the header */

static uint8_t byte_of(uint64_t seq, size_t i)
{
    return (uint8_t)(seq * 131u + i * 7u + (i >> 8));
}

static void fill(uint8_t *b, int n, uint64_t seq, int last)
{
    memcpy(b, &seq, 8);
    b[8] = (uint8_t)last;
    for (int i = 9; i < n; i++)
        b[i] = byte_of(seq, (size_t)i);
}

static uint64_t sum_of(const uint8_t *b, int n)
{
    uint64_t s = 1469598103934665603ull;
    for (int i = 0; i < n; i++)
        s = (s ^ b[i]) * 1099511628211ull;
    return s;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double secs = argc > 1 ? atof(argv[1]) : 30;
    uint8_t *buf[BURST];
    for (int k = 0; k < BURST; k++)
        buf[k] = malloc((size_t)sizes[k]);
    uint64_t checked = 0, bursts = 0;
    int bad = 0, last = 0;
    double t0 = MPI_Wtime(), report = t0 + 5;
    while (!last && !bad) {
        if (rank == 0) {
            last = MPI_Wtime() - t0 >= secs;
            for (int p = 1; p < size; p++) {
                MPI_Request req[BURST];
                uint64_t want = 1469598103934665603ull;
                for (int k = 0; k < BURST; k++) {
                    fill(buf[k], sizes[k], bursts * BURST + (uint64_t)k, last);
                    want ^= sum_of(buf[k], sizes[k]);
                    MPI_Isend(buf[k], sizes[k], MPI_BYTE, p, k, MPI_COMM_WORLD, &req[k]);
                }
                MPI_Waitall(BURST, req, MPI_STATUSES_IGNORE);
                uint64_t got;
                MPI_Recv(&got, 1, MPI_UINT64_T, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                if (got != want) {
                    printf("vm_move: burst %llu to rank %d: checksum %016llx, expected %016llx\n",
                           (unsigned long long)bursts, p, (unsigned long long)got,
                           (unsigned long long)want);
                    bad = 1;
                }
                checked += BURST;
            }
            if (MPI_Wtime() > report) {
                printf("vm_move: %.0f s, %llu messages\n", MPI_Wtime() - t0,
                       (unsigned long long)checked);
                fflush(stdout);
                report += 5;
            }
        } else {
            uint64_t sum = 1469598103934665603ull;
            for (int k = 0; k < BURST && !bad; k++) {
                MPI_Status st;
                int n;
                MPI_Recv(buf[k], sizes[k], MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                         &st);
                MPI_Get_count(&st, MPI_BYTE, &n);
                uint64_t seq;
                memcpy(&seq, buf[k], 8);
                if (st.MPI_SOURCE != 0 || st.MPI_TAG != k || n != sizes[k] ||
                    seq != bursts * BURST + (uint64_t)k) {
                    printf("vm_move: rank %d: message %llu: source %d tag %d size %d seq %llu "
                           "(lost, duplicated or reordered)\n",
                           rank, (unsigned long long)(bursts * BURST + k), st.MPI_SOURCE,
                           st.MPI_TAG, n, (unsigned long long)seq);
                    bad = 1;
                    break;
                }
                for (int i = 9; i < n && !bad; i++)
                    if (buf[k][i] != byte_of(seq, (size_t)i)) {
                        printf("vm_move: rank %d: message %llu byte %d corrupted\n", rank,
                               (unsigned long long)seq, i);
                        bad = 1;
                    }
                last = buf[k][8];
                sum ^= sum_of(buf[k], n);
                checked++;
            }
            if (!bad)
                MPI_Send(&sum, 1, MPI_UINT64_T, 0, 99, MPI_COMM_WORLD);
        }
        bursts++;
    }
    if (bad) {
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    printf("vm_move: rank %d ok, %llu messages checked\n", rank, (unsigned long long)checked);
    for (int k = 0; k < BURST; k++)
        free(buf[k]);
    MPI_Finalize();
    return all;
}
