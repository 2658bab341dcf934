/*
 * wake.c - what waiting costs: wake-up latency of a rank blocked in MPI_Recv, and the CPU
 * time such a rank uses.
 *
 *   wake [-n count] [-d delay_ms] [-c seconds] [-b count] [-i scale]
 *
 * Wake-up latency (-n, default 200; -d, default 10): rank 1 sleeps `delay` ms (so rank 0,
 * in MPI_Recv, has long gone past spinning and yielding), reads CLOCK_MONOTONIC and sends
 * those 8 bytes; rank 0 reads the clock when MPI_Recv returns. The difference is the time
 * from send to the return of the receive (one clock, one kernel: simulated VMs share it).
 * Prints one row per percentile: "P latency_us" (P = 0 is the minimum, 100 the maximum).
 *
 * CPU time (-c, default 5; 0 skips it): rank 0 blocks in MPI_Recv while rank 1 sleeps that
 * long before sending; rank 0 prints the user + system time getrusage(RUSAGE_SELF) charged
 * to its process during the receive, as a share of one core: a row "seconds percent".
 *
 * The floor under the first figure (-b, default 0: off): what the kernel charges for a
 * bare eventfd wake-up between two processes, measured in the same run. Rank 0 forks a
 * child (no MPI in it) that sleeps `delay` ms, reads the clock and writes an eventfd on
 * which rank 0 blocks in ppoll (as a sleeping IVC rank does); printed as comment rows
 * "# bare P latency_us", so that harnesses reading the MPI rows ignore them.
 *
 * Output follows the other benchmarks (bench/harness.py parses it): '#' comment lines,
 * result rows, "# Validation: OK" and the payload line last. -i scales the count.
 *
 * Plain MPI (Send/Recv/Barrier), so the same source runs against any MPI. Needs 2 ranks.
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

static void sleep_ms(double ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)((ms - (double)(long)(ms / 1000) * 1000) * 1e6)};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static const int pct[] = {0, 10, 25, 50, 75, 90, 99, 100};

/* Prints the percentiles of lat[0..n) (sorted here), each row after `prefix`. */
static void print_pct(const char *prefix, uint64_t *lat, int n)
{
    qsort(lat, (size_t)n, sizeof(*lat), cmp_u64);
    for (size_t k = 0; k < sizeof(pct) / sizeof(pct[0]); k++)
        printf("%s%-12d %.2f\n", prefix, pct[k],
               lat[(size_t)((n - 1) * pct[k] / 100.0 + 0.5)] / 1000.0);
}

/* The bare eventfd wake-up (-b): n wakes of this process by a forked child. Returns 0, or
 * -1 when a system call failed (then nothing is printed). */
static int bare_wakes(int n, double delay)
{
    int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC), back = eventfd(0, EFD_CLOEXEC);
    uint64_t *stamp = mmap(NULL, sizeof(uint64_t), PROT_READ | PROT_WRITE,
                           MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    uint64_t *lat = calloc((size_t)n, sizeof(*lat));
    if (efd < 0 || back < 0 || stamp == MAP_FAILED || lat == NULL)
        return -1;
    pid_t child = fork();
    if (child < 0)
        return -1;
    uint64_t one = 1, v;
    if (child == 0) {
        for (int i = 0; i < n; i++) {
            sleep_ms(delay);
            __atomic_store_n(stamp, now_ns(), __ATOMIC_RELEASE);
            if (write(efd, &one, sizeof(one)) < 0 || read(back, &v, sizeof(v)) < 0)
                _exit(1);
        }
        _exit(0);
    }
    for (int i = 0; i < n; i++) {
        struct pollfd pfd = {efd, POLLIN, 0};
        while (read(efd, &v, sizeof(v)) < 0)
            ppoll(&pfd, 1, NULL, NULL);
        lat[i] = now_ns() - __atomic_load_n(stamp, __ATOMIC_ACQUIRE);
        if (write(back, &one, sizeof(one)) < 0)
            break;
    }
    int status;
    waitpid(child, &status, 0);
    printf("# bare eventfd wake-up between two processes, %d wakes after %.1f ms asleep\n", n,
           delay);
    print_pct("# bare ", lat, n);
    free(lat);
    munmap(stamp, sizeof(uint64_t));
    close(efd);
    close(back);
    return 0;
}

int main(int argc, char **argv)
{
    int n = 200, bare = 0, opt;
    double delay = 10, cpu_secs = 5, scale = 1;
    MPI_Init(&argc, &argv);
    while ((opt = getopt(argc, argv, "n:d:c:b:i:")) != -1) {
        switch (opt) {
        case 'n': n = atoi(optarg); break;
        case 'd': delay = atof(optarg); break;
        case 'c': cpu_secs = atof(optarg); break;
        case 'b': bare = atoi(optarg); break;
        case 'i': scale = atof(optarg); break;
        default:
            fprintf(stderr, "usage: wake [-n count] [-d delay_ms] [-c seconds] [-b count] [-i scale]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (scale > 0 && n > 0)
        n = (int)(n * scale) > 10 ? (int)(n * scale) : 10;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "wake: needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    uint64_t *lat = calloc((size_t)(n > 0 ? n : 1), sizeof(*lat));
    if (lat == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < n; i++) {
        uint64_t t;
        if (rank == 1) {
            sleep_ms(delay);
            t = now_ns();
            MPI_Send(&t, 1, MPI_UINT64_T, 0, 1, MPI_COMM_WORLD);
        } else {
            MPI_Recv(&t, 1, MPI_UINT64_T, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            lat[i] = now_ns() - t;
        }
    }
    if (rank == 0 && n > 0) {
        printf("# wake-up latency, %d wakes after %.1f ms asleep\n", n, delay);
        printf("# Percentile  Latency (us)\n");
        print_pct("", lat, n);
    }
    if (rank == 0 && bare > 0 && bare_wakes(bare, delay) != 0)
        printf("# bare eventfd wake-up: a system call failed\n");
    if (cpu_secs > 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        int token = 0;
        if (rank == 1) {
            sleep_ms(cpu_secs * 1000);
            MPI_Send(&token, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        } else {
            double c0 = cpu_s();
            uint64_t t0 = now_ns();
            MPI_Recv(&token, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            double wall = (now_ns() - t0) / 1e9, cpu = cpu_s() - c0;
            printf("# CPU time of a rank blocked in MPI_Recv: %.3f s of %.3f s\n", cpu, wall);
            printf("# Seconds  CPU (%% of a core)\n");
            printf("%-9d %.3f\n", (int)(cpu_secs + 0.5), 100 * cpu / wall);
        }
    }
    if (rank == 0) {
        printf("# Validation: OK\n");
        printf("# Payload bytes: rank0->rank1 0 rank1->rank0 %llu\n",
               (unsigned long long)n * 8 + (cpu_secs > 0 ? 4 : 0));
    }
    fflush(stdout);
    free(lat);
    MPI_Finalize();
    return 0;
}
