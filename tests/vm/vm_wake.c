/* vm_wake: a rank that waits long in MPI_Recv, for the doorbell tests in real guests.
 *
 * Rank 1 sleeps GAP ms (usleep: it uses no CPU), reads its clock, sends rank 0 a message of
 * 64 checked bytes and waits for the reply; rank 0 waits in MPI_Recv through every gap and
 * answers at once. After N rounds:
 *   rank 0 prints the CPU time it used (getrusage) against the wall time it waited:
 *     "vm_wake: rank 0 waited W ms, cpu C ms (P%)"
 *   rank 1 prints the round trips (its clock only: the guests' clocks differ), each of which
 *   includes waking rank 0 and then rank 1 itself, since both wait on their doorbells:
 *     "vm_wake: round trip after a GAP ms gap: median M us (min A, p90 B, max X), N rounds"
 * and each rank prints "vm_wake: rank R ok" once its data checked out.
 *
 *   vm_wake [-n ROUNDS] [-g GAP_MS] [-c MAX_CPU_PERCENT]
 * -c makes rank 0 fail when it used more than that share of a core while it waited (a rank
 * that yields instead of sleeping uses all of it). Exits 1 on a wrong byte or too much CPU. */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../test_util.h"

#define LEN 64

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static double cpu_us(void)
{
    return t_cpu_seconds() * 1e6;
}

static void fill(uint8_t *b, int round, int from)
{
    for (int i = 0; i < LEN; i++)
        b[i] = (uint8_t)(round * 31 + i * 7 + from * 101);
}

static int check(const uint8_t *b, int round, int from)
{
    uint8_t want[LEN];
    fill(want, round, from);
    for (int i = 0; i < LEN; i++)
        if (b[i] != want[i]) {
            printf("vm_wake: round %d byte %d from rank %d: expected %u, got %u\n", round, i,
                   from, want[i], b[i]);
            return 0;
        }
    return 1;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int rounds = 10, gap_ms = 300, opt;
    double max_cpu = 0;
    while ((opt = getopt(argc, argv, "n:g:c:")) != -1) {
        if (opt == 'n')
            rounds = atoi(optarg);
        else if (opt == 'g')
            gap_ms = atoi(optarg);
        else if (opt == 'c')
            max_cpu = atof(optarg);
        else
            return 2;
    }
    if (rounds < 1 || rounds > 100000 || gap_ms < 0)
        return 2;
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            printf("vm_wake: needs 2 ranks, has %d\n", size);
        MPI_Finalize();
        return 1;
    }
    uint8_t buf[LEN];
    double *rtt = malloc(rounds * sizeof(*rtt));
    int ok = rtt != NULL;
    MPI_Barrier(MPI_COMM_WORLD);
    double w0 = now_us(), c0 = cpu_us();
    for (int i = 0; i < rounds && ok; i++) {
        if (rank == 1) {
            usleep((useconds_t)gap_ms * 1000);
            fill(buf, i, 1);
            double t = now_us();
            MPI_Send(buf, LEN, MPI_BYTE, 0, i, MPI_COMM_WORLD);
            MPI_Recv(buf, LEN, MPI_BYTE, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            rtt[i] = now_us() - t;
            ok = check(buf, i, 0);
        } else {
            MPI_Recv(buf, LEN, MPI_BYTE, 1, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            ok = check(buf, i, 1);
            fill(buf, i, 0);
            MPI_Send(buf, LEN, MPI_BYTE, 1, i, MPI_COMM_WORLD);
        }
    }
    double wall = now_us() - w0, cpu = cpu_us() - c0;
    if (ok && rank == 0) {
        double pct = 100 * cpu / wall;
        printf("vm_wake: rank 0 waited %.0f ms, cpu %.1f ms (%.2f%%)\n", wall / 1e3, cpu / 1e3,
               pct);
        if (max_cpu > 0 && pct > max_cpu) {
            printf("vm_wake: rank 0 used %.2f%% of a core while it waited; expected at most "
                   "%.2f%%\n", pct, max_cpu);
            ok = 0;
        }
    }
    if (ok && rank == 1) {
        qsort(rtt, rounds, sizeof(*rtt), cmp);
        printf("vm_wake: round trip after a %d ms gap: median %.0f us (min %.0f, p90 %.0f, max "
               "%.0f), %d rounds\n",
               gap_ms, rtt[rounds / 2], rtt[0], rtt[rounds * 9 / 10], rtt[rounds - 1], rounds);
    }
    /* Both must agree before either says ok: a failed check in one rank fails the job. */
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all)
        printf("vm_wake: rank %d ok\n", rank);
    fflush(stdout);
    free(rtt);
    MPI_Finalize();
    return all ? 0 : 1;
}
